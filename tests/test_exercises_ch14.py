"""Chapter 14's exercise specifications (exercises/ch14.py): ex4 accepts a Series or a dict with int keys, and ex5's
variance is the pmf sum.

The checks common to every chapter are in tests/test_exercises.py."""

import numpy as np
import pytest

from dp_lib.selfcheck import encode
from exercises.ch14 import EXERCISES


def test_ex4_accepts_a_series_or_a_dict_with_int_keys():
    import pandas as pd

    from dp_lib.selfcheck import check

    ex = next(e for e in EXERCISES if e.key == "ex4")
    code = encode(ex.check_doc(ex.default))
    ratios = ex.solve(ex.default)
    assert check(pd.Series(ratios).round(6), code) == "Correct!"
    assert check({(int(s) if s == int(s) else s): r for s, r in ratios.items()}, code) == "Correct!"
    with pytest.raises(AssertionError, match="dict or a pandas Series"):
        check(list(ratios.values()), code)
    with pytest.raises(AssertionError, match="continuous Gaussian"):
        check({s: 1.0 for s in ratios}, code)


@pytest.mark.parametrize("epsilon", [0.25, 0.5, 2.0, 4.0])
def test_ex5_derived_variance_is_the_pmf_sum(epsilon):
    """The derivation's 2p/(1-p)² against Σ z² P(z) summed over the integers, and below 2t²."""
    from dp_lib import discrete_laplace_pmf

    ex = next(e for e in EXERCISES if e.key == "ex5")
    var, ratio = ex.solve({"epsilon": epsilon})
    zs = np.arange(-2000, 2001)
    assert var == pytest.approx(float(np.sum(zs ** 2 * discrete_laplace_pmf(zs, 1 / epsilon))), rel=1e-9)
    assert ratio < 1
