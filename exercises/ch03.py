"""Exercises of Chapter 3, Composition (chapters/03_composition.ipynb).

Setup: math, np, pd, brentq, EDUCATION_LEVELS, MARITAL_STATUSES, SEXES, BudgetExceededError, PrivacyAccountant,
advanced_composition, laplace_mech, load_adult, make_rng, parallel_epsilon, sequential_epsilon, check;
adult = load_adult(); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math


from dp_lib import (MARITAL_STATUSES, SEXES, BudgetExceededError, PrivacyAccountant, advanced_composition,
                    load_adult, make_rng, parallel_epsilon, sequential_epsilon)
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from dp_lib import (EDUCATION_LEVELS, MARITAL_STATUSES, SEXES, BudgetExceededError, PrivacyAccountant,
                    advanced_composition, laplace_mech, load_adult, make_rng, parallel_epsilon, sequential_epsilon)
from dp_lib.selfcheck import check

adult = load_adult()
"""


@functools.lru_cache(maxsize=1)
def _adult():
    return load_adult()


def _exactly(label, value, hint, mistakes=()):
    """A number that has one right value (up to float noise)."""
    return Part.near(label, value, hint, rtol=0, atol=1e-6, mistakes=mistakes)


class Neighbours(Exercise):
    chapter, key, label, title = "03", "ex1", "ch03-ex1", "Three releases under two neighbouring relations"
    randomness = "none"
    points, kind, exercise_type = 2.0, "auto", "computation"
    default = {"education": 0.5, "sex": 0.3, "count": 0.2}
    shape, shape_hint = 2, "answer_ex1 must be a pair (add/remove, replace-one)"
    missing = "set answer_ex1 to the pair (total ε under add/remove, total ε under replace-one)"

    def params(self, rng):
        return {"education": float(rng.choice([0.25, 0.5, 1.0])), "sex": float(rng.choice([0.2, 0.3, 0.4])),
                "count": float(rng.choice([0.1, 0.2, 0.5]))}

    def statement(self, p):
        a, b, c = p["education"], p["sex"], p["count"]
        return (f"On the Adult data you release (a) the `Education` histogram with $\\mathrm{{Lap}}(1/{a:g})$ noise in "
                f"each bin, (b) the histogram of `Sex` with $\\mathrm{{Lap}}(1/{b:g})$ noise in each bin, and (c) the "
                f"number of people older than 40 with $\\mathrm{{Lap}}(1/{c:g})$ noise. Set `answer_ex1` to the pair "
                "(total ε under add/remove neighbours, total ε under replace-one neighbours).")

    def solve(self, p):
        a, b, c = p["education"], p["sex"], p["count"]
        add_remove = sequential_epsilon([parallel_epsilon([a] * 16), parallel_epsilon([b] * 2), c])
        return (add_remove, sequential_epsilon([2 * a, 2 * b, c]))

    def parts(self, p):
        a, b, c = p["education"], p["sex"], p["count"]
        add_remove, replace_one = self.solve(p)
        near = functools.partial(Part.near, rtol=0, atol=0.005)
        return [near("add/remove", add_remove, "add/remove: a histogram costs its ε once (parallel); the releases "
                     "add up", mistakes=[Mistake.near(replace_one, "that is the replace-one total: is the pair in "
                                                      "the order (add/remove, replace-one)?", rtol=0, atol=0.005),
                                         Mistake.near(16 * a + 2 * b + c, "a histogram costs its ε once (parallel "
                                                      "composition over its disjoint bins), not once per bin",
                                                      rtol=0, atol=0.005)]),
                near("replace-one", replace_one, "replace-one: a histogram has L1 sensitivity 2, a single count "
                     "still 1", mistakes=[Mistake.near(add_remove, "that is the add/remove total; under replace-one "
                                                       "moving a person between bins changes two counts, so each "
                                                       "histogram costs twice its ε", rtol=0, atol=0.005),
                                          Mistake.near(2 * (a + b + c), "replace-one doubles the histograms only: a "
                                                       "single count still has sensitivity 1", rtol=0,
                                                       atol=0.005)])]

    def exam(self):
        p = {"education": 1.0, "sex": 0.5, "count": 0.25}
        add_remove, replace_one = self.solve(p)
        return [ExamQuestion(
            "ch03-replace-one", "You release a histogram of 16 education levels with $\\mathrm{Lap}(1/1)$ noise "
            "per bin, a histogram of sex with $\\mathrm{Lap}(1/0.5)$ per bin and one count with "
            "$\\mathrm{Lap}(1/0.25)$. What is the total ε under replace-one neighbours?", "choice",
            answer=f"{replace_one:g}", distractors=(f"{add_remove:g}", f"{2 * (1 + 0.5 + 0.25):g}",
                                                   f"{16 * 1 + 2 * 0.5 + 0.25:g}"),
            feedback=("that is the add/remove total: replacing a person moves two counts of a histogram",
                      "a single count still has sensitivity 1 under replace-one",
                      "a histogram costs its ε once (parallel composition), not once per bin"))]


