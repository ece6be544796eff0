"""Exercises of Chapter 2, Sampling Laplace noise (chapters/02_laplace.ipynb).

Setup: np, pd, analytic_gaussian_sigma, gaussian_sigma, laplace_cdf, laplace_mech, laplace_scale, laplace_variance,
load_adult, make_rng, open_uniform, pct_error, sample_laplace, check; adult = load_adult(); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dp_lib import (analytic_gaussian_sigma, gaussian_delta, laplace_mech, laplace_scale, load_adult, make_rng,
                    open_uniform, pct_error)
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import numpy as np
import pandas as pd

from dp_lib import (analytic_gaussian_sigma, gaussian_sigma, laplace_cdf, laplace_mech, laplace_scale,
                    laplace_variance, load_adult, make_rng, open_uniform, pct_error, sample_laplace)
from dp_lib.selfcheck import check

adult = load_adult()
"""


@functools.lru_cache(maxsize=1)
def _adult():
    return load_adult()


class BuggyLaplace(Exercise):
    chapter, key, label, title = "02", "ex1", "ch02-ex1", "A buggy Laplace sampler"
    randomness = "draws"  # 100,000 draws from the setup's rng
    points, kind, exercise_type = 3.0, "mixed", "find-the-bug"
    default = {"b": 2.0}
    shape, shape_hint = 3, "answer_ex1 must be a triple (mean, smallest value, variance)"
    missing = "set answer_ex1 to the triple (mean, smallest value, variance) of the buggy draws"
    prompt = "What distribution is `-b * np.log(rng.random(n))`, and what does the bug do to a released count?"
    rubric = (
        RubricItem("names the distribution", 1,
                   "exponential with mean b (one side of the Laplace: −ln U is Exp(1)), supported on [0, ∞)",
                   "says 'not Laplace' or 'one-sided' without naming the exponential or its mean",
                   "calls it Laplace, Gaussian or uniform"),
        RubricItem("consequence for privacy and accuracy", 1,
                   "the noise is never negative, so every release is biased upwards by b and its variance is b² "
                   "instead of 2b²; an output below the true answer is impossible, so the loss is unbounded and "
                   "the mechanism is not ε-DP",
                   "mentions the bias or the variance but not what it means for privacy",
                   "no consequence, or says it is still ε-DP"),
    )

    def params(self, rng):
        return {"b": float(rng.choice([2.0, 3.0, 4.0, 5.0]))}

    def statement(self, p):
        return (f"A common bug samples \"Laplace\" noise as `-b * np.log(rng.random(n))`. Draw 100,000 such values "
                f"with $b = {p['b']:g}$ and compare their mean, their smallest value and their variance with those "
                "of `sample_laplace`. What distribution is this? Set `answer_ex1` to the triple (mean, smallest "
                "value, variance) of the buggy draws.")

    def solve(self, p):
        buggy = -p["b"] * np.log(open_uniform(100_000, rng=make_rng(2024)))
        return (float(buggy.mean()), float(buggy.min()), float(buggy.var()))

    def parts(self, p):
        b = p["b"]
        # Randomized answer (the student's rng): 100,000 exponential draws with mean b. The mean has standard
        # error b/√N = 0.0032·b, the sample variance √(8/N)·b² = 0.0089·b²; the smallest value is Exp(b/N),
        # below b/1000 except with probability e^-100. Tolerances 0.025·b (8 s.e.) and 0.05·b² (5.6 s.e.),
        # those of the chapter's check at b = 2.
        return [Part.near("mean", b, f"the buggy draws have mean b = {b:g}: use b = {b:g} and 100,000 draws",
                          rtol=0, atol=0.025 * b),
                Part.between("smallest value", 0.0, b / 1000, "the buggy draws are never negative: did you "
                             "summarise sample_laplace's draws instead?"),
                Part.near("variance", b * b, f"the buggy draws have variance b² = {b * b:g} (numpy's var, not the "
                          "standard deviation)", rtol=0, atol=0.05 * b * b,
                          mistakes=[Mistake.near(2 * b * b, f"{2 * b * b:g} = 2b² is the Laplace variance; the "
                                                 f"buggy draws have variance b² = {b * b:g}", rtol=0.05)])]

    def exam(self):
        return [ExamQuestion(
            "ch02-buggy-sampler", "A library draws its \"Laplace\" noise as `-b * np.log(rng.random(n))`. What "
            "is wrong with a count released with this noise?", "choice",
            answer="the noise is exponential: never negative, so every release is too high and the mechanism is "
                   "not ε-DP",
            distractors=("nothing: it is the inverse-CDF method for Lap(b)",
                         "only its variance is 2b² instead of b²",
                         "it returns NaN for half of the draws"),
            feedback=("the inverse CDF of the Laplace needs the sign of V = U − ½; −b ln U is one side only",
                      "it is the other way round: the exponential has variance b², the Laplace 2b²",
                      "that is the other slip (U instead of V in the centred formula); −ln U is always finite"))]


