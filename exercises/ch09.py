"""Exercises of Chapter 9, Local DP (chapters/09_local_dp.ipynb).

Setup: numpy as np, pandas as pd, math, scipy.stats as stats; from dp_lib: OCCUPATIONS, debias_counts, krr_estimate,
krr_params, krr_perturb, krr_perturb_counts, krr_variance, laplace_mech, load_adult, make_rng, oue_params,
randomized_response, rr_epsilon, occupation_counts, rr_estimate_count, rr_variance, sue_params, unary_aggregate,
unary_encode, unary_epsilon, unary_perturb, unary_perturb_counts, unary_variance; from dp_lib.selfcheck: check;
adult = load_adult(); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math

from dp_lib import krr_variance, load_adult, oue_params, rr_variance, sue_params, unary_variance
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """import math

import numpy as np
import pandas as pd
from scipy import stats
from dp_lib import (OCCUPATIONS, debias_counts, krr_estimate, krr_params, krr_perturb, krr_perturb_counts,
                    krr_variance, laplace_mech, load_adult, make_rng, oue_params, randomized_response, rr_epsilon,
                    occupation_counts, rr_estimate_count, rr_variance, sue_params, unary_aggregate, unary_encode,
                    unary_epsilon, unary_perturb, unary_perturb_counts, unary_variance)
