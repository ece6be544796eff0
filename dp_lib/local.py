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
from .validation import check_epsilon, check_finite_array, check_int, check_probability

__all__ = [
    "randomized_response", "rr_epsilon", "rr_estimate_count", "rr_variance",
    "krr_params", "krr_perturb", "krr_perturb_counts", "krr_estimate", "krr_variance",
    "unary_encode", "unary_perturb", "unary_perturb_counts", "unary_epsilon", "unary_aggregate",
    "sue_params", "oue_params", "unary_variance", "debias_counts",
]

_CHUNK_ELEMENTS = 1 << 20  # bits perturbed per step of unary_perturb: an 8 MiB float temporary


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


def _as_bool(x, name: str, ndim: int) -> np.ndarray:
    """A boolean array of the given ndim; 0/1 integers are accepted."""
    arr = np.asarray(x)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional boolean array, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf" and np.all((arr == 0) | (arr == 1)):
        return arr.astype(bool)
    raise ValueError(f"{name} must contain booleans (or 0/1), got dtype {arr.dtype}")


def _check_domain(domain, *, minimum: int = 1) -> pd.Index:
    index = pd.Index(list(domain)) if not isinstance(domain, pd.Index) else domain
    if len(index) < minimum:
        raise ValueError(f"domain must have at least {minimum} value(s), got {len(index)}")
    if not index.is_unique:
        raise ValueError("domain must not contain duplicates")
    return index


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


def _check_counts(counts, name: str = "counts") -> np.ndarray:
    c = check_finite_array(counts, name, ndim=1, allow_empty=False)
    if np.any(c < 0) or np.any(c != np.round(c)):
        raise ValueError(f"{name} must be non-negative integers")
    return c.astype(np.int64)


def _check_size(size):
    return None if size is None else check_int(size, "size", minimum=1)


def _like(counts, arr):
    """Label ``arr`` with the index of ``counts`` when it is a pandas Series."""
    if not isinstance(counts, pd.Series):
        return arr
    return pd.Series(arr, index=counts.index) if arr.ndim == 1 else pd.DataFrame(arr, columns=counts.index)


def _variance(n, p, q, count):
    n = check_int(n, "n", minimum=0)
    var = n * q * (1 - q) / (p - q) ** 2
    if count is None:
        return var
    c = check_finite_array(count, "count")
    if np.any((c < 0) | (c > n)):
        raise ValueError(f"count must be in [0, n] = [0, {n}]")
    full = var + c * (1 - p - q) / (p - q)
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
    t = _as_bool(truth, "truth", 1)
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
    r = _as_bool(responses, "responses", 1)
    p = _check_rr_p(p)
    return float(debias_counts([np.count_nonzero(r)], r.size, p, 1 - p)[0])


def rr_variance(n, p):
    """Variance n p(1-p)/(2p-1)**2 of ``rr_estimate_count`` (exact for any true count).

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> rr_variance(32561, 0.75)
    24420.75
    """
    p = _check_rr_p(p)
    return _variance(n, p, 1 - p, None)


# --- k-ary randomized response (direct encoding, GRR) -----------------------------------------

def krr_params(epsilon, k):
    """(p, q) of k-RR: keep w.p. p = e^ε/(e^ε+k-1); each other value w.p. q = 1/(e^ε+k-1).

    Written with e^{-ε}, so large ε does not overflow.

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
    index = _check_domain(domain, minimum=2)
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
    size : None or int, the number of independent surveys.

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
    c = _check_counts(counts)
    p, q = krr_params(epsilon, c.size)
    probs = np.full((c.size, c.size), q)
    np.fill_diagonal(probs, p)
    size = _check_size(size)
    draws = check_rng(rng).multinomial(c, probs, size=None if size is None else (size, c.size))
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
    index = _check_domain(domain, minimum=2)
    pos = _positions(reports, index)
    p, q = krr_params(epsilon, len(index))
    return debias_counts(pd.Series(np.bincount(pos, minlength=len(index)), index=index), pos.size, p, q)


def krr_variance(n, k, epsilon, count=None):
    """Variance of ``krr_estimate`` for one value: n (e^ε+k-2)/(e^ε-1)**2 [+ c(1-p-q)/(p-q)].

    Without ``count``: the count-free part n q(1-q)/(p-q)**2 (Wang et al. 2017);
    with the true ``count`` c (scalar or array): the exact variance.

    Examples
    --------
    >>> round(krr_variance(32561, 14, math.log(9)))
    10684
    """
    return _variance(n, *krr_params(epsilon, k), count)


# --- unary encoding (SUE / OUE) -------------------------------------------------------------------

def unary_encode(values, domain):
    """One-hot encode: an n x k boolean array with a single True per row.

    Values outside the domain raise ValueError (drop missing values first).

    Defined in: chapters/05_local_dp.ipynb

    Examples
    --------
    >>> unary_encode(["b", "a"], ["a", "b", "c"]).astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    index = _check_domain(domain)
    pos = _positions(values, index)
    bits = np.zeros((pos.size, len(index)), dtype=bool)
    bits[np.arange(pos.size), pos] = True
    return bits


