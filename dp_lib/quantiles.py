"""Private quantiles: the exponential mechanism on a continuous range.

The output range is an interval ``[lower, upper]``, not a finite list. The
sorted data cut it into ``n + 1`` pieces; every point of a piece has the same
score (how far its rank is from the target rank), so the exponential mechanism
picks a piece with probability proportional to its length times
``exp(ε·score/2)`` and then a uniform point inside it (Smith 2011; the
"exponential mechanism for quantiles" of OpenDP and Google's library).

The data never make a release fail: a value outside the range (±inf included) is clipped to it, and NaN counts as
the midpoint of the range, for every record alike (a fixed map of each record, so neighbours stay neighbours).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .random import check_rng
from .validation import check_epsilon, check_probability, check_real

__all__ = ["quantile_intervals", "private_quantile"]


def quantile_intervals(values: ArrayLike, quantile: float, epsilon: float, lower: float,
                       upper: float) -> tuple[np.ndarray, np.ndarray]:
    """Pieces of ``[lower, upper]`` and the exponential mechanism's probability of each.

    Parameters
    ----------
    values : 1-d array of numbers (the private data); values outside
        ``[lower, upper]`` (±inf included) are clipped to it and NaN counts as the
        midpoint ``(lower + upper)/2``, for every record alike.
    quantile : float in [0, 1], e.g. 0.5 for the median.
    epsilon : float > 0.
    lower, upper : finite floats with ``lower < upper``, a PUBLIC range.

    Returns
    -------
    (edges, probabilities): ``edges`` has ``n + 2`` points (lower, the sorted
    clipped data, upper); piece ``i`` is ``[edges[i], edges[i + 1]]`` and is chosen
    with ``probabilities[i]``, proportional to its length times
    ``exp(-ε·|i - quantile·n| / 2)``.

    Privacy: the score ``-|i - quantile·n|`` of a point with ``i`` data points below
    it changes by at most max(q, 1 - q) <= 1 when one record is added or removed
    (``i`` moves by 0 or 1, ``quantile·n`` by ``quantile``), so sampling a piece
    with weights ``exp(ε·score/2)`` (then a uniform point in it) is ε-DP for
    add/remove-one neighbours; in fact max(q, 1 - q)·ε-DP. The unhalved weight
    ``exp(ε·score)`` would be ε-DP only for the median (2·max(q, 1 - q)·ε in
    general).

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> edges, p = quantile_intervals([1.0, 2.0, 3.0], 0.5, 1.0, 0.0, 4.0)
    >>> edges.tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0]
    >>> round(float(p.sum()), 12)
    1.0
    """
    data = private_values(values, "values")
    q = check_probability(quantile, "quantile")
    eps = check_epsilon(epsilon)
    low, high = _check_range(lower, upper)
    clipped = np.clip(np.where(np.isnan(data), low + (high - low) / 2, data), low, high)  # never fails on data
    edges = np.concatenate(([low], np.sort(clipped), [high]))
    lengths = np.diff(edges)
    ranks = np.arange(lengths.size)                    # data points below each piece
    distance = np.abs(ranks - q * data.size)
    with np.errstate(divide="ignore", over="ignore"):  # empty pieces, and far pieces at huge ε: weight 0
        log_weights = np.log(lengths) - eps * (distance / 2)
        if not np.isfinite(log_weights.max()):  # at huge ε every exponent overflowed: measure from the best piece
            excess = np.where(lengths > 0, distance - distance[lengths > 0].min(), np.inf)  # empty pieces: weight 0
            log_weights = np.log(lengths) - eps * (excess / 2)
    log_weights -= log_weights.max()                   # the longest-and-best piece has weight 1
    weights = np.exp(log_weights)
    return edges, weights / weights.sum()


def private_quantile(values: ArrayLike, quantile: float, epsilon: float, lower: float, upper: float, *,
                     rng: np.random.Generator) -> float:
    """Release the ``quantile`` of ``values`` with the exponential mechanism on ``[lower, upper]``.

    Parameters
    ----------
    values : 1-d array of numbers (the private data; may be empty). Values outside
        ``[lower, upper]`` (±inf included) are clipped to it; NaN counts as the midpoint
        ``(lower + upper)/2``: the same map for every record, so the data never make it fail.
    quantile : float in [0, 1].
    epsilon : float > 0.
    lower, upper : finite floats, ``lower < upper``: a public range chosen without
        looking at the data.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    float in ``[lower, upper]``.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb; here a far
    piece's probability can underflow to exactly 0 on one data set and not on its neighbour, Ilvento 2020)
    for add/remove-one neighbours (exponential mechanism with
    weights exp(ε·score/2), the score's sensitivity being max(q, 1 - q) <= 1;
    McSherry & Talwar 2007, Smith 2011). Empty data gives
    a uniform point of the range, never an error.

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> ages = [23, 35, 38, 41, 52, 67]
    >>> 0 <= private_quantile(ages, 0.5, 1.0, 0, 100, rng=make_rng(7)) <= 100
    True
    """
    edges, probabilities = quantile_intervals(values, quantile, epsilon, lower, upper)
    generator = check_rng(rng)
    piece = generator.choice(probabilities.size, p=probabilities)
    return float(generator.uniform(edges[piece], edges[piece + 1]))


def private_values(values: ArrayLike, name: str) -> np.ndarray:
    """A 1-d float array of private data; NaN and ±inf stay (each release maps them the same way for every record).

    A wrong type (not an array of numbers) raises TypeError and a wrong shape ValueError, both naming ``name``:
    these are properties of the call, not of any one record.
    """
    raw = np.asarray(values) if not isinstance(values, (str, bytes, dict, set)) and values is not None else None
    if raw is None or raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a 1-d array of numbers, got {type(values).__name__}")
    if raw.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {raw.shape}")
    return raw.astype(float)


def _check_range(lower, upper):
    low, high = check_real(lower, "lower"), check_real(upper, "upper")
    if not (low < high and np.isfinite(high - low)):
        raise ValueError(f"lower and upper must satisfy lower < upper with a finite width, got {lower!r}, {upper!r}")
    return low, high
