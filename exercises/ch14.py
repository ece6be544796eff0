"""Exercises of Chapter 14, Noise on a real computer (chapters/14_exact_noise.ipynb).

Setup: math, Decimal, Fraction, np, pd, the chapter's dp_lib names (discrete_laplace_pmf, discrete_laplace_mech,
discrete_gaussian_variance, snapping_mech, distinguishing_share, ...), rng, adult = load_adult().
"""

from __future__ import annotations

import math

import numpy as np

from dp_lib import discrete_gaussian_variance, discrete_laplace_pmf, distinguishing_share, make_rng
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd

from dp_lib import (ThresholdEvent, discrete_gaussian_mech, discrete_gaussian_variance, discrete_laplace_mech,
                    discrete_laplace_pmf, discrete_laplace_variance, distinguishing_share, epsilon_lower_bound,
                    laplace_cdf, laplace_mech, laplace_output_at, laplace_reachable, load_adult, make_rng,
                    sample_discrete_gaussian, sample_discrete_laplace, snapping_mech)
from dp_lib.data import MARITAL_STATUSES
adult = load_adult()
"""

BIG = 1e12


class DiscreteLaplaceAtZero(Exercise):
    chapter, key, label, title = "14", "ex1", "exact-ex1", "The chance of releasing the exact count"
    randomness = "none"  # the exact value from the pmf (the simulation only checks it)
    points, exercise_type = 2.0, "derivation"
    default = {"epsilon": 0.5}
    missing = "set answer_ex1 to a probability"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.25, 0.5, 1.0, 2.0]))}

    def statement(self, p):
        return (f"What is the probability that `discrete_laplace_mech` at $\\varepsilon = {p['epsilon']:g}$ "
                "(sensitivity 1) releases the true count *exactly*? Set `answer_ex1` to the exact value (a float), "
                "computed from the pmf. Then check it by simulation.")

    def solve(self, p):
        return float(discrete_laplace_pmf(0, 1 / p["epsilon"]))

    def parts(self, p):
        e = p["epsilon"]
        return [Part.near("P(Z = 0)", math.tanh(e / 2), "use the pmf (1 - p)/(1 + p) with p = exp(-ε/Δ)", rtol=1e-3,
                          mistakes=[Mistake.near(1 - math.exp(-e), "1 - p is the one-sided geometric law's P(0); the "
                                                 "two-sided law divides by 1 + p", rtol=1e-3),
                                    Mistake.near(e / 2, f"{e / 2:g} is the continuous Laplace density at 0, not a "
                                                 "probability", rtol=1e-3)])]

    def exam(self):
        right = math.tanh(0.25)
        return [ExamQuestion("ch14-dlap-zero", "The discrete Laplace mechanism at ε = 1 (sensitivity 1) adds "
                             "$Z$ with $P(Z = z) \\propto e^{-|z|}$. What is $P(Z = 0)$? Give four decimals.",
                             "numeric", answer=round(math.tanh(0.5), 4), tolerance=1e-4),
                ExamQuestion("ch14-dlap-zero-choice", "The discrete Laplace mechanism at ε = 0.5 (sensitivity 1): "
                             "which is the probability that it releases the true count exactly?", "choice",
                             answer=f"{right:.4f}", distractors=(f"{1 - math.exp(-0.5):.4f}", "0.2500"),
                             feedback=("1 − p is the one-sided geometric law; the two-sided one divides by 1 + p",
                                       "that is the continuous Laplace density at 0, not a probability"))]


class SnappingGrid(Exercise):
    chapter, key, label, title = "14", "ex2", "exact-ex2", "The grid of the snapping mechanism"
    randomness = "none"
    points, exercise_type = 2.0, "computation"
    default = {"epsilon": 1.0, "bound": 100.0}

    missing = "set answer_ex2 to the grid spacing Λ"

    def params(self, rng):
        # 1/ε a power of two: then λ = (1 + 2^-49 B)/ε is a hair above it and Λ doubles, the exercise's point.
        return {"epsilon": float(rng.choice([0.25, 0.5, 1.0, 2.0])), "bound": float(rng.choice([100.0, 1000.0]))}

    def statement(self, p):
        return (f"`snapping_mech(value, sensitivity=1.0, epsilon={p['epsilon']:g}, bound={p['bound']:g}, ...)` "
                "releases only multiples of a grid $\\Lambda$. Set `answer_ex2` to $\\Lambda$, then confirm it "
                "from a few hundred releases.")

    def solve(self, p):
        lam = (1 + 2.0 ** -49 * p["bound"]) / p["epsilon"]
        mant, exp2 = math.frexp(lam)
        return lam if mant == 0.5 else math.ldexp(1.0, exp2)

    def parts(self, p):
        right, naive = self.solve(p), 1 / p["epsilon"]
        return [Part.between("Lambda", right, right, "Λ is the smallest power of two that is >= "
                             f"λ = (1 + 2^-49 B)/ε = (1 + 2^-49·{p['bound']:g})/{p['epsilon']:g}",
                             mistakes=[Mistake(f"λ = (1 + 2^-49 B)/ε is slightly ABOVE {naive:g}, so the smallest "
                                               f"power of two >= λ is not {naive:g}", naive, naive)])]

    def exam(self):
        return [ExamQuestion("ch14-snap", "The snapping mechanism with sensitivity 1, ε = 0.5 and bound B = 100 "
                             "uses $\\lambda = (1 + 2^{-49} B)/\\varepsilon$ and rounds to multiples of $\\Lambda$, the "
                             "smallest power of two $\\ge \\lambda$. What is $\\Lambda$?", "choice", answer="4",
                             distractors=("2", "0.5"),
                             feedback=("λ is slightly above 2, so the smallest power of two ≥ λ is 4",
                                       "that is ε, not the grid"))]


class NumpyShare(Exercise):
    chapter, key, label, title = "14", "ex3", "exact-ex3", "Audit numpy's Laplace sampler"
    randomness = "fixed-seed"  # the releases of make_rng(seed) of the statement
    points, exercise_type = 2.0, "find-the-bug"
    default = {"seed": 11}
    missing = "set answer_ex3 to a share between 0 and 1"

    def params(self, rng):
        return {"seed": int(rng.choice([1, 2, 3, 5, 7, 11, 13]))}

    def statement(self, p):
        return ("Run the attack on numpy's sampler yourself. Draw 20,000 releases "
                f"`make_rng({p['seed']}).laplace(1.0, 1.0, size=20_000)` (from $f(D') = 1$ at $b = 1$) and set "
                "`answer_ex3` to the share that numpy's sampler cannot produce from $f(D) = 0$.")

    def solve(self, p):
        return distinguishing_share(make_rng(p["seed"]).laplace(1.0, 1.0, size=20_000), 0.0, 1.0, sampler="numpy")

    def parts(self, p):
        # (0.75, 0.85) as in the chapter: the share is about 0.80 for every seed (0.794 to 0.806 over the drawn
        # seeds: 0.794 at seed 11, 0.806 at seed 5), and a share of 20,000 releases has standard deviation below 0.003: the band is > 15 of them wide.
        frac = "give the share as a fraction between 0 and 1 (0.79, not 79 %)"
        return [Part.between("share", 0.75, 0.85, "expected about 0.8: replay numpy's sampler (sampler='numpy') "
                             "against f(D) = 0, on exactly the 20,000 releases of "
                             f"make_rng({p['seed']}) at b = 1", mistakes=[
                                 Mistake(frac, -BIG, -1e-12), Mistake(frac, 1 + 1e-12, BIG),
                                 Mistake("a share near 0: you tested the releases against f(D') = 1, the input they "
                                         "came from; test them against f(D) = 0 (true_answer = 0.0)", 0.0, 0.05),
                                 Mistake("about 0.2 is the share numpy's sampler CAN produce from f(D) = 0; the "
                                         "question asks for the share it cannot", 0.15 + 1e-9, 0.25 - 1e-9),
                                 Mistake("about 0.9 or more: that replays the book's sampler (the default); these "
                                         "outputs come from numpy's rng.laplace, so pass sampler='numpy'",
                                         0.87 + 1e-9, 1.0)])]

    def exam(self):
        return [ExamQuestion("ch14-float-attack", "An attacker sees one output of numpy's `rng.laplace(f(D'), 1)` and "
                             "checks whether numpy's sampler could have produced that double from $f(D) = 0$. For "
                             "about 80 % of outputs it could not. What does that mean for the privacy loss?",
                             "choice", answer="it is infinite on those outputs: the mechanism is not ε-DP for any ε",
                             distractors=("it is about ln(0.8/0.2) ≈ 1.4",
                                          "nothing: the released value is within one ulp of a Laplace draw"),
                             feedback=("an output impossible under D has probability 0 there: the ratio is unbounded",
                                       "the set of reachable doubles, not their distance, decides the loss"))]


class DiscreteGaussianVariance(Exercise):
    chapter, key, label, title = "14", "ex4", "exact-ex4", "The discrete Gaussian's variance below σ²"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"sigmas": (0.25, 0.5, 1.0, 2.0)}
    missing = "set answer_ex4 to the four ratios, σ -> variance / σ²"
    prompt = "When does the difference matter, and does it change the privacy guarantee?"
    rubric = (
        RubricItem("when it matters", 2, "only for σ below about 0.6 (ratio 0.98 at σ = 0.6, 0.86 at 0.5, 0.51 at "
                   "0.4); at σ ≤ 0.3 the noise is almost always 0 (ratio below 0.1); from σ ≈ 0.75 on the ratio is "
                   "1 to within 1e-3, at σ ≥ 1 to within 1e-6 (quotes the student's own σ set)",
                   "says 'small σ' without the numbers",
                   "claims it matters at every σ"),
        RubricItem("the guarantee", 2, "no: ρ = Δ²/(2σ²) depends on the parameter σ, not on the variance, so at "
                   "very small σ the discrete Gaussian is more accurate for the same ρ", "says the guarantee is "
                   "unchanged without why", "claims the smaller variance weakens (or strengthens) privacy"),
        RubricItem("perspective", 1, "notes that such a small σ means a large ρ, i.e. weak privacy anyway",
                   "", "missing"))

    def params(self, rng):
        sets = [(0.25, 0.5, 1.0, 2.0), (0.3, 0.6, 1.2, 2.5), (0.2, 0.4, 0.8, 1.6), (0.25, 0.75, 1.5, 3.0)]
        return {"sigmas": sets[int(rng.integers(len(sets)))]}

    def statement(self, p):
        s = ", ".join(f"{v:g}" for v in p["sigmas"])
        return ("The discrete Gaussian's variance is below $\\sigma^2$. Compute "
                f"`discrete_gaussian_variance(σ) / σ**2` for $\\sigma \\in \\{{{s}\\}}$ and set `answer_ex4` to the "
                "four ratios (a dict or a pandas Series from σ to its ratio). When does the difference matter, and "
                "does it change the privacy guarantee?")

    def solve(self, p):
        return {s: discrete_gaussian_variance(s) / s ** 2 for s in p["sigmas"]}

    def conditions(self, p):
        s = ", ".join(f"{v:g}" for v in p["sigmas"])
        return [Condition(i, f"[{v!r}]", f"give a dict or a pandas Series from σ to the ratio, one ratio for each σ "
                          f"in {{{s}}}", lo=-BIG, hi=BIG) for i, v in enumerate(p["sigmas"])]

    def parts(self, p):
        zs = np.arange(-200, 201)
        out = []
        for s in p["sigmas"]:
            weights = np.exp(-zs ** 2 / (2 * s ** 2))  # the variance by summing z² P(z) over the integers
            ratio = float(np.sum(zs ** 2 * weights) / np.sum(weights) / s ** 2)
            mistakes = [Mistake("a ratio above 1: divide the variance by σ² (not σ² by the variance), and pass σ, "
                                "not σ², to discrete_gaussian_variance", 1.01, BIG)]
            squared = discrete_gaussian_variance(s ** 2) / s ** 2  # σ² passed instead of σ
            if abs(squared - ratio) > 0.008:  # mistakes are matched first: keep them off the right interval
                mistakes.insert(0, Mistake.near(squared, "pass σ, not σ², to discrete_gaussian_variance: the ratio is "
                                                "discrete_gaussian_variance(σ) / σ²", rtol=0,
                                                atol=min(0.006, abs(squared - ratio) - 0.0061)))
            if ratio < 0.98:
                mistakes.insert(0, Mistake.near(1.0, "a ratio of 1: that is the continuous Gaussian's variance σ²; "
                                                "use discrete_gaussian_variance(σ)", rtol=0, atol=0.006))
            out.append(Part.near(f"σ = {s:g}", ratio, f"σ = {s:g}: the ratio discrete_gaussian_variance(σ) / σ² is "
                                 "off (to two decimals or better, please)", rtol=0, atol=0.006,
                                 path=f"[{s!r}]", mistakes=mistakes))
        return out

    def exam(self):
        r = discrete_gaussian_variance(0.5) / 0.25
        return [ExamQuestion("ch14-dgauss-var", "What is the ratio of the discrete Gaussian's variance to "
                             "$\\sigma^2$ at σ = 0.5 (`discrete_gaussian_variance(0.5) / 0.25`)? Give two decimals.",
                             "numeric", answer=round(r, 2), tolerance=0.01),
                ExamQuestion("ch14-dgauss-rho", "The discrete Gaussian with parameter σ = 0.5 has variance well "
                             "below σ². For sensitivity 1, its zCDP guarantee is", "choice",
                             answer="ρ = 1/(2σ²) = 2, the same as the continuous Gaussian with σ = 0.5",
                             distractors=("ρ = 1/(2·Var), larger than 2, since the variance is smaller",
                                          "ρ = 1/(2·Var), smaller than 2, since the variance is smaller"),
                             feedback=("the guarantee depends on the parameter σ, not on the variance",
                                       "the guarantee depends on the parameter σ, not on the variance"))]


class DiscreteLaplaceVarianceDerivation(Exercise):
    chapter, key, label, title = "14", "ex5", "exact-ex5", "Derive the discrete Laplace variance"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    randomness = "none"  # a formula: the answer does not depend on the seed
    default = {"epsilon": 0.5}
    missing = "set answer_ex5 to the pair (variance, variance / (2 t²))"
    shape, shape_hint = 2, "answer_ex5 is a pair: (the variance, its ratio to the continuous Laplace's 2t²)"
    prompt = ("Derive Var[Z] = 2p/(1 - p)² for the discrete Laplace law with scale t (p = exp(-1/t)), step by step "
              "from the pmf, and say why it is below 2t².")
    rubric = (
        RubricItem("mean and symmetry", 1, "E[Z] = 0 because the pmf is symmetric and the sums converge (p < 1), so "
                   "Var[Z] = E[Z²] = 2·(1 - p)/(1 + p)·Σ_{z≥1} z² p^z", "writes Var = E[Z²] without saying why the "
                   "mean is 0, or forgets the factor 2 of the two sides", "no reduction to a one-sided sum"),
        RubricItem("the series", 2, "Σ_{z≥1} z² p^z = p(1 + p)/(1 - p)³, obtained by differentiating the geometric "
                   "series Σ p^z = p/(1 - p) twice (p d/dp applied twice), or from the one-sided geometric law's "
                   "moments", "the right value quoted without a derivation, or an algebra slip carried through",
                   "missing or wrong series"),
        RubricItem("the result", 1, "multiplies by the normalising constant (1 - p)/(1 + p) and the factor 2 to get "
                   "2p/(1 - p)², and evaluates it at the exercise's t", "right formula, wrong number (e.g. p = e^(-t))",
                   "no closed form"),
        RubricItem("below 2t²", 1, "with u = 1/t: 2p/(1 - p)² = 1/(2 sinh²(u/2)) < 2/u² = 2t² because sinh x > x "
                   "for x > 0 (or: the ratio tends to 1 as t grows, and is visibly below it at small t)",
                   "asserts it from the numbers alone", "missing"))

    def params(self, rng):
        # ε = 1 (t = 1) is left out: there p = e^(-1/t) = e^(-t), so the 'p = e^(-t)' mistake would be right.
        return {"epsilon": float(rng.choice([0.25, 0.5, 2.0, 4.0]))}

    def statement(self, p):
        t = 1 / p["epsilon"]
        return ("Derive the variance of the discrete Laplace law with scale $t$, "
                "$\\Pr[Z = z] = \\frac{1-p}{1+p}\\,p^{|z|}$ with $p = e^{-1/t}$: show that "
                "$\\mathrm{Var}[Z] = 2p/(1-p)^2$ (hint: differentiate the geometric series $\\sum_{z \\ge 1} p^z$ "
                "twice). Then evaluate it for `discrete_laplace_mech` at "
                f"$\\varepsilon = {p['epsilon']:g}$ (sensitivity 1, so $t = {t:g}$) and compare it with the continuous "
                "Laplace variance $2t^2$: set `answer_ex5 = (variance, variance / (2 * t**2))`, four significant "
                "digits or more. Why is it below $2t^2$ at every $t$? Write the derivation in a Markdown cell.")

    def solve(self, p):
        t = 1 / p["epsilon"]
        q = math.exp(-1 / t)
        var = 2 * q / (1 - q) ** 2
        return (var, var / (2 * t ** 2))

    def parts(self, p):
        t = 1 / p["epsilon"]
        q = math.exp(-1 / t)
        var, ratio = self.solve(p)
        wrong_p = math.exp(-t)
        return [
            Part.near("variance", var, f"the variance at t = {t:g} is 2p/(1 - p)² with p = exp(-1/t)", rtol=1e-3,
                      mistakes=[
                          Mistake.near(2 * t ** 2, f"{2 * t ** 2:g} = 2t² is the continuous Laplace's variance; the "
                                       "discrete law's is 2p/(1 - p)², a little smaller", rtol=1e-4),
                          Mistake.near(var / 2, "half the variance: one side of the law only. The sum over z ≠ 0 is "
                                       "twice the sum over z ≥ 1", rtol=1e-3),
                          Mistake.near(2 * q * (1 + q) / (1 - q) ** 3, "that is Σ z² p^|z| without the normalising "
                                       "constant (1 - p)/(1 + p)", rtol=1e-3),
                          Mistake.near(2 * wrong_p / (1 - wrong_p) ** 2, "p = exp(-1/t), not exp(-t): with t = Δ/ε, "
                                       "p = exp(-ε/Δ)", rtol=1e-3)]),
            Part.near("ratio", ratio, "the ratio is the variance divided by 2t² (below 1)", rtol=1e-3,
                      mistakes=[Mistake.near(1 / ratio, "a ratio above 1: divide the variance by 2t², not 2t² by "
                                             "the variance", rtol=1e-4)])]

    def exam(self):
        q = math.exp(-1 / 4)
        var = 2 * q / (1 - q) ** 2
        return [ExamQuestion("ch14-dlap-var", "The discrete Laplace law $\\Pr[Z = z] \\propto p^{|z|}$ with "
                             "$p = e^{-1/t}$ has $\\mathrm{Var}[Z] = 2p/(1-p)^2$. What is it at $t = 4$ "
                             "(ε = 0.25, sensitivity 1)? Give two decimals.", "numeric",
                             answer=round(var, 2), tolerance=0.01)]


EXERCISES = [DiscreteLaplaceAtZero(), SnappingGrid(), NumpyShare(), DiscreteGaussianVariance(),
             DiscreteLaplaceVarianceDerivation()]
