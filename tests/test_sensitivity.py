"""Tests for dp_lib.sensitivity: closed forms vs brute force, samplers vs exact laws, slips.

Statistical tests use fixed seeds; tolerances are stated in standard errors (SE)
or as a KS significance level alpha = 0.001.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dp_lib import (
    chunk_answers,
    contiguous_chunk_count,
    distance_to_high_sensitivity,
    gs_mean,
    hash_chunks,
    load_adult,
    log_smooth_sensitivity_terms,
    make_rng,
    mean_local_sensitivity,
    mean_local_sensitivity_at,
    ptr_bottom_probability,
    ptr_mean,
    ptr_threshold,
    sample_and_aggregate,
    smooth_beta,
    smooth_mean,
    smooth_sensitivity_mean,
)

ALPHA = 1e-3
U = 100.0


@pytest.fixture(scope="module")
def ages():
    return load_adult()["Age"].to_numpy(dtype=float)


def brute_ls(x, u):
    """Local sensitivity of the mean by trying every removal and a grid of additions."""
    x = np.asarray(x, dtype=float)
    n, m = x.size, x.mean()
    removals = [abs(m - np.delete(x, i).mean()) for i in range(n)]
    additions = [abs(m - np.append(x, y).mean()) for y in np.linspace(0, u, 401)]
    return max(removals + additions)


# ---------- local sensitivity ----------

def test_exact_ls_matches_brute_force():
    rng = make_rng(11)
    for n in range(2, 9):
        for _ in range(20):
            x = rng.uniform(0, U, size=n)
            assert mean_local_sensitivity_at(x, U) == pytest.approx(brute_ls(x, U), rel=1e-12)
            assert mean_local_sensitivity_at(x, U) <= mean_local_sensitivity(n, U) + 1e-12


def test_worst_case_ls_is_tight_and_additions_only_underestimates():
    for n in (2, 3, 10, 57):
        x = np.r_[U, np.zeros(n - 1)]
        assert mean_local_sensitivity_at(x, U) == pytest.approx(U / n)
        assert brute_ls(x, U) == pytest.approx(mean_local_sensitivity(n, U))
    # the additions-only u/(n+1) misses the removal of the 100: 9.09 vs 10 at n = 10
    x10 = np.r_[U, np.zeros(9)]
    assert U / 11 < mean_local_sensitivity_at(x10, U) == pytest.approx(10.0)


def test_adult_numbers(ages):
    n = ages.size
    assert round(mean_local_sensitivity_at(ages, U), 7) == 0.0018862
    assert round(mean_local_sensitivity(n, U), 7) == 0.0030712
    assert distance_to_high_sensitivity(n, U, 0.005) == 12_562


# ---------- distance to high sensitivity ----------

def brute_distance(n, u, b):
    """Smallest k with a data set of n - k records (LS <= u/max(n - k, 1)) possibly above b."""
    return min((k for k in range(n + 1) if u / max(n - k, 1) > b), default=math.inf)


def test_distance_closed_form_matches_brute_force():
    for u in (1.0, 7.3, 100.0):
        for n in range(1, 61):
            # include the exact boundaries b = u/m, where rounding could bite
            bounds = [u / m for m in range(1, 70)] + list(np.linspace(0.001, 0.99, 37) * u)
            for b in bounds:
                assert distance_to_high_sensitivity(n, u, b) == brute_distance(n, u, b), (n, u, b)


def test_distance_is_instant_for_huge_n_and_infinite_for_large_bound():
    assert distance_to_high_sensitivity(10**9, U, 0.005) == 10**9 - 20_000 + 1
    assert distance_to_high_sensitivity(10**9, U, 1e-9) == 0
    assert distance_to_high_sensitivity(5, U, U) == math.inf


def test_distance_is_a_lower_bound_on_the_true_distance():
    """γ̂ <= γ: search every multiset over {0, 25, 50, 75, 100} near x (small sets scored LS = u)."""
    domain = np.array([0, 25, 50, 75, 100.0])

    def ls(counts):
        m = int(sum(counts))
        return U if m < 2 else mean_local_sensitivity_at(np.repeat(domain, counts), U)

    for x_counts in [(0, 1, 2, 1, 0), (1, 0, 0, 0, 2), (0, 0, 4, 0, 0)]:
        n = sum(x_counts)
        grid = itertools.product(*(range(0, c + 4) for c in x_counts))
        dist_ls = [(sum(abs(a - c) for a, c in zip(y, x_counts)), ls(y)) for y in grid]
        for b in (5.0, 10.0, 13.0, 20.0, 30.0):
            gamma = min(d for d, s in dist_ls if s > b)
            assert distance_to_high_sensitivity(n, U, b) <= gamma


# ---------- propose-test-release ----------

def test_ptr_threshold_and_the_slip_numbers():
    n = 32_561
    delta = 1 / n**2
    assert ptr_threshold(1.0, delta) == pytest.approx(20.78, abs=0.005)
    # correct threshold: an unsafe data set (γ = 0) passes with probability exactly δ/2
    assert 1 - ptr_bottom_probability(0, 1.0, delta) == pytest.approx(delta / 2, rel=1e-6)
    slip = 1 - ptr_bottom_probability(0, 1.0, delta, threshold=math.log(2 / delta) / 2)
    assert slip == pytest.approx(0.5 * math.sqrt(delta / 2), rel=1e-9)
    assert round(slip, 7) == 1.09e-5
    assert 11_000 < slip / delta < 12_000


def near_threshold_data(gamma):
    """n = 50 values and a bound b with γ̂ = gamma (so u/b lies in (n - gamma, n - gamma + 1])."""
    n = 50
    bound = U / (n - gamma + 0.5)
    assert distance_to_high_sensitivity(n, U, bound) == gamma
    return np.linspace(10, 90, n), bound


@pytest.mark.parametrize("gamma", [11, 12])
def test_ptr_bottom_frequency_near_threshold(gamma):
    eps, delta = 1.0, 1e-5  # T = 11.51: gamma = 11 refuses ~70 %, gamma = 12 ~31 %
    x, bound = near_threshold_data(gamma)
    p = ptr_bottom_probability(gamma, eps, delta)
    assert p == pytest.approx(stats.laplace.cdf(ptr_threshold(eps, delta) - gamma, scale=1 / eps))
    runs = ptr_mean(x, U, bound, eps, delta, rng=make_rng(5), size=20_000)
    se = math.sqrt(p * (1 - p) / runs.size)
    assert abs(np.isnan(runs).mean() - p) < 4 * se
    rng = make_rng(6)  # the one-run path returns None for ⊥
    single = [ptr_mean(x, U, bound, eps, delta, rng=rng) for _ in range(2_000)]
    assert all(s is None or isinstance(s, float) for s in single)
    freq = sum(s is None for s in single) / len(single)
    assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / len(single))


def test_ptr_release_noise_is_laplace_b_over_eps(ages):
    runs = ptr_mean(ages, U, 0.005, 1.0, 1e-6, rng=make_rng(7), size=20_000)
    assert not np.isnan(runs).any()  # γ̂ = 12 562, far above T
    noise = runs - ages.mean()
    assert stats.kstest(noise, stats.laplace(scale=0.005).cdf).pvalue > ALPHA


def test_ptr_always_refuses_an_unsafe_data_set():
    x = np.r_[U, np.zeros(9)]  # LS = 10 > b = 1, and γ̂ = 0
    runs = ptr_mean(x, U, 1.0, 1.0, 1e-3, rng=make_rng(8), size=20_000)
    # pass probability δ/2 = 5e-4: expect about 10 of 20 000, certainly < 40
    assert np.isnan(runs).sum() > 20_000 - 40


# ---------- global-sensitivity mean ----------

def test_gs_mean_centre_and_spread(ages):
    eps, n = 1.0, ages.size
    runs = gs_mean(ages, U, eps, rng=make_rng(9), size=20_000)
    m = ages.mean()
    # delta method: Var ≈ (Var[sum noise] + m² Var[count noise]) / n², each Lap with ε/2
    sd = math.sqrt(2 * (2 * U / eps) ** 2 + m**2 * 2 * (2 / eps) ** 2) / n
    assert abs(runs.mean() - m) < 4 * sd / math.sqrt(runs.size)
    assert runs.std() == pytest.approx(sd, rel=0.04)  # SE of an sd estimate here ≈ 1 %


# ---------- smooth sensitivity ----------

def test_smooth_sensitivity_equals_vectorized_max_over_all_k():
    for noise, delta in [("laplace", 1e-6), ("laplace", 0.05), ("cauchy", 0)]:
        for eps in (0.1, 1.0, 5.0):
            beta = smooth_beta(eps, delta, noise)
            for n in (1, 2, 3, 10, 50, 400, 5000):
                k = np.arange(n + 50)
                brute = np.exp(log_smooth_sensitivity_terms(n, U, beta, k).max())
                s = smooth_sensitivity_mean(n, U, eps, delta, noise=noise)
                assert s == pytest.approx(brute, rel=1e-12), (noise, eps, n)


def test_smooth_sensitivity_is_smooth_and_bounds_ls():
    eps, delta = 1.0, 1e-6
    beta = smooth_beta(eps, delta)
    s = np.array([smooth_sensitivity_mean(n, U, eps, delta) for n in range(1, 400)])
    assert np.all(s[:-1] <= math.exp(beta) * s[1:] * (1 + 1e-12))
    assert np.all(s[1:] <= math.exp(beta) * s[:-1] * (1 + 1e-12))
    rng = make_rng(10)
    for n in (2, 5, 40, 300):
        x = rng.uniform(0, U, n)
        assert smooth_sensitivity_mean(n, U, eps, delta) >= mean_local_sensitivity_at(x, U)
    # truncating the max to small k would be wrong for small n: the far end wins at n = 50
    assert smooth_sensitivity_mean(50, U, eps, 1 / 32_561**2) > 10 * U / 50


def test_smooth_mean_noise_laws(ages):
    n, eps, delta = ages.size, 1.0, 1 / ages.size**2
    s = smooth_sensitivity_mean(n, U, eps, delta)
    assert s == pytest.approx(U / n)
    lap = smooth_mean(ages, U, eps, delta, rng=make_rng(12), size=20_000) - ages.mean()
    assert stats.kstest(lap, stats.laplace(scale=2 * s / eps).cdf).pvalue > ALPHA
    s_c = smooth_sensitivity_mean(n, U, eps, 0, noise="cauchy")
    cau = smooth_mean(ages, U, eps, 0, rng=make_rng(13), noise="cauchy", size=20_000) - ages.mean()
    assert stats.kstest(cau, stats.cauchy(scale=6 * s_c / eps).cdf).pvalue > ALPHA
    # and a wrong scale would be caught
    assert stats.kstest(lap, stats.laplace(scale=s / eps).cdf).pvalue < ALPHA


# ---------- sample-and-aggregate ----------

def test_hash_partition_has_exactly_k_labels_and_is_per_record():
    keys = np.arange(1_000, 3_000)
    labels = hash_chunks(keys, 7)
    assert set(labels.tolist()) == set(range(7))
    # a record's chunk depends on its key only: dropping records leaves the others in place
    assert np.array_equal(hash_chunks(keys[::2], 7), labels[::2])


def test_chunk_answers_generic_f_matches_groupby_and_fast_path(ages):
    keys = load_adult()["SSN"].to_numpy()
    k = 50
    labels = hash_chunks(keys, k)
    expected_median = np.array([np.median(ages[labels == j]) for j in range(k)])
    got = chunk_answers(ages, np.median, k, 0, U, keys=keys)
    assert np.allclose(got, expected_median)
    fast = chunk_answers(ages, np.mean, k, 0, U, keys=keys)
    slow = chunk_answers(ages, lambda c: c.mean(), k, 0, U, keys=keys)
    assert np.allclose(fast, slow)
    clipped = chunk_answers(ages, "mean", k, 38.0, 39.0, keys=keys)
    assert clipped.min() >= 38 and clipped.max() <= 39 and (clipped == 38).any()


def test_saa_figure_chunk_stds_equal_chunk_answers_with_np_std():
    from dp_lib.plotting.mean_mechanisms import _adult_ages_and_ids, _chunk_stds

    ages, ids = _adult_ages_and_ids()
    for k in (1, 10, 1000, 10_000, 40_000):  # 10,000 and 40,000 leave some chunks empty: the midpoint
        expected = chunk_answers(ages, np.std, k, 0.0, 50.0, keys=ids)
        got = _chunk_stds(ages, ids, k, 0.0, 50.0)
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), k
    assert np.array_equal(_chunk_stds(ages, ids, 100, 5.0, 6.0), chunk_answers(ages, np.std, 100, 5.0, 6.0, keys=ids))


def test_empty_chunks_get_the_default():
    x = np.array([10.0, 20.0, 30.0])
    answers = chunk_answers(x, "mean", 3, 0, U, keys=[5, 5, 5], default=7.0)
    assert sorted(answers.tolist()) == [7.0, 7.0, 20.0]


def test_one_record_changes_one_chunk(ages):
    keys = np.arange(ages.size)
    before = chunk_answers(ages, np.median, 100, 0, U, keys=keys)
    after = chunk_answers(np.r_[ages, 99.0], np.median, 100, 0, U, keys=np.r_[keys, 10**7])
    assert (before != after).sum() <= 1


def test_saa_is_unbiased_for_the_clipped_chunk_mean_with_the_right_noise(ages):
    k, lo, hi, eps = 200, 30.0, 45.0, 0.5
    target = chunk_answers(ages, np.median, k, lo, hi).mean()
    runs = sample_and_aggregate(ages, np.median, k, lo, hi, eps, rng=make_rng(14), size=20_000)
    scale = (hi - lo) / (k * eps)
    assert abs(runs.mean() - target) < 4 * math.sqrt(2) * scale / math.sqrt(runs.size)
    assert stats.kstest(runs - target, stats.laplace(scale=scale).cdf).pvalue > ALPHA


def test_keys_default_is_the_row_index_valid_only_if_it_never_renumbers(ages):
    """keys=None hashes the row index: the same chunks as keys=arange(n). Removing the first row renumbers every
    later row, so with the default one person moves almost every chunk answer; with stable keys, only one."""
    x = ages[:3000]
    assert np.array_equal(chunk_answers(x, "mean", 50, 0, U), chunk_answers(x, "mean", 50, 0, U, keys=np.arange(x.size)))
    assert sample_and_aggregate(x, "mean", 50, 0, U, 1.0, rng=make_rng(3)) == sample_and_aggregate(
        x, "mean", 50, 0, U, 1.0, rng=make_rng(3), keys=np.arange(x.size))
    renumbered = chunk_answers(x[1:], "mean", 50, 0, U)  # row 1 becomes row 0, ...
    assert (chunk_answers(x, "mean", 50, 0, U) != renumbered).sum() > 40
    stable = chunk_answers(x[1:], "mean", 50, 0, U, keys=np.arange(1, x.size))
    assert (chunk_answers(x, "mean", 50, 0, U) != stable).sum() == 1
    doc = " ".join(sample_and_aggregate.__doc__.split())
    assert "valid only if the row index is a stable, public identifier" in doc


def test_worst_case_ls_u_over_n_is_not_a_noise_scale_by_itself():
    """n is private under add/remove: Lap(U/(nε)) used directly is not ε-DP (the docstring's counterexample)."""
    eps, t = 1.0, 300.0
    b_x, b_x_prime = (mean_local_sensitivity(n, U) / eps for n in (2, 3))  # both data sets have mean 0
    loss = (-t / b_x) - (-t / b_x_prime)  # ln P[|y| > t] on x minus on x' (Laplace tails e^(-t/b))
    assert loss == pytest.approx(3.0) and loss > eps
    assert "NOT" in mean_local_sensitivity.__doc__ and "only inside" in mean_local_sensitivity.__doc__


def test_contiguous_slicing_slip_numbers():
    n = 32_561
    assert contiguous_chunk_count(n, 600) == 593
    assert contiguous_chunk_count(n, 6000) == 5427
    assert round(6000 / contiguous_chunk_count(n, 6000), 3) == 1.106
    for k in (1, 7, 100, 1000, n):  # the slicing really yields that many chunks
        m = -(-n // k)
        assert len(range(0, n, m)) == contiguous_chunk_count(n, k)


# ---------- reproducibility ----------

def test_outputs_are_reproducible_for_a_fixed_rng(ages):
    calls = [
        lambda r: gs_mean(ages, U, 1.0, rng=r, size=5),
        lambda r: ptr_mean(ages, U, 0.005, 1.0, 1e-6, rng=r, size=5),
        lambda r: smooth_mean(ages, U, 1.0, 1e-6, rng=r, size=5),
        lambda r: sample_and_aggregate(ages, "mean", 100, 0, U, 1.0, rng=r, size=5),
    ]
    for call in calls:
        assert np.array_equal(call(make_rng(3)), call(make_rng(3)))
        assert not np.array_equal(call(make_rng(3)), call(make_rng(4)))


# ---------- bad input ----------

@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: mean_local_sensitivity(0, U), "n"),
        (lambda: mean_local_sensitivity(10, 0), "upper"),
        (lambda: mean_local_sensitivity_at([5.0], U), "values"),
        (lambda: mean_local_sensitivity_at([], U), "values"),
        (lambda: mean_local_sensitivity_at([1.0, np.nan], U), "values"),
        (lambda: distance_to_high_sensitivity(10, U, 0), "bound"),
        (lambda: distance_to_high_sensitivity(10, U, -1), "bound"),
        (lambda: ptr_threshold(0, 1e-6), "epsilon"),
        (lambda: ptr_threshold(1, 1.5), "delta"),
        (lambda: ptr_bottom_probability(-1, 1, 1e-6), "distance"),
        (lambda: gs_mean([], U, 1.0, rng=make_rng(0)), "values"),
        (lambda: gs_mean([1.0], U, -1.0, rng=make_rng(0)), "epsilon"),
        (lambda: gs_mean([1.0], U, 1.0, rng=make_rng(0), size=-1), "size"),
        (lambda: ptr_mean([1.0, 2.0], U, 0, 1.0, 1e-6, rng=make_rng(0)), "bound"),
        (lambda: ptr_mean([1.0, 2.0], U, 1, 1.0, 0, rng=make_rng(0)), "delta"),
        (lambda: ptr_mean([1.0, 2.0], U, 1, 1.0, 1, rng=make_rng(0)), "delta"),
        (lambda: ptr_mean([], U, 1, 1.0, 1e-6, rng=make_rng(0)), "values"),
        (lambda: smooth_sensitivity_mean(10, U, 1.0, 0), "delta"),
        (lambda: smooth_sensitivity_mean(10, U, 1.0, 1e-6, noise="cauchy"), "delta"),
        (lambda: smooth_sensitivity_mean(10, U, 1.0, 1e-6, noise="gauss"), "noise"),
        (lambda: hash_chunks([[1, 2]], 3), "keys"),
        (lambda: chunk_answers([1.0, 2.0], "mean", 0, 0, U), "k"),
        (lambda: chunk_answers([1.0, 2.0], "mean", 1, 5, 5), "lower"),
        (lambda: chunk_answers([1.0, 2.0], "mean", 1, 0, U, keys=[1]), "keys"),
        (lambda: chunk_answers([1.0, 2.0], "median", 1, 0, U), "f"),
        (lambda: chunk_answers([1.0, 2.0], lambda c: c, 1, 0, U), "f"),
        (lambda: contiguous_chunk_count(10, 11), "k"),
        (lambda: sample_and_aggregate([1.0, 2.0], "mean", 1, 0, U, 0, rng=make_rng(0)), "epsilon"),
        (lambda: sample_and_aggregate([[1.0]], "mean", 1, 0, U, 1.0, rng=make_rng(0)), "values"),
        (lambda: sample_and_aggregate([1.0, 2.0], "mean", 1, 2, 1, 1.0, rng=make_rng(0)), "lower"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("call, name", [
    (lambda: log_smooth_sensitivity_terms(10, U, 0.1, [0.5]), "k"),
    (lambda: distance_to_high_sensitivity(2.5, U, 1), "n"),
    (lambda: gs_mean([1.0], U, 1.0, rng=0), "rng"),
    (lambda: smooth_mean([1.0], U, 1.0, 1e-6, rng=None), "rng"),
    (lambda: sample_and_aggregate([1.0, 2.0], "mean", 1, 0, U, 1.0, rng=1), "rng"),
])
def test_wrong_type_raises_type_error_naming_the_parameter(call, name):
    with pytest.raises(TypeError, match=name):
        call()


# ---------- figures ----------

def test_slider_figure_defaults_and_invalid_settings():
    from matplotlib.figure import Figure

    from dp_lib.plotting import plot_mechanism_comparison

    def legend_entries(fig):  # the legend shows each name; the rest of its entry is a text drawn right after it
        from matplotlib.text import Annotation

        names = [t.get_text() for t in fig.legends[0].get_texts()]
        rest = [a for a in fig.artists if isinstance(a, Annotation)]
        assert all(a.xycoords is t for a, t in zip(rest, fig.legends[0].get_texts()))
        return [name + a.get_text() for name, a in zip(names, rest)]

    fig = plot_mechanism_comparison()
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    entries = legend_entries(fig)
    assert len(entries) == 4 and entries[1] == "PTR, Δ̂ = 0.005: median 0.0179 %"
    for bad in ({"epsilon": 0.0}, {"bound": -1.0}, {"k": 0}, {"k": 10**6}, {"k": 2.5}):
        with pytest.raises(ValueError):  # the slider shows the message (dp_lib.widgets.figure_or_message)
            plot_mechanism_comparison(**bad)
    refused = plot_mechanism_comparison(bound=0.001)  # below U/n: PTR answers ⊥ every time
    assert "PTR, Δ̂ = 0.001: ⊥ in every run" in legend_entries(refused)
