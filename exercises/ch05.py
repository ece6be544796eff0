"""Exercises of Chapter 5, Auditing privacy claims (chapters/05_auditing.ipynb).

Setup: math, np, pd, ThresholdEvent, epsilon_lower_bound, laplace_cdf, laplace_mech, load_adult, make_rng,
sample_laplace, search_events, check; adult = load_adult(); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from dp_lib import (ThresholdEvent, epsilon_lower_bound, laplace_cdf, laplace_mech, load_adult, make_rng,
                    sample_laplace, search_events)
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, Probe, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd

from dp_lib import (ThresholdEvent, epsilon_lower_bound, laplace_cdf, laplace_mech, load_adult, make_rng,
                    sample_laplace, search_events)
from dp_lib.selfcheck import check

adult = load_adult()
"""

ANY = (-1e300, 1e300)


def _is_audit(part: int, hint: str) -> Condition:
    """The answer (part) is an AuditResult: it has a numeric epsilon_lb."""
    return Condition(part, ".epsilon_lb", hint, "number", *ANY)


@functools.lru_cache(maxsize=1)
def _adult():
    return load_adult()


def _noisy_histogram(occupation: str):
    def noisy_histogram(occupations, size, rng):  # the colleague's code: bins = occupations seen in the data
        if not (occupations == occupation).any():
            return np.full(size, np.nan)
        true_count = float((occupations == occupation).sum())
        return laplace_mech(np.full(size, true_count), 1, 1.0, rng=rng)
    return noisy_histogram