class ScaleAndStd(Exercise):
    chapter, key, label, title = "02", "ex2", "ch02-ex2", "Laplace scale and standard deviation"
    randomness = "none"
    points = 2.0
    default = {"sensitivity": 2.0, "epsilon": 0.5}
    shape, shape_hint = 2, "answer_ex2 must be a pair (scale, std)"
    missing = "set answer_ex2 to the pair (scale, std)"

    def params(self, rng):
        return {"sensitivity": float(rng.choice([1.0, 2.0, 3.0, 5.0])),
                "epsilon": float(rng.choice([0.25, 0.5, 0.8, 1.25, 2.0]))}

    def statement(self, p):
        return (f"A query has L1 sensitivity {p['sensitivity']:g} and you want $\\varepsilon = {p['epsilon']:g}$. "
                "Set `answer_ex2` to a pair `(scale, std)`: the Laplace scale $b$ to use and the standard "
                "deviation of the resulting noise (two decimals are enough).")

    def solve(self, p):
        b = laplace_scale(p["sensitivity"], p["epsilon"])
        return (b, float(np.sqrt(2) * b))

    def parts(self, p):
        b, std = self.solve(p)
        inverse = p["epsilon"] / p["sensitivity"]
        scale_mistakes = [] if math.isclose(inverse, b, rel_tol=0.02) else [
            Mistake.near(inverse, "that is epsilon / sensitivity; the scale is sensitivity / epsilon")]
        return [Part.near("scale", b, "the scale is sensitivity / epsilon", rtol=1e-3, atol=0.005,
                          mistakes=scale_mistakes),
                Part.near("std", std, "the std of Lap(b) is sqrt(2) * b (if you rounded: to the nearest value, "
                          "with two decimals)", rtol=1e-3, atol=0.005,
                          mistakes=[Mistake.near(b, "numpy's `scale` is b, but the std of Lap(b) is sqrt(2) * b")]
                          + ([Mistake.near(2 * b * b, f"{2 * b * b:g} is the variance 2 b^2; take its square root")]
                             if abs(2 * b * b - b) > 0.02 * b else []))]

    def exam(self):
        p = {"sensitivity": 3.0, "epsilon": 0.5}
        b, std = self.solve(p)
        return [ExamQuestion("ch02-scale", "A sum query has L1 sensitivity 3. Which Laplace scale $b$ gives "
                             "$\\varepsilon = 0.5$-DP?", "choice", answer=f"{b:g}",
                             distractors=(f"{0.5 / 3:.3g}", f"{std:.3g}", f"{3 * 0.5:g}"),
                             feedback=("that is ε / Δ, the inverse", "that is the standard deviation √2·b",
                                       "that is Δ·ε")),
                ExamQuestion("ch02-std", "What is the standard deviation of the Laplace noise that makes a count "
                             "(sensitivity 1) $\\varepsilon = 0.5$-DP? Give two decimals.", "numeric",
                             answer=round(float(np.sqrt(2) / 0.5), 2), tolerance=0.01)]


