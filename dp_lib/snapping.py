"""Mironov's snapping mechanism: the float-attack fix that stays with floats (beside ``dp_lib.floating``).

``dp_lib.floating`` shows which floats the textbook Laplace mechanism can and cannot
output (Mironov 2012's attack); snapping closes that gap for real-valued queries
by clamping, adding Laplace noise drawn from *every* double in (0, 1), rounding to
a power-of-two grid and clamping again (Mironov 2012, §5.2). The exact integer
samplers are in ``dp_lib.exact``.

Randomness: only ``rng.integers`` (see ``dp_lib.exact`` on supplying a CSPRNG).
"""

from __future__ import annotations

import math

import numpy as np

from .random import check_rng
from .validation import check_epsilon, check_finite_array, check_positive

__all__ = ["snapping_mech"]


def _uniform_all_doubles(n, rng):
    """n draws of U*: every double in (0, 1) with probability equal to the width it rounds from.

    Exponent: geometric with parameter 1/2 from the leading zeros of 32-bit words; significand:
    52 uniform bits (Mironov 2012, section 5.2; diffprivlib's ``Snapping._uniform_sampler``).
    """
    significand = rng.integers(0, 2**52, size=n, dtype=np.int64) | (1 << 52)
    exponent = np.full(n, -53)
    idx = np.arange(n)
    while idx.size:
        word = rng.integers(0, 2**32, size=idx.size, dtype=np.int64)
        exponent[idx] += np.frexp(word.astype(float))[1] - 32  # bit length - 32, exact below 2**53
        idx = idx[word == 0]
    return np.ldexp(significand.astype(float), exponent)


def snapping_mech(value: float | np.ndarray, sensitivity: float, epsilon: float, bound: float, *,
                  rng: np.random.Generator) -> float | np.ndarray:
    """Mironov's snapping mechanism for real-valued queries: clamp, add Laplace, snap to a grid, clamp.

    In units of the sensitivity (x = value/Δ, B = bound/Δ):
    clamp(x, ±B) + S·λ·ln(U*), rounded to the nearest multiple of Λ (the smallest power of 2 ≥ λ),
    clamped again to ±B. S is a random sign and U* is uniform over *all* doubles in (0, 1).
    λ = (1 + 2⁻⁴⁹B)/ε, so that Mironov's bound (1/λ + 2⁻⁴⁹B/λ) equals the requested ε.

    Parameters
    ----------
    value : float or array, the true answer.
    sensitivity : float > 0, Δ: neighbouring values differ by at most Δ.
    epsilon : float > 0.
    bound : float, B·Δ; outputs lie in [-bound, bound]. Mironov's theorem needs λ < B < 2⁴⁶λ.
    rng : numpy.random.Generator (keyword-only, required; not a CSPRNG, see the module docstring).

    Returns
    -------
    float for a scalar ``value``, otherwise an array of the same shape.

    Privacy: ε-DP for neighbours whose values differ by at most ``sensitivity`` (Mironov 2012,
    §5.2), assuming ln is correctly rounded and the scaled values x = value/Δ of neighbours
    differ by at most 1. Neither is proven here: numpy's log is accurate to about 1 ulp but not
    proven correctly rounded (diffprivlib uses crlibm when installed), and the float division
    value/Δ can stretch the scaled sensitivity by about B·2⁻⁵³. diffprivlib's ``Snapping``
    charges ε differently, λ = (1 + 12Bη)/(ε − 2η) with η = 2⁻⁵³.

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> y = snapping_mech(3.3, sensitivity=1.0, epsilon=1.0, bound=100.0, rng=make_rng(1))
    >>> y == round(y)  # lambda = 1 + tiny, so Lambda = 2: outputs are even numbers
    True
    """
    x = check_finite_array(value, "value")
    d = check_positive(sensitivity, "sensitivity")
    e = check_epsilon(epsilon)
    b = check_positive(bound, "bound") / d
    lam = (1 + 2.0**-49 * b) / e
    if not lam < b < 2.0**46 * lam:
        raise ValueError(f"bound must lie in (λΔ, 2**46 λΔ) = ({lam * d:.6g}, {2.0**46 * lam * d:.6g}) "
                         f"for Mironov's theorem, got {bound!r}")
    mant, exp2 = math.frexp(lam)
    grid = lam if mant == 0.5 else math.ldexp(1.0, exp2)  # Λ: the smallest power of 2 >= λ
    rng = check_rng(rng)
    u = _uniform_all_doubles(x.size, rng).reshape(x.shape)
    sign = 1 - 2 * rng.integers(0, 2, size=x.shape)
    y = np.clip(x / d, -b, b) + sign * lam * np.log(u)
    y = np.clip(np.round(y / grid) * grid, -b, b) * d
    return float(y) if y.ndim == 0 else y
