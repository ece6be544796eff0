"""Noise distributions: exact densities and CDFs beside their samplers.

The samplers are built from uniforms by the inverse-CDF method (chapters/02_laplace.ipynb),
so the chapter's derivation and the library are the same code.

The public functions validate their arguments; ``laplace_draws``,
``laplace_cdf_values`` and ``require_noise_range`` (not exported) are their
cores for callers that have already checked the values (e.g. ``dp_lib.svt``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .random import check_rng
from .shaping import refuse_overflow, scalar_or_array
from .validation import check_finite_array, check_positive, check_real, check_size

__all__ = [
    "laplace_pdf",
    "laplace_cdf",
    "laplace_inverse_cdf",
    "laplace_variance",
    "open_uniform",
    "sample_laplace",
    "check_noise_range",
]

_UNIFORM_BITS = 52  # (k + 1/2) / 2**52 is exact in float64 and never 0 or 1
MAX_LAPLACE_DRAW = _UNIFORM_BITS * math.log(2)  # |ln(2u)| <= 52 ln 2 ≈ 36.04 on the open_uniform grid


def check_noise_range(scale: float, loc: float = 0.0, *, name: str = "scale") -> None:
    """Refuse a Laplace ``scale`` and centre ``loc`` whose draws could overflow float64.

    ``sample_laplace`` returns loc ± scale |ln(2u)| with |ln(2u)| <= 52 ln 2, so
    every draw is finite exactly when |loc| + 36.04 scale is. Deciding this from
    the parameters (not from the draws) means a mechanism never raises because
    of its noise.

    Parameters
    ----------
    scale : float > 0.  loc : finite float (a true answer, for a mechanism).
    name : the parameters that set ``scale``, for the message (e.g. "sensitivity / epsilon").

    Returns
    -------
    None; raises ValueError naming ``scale``.

    Privacy: none; a check of public parameters.

    Used in: chapters/02_laplace.ipynb, through ``sample_laplace`` and every mechanism that adds noise

    Examples
    --------
    >>> check_noise_range(1.0, 5.0)
    >>> try:
    ...     check_noise_range(1e307)
    ... except ValueError as err:
    ...     print(str(err)[:26])
    scale gives a noise scale 
    """
    try:
        scale, loc = check_real(scale, "scale"), check_real(loc, "loc")
    except ValueError:
        scale, loc = math.inf, math.nan  # refused below, naming ``name``
    require_noise_range(scale, loc, name=name)


def require_noise_range(scale: float, loc: float, *, name: str) -> None:
    """``check_noise_range`` for values already checked to be floats (takes checked values; not exported).

    The mechanisms call it after validating their arguments once at their public boundary, on the
    scale they derived (e.g. Δ/ε): the arithmetic of the range test, without re-checking types.
    """
    if not (0 < scale < math.inf and math.isfinite(abs(loc) + MAX_LAPLACE_DRAW * scale)):
        raise ValueError(f"{name} gives a noise scale {scale:g} outside (0, inf) or large enough for Lap({scale:g}) "
                         f"noise around {loc!r:.12} to overflow float64 (|loc| + 36.04 scale must stay below 1.8e308)")


@refuse_overflow("x", "loc", "scale")
def laplace_pdf(x: ArrayLike, loc: float = 0.0, scale: float = 1.0) -> float | np.ndarray:
    """Density of Lap(loc, scale): exp(-|x - loc| / scale) / (2 scale).

    Parameters
    ----------
    x : float or array of finite floats
    loc : float, the centre.
    scale : float > 0, the scale b (the standard deviation is sqrt(2) b).

    Returns
    -------
    float or numpy array shaped like ``x``.

    Privacy: none (a formula); used to overlay theory on simulations.

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> laplace_pdf(0.0, scale=2.0)
    0.25
    """
    x = check_finite_array(x, "x")
    loc = check_real(loc, "loc")
    b = check_positive(scale, "scale")
    return scalar_or_array(np.exp(-np.abs(x - loc) / b) / (2 * b))


@refuse_overflow("x", "loc", "scale")
def laplace_cdf(x: ArrayLike, loc: float = 0.0, scale: float = 1.0) -> float | np.ndarray:
    """CDF of Lap(loc, scale): 1/2 e^{(x-loc)/b} below loc, 1 - 1/2 e^{-(x-loc)/b} above.

    Privacy: none (a formula).

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> laplace_cdf(0.0)
    0.5
    """
    x = check_finite_array(x, "x")
    loc = check_real(loc, "loc")
    b = check_positive(scale, "scale")
    return scalar_or_array(laplace_cdf_values(x, loc, b))


def laplace_cdf_values(x: ArrayLike, loc: float, scale: float) -> np.ndarray:
    """``laplace_cdf`` for checked arguments, as an array (takes checked values; not exported).

    (x - loc) / b may overflow to ±inf for a tiny b: the CDF there is its exact limit, 0 or 1.
    """
    with np.errstate(over="ignore"):
        z = (np.asarray(x, dtype=float) - loc) / scale
    # each branch only exponentiates a non-positive number: no overflow
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))


def laplace_inverse_cdf(u: ArrayLike, loc: float = 0.0, scale: float = 1.0) -> float | np.ndarray:
    """Inverse CDF (quantile function) of Lap(loc, scale) for u in [0, 1].

    x = loc + b ln(2u) for u < 1/2, and x = loc - b ln(2(1 - u)) otherwise.
    u = 0 and u = 1 map to -inf and +inf, the exact limits.

    Privacy: none (a formula); applied to uniforms it samples Laplace noise.

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> laplace_inverse_cdf(0.5, loc=3.0)
    3.0
    >>> round(laplace_inverse_cdf(laplace_cdf(1.7, scale=2.0), scale=2.0), 12)
    1.7
    """
    u = check_finite_array(u, "u")
    if np.any((u < 0) | (u > 1)):
        raise ValueError("u must contain uniforms in [0, 1]")
    loc = check_real(loc, "loc")
    b = check_positive(scale, "scale")
    return scalar_or_array(_inverse_cdf(u, loc, b))


def _inverse_cdf(u, loc, b):
    """loc + b ln(2u) below 1/2, loc - b ln(2(1 - u)) from 1/2 on: two branches, one logarithm."""
    u = np.asarray(u, dtype=float)
    below = u < 0.5
    with np.errstate(divide="ignore"):  # ln(0) = -inf is the correct limit at u = 0 or 1
        t = np.log(2 * np.where(below, u, 1 - u))  # ln(2u) or ln(2(1 - u)), both <= 0
    return loc + b * np.where(below, t, -t)


@refuse_overflow("scale")
def laplace_variance(scale: float) -> float:
    """Variance of Lap(loc, scale): 2 scale**2.

    Privacy: none (a formula).

    Examples
    --------
    >>> laplace_variance(2.0)
    8.0

    Defined in: chapters/02_laplace.ipynb
    """
    b = check_positive(scale, "scale")
    return 2 * b * b


def open_uniform(size: int | tuple[int, ...] | None = None, *, rng: np.random.Generator) -> float | np.ndarray:
    """Uniforms on the open interval (0, 1): (k + 1/2) / 2**52 for a random 52-bit k.

    ``rng.random()`` can return exactly 0, where ln(2u) is -inf; this grid is
    symmetric about 1/2 and never touches 0 or 1.

    Privacy: none by itself; the source of every continuous sampler here.

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> u = open_uniform(1000, rng=make_rng(1))
    >>> bool(u.min() > 0 and u.max() < 1)
    True

    Defined in: chapters/02_laplace.ipynb
    """
    rng = check_rng(rng)
    k = rng.integers(0, 2**_UNIFORM_BITS, size=check_size(size), dtype=np.int64)
    u = (k + 0.5) * 2.0**-_UNIFORM_BITS
    return scalar_or_array(u)


def sample_laplace(scale: float, size: int | tuple[int, ...] | None = None, loc: float = 0.0, *,
                   rng: np.random.Generator) -> float | np.ndarray:
    """Draw Lap(loc, scale) noise by the inverse-CDF method.

    Parameters
    ----------
    scale : float > 0, the scale b.
    size : None, int or tuple; None gives one float.
    loc : float, the centre.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    float or numpy array of shape ``size``.

    Privacy: none by itself; added to a query of L1 sensitivity Δ with
    scale Δ/ε it gives ε-DP (see ``laplace_mech``). Continuous float noise is
    subject to the floating-point attack of Mironov (2012).

    Defined in: chapters/02_laplace.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> x = sample_laplace(2.0, size=100_000, rng=make_rng(7))
    >>> round(float(x.var()), 0)
    8.0
    """
    b = check_positive(scale, "scale")
    loc = check_real(loc, "loc")
    require_noise_range(b, loc, name="scale")
    return scalar_or_array(laplace_draws(b, size, loc, rng=rng))


def laplace_draws(scale: float, size: int | tuple[int, ...] | None, loc: float, *,
                  rng: np.random.Generator) -> np.ndarray:
    """``sample_laplace`` for a scale and loc already checked (takes checked values; not exported).

    Callers have validated ``scale`` and ``loc`` (``require_noise_range`` passed); the uniforms come
    from ``open_uniform``, which checks ``rng`` and ``size``. Returns a numpy array (0-d for size None).
    """
    u = open_uniform(size, rng=rng)  # in (0, 1), never 1/2 exactly: never ln(0), never a tie
    # The inverse CDF of chapters/02_laplace.ipynb, the same function that laplace_inverse_cdf and the replay of
    # the floating-point attack (dp_lib.floating, chapters/14_exact_noise.ipynb) call: a replay is bit-exact only
    # with the very same log.
    return _inverse_cdf(u, loc, scale)
