"""Exercises of Chapter 13, Query release and synthetic data (chapters/13_query_release.ipynb).

Setup: math, np, pd, the chapter's dp_lib names (marginal_workload, workload_sensitivity, measure_marginals,
split_residual, zcdp_to_epsilon, ...), rng, adult = load_adult(), h = adult_histogram(adult), x = h.ravel(),
W, marginals = marginal_workload(h.shape, k=2), n, true_answers, pairs = sorted(set(marginals)).
"""

from __future__ import annotations

import math

from dp_lib import zcdp_to_epsilon
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.stats import norm

from dp_lib import (ADULT_PATH, ADULT_QUERY_DOMAIN, adult_histogram, analytic_gaussian_sigma, exponential_mech,
                    fit_marginals,
                    gaussian_workload, hierarchy_matrix, holdout_mask, laplace_mech, laplace_workload,
                    least_squares_consistent, load_adult, make_rng, marginal_workload, measure_marginals, mwem,
                    nonnegative_consistent, sample_records, split_residual, workload_sensitivity, zcdp_to_epsilon)
adult = load_adult()
h = adult_histogram(adult)
x = h.ravel()
W, marginals = marginal_workload(h.shape, k=2)     # k=2: the ORDER of the marginals (2-way)
n, true_answers = int(x.sum()), W @ x
pairs = sorted(set(marginals))
"""

BIG = 1e12
WAY = {1: "1-way", 2: "2-way", 3: "3-way", 4: "4-way"}


class WorkloadSensitivity(Exercise):
    chapter, key, label, title = "13", "ex1", "ch13-ex1", "The L1 sensitivity of a workload of marginals"
    randomness = "none"
    points, exercise_type = 2.0, "computation"
    default = {"orders": (2, 3)}
    missing = "set answer_ex1 to a number"

    def params(self, rng):
        pairs = [(1, 2), (1, 3), (2, 3), (2, 4), (1, 4)]
        return {"orders": tuple(int(o) for o in pairs[int(rng.integers(len(pairs)))])}

    def statement(self, p):
        a, b = p["orders"]
        return (f"A release adds all {WAY[b]} marginals of the same five attributes to the {_word(math.comb(5, a))} "
                f"{WAY[a]} marginals. What is the L1 sensitivity $\\Delta_1$ of the combined workload under "
                "add/remove-one? Set `answer_ex1` to it.")

    def solve(self, p):
        a, b = p["orders"]
        return math.comb(5, a) + math.comb(5, b)

    def parts(self, p):
        a, b = p["orders"]
        alone = sorted({math.comb(5, a), math.comb(5, b)})
        return [Part.between("Delta_1", self.solve(p), self.solve(p), "each record adds 1 to one cell of each "
                             "marginal: count the marginals", mistakes=[
                                 *[Mistake(f"{v} is the {WAY[b]} part alone (or the {WAY[a]} part alone): add both",
                                           v, v) for v in alone],
                                 Mistake("the sensitivity counts marginals, not queries: one record is in one cell "
                                         "per marginal", 100, BIG)])]

    def exam(self):
        return [ExamQuestion("ch13-sensitivity", "A workload holds all 1-way and all 2-way marginals of six "
                             "attributes. What is its L2 sensitivity $\\Delta_2$ under add/remove-one? Give two "
                             "decimals.", "numeric", answer=round(math.sqrt(6 + 15), 2), tolerance=0.01),
                ExamQuestion("ch13-sensitivity-choice", "A workload holds all 1-way and all 2-way marginals of six "
                             "attributes. What is its L1 sensitivity under add/remove-one?", "choice", answer="21",
                             distractors=("15", "the number of queries in the workload"),
                             feedback=("that is the 2-way part alone: add both",
                                       "the sensitivity counts marginals, not queries"))]


class MwemBudget(Exercise):
    chapter, key, label, title = "13", "ex2", "ch13-ex2", "MWEM's per-round budget"
    randomness = "none"
    points, exercise_type = 2.0, "computation"
    default = {"epsilon": 0.5, "rounds": 25}
    shape, shape_hint = 2, "answer_ex2 must be a pair (selection_epsilon, laplace_scale)"
    missing = "set answer_ex2 to the pair (selection_epsilon, laplace_scale)"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "rounds": int(rng.choice([10, 20, 25, 40, 50]))}

    def statement(self, p):
        return (f"MWEM runs with a total budget ε = {p['epsilon']:g} and $T$ = {p['rounds']} rounds. What ε does "
                "each exponential-mechanism selection use, and what is the scale of each Laplace measurement? Set "
                "`answer_ex2` to the pair `(selection_epsilon, laplace_scale)`.")

    def solve(self, p):
        e, t = p["epsilon"], p["rounds"]
        return (e / (2 * t), 2 * t / e)

    def parts(self, p):
        e, t = p["epsilon"], p["rounds"]
        sel, scale = self.solve(p)
        return [Part.near("selection epsilon", sel, "the selection uses ε/(2T)", rtol=1e-3,
                          mistakes=[Mistake.near(e / t, f"{e / t:g} = ε/T is a whole round; the selection gets half "
                                                 "of it, ε/(2T)", rtol=1e-3)]),
                Part.near("Laplace scale", scale, "a sensitivity-1 query at ε/(2T) needs Laplace scale 2T/ε",
                          rtol=1e-3, mistakes=[Mistake.near(t / e, "scale T/ε is for ε/T per measurement; MWEM's "
                                                            "measurement gets ε/(2T)", rtol=1e-3)])]

    def exam(self):
        return [ExamQuestion("ch13-mwem", "MWEM runs $T = 20$ rounds with a total ε = 1. What is the scale of each "
                             "Laplace measurement?", "choice", answer="40",
                             distractors=("20", "0.025"),
                             feedback=("T/ε gives each measurement a whole round's ε/T; it gets ε/(2T)",
                                       "that is the selection's ε/(2T), not a scale"))]


class GaussianMarginals(Exercise):
    chapter, key, label, title = "13", "ex3", "ch13-ex3", "ρ and ε of Gaussian marginals"
    randomness = "none"
    points, exercise_type = 2.0, "computation"
    default = {"sigma": 10.0, "order": 2}
    shape, shape_hint = 2, "answer_ex3 must be a pair (rho, epsilon)"
    missing = "set answer_ex3 to the pair (rho, epsilon)"

    def params(self, rng):
        return {"sigma": float(rng.choice([5.0, 10.0, 20.0])), "order": int(rng.choice([1, 2, 3]))}

    def statement(self, p):
        k = math.comb(5, p["order"])
        return (f"You measure each of the {_word(k)} {WAY[p['order']]} marginals with Gaussian noise of standard "
                f"deviation σ = {p['sigma']:g}. What total ρ does the release spend, and what ε does it give at "
                "δ = 10⁻⁵ (`zcdp_to_epsilon`)? Set `answer_ex3` to `(rho, epsilon)`, ρ exact and ε to two decimals.")

    def solve(self, p):
        rho = math.comb(5, p["order"]) / (2 * p["sigma"] ** 2)
        return (rho, zcdp_to_epsilon(rho, 1e-5))

    def parts(self, p):
        k, s = math.comb(5, p["order"]), p["sigma"]
        rho, eps = self.solve(p)
        return [Part.near("rho", rho, "each marginal costs 1 / (2 sigma^2); add them up", rtol=1e-3,
                          mistakes=[Mistake.near(1 / (2 * s ** 2), f"{1 / (2 * s ** 2):g} is one marginal; {k} "
                                                 "measurements add their rho", rtol=1e-3),
                                    Mistake.near(k / (2 * s), f"rho = Delta^2 / (2 sigma^2) with sigma = {s:g}: "
                                                 f"divide by {2 * s ** 2:g}", rtol=1e-3)]),
                # ±1 %: ε ≥ 0.54 at every drawn (σ, order), so two decimals (as the statement asks) always pass
                Part.near("epsilon", eps, "convert with rho + 2 sqrt(rho ln(1/delta)), and give epsilon to two "
                          "decimals", rtol=1e-2)]

    def exam(self):
        rho = 10 / (2 * 20.0 ** 2)
        return [ExamQuestion("ch13-rho", "Each of ten 2-way marginals is measured with Gaussian noise of standard "
                             "deviation σ = 20. What total ρ (zCDP) does the release spend? Give four decimals.",
                             "numeric", answer=round(rho, 4), tolerance=5e-5),
                ExamQuestion("ch13-rho-eps", "A release is ρ-zCDP with ρ = 0.0125. What ε does it give at "
                             "δ = 10⁻⁵? Give three decimals.", "numeric",
                             answer=round(zcdp_to_epsilon(rho, 1e-5), 3), tolerance=0.002)]


def _word(k):
    return {5: "five", 10: "ten"}.get(k, str(k))


class NonNegativeBias(Exercise):
    chapter, key, label, title = "13", "ex4", "ch13-ex4", "The bias of clipping a noisy count at 0"
    randomness = "either"  # derive it, or simulate it with one million draws
    points, exercise_type = 2.0, "derivation"
    default = {"sigma": 10.0}
    missing = "set answer_ex4 to a number"

    def params(self, rng):
        return {"sigma": float(rng.choice([5.0, 10.0, 20.0, 30.0]))}

    def statement(self, p):
        return (f"A subgroup has true count 0 and is measured with $N(0, \\sigma^2)$ noise, σ = {p['sigma']:g}. The "
                "release replaces a negative measurement by 0 (the one-count version of non-negativity). What is the "
                "expected released count, that is, the bias? Derive it, or simulate it with one million draws. Set "
                "`answer_ex4` to the bias.")

    def solve(self, p):
        return p["sigma"] / math.sqrt(2 * math.pi)

    def parts(self, p):
        s = p["sigma"]
        # ± 2 %: a mean of one million draws of max(Z, 0) has relative standard error 0.15 % (sd 0.58σ against the
        # mean 0.40σ, over √10⁶), so any honest seed is within 13 standard errors; σ/2 is 25 % away.
        return [Part.near("bias", self.solve(p), "E[max(Z, 0)] for Z ~ N(0, sigma^2) is sigma / sqrt(2 pi)",
                          rtol=0.02, mistakes=[
                              Mistake("the clipped count is never below 0, so its mean cannot be 0 or negative",
                                      -BIG, 0),
                              Mistake.near(s / 2, f"half the draws are clipped, but the other half are not {s:g} "
                                           "on average", rtol=0.02)])]

    def exam(self):
        return [ExamQuestion("ch13-clip-bias", "A true count 0 gets $N(0, 20^2)$ noise and a negative release is "
                             "replaced by 0. What is the expected released count? Give two decimals.", "numeric",
                             answer=round(20 / math.sqrt(2 * math.pi), 2), tolerance=0.01)]


class SplitResidualProof(Exercise):
    chapter, key, label, title = "13", "ex5", "ch13-ex5", "split_residual is the least-squares projection"
    randomness = "none"
    points, kind, exercise_type = 0.0, "open", "derivation"
    default = {}
    prompt = ("Show that `split_residual` is the least-squares projection: for a parent $p$ held fixed and noisy "
              "children $y_1, \\dots, y_J$, the minimizer of $\\sum_i (z_i - y_i)^2$ subject to $\\sum_i z_i = p$ is "
              "$z_i = y_i + (p - \\sum_j y_j)/J$. Why is the result unbiased when $p$ is the true parent count?")
    rubric = (
        RubricItem("the minimizer", 3, "sets up the Lagrangian (or projects onto the hyperplane Σz = p): "
                   "2(z_i − y_i) = λ for all i, so every child moves by the same amount; the constraint gives "
                   "Jλ/2 = p − Σy_j, hence the formula; notes the objective is strictly convex, so it is the minimum",
                   "correct stationarity condition but the constant is not solved for, or no argument that it is a "
                   "minimum", "asserts the formula, or shifts children proportionally to their size"),
        RubricItem("unbiasedness", 2, "the result is linear in the y_i; with E[y_i] = ℓ_i and Σℓ_j = p, "
                   "E[z_i] = ℓ_i + (p − Σℓ_j)/J = ℓ_i", "says 'linear, so unbiased' without using Σℓ_j = p",
                   "missing, or claims it is biased"),
        RubricItem("the role of p", 1, "notes that it needs p to be the true (or an unbiased) parent count: a noisy "
                   "p keeps it unbiased, a clipped one would not", "mentions p without the condition", "missing"))

    def statement(self, p):
        return self.prompt

    def solve(self, p):
        return None

    def parts(self, p):
        return []

    def exam(self):
        return [ExamQuestion("ch13-split", "A parent count is fixed at 100; its three noisy children are 30, 40 and "
                             "20. Least squares (the closest children that sum to the parent) moves each child by the "
                             "same amount. What is the first child after the projection? Give two decimals.",
                             "numeric", answer=round(30 + (100 - 90) / 3, 2), tolerance=0.01)]


class BuggyMarginals(Exercise):
    chapter, key, label, title = "13", "ex6", "ch13-ex6", "Find the bug: a marginal release that overspends"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "find-the-bug"
    default = {"rho": 0.05, "order": 2}
    shape, shape_hint = 2, "answer_ex6 must be a pair (rho_spent, sigma_fixed)"
    missing = "set answer_ex6 to the pair (rho_spent, sigma_fixed)"
    prompt = "Which line is wrong, and why?"
    rubric = (
        RubricItem("the bug", 2, "σ is calibrated for one histogram of L2 sensitivity 1, but one person is in one "
                   "cell of every marginal: the released vector has Δ2 = √k (or: each of the k marginals spends the "
                   "whole ρ, and zCDP adds up)", "names the σ line without the reason",
                   "blames the noise distribution or the rng"),
        RubricItem("the fix", 1, "σ = √k/√(2ρ) = √(k/(2ρ)), i.e. ρ/k per marginal, as `measure_marginals` does",
                   "a fix that is private but not calibrated (e.g. Δ2 = k)", "no fix"))

    def params(self, rng):
        return {"rho": float(rng.choice([0.01, 0.05, 0.1, 0.5])), "order": int(rng.choice([1, 2, 3]))}

    def statement(self, p):
        k = math.comb(5, p["order"])
        return (f"A colleague wants to release the {_word(k)} {WAY[p['order']]} marginals of the five attributes "
                f"under ρ-zCDP with ρ = {p['rho']:g} and writes\n\n```python\n"
                "def release(h, pairs, rho, rng):\n"
                "    sigma = 1 / math.sqrt(2 * rho)          # a histogram has L2 sensitivity 1\n"
                "    tables = {a: h.sum(axis=tuple(i for i in range(5) if i not in a)) for a in pairs}\n"
                "    return {a: t + rng.normal(0.0, sigma, size=t.shape) for a, t in tables.items()}\n```\n\n"
                "Find the bug. What ρ does this release really spend, and which σ per cell would spend exactly "
                f"ρ = {p['rho']:g}? Set `answer_ex6` to the pair `(rho_spent, sigma_fixed)`. Which line is wrong, "
                "and why?")

    def solve(self, p):
        k, rho = math.comb(5, p["order"]), p["rho"]
        sigma_bug = 1 / math.sqrt(2 * rho)
        return (k / (2 * sigma_bug ** 2), math.sqrt(k / (2 * rho)))

    def parts(self, p):
        k, rho = math.comb(5, p["order"]), p["rho"]
        spent, fixed = self.solve(p)
        return [Part.near("rho spent", spent, f"each of the {k} marginals is a Gaussian release with Δ2 = 1 and "
                          "σ = 1/√(2ρ), so each spends ρ; zCDP adds up", rtol=1e-3,
                          mistakes=[Mistake.near(rho, f"{rho:g} is what the colleague intended; each marginal "
                                                 f"spends it on its own, and {k} releases add their ρ", rtol=1e-3)]),
                Part.near("sigma fixed", fixed, f"the {k} marginals together have L2 sensitivity √{k}: "
                          f"σ = √{k}/√(2ρ)", rtol=1e-3,
                          mistakes=[Mistake.near(1 / math.sqrt(2 * rho), "that is the buggy σ itself",
                                                 rtol=1e-3),
                                    Mistake.near(k / math.sqrt(2 * rho), f"that uses Δ = {k}, the L1 sensitivity; "
                                                 f"the Gaussian mechanism needs the L2 sensitivity √{k}",
                                                 rtol=1e-3)])]

    def exam(self):
        return [ExamQuestion("ch13-bug", "Code meant to be $0.1$-zCDP adds $N(0, \\sigma^2)$ with "
                             "$\\sigma = 1/\\sqrt{2 \\cdot 0.1}$ to every cell of each of five 1-way marginals. What "
                             "does the release really spend?", "choice", answer="ρ = 0.5",
                             distractors=("ρ = 0.1", "ρ = 0.1·√5"),
                             feedback=("each marginal spends the whole 0.1, and zCDP adds up over the five",
                                       "ρ grows with Δ2² = 5, not with Δ2 = √5"))]


EXERCISES = [WorkloadSensitivity(), MwemBudget(), GaussianMarginals(), NonNegativeBias(), SplitResidualProof(),
             BuggyMarginals()]
