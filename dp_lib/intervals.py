"""Confidence intervals from a private release, and their coverage measured by simulation.

Three intervals for a ``MeanRelease`` or a ``ProportionRelease`` (dp_lib.statistics): the naive one, which ignores
the DP noise; the noise-aware normal one, which adds the known noise variance; and the parametric bootstrap of
Ferrando, Wang & Sheldon (2022), which re-runs the release's own mechanism on data drawn from the fitted model.
All three are post-processing of the release: they cost no privacy.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .audit import clopper_pearson
from .random import check_rng, make_rng
from .statistics import MeanRelease, ProportionRelease, mean_from_sums, proportion_from_counts
from .validation import check_finite_array, check_int, check_probability

__all__ = ["sampling_variance", "noise_variance", "naive_interval", "noise_aware_interval", "bootstrap_interval",
           "coverage_interval", "simulate_coverage"]


def _check_release(release):
    if not isinstance(release, (MeanRelease, ProportionRelease)):
        raise TypeError(f"release must be a MeanRelease or a ProportionRelease, got {type(release).__name__}")
    return release


def _estimate(release):
    return np.asarray(release.mean if isinstance(release, MeanRelease) else release.proportion, dtype=float)


def sampling_variance(release: MeanRelease | ProportionRelease) -> np.ndarray:
    """Plug-in variance of the estimate from sampling alone: s²/n for a mean, p(1 - p)/n for a proportion.

    Parameters
    ----------
    release : MeanRelease or ProportionRelease (floats or arrays).

    Returns
    -------
    numpy array (0-d for a single release).

    Privacy: post-processing of the release.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib.statistics import ProportionRelease
    >>> float(sampling_variance(ProportionRelease(0.5, 100.0, 1.0)))
    0.0025
    """
    r = _check_release(release)
    spread = r.variance if isinstance(r, MeanRelease) else _estimate(r) * (1 - _estimate(r))
    return np.asarray(spread, dtype=float) / np.asarray(r.count, dtype=float)


def noise_variance(release: MeanRelease | ProportionRelease) -> np.ndarray:
    """Variance the DP noise adds to the estimate (delta method on the ratio of noisy sums).

    Mean: (2·b_sum² + d²·2·b_count²)/n² with d the centred mean. Proportion p = c₁/(c₁ + c₀), Laplace(b) on each:
    2b²((1 - p)² + p²)/n².

    Parameters
    ----------
    release : MeanRelease or ProportionRelease (floats or arrays).

    Returns
    -------
    numpy array (0-d for a single release).

    Privacy: post-processing of the release (the scales are public).

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib.statistics import ProportionRelease
    >>> float(noise_variance(ProportionRelease(0.5, 100.0, 1.0)))
    0.0001
    """
    r = _check_release(release)
    n, theta = np.asarray(r.count, dtype=float), _estimate(r)
    if isinstance(r, MeanRelease):
        d = theta - (r.lower + r.half_width)
        return (2 * r.sum_scale**2 + d**2 * 2 * r.count_scale**2) / n**2
    return 2 * r.scale**2 * ((1 - theta) ** 2 + theta**2) / n**2


def _z(confidence) -> float:
    return NormalDist().inv_cdf((1 + check_probability(confidence, "confidence", low_open=True, high_open=True)) / 2)


def naive_interval(release: MeanRelease | ProportionRelease, confidence: float = 0.95) -> tuple:
    """estimate ± z·√(sampling variance): the textbook interval that IGNORES the DP noise (it undercovers).

    Parameters
    ----------
    release : MeanRelease or ProportionRelease (floats or arrays).
    confidence : float in (0, 1).

    Returns
    -------
    (low, high), floats or arrays.

    Privacy: post-processing of the release.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib.statistics import ProportionRelease
    >>> [round(float(x), 3) for x in naive_interval(ProportionRelease(0.5, 100.0, 1.0))]
    [0.402, 0.598]
    """
    half = _z(confidence) * np.sqrt(sampling_variance(release))
    return _estimate(release) - half, _estimate(release) + half


def noise_aware_interval(release: MeanRelease | ProportionRelease, confidence: float = 0.95) -> tuple:
    """estimate ± z·√(sampling variance + noise variance): the normal interval that adds the known DP noise.

    Parameters
    ----------
    release : MeanRelease or ProportionRelease (floats or arrays).
    confidence : float in (0, 1).

    Returns
    -------
    (low, high), floats or arrays.

    Privacy: post-processing of the release.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib.statistics import ProportionRelease
    >>> [round(float(x), 3) for x in noise_aware_interval(ProportionRelease(0.5, 100.0, 1.0))]
    [0.4, 0.6]
    """
    half = _z(confidence) * np.sqrt(sampling_variance(release) + noise_variance(release))
    return _estimate(release) - half, _estimate(release) + half


def _bootstrap_estimates(r, draws: int, rng) -> np.ndarray:
    """Re-run the release's mechanism on ``draws`` data sets from the fitted model (last axis: the draws)."""
    theta, n = _estimate(r)[..., None], np.round(np.asarray(r.count, dtype=float))[..., None]
    shape = theta.shape[:-1] + (draws,)
    if isinstance(r, ProportionRelease):
        ones = rng.binomial(n.astype(np.int64), theta, shape)                 # data from Binomial(n̂, p̂)
        return proportion_from_counts(ones, n - ones, r.epsilon, rng=rng).proportion
    centred, sd = theta - (r.lower + r.half_width), np.sqrt(np.asarray(r.variance, dtype=float))[..., None]
    sums = n * centred + np.sqrt(n) * sd * rng.standard_normal(shape)         # Σ(x - m) of n̂ model draws (CLT)
    return mean_from_sums(np.broadcast_to(n, shape), sums, np.zeros(shape), r.lower, r.upper, r.epsilon,
                          rng=rng).mean


