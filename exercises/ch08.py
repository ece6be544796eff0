"""Exercises of Chapter 8, Private statistics (chapters/08_private_statistics.ipynb).

Setup: numpy as np, pandas as pd, math, scipy.stats as stats, opendp.prelude as dp (contrib enabled); from dp_lib:
PrivacyAccountant, bootstrap_interval, coverage_interval, independence_test, laplace_mech, load_adult, make_rng,
mean_noise_sd, naive_interval, noise_aware_interval, noise_variance, private_mean, private_proportion,
private_range, private_table, rejection_rate, sampling_variance, simulate_coverage; from dp_lib.selfcheck: check;
adult = load_adult(); ages = adult["Age"].to_numpy(dtype=float); rich = (adult["Target"] == ">50K").to_numpy();
rng = make_rng(seed).
"""

from __future__ import annotations

import math

from scipy import stats

from dp_lib import ProportionRelease, mean_noise_sd, naive_interval, noise_aware_interval
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """import math

import numpy as np
import opendp.prelude as dp
import pandas as pd
from scipy import stats
from dp_lib import (PrivacyAccountant, bootstrap_interval, coverage_interval, independence_test, laplace_mech,
                    load_adult, make_rng, mean_noise_sd, naive_interval, noise_aware_interval, noise_variance,
                    private_mean, private_proportion, private_range, private_table, rejection_rate,
                    sampling_variance, simulate_coverage)
from dp_lib.selfcheck import check
dp.enable_features("contrib")
adult = load_adult()
ages = adult["Age"].to_numpy(dtype=float)
rich = (adult["Target"] == ">50K").to_numpy()
"""


class MeanNoiseSd(Exercise):
    chapter, key, label, title = "08", "ex1", "ch08-ex1", "The noise of private_mean"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    exercise_type = "derivation"
    default = {"n": 500, "lower": 0.0, "upper": 100.0, "epsilon": 0.5}
    missing = "set answer_ex1 to a number"
    prompt = "Show your derivation: the sensitivity, the Laplace scale and why the count's noise does not matter."
    rubric = (
        RubricItem("sensitivity and budget", 1.0,
                   "the centred sum has sensitivity h = (U − L)/2 and gets ε/3 (count, sum, squares), so "
                   "b_S = 3h/ε",
                   "one of the two right (h or the three-way split)", "neither"),
        RubricItem("first-order argument", 1.0,
                   "at the midpoint the centred sum is about 0, so the noisy count moves the mean only to second "
                   "order and the sd is √2·b_S/n",
                   "uses √2·b_S/n without the argument",
                   "adds the count's noise as a first-order term, or forgets √2"),
    )

    def params(self, rng):
        lower, upper = [(0.0, 100.0), (0.0, 50.0), (20.0, 80.0)][int(rng.integers(3))]
        return {"n": int(rng.choice([200, 500, 1000])), "lower": lower, "upper": upper,
                "epsilon": float(rng.choice([0.25, 0.5, 1.0]))}

    def statement(self, p):
        return ("Derive the standard deviation of the DP noise in `private_mean`'s mean for "
                f"$n = {p['n']}$, the range $[{p['lower']:g}, {p['upper']:g}]$ and $\\varepsilon = {p['epsilon']:g}$, "
                "when the mean sits at the midpoint. Set `answer_ex1` to it (a number).")

    def solve(self, p):
        return float(mean_noise_sd(p["n"], p["lower"], p["upper"], p["epsilon"]))

    def parts(self, p):
        n, width, eps = p["n"], p["upper"] - p["lower"], p["epsilon"]
        h = width / 2
        return [Part.near("sd", self.solve(p), "sd = √2·(3h/ε)/n", rtol=0.01,
                          mistakes=[Mistake.near(math.sqrt(2) * (h / eps) / n, "the budget is split in three: "
                                                 "ε/3 per sum", rtol=0.02),
                                    Mistake.near(math.sqrt(2) * (3 * width / eps) / n, "the centred sum's "
                                                 "sensitivity is h = (U - L)/2", rtol=0.02),
                                    Mistake.near((3 * h / eps) / n, "Lap(b) has standard deviation √2·b, not b",
                                                 rtol=0.02)])]

    def exam(self):
        p = {"n": 1000, "lower": 0.0, "upper": 100.0, "epsilon": 1.0}
        right = self.solve(p)
        return [ExamQuestion("ch08-mean-sd", "`private_mean` splits $\\varepsilon$ in three (count, centred sum, "
                             "sum of squares). For $n = 1000$ values in $[0, 100]$, $\\varepsilon = 1$ and a mean at "
                             "the midpoint, what is the standard deviation of the noise in the mean?", "choice",
                             answer=f"{right:.4f}",
                             distractors=(f"{math.sqrt(2) * 50 / 1000:.4f}", f"{math.sqrt(2) * 300 / 1000:.4f}",
                                          f"{150 / 1000:.4f}"),
                             feedback=("forgets the three-way split of ε", "uses U − L instead of h = (U − L)/2",
                                       "b/n: the standard deviation of Lap(b) is √2·b")),
                ExamQuestion("ch08-mean-sd-numeric", "Same mechanism (ε split in three, centred sum of sensitivity "
                             "$h = (U - L)/2$): $n = 200$ values in $[20, 80]$, $\\varepsilon = 0.5$, mean at the "
                             "midpoint. What is the standard deviation of the noise in the mean? Three decimals.",
                             "numeric", answer=round(self.solve({"n": 200, "lower": 20.0, "upper": 80.0,
                                                                 "epsilon": 0.5}), 3), tolerance=0.002)]


