"""Exercises of Chapter 11, Learning privately (chapters/11_private_learning.ipynb).

Setup: np, pd, the chapter's dp_lib names (PrivacyAccountant, accuracy, adult_features, analytic_gaussian_sigma,
gradient_descent, iteration_budget, load_adult, make_rng, noisy_gradient_descent, ...), rng, adult = load_adult(),
data = adult_features(adult), X, y = data.X_train, data.y_train.
"""

from __future__ import annotations

import math

import numpy as np

from dp_lib import (PrivacyAccountant, accuracy, adult_features, analytic_gaussian_sigma, dp_sgd_sigma, gdp_epsilon,
                    iteration_budget, load_adult, make_rng, noisy_gradient_descent,
                    zcdp_to_epsilon)
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import numpy as np
import pandas as pd
from dp_lib import (BudgetExceededError, PrivacyAccountant, accuracy, accuracy_curve, adult_features,
                    analytic_gaussian_sigma, clip_rows, gradient_descent, iteration_budget, laplace_mech,
                    load_adult, logistic_gradients, logistic_loss, make_rng, noisy_gradient_descent)
adult = load_adult()
data = adult_features(adult)
X, y = data.X_train, data.y_train
"""

SCORE = """\
def score(theta):
    return accuracy(theta, data.X_test, data.y_test)
"""

CLIPS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
BIG = 1e12  # an open end of a "mistake" interval (JSON has no infinity)


def _data():
    return adult_features(load_adult())


def _score(data, theta):
    return accuracy(theta, data.X_test, data.y_test)


def _sigma(p):
    """The trainer's per-step σ: 5 % of ε for the count, the rest and all of δ split over k (sequential)."""
    eps_i, delta_i = iteration_budget(0.95 * p["epsilon"], p["delta"], p["k"])[:2]
    return analytic_gaussian_sigma(p["clip"], eps_i, delta_i)


class PerIterationBudget(Exercise):
    chapter, key, label, title = "11", "ex1", "ch11-ex1", "The per-iteration budget of noisy gradient descent"
    randomness = "none"
    points, exercise_type = 2.0, "computation"
    default = {"epsilon": 2.0, "delta": 1e-6, "k": 40}
    shape, shape_hint = 2, "answer_ex1 must be a pair (epsilon_i, delta_i)"
    missing = "set answer_ex1 to the pair (epsilon_i, delta_i)"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0, 4.0])), "delta": float(rng.choice([1e-6, 1e-5])),
                "k": int(rng.choice([20, 25, 40, 50, 100]))}

    def statement(self, p):
        return (f"You train with a total budget $(\\varepsilon, \\delta) = ({p['epsilon']:g}, 10^{{{round(math.log10(p['delta']))}}})$ for "
                f"$k = {p['k']}$ iterations, with the default 5 % of $\\varepsilon$ spent on the noisy count and "
                "sequential composition. Which per-iteration budget $(\\varepsilon_i, \\delta_i)$ does "
                "`noisy_gradient_descent` use? Set `answer_ex1` to the pair. Then confirm it with a "
                "`PrivacyAccountant`.")

    def solve(self, p):
        data = _data()
        acct = PrivacyAccountant(epsilon_budget=p["epsilon"], delta_budget=p["delta"])
        noisy_gradient_descent(data.X_train, data.y_train, p["epsilon"], p["delta"], p["k"], 1.5,
                               rng=make_rng(0), accountant=acct)
        return (float(acct.history["epsilon"].iloc[1]), float(acct.history["delta"].iloc[1]))

    def parts(self, p):
        eps_i, delta_i = 0.95 * p["epsilon"] / p["k"], p["delta"] / p["k"]
        return [Part.near("epsilon_i", eps_i, "the count takes 5 % of epsilon first; split the rest over k",
                          rtol=1e-3, mistakes=[Mistake.near(p["epsilon"] / p["k"], "the count takes 5 % of "
                                                            "epsilon first; split the rest over k", rtol=1e-3)]),
                Part.near("delta_i", delta_i, "the Laplace count uses no delta; split all of it over k", rtol=1e-3,
                          mistakes=[Mistake.near(0.95 * delta_i, "the Laplace count uses no delta; split all of "
                                                 "it over k", rtol=1e-3)])]

    def exam(self):
        return [ExamQuestion("ch11-budget-eps", "`noisy_gradient_descent` spends 5 % of $\\varepsilon$ on a noisy "
                             "count and splits the rest evenly over the iterations (sequential composition). "
                             "With a total $\\varepsilon = 1$ and $k = 25$ iterations, what is $\\varepsilon_i$? "
                             "Give four decimals.", "numeric", answer=round(0.95 / 25, 4), tolerance=5e-5),
                ExamQuestion("ch11-budget-delta", "The same trainer, total $(\\varepsilon, \\delta) = (1, 10^{-5})$, "
                             "$k = 25$: which $\\delta_i$ does each iteration get?", "choice", answer="4e-07",
                             distractors=("3.8e-07", "1e-05"),
                             feedback=("the noisy count is a Laplace count: it uses no δ, so all of δ is split",
                                       "sequential composition adds the δ_i: each step gets δ/k"))]


