"""Shuffled batches are not Poisson batches: the exact δ(ε) of a two-batch shuffled Gaussian, a small case.

One epoch in two batches: a shuffle puts the record x* in batch 1 or batch 2 with probability ½ each (always in
exactly one), and each batch's sum of clipped gradients (here x* contributes 1, the others 0) gets N(0, σ²)
noise. Removing x*: P = ½N((1, 0), σ²I) + ½N((0, 1), σ²I) against Q = N(0, σ²I). In the coordinates
u = (y₁ - y₂)/√2, v = (y₁ + y₂)/√2 the privacy loss is linear in v, L = (v/√2 - ½)/σ² + ln cosh(u/(√2σ²)), so
δ(ε) = E[(1 - e^{ε - L})₊] is a Gaussian integral in v (closed form) and a one-dimensional integral in u
(trapezoid rule on a fine grid). A Poisson accountant with q = ½ describes a different mechanism.

See: chapters/10_accounting.ipynb (the chapter this module belongs to)
"""

from __future__ import annotations

import math

import numpy as np
from .validation import check_nonnegative, check_positive

__all__ = ["two_batch_shuffle_delta"]


def _hockey_linear(epsilon, b, c, m, s):
    """E[(1 - e^{ε - (bV + c)})₊] for V ~ N(m, s²), elementwise in c (b != 0)."""
    from scipy.special import ndtr  # imported here: `import dp_lib` stays free of scipy

    mean, sd = b * m, abs(b) * s  # Z = bV ~ N(mean, sd²); the integrand is positive iff Z > k
    k = epsilon - c
    log_tail = epsilon - c - mean + sd * sd / 2  # e^{ε - c} E[e^{-Z}; Z > k] = e^{log_tail} Φ((mean - sd² - k)/sd)
    return ndtr((mean - k) / sd) - np.exp(np.minimum(log_tail, 700.0)) * ndtr((mean - sd * sd - k) / sd)


def two_batch_shuffle_delta(epsilon: float, sigma: float) -> float:
    """δ(ε) of one epoch of two shuffled batches with Gaussian noise σ (sensitivity 1), worse of the two orderings.

    Parameters
    ----------
    epsilon : float >= 0.  sigma : float > 0, the noise multiplier.

    Returns
    -------
    float δ: the exact hockey-stick value δ(ε) of this one pair of data sets, so a LOWER bound on the shuffled
    mechanism's δ(ε) over all add/remove-one neighbours, not a certificate; the integral in u is numerical
    (error far below the 4th decimal).

    Privacy: none (a computation on public parameters); the value is the exact δ(ε) of the shuffled mechanism on the
    pair described in the module docstring, a lower bound on its δ(ε), never a guarantee.

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> round(two_batch_shuffle_delta(0.5, 0.5), 3)
    0.502
    """
    eps, s = check_nonnegative(epsilon, "epsilon"), check_positive(sigma, "sigma")
    if not 0.01 <= s <= 1e3:
        raise ValueError(f"sigma must lie in [0.01, 1e3], got {sigma!r}")
    shift, s2 = 1 / math.sqrt(2), s * s
    u = np.linspace(-shift - 12 * s, shift + 12 * s, 20_001)
    density_u = lambda mu: np.exp(-(u - mu) ** 2 / (2 * s2)) / math.sqrt(2 * math.pi * s2)  # noqa: E731
    x = np.abs(u) / (math.sqrt(2) * s2)
    log_cosh = x + np.log1p(np.exp(-2 * x)) - math.log(2)
    c = log_cosh - 0.5 / s2  # L = b v + c(u), b = 1/(√2 σ²)
    b = 1 / (math.sqrt(2) * s2)
    remove = _hockey_linear(eps, b, c, shift, s) * (density_u(shift) + density_u(-shift)) / 2  # P: x* in a batch
    add = _hockey_linear(eps, -b, -c, 0.0, s) * density_u(0.0)  # P = N(0, σ²I), Q the mixture: the loss negated
    return float(max(np.trapezoid(remove, u), np.trapezoid(add, u)))