class BreakEven(Exercise):
    chapter, key, label, title = "03", "ex2", "ch03-ex2", "When advanced composition wins"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    default = {"epsilon": 0.05, "delta_prime": 1e-6}
    missing = "set answer_ex2 to the smallest k"
    prompt = ("Derive from the advanced composition bound the condition on k under which it beats kε, and the "
              "break-even k.")
    rubric = (
        RubricItem("the inequality", 1,
                   "writes ε√(2k ln(1/δ')) + kε(e^ε − 1) < kε and divides by kε: √(2 ln(1/δ')/k) + e^ε − 1 < 1",
                   "writes the bound but simplifies it with a slip",
                   "compares the wrong quantities (e.g. δ' against δ)"),
        RubricItem("solving for k", 1,
                   "k > 2 ln(1/δ')/(2 − e^ε)², and the answer is the next whole number above the break-even point "
                   "(checked with advanced_composition)",
                   "right break-even point, rounded down or not turned into a whole k",
                   "no solution for k"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.01, 0.05, 0.1, 0.2])),
                "delta_prime": float(rng.choice([1e-5, 1e-6, 1e-7]))}

    def break_even(self, p):
        return 2 * math.log(1 / p["delta_prime"]) / (2 - math.exp(p["epsilon"])) ** 2

    def statement(self, p):
        exponent = round(math.log10(p["delta_prime"]))
        return (f"Each of $k$ queries is answered with $\\varepsilon = {p['epsilon']:g}$ (pure DP), and you accept "
                f"$\\delta' = 10^{{{exponent}}}$. Find the smallest $k$ for which advanced composition gives a "
                "smaller total ε than $k\\varepsilon$, and set `answer_ex2` to it. Check it with "
                "`advanced_composition`.")

    def solve(self, p):
        eps, dp = p["epsilon"], p["delta_prime"]
        return next(k for k in range(1, 100_000) if advanced_composition(eps, 0, k, dp)[0] < eps * k)

    def parts(self, p):
        k, be = self.solve(p), self.break_even(p)
        mistakes = []
        if math.floor(be) != k:
            mistakes.append(Mistake(f"{be:.1f} is the break-even point of the formula; round it up, not down",
                                    math.floor(be), math.floor(be)))
        if abs(be - round(be)) > 0.01:
            mistakes.append(Mistake.near(be, f"{be:.1f} is the break-even point; k is a whole number: the next one "
                                         "above it", rtol=0, atol=0.005))
        whole = "answer_ex2 must be a whole number k >= 1"
        mistakes += [Mistake(whole, k - 1 + 1e-9, k - 1e-9), Mistake(whole, k + 1e-9, k + 1 - 1e-9),
                     Mistake("at this k advanced does not win yet", -1e12, k - 1e-9),
                     Mistake("advanced composition already wins at a smaller k", k + 1e-9, 1e12)]
        return [_exactly("k", k, "answer_ex2 must be a whole number k >= 1", mistakes)]

    def exam(self):
        p = {"epsilon": 0.1, "delta_prime": 1e-5}
        return [ExamQuestion("ch03-break-even", "Each of $k$ queries is $0.1$-DP and you accept "
                             "$\\delta' = 10^{-5}$. From which $k$ on does advanced composition give a smaller "
                             "total ε than $k\\varepsilon$? (The smallest such whole $k$.)", "numeric",
                             answer=self.solve(p), tolerance=0)]


