"""Tests for dp_lib.composition: composition rules, the accountant, the parallel histogram."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dp_lib import (
    EDUCATION_LEVELS,
    MARITAL_STATUSES,
    BudgetExceededError,
    PrivacyAccountant,
    advanced_composition,
    advanced_epsilon,
    laplace_mech,
    load_adult,
    make_rng,
    optimal_composition_delta,
    optimal_composition_epsilon,
    parallel_epsilon,
    parallel_histogram,
    sequential_delta,
    sequential_epsilon,
)
from dp_lib.events import (Composed, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent, PoissonSampled,
                           RandomizedResponseEvent, Repeated, ZcdpEvent)

# ---------------------------------------------------------------- composition rules


def test_sequential_and_parallel_rules():
    assert sequential_epsilon([0.5, 0.25, 0.25]) == 1.0
    assert sequential_epsilon([]) == 0.0
    assert parallel_epsilon([0.5, 1.0, 0.25]) == 1.0
    assert parallel_epsilon([]) == 0.0
    assert sequential_delta([1e-6, 2e-6]) == pytest.approx(3e-6, rel=1e-15)
    # fsum: ten float 0.1s add up to exactly 1.0 (the naive left-to-right sum does not)
    assert sum([0.1] * 10) != 1.0
    assert sequential_epsilon([0.1] * 10) == 1.0


def test_advanced_composition_hand_computed():
    # ε = 0.1, k = 100, δ' = 1e-5: sqrt(200 ln 1e5)·0.1 = 4.79853..., 100·0.1·(e^0.1 - 1) = 1.05171...
    eps_total, delta_total = advanced_composition(0.1, 0.0, 100, 1e-5)
    assert eps_total == pytest.approx(4.798526 + 1.051709, abs=1e-5)
    assert delta_total == pytest.approx(1e-5)
    # with per-query δ the total δ is kδ + δ'
    eps2, delta2 = advanced_composition(0.1, 1e-7, 100, 1e-5)
    assert eps2 == eps_total
    assert delta2 == pytest.approx(100 * 1e-7 + 1e-5)
    # k = 1, ε = 1, δ' = e^-2: sqrt(2·1·2)·1 + 1·(e - 1) = 2 + e - 1 = 1 + e
    eps3, _ = advanced_composition(1.0, 0.0, 1, math.exp(-2))
    assert eps3 == pytest.approx(1 + math.e, rel=1e-12)


def test_advanced_composition_is_theorem_3_20_not_corollary_3_21():
    # The corollary's shortcut 2ε·sqrt(2k ln(1/δ')) differs from the theorem; we implement the theorem.
    eps, k, dp = 0.1, 100, 1e-5
    total, _ = advanced_composition(eps, 0.0, k, dp)
    assert total != pytest.approx(2 * eps * math.sqrt(2 * k * math.log(1 / dp)), rel=1e-3)
    assert total == pytest.approx(math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * math.expm1(eps))


@pytest.mark.parametrize("k", [1, 2, 10, 100, 1_000, 10_000, 1_000_000])
@pytest.mark.parametrize("delta_prime", [1e-2, 1e-5, 1e-10])
def test_advanced_never_beats_plain_at_epsilon_one(k, delta_prime):
    # ε' / (kε) = sqrt(2 ln(1/δ')/k) + (e^ε - 1) >= e - 1 > 1 at ε = 1, for every k
    total, _ = advanced_composition(1.0, 0.0, k, delta_prime)
    assert total > k * 1.0


def test_advanced_wins_at_small_epsilon_after_break_even():
    # ε = 0.1, δ' = 1e-5: wins iff k > 2 ln(1/δ') / (2 - e^ε)^2 = 28.76...
    break_even = 2 * math.log(1e5) / (2 - math.exp(0.1)) ** 2
    assert 28 < break_even < 29
    assert advanced_composition(0.1, 0.0, 28, 1e-5)[0] > 28 * 0.1
    assert advanced_composition(0.1, 0.0, 29, 1e-5)[0] < 29 * 0.1
    assert advanced_composition(0.1, 0.0, 1000, 1e-5)[0] < 0.3 * 1000 * 0.1
    # above ln 2 it never wins, however large k is
    assert advanced_composition(0.7, 0.0, 10**9, 1e-5)[0] > 10**9 * 0.7


# ---------------------------------------------------------------- optimal composition (Kairouz, Oh & Viswanath 2015)


def _tanh_bound(eps, k, delta):
    """kε·tanh(ε/2) + ε·sqrt(2k ln(1/δ)): Azuma around the mean loss of ε-RR, ε·tanh(ε/2); a valid, looser bound."""
    return k * eps * math.tanh(eps / 2) + eps * math.sqrt(2 * k * math.log(1 / delta))


def test_optimal_composition_reference_values():
    # DP_REFERENCE §14: k = 1000, ε = 1, δ' = 1e-5
    k, eps, dlt = 1000, 1.0, 1e-5
    assert round(optimal_composition_epsilon(eps, k, dlt), 2) == 577.83
    assert round(_tanh_bound(eps, k, dlt), 2) == 613.86
    assert round(advanced_epsilon(eps, k, dlt), 2) == 1870.02
    assert round(advanced_composition(eps, 0.0, k, dlt)[0], 2) == 1870.02
    assert k * eps == 1000
    # the answer really holds, and a slightly smaller ε' does not
    opt = optimal_composition_epsilon(eps, k, dlt)
    assert optimal_composition_delta(eps, k, opt) <= dlt
    assert optimal_composition_delta(eps, k, opt * (1 - 1e-8)) > dlt


def _brute_force_delta(ratio, k, exp_eps_prime):
    """δ(ε') of k-fold randomized response with e^ε = ``ratio`` and e^ε' = ``exp_eps_prime`` (Fractions), by
    enumerating all 2^k output sequences: Σ_o max(0, P(o) - e^ε' Q(o))."""
    from fractions import Fraction
    from itertools import product

    p = Fraction(ratio, ratio + 1)  # P answers "1" with p, Q with 1 - p
    total = Fraction(0)
    for outs in product((0, 1), repeat=k):
        ones = sum(outs)
        prob_p = p**ones * (1 - p) ** (k - ones)
        prob_q = (1 - p) ** ones * p ** (k - ones)
        total += max(Fraction(0), prob_p - exp_eps_prime * prob_q)
    return total


@pytest.mark.parametrize("ratio", [2, 3])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_optimal_composition_delta_matches_brute_force_enumeration(ratio, k):
    # e^ε = 2 or 3 and e^ε' rational: the enumeration is exact; the library agrees to float precision
    # (abs: at e^ε' = ratio^k, ln(ratio^k) and k·ln(ratio) differ in the last bit, leaving a δ of ~1e-16)
    for exp_eps_prime in (1, 2, 3, 5, 7, 10, 30, 100, ratio**k, ratio**k + 1):
        exact = _brute_force_delta(ratio, k, exp_eps_prime)
        got = optimal_composition_delta(math.log(ratio), k, math.log(exp_eps_prime))
        assert got == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


def test_optimal_composition_delta_matches_mpmath_at_epsilon_one():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    k, eps = 30, 1
    for eps_prime in (0, 0.5, 3, 10.25, 20, 29.5):
        exact = mpmath.fsum(
            mpmath.binomial(k, j) / (1 + mpmath.e**eps) ** k
            * max(0, mpmath.e ** ((k - j) * eps) - mpmath.e ** (eps_prime + j * eps))
            for j in range(k + 1))
        assert optimal_composition_delta(1.0, k, eps_prime) == pytest.approx(float(exact), rel=1e-11)


@pytest.mark.parametrize("eps", [0.01, 0.5, 1.0, 3.0])
def test_optimal_composition_with_one_mechanism_is_epsilon(eps):
    # k = 1: δ(ε') = 0 for ε' >= ε, and for ε' < ε it is (e^ε - e^ε')/(1 + e^ε) (one RR answer)
    assert optimal_composition_delta(eps, 1, eps) == 0.0
    assert optimal_composition_delta(eps, 1, 2 * eps) == 0.0
    assert optimal_composition_delta(eps, 1, eps / 2) == pytest.approx(
        (math.exp(eps) - math.exp(eps / 2)) / (1 + math.exp(eps)), rel=1e-12)
    assert optimal_composition_epsilon(eps, 1, 0.0) == eps
    dlt = 1e-6
    expected = math.log(math.exp(eps) - dlt * (1 + math.exp(eps)))
    assert optimal_composition_epsilon(eps, 1, dlt) == pytest.approx(expected, rel=2e-9)
    assert optimal_composition_epsilon(eps, 1, dlt) <= eps


@pytest.mark.parametrize("eps", [0.001, 0.01, 0.1, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("k", [1, 2, 10, 100, 1000, 10_000])
@pytest.mark.parametrize("dlt", [1e-3, 1e-5, 1e-10])
def test_optimal_composition_never_worse_than_basic_or_theorem_3_20(eps, k, dlt):
    opt = optimal_composition_epsilon(eps, k, dlt)
    assert 0.0 <= opt <= k * eps
    assert opt <= advanced_epsilon(eps, k, dlt) * (1 + 1e-9)
    assert opt <= _tanh_bound(eps, k, dlt) * (1 + 1e-9)


@pytest.mark.parametrize("eps, k", [(1.0, 1000), (0.1, 100), (0.5, 50), (0.01, 3000)])
def test_optimal_composition_matches_dp_accounting_pld(eps, k):
    # dp-accounting's PLD of the (ε, 0) dominating pair (randomized response), self-composed k times
    pld_lib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    pld = pld_lib.from_privacy_parameters(DifferentialPrivacyParameters(eps, 0.0),
                                          value_discretization_interval=1e-4).self_compose(k)
    assert optimal_composition_epsilon(eps, k, 1e-5) == pytest.approx(pld.get_epsilon_for_delta(1e-5), rel=1e-6)
    for eps_prime in (0.2 * k * eps, 0.5 * k * eps):
        # the PLD rounds up and truncates its tails into δ (~1e-13 here): never below the exact value
        ours, theirs = optimal_composition_delta(eps, k, eps_prime), pld.get_delta_for_epsilon(eps_prime)
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-12)
        assert ours <= theirs * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize("eps", [1e-6, 0.001, 1.0, 50.0, 700.0, 1e4])
def test_optimal_composition_large_k_is_finite(eps):
    k = 100_000
    for eps_prime in (0.0, 0.3 * k * eps, k * eps):
        d = optimal_composition_delta(eps, k, eps_prime)
        assert math.isfinite(d) and 0.0 <= d <= 1.0
    opt = optimal_composition_epsilon(eps, k, 1e-5)
    assert math.isfinite(opt) and 0.0 <= opt <= k * eps
    assert optimal_composition_delta(eps, k, opt) <= 1e-5


def test_optimal_composition_is_monotone():
    eps_of_delta = [optimal_composition_epsilon(0.3, 200, d) for d in (1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5)]
    assert eps_of_delta == sorted(eps_of_delta, reverse=True)
    eps_of_k = [optimal_composition_epsilon(0.3, k, 1e-6) for k in (1, 2, 5, 10, 100, 1000)]
    assert eps_of_k == sorted(eps_of_k)
    eps_of_eps = [optimal_composition_epsilon(e, 100, 1e-6) for e in (0.01, 0.05, 0.1, 0.5, 1.0)]
    assert eps_of_eps == sorted(eps_of_eps)
    deltas = [optimal_composition_delta(0.3, 200, ep) for ep in np.linspace(0, 60, 61)]
    assert all(a >= b for a, b in zip(deltas, deltas[1:], strict=False))
    assert deltas[-1] == 0.0  # ε' = kε: no loss exceeds it


@pytest.mark.parametrize(
    "func, args, name",
    [
        (optimal_composition_delta, (0.0, 10, 1.0), "epsilon"),
        (optimal_composition_delta, (float("inf"), 10, 1.0), "epsilon"),
        (optimal_composition_delta, ("1", 10, 1.0), "epsilon"),  # wrong types: TypeError (see below)
        (optimal_composition_delta, (1.0, 0, 1.0), "k"),
        (optimal_composition_delta, (1.0, 2.0, 1.0), "k"),
        (optimal_composition_delta, (1.0, True, 1.0), "k"),
        (optimal_composition_delta, (1.0, 10**7, 1.0), "k"),
        (optimal_composition_delta, (1.0, 10, -0.1), "epsilon_prime"),
        (optimal_composition_delta, (1.0, 10, float("nan")), "epsilon_prime"),
        (optimal_composition_delta, (1e308, 10, 1.0), "epsilon"),
        (optimal_composition_epsilon, (-1.0, 10, 1e-5), "epsilon"),
        (optimal_composition_epsilon, (1.0, -3, 1e-5), "k"),
        (optimal_composition_epsilon, (1.0, 10, 1.0), "delta"),
        (optimal_composition_epsilon, (1.0, 10, -1e-5), "delta"),
        (optimal_composition_epsilon, (1.0, 10, None), "delta"),
    ],
)
def test_optimal_composition_refuses(func, args, name):
    with pytest.raises(_error(args), match=rf"^{name} "):
        func(*args)


def _error(args):
    """TypeError when an argument has the wrong type (a string, None, a bool, a float where an int is wanted)."""
    wrong = any(isinstance(a, (str, bool)) or a is None for a in args) or (len(args) == 3 and isinstance(args[1], float))
    return TypeError if wrong else ValueError


# ---------------------------------------------------------------- accountant


def test_accountant_exact_spend_allowed_and_then_refused():
    acct = PrivacyAccountant(1.0)
    acct.spend(1.0, label="all of it")
    assert acct.spent == (1.0, 0.0)
    assert acct.remaining == (0.0, 0.0)
    with pytest.raises(BudgetExceededError, match="epsilon"):
        acct.spend(1e-6)
    assert len(acct.history) == 1


def test_accountant_many_small_charges_float_tolerance():
    acct = PrivacyAccountant(1.0)
    for i in range(10):
        acct.spend(0.1, label=f"q{i}")
    assert len(acct.history) == 10
    assert acct.spent[0] == pytest.approx(1.0, abs=1e-15)
    # 3 × 0.1 against 0.3: the naive sum 0.30000000000000004 > 0.3, still accepted
    acct3 = PrivacyAccountant(0.3)
    for _ in range(3):
        acct3.spend(0.1)
    assert len(acct3.history) == 3
    # 1000 charges of 0.001 against 1.0
    acct1000 = PrivacyAccountant(1.0)
    for _ in range(1000):
        acct1000.spend(0.001)
    assert len(acct1000.history) == 1000
    # but the tolerance is tiny: a real overspend of one part in a million is refused
    with pytest.raises(BudgetExceededError):
        PrivacyAccountant(1.0).spend(1.000001)


def test_refused_charge_leaves_history_unchanged():
    acct = PrivacyAccountant(1.0, delta_budget=1e-5)
    acct.spend(0.6, label="first")
    before = acct.history
    spent_before, remaining_before = acct.spent, acct.remaining
    with pytest.raises(BudgetExceededError, match="nothing was recorded"):
        acct.spend(0.5, label="too much")
    pd.testing.assert_frame_equal(acct.history, before)
    assert acct.spent == spent_before and acct.remaining == remaining_before
    # a refused charge is also a ValueError
    with pytest.raises(ValueError):
        acct.spend(0.5)
    acct.spend(0.4, label="fits")
    assert list(acct.history["label"]) == ["first", "fits"]
    assert acct.history["epsilon_spent"].iloc[-1] == pytest.approx(1.0)


def test_history_is_a_copy_with_running_totals():
    acct = PrivacyAccountant(2.0, delta_budget=1e-5)
    acct.spend(0.5, 1e-6, label="a")
    acct.spend(0.25)
    h = acct.history
    assert list(h.columns) == ["label", "epsilon", "delta", "epsilon_spent", "delta_spent", "event"]
    assert h["event"].tolist() == [EpsilonDeltaEvent(0.5, 1e-6), EpsilonDeltaEvent(0.25)]
    assert list(h["label"]) == ["a", "charge 2"]
    assert list(h["epsilon_spent"]) == [0.5, 0.75]
    assert list(h["delta_spent"]) == [1e-6, 1e-6]
    h.loc[0, "epsilon"] = 99.0
    assert acct.history.loc[0, "epsilon"] == 0.5
    assert repr(acct) == (
        "PrivacyAccountant(epsilon_budget=2, delta_budget=1e-05, spent=(0.75, 1e-06), charges=2)"
    )


def test_delta_budget():
    pure = PrivacyAccountant(1.0)  # delta_budget = 0: any δ > 0 is refused
    with pytest.raises(BudgetExceededError, match="delta"):
        pure.spend(0.1, delta=1e-9)
    assert pure.history.empty
    acct = PrivacyAccountant(10.0, delta_budget=1e-5)
    for _ in range(10):
        acct.spend(0.1, delta=1e-6)
    assert acct.spent[1] == pytest.approx(1e-5)
    assert acct.remaining[1] == pytest.approx(0.0, abs=1e-20)
    with pytest.raises(BudgetExceededError, match="delta"):
        acct.spend(0.1, delta=1e-7)  # ε is still plentiful; δ is not
    assert len(acct.history) == 10
    acct.spend(0.1)  # a pure charge still fits
    assert len(acct.history) == 11


def test_accountant_laplace_mech_spends_then_answers():
    acct = PrivacyAccountant(1.0)
    a = acct.laplace_mech(100.0, 1.0, 0.5, rng=make_rng(7), label="count")
    b = laplace_mech(100.0, 1.0, 0.5, rng=make_rng(7))
    assert a == b  # same seeded stream, same draw
    assert acct.remaining == (0.5, 0.0)
    rng = make_rng(7)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        acct.laplace_mech(100.0, 1.0, 0.6, rng=rng)
    assert rng.bit_generator.state == state  # a refused charge draws no noise
    with pytest.raises(ValueError, match="sensitivity"):
        acct.laplace_mech(100.0, -1.0, 0.1, rng=rng)
    with pytest.raises(TypeError, match="rng"):
        acct.laplace_mech(100.0, 1.0, 0.1, rng=7)
    assert len(acct.history) == 1  # bad arguments spend nothing


# ---------------------------------------------------------------- parallel histogram


def test_parallel_histogram_noise_is_laplace_one_over_epsilon():
    df = pd.DataFrame({"c": ["a"] * 5 + ["b"] * 2})
    rng = make_rng(2024)
    eps = 0.5
    draws = np.array([parallel_histogram(df, "c", eps, rng=rng, domain=["a", "b", "z"]).to_numpy()
                      for _ in range(2000)])
    noise = (draws - np.array([5.0, 2.0, 0.0])).ravel()
    # KS against Lap(0, 1/ε) at a fixed seed, alpha = 0.001; a wrong scale (ε/1 or 2/ε) fails
    assert stats.kstest(noise, stats.laplace(scale=1 / eps).cdf).pvalue > 1e-3
    assert stats.kstest(noise, stats.laplace(scale=2 / eps).cdf).pvalue < 1e-3
    assert stats.kstest(noise, stats.laplace(scale=eps).cdf).pvalue < 1e-3
    # each bin is centred on its true count (mean within 4 standard errors)
    se = math.sqrt(2) / eps / math.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - [5, 2, 0]) < 4 * se)


def test_parallel_histogram_on_adult_matches_laplace_mech():
    adult = load_adult()
    noisy = parallel_histogram(adult, "Marital Status", 1.0, rng=make_rng(1), domain=MARITAL_STATUSES)
    true = adult["Marital Status"].value_counts().reindex(list(MARITAL_STATUSES), fill_value=0)
    assert list(noisy.index) == list(MARITAL_STATUSES)
    assert noisy.index.name == "Marital Status"
    expected = laplace_mech(true.to_numpy(dtype=float), 1.0, 1.0, rng=make_rng(1))
    np.testing.assert_array_equal(noisy.to_numpy(), expected)
    assert float(np.max(np.abs(noisy - true))) < 15  # Lap(1): P(|X| > 15) = e^-15 per bin


def test_parallel_histogram_releases_the_same_bins_for_neighbours():
    """The set of released bins must not depend on the data: neighbours that differ in the only record of a category
    get the same index. Bins read off the data (the old default) fail this: one record adds or removes a whole bin,
    an output impossible under the other data set (infinite privacy loss, for every ε)."""
    adult = load_adult()
    young = adult[adult["Age"] < 20]
    only = young.index[young["Education"] == "Preschool"]
    assert len(only) == 1  # the single person under 20 with Preschool education
    without = young.drop(index=only)
    with_bin = parallel_histogram(young, "Education", 0.5, rng=make_rng(0), domain=EDUCATION_LEVELS)
    without_bin = parallel_histogram(without, "Education", 0.5, rng=make_rng(0), domain=EDUCATION_LEVELS)
    assert list(with_bin.index) == list(without_bin.index) == list(EDUCATION_LEVELS)
    # the old behaviour, bins = sorted distinct values seen in the data, tells the neighbours apart
    seen_with, seen_without = sorted(young["Education"].unique()), sorted(without["Education"].unique())
    assert seen_with != seen_without and "Preschool" in seen_with and "Preschool" not in seen_without
    # same generator state, same domain: the draws differ only by the one count that changed
    assert (with_bin - without_bin).abs().idxmax() == "Preschool"
    np.testing.assert_allclose((with_bin - without_bin).drop("Preschool"), 0.0, atol=0.0)


def test_parallel_histogram_requires_a_public_domain():
    df = pd.DataFrame({"c": ["a", "b"]})
    with pytest.raises(TypeError, match="domain"):
        parallel_histogram(df, "c", 1.0, rng=make_rng(0))  # missing: a parameter error, never data-dependent
    with pytest.raises(TypeError, match="domain"):
        parallel_histogram(df, "c", 1.0, rng=make_rng(0), domain=None)
    with pytest.raises(ValueError, match="domain"):
        parallel_histogram(df, "c", 1.0, rng=make_rng(0), domain=[])
    with pytest.raises(TypeError, match="domain"):  # the domain is checked before the data are looked at
        parallel_histogram(pd.DataFrame({"c": []}), "c", 1.0, rng=make_rng(0))


def test_parallel_histogram_domain_order_and_unseen_values():
    df = pd.DataFrame({"c": ["x", "y", "y", "outside"]})
    noisy = parallel_histogram(df, "c", 1e6, rng=make_rng(3), domain=["y", "x", "w"])
    assert list(noisy.index) == ["y", "x", "w"]
    np.testing.assert_allclose(noisy.to_numpy(), [2, 1, 0], atol=1e-3)  # huge ε: almost no noise


# ---------------------------------------------------------------- every ValueError path


@pytest.mark.parametrize("bad", [[-0.1], [float("nan")], [float("inf")], ["a"], 0.5, [[0.1]]])
def test_sequential_parallel_epsilon_refuse(bad):
    error = TypeError if bad == ["a"] else ValueError
    with pytest.raises(error, match="epsilons"):
        sequential_epsilon(bad)
    with pytest.raises(error, match="epsilons"):
        parallel_epsilon(bad)


@pytest.mark.parametrize("bad", [[-1e-9], [1.0], [float("nan")], 1e-5])
def test_sequential_delta_refuses(bad):
    with pytest.raises(ValueError, match="deltas"):
        sequential_delta(bad)


@pytest.mark.parametrize(
    "args, name",
    [
        ((0.0, 0.0, 10, 1e-5), "epsilon"),
        ((-1.0, 0.0, 10, 1e-5), "epsilon"),
        ((float("nan"), 0.0, 10, 1e-5), "epsilon"),
        ((800.0, 0.0, 10, 1e-5), "epsilon"),
        ((0.1, -1e-6, 10, 1e-5), "delta"),
        ((0.1, 1.0, 10, 1e-5), "delta"),
        ((0.1, 0.0, 0, 1e-5), "k"),
        ((0.1, 0.0, 2.5, 1e-5), "k"),
        ((0.1, 0.0, True, 1e-5), "k"),
        ((0.1, 0.0, 10, 0.0), "delta_prime"),
        ((0.1, 0.0, 10, 1.0), "delta_prime"),
        ((0.1, 0.0, 10, float("nan")), "delta_prime"),
    ],
)
def test_advanced_composition_refuses(args, name):
    wrong_type = isinstance(args[2], (bool, float))
    with pytest.raises(TypeError if wrong_type else ValueError, match=rf"^{name} "):
        advanced_composition(*args)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"epsilon_budget": 0.0}, "epsilon_budget"),
        ({"epsilon_budget": -1.0}, "epsilon_budget"),
        ({"epsilon_budget": float("inf")}, "epsilon_budget"),
        ({"epsilon_budget": "1"}, "epsilon_budget"),
        ({"epsilon_budget": 1.0, "delta_budget": -1e-6}, "delta_budget"),
        ({"epsilon_budget": 1.0, "delta_budget": 1.0}, "delta_budget"),
    ],
)
def test_accountant_constructor_refuses(kwargs, name):
    with pytest.raises(TypeError if "1" in kwargs.values() else ValueError, match=name):
        PrivacyAccountant(**kwargs)


