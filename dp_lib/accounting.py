"""Tighter accounting: zero-concentrated DP, Rényi DP and amplification by subsampling.

Rényi DP of order α bounds the Rényi divergence D_α(M(D) || M(D')) of the
outputs on neighbouring inputs (Mironov 2017). It adds up under composition,
order by order, and converts to (ε, δ)-DP at the end. zCDP (Bun & Steinke 2016)
is the special case RDP(α) <= ρ α for every α > 1. The Poisson-subsampled
Gaussian is computed exactly at integer orders by a binomial expansion in log
space (Mironov, Talwar & Zhang 2019); the conversion is the improved one of
Canonne, Kamath & Steinke 2020 (Prop. 12) and Asoodeh et al. 2020, the one
Google's dp-accounting uses. The tests cross-check dp-accounting 0.6.0.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .validation import (check_delta, check_epsilon, check_finite_array, check_int, check_positive, check_probability,
                         check_real, refuse_overflow)

__all__ = [
    "DEFAULT_ORDERS", "gaussian_rdp", "gaussian_zcdp", "laplace_rdp", "zcdp_to_epsilon", "rdp_to_epsilon",
    "subsampled_gaussian_rdp", "RdpAccountant", "dp_sgd_sigma",
]

DEFAULT_ORDERS = tuple(range(2, 257))  # the integer orders 2, 3, ..., 256
_MAX_ORDER = 10_000
# ln(k!) for k = 0..MAX: a running sum of logs, so the binomial coefficients need no scipy
_LOG_FACT = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, _MAX_ORDER + 1, dtype=float)))))


def _orders(alpha, *, integer=False, name="alpha"):
    """Validated orders as a float array (> 1; integers >= 2 when ``integer``) and whether a scalar came in."""
    scalar = np.ndim(alpha) == 0
    a = check_finite_array(np.atleast_1d(alpha), name, ndim=1, allow_empty=False)
    if integer and (np.any(a != np.round(a)) or np.any(a < 2) or np.any(a > _MAX_ORDER)):
        raise ValueError(f"{name} must be integer orders in [2, {_MAX_ORDER}], got {alpha!r}")
    if np.any(a <= 1):
        raise ValueError(f"{name} must be Rényi orders > 1, got {alpha!r}")
    return a, scalar


def _out(values, scalar):
    return float(values[0]) if scalar else values


@refuse_overflow("alpha", "sigma", "sensitivity")
def gaussian_rdp(alpha, sigma, sensitivity=1.0):
    """Rényi DP of the Gaussian mechanism at order α: α Δ² / (2σ²) (Mironov 2017, Prop. 7).

    Parameters
    ----------
    alpha : float > 1 or array of orders.  sigma : float > 0, the noise standard deviation.
    sensitivity : float > 0, Δ, the L2 sensitivity.

    Returns
    -------
    float (or array, one value per order).

    Privacy: (α, RDP(α))-RDP for the neighbouring relation under which Δ bounds the L2 sensitivity.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # no noise is drawn; the accountant is deterministic
    >>> gaussian_rdp(2, 1.0), gaussian_rdp([2, 4], 2.0).tolist()
    (1.0, [0.25, 0.5])
    """
    a, scalar = _orders(alpha)
    return _out(a * gaussian_zcdp(sigma, sensitivity), scalar)


@refuse_overflow("sigma", "sensitivity")
def gaussian_zcdp(sigma, sensitivity=1.0):
    """ρ = Δ² / (2σ²): the Gaussian mechanism is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6).

    Parameters
    ----------
    sigma : float > 0, the noise standard deviation.  sensitivity : float > 0, the L2 sensitivity Δ.

    Returns
    -------
    float, ρ.

    Privacy: ρ-zCDP for the neighbouring relation under which Δ bounds the L2 sensitivity.

    Defined in: chapters/03_composition.ipynb

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
def laplace_rdp(alpha, scale, sensitivity=1.0):
    """Rényi DP of the Laplace mechanism with ε = Δ/b at order α > 1 (Mironov 2017, Prop. 6).

    RDP(α) = (1/(α-1)) ln[α/(2α-1) e^{(α-1)ε} + (α-1)/(2α-1) e^{-αε}], computed as
    ε + ln1p((α-1)(e^{(1-2α)ε} - 1)/(2α-1)) / (α-1) so that it never overflows. It
    tends to ε as α → ∞ and is about α ε²/2 for small ε.

    Parameters
    ----------
    alpha : float > 1 or array of orders.  scale : float > 0, the Laplace scale b.
    sensitivity : float > 0, the L1 sensitivity Δ.

    Returns
    -------
    float (or array, one value per order).

    Privacy: (α, RDP(α))-RDP for the neighbouring relation under which Δ bounds the L1 sensitivity.

    See: chapters/03_composition.ipynb (``RdpAccountant`` composes Laplace releases with it)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(laplace_rdp(2, 1.0), 4), round(laplace_rdp(1e6, 1.0), 4)
    (0.6191, 1.0)
    """
    a, scalar = _orders(alpha)
    eps = check_positive(sensitivity, "sensitivity") / check_positive(scale, "scale")
    return _out(eps + np.log1p((a - 1) * np.expm1((1 - 2 * a) * eps) / (2 * a - 1)) / (a - 1), scalar)


@refuse_overflow("rho", "delta")
def zcdp_to_epsilon(rho, delta):
    """ε of a ρ-zCDP mechanism at δ: ρ + 2 sqrt(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    Parameters
    ----------
    rho : float >= 0.  delta : float in (0, 1).

    Returns
    -------
    float ε: the mechanism is (ε, δ)-DP.

    Privacy: conversion only; the neighbouring relation is that of the zCDP guarantee.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(zcdp_to_epsilon(0.5, 1e-5), 4)
    5.2985
    """
    r = check_positive(rho, "rho") if rho != 0 else 0.0
    return r + 2.0 * math.sqrt(r * -math.log(check_delta(delta)))


