"""Local differential privacy: randomized response and k-ary randomized response (unary encoding: ``dp_lib.unary``).

Every protocol here is a "pure" frequency oracle (Wang et al. 2017): a
respondent with value v reports v with probability p and any other value w
with probability q < p. So one estimator serves them all,
``debias_counts`` = (C - n q) / (p - q), with variance
n q(1-q)/(p-q)**2 + c (1-p-q)/(p-q) for a category of true count c.

Two ways to simulate a survey: per respondent (``randomized_response``,
``krr_perturb``, ``unary_perturb``), or from the per-category counts alone
(``krr_perturb_counts``, ``unary_perturb_counts``), which draws the reported
totals with exactly the distribution of the per-respondent totals in O(k)
memory, whatever the number of respondents.
"""

from __future__ import annotations

from collections.abc import Sequence

import math

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .random import check_rng
from .unary import debias_counts, unary_variance
from .shaping import label_like, refuse_overflow, scalar_or_array
from .validation import (check_bool_array, check_count_array, check_domain, check_epsilon, check_int,
                         check_probability, check_size, check_whole_numbers, domain_positions)

__all__ = [
    "randomized_response", "rr_epsilon", "rr_estimate_count", "rr_variance",
    "krr_params", "krr_perturb", "krr_perturb_counts", "krr_estimate", "krr_variance",
]


# --- argument checks ---------------------------------------------------------------------------

def _check_rr_p(p) -> float:
    x = check_probability(p, "p")
    if not 0.5 < x < 1:
        raise ValueError(f"p must be in (1/2, 1) for randomized response, got {p!r}: p = 1/2 carries no "
                         "information, p = 1 publishes the truth (epsilon = inf), p < 1/2 is 1 - p relabelled")
    return x


# --- binary randomized response ------------------------------------------------------------------

def randomized_response(truth: ArrayLike, p: float = 0.75, *, rng: np.random.Generator) -> np.ndarray:
    """Each respondent answers truthfully with probability p, by two coins.

    The first coin (heads with probability 2p - 1) says "tell the truth";
    on tails, a fair second coin is the answer. So P(truth) = 2p - 1 + (1 - p) = p;
    at p = 3/4 both coins are fair (Dwork & Roth 2014, §3.2).

    Parameters
    ----------
    truth : 1-d boolean array (or 0/1), one true answer per respondent.
    p : float in (1/2, 1), the probability of a truthful answer.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    numpy boolean array, the reported answers.

    Privacy: ε-LDP with ε = ln(p/(1-p)) (ln 3 at p = 3/4): for either true
    answer of one respondent, P[report | yes] <= e^ε P[report | no]. The
    reports of all respondents are ε-DP for replace-one neighbours.
    This holds in exact arithmetic: the float coins (a uniform u, a multiple
    of 2⁻⁵³, compared with a probability) realize each probability only to
    within 2⁻⁵³, so the realized ε can differ from ε by a few times 2⁻⁵³
    divided by the smallest report probability.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> answers = randomized_response([True, False, True, True], rng=make_rng(2024))
    >>> answers.dtype, answers.shape
    (dtype('bool'), (4,))
    """
    t = check_bool_array(truth, "truth", 1)
    p = _check_rr_p(p)
    rng = check_rng(rng)
    coins = rng.random((2, t.size))  # the same uniforms as two calls of rng.random(t.size), in one
    first = coins[0] < 2 * p - 1  # heads: tell the truth
    second = coins[1] < 0.5  # used on tails only: heads means "yes"
    return (first & t) | (second & ~first)  # np.where(first, t, second), branch-free


def rr_epsilon(p: float) -> float:
    """ε = ln(p/(1-p)) of randomized response with truth probability p.

    Privacy: the LDP level of ``randomized_response(truth, p)``.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> rr_epsilon(0.75) == math.log(3)
    True
    """
    p = _check_rr_p(p)
    return math.log(p / (1 - p))


def rr_estimate_count(responses: ArrayLike, p: float) -> float:
    """Unbiased estimate (Y - n(1-p)) / (2p-1) of the number of true "yes".

    Y is the number of reported yes among n responses; E[Y] = c p + (n-c)(1-p).
    At p = 3/4 this is 2Y - n/2.

    Privacy: post-processing of ε-LDP reports, no extra cost.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> rr_estimate_count([True, True, False, True], 0.75)
    4.0
    """
    r = check_bool_array(responses, "responses", 1)
    p = _check_rr_p(p)
    return float(debias_counts([np.count_nonzero(r)], r.size, p, 1 - p)[0])


@refuse_overflow("n", "p")
def rr_variance(n: int, p: float) -> float:
    """Variance n p(1-p)/(2p-1)**2 of ``rr_estimate_count`` (exact for any true count).

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> rr_variance(32561, 0.75)
    24420.75

    Privacy: none (a formula); the accuracy of the ε-LDP estimate.
    """
    p = _check_rr_p(p)
    return unary_variance(n, p, 1 - p)


# --- k-ary randomized response (direct encoding, GRR) -----------------------------------------

