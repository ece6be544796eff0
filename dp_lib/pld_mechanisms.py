"""The privacy loss distributions of the book's mechanisms, exactly, then put on a grid pessimistically.

Each function writes down the privacy loss L = ln(p(Y)/q(Y)), Y ~ P, of one mechanism on a worst-case pair of
neighbours, as in the privacy-loss section of chapters/01_why_privacy.ipynb, and hands its CDF to
``pld_from_loss_cdf``. Laplace with ε = Δ/b: L = ε with probability ½ (outputs below f(D)), -ε with
probability ½e^{-ε}, and uniform-in-exponent in between. Gaussian with μ = Δ/σ: L ~ N(μ²/2, μ²). Randomized
response: ε or -ε. The Poisson-subsampled Gaussian (noise multiplier σ, rate q) has two orderings: removing a
record (P the mixture (1-q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²)) and adding one (the pair swapped).

See: chapters/10_accounting.ipynb (the chapter this module belongs to)
"""

from __future__ import annotations

import math

import numpy as np
from .pld_math import Pld, pld_from_loss_cdf
from .validation import check_nonnegative, check_positive, check_probability

__all__ = ["laplace_pld", "gaussian_pld", "randomized_response_pld", "epsilon_delta_pld", "subsampled_gaussian_pld"]

_Z = 8.5  # normal tails beyond 8.5 sd hold < 1e-17: the kept output range


def laplace_pld(scale: float, sensitivity: float = 1.0, *, step: float = 1e-4) -> Pld:
    """PLD of the Laplace mechanism (scale b, L1 sensitivity Δ, ε = Δ/b): P[L <= t] = ½e^{-(ε - t)/2} on [-ε, ε).

    Parameters
    ----------
    scale : float > 0, b.  sensitivity : float > 0, Δ.  step : float > 0, the grid spacing.

    Returns
    -------
    Pld (pessimistic: each interval's mass split between its ends by default, rounded up with split=False).

    Privacy: describes the ε-DP Laplace mechanism (in exact arithmetic) for the relation under which Δ bounds the
    L1 sensitivity; both orderings of the pair have this PLD.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> pld = laplace_pld(1.0)
    >>> round(pld.epsilon(0.0), 3), round(pld.delta(0.5), 4)
    (1.0, 0.2212)
    """
    eps = check_positive(sensitivity, "sensitivity") / check_positive(scale, "scale")
    if not eps <= 1e4:
        raise ValueError(f"sensitivity / scale must be at most 1e4 (ε = Δ/b), got sensitivity={sensitivity!r}, "
                         f"scale={scale!r}")

    def cdf(t):
        return np.where(t < -eps, 0.0, np.where(t < eps, 0.5 * np.exp(-(eps - np.minimum(t, eps)) / 2), 1.0))

    def q_sf(t):  # under Q = Lap(Δ, b) the loss is -L under P: Q[L > t] = ½e^{-(ε + t)/2} on [-ε, ε)
        return np.where(t < -eps, 1.0, np.where(t < eps, 0.5 * np.exp(-(eps + np.maximum(t, -eps)) / 2), 0.0))

    return pld_from_loss_cdf(cdf, lambda t: 1.0 - cdf(t), -eps, eps, step,
                             q_cdf=lambda t: 1.0 - q_sf(t), q_sf=q_sf)


def gaussian_pld(sigma: float, sensitivity: float = 1.0, *, step: float = 1e-4) -> Pld:
    """PLD of the Gaussian mechanism: L ~ N(μ²/2, μ²) with μ = Δ/σ.

    Parameters
    ----------
    sigma : float > 0, the noise standard deviation.  sensitivity : float > 0, Δ (L2).  step : float > 0.

    Returns
    -------
    Pld (pessimistic: each interval's mass split between its ends by default, rounded up with split=False).

    Privacy: describes the Gaussian mechanism (in exact arithmetic) for the relation under which Δ bounds the L2
    sensitivity; both orderings of the pair have this PLD.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(gaussian_pld(1.0).epsilon(1e-5), 2)
    4.38
    """
    from scipy.special import ndtr  # imported here: `import dp_lib` stays free of scipy

    mu = check_positive(sensitivity, "sensitivity") / check_positive(sigma, "sigma")
    if not 1e-6 <= mu <= 1e3:
        raise ValueError(f"sensitivity / sigma must lie in [1e-6, 1e3], got sensitivity={sensitivity!r}, sigma={sigma!r}")
    mean = mu * mu / 2
    return pld_from_loss_cdf(lambda t: ndtr((t - mean) / mu), lambda t: ndtr((mean - t) / mu),
                             mean - _Z * mu, mean + _Z * mu, step,  # under Q, L ~ N(-μ²/2, μ²)
                             q_cdf=lambda t: ndtr((t + mean) / mu), q_sf=lambda t: ndtr((-mean - t) / mu))


def randomized_response_pld(epsilon: float, *, step: float = 1e-4) -> Pld:
    """PLD of binary randomized response at ε: loss ε with probability e^ε/(1 + e^ε), else -ε.

    Parameters
    ----------
    epsilon : float > 0.  step : float > 0.

    Returns
    -------
    Pld (exact when ε is a multiple of ``step``).

    Privacy: describes ε-DP randomized response (replace-one: one person's answer changes).

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(randomized_response_pld(1.0, step=0.5).self_compose(10).epsilon(1e-3), 3)
    9.977
    """
    return epsilon_delta_pld(epsilon, 0.0, step=step)


