"""Privacy attacks that run: linkage, k-anonymity classes, reconstruction, membership inference.

These are the attacks of the opening chapter, "Why privacy is hard". None of
them is private; they are what differential privacy is built to stop.

- ``link_records`` re-identifies de-identified rows by joining them to a
  public roster on quasi-identifiers (Sweeney's linkage attack).
- ``equivalence_classes`` groups rows by quasi-identifiers, as k-anonymity
  does, and counts the distinct sensitive values in each class.
- ``subset_queries``, ``subset_sum_answers`` and ``reconstruct_bits`` are the
  Dinur–Nissim reconstruction attack: answer many random subset sums with
  bounded noise, then solve for the secret bits by least squares.
- ``membership_attack`` runs a threshold test of "is Alice in the data?"
  against a Laplace count; ``max_tpr`` and ``guess_success_bound`` are the
  limits that ε-DP puts on any such test (Kairouz, Oh & Viswanath 2015).
- ``hockey_stick_delta`` is the smallest δ for which two discrete output
  distributions, in the order given, satisfy the (ε, δ) inequality.
"""

from __future__ import annotations

from collections.abc import Sequence
import math

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .mechanisms import laplace_mech
from .random import check_rng
from .validation import check_delta, check_epsilon, check_finite_array, check_int, check_nonnegative, check_real

_MAX_FLOAT = float(np.finfo(float).max)

__all__ = [
    "link_records", "equivalence_classes", "subset_queries", "subset_sum_answers", "reconstruct_bits",
    "membership_attack", "max_tpr", "guess_success_bound", "hockey_stick_delta",
]


_MAX_QUERY_ENTRIES = 2**27  # subset_queries allocates at most this many float64 entries (1 GiB)

def _check_columns(df, columns, name: str, what: str = "quasi_identifiers") -> list[str]:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    try:
        cols = [columns] if isinstance(columns, str) else list(columns)
        missing = [c for c in cols if c not in df.columns]
    except TypeError:  # not iterable, or an unhashable entry
        raise TypeError(f"{what} must be a column name or a list of column names, got {columns!r:.80}") from None
    if not cols:
        raise ValueError(f"{what} must name at least one column")
    if missing:
        raise ValueError(f"{what}: {name} has no column(s) {missing}; it has {list(df.columns)}")
    return cols


def link_records(released: pd.DataFrame, roster: pd.DataFrame, quasi_identifiers: str | Sequence[str]) -> pd.DataFrame:
    """Re-identify released rows by joining them to a roster on quasi-identifiers.

    A released row is linked when its quasi-identifier values occur exactly
    once in ``released`` and exactly once in ``roster``. The link is right
    when that roster entry is the same person; with coarse quasi-identifiers
    it may instead be someone on the roster who is not in the release.

    Parameters
    ----------
    released : DataFrame, the "de-identified" data (direct identifiers dropped).
    roster : DataFrame, a public list with names and the same quasi-identifier columns.
    quasi_identifiers : list of column names present in both (e.g. ``["DOB", "Zip", "Sex"]``).

    Returns
    -------
    DataFrame: the re-identified released rows (original index kept) with the
    roster's other columns joined on.

    Privacy: none: an attack; it shows what removing names does not protect.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> released = pd.DataFrame({"Zip": ["02138", "02138", "10001"], "Income": [">50K", "<=50K", ">50K"]})
    >>> roster = pd.DataFrame({"Name": ["Ann", "Bob"], "Zip": ["10001", "02138"]})
    >>> link_records(released, roster, ["Zip"])[["Name", "Income"]].values.tolist()
    [['Ann', '>50K']]
    """
    qi = _check_columns(released, quasi_identifiers, "released")
    _check_columns(roster, qi, "roster")
    unique_rel = released[~released.duplicated(qi, keep=False)]
    unique_ros = roster[~roster.duplicated(qi, keep=False)]
    extra = [c for c in unique_ros.columns if c not in qi and c not in unique_rel.columns]
    key = "_row"  # the released index rides along in a column no frame uses (a column may be named "index")
    while key in released.columns or key in roster.columns:
        key += "_"
    linked = unique_rel.assign(**{key: unique_rel.index}).merge(unique_ros[qi + extra], on=qi, how="inner")
    return linked.set_index(key).rename_axis(released.index.name)


