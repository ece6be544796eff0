"""Tests for dp_lib.svt (the sparse vector technique) and dp_lib.svt_broken (the published bugs).

Statistical tests use fixed seeds and reject at alpha = 0.001; each noise-law
test has a "power" twin showing that the same test rejects a wrong scale.
Audits certify at confidence 0.95 (alpha = 0.05) with fixed seeds.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dp_lib import (above_threshold, above_threshold_probabilities, audit_table, laplace_cdf, make_rng,
                    numeric_sparse_vector, sample_laplace, sparse_vector, svt_budget_split, svt_noise_scales,
                    svt_pattern_probability, svt_transcript)
from dp_lib.svt_broken import (audit_svt_variants, broken_variants_table, chen2015_no_cutoff, lee_clifton2014,
                               roth2011_noisy_values, stoddard2014_no_query_noise, svt_counterexamples)

ALPHA = 1e-3


def laplace_sum_tail(t, a, b):
    """P[X + Y > t] for t >= 0, X ~ Lap(a), Y ~ Lap(b) independent (closed form)."""
    if a == b:
        return 0.5 * math.exp(-t / a) * (1 + t / (2 * a))
    return (a * a * math.exp(-t / a) - b * b * math.exp(-t / b)) / (2 * (a * a - b * b))


# --- budget split and scales ---------------------------------------------------------------

def test_default_split_is_lyu_su_li_ratio():
    for c in (1, 2, 5):
        e1, e2 = svt_budget_split(2.0, c)
        assert e1 + e2 == pytest.approx(2.0)
        assert e2 / e1 == pytest.approx((2 * c) ** (2 / 3))
        m1, m2 = svt_budget_split(2.0, c, monotone=True)
        assert m2 / m1 == pytest.approx(c ** (2 / 3))


def test_default_split_minimises_the_variance_of_the_comparison_noise():
    def variance(share, c=3):
        b_rho, b_nu = svt_noise_scales(1.0, c, split=share)
        return 2 * b_rho ** 2 + 2 * b_nu ** 2
    grid = np.linspace(0.01, 0.99, 9801)
    best = grid[np.argmin([variance(s) for s in grid])]
    assert best == pytest.approx(svt_budget_split(1.0, 3)[0], abs=2e-4)


def test_scales_of_above_threshold_and_algorithm_1():
    assert svt_noise_scales(1.0, 1, split=0.5) == (2.0, 4.0)
    assert svt_noise_scales(1.0, 1, split=0.5, monotone=True) == (2.0, 2.0)
    e1, e2 = svt_budget_split(1.0, 4)
    assert svt_noise_scales(1.0, 4, sensitivity=3.0) == pytest.approx((3.0 / e1, 2 * 4 * 3.0 / e2))


# --- noise laws ----------------------------------------------------------------------------

@pytest.mark.parametrize("scale, rejected", [(None, False), (1.25, True)])
def test_query_noise_is_laplace_with_the_algorithm_1_scale(scale, rejected):
    b_rho, b_nu = svt_noise_scales(1.0, 3)
    _, noisy = svt_transcript(np.full(4, 7.0), 0.0, b_rho, b_nu, rng=make_rng(11), size=20_000)
    law = stats.laplace(loc=7.0, scale=b_nu * (scale or 1.0))
    assert (stats.kstest(noisy.ravel(), law.cdf).pvalue < ALPHA) == rejected


@pytest.mark.parametrize("scale, rejected", [(None, False), (1.2, True)])
def test_threshold_noise_is_laplace_once_per_run(scale, rejected):
    # no query noise and a fine grid of query values: the first positive pins T + ρ to one grid step
    grid = np.arange(-30.0, 30.0, 0.01)
    positive, _ = svt_transcript(grid, 0.0, 2.0, 0.0, rng=make_rng(12), size=4000, c=1)
    first = positive.argmax(axis=1)
    assert positive.any(axis=1).mean() > 0.99
    rho = grid[first] - 0.005  # ρ lies in [grid[k-1], grid[k])
    law = stats.laplace(scale=2.0 * (scale or 1.0))
    assert (stats.kstest(rho[positive.any(axis=1)], law.cdf).pvalue < ALPHA) == rejected


def test_drawing_order_is_rho_then_every_nu():
    v = np.array([1.0, 30.0, 2.0, 40.0])
    gen = make_rng(5)
    rho = sample_laplace(2.0, size=(1, 1), rng=gen)
    nu = sample_laplace(4.0, size=(1, 4), rng=gen)
    hits = np.flatnonzero(v + nu[0] >= 20.0 + rho[0, 0])
    expected = int(hits[0]) if hits.size else None
    assert above_threshold(v, 20.0, 1.0, rng=make_rng(5)) == expected


# --- exact distributions -------------------------------------------------------------------

def test_reference_number_from_dp_reference():
    # v = T + 1, ε = 1: P[index 0] = P[ν - ρ >= -1], ρ ~ Lap(2), ν ~ Lap(4) (monotone: ν ~ Lap(2))
    p = above_threshold_probabilities([1.0], 0.0, 1.0)
    assert p[0] == pytest.approx(1 - laplace_sum_tail(1.0, 2.0, 4.0), abs=1e-9)
    assert p[0] == pytest.approx(0.581888, abs=1e-6)
    p_mono = above_threshold_probabilities([1.0], 0.0, 1.0, monotone=True)
    assert p_mono[0] == pytest.approx(1 - laplace_sum_tail(1.0, 2.0, 2.0), abs=1e-9)
    assert p_mono[0] == pytest.approx(0.620918, abs=1e-6)


def test_above_threshold_index_distribution_matches_quadrature():
    values, t = np.array([-1.0, 0.5, 2.0, -3.0]), 0.0
    p = above_threshold_probabilities(values, t, 1.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    draws = above_threshold(values, t, 1.0, rng=make_rng(21), size=100_000)
    counts = np.bincount(np.where(draws < 0, values.size, draws), minlength=values.size + 1)
    assert stats.chisquare(counts, p * counts.sum()).pvalue > ALPHA


def test_above_threshold_index_distribution_rejects_the_wrong_scale():
    values, t = np.array([-1.0, 0.5, 2.0, -3.0]), 0.0
    p_wrong = above_threshold_probabilities(values, t, 1.0, monotone=True)  # ν ~ Lap(2), not Lap(4)
    draws = above_threshold(values, t, 1.0, rng=make_rng(21), size=100_000)
    counts = np.bincount(np.where(draws < 0, values.size, draws), minlength=values.size + 1)
    assert stats.chisquare(counts, p_wrong * counts.sum()).pvalue < ALPHA


def _transcripts(m, c):
    """Every ⊤ mask that Algorithm 1 can output on m queries with cutoff c (at most c marks)."""
    return [np.array(bits, bool) for bits in itertools.product([False, True], repeat=m) if sum(bits) <= c]


def test_sparse_vector_transcripts_match_quadrature():
    values, t, c = np.array([1.0, -0.5, 2.0, 0.0]), 0.5, 2
    b_rho, b_nu = svt_noise_scales(1.0, c)
    masks = _transcripts(values.size, c)
    p = np.array([svt_pattern_probability(values, t, mask, b_rho, b_nu, c) for mask in masks])
    assert p.sum() == pytest.approx(1.0, abs=1e-8)
    runs = sparse_vector(values, t, 1.0, c, rng=make_rng(31), size=100_000)
    codes = {tuple(mask): k for k, mask in enumerate(masks)}
    counts = np.bincount([codes[tuple(row)] for row in runs], minlength=len(masks))
    assert stats.chisquare(counts, p * counts.sum()).pvalue > ALPHA


def test_pattern_probability_with_no_query_noise_is_a_threshold_probability():
    # Stoddard et al.: ⊥⊤ on (0, 1) means 0 < T + ρ <= 1; on (1, 0) it is impossible
    p = svt_pattern_probability([0.0, 1.0], 0.0, np.array([False, True]), 2.0, 0.0)
    assert p == pytest.approx(laplace_cdf(1.0, 0.0, 2.0) - 0.5, abs=1e-9)
    assert svt_pattern_probability([1.0, 0.0], 0.0, np.array([False, True]), 2.0, 0.0) == 0.0


# --- behaviour -------------------------------------------------------------------------------

def test_halts_after_c_positives_and_returns_sorted_indices(rng):
    values = np.full(20, 1000.0)
    assert np.flatnonzero(sparse_vector(values, 0.0, 1.0, 3, rng=rng)).tolist() == [0, 1, 2]
    assert sparse_vector(values, 0.0, 1.0, 3, rng=rng, size=50).sum(axis=1).max() == 3
    assert above_threshold(-values, 0.0, 1.0, rng=rng) == -1
    assert (above_threshold(-values, 0.0, 1.0, rng=rng, size=10) == -1).all()


def test_numeric_variant_releases_fresh_unbiased_noise():
    values, c, eps3 = np.r_[np.full(3, 10.0), np.full(3, -50.0)], 3, 0.5
    out = numeric_sparse_vector(values, 9.0, 1.0, eps3, c, rng=make_rng(41), size=30_000)
    released = np.array([v for run in out for v in run.values()]) - 10.0  # only the queries at 10 can be positive in practice
    law = stats.laplace(scale=c / eps3)
    assert stats.kstest(released, law.cdf).pvalue > ALPHA  # the noise that passed the test would be biased up
    _, noisy = svt_transcript(values, 9.0, *svt_noise_scales(1.0, c), rng=make_rng(41), c=c, size=30_000)
    assert noisy[:, :3].mean() == pytest.approx(10.0, abs=0.2)
    assert set(numeric_sparse_vector([50.0, -50.0], 0.0, 2.0, 2.0, 1, rng=make_rng(3))) == {0}


def test_broken_variants_do_what_the_paper_says(rng):
    runs = stoddard2014_no_query_noise([0.0, 1.0], 0.0, 1.0, rng=rng, size=5000)
    assert not (runs[:, 0] & ~runs[:, 1]).any()  # q = (0, 1): ⊤⊥ is impossible without query noise
    out = roth2011_noisy_values([-100.0, 100.0, 100.0], 0.0, 1.0, 1, rng=rng, size=1000)
    assert np.isnan(out[:, 0]).all() and np.isnan(out[:, 2]).all() and (out[:, 1] > 50).all()
    assert lee_clifton2014(np.full(10, 100.0), 0.0, 1.0, 2, rng=rng, size=100).sum(axis=1).max() == 2
    assert chen2015_no_cutoff(np.full(10, 100.0), 0.0, 1.0, rng=rng, size=100).sum(axis=1).min() > 2
    table = broken_variants_table()
    assert table.loc["Lee & Clifton 2014", "true privacy"] == "(1 + 6c)/4 · ε"
    assert "no factor 2c" in table.loc["Lee & Clifton 2014", "what it does"]
    assert list(table["true privacy"]).count("∞") == 3


def test_dwork_roth_sparse_row_gives_the_per_round_scales_and_they_are_private():
    """Table 1's Alg. 2 (Dwork & Roth's Sparse) is c runs of AboveThreshold at ε/c: ρ ~ Lap(2cΔ/ε), re-drawn after
    each ⊤, ν ~ Lap(4cΔ/ε). One round at those scales loses at most ε/c on the pair 'm ⊥ then ⊤'; keeping
    Algorithm 1's scales (ρ ~ Lap(Δ/ε₁), ν ~ Lap(2cΔ/ε₂), even split) and only re-drawing ρ loses about
    0.75 per round at ε = 1, c = 2: two rounds 1.5 > ε, so that reading of the row is not ε-DP."""
    row = broken_variants_table().loc["Dwork & Roth 2014", "what it does"]
    assert "Lap(2cΔ/ε)" in row and "Lap(4cΔ/ε)" in row and "ε/c" in row and "re-drawn" in row
    eps, c, m = 1.0, 2, 64
    x, x_prime = np.r_[np.zeros(m), 1.0], np.r_[np.ones(m), 0.0]
    pattern = np.r_[np.zeros(m, bool), True]

    def round_loss(b_rho, b_nu):
        p, p_prime = (svt_pattern_probability(v, 0.0, pattern, b_rho, b_nu, c=1) for v in (x, x_prime))
        return math.log(p / p_prime)

    assert svt_noise_scales(eps / c, 1, split=0.5) == pytest.approx((2 * c / eps, 4 * c / eps))  # AboveThreshold
    assert round_loss(2 * c / eps, 4 * c / eps) <= eps / c + 1e-9
    literal = round_loss(*svt_noise_scales(eps, c, split=0.5))  # Alg. 1's scales, ρ re-drawn each round
    assert c * literal > eps and literal == pytest.approx(0.75, abs=1e-3)


def test_country_list_is_the_codebook_not_the_data():
    from dp_lib import COUNTRIES
    from dp_lib.plotting.sparse_vector import country_counts

    names, counts = country_counts()
    assert names == sorted(set(COUNTRIES) - {"United-States"})
    assert counts.shape == (len(names),) and (counts >= 0).all()


# --- audits ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def audits():
    return audit_svt_variants(200_000, 0.95, rng=make_rng(2024))


CORRECT = ["AboveThreshold (D&R)", "Alg. 1, c = 2 (Lyu et al.)", "numeric SVT, ε/2 + ε/2"]
BROKEN = {"Roth 2011": 1.3, "Lee & Clifton 2014": 2.3, "Stoddard et al. 2014": 8.0, "Chen et al. 2015": 2.3}


@pytest.mark.parametrize("name", CORRECT)
def test_correct_algorithms_pass_the_audit(audits, name):
    result = audits[name]
    assert not result.flagged and result.epsilon_lb <= 1.0
    assert result.count > 1000  # the event was likely enough for the audit to have power


@pytest.mark.parametrize("name, at_least", BROKEN.items())
def test_broken_variants_are_flagged_above_their_claim(audits, name, at_least):
    result = audits[name]
    assert result.flagged and result.epsilon_lb > at_least > result.claimed_epsilon


def test_certified_bounds_stay_below_the_exact_loss_of_the_event(audits):
    lc = audits["Lee & Clifton 2014"]
    assert lc.epsilon_lb <= (1 + 6 * 2) / 4  # the paper's true ε for c = 2
    mech, x, xp, _, _ = svt_counterexamples()["Chen et al. 2015"]
    pattern = np.r_[np.zeros(4, bool), np.ones(4, bool)]
    exact = math.log(svt_pattern_probability(x, 0.0, pattern, 2.0, 2.0)
                     / svt_pattern_probability(xp, 0.0, pattern, 2.0, 2.0))
    assert audits["Chen et al. 2015"].epsilon_lb <= exact
    assert audit_table(audits).loc["Stoddard et al. 2014", "verdict"] == "refuted"


# --- validation --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 0.0}, "epsilon"), ({"c": 0}, "c must"), ({"split": 1.0}, "split"),
    ({"values": [1.0, np.nan]}, "values"), ({"threshold": np.inf}, "threshold"), ({"sensitivity": -1.0}, "sensitivity"),
    ({"size": 0}, "size"),
])
def test_bad_parameters_are_refused(kwargs, match):
    args = {"values": [1.0, 2.0], "threshold": 0.0, "epsilon": 1.0, "c": 1, "split": None,
            "sensitivity": 1.0, "monotone": False, "size": None} | kwargs
    with pytest.raises(ValueError, match=match):
        sparse_vector(args.pop("values"), args.pop("threshold"), args.pop("epsilon"), args.pop("c"),
                      rng=make_rng(0), **args)


def test_rng_is_required():
    for bad in (None, 3):
        with pytest.raises((TypeError, ValueError), match="rng"):
            above_threshold([1.0], 0.0, 1.0, rng=bad)


def test_pattern_probability_checks_its_mask():
    with pytest.raises(ValueError, match="positives"):
        svt_pattern_probability([1.0, 2.0], 0.0, [1, 0], 1.0, 1.0)
    with pytest.raises(ValueError, match="more than c"):
        svt_pattern_probability([1.0, 2.0], 0.0, np.array([True, True]), 1.0, 1.0, c=1)


@pytest.mark.parametrize("epsilon, threshold, c, n_runs, seed",
                         [(0.5, 50, 3, 4000, 2024), (0.1, 30.0, 1, 500, 7), (4.0, 150, 10, 300, 2024)])
def test_the_slider_figures_runs_are_sparse_vector_bit_for_bit(epsilon, threshold, c, n_runs, seed):
    """plot_svt_countries rescales cached draws at scale 1: the same runs as sparse_vector from the same seed."""
    from dp_lib.plotting.sparse_vector import _svt_runs, country_counts

    _, counts = country_counts()
    for _ in range(2):  # the second call reads the cache
        fast = _svt_runs(counts, float(threshold), epsilon, c, n_runs, seed)
        assert np.array_equal(fast, sparse_vector(counts, threshold, epsilon, c, rng=make_rng(seed), monotone=True,
                                                  size=n_runs))


@pytest.mark.parametrize("epsilon", [1.0, 0.3])
def test_the_loss_growth_figures_probabilities_are_svt_pattern_probability_bit_for_bit(epsilon):
    """plot_svt_loss_growth writes the quadrature's integrand out in plain floats: the same numbers (to rounding)."""
    from dp_lib.plotting.sparse_vector import _answered_pattern_probability

    for m in (1, 4, 8):
        pattern = np.r_[np.zeros(m, bool), np.ones(m, bool)]
        for values in (np.r_[np.zeros(m), np.ones(m)], np.r_[np.ones(m), np.zeros(m)]):
            for b_rho, b_nu, c in ((2 / epsilon, 2 / epsilon, None), (*svt_noise_scales(epsilon, m), m)):
                assert _answered_pattern_probability(values, pattern, b_rho, b_nu) == pytest.approx(
                    svt_pattern_probability(values, 0.0, pattern, b_rho, b_nu, c), rel=1e-12)