@pytest.mark.parametrize(
    "args, name",
    [
        ((-0.1,), "epsilon"),
        ((float("nan"),), "epsilon"),
        ((0.1, -1e-6), "delta"),
        ((0.1, 1.0), "delta"),
        ((0.1, 0.0, 3), "label"),
    ],
)
def test_spend_refuses_bad_arguments_and_records_nothing(args, name):
    acct = PrivacyAccountant(1.0, delta_budget=0.5)
    with pytest.raises(TypeError if name == "label" else ValueError, match=rf"\b{name}\b") as info:
        acct.spend(*args)
    assert not isinstance(info.value, BudgetExceededError)
    assert acct.history.empty


def test_parallel_histogram_refuses():
    df = pd.DataFrame({"c": ["a", "b"]})
    with pytest.raises(TypeError, match="data"):
        parallel_histogram(df.to_numpy(), "c", 1.0, rng=make_rng(0), domain=["a", "b"])
    with pytest.raises(TypeError, match="column"):
        parallel_histogram(df, ["c"], 1.0, rng=make_rng(0), domain=["a", "b"])
    with pytest.raises(ValueError, match="column"):
        parallel_histogram(df, "missing", 1.0, rng=make_rng(0), domain=["a", "b"])
    with pytest.raises(ValueError, match="epsilon"):
        parallel_histogram(df, "c", 0.0, rng=make_rng(0), domain=["a", "b"])
    with pytest.raises(TypeError, match="rng"):
        parallel_histogram(df, "c", 1.0, rng=0, domain=["a", "b"])
    with pytest.raises(ValueError, match="domain"):
        parallel_histogram(df, "c", 1.0, rng=make_rng(0), domain=[])
    with pytest.raises(ValueError, match="domain"):
        parallel_histogram(df, "c", 1.0, rng=make_rng(0), domain=["a", "a"])