FAMILIES = {
    # key: (kind, description, how the bins are computed, the text of a person in two bins)
    "status": ("partition", "the seven values of `Marital Status`",
               lambda a: [a["Marital Status"] == s for s in MARITAL_STATUSES], ""),
    "sex": ("partition", "the two values of `Sex`", lambda a: [a["Sex"] == s for s in SEXES], ""),
    "age-bands": ("partition", "the age bands 17 to 29, 30 to 49, and 50 and over",
                  lambda a: [a["Age"] < 30, (a["Age"] >= 30) & (a["Age"] < 50), a["Age"] >= 50], ""),
    "age-income": ("overlap", "\"age at most 40\" and \"income `>50K`\"",
                   lambda a: [a["Age"] <= 40, a["Target"] == ">50K"], "a person aged at most 40 who earns >50K"),
    "female-divorced": ("overlap", "\"`Sex` is `Female`\" and \"`Marital Status` is `Divorced`\"",
                        lambda a: [a["Sex"] == "Female", a["Marital Status"] == "Divorced"], "a divorced woman"),
    "age-30-50": ("overlap", "\"age at most 30\" and \"age at most 50\"",
                  lambda a: [a["Age"] <= 30, a["Age"] <= 50], "a person aged at most 30"),
    "married": ("gaps", "\"married\" (any `Married-*` value), `Never-married` and `Divorced`",
                lambda a: [a["Marital Status"].str.startswith("Married"), a["Marital Status"] == "Never-married",
                           a["Marital Status"] == "Divorced"], ""),
    "degrees": ("gaps", "the `Education` values `Bachelors`, `Masters` and `Doctorate`",
                lambda a: [a["Education"] == e for e in ("Bachelors", "Masters", "Doctorate")], ""),
    "young-old": ("gaps", "\"age at most 25\" and \"age over 60\"", lambda a: [a["Age"] <= 25, a["Age"] > 60], ""),
}


class WhichBins(Exercise):
    chapter, key, label, title = "03", "ex3", "ch03-ex3", "Which bins compose in parallel"
    randomness = "none"
    points, kind, exercise_type = 3.0, "auto", "computation"
    default = {"families": ["status", "age-income", "married"]}
    shape, shape_hint = 3, "answer_ex3 must be three costs in units of ε: (a), (b), (c)"
    missing = "set answer_ex3 to the three costs in units of ε, for (a), (b) and (c)"

    def params(self, rng):
        chosen = [str(rng.choice([k for k, f in FAMILIES.items() if f[0] == kind]))
                  for kind in ("partition", "overlap", "gaps")]
        return {"families": [chosen[i] for i in rng.permutation(3)]}

    def statement(self, p):
        items = "; ".join(f"({x}) {FAMILIES[k][1]}" for x, k in zip("abc", p["families"]))
        return ("Which of these families of bins lets you release one $\\mathrm{Lap}(1/\\varepsilon)$ count per bin "
                f"for a total of $\\varepsilon$ (add/remove neighbours)? {items}. For each, count with pandas how many "
                "people fall into two bins and how many into none, and state the cost. Set `answer_ex3` to the three "
                "costs in units of ε, for (a), (b) and (c).")

    def solve(self, p):
        adult = _adult()
        costs = []
        for key in p["families"]:
            bins = FAMILIES[key][2](adult)
            # add/remove: one person changes as many counts as bins they are in; dropped parts are post-processing
            costs.append(max(1, int(sum(b.astype(int) for b in bins).max())))
        return tuple(costs)

    def parts(self, p):
        parts = []
        for x, key, cost in zip("abc", p["families"], self.solve(p)):
            kind, description, _, example = FAMILIES[key]
            if kind == "partition":
                parts.append(_exactly(f"({x})", cost, f"({x}) {description} partition the data: parallel "
                                      "composition, cost ε"))
            elif kind == "overlap":
                parts.append(_exactly(f"({x})", cost, f"({x}) a person in both bins changes two counts: sequential "
                                      "composition, 2ε",
                                      [Mistake.near(1, f"({x}) overlaps: {example} is in both bins", rtol=0,
                                                    atol=1e-6)]))
            else:
                parts.append(_exactly(f"({x})", cost, f"({x}) gaps are free: add an unreleased part 'everything "
                                      "else'; dropping parts is post-processing"))
        return parts

    def exam(self):
        return [ExamQuestion(
            "ch03-overlap", "You release one $\\mathrm{Lap}(1/\\varepsilon)$ count for each of the bins \"age at "
            "most 40\" and \"income >50K\" (add/remove neighbours). What does the release cost?", "choice",
            answer="2ε", distractors=("ε", "ε/2", "4ε"),
            feedback=("parallel composition needs disjoint bins; a young high earner is in both",
                      "overlap never makes a release cheaper",
                      "one person changes at most two counts, by 1 each"))]


