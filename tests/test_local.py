"""Tests of dp_lib.local: randomized response, k-RR and unary encoding.

Statistical tests run at fixed seeds. Conventions: a mean passes when it is
within 4 standard errors (SE from the exact variance formula) of its target;
an empirical variance passes when its ratio to the formula is within 4 SE of
1, where SE = sqrt(2/(R-1)) for R repetitions (normal approximation);
distribution tests use alpha = 1e-3.
"""

import math
import tracemalloc

import numpy as np

import dp_lib
import pandas as pd
import pytest
from scipy import stats

from dp_lib import (
    debias_counts, krr_estimate, krr_params, krr_perturb, krr_perturb_counts, krr_variance, make_rng,
    oue_params, randomized_response, rr_epsilon, rr_estimate_count, rr_variance, sue_params,
    unary_aggregate, unary_encode, unary_epsilon, unary_perturb, unary_perturb_counts, unary_variance,
)

ALPHA = 1e-3
Z = 4.0  # standard errors allowed for means and variance ratios


def assert_mean(samples, target, variance, what):
    """Mean over axis 0 within Z standard errors of ``target`` (SE from the exact variance)."""
    se = np.sqrt(np.asarray(variance) / len(samples))
    z = (np.mean(samples, axis=0) - target) / se
    assert np.all(np.abs(z) < Z), f"{what}: mean off by {z} SE"


def assert_variance(samples, variance, what):
    """Empirical variance over axis 0 within Z SE of the formula (SE of s²/σ² = sqrt(2/(R-1)))."""
    ratio = np.var(samples, axis=0, ddof=1) / np.asarray(variance)
    assert np.all(np.abs(ratio - 1) < Z * math.sqrt(2 / (len(samples) - 1))), f"{what}: variance ratio {ratio}"


# --- exact values ------------------------------------------------------------------------------

def test_epsilons_exact():
    assert rr_epsilon(0.75) == math.log(3)
    assert unary_epsilon(0.75, 0.25) == math.log(9)
    assert sue_params(math.log(9)) == (0.75, 0.25)
    for eps in (0.1, 1.0, math.log(9), 5.0):
        assert unary_epsilon(*sue_params(eps)) == pytest.approx(eps, rel=1e-12)
        assert unary_epsilon(*oue_params(eps)) == pytest.approx(eps, rel=1e-12)
        p, q = krr_params(eps, 7)
        assert math.log(p / q) == pytest.approx(eps, rel=1e-12) and p + 6 * q == pytest.approx(1)


def test_large_epsilon_no_overflow_and_float_limits_accepted():
    """At huge ε, p rounds to 1.0 and q to 0.0: samplers and estimators still work (no privacy left)."""
    p, q = krr_params(1000.0, 10)
    assert p == 1.0 and q >= 0
    assert oue_params(1000.0) == (0.5, 0.0) and sue_params(100.0) == (1.0, 0.0)
    assert np.allclose(krr_estimate([0, 1, 1], range(3), 50.0), [1.0, 2.0, 0.0], atol=1e-12)
    assert krr_variance(100, 3, 50.0) < 1e-15
    bits = unary_encode([0, 2], range(3))
    for params in (oue_params(1000.0), sue_params(100.0)):
        reports = unary_perturb(bits, *params, rng=make_rng(0))
        assert np.all(reports[~bits] == 0) and np.all(np.isfinite(unary_aggregate(reports, *params)))
    assert unary_perturb_counts([3, 4], *sue_params(100.0), rng=make_rng(0)).tolist() == [3, 4]
    assert unary_variance(7, *sue_params(100.0)) == 0.0
    with pytest.raises(ValueError, match="p"):
        unary_epsilon(*sue_params(100.0))


def test_reference_numbers_protocol_choice():
    """DP_REFERENCE §6: at ε = ln 9, k = 14, n = 32 561 — GRR 10 684 < OUE 18 316 < SUE 24 421."""
    eps, n = math.log(9), 32561
    assert round(krr_variance(n, 14, eps)) == 10684
    assert round(unary_variance(n, *oue_params(eps))) == 18316
    assert round(unary_variance(n, *sue_params(eps))) == 24421
    assert rr_variance(n, 0.75) == 0.75 * n  # coin RR: 3n/4, std 156
    assert round(math.sqrt(rr_variance(n, 0.75))) == 156


