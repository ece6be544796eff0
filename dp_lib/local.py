"""Local differential privacy: randomized response, k-ary RR and unary encoding.

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

import math

import numpy as np
import pandas as pd

from .random import check_rng
from .validation import (refuse_overflow, check_bool_array, check_count_array, check_domain, check_epsilon, check_finite_array, check_int,
                         check_probability, check_size)

__all__ = [
    "randomized_response", "rr_epsilon", "rr_estimate_count", "rr_variance",
    "krr_params", "krr_perturb", "krr_perturb_counts", "krr_estimate", "krr_variance",
    "unary_encode", "unary_perturb", "unary_reported_counts", "unary_perturb_counts", "unary_epsilon", "unary_aggregate",
    "sue_params", "oue_params", "unary_variance", "debias_counts",
]


# --- argument checks ---------------------------------------------------------------------------

def _check_rr_p(p) -> float:
    x = check_probability(p, "p")
    if not 0.5 < x < 1:
        raise ValueError(f"p must be in (1/2, 1) for randomized response, got {p!r}: p = 1/2 carries no "
                         "information, p = 1 publishes the truth (epsilon = inf), p < 1/2 is 1 - p relabelled")
    return x


def _check_pq(p, q, *, finite_epsilon: bool = False) -> tuple[float, float]:
    """Require 0 <= q < p <= 1 (the estimator is defined), or 0 < q < p < 1 (epsilon is finite).

    p = 1 and q = 0 are the float limits of very large epsilon (e.g. ``krr_params(50, 3)``
    rounds p to 1.0), so samplers and estimators accept them; ``unary_epsilon`` does not.
    """
    p = check_probability(p, "p", low_open=finite_epsilon, high_open=finite_epsilon)
    q = check_probability(q, "q", low_open=finite_epsilon, high_open=finite_epsilon)
    if p <= q:
        raise ValueError(f"p must be greater than q, got p={p!r}, q={q!r}: with p <= q a report says "
                         "nothing (p = q) or the opposite (p < q), and (C - nq)/(p - q) is undefined")
    return p, q


def _positions(values, index: pd.Index) -> np.ndarray:
    """Position of each value in the domain; values outside the domain raise."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"values must be 1-dimensional, got shape {arr.shape}")
    pos = index.get_indexer(arr)
    if np.any(pos < 0):
        bad = arr[pos < 0][:3].tolist()
        raise ValueError(f"values must lie in the domain; found {bad} (missing values must be dropped "
                         "or given their own domain value first)")
    return pos


def _like(counts, arr):
    """Label ``arr`` with the index of ``counts`` when it is a pandas Series."""
    if not isinstance(counts, pd.Series) or arr.ndim > 2:
        return arr
    return pd.Series(arr, index=counts.index) if arr.ndim == 1 else pd.DataFrame(arr, columns=counts.index)


def _variance(n, p, q, count, *, exact=None):
    """n q(1-q)/(p-q)**2 [+ c(1-p-q)/(p-q)]; ``exact`` = the two terms' factors when p - q is not representable."""
    n = check_int(n, "n", minimum=0)
    var = n * q * (1 - q) / (p - q) ** 2 if exact is None else n * exact[0]
    if not math.isfinite(var):
        raise ValueError("epsilon (or p - q) is too small: the variance is beyond float64")
    if count is None:
        return var
    c = check_finite_array(count, "count")
    if np.any((c < 0) | (c > n)):
        raise ValueError(f"count must be in [0, n] = [0, {n}]")
    full = var + c * ((1 - p - q) / (p - q) if exact is None else exact[1])
    return float(full) if full.ndim == 0 else full


# --- binary randomized response ------------------------------------------------------------------

def randomized_response(truth, p=0.75, *, rng):
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

    Defined in: chapters/05_local_dp.ipynb

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


def rr_epsilon(p):
    """ε = ln(p/(1-p)) of randomized response with truth probability p.

    Privacy: the LDP level of ``randomized_response(truth, p)``.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> rr_epsilon(0.75) == math.log(3)
    True
    """
    p = _check_rr_p(p)
    return math.log(p / (1 - p))


def rr_estimate_count(responses, p):
    """Unbiased estimate (Y - n(1-p)) / (2p-1) of the number of true "yes".

    Y is the number of reported yes among n responses; E[Y] = c p + (n-c)(1-p).
    At p = 3/4 this is 2Y - n/2.

    Privacy: post-processing of ε-LDP reports, no extra cost.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> rr_estimate_count([True, True, False, True], 0.75)
    4.0
    """
    r = check_bool_array(responses, "responses", 1)
    p = _check_rr_p(p)
    return float(debias_counts([np.count_nonzero(r)], r.size, p, 1 - p)[0])


