"""Local DP by unary encoding (SUE / OUE), and the estimator every pure protocol shares.

Each respondent one-hot encodes a value over a public domain of k values and
flips every bit independently: a 1 stays 1 with probability p, a 0 becomes 1
with probability q. ``debias_counts`` and ``unary_variance`` serve every pure
frequency oracle (randomized response and k-RR in ``dp_lib.local`` too).

Three ways to run a survey: per respondent (``unary_perturb``, 8 bytes per
bit at once), streamed in chunks of respondents (``unary_reported_counts``,
bounded memory for 10^7 respondents), or from the per-category counts alone
(``unary_perturb_counts``, O(k)).
"""

from __future__ import annotations

from collections.abc import Sequence

import math

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .random import check_rng
from .shaping import label_like, refuse_overflow
from .validation import (check_bool_array, check_count_array, check_domain, check_epsilon, check_finite_array,
                         check_int, check_pq, check_size, check_whole_numbers, domain_positions)

__all__ = [
    "unary_encode", "unary_perturb", "unary_reported_counts", "unary_perturb_counts", "unary_epsilon",
    "unary_aggregate", "sue_params", "oue_params", "unary_variance", "debias_counts",
]


def _variance(n, p, q, count, *, exact=None):
    """n q(1-q)/(p-q)**2 [+ c(1-p-q)/(p-q)]; ``exact`` = the two terms' factors when p - q is not representable."""
    n = check_int(n, "n", minimum=0)
    var = n * q * (1 - q) / (p - q) ** 2 if exact is None else n * exact[0]
    if not math.isfinite(var):
        raise ValueError("epsilon (or p - q) is too small: the variance is beyond float64")
    if count is None:
        return var
    c = check_whole_numbers(count, "count", maximum=n)  # a true count: 2.5 is a TypeError, -1 or > n a ValueError
    full = var + c * ((1 - p - q) / (p - q) if exact is None else exact[1])
    return float(full) if full.ndim == 0 else full


def unary_encode(values: ArrayLike, domain: Sequence) -> np.ndarray:
    """One-hot encode: an n x k boolean array with a single True per row.

    Values outside the domain raise ValueError (drop missing values first).

    Defined in: chapters/09_local_dp.ipynb

    Privacy: none; the encoding is deterministic, the privacy comes from ``unary_perturb``.

    Examples
    --------
    >>> unary_encode(["b", "a"], ["a", "b", "c"]).astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    index = check_domain(domain)
    pos = domain_positions(values, index)
    bits = np.zeros((pos.size, len(index)), dtype=bool)
    bits[np.arange(pos.size), pos] = True
    return bits


def unary_perturb(bits: ArrayLike, p: float, q: float, *, rng: np.random.Generator) -> np.ndarray:
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
    This holds in exact arithmetic: the float coins (a uniform u, a multiple
    of 2⁻⁵³, compared with a probability) realize each probability only to
    within 2⁻⁵³, so the realized ε can differ from ε by a few times 2⁻⁵³
    divided by the smallest report probability.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> unary_perturb(unary_encode(["a"] * 5, ["a", "b"]), 0.75, 0.25, rng=make_rng(0)).shape
    (5, 2)
    """
    bits = check_bool_array(bits, "bits", 2)
    p, q = check_pq(p, q)
    u = check_rng(rng).random(bits.shape)  # one uniform per bit
    return np.where(bits, u < p, u < q)  # a 1 is reported with probability p, a 0 with probability q


def unary_reported_counts(values: ArrayLike, domain: Sequence, p: float, q: float, *, rng: np.random.Generator,
                          chunk_size: int = 100_000) -> np.ndarray:
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

    See: chapters/09_local_dp.ipynb (the streamed form of ``unary_perturb`` for millions of respondents)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> totals = unary_reported_counts(["a", "b", "a"] * 1000, ["a", "b"], 0.75, 0.25, rng=make_rng(0))
    >>> debias_counts(totals, 3000, 0.75, 0.25).round(-2).tolist()
    [2000.0, 1000.0]
    """
    index = check_domain(domain)
    pos = domain_positions(values, index)
    p, q = check_pq(p, q)
    rng = check_rng(rng)
    step = check_int(chunk_size, "chunk_size", minimum=1)
    totals = np.zeros(len(index), dtype=np.int64)
    for start in range(0, pos.size, step):  # one chunk of respondents at a time, in order
        bits = np.zeros((min(step, pos.size - start), len(index)), dtype=bool)
        bits[np.arange(bits.shape[0]), pos[start:start + step]] = True
        totals += unary_perturb(bits, p, q, rng=rng).sum(axis=0)
    return totals


def unary_perturb_counts(counts: ArrayLike | pd.Series, p: float, q: float, *, rng: np.random.Generator,
                         size: int | tuple[int, ...] | None = None) -> np.ndarray | pd.Series | pd.DataFrame:
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

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> unary_perturb_counts([6_000_000, 4_000_000], 0.5, 0.1, rng=make_rng(5)).shape
    (2,)
    """
    c = check_count_array(counts)
    p, q = check_pq(p, q)
    rng = check_rng(rng)
    size = check_size(size)
    shape = None if size is None else (*size, c.size)
    return label_like(counts, rng.binomial(c, p, size=shape) + rng.binomial(c.sum() - c, q, size=shape))