def equivalence_classes(df: pd.DataFrame, quasi_identifiers: str | Sequence[str],
                        sensitive: str | None = None) -> pd.DataFrame:
    """Group rows by their quasi-identifiers, as k-anonymity does.

    Parameters
    ----------
    df : DataFrame.
    quasi_identifiers : list of column names.
    sensitive : column name, optional; when given, the number of distinct values
        of it in each class is returned too (1 means the class is homogeneous).

    Returns
    -------
    DataFrame with one row per class: the quasi-identifier values, ``size`` (the
    class's k) and, with ``sensitive``, ``distinct`` values; largest classes first.
    The table is k-anonymous for k = the smallest ``size``.

    Privacy: none: a helper that reads the data it describes; k-anonymity is not DP.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> df = pd.DataFrame({"Zip3": ["021", "021", "100"], "Income": [">50K", ">50K", "<=50K"]})
    >>> equivalence_classes(df, ["Zip3"], sensitive="Income").values.tolist()
    [['021', 2, 1], ['100', 1, 1]]
    """
    qi = _check_columns(df, quasi_identifiers, "df")
    if sensitive is not None:
        if not isinstance(sensitive, str):
            raise TypeError(f"sensitive must be None or one column name, got {sensitive!r:.80}")
        _check_columns(df, [sensitive], "df", "sensitive")
    groups = df.groupby(qi, observed=True, dropna=False)
    out = groups.size().rename("size").to_frame()
    if sensitive is not None:
        out["distinct"] = groups[sensitive].nunique(dropna=False)
    return out.reset_index().sort_values("size", ascending=False, kind="stable").reset_index(drop=True)


def subset_queries(n: int, m: int, *, rng: np.random.Generator) -> np.ndarray:
    """``m`` random subsets of ``n`` people, as an (m, n) matrix of 0/1 floats (each person in w.p. ½).

    Parameters
    ----------
    n : int >= 1, people in the block.
    m : int >= 1, number of queries.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    ndarray of shape (m, n) with entries 0.0 or 1.0. At most 2**27 entries (1 GiB):
    a larger m·n is refused with a ValueError before anything is allocated.

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> subset_queries(4, 2, rng=make_rng(1)).shape
    (2, 4)
    """
    n = check_int(n, "n", minimum=1)
    m = check_int(m, "m", minimum=1)
    if n * m > _MAX_QUERY_ENTRIES:
        raise ValueError(f"n and m: an (m, n) = ({m}, {n}) query matrix has more than 2**27 entries (1 GiB); "
                         "use fewer people or queries")
    return check_rng(rng).integers(0, 2, size=(m, n)).astype(float)


def subset_sum_answers(secret: ArrayLike, queries: ArrayLike, noise: float, *, rng: np.random.Generator) -> np.ndarray:
    """Answer each subset-sum query with uniform noise in [-noise, noise] (Dinur–Nissim's bounded noise).

    Parameters
    ----------
    secret : 1-d array of n bits (0/1).
    queries : (m, n) 0/1 matrix, e.g. from ``subset_queries``.
    noise : float >= 0, the bound E on the error of every answer.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    ndarray of m noisy answers, ``queries @ secret + U(-noise, noise)``.

    Privacy: none for small ``noise``: an answer with error o(√n) to many such
    queries lets ``reconstruct_bits`` recover almost every bit (Dinur & Nissim 2003).

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(3)
    >>> subset_sum_answers([1, 0, 1], [[1, 1, 1], [1, 0, 0]], 0.0, rng=rng).tolist()
    [2.0, 1.0]
    """
    x = check_finite_array(secret, "secret", ndim=1, allow_empty=False)
    if not np.all((x == 0) | (x == 1)):
        raise ValueError("secret must contain bits (0 or 1)")
    q = check_finite_array(queries, "queries", ndim=2)
    if q.shape[1] != x.size:
        raise ValueError(f"queries must have one column per person ({x.size}), got shape {q.shape}")
    e = check_real(noise, "noise", minimum=0.0, maximum=_MAX_FLOAT / 2) + 0.0  # [-noise, noise] has a finite width
    return q @ x + check_rng(rng).uniform(-e, e, size=q.shape[0])


def reconstruct_bits(queries: ArrayLike, noisy_answers: ArrayLike) -> np.ndarray:
    """Least-squares reconstruction of the secret bits from noisy subset sums, rounded at ½.

    Parameters
    ----------
    queries : (m, n) 0/1 matrix.
    noisy_answers : m answers, or an (m, k) array of k independent answer vectors.

    Returns
    -------
    ndarray of n integers in {0, 1} (or (n, k) for k answer vectors): the bits of
    argmin_x ||queries x - answers||₂ rounded at ½.

    Privacy: post-processing of whatever produced ``noisy_answers``.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> reconstruct_bits([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], [1.1, 1.9, 1.0, 2.1]).tolist()
    [0, 1, 1]
    """
    q = check_finite_array(queries, "queries", ndim=2, allow_empty=False)
    a = check_finite_array(noisy_answers, "noisy_answers")
    if a.ndim not in (1, 2) or a.shape[0] != q.shape[0]:
        raise ValueError(f"noisy_answers must have one entry (row) per query ({q.shape[0]}), got shape {a.shape}")
    estimate, *_ = np.linalg.lstsq(q, a, rcond=None)
    return (estimate > 0.5).astype(int)