# ---------------------------------------------------------------- figures of Chapter 2


def test_slider_figures_defaults_and_reproducibility():
    from matplotlib.figure import Figure

    from dp_lib.plotting import plot_advanced_composition, plot_averaging

    fig = plot_averaging()
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert "×3.16" in fig.axes[1].get_title()  # sqrt(k) = sqrt(10) at the default k
    same = plot_averaging(epsilon=1.0, k=10, seed=2024)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == [t.get_text() for t in same.axes[0].get_legend().get_texts()]
    assert plot_advanced_composition().axes[1].get_title() == "advanced wins for k ≥ 29"
    assert plot_advanced_composition(epsilon=1.0).axes[1].get_title() == "advanced never wins (ε ≥ ln 2)"


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f["avg"](epsilon=0.0),
        lambda f: f["avg"](epsilon=float("nan")),
        lambda f: f["avg"](k=0),
        lambda f: f["avg"](k=2.5),
        lambda f: f["adv"](epsilon=-1.0),
        lambda f: f["adv"](delta_prime=0.0),
        lambda f: f["adv"](delta_prime=1.0),
    ],
)
def test_slider_figures_refuse_invalid_settings(call):
    from dp_lib.plotting import plot_advanced_composition, plot_averaging

    with pytest.raises(ValueError, match="must be"):  # the slider shows this message (dp_lib.widgets)
        call({"avg": plot_averaging, "adv": plot_advanced_composition})