def test_variance_closed_forms():
    for eps in (0.5, 1.0, 3.0):
        e = math.exp(eps)
        assert krr_variance(1000, 9, eps) == pytest.approx(1000 * (e + 7) / (e - 1) ** 2)
        assert unary_variance(1000, *sue_params(eps)) == pytest.approx(1000 * math.sqrt(e) / (math.sqrt(e) - 1) ** 2)
        assert unary_variance(1000, *oue_params(eps)) == pytest.approx(1000 * 4 * e / (e - 1) ** 2)
    # the count term vanishes for q = 1 - p and is positive for OUE (1 - p - q > 0)
    assert unary_variance(100, 0.75, 0.25, count=40) == unary_variance(100, 0.75, 0.25)
    assert unary_variance(100, 0.5, 0.1, count=40) == pytest.approx(100 * 0.09 / 0.16 + 40 * 0.4 / 0.4)


def test_oue_minimises_unary_variance_on_a_grid():
    """Among all (p, q) with unary_epsilon(p, q) = ε, the count-free variance is smallest at OUE."""
    p_grid = np.linspace(0.01, 0.99, 981)
    for eps in (0.5, 1.0, math.log(9), 4.0):
        q_grid = p_grid / (p_grid + (1 - p_grid) * math.exp(eps))  # solves p(1-q)/((1-p)q) = e^ε
        assert np.allclose([unary_epsilon(p, q) for p, q in zip(p_grid[::97], q_grid[::97])], eps)
        var = q_grid * (1 - q_grid) / (p_grid - q_grid) ** 2
        best = unary_variance(1, *oue_params(eps))
        assert best <= var.min() * (1 + 1e-12)
        assert p_grid[np.argmin(var)] == pytest.approx(0.5, abs=0.011)
        assert unary_variance(1, *sue_params(eps)) > best


def test_grr_oue_crossover():
    """GRR has the smaller variance exactly when k < 3 e^ε + 2 (Wang et al. 2017)."""
    for eps in (0.5, 1.0, math.log(3), math.log(9), 2.5):
        oue = unary_variance(1, *oue_params(eps))
        for k in range(2, 200):
            grr = krr_variance(1, k, eps)
            threshold = 3 * math.exp(eps) + 2
            if abs(k - threshold) > 1e-9:
                assert (grr < oue) == (k < threshold), (eps, k)
    # at ε = ln 3 the threshold is k = 11: the two variances are equal there
    assert krr_variance(1, 11, math.log(3)) == pytest.approx(unary_variance(1, *oue_params(math.log(3))))


# --- the chapter's derivations agree with the library on the same draws -------------------------

def test_randomized_response_is_the_two_coin_protocol():
    truth = make_rng(0).random(1000) < 0.3
    rng = make_rng(2024)
    first = rng.random(truth.size) < 0.5
    second = rng.random(truth.size) < 0.5
    by_hand = np.where(first, truth, second)
    assert np.array_equal(randomized_response(truth, 0.75, rng=make_rng(2024)), by_hand)
    y = by_hand.sum()
    assert rr_estimate_count(by_hand, 0.75) == 2 * y - truth.size / 2


def test_krr_perturb_matches_explicit_code():
    domain = list("abcde")
    values = np.array(list("aabbbcdeee"))
    rng = make_rng(7)
    p, _ = krr_params(1.0, 5)
    pos = pd.Index(domain).get_indexer(values)
    keep = rng.random(pos.size) < p
    offset = rng.integers(1, 5, size=pos.size)
    by_hand = np.array(domain)[np.where(keep, pos, (pos + offset) % 5)]
    assert np.array_equal(krr_perturb(values, domain, 1.0, rng=make_rng(7)), by_hand)


@pytest.mark.parametrize("p, q", [(1.0, 0.0), (0.75, 0.25), (0.5, 0.1), (0.6, 0.59999)])
def test_unary_perturb_is_the_chapters_np_where_bit_for_bit(p, q):
    """unary_perturb computes in place (benchmark); its reports are np.where(bits, u < p, u < q)."""
    bits = make_rng(5).random((1000, 7)) < 0.3
    u = make_rng(3).random(bits.shape)
    assert np.array_equal(unary_perturb(bits, p, q, rng=make_rng(3)), np.where(bits, u < p, u < q))


