"""Exact noise: discrete Laplace and discrete Gaussian samplers, and the snapping mechanism.

The samplers follow Canonne, Kamath & Steinke (NeurIPS 2020), Algorithms 1-3:
every decision is an integer comparison or a Bernoulli draw with a rational
parameter n/d (a uniform integer in [0, d) compared with n), so no rounding
error can shape the output distribution. Parameters are exact rationals:
ints, ``fractions.Fraction`` or floats (a float is converted exactly, e.g.
0.1 becomes 3602879701896397/2**55). Draws are vectorised: all pending draws
advance together, with masks marking those still running.

Randomness: the uniform integers come from ``rng.integers``. numpy's PCG64 is
*not* a cryptographically secure generator: its state can be recovered from
its outputs. A deployment passes a generator fed by the operating system,
e.g. ``numpy.random.Generator(SecureBitGenerator())`` where the bit generator
wraps ``secrets``/``os.urandom`` (numpy.random.BitGenerator subclass, or
randomgen's ``UserBitGenerator``). Everything here only calls ``rng.integers``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .random import check_rng
from .validation import check_epsilon, check_finite_array, check_int, check_positive, refuse_overflow

__all__ = [
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_laplace_variance",
    "discrete_gaussian_variance",
    "discrete_laplace_mech",
    "discrete_gaussian_mech",
    "snapping_mech",
]

_INT_LIMIT = 2**62  # numerators/denominators below this stay on the fast int64 path


def _rational(value, name) -> Fraction:
    """Return a positive finite number as an exact Fraction (floats converted exactly)."""
    if isinstance(value, Fraction):
        if value <= 0:
            raise ValueError(f"{name} must be a rational number > 0, got {value!r}")
        return value
    x = check_positive(value, name)  # refuses bools, strings, NaN, inf and values <= 0
    return Fraction(int(value)) if isinstance(value, (int, np.integer)) else Fraction(x)


def _count(size):
    """Number of draws for numpy's ``size`` (None, an int or a tuple of ints)."""
    dims = () if size is None else size if isinstance(size, tuple) else (size,)
    return math.prod(check_int(d, "size", minimum=0) for d in dims)


def _shaped(draws, size):
    """One Python int for size=None, otherwise the draws in the requested shape."""
    return int(draws[0]) if size is None else draws.reshape(size)


def _check_counts(value):
    """Return integer-valued input as an int64 array (counts), refusing fractions, NaN and inf."""
    arr = np.asarray(value)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    arr = check_finite_array(value, "value")
    if not np.all(arr == np.round(arr)) or np.any(np.abs(arr) >= 2.0**62):
        raise ValueError("value must contain integers (counts) of magnitude < 2**62")
    return arr.astype(np.int64)


def _bernoulli(num, den, rng):
    """Bernoulli(num/den) per element, 0 <= num <= den, exactly: U ~ Unif{0..den-1}, return U < num.

    int64 arrays take one ``rng.integers`` call. Object arrays (Python ints too big for
    int64) compare U's base-2**62 digits with those of num/den, one digit per round.
    """
    if num.dtype != object:
        return rng.integers(0, den) < num
    out = np.zeros(num.shape, dtype=bool)
    rem, den, idx = num.copy(), den.copy(), np.arange(num.size)
    while idx.size:
        digit = (rem << 62) // den  # the next base-2**62 digit of num/den
        r = rng.integers(0, _INT_LIMIT, size=idx.size).astype(object)
        out[idx[r < digit]] = True
        tie = r == digit  # probability 2**-62: look at the next digit
        rem, den, idx = ((rem << 62) - digit * den)[tie], den[tie], idx[tie]
    return out


def _bernoulli_exp(num, den, rng):
    """Bernoulli(exp(-num/den)) per element for num/den in [0, 1] (CKS20 Algorithm 1).

    Draw A_K ~ Bernoulli(gamma/K) for K = 1, 2, ... until one is 0; return 1 iff
    that K is odd. Bernoulli(gamma/K) = Bernoulli(1/K) and Bernoulli(gamma), independent.
    """
    running = np.ones(num.shape, dtype=bool)
    result = np.zeros(num.shape, dtype=bool)
    k = 1
    while running.any():
        idx = np.flatnonzero(running)
        a = (rng.integers(0, k, size=idx.size) == 0) & _bernoulli(num[idx], den[idx], rng)
        stopped = idx[~a]
        result[stopped] = k % 2 == 1
        running[stopped] = False
        k += 1
    return result