# ---------------------------------------------------------------- the accountant takes events


def test_accountant_composes_pure_events_by_their_epsilon():
    acct = PrivacyAccountant(3.0, delta_budget=1e-5)
    acct.compose(LaplaceEvent(scale=2.0, sensitivity=1.0), label="count")  # ε = Δ/b = 0.5
    acct.compose(RandomizedResponseEvent(0.25)).compose(EpsilonDeltaEvent(0.25, 1e-6))
    acct.compose(Repeated(LaplaceEvent(10.0), 5), label="five counts")  # 5 × 0.1
    acct.compose(Composed([LaplaceEvent(4.0), EpsilonDeltaEvent(0.25, 2e-6)]))  # 0.25 + 0.25, 2e-6
    assert acct.spent == pytest.approx((2.0, 3e-6), rel=1e-12)
    assert acct.history["label"].tolist() == ["count", "charge 2", "charge 3", "five counts", "charge 5"]
    assert acct.history["epsilon"].tolist() == pytest.approx([0.5, 0.25, 0.25, 0.5, 0.5])
    assert acct.epsilon(1e-5) == acct.epsilon(3e-6) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="delta must be at least the delta spent"):
        acct.epsilon(1e-6)  # basic composition certifies nothing below the δ spent


@pytest.mark.parametrize("event", [GaussianEvent(1.0), ZcdpEvent(0.1), PoissonSampled(0.01, GaussianEvent(1.0)),
                                   Composed([LaplaceEvent(1.0), GaussianEvent(1.0)]),
                                   Repeated(ZcdpEvent(0.1), 3)])
