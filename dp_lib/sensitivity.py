"""Beyond global sensitivity: local sensitivity, propose-test-release, smooth sensitivity.

Sample-and-aggregate, the fourth tool of chapters/07_local_sensitivity.ipynb, lives in ``dp_lib.aggregate``.

The running example is the mean of values clipped to [0, upper] (the mean Age
of the Adult data, upper = 100) under add/remove-one neighbours. Exact
formulas sit beside the mechanisms so that the chapter and the tests can
compare theory with simulation.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .noise import MAX_LAPLACE_DRAW, check_noise_range, open_uniform, sample_laplace
from .random import check_rng
from .validation import (check_choice, check_delta, check_epsilon, check_finite_array, check_int, check_positive,
                         check_size, refuse_overflow, scalar_or_array)

__all__ = [
    "mean_local_sensitivity",
    "mean_local_sensitivity_at",
    "distance_to_high_sensitivity",
    "ptr_threshold",
    "ptr_bottom_probability",
    "gs_mean",
    "ptr_mean",
    "smooth_beta",
    "log_smooth_sensitivity_terms",
    "smooth_sensitivity_mean",
    "smooth_mean",
]


@refuse_overflow("n", "upper")
def mean_local_sensitivity(n: int, upper: float) -> float:
    """Largest local sensitivity of the mean over all data sets of n values in [0, upper]: upper / n.

    Attained by {upper, 0, ..., 0}. It depends on n, and n is private under
    add/remove-one neighbours (a count of sensitivity 1), so upper / n is NOT a
    valid noise scale by itself: Lap(upper / (n ε)) added directly is not ε-DP
    (on {0, 0} and {0, 0, 0} with upper = 100 and ε = 1 both means are 0, the
    scales 50 and 33.3, and P[|y| > 300] is e^-6 against e^-9, a ratio e^3).
    Use it only inside propose-test-release (whose private test checks
    the bound) or as a smooth upper bound (``smooth_sensitivity_mean``).
    For n = 1 it holds whatever fixed value in [0, upper] the empty mean is given.

    Parameters
    ----------
    n : int >= 1, the number of records.
    upper : float > 0, values are clipped to [0, upper].

    Returns
    -------
    float, upper / n.

    Privacy: none (a formula), and NOT a noise scale by itself (n is private): valid only inside PTR or
    smooth sensitivity; add/remove-one neighbours.

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> round(mean_local_sensitivity(32561, 100), 7)
    0.0030712
    """
    return check_positive(upper, "upper") / check_int(n, "n", minimum=1)


@refuse_overflow("values", "upper")
def mean_local_sensitivity_at(values: ArrayLike, upper: float) -> float:
    """Exact local sensitivity of the mean at ``values`` (clipped to [0, upper]).

    LS(x) = max( max_i |x_i - x̄| / (n - 1), max(x̄, upper - x̄) / (n + 1) ):
    removing x_i moves the mean by (x_i - x̄)/(n - 1), adding y by
    (y - x̄)/(n + 1). It is at most upper / n. Needs n >= 2 (removing the only
    record leaves the mean undefined).

    Parameters
    ----------
    values : 1-d array of at least 2 finite numbers.
    upper : float > 0.

    Returns
    -------
    float, the exact LS.

    Privacy: NOT a valid noise scale: LS itself depends on the data (the leak shown in chapters/07_local_sensitivity.ipynb).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> mean_local_sensitivity_at([100, 0, 0, 0, 0, 0, 0, 0, 0, 0], 100)
    10.0
    """
    u = check_positive(upper, "upper")
    x = np.clip(check_finite_array(values, "values", ndim=1, min_size=2), 0.0, u)
    n, xbar = x.size, float(x.mean())
    return max(float(np.max(np.abs(x - xbar))) / (n - 1), max(xbar, u - xbar) / (n + 1))


def distance_to_high_sensitivity(n: int, upper: float, bound: float) -> float:
    """γ̂(n) = min{k >= 0 : upper / (n - k) > bound}, a sensitivity-1 lower bound on PTR's distance.

    Any y with LS(y) > bound has fewer than upper/bound records, so it is at
    least n - upper/bound add/remove steps from x: γ̂ <= γ(x), and γ̂ depends on
    n only, so it changes by at most 1 between neighbours. Closed form
    floor(n - upper/bound) + 1 (clamped at 0), with a one-step correction for
    rounding; instant for any n. Returns ``math.inf`` when bound >= upper
    (no data set's mean moves by more than upper).

    Parameters
    ----------
    n : int >= 1, the number of records.
    upper : float > 0, values lie in [0, upper].
    bound : float > 0, the proposed bound b on the local sensitivity.

    Returns
    -------
    int (or ``math.inf``), the distance bound γ̂.

    Privacy: none (a formula of n, which PTR then tests with noise).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> distance_to_high_sensitivity(32561, 100, 0.005)
    12562
    >>> distance_to_high_sensitivity(10**9, 100, 0.005)
    999980001
    """
    n = check_int(n, "n", minimum=1)
    u = check_positive(upper, "upper")
    b = check_positive(bound, "bound")
    if b >= u:
        return math.inf

    def high(m):  # may a data set of m records have LS above the bound? (m = 0: the empty data set)
        return m == 0 or u / m > b

    ratio = u / b
    if not math.isfinite(ratio):  # every size m <= n is "high"
        return 0
    # the largest m <= n with u / m > b is ceil(u/b) - 1 up to the rounding of u / b: step down from above it
    m = min(n, math.ceil(ratio) + 1)
    while not high(m):  # at most three steps; integer arithmetic, so exact for any n
        m -= 1
    return n - m


def ptr_threshold(epsilon: float, delta: float) -> float:
    """PTR's test threshold T = ln(1/δ)/ε for test noise Lap(1/ε).

    With γ = 0 (an unsafe data set) the test passes with P[Lap(1/ε) > T] = δ/2.

    Privacy: with it, PTR is (2ε, δ)-DP in total (test ε plus release ε).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> round(ptr_threshold(1.0, 1 / 32561**2), 2)
    20.78
    """
    threshold = -math.log(check_delta(delta)) / check_epsilon(epsilon)  # -ln δ: 1/δ overflows for tiny δ
    if not math.isfinite(threshold):
        raise ValueError(f"epsilon is too small for a finite threshold ln(1/delta)/epsilon, got {epsilon!r}")
    return threshold


@refuse_overflow("distance", "epsilon", "delta")
def ptr_bottom_probability(distance: ArrayLike, epsilon: float, delta: float, *,
                           threshold: float | None = None) -> float | np.ndarray:
    """P[⊥] = P[distance + Lap(1/ε) <= T], with T = ptr_threshold(ε, δ) unless ``threshold`` is given.

    ``distance`` may be an array and may contain ``inf`` (then P[⊥] = 0).
    1 - P[⊥] at distance 0 is the chance that an unsafe data set passes.

    Privacy: none (a formula).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> ptr_bottom_probability(0, 1.0, 0.01)
    0.995
    >>> T_slip = math.log(2 / 0.01) / 2  # the common slip, ln(2/δ)/(2ε)
    >>> round(1 - ptr_bottom_probability(0, 1.0, 0.01, threshold=T_slip), 4)  # 1/2 sqrt(δ/2)
    0.0354
    """
    eps = check_epsilon(epsilon)
    t = ptr_threshold(eps, delta) if threshold is None else check_positive(threshold, "threshold")
    d = np.asarray(distance)
    if d.dtype.kind not in "iuf":
        raise TypeError(f"distance must contain numbers >= 0 (inf allowed), got dtype {d.dtype}")
    d = d.astype(float)
    if np.any(np.isnan(d) | (d < 0)):
        raise ValueError("distance must contain numbers >= 0 (inf allowed)")
    z = eps * (t - d)
    with np.errstate(over="ignore"):
        p = np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))
    return scalar_or_array(p)


def gs_mean(values: ArrayLike, upper: float, epsilon: float, *, rng: np.random.Generator,
            size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
    """Global-sensitivity mean: (sum + Lap(2 upper/ε)) / max(count + Lap(2/ε), 1).

    Values are clipped to [0, upper]; the sum (sensitivity upper) and the count
    (sensitivity 1) get ε/2 each. ``size`` gives that many independent runs.

    Parameters
    ----------
    values : 1-d array of finite numbers, at least one.
    upper : float > 0, values are clipped to [0, upper].
    epsilon : float > 0, the total budget.
    rng : numpy.random.Generator (keyword-only, required).
    size : None or int >= 1, the number of independent runs.

    Returns
    -------
    float, or an array of ``size`` floats.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for add/remove-one neighbours (sequential composition of two ε/2 releases;
    the division is post-processing).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> round(gs_mean([30, 40, 50] * 1000, 100, 1.0, rng=make_rng(2024)), 0)
    40.0
    """
    u = check_positive(upper, "upper")
    x = np.clip(check_finite_array(values, "values", ndim=1, min_size=1), 0.0, u)
    eps = check_epsilon(epsilon)
    size, rng = check_size(size), check_rng(rng)
    check_noise_range(2 * u / eps, x.sum(), name="upper / epsilon")
    check_noise_range(2 / eps, x.size, name="epsilon")
    noisy_sum = x.sum() + sample_laplace(2 * u / eps, size=size, rng=rng)
    noisy_count = x.size + sample_laplace(2 / eps, size=size, rng=rng)
    return scalar_or_array(noisy_sum / np.maximum(noisy_count, 1.0))


def ptr_mean(values: ArrayLike, upper: float, bound: float, epsilon: float, delta: float, *, rng: np.random.Generator,
             size: int | tuple[int, ...] | None = None) -> float | np.ndarray | None:
    """Propose-test-release for the mean of values clipped to [0, upper]; ``None`` means ⊥.

    1. proposed bound b = ``bound``; 2. γ̂ = distance_to_high_sensitivity(n, upper, b);
    3. if γ̂ + Lap(1/ε) <= ln(1/δ)/ε return ⊥, else release mean + Lap(b/ε).
    With ``size`` it returns an array of that many runs, NaN marking ⊥.

    Parameters
    ----------
    values : 1-d array of finite numbers, at least one.
    upper : float > 0, values are clipped to [0, upper].
    bound : float > 0, the proposed bound b.
    epsilon : float > 0, spent by the test and again by the release.
    delta : float in (0, 1).
    rng : numpy.random.Generator (keyword-only, required).
    size : None or int >= 1, the number of independent runs.

    Returns
    -------
    float, or None for ⊥; with ``size`` an array (NaN = ⊥).

    Privacy: (2ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    in total for add/remove-one neighbours (ε for the test,
    ε for the release; not pure, since an unsafe data set passes with
    probability δ/2). ⊥ still costs the whole (2ε, δ): the test's outcome is a
    release. For an overall (ε, δ) pass epsilon/2.

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(2024)
    >>> round(ptr_mean([30, 40, 50] * 1000, 100, 0.05, 1.0, 1e-6, rng=rng), 1)
    40.0
    >>> ptr_mean([30, 40, 50] * 1000, 100, 0.01, 1.0, 1e-6, rng=rng) is None  # 100/3000 > 0.01
    True
    """
    u = check_positive(upper, "upper")
    x = np.clip(check_finite_array(values, "values", ndim=1, min_size=1), 0.0, u)
    b = check_positive(bound, "bound")
    eps = check_epsilon(epsilon)
    threshold = ptr_threshold(eps, delta)
    size, rng = check_size(size), check_rng(rng)
    gamma = distance_to_high_sensitivity(x.size, u, b)
    check_noise_range(1 / eps, x.size, name="epsilon")
    check_noise_range(b / eps, u, name="bound / epsilon")
    noisy_gamma = gamma + sample_laplace(1 / eps, size=size, rng=rng)
    if size is None:
        return None if noisy_gamma <= threshold else float(x.mean() + sample_laplace(b / eps, rng=rng))
    release = x.mean() + sample_laplace(b / eps, size=size, rng=rng)
    return np.where(noisy_gamma > threshold, release, np.nan)


@refuse_overflow("epsilon", "delta")
def smooth_beta(epsilon: float, delta: float, noise: str = "laplace") -> float:
    """Smoothness β of NRS07: ε / (2 ln(2/δ)) for Laplace noise, ε/6 for Cauchy (pass delta=0).

    Privacy: with the matching noise (see ``smooth_mean``) the release is
    (ε, δ)-DP (Laplace) or ε-DP (Cauchy).

    Used in: chapters/07_local_sensitivity.ipynb, through ``smooth_mean``

    Examples
    --------
    >>> round(smooth_beta(1.0, 1e-6), 5)
    0.03446
    """
    eps = check_epsilon(epsilon)
    if check_choice(noise, "noise", ("laplace", "cauchy")) == "cauchy":
        if check_delta(delta, allow_zero=True) != 0:
            raise ValueError(f"delta must be 0 for noise='cauchy' (pure ε-DP), got {delta!r}")
        return eps / 6
    return eps / (2 * math.log(2 / check_delta(delta)))


@refuse_overflow("n", "upper", "beta", "k")
def log_smooth_sensitivity_terms(n: int, upper: float, beta: float, k: ArrayLike) -> float | np.ndarray:
    """ln( e^{-βk} A(k) ) with A(k) = upper / max(n - k, 1), elementwise over the integers ``k`` >= 0.

    A(k) bounds the local sensitivity of any data set within k steps of one of
    size n (removals raise it, and the mean never moves by more than upper).
    Logs, because the far terms underflow (e^{-750} is 0.0 in float64).

    Privacy: none (a formula).

    See: chapters/07_local_sensitivity.ipynb (it checks ``smooth_sensitivity_mean`` term by term)

    Examples
    --------
    >>> [round(float(t), 3) for t in np.exp(log_smooth_sensitivity_terms(3, 90, 0.5, [0, 1, 2, 3]))]
    [30.0, 27.294, 33.109, 20.082]
    """
    n = check_int(n, "n", minimum=1)
    u = check_positive(upper, "upper")
    b = check_positive(beta, "beta")
    k = np.asarray(k)
    if not np.issubdtype(k.dtype, np.integer):
        raise TypeError(f"k must contain integers >= 0, got dtype {k.dtype}")
    if np.any(k < 0):
        raise ValueError("k must contain integers >= 0")
    k = k.astype(float)  # as floats: n - k on unsigned integers would wrap around
    terms = -b * k + math.log(u) - np.log(np.maximum(float(n) - k, 1.0))
    if not np.all(np.isfinite(terms)):
        raise ValueError(f"beta * k must stay below 1.8e308, got beta={beta!r}")
    return scalar_or_array(terms)


@refuse_overflow("n", "upper", "epsilon", "delta")
def smooth_sensitivity_mean(n: int, upper: float, epsilon: float, delta: float, *, noise: str = "laplace") -> float:
    """β-smooth sensitivity S = max over k >= 0 of e^{-βk} A(k) for the mean, A(k) = upper/max(n - k, 1).

    k = 0 is included, so S >= upper/n >= LS. ln(e^{-βk}A(k)) is convex in k on
    [0, n - 1] and decreasing after, so the maximum over all k is attained at
    k = 0 or k = n - 1: S = max(upper/n, upper e^{-β(n-1)}), exact for any n
    without evaluating the n terms (``log_smooth_sensitivity_terms`` does that).
    β = smooth_beta(epsilon, delta, noise).

    Parameters
    ----------
    n : int >= 1, the number of records.
    upper : float > 0, values lie in [0, upper].
    epsilon, delta : the target; delta in (0, 1) for Laplace, delta = 0 for noise="cauchy".
    noise : "laplace" or "cauchy" (keyword-only), which fixes β.

    Returns
    -------
    float, S.

    Privacy: a β-smooth upper bound on LS for add/remove-one neighbours (NRS07 Def 2.1).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> round(smooth_sensitivity_mean(32561, 100, 1.0, 1 / 32561**2), 7)
    0.0030712
    >>> round(smooth_sensitivity_mean(50, 100, 1.0, 1 / 32561**2), 2)  # the far end wins
    31.95
    """
    n = check_int(n, "n", minimum=1)
    u = check_positive(upper, "upper")
    beta = smooth_beta(epsilon, delta, noise)
    return max(u / n, u * math.exp(-beta * (n - 1)))


def smooth_mean(values: ArrayLike, upper: float, epsilon: float, delta: float, *, rng: np.random.Generator,
                noise: str = "laplace", size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
    """Mean of values clipped to [0, upper] plus noise scaled to the smooth sensitivity S.

    noise="laplace": mean + (2S/ε) Lap(1) with β = ε/(2 ln(2/δ)).
    noise="cauchy": mean + (6S/ε) Cauchy(1) with β = ε/6 (pass delta=0).

    Parameters
    ----------
    values : 1-d array of finite numbers, at least one.
    upper : float > 0, values are clipped to [0, upper].
    epsilon, delta : the target; delta = 0 for noise="cauchy".
    rng : numpy.random.Generator (keyword-only, required).
    noise : "laplace" or "cauchy".
    size : None or int >= 1, the number of independent runs.

    Returns
    -------
    float, or an array of ``size`` floats.

    Privacy: (ε, δ)-DP (Laplace) or ε-DP (Cauchy) in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for add/remove-one neighbours (Nissim, Raskhodnikova & Smith 2007, Lemma 2.6
    and Example 2.7).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> round(smooth_mean([30, 40, 50] * 1000, 100, 1.0, 1e-6, rng=make_rng(2024)), 1)
    40.0
    """
    u = check_positive(upper, "upper")
    x = np.clip(check_finite_array(values, "values", ndim=1, min_size=1), 0.0, u)
    eps = check_epsilon(epsilon)
    s = smooth_sensitivity_mean(x.size, u, eps, delta, noise=noise)
    size, rng = check_size(size), check_rng(rng)
    check_noise_range((2 if noise == "laplace" else 6 * 2.9e15 / MAX_LAPLACE_DRAW) * s / eps, u, name="upper / epsilon")
    if noise == "laplace":
        return scalar_or_array(x.mean() + sample_laplace(2 * s / eps, size=size, rng=rng))
    cauchy = np.tan(np.pi * (open_uniform(size, rng=rng) - 0.5))  # inverse CDF of Cauchy(0, 1)
    return scalar_or_array(x.mean() + 6 * s / eps * cauchy)
