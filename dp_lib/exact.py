"""Exact noise: discrete Laplace and discrete Gaussian samplers (Mironov's snapping mechanism: ``dp_lib.snapping``).

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

Size: about 240 lines of code, above the ~150 of the house rules, on purpose: the paper's
algorithms are here twice, as the readable one-draw-at-a-time functions the chapter reads and as
the vectorised twins the mechanisms use, next to each other so that a reader (and the tests, which
pin them to the same law and, for one draw, the same value) can compare them line by line.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .random import check_rng
from .shaping import refuse_overflow
from .validation import check_finite_array, check_int, check_positive, check_size

__all__ = [
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "sample_discrete_laplace_vectorised",
    "sample_discrete_gaussian_vectorised",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_laplace_variance",
    "discrete_gaussian_variance",
    "discrete_laplace_mech",
    "discrete_gaussian_mech",
]

_INT_LIMIT = 2**62  # numerators/denominators below this stay on the fast int64 path
_MAX_DRAWS = 2**30  # the stated limit of one call: refused before anything is allocated


def _rational(value, name) -> Fraction:
    """Return a positive finite number as an exact Fraction (floats converted exactly)."""
    if isinstance(value, Fraction):
        if value <= 0:
            raise ValueError(f"{name} must be a rational number > 0, got {value!r}")
        return value
    x = check_positive(value, name)  # refuses bools, strings, NaN, inf and values <= 0
    return Fraction(int(value)) if isinstance(value, (int, np.integer)) else Fraction(x)


def _check_scale(scale: Fraction, name: str) -> Fraction:
    """A discrete Laplace scale t/s with t, s < 2**62 (numpy's integer draws), else a ValueError naming ``name``."""
    if scale.numerator >= _INT_LIMIT or scale.denominator >= _INT_LIMIT:
        raise ValueError(f"{name} must give a noise scale t/s with t, s < 2**62 (pass a Fraction with smaller "
                         "terms, or a less extreme value)")
    return scale


def _count(size):
    """Number of draws for numpy's ``size`` (None, an int or a tuple of ints), refused before allocating if huge."""
    shape = check_size(size)
    n = 1 if shape is None else math.prod(shape)
    if n > _MAX_DRAWS:
        raise ValueError(f"size must ask for at most 2**30 draws per call (8 GiB of int64 and more while they run), "
                         f"got {size!r}")
    return n


def _shaped(draws, size):
    """One Python int for size=None, otherwise the draws in the requested shape."""
    return int(draws[0]) if size is None else draws.reshape(size)


def _check_integers(value, name="value"):
    """Integer-valued input as a float or int array; a fraction is a wrong type (TypeError), NaN/inf ValueError."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        arr = check_finite_array(value, name)
        if not np.all(arr == np.round(arr)):
            raise TypeError(f"{name} must be an integer or an array of integers, got {value!r:.60}")
    return arr


def _check_counts(value):
    """Integer counts as an int64 array; magnitudes from 2**62 on (uint64 2**63 would wrap) are refused."""
    arr = _check_integers(value)
    if arr.size and (np.max(arr) >= 2**62 or np.min(arr) <= -(2**62)):
        raise ValueError("value must contain integers (counts) of magnitude < 2**62, so that the noisy answer "
                         "stays an exact int64")
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
    t, s = _check_scale(scale, name).numerator, scale.denominator
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


# --- Canonne, Kamath & Steinke (2020), Algorithms 1-3, one draw at a time, in Python integers --------------

def _bernoulli_one(num: int, den: int, rng) -> bool:
    """Bernoulli(num/den) exactly: U uniform on {0, ..., den-1}, return U < num (for den beyond int64: U's base-2**62
    digits against those of num/den, one digit at a time, as far as they tie)."""
    if den < _INT_LIMIT:
        return int(rng.integers(0, den)) < num
    while True:
        digit = (num << 62) // den  # the next base-2**62 digit of num/den
        r = int(rng.integers(0, _INT_LIMIT))
        if r != digit:
            return r < digit
        num = (num << 62) - digit * den


def _bernoulli_exp_one(num: int, den: int, rng) -> bool:
    """Bernoulli(exp(-γ)) for γ = num/den in [0, 1] (CKS20 Algorithm 1)."""
    k = 1  # γ in [0, 1]: A_k ~ Bernoulli(γ/k) for k = 1, 2, ... until one is 0; exp(-γ) is P(that k is odd)
    while (int(rng.integers(0, k)) == 0) & _bernoulli_one(num, den, rng):  # Bernoulli(1/k), Bernoulli(γ): both drawn
        k += 1
    return k % 2 == 1


def _bernoulli_exp_any(num: int, den: int, rng) -> bool:
    """Bernoulli(exp(-γ)) for any γ = num/den >= 0: ⌊γ⌋ Bernoulli(exp(-1)) successes in a row, then
    Bernoulli(exp(-(γ - ⌊γ⌋))) (CKS20 Algorithm 1, the case γ > 1)."""
    whole, frac = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_one(1, 1, rng):
            return False
    return _bernoulli_exp_one(frac, den, rng)


def _discrete_laplace_one(t: int, s: int, rng) -> int:
    """One draw with P(z) proportional to exp(-|z| s/t), i.e. scale t/s (CKS20 Algorithm 2)."""
    while True:
        u = int(rng.integers(0, t))  # U uniform on {0, ..., t-1}
        if not _bernoulli_exp_one(u, t, rng):  # D ~ Bernoulli(exp(-U/t)); reject if 0
            continue
        v = 0  # V ~ Geometric(1 - exp(-1)): successes of Bernoulli(exp(-1)) before the first failure
        while _bernoulli_exp_one(1, 1, rng):
            v += 1
        y = (u + t * v) // s  # X = U + tV is Geometric(1 - exp(-1/t)); Y = floor(X/s)
        b = int(rng.integers(0, 2))  # a random sign B
        if not (b == 1 and y == 0):  # (B = 1, Y = 0) would count 0 twice: reject
            return (1 - 2 * b) * y


def _discrete_gaussian_one(p: int, q: int, rng) -> int:
    """One draw with P(z) proportional to exp(-z^2/(2σ²)), σ² = p/q (CKS20 Algorithm 3)."""
    t = math.isqrt(p // q) + 1  # t = ⌊σ⌋ + 1
    while True:
        y = _discrete_laplace_one(t, 1, rng)  # a discrete Laplace proposal of scale t
        # accept with probability exp(-(|Y| - σ²/t)² / (2σ²)) = exp(-num/den)
        if _bernoulli_exp_any((abs(y) * q * t - p) ** 2, 2 * p * q * t * t, rng):
            return y


def sample_discrete_laplace(scale: int | float | Fraction, size: int | tuple[int, ...] | None = None, *,
                            rng: np.random.Generator) -> int | np.ndarray:
    """Draw exact discrete Laplace noise: P(Z = z) = (1 - p)/(1 + p) p^|z|, p = exp(-1/scale), z in Z.

    Canonne, Kamath & Steinke's Algorithm 2 (with Algorithm 1 for its Bernoulli(exp(-γ)) coins), one draw
    after another, in Python integers (``_discrete_laplace_one``). ``sample_discrete_laplace_vectorised``
    draws the same law for many draws at once (and, for one draw, the very same value).

    Parameters
    ----------
    scale : int, Fraction or float > 0, the scale t (converted to an exact rational t = a/b with a, b < 2**62).
    size : None, int or tuple (at most 2**30 draws); None gives one Python int.
    rng : numpy.random.Generator (keyword-only, required). PCG64 is not a cryptographically
        secure generator; see the module docstring for how a deployment supplies one.

    Returns
    -------
    int, or an int64 array of shape ``size``.

    Privacy: none by itself; added to an integer query of sensitivity Δ with scale Δ/ε it is
    ε-DP (see ``discrete_laplace_mech``). Only integer arithmetic decides the output.

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> z = sample_discrete_laplace(2, size=20_000, rng=make_rng(1))
    >>> round(float(z.var()), 0), round(discrete_laplace_variance(2), 1)
    (8.0, 7.8)
    """
    t = _check_scale(_rational(scale, "scale"), "scale")
    n, rng = _count(size), check_rng(rng)
    return _shaped(np.array([_discrete_laplace_one(t.numerator, t.denominator, rng) for _ in range(n)],
                            dtype=np.int64), size)


def sample_discrete_gaussian(sigma: int | float | Fraction, size: int | tuple[int, ...] | None = None, *,
                             rng: np.random.Generator) -> int | np.ndarray:
    """Draw exact discrete Gaussian noise: P(Z = z) proportional to exp(-z^2 / (2 sigma^2)), z in Z.

    Canonne, Kamath & Steinke's Algorithm 3 (a discrete Laplace proposal, accepted with probability
    exp(-(|Y| - σ²/t)²/(2σ²))), one draw after another (``_discrete_gaussian_one``).
    ``sample_discrete_gaussian_vectorised`` draws the same law for many draws at once.

    Parameters
    ----------
    sigma : int, Fraction or float > 0; sigma^2 is formed exactly as a rational.
    size : None, int or tuple (at most 2**30 draws); None gives one Python int.
    rng : numpy.random.Generator (keyword-only, required; PCG64 is not a CSPRNG, see the module docstring).

    Returns
    -------
    int, or an int64 array of shape ``size``.

    Privacy: none by itself; added to an integer query of L2 sensitivity Δ it is
    Δ²/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020; see ``discrete_gaussian_mech``).

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> z = sample_discrete_gaussian(3, size=20_000, rng=make_rng(1))
    >>> round(float(z.var()), 0)
    9.0
    """
    s = _rational(sigma, "sigma")
    n, rng = _count(size), check_rng(rng)
    sigma2 = s * s
    _check_scale(Fraction(math.isqrt(sigma2.numerator // sigma2.denominator) + 1), "sigma")  # the proposal's t
    return _shaped(np.array([_discrete_gaussian_one(sigma2.numerator, sigma2.denominator, rng) for _ in range(n)],
                            dtype=np.int64), size)


def sample_discrete_laplace_vectorised(scale: int | float | Fraction, size: int | tuple[int, ...] | None = None, *,
                            rng: np.random.Generator) -> int | np.ndarray:
    """``sample_discrete_laplace`` for many draws at once: all pending draws advance together (masks).

    The same law as ``sample_discrete_laplace`` (tested), and for ``size=None`` the same value from the same
    generator; many draws consume the generator in another order. The fast form behind the mechanisms.

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

    Used in: chapters/14_exact_noise.ipynb, through ``discrete_laplace_mech``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> z = sample_discrete_laplace_vectorised(2, size=100_000, rng=make_rng(1))
    >>> round(float(z.var()), 1), round(discrete_laplace_variance(2), 1)
    (7.8, 7.8)
    """
    t = _rational(scale, "scale")
    n = _count(size)
    return _shaped(_discrete_laplace(t, n, check_rng(rng)), size)


def sample_discrete_gaussian_vectorised(sigma: int | float | Fraction, size: int | tuple[int, ...] | None = None, *,
                             rng: np.random.Generator) -> int | np.ndarray:
    """``sample_discrete_gaussian`` for many draws at once: all pending draws advance together (masks).

    The same law as ``sample_discrete_gaussian`` (tested), and for ``size=None`` the same value from the same
    generator. The fast form behind ``discrete_gaussian_mech``.

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

    Used in: chapters/14_exact_noise.ipynb, through ``discrete_gaussian_mech``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> z = sample_discrete_gaussian_vectorised(3, size=100_000, rng=make_rng(1))
    >>> round(float(z.var()), 1)
    9.0
    """
    s = _rational(sigma, "sigma")
    n = _count(size)
    return _shaped(_discrete_gaussian(s * s, n, check_rng(rng), "sigma"), size)


@refuse_overflow("k", "scale")
def discrete_laplace_pmf(k: int | np.ndarray, scale: float) -> float | np.ndarray:
    """P(Z = k) for the discrete Laplace law with the given scale: tanh(1/(2 scale)) exp(-|k|/scale).

    Parameters
    ----------
    k : int or array of integers.
    scale : float > 0.

    Returns
    -------
    float or float array shaped like ``k``.

    Privacy: none (a formula).

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> round(discrete_laplace_pmf(0, 1.0), 6)
    0.462117
    """
    k = _check_integers(k, "k").astype(float)
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
def discrete_gaussian_pmf(k: int | np.ndarray, sigma: float) -> float | np.ndarray:
    """P(Z = k) for the discrete Gaussian N_Z(0, sigma^2): exp(-k^2/(2 sigma^2)) / sum_z exp(-z^2/(2 sigma^2)).

    Parameters
    ----------
    k : int or array of integers.
    sigma : float > 0.

    Returns
    -------
    float or float array shaped like ``k``.

    Privacy: none (a formula).

    Used in: chapters/14_exact_noise.ipynb, through ``plot_discrete_samples``

    Examples
    --------
    >>> round(discrete_gaussian_pmf(0, 1.0), 6)
    0.398942
    """
    k = _check_integers(k, "k").astype(float)
    s = check_positive(sigma, "sigma")
    pmf = np.exp(-k * k / (2 * s * s)) / _gaussian_normaliser(s)
    return float(pmf) if pmf.ndim == 0 else pmf


@refuse_overflow("scale")
def discrete_laplace_variance(scale: float) -> float:
    """Variance of the discrete Laplace law: 2p/(1 - p)^2 with p = exp(-1/scale) (below 2 scale^2).

    Parameters
    ----------
    scale : float > 0.

    Returns
    -------
    float.

    Privacy: none (a formula).

    Defined in: chapters/14_exact_noise.ipynb

    Examples
    --------
    >>> round(discrete_laplace_variance(1.0), 4)
    1.8413
    """
    t = check_positive(scale, "scale")
    return 2 * math.exp(-1 / t) / (-math.expm1(-1 / t)) ** 2


@refuse_overflow("sigma")
def discrete_gaussian_variance(sigma: float) -> float:
    """Variance of N_Z(0, sigma^2): sum of z^2 P(z) (below sigma^2; equal to it up to 1e-300 for sigma >= 40).

    Parameters
    ----------
    sigma : float > 0.

    Returns
    -------
    float.

    Privacy: none (a formula).

    Defined in: chapters/14_exact_noise.ipynb

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


def discrete_laplace_mech(value: int | np.ndarray, sensitivity: int, epsilon: int | float | Fraction, *,
                          rng: np.random.Generator) -> int | np.ndarray:
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

    Defined in: chapters/14_exact_noise.ipynb

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


def discrete_gaussian_mech(value: int | np.ndarray, sensitivity: int, rho: int | float | Fraction, *,
                           rng: np.random.Generator) -> int | np.ndarray:
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

    Defined in: chapters/14_exact_noise.ipynb

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
