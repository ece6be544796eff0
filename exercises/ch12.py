"""Exercises of Chapter 12, Attacking and tuning models (chapters/12_attacking_models.ipynb).

Setup: math, np, pd, scipy.stats.norm, the chapter's dp_lib names (max_tpr, roc_auc, best_of_k_epsilon,
random_stopping_epsilon, tnb_mean, clopper_pearson, ...), rng, data = adult_features() and the benchmark's pool
(X_pool, y_pool).
"""

from __future__ import annotations

import math

from scipy.stats import norm

from dp_lib import best_of_k_epsilon, clopper_pearson, max_tpr, random_stopping_epsilon, tnb_mean
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd
from scipy.stats import norm

from dp_lib import (ADULT_PATH, PldAccountant, PrivacyAccountant, RdpAccountant, TuningResult, accountant_epsilons, accuracy,
                    adult_features, adult_tuning_run, audit_canary, best_of_k, best_of_k_epsilon, canary_datasets,
                    canary_mechanism, clopper_pearson, dp_sgd_sigma, gradient_descent, laplace_mech,
                    leave_one_out_scores, lira_scores, loss_scores, make_rng, max_tpr, minibatch_dp_sgd,
                    pld_max_tpr, poisson_tuning_rdp, random_stopping, random_stopping_epsilon, replay_mechanism, roc_auc,
                    roc_curve, sample_tnb, search_events, tnb_mean, tnb_tuning, tnb_tuning_epsilon,
                    tnb_tuning_rdp, tpr_at_fpr, train_on_random_halves, true_label_logit, tuning_output_pmf)
