"""The Laplace and Gaussian mechanisms and their calibrations."""

import math

import numpy as np
import pytest
from scipy import stats

from dp_lib import (analytic_gaussian_sigma, gaussian_delta, gaussian_mech, gaussian_sigma, laplace_cdf,
                    laplace_mech, laplace_scale, make_rng, pct_error)

ALPHA = 1e-3


def test_laplace_mech_noise_is_lap_sensitivity_over_epsilon(rng):
    noisy = laplace_mech(np.full(100_000, 50.0), sensitivity=2.0, epsilon=0.5, rng=rng)
    assert stats.kstest(noisy - 50.0, laplace_cdf, args=(0.0, 4.0)).pvalue > ALPHA
    # the classic slip, scale epsilon/sensitivity, would be caught by the same test
    assert stats.kstest(noisy - 50.0, laplace_cdf, args=(0.0, 0.25)).pvalue < ALPHA


def test_laplace_mech_shapes_and_independence(rng):
    assert isinstance(laplace_mech(3, 1, 1, rng=rng), float)
    out = laplace_mech(np.zeros((2, 50_000)), 1, 1, rng=rng)
    assert out.shape == (2, 50_000)
    assert abs(np.corrcoef(out)[0, 1]) < 0.02


def test_laplace_scale():
    assert laplace_scale(1, 0.1) == pytest.approx(10.0)


@pytest.mark.parametrize("bad", [0, -1, np.nan, np.inf])
def test_laplace_mech_rejects_bad_parameters(bad, rng):
    with pytest.raises(ValueError, match="epsilon"):
        laplace_mech(1.0, 1.0, bad, rng=rng)
    with pytest.raises(ValueError, match="sensitivity"):
        laplace_mech(1.0, bad, 1.0, rng=rng)


def test_laplace_mech_rejects_nan_value_and_int_rng(rng):
    with pytest.raises(ValueError, match="value"):
        laplace_mech([1.0, np.nan], 1.0, 1.0, rng=rng)
    with pytest.raises(TypeError, match="rng"):
        laplace_mech(1.0, 1.0, 1.0, rng=0)


def test_classic_gaussian_numbers():
    assert gaussian_sigma(1, 0.1, 1e-5) == pytest.approx(48.45, abs=0.01)
    assert gaussian_sigma(2, 0.5, 1e-5) == pytest.approx(2 * math.sqrt(2 * math.log(1.25e5)) / 0.5)


def test_classic_gaussian_refuses_epsilon_at_least_one():
    with pytest.raises(ValueError, match="epsilon must be in \\(0, 1\\)"):
        gaussian_sigma(1, 1.0, 1e-5)


@pytest.mark.parametrize("eps, expected", [(0.1, 30.75), (1.0, 3.731)])
def test_analytic_gaussian_matches_balle_wang(eps, expected):
    assert analytic_gaussian_sigma(1, eps, 1e-5) == pytest.approx(expected, abs=0.005)


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 4.0, 20.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_analytic_gaussian_is_tight(eps, delta):
    sigma = analytic_gaussian_sigma(1.0, eps, delta)
    assert gaussian_delta(sigma, 1.0, eps) <= delta
    assert gaussian_delta(sigma * (1 - 1e-6), 1.0, eps) > delta
    if eps < 1:  # never worse than the classic calibration where that one is valid
        assert sigma <= gaussian_sigma(1.0, eps, delta)


def test_analytic_gaussian_scales_with_sensitivity():
    assert analytic_gaussian_sigma(3.0, 0.7, 1e-5) == pytest.approx(3 * analytic_gaussian_sigma(1.0, 0.7, 1e-5))


def test_classic_calibration_violates_delta_at_large_epsilon():
    """Why gaussian_sigma refuses ε >= 1: at ε = 10 its σ has true δ ≈ 2.3e-5 > 1e-5."""
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 10
    assert gaussian_delta(sigma, 1.0, 10.0) == pytest.approx(2.3e-5, rel=0.05)


def test_gaussian_mech_distribution(rng):
    noisy = gaussian_mech(np.zeros(100_000), 1.0, 1.0, 1e-5, rng=rng)
    sigma = analytic_gaussian_sigma(1.0, 1.0, 1e-5)
    assert stats.kstest(noisy, stats.norm(0, sigma).cdf).pvalue > ALPHA
    classic = gaussian_mech(np.zeros(100_000), 1.0, 0.5, 1e-5, rng=rng, calibration="classic")
    assert stats.kstest(classic, stats.norm(0, gaussian_sigma(1.0, 0.5, 1e-5)).cdf).pvalue > ALPHA


def test_gaussian_mech_bad_input(rng):
    with pytest.raises(ValueError, match="delta"):
        gaussian_mech(1.0, 1.0, 1.0, 0.0, rng=rng)
    with pytest.raises(ValueError, match="delta"):
        gaussian_mech(1.0, 1.0, 1.0, 1.0, rng=rng)
    with pytest.raises(ValueError, match="calibration"):
        gaussian_mech(1.0, 1.0, 1.0, 1e-5, rng=rng, calibration="tight")
    with pytest.raises(TypeError, match="rng"):
        gaussian_mech(1.0, 1.0, 1.0, 1e-5, rng=None)


def test_pct_error():
    np.testing.assert_allclose(pct_error([100, 200], [110, 190]), [10.0, 5.0])
    with pytest.raises(ValueError, match="true"):
        pct_error(0, 1)
    with pytest.raises(ValueError, match="true and private"):
        pct_error([1, 2, 3], [1, 2])


def test_reproducible():
    a = laplace_mech([1.0, 2.0], 1, 1, rng=make_rng(9))
    b = laplace_mech([1.0, 2.0], 1, 1, rng=make_rng(9))
    np.testing.assert_array_equal(a, b)