class AccountantRepeats(Exercise):
    chapter, key, label, title = "03", "ex4", "ch03-ex4", "Repeating a query under a budget"
    randomness = "none"  # the count and the formula's std: the draws do not enter the answer
    points, kind, exercise_type = 2.0, "auto", "computation"
    default = {"budget": 1.0, "epsilon": 0.1}
    shape, shape_hint = 2, "answer_ex4 must be a pair (answers, std of their mean)"
    missing = "set answer_ex4 to the pair (number of answers, standard deviation of their mean)"

    def params(self, rng):
        return {"budget": float(rng.choice([1.0, 2.0])), "epsilon": float(rng.choice([0.1, 0.2, 0.25, 0.3]))}

    def statement(self, p):
        return (f"An analyst with a `PrivacyAccountant` budget of $\\varepsilon = {p['budget']:g}$ asks for the "
                f"number of people older than 40 again and again at $\\varepsilon = {p['epsilon']:g}$ per answer, "
                "until the accountant refuses. How many answers does she get? What is the standard deviation of "
                f"their mean, compared with a single answer at $\\varepsilon = {p['budget']:g}$? Set `answer_ex4` to "
                "the pair (number of answers, standard deviation of their mean).")

    def setup_code(self, p):
        return 'true_answer = int((adult["Age"] > 40).sum())   # the number of people older than 40\n'

    def solve(self, p):
        acct, answers = PrivacyAccountant(p["budget"]), []
        true_answer, rng = int((_adult()["Age"] > 40).sum()), make_rng(2024)
        while True:
            try:
                answers.append(acct.laplace_mech(true_answer, 1, p["epsilon"], rng=rng))
            except BudgetExceededError:
                break
        return (len(answers), math.sqrt(2) / p["epsilon"] / math.sqrt(len(answers)))

    def parts(self, p):
        n, std = self.solve(p)
        eps, budget = p["epsilon"], p["budget"]
        one = math.sqrt(2) / eps
        return [Part.between("answers", n, n, f"a budget of {budget:g} holds exactly {n} charges of {eps:g}",
                             mistakes=[Mistake(f"math.fsum of {n} charges of {eps:g} fits the budget (up to a "
                                               f"relative 1e-9): the charge number {n} is accepted", n - 1, n - 1),
                                       Mistake(f"the charge number {n + 1} would exceed the budget of {budget:g}: "
                                               "it is refused", n + 1, n + 1)]),
                Part.near("std of the mean", std, f"each answer has std √2/{eps:g}; the mean of {n} has "
                          f"√2/{eps:g}/√{n}", rtol=0.05,
                          mistakes=[Mistake.near(one, "that is the std of one answer, not of their mean", rtol=0.05),
                                    Mistake.near(one / n, f"averaging {n} answers divides the std by √{n}, not by "
                                                 f"{n}", rtol=0.05)])]

    def exam(self):
        return [ExamQuestion(
            "ch03-repeat", "Under a budget of $\\varepsilon = 1$, is it more accurate to ask a count once at "
            "$\\varepsilon = 1$ or ten times at $\\varepsilon = 0.1$ and average?", "choice",
            answer="once at ε = 1: the mean of ten has std √20 ≈ 4.47, against √2 ≈ 1.41",
            distractors=("ten times: averaging divides the noise by 10",
                         "it is the same: both spend ε = 1",
                         "ten times: averaging divides the std by √10, below one answer's"),
            feedback=("averaging n answers divides the std by √n, not n, and each answer is 10 times noisier",
                      "the same budget, but the std of the mean is √10 times larger",
                      "each answer at ε = 0.1 has std √2/0.1, ten times larger; dividing by √10 leaves it √10 "
                      "times worse"))]


