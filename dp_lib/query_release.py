"""Answering a whole workload of counting queries: the data vector, marginal workloads, per-query noise and MWEM.

A data set over a finite public domain is its histogram ``x`` (one count per cell); a counting query is a 0/1
row ``w`` and its answer is ``w @ x``; a workload is a matrix ``W`` of such rows. Everything here reads the
domain from public constants (the Adult codebook), never from the private data.

The chapter: chapters/13_query_release.ipynb.
"""

from __future__ import annotations

import itertools
from numbers import Integral

import numpy as np
import pandas as pd

from .data import EDUCATION_LEVELS, OCCUPATIONS
from .mechanisms import laplace_mech
from .random import check_rng
from .selection import exponential_mech
from .validation import check_epsilon, check_finite_array, check_int, check_positive

__all__ = ["AGE_BANDS", "SEXES", "INCOMES", "ADULT_QUERY_DOMAIN", "adult_histogram", "marginal_workload",
           "workload_sensitivity", "laplace_workload", "gaussian_workload", "mwem"]

_MAX_COUNT = 2.0**53  # counts and totals stay exact in float64 (and sums of them finite)
#: Public age bands (the codebook's ages run from 17 to 90): (label, lowest age, highest age).
AGE_BANDS = (("17-29", 17, 29), ("30-44", 30, 44), ("45-64", 45, 64), ("65-90", 65, 90))
#: The codebook values of ``Sex`` and of the income column ``Target``.
SEXES = ("Male", "Female")
INCOMES = ("<=50K", ">50K")
#: The chapter's public domain: attribute -> its values, in codebook order ("unknown" for a missing occupation).
ADULT_QUERY_DOMAIN = {
    "Age": tuple(label for label, _, _ in AGE_BANDS),
    "Education": EDUCATION_LEVELS,
    "Occupation": (*OCCUPATIONS, "unknown"),
    "Sex": SEXES,
    "Target": INCOMES,
}