class DataDependentBins(Exercise):
    chapter, key, label, title = "05", "ex1", "ch05-ex1", "Auditing a histogram whose bins come from the data"
    randomness = "either"  # the reasoned event gives the same bound for every seed, search_events' a seed-dependent one (both > 5)
    points, kind, exercise_type = 3.0, "auto", "find-the-bug"
    default = {"occupation": "Armed-Forces", "claimed": 1.0, "trials": 100_000}
    missing = "store the AuditResult of epsilon_lower_bound in answer_ex1"

    def params(self, rng):
        return {"occupation": str(rng.choice(["Armed-Forces", "Priv-house-serv"])),
                "claimed": float(rng.choice([0.5, 1.0, 2.0])), "trials": int(rng.choice([50_000, 100_000]))}

    def statement(self, p):
        occ, eps, n = p["occupation"], p["claimed"], p["trials"]
        return (f"A colleague releases a histogram of occupations with Laplace noise at ε = {eps:g} per bin, but only "
                "for the occupations that appear in the data (`noisy_histogram`, given in the setup). Audit the claim "
                f"ε = {eps:g} with two neighbouring data sets: the Adult occupations without the members of "
                f"`{occ}`, and the same plus one `{occ}` record. The output of one run is the released count for "
                f"`{occ}`, or NaN when there is no such bin. Choose the event by reasoning about what the bug "
                "reveals (any function of the outputs that returns booleans can be an event; `search_events` finds "
                "a working threshold event too, but only after a pilot run, while reasoning gives the best event at "
                f"once), and store the `AuditResult` of `epsilon_lower_bound` ({n:,} runs, claimed ε = {eps:g}) in "
                "`answer_ex1`.")

    def setup_code(self, p):
        occ, eps = p["occupation"], p["claimed"]
        return (f"def noisy_histogram(occupations, size, rng):  # the colleague's code: bins = occupations seen in "
                "the data\n"
                f'    if not (occupations == "{occ}").any():\n'
                "        return np.full(size, np.nan)\n"
                f'    true_count = float((occupations == "{occ}").sum())\n'
                f"    return laplace_mech(np.full(size, true_count), 1, {eps!r}, rng=rng)\n")

    def solve(self, p):
        occ = p["occupation"]
        adult = _adult()
        others = adult.loc[adult["Occupation"] != occ, "Occupation"]
        one_more = pd.concat([others, pd.Series([occ])], ignore_index=True)
        return epsilon_lower_bound(_noisy_histogram(occ), others, one_more, lambda out: ~np.isnan(out), p["trials"],
                                   rng=make_rng(2024), claimed_epsilon=p["claimed"])

    def conditions(self, p):
        return [_is_audit(0, "answer_ex1 must be an AuditResult"),
                Condition(0, ".claimed_epsilon", f"audit the claim epsilon = {p['claimed']:g} "
                          f"(claimed_epsilon={p['claimed']!r})", "number", p["claimed"], p["claimed"]),
                Condition(0, ".trials", f"use {p['trials']:,} runs per input", "number", p["trials"], 1e15)]

    def hidden_tests(self, p):
        # The answer includes the student's event (answer_ex1.event). The bug needs only this of an event: one
        # truth value on NaN ("no bin") and the other on released counts with positive probability. The reasoned
        # event (a bin is released, or its complement) is True on every released count; a refuting threshold
        # (output > 1: about 9.3 at 100,000 runs, or one search_events finds) on some of them. A bound above 5
        # needs the event to hold with probability above 0.5 % on the released count 1 + Lap(b), so a threshold
        # event holds on 1 + 6b or on 1 - 6b; the grid 1 + k b, k = -6..6, sees every such event.
        b = 1 / p["claimed"]
        released = [1.0 + k * b for k in range(-6, 7)]
        outputs = [math.nan] + released + [math.nan]

        def separates(value, p):
            if not (isinstance(value, list) and len(value) == len(outputs)
                    and all(isinstance(v, bool) for v in value)):
                return "your event must return one boolean per output (a boolean array of the same length)"
            if value[0] != value[-1] or all(v == value[0] for v in value[1:-1]):
                return ("your event does not tell a missing bin (NaN) from a released count: it should depend on "
                        "whether the bin is released at all")
            return None

        def one(value, p):
            if not (isinstance(value, list) and len(value) == 1 and isinstance(value[0], bool)):
                return "your event must also work on a single output: one boolean per output"
            return None

        return [Probe("event-nan-vs-released", "answer_ex1.event", (outputs,), separates, points=0.5, arrays=True),
                Probe("event-one-output", "answer_ex1.event", ([1.0],), one, points=0.5, arrays=True)]

    def parts(self, p):
        # the event "a bin is released" separates the inputs completely: the bound is the largest the runs can
        # certify (about ln(N / ln 80), above 9 for N = 50,000), deterministic given N; any bound above 5
        # refutes every claim of the exercise by a wide margin
        return [Part.between("epsilon_lb", 5, 1e6, "this event should separate the inputs completely",
                             path=".epsilon_lb"),
                Part.equal("flagged", True, "this event should separate the inputs completely", kind="bool",
                           path=".flagged")]

    def exam(self):
        return [ExamQuestion(
            "ch05-data-bins", "A histogram is released with Laplace noise per bin, with one bin for each value that "
            "occurs in the data. Which event refutes its ε claim most strongly?", "choice",
            answer="\"the bin of a rare value is released at all\"",
            distractors=("\"the noisy count of the largest bin exceeds its true count\"",
                         "\"the largest bin is the most common value\"",
                         "none: Laplace noise on every bin makes it ε-DP"),
            feedback=("the largest bin is released with and without the rare record: a threshold on its count "
                      "only sees the Laplace noise, which is calibrated; the bug is the list of bins", "that is what the noise protects", "the list of bins itself leaks "
                      "membership: its probability jumps from 0 to 1"))]


def _sum_without_clamp(ages, size, rng):
    total = float(np.sum(ages))
    return laplace_mech(np.full(size, total), sensitivity=100, epsilon=1.0, rng=rng)


