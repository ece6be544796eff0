"""Exercises of Chapter 10, Accounting for many steps (chapters/10_accounting.ipynb).

Setup: numpy as np, pandas as pd, math; from dp_lib: PldAccountant, advanced_epsilon, clt_mu, dp_sgd_sigma,
gaussian_pld, gaussian_rdp, gaussian_zcdp, gdp_compose, gdp_delta, gdp_epsilon, laplace_pld, make_rng,
optimal_composition_epsilon, randomized_response_pld, rdp_to_epsilon, subsampled_gaussian_pld,
subsampled_gaussian_rdp, two_batch_shuffle_delta, zcdp_to_epsilon; from dp_lib.events: GaussianEvent, LaplaceEvent,
PoissonSampled, RandomizedResponseEvent, Repeated; from dp_lib.selfcheck: check; rng = make_rng(seed) (no data).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dp_lib import (PldAccountant, advanced_epsilon, clt_mu, gaussian_rdp, gaussian_zcdp, gdp_delta, gdp_epsilon,
                    optimal_composition_epsilon, rdp_to_epsilon, two_batch_shuffle_delta, zcdp_to_epsilon)
from dp_lib.events import GaussianEvent, LaplaceEvent, PoissonSampled, Repeated
from exercises._core import ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """import math

import numpy as np
import pandas as pd
from dp_lib import (PldAccountant, advanced_epsilon, clt_mu, dp_sgd_sigma, gaussian_pld, gaussian_rdp,
                    gaussian_zcdp, gdp_compose, gdp_delta, gdp_epsilon, laplace_pld, make_rng,
                    optimal_composition_epsilon, randomized_response_pld, rdp_to_epsilon, subsampled_gaussian_pld,
                    subsampled_gaussian_rdp, two_batch_shuffle_delta, zcdp_to_epsilon)
