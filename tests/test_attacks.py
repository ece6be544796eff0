"""Tests of dp_lib.attacks: the linkage join, k-anonymity classes, reconstruction, membership inference.

Statistical checks run at fixed seeds. A share of n Bernoulli outcomes passes
when it is within 4 standard errors of its target.
"""

import doctest
import inspect
import math

import numpy as np
import pandas as pd
import pytest

import dp_lib.attacks as attacks
from dp_lib import (
    ADULT_PATH, equivalence_classes, guess_success_bound, hockey_stick_delta, link_records, load_adult,
    max_tpr, membership_attack, reconstruct_bits, subset_queries, subset_sum_answers,
)

ROSTER_PATH = ADULT_PATH.with_name("public_roster.csv")
Z = 4.0


# --- the linkage attack ---------------------------------------------------------------------------

def test_link_records_small_example():
    released = pd.DataFrame({"DOB": ["1960-01-01", "1960-01-01", "1970-05-05", "1980-02-02"],
                             "Zip": ["02138", "02138", "10001", "94110"],
                             "Income": [">50K", "<=50K", ">50K", "<=50K"]}, index=[10, 11, 12, 13])
    roster = pd.DataFrame({"Name": ["Ann", "Bob", "Cy", "Dee"],
                           "DOB": ["1970-05-05", "1960-01-01", "1980-02-02", "1980-02-02"],
                           "Zip": ["10001", "02138", "94110", "94110"]})
    linked = link_records(released, roster, ["DOB", "Zip"])
    # rows 10/11 share their quasi-identifiers in the release, row 13's match twice in the roster
    assert linked.index.tolist() == [12]
    assert linked.loc[12, "Name"] == "Ann" and linked.loc[12, "Income"] == ">50K"


def test_roster_join_reidentifies_the_listed_participants():
    adult = load_adult()
    roster = pd.read_csv(ROSTER_PATH, dtype={"Zip": str})
    assert roster.shape == (2000, 4) and list(roster.columns) == ["Name", "DOB", "Zip", "Sex"]
    members = roster.merge(adult[["Name", "DOB", "Zip", "Sex"]], on=["Name", "DOB", "Zip", "Sex"])
    assert len(members) == 1000
    released = adult.drop(columns=["Name", "SSN"])
    linked = link_records(released, roster, ["DOB", "Zip", "Sex"])
    assert len(linked) >= 990
    assert (linked["Name"] == adult.loc[linked.index, "Name"]).all(), "every link names the right person"
    # a coarse quasi-identifier links outsiders to the wrong people
    coarse = link_records(released, roster, ["Zip"])
    assert (coarse["Name"] != adult.loc[coarse.index, "Name"]).any()


def test_link_records_refuses_missing_columns():
    df = pd.DataFrame({"Zip": ["1"]})
    with pytest.raises(ValueError, match="roster has no column"):
        link_records(df, pd.DataFrame({"Name": ["x"]}), ["Zip"])
    with pytest.raises(ValueError, match="at least one column"):
        link_records(df, df, [])
    with pytest.raises(TypeError, match="DataFrame"):
        link_records([1], df, ["Zip"])


def test_equivalence_classes_sizes_and_homogeneity():
    df = pd.DataFrame({"A": [1, 1, 1, 2, 2], "B": ["x", "x", "y", "y", "y"], "S": [0, 0, 1, 1, 0]})
    ec = equivalence_classes(df, ["A"], sensitive="S")
    assert ec["size"].tolist() == [3, 2] and ec["size"].sum() == len(df)
    assert ec["distinct"].tolist() == [2, 2]
    ec2 = equivalence_classes(df, ["A", "B"], sensitive="S")
    assert ec2["size"].min() == 1 and set(ec2["distinct"]) == {1, 2}


# --- the reconstruction attack --------------------------------------------------------------------

@pytest.mark.parametrize("n, ratio", [(100, 4), (200, 4), (150, 6)])
def test_reconstruction_is_perfect_without_noise(n, ratio, rng):
    secret = rng.integers(0, 2, n).astype(float)
    queries = subset_queries(n, ratio * n, rng=rng)
    answers = subset_sum_answers(secret, queries, 0.0, rng=rng)
    assert np.array_equal(reconstruct_bits(queries, answers), secret)


def test_reconstruction_nearly_perfect_with_small_noise(rng):
    n = 200
    secret = rng.integers(0, 2, n).astype(float)
    queries = subset_queries(n, 4 * n, rng=rng)
    answers = subset_sum_answers(secret, queries, 0.1 * math.sqrt(n), rng=rng)
    assert np.mean(reconstruct_bits(queries, answers) == secret) >= 0.98


def test_reconstruction_at_chance_when_noise_dwarfs_sqrt_n(rng):
    n, reps = 200, 10
    queries = subset_queries(n, 4 * n, rng=rng)
    secrets = rng.integers(0, 2, (n, reps)).astype(float)
    answers = np.column_stack([subset_sum_answers(s, queries, 100 * math.sqrt(n), rng=rng) for s in secrets.T])
    share = np.mean(reconstruct_bits(queries, answers) == secrets)
    assert abs(share - 0.5) < Z * math.sqrt(0.25 / (n * reps)), f"recovered {share:.3f}, expected chance 0.5"


def test_reconstruction_degrades_monotonically_in_the_noise(rng):
    n = 200
    secret = rng.integers(0, 2, n).astype(float)
    queries = subset_queries(n, 4 * n, rng=rng)
    unit = rng.uniform(-1, 1, size=(4 * n, 10))         # 10 independent answer vectors at once
    exact = (queries @ secret)[:, None]
    acc = [np.mean(reconstruct_bits(queries, exact + r * math.sqrt(n) * unit) == secret[:, None])
           for r in (0.25, 1.0, 4.0)]
    assert acc[0] > 0.95 and acc[0] > acc[1] > acc[2]


