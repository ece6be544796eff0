"""Exercises of Chapter 7, Beyond global sensitivity (chapters/07_local_sensitivity.ipynb).

Setup: numpy as np, pandas as pd, math; from dp_lib: chunk_answers, contiguous_chunk_count,
distance_to_high_sensitivity, gs_mean, hash_chunks, load_adult, make_rng, mean_local_sensitivity,
mean_local_sensitivity_at, pct_error, ptr_bottom_probability, ptr_mean, ptr_threshold, sample_and_aggregate,
sample_laplace, smooth_mean, smooth_sensitivity_mean; from dp_lib.selfcheck: check; adult = load_adult();
ages = adult["Age"].to_numpy(dtype=float); n, upper = len(ages), 100.0; rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dp_lib import (chunk_answers, distance_to_high_sensitivity, hash_chunks, load_adult, make_rng,
                    mean_local_sensitivity_at, ptr_threshold, sample_and_aggregate, smooth_sensitivity_mean)
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """import math

import numpy as np
import pandas as pd
from dp_lib import (chunk_answers, contiguous_chunk_count, distance_to_high_sensitivity, gs_mean, hash_chunks,
                    load_adult, make_rng, mean_local_sensitivity, mean_local_sensitivity_at, pct_error,
                    ptr_bottom_probability, ptr_mean, ptr_threshold, sample_and_aggregate, sample_laplace,
                    smooth_mean, smooth_sensitivity_mean)