def _check_type(value, name: str, kind, what: str) -> None:
    """TypeError naming ``name`` unless ``value`` is an instance of ``kind`` (bools are never numbers)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")


def _check_workload(workload) -> np.ndarray:
    """A 2-d array of counting queries: every entry 0 or 1."""
    if not isinstance(workload, np.ndarray):
        raise TypeError(f"workload must be a numpy array, got {type(workload).__name__}")
    w = check_finite_array(workload, "workload", ndim=2, allow_empty=False)
    if not np.all((w == 0) | (w == 1)):
        raise ValueError("workload must hold counting queries: every entry 0 or 1")
    return w


def _check_counts(x, workload: np.ndarray) -> np.ndarray:
    """A 1-d histogram with one non-negative count per column of the workload."""
    if not isinstance(x, (np.ndarray, list, tuple, pd.Series)):
        raise TypeError(f"x must be an array of counts, got {type(x).__name__}")
    counts = check_finite_array(x, "x", ndim=1, allow_empty=False)
    if counts.size != workload.shape[1] or np.any(counts < 0) or np.any(counts > _MAX_COUNT):
        raise ValueError(f"x must hold {workload.shape[1]} non-negative counts below 2**53 (one per domain cell)")
    return counts


def adult_histogram(adult: pd.DataFrame) -> np.ndarray:
    """The data vector of the Adult data over ``ADULT_QUERY_DOMAIN``: an array of counts, one axis per attribute.

    Parameters
    ----------
    adult : DataFrame with the columns Age, Education, Occupation, Sex and Target (``load_adult()``).

    Returns
    -------
    numpy int64 array of shape (4, 16, 15, 2, 2); it sums to the number of records kept.

    Privacy: none (the private histogram). A missing occupation counts as "unknown"; a record with any other value
    outside the public domain (an age outside 17-90, an unlisted category) is dropped, a decision that depends on
    that record alone, so one added or removed record changes one cell by one (L1 and L2 sensitivity 1).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> from dp_lib import load_adult
    >>> h = adult_histogram(load_adult())
    >>> h.shape, int(h.sum())
    ((4, 16, 15, 2, 2), 32561)
    """
    if not isinstance(adult, pd.DataFrame):
        raise TypeError(f"adult must be a pandas DataFrame, got {type(adult).__name__}")
    missing = [c for c in ADULT_QUERY_DOMAIN if c not in adult.columns]
    if missing:
        raise ValueError(f"adult must have the columns {list(ADULT_QUERY_DOMAIN)}; missing {missing}")
    age = pd.to_numeric(adult["Age"], errors="coerce").to_numpy(dtype=float)
    codes = [np.searchsorted([lo for _, lo, _ in AGE_BANDS[1:]], age, side="right")]
    codes[0] = np.where((age >= 17) & (age <= 90), codes[0], -1)
    for name in ("Education", "Occupation", "Sex", "Target"):
        column = adult[name].fillna("unknown") if name == "Occupation" else adult[name]
        codes.append(pd.Index(ADULT_QUERY_DOMAIN[name]).get_indexer(column))
    keep = np.all(np.stack(codes) >= 0, axis=0)
    shape = tuple(len(v) for v in ADULT_QUERY_DOMAIN.values())
    cells = np.ravel_multi_index(tuple(c[keep] for c in codes), shape)
    return np.bincount(cells, minlength=int(np.prod(shape))).reshape(shape).astype(np.int64)


def marginal_workload(shape: tuple, k: int = 2) -> tuple[np.ndarray, list]:
    """All k-way marginals of a domain of the given shape, as a workload matrix of counting queries.

    Parameters
    ----------
    shape : tuple of ints, the number of values of each attribute.  k : int, the order of the marginals.

    Returns
    -------
    (W, marginals): W is a float array (queries x cells) of 0/1 entries; marginals lists, per query, the tuple of
    attribute positions of its marginal (queries are ordered marginal by marginal, cells in C order).

    Privacy: none (public: built from the domain only).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> W, marginals = marginal_workload((2, 3), k=1)
    >>> W.shape, marginals[:3]
    ((5, 6), [(0,), (0,), (1,)])
    """
    _check_type(shape, "shape", (tuple, list), "a tuple of ints")
    dims = tuple(check_int(s, "shape", minimum=1) for s in shape)
    k = check_int(k, "k", minimum=1, maximum=len(dims))
    if int(np.prod(dims)) > 2**22:
        raise ValueError("shape must describe at most 2**22 cells")
    index = np.indices(dims).reshape(len(dims), -1)  # attribute values of every cell
    rows, marginals = [], []
    for attrs in itertools.combinations(range(len(dims)), k):
        sub = np.ravel_multi_index(tuple(index[a] for a in attrs), tuple(dims[a] for a in attrs))
        rows.append(np.equal.outer(np.arange(int(np.prod([dims[a] for a in attrs]))), sub))
        marginals += [attrs] * rows[-1].shape[0]
    return np.concatenate(rows).astype(float), marginals


def workload_sensitivity(workload: np.ndarray, norm: int = 1) -> float:
    """The L1 or L2 sensitivity of the answers ``W @ x`` under add/remove-one: the largest column norm of ``W``.

    Parameters
    ----------
    workload : 2-d array of 0/1 counting queries.  norm : 1 or 2.

    Returns
    -------
    float: max over cells of the column's L1 norm (``norm=1``) or L2 norm (``norm=2``).

    Privacy: none (public: one record moves one cell of x by one, so the answers move by one column of W).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> W, _ = marginal_workload((4, 16, 15, 2, 2), k=2)
    >>> workload_sensitivity(W, 1), round(workload_sensitivity(W, 2), 4)
    (10.0, 3.1623)
    """
    w = _check_workload(workload)
    _check_type(norm, "norm", (Integral,), "the integer 1 or 2")
    if norm not in (1, 2):
        raise ValueError(f"norm must be 1 or 2, got {norm!r}")
    return float(np.abs(w).sum(axis=0).max()) if norm == 1 else float(np.sqrt((w * w).sum(axis=0).max()))


def laplace_workload(x: np.ndarray, workload: np.ndarray, epsilon: float, *, rng: np.random.Generator) -> np.ndarray:
    """Answer every query of the workload with Laplace noise of scale Δ₁/ε, Δ₁ = ``workload_sensitivity(W, 1)``.

    Parameters
    ----------
    x : 1-d array of counts (the data vector).  workload : 2-d array of 0/1 queries.  epsilon : float > 0, the
    total budget.  rng : numpy.random.Generator (keyword-only).

    Returns
    -------
    numpy array of noisy answers, one per query (unbiased: the noise has mean 0).

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb) for
    add/remove-one neighbours (sequential composition over the marginals, parallel within each).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> W, _ = marginal_workload((2, 2), k=1)
    >>> laplace_workload([5, 0, 3, 2], W, 1.0, rng=make_rng(0)).round(1).tolist()
    [5.6, 3.8, 3.0, -4.8]
    """
    w = _check_workload(workload)
    counts = _check_counts(x, w)
    return laplace_mech(w @ counts, workload_sensitivity(w, 1), check_epsilon(epsilon), rng=check_rng(rng))


def gaussian_workload(x: np.ndarray, workload: np.ndarray, rho: float, *, rng: np.random.Generator) -> np.ndarray:
    """Answer every query with Gaussian noise of standard deviation σ = Δ₂/√(2ρ), Δ₂ = ``workload_sensitivity(W, 2)``.

    Parameters
    ----------
    x : 1-d array of counts.  workload : 2-d array of 0/1 queries.  rho : float > 0, the zCDP budget.
    rng : numpy.random.Generator (keyword-only).

    Returns
    -------
    numpy array of noisy answers, one per query (unbiased).

    Privacy: ρ-zCDP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb) for
    add/remove-one neighbours (Bun & Steinke 2016, Prop. 1.6: ρ = Δ₂²/(2σ²)).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> W, _ = marginal_workload((2, 2), k=1)
    >>> gaussian_workload([5, 0, 3, 2], W, 0.5, rng=make_rng(0)).round(1).tolist()
    [5.2, 4.8, 8.9, 2.1]
    """
    w = _check_workload(workload)
    counts = _check_counts(x, w)
    sigma = workload_sensitivity(w, 2) / np.sqrt(2.0 * check_positive(rho, "rho"))
    return w @ counts + check_rng(rng).normal(0.0, sigma, size=w.shape[0])


def mwem(x: np.ndarray, workload: np.ndarray, epsilon: float, rounds: int, *, rng: np.random.Generator, total: float,
         repetitions: int = 10, average: bool = True) -> np.ndarray:
    """MWEM (Hardt, Ligett & McSherry 2012): a synthetic histogram that answers the workload.

    Start from the uniform histogram A₀ with ``total`` records. In each of T rounds: pick a query by the exponential
    mechanism at ε/(2T) with score |q(A) - q(x)| (sensitivity 1); measure it, m = q(x) + Lap(2T/ε); then apply the
    multiplicative-weights update A(c) <- A(c) exp(q(c) (m - q(A)) / (2 n)) for every measurement so far, in
    ``repetitions`` passes (the paper's practical variant; Hardt's own implementation also repeats them), rescaling
    A to ``total`` after each (m clipped to [0, n] first: post-processing that keeps exp finite). Return the average of A₁..A_T (the paper), or A_T.

    Parameters
    ----------
    x : 1-d array of counts.  workload : 2-d array of 0/1 queries.  epsilon : float > 0, the total budget.
    rounds : int >= 1, T.  rng : numpy.random.Generator (keyword-only).  total : float > 0 (keyword-only), the
    number of records n: public, or released separately (and charged).  repetitions : int >= 1, passes of updates
    per round.  average : bool, return the average of the rounds' histograms (else the last).

    Returns
    -------
    numpy float array, the synthetic histogram (non-negative, sums to ``total``).

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb) for
    add/remove-one neighbours when ``total`` is public: T rounds of an ε/(2T) selection and an ε/(2T) measurement
    compose to ε; the updates are post-processing.

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> W, _ = marginal_workload((2, 2), k=1)
    >>> mwem([50, 0, 30, 20], W, 1.0, 3, rng=make_rng(0), total=100).round(1).tolist()
    [30.5, 8.3, 49.0, 12.2]
    """
    w = _check_workload(workload)
    counts = _check_counts(x, w)
    epsilon, rounds = check_epsilon(epsilon), check_int(rounds, "rounds", minimum=1, maximum=10_000)
    repetitions = check_int(repetitions, "repetitions", minimum=1, maximum=10_000)
    n, rng = check_positive(total, "total"), check_rng(rng)
    if not 1.0 <= n <= _MAX_COUNT:
        raise ValueError(f"total must be a number of records between 1 and 2**53, got {total!r}")
    if not isinstance(average, (bool, np.bool_)):
        raise TypeError(f"average must be a bool, got {type(average).__name__}")
    true_answers, synthetic = w @ counts, np.full(w.shape[1], n / w.shape[1])
    measured, history = [], np.zeros_like(synthetic)
    for _ in range(rounds):
        scores = np.abs(w @ synthetic - true_answers)
        q = exponential_mech(np.arange(w.shape[0]), scores, 1.0, epsilon / (2 * rounds), rng=rng)
        m = laplace_mech(true_answers[q], 1.0, epsilon / (2 * rounds), rng=rng)
        measured.append((np.flatnonzero(w[q]), min(max(m, 0.0), n)))  # m clipped to [0, n]: post-processing
        for cells, m in measured * repetitions:  # q(c) is 1 on the cells q counts, 0 elsewhere
            synthetic[cells] *= np.exp((m - synthetic[cells].sum()) / (2.0 * n))
            synthetic *= n / synthetic.sum()
        history += synthetic
    return history / rounds if average else synthetic