def unary_perturb(bits, p, q, *, rng):
    """Flip every bit independently: P[1 | bit 1] = p, P[1 | bit 0] = q.

    Rows are processed in chunks so the float temporary stays at 8 MiB; the
    output does not depend on the chunking (same uniforms, row by row).

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
    b = _as_bool(bits, "bits", 2)
    p, q = _check_pq(p, q)
    rng = check_rng(rng)
    out = np.empty(b.shape, dtype=bool)
    step = max(1, _CHUNK_ELEMENTS // max(1, b.shape[1]))
    for start in range(0, b.shape[0], step):
        rows = slice(start, start + step)
        u = rng.random(out[rows].shape)
        np.less(u, q, out=out[rows])  # a 0 bit reports 1 iff u < q; a 1 bit iff u < p (q < p)
        out[rows] |= b[rows] & (u < p)
    return out


def unary_perturb_counts(counts, p, q, *, rng, size=None):
    """Reported-1 totals of unary encoding drawn from the true counts alone.

    Column j total = Binomial(c_j, p) + Binomial(n - c_j, q), independent over j:
    exactly the distribution of the column sums of ``unary_perturb``, in O(k) memory.

    Parameters
    ----------
    counts : 1-d array (or Series) of non-negative integer true counts; n = sum.
    p, q : floats with 0 <= q < p <= 1.
    rng : numpy.random.Generator (keyword-only, required).
    size : None or int, the number of independent surveys.

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
    c = _check_counts(counts)
    p, q = _check_pq(p, q)
    rng = check_rng(rng)
    size = _check_size(size)
    shape = None if size is None else (size, c.size)
    return _like(counts, rng.binomial(c, p, size=shape) + rng.binomial(c.sum() - c, q, size=shape))


def unary_epsilon(p, q):
    """ε = ln(p(1-q) / ((1-p) q)) of unary encoding with parameters (p, q).

    Requires 0 < q < p < 1: p = 1 or q = 0 would mean ε = inf (no privacy), which is refused.

    Examples
    --------
    >>> unary_epsilon(0.75, 0.25) == math.log(9)
    True
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
    r = _as_bool(reports, "reports", 2)
    totals = np.einsum("ij->j", r.view(np.uint8), dtype=np.int64)  # column sums; faster than r.sum(axis=0)
    if domain is not None:
        index = _check_domain(domain)
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
    """
    eps = check_epsilon(epsilon)
    return 0.5, math.exp(-eps) / (1 + math.exp(-eps))


def unary_variance(n, p, q, count=None):
    """Variance of one estimated count: n q(1-q)/(p-q)**2 [+ c(1-p-q)/(p-q)].

    Without ``count``: the count-free part; with the true ``count`` c (scalar
    or array): the exact variance (Wang et al. 2017, §4). The same formula
    holds for k-RR and binary RR with their own (p, q).

    Examples
    --------
    >>> unary_variance(32561, 0.75, 0.25), round(unary_variance(32561, *oue_params(math.log(9))), 4)
    (24420.75, 18315.5625)
    """
    return _variance(n, *_check_pq(p, q), count)


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
    """
    n = check_int(n, "n", minimum=0)
    p, q = _check_pq(p, q)
    c = check_finite_array(reported_counts, "reported_counts")
    est = (c - n * q) / (p - q)
    if isinstance(reported_counts, pd.Series):
        return pd.Series(est, index=reported_counts.index)
    if isinstance(reported_counts, pd.DataFrame):
        return pd.DataFrame(est, index=reported_counts.index, columns=reported_counts.columns)
    return est