# --- edge cases (issue 30, item 7) -----------------------------------------------------------

@pytest.mark.parametrize("flag", ["no", "False", "yes", 0, 1, None, 1.0])
@pytest.mark.parametrize("split", [None, 0.5])
def test_edge_monotone_must_be_a_real_bool(flag, split):
    """A string or 0/1 must never count as monotone: that would halve the query noise."""
    with pytest.raises(TypeError, match="monotone"):
        svt_noise_scales(1.0, 2, monotone=flag, split=split)
    with pytest.raises(TypeError, match="monotone"):
        sparse_vector([1.0, 2.0], 0.0, 1.0, 1, rng=make_rng(0), monotone=flag, split=split)
    with pytest.raises(TypeError, match="monotone"):
        above_threshold([1.0, 2.0], 0.0, 1.0, rng=make_rng(0), monotone=flag)
    with pytest.raises(TypeError, match="monotone"):
        above_threshold_probabilities([1.0, 5.0], 3.0, 1.0, monotone=flag)
    assert svt_noise_scales(1.0, 2, monotone=np.bool_(False), split=0.5) == (2.0, 8.0)


@pytest.mark.parametrize("values, threshold, epsilon", [
    ([1.0, 5.0], 1e5, 1.0), ([1.0, 5.0], 3.0, 1e-5), ([1.0, 5.0], 3.0, 1e5), ([1.0, 5.0], -1e5, 1.0),
    (np.linspace(-50, 50, 40), 0.0, 1e-9), ([1e300, -1e300], 0.0, 1.0),
])
def test_edge_above_threshold_probabilities_at_extreme_parameters(values, threshold, epsilon):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no IntegrationWarning, no RuntimeWarning
        p = above_threshold_probabilities(values, threshold, epsilon)
    assert p.sum() == pytest.approx(1.0, abs=1e-6) and (p >= 0).all()
    if threshold == 1e5:
        assert p[-1] == pytest.approx(1.0)  # nothing comes near a threshold of 1e5
    if threshold == -1e5:
        assert p[0] == pytest.approx(1.0)


