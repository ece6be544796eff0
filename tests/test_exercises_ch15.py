"""Chapter 15's exercise specifications (exercises/ch15.py): ex5's δ_user is the chain of neighbours worked by hand.

The checks common to every chapter are in tests/test_exercises.py."""

import numpy as np
import pytest

from exercises.ch15 import EXERCISES


def test_ex5_chain_of_neighbours_by_hand():
    """δ_user is what k applications of P ≤ e^ε P' + δ give, and lies between kδ and k e^((k-1)ε) δ."""
    import math

    ex = next(e for e in EXERCISES if e.key == "ex5")
    for p in [ex.default] + [ex.params(np.random.default_rng(s)) for s in range(5)]:
        e, d, k = p["epsilon"], p["delta"], p["rows"]
        factor, slack = 1.0, 0.0
        for _ in range(k):  # one more row: P[M(D_0)] ≤ factor·(e^ε P[M(D_j+1)] + δ) + slack
            factor, slack = factor * math.exp(e), slack + factor * d
        eps_user, delta_user = ex.solve(p)
        assert math.exp(eps_user) == pytest.approx(factor) and delta_user == pytest.approx(slack, rel=1e-12)
        assert k * d <= delta_user <= k * math.exp((k - 1) * e) * d
