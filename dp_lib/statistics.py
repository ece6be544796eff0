"""Private statistics: a clipped mean and variance, a proportion, and a range found privately.

Every release keeps what an interval needs later: the noisy count, the public range and the noise scales. The
releases work on one data set or, through ``mean_from_sums`` / ``proportion_from_counts``, on many at once (arrays
of sufficient statistics), which is how the coverage simulations of the chapter run in a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .composition import PrivacyAccountant
from .mechanisms import laplace_mech
from .quantiles import private_quantile, private_values
from .random import check_rng
from .validation import check_epsilon, check_finite_array, check_real

__all__ = ["MeanRelease", "ProportionRelease", "private_mean", "mean_from_sums", "mean_noise_sd",
           "private_proportion", "proportion_from_counts", "private_range"]


@dataclass(frozen=True)
class MeanRelease:
    """A private mean and variance of data clipped to the public range [lower, upper] (floats or arrays).

    ``mean`` and ``variance`` are post-processed from three noisy sums (count, centred sum, centred sum of squares),
    each released with a third of ``epsilon``; ``count`` is the noisy count, at least 1.

    Parameters
    ----------
    mean, variance, count : floats or arrays of one shape, the released values.
    lower, upper : the public clipping range.
    epsilon : the total ε of the release.

    Returns
    -------
    A frozen record; its properties give the three Laplace scales.

    Privacy: a record of ``private_mean``; releasing it costs nothing more.

    Used in: chapters/08_private_statistics.ipynb, through ``private_mean``

    Examples
    --------
    >>> MeanRelease(mean=40.0, variance=100.0, count=1000.0, lower=17.0, upper=90.0, epsilon=1.0).sum_scale
    109.5
    """

    mean: object
    variance: object
    count: object
    lower: float
    upper: float
    epsilon: float

    @property
    def half_width(self) -> float:
        """(upper - lower) / 2: the most a clipped value can differ from the midpoint."""
        return (self.upper - self.lower) / 2

    @property
    def count_scale(self) -> float:
        """Laplace scale of the count: 1 / (ε/3)."""
        return 3 / self.epsilon

    @property
    def sum_scale(self) -> float:
        """Laplace scale of the centred sum: half_width / (ε/3)."""
        return 3 * self.half_width / self.epsilon

    @property
    def square_scale(self) -> float:
        """Laplace scale of the centred sum of squares: half_width² / (ε/3)."""
        return 3 * self.half_width**2 / self.epsilon


MAX_SCALE = 1e250   # noise scales (and sums of squares) beyond this would overflow float64 sums: refused


def _check_range(lower, upper) -> tuple[float, float]:
    low, high = check_real(lower, "lower"), check_real(upper, "upper")
    if not (low < high and np.isfinite(high - low)):
        raise ValueError(f"lower and upper must satisfy lower < upper with a finite width, got {lower!r}, {upper!r}")
    return low, high


def _check_release(lower, upper, epsilon) -> tuple[float, float, float]:
    """The public parameters of a mean release; the largest noise scale, 3·h²/ε, must stay below MAX_SCALE."""
    low, high = _check_range(lower, upper)
    eps, half = check_epsilon(epsilon), (high - low) / 2
    if not (half * half > 0 and 3 * half * half / eps < MAX_SCALE and 3 / eps < MAX_SCALE
            and max(abs(low), abs(high)) < 1e125):
        raise ValueError(f"lower, upper and epsilon give a noise scale outside float64 (0 < 3·h²/ε < 1e250 with "
                         f"h = (upper - lower)/2, and |lower|, |upper| < 1e125); got {lower!r}, {upper!r}, {epsilon!r}")
    return low, high, eps


def private_mean(values: ArrayLike, lower: float, upper: float, epsilon: float, *,
                 rng: np.random.Generator) -> MeanRelease:
    """Release the mean and variance of ``values`` clipped to the public range [lower, upper].

    Parameters
    ----------
    values : 1-d array of numbers (the private data). Each value is clipped to [lower, upper]; NaN counts as the
        midpoint (lower + upper) / 2, for every record alike, so the data never make the release fail.
    lower, upper : floats, lower < upper: a public range (chosen without the data, or by ``private_range``).
    epsilon : float > 0, split into three equal parts.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    MeanRelease

    Privacy: ε-DP in exact arithmetic for add/remove-one neighbours: three Laplace releases, each ε/3-DP (count:
    sensitivity 1; sum of x - m with m the midpoint: (upper - lower)/2; sum of (x - m)²: ((upper - lower)/2)²),
    composed sequentially; mean and variance are post-processing.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> release = private_mean([30.0, 40.0, 50.0] * 1000, 17, 90, 1.0, rng=make_rng(3))
    >>> round(release.mean), round(release.count, -2)
    (40, 3000.0)
    """
    low, high, eps = _check_release(lower, upper, epsilon)
    generator = check_rng(rng)
    mid = (low + high) / 2
    data = private_values(values, "values")
    centred = np.clip(np.where(np.isnan(data), mid, data), low, high) - mid
    return mean_from_sums(data.size, centred.sum(), (centred**2).sum(), low, high, eps, rng=generator)


def mean_from_sums(count: ArrayLike, centred_sum: ArrayLike, centred_squares: ArrayLike, lower: float, upper: float,
                   epsilon: float, *,
                   rng: np.random.Generator) -> MeanRelease:
    """``private_mean`` from the exact sufficient statistics of clipped data: one release per entry of the arrays.

    Parameters
    ----------
    count, centred_sum, centred_squares : arrays of one shape: n, Σ(x - m) and Σ(x - m)² of data already clipped
        to [lower, upper], with m = (lower + upper)/2.
    lower, upper, epsilon, rng : as in ``private_mean``.

    Returns
    -------
    MeanRelease with arrays of that shape (floats for scalar input).

    Privacy: as ``private_mean`` (each entry ε-DP for add/remove-one neighbours, in exact arithmetic) when the
    statistics come from data clipped to [lower, upper].

    Used in: chapters/08_private_statistics.ipynb, through ``simulate_coverage``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> r = mean_from_sums([1000, 1000], [0.0, 5000.0], [1e5, 1e5], 0.0, 100.0, 1.0, rng=make_rng(1))
    >>> [round(float(m)) for m in r.mean]
    [50, 55]
    """
    low, high, eps = _check_release(lower, upper, epsilon)
    generator = check_rng(rng)
    stats = [check_finite_array(a, name) for a, name in
             [(count, "count"), (centred_sum, "centred_sum"), (centred_squares, "centred_squares")]]
    template = MeanRelease(0.0, 0.0, 0.0, low, high, eps)
    half = template.half_width
    third = eps / 3                                                   # Lap(3/ε), Lap(3h/ε), Lap(3h²/ε)
    n = np.maximum(laplace_mech(stats[0], 1.0, third, rng=generator), 1.0)
    s = np.asarray(laplace_mech(stats[1], half, third, rng=generator))
    q = np.asarray(laplace_mech(stats[2], half**2, third, rng=generator))
    centred_mean = np.clip(s / n, -half, half)
    variance = np.clip(q / n - centred_mean**2, 0.0, half**2)
    out = [x if x.ndim else float(x) for x in (low + half + centred_mean, variance, n)]
    return MeanRelease(*out, low, high, eps)


def mean_noise_sd(n: ArrayLike, lower: float, upper: float, epsilon: float,
                  mean: float | None = None) -> float | np.ndarray:
    """Standard deviation of the DP noise in ``private_mean``'s mean, by the delta method.

    With d = mean - midpoint: Var ≈ (2·b_sum² + d²·2·b_count²)/n², b_sum = 3(upper - lower)/(2ε), b_count = 3/ε.

    Parameters
    ----------
    n : float or array >= 1, the (noisy or true) count.
    lower, upper, epsilon : the release's public parameters.
    mean : float in [lower, upper], optional; defaults to the midpoint (d = 0).

    Returns
    -------
    float or array.

    Privacy: public arithmetic on public parameters (and on a released mean and count, if given).

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> round(mean_noise_sd(1000, 17, 90, 1.0), 4)
    0.1549
    """
    release = MeanRelease(0.0, 0.0, 0.0, *_check_release(lower, upper, epsilon))
    count = check_finite_array(n, "n")
    if np.any(count < 1):
        raise ValueError("n must be >= 1 (a count)")
    d = 0.0 if mean is None else check_real(mean, "mean", minimum=release.lower, maximum=release.upper) - (
        release.lower + release.half_width)
    sd = np.sqrt(2 * release.sum_scale**2 + d**2 * 2 * release.count_scale**2) / count
    return sd if sd.ndim else float(sd)


@dataclass(frozen=True)
class ProportionRelease:
    """A private proportion: noisy counts of ones and zeros (Laplace(1/ε) each), clipped at 0 and divided.

    Parameters
    ----------
    proportion, count : floats or arrays of one shape: the released share and the noisy total (at least 1).
    epsilon : the ε of the release.

    Returns
    -------
    A frozen record; ``scale`` is the Laplace scale of each count.

    Privacy: a record of ``private_proportion``; releasing it costs nothing more.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> ProportionRelease(proportion=0.25, count=400.0, epsilon=0.5).scale
    2.0
    """

    proportion: object
    count: object
    epsilon: float

    @property
    def scale(self) -> float:
        """Laplace scale of each of the two counts: 1/ε."""
        return 1 / self.epsilon


def private_proportion(flags: ArrayLike, epsilon: float, *, rng: np.random.Generator) -> ProportionRelease:
    """Release the share of True in ``flags``: a two-bin histogram (ones, zeros) with Laplace(1/ε) per bin.

    Parameters
    ----------
    flags : 1-d array of booleans or 0/1 numbers (the private data); any other value, NaN included, counts as 0.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    ProportionRelease

    Privacy: ε-DP in exact arithmetic for add/remove-one neighbours: each record is in one bin, so the histogram
    has L1 sensitivity 1 (parallel composition); the proportion is post-processing.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> round(private_proportion([True] * 300 + [False] * 700, 1.0, rng=make_rng(5)).proportion, 2)
    0.3
    """
    raw = np.asarray(flags) if not isinstance(flags, (str, bytes, dict, set)) and flags is not None else None
    if raw is None or raw.dtype.kind not in "biuf" or raw.ndim != 1:
        raise TypeError(f"flags must be a 1-d array of booleans or 0/1 numbers, got {type(flags).__name__}")
    ones = int(np.sum(raw == 1))
    return proportion_from_counts(ones, raw.size - ones, epsilon, rng=rng)


def proportion_from_counts(ones: ArrayLike, zeros: ArrayLike, epsilon: float, *,
                           rng: np.random.Generator) -> ProportionRelease:
    """``private_proportion`` from exact counts of ones and zeros: one release per entry of the arrays.

    Parameters
    ----------
    ones, zeros : arrays of one shape, the exact counts.
    epsilon, rng : as in ``private_proportion``.

    Returns
    -------
    ProportionRelease with arrays of that shape (floats for scalar input).

    Privacy: as ``private_proportion``: each entry ε-DP for add/remove-one neighbours, in exact arithmetic.

    Used in: chapters/08_private_statistics.ipynb, through ``private_proportion``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> r = proportion_from_counts([100, 500], [900, 500], 1.0, rng=make_rng(2))
    >>> [round(float(p), 1) for p in r.proportion]
    [0.1, 0.5]
    """
    eps, generator = check_epsilon(epsilon), check_rng(rng)
    if not 1 / eps < MAX_SCALE:
        raise ValueError(f"epsilon must be at least 1/{MAX_SCALE:g} (the noise scale is 1/ε), got {epsilon!r}")
    exact = [check_finite_array(a, name) for a, name in [(ones, "ones"), (zeros, "zeros")]]
    noisy = [np.maximum(laplace_mech(c, 1.0, eps, rng=generator), 0.0) for c in exact]
    count = np.maximum(noisy[0] + noisy[1], 1.0)
    out = [x if x.ndim else float(x) for x in (np.minimum(noisy[0] / count, 1.0), count)]
    return ProportionRelease(*out, eps)


def private_range(values: ArrayLike, epsilon: float, lower: float, upper: float, *, rng: np.random.Generator,
                  accountant: PrivacyAccountant, quantiles: tuple = (0.05, 0.95)) -> tuple[float, float]:
    """A clipping range from two private quantiles, both charged to ``accountant`` before anything is drawn.

    Parameters
    ----------
    values : 1-d array of numbers (the private data); outside [lower, upper] (±inf included) clipped to it, NaN
        counted as the midpoint, for every record alike (as ``private_quantile``): the data never make it fail.
    epsilon : float > 0, the total for both quantiles (ε/2 each).
    lower, upper : a public, generous search range (e.g. any human age).
    rng : numpy.random.Generator (keyword-only, required).
    accountant : PrivacyAccountant (keyword-only, required): charged ε/2 twice, or raises BudgetExceededError and
        draws nothing.
    quantiles : (low, high) levels, 0 <= low < high <= 1.

    Returns
    -------
    (low, high), floats with lower <= low <= high <= upper (sorted, in case the noise crossed them).

    Privacy: ε-DP in exact arithmetic for add/remove-one neighbours: two private_quantile calls at ε/2 each
    (exponential mechanism, Smith 2011), composed sequentially.

    Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng, PrivacyAccountant
    >>> acct = PrivacyAccountant(1.0)
    >>> low, high = private_range(list(range(20, 60)) * 50, 0.5, 0, 150, rng=make_rng(1), accountant=acct)
    >>> 18 < low < 25 < 55 < high < 62, acct.spent
    (True, (0.5, 0.0))
    """
    if not isinstance(accountant, PrivacyAccountant):
        raise TypeError(f"accountant must be a PrivacyAccountant, got {type(accountant).__name__}")
    eps, generator = check_epsilon(epsilon), check_rng(rng)
    if not (isinstance(quantiles, (tuple, list)) and len(quantiles) == 2):
        raise TypeError(f"quantiles must be a pair (low, high) of levels, got {quantiles!r:.40}")
    q_low, q_high = (check_real(q, "quantiles", minimum=0.0, maximum=1.0) for q in quantiles)
    if not q_low < q_high:
        raise ValueError(f"quantiles must be increasing, got {quantiles!r}")
    _check_range(lower, upper)
    data = private_values(values, "values")
    accountant.spend_many([(eps / 2, 0.0, f"range: quantile {q_low:g}"), (eps / 2, 0.0, f"range: quantile {q_high:g}")])
    ends = sorted(private_quantile(data, q, eps / 2, lower, upper, rng=generator) for q in (q_low, q_high))
    return float(ends[0]), float(ends[1])
