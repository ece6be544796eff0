"""Shared argument checks and the generator rule."""

import numpy as np
import pytest

from dp_lib import check_rng, make_rng
from dp_lib.validation import (check_delta, check_epsilon, check_finite_array, check_int, check_probability,
                               check_same_length)


@pytest.mark.parametrize("bad", [0, -0.5, np.nan, np.inf, -np.inf, None, "1", True, [1.0]])
def test_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(bad)


def test_epsilon_accepts_numpy_scalars():
    assert check_epsilon(np.float32(0.5)) == 0.5 and check_epsilon(2) == 2.0


@pytest.mark.parametrize("bad", [0, 1, -1e-9, 1.5, np.nan])
def test_delta(bad):
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        check_delta(bad)


def test_delta_allow_zero():
    assert check_delta(0.0, allow_zero=True) == 0.0


@pytest.mark.parametrize("bad", [-0.1, 1.1, np.nan])
def test_probability(bad):
    with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\]"):
        check_probability(bad, "p")


def test_int_ranges():
    assert check_int(np.int64(3), "k", minimum=1) == 3
    for bad in (0, 2.5, True, "3"):
        with pytest.raises(ValueError, match="k "):
            check_int(bad, "k", minimum=1)


def test_arrays():
    with pytest.raises(ValueError, match="values"):
        check_finite_array([1, np.inf], "values")
    with pytest.raises(ValueError, match="values"):
        check_finite_array([], "values", allow_empty=False)
    with pytest.raises(ValueError, match="2-dimensional"):
        check_finite_array([1, 2], "values", ndim=2)
    with pytest.raises(ValueError, match="numeric"):
        check_finite_array(["a"], "values")
    with pytest.raises(ValueError, match="same length"):
        check_same_length([1], [1, 2], "a", "b")


def test_make_rng_and_check_rng():
    rng = make_rng(1)
    assert check_rng(rng) is rng
    assert make_rng(1).random() == make_rng(1).random()
    with pytest.raises(ValueError, match="Generator"):
        make_rng(make_rng(1))
    with pytest.raises(ValueError, match="breaks composition"):
        check_rng(7)