class ProportionHalfWidth(Exercise):
    chapter, key, label, title = "08", "ex2", "ch08-ex2", "A noise-aware interval for a proportion"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    default = {"epsilon": 0.1, "proportion": 0.3, "count": 400.0}
    missing = "set answer_ex2 to the half-width"
    prompt = "How much wider than the naive one is it (as a ratio of half-widths)?"
    rubric = (
        RubricItem("ratio", 1.0, "the ratio of the two half-widths, computed (about 1.5 for the book's numbers), and "
                   "the reason: the noise variance 2b²((1 − p)² + p²)/ñ² is comparable to the sampling variance at "
                   "this ε and count", "the ratio without the reason, or the reason without the number",
                   "no ratio"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.1, 0.2])), "proportion": float(rng.choice([0.2, 0.3, 0.4])),
                "count": float(rng.choice([200.0, 400.0]))}

    def statement(self, p):
        return (f"A proportion was released with `private_proportion` at $\\varepsilon = {p['epsilon']:g}$: "
                f"$\\hat p = {p['proportion']:g}$ from a noisy total $\\tilde n = \\tilde c_1 + \\tilde c_0 = {p['count']:g}$. Compute the half-width of the "
                "noise-aware 95 % interval (`noise_aware_interval`) and set `answer_ex2`. How much wider than the "
                "naive one (`naive_interval`) is it (as a ratio of half-widths)?")

    def _release(self, p):
        return ProportionRelease(proportion=p["proportion"], count=p["count"], epsilon=p["epsilon"])

    def solve(self, p):
        low, high = noise_aware_interval(self._release(p))
        return float(high - low) / 2

    def parts(self, p):
        low, high = naive_interval(self._release(p))
        b = 1 / p["epsilon"]
        return [Part.near("half-width", self.solve(p), "half-width = z·√(p(1-p)/n + 2b²((1-p)² + p²)/n²) with "
                          f"b = 1/ε = {b:g} and z ≈ 1.96", rtol=0.0, atol=0.001,
                          mistakes=[Mistake.near(float(high - low) / 2, "that is the naive half-width: add the noise "
                                                 "variance", rtol=0.0, atol=0.002),
                                    Mistake.near(2 * self.solve(p), "that is the full width high − low; the "
                                                 "half-width is half of it", rtol=0.0, atol=0.002)])]

    def exam(self):
        p = {"epsilon": 0.2, "proportion": 0.3, "count": 400.0}
        return [ExamQuestion("ch08-halfwidth", "A proportion $\\hat p = 0.3$ was released from a noisy total "
                             "$\\tilde n = 400$ at $\\varepsilon = 0.2$ (the count's noise is $\\mathrm{Lap}(1/\\varepsilon)$). "
                             "The noise-aware 95 % half-width is $1.96\\sqrt{\\hat p(1-\\hat p)/\\tilde n + "
                             "2b^2((1-\\hat p)^2 + \\hat p^2)/\\tilde n^2}$. Compute it (three decimals).", "numeric",
                             answer=round(self.solve(p), 3), tolerance=0.001)]