from dp_lib.events import EpsilonDeltaEvent, GaussianEvent, PoissonSampled, Repeated
data = adult_features()
pool_rows = make_rng(34).choice(len(data.y_train), 200, replace=False)   # the benchmark's pool
X_pool, y_pool = data.X_train[pool_rows], data.y_train[pool_rows]
"""

BIG = 1e12


def _tex(x: float) -> str:
    """x as TeX: 1e-05 -> 10^{-5}, 0.001 -> 10^{-3}, 2e-05 -> 2 \\cdot 10^{-5}, other numbers as :g."""
    m, ex = f"{x:e}".split("e")
    m, ex = float(m), int(ex)
    if ex > -3:
        return f"{x:g}"
    return f"10^{{{ex}}}" if m == 1 else f"{m:g} \\cdot 10^{{{ex}}}"


class AttackCeiling(Exercise):
    chapter, key, label, title = "12", "ex1", "attacking-ex1", "The ceiling on a membership attack's TPR"
    randomness = "none"
    points, exercise_type = 2.0, "computation"
    default = {"epsilon": 2.0, "delta": 1e-3, "fpr": 0.01}
    missing = "set answer_ex1 to the largest TPR"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0, 3.0])), "delta": float(rng.choice([1e-3, 1e-4])),
                "fpr": float(rng.choice([0.001, 0.01, 0.05]))}

    def statement(self, p):
        return (f"A model is trained with $(\\varepsilon, \\delta) = ({p['epsilon']:g}, {_tex(p['delta'])})$-DP. "
                f"What is the largest TPR any membership attack can have at FPR {100 * p['fpr']:g} %? Set `answer_ex1` "
                "to it, five decimals or more (δ counts).")

    def solve(self, p):
        return float(max_tpr(p["fpr"], p["epsilon"], p["delta"]))

    def parts(self, p):
        right = self.solve(p)
        e, d, a = p["epsilon"], p["delta"], p["fpr"]
        # The window is a quarter of δ wide on each side, so that leaving δ out is never right (five decimals are
        # asked; their rounding is at most 5e-6 < δ/4 for every drawn δ).
        tol = d / 4
        first = math.exp(e) * a + d
        capped = first > right + 2 * tol
        cap = ("TPR is also capped by 1 and by the second bound 1 - e^(-eps) * (1 - delta - FPR): take the minimum "
               "(max_tpr)")
        mistakes = [(math.exp(e) * a, cap if capped else "add delta: TPR <= e^eps * FPR + delta"),
                    (first, cap),
                    (e * a + d, "the ceiling grows with e^eps, not with eps")]
        # A named value is a mistake only where it is clearly not the right value itself (nor an earlier mistake).
        kept = []
        for v, h in mistakes:
            if all(abs(v - w) > 2 * tol for w in [right, *(w for w, _ in kept)]):
                kept.append((v, h))
        return [Part.near("TPR", right, "use max_tpr(fpr, epsilon, delta)", rtol=0, atol=tol,
                          mistakes=[Mistake.near(v, h, rtol=0, atol=tol) for v, h in kept])]

    def exam(self):
        right = float(max_tpr(0.05, 1.0, 1e-4))
        return [ExamQuestion("ch12-ceiling", "A model is $(1, 10^{-4})$-DP. What is the largest TPR any membership "
                             "attack can reach at FPR 5 %? Give five decimals.", "numeric",
                             answer=round(right, 5), tolerance=5e-5),
                ExamQuestion("ch12-ceiling-choice", "A model is $(1, 10^{-4})$-DP. Which is the largest TPR any "
                             "membership attack can reach at FPR 5 %?", "choice", answer=f"{right:.4f}",
                             distractors=(f"{math.e * 0.05:.4f}", f"{0.05 + 1e-4:.4f}"),
                             feedback=("that forgets δ: TPR ≤ e^ε·FPR + δ",
                                       "the ceiling grows with e^ε, not with ε"))]


class ToyAuc(Exercise):
    chapter, key, label, title = "12", "ex2", "attacking-ex2", "The AUC of a Gaussian toy attack"
    randomness = "either"  # compute it exactly, or estimate it from 100,000 draws of rng
    points, exercise_type = 2.0, "derivation"
    default = {"shift": 0.5}
    missing = "set answer_ex2 to the AUC"

    def params(self, rng):
        return {"shift": float(rng.choice([0.3, 0.5, 0.8, 1.0]))}

    def statement(self, p):
        return (f"A toy attack's scores are $N({p['shift']:g}, 1)$ for members and $N(0, 1)$ for non-members. What "
                "is its AUC? Compute it exactly (the difference of a member's and a non-member's score is normal) or "
                "estimate it with `roc_auc` on at least 100,000 draws of each from `rng`. Set `answer_ex2` to it.")

    def solve(self, p):
        return float(norm.cdf(p["shift"] / math.sqrt(2)))

    def parts(self, p):
        # ± 0.01: an estimate from 100,000 draws of each has standard deviation below 0.0013 (Hanley-McNeil), so
        # any honest seed lands within 7 standard deviations; the named mistakes are ≥ 0.02 away.
        m = p["shift"]
        return [Part.near("AUC", self.solve(p), "AUC = P(member score > non-member score); an estimate needs at "
                          "least 100,000 draws of each", atol=0.01,
                          mistakes=[Mistake.near(float(norm.cdf(m)), "the difference of two scores has variance 2: "
                                                 f"use Phi({m:g} / sqrt(2)), not Phi({m:g})", rtol=0, atol=0.01),
                                    Mistake.near(float(norm.cdf(m / 2)), "the difference has variance 2, so standard "
                                                 f"deviation sqrt(2), not 2: Phi({m:g} / sqrt(2))", rtol=0,
                                                 atol=0.01)])]

    def exam(self):
        auc = float(norm.cdf(1 / math.sqrt(2)))
        return [ExamQuestion("ch12-auc", "Member scores are $N(1, 1)$, non-member scores $N(0, 1)$, independent. "
                             "What is the attack's AUC? Give three decimals.", "numeric", answer=round(auc, 3),
                             tolerance=0.001),
                ExamQuestion("ch12-auc-choice", "Member scores are $N(1, 1)$, non-member scores $N(0, 1)$. Which is "
                             "the attack's AUC?", "choice", answer=f"{auc:.3f}",
                             distractors=(f"{norm.cdf(1):.3f}", f"{norm.cdf(0.5):.3f}"),
                             feedback=("the difference of the two scores has variance 2, not 1",
                                       "the difference has standard deviation √2, not 2"))]


class TuningCost(Exercise):
    chapter, key, label, title = "12", "ex3", "attacking-ex3", "The privacy cost of hyperparameter search"
    randomness = "none"
    points, exercise_type = 3.0, "computation"
    default = {"epsilon": 0.2, "settings": 15}
    shape, shape_hint = 3, "answer_ex3 must be (eps_grid, eps_random_stopping, expected_runs)"
    missing = "set answer_ex3 = (eps_grid, eps_random_stopping, expected_runs)"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.1, 0.2, 0.25, 0.5])), "settings": int(rng.choice([10, 15, 20]))}

    def statement(self, p):
        e, m = p["epsilon"], p["settings"]
        return (f"Each training run of a grid search over {m} settings is ${e:g}$-DP (pure DP). Compute the total ε "
                f"of (a) running every setting once and releasing the best, by composition, and (b) random stopping "
                f"with γ = 1/{m}, and (c) the expected number of runs of (b). Set "
                "`answer_ex3 = (eps_grid, eps_random_stopping, expected_runs)`.")

    def solve(self, p):
        e, m = p["epsilon"], p["settings"]
        return (best_of_k_epsilon(e, m), random_stopping_epsilon(e), tnb_mean(1.0, 1 / m))

    def parts(self, p):
        e, m = p["epsilon"], p["settings"]
        grid, stop, runs = self.solve(p)
        return [Part.near("grid", grid, f"the grid composes {m} runs of {e:g}", atol=0.01),
                Part.near("random stopping", stop, "random stopping is 3 eps-DP for eps-DP runs", atol=0.01,
                          mistakes=[Mistake.near(2 * e, "2 eps is eta = 0 (Papernot-Steinke); random stopping is "
                                                 "eta = 1", rtol=0, atol=0.01),
                                    Mistake.near(m * e, "random stopping does not pay per run: it is (2 + eta) eps",
                                                 rtol=0, atol=0.01)]),
                Part.near("expected runs", runs, "a geometric number of runs with stopping probability gamma has "
                          "mean 1/gamma", atol=0.1)]

    def exam(self):
        return [ExamQuestion("ch12-random-stopping", "Each training run is $0.5$-DP (pure). A search with random "
                             "stopping ($\\eta = 1$, any $\\gamma$) releases the best run. What is its total ε?",
                             "choice", answer=f"{random_stopping_epsilon(0.5):g}",
                             distractors=("1", f"{best_of_k_epsilon(0.5, 10):g}"),
                             feedback=("2ε is η = 0 (Papernot–Steinke); random stopping is η = 1",
                                       "random stopping does not pay per run: 10 runs are not composed")),
                ExamQuestion("ch12-expected-runs", "Random stopping with stopping probability $\\gamma = 1/20$: how "
                             "many runs does it make on average?", "numeric", answer=float(tnb_mean(1.0, 1 / 20)),
                             tolerance=0.05)]


SIZES = (1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
P0, P1 = 0.0560, 0.1305  # the probabilities of the exercise, as printed (glued, four decimals)


def _bound(n, alpha, p0=P0, p1=P1):
    return math.log(clopper_pearson(round(p1 * n), n, alpha)[0] - 1e-5) - math.log(clopper_pearson(round(p0 * n), n,
                                                                                                    alpha)[1])


def _smallest(target, alpha):
    return next((n for n in SIZES if _bound(n, alpha) >= target), None)


class CanaryRuns(Exercise):
    chapter, key, label, title = "12", "ex4", "attacking-ex4", "How many runs does a canary audit need?"
    randomness = "none"
    points, exercise_type = 3.0, "design"
    default = {"target": 0.75}
    missing = "set answer_ex4 to one of the sizes"

    def params(self, rng):
        return {"target": float(rng.choice([0.5, 0.6, 0.65, 0.7, 0.75]))}

    def statement(self, p):
        return ("How many runs does the canary audit need? Suppose the event \"$\\theta_j >$ threshold\" has exactly "
                f"the probabilities $p_0 = {P0:.4f}$ without and $p_1 = {P1:.4f}$ with the canary, and that $N$ runs "
                "per world give the counts `round(p0 * N)` and `round(p1 * N)`. The auditor certifies "
                "$\\ln(\\mathrm{CP}_{\\text{low}}(k_1) - \\delta) - \\ln \\mathrm{CP}_{\\text{up}}(k_0)$ with "
                "δ = 10⁻⁵ and 95 % confidence, each of its four one-sided Clopper–Pearson bounds at α/4 "
                "(`clopper_pearson` of Chapter 5; the audit bounds both directions, here only these two matter). "
                "Which is the smallest $N$ in 1,000, 2,000, 5,000, 10,000, 20,000, "
                f"50,000, 100,000 that certifies ε ≥ {p['target']:g}? Set `answer_ex4` to it.")

    def solve(self, p):
        return _smallest(p["target"], 0.05 / 4)

    def parts(self, p):
        right = self.solve(p)
        sizes = ", ".join(str(n) for n in SIZES)
        loose = sorted({_smallest(p["target"], 0.05), _smallest(p["target"], 0.025)} - {right, None})
        mistakes = [Mistake(f"too few runs: {n:,} is enough only with alpha or alpha/2; each of the four bounds uses "
                            "alpha/4 = 0.0125", n, n) for n in loose]
        mistakes += [Mistake(f"too few runs: at this N the certified bound stays below {p['target']:g}", n, n)
                     for n in SIZES if n < right and n not in loose]
        mistakes += [Mistake(f"a smaller size already certifies {p['target']:g}", n, n) for n in SIZES if n > right]
        edges = [-BIG, *SIZES, BIG]
        mistakes += [Mistake(f"answer_ex4 must be one of {sizes}", lo + 0.5, hi - 0.5)
                     for lo, hi in zip(edges, edges[1:])]
        return [Part.between("N", right, right, "a smaller size already certifies the target", mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion("ch12-canary-runs", "A canary audit's event has probabilities $p_0 = 0.0560$ and "
                             "$p_1 = 0.1305$; the auditor certifies $\\ln(\\mathrm{CP}_{low}(k_1) - \\delta) - "
                             "\\ln \\mathrm{CP}_{up}(k_0)$, δ = 10⁻⁵, each one-sided Clopper–Pearson bound at "
                             "α/4 = 0.0125. Which is the smallest $N$ runs per world (counts `round(p N)`) that "
                             "certifies ε ≥ 0.7?", "choice", answer=f"{_smallest(0.7, 0.0125):,}",
                             distractors=(f"{_smallest(0.7, 0.05):,}", f"{SIZES[-1]:,}"),
                             feedback=("that uses α for each bound instead of α/4",
                                       "enough, but a smaller N already certifies 0.7"))]


class CeilingDerivation(Exercise):
    chapter, key, label, title = "12", "ex5", "attacking-ex5", "Derive the ceiling on membership attacks"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    randomness = "none"  # a formula: the answer does not depend on the seed
    default = {"epsilon": 2.0, "delta": 1e-3}
    missing = "set answer_ex5 to the pair (FPR where the two bounds meet, the TPR ceiling there)"
    shape, shape_hint = 2, "answer_ex5 is a pair: (alpha_star, tpr_star)"
    prompt = ("Derive both bounds of the ceiling from the definition of (ε, δ)-DP, and the FPR α* where they meet, "
              "step by step.")
    rubric = (
        RubricItem("the attack as an event", 1, "the attack is a (possibly randomised) function of the output; S = "
                   "{outputs it calls 'member'}; TPR = P[M(D) ∈ S] with the target x in D, FPR = P[M(D') ∈ S] with "
                   "D' = D without x, neighbours", "TPR/FPR named without the event or the neighbouring pair",
                   "missing"),
        RubricItem("the first bound", 1, "the definition on S, D before D': TPR ≤ e^ε·FPR + δ",
                   "the direction of the inequality or the δ wrong", "missing"),
        RubricItem("the second bound", 2, "the definition on the complement of S, D' before D: "
                   "1 − FPR ≤ e^ε(1 − TPR) + δ, so TPR ≤ 1 − e^(−ε)(1 − δ − FPR)", "uses the complement but "
                   "the algebra slips", "missing (only the first bound)"),
        RubricItem("where they meet", 1, "e^ε α + δ = 1 − e^(−ε)(1 − δ − α) gives α(e^ε − e^(−ε)) = (1 − δ)(1 − "
                   "e^(−ε)), so α* = (1 − δ)/(1 + e^ε); the first bound binds below α*, the second above; evaluated",
                   "right equation, algebra slip", "missing"))

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0, 3.0])), "delta": float(rng.choice([1e-3, 2e-3, 5e-3]))}

    def statement(self, p):
        e, d = p["epsilon"], p["delta"]
        return (f"A model is trained with $(\\varepsilon, \\delta) = ({e:g}, {d:g})$-DP. Derive from the definition "
                "of $(\\varepsilon, \\delta)$-DP that every membership attack on a record $x$ satisfies "
                "$\\mathrm{TPR} \\le e^\\varepsilon \\alpha + \\delta$ and "
                "$\\mathrm{TPR} \\le 1 - e^{-\\varepsilon}(1 - \\delta - \\alpha)$ at FPR $\\alpha$ (hint: apply "
                "the definition to the event 'the attack says member' and to its complement, with the two data "
                "sets in the two orders). Find the FPR $\\alpha^*$ at which the two bounds are equal, and the TPR "
                "ceiling there. Set `answer_ex5 = (alpha_star, tpr_star)`, four significant digits or more, and check "
                "`tpr_star` with `max_tpr`. Write the derivation in a Markdown cell.")

    def solve(self, p):
        e, d = p["epsilon"], p["delta"]
        alpha = (1 - d) / (1 + math.exp(e))
        return (alpha, math.exp(e) * alpha + d)

    def parts(self, p):
        e, d = p["epsilon"], p["delta"]
        alpha, tpr = self.solve(p)
        return [
            Part.near("alpha_star", alpha, "solve e^ε α + δ = 1 − e^(−ε)(1 − δ − α) for α", rtol=5e-4, mistakes=[
                Mistake.near(1 / (1 + math.exp(e)), "1/(1 + e^ε) drops δ: the bounds meet at (1 − δ)/(1 + e^ε)",
                             rtol=2e-4),
                Mistake.near((1 - d) * math.exp(-e), "there the first bound reaches 1; the second bound is lower "
                             "already: set the two bounds equal", rtol=2e-3),
                Mistake.near(1 - (1 - d) / (1 + math.exp(e)), "that is 1 − α*: check which side of the complement "
                             "you solved for", rtol=5e-4)]),
            Part.near("tpr_star", tpr, "the ceiling at α* is e^ε α* + δ (= max_tpr(α*, ε, δ))", rtol=5e-4,
                      mistakes=[
                          Mistake.near(math.exp(e) * alpha, "add δ: TPR ≤ e^ε α + δ", rtol=3e-4),
                          Mistake.near(1.0, "TPR = 1 is where the first bound alone ends; the second bound caps "
                                       "the TPR below 1 until α = 1 − δ", rtol=0, atol=1e-6)])]

    def exam(self):
        e, d = 1.0, 1e-3
        alpha = (1 - d) / (1 + math.exp(e))
        return [ExamQuestion("ch12-ceiling-corner", "A model is $(1, 10^{-3})$-DP. The two bounds "
                             "$e^\\varepsilon\\alpha + \\delta$ and $1 - e^{-\\varepsilon}(1 - \\delta - \\alpha)$ "
                             "on a membership attack's TPR at FPR α are equal at which α?", "choice",
                             answer=f"{alpha:.4f}", distractors=(f"{(1 - d) * math.exp(-e):.4f}", f"{1 - alpha:.4f}"),
                             feedback=("there the first bound reaches 1; the second one is already lower",
                                       "that is 1 − α*: the complement solved for the wrong side"))]


EXERCISES = [AttackCeiling(), ToyAuc(), TuningCost(), CanaryRuns(), CeilingDerivation()]