def _geometric_exp1(n, rng):
    """Number of successes before the first failure of Bernoulli(exp(-1)) trials, n times."""
    count = np.zeros(n, dtype=np.int64)
    running = np.ones(n, dtype=bool)
    one = np.ones(n, dtype=np.int64)
    while running.any():
        idx = np.flatnonzero(running)
        ok = _bernoulli_exp(one[idx], one[idx], rng)
        count[idx[ok]] += 1
        running[idx[~ok]] = False
    return count


def _bernoulli_exp_int(whole, rng):
    """Bernoulli(exp(-n)) per element for integers n >= 0: n successes in a row of Bernoulli(exp(-1))."""
    result = np.ones(whole.shape, dtype=bool)
    left = whole.copy()
    running = left > 0
    while running.any():
        idx = np.flatnonzero(running)
        ok = _bernoulli_exp(np.ones(idx.size, dtype=np.int64), np.ones(idx.size, dtype=np.int64), rng)
        result[idx[~ok]] = False
        left[idx] = left[idx] - 1
        running[idx] = ok & (left[idx] > 0)
    return result


def _discrete_laplace(scale: Fraction, n: int, rng, name: str = "scale") -> np.ndarray:
    """n draws with P(z) proportional to exp(-|z|/scale), scale = t/s (CKS20 Algorithm 2)."""
    t, s = scale.numerator, scale.denominator
    if t >= _INT_LIMIT or s >= _INT_LIMIT:
        raise ValueError(f"{name} must give a noise scale t/s with t, s < 2**62 (pass a Fraction with smaller "
                         "terms, or a less extreme value)")
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        m = pending.size
        u = rng.integers(0, t, size=m)  # U ~ Unif{0, ..., t-1}
        d = _bernoulli_exp(u, np.full(m, t), rng)  # D ~ Bernoulli(exp(-U/t)); retry if 0
        u, idx = u[d], pending[d]
        v = _geometric_exp1(idx.size, rng)  # V: geometric with parameter 1 - exp(-1)
        x = u.astype(object) + t * v.astype(object)  # X = U + tV, exact in Python ints
        y = (x // s).astype(np.int64)  # Y = floor(X/s), geometric with parameter 1 - exp(-1/scale)
        b = rng.integers(0, 2, size=idx.size)  # random sign; (B = 1, Y = 0) is rejected
        ok = ~((b == 1) & (y == 0))
        out[idx[ok]] = ((1 - 2 * b) * y)[ok]
        done = np.zeros(m, dtype=bool)
        done[np.flatnonzero(d)[ok]] = True
        pending = pending[~done]
    return out


def _discrete_gaussian(sigma2: Fraction, n: int, rng, name: str = "sigma") -> np.ndarray:
    """n draws with P(z) proportional to exp(-z^2/(2 sigma2)) (CKS20 Algorithm 3).

    Propose Y ~ discrete Laplace with scale t = floor(sigma) + 1 and accept with
    probability exp(-(|Y| - sigma2/t)^2 / (2 sigma2)) = exp(-num/den) with
    num = (|Y| q t - p)^2, den = 2 p q t^2 for sigma2 = p/q.
    """
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        y = _discrete_laplace(Fraction(t), pending.size, rng, name)
        num = (np.abs(y).astype(object) * (q * t) - p) ** 2
        den = np.full(y.size, 2 * p * q * t * t, dtype=object)
        whole, frac = num // den, num % den
        if den[0] < _INT_LIMIT:  # then num // den and num % den fit too
            whole, frac, den = whole.astype(np.int64), frac.astype(np.int64), den.astype(np.int64)
        # Bernoulli(exp(-gamma)) = floor(gamma) Bernoulli(exp(-1)) successes, then Bernoulli(exp(-frac))
        accept = _bernoulli_exp_int(whole, rng)
        accept[accept] = _bernoulli_exp(frac[accept], den[accept], rng)
        out[pending[accept]] = y[accept]
        pending = pending[~accept]
    return out


def sample_discrete_laplace(scale, size=None, *, rng):
    """Draw exact discrete Laplace noise: P(Z = z) = (1 - p)/(1 + p) p^|z|, p = exp(-1/scale), z in Z.

    Parameters
    ----------
    scale : int, Fraction or float > 0, the scale t (converted to an exact rational t = a/b with a, b < 2**62).
    size : None, int or tuple; None gives one Python int.
    rng : numpy.random.Generator (keyword-only, required). PCG64 is not a cryptographically
        secure generator; see the module docstring for how a deployment supplies one.

    Returns
    -------
    int, or an int64 array of shape ``size``.

    Privacy: none by itself; added to an integer query of sensitivity Δ with scale Δ/ε it is
    ε-DP (see ``discrete_laplace_mech``). Only integer arithmetic decides the output.

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> z = sample_discrete_laplace(2, size=100_000, rng=make_rng(1))
    >>> round(float(z.var()), 1), round(discrete_laplace_variance(2), 1)
    (7.8, 7.8)
    """
    t = _rational(scale, "scale")
    n = _count(size)
    return _shaped(_discrete_laplace(t, max(n, 1 if size is None else 0), check_rng(rng)), size)


def sample_discrete_gaussian(sigma, size=None, *, rng):
    """Draw exact discrete Gaussian noise: P(Z = z) proportional to exp(-z^2 / (2 sigma^2)), z in Z.

    Parameters
    ----------
    sigma : int, Fraction or float > 0; sigma^2 is formed exactly as a rational.
    size : None, int or tuple; None gives one Python int.
    rng : numpy.random.Generator (keyword-only, required; PCG64 is not a CSPRNG, see the module docstring).

    Returns
    -------
    int, or an int64 array of shape ``size``.

    Privacy: none by itself; added to an integer query of L2 sensitivity Δ it is
    Δ²/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020; see ``discrete_gaussian_mech``).

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> z = sample_discrete_gaussian(3, size=100_000, rng=make_rng(1))
    >>> round(float(z.var()), 1)
    9.0
    """
    s = _rational(sigma, "sigma")
    n = _count(size)
    return _shaped(_discrete_gaussian(s * s, max(n, 1 if size is None else 0), check_rng(rng), "sigma"), size)


@refuse_overflow("k", "scale")
def discrete_laplace_pmf(k, scale):
    """P(Z = k) for the discrete Laplace law with the given scale: tanh(1/(2 scale)) exp(-|k|/scale).

    Parameters
    ----------
    k : int or array of integers.
    scale : float > 0.

    Returns
    -------
    float or float array shaped like ``k``.

    Privacy: none (a formula).

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> round(discrete_laplace_pmf(0, 1.0), 6)
    0.462117
    """
    k = check_finite_array(k, "k")
    t = check_positive(scale, "scale")
    pmf = math.tanh(0.5 / t) * np.exp(-np.abs(k) / t)
    return float(pmf) if pmf.ndim == 0 else pmf


def _gaussian_normaliser(sigma):
    """sum over z in Z of exp(-z^2/(2 sigma^2)): direct sum for small sigma, Poisson summation otherwise."""
    if sigma < 40:
        z = np.arange(-int(40 * sigma) - 40, int(40 * sigma) + 41)
        return float(np.exp(-z * z / (2 * sigma * sigma)).sum())
    return math.sqrt(2 * math.pi) * sigma  # the next Poisson term, exp(-2 pi^2 sigma^2), is below 1e-300


@refuse_overflow("k", "sigma")
def discrete_gaussian_pmf(k, sigma):
    """P(Z = k) for the discrete Gaussian N_Z(0, sigma^2): exp(-k^2/(2 sigma^2)) / sum_z exp(-z^2/(2 sigma^2)).

    Parameters
    ----------
    k : int or array of integers.
    sigma : float > 0.

    Returns
    -------
    float or float array shaped like ``k``.

    Privacy: none (a formula).

    Used in: chapters/09_exact_noise.ipynb, through ``plot_discrete_samples``

    Examples
    --------
    >>> round(discrete_gaussian_pmf(0, 1.0), 6)
    0.398942
    """
    k = check_finite_array(k, "k")
    s = check_positive(sigma, "sigma")
    pmf = np.exp(-k * k / (2 * s * s)) / _gaussian_normaliser(s)
    return float(pmf) if pmf.ndim == 0 else pmf


@refuse_overflow("scale")
def discrete_laplace_variance(scale):
    """Variance of the discrete Laplace law: 2p/(1 - p)^2 with p = exp(-1/scale) (below 2 scale^2).

    Parameters
    ----------
    scale : float > 0.

    Returns
    -------
    float.

    Privacy: none (a formula).

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> round(discrete_laplace_variance(1.0), 4)
    1.8413
    """
    t = check_positive(scale, "scale")
    return 2 * math.exp(-1 / t) / (-math.expm1(-1 / t)) ** 2


@refuse_overflow("sigma")
def discrete_gaussian_variance(sigma):
    """Variance of N_Z(0, sigma^2): sum of z^2 P(z) (below sigma^2; equal to it up to 1e-300 for sigma >= 40).

    Parameters
    ----------
    sigma : float > 0.

    Returns
    -------
    float.

    Privacy: none (a formula).

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> round(discrete_gaussian_variance(0.5), 4), round(discrete_gaussian_variance(3.0), 4)
    (0.215, 9.0)
    """
    s = check_positive(sigma, "sigma")
    if s >= 40:
        return s * s
    z = np.arange(-int(40 * s) - 40, int(40 * s) + 41)
    return float((z * z * discrete_gaussian_pmf(z, s)).sum())


def discrete_laplace_mech(value, sensitivity, epsilon, *, rng):
    """Release integer ``value`` + discrete Laplace noise of scale Δ/ε (the geometric mechanism).

    Parameters
    ----------
    value : int or array of integers (counts), the true answer.
    sensitivity : int >= 1, Δ₁ of the integer query.
    epsilon : int, Fraction or float > 0 (floats are taken exactly).
    rng : numpy.random.Generator (keyword-only, required; not a CSPRNG, see the module docstring).

    Returns
    -------
    int for a scalar ``value``, otherwise an int64 array of the same shape.

    Privacy: ε-DP for add/remove-one neighbours (or the relation ``sensitivity`` was computed
    for) when ``sensitivity`` bounds the L1 sensitivity; exactly, with no floating-point gap:
    every integer is a possible output from every input.

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> isinstance(discrete_laplace_mech(120, sensitivity=1, epsilon=0.5, rng=make_rng(3)), int)
    True
    """
    true_answer = _check_counts(value)
    scale = Fraction(check_int(sensitivity, "sensitivity", minimum=1)) / _rational(epsilon, "epsilon")
    noise = _discrete_laplace(scale, true_answer.size, check_rng(rng), "sensitivity / epsilon")
    noisy_answer = true_answer + noise.reshape(true_answer.shape)
    return int(noisy_answer) if noisy_answer.ndim == 0 else noisy_answer


def discrete_gaussian_mech(value, sensitivity, rho, *, rng):
    """Release integer ``value`` + discrete Gaussian noise with sigma^2 = Δ²/(2ρ).

    Parameters
    ----------
    value : int or array of integers (counts), the true answer.
    sensitivity : int >= 1, Δ₂ of the integer query (L2 norm over the coordinates).
    rho : int, Fraction or float > 0, the zCDP budget (floats are taken exactly).
    rng : numpy.random.Generator (keyword-only, required; not a CSPRNG, see the module docstring).

    Returns
    -------
    int for a scalar ``value``, otherwise an int64 array of the same shape.

    Privacy: ρ-zCDP with ρ = Δ²/(2σ²) (Canonne, Kamath & Steinke 2020, Thm 14) for the
    relation ``sensitivity`` was computed for; hence (ρ + 2 sqrt(ρ ln(1/δ)), δ)-DP for every δ.

    Defined in: chapters/09_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> noisy = discrete_gaussian_mech([10, 20], sensitivity=1, rho=0.5, rng=make_rng(3))
    >>> noisy.dtype.kind
    'i'
    """
    true_answer = _check_counts(value)
    sigma2 = Fraction(check_int(sensitivity, "sensitivity", minimum=1)) ** 2 / (2 * _rational(rho, "rho"))
    noise = _discrete_gaussian(sigma2, true_answer.size, check_rng(rng), "sensitivity / rho")
    noisy_answer = true_answer + noise.reshape(true_answer.shape)
    return int(noisy_answer) if noisy_answer.ndim == 0 else noisy_answer


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


def snapping_mech(value, sensitivity, epsilon, bound, *, rng):
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

    Defined in: chapters/09_exact_noise.ipynb

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
