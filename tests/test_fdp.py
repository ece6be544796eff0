"""f-DP and Gaussian DP (dp_lib.fdp): trade-off curves, composition, conversion, the CLT approximation."""


import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as g_pld
from scipy.stats import norm

from dp_lib import (PldAccountant, clt_mu, epsilon_delta_tradeoff, gaussian_tradeoff, gdp_compose, gdp_delta,
                    gdp_epsilon)
from dp_lib.events import GaussianEvent, PoissonSampled, Repeated


def test_gaussian_tradeoff_is_the_neyman_pearson_test():
    """Threshold tests of N(0,1) against N(mu,1): alpha = P0[X > c], beta = P1[X <= c]."""
    c = np.linspace(-3, 4, 50)
    alpha, beta = norm.sf(c), norm.cdf(c - 1.3)
    assert gaussian_tradeoff(alpha, 1.3) == pytest.approx(beta, abs=1e-12)
    assert gaussian_tradeoff([0.0, 1.0], 0.0).tolist() == [1.0, 0.0]


def test_epsilon_delta_tradeoff_is_chapter_1s_region():
    alpha = np.linspace(0, 1, 101)
    f = epsilon_delta_tradeoff(alpha, 0.7, 0.01)
    assert np.all(f >= 0) and np.all(np.diff(f) <= 1e-15)  # a trade-off curve is non-increasing
    assert epsilon_delta_tradeoff([0.1], 0.0)[0] == pytest.approx(0.9)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gdp_curve_lies_above_its_epsilon_delta_region(mu):
    alpha = np.linspace(0, 1, 1001)
    for delta in (1e-2, 1e-5):
        eps = gdp_epsilon(delta, mu)
        assert np.all(gaussian_tradeoff(alpha, mu) >= epsilon_delta_tradeoff(alpha, eps, delta) - 1e-9)


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_gdp_conversion_agrees_with_dp_accounting(mu):
    theirs = g_pld.from_gaussian_mechanism(1 / mu, value_discretization_interval=1e-4).get_epsilon_for_delta(1e-5)
    assert gdp_epsilon(1e-5, mu) == pytest.approx(theirs, abs=1e-4)
    assert gdp_delta(gdp_epsilon(1e-5, mu), mu) == pytest.approx(1e-5, rel=1e-6)


def test_composition_and_chapter_numbers():
    assert gdp_compose([1.0] * 4) == 2.0
    four = PldAccountant().compose(Repeated(GaussianEvent(1.0), 4)).epsilon(1e-5)
    assert four == pytest.approx(gdp_epsilon(1e-5, 2.0), abs=1e-3)
    assert round(clt_mu(0.01, 1.1, 10_000), 4) == 1.1337


def test_clt_is_an_approximation_that_can_understate():
    """The chapter's claim: for DP-SGD's setting the CLT's ε is below the EXACT ε, not only below an upper bound.

    The lower bound is dp-accounting's optimistic discretisation (5.1426 at h = 1e-5), so the CLT's 5.0647
    overstates the privacy.
    """
    mu = clt_mu(0.01, 1.1, 10_000)
    optimistic = g_pld.from_gaussian_mechanism(1.1, sampling_prob=0.01, pessimistic_estimate=False,
                                               value_discretization_interval=1e-5, use_connect_dots=False)
    exact_lower = optimistic.self_compose(10_000).get_epsilon_for_delta(1e-5)
    pld = PldAccountant(1e-4).compose(Repeated(PoissonSampled(0.01, GaussianEvent(1.1)), 10_000)).epsilon(1e-5)
    assert gdp_epsilon(1e-5, mu) < exact_lower <= pld <= exact_lower + 0.06, (exact_lower, pld)


def test_validation():
    with pytest.raises(ValueError, match="alpha"):
        gaussian_tradeoff([1.5], 1.0)
    with pytest.raises(ValueError, match="mu"):
        gdp_delta(1.0, 0.0)
    with pytest.raises(TypeError, match="mu"):
        gdp_epsilon(1e-5, "1")
    with pytest.raises(ValueError, match="mus"):
        gdp_compose([-1.0])
    with pytest.raises(TypeError, match="steps"):
        clt_mu(0.1, 1.0, 2.5)
    with pytest.raises(ValueError, match="delta"):
        gdp_epsilon(0.0, 1.0)
