"""Published sparse-vector variants that are NOT differentially private, kept to be caught.

Lyu, Su & Li (PVLDB 2017, "Understanding the Sparse Vector Technique for
Differential Privacy", Table 1) compare their own SVT algorithm with five from
the literature. Their Algorithm 1 and Algorithm 2 (Dwork & Roth's Sparse: c
runs of AboveThreshold at ε/c each, the threshold noise re-drawn at that
per-run scale after each ⊤) are private; the four below are not, or not at
the claimed level. Each function reproduces one of them with its published noise
scales, on top of ``dp_lib.svt.svt_transcript``, so that the only
difference from the correct algorithm is visible in one line.

DO NOT USE THESE TO PROTECT DATA. They exist so that the book's auditor
(``dp_lib.audit``) can refute their claims on the counterexample pairs in
``svt_counterexamples``; ``audit_svt_variants`` runs the whole table.

Not re-exported from ``dp_lib``: import them from this module by name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .audit import epsilon_lower_bound
from .svt import above_threshold, numeric_sparse_vector, sparse_vector, svt_transcript
from .validation import check_epsilon, check_int, check_positive, check_probability

__all__ = [
    "roth2011_noisy_values",
    "lee_clifton2014",
    "stoddard2014_no_query_noise",
    "chen2015_no_cutoff",
    "broken_variants_table",
    "svt_counterexamples",
    "audit_svt_variants",
]


def roth2011_noisy_values(values: ArrayLike, threshold: float, epsilon: float, c: int, *, rng: np.random.Generator,
                          sensitivity: float = 1.0, size: int | None = None) -> np.ndarray:
    """BROKEN (Lyu–Su–Li Algorithm 3, from Roth's 2011 lecture notes): releases q_i + ν_i with each ⊤.

    ε₁ = ε₂ = ε/2, ρ ~ Lap(Δ/ε₁), ν_i ~ Lap(cΔ/ε₂), halts after c positives,
    and outputs the noisy answer q_i + ν_i instead of ⊤. That value is the
    very number compared with T + ρ, so it caps ρ from above and every ⊥
    before it then leaks information.

    Parameters
    ----------
    values, threshold, epsilon, c, rng, sensitivity, size : as for ``dp_lib.svt``.

    Returns
    -------
    float array (len(values),), or (size, len(values)): the released value of each
    positive query, NaN for ⊥ and for queries after the halt.

    Privacy: NOT private: claimed ε-DP, but not ε'-DP for any finite ε' (Lyu, Su & Li 2017, Table 1).

    Used in: chapters/06_sparse_vector.ipynb, through ``audit_svt_variants`` and ``broken_variants_table``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> roth2011_noisy_values([0.0, 50.0], 20.0, 1.0, 1, rng=make_rng(0)).round(1)
    array([nan, 45.])
    """
    eps, c, delta_q = check_epsilon(epsilon), check_int(c, "c", minimum=1), check_positive(sensitivity, "sensitivity")
    positive, noisy = svt_transcript(values, threshold, 2 * delta_q / eps, 2 * c * delta_q / eps, rng=rng, c=c,
                                     size=size)
    return np.where(positive, noisy, np.nan)  # the bug: the noisy answer itself is released


def lee_clifton2014(values: ArrayLike, threshold: float, epsilon: float, c: int, *, rng: np.random.Generator,
                    sensitivity: float = 1.0, size: int | None = None) -> np.ndarray:
    """BROKEN (Lyu–Su–Li Algorithm 4, Lee & Clifton 2014): query noise that does not grow with c.

    ε₁ = ε/4, ε₂ = 3ε/4, ρ ~ Lap(Δ/ε₁), ν_i ~ Lap(Δ/ε₂) (should be 2cΔ/ε₂), halts after c positives.

    Returns
    -------
    boolean array like ``dp_lib.sparse_vector(..., size=...)``: the positives of each run.

    Privacy: NOT ε-DP as claimed: only ((1 + 6c)/4)·ε-DP (Lyu, Su & Li 2017, Table 1).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> lee_clifton2014([0.0, 50.0, 60.0], 20.0, 1.0, 2, rng=make_rng(0)).tolist()
    [False, True, True]
    """
    eps, c, delta_q = check_epsilon(epsilon), check_int(c, "c", minimum=1), check_positive(sensitivity, "sensitivity")
    return svt_transcript(values, threshold, 4 * delta_q / eps, 4 * delta_q / (3 * eps), rng=rng, c=c, size=size)[0]


def stoddard2014_no_query_noise(values: ArrayLike, threshold: float, epsilon: float, *, rng: np.random.Generator,
                                sensitivity: float = 1.0, size: int | None = None) -> np.ndarray:
    """BROKEN (Lyu–Su–Li Algorithm 5, Stoddard et al. 2014): no noise on the queries, no cutoff.

    ρ ~ Lap(2Δ/ε) once, then every query is compared exactly: q_i >= T + ρ.
    One noisy threshold cannot hide a comparison between two exact answers.

    Returns
    -------
    boolean array of the positives (every query is answered).

    Privacy: NOT private: claimed ε-DP, but not ε'-DP for any finite ε' (Lyu, Su & Li 2017, Table 1).

    Used in: chapters/06_sparse_vector.ipynb, through ``audit_svt_variants`` and ``broken_variants_table``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> stoddard2014_no_query_noise([0.0, 50.0, 60.0], 20.0, 1.0, rng=make_rng(0)).tolist()
    [False, True, True]
    """
    eps, delta_q = check_epsilon(epsilon), check_positive(sensitivity, "sensitivity")
    return svt_transcript(values, threshold, 2 * delta_q / eps, 0.0, rng=rng, c=None, size=size)[0]


def chen2015_no_cutoff(values: ArrayLike, threshold: float, epsilon: float, *, rng: np.random.Generator,
                       sensitivity: float = 1.0, size: int | None = None) -> np.ndarray:
    """BROKEN (Lyu–Su–Li Algorithm 6, Chen et al. 2015): never halts, query noise Lap(2Δ/ε).

    ρ ~ Lap(2Δ/ε), ν_i ~ Lap(2Δ/ε), and it answers every query: with no cutoff c the
    ⊤ answers are not paid for, and each extra pair of queries leaks a little more.

    Returns
    -------
    boolean array of the positives (every query is answered).

    Privacy: NOT private: claimed ε-DP, but not ε'-DP for any finite ε' (Lyu, Su & Li 2017, Table 1).

    Used in: chapters/06_sparse_vector.ipynb, through ``audit_svt_variants`` and ``broken_variants_table``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> chen2015_no_cutoff([0.0, 50.0, 60.0], 20.0, 1.0, rng=make_rng(0)).tolist()
    [False, True, True]
    """
    eps, delta_q = check_epsilon(epsilon), check_positive(sensitivity, "sensitivity")
    return svt_transcript(values, threshold, 2 * delta_q / eps, 2 * delta_q / eps, rng=rng, c=None, size=size)[0]


def broken_variants_table() -> pd.DataFrame:
    """Lyu, Su & Li's Table 1 in brief: each SVT variant, what it changes, its claimed and true privacy.

    Returns
    -------
    pandas DataFrame indexed by variant.

    Privacy: none (a table of facts from the paper).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> broken_variants_table().loc["Lee & Clifton 2014", "true privacy"]
    '(1 + 6c)/4 · ε'
    """
    rows = [
        ("Alg. 1", "Lyu, Su & Li 2017", "ε₁ = ε/2: ρ ~ Lap(2Δ/ε), ν ~ Lap(4cΔ/ε), halt after c ⊤ "
                                "(private for any split ε₁ + ε₂ = ε)", "ε", "ε"),
        ("Alg. 2", "Dwork & Roth 2014", "c runs of AboveThreshold at ε/c: ρ ~ Lap(2cΔ/ε), re-drawn after each ⊤; "
                                        "ν ~ Lap(4cΔ/ε)", "ε", "ε"),
        ("Alg. 3", "Roth 2011", "releases q_i + ν_i instead of ⊤", "ε", "∞"),
        ("Alg. 4", "Lee & Clifton 2014", "ε₁ = ε/4, ν ~ Lap(Δ/ε₂): no factor 2c", "ε", "(1 + 6c)/4 · ε"),
        ("Alg. 5", "Stoddard et al. 2014", "no noise on the queries, no cutoff c", "ε", "∞"),
        ("Alg. 6", "Chen et al. 2015", "ν ~ Lap(Δ/ε₂), no cutoff c", "ε", "∞"),
    ]
    table = pd.DataFrame(rows, columns=["Lyu et al.", "variant", "what it does", "claimed", "true privacy"])
    return table.set_index("variant")


def svt_counterexamples(epsilon: float = 1.0) -> dict:
    """The audited pairs: name -> (mechanism, x, x', event, claimed ε), all with Δ = 1 and T = 0.

    - ``m ⊥ then c ⊤`` pairs: the ⊥ queries are 0 on x and 1 on x', the ⊤ queries 1 on x and 0 on x';
      the event is that exact transcript (Lee & Clifton with c = 2 and m = 4; Chen et al. with
      m = c = 4; the correct algorithms on the same pairs).
    - Stoddard et al.: x = (0, 1), x' = (1, 0), event ⊥⊤, impossible on x'.
    - Roth: x = (0, 0, 0, 0, 0), x' = (1, 1, 1, 1, 1), event "four ⊥, then a released value <= 1"
      (the numeric variant, which releases fresh noise, is audited on the same event).

    Privacy: none (hypothetical inputs for the auditor).

    Used in: chapters/06_sparse_vector.ipynb, through ``audit_svt_variants`` and ``broken_variants_table``

    Examples
    --------
    >>> sorted(svt_counterexamples())[:2]
    ['AboveThreshold (D&R)', 'Alg. 1, c = 2 (Lyu et al.)']
    """
    eps = check_epsilon(epsilon)

    def pair(m, c):
        return np.r_[np.zeros(m), np.ones(c)], np.r_[np.ones(m), np.zeros(c)], np.r_[np.zeros(m, bool), np.ones(c, bool)]

    def is_pattern(pattern):
        return lambda y: (np.asarray(y) == pattern).all(axis=1)

    def four_bottoms_then_low_value(y):
        return np.isnan(y[:, :4]).all(axis=1) & (y[:, 4] <= 1.0)

    at_x, at_xp, _ = pair(4, 1)
    lc_x, lc_xp, lc_pat = pair(4, 2)
    ch_x, ch_xp, ch_pat = pair(4, 4)
    roth_x, roth_xp = np.zeros(5), np.ones(5)
    return {
        "AboveThreshold (D&R)": (lambda v, size, rng: above_threshold(v, 0.0, eps, rng=rng, size=size),
                                 at_x, at_xp, lambda y: y == 4, eps),
        "Alg. 1, c = 2 (Lyu et al.)": (lambda v, size, rng: sparse_vector(v, 0.0, eps, 2, rng=rng, size=size),
                                       lc_x, lc_xp, is_pattern(lc_pat), eps),
        "numeric SVT, ε/2 + ε/2": (lambda v, size, rng: _as_array(numeric_sparse_vector(v, 0.0, eps / 2, eps / 2, 1,
                                                                                         rng=rng, size=size), v),
                                   roth_x, roth_xp, four_bottoms_then_low_value, eps),
        "Roth 2011": (lambda v, size, rng: roth2011_noisy_values(v, 0.0, eps, 1, rng=rng, size=size),
                      roth_x, roth_xp, four_bottoms_then_low_value, eps),
        "Lee & Clifton 2014": (lambda v, size, rng: lee_clifton2014(v, 0.0, eps, 2, rng=rng, size=size),
                               lc_x, lc_xp, is_pattern(lc_pat), eps),
        "Stoddard et al. 2014": (lambda v, size, rng: stoddard2014_no_query_noise(v, 0.0, eps, rng=rng, size=size),
                                 np.array([0.0, 1.0]), np.array([1.0, 0.0]), is_pattern(np.array([False, True])),
                                 eps),
        "Chen et al. 2015": (lambda v, size, rng: chen2015_no_cutoff(v, 0.0, eps, rng=rng, size=size),
                             ch_x, ch_xp, is_pattern(ch_pat), eps),
    }


def _as_array(runs, values):
    """One dict per run (``numeric_sparse_vector``) as a (runs, queries) array, NaN where nothing was released."""
    out = np.full((len(runs), len(values)), np.nan)
    for row, released in zip(out, runs):
        row[list(released)] = list(released.values())
    return out


def audit_svt_variants(trials: int = 200_000, confidence: float = 0.95, *, rng: np.random.Generator,
                       epsilon: float = 1.0) -> dict:
    """Audit every variant of ``svt_counterexamples`` with ``dp_lib.audit.epsilon_lower_bound``.

    Parameters
    ----------
    trials : int >= 1, runs per input and variant.
    confidence : float in (0, 1), 1 - α for each certified bound.
    rng : numpy.random.Generator (keyword-only, required).
    epsilon : float > 0, the ε each variant is run with (and claims).

    Returns
    -------
    dict name -> ``AuditResult`` (pass it to ``dp_lib.audit_table``).

    Privacy: none; a statistical test of privacy claims.

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> results = audit_svt_variants(20_000, rng=make_rng(1))
    >>> results["Stoddard et al. 2014"].flagged, results["AboveThreshold (D&R)"].flagged
    (True, False)
    """
    n = check_int(trials, "trials", minimum=1)
    conf = check_probability(confidence, "confidence", low_open=True, high_open=True)
    return {name: epsilon_lower_bound(mech, x, xp, event, n, conf, rng=rng, claimed_epsilon=claim)
            for name, (mech, x, xp, event, claim) in svt_counterexamples(epsilon).items()}