@refuse_overflow("n", "p")
def rr_variance(n, p):
    """Variance n p(1-p)/(2p-1)**2 of ``rr_estimate_count`` (exact for any true count).

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> rr_variance(32561, 0.75)
    24420.75

    Privacy: none (a formula); the accuracy of the ε-LDP estimate.
    """
    p = _check_rr_p(p)
    return _variance(n, p, 1 - p, None)


# --- k-ary randomized response (direct encoding, GRR) -----------------------------------------

@refuse_overflow("epsilon", "k")
def krr_params(epsilon, k):
    """(p, q) of k-RR: keep w.p. p = e^ε/(e^ε+k-1); each other value w.p. q = 1/(e^ε+k-1).

    Written with e^{-ε}, so large ε does not overflow.

    Privacy: none (a formula); k-RR with these (p, q) is ε-LDP (p/q = e^ε).

    Defined in: chapters/05_local_dp.ipynb

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


def krr_perturb(values, domain, epsilon, *, rng):
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

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> krr_perturb(["a", "b", "c"], ["a", "b", "c"], 50.0, rng=make_rng(1)).tolist()
    ['a', 'b', 'c']
    """
    index = check_domain(domain, minimum=2)
    pos = _positions(values, index)
    p, _ = krr_params(epsilon, len(index))
    rng = check_rng(rng)
    keep = rng.random(pos.size) < p
    offset = rng.integers(1, len(index), size=pos.size)
    return index.to_numpy()[np.where(keep, pos, (pos + offset) % len(index))]


def krr_perturb_counts(counts, epsilon, *, rng, size=None):
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

    Defined in: chapters/05_local_dp.ipynb

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
    return _like(counts, draws.sum(axis=-2))


def krr_estimate(reports, domain, epsilon):
    """Unbiased count per domain value from k-RR reports: (C_v - n q)/(p - q).

    Returns
    -------
    pandas Series indexed by the domain.

    Privacy: post-processing of ε-LDP reports.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> krr_estimate(["a", "a", "b"], ["a", "b"], math.log(3)).tolist()
    [2.5, 0.5]
    """
    index = check_domain(domain, minimum=2)
    pos = _positions(reports, index)
    p, q = krr_params(epsilon, len(index))
    if not p > q:
        raise ValueError(f"epsilon is too small to estimate anything: p and q are equal in float64, got {epsilon!r}")
    return debias_counts(pd.Series(np.bincount(pos, minlength=len(index)), index=index), pos.size, p, q)


@refuse_overflow("n", "k", "epsilon")
def krr_variance(n, k, epsilon, count=None):
    """Variance of ``krr_estimate`` for one value: n (e^ε+k-2)/(e^ε-1)**2 [+ c(1-p-q)/(p-q)].

    Without ``count``: the count-free part n q(1-q)/(p-q)**2 (Wang et al. 2017);
    with the true ``count`` c (scalar or array): the exact variance.

    Examples
    --------
    >>> round(krr_variance(32561, 14, math.log(9)))
    10684

    Privacy: none (a formula); the accuracy of the ε-LDP estimate.

    Defined in: chapters/05_local_dp.ipynb
    """
    p, q = krr_params(epsilon, k)
    if p > q:
        return _variance(n, p, q, count)
    # p and q round to the same float (ε below ~1e-16): the same variance written with t = e^{-ε}
    t, gap = math.exp(-epsilon), -math.expm1(-epsilon)  # p - q = gap / (1 + (k - 1) t)
    return _variance(n, p, q, count, exact=(t * (1 + (k - 2) * t) / gap**2, (k - 2) * t / gap))


# --- unary encoding (SUE / OUE) -------------------------------------------------------------------