class BudgetAfterRange(Exercise):
    chapter, key, label, title = "08", "ex3", "ch08-ex3", "The mean's scale after a private range"
    randomness = "none"
    points = 2.0
    default = {"total": 1.0, "range_epsilon": 0.2, "lower": 20.0, "upper": 60.0}
    missing = "set answer_ex3 to the scale"

    def params(self, rng):
        lower, upper = [(20.0, 60.0), (10.0, 90.0), (30.0, 70.0)][int(rng.integers(3))]
        return {"total": float(rng.choice([1.0, 2.0])), "range_epsilon": float(rng.choice([0.2, 0.5])),
                "lower": lower, "upper": upper}

    def statement(self, p):
        return (f"An analyst has $\\varepsilon = {p['total']:g}$ in total. She spends $\\varepsilon = "
                f"{p['range_epsilon']:g}$ on `private_range` and gets the range $[{p['lower']:g}, {p['upper']:g}]$, "
                "then spends the rest on `private_mean`. What Laplace scale does the centred sum get? Set "
                "`answer_ex3`.")

    def solve(self, p):
        return 3 * (p["upper"] - p["lower"]) / 2 / (p["total"] - p["range_epsilon"])

    def parts(self, p):
        h, rest = (p["upper"] - p["lower"]) / 2, p["total"] - p["range_epsilon"]
        width = p["upper"] - p["lower"]
        return [Part.near("scale", self.solve(p), f"b = 3h/ε with ε = {rest:g} and h = {h:g}", rtol=1e-3,
                          mistakes=[Mistake.near(3 * h / p["total"], f"the range cost {p['range_epsilon']:g} of the "
                                                 f"budget: the mean has ε = {rest:g}, not {p['total']:g}", rtol=1e-3),
                                    Mistake.near(3 * width / rest, f"the centred sum's sensitivity is h = "
                                                 f"({p['upper']:g} - {p['lower']:g})/2 = {h:g}, not {width:g}",
                                                 rtol=1e-3),
                                    Mistake.near(h / rest, f"ε = {rest:g} is split in three (count, sum, squares)",
                                                 rtol=1e-3)])]

    def exam(self):
        p = {"total": 2.0, "range_epsilon": 0.5, "lower": 10.0, "upper": 90.0}
        return [ExamQuestion("ch08-range-budget", "With $\\varepsilon = 2$ in total, an analyst spends 0.5 on a "
                             "private range and gets $[10, 90]$; `private_mean` then splits the rest in three. What "
                             "Laplace scale does the centred sum get?", "choice", answer=f"{self.solve(p):g}",
                             distractors=(f"{3 * 40 / 2:g}", f"{3 * 80 / 1.5:g}", f"{40 / 1.5:.3g}"),
                             feedback=("the range's 0.5 was already spent: the mean has ε = 1.5",
                                       "the centred sum's sensitivity is h = (U − L)/2 = 40",
                                       "ε = 1.5 is split in three"))]


# Sizes of the two tests under null_cells: 20,000 trials each, draws=300, rng=make_rng(811) (the script is
# _reference_sizes below; about 15 s each, so they are stored).
_SIZES = {(500, 0.2): (0.04905, 0.1455), (500, 0.1): (0.04865, 0.329), (1000, 0.2): (0.0495, 0.0994),
          (1000, 0.1): (0.0465, 0.22065), (300, 0.2): (0.0467, 0.2009)}


def _reference_sizes(n: int, epsilon: float, trials: int = 20_000) -> tuple[float, float]:
    import numpy as np

    from dp_lib import make_rng, rejection_rate

    null_cells = np.outer([2 / 3, 1 / 3], [0.76, 0.24])
    r = rejection_rate(null_cells, n, epsilon, trials, rng=make_rng(811), draws=300)
    return r["private"], r["classical"]


