"""Marginal-based synthetic data: measure low-order marginals with Gaussian noise, fit one distribution, sample it.

The recipe of MST and AIM (McKenna et al.) and of the Private-PGM package, reduced to a domain small enough to hold
every cell: the marginals are measured under zCDP, iterative proportional fitting (IPF) finds a table that agrees
with all of them as well as it can, and the synthetic records are drawn from that table. Only the measurement
touches the data; the fit and the sampling are post-processing.

The chapter: chapters/13_query_release.ipynb.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .random import check_rng
from .validation import check_finite_array, check_int, check_positive

__all__ = ["measure_marginals", "fit_marginals", "sample_records"]

_MAX_COUNT = 2.0**53  # counts and totals stay exact in float64 (and their sums finite)


def _check_histogram(counts, name: str) -> np.ndarray:
    if not isinstance(counts, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(counts).__name__}")
    c = check_finite_array(counts, name, allow_empty=False)
    if c.ndim < 1 or np.any(c < 0) or np.any(c > _MAX_COUNT):
        raise ValueError(f"{name} must be an array of non-negative counts below 2**53, one axis per attribute")
    return c


def _check_marginals(marginals, ndim: int) -> list[tuple[int, ...]]:
    if not isinstance(marginals, (list, tuple)) or not marginals:
        raise TypeError("marginals must be a non-empty list of tuples of attribute positions")
    out = []
    for attrs in marginals:
        if not isinstance(attrs, tuple) or not attrs:
            raise TypeError(f"marginals must hold tuples of attribute positions, got {attrs!r}")
        a = tuple(check_int(i, "marginals", minimum=0, maximum=ndim - 1) for i in attrs)
        if len(set(a)) != len(a) or list(a) != sorted(a):
            raise ValueError(f"marginals must hold increasing, distinct attribute positions, got {attrs!r}")
        out.append(a)
    return out


def _marginal(table: np.ndarray, attrs: tuple[int, ...]) -> np.ndarray:
    """Sum ``table`` over every axis not in ``attrs``."""
    return table.sum(axis=tuple(i for i in range(table.ndim) if i not in attrs))


def measure_marginals(counts: np.ndarray, marginals: list, rho: float, *, rng: np.random.Generator) -> dict:
    """Measure each marginal of the histogram with Gaussian noise, splitting the zCDP budget ρ equally.

    Each marginal is a histogram (L2 sensitivity 1 under add/remove-one), measured at ρ/k with
    σ = 1/√(2ρ/k) = √(k/(2ρ)); k measurements compose to ρ-zCDP.

    Parameters
    ----------
    counts : numpy array of counts, one axis per attribute.  marginals : list of k tuples of attribute positions.
    rho : float > 0, the total zCDP budget.  rng : numpy.random.Generator (keyword-only).

    Returns
    -------
    dict: attribute tuple -> noisy marginal (float array, may be negative); key ``"sigma"`` -> the noise sd.

    Privacy: ρ-zCDP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb) for
    add/remove-one neighbours (Bun & Steinke 2016: Gaussian ρ = 1/(2σ²) per histogram, composition adds ρ).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> m = measure_marginals(np.array([[5, 0], [3, 2]]), [(0,), (1,)], 1.0, rng=make_rng(0))
    >>> round(m["sigma"], 4), m[(0,)].round(1).tolist()
    (1.0, [5.1, 4.9])
    """
    table = _check_histogram(counts, "counts")
    attrs_list = _check_marginals(marginals, table.ndim)
    rho = check_positive(rho, "rho")
    if rho < 1e-300:
        raise ValueError(f"rho must be at least 1e-300 (the noise scale must be a finite float), got {rho!r}")
    sigma = float(np.sqrt(len(attrs_list) / (2.0 * rho)))
    rng = check_rng(rng)
    out: dict = {"sigma": sigma}
    for attrs in attrs_list:
        true = _marginal(table, attrs)
        out[attrs] = true + rng.normal(0.0, sigma, size=true.shape)
    return out


def fit_marginals(shape: tuple, measurements: dict, total: float, iterations: int = 50) -> np.ndarray:
    """Iterative proportional fitting: a non-negative table with ``total`` records whose marginals match the
    measurements as well as they can.

    The noisy marginals are first clipped at 0 and rescaled to ``total``; then each sweep visits every marginal and
    multiplies each cell by target / current marginal (cells of an empty current marginal stay 0).

    Parameters
    ----------
    shape : tuple of ints, the domain.  measurements : dict from ``measure_marginals``.  total : float > 0, the
    number of records (public or measured).  iterations : int >= 1, sweeps over the marginals.

    Returns
    -------
    numpy float array of ``shape``: non-negative, sums to ``total``.

    Privacy: post-processing of the measurements (it never sees the data): the measurements' guarantee.

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> fit = fit_marginals((2, 2), {(0,): np.array([5.0, 5.0]), (1,): np.array([8.0, 2.0])}, 10.0)
    >>> fit.round(1).tolist()
    [[4.0, 1.0], [4.0, 1.0]]
    """
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape must be a tuple of ints, got {type(shape).__name__}")
    dims = tuple(check_int(s, "shape", minimum=1, maximum=2**22) for s in shape)
    if not dims or np.prod(dims, dtype=float) > 2**24:
        raise ValueError(f"shape must list at least one attribute and at most 2**24 cells, got {shape!r}")
    if not isinstance(measurements, dict):
        raise TypeError(f"measurements must be a dict, got {type(measurements).__name__}")
    attrs_list = _check_marginals([k for k in measurements if k != "sigma"], len(dims))
    n, sweeps = check_positive(total, "total"), check_int(iterations, "iterations", minimum=1, maximum=10_000)
    if not 1.0 <= n <= _MAX_COUNT:
        raise ValueError(f"total must be a number of records between 1 and 2**53, got {total!r}")
    targets = {}
    for attrs in attrs_list:
        noisy = check_finite_array(measurements[attrs], "measurements")
        if np.any(np.abs(noisy) > _MAX_COUNT):
            raise ValueError("measurements must be below 2**53 in magnitude")
        if noisy.shape != tuple(dims[a] for a in attrs):
            raise ValueError(f"measurements[{attrs}] must have shape {tuple(dims[a] for a in attrs)}")
        clipped = np.clip(noisy, 0.0, None)
        targets[attrs] = clipped * (n / clipped.sum()) if clipped.sum() > 0 else np.full(noisy.shape, n / noisy.size)
    table = np.full(dims, n / np.prod(dims))
    for _ in range(sweeps):
        for attrs, target in targets.items():
            current = _marginal(table, attrs)
            ratio = np.divide(target, current, out=np.zeros_like(current), where=current > 0)
            table = table * np.expand_dims(ratio, tuple(i for i in range(len(dims)) if i not in attrs))
    return table * (n / table.sum())


def sample_records(table: np.ndarray, n: int, domain: dict, *, rng: np.random.Generator) -> pd.DataFrame:
    """Draw ``n`` synthetic records from a fitted table: cells with probability proportional to their weight.

    Parameters
    ----------
    table : non-negative numpy array (one axis per attribute).  n : int >= 0, the number of records.
    domain : dict attribute -> sequence of values, one entry per axis of ``table``, in order.
    rng : numpy.random.Generator (keyword-only).

    Returns
    -------
    DataFrame with one column per attribute of ``domain``.

    Privacy: post-processing of ``table`` (it never sees the data): the table's guarantee.

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> df = sample_records(np.array([[3.0, 1.0], [0.0, 0.0]]), 4, {"a": ("x", "y"), "b": ("u", "v")},
    ...                     rng=make_rng(1))
    >>> sorted(df["a"].unique())
    ['x']
    """
    weights = _check_histogram(table, "table")
    count = check_int(n, "n", minimum=0, maximum=10**8)
    if not isinstance(domain, dict):
        raise TypeError(f"domain must be a dict, got {type(domain).__name__}")
    if tuple(len(v) for v in domain.values()) != weights.shape or weights.sum() <= 0:
        raise ValueError("domain must list one value per index of each axis of table, and table must not be all 0")
    p = weights.ravel() / weights.sum()
    cells = check_rng(rng).choice(p.size, size=count, p=p)
    index = np.unravel_index(cells, weights.shape)
    return pd.DataFrame({name: np.asarray(values, dtype=object)[index[i]]
                         for i, (name, values) in enumerate(domain.items())})
