"""The Laplace and Gaussian mechanisms, with their calibrations.

Constructing the noise scale (``laplace_scale``, ``gaussian_sigma``,
``analytic_gaussian_sigma``) is separate from running the mechanism, so the
chapters can show the privacy map next to the noise it implies.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .noise import check_noise_range, sample_laplace
from .random import check_rng
from .validation import (check_choice, check_delta, check_epsilon, check_finite_array, check_positive, refuse_overflow,
                         scalar_or_array)

__all__ = [
    "laplace_scale",
    "laplace_mech",
    "gaussian_sigma",
    "analytic_gaussian_sigma",
    "gaussian_delta",
    "gaussian_mech",
    "pct_error",
]


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ₁/ε of the Laplace noise that makes a query ε-DP.

    Privacy: ε-DP for neighbours under which ``sensitivity`` bounds the L1 sensitivity.

    Examples
    --------
    >>> laplace_scale(1.0, 0.5)
    2.0

    Defined in: chapters/02_laplace.ipynb
    """
    scale = check_positive(sensitivity, "sensitivity") / check_epsilon(epsilon)
    if not 0 < scale < math.inf:
        raise ValueError(f"sensitivity / epsilon must be a finite scale > 0, got sensitivity={sensitivity!r}, "
                         f"epsilon={epsilon!r}")
    return scale


def laplace_mech(value: ArrayLike, sensitivity: float, epsilon: float, *,
                 rng: np.random.Generator) -> float | np.ndarray:
    """Release ``value`` + Lap(Δ₁/ε) noise, independently per coordinate.

    Parameters
    ----------
    value : float or array, the true answer f(x).
    sensitivity : float > 0, Δ₁ = max over neighbours of ||f(x) - f(x')||₁.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    float for a scalar ``value``, otherwise an array of the same shape.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb; discrete_laplace_mech / snapping_mech are)
    for add/remove-one neighbours (or whatever relation ``sensitivity`` was
    computed for) when ``sensitivity`` bounds the L1 sensitivity of the whole
    vector (Dwork & Roth 2014, Thm 3.6).

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(2024)
    >>> noisy = laplace_mech(100.0, sensitivity=1.0, epsilon=1.0, rng=rng)
    >>> isinstance(noisy, float)
    True
    """
    true_answer = check_finite_array(value, "value")
    b = laplace_scale(sensitivity, epsilon)
    check_noise_range(b, float(np.max(np.abs(true_answer), initial=0.0)), name="sensitivity / epsilon")
    noise = sample_laplace(b, size=true_answer.shape or None, rng=check_rng(rng))
    return scalar_or_array(true_answer + noise)


def gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Classic Gaussian calibration σ = sqrt(2 ln(1.25/δ)) Δ₂ / ε.

    Proved only for ε in (0, 1) (Dwork & Roth 2014, Thm A.1), so ε >= 1 is
    refused. For ε between 1 and about 8 this σ still happens to meet δ, but
    far enough out it really violates it:
    past ε ≈ 8.4 at δ = 1e-5 (7.46 at δ = 1e-3, 9.85 at δ = 1e-10).
    Use ``analytic_gaussian_sigma`` for any ε and a smaller σ.

    Privacy: (ε, δ)-DP when ``sensitivity`` bounds the L2 sensitivity and 0 < ε < 1.

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 0.1, 1e-5), 2)
    48.45
    """
    d2 = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    if eps >= 1:
        raise ValueError(
            f"epsilon must be in (0, 1) for the classic Gaussian calibration, got {epsilon!r}; "
            "use analytic_gaussian_sigma (or calibration='analytic') for larger epsilon"
        )
    dlt = check_delta(delta)
    sigma = math.sqrt(2 * (math.log(1.25) - math.log(dlt))) * d2 / eps  # ln(1.25/δ) without 1/δ overflowing
    if not math.isfinite(sigma):
        raise ValueError(f"sensitivity / epsilon is too large for a finite sigma (sensitivity={sensitivity!r})")
    return sigma


@refuse_overflow("sigma", "sensitivity", "epsilon")
def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact δ of N(0, σ²) noise at ε (Balle & Wang 2018, Thm 8).

    δ(σ) = Φ(Δ/2σ - εσ/Δ) - e^ε Φ(-Δ/2σ - εσ/Δ); computed with log Φ so that
    e^ε never overflows.

    Privacy: the smallest δ for which the Gaussian mechanism is (ε, δ)-DP.

    Examples
    --------
    >>> gaussian_delta(3.731, 1.0, 1.0) <= 1e-5
    True

    Defined in: chapters/02_laplace.ipynb
    """
    s = check_positive(sigma, "sigma")
    d2 = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    from scipy.special import log_ndtr, ndtr  # imported here: `import dp_lib` stays free of scipy

    a, c = d2 / (2 * s), eps * s / d2
    return max(0.0, float(ndtr(a - c) - math.exp(eps + log_ndtr(-a - c))))


def analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest σ for which N(0, σ²) noise is (ε, δ)-DP (Balle & Wang 2018, Alg. 1).

    Found by bisection on log σ to a relative precision of 1e-12; δ(σ) is
    decreasing in σ, so the answer is the tight calibration for any ε > 0.

    Privacy: (ε, δ)-DP when ``sensitivity`` bounds the L2 sensitivity, for every ε > 0.

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1.0, 1e-5), 3)
    3.731
    """
    d2 = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    lo, hi = 1e-3 * d2 / eps, d2 / eps
    if not (1e-290 < lo and hi < 1e290):
        raise ValueError(f"sensitivity / epsilon must be in (1e-287, 1e290) for a representable sigma, got "
                         f"sensitivity={sensitivity!r}, epsilon={epsilon!r}")
    while gaussian_delta(hi, d2, eps) > dlt:  # doubles at most ~60 times for any δ > 1e-300
        lo, hi = hi, 2 * hi
        if hi > 1e300:
            raise ValueError(f"epsilon and delta need a sigma beyond float64, got epsilon={epsilon!r}, delta={delta!r}")
    while gaussian_delta(lo, d2, eps) <= dlt:
        lo, hi = lo / 2, lo
    while hi / lo > 1 + 1e-12:
        mid = math.sqrt(lo * hi)
        if gaussian_delta(mid, d2, eps) <= dlt:
            hi = mid
        else:
            lo = mid
    return hi


def gaussian_mech(value: ArrayLike, sensitivity: float, epsilon: float, delta: float, *, rng: np.random.Generator,
                  calibration: str = "analytic") -> float | np.ndarray:
    """Release ``value`` + N(0, σ²) noise per coordinate.

    Parameters
    ----------
    value : float or array, the true answer.
    sensitivity : float > 0, the L2 sensitivity Δ₂ of the whole vector.
    epsilon, delta : the target (ε, δ), δ in (0, 1).
    rng : numpy.random.Generator (keyword-only, required).
    calibration : "analytic" (tight, any ε) or "classic" (ε < 1 only).

    Privacy: (ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb; discrete_gaussian_mech is, under zCDP)
    for add/remove-one neighbours when ``sensitivity`` bounds the L2 sensitivity.

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> noisy = gaussian_mech([1.0, 2.0], 1.0, 1.0, 1e-5, rng=make_rng(0))
    >>> noisy.shape
    (2,)
    """
    true_answer = check_finite_array(value, "value")
    if check_choice(calibration, "calibration", ("analytic", "classic")) == "analytic":
        sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    else:
        sigma = gaussian_sigma(sensitivity, epsilon, delta)
    if not math.isfinite(float(np.max(np.abs(true_answer), initial=0.0)) + 40 * sigma):
        raise ValueError(f"sensitivity is too large: N(0, {sigma:g}^2) noise can overflow float64")
    noise = check_rng(rng).normal(0.0, sigma, size=true_answer.shape or None)
    return scalar_or_array(true_answer + noise)


@refuse_overflow("true", "private")
def pct_error(true: ArrayLike, private: ArrayLike) -> float | np.ndarray:
    """Percent error 100 |private - true| / |true|, elementwise.

    Privacy: none; computing it uses the true answer, so it is for evaluation only.

    Examples
    --------
    >>> pct_error(200, 210)
    5.0

    Defined in: chapters/02_laplace.ipynb
    """
    t = check_finite_array(true, "true")
    p = check_finite_array(private, "private")
    try:
        np.broadcast_shapes(t.shape, p.shape)
    except ValueError:
        raise ValueError(f"true and private must have matching shapes, got {t.shape} and {p.shape}") from None
    if np.any(t == 0):
        raise ValueError("true must be non-zero: percent error is undefined at 0")
    return scalar_or_array(100 * np.abs(p - t) / np.abs(t))