def test_reconstruct_bits_many_answer_vectors_at_once(rng):
    queries = subset_queries(50, 200, rng=rng)
    answers = rng.normal(size=(200, 3)) + (queries @ rng.integers(0, 2, 50))[:, None]
    together = reconstruct_bits(queries, answers)
    assert together.shape == (50, 3)
    for j in range(3):
        assert np.array_equal(together[:, j], reconstruct_bits(queries, answers[:, j]))


def test_reconstruction_argument_checks(rng):
    with pytest.raises(ValueError, match="one column per person"):
        subset_sum_answers([1, 0], np.ones((3, 3)), 0.0, rng=rng)
    with pytest.raises(ValueError, match="noise"):
        subset_sum_answers([1, 0], np.ones((3, 2)), -1.0, rng=rng)
    with pytest.raises(ValueError, match="one entry"):
        reconstruct_bits(np.ones((3, 2)), [1.0, 2.0])
    with pytest.raises(TypeError, match="rng"):
        subset_queries(3, 3, rng=1)


# --- membership inference and the hypothesis-testing bound ----------------------------------------

@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 4.0])
def test_membership_attacker_point_satisfies_the_bound(epsilon, rng):
    trials = 200_000
    fpr, tpr = membership_attack(1000, epsilon, trials=trials, rng=rng)
    fnr = 1 - tpr
    se = math.sqrt((fpr * (1 - fpr) + math.exp(2 * epsilon) * fnr * (1 - fnr)) / trials)
    assert fpr + math.exp(epsilon) * fnr >= 1 - Z * se
    assert fnr + math.exp(epsilon) * fpr >= 1 - Z * se
    assert tpr <= max_tpr(fpr, epsilon) + Z * se
    assert (1 - fpr + tpr) / 2 <= guess_success_bound(epsilon) + Z * se


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_membership_attacker_matches_the_exact_laplace_rates(epsilon, rng):
    """The midpoint test has FPR = ½e^(−ε/2) and TPR = 1 − ½e^(−ε/2) exactly."""
    trials = 100_000
    fpr, tpr = membership_attack(0.0, epsilon, trials=trials, rng=rng)
    exact = 0.5 * math.exp(-epsilon / 2)
    se = math.sqrt(exact * (1 - exact) / trials)
    assert abs(fpr - exact) < Z * se and abs(tpr - (1 - exact)) < Z * se
    # power: the same test against a mechanism with half the noise is outside the ε region
    loud = membership_attack(0.0, 2 * epsilon, trials=trials, rng=rng)
    assert loud[1] > max_tpr(loud[0], epsilon) + Z * se


def test_max_tpr_and_guess_bound_formulas():
    assert max_tpr(0.0, 1.0) == 0.0 and max_tpr(1.0, 1.0) == 1.0
    assert max_tpr(0.0, 1.0, delta=0.1) == pytest.approx(0.1)
    f = np.linspace(0, 1, 11)
    assert np.all(max_tpr(f, 0.5) >= f) and np.all(np.diff(max_tpr(f, 0.5)) >= 0)
    # at the fair-prior optimum the two constraints meet at FPR = FNR = 1/(1 + e^ε)
    eps = 1.3
    q = 1 / (1 + math.exp(eps))
    assert max_tpr(q, eps) == pytest.approx(1 - q)
    assert guess_success_bound(eps) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))
    assert guess_success_bound(800.0) == 1.0
    with pytest.raises(ValueError, match="fpr"):
        max_tpr(1.5, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        guess_success_bound(0.0)


def test_hockey_stick_delta():
    p, q = [0.5, 0.5], [0.1, 0.9]
    assert hockey_stick_delta(p, q, 1.0) == pytest.approx(0.5 - math.e * 0.1)
    assert hockey_stick_delta(q, p, 1.0) == 0.0
    assert hockey_stick_delta(p, q, math.log(5)) == pytest.approx(0.0, abs=1e-12)
    assert hockey_stick_delta(p, p, 0.0) == 0.0
    with pytest.raises(ValueError, match="sum to 1"):
        hockey_stick_delta([0.5, 0.6], q, 1.0)


# --- the docstring contract -----------------------------------------------------------------------

@pytest.mark.parametrize("name", attacks.__all__)
def test_docstring_contract(name):
    func = getattr(attacks, name)
    doc = inspect.getdoc(func)
    for part in ("Parameters", "Returns", "Privacy:", "Defined in: chapters/01_why_privacy.ipynb", "Examples"):
        assert part in doc, f"{name}: docstring lacks {part!r}"
    if "rng" in inspect.signature(func).parameters:
        assert inspect.signature(func).parameters["rng"].kind is inspect.Parameter.KEYWORD_ONLY
        assert "make_rng(" in doc


def test_doctests_run():
    result = doctest.testmod(attacks, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= len(attacks.__all__) and result.failed == 0


def test_reconstruction_slider_estimates_are_the_first_draw_of_the_curve():
    from dp_lib.plotting.attacks import _estimates, _first_estimates, _reconstruction_setup

    secret = _reconstruction_setup()[0]
    for r in (0.0, 0.5, 1.0, 3.0):
        whole, first = _estimates(r)[0], _first_estimates(r)
        np.testing.assert_allclose(first, whole, rtol=0, atol=1e-12)
        assert np.array_equal((first > 0.5) == secret, (whole > 0.5) == secret)