def membership_attack(count: float, epsilon: float, *, trials: int, rng: np.random.Generator,
                      threshold: float | None = None) -> tuple[float, float]:
    """Empirical (FPR, TPR) of the test "Alice is in the data if the noisy count exceeds ``threshold``".

    The count is ``count`` without Alice (D′) and ``count + 1`` with her (D),
    released by the Laplace mechanism (sensitivity 1) ``trials`` times each.

    Parameters
    ----------
    count : float, the true count without Alice.
    epsilon : float > 0.
    trials : int >= 1, releases simulated on each of D and D′.
    rng : numpy.random.Generator (keyword-only, required).
    threshold : float, optional; default ``count + 0.5``, half way between the two answers.

    Returns
    -------
    (fpr, tpr): the share of releases on D′ that the test flags, and on D.

    Privacy: none: an attack on an ε-DP release; any test must satisfy
    FPR + e^ε·FNR ≥ 1 (see ``max_tpr``).

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> fpr, tpr = membership_attack(100, 1.0, trials=10_000, rng=make_rng(5))
    >>> bool(fpr < tpr <= max_tpr(fpr, 1.0) + 0.02)
    True
    """
    c = check_finite_array(count, "count", ndim=0).item()
    eps = check_epsilon(epsilon)
    trials = check_int(trials, "trials", minimum=1)
    t = c + 0.5 if threshold is None else check_finite_array(threshold, "threshold", ndim=0).item()
    rng = check_rng(rng)
    without = laplace_mech(np.full(trials, c), 1.0, eps, rng=rng)
    with_alice = laplace_mech(np.full(trials, c + 1.0), 1.0, eps, rng=rng)
    return float(np.mean(without > t)), float(np.mean(with_alice > t))


def max_tpr(fpr: float, epsilon: float, delta: float = 0.0) -> float | np.ndarray:
    """The largest true-positive rate any test can have at false-positive rate ``fpr`` under (ε, δ)-DP.

    From FPR + e^ε·FNR ≥ 1 − δ and e^ε·FPR + FNR ≥ 1 − δ
    (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2015):
    TPR ≤ min(1, e^ε·FPR + δ, 1 − e^(−ε)·(1 − δ − FPR)).

    Parameters
    ----------
    fpr : float or array in [0, 1].
    epsilon : float > 0.
    delta : float in [0, 1), default 0.

    Returns
    -------
    float or array, like ``fpr``.

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> round(max_tpr(0.1, 1.0), 4)
    0.2718
    """
    x = check_finite_array(fpr, "fpr")
    if np.any((x < 0) | (x > 1)):
        raise ValueError("fpr must lie in [0, 1]")
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=True)
    bound = np.minimum.reduce([np.ones_like(x), math.exp(min(eps, 700.0)) * x + d,
                               1 - math.exp(-eps) * (1 - d - x)])
    return float(bound) if bound.ndim == 0 else bound


def guess_success_bound(epsilon: float) -> float:
    """e^ε/(1 + e^ε): the best chance of guessing "in or out" right at a fair prior under ε-DP.

    This is the pure (δ = 0) bound; under (ε, δ)-DP the two testing
    inequalities give (e^ε + δ)/(1 + e^ε) instead.

    Parameters
    ----------
    epsilon : float > 0.

    Returns
    -------
    float in (½, 1), computed as 1/(1 + e^(−ε)) so that it never overflows.

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> round(guess_success_bound(1.0), 4)
    0.7311
    """
    return 1.0 / (1.0 + math.exp(-check_epsilon(epsilon)))


def hockey_stick_delta(p: ArrayLike, q: ArrayLike, epsilon: float) -> float:
    """Smallest δ with P(S) ≤ e^ε·Q(S) + δ for every event S: Σ_y max(p(y) − e^ε·q(y), 0).

    This is for one ordered pair (P, Q). A mechanism's δ(ε) is the largest
    value over all pairs of neighbouring data sets, in both orders (for one
    pair: ``max(hockey_stick_delta(p, q, ε), hockey_stick_delta(q, p, ε))``).

    Parameters
    ----------
    p, q : 1-d arrays of probabilities over the same outputs (each sums to 1).
    epsilon : float >= 0.

    Returns
    -------
    float in [0, 1].

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> round(hockey_stick_delta([0.5, 0.5], [0.1, 0.9], 1.0), 4)
    0.2282
    """
    p = check_finite_array(p, "p", ndim=1, allow_empty=False)
    q = check_finite_array(q, "q", ndim=1, allow_empty=False)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    for arr, name in ((p, "p"), (q, "q")):
        if np.any((arr < 0) | (arr > 1)) or not math.isclose(arr.sum(), 1.0, abs_tol=1e-9):
            raise ValueError(f"{name} must be non-negative and sum to 1")
    eps = check_nonnegative(epsilon, "epsilon")
    return float(np.maximum(p - math.exp(min(eps, 700.0)) * q, 0.0).sum())