@refuse_overflow("epsilon", "k")
def krr_params(epsilon: float, k: int) -> tuple[float, float]:
    """(p, q) of k-RR: keep w.p. p = e^ε/(e^ε+k-1); each other value w.p. q = 1/(e^ε+k-1).

    Written with e^{-ε}, so large ε does not overflow.

    Privacy: none (a formula); k-RR with these (p, q) is ε-LDP (p/q = e^ε).

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> p, q = krr_params(math.log(9), 14)
    >>> round(p, 4), round(q, 4)
    (0.4091, 0.0455)
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=2)
    t = math.exp(-eps)
    return 1 / (1 + (k - 1) * t), t / (1 + (k - 1) * t)


def krr_perturb(values: ArrayLike, domain: Sequence, epsilon: float, *, rng: np.random.Generator) -> np.ndarray:
    """k-ary randomized response: keep the value w.p. e^ε/(e^ε+k-1), else a uniform OTHER value.

    Vectorized: an offset in 1..k-1 is added to the value's position mod k.

    Parameters
    ----------
    values : 1-d array of domain values, one per respondent.
    domain : the public list of the k >= 2 possible values.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    numpy array of reported domain values.

    Privacy: ε-LDP (the ratio of the largest to the smallest report
    probability is p/q = e^ε); the reports are ε-DP for replace-one neighbours.
    This holds in exact arithmetic: the float coins (a uniform u, a multiple
    of 2⁻⁵³, compared with a probability) realize each probability only to
    within 2⁻⁵³, so the realized ε can differ from ε by a few times 2⁻⁵³
    divided by the smallest report probability.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> krr_perturb(["a", "b", "c"], ["a", "b", "c"], 50.0, rng=make_rng(1)).tolist()
    ['a', 'b', 'c']
    """
    index = check_domain(domain, minimum=2)
    pos = domain_positions(values, index)
    p, _ = krr_params(epsilon, len(index))
    rng = check_rng(rng)
    keep = rng.random(pos.size) < p
    offset = rng.integers(1, len(index), size=pos.size)
    return index.to_numpy()[np.where(keep, pos, (pos + offset) % len(index))]


def krr_perturb_counts(counts: ArrayLike | pd.Series, epsilon: float, *, rng: np.random.Generator,
                       size: int | tuple[int, ...] | None = None) -> np.ndarray | pd.Series | pd.DataFrame:
    """Reported totals of k-RR drawn from the true counts alone.

    The c_v respondents with value v report Multinomial(c_v; q, .., p at v, .., q);
    summing over v gives exactly the distribution of the per-respondent totals.

    Parameters
    ----------
    counts : 1-d array (or Series) of k >= 2 non-negative integer true counts.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).
    size : None, int or tuple, the number (shape) of independent surveys.

    Returns
    -------
    int array of shape (k,) or (size, k); a Series/DataFrame when ``counts`` is a Series.

    Privacy: simulates ``krr_perturb``; the same ε-LDP.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> int(krr_perturb_counts([500, 300, 200], 1.0, rng=make_rng(3)).sum())
    1000
    """
    c = check_count_array(counts)
    p, q = krr_params(epsilon, c.size)
    probs = np.full((c.size, c.size), q)
    np.fill_diagonal(probs, p)
    size = check_size(size)
    draws = check_rng(rng).multinomial(c, probs, size=None if size is None else (*size, c.size))
    return label_like(counts, draws.sum(axis=-2))


def krr_estimate(reports: ArrayLike, domain: Sequence, epsilon: float) -> pd.Series:
    """Unbiased count per domain value from k-RR reports: (C_v - n q)/(p - q).

    Returns
    -------
    pandas Series indexed by the domain.

    Privacy: post-processing of ε-LDP reports.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> krr_estimate(["a", "a", "b"], ["a", "b"], math.log(3)).tolist()
    [2.5, 0.5]
    """
    index = check_domain(domain, minimum=2)
    pos = domain_positions(reports, index)
    p, q = krr_params(epsilon, len(index))
    if not p > q:
        raise ValueError(f"epsilon is too small to estimate anything: p and q are equal in float64, got {epsilon!r}")
    return debias_counts(pd.Series(np.bincount(pos, minlength=len(index)), index=index), pos.size, p, q)


@refuse_overflow("n", "k", "epsilon")
def krr_variance(n: int, k: int, epsilon: float, count: ArrayLike | None = None) -> float | np.ndarray:
    """Variance of ``krr_estimate`` for one value: n (e^ε+k-2)/(e^ε-1)**2 [+ c(1-p-q)/(p-q)].

    Without ``count``: the count-free part n q(1-q)/(p-q)**2 (Wang et al. 2017);
    with the true ``count`` c (scalar or array of whole numbers in [0, n]; a
    fraction is a TypeError): the exact variance.

    Examples
    --------
    >>> round(krr_variance(32561, 14, math.log(9)))
    10684

    Privacy: none (a formula); the accuracy of the ε-LDP estimate.

    Defined in: chapters/09_local_dp.ipynb
    """
    p, q = krr_params(epsilon, k)
    if p > q:
        return unary_variance(n, p, q, count)
    # p and q round to the same float (ε below ~1e-16): the same variance written with t = e^{-ε}
    t, gap = math.exp(-epsilon), -math.expm1(-epsilon)  # p - q = gap / (1 + (k - 1) t)
    n = check_int(n, "n", minimum=0)
    var = n * t * (1 + (k - 2) * t) / gap**2
    if count is None:
        return var
    c = check_whole_numbers(count, "count", maximum=n)  # as in unary_variance
    return scalar_or_array(var + c * (k - 2) * t / gap)
