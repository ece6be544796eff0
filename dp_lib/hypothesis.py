"""A private test of independence in a 2×2 table, with its null distribution simulated from the private release.

The release is the 2×2 contingency table with Laplace(1/ε) noise in each cell. Reading it with the classical χ²
test ignores the noise and rejects true null hypotheses far too often; the Monte Carlo test of Gaboardi, Lim,
Rogers & Vadhan (2016) estimates the null model from the noisy margins, draws tables from it, adds the SAME noise,
and compares the observed statistic with those draws (with Laplace noise here, where the paper uses Gaussian).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .mechanisms import laplace_mech
from .random import check_rng
from .validation import check_epsilon, check_finite_array, check_int, check_probability

__all__ = ["TableRelease", "private_table", "table_from_counts", "chi_square_statistic", "classical_p_value",
           "independence_test", "rejection_rate"]


@dataclass(frozen=True)
class TableRelease:
    """A noisy 2×2 table (rows: groups, columns: outcome False/True), cells clipped at 0; ``table`` is (..., 2, 2).

    Parameters
    ----------
    table : array (..., 2, 2), the released cells.
    epsilon : the ε of the release.

    Returns
    -------
    A frozen record; ``scale`` is the Laplace scale of each cell.

    Privacy: a record of ``private_table``; releasing it costs nothing more.

    Used in: chapters/08_private_statistics.ipynb, through ``private_table``

    Examples
    --------
    >>> TableRelease(np.ones((2, 2)), 0.5).scale
    2.0
    """

    table: np.ndarray
    epsilon: float

    @property
    def scale(self) -> float:
        """Laplace scale of each cell: 1/ε."""
        return 1 / self.epsilon


def _flags(values, name: str) -> np.ndarray:
    raw = np.asarray(values) if not isinstance(values, (str, bytes, dict, set)) and values is not None else None
    if raw is None or raw.dtype.kind not in "biuf" or raw.ndim != 1:
        raise TypeError(f"{name} must be a 1-d array of booleans or 0/1 numbers, got {type(values).__name__}")
    return raw == 1


def private_table(groups: ArrayLike, outcomes: ArrayLike, epsilon: float, *,
                  rng: np.random.Generator) -> TableRelease:
    """Release the 2×2 table of (group, outcome) counts with Laplace(1/ε) noise in every cell.

    Parameters
    ----------
    groups, outcomes : 1-d arrays of booleans (or 0/1) of one length, the private data; any other value (NaN
        included) counts as False, for every record alike.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    TableRelease

    Privacy: ε-DP in exact arithmetic for add/remove-one neighbours: a histogram whose cells each record falls in
    exactly one of (L1 sensitivity 1), with Laplace(1/ε) per cell; clipping at 0 is post-processing.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> release = private_table([True, False] * 500, [True, True, False, False] * 250, 1.0, rng=make_rng(0))
    >>> np.round(release.table, -1).tolist()
    [[250.0, 250.0], [250.0, 250.0]]
    """
    g, y = _flags(groups, "groups"), _flags(outcomes, "outcomes")
    if g.size != y.size:
        raise ValueError(f"groups and outcomes must have the same length, got {g.size} and {y.size}")
    counts = np.array([[np.sum(~g & ~y), np.sum(~g & y)], [np.sum(g & ~y), np.sum(g & y)]], dtype=float)
    return table_from_counts(counts, epsilon, rng=rng)


def table_from_counts(counts: ArrayLike, epsilon: float, *, rng: np.random.Generator) -> TableRelease:
    """``private_table`` from exact counts of shape (..., 2, 2): one release per table.

    Parameters
    ----------
    counts : array (..., 2, 2) of exact counts.
    epsilon : float > 0 (at least 1e-250).
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    TableRelease

    Privacy: as ``private_table`` (each table ε-DP for add/remove-one neighbours, in exact arithmetic).

    Used in: chapters/08_private_statistics.ipynb, through ``private_table``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> table_from_counts([[10, 20], [30, 40]], 1000.0, rng=make_rng(0)).table.round().tolist()
    [[10.0, 20.0], [30.0, 40.0]]
    """
    exact, eps = check_finite_array(counts, "counts"), check_epsilon(epsilon)
    if not 1 / eps < 1e250:
        raise ValueError(f"epsilon must be at least 1e-250 (the noise scale is 1/ε), got {epsilon!r}")
    if exact.shape[-2:] != (2, 2):
        raise ValueError(f"counts must have shape (..., 2, 2), got {exact.shape}")
    noisy = np.asarray(laplace_mech(exact, 1.0, eps, rng=check_rng(rng)))
    return TableRelease(np.maximum(noisy, 0.0), eps)


def chi_square_statistic(table: ArrayLike) -> float | np.ndarray:
    """Pearson's χ² = Σ (observed - expected)²/expected of 2×2 tables (..., 2, 2); 0 where a margin is empty.

    Parameters
    ----------
    table : array (..., 2, 2) of non-negative numbers.

    Returns
    -------
    float or array of the leading shape.

    Privacy: post-processing when ``table`` is a release.

    Used in: chapters/08_private_statistics.ipynb, through ``independence_test``

    Examples
    --------
    >>> round(float(chi_square_statistic([[30, 70], [50, 50]])), 3)
    8.333
    """
    t = check_finite_array(table, "table")
    if t.shape[-2:] != (2, 2):
        raise ValueError(f"table must have shape (..., 2, 2), got {t.shape}")
    total = t.sum(axis=(-2, -1), keepdims=True)
    expected = t.sum(axis=-1, keepdims=True) * t.sum(axis=-2, keepdims=True) / np.maximum(total, 1e-300)
    safe = np.where(expected > 0, expected, 1.0)
    stat = np.sum(np.where(expected > 0, (t - expected) ** 2 / safe, 0.0), axis=(-2, -1))
    return stat if stat.ndim else float(stat)


def classical_p_value(statistic: ArrayLike) -> float | np.ndarray:
    """The classical p-value P(χ²₁ ≥ statistic) = erfc(√(statistic/2)): valid WITHOUT noise, wrong with it.

    Parameters
    ----------
    statistic : float or array, χ² values (negative values count as 0).

    Returns
    -------
    float or array of p-values.

    Privacy: post-processing.

    Used in: chapters/08_private_statistics.ipynb, through ``rejection_rate``

    Examples
    --------
    >>> round(float(classical_p_value(3.841)), 3)
    0.05
    """
    stat = np.maximum(check_finite_array(statistic, "statistic"), 0.0)
    p = np.vectorize(lambda x: math.erfc(math.sqrt(x / 2)), otypes=[float])(stat)
    return p if p.ndim else float(p)


def independence_test(release: TableRelease, *, rng: np.random.Generator, draws: int = 1000) -> tuple:
    """Monte Carlo p-value of the private χ² statistic under independence (Gaboardi et al. 2016, MC test).

    The null model: n̂ = the noisy total, row and column shares from the noisy margins, cells multinomial with
    the product of the shares; each of ``draws`` null tables gets Laplace(1/ε) per cell and the same clipping.
    p = (1 + #{null statistic >= observed}) / (1 + draws).

    Parameters
    ----------
    release : TableRelease (one table or many).
    rng : numpy.random.Generator (keyword-only, required).
    draws : int >= 1, the number of null tables per release.

    Returns
    -------
    (statistic, p_value), floats or arrays (one per release table).

    Privacy: post-processing of the release.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> release = table_from_counts([[400, 100], [350, 150]], 1.0, rng=make_rng(1))
    >>> stat, p = independence_test(release, rng=make_rng(2), draws=200)
    >>> p < 0.01
    True
    """
    if not isinstance(release, TableRelease):
        raise TypeError(f"release must be a TableRelease, got {type(release).__name__}")
    generator, b = check_rng(rng), check_int(draws, "draws", minimum=1, maximum=10**6)
    t = release.table
    total = np.maximum(t.sum(axis=(-2, -1)), 1.0)
    cells = (t.sum(axis=-1)[..., :, None] * t.sum(axis=-2)[..., None, :]) / total[..., None, None] ** 2
    cells = np.where(cells.sum(axis=(-2, -1), keepdims=True) > 0, cells, 0.25).reshape(t.shape[:-2] + (1, 4))
    n = np.round(np.minimum(total, 2.0**53)).astype(np.int64)[..., None]       # n̂ (capped where a float is exact)
    null = generator.multinomial(n, np.broadcast_to(cells, t.shape[:-2] + (b, 4))).reshape(t.shape[:-2] + (b, 2, 2))
    null_stat = chi_square_statistic(table_from_counts(null, release.epsilon, rng=generator).table)
    stat = np.asarray(chi_square_statistic(t))
    p = (1 + np.sum(null_stat >= stat[..., None], axis=-1)) / (1 + b)
    return (float(stat), float(p)) if stat.ndim == 0 else (stat, p)


def rejection_rate(cell_probabilities: ArrayLike, n: int, epsilon: float, trials: int, *, rng: np.random.Generator,
                   alpha: float = 0.05, draws: int = 500) -> dict:
    """Share of ``trials`` data sets of size ``n`` (drawn from ``cell_probabilities``) whose test rejects at ``alpha``.

    Parameters
    ----------
    cell_probabilities : 2×2 probabilities summing to 1 (independence: an outer product).
    n : int >= 1, the size of each data set.
    epsilon : float > 0, the release's ε.
    trials : int, the number of simulated data sets.
    rng : numpy.random.Generator (keyword-only, required).
    alpha : float in [0, 1], the level.
    draws : int, null tables per Monte Carlo test.

    Returns
    -------
    {"private": rate of the Monte Carlo test, "classical": rate of the χ²₁ p-value on the noisy table,
    "trials": trials}. Under independence the rates measure the size, otherwise the power.

    Privacy: a simulation on public probabilities: nothing private is released.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rejection_rate([[0.3, 0.2], [0.3, 0.2]], 200, 1.0, 50, rng=make_rng(0))["trials"]
    50
    """
    probs = check_finite_array(cell_probabilities, "cell_probabilities")
    if probs.shape != (2, 2) or np.any(probs < 0) or not math.isclose(probs.sum(), 1.0, abs_tol=1e-9):
        raise ValueError("cell_probabilities must be a 2×2 table of probabilities that sum to 1")
    generator, level = check_rng(rng), check_probability(alpha, "alpha")
    size, runs = check_int(n, "n", minimum=1), check_int(trials, "trials", minimum=1, maximum=10**5)
    exact = generator.multinomial(size, probs.ravel() / probs.sum(), runs).reshape(runs, 2, 2)
    release = table_from_counts(exact, epsilon, rng=generator)
    _, p_private = independence_test(release, rng=generator, draws=draws)
    p_classical = classical_p_value(chi_square_statistic(release.table))
    return {"private": float(np.mean(p_private <= level)), "classical": float(np.mean(p_classical <= level)),
            "trials": runs}