def _binomial_interval(rate: float, trials: int = 2_000, n_ref: int = 20_000) -> tuple[float, float]:
    """Rates a student's ``trials``-trial measurement can honestly show: the binomial 1e-5 and 1 − 1e-5 quantiles
    (more than 4 standard errors) at the reference rate ± 3 of its own standard errors.

    At 2,000 trials every classical interval excludes 5 % and the classical size at the other n with the same ε
    (and at the other ε with the same n), so "check n and ε" is the right hint; 500 trials could not tell them apart.
    """
    se_ref = math.sqrt(rate * (1 - rate) / n_ref)
    lo = stats.binom.ppf(1e-5, trials, max(rate - 3 * se_ref, 1e-4)) / trials
    hi = stats.binom.isf(1e-5, trials, min(rate + 3 * se_ref, 1 - 1e-4)) / trials
    return float(lo), float(hi)


class TestSize(Exercise):
    chapter, key, label, title = "08", "ex4", "ch08-ex4", "The size of the private and the classical test"
    randomness = "draws"  # rejection_rate's trials drawn from the setup's rng
    points = 3.0
    kind = "mixed"
    exercise_type = "find-the-bug"
    default = {"n": 500, "epsilon": 0.2}
    missing = "set answer_ex4 to the dictionary rejection_rate returns"
    prompt = "Which test would you publish?"
    rubric = (
        RubricItem("choice", 1.0, "the private (Monte Carlo) test", "hesitates between the two", "the classical test"),
        RubricItem("reason", 2.0,
                   "its size is about the nominal 5 % (a little less: approximate), while the classical χ² test read "
                   "on the noisy table rejects a true null several times as often, because it ignores the noise: its "
                   "p-values do not mean what they say",
                   "mentions the sizes without explaining the classical test's excess", "no reason"),
    )

    def params(self, rng):
        n, eps = list(_SIZES)[int(rng.integers(len(_SIZES)))]
        return {"n": n, "epsilon": eps}

    def statement(self, p):
        return (f"Measure the size of both tests at $n = {p['n']}$ and $\\varepsilon = {p['epsilon']:g}$ under "
                "`null_cells` with `rejection_rate` (at least 2,000 trials) and set `answer_ex4` to its result. Which "
                "test would you publish?")

    def setup_code(self, p):
        return "null_cells = np.outer([2 / 3, 1 / 3], [0.76, 0.24])\n"

    def solve(self, p):
        private, classical = _SIZES[(p["n"], p["epsilon"])]
        return {"private": private, "classical": classical, "trials": 20_000}

    def parts(self, p):
        # The rates depend on the student's rng: intervals from the binomial law of a 2,000-trial measurement
        # (more trials only narrow it), see _binomial_interval.
        private, classical = _SIZES[(p["n"], p["epsilon"])]
        p_lo, p_hi = _binomial_interval(private)
        c_lo, c_hi = _binomial_interval(classical)
        return [Part.between("trials", 2_000, 1e5, "use at least 2,000 trials, or the measured size is too rough",
                             path=".trials"),
                Part.between("private", p_lo, p_hi, "the private test should reject about 5 % of the time: did you "
                             "pass null_cells?", path=".private"),
                Part.between("classical", c_lo, c_hi, f"at n = {p['n']} and ε = {p['epsilon']:g} the classical size "
                             f"is about {round(100 * classical)} %: check n and ε", path=".classical")]

    def exam(self):
        return [ExamQuestion("ch08-size", "A χ² independence test is run, as if exact, on a 2×2 table released with "
                             "Laplace noise. Under independence, how often does it reject at level 5 %?", "choice",
                             answer="more than 5 %: the noise adds variance the χ² law ignores",
                             distractors=("about 5 %: the noise has mean zero", "less than 5 %: noise hides effects"),
                             feedback=("mean-zero noise still inflates the statistic",
                                       "that holds for power under an effect, not for the size"))]


EXERCISES = [MeanNoiseSd(), ProportionHalfWidth(), BudgetAfterRange(), TestSize()]
