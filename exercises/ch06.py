"""Exercises of Chapter 6, Sparse vector (chapters/06_sparse_vector.ipynb).

Setup: numpy as np, pandas as pd; from dp_lib: above_threshold, above_threshold_probabilities, audit_table,
load_adult, make_rng, numeric_sparse_vector, sample_laplace, sparse_vector, svt_budget_split, svt_noise_scales,
svt_pattern_probability; from dp_lib.selfcheck: check; adult = load_adult(); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

from dp_lib import (above_threshold, above_threshold_probabilities, make_rng, sparse_vector, svt_budget_split,
                    svt_noise_scales, svt_pattern_probability)
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """import numpy as np
import pandas as pd
from dp_lib import (above_threshold, above_threshold_probabilities, audit_table, load_adult, make_rng,
                    numeric_sparse_vector, sample_laplace, sparse_vector, svt_budget_split,
                    svt_noise_scales, svt_pattern_probability)
from dp_lib.selfcheck import check
adult = load_adult()
"""

_BELOW = -1e9  # a lower end for "any negative value" (JSON has no infinity)


class QueryNoiseScale(Exercise):
    chapter, key, label, title = "06", "ex1", "svt-ex1", "The query noise of Algorithm 1"
    randomness = "none"
    points = 2.0
    default = {"epsilon": 1.0, "c": 4, "sensitivity": 1.0}
    missing = "set answer_ex1 to a number: the Laplace scale of Z_i"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "c": int(rng.choice([2, 3, 4, 5, 8])),
                "sensitivity": float(rng.choice([1.0, 2.0]))}

    def statement(self, p):
        return (f"You run Lyu–Su–Li's Algorithm 1 with $\\varepsilon = {p['epsilon']:g}$, $c = {p['c']}$ and queries "
                f"of sensitivity $\\Delta = {p['sensitivity']:g}$ that are **not** monotone, with the recommended "
                "split (`svt_budget_split`). Set `answer_ex1` to the Laplace scale of the query noise $Z_i$.")

    def solve(self, p):
        return float(svt_noise_scales(p["epsilon"], p["c"], sensitivity=p["sensitivity"])[1])

    def parts(self, p):
        eps, c, d = p["epsilon"], p["c"], p["sensitivity"]
        _, eps2 = svt_budget_split(eps, c)
        monotone = svt_noise_scales(eps, c, sensitivity=d, monotone=True)[1]
        return [Part.near("scale", self.solve(p), "the scale is 2cΔ/ε₂ with ε₁ : ε₂ = 1 : (2c)^(2/3)", rtol=0.01,
                          mistakes=[
                              Mistake.near(d / eps2, f"{d / eps2:.3g} = Δ/ε₂ without the factor 2c is Lee & "
                                           "Clifton's bug", rtol=0.02),
                              Mistake.near(c * d / eps2, f"{c * d / eps2:.3g} = cΔ/ε₂ forgets the 2: the monotone "
                                           "noise (here with the non-monotone split); these queries are not "
                                           "monotone", rtol=0.02),
                              Mistake.near(monotone, f"{monotone:.3g} = cΔ/ε₂ with ε₁ : ε₂ = 1 : c^(2/3) is the "
                                           "monotone calibration; these queries are not monotone", rtol=0.02),
                              Mistake.near(4 * c * d / eps, f"{4 * c * d / eps:.3g} = 2cΔ/(ε/2) is the even split; "
                                           f"the recommended split gives ε₂ = {eps2:.3g}", rtol=0.02)])]

    def exam(self):
        p = {"epsilon": 1.0, "c": 3, "sensitivity": 1.0}
        _, eps2 = svt_budget_split(1.0, 3)
        right = self.solve(p)
        return [ExamQuestion(
            "ch06-query-scale", "Lyu–Su–Li's Algorithm 1 answers **non-monotone** queries of sensitivity "
            "$\\Delta = 1$ with $\\varepsilon = 1$ and $c = 3$, using the split $\\varepsilon_1 : \\varepsilon_2 = "
            "1 : (2c)^{2/3}$. Which Laplace scale has the query noise $Z_i$?", "choice", answer=f"{right:.2f}",
            distractors=(f"{1 / eps2:.2f}", f"{3 / eps2:.2f}", f"{12.0:.2f}"),
            feedback=("Δ/ε₂ without the factor 2c: Lee and Clifton's bug",
                      "cΔ/ε₂ forgets the 2 (the monotone calibration would also change the split to "
                      "1 : c^(2/3)); these queries are not monotone",
                      "2cΔ/(ε/2) uses the even split, not the recommended one"))]


class ReportProbability(Exercise):
    chapter, key, label, title = "06", "ex2", "svt-ex2", "Probability of reporting a query above T"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    exercise_type = "derivation"
    default = {"gap": 1.0, "epsilon": 1.0}
    missing = "set answer_ex2 to a probability"
    prompt = ("Show how you obtained the probability: the distribution of $Z_1 - Z_T$ (or the integral you "
              "evaluated) and why the query noise may be $\\mathrm{Lap}(2\\Delta/\\varepsilon)$.")
    rubric = (
        RubricItem("calibration", 1.0,
                   "says a count under add/remove neighbours is monotone, so Z_1 ~ Lap(2Δ/ε) as Z_T",
                   "uses Lap(2Δ/ε) without a reason, or names monotonicity but uses Lap(4Δ/ε)",
                   "no calibration argument"),
        RubricItem("derivation", 2.0,
                   "writes P[Z_1 − Z_T ≥ −g] = 1 − ½e^{−g/b}(1 + g/(2b)) (or the convolution integral) with b = 2Δ/ε "
                   "and evaluates it",
                   "a correct integral or numerical quadrature without the closed form, or an algebra slip",
                   "only a simulation, or treats Z_1 − Z_T as Laplace"),
    )

    def params(self, rng):
        return {"gap": float(rng.choice([1.0, 2.0, 3.0])), "epsilon": float(rng.choice([0.5, 1.0, 2.0]))}

    def statement(self, p):
        g = p["gap"]
        unit = "one unit" if g == 1 else f"{g:g} units"
        return (f"A single query is {unit} above the threshold, $q(x) = T + {g:g}$, with $\\Delta = 1$, and it is a "
                "count under add/remove neighbours. Set `answer_ex2` to the exact probability that AboveThreshold "
                f"with $\\varepsilon = {p['epsilon']:g}$ and the smallest query noise allowed for this query reports "
                f"it. (Hint: it is $\\Pr[Z_1 - Z_T \\ge -{g:g}]$; compute it by quadrature or with a formula.)")

    def solve(self, p):
        return float(above_threshold_probabilities([p["gap"]], 0.0, p["epsilon"], monotone=True)[0])

    def parts(self, p):
        general = float(above_threshold_probabilities([p["gap"]], 0.0, p["epsilon"], monotone=False)[0])
        b = 2 / p["epsilon"]
        return [Part.near("probability", self.solve(p),
                          f"compute P[Z_1 − Z_T ≥ −{p['gap']:g}] with Z_T ~ Lap({b:g}) and Z_1 ~ Lap({b:g})",
                          atol=0.002, rtol=0.0,
                          mistakes=[Mistake.near(general, f"{general:.4f} uses Z_1 ~ Lap({2 * b:g}): a count is "
                                                 f"monotone, Lap({b:g}) is enough", rtol=0.0, atol=0.002),
                                    Mistake.near(0.5, "the query is above T, so the probability is more than 1/2",
                                                 rtol=0.0, atol=0.01)])]

    def exam(self):
        p = {"gap": 2.0, "epsilon": 1.0}
        general = float(above_threshold_probabilities([2.0], 0.0, 1.0, monotone=False)[0])
        right = self.solve(p)
        return [ExamQuestion(
                    "ch06-report-prob", "AboveThreshold with $\\varepsilon = 1$ sees one monotone query (a count, "
                    "$\\Delta = 1$) two units above the threshold. With $Z_T, Z_1 \\sim \\mathrm{Lap}(2)$ and "
                    "$\\Pr[Z_1 - Z_T > t] = \\tfrac12 e^{-t/b}(1 + t/(2b))$ for $t \\ge 0$, what is the probability "
                    "that it is reported? Three decimals.", "numeric", answer=round(right, 3), tolerance=0.002),
                ExamQuestion(
                    "ch06-report-prob-choice", "The same query, $q(x) = T + 2$, $\\varepsilon = 1$. Which is the "
                    "probability that AboveThreshold with the smallest noise allowed for a count reports it?",
                    "choice", answer=f"{right:.3f}",
                    distractors=(f"{general:.3f}", "0.500"),
                    feedback=("uses the general noise Lap(4/ε); a count is monotone, Lap(2/ε) is enough",
                              "the query is above T, so the probability is more than 1/2"))]


def _lee_clifton_loss(m: int, epsilon: float, threshold_scale: float, query_scale: float) -> float:
    """Exact loss of the transcript "m ⊥ then two ⊤" of Lee–Clifton SVT (c = 2) on the exercise's pair."""
    pattern = np.r_[np.zeros(m, bool), True, True]
    p, p_prime = (svt_pattern_probability(np.r_[np.full(m, v), 1.0 - v, 1.0 - v], 0.0, pattern, threshold_scale,
                                          query_scale, c=2) for v in (0.0, 1.0))
    return float(np.log(p / p_prime))