GROUPS = {"rich": ("Target", ">50K", "whose income class (`Target`) is `>50K`"),
          "women": ("Sex", "Female", "whose `Sex` is `Female`"),
          "divorced": ("Marital Status", "Divorced", "whose `Marital Status` is `Divorced`")}


class MedianError(Exercise):
    chapter, key, label, title = "02", "ex3", "ch02-ex3", "Median percent error of a noisy count"
    randomness = "draws"  # 1,000 releases from the setup's rng
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"group": "rich", "epsilon": 0.01}
    missing = "set answer_ex3 to the median percent error at the smallest epsilon"
    prompt = "How does the error scale with ε?"
    rubric = (
        RubricItem("scaling", 1,
                   "the error is proportional to 1/ε: ten times smaller ε, ten times larger error (the scale is "
                   "b = 1/ε and the median of |Lap(b)| is b ln 2)",
                   "says 'smaller ε, larger error' without the proportionality",
                   "no scaling or a wrong one (e.g. 1/√ε or 1/ε²)"),
        RubricItem("relative error", 1,
                   "notes that the percent error also shrinks with the size of the count: the noise does not "
                   "depend on the data, so large counts are released accurately even at small ε",
                   "mentions the count only in passing",
                   "claims the noise grows with the count"),
    )

    def params(self, rng):
        return {"group": str(rng.choice(list(GROUPS))), "epsilon": float(rng.choice([0.005, 0.01, 0.02]))}

    def _count(self, p):
        column, value, _ = GROUPS[p["group"]]
        return int((_adult()[column] == value).sum())

    def statement(self, p):
        eps = p["epsilon"]
        return (f"Count the people in the data {GROUPS[p['group']][2]}. Release the count 1,000 times with the "
                f"Laplace mechanism at $\\varepsilon = {eps:g}$, ${10 * eps:g}$ and ${100 * eps:g}$, and report the "
                "median percent error for each ε. How does the error scale with ε? Set `answer_ex3` to your median "
                f"percent error at $\\varepsilon = {eps:g}$ (the check compares it with the exact median percent "
                "error, $100 \\times (b \\ln 2)/\\text{count}$ with $b = 1/\\varepsilon$).")

    def exact(self, p):
        return 100 * (math.log(2) / p["epsilon"]) / self._count(p)

    def solve(self, p):
        count = self._count(p)
        releases = laplace_mech(np.full(1000, count), 1, p["epsilon"], rng=make_rng(2024))
        return float(np.median(pct_error(count, releases)))

    def parts(self, p):
        exact, eps = self.exact(p), p["epsilon"]
        # Randomized answer: the median of 1,000 |Lap(b)| has standard error b/√1000, 4.6 % of b ln 2; the
        # chapter's 15 % is 3.3 standard errors, widened to 23 % (5 s.e.) for any honest seed.
        return [Part.near("median % error", exact, f"expected about {exact:.2f} % (100 × b ln 2 / count, with "
                          "b = 1/ε)", rtol=0.23,
                          mistakes=[Mistake.near(exact / 10, f"that is the error at ε = {10 * eps:g}; answer with "
                                                 f"the one at ε = {eps:g}", rtol=0.23),
                                    # the error at 100 ε in percent equals the error at ε as a fraction
                                    Mistake.near(exact / 100, f"that is the error at ε = {100 * eps:g}, or the one "
                                                 f"at ε = {eps:g} as a fraction: answer with the one at ε = "
                                                 f"{eps:g}, in percent (x 100)", rtol=0.23),
                                    # the mean b/count: 1.44 × exact; kept apart from the right interval (≤ 1.23)
                                    Mistake("that is the mean error b; the median of |Lap(b)| is b ln 2",
                                            1.24 * exact, 1.66 * exact)])]

    def exam(self):
        return [ExamQuestion("ch02-median-error", "A count is released with Laplace noise of scale $b = 10$. "
                             "What is the median absolute error? Give two decimals.", "numeric",
                             answer=round(10 * math.log(2), 2), tolerance=0.01)]


