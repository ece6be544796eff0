"""Exercises of Chapter 1, Why privacy is hard (chapters/01_why_privacy.ipynb).

Setup: math, np, pd, equivalence_classes, guess_success_bound, link_records, load_adult, make_rng, max_tpr,
reconstruct_bits, subset_queries, subset_sum_answers, ADULT_PATH, check; adult = load_adult(); roster (the public
roster, read as the chapter reads it); rng = make_rng(seed).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from dp_lib import (equivalence_classes, guess_success_bound, link_records, load_adult, make_rng, max_tpr,
                    reconstruct_bits, subset_queries, subset_sum_answers)
from dp_lib.data import ADULT_PATH
from exercises._core import Condition, ExamQuestion, Exercise, Mistake, Part, RubricItem

SETUP = """\
import math

import numpy as np
import pandas as pd

from dp_lib import (equivalence_classes, guess_success_bound, link_records, load_adult, make_rng, max_tpr,
                    reconstruct_bits, subset_queries, subset_sum_answers)
from dp_lib.data import ADULT_PATH
from dp_lib.selfcheck import check

adult = load_adult()
roster = pd.read_csv(ADULT_PATH.with_name("public_roster.csv"), dtype={"Zip": str})
"""

RELEASED = 'released = adult.drop(columns=["Name", "SSN"])   # the "de-identified" release of the chapter\n'
LINKED = 'linked = link_records(released, roster, ["DOB", "Zip", "Sex"])   # the re-identified roster members\n'


@functools.lru_cache(maxsize=1)
def _data() -> tuple[pd.DataFrame, pd.DataFrame]:
    adult = load_adult()
    roster = pd.read_csv(ADULT_PATH.with_name("public_roster.csv"), dtype={"Zip": str})
    released = adult.drop(columns=["Name", "SSN"])
    return released, link_records(released, roster, ["DOB", "Zip", "Sex"])


def _percent(hint: str) -> Mistake:
    """Any value above 1 for a share: a percentage."""
    return Mistake(hint, 1.0 + 1e-9, 1e9)


class Differencing(Exercise):
    chapter, key, answer, label = "01", "why_ex1", "answer_why_ex1", "why-ex1"
    randomness = "none"
    title = "A differencing attack of your own"
    points, kind, exercise_type = 3.0, "mixed", "design"
    default = {"row": 2, "status": "Never-married"}
    shape, shape_hint = 2, ("answer_why_ex1 must be the pair of counts (with_them, without_them), two numbers, "
                            "not True/False")
    missing = "set answer_why_ex1 to the pair of counts (with_them, without_them)"
    prompt = "What do the two counts tell you about the person, and why can no rule on query size prevent it?"
    rubric = (
        RubricItem("reads the difference", 1,
                   "says the difference is 1 exactly when the person has the status (0 otherwise) and concludes "
                   "correctly for this person",
                   "reads the counts but draws no or a hedged conclusion about the person",
                   "no conclusion, or a conclusion that contradicts the counts"),
        RubricItem("why size rules fail", 1,
                   "notes that both queries cover thousands of people, so a minimum query size does not help: "
                   "the secret is in the difference of two large exact answers",
                   "mentions that the queries are large without linking it to the difference",
                   "claims large aggregates are safe"),
    )

    def params(self, rng):
        return {"row": int(rng.integers(0, 30)),
                "status": str(rng.choice(["Never-married", "Married-civ-spouse", "Divorced"]))}

    def statement(self, p):
        return (f"Run a differencing attack of your own. Take the person in row {p['row']} of `linked` (the "
                "re-identified roster members) and find, with two exact counting queries on `released` that each "
                f"cover thousands of people, whether their `Marital Status` is `\"{p['status']}\"`. Set "
                "`answer_why_ex1` to the pair of counts `(with_them, without_them)`: all people with that status, "
                "and all people with that status except that person. What do the two counts tell you?")

    def setup_code(self, p):
        return RELEASED + LINKED

    def solve(self, p):
        released, linked = _data()
        target = linked.iloc[p["row"]]
        has = released["Marital Status"] == p["status"]
        not_target = ~((released["DOB"] == target["DOB"]) & (released["Zip"] == target["Zip"]))
        return (int(has.sum()), int((has & not_target).sum()))

    def conditions(self, p):
        numbers = "answer_why_ex1 must be the pair of counts (with_them, without_them), two numbers, not True/False"
        return [Condition(i, "", numbers, "number", -1e300, 1e300) for i in (0, 1)]

    def parts(self, p):
        with_them, without_them = self.solve(p)
        status, row = p["status"], p["row"]
        second = [Mistake(f"the second query must leave out exactly one person: match both DOB and Zip of row {row}",
                          with_them - 10**9, with_them - 2)]
        if with_them != without_them:
            second.insert(0, Mistake(f"the counts are equal: the person you left out is not {status}, or your mask "
                                     f"leaves out nobody; use row {row} of linked and match its DOB and Zip",
                                     with_them, with_them))
        else:
            second.insert(0, Mistake(f"the person in row {row} is not {status}: leaving them out cannot change the "
                                     "count; did your mask leave out someone else? Match both DOB and Zip",
                                     with_them - 1, with_them - 1))
        # counts are whole numbers: the right "interval" is one value (a number part, so that mistakes can be ranges)
        return [Part.between("with_them", with_them, with_them, f"the first count is everyone whose Marital Status "
                             f"is \"{status}\" (is the pair in this order?)"),
                Part.between("without_them", without_them, without_them, "the second query must leave out exactly "
                             "one person: match both DOB and Zip", mistakes=second)]

    def exam(self):
        return [ExamQuestion(
            "ch01-differencing", "Two exact counts are released: the number of people with a rare disease in a "
            "hospital (412) and the number of such people who are not born on 1 May 1970 in zip code 02138 (411). "
            "Exactly one patient matches that date and zip code. What follows?", "choice",
            answer="that patient has the disease",
            distractors=("nothing: both counts cover hundreds of people",
                         "that patient does not have the disease",
                         "only that the counts were rounded"),
            feedback=("query size is no protection: the secret is in the difference of two large exact answers",
                      "the difference is 1, not 0: leaving the patient out removed one case",
                      "exact counts: the difference of 1 is exactly one person"))]


class TestingBounds(Exercise):
    chapter, key, answer, label = "01", "why_ex2", "answer_why_ex2", "why-ex2"
    randomness = "none"
    title = "What ε limits: a guess and a membership test"
    points, kind, exercise_type = 2.0, "auto", "computation"
    default = {"epsilon": 0.5, "fpr": 0.05}
    shape, shape_hint = 2, "answer_why_ex2 must be a pair (a, b)"
    missing = "set answer_why_ex2 to the pair (a, b)"

    def params(self, rng):
        return {"epsilon": float(rng.choice([0.25, 0.5, 0.75, 1.0, 1.5, 2.0])),
                "fpr": float(rng.choice([0.01, 0.02, 0.05, 0.1]))}

    def statement(self, p):
        return (f"A release is ε-DP with ε = {p['epsilon']:g}. (a) What is the highest probability with which any "
                "attacker can guess correctly whether Alice is in the data, if both are a priori equally likely? "
                "(b) What is the largest true-positive rate any membership test can reach at a false-positive rate "
                f"of {100 * p['fpr']:g} %? Set `answer_why_ex2 = (a, b)`.")

    def solve(self, p):
        return (guess_success_bound(p["epsilon"]), float(max_tpr(p["fpr"], p["epsilon"])))

    def parts(self, p):
        eps, fpr = p["epsilon"], p["fpr"]
        a, b = self.solve(p)
        percent = _percent("give both as probabilities (fractions), not in percent")
        other = 1 - math.exp(-eps) * (1 - fpr)
        b_mistakes = [percent]
        if abs(other - b) > 0.012:  # the other branch of the min, when it is told apart from the right one
            b_mistakes.append(Mistake.near(other, "(b) TPR <= e^ε·FPR binds at small FPR", rtol=0, atol=0.006))
        return [Part.near("a", a, "(a) use e^ε / (1 + e^ε)", rtol=0, atol=0.006,
                          mistakes=[percent, Mistake.near(1 - a, "(a) that is the chance of a wrong guess",
                                                          rtol=0, atol=0.006)]),
                Part.near("b", b, "(b) the largest TPR is min(e^ε·FPR, 1 - e^-ε(1 - FPR))", rtol=0, atol=0.006,
                          mistakes=b_mistakes)]

    def exam(self):
        a = guess_success_bound(1.0)
        b = float(max_tpr(0.01, 1.0))
        return [ExamQuestion("ch01-guess", "A release is $\\varepsilon$-DP with $\\varepsilon = 1$. At a fair "
                             "prior, what is the highest probability that any attacker guesses correctly whether "
                             "Alice is in the data? Give three decimals.", "numeric",
                             answer=round(a, 3), tolerance=0.001),
                ExamQuestion("ch01-max-tpr", "A release is $1$-DP ($\\delta = 0$). What is the largest "
                             "true-positive rate a membership test can have at a false-positive rate of 1 %?",
                             "choice", answer=f"{b:.4f}",
                             distractors=(f"{1 - math.exp(-1) * 0.99:.4f}", f"{1 - a:.4f}", f"{a:.4f}"),
                             feedback=("that is the other branch 1 − e^{−ε}(1 − FPR); at small FPR "
                                       "TPR ≤ e^ε·FPR binds",
                                       "that is the chance of a wrong guess at a fair prior",
                                       "that is the guessing bound e^ε/(1 + e^ε), not a TPR at a given FPR"))]


class Coarsening(Exercise):
    chapter, key, answer, label = "01", "why_ex3", "answer_why_ex3", "why-ex3"
    randomness = "none"
    title = "Coarser generalisation and the homogeneity attack"
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"width": 10, "column": "Sex"}
    shape, shape_hint = 2, "answer_why_ex3 must be a pair (k, share)"
    missing = "set answer_why_ex3 to the pair (k, share)"
    prompt = "Does generalising further protect against the homogeneity attack here?"
    rubric = (
        RubricItem("what coarsening did", 1,
                   "notes that the homogeneous classes (almost) disappear, so the homogeneity attack fails on this "
                   "table, at the cost of detail for everyone",
                   "states the numbers without interpreting them",
                   "claims coarsening made things worse, or ignores the computed share"),
        RubricItem("limits of k-anonymity", 1,
                   "explains that this is no guarantee: attackers with background knowledge, or other releases "
                   "of the same people (differencing, composition), still learn about individuals; k-anonymity "
                   "is a property of one table, not of the mechanism",
                   "mentions background knowledge or other releases without saying why they matter",
                   "concludes that a large enough k makes the table private"),
    )

    def params(self, rng):
        # only genuine coarsenings of the chapter's 5-anonymous (decade, zip prefix, sex) table: bands of 10 or 20
        # years and sex (k = 14 and 38). Five-year bands are finer than decades and Race is a new quasi-identifier
        # (k down to 1: single people, identity disclosure), which the statement and rubric do not describe.
        return {"width": int(rng.choice([10, 20])), "column": "Sex"}

    def statement(self, p):
        band = "decade of age" if p["width"] == 10 else f"age in bands of {p['width']} years (Age // {p['width']})"
        return (f"Make the k-anonymous table coarser: keep only the {band} and `{p['column']}` (drop the zip code "
                "entirely). What is the smallest class size k now, and what share of people is in a class with a "
                "single income class (`Target`)? Set `answer_why_ex3 = (k, share)`, the share as a fraction of all "
                "people. Does generalising further protect against the homogeneity attack here?")

    def setup_code(self, p):
        return RELEASED

    def solve(self, p):
        released, _ = _data()
        w = p["width"]
        classes = equivalence_classes(released.assign(Band=released["Age"] // w * w), ["Band", p["column"]],
                                      sensitive="Target")
        share = classes.loc[classes["distinct"] == 1, "size"].sum() / len(released)
        return (int(classes["size"].min()), float(share))

    def parts(self, p):
        k, share = self.solve(p)
        k_mistakes = [] if k == 5 else [Mistake("k = 5 is the table with the zip code; group by the age band and "
                                                f"{p['column']} only", value=5)]
        s_mistakes = [] if share == 0 else [Mistake.near(100 * share, "give the share as a fraction, not in percent",
                                                         rtol=0.1)]
        return [Part.equal("k", k, f"k is the size of the smallest (age band, {p['column']}) class",
                           mistakes=k_mistakes),
                Part.near("share", share, "share = people in classes with one income class / all people (count "
                          "people, not classes)", rtol=0.1, atol=5e-5, mistakes=s_mistakes)]

    def exam(self):
        return [ExamQuestion(
            "ch01-k-anonymity", "A table is 5-anonymous on its quasi-identifiers (age band, zip prefix, sex). In "
            "one class all 7 people earn more than 50K. What does an attacker who knows a neighbour's age band, zip "
            "prefix and sex learn?", "choice", answer="the neighbour's income class, with certainty",
            distractors=("nothing: the neighbour hides among at least 5 people",
                         "nothing, as long as k is at least 5 in every class",
                         "only a 1/7 chance of the neighbour's income class"),
            feedback=("k-anonymity hides who is who, not what the class has in common (homogeneity attack)",
                      "k bounds the class size, not the diversity of the sensitive value",
                      "every member of the class has the same income class: the chance is 1"))]


def _predicted_share(ratio: float) -> float:
    """P(a bit is rounded right) = P(estimation error < ½) = Φ(½/sd), one-sided (a 0 is lost only if its error
    exceeds +½, a 1 only if it falls below −½), for least squares at m = 2n: sd (E/√3)·2/√(m − n), E = ratio·√n."""
    sd = 2 * ratio / math.sqrt(3)
    return 1 - 0.5 * math.erfc(0.5 / sd / math.sqrt(2))


class FewerQueries(Exercise):
    chapter, key, answer, label = "01", "why_ex4", "answer_why_ex4", "why-ex4"
    randomness = "draws"  # the shares come from the setup's rng (subset_sum_answers)
    title = "Reconstruction with fewer queries"
    points, kind, exercise_type = 2.0, "mixed", "computation"
    default = {"ratio": 0.25}
    shape, shape_hint = 2, "answer_why_ex4 must be a pair (m = n, m = 2n)"
    missing = "set answer_why_ex4 to the pair of shares (m = n, m = 2n)"
    prompt = "How does the share of bits recovered change, and why does least squares need m well above n?"
    rubric = (
        RubricItem("square system", 1,
                   "at m = n the system is square: least squares fits the errors exactly, amplified by the inverse "
                   "of a random matrix, so the estimate is little better than a coin flip",
                   "says 'too few equations' without the noise-fitting argument",
                   "no explanation or a wrong one (e.g. 'the attack needs 2n queries by definition')"),
        RubricItem("m - n matters", 1,
                   "the error of each estimate shrinks like 1/√(m − n) (sd about (E/√3)·2/√(m − n)), so what "
                   "matters is how far m exceeds n",
                   "says more queries average out noise, without the dependence on m − n",
                   "no dependence on the number of queries stated"),
    )

    def params(self, rng):
        return {"ratio": float(rng.choice([0.25, 0.3, 0.35]))}

    def statement(self, p):
        return (f"Repeat the first reconstruction attack, with errors up to E = {p['ratio']:g}√n drawn by "
                "`subset_sum_answers` (not Laplace noise), with fewer queries: m = n and m = 2n. How does the share "
                "of bits recovered change, and why does least squares need m well above n? Set `answer_why_ex4` to "
                "the pair of shares (m = n, m = 2n), as fractions of the 200 bits.")

    def setup_code(self, p):
        return (RELEASED + "n = 200\n"
                'secret = (released["Target"].iloc[:n] == ">50K").to_numpy(float)   # the 200 secret bits\n')

    def solve(self, p):
        released, _ = _data()
        n, rng = 200, make_rng(2003)
        secret = (released["Target"].iloc[:n] == ">50K").to_numpy(float)
        shares = []
        for m in (n, 2 * n):
            queries = subset_queries(n, m, rng=rng)
            answers = subset_sum_answers(secret, queries, p["ratio"] * math.sqrt(n), rng=rng)
            shares.append(float(np.mean(reconstruct_bits(queries, answers) == secret)))
        return tuple(shares)

    def parts(self, p):
        r = p["ratio"]
        predicted = _predicted_share(r)
        # Randomized answer (the student's rng): at m = 2n the share of 200 bits has sd about
        # sqrt(p(1 - p)/200) (simulated over 300 seeds: within 10 % of it); 6 of them cover any honest seed.
        # At m = n the share is 0.53-0.55 on average with sd 0.04-0.05 over seeds: [0.3, 0.8] is over 5 sd.
        low = predicted - 6 * math.sqrt(predicted * (1 - predicted) / 200)
        # The order hint (a swapped pair puts the m = n share, about 0.54, second) stops where the right interval
        # starts: at E = 0.35√n (low = 0.760) its old end 0.8 named honest shares 4 sd below their mean (0.892, sd
        # 0.023 over 150 seeds); at E = 0.25√n and 0.3√n the right interval starts above 0.8 (0.874, 0.814).
        order_end = min(0.8, low - 1e-9)
        percent = _percent("give shares as fractions of the 200 bits, not in percent")
        order = "more queries should recover more bits: is the pair in the order (m = n, m = 2n)?"
        return [Part.between("m = n", 0.3, 0.8, "at m = n least squares fits the noise exactly: expect little "
                             "better than a coin flip", mistakes=[percent, Mistake(order, 0.8 + 1e-9, 1.0)]),
                Part.between("m = 2n", low, 1 - 1e-9,
                             f"at m = 2n and E = {r:g}·√n about {predicted:.0%} come back: check m, E (bounded "
                             "errors from subset_sum_answers, not Laplace noise) and the rounding at ½",
                             mistakes=[percent,
                                       Mistake(f"at m = 2n some bits should come out wrong: is E = {r:g}·√n (not "
                                               f"{r:g}), and m = 2n (not 4n)?", 1.0, 1.0),
                                       Mistake(order, 0.0, order_end)])]

    def exam(self):
        return [ExamQuestion(
            "ch01-reconstruction", "A curator answers $m$ random subset-sum queries on $n$ secret bits, each with an "
            "error bounded by $E = 0.25\\sqrt n$. For which $m$ does least-squares reconstruction recover only about "
            "half of the bits?", "choice", answer="$m = n$",
            distractors=("$m = 2n$", "$m = 4n$", "no $m$: bounded errors always protect the bits"),
            feedback=("at m = 2n the error sd is (E/√3)·2/√(m − n) ≈ 0.29 and about 96 % come back",
                      "at m = 4n almost every bit comes back",
                      "random bounded errors of order √n still let least squares recover almost all bits once "
                      "m − n is large; Dinur–Nissim's o(√n) is for adversarial errors"))]


class EpsilonFromAttack(Exercise):
    chapter, key, answer, label = "01", "why_ex5", "answer_why_ex5", "why-ex5"
    randomness = "none"
    title = "The ε an attack proves"
    points, kind, exercise_type = 2.0, "mixed", "derivation"
    default = {"tpr": 0.5, "fpr": 0.01}
    missing = "set answer_why_ex5 to the smallest ε (a number)"
    prompt = "Derive the bound: which inequality of the theorem binds here, and why is ε at least that value?"
    rubric = (
        RubricItem("both inequalities", 1,
                   "writes both inequalities of the theorem with δ = 0 and solves each for ε: ε ≥ ln(TPR/FPR) and "
                   "ε ≥ ln((1 − FPR)/(1 − TPR))",
                   "uses only one of the two inequalities, or solves one of them wrongly",
                   "no inequality from the theorem"),
        RubricItem("the binding one", 1,
                   "says ε-DP must satisfy both, so ε is at least the larger, ln(TPR/FPR) here: at a low FPR the "
                   "ratio TPR/FPR is what proves a large ε",
                   "gives the right number without saying why the larger bound is the answer",
                   "takes the smaller bound, or adds or averages the two"),
    )

    def params(self, rng):
        return {"tpr": float(rng.choice([0.2, 0.3, 0.5, 0.7])), "fpr": float(rng.choice([0.005, 0.01, 0.02]))}

    def _bounds(self, p):
        tpr, fpr = p["tpr"], p["fpr"]
        return math.log(tpr / fpr), math.log((1 - fpr) / (1 - tpr))

    def statement(self, p):
        return (f"A membership attack on a release reaches a true-positive rate of {p['tpr']:g} at a false-positive "
                f"rate of {p['fpr']:g}. Assume the release is ε-DP (δ = 0). From the two inequalities of the "
                "hypothesis-testing theorem, derive the smallest ε the release can have, given this attack. Set "
                "`answer_why_ex5` to it (three decimals are enough).")

    def solve(self, p):
        return max(self._bounds(p))

    def parts(self, p):
        ratio_bound, other = self._bounds(p)
        tpr, fpr = p["tpr"], p["fpr"]
        guess = math.log((1 - fpr + tpr) / (1 + fpr - tpr))
        mistakes = [Mistake.near(tpr / fpr, "that is e^ε, the ratio TPR/FPR; take its logarithm", rtol=0.002),
                    Mistake.near(other, "that is FPR + e^ε·FNR ≥ 1 alone; the other inequality, TPR ≤ e^ε·FPR, "
                                 "must hold too and gives a larger ε", rtol=0.002),
                    Mistake.near(guess, "that is what the guessing bound e^ε/(1 + e^ε) gives; it averages FPR and "
                                 "FNR and is weaker than the two inequalities", rtol=0.002)]
        v = self.solve(p)
        width = max(abs(v) * 0.001, 0.0005)  # the right interval below (rtol, atol); mistakes are matched first
        lo, hi = v - width, v + width
        rounding = "nearly: give at least two decimals (three are enough)"
        mistakes += [Mistake(rounding, v - 0.05, lo - 1e-9), Mistake(rounding, hi + 1e-9, v + 0.05)]
        return [Part.near("epsilon", v, "solve both inequalities for ε (δ = 0): ε must be at least "
                          "the larger of ln(TPR/FPR) and ln((1 − FPR)/(1 − TPR))", rtol=0.001, atol=0.0005,
                          mistakes=mistakes)]

    def exam(self):
        p = {"tpr": 0.4, "fpr": 0.02}
        eps = self.solve(p)
        return [ExamQuestion("ch01-eps-from-attack", "A membership test against a release has TPR $= 0.4$ at "
                             "FPR $= 0.02$. If the release is $\\varepsilon$-DP ($\\delta = 0$), what is the "
                             "smallest possible $\\varepsilon$? Give three decimals.", "numeric",
                             answer=round(eps, 3), tolerance=0.002)]


EXERCISES = [Differencing(), TestingBounds(), Coarsening(), FewerQueries(), EpsilonFromAttack()]
