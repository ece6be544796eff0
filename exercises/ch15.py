"""Exercises of Chapter 15, One person, many rows (chapters/15_user_level.ipynb).

Setup: math, np, pd, the chapter's dp_lib names (CATEGORIES, bound_contributions, contribution_sensitivity,
laplace_mech, partition_selection_threshold, ...), expected_bounded_counts (dp_lib.plotting), rng,
visits = load_visits().
"""

from __future__ import annotations

import math

import numpy as np

from dp_lib import CATEGORIES, contribution_sensitivity, load_visits, partition_selection_threshold
from dp_lib.plotting import expected_bounded_counts
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd

from dp_lib import (CATEGORIES, audit_table, bound_contributions, contribution_envelope, contribution_sensitivity,
                    laplace_mech, load_visits, make_rng, partition_selection_threshold, pipeline_dp_release,
                    search_events, select_partitions, user_level_count, user_level_sum)
from dp_lib.plotting import expected_bounded_counts
visits = load_visits()
"""

BIG = 1e12
L0_GRID = (1, 2, 3, 5, 10)
LINF_GRID = (1, 2, 3, 5, 10, 20, 50, 100)


class ContributionSensitivity(Exercise):
    chapter, key, label, title = "15", "ex1", "ch15-ex1", "The L1 sensitivity of bounded per-category sums"
    randomness = "none"
    points, exercise_type = 2.0, "derivation"
    default = {"l0": 2, "linf": 5, "upper": 50.0}
    missing = "set answer_ex1 to a number"

    def params(self, rng):
        return {"l0": int(rng.choice([2, 3, 4])), "linf": int(rng.choice([5, 6, 10])),
                "upper": float(rng.choice([20.0, 50.0, 100.0]))}

    def statement(self, p):
        return (f"A shop releases the total spend per category, each visit's spend clamped to $[0, {p['upper']:g}]$, "
                f"with $L_0 = {p['l0']}$ and $L_\\infty = {p['linf']}$. What is the $L_1$ sensitivity of the vector "
                "of sums under user-level neighbours? Set `answer_ex1`.")

    def solve(self, p):
        return contribution_sensitivity(max_partitions=p["l0"], max_per_partition=p["linf"],
                                        max_value=p["upper"])["L1"]

    def parts(self, p):
        l0, linf, u = p["l0"], p["linf"], p["upper"]
        return [Part.near("L1", self.solve(p), "L1 = L0 · L∞ · U", rtol=1e-6, mistakes=[
            Mistake.near(u, f"{u:g} is one visit's spend: a user has up to L∞ visits in up to L0 categories",
                         rtol=1e-9),
            Mistake.near(linf * u, f"{linf * u:g} is one category; the user can change L0 = {l0} of them", rtol=1e-9),
            Mistake.near(l0 * u, f"that forgets L∞: up to {linf} visits per category count", rtol=1e-9)])]

    def exam(self):
        return [ExamQuestion("ch15-l1", "Per-category sums of spend clamped to $[0, 20]$, with at most $L_0 = 3$ "
                             "categories and $L_\\infty = 4$ visits per category per user. What is the $L_1$ "
                             "sensitivity under user-level neighbours?", "numeric",
                             answer=contribution_sensitivity(max_partitions=3, max_per_partition=4,
                                                             max_value=20.0)["L1"], tolerance=1e-6),
                ExamQuestion("ch15-l1-choice", "The same release ($U = 20$, $L_0 = 3$, $L_\\infty = 4$): which "
                             "Laplace scale makes it ε-DP at the user level?", "choice", answer="240/ε",
                             distractors=("80/ε", "60/ε"),
                             feedback=("that is one category; a user can change L0 = 3 of them",
                                       "that forgets L∞: up to 4 visits per category count"))]


class PartitionThreshold(Exercise):
    chapter, key, label, title = "15", "ex2", "ch15-ex2", "The threshold of private partition selection"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"epsilon": 0.5, "delta": 1e-5, "l0": 3}
    missing = "set answer_ex2 to the threshold"
    prompt = "How many distinct users does a partition need to be released with probability at least ½?"
    rubric = (
        RubricItem("the count", 1, "the smallest integer count above τ (floor(τ) + 1), because the noisy count "
                   "c + Lap(b) exceeds τ with probability ≥ ½ exactly when c ≥ τ", "the right number without the "
                   "reason, or the reason with an off-by-one", "missing or τ itself"),)

    def params(self, rng):
        # No L0 = 2: there ln(L0/(2δ)) = ln(1/δ), and forgetting the L0/2 would pass.
        return {"epsilon": float(rng.choice([0.5, 1.0, 2.0])), "delta": float(rng.choice([1e-5, 1e-6])),
                "l0": int(rng.choice([3, 4, 5]))}

    def statement(self, p):
        return (f"For private partition selection with $\\varepsilon = {p['epsilon']:g}$, $\\delta = 10^{{{round(math.log10(p['delta']))}}}$ "
                f"and $L_0 = {p['l0']}$, compute the Laplace thresholding threshold $\\tau$ (to two decimals) and set "
                "`answer_ex2`. How many distinct users does a partition need to be released with probability at "
                "least ½?")

    def solve(self, p):
        return partition_selection_threshold(p["epsilon"], p["delta"], p["l0"])[1]

    def parts(self, p):
        e, d, l0 = p["epsilon"], p["delta"], p["l0"]
        tau = 1 + (l0 / e) * math.log(l0 / (2 * d))  # τ = 1 + (L0/ε)·ln(L0/(2δ))
        users = math.floor(tau) + 1
        named = [(tau - 1, "that forgets the 1 + in τ = 1 + b·ln(L0/(2δ))"),
                 (1 + (l0 / e) * math.log10(l0 / (2 * d)), "that uses log10; the threshold uses the natural log"),
                 (1 + (l0 / e) * math.log(1 / (2 * d)), "that is ln(1/(2δ)): the δ must be split over the L0 "
                  "partitions a user can create, ln(L0/(2δ))"),
                 (1 + (l0 / e) * math.log(1 / d), "that is ln(1/δ): the threshold uses ln(L0/(2δ))"),
                 (1 + (1 / e) * math.log(l0 / (2 * d)), f"the noise scale is b = L0/ε = {l0 / e:g}, not 1/ε = "
                  f"{1 / e:g}"),
                 (1 + (1 / e) * math.log(1 / (2 * d)), f"two slips: the noise scale is L0/ε = {l0 / e:g} (not 1/ε = "
                  f"{1 / e:g}), and δ is split over L0 partitions, ln(L0/(2δ))")]
        mistakes = [Mistake(f"{users} is the number of users needed (the exercise's second question); answer_ex2 is "
                            "τ", max(users - 0.5, tau + 0.05 + 1e-9), users + 0.5 - 1e-9)]
        mistakes += [Mistake.near(v, h, rtol=0, atol=0.05) for v, h in named if abs(v - tau) > 0.1]
        if abs(round(tau) - tau) > 0.05 and round(tau) != users:  # else the users hint names it
            mistakes.append(Mistake(f"{round(tau)} is τ rounded to a whole number; give τ to two decimals",
                                    round(tau), round(tau)))
        return [Part.near("tau", tau, f"τ = 1 + b·ln(L0/(2δ)) with b = L0/ε = {l0 / e:g} and the natural log of "
                          f"L0/(2δ) = {l0}/(2·{d:g}); give it to two decimals", rtol=0, atol=0.05,
                          mistakes=mistakes)]

    def exam(self):
        tau = partition_selection_threshold(1.0, 1e-6, 3)[1]
        return [ExamQuestion("ch15-tau", "Laplace partition selection with ε = 1, δ = 10⁻⁶ and $L_0 = 3$ uses "
                             "$\\tau = 1 + (L_0/\\varepsilon) \\ln(L_0/(2\\delta))$. What is τ? Give two decimals.",
                             "numeric", answer=round(tau, 2), tolerance=0.01),
                ExamQuestion("ch15-tau-users", "With that τ, how many distinct users does a partition need to be "
                             "released with probability at least ½?", "numeric", answer=math.floor(tau) + 1,
                             tolerance=0)]


def _rms(l0, linf, eps, true10, variance_factor=2.0):
    bias = true10 - expected_bounded_counts(l0, linf)[:10]
    return math.sqrt(np.mean((bias ** 2 + variance_factor * (l0 * linf / eps) ** 2) / true10 ** 2))


def _best(eps, variance_factor=2.0):
    true10 = load_visits()["category"].value_counts().reindex(CATEGORIES, fill_value=0)[:10].to_numpy(dtype=float)
    grid = [(l0, linf) for l0 in L0_GRID for linf in LINF_GRID]
    return min(grid, key=lambda pair: _rms(*pair, eps, true10, variance_factor))


class BestBounds(Exercise):
    chapter, key, label, title = "15", "ex3", "ch15-ex3", "Contribution bounds for a small budget"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "design"
    default = {"epsilon": 0.1}
    missing = "set answer_ex3 to a pair (L0, L∞)"
    prompt = "Compare the best pair with the best pair at ε = 1: why does a smaller budget push the bounds down?"
    rubric = (
        RubricItem("the trade-off", 2, "the noise standard deviation √2·L0·L∞/ε grows with the bounds and with 1/ε, "
                   "the bias (dropped rows) shrinks with the bounds; at a smaller ε the noise term dominates, so "
                   "the optimum moves to smaller bounds, accepting more bias",
                   "names bias and noise without how ε shifts the balance", "no trade-off named"),
        RubricItem("the numbers", 1, "quotes both optima and that the smallest RMS error grows from about 10 % at "
                   "ε = 1 to, at the student's ε, about 26 % (ε = 0.05), 22 % (0.1), 18 % (0.2), 15.5 % (0.3) or "
                   "13.6 % (0.5): a smaller budget buys less data", "one of the two", "neither"))

    def params(self, rng):
        # the best pair is unique on the grid (the runner-up is > 0.5 % worse) at each of these ε
        return {"epsilon": float(rng.choice([0.05, 0.1, 0.2, 0.3, 0.5]))}

    def statement(self, p):
        e = p["epsilon"]
        return (f"At $\\varepsilon = {e:g}$ the noise is {1 / e:g} times larger than at ε = 1. Which bounds "
                "$(L_0, L_\\infty)$ with $L_0 \\in \\{1, 2, 3, 5, 10\\}$ and $L_\\infty \\in \\{1, 2, 3, 5, 10, 20, "
                "50, 100\\}$ minimise the RMS relative error of the ten big categories, "
                "$\\sqrt{\\operatorname{mean}((\\mathrm{bias}^2 + 2(L_0 L_\\infty/\\varepsilon)^2)/\\mathrm{true10}^2)}$ "
                "with `bias = true10 - expected_bounded_counts(L0, L∞)[:10]` (`true10`: the ten true counts; "
                "Lap(b) has variance 2b²)? Set `answer_ex3` to the best pair at "
                f"$\\varepsilon = {e:g}$, a tuple `(L0, L∞)`, and compare it with the best pair at $\\varepsilon = 1$.")

    def setup_code(self, p):
        return ('counts = visits["category"].value_counts().reindex(CATEGORIES, fill_value=0)\n'
                "true10 = counts[:10].to_numpy(dtype=float)\n")

    def solve(self, p):
        return _best(p["epsilon"])

    def parts(self, p):
        e = p["epsilon"]
        right = list(_best(e))
        mistakes = []
        at_one = list(_best(1.0))
        if at_one != right:
            mistakes.append(Mistake(f"({at_one[0]}, {at_one[1]}) is the best pair at ε = 1; at ε = {e:g} the noise "
                                    f"is {1 / e:g} times larger", value=at_one))
        no_two = list(_best(e, variance_factor=1.0))
        if no_two not in (right, at_one):
            mistakes.append(Mistake("that pair is best if the noise variance is (L0·L∞/ε)²; Lap(b) has variance "
                                    "2b²", value=no_two))
        true10 = load_visits()["category"].value_counts().reindex(CATEGORIES, fill_value=0)[:10].to_numpy(
            dtype=float)
        best = _rms(*right, e, true10)
        named = [m.value for m in mistakes]
        mistakes += [Mistake("close, but not the smallest: compute the RMS error of each pair exactly (a plot is "
                             "not precise enough)", value=[l0, linf]) for l0 in L0_GRID for linf in LINF_GRID
                     if [l0, linf] not in (right, *named) and _rms(l0, linf, e, true10) < 1.1 * best]
        return [Part.equal("bounds", right, f"at ε = {e:g} the best pair minimises the RMS relative error of bias² + "
                           "2(L0·L∞/ε)² (Lap(b) has variance 2b²); compute it for every pair of the grid",
                           mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion("ch15-bounds", "Contribution bounds $(L_0, L_\\infty)$ for a user-level count: when ε "
                             "is ten times smaller, the bounds that minimise the RMS error", "choice",
                             answer="get smaller: the noise √2·L0·L∞/ε dominates, so more bias is worth accepting",
                             distractors=("stay the same: the bias does not depend on ε",
                                          "get larger: a larger bound keeps more data to fight the noise"),
                             feedback=("the optimum balances bias against noise, and the noise grows as ε shrinks",
                                       "larger bounds multiply the noise scale L0·L∞/ε"))]


class HeavyUserAttack(Exercise):
    chapter, key, label, title = "15", "ex4", "ch15-ex4", "The attacker's accuracy does not depend on L∞"
    randomness = "draws"  # attacker_accuracy draws 2 × 20,000 releases from the setup's rng
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"small": 1, "large": 100}
    missing = "set answer_ex4 to a dict {L∞: accuracy} for the two bounds"
    prompt = "Does the attacker's accuracy change? Why, or why not?"
    rubric = (
        RubricItem("it does not change", 1, "both stay near 1 − e^(−ε/2)/2 ≈ 0.70 < e/(1+e)", "says 'about the "
                   "same' without the bound", "claims a larger L∞ leaks more"),
        RubricItem("why", 2, "the heavy user shifts the bounded count by L∞ and the noise scale is L∞/ε: the two "
                   "distributions are the same up to rescaling, so the test's accuracy is the same",
                   "mentions only one of shift or scale", "no reason"),
        RubricItem("what does change", 1, "L∞ changes the accuracy for everyone else (bias of dropped rows against "
                   "noise), not the protection", "", "missing"))

    def params(self, rng):
        # the heavy user has 631 kitchen rows, so the shift is L∞ for every bound here
        return {"small": int(rng.choice([1, 2])), "large": int(rng.choice([50, 100]))}

    def statement(self, p):
        a, b = p["small"], p["large"]
        return (f"Repeat the distinguishing experiment with $L_\\infty = {a}$ and $L_\\infty = {b}$ (change "
                "`kitchen_user_level`, keeping the noise at $\\mathrm{Lap}(L_\\infty/\\varepsilon)$). Set "
                f"`answer_ex4` to a dict from $L_\\infty$ to the attacker's accuracy (a fraction, e.g. "
                f"`{{{a}: 0.7, {b}: 0.7}}`). Does the attacker's accuracy change? Why, or why not?")

    def setup_code(self, p):
        return ('per_user = visits.groupby("user").size()\n'
                "heavy = per_user.idxmax()\n"
                "epsilon = 1.0\n"
                'kitchen = visits[visits["category"] == "kitchen"]\n'
                'kitchen_without = kitchen[kitchen["user"] != heavy]\n\n'
                "def kitchen_user_level(log, size, rng):\n"
                '    """User level, one public partition: at most 10 rows per user, then + Lap(10/ε)."""\n'
                '    kept = bound_contributions(log, "user", "category", max_partitions=1, max_per_partition=10, '
                "rng=rng)\n"
                "    return laplace_mech(np.full(size, float(len(kept))), 10.0, epsilon, rng=rng)\n\n"
                "def attacker_accuracy(mechanism, trials=20_000):\n"
                "    released_in, released_out = mechanism(kitchen, trials, rng), mechanism(kitchen_without, trials, "
                "rng)\n"
                "    cut = (released_in.mean() + released_out.mean()) / 2\n"
                "    return (np.mean(released_in > cut) + np.mean(released_out <= cut)) / 2\n")

    def solve(self, p):
        # the shift L∞ over the noise Lap(L∞/ε), ε = 1, cut in the middle: accuracy P(Lap(1) > -1/2)
        return {p["small"]: 1 - 0.5 * math.exp(-0.5), p["large"]: 1 - 0.5 * math.exp(-0.5)}

    def conditions(self, p):
        hint = f"one accuracy for L∞ = {p['small']} and one for L∞ = {p['large']}"
        return [Condition(0, f"[{p['small']}]", hint, lo=-BIG, hi=BIG),
                Condition(1, f"[{p['large']}]", hint, lo=-BIG, hi=BIG)]

    def parts(self, p):
        a, b = p["small"], p["large"]
        right = 1 - 0.5 * math.exp(-0.5)
        frac = Mistake("give the accuracy as a fraction (0.70), not a percentage", 1 + 1e-12, BIG)
        # ± 0.02: the accuracy of 2 × 20,000 trials has standard deviation 0.0023, so any honest seed is within
        # 8.7 standard deviations; the named mistakes (noise kept at Lap(10/ε)) land at ≤ 0.55 and ≥ 0.99.
        together = "the two accuracies should nearly agree: the shift L∞ and the noise scale L∞/ε grow together"
        return [Part.between(f"L∞ = {a}", right - 0.02, right + 0.02, together, path=f"[{a}]", mistakes=[
                    frac, Mistake(f"at L∞ = {a} the attacker is near a coin flip: the noise must shrink with the "
                                  "bound, Lap(L∞/ε)", -BIG, 0.6)]),
                Part.between(f"L∞ = {b}", right - 0.02, right + 0.02, together, path=f"[{b}]", mistakes=[
                    frac, Mistake(f"at L∞ = {b} the attacker beats e/(1+e): the noise must grow with the bound, "
                                  "Lap(L∞/ε), not stay Lap(10/ε)", math.e / (1 + math.e) + 0.02, 1.0)])]

    def exam(self):
        acc = 1 - 0.5 * math.exp(-0.5)
        return [ExamQuestion("ch15-attacker", "A user-level count bounds each user to $L_\\infty$ rows and adds "
                             "$\\mathrm{Lap}(L_\\infty/\\varepsilon)$ at ε = 1. An attacker tells apart the data with "
                             "and without a user who has more than $L_\\infty$ rows, cutting halfway between the two "
                             "means. What is its accuracy? Give three decimals.", "numeric", answer=round(acc, 3),
                             tolerance=0.001)]


class GroupPrivacyDerivation(Exercise):
    chapter, key, label, title = "15", "ex5", "ch15-ex5", "Group privacy with a δ: a user with k rows"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    randomness = "none"  # a formula: the answer does not depend on the seed
    default = {"epsilon": 1.0, "delta": 1e-6, "rows": 10}
    missing = "set answer_ex5 to the pair (ε_user, δ_user)"
    shape, shape_hint = 2, "answer_ex5 is a pair: (ε_user, δ_user)"
    prompt = ("Derive the (ε, δ) guarantee for a user with k rows from the event-level (ε, δ) one, step by step, "
              "and compare your δ with the simpler bound k·e^((k-1)ε)·δ.")
    rubric = (
        RubricItem("the chain", 1, "walks from D to D' one row at a time through D = D_0, D_1, ..., D_k = D', "
                   "consecutive logs neighbours (k rows of one user: k steps)", "a chain without saying why its "
                   "links are neighbours", "no chain (states kε by analogy)"),
        RubricItem("the induction", 2, "P[M(D_0) ∈ S] ≤ e^ε P[M(D_1) ∈ S] + δ ≤ e^ε(e^ε P[M(D_2) ∈ S] + δ) + δ "
                   "≤ ... ≤ e^(kε) P[M(D_k) ∈ S] + δ(1 + e^ε + ... + e^((k-1)ε)): each step multiplies the δ "
                   "already collected by e^ε", "right shape but the δ terms added without the e^(jε) factors (kδ)",
                   "missing"),
        RubricItem("the sum", 1, "δ_user = δ(e^(kε) - 1)/(e^ε - 1), evaluated; ε_user = kε", "one of the two "
                   "numbers wrong", "no numbers"),
        RubricItem("compare", 1, "each e^(jε) ≤ e^((k-1)ε), so the sum is at most k e^((k-1)ε) δ (the usual, looser "
                   "form); either way δ grows like e^((k-1)ε): at ε = 1 and k = 10 by a factor of over 10,000, which "
                   "is why the chapter bounds contributions and calibrates the noise to them instead",
                   "compares the numbers without the lesson", "missing"))

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.1, 0.5, 1.0])), "delta": float(rng.choice([1e-6, 1e-8])),
                "rows": int(rng.choice([2, 5, 10]))}

    def statement(self, p):
        e, d, k = p["epsilon"], p["delta"], p["rows"]
        return (f"A release is $(\\varepsilon, \\delta) = ({e:g}, 10^{{{round(math.log10(d))}}})$-DP for event-level "
                "neighbours (logs that "
                f"differ in one row). A user has $k = {k}$ rows. Derive, from the definition alone, the guarantee "
                "for logs that differ in this user's rows: chain $k$ neighbouring logs as in the proof of group "
                "privacy (Chapter 3, Composition), but keep track of δ at every step. Set "
                "`answer_ex5 = (epsilon_user, delta_user)`, with δ_user the exact value your chain gives (the sum, "
                "before any simplification), three significant digits or more, and compare it with $k e^{(k-1)\\varepsilon}\\delta$. Write the "
                "derivation in a Markdown cell.")

    def solve(self, p):
        e, d, k = p["epsilon"], p["delta"], p["rows"]
        return (k * e, d * math.expm1(k * e) / math.expm1(e))

    def parts(self, p):
        e, d, k = p["epsilon"], p["delta"], p["rows"]
        eps_user, delta_user = self.solve(p)
        return [
            Part.near("epsilon_user", eps_user, f"each of the k = {k} steps of the chain multiplies by e^ε: "
                      "ε_user = kε", rtol=1e-6, mistakes=[
                          Mistake.near(e, "that is the event-level ε; the user's rows are k steps apart",
                                       rtol=1e-6),
                          Mistake.near(e * math.sqrt(k), "ε√k is not a bound for k rows of one user: group "
                                       "privacy is linear in k", rtol=1e-6)]),
            Part.near("delta_user", delta_user, "δ_user = δ(1 + e^ε + ... + e^((k-1)ε)) = δ(e^(kε) - 1)/(e^ε - 1)",
                      rtol=5e-3, mistakes=[
                          Mistake.near(k * d, "kδ adds the δ of each step without the factor e^ε that every "
                                       "later step applies to it", rtol=1e-3),
                          Mistake.near(k * math.exp((k - 1) * e) * d, "k·e^((k-1)ε)·δ is the simplified, looser "
                                       "bound; the question asks for the chain's exact sum", rtol=1e-3),
                          Mistake.near(math.exp(k * e) * d, "e^(kε)δ is not the chain's sum: the δ of step j is "
                                       "multiplied by e^(jε), j = 0, ..., k-1", rtol=1e-3),
                          Mistake.near(d, "δ does not stay the same: each step of the chain adds one δ and "
                                       "multiplies the ones before by e^ε", rtol=1e-3)])]

    def exam(self):
        e, d, k = 0.5, 1e-6, 4
        right = d * math.expm1(k * e) / math.expm1(e)
        return [ExamQuestion("ch15-group-delta", "A release is $(0.5, 10^{-6})$-DP for one row. Chaining the "
                             "definition over the 4 rows of one user gives $(2, \\delta_4)$-DP for that user. What "
                             "is $\\delta_4$?", "choice", answer=f"{right:.3g}",
                             distractors=(f"{k * d:.3g}", f"{k * math.exp((k - 1) * e) * d:.3g}"),
                             feedback=("kδ forgets that every later step multiplies the δ collected so far by e^ε",
                                       "k·e^((k−1)ε)·δ is a valid but looser simplification of the chain's sum"))]


EXERCISES = [ContributionSensitivity(), PartitionThreshold(), BestBounds(), HeavyUserAttack(),
             GroupPrivacyDerivation()]
