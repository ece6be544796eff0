"""The Laplace sampler and formulas against the exact distribution.

Statistical tests use a fixed seed and significance level ALPHA: with a
correct sampler each fails with probability <= ALPHA, and at the fixed seed
the outcome is deterministic. Each would fail for a flipped sign, a missing
factor 2 or a scale of 1/b instead of b.
"""

import numpy as np
import pytest
from scipy import stats

from dp_lib import (laplace_cdf, laplace_inverse_cdf, laplace_pdf, laplace_variance, make_rng,
                    open_uniform, sample_laplace)

ALPHA = 1e-3
N = 200_000


@pytest.mark.parametrize("loc, scale", [(0.0, 1.0), (3.0, 2.0), (-5.0, 0.25)])
def test_sampler_matches_exact_cdf(loc, scale, rng):
    x = sample_laplace(scale, size=N, loc=loc, rng=rng)
    assert stats.kstest(x, laplace_cdf, args=(loc, scale)).pvalue > ALPHA
    assert stats.kstest(x, stats.laplace(loc, scale).cdf).pvalue > ALPHA


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_sampler_mean_variance_and_mean_abs(scale, rng):
    x = sample_laplace(scale, size=N, rng=rng)
    var = laplace_variance(scale)
    # standard errors: sd/sqrt(N) for the mean; sqrt(Var(X^2)/N) = sqrt((24 - 4) b^4 / N) for the variance
    assert abs(x.mean()) < 5 * np.sqrt(var / N)
    assert abs(x.var() - var) < 5 * np.sqrt(20 * scale**4 / N)
    assert abs(np.abs(x).mean() - scale) < 5 * scale / np.sqrt(N)


def test_wrong_scale_would_be_caught(rng):
    """The KS check has power: samples at scale 1/b are rejected against scale b."""
    x = sample_laplace(0.5, size=N, rng=rng)
    assert stats.kstest(x, laplace_cdf, args=(0.0, 2.0)).pvalue < ALPHA


def test_chi_square_on_quantile_bins(rng):
    x = sample_laplace(1.5, size=N, loc=1.0, rng=rng)
    edges = laplace_inverse_cdf(np.linspace(0, 1, 21), loc=1.0, scale=1.5)
    counts, _ = np.histogram(x, bins=edges)
    assert stats.chisquare(counts).pvalue > ALPHA


def test_pdf_cdf_inverse_agree_with_scipy():
    x = np.linspace(-20, 20, 401)
    ref = stats.laplace(1.0, 3.0)
    np.testing.assert_allclose(laplace_pdf(x, 1.0, 3.0), ref.pdf(x), rtol=1e-12)
    np.testing.assert_allclose(laplace_cdf(x, 1.0, 3.0), ref.cdf(x), rtol=1e-12, atol=1e-300)
    u = np.linspace(0.001, 0.999, 999)
    np.testing.assert_allclose(laplace_inverse_cdf(u, 1.0, 3.0), ref.ppf(u), rtol=1e-10, atol=1e-12)


def test_inverse_cdf_branches_and_limits():
    assert laplace_inverse_cdf(0.25, scale=2.0) == pytest.approx(2.0 * np.log(0.5))
    assert laplace_inverse_cdf(0.75, scale=2.0) == pytest.approx(-2.0 * np.log(0.5))
    assert laplace_inverse_cdf(0.0) == -np.inf and laplace_inverse_cdf(1.0) == np.inf
    assert laplace_cdf(1e6) == 1.0 and laplace_cdf(-1e6) == 0.0  # no overflow warnings


def test_centred_formula_is_bit_identical():
    u = open_uniform(10_000, rng=make_rng(3))
    v = u - 0.5
    centred = -2.0 * np.sign(v) * np.log(1 - 2 * np.abs(v))
    np.testing.assert_array_equal(centred, laplace_inverse_cdf(u, scale=2.0))


@pytest.mark.parametrize("scale, size, loc", [(2.0, 10_000, 0.0), (0.5, (30, 7), -3.25), (1e-3, None, 1e6)])
def test_sampler_is_the_chapters_two_branch_formula_bit_for_bit(scale, size, loc):
    """sample_laplace computes in place (benchmark); its draws are the readable formula's, bit for bit."""
    u = np.asarray(open_uniform(size, rng=make_rng(11)))
    below = u < 0.5
    t = np.log(2 * np.where(below, u, 1 - u))
    readable = loc + scale * np.where(below, t, -t)
    drawn = np.asarray(sample_laplace(scale, size, loc, rng=make_rng(11)))
    np.testing.assert_array_equal(drawn, readable)
    assert np.array_equal(np.signbit(drawn), np.signbit(readable))