from dp_lib.selfcheck import check
adult = load_adult()
ages = adult["Age"].to_numpy(dtype=float)
n, upper = len(ages), 100.0
"""


@functools.lru_cache(maxsize=1)
def _data() -> tuple[np.ndarray, np.ndarray]:
    adult = load_adult()
    return adult["Age"].to_numpy(dtype=float), adult["SSN"].to_numpy()


class DistanceBound(Exercise):
    chapter, key, label, title = "07", "ex1", "ch07-ex1", "PTR's distance bound"
    randomness = "none"
    points = 2.0
    default = {"n": 10_000, "bound": 0.02}
    missing = "set answer_ex1 to the distance bound"

    def params(self, rng):
        n, bound = [(10_000, 0.02), (10_000, 0.025), (10_000, 0.04), (20_000, 0.01), (8_000, 0.05),
                    (20_000, 0.02)][int(rng.integers(6))]
        return {"n": n, "bound": bound}

    def statement(self, p):
        n = f"{p['n']:,}".replace(",", "{,}")
        return (f"A data set has $n = {n}$ values clipped to $[0, 100]$, and the analyst proposes "
                f"$\\hat\\Delta = {p['bound']:g}$. Compute the distance bound $\\hat\\gamma = \\min\\{{k \\ge 0 : "
                "U/(n - k) > \\hat\\Delta\\}$ by hand and set `answer_ex1` to it. Then use "
                "`ptr_bottom_probability(distance, epsilon, delta)` (for example `ptr_bottom_probability(10, 1.0, "
                "1e-6)`) to find the chance of ⊥ at $\\varepsilon = 0.5$, $\\delta = 10^{-6}$.")

    def solve(self, p):
        return int(distance_to_high_sensitivity(p["n"], 100.0, p["bound"]))

    def parts(self, p):
        right = self.solve(p)
        return [Part.equal("distance", right, "solve U/(n - k) > Δ̂ for the smallest whole k",
                           mistakes=[Mistake("close: the inequality U/(n - k) > Δ̂ is strict, so k = "
                                             f"{right - 1} is not yet enough", value=right - 1)])]

    def exam(self):
        right = self.solve({"n": 20_000, "bound": 0.01})
        return [ExamQuestion("ch07-distance", "Propose-test-release for the mean of $n = 20{,}000$ values in "
                             "$[0, 100]$ proposes $\\hat\\Delta = 0.01$. What is the distance bound "
                             "$\\hat\\gamma = \\min\\{k \\ge 0 : U/(n - k) > \\hat\\Delta\\}$?", "choice",
                             answer=f"{right:,}", distractors=(f"{right - 1:,}", f"{20_000 - right:,}"),
                             feedback=("the inequality is strict: at k = 10,000, U/(n − k) equals Δ̂",
                                       "that is n − k, the number of records left, not k")),
                ExamQuestion("ch07-ptr-threshold", "PTR releases when the noisy distance $\\hat\\gamma + "
                             "\\mathrm{Lap}(1/\\varepsilon)$ exceeds $\\ln(1/\\delta)/\\varepsilon$. What is that "
                             "threshold at $\\varepsilon = 0.5$, $\\delta = 10^{-6}$? One decimal.", "numeric",
                             answer=round(ptr_threshold(0.5, 1e-6), 1), tolerance=0.05)]


class LeakEpsilon(Exercise):
    chapter, key, label, title = "07", "ex2", "ch07-ex2", "The ε a distinguisher rules out"
    randomness = "none"
    points = 2.0
    kind = "mixed"
    exercise_type = "derivation"
    default = {"rate": (5, 8)}
    missing = "set answer_ex2 to a number"
    prompt = "Is noise scaled to local sensitivity safe above that ε?"
    rubric = (
        RubricItem("derivation", 1.0,
                   "solves e^ε/(1 + e^ε) = r to ε = ln(r/(1 − r)) (ln(5/3) for r = 5/8) from the cap of the theorem",
                   "the right equation with an algebra slip",
                   "no derivation"),
        RubricItem("not safe", 2.0,
                   "No: passing this one test proves nothing, failing it disproves the claim; another event still "
                   "breaks ε-DP at every ε, e.g. the tail |y − 50| > t, whose probability ratio e^{tε/30} exceeds e^ε "
                   "for t > 30, because the scale itself (the local sensitivity) differs between neighbours",
                   "says 'no' without an event or argument, or only that the scale leaks the data",
                   "says yes, it is ε-DP above that ε"),
    )

    def params(self, rng):
        return {"rate": [(5, 8), (2, 3), (3, 4), (4, 5)][int(rng.integers(4))]}

    def statement(self, p):
        a, b = p["rate"]
        test = ("The band test above succeeds" if (a, b) == (5, 8) else
                "Suppose a test like the chapter's band test succeeds")
        return (f"{test} with probability {a}/{b} at every ε. Set `answer_ex2` to the smallest ε at which an ε-DP "
                "mechanism could allow that success rate (this test refutes every smaller ε), i.e. "
                "solve "
                f"$e^{{\\varepsilon}}/(1 + e^{{\\varepsilon}}) = {a}/{b}$. Is noise scaled to local sensitivity safe "
                "above that ε?")

    def solve(self, p):
        a, b = p["rate"]
        return math.log(a / (b - a))

    def parts(self, p):
        a, b = p["rate"]
        r = a / b
        return [Part.near("epsilon", self.solve(p), f"solve e^ε / (1 + e^ε) = {a}/{b} for ε", rtol=0.0, atol=1e-3,
                          mistakes=[Mistake.near(r, f"{a}/{b} is the success rate; solve e^ε / (1 + e^ε) = {a}/{b} "
                                                 "for ε", rtol=0.0, atol=1e-3),
                                    Mistake.near(r / (1 - r), f"e^ε = {a}/{b - a}: the answer is its logarithm",
                                                 rtol=0.0, atol=1e-3)])]

    def exam(self):
        return [ExamQuestion("ch07-cap", "A test distinguishes two neighbouring data sets (equal priors) with "
                             "success probability $3/4$. What is the smallest $\\varepsilon$ for which an "
                             "$\\varepsilon$-DP mechanism could allow this? Three decimals.", "numeric",
                             answer=round(math.log(3), 3), tolerance=0.001),
                ExamQuestion("ch07-cap-choice", "A mechanism passes one distinguishing test at $\\varepsilon = 1$: "
                             "the test's success rate is below $e/(1 + e)$. What follows?", "choice",
                             answer="nothing: another test or event may still break ε-DP",
                             distractors=("the mechanism is 1-DP", "the mechanism is not 1-DP"),
                             feedback=("passing one test proves nothing; failing one disproves the claim",
                                       "a success rate below the cap does not contradict ε-DP"))]


def _smooth_terms(n: int, epsilon: float, delta: float, log_term: float) -> np.ndarray:
    """e^(−βk) · U / max(n − k, 1) for k = 0..n with β = ε / (2 ln(log_term/δ))."""
    beta = epsilon / (2 * math.log(log_term / delta))
    k = np.arange(n + 1)
    return np.exp(-beta * k) * 100.0 / np.maximum(n - k, 1)


class SmoothSmallSample(Exercise):
    chapter, key, label, title = "07", "ex3", "ch07-ex3", "Smooth sensitivity of a small sample"
    randomness = "none"
    points = 3.0
    kind = "mixed"
    exercise_type = "find-the-bug"
    default = {"size": 20, "epsilon": 1.0, "delta": 1e-6}
    missing = "set answer_ex3 to S_β of the first ages, built from A(k) = U / max(n − k, 1)"
    prompt = ("Which term of the maximum wins, and what would a program that truncates the maximum at $k \\le 10$ "
              "report instead?")
    rubric = (
        RubricItem("winning term", 1.0,
                   "the far end k = n − 1 (A = U, damped by e^{−β(n−1)}) wins because β is tiny; not k = 0 (U/n)",
                   "names the last term without saying why", "names k = 0 or the local sensitivity"),
        RubricItem("truncation bug", 2.0,
                   "the truncated maximum is several times too small (its value), so the noise would not be smooth "
                   "and the (ε, δ) guarantee fails; the maximum must run over every k",
                   "gives the truncated value without saying it breaks the guarantee",
                   "thinks truncation is a harmless approximation"),
    )

    def params(self, rng):
        size, epsilon = [(15, 0.5), (15, 1.0), (15, 2.0), (20, 0.5), (20, 1.0), (30, 0.5),
                         (30, 1.0)][int(rng.integers(7))]
        return {"size": size, "epsilon": epsilon, "delta": 1e-6}

    def statement(self, p):
        return (f"Take the first {p['size']} ages of the data (`ages[:{p['size']}]`). Compute their exact local "
                "sensitivity, the worst case $U/n$, and the smooth sensitivity $S_\\beta$ built from the chapter's "
                "bound $A(k) = U/\\max(n - k, 1)$ (what `smooth_sensitivity_mean` computes) at "
                f"$\\varepsilon = {p['epsilon']:g}$, $\\delta = 10^{{-6}}$. Which term of the maximum wins, and what "
                "would a program that truncates the maximum at $k \\le 10$ report instead? Set `answer_ex3` to "
                "$S_\\beta$.")

    def solve(self, p):
        return float(smooth_sensitivity_mean(p["size"], 100.0, p["epsilon"], p["delta"]))

    def parts(self, p):
        size, eps, delta = p["size"], p["epsilon"], p["delta"]
        ages, _ = _data()
        right = float(_smooth_terms(size, eps, delta, 2.0).max())
        return [Part.near("S_beta", right, "S_β = max over k = 0, …, n of e^(−βk) · U / max(n − k, 1), with "
                          "β = ε/(2 ln(2/δ))", rtol=0.005,
                          mistakes=[Mistake.near(100.0 / size, f"U/n = {100 / size:.3g} is only the k = 0 term; S_β "
                                                 "is the maximum over every k", rtol=0.01),
                                    Mistake.near(float(_smooth_terms(size, eps, delta, 2.0)[:11].max()),
                                                 "that is the maximum truncated at k ≤ 10; a later term is larger",
                                                 rtol=0.01),
                                    Mistake.near(mean_local_sensitivity_at(ages[:size], 100.0),
                                                 "that is the exact local sensitivity; S_β is an upper bound on it "
                                                 "that is smooth in x", rtol=0.01),
                                    *self._last_and_beta_mistakes(size, eps, delta)])]

    @staticmethod
    def _last_and_beta_mistakes(size: int, eps: float, delta: float) -> list[Mistake]:
        """The k = n term alone, and β = ε/(2 ln(1/δ)); one hint naming both where their bands overlap."""
        last = float(_smooth_terms(size, eps, delta, 2.0)[-1])
        wrong_beta = float(_smooth_terms(size, eps, delta, 1.0).max())
        last_hint = ("that is the last term k = n alone; the maximum runs over every k, and k = n − 1 (where "
                     "A = U as well) is damped less")
        beta_hint = "for Laplace noise β = ε/(2 ln(2/δ)), not ε/(2 ln(1/δ))"
        if abs(last / wrong_beta - 1) < 0.011:
            return [Mistake(f"either {last_hint}, or {beta_hint}", min(last, wrong_beta) * 0.995,
                            max(last, wrong_beta) * 1.005)]
        return [Mistake.near(last, last_hint, rtol=0.005), Mistake.near(wrong_beta, beta_hint, rtol=0.005)]

    def exam(self):
        beta = 1.0 / (2 * math.log(2 / 1e-6))
        return [ExamQuestion("ch07-beta", "Smooth sensitivity with Laplace noise at $\\varepsilon = 1$, "
                             "$\\delta = 10^{-6}$ uses the smoothing parameter $\\beta$. Which value?", "choice",
                             answer=f"{beta:.4f}",
                             distractors=(f"{1 / (2 * math.log(1e6)):.4f}", "0.5000"),
                             feedback=("that is ε/(2 ln(1/δ)); for Laplace noise β = ε/(2 ln(2/δ))",
                                       "that is ε/2, without the δ term")),
                ExamQuestion("ch07-smooth", "For the mean of $n = 20$ values in $[0, 100]$ with the bound "
                             "$A(k) = U/\\max(n-k, 1)$, compute $S_\\beta = \\max_k e^{-\\beta k} A(k)$ at "
                             "$\\varepsilon = 1$, $\\delta = 10^{-6}$ ($\\beta = \\varepsilon/(2\\ln(2/\\delta))$). "
                             "One decimal.", "numeric",
                             answer=round(self.solve(self.default), 1), tolerance=0.1)]


@functools.lru_cache(maxsize=16)
def _saa_errors(epsilon: float, k_max: int) -> dict:
    ages, ssn = _data()
    true_median = np.median(ages)
    rng = make_rng(7_4)
    return {k: float(np.median(np.abs(sample_and_aggregate(ages, np.median, k, 0, 100.0, epsilon, rng=rng,
                                                                keys=ssn, size=1000) - true_median)))
            for k in (10, 100, 1000, k_max)}


class SampleAggregateK(Exercise):
    chapter, key, label, title = "07", "ex4", "ch07-ex4", "How many chunks for sample-and-aggregate"
    randomness = "none"  # the best K does not change with the seed (errors apart by factors >= 5); the bias is deterministic
    points = 3.0
    kind = "mixed"
    exercise_type = "design"
    default = {"epsilon": 1.0, "k_max": 10_000}
    missing = 'set answer_ex4 to {"best_k": ..., "bias_10000": ...}'
    prompt = "Which $K$ is best, and why does the error not keep falling with $K$?"
    rubric = (
        RubricItem("noise side", 1.0, "with few chunks the noise Lap((H − L)/(Kε)) dominates the error",
                   "mentions noise without its scale in K", "no mention of the noise"),
        RubricItem("bias side", 2.0,
                   "with many chunks each holds a handful of people: the median of a few ages of a right-skewed "
                   "distribution sits above the overall median, and empty chunks answer the default 50, so the "
                   "chunk answers are biased, however small the noise; the best K balances the two",
                   "names small chunks or empty chunks, not why they bias the answer",
                   "says the error keeps falling, or blames the noise"),
    )

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "k_max": int(rng.choice([10_000, 20_000]))}

    def statement(self, p):
        k4 = p["k_max"]
        return ("Use sample-and-aggregate with $f$ = median, chunks by SSN, $[L, H] = [0, 100]$ and "
                f"$\\varepsilon = {p['epsilon']:g}$ to release the median age 1,000 times for $K = 10$, $100$, "
                f"$1000$ and ${k4:,}$ chunks. Report the median absolute error in years against the true median, and "
                "the bias of the chunk answers (their mean minus the true median; `chunk_answers(ages, np.median, K, "
                "0, 100, keys=ssn)` with `ssn = adult[\"SSN\"].to_numpy()` gives all $K$ clipped answers, an empty "
                "chunk answering the default 50). Which $K$ is best, and why does the error not keep falling with "
                f"$K$? Set `answer_ex4` to `{{\"best_k\": ..., \"bias_{k4}\": ...}}`: the best of the four $K$ and "
                f"the bias at $K = {k4:,}$.").replace("10,000", "10{,}000").replace("20,000", "20{,}000")

    def setup_code(self, p):
        return 'ssn = adult["SSN"].to_numpy()\n'

    def _bias(self, k: int, nonempty_only: bool = False) -> float:
        ages, ssn = _data()
        answers = chunk_answers(ages, np.median, k, 0, 100.0, keys=ssn)
        if nonempty_only:
            answers = answers[np.bincount(hash_chunks(ssn, k), minlength=k) > 0]
        return float(answers.mean() - np.median(ages))

    def solve(self, p):
        errors = _saa_errors(p["epsilon"], p["k_max"])
        return {"best_k": min(errors, key=errors.get), f"bias_{p['k_max']}": self._bias(p["k_max"])}

    def parts(self, p):
        k4 = p["k_max"]
        bias = self._bias(k4)
        # best_k depends on the student's rng, but the errors of the four K differ by factors of 5 or more
        # (checked for every drawn parameter in tests/test_exercises_ch07.py), so it does not in practice.
        return [Part.equal("best_k", 1000, "compare the median absolute errors of the four K", path=".best_k",
                           mistakes=[Mistake(f"at K = {k4:,} the noise is tiny, but the chunks hold "
                                             f"{len(_data()[0]) / k4:.1f} people and their medians are biased",
                                             value=k4),
                                     Mistake("at K = 10 the noise Lap(100/(Kε)) dominates the error", value=10)]),
                Part.near(f"bias_{k4}", bias, f"bias = chunk_answers(ages, np.median, {k4}, 0, 100, keys=SSN).mean() "
                          "− median of all ages (f is the median)", rtol=0.0, atol=0.05, path=f".bias_{k4}",
                          mistakes=[Mistake.near(-bias, "the bias is (mean of the chunk answers) − (true median), "
                                                 "not the other way round", rtol=0.0, atol=0.05),
                                    Mistake.near(self._bias(k4, nonempty_only=True), "that leaves out the empty "
                                                 "chunks; all K chunks answer, an empty one with the default 50",
                                                 rtol=0.0, atol=0.05)])]

    def conditions(self, p):
        keys = f'use the keys "best_k" and "bias_{p["k_max"]}", each with a number (not a string) as its value'
        return [Condition(0, ".best_k", keys, lo=-1e12, hi=1e12), Condition(1, f".bias_{p['k_max']}", keys,
                                                                         lo=-1e12, hi=1e12)]

    def exam(self):
        return [ExamQuestion("ch07-saa-scale", "Sample-and-aggregate averages $K$ chunk answers clipped to "
                             "$[0, 100]$ and adds Laplace noise for $\\varepsilon = 1$. What is the noise scale "
                             "for $K = 1000$?", "numeric", answer=0.1, tolerance=0.001),
                ExamQuestion("ch07-saa-k", "Sample-and-aggregate releases a median from $K$ chunks. Why does the "
                             "error grow again when $K$ becomes very large?", "choice",
                             answer="each chunk holds few people, so the chunk answers are biased (and empty chunks "
                                    "answer the default)",
                             distractors=("the Laplace noise grows with K", "the sensitivity of the mean grows "
                                          "with K"),
                             feedback=("the noise scale (H − L)/(Kε) shrinks with K",
                                       "one person changes one chunk: the sensitivity (H − L)/K shrinks"))]


EXERCISES = [DistanceBound(), LeakEpsilon(), SmoothSmallSample(), SampleAggregateK()]