def test_accountant_refuses_events_without_a_pure_form_and_names_the_rdp_accountant(event):
    acct = PrivacyAccountant(100.0, 0.5).compose(LaplaceEvent(1.0))
    with pytest.raises(ValueError, match="RdpAccountant") as info:
        acct.compose(event)
    assert not isinstance(info.value, BudgetExceededError)
    assert len(acct.history) == 1 and acct.spent == (1.0, 0.0)


def test_accountant_refuses_non_events_wrong_labels_and_other_relations_recording_nothing():
    acct = PrivacyAccountant(10.0).compose(LaplaceEvent(1.0))
    for bad in ("laplace", 0.5, None, (0.5, 0.0)):
        with pytest.raises(TypeError, match="event must be a DpEvent"):
            acct.compose(bad)
    with pytest.raises(TypeError, match="label"):
        acct.compose(LaplaceEvent(1.0), label=7)
    with pytest.raises(ValueError, match="neighbours"):
        acct.compose(LaplaceEvent(1.0, neighbours="replace_one"))
    with pytest.raises(BudgetExceededError, match="nothing was recorded"):
        acct.compose(Repeated(LaplaceEvent(1.0), 10))
    with pytest.raises(ValueError, match="count"):
        acct.compose(Repeated(EpsilonDeltaEvent(1e308), 2**53))  # the product is beyond float64
    assert len(acct.history) == 1 and acct.spent == (1.0, 0.0)