class MissingClamp(Exercise):
    chapter, key, label, title = "05", "ex2", "ch05-ex2", "An audit that passes a broken mechanism"
    randomness = "fixed-seed"  # the first audit uses make_rng(seed) of the statement; the second only needs flagged
    points, kind, exercise_type = 3.0, "mixed", "find-the-bug"
    default = {"age": 40.0, "seed": 2024}
    shape, shape_hint = 2, "answer_ex2 must be a pair (ordinary, refuting)"
    missing = "set answer_ex2 to the pair of AuditResults (ordinary, refuting)"
    prompt = "Does the first audit catch the bug? What does that say about a passed audit?"
    rubric = (
        RubricItem("why the first audit passes", 1,
                   "the ordinary neighbour moves the total by the added age (at most 100), which the noise "
                   "Lap(100/ε) covers: on that pair the loss is at most age/100 < 1, so no event can refute",
                   "says it passes 'because the age is normal' without the link to the calibrated sensitivity",
                   "claims the first audit refutes, or that the mechanism is correct"),
        RubricItem("what a pass means", 1,
                   "an audit is a lower bound: passing says nothing about neighbours or events it did not try; the "
                   "worst case comes from the analysis (the most extreme record: no clamp, so an age of 10,000); "
                   "trying neighbours until one refutes is multiple testing (fix them in advance or split α)",
                   "says a pass is not a proof without naming the extreme record or the multiple-testing issue",
                   "treats the pass as evidence that the mechanism is ε-DP"),
        RubricItem("the refuting neighbour", 1,
                   "names the refuting pair: ages and ages + [one added age] with that age far above 100 (for "
                   "example 10,000), an add/remove neighbour; the check sees only that the second audit refutes",
                   "an outlier that is not named, or one that replaces an age (a neighbour under replace-one, not "
                   "the add/remove neighbours of the first audit)",
                   "a pair that differs in more than one record (for example ages + [40.0] * 100): refuting on it "
                   "says nothing about ε"),
    )

    def params(self, rng):
        return {"age": float(rng.choice([30.0, 40.0, 50.0, 60.0])), "seed": int(rng.choice([2024, 1, 2, 3]))}

    def statement(self, p):
        a, s = p["age"], p["seed"]
        return ("Good neighbours matter. A colleague releases the total age of a group with Laplace noise at ε = 1 "
                "(`sum_without_clamp`, given in the setup). Ages lie in [0, 100], they argue, so one person changes "
                "the total by at most 100, and the noise is Lap(100/ε). But the code never clamps the ages to [0, "
                "100], so a mistyped age goes into the total unchanged. Audit the claim ε = 1 twice with "
                "`search_events` (200,000 runs): first with the neighbours `ages` (200 ages of 40) and "
                f"`ages + [{a!r}]`, an ordinary added person, with `rng=make_rng({s})`; then with `ages` and a "
                "neighbour of your choice that refutes the claim. Store the two `AuditResult`s as a pair in "
                "`answer_ex2 = (ordinary, refuting)`. Does the first audit catch the bug? What does that say about a "
                "passed audit?")

    def setup_code(self, p):
        return ("def sum_without_clamp(ages, size, rng):  # the colleague's code: \"ages lie in [0, 100], so Δ = "
                "100\"\n"
                "    total = float(np.sum(ages))          # BUG: no np.clip(ages, 0, 100) before the sum\n"
                "    return laplace_mech(np.full(size, total), sensitivity=100, epsilon=1.0, rng=rng)\n\n"
                "ages = [40.0] * 200\n")

    def _ordinary(self, p):
        ages = [40.0] * 200
        return [search_events(_sum_without_clamp, *pair, 200_000, rng=make_rng(p["seed"]), claimed_epsilon=1.0)
                for pair in ((ages, ages + [p["age"]]), (ages + [p["age"]], ages))]

    def solve(self, p):
        ages = [40.0] * 200
        refuting = search_events(_sum_without_clamp, ages, ages + [10_000.0], 200_000, rng=make_rng(7),
                                 claimed_epsilon=1.0)
        return (self._ordinary(p)[0], refuting)

    def conditions(self, p):
        a = p["age"]
        more = (f"the first audit certifies more than an added age of {a:g} can (a privacy loss of {a / 100:g}): its "
                f"neighbour must be the ordinary one, ages + [{a!r}], not an outlier (and the pair in the order "
                "(ordinary, refuting))")
        kind = "both entries must be AuditResults (from search_events or epsilon_lower_bound)"
        claim = "audit the claim ε = 1 (claimed_epsilon=1.0)"
        return [_is_audit(0, kind), _is_audit(1, kind),
                Condition(0, ".claimed_epsilon", claim, "number", 1.0, 1.0),
                Condition(1, ".claimed_epsilon", claim, "number", 1.0, 1.0),
                Condition(0, ".flagged", more, "bool", value=False)]

    def parts(self, p):
        a, s = p["age"], p["seed"]
        # deterministic given the seed; the two orders of the pair give two values, and either is accepted. The
        # margin of 0.002 allows a few event counts to differ on another CPU (a count changes the bound by about
        # 1e-4) but not another seed (other seeds land 0.005-0.02 away)
        bounds = [r.epsilon_lb for r in self._ordinary(p)]
        more = (f"the first audit certifies more than an added age of {a:g} can (a privacy loss of {a / 100:g}): its "
                f"neighbour must be the ordinary one, ages + [{a!r}], not an outlier")
        return [Part.between("ordinary", min(bounds) - 0.002, max(bounds) + 0.002,
                             f"run the first audit with search_events, 200,000 runs and rng=make_rng({s}), as the "
                             "exercise says", path=".epsilon_lb",
                             mistakes=[Mistake(more, a / 100 + 0.05, 1e300),
                                       Mistake(f"the first audit certifies nothing: are its neighbours ages and "
                                               f"ages + [{a!r}]?", -1e300, 0.0)]),
                Part.equal("refuting", True, "the second audit does not refute ε = 1: an added age inside [0, 100] "
                           "is covered by the noise; the missing clamp only shows for a record far outside it (try "
                           "10,000)", kind="bool", path=".flagged")]

    def exam(self):
        return [ExamQuestion(
            "ch05-passed-audit", "An audit of a sum claimed ε = 1 (noise Lap(100), ages assumed in [0, 100], no "
            "clamp in the code) uses the neighbours \"200 ages of 40\" and \"the same plus an age of 40\". It "
            "certifies 0.38 and does not refute the claim. What follows?", "choice",
            answer="nothing about other neighbours: an added age of 10,000 would refute the claim",
            distractors=("the mechanism is 1-DP", "the mechanism is 0.38-DP", "the audit needs more runs"),
            feedback=("an audit gives a lower bound; passing proves nothing",
                      "0.38 is a lower bound on this pair only, not the mechanism's ε",
                      "on this pair the loss is at most 0.4 < 1: no number of runs can refute"))]


