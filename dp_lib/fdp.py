"""f-DP and Gaussian DP: privacy as a trade-off curve between an attacker's two error rates.

A trade-off function f(α) is the smallest false-negative rate of any test of D against D' whose false-positive
rate is at most α (Dong, Roth & Su 2022). (ε, δ)-DP is the curve max{0, 1 - δ - e^ε α, e^{-ε}(1 - δ - α)}: the
testing region of chapters/01_why_privacy.ipynb. μ-GDP is the curve of telling N(0, 1) from N(μ, 1),
G_μ(α) = Φ(Φ⁻¹(1 - α) - μ); the Gaussian mechanism is (Δ/σ)-GDP, μ_i-GDP steps compose to √(Σμ_i²)-GDP, and
μ-GDP is (ε, δ(ε))-DP for every ε with δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2). The central limit theorem of
Bu, Dong, Long & Su (2020) approximates T Poisson-subsampled Gaussian steps by μ = q √(T(e^{1/σ²} - 1)): an
approximation, not a bound.

See: chapters/10_accounting.ipynb (the chapter this module belongs to)
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from .validation import check_delta, check_finite_array, check_int, check_nonnegative, check_positive, check_probability

__all__ = ["gaussian_tradeoff", "epsilon_delta_tradeoff", "gdp_delta", "gdp_epsilon", "gdp_compose", "clt_mu"]


def _alphas(alpha):
    a = check_finite_array(np.atleast_1d(alpha), "alpha", ndim=1)
    if np.any((a < 0) | (a > 1)):
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r:.60}")
    return a


def gaussian_tradeoff(alpha: ArrayLike, mu: float) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 - α) - μ): the smallest false-negative rate at false-positive rate α under μ-GDP.

    Parameters
    ----------
    alpha : float or array in [0, 1].  mu : float >= 0.

    Returns
    -------
    array of the same length as ``alpha``.

    Privacy: describes μ-GDP (for the relation of the guarantee).

    Used in: chapters/10_accounting.ipynb, through ``plot_tradeoff_curves``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> gaussian_tradeoff([0.05, 0.5], 1.0).round(4).tolist()
    [0.7405, 0.1587]
    """
    from scipy.special import ndtr, ndtri  # imported here: `import dp_lib` stays free of scipy

    m = check_nonnegative(mu, "mu")
    return ndtr(ndtri(1.0 - _alphas(alpha)) - m)


def epsilon_delta_tradeoff(alpha: ArrayLike, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """The trade-off curve of (ε, δ)-DP, max{0, 1 - δ - e^ε α, e^{-ε}(1 - δ - α)}: the testing region of *Why privacy is hard*.

    Parameters
    ----------
    alpha : float or array in [0, 1].  epsilon : float >= 0.  delta : float in [0, 1).

    Returns
    -------
    array of the same length as ``alpha``.

    Privacy: describes (ε, δ)-DP (for the relation of the guarantee).

    Used in: chapters/10_accounting.ipynb, through ``plot_tradeoff_curves``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> epsilon_delta_tradeoff([0.0, 0.1, 0.5], 1.0).round(4).tolist()
    [1.0, 0.7282, 0.1839]
    """
    a, e = _alphas(alpha), check_nonnegative(epsilon, "epsilon")
    d = check_delta(delta, allow_zero=True)
    grow = np.exp(min(e, 700.0)) * a  # beyond e^700 every α > 0 already gives 0
    return np.maximum.reduce([np.zeros_like(a), 1 - d - grow, math.exp(-e) * (1 - d - a)])


def gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) of μ-GDP (Dong, Roth & Su 2022, Cor. 2.13).

    Parameters
    ----------
    epsilon : float >= 0.  mu : float > 0.

    Returns
    -------
    float δ: μ-GDP implies (ε, δ)-DP.

    Privacy: conversion only; the relation is that of the GDP guarantee.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(gdp_delta(1.0, 1.0), 4)
    0.1269
    """
    from scipy.special import ndtr  # imported here: `import dp_lib` stays free of scipy

    e, m = check_nonnegative(epsilon, "epsilon"), check_positive(mu, "mu")
    tail = ndtr(-e / m - m / 2)
    return float(max(0.0, ndtr(-e / m + m / 2) - (math.exp(e) * tail if tail > 0 else 0.0)))


def gdp_epsilon(delta: float, mu: float) -> float:
    """The smallest ε >= 0 with ``gdp_delta(ε, μ) <= delta`` (root finding; δ(ε) decreases in ε).

    Parameters
    ----------
    delta : float in (0, 1).  mu : float > 0.

    Returns
    -------
    float ε.

    Privacy: conversion only; the relation is that of the GDP guarantee.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(gdp_epsilon(1e-5, 1.0), 3)
    4.377
    """
    from scipy.optimize import brentq  # imported here: `import dp_lib` stays free of scipy

    d, m = check_delta(delta), check_positive(mu, "mu")
    if gdp_delta(0.0, m) <= d:
        return 0.0
    hi = 1.0
    while gdp_delta(hi, m) > d:
        hi *= 2
    return float(brentq(lambda e: gdp_delta(e, m) - d, 0.0, hi, xtol=1e-12))


def gdp_compose(mus: ArrayLike) -> float:
    """√(Σ μ_i²): μ_i-GDP steps compose to this GDP parameter (Dong, Roth & Su 2022, Cor. 3.3).

    Parameters
    ----------
    mus : array of floats >= 0.

    Returns
    -------
    float μ.

    Privacy: composition of GDP guarantees for one neighbouring relation.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> gdp_compose([0.3, 0.4])
    0.5
    """
    m = check_finite_array(np.atleast_1d(mus), "mus", ndim=1, allow_empty=False)
    if np.any(m < 0):
        raise ValueError("mus must be >= 0")
    top = float(np.max(m))
    total = top * math.sqrt(float(np.sum((m / top) ** 2))) if top > 0 else 0.0
    if not math.isfinite(total):
        raise ValueError("mus are too large: their composition overflows")
    return float(round(total, 15))


def clt_mu(q: float, sigma: float, steps: int) -> float:
    """The central-limit GDP parameter μ ≈ q √(T(e^{1/σ²} - 1)) of T Poisson-subsampled Gaussian steps.

    An APPROXIMATION for many steps and small q (Bu, Dong, Long & Su 2020), not a guarantee: it can be below the
    truth (compare a PLD accountant before relying on it).

    Parameters
    ----------
    q : float in (0, 1].  sigma : float > 0, the noise multiplier.  steps : int >= 1.

    Returns
    -------
    float μ.

    Privacy: an approximation of the add/remove guarantee, not itself a guarantee.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(clt_mu(0.01, 1.1, 10_000), 4)
    1.1337
    """
    qq, s = check_probability(q, "q", low_open=True), check_positive(sigma, "sigma")
    t = check_int(steps, "steps", minimum=1)
    if s < 0.04:  # e^{1/σ²} overflows below σ ≈ 0.0378; the approximation is meaningless long before
        raise ValueError(f"sigma must be at least 0.04, got {sigma!r}")
    mu = qq * math.sqrt(t * math.expm1(1.0 / (s * s)))
    if not math.isfinite(mu):
        raise ValueError(f"steps={steps!r} and sigma={sigma!r} overflow the CLT parameter")
    return mu