class BandsBug(Exercise):
    chapter, key, label, title = "03", "ex5", "ch03-ex5", "A parallel-composition claim to audit"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "find-the-bug"
    default = {"bands": 5, "statistics": 2, "epsilon": 0.5}
    missing = "set answer_ex5 to the total ε the release really has"
    prompt = "Where is the flaw in the colleague's argument, and how would you fix the release?"
    rubric = (
        RubricItem("the flaw", 1,
                   "parallel composition covers the disjoint bands, but within a band the statistics are computed "
                   "on the same people: they compose sequentially (their ε add up), and the bands then take the "
                   "maximum",
                   "says the claim is wrong without locating where parallel composition stops applying",
                   "accepts the claim, or adds up over the bands too"),
        RubricItem("the fix", 1,
                   "splits the budget inside each band (each statistic at ε divided by the number of statistics) "
                   "or reports the true total; notes the sum's sensitivity needs clipped values",
                   "gives a fix that is correct but wasteful (e.g. ε divided by all statistics of all bands)",
                   "no fix, or a fix that keeps the wrong total"),
    )
    STATS = {2: "a noisy count of people and a noisy sum of their (clipped) hours per week",
             3: "a noisy count of people, a noisy sum of their (clipped) hours per week and a noisy sum of their "
                "(clipped) ages"}

    def params(self, rng):
        return {"bands": int(rng.choice([4, 5, 6])), "statistics": int(rng.choice([2, 3])),
                "epsilon": float(rng.choice([0.25, 0.5, 1.0]))}

    def statement(self, p):
        return (f"A colleague splits the Adult data into {p['bands']} disjoint age bands and releases, for each "
                f"band, {self.STATS[p['statistics']]}, each with Laplace noise calibrated to ε = {p['epsilon']:g}. "
                f"They report a total of ε = {p['epsilon']:g}: \"the bands are disjoint, so parallel composition "
                "applies\". Find the flaw: what total ε (add/remove neighbours) does the release really have? Set "
                "`answer_ex5` to it.")

    def solve(self, p):
        per_band = sequential_epsilon([p["epsilon"]] * p["statistics"])   # same people: the statistics add up
        return parallel_epsilon([per_band] * p["bands"])                     # disjoint bands: the largest

    def parts(self, p):
        eps, k, s = p["epsilon"], p["bands"], p["statistics"]
        right = self.solve(p)
        candidates = [(eps, "that is the colleague's claim: within a band the statistics are about the same people, "
                       "so their ε add up"),
                      (k * s * eps, "the bands are disjoint: one person is in one band only, so the bands do not add "
                       "up"),
                      (k * eps, "the bands take the maximum (parallel); it is the statistics within one band that "
                       "add up")]
        return [Part.near("epsilon", right, "sequential composition within a band (same people), parallel across "
                          "the disjoint bands", rtol=0, atol=0.005,
                          mistakes=[Mistake.near(v, h, rtol=0, atol=0.005) for v, h in candidates
                                    if abs(v - right) > 0.011])]

    def exam(self):
        p = {"bands": 4, "statistics": 3, "epsilon": 0.2}
        total = self.solve(p)
        return [ExamQuestion(
            "ch03-bands", "For each of 4 disjoint age bands you release a count, a sum and a sum of squares, each "
            "with noise calibrated to $\\varepsilon = 0.2$. What is the total ε (add/remove neighbours)?", "choice",
            answer=f"{total:g}", distractors=("0.2", f"{4 * 3 * 0.2:g}", f"{4 * 0.2:g}"),
            feedback=("parallel composition applies across bands, not across statistics of the same people",
                      "the bands are disjoint: they do not add up",
                      "it is the statistics within a band that add up, not the bands"))]


EXERCISES = [Neighbours(), BreakEven(), WhichBins(), AccountantRepeats(), BandsBug()]
