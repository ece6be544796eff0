"""Rényi DP and zCDP curves of the book's mechanisms, their conversion to (ε, δ), and DP-SGD's σ.

Rényi DP of order α bounds the Rényi divergence D_α(M(D) || M(D')) of the
outputs on neighbouring inputs (Mironov 2017). It adds up under composition,
order by order, and converts to (ε, δ)-DP at the end. zCDP (Bun & Steinke 2016)
is the special case RDP(α) <= ρ α for every α > 1. The Poisson-subsampled
Gaussian is computed exactly at integer orders by a binomial expansion in log
space (Mironov, Talwar & Zhang 2019); the conversion is the improved one of
Canonne, Kamath & Steinke 2020 (Prop. 12) and Asoodeh et al. 2020, the one
Google's dp-accounting uses. The tests cross-check dp-accounting 0.6.0.
``RdpAccountant`` (``dp_lib.accounting``) adds these curves up, event by event.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from .shaping import refuse_overflow
from .validation import (check_delta, check_epsilon, check_finite_array, check_int, check_nonnegative, check_positive,
                         check_probability, check_real)

__all__ = [
    "DEFAULT_ORDERS", "gaussian_rdp", "gaussian_zcdp", "laplace_rdp", "zcdp_to_epsilon", "rdp_to_epsilon",
    "subsampled_gaussian_rdp", "dp_sgd_sigma",
]

DEFAULT_ORDERS = tuple(range(2, 257))  # the integer orders 2, 3, ..., 256
_MAX_ORDER = 10_000
# ln(k!) for k = 0..MAX: a running sum of logs, so the binomial coefficients need no scipy
_LOG_FACT = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, _MAX_ORDER + 1, dtype=float)))))


def check_orders(alpha: ArrayLike, *, integer: bool = False, name: str = "alpha") -> tuple[np.ndarray, bool]:
    """Validated orders as a float array (> 1; integers >= 2 when ``integer``) and whether a scalar came in."""
    scalar = np.ndim(alpha) == 0
    a = check_finite_array(np.atleast_1d(alpha), name, ndim=1, allow_empty=False)
    if integer and (np.any(a != np.round(a)) or np.any(a < 2) or np.any(a > _MAX_ORDER)):
        raise ValueError(f"{name} must be integer orders in [2, {_MAX_ORDER}], got {alpha!r}")
    if np.any(a <= 1):
        raise ValueError(f"{name} must be Rényi orders > 1, got {alpha!r}")
    return a, scalar


def _out(values: np.ndarray, scalar: bool) -> float | np.ndarray:
    return float(values[0]) if scalar else values


@refuse_overflow("alpha", "sigma", "sensitivity")
def gaussian_rdp(alpha: ArrayLike, sigma: float, sensitivity: float = 1.0) -> float | np.ndarray:
    """Rényi DP of the Gaussian mechanism at order α: α Δ² / (2σ²) (Mironov 2017, Prop. 7).

    Parameters
    ----------
    alpha : float > 1 or array of orders.  sigma : float > 0, the noise standard deviation.
    sensitivity : float > 0, Δ, the L2 sensitivity.

    Returns
    -------
    float (or array, one value per order).

    Privacy: (α, RDP(α))-RDP for the neighbouring relation under which Δ bounds the L2 sensitivity.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # no noise is drawn; the accountant is deterministic
    >>> gaussian_rdp(2, 1.0), gaussian_rdp([2, 4], 2.0).tolist()
    (1.0, [0.25, 0.5])
    """
    a, scalar = check_orders(alpha)
    return _out(a * gaussian_zcdp(sigma, sensitivity), scalar)


@refuse_overflow("sigma", "sensitivity")
def gaussian_zcdp(sigma: float, sensitivity: float = 1.0) -> float:
    """ρ = Δ² / (2σ²): the Gaussian mechanism is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6).

    Parameters
    ----------
    sigma : float > 0, the noise standard deviation.  sensitivity : float > 0, the L2 sensitivity Δ.

    Returns
    -------
    float, ρ.

    Privacy: ρ-zCDP for the neighbouring relation under which Δ bounds the L2 sensitivity.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> gaussian_zcdp(10.0)
    0.005
    """
    s, d = check_positive(sigma, "sigma"), check_positive(sensitivity, "sensitivity")
    return d * d / (2.0 * s * s)


@refuse_overflow("alpha", "scale", "sensitivity")
def laplace_rdp(alpha: ArrayLike, scale: float, sensitivity: float = 1.0) -> float | np.ndarray:
    """Rényi DP of the Laplace mechanism with ε = Δ/b at order α > 1 (Mironov 2017, Prop. 6).

    RDP(α) = (1/(α-1)) ln[α/(2α-1) e^{(α-1)ε} + (α-1)/(2α-1) e^{-αε}], computed as
    ε + ln1p((α-1)(e^{(1-2α)ε} - 1)/(2α-1)) / (α-1) so that it never overflows. It
    tends to ε as α → ∞ and is about α ε²/2 for small ε. The exact value lies in [0, ε];
    the float result is clipped to that interval (at ε = 1e-300 the two terms cancel to
    a last-bit negative value, which would make an accountant refuse a valid charge).

    Parameters
    ----------
    alpha : float > 1 or array of orders.  scale : float > 0, the Laplace scale b.
    sensitivity : float > 0, the L1 sensitivity Δ.

    Returns
    -------
    float (or array, one value per order).

    Privacy: (α, RDP(α))-RDP for the neighbouring relation under which Δ bounds the L1 sensitivity.

    See: chapters/10_accounting.ipynb (``RdpAccountant`` composes Laplace releases with it)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(laplace_rdp(2, 1.0), 4), round(laplace_rdp(1e6, 1.0), 4)
    (0.6191, 1.0)
    """
    a, scalar = check_orders(alpha)
    eps = check_positive(sensitivity, "sensitivity") / check_positive(scale, "scale")
    rdp = eps + np.log1p((a - 1) * np.expm1((1 - 2 * a) * eps) / (2 * a - 1)) / (a - 1)
    return _out(np.clip(rdp, 0.0, eps), scalar)


@refuse_overflow("rho", "delta")
def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """ε of a ρ-zCDP mechanism at δ: ρ + 2 sqrt(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    Parameters
    ----------
    rho : float >= 0.  delta : float in (0, 1).

    Returns
    -------
    float ε: the mechanism is (ε, δ)-DP.

    Privacy: conversion only; the neighbouring relation is that of the zCDP guarantee.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(zcdp_to_epsilon(0.5, 1e-5), 4)
    5.2985
    """
    r = check_nonnegative(rho, "rho")
    return r + 2.0 * math.sqrt(r * -math.log(check_delta(delta)))


def _conversion(orders: np.ndarray, rdp: np.ndarray, log_delta: float) -> np.ndarray:
    """ε at every order by the improved conversion (no validation)."""
    return rdp + np.log1p(-1.0 / orders) - (log_delta + np.log(orders)) / (orders - 1)


def rdp_to_epsilon(orders: ArrayLike, rdp: ArrayLike, delta: float) -> tuple[float, float]:
    """Smallest ε over the orders: min_α RDP(α) + ln((α-1)/α) - (ln δ + ln α)/(α - 1), and that α.

    The improved conversion (Canonne, Kamath & Steinke 2020, Prop. 12; Asoodeh et al. 2020)
    beats Mironov's ε = RDP(α) + ln(1/δ)/(α-1) at every order. ε is clipped at 0.

    Parameters
    ----------
    orders : array of orders > 1.  rdp : array of RDP values >= 0, one per order (inf allowed); numbers
        only (a string, even "0.5", or a boolean is a TypeError).
    delta : float in (0, 1).

    Returns
    -------
    (epsilon, best_order) : floats.

    Privacy: conversion only; the result holds for the relation of the RDP guarantee.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> eps, order = rdp_to_epsilon(DEFAULT_ORDERS, 100 * gaussian_rdp(DEFAULT_ORDERS, 10.0), 1e-5)
    >>> round(eps, 4), order
    (4.7527, 5.0)
    """
    a, _ = check_orders(orders, name="orders")
    try:
        raw = np.atleast_1d(np.asarray(rdp))
    except (TypeError, ValueError, OverflowError):
        raw = np.array([None])
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"rdp must be numbers (ints or floats), one per order, got {rdp!r:.80}")
    r = raw.astype(float)
    if r.shape != a.shape or np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError("rdp must hold one value >= 0 (or inf) per order")
    eps = _conversion(a, r, math.log(check_delta(delta)))
    best = int(np.argmin(eps))
    return max(0.0, float(eps[best])), float(a[best])


@refuse_overflow("alpha", "q", "sigma")
def subsampled_gaussian_rdp(alpha: ArrayLike, q: float, sigma: float) -> float | np.ndarray:
    """RDP at integer order α of the Gaussian with noise multiplier σ on a Poisson subsample of rate q.

    RDP(α) = 1/(α-1) · ln Σ_{k=0}^{α} C(α,k) (1-q)^{α-k} q^k exp((k² - k)/(2σ²))
    (Mironov, Talwar & Zhang 2019, Sec. 3.3). The binomial weights sum to 1, so the sum
    is 1 + Σ_{k>=2} C(α,k) (1-q)^{α-k} q^k expm1((k² - k)/(2σ²)), a sum of positive terms:
    it is added up in log space (log-sum-exp) and finished with ln(1 + ·) = logaddexp(0, ·).
    Nothing overflows for α up to 10,000, no precision is lost when RDP is tiny (small q,
    large σ, where the plain sum cancels), and q = 1 gives α/(2σ²).

    Parameters
    ----------
    alpha : int >= 2 or array of integer orders.  q : float in [0, 1], the sampling rate.
    sigma : float > 0, the noise multiplier: the noise std divided by the L2 sensitivity.

    Returns
    -------
    float (or array, one value per order).

    Privacy: (α, RDP(α))-RDP for add/remove-one neighbours (each row is sampled independently).

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(subsampled_gaussian_rdp(2, 1.0, 1.0), 6), f"{subsampled_gaussian_rdp(2, 0.01, 1.1):.4e}"
    (1.0, '1.2851e-04')
    """
    a, scalar = check_orders(alpha, integer=True)
    q, s = check_probability(q, "q"), check_positive(sigma, "sigma")
    if q == 0.0:
        return _out(np.zeros_like(a), scalar)
    if q == 1.0:
        return _out(a / (2 * s * s), scalar)
    ai = a.astype(int)
    k = np.arange(2, ai.max() + 1)
    x = (k * k - k) / (2 * s * s)  # > 0 for k >= 2
    log_expm1 = np.where(x > 1, x + np.log1p(-np.exp(-np.minimum(x, 700))), np.log(np.expm1(np.minimum(x, 1))))
    log_terms = (_LOG_FACT[ai][:, None] - _LOG_FACT[k][None, :] - _LOG_FACT[np.abs(ai[:, None] - k)]
                 + k * math.log(q) + (a[:, None] - k) * math.log1p(-q) + log_expm1)
    log_terms[k[None, :] > ai[:, None]] = -np.inf  # k runs from 2 to α only
    top = log_terms.max(axis=1)
    shift = np.where(np.isfinite(top), top, 0.0)  # all terms -inf (huge sigma): the sum is 0, RDP is 0
    log_a_minus_1 = shift + np.log(np.exp(log_terms - shift[:, None]).sum(axis=1))
    return _out(np.logaddexp(0.0, log_a_minus_1) / (a - 1), scalar)


def dp_sgd_sigma(epsilon: float, delta: float, q: float, steps: int, *, orders: ArrayLike = DEFAULT_ORDERS,
                 rel_tol: float = 1e-6) -> float:
    """Smallest noise multiplier σ with which ``steps`` Poisson-subsampled Gaussian steps are (ε, δ)-DP.

    ε(σ) falls as σ grows, so bisection between a σ that is too small and one that is
    large enough finds σ to relative precision ``rel_tol``; the upper end is returned, so
    the RDP accountant certifies ε(σ) <= ``epsilon``. However large σ is, the conversion
    never certifies less than its value at RDP = 0, min over the orders of
    ln((α-1)/α) - (ln δ + ln α)/(α - 1): at the largest order α = 256 and δ = 1e-5 that is
    ln(255/256) + (ln(1e5) - ln 256)/255 ≈ 0.0195 (not ln(1/δ)/255 ≈ 0.045, which forgets
    the improved conversion's ln α and ln((α-1)/α) terms). Targets at or below it raise ValueError.

    Parameters
    ----------
    epsilon : float > 0.  delta : float in (0, 1).  q : float in (0, 1], the sampling rate.
    steps : int >= 1, T.  orders : integer orders.  rel_tol : float >= 1e-15.

    Returns
    -------
    float σ (noise std = σ × clipping norm).

    Privacy: calibration only; DP-SGD run with this σ is (ε, δ)-DP for add/remove-one neighbours.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> sigma = dp_sgd_sigma(1.0355, 1e-5, 0.01, 10_000)
    >>> round(sigma, 3)
    4.0
    """
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    q = check_probability(q, "q", low_open=True)
    t = check_int(steps, "steps", minimum=1)
    tol = check_real(rel_tol, "rel_tol", minimum=1e-15)  # below ~1e-16 the bisection cannot shrink
    a, _ = check_orders(orders, integer=True, name="orders")
    return _calibrate(eps, dlt, q, t, tuple(a.tolist()), tol)


@lru_cache(maxsize=256)
def _calibrate(eps: float, dlt: float, q: float, t: int, orders: tuple, tol: float) -> float:
    """The bisection of ``dp_sgd_sigma`` on validated arguments (cached: sliders revisit settings)."""
    a = np.asarray(orders)

    def eps_at(sigma):
        return max(0.0, float(np.min(_conversion(a, t * subsampled_gaussian_rdp(a, q, sigma), math.log(dlt)))))

    floor = max(0.0, float(np.min(_conversion(a, np.zeros_like(a), math.log(dlt)))))
    if eps <= floor * (1 + 1e-9):
        raise ValueError(f"epsilon must exceed {floor:.4g}, the smallest ε the orders up to {int(a.max())} "
                         f"can certify at delta={dlt:g}; got {eps!r}")
    lo, hi = 1e-3, 1.0
    while eps_at(hi) > eps:
        lo, hi = hi, 2 * hi
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if eps_at(mid) <= eps else (mid, hi)
    return hi