def bootstrap_interval(release: MeanRelease | ProportionRelease, confidence: float = 0.95, *, rng: np.random.Generator,
                       draws: int = 1000) -> tuple:
    """Parametric bootstrap (Ferrando, Wang & Sheldon 2022): the basic interval [2θ̂ - q_hi, 2θ̂ - q_lo].

    The fitted model (Binomial(n̂, p̂) for a proportion; n̂ values of mean θ̂ and variance s² for a mean, their sum
    drawn by the central limit theorem) generates ``draws`` data sets; the SAME mechanism, noise included, is run
    on each; q_lo, q_hi are the (1 ∓ confidence)/2 quantiles of those estimates.

    Parameters
    ----------
    release : MeanRelease or ProportionRelease (floats or arrays).
    confidence : float in (0, 1).
    rng : numpy.random.Generator (keyword-only, required).
    draws : int >= 2, bootstrap data sets per release.

    Returns
    -------
    (low, high), floats or arrays.

    Privacy: post-processing of the release (only public scales and
    released values are used).

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> from dp_lib.statistics import ProportionRelease
    >>> low, high = bootstrap_interval(ProportionRelease(0.5, 100.0, 1.0), rng=make_rng(0))
    >>> 0.38 < low < 0.42 and 0.58 < high < 0.62
    True
    """
    r, generator = _check_release(release), check_rng(rng)
    tail = (1 - check_probability(confidence, "confidence", low_open=True, high_open=True)) / 2
    estimates = _bootstrap_estimates(r, check_int(draws, "draws", minimum=2, maximum=10**7), generator)
    q_lo, q_hi = np.quantile(estimates, [tail, 1 - tail], axis=-1)
    low, high = 2 * _estimate(r) - q_hi, 2 * _estimate(r) - q_lo
    return (low if low.ndim else float(low)), (high if high.ndim else float(high))


def coverage_interval(hits: int, trials: int, confidence: float = 0.95) -> tuple:
    """Two-sided Clopper–Pearson interval for a measured coverage of ``hits`` out of ``trials``.

    Parameters
    ----------
    hits, trials : ints, 0 <= hits <= trials, trials >= 1.
    confidence : float in (0, 1), two-sided.

    Returns
    -------
    (low, high) floats.

    Privacy: none needed (simulated data).

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> [round(float(x), 3) for x in coverage_interval(950, 1000)]
    [0.935, 0.963]
    """
    alpha = (1 - check_probability(confidence, "confidence", low_open=True, high_open=True)) / 2
    runs = check_int(trials, "trials", minimum=1)
    return clopper_pearson(check_int(hits, "hits", minimum=0, maximum=runs), runs, alpha)


def simulate_coverage(population: ArrayLike, n: int, epsilon: float, trials: int, *, rng: np.random.Generator,
                      lower: float | None = None, upper: float | None = None, confidence: float = 0.95,
                      draws: int = 500) -> pd.DataFrame:
    """Measured coverage of the three intervals: ``trials`` samples of size ``n`` drawn from ``population``.

    ``population`` holds numbers (a mean, clipped to [lower, upper]) or booleans (a proportion, lower/upper unused).
    Each trial draws n records with replacement, releases them with ε, and checks whether each interval covers
    the POPULATION mean (so clipping bias counts against an interval).

    Parameters
    ----------
    population : 1-d array of numbers or of booleans.
    n : int >= 1; epsilon : float > 0; trials : int >= 1.
    rng : numpy.random.Generator (keyword-only, required).
    lower, upper : the public clipping range (numbers only).
    confidence : float in (0, 1); draws : bootstrap data sets per trial.

    Returns
    -------
    DataFrame: method, covered, trials, coverage, its Clopper–Pearson low/high, mean width.

    Privacy: a simulation on a public population: nothing private is released.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> table = simulate_coverage([True, False, False, False], 500, 1.0, 200, rng=make_rng(0))
    >>> table["method"].tolist()
    ['naive', 'noise-aware', 'bootstrap']
    """
    pop, generator = np.asarray(population), check_rng(rng)
    size, runs = check_int(n, "n", minimum=1), check_int(trials, "trials", minimum=1, maximum=10**6)
    if pop.dtype.kind == "b":
        truth = float(pop.mean())
        ones = generator.binomial(size, truth, runs)
        release = proportion_from_counts(ones, size - ones, epsilon, rng=generator)
    else:
        values, freq = np.unique(check_finite_array(pop, "population", ndim=1, min_size=1), return_counts=True)
        if np.max(np.abs(values)) > 1e125:
            raise ValueError("population values must lie within ±1e125 (their mean would overflow)")
        mean_from_sums(1.0, 0.0, 0.0, lower, upper, epsilon, rng=make_rng(0))    # checks lower, upper, epsilon
        truth, mid = float(np.mean(values.repeat(freq))), (lower + upper) / 2
        counts = generator.multinomial(size, freq / freq.sum(), runs)
        centred = np.clip(values, lower, upper) - mid
        release = mean_from_sums(np.full(runs, size), counts @ centred, counts @ centred**2, lower, upper, epsilon,
                                 rng=generator)
    rows = []
    for method, (low, high) in [("naive", naive_interval(release, confidence)),
                                ("noise-aware", noise_aware_interval(release, confidence)),
                                ("bootstrap", bootstrap_interval(release, confidence, rng=generator, draws=draws))]:
        covered = int(np.sum((low <= truth) & (truth <= high)))
        ci = coverage_interval(covered, runs, confidence)
        rows.append({"method": method, "covered": covered, "trials": runs, "coverage": covered / runs,
                     "low": float(ci[0]), "high": float(ci[1]), "width": float(np.mean(high - low))})
    return pd.DataFrame(rows)