class AnalyticSigma(Exercise):
    chapter, key, label, title = "02", "ex4", "ch02-ex4", "Gaussian noise at ε ≥ 1"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"epsilon": 2.0, "delta": 1e-6}
    missing = "set answer_ex4 to the σ you would use"
    prompt = ("What happens when you call `gaussian_sigma` with these parameters, and how does σ compare with the "
              "standard deviation of the Laplace noise at the same ε?")
    rubric = (
        RubricItem("the classic formula", 1,
                   "gaussian_sigma raises a ValueError: the classic calibration is proved only for ε < 1; at this ε "
                   "its σ is still private but wasteful (it fails only for much larger ε, about 8 at δ = 1e-5), and "
                   "the analytic calibration gives the smallest σ",
                   "reports the error without saying why",
                   "uses the classic σ anyway"),
        RubricItem("Gaussian against Laplace", 1,
                   "compares with √2·Δ/ε and notes that for one number at this ε the Gaussian σ is several times "
                   "larger: the Gaussian pays for δ and for its L2 calibration only pays off for many statistics",
                   "gives both numbers without interpreting them",
                   "compares with b instead of √2·b, or claims the Gaussian is better here"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([1.5, 2.0, 3.0])), "delta": float(rng.choice([1e-5, 1e-6, 1e-7]))}

    def statement(self, p):
        e, d = p["epsilon"], p["delta"]
        exponent = round(math.log10(d))
        return (f"You need $(\\varepsilon, \\delta) = ({e:g}, 10^{{{exponent}}})$ for a single number of "
                "sensitivity 1 (so $\\Delta_1 = \\Delta_2 = 1$). What happens when you call "
                f"`gaussian_sigma(1, {e:g}, 1e{exponent})`? Which σ should you use instead, and how does it "
                "compare with the standard deviation of the Laplace noise at the same ε? Set `answer_ex4` to that σ (two "
                "decimals are enough; if you round, round σ up: a smaller σ is not private).")

    def solve(self, p):
        return float(analytic_gaussian_sigma(1, p["epsilon"], p["delta"]))

    def parts(self, p):
        e, d = p["epsilon"], p["delta"]
        best = self.solve(p)
        classic = math.sqrt(2 * math.log(1.25 / d)) / e
        return [Part.between("sigma", 0.997 * best, 1.05 * best, f"this σ is too small: at ε = {e:g} its δ exceeds "
                             f"{d:g} (check ε, δ and the sensitivity; round σ up, not down)",
                             mistakes=[Mistake.near(math.sqrt(2) / e, "that is the Laplace standard deviation, not "
                                                    "the Gaussian σ"),
                                       Mistake.near(classic, f"that is the classic formula: private here (its true "
                                                    f"δ is about {gaussian_delta(classic, 1, e):.0e}) but about "
                                                    f"{100 * (classic / best - 1):.0f} % larger than needed, and proved only "
                                                    "for ε < 1; the analytic calibration gives the smallest σ"),
                                       Mistake("this σ is private but more than 5 % larger than needed: the "
                                               "analytic calibration gives the smallest", 1.05 * best, 1e12)])]

    def exam(self):
        classic = math.sqrt(2 * math.log(1.25e6)) / 2
        return [ExamQuestion(
            "ch02-classic-gaussian", "You need $(\\varepsilon, \\delta) = (2, 10^{-6})$ for one number of "
            "sensitivity 1. Which is the smallest σ that gives $(2, 10^{-6})$-DP?", "choice",
            answer=f"the analytic Gaussian σ ≈ {self.solve(self.default):.2f}",
            distractors=(f"the classic σ = √(2 ln(1.25/δ))/ε ≈ {classic:.2f}",
                         f"σ = √2/ε ≈ {math.sqrt(2) / 2:.2f}",
                         f"σ = 1/ε = {1 / 2:.2f}"),
            feedback=(f"private here (true δ ≈ {gaussian_delta(classic, 1, 2.0):.0e}) but about "
                      f"{100 * (classic / self.solve(self.default) - 1):.0f} % larger than needed, and unproved for ε ≥ 1; "
                      "it fails only for much larger ε (about 8 at δ = 1e-5)",
                      "that is the standard deviation of the Laplace noise at this ε",
                      "that is the Laplace scale b, not a Gaussian σ"))]


