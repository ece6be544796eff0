"""Exact samplers and mechanisms (dp_lib.exact) and the floating-point attack (dp_lib.floating).

Statistical tests run at a fixed seed with significance level ALPHA: with a
correct sampler each fails with probability <= ALPHA, and at the fixed seed
the outcome is deterministic. Each χ² test has a power twin showing that a
10 % wrong scale is rejected at the same size.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dp_lib import (ThresholdEvent, discrete_gaussian_mech, discrete_gaussian_pmf, discrete_gaussian_variance,
                    discrete_laplace_mech, discrete_laplace_pmf, discrete_laplace_variance, distinguishing_share,
                    epsilon_lower_bound, laplace_cdf, laplace_mech, laplace_output_at, laplace_reachable, make_rng,
                    sample_discrete_gaussian, sample_discrete_gaussian_vectorised, sample_discrete_laplace,
                    sample_discrete_laplace_vectorised, snapping_mech)

ALPHA = 1e-3
N = 100_000


def chi2_pvalue(draws, pmf):
    """χ² goodness of fit of integer draws to ``pmf`` (a function of an integer array).

    Bins: every integer whose expected count is >= 5, plus the two pooled tails.
    """
    n = draws.size
    k = np.arange(draws.min() - 1, draws.max() + 2)
    expected = n * pmf(k)
    keep = k[expected >= 5]
    lo, hi = keep.min(), keep.max()
    inner = np.arange(lo, hi + 1)
    observed = np.concatenate([[np.sum(draws < lo)], np.bincount(draws[(draws >= lo) & (draws <= hi)] - lo,
                                                                 minlength=inner.size), [np.sum(draws > hi)]])
    p_inner = pmf(inner)
    p_low = pmf(np.arange(lo - 2000, lo)).sum()  # tails beyond 2000 are below 1e-80 for these scales
    p_high = pmf(np.arange(hi + 1, hi + 2001)).sum()
    probs = np.concatenate([[p_low], p_inner, [p_high]])
    return stats.chisquare(observed, n * probs / probs.sum()).pvalue


LAPLACE_SCALES = [1, 10, Fraction(7, 3), 0.3, 2.5]


@pytest.mark.parametrize("scale", [1, Fraction(7, 3), 0.3, 10], ids=str)
def test_readable_samplers_match_their_pmf(scale, rng):
    """The step-by-step forms (CKS20 Algorithms 1-3, one draw at a time), at 20,000 draws: the same laws."""
    z = sample_discrete_laplace(scale, size=20_000, rng=rng)
    assert z.dtype == np.int64 and chi2_pvalue(z, lambda k: discrete_laplace_pmf(k, float(scale))) > ALPHA
    g = sample_discrete_gaussian(scale, size=10_000, rng=rng)
    assert chi2_pvalue(g, lambda k: discrete_gaussian_pmf(k, float(scale))) > ALPHA


@pytest.mark.parametrize("seed", range(60))
def test_one_draw_is_the_same_value_in_both_forms(seed):
    """For size=None the vectorised samplers consume the generator exactly as the paper's loop: the same draw
    (and so the mechanisms, which use the vectorised form, agree with a hand-written count + noise)."""
    for scale in (1, 2, 0.1, Fraction(7, 3), 37.5):
        assert sample_discrete_laplace(scale, rng=make_rng(seed)) == \
            sample_discrete_laplace_vectorised(scale, rng=make_rng(seed))
    for sigma in (1, 3.7, 0.5, Fraction(1, 3), 200.0):  # 3.7 and 0.5: denominators beyond int64
        assert sample_discrete_gaussian(sigma, rng=make_rng(seed)) == \
            sample_discrete_gaussian_vectorised(sigma, rng=make_rng(seed))
GAUSS_SIGMAS = [1, 10, 3.7, 0.3, Fraction(5, 2)]  # 3.7 and 0.3 take the big-integer path


@pytest.mark.parametrize("scale", LAPLACE_SCALES, ids=str)
def test_discrete_laplace_matches_pmf(scale, rng):
    z = sample_discrete_laplace_vectorised(scale, size=N, rng=rng)
    assert z.dtype == np.int64 and z.shape == (N,)
    assert chi2_pvalue(z, lambda k: discrete_laplace_pmf(k, float(scale))) > ALPHA


@pytest.mark.parametrize("sigma", GAUSS_SIGMAS, ids=str)
def test_discrete_gaussian_matches_pmf(sigma, rng):
    z = sample_discrete_gaussian_vectorised(sigma, size=N, rng=rng)
    assert chi2_pvalue(z, lambda k: discrete_gaussian_pmf(k, float(sigma))) > ALPHA


def test_wrong_scale_is_rejected(rng):
    """Power: the same χ² test rejects draws whose scale is 10 % off."""
    z = sample_discrete_laplace_vectorised(2, size=N, rng=rng)
    assert chi2_pvalue(z, lambda k: discrete_laplace_pmf(k, 2.2)) < ALPHA
    g = sample_discrete_gaussian_vectorised(3, size=N, rng=rng)
    assert chi2_pvalue(g, lambda k: discrete_gaussian_pmf(k, 3.3)) < ALPHA


@pytest.mark.parametrize("scale", [1, 4.5])
def test_discrete_laplace_variance_and_tails(scale, rng):
    z = sample_discrete_laplace_vectorised(scale, size=N, rng=rng)
    p = np.exp(-1 / scale)
    k = np.arange(-3000, 3001)
    pmf = discrete_laplace_pmf(k, scale)
    assert np.isclose((k**2 * pmf).sum(), discrete_laplace_variance(scale), rtol=1e-12)
    assert discrete_laplace_variance(scale) == pytest.approx(2 * p / (1 - p) ** 2)
    assert discrete_laplace_variance(scale) < 2 * scale**2  # below the continuous Laplace variance
    se = np.sqrt(((k**4 * pmf).sum() - discrete_laplace_variance(scale) ** 2) / N)
    assert abs(np.mean(z.astype(float) ** 2) - discrete_laplace_variance(scale)) < 5 * se
    for t in (1, 3, 8):  # P(|Z| >= t) = 2 p^t / (1 + p), exact
        tail = 2 * p**t / (1 + p)
        assert stats.binomtest(int(np.sum(np.abs(z) >= t)), N, tail).pvalue > ALPHA


@pytest.mark.parametrize("sigma", [0.5, 2, 6.5])
def test_discrete_gaussian_variance_and_tails(sigma, rng):
    z = sample_discrete_gaussian_vectorised(sigma, size=N, rng=rng)
    var = discrete_gaussian_variance(sigma)
    assert var <= sigma**2 + 1e-12  # CKS20: the variance is below sigma^2
    k = np.arange(-400, 401)
    pmf = discrete_gaussian_pmf(k, sigma)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    se = np.sqrt(((k**4 * pmf).sum() - var**2) / N)
    assert abs(np.mean(z.astype(float) ** 2) - var) < 5 * se
    for t in (1, 2 * sigma, 3 * sigma):
        tail = pmf[np.abs(k) >= t].sum()
        assert stats.binomtest(int(np.sum(np.abs(z) >= t)), N, tail).pvalue > ALPHA


def test_pmfs_against_references():
    k = np.arange(-50, 51)
    p = np.exp(-1 / 3.0)
    np.testing.assert_allclose(discrete_laplace_pmf(k, 3.0), stats.dlaplace(1 / 3.0).pmf(k), rtol=1e-12)
    np.testing.assert_allclose(discrete_laplace_pmf(k, 3.0), (1 - p) / (1 + p) * p ** np.abs(k), rtol=1e-12)
    big = np.arange(-2000, 2001)  # large sigma: Poisson summation normaliser vs the direct sum
    direct = np.exp(-big**2 / (2 * 50.0**2)).sum()
    assert discrete_gaussian_pmf(0, 50.0) == pytest.approx(1 / direct, rel=1e-12)
    assert discrete_gaussian_variance(50.0) == pytest.approx((big**2 * np.exp(-big**2 / 5000.0)).sum() / direct)


def test_exact_parameters_and_shapes(rng):
    """A float parameter is the exact rational it denotes: 0.5 and Fraction(1, 2) give identical draws."""
    a = sample_discrete_laplace(0.5, size=1000, rng=make_rng(1))
    b = sample_discrete_laplace(Fraction(1, 2), size=1000, rng=make_rng(1))
    np.testing.assert_array_equal(a, b)
    assert isinstance(sample_discrete_laplace(2, rng=rng), int)
    assert isinstance(sample_discrete_gaussian(2, rng=rng), int)
    assert sample_discrete_gaussian(2, size=(3, 4), rng=rng).shape == (3, 4)
    assert sample_discrete_laplace(2, size=0, rng=rng).shape == (0,)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "2", Fraction(-1, 2)])
def test_samplers_refuse_bad_parameters(bad, rng):
    error = TypeError if isinstance(bad, str) else ValueError
    with pytest.raises(error, match="scale"):
        sample_discrete_laplace(bad, size=3, rng=rng)
    with pytest.raises(error, match="sigma"):
        sample_discrete_gaussian(bad, size=3, rng=rng)


def test_samplers_refuse_bad_rng():
    for bad in (None, 3):
        with pytest.raises(TypeError, match="rng"):
            sample_discrete_laplace(1, rng=bad)
        with pytest.raises(TypeError, match="rng"):
            discrete_gaussian_mech(1, 1, 0.5, rng=bad)


def test_discrete_laplace_mech(rng):
    counts = np.array([[0, 5], [100, 7]])
    noisy = discrete_laplace_mech(counts, sensitivity=2, epsilon=0.5, rng=rng)
    assert noisy.shape == counts.shape and noisy.dtype.kind == "i"
    assert isinstance(discrete_laplace_mech(3, 1, 1.0, rng=rng), int)
    assert discrete_laplace_mech(np.array([4.0]), 1, 1.0, rng=rng).dtype.kind == "i"  # integral floats are fine
    noise = discrete_laplace_mech(np.zeros(N, dtype=int), sensitivity=2, epsilon=0.5, rng=rng)
    assert chi2_pvalue(noise, lambda k: discrete_laplace_pmf(k, 4.0)) > ALPHA  # scale = Δ/ε = 4


def test_discrete_gaussian_mech(rng):
    noise = discrete_gaussian_mech(np.zeros(N, dtype=int), sensitivity=3, rho=0.5, rng=rng)
    assert chi2_pvalue(noise, lambda k: discrete_gaussian_pmf(k, 3.0)) > ALPHA  # sigma^2 = Δ²/(2ρ) = 9
    assert isinstance(discrete_gaussian_mech(3, 1, 0.5, rng=rng), int)


@pytest.mark.parametrize("mech", [discrete_laplace_mech, discrete_gaussian_mech])
def test_mechanisms_validate(mech, rng):
    with pytest.raises(TypeError, match="value"):
        mech(1.5, 1, 1.0, rng=rng)
    with pytest.raises(ValueError, match="value"):
        mech([1, float("nan")], 1, 1.0, rng=rng)
    with pytest.raises(ValueError, match="sensitivity"):
        mech(1, 0, 1.0, rng=rng)
    with pytest.raises(TypeError, match="sensitivity"):
        mech(1, 1.5, 1.0, rng=rng)
    with pytest.raises(ValueError, match="epsilon|rho"):
        mech(1, 1, 0.0, rng=rng)


def test_discrete_laplace_mech_passes_the_audit(rng):
    """Counts 10 vs 11 at ε = 1: the certified bound stays below the claim."""
    def count(data, size, rng):
        return discrete_laplace_mech(np.full(size, len(data)), 1, 1.0, rng=rng)
    result = epsilon_lower_bound(count, [0] * 10, [0] * 11, ThresholdEvent(10.5), 200_000, rng=rng,
                                 claimed_epsilon=1.0, confidence=1 - ALPHA)
    assert not result.flagged and result.epsilon_lb > 0.9


def test_discrete_laplace_audit_catches_a_wrong_scale(rng):
    def count(data, size, rng):  # the scale ε/Δ bug at ε = 0.5: true ε is 2
        return discrete_laplace_mech(np.full(size, len(data)), 1, 2.0, rng=rng)
    result = epsilon_lower_bound(count, [0] * 10, [0] * 11, ThresholdEvent(10.5), 200_000, rng=rng,
                                 claimed_epsilon=0.5, confidence=1 - ALPHA)
    assert result.flagged


def test_snapping_output_grid_and_law(rng):
    """ε = 1, Δ = 1: λ = 1 + 2^-49·B, Λ = 2; the output is x + Lap(λ) rounded to even numbers."""
    y = snapping_mech(np.full(N, 3.3), sensitivity=1.0, epsilon=1.0, bound=100.0, rng=rng)
    assert np.all(y % 2 == 0) and np.all(np.abs(y) <= 100)
    lam = 1 + 2.0**-49 * 100
    j = np.arange(-20, 23, 2.0)
    probs = laplace_cdf(j + 1, 3.3, lam) - laplace_cdf(j - 1, 3.3, lam)
    observed = np.array([np.sum(y == v) for v in j])
    observed = np.append(observed, N - observed.sum())
    probs = np.append(probs, 1 - probs.sum())
    assert stats.chisquare(observed, N * probs).pvalue > ALPHA
    wrong = laplace_cdf(j + 1, 3.3, 1.1 * lam) - laplace_cdf(j - 1, 3.3, 1.1 * lam)  # power: 10 % wrong scale
    assert stats.chisquare(observed, N * np.append(wrong, 1 - wrong.sum())).pvalue < ALPHA


def test_snapping_clamps_scales_and_validates(rng):
    # in units of Δ = 4: B = 50, λ = 2 + tiny, so Λ = 4; back in the data's units a grid of 16, clamped to ±200
    y = snapping_mech(np.repeat([1e9, -1e9, 0.0], 1000), sensitivity=4.0, epsilon=0.5, bound=200.0, rng=rng)
    assert np.all(np.abs(y) <= 200.0) and np.all((y % 16 == 0) | (np.abs(y) == 200.0))
    assert np.sum(y == 200.0) > 400 and np.sum(y == -200.0) > 400
    assert isinstance(snapping_mech(0.0, 1.0, 1.0, 10.0, rng=rng), float)
    with pytest.raises(ValueError, match="bound"):
        snapping_mech(0.0, 1.0, 0.1, 5.0, rng=rng)  # λ = 10 > B = 5
    with pytest.raises(ValueError, match="epsilon"):
        snapping_mech(0.0, 1.0, -1.0, 5.0, rng=rng)
    with pytest.raises(ValueError, match="value"):
        snapping_mech(float("nan"), 1.0, 1.0, 5.0, rng=rng)


def test_snapping_uniform_reaches_below_the_53_bit_grid(rng):
    """U* is uniform over all doubles: ln U* is not capped at ln 2**-53 (about -36.7) as for rng.random()."""
    y = snapping_mech(np.zeros(N), sensitivity=1.0, epsilon=8.0, bound=2.0**20, rng=rng)
    lam = (1 + 2.0**-49 * 2.0**20) / 8.0
    assert np.all(y % 0.125 == 0)  # Λ = 1/8
    assert np.mean(np.abs(y) > 5 * lam) == pytest.approx(np.exp(-5), abs=5 * np.sqrt(np.exp(-5) / N))


# --- the floating-point attack -------------------------------------------------------------------

@pytest.mark.parametrize("scale", [0.1, 1.0, 10.0])
def test_every_output_is_reachable_from_its_own_input(scale, rng):
    """No false alarms: all outputs of laplace_mech on f(D) are found reachable from f(D)."""
    for loc in (0.0, 1.0, -37.25):
        y = laplace_mech(np.full(20_000, loc), 1.0, 1 / scale, rng=rng)
        assert laplace_reachable(y, loc, scale).all()


def test_the_attack_distinguishes_most_outputs(rng):
    """Mironov's attack on the book's sampler: most outputs from f(D') = 1 are impossible from f(D) = 0."""
    y = laplace_mech(np.ones(20_000), 1.0, 1.0, rng=rng)
    share = distinguishing_share(y, 0.0, 1.0)
    assert 0.85 < share < 0.95
    assert distinguishing_share(y, 1.0, 1.0) == 0.0


def test_numpy_sampler_is_replayed_bit_for_bit():
    raw = make_rng(9).bit_generator.random_raw(5000)
    z = make_rng(9).laplace(1.0, 2.0, size=5000)
    k = (raw >> np.uint64(11)).astype(np.int64)  # numpy's next_double: the top 53 bits
    np.testing.assert_array_equal(laplace_output_at(k, 1.0, 2.0, sampler="numpy"), z)
    assert laplace_reachable(z, 1.0, 2.0, sampler="numpy").all()
    assert 0.7 < distinguishing_share(z, 0.0, 2.0, sampler="numpy") < 0.9


def test_output_map_is_monotone(rng):
    """The binary search assumes a non-decreasing map k -> output; check it on random neighbours and the middle."""
    k = np.concatenate([rng.integers(1, 2**52 - 1, size=50_000), np.arange(2**51 - 100, 2**51 + 100)])
    for scale in (0.1, 1.0, 10.0):
        for loc in (0.0, 1.0):
            assert np.all(laplace_output_at(k + 1, loc, scale) >= laplace_output_at(k, loc, scale))


def test_attack_helpers_validate():
    with pytest.raises(ValueError, match="sampler"):
        laplace_reachable([0.0], 0.0, 1.0, sampler="java")
    with pytest.raises(ValueError, match="k must"):
        laplace_output_at(2**52, 0.0, 1.0)
    with pytest.raises(ValueError, match="scale"):
        distinguishing_share([0.0], 0.0, 0.0)


def test_float_lattice_figure_title_is_the_distinguishing_share():
    """The slider figure searches the window and the releases in one call; its share is distinguishing_share's."""
    from dp_lib.plotting import plot_float_lattice

    for scale, seed in ((1.0, 2024), (0.1, 2030), (20.0, 2024)):
        released = laplace_mech(np.ones(5000), 1.0, 1.0 / scale, rng=make_rng(seed))
        title = plot_float_lattice(scale, seed).axes[0].get_title()
        assert title.startswith(f"b = {scale:g}: {distinguishing_share(released, 0.0, scale):.2%} of releases")
    with pytest.raises(ValueError, match="scale"):
        plot_float_lattice(scale=0.01)


def test_snapping_extra_error_depends_on_where_the_value_sits_on_the_grid():
    """Review fix (Chapter 14): at ε = 1 (λ ≈ 1, Λ = 2) rounding adds 11.7 % to Laplace's 2λ² with f(D) on a grid
    point and 22.4 % half-way between two (the exact sums of the chapter), so 'at most Λ²/12' was wrong:
    Λ²/12 (16.7 %) is only the average over positions."""
    rng = make_rng(5)
    on_grid = snapping_mech(np.zeros(400_000), 1.0, 1.0, bound=1e4, rng=rng)
    half_way = snapping_mech(np.ones(400_000), 1.0, 1.0, bound=1e4, rng=rng) - 1.0
    assert np.mean(on_grid**2) / 2 - 1 == pytest.approx(0.117, abs=0.015)
    assert np.mean(half_way**2) / 2 - 1 == pytest.approx(0.224, abs=0.015)


# --- edge cases (issue 30, item 7) -----------------------------------------------------------

@pytest.mark.parametrize("mech", [discrete_laplace_mech, discrete_gaussian_mech])
@pytest.mark.parametrize("value", [2**63, -(2**63), 2**62, np.array([1, 2**63], dtype=np.uint64), 2**70])
def test_edge_huge_counts_never_wrap(mech, value, rng):
    """uint64 2**63 used to become int64 -2**63: refused, naming the parameter."""
    with pytest.raises(ValueError, match="value"):
        mech(value, 1, 0.5, rng=rng)
    out = mech(2**62 - 2**40, 1, 0.5, rng=rng)
    assert type(out) is int and out > 0


@pytest.mark.parametrize("size", [2**31, (2**16, 2**16), 2**45, (2**40, 2**40)])
def test_edge_discrete_samplers_refuse_huge_sizes_before_allocating(size, rng):
    with pytest.raises(ValueError, match="size"):
        sample_discrete_laplace(1, size=size, rng=rng)
    with pytest.raises(ValueError, match="size"):
        sample_discrete_gaussian(1, size=size, rng=rng)


@pytest.mark.parametrize("pmf", [discrete_laplace_pmf, discrete_gaussian_pmf])
def test_edge_pmf_k_must_be_an_integer(pmf):
    for bad in (0.5, [1, 0.5], np.array([2.25])):
        with pytest.raises(TypeError, match="k must be an integer"):
            pmf(bad, 1.0)
    assert pmf(2.0, 1.0) == pmf(2, 1.0)  # an integral float is an integer
    with pytest.raises(ValueError, match="k"):
        pmf(float("nan"), 1.0)


def test_edge_laplace_output_at_huge_scale_is_refused():
    for sampler in ("dp_lib", "numpy"):
        with pytest.raises(ValueError, match="scale"):
            laplace_output_at(5, 0.0, 1e308, sampler=sampler)
    assert np.isfinite(laplace_output_at(np.array([1, 2**52 - 2]), 0.0, 1e306)).all()
    assert np.isfinite(laplace_output_at(np.array([1, 2**53 - 1]), 0.0, 1e306, sampler="numpy")).all()


def test_edge_snapping_lives_beside_the_float_attack():
    import dp_lib
    import dp_lib.exact
    import dp_lib.snapping

    assert dp_lib.snapping_mech is dp_lib.snapping.snapping_mech and not hasattr(dp_lib.exact, "snapping_mech")


def test_edge_laplace_output_at_k_is_an_integer_index():
    """A grid index is an int or an int array: floats (even 3.0), booleans, strings, None are the wrong type."""
    for bad in ("1", True, 2.5, 3.0, None, np.array([1.5]), np.array([True]), [1, 2.0], np.float64(4.0)):
        with pytest.raises(TypeError, match=r"\bk\b"):
            laplace_output_at(bad, 0.0, 1.0)
    for bad, sampler in ((-1, "dp_lib"), (2**52, "dp_lib"), (0, "numpy"), (2**53, "numpy"), ([2**64], "dp_lib"),
                         (np.array([5, 2**52], dtype=np.uint64), "dp_lib")):
        with pytest.raises(ValueError, match=r"\bk\b"):
            laplace_output_at(bad, 0.0, 1.0, sampler=sampler)
    k = np.array([0, 7, 2**51, 2**52 - 1])
    assert laplace_output_at(7, 0.0, 1.0) == laplace_output_at(np.int64(7), 0.0, 1.0) == laplace_output_at(k, 0.0, 1.0)[1]
    np.testing.assert_array_equal(laplace_output_at(k.astype(np.uint64), 0.0, 1.0), laplace_output_at(k, 0.0, 1.0))
    assert laplace_output_at([], 0.0, 1.0).shape == (0,)
