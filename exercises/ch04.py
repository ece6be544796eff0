"""Exercises of Chapter 4, The exponential mechanism (chapters/04_exponential_mechanism.ipynb).

Setup: math, np, pd, brentq, MARITAL_STATUSES, exponential_probabilities, load_adult, make_rng, noisy_max_scale,
permute_and_flip_probabilities, report_noisy_max, check; adult = load_adult(); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import brentq

from dp_lib import (MARITAL_STATUSES, exponential_probabilities, load_adult, noisy_max_scale,
                    permute_and_flip_probabilities)
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from dp_lib import (MARITAL_STATUSES, exponential_probabilities, load_adult, make_rng, noisy_max_scale,
                    permute_and_flip_probabilities, report_noisy_max)
from dp_lib.selfcheck import check

adult = load_adult()
"""


@functools.lru_cache(maxsize=1)
def _adult():
    return load_adult()


def _distinct(value: float, right: float, width: float) -> bool:
    """A mistake is named only when it is told apart from the right interval."""
    return abs(value - right) > 2 * width


class NoisyMaxScale(Exercise):
    chapter, key, label, title = "04", "ex1", "ch04-ex1", "The noisy-max scale for a neighbouring relation"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    default = {"categories": 12, "relation": "replace-one", "epsilon": 0.5}
    missing = "set answer_ex1 to a number: the Laplace scale"
    prompt = "Derive the scale: how does one person's change move the counts, and are the scores monotone?"
    rubric = (
        RubricItem("how the counts move", 1,
                   "replace-one: one count goes down by 1 and another up by 1 (Δ = 1 per count, opposite "
                   "directions); add/remove: one count moves by 1, all changes in one direction",
                   "right sensitivity Δ = 1 without the directions",
                   "Δ = 2 per count, or no analysis of the neighbours"),
        RubricItem("monotone or not", 1,
                   "concludes: opposite directions are not monotone, so the general scale 2Δ/ε applies (the "
                   "monotone Δ/ε would only give 2ε-DP); one direction is monotone, so Δ/ε suffices",
                   "right scale with no reason for the factor 2 (or its absence)",
                   "wrong scale"),
    )

    def params(self, rng):
        return {"categories": int(rng.choice([5, 12, 20])), "relation": str(rng.choice(["replace-one",
                                                                                          "add/remove"])),
                "epsilon": float(rng.choice([0.25, 0.5, 1.0, 2.0]))}

    def statement(self, p):
        change = ("**one person's answer is changed** (replace-one)" if p["relation"] == "replace-one" else
                  "**one person is added or removed** (add/remove)")
        return (f"A survey stores one answer per person among {p['categories']} categories. Two data sets are "
                f"neighbours when {change}. You run report noisy max with Laplace noise on the {p['categories']} "
                f"counts and want ε = {p['epsilon']:g}. Set `answer_ex1` to the Laplace scale you need.")

    def solve(self, p):
        return noisy_max_scale(1.0, p["epsilon"], monotone=p["relation"] == "add/remove")

    def parts(self, p):
        eps = p["epsilon"]
        if p["relation"] == "replace-one":
            mistakes = [Mistake.near(1 / eps, f"Δ/ε = {1 / eps:g} assumes monotone scores, but replace-one moves two "
                                     "counts in opposite directions"),
                        Mistake.near(4 / eps, "each count changes by at most 1, so Δ = 1 (the factor 2 enters only "
                                     "once)")]
            hint = "the general noisy-max scale is 2Δ/ε"
        else:
            mistakes = [Mistake.near(2 / eps, f"2Δ/ε = {2 / eps:g} is private but noisier than needed: adding or "
                                     "removing a person moves one count in one direction, so the scores are "
                                     "monotone and Δ/ε suffices"),
                        Mistake.near(eps, "the scale is Δ/ε, not ε/Δ")] if eps != 1.0 else [
                        Mistake.near(2 / eps, "2Δ/ε is private but noisier than needed: the scores are monotone, "
                                     "so Δ/ε suffices")]
            hint = "with monotone scores the noisy-max scale is Δ/ε"
        return [Part.near("scale", self.solve(p), hint, rtol=1e-3, atol=0.005, mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion(
            "ch04-rnm-scale", "Report noisy max with Laplace noise runs on 8 counts; neighbours differ in **one "
            "person's answer** (replace-one). Which scale gives $\\varepsilon = 1$?", "choice",
            answer="2", distractors=("1", "4", "0.5"),
            feedback=("Δ/ε assumes monotone scores; replace-one moves two counts in opposite directions",
                      "each count has Δ = 1: the factor 2 enters once", "that is ε/(2Δ), the inverse"))]


class MonotonePromise(Exercise):
    chapter, key, label, title = "04", "ex2", "ch04-ex2", "Breaking the monotone promise"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "find-the-bug"
    default = {"epsilon": 1.0}
    missing = "set answer_ex2 to a number: the limit of the misused version's privacy loss"
    prompt = "Why does `monotone=True` on these scores break the guarantee, and what does the flag promise?"
    rubric = (
        RubricItem("the mechanism of the failure", 1,
                   "the monotone weights exp(εu/Δ) are twice as sharp; on non-monotone neighbours one score rises "
                   "while the others fall, so the first candidate's probability rises from 1/|R| to "
                   "e^ε/(e^ε + (|R| − 1)e^−ε), a ratio approaching e^{2ε}",
                   "says the loss doubles without the reason (opposite moves of the scores)",
                   "no explanation"),
        RubricItem("what the flag promises", 1,
                   "the flag is a promise about the neighbouring relation (all scores move in one direction); the "
                   "code cannot check it, so it must come from the analysis, not the data",
                   "says the flag is 'wrong here' without saying what it promises",
                   "treats the flag as a tuning knob"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0]))}

    def statement(self, p):
        return ("The `monotone=True` flag is a promise. Break it on purpose: take the neighbouring score vectors "
                "$u(x) = (0, 0, \\dots, 0)$ and $u(x') = (1, -1, \\dots, -1)$ with $|R|$ candidates and Δ = 1, "
                "which are *not* monotone. Compute the exact privacy loss "
                "$\\max_r \\lvert\\ln \\Pr[M(x) = r] - \\ln \\Pr[M(x') = r]\\rvert$ of the exponential mechanism at "
                f"ε = {p['epsilon']:g}, once with `monotone=False` and once with `monotone=True`, for "
                "$|R| = 2, 20, 1000$. What value does the misused version's loss approach as $|R|$ grows? Set "
                "`answer_ex2` to it (a number).")

    def loss(self, p, k, monotone=True):
        u0, u1 = np.zeros(k), np.r_[1.0, -np.ones(k - 1)]
        p0 = exponential_probabilities(u0, 1.0, p["epsilon"], monotone=monotone)
        p1 = exponential_probabilities(u1, 1.0, p["epsilon"], monotone=monotone)
        return float(np.abs(np.log(p0) - np.log(p1)).max())

    def solve(self, p):
        return 2 * p["epsilon"]

    def parts(self, p):
        eps = p["epsilon"]
        # the limit is 2ε; a student who reads off |R| = 1000 is close, and is accepted (1.994 at ε = 1)
        tol = max(0.015 * eps, 1.2 * (2 * eps - self.loss(p, 1000)))
        return [Part.near("limit", 2 * eps, "compute the loss for growing |R| with monotone=True: it tends to a "
                          "multiple of ε", rtol=0, atol=tol,
                          mistakes=[Mistake.near(math.exp(2 * eps), f"e^{{2ε}} ≈ {math.exp(2 * eps):.2f} is the "
                                                 "limit of the probability RATIO; the privacy loss is its logarithm",
                                                 rtol=0.05),
                                    Mistake.near(eps, f"ε = {eps:g} bounds the correct weights (monotone=False); the "
                                                 "question asks about monotone=True on non-monotone scores",
                                                 rtol=0, atol=0.05 * eps)])]

    def exam(self):
        return [ExamQuestion(
            "ch04-monotone-misuse", "The exponential mechanism is run with the monotone calibration "
            "$\\exp(\\varepsilon u/\\Delta)$ on scores that are **not** monotone. What privacy loss can it reach "
            "(many candidates)?", "choice", answer="2ε",
            distractors=("ε", "e^{2ε}", "ε/2"),
            feedback=("ε holds only for the general weights exp(εu/2Δ), or when the promise holds",
                      "e^{2ε} is the probability ratio; the loss is its logarithm",
                      "the monotone weights are sharper, not flatter"))]