def _conversion(orders, rdp, log_delta):
    """ε at every order by the improved conversion (no validation)."""
    return rdp + np.log1p(-1.0 / orders) - (log_delta + np.log(orders)) / (orders - 1)


def rdp_to_epsilon(orders, rdp, delta):
    """Smallest ε over the orders: min_α RDP(α) + ln((α-1)/α) - (ln δ + ln α)/(α - 1), and that α.

    The improved conversion (Canonne, Kamath & Steinke 2020, Prop. 12; Asoodeh et al. 2020)
    beats Mironov's ε = RDP(α) + ln(1/δ)/(α-1) at every order. ε is clipped at 0.

    Parameters
    ----------
    orders : array of orders > 1.  rdp : array of RDP values >= 0, one per order (inf allowed).
    delta : float in (0, 1).

    Returns
    -------
    (epsilon, best_order) : floats.

    Privacy: conversion only; the result holds for the relation of the RDP guarantee.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> eps, order = rdp_to_epsilon(DEFAULT_ORDERS, 100 * gaussian_rdp(DEFAULT_ORDERS, 10.0), 1e-5)
    >>> round(eps, 4), order
    (4.7527, 5.0)
    """
    a, _ = _orders(orders, name="orders")
    try:
        r = np.atleast_1d(np.asarray(rdp, dtype=float))
    except (TypeError, ValueError, OverflowError):
        raise ValueError("rdp must hold one value >= 0 (or inf) per order") from None
    if r.shape != a.shape or np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError("rdp must hold one value >= 0 (or inf) per order")
    eps = _conversion(a, r, math.log(check_delta(delta)))
    best = int(np.argmin(eps))
    return max(0.0, float(eps[best])), float(a[best])


@refuse_overflow("alpha", "q", "sigma")
def subsampled_gaussian_rdp(alpha, q, sigma):
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

    Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(subsampled_gaussian_rdp(2, 1.0, 1.0), 6), f"{subsampled_gaussian_rdp(2, 0.01, 1.1):.4e}"
    (1.0, '1.2851e-04')
    """
    a, scalar = _orders(alpha, integer=True)
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


class RdpAccountant:
    """Adds up Rényi DP order by order (orders 2..256 by default) and converts to (ε, δ) on demand.

    ``compose(kind, count=1, **parameters)`` records ``count`` runs of one mechanism:
    ``"gaussian"`` (sigma, sensitivity=1), ``"subsampled_gaussian"`` (q, sigma: the noise
    multiplier), ``"laplace"`` (scale, sensitivity=1) or ``"zcdp"`` (rho). A call with a bad
    parameter raises and records nothing. ``epsilon(delta)`` and ``best_order(delta)`` convert.

    Parameters
    ----------
    orders : integer orders >= 2 (default ``DEFAULT_ORDERS``, 2..256, as in the dp-accounting cross-check).

    Returns
    -------
    An accountant with ``orders``, ``rdp`` (the running totals) and ``history`` (one row per compose call).

    Privacy: bookkeeping only; the guarantees are those of the recorded mechanisms, for add/remove-one
    neighbours (the relation of the subsampled Gaussian).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # the accountant draws nothing
    >>> acct = RdpAccountant().compose("subsampled_gaussian", q=0.01, sigma=4.0, count=10_000)
    >>> round(acct.epsilon(1e-5), 4)
    1.0355
    """

    KINDS = ("gaussian", "subsampled_gaussian", "laplace", "zcdp")

    def __init__(self, orders=DEFAULT_ORDERS):
        self.orders, _ = _orders(orders, integer=True, name="orders")
        self.rdp = np.zeros_like(self.orders)
        self.history = []

    def step_rdp(self, kind, **parameters):
        """RDP of ONE run of mechanism ``kind`` at the accountant's orders (records nothing)."""
        if kind == "gaussian":
            return gaussian_rdp(self.orders, **parameters)
        if kind == "subsampled_gaussian":
            return subsampled_gaussian_rdp(self.orders, **parameters)
        if kind == "laplace":
            return laplace_rdp(self.orders, **parameters)
        if kind == "zcdp":
            rho = parameters.pop("rho")
            if parameters:
                raise ValueError(f"kind 'zcdp' takes only rho, got {sorted(parameters)}")
            return (check_positive(rho, "rho") if rho != 0 else 0.0) * self.orders
        raise ValueError(f"kind must be one of {self.KINDS}, got {kind!r}")

    def compose(self, kind, *, count=1, **parameters):
        """Record ``count`` runs of mechanism ``kind``; returns the accountant (so calls chain)."""
        count = check_int(count, "count", minimum=1)
        step = self.step_rdp(kind, **parameters)  # raises before anything is recorded
        self.rdp = self.rdp + count * step
        self.history.append({"kind": kind, "count": count, **parameters})
        return self

    def epsilon(self, delta):
        """ε at ``delta`` by the improved conversion, minimised over the orders."""
        return rdp_to_epsilon(self.orders, self.rdp, delta)[0]

    def best_order(self, delta):
        """The order α at which ``epsilon(delta)`` is attained."""
        return rdp_to_epsilon(self.orders, self.rdp, delta)[1]


def dp_sgd_sigma(epsilon, delta, q, steps, *, orders=DEFAULT_ORDERS, rel_tol=1e-6):
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

    Defined in: chapters/08_private_learning.ipynb

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
    a, _ = _orders(orders, integer=True, name="orders")
    return _calibrate(eps, dlt, q, t, tuple(a.tolist()), tol)


@lru_cache(maxsize=256)
def _calibrate(eps, dlt, q, t, orders, tol):
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