def _count_scale(scale: float):
    def count_scale(count, size, rng):
        return count + sample_laplace(scale, size=size, rng=rng)
    return count_scale


RUNS = (100, 300, 1_000, 3_000, 10_000)


def _name(scale: float) -> str:
    """The function's name in the setup: count_scale_08 for Lap(0.8), as in the chapter."""
    return "count_scale_" + f"{scale:g}".replace(".", "")


class HowManyRuns(Exercise):
    chapter, key, label, title = "05", "ex3", "ch05-ex3", "How many runs an audit needs"
    randomness = "fixed-seed"  # every audit uses make_rng(seed) of the statement
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"scale": 0.8, "seed": 2024}
    missing = "set answer_ex3 to a number of runs"
    prompt = "Why is the certified bound below the true ε even with many runs?"
    rubric = (
        RubricItem("the cost of confidence", 1,
                   "the bound is ln p_lower − ln p'_upper: the log-ratio of the event minus what the two "
                   "Clopper–Pearson intervals cost on the log scale; that cost shrinks like 1/√N but is positive "
                   "for every N, and the bound climbs with N only up to the luck of each batch (a refutation followed "
                   "by a pass at more runs is such luck, not a contradiction)",
                   "mentions sampling error without the confidence intervals",
                   "no reason, or 'the mechanism is really less than ε'"),
        RubricItem("a lower bound with confidence", 1,
                   "it holds with 95 % confidence, so it stays below the true ε except with probability ≤ α; "
                   "reading off the first of several run counts that refutes is multiple testing (split α)",
                   "mentions confidence without the consequence",
                   "treats the bound as an estimate of ε"),
    )

    def params(self, rng):
        return {"scale": float(rng.choice([0.7, 0.75, 0.8])), "seed": int(rng.choice([2024, 1, 2, 3, 4, 5]))}

    def statement(self, p):
        b, s = p["scale"], p["seed"]
        return (f"How many runs does it take? A count released with noise Lap({b:g}) instead of Lap(1) "
                f"(`{_name(b)}`, given in the setup: the scale for ε = {1 / b:.4g}, reported as ε = 1) is really {1 / b:.4g}-DP, "
                f"only {1 / b - 1:.4g} above the claim. Audit it (inputs the counts `11.0` and `10.0`, the event "
                "{output > 11}, that is `ThresholdEvent(11.0)`) with 100, 300, 1,000, 3,000 and 10,000 runs per "
                f"input, each with `rng=make_rng({s})` and `claimed_epsilon=1.0`. Which of them refute the claim? Set "
                "`answer_ex3` to the smallest of these run counts that refutes it. Why is the bound "
                f"below {1 / b:.4g} even with many runs?")

    def setup_code(self, p):
        return (f"def {_name(p['scale'])}(count, size, rng):  # BUG: Lap({p['scale']!r}) for a count claimed at ε = 1\n"
                f"    return count + sample_laplace({p['scale']!r}, size=size, rng=rng)\n")

    def refutes(self, p):
        return {n: bool(epsilon_lower_bound(_count_scale(p["scale"]), 11.0, 10.0, ThresholdEvent(11.0), n,
                                            rng=make_rng(p["seed"]), claimed_epsilon=1.0).flagged) for n in RUNS}

    def solve(self, p):
        return next(n for n, flagged in self.refutes(p).items() if flagged)

    def parts(self, p):
        # deterministic given the seed: an event count could differ on another CPU only if a draw landed within
        # a last bit of the threshold 11
        answer, refutes = self.solve(p), self.refutes(p)
        mistakes = [Mistake(f"with {n:,} runs the certified bound is still below 1", n, n)
                    for n in RUNS if not refutes[n]]
        mistakes += [Mistake("a smaller number of runs in the list already refutes the claim", n, n)
                     for n in RUNS if refutes[n] and n > answer]
        return [Part.between("runs", answer, answer, "answer with one of the run counts of the exercise",
                             mistakes=mistakes)]

    def exam(self):
        return [ExamQuestion(
            "ch05-more-runs", "A mechanism claimed ε = 1 is really 1.25-DP. An audit with the best event certifies "
            "1.22 with 10,000 runs per input. With 10⁸ runs, the certified bound would be", "choice",
            answer="closer to 1.25, and still below it (except with probability α)",
            distractors=("above 1.25: more runs reveal more", "exactly 1.25",
                         "unchanged: the event decides, not the runs"),
            feedback=("the bound is a lower confidence bound: it exceeds the true ε only with probability α",
                      "the confidence intervals never shrink to zero width",
                      "the cost of the confidence intervals shrinks like 1/√N"))]