def test_unary_perturb_matches_explicit_code_and_streaming_matches_it():
    values = make_rng(1).integers(0, 7, size=501)
    bits = unary_encode(values, range(7))
    u = make_rng(3).random(bits.shape)
    by_hand = np.where(bits, u < 0.5, u < 0.2)
    assert np.array_equal(unary_perturb(bits, 0.5, 0.2, rng=make_rng(3)), by_hand)
    for chunk in (1, 50, 500, 501, 10_000):  # last chunk partial, one chunk, more than n
        totals = dp_lib.unary_reported_counts(values, range(7), 0.5, 0.2, rng=make_rng(3), chunk_size=chunk)
        assert totals.tolist() == by_hand.sum(axis=0).tolist()


def test_unary_encode():
    bits = unary_encode(["c", "a", "c"], ["a", "b", "c"])
    assert bits.dtype == bool and bits.shape == (3, 3)
    assert bits.sum(axis=1).tolist() == [1, 1, 1] and bits.sum(axis=0).tolist() == [1, 0, 2]


# --- perturbation probabilities -----------------------------------------------------------------

def test_randomized_response_probabilities():
    rng = make_rng(11)
    n = 100_000
    for p in (0.6, 0.75, 0.9):
        yes_given_yes = randomized_response(np.ones(n, bool), p, rng=rng).sum()
        yes_given_no = randomized_response(np.zeros(n, bool), p, rng=rng).sum()
        assert stats.binomtest(int(yes_given_yes), n, p).pvalue > ALPHA
        assert stats.binomtest(int(yes_given_no), n, 1 - p).pvalue > ALPHA


@pytest.mark.parametrize("true_value", [0, 3])
def test_krr_report_distribution_chi_square(true_value):
    """Reports of one value: itself w.p. p, each of the other k-1 values w.p. q."""
    k, eps, n = 6, 1.2, 120_000
    reports = krr_perturb(np.full(n, true_value), range(k), eps, rng=make_rng(100 + true_value))
    observed = np.bincount(reports, minlength=k)
    p, q = krr_params(eps, k)
    expected = np.full(k, n * q)
    expected[true_value] = n * p
    assert stats.chisquare(observed, expected).pvalue > ALPHA
    assert observed[true_value] / n > p - 0.01 and np.all(np.delete(observed, true_value) / n < q + 0.01)


def test_unary_perturb_bit_probabilities():
    bits = unary_encode(np.zeros(50_000, int), range(4))  # column 0 all ones, others all zeros
    out = unary_perturb(bits, 0.5, 0.1, rng=make_rng(5))
    assert stats.binomtest(int(out[:, 0].sum()), 50_000, 0.5).pvalue > ALPHA
    assert stats.binomtest(int(out[:, 1:].sum()), 150_000, 0.1).pvalue > ALPHA


# --- unbiasedness and variance of every estimator -----------------------------------------------

def test_rr_estimator_unbiased_with_formula_variance():
    truth = np.zeros(1000, bool)
    truth[:300] = True
    rng = make_rng(21)
    for p in (0.75, 0.6):
        est = np.array([rr_estimate_count(randomized_response(truth, p, rng=rng), p) for _ in range(1500)])
        assert_mean(est, 300, rr_variance(1000, p), f"RR p={p}")
        assert_variance(est, rr_variance(1000, p), f"RR p={p}")


def test_krr_estimator_unbiased_with_formula_variance():
    domain = [10, 20, 30, 40, 50]
    counts = np.array([900, 500, 300, 200, 100])
    values = np.repeat(domain, counts)
    rng = make_rng(22)
    est = np.array([krr_estimate(krr_perturb(values, domain, 1.0, rng=rng), domain, 1.0).to_numpy()
                    for _ in range(800)])
    var = krr_variance(counts.sum(), 5, 1.0, count=counts)
    assert_mean(est, counts, var, "k-RR")
    assert_variance(est, var, "k-RR")


@pytest.mark.parametrize("params", ["sue", "oue"])
def test_unary_estimator_unbiased_with_formula_variance(params):
    eps = math.log(9)
    p, q = sue_params(eps) if params == "sue" else oue_params(eps)
    counts = np.array([700, 400, 250, 100, 50, 0])
    bits = unary_encode(np.repeat(np.arange(6), counts), range(6))
    rng = make_rng(23)
    est = np.array([unary_aggregate(unary_perturb(bits, p, q, rng=rng), p, q) for _ in range(800)])
    var = unary_variance(counts.sum(), p, q, count=counts)
    assert_mean(est, counts, var, params)
    assert_variance(est, var, params)