from dp_lib.selfcheck import check
adult = load_adult()
"""

_TRUTH = 'truth = (adult["Occupation"] == "Sales").to_numpy()\nn = truth.size\n'
_TINY = 1e-9  # keeps a mistake's closed interval off the right interval's end


@functools.lru_cache(maxsize=1)
def _facts() -> dict:
    adult = load_adult()
    truth = (adult["Occupation"] == "Sales").to_numpy()
    return {"n": int(truth.size), "sales": int(truth.sum()), "no_occupation": int(adult["Occupation"].isna().sum())}


def _eps_text(epsilon: float) -> str:
    """ε as the statement writes it: ln m for the ln of an integer, else a decimal."""
    m = round(math.exp(epsilon))
    return f"\\ln {m}" if abs(math.log(m) - epsilon) < 1e-12 else f"{epsilon:g}"


class TruthProbability(Exercise):
    chapter, key, label, title = "09", "ex1", "ch09-ex1", "The truth probability of randomized response"
    randomness = "none"  # p is a formula (the 500 simulated surveys are not in the answer)
    points = 2.0
    kind = "mixed"
    default = {"epsilon": 1.0}
    missing = "set answer_ex1 to the truth probability p"
    prompt = ("What is the standard deviation of the estimated Sales count on the Adult data? Confirm it with 500 "
              "simulated surveys.")
    rubric = (
        RubricItem("formula", 1.0, "sd = √(n p(1 − p))/(2p − 1) (or √rr_variance(n, p)), evaluated with the Adult n",
                   "the formula without the number, or a slip in it", "no standard deviation"),
        RubricItem("simulation", 1.0, "500 surveys with randomized_response and rr_estimate_count; their sample sd "
                   "agrees with the formula within a few percent (the sd of a 500-sample sd is about 3 %)",
                   "a simulation without comparing it with the formula", "no simulation"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 1.5, 2.0]))}

    def statement(self, p):
        return (f"A survey designer wants binary randomized response with $\\varepsilon = {p['epsilon']:g}$. Which "
                "truth probability $p$ gives it? Set `answer_ex1` to it (two decimals suffice). What is the standard deviation of the "
                "estimated Sales count on the Adult data (`truth`, `n`)? Confirm it with 500 simulated surveys.")

    def setup_code(self, p):
        return _TRUTH

    def solve(self, p):
        return math.exp(p["epsilon"]) / (1 + math.exp(p["epsilon"]))

    def parts(self, p):
        right, half = self.solve(p), math.exp(p["epsilon"] / 2)
        close = "close, but not right: give p = e^ε/(1 + e^ε) to at least two decimals"
        mistakes = [Mistake.near(1 - right, "that is 1 - p, the probability of lying", rtol=0.0, atol=5e-3),
                    Mistake.near(half / (half + 1), "that is the SUE bit probability e^(ε/2)/(e^(ε/2)+1); binary RR "
                                 "uses the whole ε: ln(p/(1-p)) = ε", rtol=0.0, atol=5e-3)]
        if abs(right - 0.75) > 3e-3:
            mistakes.append(Mistake.near(0.75, "p = 3/4 is the two fair coins, ε = ln 3 ≈ 1.10; here "
                                         f"ε = {p['epsilon']:g}", rtol=0.0, atol=1e-3))
        # ±0.005 accepts p rounded to two decimals (0.62 for 0.6225, 0.82 for 0.8176); no mistake lies within it
        mistakes += [Mistake(close, right - 0.04, right - 5e-3 - _TINY),
                     Mistake(close, right + 5e-3 + _TINY, right + 0.04)]
        return [Part.near("p", right, f"solve ln(p / (1 - p)) = {p['epsilon']:g} for p", rtol=0.0, atol=5e-3,
                          mistakes=mistakes)]

    def exam(self):
        eps = math.log(4)
        right = self.solve({"epsilon": eps})
        return [ExamQuestion("ch09-rr-p", "Binary randomized response tells the truth with probability $p$ and lies "
                             "otherwise. Which $p$ gives $\\varepsilon = \\ln 4$?", "choice", answer=f"{right:.2f}",
                             distractors=(f"{1 - right:.2f}", f"{2 / 3:.2f}", "0.75"),
                             feedback=("that is 1 − p, the probability of lying",
                                       "that is e^(ε/2)/(e^(ε/2) + 1), the SUE bit probability",
                                       "3/4 is the two fair coins, ε = ln 3")),
                ExamQuestion("ch09-rr-sd", "Randomized response with $p = 3/4$ surveys $n = 10{,}000$ people. What "
                             "is the standard deviation of the debiased count, $\\sqrt{n p(1-p)}/(2p-1)$? One "
                             "decimal.", "numeric", answer=round(math.sqrt(rr_variance(10_000, 0.75)), 1),
                             tolerance=0.1)]


class KrrVersusOue(Exercise):
    chapter, key, label, title = "09", "ex2", "ch09-ex2", "When k-RR beats OUE"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    exercise_type = "derivation"
    default = {"epsilon": 1.0}
    missing = "set answer_ex2 to an integer"
    prompt = "Show how you found it: the two count-free variances per respondent and the inequality between them."
    rubric = (
        RubricItem("variances", 1.0, "k-RR: (e^ε + k − 2)/(e^ε − 1)²; OUE: 4e^ε/(e^ε − 1)²",
                   "one of the two right", "neither"),
        RubricItem("inequality", 1.0, "e^ε + k − 2 < 4e^ε ⇔ k < 3e^ε + 2, so the largest k is the integer below "
                   "3e^ε + 2", "the threshold without the strict inequality's consequence (largest k)", "no inequality"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 1.5, 2.0]))}

    def statement(self, p):
        return (f"At $\\varepsilon = {p['epsilon']:g}$, what is the **largest** domain size $k$ for which k-RR has a "
                "smaller count-free variance than OUE? Set `answer_ex2` to that integer.")

    def solve(self, p):
        eps = p["epsilon"]
        return max(j for j in range(2, 1000) if krr_variance(1, j, eps) < unary_variance(1, *oue_params(eps)))

    def parts(self, p):
        right, threshold = self.solve(p), 3 * math.exp(p["epsilon"]) + 2
        return [Part.equal("k", right, "compare (e^eps + k - 2) with 4 e^eps: k-RR wins iff k < 3 e^eps + 2",
                           mistakes=[Mistake(f"k = {right + 1} is already past the threshold 3e^ε + 2 = "
                                             f"{threshold:.2f}", value=right + 1)])]

    def conditions(self, p):
        return [Condition(0, "", "give k as a whole number (an int, not a string)", lo=-1e12, hi=1e12)]

    def exam(self):
        return [ExamQuestion("ch09-krr-oue", "At $\\varepsilon = 2$, what is the largest domain size $k$ for which "
                             "k-RR has a smaller count-free variance than OUE?", "numeric",
                             answer=self.solve({"epsilon": 2.0}), tolerance=0.0)]


class LocalVersusCentralN(Exercise):
    chapter, key, label, title = "09", "ex3", "ch09-ex3", "How many respondents, local and central"
    randomness = "none"
    points = 2.0
    default = {"target": 0.001}
    shape, shape_hint = 2, "answer_ex3 must be a pair (n_local, n_central)"
    missing = "answer_ex3 must be a pair (n_local, n_central)"

    def params(self, rng):
        return {"target": float(rng.choice([0.0005, 0.001, 0.002, 0.005]))}

    def statement(self, p):
        f = _facts()
        points = f"{100 * p['target']:g}"
        return (f"About {f['sales'] / f['n']:.1%} of the respondents work in Sales. Using two-coin randomized "
                "response ($\\varepsilon = \\ln 3$), how many respondents $n$ are needed before the standard "
                f"deviation of the estimated **share** $\\hat c / n$ is at most {points} percentage points? How many "
                "would the central Laplace mechanism need at the same ε? Set `answer_ex3` to the pair "
                "`(n_local, n_central)`.")

    def solve(self, p):
        t = p["target"]
        return (math.ceil(0.75 / t ** 2), math.ceil(math.sqrt(2) / (math.log(3) * t)))

    def parts(self, p):
        t = p["target"]
        n_local, n_central = self.solve(p)
        # strict lower ends: n = 749,000 gives an sd above the target (3/(4t²) is a whole number at every drawn t,
        # so n_local − 0.5 only admits float noise; √2/(ε t) is not, and n_central − 1 is too small)
        exact_central = math.sqrt(2) / (math.log(3) * t)
        return [Part.between("n_local", n_local - 0.5, 1.01 * n_local, f"the share's variance is 3/(4n): the "
                             f"smallest whole n with sqrt(3/(4n)) <= {t:g}", mistakes=[Mistake.near(0.75 / t, f"the standard deviation is at most {t:g}, so "
                                                            f"its SQUARE is at most {t * t:g}", rtol=0.01)]),
                Part.between("n_central", exact_central * (1 + 1e-9), 1.01 * n_central, "centrally the share's std is "
                             "sqrt(2) / (ε n): the smallest whole n with it at most the target",
                             mistakes=[Mistake.near(1 / (math.log(3) * t), "the std of Lap(b) is sqrt(2) b, not b",
                                                    rtol=0.01),
                                       Mistake("round n up: a smaller whole n leaves the sd above the target",
                                               n_central - 1.5, exact_central * (1 + 1e-9) - _TINY)])]

    def exam(self):
        n_local, n_central = self.solve({"target": 0.002})
        return [ExamQuestion("ch09-n-local", "Two-coin randomized response ($p = 3/4$, $\\varepsilon = \\ln 3$) "
                             "estimates a share; its variance is $3/(4n)$ whatever the share. How many respondents "
                             "make its standard deviation at most 0.002?", "numeric", answer=n_local, tolerance=1.0),
                ExamQuestion("ch09-n-central", "The central Laplace mechanism releases a count at "
                             "$\\varepsilon = \\ln 3$; the share's standard deviation is $\\sqrt2/(\\varepsilon n)$. "
                             "How many people make it at most 0.002?", "choice", answer=f"{n_central:,}",
                             distractors=(f"{math.ceil(1 / (math.log(3) * 0.002)):,}", f"{n_local:,}"),
                             feedback=("uses b instead of √2·b for the standard deviation of Lap(b)",
                                       "that is the local protocol's n"))]


class UnknownCategory(Exercise):
    chapter, key, label, title = "09", "ex4", "ch09-ex4", "A 15th value for the missing occupations"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    exercise_type = "design"
    default = {"epsilon": math.log(9)}
    shape, shape_hint = 2, "answer_ex4 must be a pair (k-RR variance / n at k = 15, OUE variance / n)"
    missing = "answer_ex4 must be a pair (k-RR variance / n at k = 15, OUE variance / n)"
    prompt = ("How do the count-free variances of k-RR and OUE change? Is k-RR the better choice, with k = 14 and "
              "with k = 15? What does the OUE survey estimate for \"unknown\"?")
    rubric = (
        RubricItem("variances", 1.0, "OUE's variance per respondent does not depend on k (only n grows); k-RR's grows "
                   "by 1/(e^ε − 1)² with the one more wrong value", "one of the two", "neither"),
        RubricItem("choice", 1.0, "k-RR is better iff k < 3e^ε + 2, compared for k = 14 and k = 15; by the drawn "
                   "ε: ln 3 (3e^ε + 2 = 11): OUE for both; ln 5 (17), ln 9 (29), ln 19 (59): k-RR for both",
                   "the right choice without the threshold", "the wrong protocol"),
        RubricItem("survey and design", 1.0, "the OUE estimate for \"unknown\" is unbiased but noisy (sd from "
                   "n q(1−q)/(p−q)² + c(1−p−q)/(p−q)); and whether a person has an occupation on file is now a "
                   "reported value, covered by the same ε", "the estimate without judging it against its sd",
                   "no survey"),
    )

    def params(self, rng):
        return {"epsilon": math.log(float(rng.choice([3.0, 5.0, 9.0, 19.0])))}

    def statement(self, p):
        f = _facts()
        return (f"Instead of dropping the {f['no_occupation']:,} people without an occupation, give them a 15th "
                f"domain value `\"unknown\"` and survey all {f['n']:,} people at "
                f"$\\varepsilon = {_eps_text(p['epsilon'])}$ (`epsilon`). How do the count-free variances of k-RR and "
                "OUE change? Is k-RR the better choice, with $k = 14$ and with $k = 15$? Set `answer_ex4` to the pair of "
                "count-free variances per respondent (k-RR with $k = 15$, OUE). Run one OUE survey from the true "
                "counts of the 15 values (`counts15`, set up for you) and look at the estimate for `\"unknown\"`.")

    def setup_code(self, p):
        return (f"domain = list(OCCUPATIONS)\nepsilon = math.log({round(math.exp(p['epsilon']))})\n" + _TRUTH
                + 'counts15 = adult["Occupation"].fillna("unknown").value_counts().reindex(domain + ["unknown"])\n')

    def solve(self, p):
        eps = p["epsilon"]
        return (krr_variance(1, 15, eps), unary_variance(1, *oue_params(eps)))

    def parts(self, p):
        eps = p["epsilon"]
        krr, oue = self.solve(p)
        per_respondent = "give the variances per respondent (n = 1), not for all the respondents"
        return [Part.near("k-RR", krr, "k-RR's count-free variance / n is (e^ε + k - 2)/(e^ε - 1)^2", rtol=0.015,
                          mistakes=[Mistake(per_respondent, 1.0 if krr < 0.5 else 1000 * krr, 1e12),
                                    Mistake.near(krr_variance(1, 14, eps), "that is k-RR with k = 14: the value "
                                                 "\"unknown\" makes k = 15, one more wrong value to report",
                                                 rtol=0.01)]),
                Part.near("OUE", oue, "OUE's count-free variance / n is 4 e^ε/(e^ε - 1)^2, whatever k", rtol=0.01,
                          mistakes=[Mistake(per_respondent, 1.0 if oue < 0.5 else 1000 * oue, 1e12),
                                    Mistake.near(unary_variance(1, *sue_params(eps)), "that is SUE's variance; OUE "
                                                 "has p = 1/2 and q = 1/(e^ε + 1)", rtol=0.01)])]

    def exam(self):
        eps = math.log(3)
        krr, oue = self.solve({"epsilon": eps})
        return [ExamQuestion("ch09-unknown", "A survey of 15 occupations runs at $\\varepsilon = \\ln 3$. Which "
                             "protocol has the smaller count-free variance per respondent?", "choice",
                             answer=f"OUE ({oue:.2f} against {krr:.2f} for k-RR)",
                             distractors=(f"k-RR ({krr:.2f} against {oue:.2f} for OUE)",
                                          f"SUE ({unary_variance(1, *sue_params(eps)):.2f})"),
                             feedback=("k-RR wins only for k < 3e^ε + 2 = 11",
                                       "SUE's count-free variance is never below OUE's"))]


EXERCISES = [TruthProbability(), KrrVersusOue(), LocalVersusCentralN(), UnknownCategory()]