class LeeCliftonLoss(Exercise):
    chapter, key, label, title = "06", "ex3", "svt-ex3", "The exact loss of Lee and Clifton's variant"
    randomness = "none"
    points = 3.0
    kind = "mixed"
    exercise_type = "find-the-bug"
    default = {"epsilon": 1.0, "m": 16}
    missing = "set answer_ex3 to a number: the exact loss at the largest m"
    prompt = ("How close does the loss get to the true bound $(1 + 6c)/4 \\cdot \\varepsilon$, and why do the ⊥ "
              "answers help the attacker?")
    rubric = (
        RubricItem("closeness", 1.0,
                   "the loss rises with m and approaches the true bound (1 + 6c)/4 · ε from below, far above the "
                   "claimed ε",
                   "states the numbers without comparing them with the bound or with the claimed ε",
                   "no comparison, or claims the variant is ε-DP"),
        RubricItem("mechanism of the leak", 2.0,
                   "the ⊥ answers (queries at 0 on x, 1 on x') pin the noisy threshold T + Z_T from below on x', so "
                   "Z_T no longer hides the downward move of the ⊤ queries, whose noise Lap(Δ/ε₂) lacks the factor 2c: "
                   "each ⊤ costs up to 2 · ε₂",
                   "says that many ⊥ carry information about the threshold, without linking it to the ⊤ queries or "
                   "to the missing factor 2c",
                   "no explanation, or blames the threshold noise scale"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([1.0, 1.5, 2.0])), "m": int(rng.choice([4, 8, 12, 16]))}

    def statement(self, p):
        e, m = p["epsilon"], p["m"]
        ms = ", ".join(str(k) for k in (0, 2, 4, 8, 16) if k < m) + f", {m}"
        return ("Lee and Clifton's variant is $(1 + 6c)/4 \\cdot \\varepsilon$-DP. With `svt_pattern_probability`, "
                "compute the exact privacy loss $\\ln(\\Pr[x \\to S] / \\Pr[x' \\to S])$ of the transcript $S$ = "
                "\"$m$ ⊥ then two ⊤\" on $q(x) = (0^m, 1, 1)$ and $q(x') = (1^m, 0, 0)$, at "
                f"$\\varepsilon = {e:g}$, $c = 2$ and threshold $T = 0$, for $m = {ms}$ (threshold scale ${_frac(4, e)}$, query scale "
                f"${_frac(4, 3 * e)}$). How close does it get to the true bound {(1 + 6 * 2) / 4 * e:.2f}, and why do "
                f"the ⊥ answers help the attacker? Set `answer_ex3` to the loss at $m = {m}$ (three decimals).")

    def solve(self, p):
        e = p["epsilon"]
        return _lee_clifton_loss(p["m"], e, 4 / e, 4 / (3 * e))

    def parts(self, p):
        e, m = p["epsilon"], p["m"]
        bound = (1 + 6 * 2) / 4 * e
        right = self.solve(p)
        return [Part.near("loss", right, f"use svt_pattern_probability on q(x) = (0,…,0, 1, 1) and q(x') = (1,…,1, "
                          f"0, 0) with {m} ⊥ then two ⊤", rtol=0.0, atol=5e-3,
                          mistakes=[
                              Mistake("the transcript is more likely on x than on x': divide Pr[x → S] by "
                                      "Pr[x' → S]", _BELOW, 0.0),
                              Mistake.near(bound, f"{bound:.4g} is the true bound (1 + 6c)/4 · ε; compute the exact "
                                           f"loss of the transcript at m = {m}", rtol=0.0, atol=5e-4),
                              Mistake.near(_lee_clifton_loss(m, e, 2 / e, 4 / (3 * e)),
                                           f"the threshold scale is {_frac(4, e)} here (Δ/ε₁ with ε₁ = ε/4)",
                                           rtol=0.0, atol=5e-3),
                              # (the book's hint called query scale 4 "the correct 2cΔ/ε₂"; with ε₂ = 3ε/4 that is
                              # 16/(3ε), so the hint now names what 4/ε is: the threshold's scale)
                              Mistake.near(_lee_clifton_loss(m, e, 4 / e, 4 / e),
                                           f"query scale {_frac(4, e)} is the threshold's Δ/ε₁; Lee and Clifton's query "
                                           f"noise is Δ/ε₂ = {_frac(4, 3 * e)}", rtol=0.0, atol=5e-3),
                              Mistake.near(_lee_clifton_loss(m, e, 4 / e, 16 / (3 * e)),
                                           f"query scale {_frac(16, 3 * e)} = 2cΔ/ε₂ is the correct noise, not Lee and "
                                           f"Clifton's Δ/ε₂ = {_frac(4, 3 * e)}", rtol=0.0, atol=5e-3)])]

    def exam(self):
        bound3 = (1 + 6 * 3) / 4
        loss = self.solve({"epsilon": 1.0, "m": 8})
        return [ExamQuestion(
                    "ch06-lee-clifton-bound", "Lee and Clifton's SVT variant claims $\\varepsilon$-DP. Lyu, Su and "
                    "Li show it is only $(1 + 6c)/4 \\cdot \\varepsilon$-DP. What is its true $\\varepsilon$ at "
                    "$\\varepsilon = 1$, $c = 3$? Two decimals.", "numeric", answer=bound3, tolerance=0.01),
                ExamQuestion(
                    "ch06-lee-clifton-loss", "Lee–Clifton SVT with $\\varepsilon = 1$, $c = 2$ (threshold noise "
                    "Lap(4), query noise Lap(4/3)) answers $q(x) = (0^8, 1, 1)$ and $q(x') = (1^8, 0, 0)$. The exact "
                    "loss of the transcript \"8 ⊥ then two ⊤\" is computed with `svt_pattern_probability`. Which is "
                    "it?", "choice", answer=f"{loss:.3f}",
                    distractors=("1.000", "3.250", f"{-loss:.3f}"),
                    feedback=("1 is the claimed ε, which the variant does not keep",
                              "3.25 is the true bound, approached only as m grows",
                              "the sign is reversed: divide Pr[x → S] by Pr[x' → S]"))]


