"""Chapter 12's exercise specifications (exercises/ch12.py): ex5's corner is where the two bounds meet.

The checks common to every chapter are in tests/test_exercises.py."""

import numpy as np
import pytest

from exercises.ch12 import EXERCISES


def test_ex5_corner_is_where_the_two_bounds_meet():
    """α* = (1-δ)/(1+e^ε): the two bounds agree there, the first is lower before, the second after."""
    import math

    from dp_lib import max_tpr

    ex = next(e for e in EXERCISES if e.key == "ex5")
    def first(a, e, d):
        return math.exp(e) * a + d

    def second(a, e, d):
        return 1 - math.exp(-e) * (1 - d - a)

    for p in [ex.default] + [ex.params(np.random.default_rng(s)) for s in range(5)]:
        e, d = p["epsilon"], p["delta"]
        alpha, tpr = ex.solve(p)
        assert first(alpha, e, d) == pytest.approx(second(alpha, e, d), rel=1e-12)
        assert first(alpha, e, d) == pytest.approx(tpr, rel=1e-12)
        assert first(0.9 * alpha, e, d) < second(0.9 * alpha, e, d) and first(1.1 * alpha, e, d) > second(1.1 * alpha, e, d)
        assert float(max_tpr(alpha, e, d)) == pytest.approx(tpr, rel=1e-12)
