"""Noise distributions: exact densities and CDFs beside their samplers.

The samplers are built from uniforms by the inverse-CDF method (Chapter 1),
so the chapter's derivation and the library are the same code.
"""

from __future__ import annotations

import numpy as np

from .random import check_rng
from .validation import check_finite_array, check_int, check_positive

__all__ = [
    "laplace_pdf",
    "laplace_cdf",
    "laplace_inverse_cdf",
    "laplace_variance",
    "open_uniform",
    "sample_laplace",
]

_UNIFORM_BITS = 52  # (k + 1/2) / 2**52 is exact in float64 and never 0 or 1
_CHUNK = 1 << 16  # draws per step of sample_laplace: its temporaries (512 KiB each) stay in the CPU cache


def _scalar_or_array(x):
    """Return a Python float for 0-d results, the array otherwise."""
    return float(x) if np.ndim(x) == 0 else x


def _check_size(size):
    """Accept None, a non-negative int or a tuple of them (numpy's ``size``)."""
    if size is None:
        return None
    dims = size if isinstance(size, tuple) else (size,)
    for d in dims:
        check_int(d, "size", minimum=0)
    return size


def laplace_pdf(x, loc=0.0, scale=1.0):
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

    Defined in: chapters/01_laplace.ipynb

    Examples
    --------
    >>> laplace_pdf(0.0, scale=2.0)
    0.25
    """
    x = check_finite_array(x, "x")
    loc = float(check_finite_array(loc, "loc", ndim=0))
    b = check_positive(scale, "scale")
    return _scalar_or_array(np.exp(-np.abs(x - loc) / b) / (2 * b))


def laplace_cdf(x, loc=0.0, scale=1.0):
    """CDF of Lap(loc, scale): 1/2 e^{(x-loc)/b} below loc, 1 - 1/2 e^{-(x-loc)/b} above.

    Privacy: none (a formula).

    Defined in: chapters/01_laplace.ipynb

    Examples
    --------
    >>> laplace_cdf(0.0)
    0.5
    """
    x = check_finite_array(x, "x")
    loc = float(check_finite_array(loc, "loc", ndim=0))
    b = check_positive(scale, "scale")
    z = (x - loc) / b
    # each branch only exponentiates a non-positive number: no overflow
    cdf = np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))
    return _scalar_or_array(cdf)


def laplace_inverse_cdf(u, loc=0.0, scale=1.0):
    """Inverse CDF (quantile function) of Lap(loc, scale) for u in [0, 1].

    x = loc + b ln(2u) for u < 1/2, and x = loc - b ln(2(1 - u)) otherwise.
    u = 0 and u = 1 map to -inf and +inf, the exact limits.

    Privacy: none (a formula); applied to uniforms it samples Laplace noise.

    Defined in: chapters/01_laplace.ipynb

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
    loc = float(check_finite_array(loc, "loc", ndim=0))
    b = check_positive(scale, "scale")
    return _scalar_or_array(_inverse_cdf(u, loc, b))


def _inverse_cdf(u, loc, b):
    """loc + b ln(2u) below 1/2, loc - b ln(2(1 - u)) from 1/2 on, for checked uniforms u.

    Branch-free and with one logarithm: 2 min(u, 1 - u) is 2u below 1/2 and
    2(1 - u) above, and its log (<= 0) gets the sign of u - 1/2 (via -(1/2 - u),
    so that u = 1/2 gives -0.0 as -ln 1 does). Bit for bit the two-branch
    formula, about three times faster than evaluating both branches.
    """
    u = np.asarray(u, dtype=float)
    t = np.subtract(1.0, u, out=np.empty(u.shape))  # out= keeps 0-d inputs arrays, for the in-place steps
    np.minimum(u, t, out=t)
    t *= 2.0
    with np.errstate(divide="ignore"):  # ln(0) = -inf is the correct limit at u = 0 or 1
        np.log(t, out=t)
    sign = np.subtract(0.5, u, out=np.empty(u.shape))
    np.negative(sign, out=sign)
    np.copysign(t, sign, out=t)
    t *= b
    t += loc
    return t


def laplace_variance(scale):
    """Variance of Lap(loc, scale): 2 scale**2.

    Privacy: none (a formula).

    Examples
    --------
    >>> laplace_variance(2.0)
    8.0
    """
    b = check_positive(scale, "scale")
    return 2 * b * b


def open_uniform(size=None, *, rng):
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
    """
    rng = check_rng(rng)
    k = rng.integers(0, 2**_UNIFORM_BITS, size=_check_size(size), dtype=np.int64)
    u = (k + 0.5) * 2.0**-_UNIFORM_BITS
    return _scalar_or_array(u)


def sample_laplace(scale, size=None, loc=0.0, *, rng):
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

    Defined in: chapters/01_laplace.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> x = sample_laplace(2.0, size=100_000, rng=make_rng(7))
    >>> round(float(x.var()), 0)
    8.0
    """
    b = check_positive(scale, "scale")
    loc = float(check_finite_array(loc, "loc", ndim=0))
    if size is None:
        return float(_inverse_cdf(open_uniform(rng=rng), loc, b))
    out = np.empty(_check_size(size))
    flat = out.reshape(-1)
    # In chunks: the same uniforms in the same order as one open_uniform(size) call (each
    # consumes one 64-bit draw), so the output does not depend on the chunking; the
    # uniforms are in (0, 1) by construction, so they need no second check.
    for start in range(0, flat.size, _CHUNK):
        u = open_uniform(min(_CHUNK, flat.size - start), rng=rng)
        flat[start:start + u.size] = _inverse_cdf(u, loc, b)
    return _scalar_or_array(out)