class ClipSweep(Exercise):
    chapter, key, label, title = "11", "ex2", "ch11-ex2", "The clipping norm: bias against noise"
    randomness = "either"  # C = 1, 1.5 and 2 are all accepted: honest seeds may pick another of them
    points, kind, exercise_type = 2.0, "mixed", "design"
    default = {"epsilon": 0.1}
    missing = "set answer_ex2 to the C with the best mean accuracy in your table"
    prompt = "Why do both ends (a very small C and a large C) lose accuracy?"
    rubric = (
        RubricItem("small C", 2, "a small C shrinks (almost) every gradient: short, biased steps, so even the "
                   "noise-free clipped run barely beats the majority class (cites the no-noise row)",
                   "says small C 'loses information' without naming the bias of the shrunk steps",
                   "no reason, or blames noise for the small-C loss"),
        RubricItem("large C", 2, "σ is proportional to C (the sensitivity of the clipped sum), so at a small ε the "
                   "noise swamps the signal while clipping no longer helps",
                   "says 'more noise' without linking σ to C", "no reason, or says large C adds bias"),
        RubricItem("where the optimum sits", 1, "the best C is near the gradient norms at the start of training "
                   "(‖g_i‖ = ‖x_i‖/2 at θ = 0), so the early, large steps are barely clipped; and choosing C on the "
                   "private data would itself leak", "one of the two points", "neither"))

    def params(self, rng):
        # At both ε the best C over many seeds is 1 or 1.5, with 2 within two standard errors of five seeds, and
        # 0.25, 0.5, 3 far below (20-seed sweep): the accepted set {1, 1.5, 2} holds for any five seeds.
        return {"epsilon": float(rng.choice([0.05, 0.1]))}

    def statement(self, p):
        return (f"Clipping trades bias against noise. At $\\varepsilon = {p['epsilon']:g}$, $\\delta = 10^{{-5}}$ and "
                "$k = 20$, train with $C \\in \\{0.25, 0.5, 1, 1.5, 2, 3\\}$ (five seeds each) and report the mean "
                "test accuracy (`score(theta)`); to see the clipping bias alone, also train once without noise at "
                "each $C$ (`gradient_descent(X, y, 20, clip_norm=C)`). Which $C$ is best? Set `answer_ex2` to it. "
                "Why do both ends lose?")

    def setup_code(self, p):
        return SCORE

    def solve(self, p):
        data = _data()
        mean = {c: np.mean([_score(data, noisy_gradient_descent(data.X_train, data.y_train, p["epsilon"], 1e-5, 20,
                                                                c, rng=make_rng(s))[0]) for s in range(5)])
                for c in CLIPS}
        return max(mean, key=mean.get)

    def parts(self, p):
        grid = "answer_ex2 must be one of the six values of C in the sweep"
        mistakes = [Mistake(h, c, c) for c, h in [
            (0.25, "C = 0.25 shrinks almost every gradient: even without noise it barely beats the majority class"),
            (0.5, "C = 0.5 still shrinks the large early gradients: compare your noise-free runs at C = 0.5 and "
                  "C = 1.5"),
            (3.0, f"C = 3 clips almost nothing, but σ is proportional to C: at ε = {p['epsilon']:g} the noise "
                  "swamps the signal")]]
        mistakes += [Mistake(grid, lo, hi) for lo, hi in [(-BIG, 1 - 1e-9), (1 + 1e-9, 1.5 - 1e-9),
                                                          (1.5 + 1e-9, 2 - 1e-9), (2 + 1e-9, BIG)]]
        return [Part.between("best C", 1.0, 2.0, "the best C sits near the gradient norms at the start of training",
                             mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion("ch11-clip", "In noisy gradient descent at a small $\\varepsilon$, why does a very "
                             "large clipping norm $C$ hurt accuracy?", "choice",
                             answer="the noise standard deviation σ is proportional to C",
                             distractors=("a large C shrinks every gradient, so the steps are biased",
                                          "a large C makes the noisy count less accurate"),
                             feedback=("that is what a small C does", "the count's noise does not depend on C"))]


class SmallData(Exercise):
    chapter, key, label, title = "11", "ex3", "ch11-ex3", "Privacy is cheap when n is large"
    randomness = "none"
    points, kind, exercise_type = 3.0, "mixed", "computation"
    default = {"digit": "7", "epsilon": 0.1}
    shape, shape_hint = 2, "answer_ex3 must be a pair (n, count error in %)"
    missing = "set answer_ex3 to the pair (n, count error in %)"
    prompt = "Explain the difference between the small and the full training set with the right panel of the slider figure."
    rubric = (
        RubricItem("noise relative to signal", 2, "the noise on the mean gradient has norm about σ√d/ñ and σ does "
                   "not depend on n: ten times fewer people means ten times more noise per step relative to the "
                   "signal", "says 'less data, more noise' without the 1/n scaling", "no mechanism given"),
        RubricItem("budget trade", 1, "a tenfold smaller data set needs roughly a tenfold larger ε for the same "
                   "accuracy (the right panel's curves shift)", "mentions ε must grow, without the proportion",
                   "missing"),
        RubricItem("the noisy count", 1, "the count's error 20/ε is a larger share of a small n, so the step size "
                   "itself is off by that much", "mentions the count without its effect", "missing"))

    def params(self, rng):
        return {"digit": str(int(rng.integers(0, 10))), "epsilon": float(rng.choice([0.1, 0.2, 0.5]))}

    def statement(self, p):
        return (f"Privacy is cheap above because $n$ is large. Keep only the people whose (fake) SSN ends in "
                f"{p['digit']} (`adult[adult['SSN'].str.endswith('{p['digit']}')]`, then `adult_features`), a rule "
                "that looks at each record alone. That leaves about a tenth of the training set. Train on them at "
                f"$\\varepsilon = {p['epsilon']:g}$ and $\\varepsilon = 1$ ($k = 20$, $C = 1.5$, five seeds) and "
                "compare with the full training set, scoring both on the full test set (`score(theta)`). Set "
                "`answer_ex3` to the pair ($n$ of the small training set, the mean absolute error "
                f"$\\mathbb{{E}}|\\tilde n - n|$ of its noisy count at $\\varepsilon = {p['epsilon']:g}$ in % of that "
                "$n$, to two decimals; the expected value, from the Laplace scale, not an average over your runs). Explain the "
                "difference with the right panel of the slider figure.")

    def setup_code(self, p):
        return SCORE

    def _split(self, p):
        adult = load_adult()
        return adult_features(adult[adult["SSN"].str.endswith(p["digit"])])

    def solve(self, p):
        n = len(self._split(p).y_train)
        return (n, 100 * 20 / p["epsilon"] / n)

    def parts(self, p):
        small = self._split(p)
        n, eps = len(small.y_train), p["epsilon"]
        n_full = len(_data().y_train)
        err = 100 * 20 / eps / n
        # Forgetting the /ε gives about the full-set share at ε = 0.1 (n is about a tenth): the hint names both.
        no_eps = ([Mistake.near(100 * 20 / n, "the Laplace scale of the count is 20/ε: divide by ε", rtol=0.02)]
                  if abs(100 * 20 / n - 100 * 20 / eps / n_full) > 0.05 * 100 * 20 / n else [])
        return [Part.equal("n", n, "n is the number of training rows whose SSN ends in " + p["digit"],
                           mistakes=[Mistake("count only the training rows of the small set",
                                             value=n + len(small.y_test))]),
                Part.near("count error", err, "E|ñ - n| = 1/ε_count = 20/ε people; give it in % of n", rtol=0.02,
                          mistakes=[Mistake.near(100 * 20 / eps / n_full, "that is relative to the full training "
                                                 "set (divide by the small n), or the /ε is missing: E|ñ - n| = "
                                                 "20/ε people", rtol=0.02),
                                    *no_eps,
                                    Mistake.near(100 / eps / n, "the count gets only 5 % of ε: its Laplace scale "
                                                 "is 1/(0.05 ε) = 20/ε", rtol=0.02),
                                    Mistake.near(math.sqrt(2) * err, "that is the standard deviation √2·b; the mean "
                                                 "absolute error of Lap(b) is b", rtol=0.02),
                                    Mistake.near(err / 100, "give the error in percent of n, not as a fraction",
                                                 rtol=0.02)])]

    def exam(self):
        return [ExamQuestion("ch11-count-error", "`noisy_gradient_descent` spends 5 % of ε on a Laplace count of "
                             "the training rows. At total $\\varepsilon = 0.5$, what is the expected absolute error "
                             "$\\mathbb{E}|\\tilde n - n|$ of that count, in people?", "numeric",
                             answer=round(20 / 0.5, 6), tolerance=0.05),
                ExamQuestion("ch11-count-error-choice", "The same count at total $\\varepsilon = 0.5$: which is its "
                             "expected absolute error, in people?", "choice", answer="40",
                             distractors=(f"{math.sqrt(2) * 40:.1f}", "2"),
                             feedback=("that is the standard deviation √2·b; E|Lap(b)| = b",
                                       "the count gets only 5 % of ε: its scale is 1/(0.05 ε)"))]


class ThreeSigmas(Exercise):
    chapter, key, label, title = "11", "ex4", "ch11-ex4", "Gaussian sequential, Gaussian advanced, Laplace"
    randomness = "none"
    points, kind, exercise_type = 3.0, "mixed", "computation"
    default = {"epsilon": 1.0, "k": 100, "clip": 1.5}
    shape, shape_hint = 3, ("answer_ex4 must be a triple (Gaussian sequential, Gaussian advanced, Laplace) of noise "
                            "standard deviations")
    missing = "set answer_ex4 to the three noise standard deviations"
    prompt = "Which variant is best, and why?"
    rubric = (
        RubricItem("advanced composition", 2, "at large k advanced composition gives a larger ε_i (δ_i = δ/(2k)) "
                   "for the same total, hence a smaller σ", "says advanced is better without why",
                   "claims sequential is tighter"),
        RubricItem("Laplace", 2, "Laplace spends no δ but needs the L1 bound C·√d (d = 12), so its standard "
                   "deviation √2·C·√d/ε_i is larger than the Gaussian's", "mentions √d or √2 but not both reasons",
                   "says Laplace is better because it has no δ"),
        RubricItem("accuracy", 1, "the σ ranking is what matters; whether the mean accuracies show it depends on ε "
                   "and k (at a small ε and a large k, e.g. ε = 0.5, k = 200, Laplace and sequential lose clearly; "
                   "at ε = 2 the differences are within the spread of the seeds): reads the own table with its "
                   "spread", "reports accuracies without interpreting, or ranks by differences within the noise",
                   "missing"))

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "k": int(rng.choice([50, 100, 200])),
                "clip": float(rng.choice([1.0, 1.5]))}

    def statement(self, p):
        return (f"Train with $k = {p['k']}$ at $\\varepsilon = {p['epsilon']:g}$ (δ = 10⁻⁵) and $C = {p['clip']:g}$ "
                "in three ways: Gaussian noise with sequential composition (the default), Gaussian noise with "
                "`composition=\"advanced\"`, and `noise=\"laplace\"` (sequential). Use five seeds each. Report the "
                "per-coordinate noise standard deviation (the `sigma` column of the history), the "
                "$(\\varepsilon, \\delta)$ spent, and the mean test accuracy (`score(theta)`). Set `answer_ex4` to "
                "the three noise standard deviations (Gaussian sequential, Gaussian advanced, Laplace). Which "
                "variant is best, and why?")

    def setup_code(self, p):
        return SCORE

    def solve(self, p):
        data = _data()
        out = []
        for kwargs in ({}, {"composition": "advanced"}, {"noise": "laplace"}):
            hist = noisy_gradient_descent(data.X_train, data.y_train, p["epsilon"], 1e-5, p["k"], p["clip"],
                                          rng=make_rng(0), **kwargs)[1]
            out.append(float(hist.iloc[-1]["sigma"]))
        return tuple(out)

    def parts(self, p):
        eps, k, c = p["epsilon"], p["k"], p["clip"]
        eps_seq, delta_seq = iteration_budget(0.95 * eps, 1e-5, k)[:2]
        eps_adv, delta_adv = iteration_budget(0.95 * eps, 1e-5, k, composition="advanced")[:2]
        lap_b = c * math.sqrt(12) / eps_seq
        return [Part.near("Gaussian, sequential", analytic_gaussian_sigma(c, eps_seq, delta_seq),
                          "sequential: σ = analytic_gaussian_sigma(C, 0.95ε/k, δ/k) (the history's sigma column)",
                          rtol=2e-3, mistakes=[Mistake.near(analytic_gaussian_sigma(c, eps / k, 1e-5 / k),
                                                            "the noisy count takes 5 % of ε first: ε_i = 0.95ε/k",
                                                            rtol=2e-3)]),
                Part.near("Gaussian, advanced", analytic_gaussian_sigma(c, eps_adv, delta_adv),
                          "advanced: the sigma column of a run with composition='advanced' (ε_i from "
                          "iteration_budget, δ_i = δ/(2k))", rtol=2e-3),
                Part.near("Laplace", math.sqrt(2) * lap_b, "Laplace: standard deviation √2·C·√d/ε_i with "
                          "ε_i = 0.95ε/k", rtol=2e-3,
                          mistakes=[Mistake.near(lap_b, "that is the Laplace scale b; its standard deviation is "
                                                 "√2·b", rtol=2e-3),
                                    Mistake.near(math.sqrt(2) * c / eps_seq, "Laplace noise needs the L1 bound "
                                                 "C·√d, with d = 12", rtol=2e-3)])]

    def exam(self):
        eps_i = 0.95 / 100
        b = 1.5 * math.sqrt(12) / eps_i
        return [ExamQuestion("ch11-laplace-sd", "A trainer adds Laplace noise to a sum of gradients clipped to L2 "
                             "norm $C = 1.5$ in $d = 12$ dimensions, at $\\varepsilon_i = 0.0095$ per step. What is "
                             "the per-coordinate noise standard deviation?", "choice", answer=f"{math.sqrt(2) * b:.1f}",
                             distractors=(f"{b:.1f}", f"{math.sqrt(2) * 1.5 / eps_i:.1f}"),
                             feedback=("that is the Laplace scale b; the standard deviation is √2·b",
                                       "the L1 sensitivity of a vector with L2 norm ≤ C is C·√d, not C"))]