def _frac(num: float, den: float) -> str:
    """num/den as the statement writes it: an integer, or a fraction of integers (4/3, 8/9)."""
    value = Fraction(num / den).limit_denominator(100)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _dwork_roth_sparse(values, t, eps, c, rng):
    found, start = [], 0
    for _ in range(c):
        i = above_threshold(values[start:], t, eps / c, rng=rng, monotone=True)
        if i < 0:
            break
        found.append(start + i)
        start += i + 1
    return found


@functools.lru_cache(maxsize=32)
def _sparse_reference(threshold: float, epsilon: float) -> dict:
    """Means and standard deviations of the truly-above counts reported by Sparse and Algorithm 1 (c = 3),
    from a long seeded simulation: 4,000 Sparse runs and 100,000 Algorithm 1 runs."""
    from dp_lib.plotting import country_counts

    _, counts = country_counts()
    rng = make_rng(6_4)
    above = counts > threshold
    sparse = np.array([above[_dwork_roth_sparse(counts, threshold, epsilon, 3, rng)].sum() for _ in range(4000)])
    alg1 = (sparse_vector(counts, threshold, epsilon, 3, rng=rng, monotone=True, size=100_000) & above).sum(axis=1)
    return {"sparse": (float(sparse.mean()), float(sparse.std()), 4000),
            "alg1": (float(alg1.mean()), float(alg1.std()), 100_000)}