def test_variance_test_would_catch_a_wrong_formula():
    """The variance check above distinguishes the full from the count-free OUE variance for a large count."""
    p, q = oue_params(math.log(9))
    counts = np.array([9000, 1000])
    totals = unary_perturb_counts(counts, p, q, rng=make_rng(24), size=4000)
    est = debias_counts(totals, counts.sum(), p, q)
    assert_variance(est, unary_variance(10_000, p, q, count=counts), "full")
    with pytest.raises(AssertionError):
        assert_variance(est, np.full(2, unary_variance(10_000, p, q)), "count-free")


# --- the aggregate (binomial / multinomial) paths agree in distribution ---------------------------

def test_unary_counts_path_matches_per_respondent_path():
    p, q = 0.6, 0.2
    counts = np.array([300, 150, 50])
    n, reps = counts.sum(), 1500
    bits = unary_encode(np.repeat(np.arange(3), counts), range(3))
    rng = make_rng(31)
    per_respondent = np.array([unary_perturb(bits, p, q, rng=rng).sum(axis=0) for _ in range(reps)])
    aggregate = unary_perturb_counts(counts, p, q, rng=rng, size=reps)
    mean = counts * p + (n - counts) * q
    var = counts * p * (1 - p) + (n - counts) * q * (1 - q)
    for name, totals in (("per-respondent", per_respondent), ("aggregate", aggregate)):
        assert_mean(totals, mean, var, name)
        assert_variance(totals, var, name)
    # the two samples against each other: difference of means within Z SE of 0
    diff_se = np.sqrt(2 * var / reps)
    assert np.all(np.abs(per_respondent.mean(0) - aggregate.mean(0)) < Z * diff_se)
    for j in range(3):
        assert stats.ks_2samp(per_respondent[:, j], aggregate[:, j]).pvalue > ALPHA


def test_krr_counts_path_matches_per_respondent_path():
    eps, domain = 0.8, ["a", "b", "c", "d"]
    counts = pd.Series([400, 250, 100, 50], index=domain)
    values = np.repeat(domain, counts.to_numpy())
    reps = 1000
    rng = make_rng(32)
    index = pd.Index(domain)
    per_respondent = np.array([np.bincount(index.get_indexer(krr_perturb(values, domain, eps, rng=rng)),
                                           minlength=4) for _ in range(reps)])
    aggregate = krr_perturb_counts(counts, eps, rng=rng, size=reps)
    assert isinstance(aggregate, pd.DataFrame) and list(aggregate.columns) == domain
    assert np.all(aggregate.sum(axis=1) == counts.sum())
    p, q = krr_params(eps, 4)
    c, n = counts.to_numpy(), counts.sum()
    mean = c * p + (n - c) * q
    var = c * p * (1 - p) + (n - c) * q * (1 - q)
    for name, totals in (("per-respondent", per_respondent), ("aggregate", aggregate.to_numpy())):
        assert_mean(totals, mean, var, name)
        assert_variance(totals, var, name)
        est = debias_counts(totals, n, p, q)
        assert_mean(est, c, krr_variance(n, 4, eps, count=c), name + " estimate")


def test_counts_paths_at_ten_million_respondents():
    """10^7 respondents over 100 values: O(k) work, totals in range, estimates near the truth."""
    counts = make_rng(0).multinomial(10_000_000, np.full(100, 0.01))
    p, q = oue_params(1.0)
    totals = unary_perturb_counts(counts, p, q, rng=make_rng(1))
    est = debias_counts(totals, counts.sum(), p, q)
    assert_mean(est[None, :], counts, unary_variance(10_000_000, p, q, count=counts), "UE 1e7")
    reported = krr_perturb_counts(counts, 1.0, rng=make_rng(2))
    assert reported.sum() == 10_000_000