@refuse_overflow("p", "q")
def unary_epsilon(p: float, q: float) -> float:
    """ε = ln(p(1-q) / ((1-p) q)) of unary encoding with parameters (p, q).

    Requires 0 < q < p < 1: p = 1 or q = 0 would mean ε = inf (no privacy), which is refused.

    Examples
    --------
    >>> unary_epsilon(0.75, 0.25) == math.log(9)
    True

    Privacy: the LDP level of ``unary_perturb(bits, p, q)`` for one-hot inputs.

    Defined in: chapters/09_local_dp.ipynb
    """
    p, q = check_pq(p, q, finite_epsilon=True)
    return math.log(p * (1 - q) / ((1 - p) * q))


def unary_aggregate(reports: ArrayLike, p: float, q: float, domain: Sequence | None = None) -> np.ndarray | pd.Series:
    """Unbiased counts (Σ_rows B' - n q)/(p - q) from n x k unary reports.

    Returns
    -------
    pandas Series indexed by ``domain`` when given, else a float array.

    Privacy: post-processing of ε-LDP reports.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> unary_aggregate([[1, 0], [1, 1]], 0.75, 0.25, domain=["a", "b"]).tolist()
    [3.0, 1.0]
    """
    r = check_bool_array(reports, "reports", 2)
    totals = r.sum(axis=0)  # Σ over respondents of B', per value
    if domain is not None:
        index = check_domain(domain)
        if len(index) != r.shape[1]:
            raise ValueError(f"domain must have one value per column of reports ({r.shape[1]}), got {len(index)}")
        totals = pd.Series(totals, index=index)
    return debias_counts(totals, r.shape[0], p, q)


def sue_params(epsilon: float) -> tuple[float, float]:
    """Symmetric unary encoding (basic RAPPOR): p = e^{ε/2}/(e^{ε/2}+1), q = 1 - p.

    Examples
    --------
    >>> sue_params(math.log(9))
    (0.75, 0.25)

    Privacy: ``unary_perturb`` with these (p, q) is ε-LDP.

    Defined in: chapters/09_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    p = 1 / (1 + math.exp(-eps / 2))
    return p, 1 - p


def oue_params(epsilon: float) -> tuple[float, float]:
    """Optimized unary encoding (Wang et al. 2017): p = 1/2, q = 1/(e^ε+1).

    Examples
    --------
    >>> [round(x, 12) for x in oue_params(math.log(9))]
    [0.5, 0.1]

    Privacy: ``unary_perturb`` with these (p, q) is ε-LDP.

    Defined in: chapters/09_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    return 0.5, math.exp(-eps) / (1 + math.exp(-eps))


@refuse_overflow("n", "p", "q")
def unary_variance(n: int, p: float, q: float, count: ArrayLike | None = None) -> float | np.ndarray:
    """Variance of one estimated count: n q(1-q)/(p-q)**2 [+ c(1-p-q)/(p-q)].

    Without ``count``: the count-free part; with the true ``count`` c (scalar
    or array of whole numbers in [0, n]; a fraction is a TypeError): the exact
    variance (Wang et al. 2017, §4). The same formula
    holds for k-RR and binary RR with their own (p, q).

    Examples
    --------
    >>> unary_variance(32561, 0.75, 0.25), round(unary_variance(32561, *oue_params(math.log(9))), 4)
    (24420.75, 18315.5625)

    Privacy: none (a formula); the accuracy of the ε-LDP estimate.

    Defined in: chapters/09_local_dp.ipynb
    """
    return _variance(n, *check_pq(p, q), count)


@refuse_overflow("reported_counts", "n", "p", "q")
def debias_counts(reported_counts: ArrayLike | pd.Series | pd.DataFrame, n: int, p: float,
                  q: float) -> np.ndarray | pd.Series | pd.DataFrame:
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

    Defined in: chapters/09_local_dp.ipynb
    """
    n = check_int(n, "n", minimum=0)
    p, q = check_pq(p, q)
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