def unary_encode(values, domain):
    """One-hot encode: an n x k boolean array with a single True per row.

    Values outside the domain raise ValueError (drop missing values first).

    Defined in: chapters/05_local_dp.ipynb

    Privacy: none; the encoding is deterministic, the privacy comes from ``unary_perturb``.

    Examples
    --------
    >>> unary_encode(["b", "a"], ["a", "b", "c"]).astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    index = check_domain(domain)
    pos = _positions(values, index)
    bits = np.zeros((pos.size, len(index)), dtype=bool)
    bits[np.arange(pos.size), pos] = True
    return bits


def unary_perturb(bits, p, q, *, rng):
    """Flip every bit independently: P[1 | bit 1] = p, P[1 | bit 0] = q.

    One uniform u per bit; the report is ``u < p`` where the bit is 1 and
    ``u < q`` where it is 0. That takes 8 bytes per bit (n k floats at
    once): for millions of respondents use ``unary_reported_counts``, which
    runs this on chunks of respondents, or ``unary_perturb_counts``.

    Parameters
    ----------
    bits : n x k boolean array (from ``unary_encode``).
    p, q : floats with 0 <= q < p <= 1 (p = 1, q = 0 reports the truth: no privacy).
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    n x k boolean array of reports.

    Privacy: ε-LDP with ε = ``unary_epsilon(p, q)`` for one-hot inputs (two
    inputs differ in two bits); the reports are ε-DP for replace-one neighbours.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> unary_perturb(unary_encode(["a"] * 5, ["a", "b"]), 0.75, 0.25, rng=make_rng(0)).shape
    (5, 2)
    """
    bits = check_bool_array(bits, "bits", 2)
    p, q = _check_pq(p, q)
    u = check_rng(rng).random(bits.shape)
    return np.where(bits, u < p, u < q)


def unary_reported_counts(values, domain, p, q, *, rng, chunk_size=100_000):
    """Column totals of unary-encoding reports for any number of respondents, in bounded memory.

    The survey of ``unary_encode`` + ``unary_perturb``, streamed: respondents
    are encoded and perturbed ``chunk_size`` at a time and only the k column
    totals are kept. The chunks use the generator's uniforms in the same order
    as one ``unary_perturb`` call, so the totals are bit for bit those of
    ``unary_perturb(unary_encode(values, domain), p, q, rng=rng).sum(axis=0)``.
    Peak memory is about 11 bytes per bit of one chunk (110 MB at the default
    with k = 100), whatever the number of respondents.

    Parameters
    ----------
    values : 1-d array of domain values, one per respondent.
    domain : the public list of the k possible values.
    p, q : floats with 0 <= q < p <= 1.
    rng : numpy.random.Generator (keyword-only, required).
    chunk_size : int >= 1, respondents per step.

    Returns
    -------
    int64 array of k reported-1 totals (pass them to ``debias_counts``).

    Privacy: ε-LDP per respondent with ε = ``unary_epsilon(p, q)``, as ``unary_perturb``.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> totals = unary_reported_counts(["a", "b", "a"] * 1000, ["a", "b"], 0.75, 0.25, rng=make_rng(0))
    >>> debias_counts(totals, 3000, 0.75, 0.25).round(-2).tolist()
    [2000.0, 1000.0]
    """
    index = check_domain(domain)
    pos = _positions(values, index)
    p, q = _check_pq(p, q)
    rng = check_rng(rng)
    step = check_int(chunk_size, "chunk_size", minimum=1)
    totals = np.zeros(len(index), dtype=np.int64)
    for start in range(0, pos.size, step):  # one chunk of respondents at a time, in order
        bits = np.zeros((min(step, pos.size - start), len(index)), dtype=bool)
        bits[np.arange(bits.shape[0]), pos[start:start + step]] = True
        totals += unary_perturb(bits, p, q, rng=rng).sum(axis=0)
    return totals


def unary_perturb_counts(counts, p, q, *, rng, size=None):
    """Reported-1 totals of unary encoding drawn from the true counts alone.

    Column j total = Binomial(c_j, p) + Binomial(n - c_j, q), independent over j:
    exactly the distribution of the column sums of ``unary_perturb``, in O(k) memory.

    Parameters
    ----------
    counts : 1-d array (or Series) of non-negative integer true counts; n = sum.
    p, q : floats with 0 <= q < p <= 1.
    rng : numpy.random.Generator (keyword-only, required).
    size : None, int or tuple, the number (shape) of independent surveys.

    Returns
    -------
    int array of shape (k,) or (size, k); a Series/DataFrame when ``counts`` is a Series.

    Privacy: simulates ``unary_perturb``; the same ε-LDP.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> unary_perturb_counts([6_000_000, 4_000_000], 0.5, 0.1, rng=make_rng(5)).shape
    (2,)
    """
    c = check_count_array(counts)
    p, q = _check_pq(p, q)
    rng = check_rng(rng)
    size = check_size(size)
    shape = None if size is None else (*size, c.size)
    return _like(counts, rng.binomial(c, p, size=shape) + rng.binomial(c.sum() - c, q, size=shape))


@refuse_overflow("p", "q")
def unary_epsilon(p, q):
    """ε = ln(p(1-q) / ((1-p) q)) of unary encoding with parameters (p, q).

    Requires 0 < q < p < 1: p = 1 or q = 0 would mean ε = inf (no privacy), which is refused.

    Examples
    --------
    >>> unary_epsilon(0.75, 0.25) == math.log(9)
    True

    Privacy: the LDP level of ``unary_perturb(bits, p, q)`` for one-hot inputs.

    Defined in: chapters/05_local_dp.ipynb
    """
    p, q = _check_pq(p, q, finite_epsilon=True)
    return math.log(p * (1 - q) / ((1 - p) * q))


def unary_aggregate(reports, p, q, domain=None):
    """Unbiased counts (Σ_rows B' - n q)/(p - q) from n x k unary reports.

    Returns
    -------
    pandas Series indexed by ``domain`` when given, else a float array.

    Privacy: post-processing of ε-LDP reports.

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> unary_aggregate([[1, 0], [1, 1]], 0.75, 0.25, domain=["a", "b"]).tolist()
    [3.0, 1.0]
    """
    r = check_bool_array(reports, "reports", 2)
    totals = np.einsum("ij->j", r.view(np.uint8), dtype=np.int64)  # column sums; faster than r.sum(axis=0)
    if domain is not None:
        index = check_domain(domain)
        if len(index) != r.shape[1]:
            raise ValueError(f"domain must have one value per column of reports ({r.shape[1]}), got {len(index)}")
        totals = pd.Series(totals, index=index)
    return debias_counts(totals, r.shape[0], p, q)


def sue_params(epsilon):
    """Symmetric unary encoding (basic RAPPOR): p = e^{ε/2}/(e^{ε/2}+1), q = 1 - p.

    Examples
    --------
    >>> sue_params(math.log(9))
    (0.75, 0.25)

    Privacy: ``unary_perturb`` with these (p, q) is ε-LDP.

    Defined in: chapters/05_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    p = 1 / (1 + math.exp(-eps / 2))
    return p, 1 - p


def oue_params(epsilon):
    """Optimized unary encoding (Wang et al. 2017): p = 1/2, q = 1/(e^ε+1).

    Examples
    --------
    >>> [round(x, 12) for x in oue_params(math.log(9))]
    [0.5, 0.1]

    Privacy: ``unary_perturb`` with these (p, q) is ε-LDP.

    Defined in: chapters/05_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    return 0.5, math.exp(-eps) / (1 + math.exp(-eps))


@refuse_overflow("n", "p", "q")
def unary_variance(n, p, q, count=None):
    """Variance of one estimated count: n q(1-q)/(p-q)**2 [+ c(1-p-q)/(p-q)].

    Without ``count``: the count-free part; with the true ``count`` c (scalar
    or array): the exact variance (Wang et al. 2017, §4). The same formula
    holds for k-RR and binary RR with their own (p, q).

    Examples
    --------
    >>> unary_variance(32561, 0.75, 0.25), round(unary_variance(32561, *oue_params(math.log(9))), 4)
    (24420.75, 18315.5625)

    Privacy: none (a formula); the accuracy of the ε-LDP estimate.

    Defined in: chapters/05_local_dp.ipynb
    """
    return _variance(n, *_check_pq(p, q), count)


@refuse_overflow("reported_counts", "n", "p", "q")
def debias_counts(reported_counts, n, p, q):
    """Unbiased true counts (C - n q)/(p - q) from reported counts C of a pure protocol.

    Works for binary RR (q = 1 - p), k-RR (``krr_params``) and unary encoding.

    Parameters
    ----------
    reported_counts : array or Series (returned labelled alike), or a 2-d (surveys x k) array.
    n : int, the number of respondents.
    p, q : floats with 0 <= q < p <= 1.

    Privacy: post-processing, no extra cost.

    Examples
    --------
    >>> debias_counts([30, 70], 100, 0.5, 0.1).tolist()
    [50.0, 150.0]

    Defined in: chapters/05_local_dp.ipynb
    """
    n = check_int(n, "n", minimum=0)
    p, q = _check_pq(p, q)
    c = check_finite_array(reported_counts, "reported_counts")
    with np.errstate(over="ignore"):
        est = (c - n * q) / (p - q)
    if not np.all(np.isfinite(est)):
        raise ValueError(f"p - q is too small ({p - q:g}): the estimates are beyond float64")
    if isinstance(reported_counts, pd.Series):
        return pd.Series(est, index=reported_counts.index)
    if isinstance(reported_counts, pd.DataFrame):
        return pd.DataFrame(est, index=reported_counts.index, columns=reported_counts.columns)
    return est