def _mc_interval(mean: float, std: float, n_ref: int, runs: int = 5_000) -> tuple[float, float]:
    """Right values of a mean over ``runs`` runs: 4.5 standard errors of the student's mean, plus 4 standard errors
    of the reference simulation, rounded outwards to 3 decimals (an honest seed fails with probability < 1e-5).

    5,000 runs (not 500) because sparse_vector without monotone=True (the named mistake) reports only 2.7 to 8.1
    standard errors of a 500-run mean fewer countries; at 5,000 runs such a mean reaches the interval with
    probability < 1e-5 at every drawn (T, ε) (checked by simulation)."""
    width = 4.5 * std / np.sqrt(runs) + 4 * std / np.sqrt(n_ref)
    return float(np.floor((mean - width) * 1000) / 1000), float(np.ceil((mean + width) * 1000) / 1000)


class SparseVersusAlg1(Exercise):
    chapter, key, label, title = "06", "ex4", "svt-ex4", "Dwork–Roth Sparse against Algorithm 1"
    randomness = "draws"  # the means of Sparse and sparse_vector runs drawn from the setup's rng
    points = 3.0
    kind = "mixed"
    exercise_type = "computation"
    default = {"threshold": 50.0, "epsilon": 0.2}
    missing = 'set answer_ex4 to {"sparse": mean for Sparse, "alg1": mean for sparse_vector}'
    prompt = "Which is more accurate, and why?"
    rubric = (
        RubricItem("which", 1.0, "Algorithm 1 (sparse_vector) reports more truly-above countries",
                   "right answer stated without the numbers", "says Sparse"),
        RubricItem("why", 2.0,
                   "Sparse spends ε/c per round and re-draws Z_T after each ⊤, splitting each round's budget again "
                   "between Z_T and Z_i, so both noises are larger; Algorithm 1 pays for Z_T once and gives most of "
                   "ε to the queries",
                   "names only one cause (ε/c per round, or re-drawing Z_T)",
                   "no reason, or a reason about the data rather than the noise"),
    )

    def params(self, rng):
        return {"threshold": float(rng.choice([40.0, 50.0, 60.0])), "epsilon": float(rng.choice([0.15, 0.2, 0.3]))}

    def statement(self, p):
        return ("Dwork and Roth's Sparse re-draws $Z_T$ after every positive answer and runs each of its $c$ rounds "
                "at $\\varepsilon/c$. Using `above_threshold(..., monotone=True)` for each round, simulate Sparse on "
                "the country counts (`names, counts = country_counts()`) with $c = 3$, "
                f"$\\varepsilon = {p['epsilon']:g}$, $T = {p['threshold']:g}$, and compare the mean number of "
                "truly-above countries it reports with `sparse_vector(..., monotone=True)` (default split) over 5,000 "
                "runs each; the counts are monotone, so both use the halved query noise. Set `answer_ex4` to a dictionary "
                "`{\"sparse\": ..., \"alg1\": ...}` of the two means. Which is more accurate, and why?")

    def setup_code(self, p):
        return "from dp_lib.plotting import country_counts\n\nnames, counts = country_counts()\n"

    def solve(self, p):
        ref = _sparse_reference(p["threshold"], p["epsilon"])
        return {"sparse": ref["sparse"][0], "alg1": ref["alg1"][0]}

    def parts(self, p):
        # The answer depends on the student's rng: 5,000 runs of each, so the right interval is the reference mean
        # ± 4.5 standard errors of a 5,000-run mean (plus the reference's own error); see _mc_interval.
        ref = _sparse_reference(p["threshold"], p["epsilon"])
        s_lo, s_hi = _mc_interval(*ref["sparse"])
        a_lo, a_hi = _mc_interval(*ref["alg1"])
        per_round = f"{p['epsilon']:g}/3"
        return [Part.between("sparse", s_lo, s_hi,
                             f"too few: use above_threshold with monotone=True, T = {p['threshold']:g} and "
                             f"ε/c = {per_round} per round", path=".sparse",
                             mistakes=[Mistake("Sparse reports fewer truly-above countries: run each of its c = 3 "
                                               "rounds at ε/c, not at ε", s_hi + 1e-9, 3.0)]),
                Part.between("alg1", a_lo, a_hi,
                             f"sparse_vector(counts, {p['threshold']:g}, {p['epsilon']:g}, 3, monotone=True, "
                             f"size=5000) reports about {ref['alg1'][0]:.1f} truly-above countries on average "
                             "(without monotone=True the query noise doubles)", path=".alg1")]

    def conditions(self, p):
        return [Condition(0, ".sparse", 'use the keys "sparse" and "alg1"', lo=_BELOW, hi=1e9),
                Condition(1, ".alg1", 'use the keys "sparse" and "alg1"', lo=_BELOW, hi=1e9)]

    def exam(self):
        return [ExamQuestion(
            "ch06-sparse-vs-alg1", "Dwork and Roth's Sparse and Lyu–Su–Li's Algorithm 1 both report up to $c = 3$ "
            "queries above a threshold with total budget $\\varepsilon$. Why does Algorithm 1 usually report more "
            "truly-above queries?", "choice",
            answer="it draws the threshold noise once and gives most of ε to the query noise, while Sparse runs "
                   "each round at ε/c and re-draws the threshold noise",
            distractors=("it uses Lap(Δ/ε₂) query noise, without the factor 2c",
                         "it runs every round at the full ε"),
            feedback=("that is Lee and Clifton's bug, not Algorithm 1",
                      "running every round at ε would cost c·ε in total"))]


EXERCISES = [QueryNoiseScale(), ReportProbability(), LeeCliftonLoss(), SparseVersusAlg1()]