class AccountingRoutes(Exercise):
    chapter, key, label, title = "11", "ex5", "ch11-ex5", "Many valid bounds for DP-SGD without sampling"
    randomness = "none"
    points, kind, exercise_type = 3.0, "mixed", "derivation"
    default = {"epsilon": 2.0, "q": 0.02, "steps": 500}
    shape, shape_hint = 2, "answer_ex5 must be a pair (z, epsilon without sampling)"
    missing = "set answer_ex5 to the pair (z, epsilon without sampling)"
    prompt = "Which tool gives the smallest ε, and why do the tools differ?"
    rubric = (
        RubricItem("the exact value", 2, "T full Gaussian releases with multiplier z are one Gaussian release with "
                   "μ = √T/z (GDP), whose ε(δ) is exact: the PLD accountant matches it up to its grid",
                   "names the PLD or exact route without the reason", "claims RDP or zCDP is exact"),
        RubricItem("what the others lose", 2, "RDP/zCDP lose the conversion's ln(1/δ) slack; the integer-order "
                   "accountant also cannot reach the best order (< 2 here); basic composition pays per-step δ/T",
                   "one of these reasons", "none, or reports ρ or a Rényi divergence as ε"),
        RubricItem("subsampling", 1, "subsampling (q) is what makes T steps affordable: the same z costs only the "
                   "target ε with sampling", "mentioned without the comparison", "missing"))

    def params(self, rng):
        # Kept near the book's numbers: there every valid bound is ≥ 3 % away from the named mistakes (ρ, 2ρ).
        return {"epsilon": 2.0, "q": 0.02, "steps": int(rng.choice([400, 500, 600]))}

    def statement(self, p):
        e, q, t = p["epsilon"], p["q"], p["steps"]
        return (f"You plan DP-SGD with sampling rate $q = {q:g}$ for $T = {t}$ steps at "
                f"$(\\varepsilon, \\delta) = ({e:g}, 10^{{-5}})$. Set `answer_ex5` to the pair ($z$, ε): the noise "
                f"multiplier $z$ = `dp_sgd_sigma({e:g}, 1e-5, {q:g}, {t})`, the smallest that the book's RDP "
                "accountant (integer orders) certifies; and an upper bound on the ε that the same $z$ and $T$ cost "
                "**without** subsampling, that is with $q = 1$, at the same δ. The ε must be the result of a valid "
                "analysis with the book's tools: `RdpAccountant`, `rdp_to_epsilon` at orders of your choice "
                "(fractional ones too), the zCDP conversion, `PldAccountant`, the exact Gaussian computation (all "
                "in Chapter 10), or basic composition of per-step bounds. Any such bound counts, from the exact ε "
                "up to basic composition; a number that is not an $(\\varepsilon, \\delta)$ guarantee, such as "
                "$\\rho$ or a Rényi divergence, does not, even where it exceeds the true ε. Report the smallest "
                "bound you can certify. Which tool gives the smallest ε, and why do they differ?")

    def setup_code(self, p):
        return ("from dp_lib import (PldAccountant, RdpAccountant, dp_sgd_sigma, gaussian_delta, gaussian_rdp,\n"
                "                    gaussian_zcdp, gdp_epsilon, rdp_to_epsilon, zcdp_to_epsilon)\n"
                "from dp_lib.events import GaussianEvent, Repeated\n")

    def _z(self, p):
        return dp_sgd_sigma(p["epsilon"], 1e-5, p["q"], p["steps"])

    def solve(self, p):
        z = self._z(p)
        return (z, gdp_epsilon(1e-5, math.sqrt(p["steps"]) / z))

    def parts(self, p):
        t, z = p["steps"], self._z(p)
        rho = t / (2 * z ** 2)  # T Gaussian releases are rho-zCDP
        exact = gdp_epsilon(1e-5, math.sqrt(t) / z)  # the smallest valid epsilon
        basic = t * zcdp_to_epsilon(rho / t, 1e-5 / t)  # the loosest route: per-step bounds, added up
        # The named mistakes come from the true z; 0.1 % (1 % for ρ, which no tool outputs as ε) covers rounding;
        # a fractional RDP order can land near 2ρ or the √T·z value, so those hints say so.
        return [Part.near("z", z, f"z should be dp_sgd_sigma({p['epsilon']:g}, 1e-5, {p['q']:g}, {t})", rtol=1e-3,
                          mistakes=[Mistake.near(dp_sgd_sigma(p["epsilon"], 1e-5, 1.0, t), "that z ignores the "
                                                 f"sampling: pass q = {p['q']:g}", rtol=0.01)]),
                Part.between("epsilon", 0.997 * exact, 1.05 * basic, "a valid bound lies between the exact ε and "
                             "basic composition of per-step bounds", mistakes=[
                                 Mistake("far too small for full Gaussian releases: did you keep q, compose one "
                                         f"step, or use the multiplier z·√{t} instead of z/√{t}?", -BIG, 10),
                                 Mistake.near(rho, f"that is ρ = {t}/(2z²), not an ε: convert it with "
                                              "zcdp_to_epsilon", rtol=0.01),
                                 Mistake.near(2 * rho, f"that is 2ρ = {t}·RDP(2), the Rényi divergence at the order "
                                              "the accountant picks, not an ε: convert it with rdp_to_epsilon (if it "
                                              "came from rdp_to_epsilon at some order, it is valid but not the "
                                              "smallest: try more orders)", rtol=1e-3),
                                 Mistake.near(gdp_epsilon(1e-5, math.sqrt(t) * z), f"{t} steps are one release with "
                                              f"μ = √{t}/z (Δ/σ per step is 1/z), not √{t}·z (if it came from "
                                              "rdp_to_epsilon at some order, it is valid but not the smallest: try "
                                              "more orders)", rtol=1e-3),
                                 Mistake.near(t * math.sqrt(2 * math.log(1.25 * t / 1e-5)) / z, "the classical "
                                              "Gaussian formula ε = √(2 ln(1.25/δ))·Δ/σ holds only for ε < 1; per "
                                              f"step it gives ε ≈ {math.sqrt(2 * math.log(1.25 * t / 1e-5)) / z:.1f} "
                                              "here: not a valid analysis (compose exact per-step bounds instead)",
                                              rtol=1e-3),
                                 Mistake(f"no analysis can certify less than {exact:.1f}, the exact ε of {t} "
                                         "Gaussian releases: a Rényi divergence is not an ε (convert it with "
                                         "rdp_to_epsilon)", -BIG, 0.997 * exact),
                                 Mistake(f"that is looser than basic composition of per-step bounds (about "
                                         f"{basic:.0f}): report the smallest bound you can certify",
                                         1.05 * basic, BIG)])]

    def exam(self):
        z = dp_sgd_sigma(2.0, 1e-5, 0.02, 500)
        rho = 500 / (2 * z ** 2)
        exact = gdp_epsilon(1e-5, math.sqrt(500) / z)
        return [ExamQuestion("ch11-gdp-exact", f"500 releases of a sensitivity-1 query, each with Gaussian noise of "
                             f"standard deviation $z = {z:.4f}$. What is the exact $\\varepsilon$ at "
                             "$\\delta = 10^{-5}$ (they are one Gaussian release with $\\mu = \\sqrt{500}/z$)? "
                             "Give one decimal.", "numeric", answer=round(exact, 1), tolerance=0.5),
                ExamQuestion("ch11-rho-not-eps", f"500 full Gaussian releases with multiplier $z = {z:.4f}$ are "
                             "$\\rho$-zCDP. Which number is a valid $\\varepsilon$ at $\\delta = 10^{-5}$?",
                             "choice", answer=f"{zcdp_to_epsilon(rho, 1e-5):.1f}",
                             distractors=(f"{rho:.1f}", f"{exact / 2:.1f}"),
                             feedback=("that is ρ itself, not an ε: convert with ρ + 2√(ρ ln(1/δ))",
                                       "below the exact ε: no analysis can certify it"))]