def test_edge_above_threshold_probabilities_near_zero_epsilon_is_symmetric():
    """With ε = 1e-5 the noise swamps the values: the first query is above with probability 1/2."""
    p = above_threshold_probabilities([1.0, 5.0], 3.0, 1e-5)
    assert p[0] == pytest.approx(0.5, abs=1e-4)


def test_edge_stable_return_types_whatever_the_size():
    values = np.array([-100.0, 100.0, 100.0])
    one, many = (above_threshold(values, 0.0, 1.0, rng=make_rng(1), size=s) for s in (None, 5))
    assert type(one) is int and many.dtype == np.int64 and many.shape == (5,)
    assert above_threshold(np.full(3, -100.0), 0.0, 1.0, rng=make_rng(1)) == -1
    one, many = (sparse_vector(values, 0.0, 1.0, 2, rng=make_rng(1), size=s) for s in (None, 5))
    assert one.dtype == bool == many.dtype and one.shape == (3,) and many.shape == (5, 3)
    one, many = (numeric_sparse_vector(values, 0.0, 1.0, 1.0, 2, rng=make_rng(1), size=s) for s in (None, 5))
    assert type(one) is dict and sorted(one) == [1, 2] and all(type(v) is float for v in one.values())
    assert type(many) is list and len(many) == 5 and all(type(run) is dict for run in many)


