"""Shared argument checks and the generator rule: a wrong TYPE is a TypeError, a wrong VALUE a ValueError,
both naming the parameter."""

import numpy as np
import pandas as pd
import pytest

from dp_lib import check_rng, make_rng
from dp_lib.shaping import label_like, refuse_overflow, scalar_or_array
from dp_lib.validation import (check_bool, check_bool_array, check_choice, check_dataframe, check_delta,
                               check_domain, check_epsilon, check_finite_array, check_int, check_nonempty,
                               check_probability, check_real, check_same_length, check_size)


@pytest.mark.parametrize("bad", [0, -0.5, np.nan, np.inf, -np.inf, 10**400])
def test_epsilon_wrong_value(bad):
    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(bad)


@pytest.mark.parametrize("bad", [None, "1", True, np.bool_(False), [1.0], np.array(1.0), 1j])
def test_epsilon_wrong_type(bad):
    with pytest.raises(TypeError, match="epsilon"):
        check_epsilon(bad)


def test_epsilon_accepts_numpy_scalars():
    assert check_epsilon(np.float32(0.5)) == 0.5 and check_epsilon(2) == 2.0


@pytest.mark.parametrize("bad", [0, 1, -1e-9, 1.5, np.nan])
def test_delta(bad):
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        check_delta(bad)


def test_delta_allow_zero_and_type():
    assert check_delta(0.0, allow_zero=True) == 0.0
    with pytest.raises(TypeError, match="delta"):
        check_delta("1e-5")


@pytest.mark.parametrize("bad", [-0.1, 1.1, np.nan])
def test_probability(bad):
    with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\]"):
        check_probability(bad, "p")


def test_real_ranges_and_types():
    assert check_real(-3, "x", minimum=-5) == -3.0
    with pytest.raises(ValueError, match="x must be a finite number in"):
        check_real(-6, "x", minimum=-5)
    with pytest.raises(TypeError, match="x must be a real number"):
        check_real(None, "x")


def test_int_ranges():
    assert check_int(np.int64(3), "k", minimum=1) == 3
    with pytest.raises(ValueError, match="k "):
        check_int(0, "k", minimum=1)
    for bad in (2.5, 3.0, True, "3", None):
        with pytest.raises(TypeError, match="k "):
            check_int(bad, "k", minimum=1)


def test_size():
    assert check_size(None) is None and check_size(3) == (3,) and check_size((2, np.int64(2))) == (2, 2)
    for bad in (2.0, "3", True, (2, None)):
        with pytest.raises(TypeError, match="size"):
            check_size(bad)
    for bad in (-1, (2, -1), 2**41):
        with pytest.raises(ValueError, match="size"):
            check_size(bad)


def test_flags_choices_and_tables():
    assert check_bool(np.bool_(True), "monotone") is True
    for bad in (0, 1, "False", "no", None):
        with pytest.raises(TypeError, match="monotone"):
            check_bool(bad, "monotone")
    assert check_choice("a", "kind", ("a", "b")) == "a"
    with pytest.raises(ValueError, match="kind"):
        check_choice("c", "kind", ("a", "b"))
    with pytest.raises(TypeError, match="kind"):
        check_choice(1, "kind", ("a", "b"))
    with pytest.raises(TypeError, match="df must be a pandas DataFrame"):
        check_dataframe([1, 2], "df")


def test_arrays():
    with pytest.raises(ValueError, match="values"):
        check_finite_array([1, np.inf], "values")
    with pytest.raises(ValueError, match="values"):
        check_finite_array([], "values", allow_empty=False)
    with pytest.raises(ValueError, match="2-dimensional"):
        check_finite_array([1, 2], "values", ndim=2)
    with pytest.raises(ValueError, match="values"):
        check_finite_array([10**400], "values")
    for bad in (["a"], "1.0", None, [True, False], [1, None], {"a": 1}):
        with pytest.raises(TypeError, match="values"):
            check_finite_array(bad, "values")
    with pytest.raises(ValueError, match="same length"):
        check_same_length([1], [1, 2], "a", "b")


def test_bool_arrays_domains_and_sequences():
    assert check_bool_array([[1, 0]], "bits", 2).dtype == bool
    with pytest.raises(ValueError, match="bits"):
        check_bool_array([[2, 0]], "bits", 2)
    with pytest.raises(TypeError, match="bits"):
        check_bool_array([["a"]], "bits", 2)
    for bad in ("abc", {"a", "b"}, 3, None):
        with pytest.raises(TypeError, match="domain"):
            check_domain(bad)
    for bad in ([], ["a", "a"], ["a", None]):
        with pytest.raises(ValueError, match="domain"):
            check_domain(bad)
    with pytest.raises(TypeError, match="domain"):
        check_domain([[1], [2]], as_index=False)
    assert list(check_domain(["a", "b"])) == ["a", "b"] and check_domain(("a",), as_index=False) == ("a",)
    with pytest.raises(TypeError, match="values"):
        check_nonempty(3, "values")


def test_output_shaping_lives_in_its_own_module():
    assert scalar_or_array(np.float64(2.0)) == 2.0 and type(scalar_or_array(np.float64(2.0))) is float
    counts = pd.Series([1, 2], index=["a", "b"])
    assert list(label_like(counts, np.array([3.0, 4.0])).index) == ["a", "b"]
    with pytest.raises(ValueError, match="x: the result is beyond float64"):
        refuse_overflow("x")(lambda x: np.exp(x))(1000.0)


def test_make_rng_and_check_rng():
    rng = make_rng(1)
    assert check_rng(rng) is rng
    assert make_rng(1).random() == make_rng(1).random()
    with pytest.raises(TypeError, match="Generator"):
        make_rng(make_rng(1))
    for bad in ("1", 1.5, True, [1, "a"]):
        with pytest.raises(TypeError, match="seed"):
            make_rng(bad)
    with pytest.raises(ValueError, match="seed"):
        make_rng(-1)
    with pytest.raises(TypeError, match="breaks composition"):
        check_rng(7)