class SigmaByHand(Exercise):
    chapter, key, label, title = "11", "sigma", "ch11-ex-sigma", "The trainer's σ without running it"
    randomness = "none"
    answer = "answer_sigma"
    points, exercise_type = 2.0, "computation"
    default = {"epsilon": 1.0, "delta": 1e-5, "k": 50, "clip": 1.0}
    missing = "set answer_sigma to a number"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "delta": float(rng.choice([1e-5, 1e-6])),
                "k": int(rng.choice([25, 40, 50, 100])), "clip": float(rng.choice([0.5, 1.0, 2.0]))}

    def statement(self, p):
        return ("Without running the trainer, compute the per-coordinate noise standard deviation σ of one gradient "
                "step of `noisy_gradient_descent` with its defaults (5 % of ε for the noisy count, sequential "
                "composition, the analytic Gaussian calibration) for a total budget "
                f"$(\\varepsilon, \\delta) = ({p['epsilon']:g}, 10^{{{round(math.log10(p['delta']))}}})$, $k = {p['k']}$ iterations and "
                f"clipping norm $C = {p['clip']:g}$. Set `answer_sigma` to it.")

    def solve(self, p):
        return _sigma(p)

    def parts(self, p):
        e, d, k, c = p["epsilon"], p["delta"], p["k"], p["clip"]
        mistakes = [Mistake.near(analytic_gaussian_sigma(c, e / k, d / k), "the trainer's default noisy count takes "
                                 f"5 % of epsilon first: epsilon_i = 0.95 * {e:g} / {k}", rtol=2e-3),
                    Mistake.near(analytic_gaussian_sigma(c, 0.95 * e / k, d), "delta is split over the steps too: "
                                 f"delta_i = delta / {k}", rtol=2e-3)]
        if c != 1.5:
            mistakes.append(Mistake.near(analytic_gaussian_sigma(1.5, 0.95 * e / k, d / k), "the L2 sensitivity of "
                                         f"the clipped sum is C = {c:g} here, not the chapter's 1.5", rtol=2e-3))
        if k != 20:
            mistakes.append(Mistake.near(analytic_gaussian_sigma(c, 0.95 * e / 20, d / 20), "that is k = 20, the "
                                         f"chapter's default; this exercise has k = {k}", rtol=2e-3))
        return [Part.near("sigma", _sigma(p), "use the analytic calibration at (epsilon_i, delta_i) with sensitivity C",
                          rtol=2e-3, mistakes=mistakes)]

    def exam(self):
        p = {"epsilon": 2.0, "delta": 1e-5, "k": 40, "clip": 1.0}
        return [ExamQuestion("ch11-sigma", "`noisy_gradient_descent` (5 % of ε for the count, sequential "
                             "composition, analytic Gaussian calibration) runs $k = 40$ steps at "
                             "$(\\varepsilon, \\delta) = (2, 10^{-5})$ with clipping norm $C = 1$. What is the "
                             "per-coordinate noise standard deviation σ of one step? Give one decimal.", "numeric",
                             answer=round(_sigma(p), 1), tolerance=0.2)]