DAYS = {"a": ((9.0, 8.0, 8.0, 5.0, 2.0), 12), "b": ((10.0, 9.0, 7.0, 7.0, 3.0), 12), "c": ((8.0, 8.0, 6.0, 4.0, 1.0), 12)}


class MeetingDay(Exercise):
    chapter, key, label, title = "04", "ex3", "ch04-ex3", "Choosing a meeting day privately"
    randomness = "none"  # the exact value for permute-and-flip (the simulation is for report noisy max)
    points, kind, exercise_type = 2.0, "auto", "computation"
    default = {"days": "a", "epsilon": 0.5}
    missing = "set answer_ex3 to 12 - E[u] for permute-and-flip"

    def params(self, rng):
        return {"days": str(rng.choice(list(DAYS))), "epsilon": float(rng.choice([0.25, 0.5, 1.0]))}

    def statement(self, p):
        available, n = DAYS[p["days"]]
        counts = ", ".join(f"{int(a)}" for a in available)
        return (f"{'Twelve' if n == 12 else n} colleagues mark the days they could attend a meeting; the numbers "
                f"available on Monday to Friday are $({counts})$. Adding or removing a colleague changes each day's "
                "count by at most one, and only upwards when someone is added: the scores are monotone with Δ = 1, "
                f"even though one person can change several scores at once. At ε = {p['epsilon']:g} (monotone "
                f"calibration), compute the exact expected number of colleagues who can *not* come on the chosen "
                f"day, i.e. ${n} - \\mathbb{{E}}[u]$, for the exponential mechanism and for permute-and-flip, and "
                "estimate it for report noisy max with Laplace noise from 100,000 draws. Set `answer_ex3` to the "
                "exact value for permute-and-flip.")

    def _left_out(self, p, probabilities, monotone=True):
        available, n = DAYS[p["days"]]
        u = np.array(available)
        return float(n - probabilities(u, 1.0, p["epsilon"], monotone=monotone) @ u)

    def solve(self, p):
        return self._left_out(p, permute_and_flip_probabilities)

    def parts(self, p):
        n = DAYS[p["days"]][1]
        right, atol = self.solve(p), 5e-3
        candidates = [(n - right, f"that is E[u], the expected number who CAN come; the question asks for {n} - E[u]"),
                      (self._left_out(p, permute_and_flip_probabilities, monotone=False),
                       "the scores are monotone: use the monotone calibration (monotone=True)"),
                      (self._left_out(p, exponential_probabilities),
                       "that is the exponential mechanism; the question asks for permute-and-flip")]
        mistakes = [Mistake.near(v, h, rtol=0, atol=atol) for v, h in candidates if _distinct(v, right, atol)]
        return [Part.near("left out", right, f"compute {n} - sum_r Pr[r] * u_r with permute_and_flip_probabilities",
                          rtol=0, atol=atol, mistakes=mistakes)]

    def exam(self):
        p = {"days": "b", "epsilon": 0.5}
        pf = self.solve(p)
        return [ExamQuestion("ch04-pf-utility", "Day counts $(10, 9, 7, 7, 3)$ of 12 colleagues, monotone scores "
                             "with $\\Delta = 1$, $\\varepsilon = 0.5$. What is the exact expected number of "
                             "colleagues left out ($12 - \\mathbb{E}[u]$) under permute-and-flip? Three decimals.",
                             "numeric", answer=round(pf, 3), tolerance=0.002),
                ExamQuestion("ch04-em-vs-pf", "Day counts $(10, 9, 7, 7, 3)$, monotone scores, $\\varepsilon = 0.5$: "
                             "which mechanism leaves out fewer colleagues on average?",
                             "choice", answer="permute-and-flip",
                             distractors=("the exponential mechanism", "they are equal: both are ε-DP"),
                             feedback=("permute-and-flip never does worse than the exponential mechanism in "
                                       "expected utility", "the same ε does not mean the same utility"))]