def test_streamed_unary_survey_builds_no_full_matrix():
    """Peak memory of the streamed survey of 200 000 respondents x 100 stays below a quarter of one n x k float array.

    One-shot ``unary_perturb`` would need 160 MB of uniforms; chunks of 10 000 respondents need about 11 MB.
    """
    values = make_rng(0).integers(0, 100, size=200_000)
    tracemalloc.start()
    try:
        dp_lib.unary_reported_counts(values, range(100), 0.5, 0.1, rng=make_rng(1), chunk_size=10_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < values.size * 100 * 8 / 4


# --- labels and return types ----------------------------------------------------------------------

def test_series_outputs_indexed_by_domain():
    domain = ["a", "b", "c"]
    est = krr_estimate(["a", "b", "a"], domain, 1.0)
    assert isinstance(est, pd.Series) and list(est.index) == domain
    agg = unary_aggregate(unary_encode(["a", "c"], domain), 0.75, 0.25, domain=domain)
    assert isinstance(agg, pd.Series) and list(agg.index) == domain
    assert isinstance(unary_aggregate(unary_encode(["a"], domain), 0.75, 0.25), np.ndarray)
    s = unary_perturb_counts(pd.Series([5, 3, 2], index=domain), 0.75, 0.25, rng=make_rng(0))
    assert isinstance(s, pd.Series) and list(s.index) == domain


# --- every ValueError path --------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda: randomized_response([True], 0.5, rng=make_rng(0)), "p"),
    (lambda: randomized_response([True], 1.0, rng=make_rng(0)), "p"),
    (lambda: randomized_response([True], 1.5, rng=make_rng(0)), "p"),
    (lambda: randomized_response([True], 0.3, rng=make_rng(0)), "p"),
    (lambda: randomized_response([2, 0], 0.75, rng=make_rng(0)), "truth"),
    (lambda: randomized_response([[True]], 0.75, rng=make_rng(0)), "truth"),
    (lambda: randomized_response([True], 0.75, rng=1), "rng"),
    (lambda: randomized_response([True], 0.75, rng=None), "rng"),
    (lambda: rr_epsilon(1.0), "p"),
    (lambda: rr_estimate_count([True], 0.5), "p"),
    (lambda: rr_estimate_count(["yes"], 0.75), "responses"),
    (lambda: rr_variance(-1, 0.75), "n"),
    (lambda: krr_params(0.0, 3), "epsilon"),
    (lambda: krr_params(1.0, 1), "k"),
    (lambda: krr_perturb(["a"], [], 1.0, rng=make_rng(0)), "domain"),
    (lambda: krr_perturb(["a"], ["a"], 1.0, rng=make_rng(0)), "domain"),
    (lambda: krr_perturb(["a"], ["a", "a"], 1.0, rng=make_rng(0)), "domain"),
    (lambda: krr_perturb(["z"], ["a", "b"], 1.0, rng=make_rng(0)), "values"),
    (lambda: krr_perturb([np.nan], ["a", "b"], 1.0, rng=make_rng(0)), "values"),
    (lambda: krr_perturb(["a"], ["a", "b"], -1.0, rng=make_rng(0)), "epsilon"),
    (lambda: krr_perturb(["a"], ["a", "b"], 1.0, rng=0), "rng"),
    (lambda: krr_estimate(["a"], ["a", "b"], float("inf")), "epsilon"),
    (lambda: krr_perturb_counts([3, -1], 1.0, rng=make_rng(0)), "counts"),
    (lambda: krr_perturb_counts([3, 1.5], 1.0, rng=make_rng(0)), "counts"),
    (lambda: krr_perturb_counts([3, 1], 1.0, rng=make_rng(0), size=-1), "size"),
    (lambda: krr_variance(10, 3, 1.0, count=11), "count"),
    (lambda: unary_encode(["a"], []), "domain"),
    (lambda: unary_encode(["x"], ["a"]), "values"),
    (lambda: unary_perturb([[True]], 1.2, 0.2, rng=make_rng(0)), "p"),
    (lambda: unary_perturb([[True]], 0.5, -0.1, rng=make_rng(0)), "q"),
    (lambda: unary_perturb([[True]], 0.25, 0.75, rng=make_rng(0)), "p must be greater than q"),
    (lambda: unary_perturb([[True]], 0.5, 0.5, rng=make_rng(0)), "p must be greater than q"),
    (lambda: unary_perturb([True], 0.5, 0.1, rng=make_rng(0)), "bits"),
    (lambda: unary_perturb([[True]], 0.5, 0.1, rng=None), "rng"),
    (lambda: unary_perturb_counts([1, 2], 0.1, 0.5, rng=make_rng(0)), "p must be greater than q"),
    (lambda: unary_perturb_counts([], 0.5, 0.1, rng=make_rng(0)), "counts"),
    (lambda: unary_epsilon(1.0, 0.2), "p"),
    (lambda: unary_epsilon(0.5, 0.0), "q"),
    (lambda: unary_epsilon(0.2, 0.4), "p must be greater than q"),
    (lambda: unary_aggregate([[1, 0]], 0.75, 0.25, domain=["a"]), "domain"),
    (lambda: unary_aggregate([[1, 0]], 0.25, 0.25), "p must be greater than q"),
    (lambda: sue_params(0), "epsilon"),
    (lambda: oue_params(-2), "epsilon"),
    (lambda: unary_variance(10, 0.5, 0.6), "p must be greater than q"),
    (lambda: unary_variance(10.5, 0.5, 0.1), "n"),
    (lambda: debias_counts([np.nan], 10, 0.5, 0.1), "reported_counts"),
])
def test_value_errors_name_the_parameter(call, match):
    """A wrong value raises ValueError, a wrong type (rng=0, n=10.5, strings) TypeError; both name the parameter."""
    with pytest.raises((TypeError, ValueError), match=match):
        call()