def epsilon_delta_pld(epsilon: float, delta: float = 0.0, *, step: float = 1e-4) -> Pld:
    """The worst PLD an (ε, δ)-DP step can have: +∞ with probability δ, else randomized response at ε.

    Every (ε, δ)-DP mechanism is a post-processing of this pair (Kairouz, Oh & Viswanath 2015), so composing it
    gives the optimal composition of (ε, δ) guarantees.

    Parameters
    ----------
    epsilon : float >= 0.  delta : float in [0, 1).  step : float > 0.

    Returns
    -------
    Pld.

    Privacy: accounting for any (ε, δ)-DP step, under the relation its guarantee is stated for.

    Used in: chapters/10_accounting.ipynb, through ``PldAccountant``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(epsilon_delta_pld(1.0, 1e-6).delta(1.0), 9)
    1e-06
    """
    eps = check_nonnegative(epsilon, "epsilon")
    if eps > 1e4:
        raise ValueError(f"epsilon must be at most 1e4, got {epsilon!r}")
    dlt = check_probability(delta, "delta", high_open=True)
    keep = (1.0 - dlt) / (1.0 + math.exp(-eps))  # P[L = ε]

    def low_mass(t):
        return (t >= -eps) * (1.0 - dlt - keep) + (t >= eps) * keep

    def q_low_mass(t):  # Q puts mass P[L = l] e^{-l} on each loss value l
        return (t >= -eps) * (1.0 - dlt - keep) * math.exp(eps) + (t >= eps) * keep * math.exp(-eps)

    return pld_from_loss_cdf(low_mass, lambda t: 1.0 - low_mass(t), -eps, eps, step,
                             q_cdf=q_low_mass, q_sf=lambda t: 1.0 - dlt - q_low_mass(t))


def _x_at_loss(t, q: float, s: float):
    """The output x at which the remove-ordering loss ln(1 - q + q e^{(2x-1)/(2σ²)}) equals t (-∞ below its range)."""
    t = np.asarray(t, dtype=float)
    arg = np.expm1(np.minimum(t, 700.0)) + q  # e^t - (1 - q): positive exactly on the loss's range
    out = np.full(t.shape, -np.inf)
    ok = arg > 0
    out[ok] = s * s * (np.log(arg[ok]) - math.log(q)) + 0.5
    return out


def subsampled_gaussian_pld(q: float, sigma: float, *, ordering: str = "remove", step: float = 1e-4, split: bool = True) -> Pld:
    """PLD of one Poisson-subsampled Gaussian step (rate q, noise multiplier σ, sensitivity 1), one ordering.

    Remove: L(x) = ln(1 - q + q e^{(2x-1)/(2σ²)}) is increasing in x, so P[L <= t] = P[x <= x(t)] under the
    mixture. Add: L = -ln(...) under N(0, σ²), at most -ln(1 - q). q = 1 gives the Gaussian mechanism.

    Parameters
    ----------
    q : float in (0, 1].  sigma : float > 0.  ordering : "remove" or "add".  step : float > 0.
    split : bool, split each interval's mass between its ends (default) or round every loss up (``False``).

    Returns
    -------
    Pld (pessimistic: each interval's mass split between its ends by default, rounded up with split=False).

    Privacy: with both orderings, describes the subsampled Gaussian step for add/remove-one neighbours.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(subsampled_gaussian_pld(0.01, 1.1).self_compose(100).epsilon(1e-5), 2)
    0.55
    """
    from scipy.special import ndtr  # imported here: `import dp_lib` stays free of scipy

    q, s = check_probability(q, "q", low_open=True), check_positive(sigma, "sigma")
    if not 1e-3 <= s <= 1e6:
        raise ValueError(f"sigma must lie in [1e-3, 1e6], got {sigma!r}")
    if ordering not in ("remove", "add"):
        raise ValueError(f"ordering must be 'remove' or 'add', got {ordering!r}")
    if not isinstance(split, (bool, np.bool_)):
        raise TypeError(f"split must be True or False, got {split!r}")
    if q == 1.0 and split:
        return gaussian_pld(s, step=step)
    loss = lambda x: np.log1p(q * np.expm1((2 * x - 1) / (2 * s * s)))  # noqa: E731
    if ordering == "remove":
        def cdf(t):
            x = _x_at_loss(t, q, s)
            return (1 - q) * ndtr(x / s) + q * ndtr((x - 1) / s)

        def sf(t):
            x = _x_at_loss(t, q, s)
            return (1 - q) * ndtr(-x / s) + q * ndtr((1 - x) / s)

        q_parts = dict(q_cdf=lambda t: ndtr(_x_at_loss(t, q, s) / s), q_sf=lambda t: ndtr(-_x_at_loss(t, q, s) / s))
        return pld_from_loss_cdf(cdf, sf, float(loss(-_Z * s)), float(loss(1 + _Z * s)), step,
                                 **(q_parts if split else {}))

    def q_cdf(t):  # add: L <= t iff x >= x(-t); Q is the mixture
        x = _x_at_loss(-np.asarray(t), q, s)
        return (1 - q) * ndtr(-x / s) + q * ndtr((1 - x) / s)

    def q_sf(t):
        x = _x_at_loss(-np.asarray(t), q, s)
        return (1 - q) * ndtr(x / s) + q * ndtr((x - 1) / s)

    return pld_from_loss_cdf(lambda t: ndtr(-_x_at_loss(-np.asarray(t), q, s) / s),
                             lambda t: ndtr(_x_at_loss(-np.asarray(t), q, s) / s),
                             -float(loss(_Z * s)), -float(loss(-_Z * s)), step,
                             **(dict(q_cdf=q_cdf, q_sf=q_sf) if split else {}))