def _replace_sigma(p):
    """σ of one step calibrated to the replace-one sensitivity 2C at the trainer's per-step (ε_i, δ_i)."""
    eps_i, delta_i = 0.95 * p["epsilon"] / p["k"], p["delta"] / p["k"]
    return analytic_gaussian_sigma(2 * p["clip"], eps_i, delta_i)


class ReplaceOneSigma(Exercise):
    chapter, key, label, title = "11", "ex6", "ch11-ex6", "Replace-one neighbours: derive the sensitivity and σ"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    randomness = "none"  # a formula: the answer does not depend on the seed
    default = {"epsilon": 1.0, "delta": 1e-5, "k": 20, "clip": 1.5}
    missing = "set answer_ex6 to the pair (sensitivity, sigma)"
    shape, shape_hint = 2, "answer_ex6 is a pair: (the replace-one L2 sensitivity, σ of one step)"
    prompt = ("Show that the replace-one bound 2C is attained, and that the analytic Gaussian σ is proportional to "
              "the sensitivity, step by step.")
    rubric = (
        RubricItem("2C is attained", 2, "the difference of the sums is clip(g_u', C) − clip(g_u, C), at most 2C by "
                   "the triangle inequality; the theorem assumes nothing about the model, so a record with gradient "
                   "g_u = v, ‖v‖ ≥ C, replaced by one with g_u' = −v gives clip(−v) − clip(v) = −2C·v/‖v‖, of norm "
                   "exactly 2C: no smaller bound holds for all models and data",
                   "the upper bound only, or an attaining pair without checking the clipped norms",
                   "states 2C without argument"),
        RubricItem("σ scales with Δ", 2, "the analytic condition Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ "
                   "depends on σ and Δ only through σ/Δ, so the smallest σ for 2C is exactly twice the one for C "
                   "(equivalently: M(D)/Δ is the mechanism with sensitivity 1, and rescaling is post-processing)",
                   "says 'σ is linear in Δ' without the reason", "missing, or σ scaled by √2 or 4"),
        RubricItem("the number and its meaning", 1, "σ = 2·analytic_gaussian_sigma(C, ε_i, δ_i), evaluated; "
                   "the same budget buys half the signal-to-noise under replace-one (or: keeping the add/remove σ "
                   "gives only (2ε_i, (1 + e^ε_i)δ_i) per step by group privacy)", "number only", "missing"))

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "delta": float(rng.choice([1e-5, 1e-6])),
                "k": int(rng.choice([10, 20, 50])), "clip": float(rng.choice([0.5, 1.0, 1.5, 2.0]))}

    def statement(self, p):
        e, d, k, c = p["epsilon"], p["delta"], p["k"], p["clip"]
        return ("Under *replace-one* neighbours (the same $n$, one person's record replaced by another), the "
                "theorem on the clipped sum bounds the L2 sensitivity of "
                "$S_C(D) = \\sum_{u \\in D} \\operatorname{clip}(g_u(\\theta), C)$ by $2C$. (a) Show that this bound is "
                "attained: give two per-example gradients (of any model; the theorem assumes nothing about it) whose "
                "swap moves the sum by exactly $2C$. (b) Show from the analytic "
                "Gaussian condition that the smallest σ is proportional to the sensitivity. (c) For the trainer's "
                f"per-step budget at $(\\varepsilon, \\delta) = ({e:g}, 10^{{{round(math.log10(d))}}})$, $k = {k}$, "
                f"$(\\varepsilon_i, \\delta_i) = (0.95\\varepsilon/k, \\delta/k)$, and $C = {c:g}$, compute the σ "
                "that makes one step $(\\varepsilon_i, \\delta_i)$-DP for replace-one neighbours. Set "
                "`answer_ex6 = (sensitivity, sigma)`. Write (a) and (b) in a Markdown cell.")

    def solve(self, p):
        return (2 * p["clip"], _replace_sigma(p))

    def parts(self, p):
        e, d, k, c = p["epsilon"], p["delta"], p["k"], p["clip"]
        eps_i, delta_i = 0.95 * e / k, d / k
        sigma = _replace_sigma(p)
        add_remove = analytic_gaussian_sigma(c, eps_i, delta_i)
        mistakes = [Mistake.near(add_remove, "that σ is calibrated to C, the add/remove sensitivity; replace-one "
                                 "needs 2C", rtol=1e-3),
                    Mistake.near(math.sqrt(2) * add_remove, "σ does not grow with √2: the condition depends on σ/Δ "
                                 "only, so doubling Δ doubles σ", rtol=1e-3),
                    Mistake.near(4 * add_remove, "4σ: the variance grows fourfold, σ only twofold", rtol=1e-3)]
        classic = 2 * c * math.sqrt(2 * math.log(1.25 / delta_i)) / eps_i
        if abs(classic / sigma - 1) > 0.01:
            mistakes.append(Mistake.near(classic, "that is the classic calibration √(2 ln(1.25/δ))Δ/ε; the trainer "
                                         "uses the analytic one (analytic_gaussian_sigma)", rtol=1e-3))
        return [Part.near("sensitivity", 2 * c, "the replace-one L2 sensitivity of the clipped sum is 2C", rtol=1e-9,
                          mistakes=[Mistake.near(c, "C is the add/remove sensitivity: a replacement removes one "
                                                 "clipped gradient and adds another", rtol=1e-9),
                                    Mistake.near(math.sqrt(2) * c, "√2·C holds only for orthogonal gradients; "
                                                 "opposite ones give 2C", rtol=1e-6)]),
                Part.near("sigma", sigma, "σ = analytic_gaussian_sigma(2C, ε_i, δ_i) = 2·analytic_gaussian_sigma(C, "
                          "ε_i, δ_i)", rtol=1e-3, mistakes=mistakes)]

    def exam(self):
        sigma = 2 * analytic_gaussian_sigma(1.0, 0.05, 1e-6)
        return [ExamQuestion("ch11-replace-sigma", "One step of noisy gradient descent clips per-example gradients "
                             "to norm $C = 1$ and must be $(0.05, 10^{-6})$-DP for replace-one neighbours with the "
                             "analytic Gaussian calibration. What σ does it need? Give one decimal.", "numeric",
                             answer=round(sigma, 1), tolerance=0.2),
                ExamQuestion("ch11-replace-sensitivity", "The sum of per-example gradients clipped to norm C: what "
                             "is its L2 sensitivity under replace-one neighbours, and why can it not be smaller?",
                             "choice", answer="2C: swapping a record for one whose clipped gradient points the "
                             "opposite way moves the sum by exactly 2C",
                             distractors=("C: one record changes", "√2·C: the two gradients add in quadrature"),
                             feedback=("C is add/remove; a replacement removes one gradient and adds another",
                                       "√2·C holds only for orthogonal gradients; opposite ones give 2C"))]


# In the chapter's order: the σ exercise comes last, so the displayed numbers follow answer_ex1 ... answer_ex6.
EXERCISES = [PerIterationBudget(), ClipSweep(), SmallData(), ThreeSigmas(), AccountingRoutes(), ReplaceOneSigma(),
             SigmaByHand()]