def test_spend_is_sugar_for_an_epsilon_delta_event_in_the_accountants_relation():
    acct = PrivacyAccountant(2.0, 1e-5)
    acct.spend(0.5, 1e-6, label="a")
    acct.compose(EpsilonDeltaEvent(0.5, 1e-6), label="a")
    first, second = acct.history.drop(columns=["epsilon_spent", "delta_spent"]).to_dict("records")
    assert first == second
    replace = PrivacyAccountant(2.0).compose(LaplaceEvent(1.0, neighbours="replace_one"))
    replace.spend(0.5)  # stated for the accountant's relation, so it composes
    assert replace.history["event"].iloc[1] == EpsilonDeltaEvent(0.5, neighbours="replace_one")


def test_budget_helpers_take_events_too():
    acct = PrivacyAccountant(1.0)
    assert acct.check_room([(LaplaceEvent(2.0), "count"), (0.25, 0.0)]) == [("count", 0.5, 0.0),
                                                                             ("charge 2", 0.25, 0.0)]
    acct.spend_many([(LaplaceEvent(2.0), "count"), (RandomizedResponseEvent(0.5), None)])
    assert acct.spent == (1.0, 0.0) and acct.history["label"].tolist() == ["count", "charge 2"]
    with pytest.raises(TypeError, match="charges"):
        acct.check_room(LaplaceEvent(1.0))
    with pytest.raises(TypeError, match="charges"):
        acct.check_room([LaplaceEvent(1.0)])


def test_edge_advanced_epsilon_k_must_be_integers():
    for bad in (2.5, 3.0, [1, 2.0], True, "3", None):
        with pytest.raises(TypeError, match=r"^k "):
            advanced_epsilon(0.1, bad, 1e-5)
    for bad in (0, [0, 1], -3):
        with pytest.raises(ValueError, match=r"^k "):
            advanced_epsilon(0.1, bad, 1e-5)
    assert advanced_epsilon(0.1, np.array([1, 100]), 1e-5).round(4).tolist() == [0.4904, 5.8502]
