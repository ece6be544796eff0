"""Mironov's floating-point attack: which float outputs can a float Laplace mechanism produce at all?

A float sampler maps finitely many uniforms to finitely many outputs, and
``true_answer + noise`` is rounded to a double. The outputs reachable from
f(D) = 0 and from f(D') = 1 are then different sets of doubles, and an output
reachable from one input but not the other reveals the input with certainty
(Mironov, CCS 2012). The test inverts the sampler: the map from the uniform's
grid index k to the output is non-decreasing, so a binary search over k finds
the only candidates.

Samplers modelled (the documented formula, uniform grid -> output):

- ``"dp_lib"``: ``laplace_mech`` / ``sample_laplace``: u = (k + 1/2)/2**52, k in
  [0, 2**52), output = true_answer + ``laplace_inverse_cdf(u, 0, scale)``.
- ``"numpy"``: ``Generator.laplace(loc, scale)``: U = k/2**53, k in [1, 2**53),
  loc - scale*log(2 - U - U) for U >= 1/2, loc + scale*log(U + U) below.

A replay is exact only if it uses the very logarithm the sampler used. The book's sampler calls
``np.log`` and its replay calls the same function (``laplace_inverse_cdf``). numpy's
``Generator.laplace`` calls the C library's ``log`` one value at a time, which ``np.log`` need not
match: on CPUs with AVX-512, numpy's vectorised ``np.log`` differs from it in the last bit for about
one input in 300. Its replay therefore calls ``math.log``, which is the C library's ``log``. Which
doubles are reachable is thus a property of the platform's logarithm, not of the formula alone.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .noise import check_noise_range, laplace_inverse_cdf
from .validation import check_choice, check_finite_array, check_int, check_positive

__all__ = ["laplace_output_at", "laplace_reachable", "distinguishing_share"]

_GRIDS = {"dp_lib": (0, 2**52), "numpy": (1, 2**53)}  # k ranges over [low, high)


def _check_sampler(sampler):
    return check_choice(sampler, "sampler", tuple(sorted(_GRIDS)))


def _check_index(k, low, high):
    """Grid indices as int64: an int or an array of ints in [low, high).

    Floats (even 3.0: indices reach 2**53, beyond exact floats), booleans, strings and None are the
    wrong type (TypeError); an index outside [low, high) is a wrong value (ValueError).
    """
    if not hasattr(k, "__len__") or isinstance(k, (str, bytes)):  # one index
        return np.asarray(check_int(k, "k", minimum=low, maximum=high - 1), dtype=np.int64)
    try:
        arr = np.asarray(k)
    except (TypeError, ValueError):
        raise ValueError(f"k must be a rectangular array of integer grid indices, got {k!r:.80}") from None
    if arr.dtype == object and all(isinstance(v, int) and not isinstance(v, bool) for v in arr.flat):
        raise ValueError(f"k must be integer grid indices in [{low}, {high}), got {k!r:.80}")  # ints beyond uint64
    if arr.size and arr.dtype.kind not in "iu":  # an empty list (float dtype) asks for no index
        raise TypeError(f"k must be integer grid indices (ints, not floats, booleans or strings), got {k!r:.80}")
    if arr.size and (arr.min() < low or arr.max() >= high):
        raise ValueError(f"k must be integer grid indices in [{low}, {high}), got {k!r:.80}")
    return arr.astype(np.int64)


def _c_log(x):
    """The C library's natural logarithm, element by element (what numpy's samplers call)."""
    x = np.asarray(x, dtype=float)
    return np.fromiter(map(math.log, x.ravel()), dtype=float, count=x.size).reshape(x.shape)


def laplace_output_at(k: ArrayLike, true_answer: float, scale: float, sampler: str = "dp_lib") -> np.ndarray:
    """The float that the Laplace mechanism outputs when its uniform has grid index k.

    Parameters
    ----------
    k : int or integer array, grid index in [0, 2**52) for "dp_lib", [1, 2**53) for "numpy"
        (floats, booleans and strings are a TypeError).
    true_answer : float, f(D).
    scale : float > 0, the noise scale b.
    sampler : "dp_lib" or "numpy" (see the module docstring).

    Returns
    -------
    float array shaped like ``k``.

    Privacy: none: a helper that touches no private data (it replays the sampler).

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    The book's sampler and numpy's, replayed from the grid indices that their generators drew:

    >>> from dp_lib import laplace_mech, make_rng
    >>> k = make_rng(7).integers(0, 2**52, size=1000)
    >>> y = laplace_mech([1.0] * 1000, sensitivity=1.0, epsilon=1.0, rng=make_rng(7))
    >>> bool((laplace_output_at(k, 1.0, 1.0) == y).all())
    True
    >>> k = (make_rng(9).bit_generator.random_raw(1000) >> 11).astype(np.int64)  # numpy's 53-bit U
    >>> z = make_rng(9).laplace(1.0, 1.0, size=1000)
    >>> bool((laplace_output_at(k, 1.0, 1.0, sampler="numpy") == z).all())
    True
    """
    low, high = _GRIDS[_check_sampler(sampler)]
    k = _check_index(k, low, high)
    loc = float(check_finite_array(true_answer, "true_answer", ndim=0))
    b = check_positive(scale, "scale")
    check_noise_range(b, loc)  # |loc| + 36.04 b finite; numpy's grid reaches 36.74 b, checked below
    if sampler == "numpy" and not math.isfinite(abs(loc) + 37 * b):
        raise ValueError(f"scale {b:g} is large enough for Lap({b:g}) outputs around {loc:g} to overflow float64")
    if sampler == "dp_lib":
        return loc + laplace_inverse_cdf((k + 0.5) * 2.0**-52, 0.0, b)
    u = k * 2.0**-53  # k >= 1: both logarithms' arguments lie in (0, 2)
    above = u >= 0.5
    t = _c_log(np.where(above, 2.0 - u - u, u + u))  # the C library's log, as numpy's sampler
    return np.where(above, loc - b * t, loc + b * t)


def laplace_reachable(released: ArrayLike, true_answer: float, scale: float, sampler: str = "dp_lib") -> np.ndarray:
    """Whether each released float can be produced at all by the float Laplace mechanism on ``true_answer``.

    Binary search for the smallest grid index k whose output is >= the released
    value (the map is non-decreasing in k), then compare exactly.

    Parameters
    ----------
    released : float or array of floats, the outputs seen.
    true_answer : float, the hypothesised f(D).
    scale : float > 0, the noise scale b.
    sampler : "dp_lib" or "numpy".

    Returns
    -------
    bool array shaped like ``released``.

    Privacy: none: a helper for the attacker; False means "not from this input", with certainty.

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import laplace_mech, make_rng
    >>> y = laplace_mech([0.0] * 5, sensitivity=1.0, epsilon=1.0, rng=make_rng(1))
    >>> laplace_reachable(y, 0.0, 1.0).all()
    np.True_
    """
    y = check_finite_array(released, "released")
    low, high = _GRIDS[_check_sampler(sampler)]
    lo = np.full(y.shape, low, dtype=np.int64)
    hi = np.full(y.shape, high, dtype=np.int64)  # invariant: output(lo - 1) < y <= output(hi), output(high) = +inf
    while np.any(lo < hi):
        mid = lo + (hi - lo) // 2
        below = laplace_output_at(np.minimum(mid, high - 1), true_answer, scale, sampler) < y
        active = lo < hi
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
    hit = laplace_output_at(np.minimum(lo, high - 1), true_answer, scale, sampler) == y
    return hit & (lo < high)


def distinguishing_share(released: ArrayLike, true_answer: float, scale: float, sampler: str = "dp_lib") -> float:
    """Share of released values that the Laplace mechanism on ``true_answer`` cannot produce.

    Parameters
    ----------
    released : array of floats (outputs of the mechanism run on some other input).
    true_answer : float, the alternative f(D).
    scale : float > 0.
    sampler : "dp_lib" or "numpy".

    Returns
    -------
    float in [0, 1]: on this share of outputs the privacy loss is infinite.

    Privacy: none: a helper that measures the attack.

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import laplace_mech, make_rng
    >>> y = laplace_mech([1.0] * 2000, sensitivity=1.0, epsilon=1.0, rng=make_rng(1))
    >>> distinguishing_share(y, 0.0, 1.0) > 0.8
    True
    """
    reachable = laplace_reachable(released, true_answer, scale, sampler)
    return float(1.0 - reachable.mean()) if reachable.size else 0.0
