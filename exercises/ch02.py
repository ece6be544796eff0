"""Exercises of Chapter 2, Sampling Laplace noise (chapters/02_laplace.ipynb)."""

from __future__ import annotations

import numpy as np

from dp_lib import laplace_scale
from exercises._core import ExamQuestion, Exercise, Mistake, Part


class ScaleAndStd(Exercise):
    chapter, key, label, title = "02", "ex2", "ch01-ex2", "Laplace scale and standard deviation"
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
        return [Part.near("scale", b, "the scale is sensitivity / epsilon", rtol=1e-3, atol=0.005,
                          mistakes=[Mistake.near(p["epsilon"] / p["sensitivity"],
                                                 "that is epsilon / sensitivity; the scale is sensitivity / epsilon")]),
                Part.near("std", std, "the standard deviation of Lap(b) is sqrt(2) * b", rtol=1e-3, atol=0.005,
                          mistakes=[Mistake.near(b, "numpy's `scale` is b, but the std of Lap(b) is sqrt(2) * b")])]

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


EXERCISES = [ScaleAndStd()]