class MidpointThreshold(Exercise):
    chapter, key, label, title = "05", "ex4", "ch05-ex4", "Where to put the threshold"
    randomness = "none"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    default = {"scale": 0.8, "threshold": 10.5}
    missing = "set answer_ex4 to the log-ratio at the threshold (a number)"
    prompt = "Derive both probabilities, and explain why the audit puts the threshold at 11 rather than between the inputs."
    rubric = (
        RubricItem("the two probabilities", 1,
                   "for 10 < t < 11: on input 11 the threshold is below the centre, p = 1 − ½e^{−(11−t)/b}; on input "
                   "10 it is above, p' = ½e^{−(t−10)/b} (from the Laplace CDF)",
                   "one of the two right, or both right only for t ≥ 11",
                   "no derivation"),
        RubricItem("why 11", 1,
                   "for t ≥ 11 both probabilities are exponential tails and their ratio is e^{1/b}, the largest any "
                   "event reaches (the true ε); between the inputs the ratio is smaller, so the audit certifies less "
                   "and may not refute at all",
                   "says 11 is better without the reason",
                   "claims the midpoint is the best event"),
    )

    def params(self, rng):
        return {"scale": float(rng.choice([0.5, 0.8, 1.0])), "threshold": float(rng.choice([10.25, 10.5, 10.75]))}

    def statement(self, p):
        b, t = p["scale"], p["threshold"]
        return (f"The audit of a count released with Lap({b:g}) noise on the inputs 11 and 10 uses the event "
                f"{{output > 11}}, whose log-ratio is the true ε = 1/{b:g}. Derive $\\Pr[\\text{{output}} > t]$ on "
                f"both inputs for a threshold $t$ between 10 and 11, and compute the log-ratio $\\ln(p/p')$ at "
                f"$t = {t:g}$ ($p$ on input 11, $p'$ on input 10). Set `answer_ex4` to it (three decimals). Why does "
                "the audit put the threshold at 11 rather than between the inputs?")

    def solve(self, p):
        b, t = p["scale"], p["threshold"]
        high = 1 - float(laplace_cdf(t, loc=11.0, scale=b))
        low = 1 - float(laplace_cdf(t, loc=10.0, scale=b))
        return math.log(high / low)

    def parts(self, p):
        b, t = p["scale"], p["threshold"]
        right = self.solve(p)
        candidates = [(1 / b, f"1/b = {1 / b:g} is the log-ratio for thresholds t ≥ 11; between the inputs, on input "
                       "11 the threshold lies below the centre: Pr[output > t] = 1 − ½e^{−(11−t)/b}"),
                      (math.exp(right), "that is the probability ratio p/p'; the log-ratio is its logarithm"),
                      ((2 * t - 21) / b, "on input 11 the threshold t < 11 lies below the centre: Pr[output > t] = "
                       "1 − ½e^{−(11−t)/b}, more than ½, not ½e^{−(11−t)/b}")]
        mistakes = [Mistake.near(v, h, rtol=0.002, atol=0.002) for v, h in candidates
                    if abs(v - right) > 0.01]
        return [Part.near("log-ratio", right, "p = 1 − ½e^{−(11−t)/b} on input 11, p' = ½e^{−(t−10)/b} on input 10; "
                          "take ln(p/p')", rtol=0.002, atol=0.002, mistakes=mistakes)]

    def exam(self):
        p = {"scale": 1.0, "threshold": 10.5}
        return [ExamQuestion("ch05-midpoint", "A count is released with $\\mathrm{Lap}(1)$ noise (true "
                             "$\\varepsilon = 1$). On the neighbouring inputs 11 and 10, what is the log-ratio "
                             "$\\ln(p/p')$ of the event $\\{\\text{output} > 10.5\\}$? Three decimals.", "numeric",
                             answer=round(self.solve(p), 3), tolerance=0.002),
                ExamQuestion(
                    "ch05-best-threshold", "A count is released with Laplace noise on the neighbouring inputs 11 "
                    "and 10. Which events $\\{\\text{output} > t\\}$ reach the largest log-ratio of "
                    "probabilities (the true ε)?", "choice", answer="every $t \\ge 11$",
                    distractors=("only the midpoint $t = 10.5$", "only $t = 10$", "only very large $t$"),
                    feedback=("between the inputs one probability is not an exponential tail: the ratio is smaller",
                              "at t = 10 the event is above ½ on input 11 and exactly ½ on input 10: a small ratio",
                              "for every t ≥ 11 both are exponential tails with the same ratio e^{1/b}; a large t "
                              "only makes the event rarer, needing more runs"))]


EXERCISES = [DataDependentBins(), MissingClamp(), HowManyRuns(), MidpointThreshold()]