@pytest.mark.parametrize("seed", range(40))
def test_the_chapters_loop_equals_the_vectorised_halting_rule(seed):
    """svt_transcript's loop over queries marks exactly what the 0.2 vectorised rule marked on the same draws:
    positive where q_i + ν_i >= T + ρ and fewer than c positives came before (a cumulative sum)."""
    gen = make_rng(1000 + seed)
    q, c, size = gen.normal(0.0, 5.0, int(gen.integers(1, 30))), [None, 1, 2, 3][seed % 4], [None, 1, 7][seed % 3]
    b_nu = [0.0, 1.0, 3.0][seed % 3]
    positive, noisy = svt_transcript(q, 0.5, 2.0, b_nu, rng=make_rng(seed), c=c, size=size)
    draws = make_rng(seed)
    runs = 1 if size is None else size
    rho = sample_laplace(2.0, size=(runs, 1), rng=draws)
    nu = sample_laplace(b_nu, size=(runs, q.size), rng=draws) if b_nu > 0 else np.zeros((runs, q.size))
    expected = q + nu >= 0.5 + rho
    if c is not None:
        expected &= np.cumsum(expected, axis=1) - expected < c
    assert np.array_equal(np.atleast_2d(positive), expected) and np.array_equal(np.atleast_2d(noisy), q + nu)