def test_open_uniform_is_open_and_uniform(rng):
    u = open_uniform(N, rng=rng)
    assert u.min() > 0 and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > ALPHA


def test_scalar_and_shapes(rng):
    assert isinstance(sample_laplace(1.0, rng=rng), float)
    assert sample_laplace(1.0, size=(3, 4), rng=rng).shape == (3, 4)
    assert isinstance(laplace_pdf(0.0), float)


def test_same_seed_same_draws():
    np.testing.assert_array_equal(sample_laplace(1.0, size=10, rng=make_rng(5)),
                                  sample_laplace(1.0, size=10, rng=make_rng(5)))


@pytest.mark.parametrize("bad", [0, -1.0, np.nan, np.inf, "1", True])
def test_bad_scale(bad, rng):
    error = TypeError if isinstance(bad, (str, bool)) else ValueError  # wrong type vs wrong value
    with pytest.raises(error, match="scale"):
        sample_laplace(bad, rng=rng)
    with pytest.raises(error, match="scale"):
        laplace_pdf(0.0, scale=bad)


@pytest.mark.parametrize("bad_u", [-0.1, 1.1, np.nan, [0.5, 2.0]])
def test_bad_uniform(bad_u):
    with pytest.raises(ValueError, match="u "):
        laplace_inverse_cdf(bad_u)


def test_bad_inputs_named():
    with pytest.raises(ValueError, match="x "):
        laplace_cdf([0.0, np.nan])
    with pytest.raises(TypeError, match="loc"):
        laplace_pdf(0.0, loc=[1.0, 2.0])
    with pytest.raises(ValueError, match="size"):
        sample_laplace(1.0, size=-1, rng=make_rng(0))


@pytest.mark.parametrize("bad_rng", [None, 42, np.int64(1), "seed", np.random.RandomState(0)])
def test_rng_must_be_a_generator(bad_rng):
    with pytest.raises(TypeError, match="rng"):
        sample_laplace(1.0, rng=bad_rng)
    with pytest.raises(TypeError, match="rng"):
        open_uniform(3, rng=bad_rng)


# --- the unchecked cores behind the public functions (issue 30: validate once at the public boundary) --------------

def test_unchecked_cores_give_the_public_functions_results_bit_for_bit():
    from dp_lib.noise import laplace_cdf_values, laplace_draws

    for size in (None, 7, (3, 4)):
        public = sample_laplace(2.5, size=size, loc=1.0, rng=make_rng(5))
        core = laplace_draws(2.5, size, 1.0, rng=make_rng(5))
        assert np.array_equal(np.asarray(public), core) and core.shape == np.shape(public)
    x = np.linspace(-50, 50, 101)
    assert np.array_equal(laplace_cdf(x, 2.0, 3.0), laplace_cdf_values(x, 2.0, 3.0))
    with np.errstate(all="raise"):  # (x - loc) / b beyond float64: the exact limits, no warning
        assert laplace_cdf_values([-1e308, 1e308], 0.0, 1e-300).tolist() == [0.0, 1.0]


def test_check_noise_range_validates_and_require_noise_range_trusts():
    from dp_lib import check_noise_range
    from dp_lib.noise import require_noise_range

    for bad in ("1.0", True, None):
        with pytest.raises(TypeError, match="scale"):
            check_noise_range(bad)
    with pytest.raises(ValueError, match="sensitivity / epsilon"):
        check_noise_range(1e307, name="sensitivity / epsilon")
    with pytest.raises(ValueError, match="my scale"):
        require_noise_range(1e306, 1.7e308, name="my scale")  # |loc| + 36.04 b overflows
    for scale in (0.0, float("inf"), float("nan")):  # the range test itself refuses what is not a scale
        with pytest.raises(ValueError, match="my scale"):
            require_noise_range(scale, 0.0, name="my scale")
    assert require_noise_range(1.0, 5.0, name="scale") is None