class TailBound(Exercise):
    chapter, key, label, title = "02", "ex5", "ch02-ex5", "An error bound from the Laplace tail"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    default = {"epsilon": 0.5, "beta": 0.05}
    missing = "set answer_ex5 to the error t (a number)"
    prompt = "Derive $P(|X| > t) = e^{-t/b}$ for $X \\sim \\mathrm{Lap}(b)$ from the density, and solve for t."
    rubric = (
        RubricItem("the tail", 1,
                   "integrates the density over both tails: 2·∫_t^∞ (1/2b) e^{−x/b} dx = e^{−t/b} (or uses the "
                   "CDF on both sides)",
                   "gets the one-sided tail ½e^{−t/b} right but forgets the other side, or skips the integral",
                   "no derivation, or a Gaussian tail"),
        RubricItem("solving for t", 1,
                   "sets e^{−t/b} = β, so t = b ln(1/β) with b = Δ/ε, and reads it: with probability 1 − β the "
                   "error is at most t",
                   "right formula with a slip in b (ε/Δ) or in β (1 − β)",
                   "no solution for t"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.1, 0.25, 0.5, 1.0])), "beta": float(rng.choice([0.01, 0.05, 0.1]))}

    def statement(self, p):
        return (f"A count (sensitivity 1) is released with the Laplace mechanism at ε = {p['epsilon']:g}. From the "
                "density of $\\mathrm{Lap}(b)$, derive $P(|X| > t) = e^{-t/b}$, then find the error $t$ that the "
                f"noise exceeds (in absolute value) with probability only {100 * p['beta']:g} %. Set `answer_ex5` "
                "to $t$ (two decimals are enough).")

    def solve(self, p):
        return laplace_scale(1, p["epsilon"]) * math.log(1 / p["beta"])

    def parts(self, p):
        e, beta = p["epsilon"], p["beta"]
        b, t = 1 / e, self.solve(p)
        z = float(_normal_quantile(1 - beta / 2))
        mistakes = [Mistake.near(b * math.log(1 / (2 * beta)), "that is the one-sided tail P(X > t) = ½e^{−t/b}; "
                                 "the error |X| can fall on either side", rtol=0.002),
                    Mistake.near(z * math.sqrt(2) * b, "that is a normal approximation (z·√2·b); the Laplace tail "
                                 "is exponential: solve e^{−t/b} = β", rtol=0.002),
                    Mistake.near(b * math.log(1 / (1 - beta)), f"that error is exceeded with probability "
                                 f"{1 - beta:g}, not {beta:g}", rtol=0.002)]
        if not math.isclose(e, b):
            mistakes.append(Mistake.near(e * math.log(1 / beta), "the scale is b = Δ/ε, not ε/Δ", rtol=0.002))
        return [Part.near("t", t, "solve e^{−t/b} = β with b = Δ/ε: t = b ln(1/β)", rtol=0.002, atol=0.005,
                          mistakes=mistakes)]

    def exam(self):
        t = self.solve({"epsilon": 1.0, "beta": 0.01})
        return [ExamQuestion("ch02-tail", "A count is released with $\\mathrm{Lap}(1/\\varepsilon)$ noise at "
                             "$\\varepsilon = 1$. Which error does the noise exceed (in absolute value) with "
                             "probability only 1 %? Give two decimals.", "numeric", answer=round(t, 2),
                             tolerance=0.01)]


def _normal_quantile(q: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(q))


EXERCISES = [BuggyLaplace(), ScaleAndStd(), MedianError(), AnalyticSigma(), TailBound()]