from dp_lib.events import GaussianEvent, LaplaceEvent, PoissonSampled, RandomizedResponseEvent, Repeated
from dp_lib.selfcheck import check
"""

_HUGE = 1e12  # "any larger value" (JSON has no infinity)


def _delta_text(delta: float) -> str:
    return f"10^{{{round(math.log10(delta))}}}"


@functools.lru_cache(maxsize=32)
def _laplace_pld_epsilon(scale: float, k: int, delta: float) -> float:
    return float(PldAccountant(0.001).compose(Repeated(LaplaceEvent(scale=scale), k)).epsilon(delta))


class DashboardEpsilon(Exercise):
    chapter, key, label, title = "10", "ex1", "ch10-ex1", "A dashboard of Laplace counts"
    randomness = "none"
    points = 2.0
    default = {"k": 100, "epsilon": 0.5, "delta": 1e-6}
    missing = "set answer_ex1 to the total epsilon"

    def params(self, rng):
        return {"k": int(rng.choice([50, 100, 200])), "epsilon": float(rng.choice([0.25, 0.5, 0.8])),
                "delta": float(rng.choice([1e-6, 1e-5]))}

    def statement(self, p):
        return (f"A dashboard releases {p['k']} counts, each with Laplace noise at $\\varepsilon = {p['epsilon']:g}$ "
                "(sensitivity 1). What total ε′ does the PLD accountant certify at "
                f"$\\delta' = {_delta_text(p['delta'])}$? Set `answer_ex1` to it (within 2 %); a looser valid bound, "
                "such as basic or optimal composition of the ε-DP steps, is named as loose.")

    def solve(self, p):
        return _laplace_pld_epsilon(1 / p["epsilon"], p["k"], p["delta"])

    def parts(self, p):
        k, eps, delta = p["k"], p["epsilon"], p["delta"]
        tight = self.solve(p)
        # The exercise asks for the PLD accountant's ε: below tight − k·h no accountant can certify (the PLD with
        # splitting is at most k·h above the exact ε); above 1.02·tight a valid but loose bound is named as loose
        # (optimal composition of ε-DP steps is ≥ 4 % above the PLD at every drawn parameter set).
        loose = "valid but loose: the PLD accountant certifies less; compose Repeated(LaplaceEvent(scale=1/ε), k)"
        return [Part.between("epsilon", tight - k * 0.001, 1.02 * tight, "below what any valid accountant can "
                             f"certify: check delta = {delta:g}",
                             mistakes=[*self._scale_and_basic_mistakes(k, eps, delta, loose),
                                       Mistake.near(float(advanced_epsilon(eps, k, delta)), f"{loose}: that is "
                                                    "advanced composition", rtol=0.01),
                                       Mistake.near(optimal_composition_epsilon(eps, k, delta), f"{loose}: that is the "
                                                    "optimal composition of arbitrary ε-DP steps, and Laplace steps "
                                                    "are not the worst case", rtol=0.01),
                                       Mistake(loose, 1.02 * tight, _HUGE)])]

    @staticmethod
    def _scale_and_basic_mistakes(k: int, eps: float, delta: float, loose: str) -> list[Mistake]:
        """ε passed as the Laplace scale, and basic composition k·ε; one hint naming both where they coincide."""
        wrong_scale = _laplace_pld_epsilon(eps, k, delta)
        scale_hint = f"LaplaceEvent takes the scale b = sensitivity / epsilon = {1 / eps:g}, not epsilon"
        basic_hint = f"{loose}: k·ε is basic composition"
        if abs(wrong_scale / (k * eps) - 1) < 0.03:  # (k, ε, δ) = (200, 0.8, 1e-5): 161.0 against 160
            return [Mistake(f"either {scale_hint}, or {basic_hint}", min(wrong_scale, k * eps) * 0.98,
                            max(wrong_scale, k * eps) * 1.02)]
        return [Mistake.near(wrong_scale, scale_hint, rtol=0.02), Mistake.near(k * eps, basic_hint, rtol=0.01)]

    def exam(self):
        pld = _laplace_pld_epsilon(2.0, 100, 1e-6)
        opt = optimal_composition_epsilon(0.5, 100, 1e-6)
        return [ExamQuestion("ch10-dashboard", "100 counts are each released with Laplace noise at "
                             "$\\varepsilon = 0.5$ (sensitivity 1). Which total $\\varepsilon'$ at "
                             "$\\delta' = 10^{-6}$ is the smallest valid one among these?", "choice",
                             answer=f"{pld:.1f} (PLD of the Laplace steps)",
                             distractors=("50 (basic composition)", f"{opt:.1f} (optimal composition of 0.5-DP steps)",
                                          "5.0 (ε·√k)"),
                             feedback=("valid, but basic composition ignores δ'",
                                       "valid for arbitrary 0.5-DP steps, but Laplace steps are not the worst case",
                                       "not a valid bound: no composition theorem gives ε·√k without a δ' term"))]


@functools.lru_cache(maxsize=32)
def _sgd_pld(q: float, z: float, steps: int, delta: float) -> float:
    return float(PldAccountant(1e-3).compose(Repeated(PoissonSampled(q, GaussianEvent(z)), steps)).epsilon(delta))


class CltVersusPld(Exercise):
    chapter, key, label, title = "10", "ex2", "ch10-ex2", "CLT and PLD for DP-SGD"
    randomness = "none"
    points = 3.0
    kind = "mixed"
    default = {"steps": 5000, "q": 0.02, "z": 1.5}
    shape, shape_hint = 3, "answer_ex2 must be (mu, eps_clt, eps_pld)"
    missing = "answer_ex2 must be (mu, eps_clt, eps_pld)"
    prompt = "Which one may you report?"
    rubric = (
        RubricItem("which", 1.0, "the PLD's ε", "hesitates", "the CLT's ε"),
        RubricItem("why", 1.0, "the PLD accountant gives an upper bound (pessimistic discretisation); the CLT is an "
                   "approximation that can understate ε (it is exact only in the limit T → ∞ with q√T fixed)",
                   "says the PLD is 'more accurate' without saying it is a bound", "no reason"),
    )

    def params(self, rng):
        return {"steps": int(rng.choice([1000, 5000])), "q": float(rng.choice([0.01, 0.02])),
                "z": float(rng.choice([1.0, 1.5, 2.0]))}

    def statement(self, p):
        return (f"DP-SGD runs $T = {p['steps']}$ steps with $q = {p['q']:g}$ and noise multiplier $z = {p['z']:g}$. "
                "Compute the CLT's μ (`clt_mu`) and its ε at δ = 10⁻⁵ (`gdp_epsilon`), and the PLD accountant's ε. "
                "Set `answer_ex2 = (mu, eps_clt, eps_pld)`. Which one may you report?")

    def solve(self, p):
        mu = clt_mu(p["q"], p["z"], p["steps"])
        return (mu, gdp_epsilon(1e-5, mu), _sgd_pld(p["q"], p["z"], p["steps"], 1e-5))

    def parts(self, p):
        q, z, steps = p["q"], p["z"], p["steps"]
        mu = q * math.sqrt(steps * math.expm1(1 / z ** 2))
        pld = _sgd_pld(q, z, steps, 1e-5)
        return [Part.near("mu", mu, "mu = q sqrt(T (e^(1/z^2) - 1))", rtol=0.01,
                          mistakes=[Mistake.near(q * math.sqrt(steps) / z, "that is q sqrt(T)/z: the CLT uses "
                                                 "e^(1/z^2) - 1, not 1/z^2", rtol=0.01)]),
                Part.near("eps_clt", gdp_epsilon(1e-5, mu), "convert mu with gdp_epsilon(1e-5, mu)", rtol=0.01),
                Part.between("eps_pld", pld - 0.01, 1.05 * pld, "compose Repeated(PoissonSampled(q, GaussianEvent(z)), T)")]

    def exam(self):
        mu = clt_mu(0.01, 1.0, 1000)
        return [ExamQuestion("ch10-clt-mu", "The CLT for $T = 1000$ Poisson-subsampled Gaussian steps with $q = 0.01$ "
                             "and noise multiplier $z = 1$ gives $\\mu = q\\sqrt{T(e^{1/z^2} - 1)}$. Compute it "
                             "(three decimals).", "numeric", answer=round(mu, 3), tolerance=0.001),
                ExamQuestion("ch10-clt-report", "For DP-SGD you computed the CLT's ε and the PLD accountant's ε. "
                             "Which may you report as a guarantee?", "choice",
                             answer="the PLD accountant's: it is an upper bound",
                             distractors=("the CLT's: it is exact for large T", "the smaller of the two"),
                             feedback=("the CLT is an approximation (a limit T → ∞ with q√T fixed), not a bound",
                                       "the CLT's value may understate ε; only the bound may be reported"))]


def _orders() -> np.ndarray:
    return np.round(np.arange(1.01, 256.001, 0.01), 2)


@functools.lru_cache(maxsize=32)
def _rdp_answer(k: int, z: float, delta: float) -> tuple[float, float]:
    eps, order = rdp_to_epsilon(_orders(), k * gaussian_rdp(_orders(), z), delta)
    return float(eps), float(order)


class FractionalOrders(Exercise):
    chapter, key, label, title = "10", "ex3", "ch10-ex3", "RDP with fractional orders"
    randomness = "none"
    points = 2.0
    default = {"k": 200, "z": 1.0}
    shape, shape_hint = 2, "answer_ex3 must be (epsilon, best_order)"
    missing = "answer_ex3 must be (epsilon, best_order)"

    def params(self, rng):
        # (100, 1.5) is left out: there the integer-order and the zCDP conversions are within 0.5 of each other
        k, z = [(100, 0.8), (100, 1.0), (200, 0.8), (200, 1.0), (200, 1.5), (400, 0.8), (400, 1.0),
                (400, 1.5)][int(rng.integers(8))]
        return {"k": k, "z": z}

    def statement(self, p):
        words = {100: "One hundred", 200: "Two hundred", 400: "Four hundred"}
        return (f"{words.get(p['k'], str(p['k']))} Gaussian releases have noise multiplier $z = {p['z']:g}$ "
                "(sensitivity 1). Using `gaussian_rdp` and `rdp_to_epsilon` with orders from 1.01 (step 0.01) to 256, "
                "find ε at δ = 10⁻⁶ and the best order. Set `answer_ex3 = (epsilon, best_order)`.")

    def solve(self, p):
        return _rdp_answer(p["k"], p["z"], 1e-6)

    def parts(self, p):
        k, z = p["k"], p["z"]
        eps, order = self.solve(p)
        integer = np.arange(2, 257, dtype=float)
        near = dict(rtol=0.0, atol=0.5)  # honest rounding to one decimal passes
        return [Part.near("epsilon", eps, f"epsilon = rdp_to_epsilon(orders, {k} * gaussian_rdp(orders, {z:g}), "
                          "1e-6)[0]", **near,
                          mistakes=[Mistake.near(rdp_to_epsilon(integer, k * gaussian_rdp(integer, z), 1e-6)[0],
                                                 "integer orders only: start at 1.01", **near),
                                    Mistake.near(_rdp_answer(k, z, 1e-7)[0], "that is delta = 1e-7; use 1e-6", **near),
                                    Mistake.near(zcdp_to_epsilon(k * gaussian_zcdp(z), 1e-6), "that is the zCDP "
                                                 "conversion, not rdp_to_epsilon", **near),
                                    Mistake.near(_rdp_answer(1, z, 1e-6)[0], f"multiply the RDP curve by {k} "
                                                 "releases", **near)]),
                Part.near("best_order", order, "the best order is the second value rdp_to_epsilon returns", rtol=0.0,
                          atol=0.05)]

    def exam(self):
        eps, order = _rdp_answer(200, 1.0, 1e-6)
        integer = np.arange(2, 257, dtype=float)
        eps_int = rdp_to_epsilon(integer, 200 * gaussian_rdp(integer, 1.0), 1e-6)[0]
        return [ExamQuestion("ch10-orders", "200 Gaussian releases with $z = 1$ are converted from RDP to "
                             "$(\\varepsilon, 10^{-6})$-DP. Which ε do fractional orders (from 1.01) give?", "choice",
                             answer=f"{eps:.1f} (best order {order:.2f})",
                             distractors=(f"{eps_int:.1f} (best order 2)",
                                          f"{zcdp_to_epsilon(200 * gaussian_zcdp(1.0), 1e-6):.1f}"),
                             feedback=("integer orders stop at 2, far from the best order near 1",
                                       "that is the zCDP conversion"))]


_GRID = np.round(np.arange(0, 3.001, 0.05), 2)


@functools.lru_cache(maxsize=16)
def _shuffle_gaps(sigma: float) -> tuple[tuple[float, bool], ...]:
    """(ε, shuffled δ > Poisson δ) on the grid 0, 0.05, …, 3."""
    acc = PldAccountant().compose(Repeated(PoissonSampled(0.5, GaussianEvent(sigma)), 2))
    return tuple((float(e), bool(two_batch_shuffle_delta(e, sigma) > acc.delta(e))) for e in _GRID)


class ShufflePitfall(Exercise):
    chapter, key, label, title = "10", "ex4", "ch10-ex4", "Where the Poisson accountant understates shuffling"
    randomness = "none"
    points = 2.0
    exercise_type = "find-the-bug"
    default = {"sigma": 0.8}
    missing = "set answer_ex4 to a value of the grid"

    def params(self, rng):
        return {"sigma": float(rng.choice([0.6, 0.8, 1.0, 1.2, 1.5]))}

    def statement(self, p):
        s = f"{p['sigma']:g}"
        return (f"For one epoch in two batches with σ = {s}, find the largest ε on the grid 0, 0.05, …, 3 at which the "
                "shuffled mechanism's δ(ε) (`two_batch_shuffle_delta`) exceeds the Poisson accountant's: "
                f"`PldAccountant`'s δ(ε) for `Repeated(PoissonSampled(0.5, GaussianEvent({s})), 2)`. Set `answer_ex4` "
                "to it.")

    def solve(self, p):
        return max(e for e, worse in _shuffle_gaps(p["sigma"]) if worse)

    def parts(self, p):
        right = self.solve(p)
        mistakes = []
        for e, worse in _shuffle_gaps(p["sigma"]):
            if e == right:
                continue
            hint = ("a larger epsilon of the grid still shows the gap" if worse else
                    "at this epsilon the shuffled delta is not above the Poisson one (did you swap the two?)")
            mistakes.append(Mistake.near(e, hint, rtol=0.0, atol=1e-6))
        return [Part.near("epsilon", right, "answer_ex4 must be one of 0, 0.05, ..., 3", rtol=0.0, atol=1e-6,
                          mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion("ch10-shuffle", "A pipeline shuffles the data into equal batches but reports ε from a "
                             "Poisson-subsampling accountant. What is wrong?", "choice",
                             answer="the accountant describes another mechanism: the shuffled batches can have a "
                                    "larger δ(ε) than it certifies",
                             distractors=("nothing: shuffling is a special case of Poisson sampling",
                                          "the reported ε is too large: shuffling only helps"),
                             feedback=("a shuffle puts each record in exactly one batch; Poisson batches are "
                                       "independent draws", "the book's two-batch case shows a larger δ for the "
                                       "shuffle at small ε"))]


class ComposedGaussianDelta(Exercise):
    chapter, key, label, title = "10", "ex5", "ch10-ex5", "δ(ε) of composed Gaussian releases"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    exercise_type = "derivation"
    default = {"k": 8, "sigma": 2.0, "epsilon": 2.0}
    missing = "set answer_ex5 to a number: δ at the given ε"
    prompt = ("Show that the releases together have the PLD of one Gaussian release with $\\mu_k = \\sqrt{k}\\,\\mu$, "
              "and derive $\\delta(\\varepsilon) = \\Phi(-\\varepsilon/\\mu_k + \\mu_k/2) - e^{\\varepsilon}\\,"
              "\\Phi(-\\varepsilon/\\mu_k - \\mu_k/2)$ from the hockey-stick formula.")
    rubric = (
        RubricItem("composition", 2.0,
                   "losses of independent releases add; a sum of k independent N(μ²/2, μ²) is N(kμ²/2, kμ²) = "
                   "N(μ_k²/2, μ_k²) with μ_k = √k μ, the PLD of one Gaussian release",
                   "the right μ_k without the convolution argument, or adds means and forgets the variances",
                   "μ_k = kμ, or no argument"),
        RubricItem("hockey stick", 2.0,
                   "δ(ε) = Pr_P[L > ε] − e^ε Pr_Q[L > ε] with L ~ N(μ_k²/2, μ_k²) under P and N(−μ_k²/2, μ_k²) under "
                   "Q, giving the two Φ terms",
                   "one of the two terms right, or the right formula without the distribution under Q",
                   "no derivation"),
    )

    def params(self, rng):
        k, sigma, eps = [(8, 2.0, 2.0), (8, 2.0, 1.0), (8, 4.0, 1.0), (16, 2.0, 2.0), (16, 2.0, 1.0), (32, 4.0, 2.0),
                         (32, 4.0, 1.0)][int(rng.integers(7))]
        return {"k": k, "sigma": sigma, "epsilon": eps}

    def statement(self, p):
        words = {8: "Eight", 16: "Sixteen", 32: "Thirty-two"}
        k = p["k"]
        return (f"{words.get(k, str(k))} Gaussian releases each add $\\mathcal{{N}}(0, \\sigma^2)$ noise with "
                f"$\\sigma = {p['sigma']:g}\\Delta$. Starting from the Gaussian PLD of the first section, "
                "$L \\sim \\mathcal{N}(\\mu^2/2, \\mu^2)$ with $\\mu = \\Delta/\\sigma$, show that the "
                f"{k} releases together have the PLD of one Gaussian release with $\\mu_{{{k}}} = \\sqrt{{{k}}}\\,\\mu$, "
                "and derive from the hockey-stick formula that $\\delta(\\varepsilon) = "
                f"\\Phi(-\\varepsilon/\\mu_{{{k}}} + \\mu_{{{k}}}/2) - e^{{\\varepsilon}}\\,"
                f"\\Phi(-\\varepsilon/\\mu_{{{k}}} - \\mu_{{{k}}}/2)$. Set `answer_ex5` to δ at "
                f"ε = {p['epsilon']:g} (four decimals).")

    def solve(self, p):
        return float(gdp_delta(p["epsilon"], math.sqrt(p["k"]) / p["sigma"]))

    def parts(self, p):
        k, sigma, eps = p["k"], p["sigma"], p["epsilon"]
        mu = math.sqrt(k) / sigma
        tol = dict(rtol=0.005, atol=5e-5)  # four decimals, or 0.5 % of a small δ
        first = 0.5 * math.erfc((eps / mu - mu / 2) / math.sqrt(2))  # Φ(−ε/μ + μ/2)
        return [Part.near("delta", self.solve(p), f"δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) with μ = √{k} / "
                          f"{sigma:g} (gdp_delta({eps:g}, mu))", **tol,
                          mistakes=[Mistake.near(gdp_delta(eps, k / sigma), f"the μ's do not add: the variances do, "
                                                 f"so μ_{k} = √{k} μ, not {k} μ", **tol),
                                    Mistake.near(gdp_delta(eps, k / sigma ** 2), f"kμ² is the variance μ_{k}²; "
                                                 f"μ_{k} = √{k} μ", **tol),
                                    Mistake.near(gdp_delta(eps, 1 / sigma), f"that is one release; the {k} releases "
                                                 f"compose to μ_{k} = √{k} μ", **tol),
                                    Mistake.near(first, "that is only Pr_P[L > ε]; subtract e^ε Pr_Q[L > ε]", **tol)])]

    def exam(self):
        return [ExamQuestion("ch10-gdp-compose", "Sixteen Gaussian releases each have noise $\\sigma = 2\\Delta$. "
                             "They are together $\\mu$-GDP. What is $\\mu$?", "choice", answer="2",
                             distractors=("8", "4", "0.5"),
                             feedback=("adds the μ's: GDP composes by √(Σμ²)", "k·μ² adds the squares but forgets "
                                       "the square root", "that is one release")),
                ExamQuestion("ch10-gdp-delta", "A mechanism is $1$-GDP. Compute $\\delta(\\varepsilon)$ at "
                             "$\\varepsilon = 1$ from $\\delta(\\varepsilon) = \\Phi(-\\varepsilon/\\mu + \\mu/2) - "
                             "e^{\\varepsilon}\\Phi(-\\varepsilon/\\mu - \\mu/2)$ (four decimals).", "numeric",
                             answer=round(gdp_delta(1.0, 1.0), 4), tolerance=0.0002)]


EXERCISES = [DashboardEpsilon(), CltVersusPld(), FractionalOrders(), ShufflePitfall(), ComposedGaussianDelta()]