COLUMNS = {"Marital Status": "Married-civ-spouse", "Relationship": "Husband", "Education": "HS-grad"}


class EpsilonFor99(Exercise):
    chapter, key, label, title = "04", "ex4", "ch04-ex4", "How much ε permute-and-flip saves"
    randomness = "none"
    points, kind, exercise_type = 2.0, "auto", "computation"
    default = {"column": "Marital Status", "probability": 0.99}
    missing = "set answer_ex4 to the factor ε_EM / ε_PF (a number)"

    def params(self, rng):
        return {"column": str(rng.choice(list(COLUMNS))), "probability": float(rng.choice([0.9, 0.95, 0.99]))}

    def statement(self, p):
        q, col = p["probability"], p["column"]
        return (f"On the `{col}` counts with the monotone calibration, find the smallest ε at which the "
                f"exponential mechanism returns {COLUMNS[col]} with probability at least {q:g}, and the same for "
                "permute-and-flip (hint: the probability grows with ε, so `scipy.optimize.brentq` can find the "
                "crossing). By what factor does permute-and-flip reduce the ε needed? Set `answer_ex4` to the "
                "factor $\\varepsilon_{\\text{EM}} / \\varepsilon_{\\text{PF}}$ (two decimals).")

    def setup_code(self, p):
        if p["column"] == "Marital Status":
            return ("# the public candidates (the census codebook), listed largest count first\n"
                    'counts = adult["Marital Status"].value_counts().reindex(MARITAL_STATUSES, fill_value=0)'
                    ".sort_values(ascending=False)\n"
                    "candidates, scores = list(counts.index), counts.to_numpy(dtype=float)\n")
        return (f'counts = adult["{p["column"]}"].value_counts()   # the candidates, largest count first\n'
                "candidates, scores = list(counts.index), counts.to_numpy(dtype=float)\n")

    def _scores(self, p):
        counts = _adult()[p["column"]].value_counts()
        if p["column"] == "Marital Status":
            counts = counts.reindex(MARITAL_STATUSES, fill_value=0).sort_values(ascending=False)
        return counts.to_numpy(dtype=float)

    def _epsilon(self, p, probabilities):
        scores = self._scores(p)
        return brentq(lambda e: probabilities(scores, 1.0, e, monotone=True)[scores.argmax()] - p["probability"],
                      1e-6, 1e-2)

    def solve(self, p):
        return self._epsilon(p, exponential_probabilities) / self._epsilon(p, permute_and_flip_probabilities)

    def parts(self, p):
        f, q = self.solve(p), p["probability"]
        approx = math.log(1 / (1 - q)) / math.log(1 / (2 * (1 - q)))
        mistakes = [Mistake.near(1 / f, "that is ε_PF / ε_EM: permute-and-flip needs the SMALLER ε, so the factor "
                                 "is above 1", rtol=0, atol=0.01),
                    Mistake.near(1 - 1 / f, "that is the relative saving 1 - ε_PF/ε_EM; the question asks for the "
                                 "factor ε_EM/ε_PF", rtol=0, atol=0.01)]
        label = f"ln {1 / (1 - q):.0f} / ln {1 / (2 * (1 - q)):.0f}"
        approx_hint = f"that is the approximation {label}; find the exact crossings with brentq and divide"
        lo, hi = f - 0.005, f + 0.005
        if _distinct(approx, f, 0.005):
            mistakes.append(Mistake.near(approx, approx_hint, rtol=0, atol=1e-3))
        else:
            # the approximation is close (1.1772 against 1.1738 at Marital Status, 99 %): the right interval
            # stops halfway, and the approximation and its rounding on that side are named
            mid = (f + approx) / 2
            if approx > f:
                hi = mid
                mistakes.append(Mistake(approx_hint, mid + 1e-9, approx + 0.0035))
            else:
                lo = mid
                mistakes.append(Mistake(approx_hint, approx - 0.0035, mid - 1e-9))
        rounded = round(approx, 2)
        if not lo - 1e-9 <= rounded <= hi + 1e-9:
            mistakes.append(Mistake(approx_hint, rounded - 1e-9, rounded + 1e-9))
        return [Part.between("factor", lo, hi, f"find each ε where Pr[{COLUMNS[p['column']]}] crosses {q:g} (exact "
                             "probabilities, brentq) and divide; give 2 decimals", mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion(
            "ch04-pf-factor", "When the winner leads the runner-up by $g$ people (a wide margin), permute-and-flip reaches a 99 % chance of "
            "returning it at a smaller ε than the exponential mechanism. Why?", "choice",
            answer="it only needs the runner-up's flip probability q₂/2 = e^{−gε}/2 below 0.01, the EM needs "
                   "e^{−gε} ≈ 0.01",
            distractors=("it adds less noise, so it is less private",
                         "it uses the general scale 2Δ/ε", "it is not: both need the same ε"),
            feedback=("both are ε-DP: the gain is free",
                      "both use the monotone calibration here",
                      "exact probabilities show a factor of about 1.17 at 99 %"))]


EXERCISES = [NoisyMaxScale(), MonotonePromise(), MeetingDay(), EpsilonFor99()]