# --- validation once at the public boundary (issue 30) -------------------------------------------------------

def _counting(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that counts its calls; return the list of calls."""
    calls = []
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args[:1])
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


@pytest.mark.parametrize("entry", ["sparse_vector", "above_threshold", "numeric_sparse_vector",
                                   "above_threshold_probabilities"])
def test_epsilon_is_validated_once_at_the_public_boundary(monkeypatch, entry):
    """epsilon is checked by one check_epsilon call; no layer below climbs back to re-check it (noise's check_real,
    svt's check_positive on the scales, the public svt_noise_scales / svt_transcript / check_noise_range)."""
    import dp_lib.noise
    import dp_lib.svt

    eps = _counting(monkeypatch, dp_lib.svt, "check_epsilon")
    positive = _counting(monkeypatch, dp_lib.svt, "check_positive")
    noise_real = _counting(monkeypatch, dp_lib.noise, "check_real")
    noise_positive = _counting(monkeypatch, dp_lib.noise, "check_positive")
    for public in ("svt_noise_scales", "svt_budget_split", "svt_transcript", "svt_pattern_probability",
                   "sparse_vector", "check_noise_range", "sample_laplace"):
        module = dp_lib.svt if hasattr(dp_lib.svt, public) else dp_lib.noise
        monkeypatch.setattr(module, public, lambda *a, **k: pytest.fail("a public function was called inside"))
    values, rng = [0.0, 80.0, 5.0], make_rng(0)
    call = {"sparse_vector": lambda: sparse_vector(values, 40.0, 1.0, 2, rng=rng),
            "above_threshold": lambda: above_threshold(values, 40.0, 1.0, rng=rng),
            "numeric_sparse_vector": lambda: numeric_sparse_vector(values, 40.0, 1.0, 1.0, 2, rng=rng),
            "above_threshold_probabilities": lambda: above_threshold_probabilities(values, 40.0, 1.0)}[entry]
    call()
    assert len(eps) == (2 if entry == "numeric_sparse_vector" else 1)  # epsilon (and epsilon_values) once each
    assert [args[0] for args in positive] == [1.0] + ([0.5] if entry.startswith("above") else [])  # Δ, the split
    assert noise_real == [] and noise_positive == []  # the noise layer trusts the checked scales


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("c, size, monotone, split", [(1, None, False, None), (2, 5, True, 0.3), (3, 1, False, 0.5)])
def test_the_public_entry_points_equal_their_documented_composition(seed, c, size, monotone, split):
    """sparse_vector = svt_transcript with svt_noise_scales' scales, and numeric_sparse_vector adds fresh
    sample_laplace draws after it: the unchecked cores give the same draws, bit for bit."""
    values = make_rng(100 + seed).normal(40.0, 30.0, 12)
    scales = svt_noise_scales(0.7, c, sensitivity=2.0, monotone=monotone, split=split)
    expected, _ = svt_transcript(values, 40.0, *scales, rng=make_rng(seed), c=c, size=size)
    got = sparse_vector(values, 40.0, 0.7, c, rng=make_rng(seed), sensitivity=2.0, monotone=monotone, split=split,
                        size=size)
    assert np.array_equal(got, expected)
    draws = make_rng(seed)
    positive, _ = svt_transcript(values, 40.0, *scales, rng=draws, c=c, size=1 if size is None else size)
    fresh = sample_laplace(c * 2.0 / 0.4, size=positive.shape, rng=draws)
    runs = [{int(i): float(values[i] + fresh[r, i]) for i in np.flatnonzero(positive[r])} for r in range(len(positive))]
    released = numeric_sparse_vector(values, 40.0, 0.7, 0.4, c, rng=make_rng(seed), sensitivity=2.0,
                                     monotone=monotone, split=split, size=size)
    assert released == (runs[0] if size is None else runs)
    first = above_threshold(values, 40.0, 0.7, rng=make_rng(seed), sensitivity=2.0, monotone=monotone)
    hits, _ = svt_transcript(values, 40.0, *svt_noise_scales(0.7, 1, sensitivity=2.0, monotone=monotone, split=0.5),
                             rng=make_rng(seed), c=1)
    assert first == (int(np.argmax(hits)) if hits.any() else -1)


def test_public_helpers_still_validate_when_called_directly():
    with pytest.raises(TypeError, match="epsilon"):
        svt_noise_scales("1.0", 2)
    with pytest.raises(ValueError, match="epsilon"):
        svt_budget_split(-1.0, 2)
    with pytest.raises(ValueError, match="sensitivity / epsilon"):
        svt_noise_scales(1e-320, 2)  # a share of ε rounds to 0: an infinite scale
    with pytest.raises(ValueError, match="sensitivity / epsilon"):
        svt_noise_scales(1.0, 2, sensitivity=1e307)  # Lap(b) draws would overflow
    with pytest.raises(TypeError, match="threshold_scale"):
        svt_transcript([1.0], 0.0, True, 1.0, rng=make_rng(0))
    with pytest.raises(ValueError, match="query_scale"):
        svt_transcript([1e308], 0.0, 1.0, 1e307, rng=make_rng(0))
    with pytest.raises(TypeError, match="size"):
        svt_transcript([1.0], 0.0, 1.0, 1.0, rng=make_rng(0), size=2.0)


@pytest.mark.parametrize("call", [
    lambda: sparse_vector([1.0], 0.0, 1e-320, 1, rng=make_rng(0)),
    lambda: sparse_vector([1.7e308], 0.0, 1.0, 1, rng=make_rng(0), sensitivity=1e306),
    lambda: above_threshold([1.0], -1.7e308, 1.0, rng=make_rng(0), sensitivity=1e306),
    lambda: numeric_sparse_vector([1.0], 0.0, 1.0, 1.0, 1, rng=make_rng(0), sensitivity=1e307),
    lambda: above_threshold_probabilities([1.0], 0.0, 1e-320),
])
def test_scales_out_of_range_name_the_public_parameters(call):
    """The range checks of the derived noise scales name sensitivity / epsilon, never an internal scale."""
    with pytest.raises(ValueError, match="sensitivity / epsilon") as err:
        call()
    assert "threshold_scale" not in str(err.value) and "query_scale" not in str(err.value)