# --- figures (dp_lib.plotting.local) --------------------------------------------------------------

def test_occupation_counts_drop_missing_and_follow_the_public_domain():
    from dp_lib import load_adult
    from dp_lib.plotting import OCCUPATIONS, occupation_counts

    counts = occupation_counts()
    occ = load_adult()["Occupation"]
    assert list(counts.index) == list(OCCUPATIONS) and len(OCCUPATIONS) == 14
    assert counts.sum() == occ.notna().sum() == 30718 and set(occ.dropna()) == set(OCCUPATIONS)
    counts.iloc[0] = -1  # a copy: the cache is not changed
    assert occupation_counts().iloc[0] > 0


def test_slider_figures_defaults_reproducible_and_invalid_pairs_refused():
    from matplotlib.figure import Figure

    from dp_lib.plotting import plot_sue_vs_oue, plot_unary_histogram

    fig = plot_unary_histogram()
    assert isinstance(fig, Figure) and "ε = 2.20" in fig.axes[0].get_title()
    widths = [bar.get_width() for bar in fig.axes[0].patches]
    assert widths == [bar.get_width() for bar in plot_unary_histogram(0.75, 0.25, 2024).axes[0].patches]
    for p, q in ((0.25, 0.75), (0.5, 0.5), (1.0, 0.2), (0.5, 0.0)):
        with pytest.raises(ValueError, match="Move p above q"):  # the slider shows this message
            plot_unary_histogram(p, q)
    assert "ε = 0.50" in plot_sue_vs_oue(0.5).axes[0].get_title()


def test_static_figures_run():
    from dp_lib.plotting import plot_estimates_vs_normal, plot_local_vs_central, plot_protocol_choice

    assert plot_protocol_choice().axes[0].get_xlabel() == "domain size k"
    assert plot_local_vs_central(n_surveys=20).axes[0].get_xscale() == "log"
    assert plot_estimates_vs_normal([1.0, 2.0, 3.0], 2, 1.0).axes


def test_unary_aggregate_column_totals_span_blocks():
    """The column totals (a float32 product in blocks of 2**16 rows) equal sum(axis=0) past one block."""
    reports = make_rng(2).random((70_000, 3)) < 0.4
    expected = (reports.sum(axis=0) - 70_000 * 0.25) / (0.75 - 0.25)
    np.testing.assert_array_equal(unary_aggregate(reports, 0.75, 0.25), expected)


# --- the true count of the variance formulas: a whole number (issue 30, the type contract) -------------------------

@pytest.mark.parametrize("variance", [lambda count: krr_variance(100, 3, 1.0, count=count),
                                      lambda count: unary_variance(100, 0.75, 0.25, count=count),
                                      lambda count: krr_variance(100, 3, 1e-17, count=count)])  # p, q round alike
def test_edge_true_count_must_be_a_whole_number(variance):
    for bad in (2.5, [3, 2.5], np.array([0.5]), "3", True, np.array([True, False])):
        with pytest.raises(TypeError, match="count"):
            variance(bad)
    for bad in (-1, 101, [5, 101], float("nan")):
        with pytest.raises(ValueError, match="count"):
            variance(bad)
    # integral floats are whole numbers: a float array of counts (e.g. from pandas) gives the int results
    assert variance(3.0) == variance(3) and isinstance(variance(3), float)
    np.testing.assert_array_equal(variance(np.array([3.0, 40.0])), variance(np.array([3, 40])))
