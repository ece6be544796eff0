"""Private quantiles (exponential mechanism on a continuous range)."""

import numpy as np
import pytest
from scipy import stats

from dp_lib import make_rng, private_quantile, quantile_intervals


def density(values, quantile, epsilon, lower, upper, grid):
    """The mechanism's output density at the points of ``grid``."""
    edges, p = quantile_intervals(values, quantile, epsilon, lower, upper)
    lengths = np.diff(edges)
    piece = np.clip(np.searchsorted(edges, grid, side="right") - 1, 0, lengths.size - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lengths[piece] > 0, p[piece] / lengths[piece], 0.0)


@pytest.mark.parametrize("quantile", [0.0, 0.25, 0.5, 0.9, 1.0])
def test_density_ratio_of_neighbours_is_at_most_e_to_the_epsilon(quantile):
    epsilon, rng = 0.7, make_rng(1)
    data = rng.uniform(0, 10, size=25)
    grid = np.linspace(0.005, 9.995, 4000)   # avoid the data points themselves (measure zero)
    grid = grid[np.min(np.abs(grid[:, None] - np.r_[data, 3.3][None, :]), axis=1) > 1e-9]
    for neighbour in (np.r_[data, 3.3], data[1:]):
        log_ratio = np.log(density(data, quantile, epsilon, 0, 10, grid)) - \
            np.log(density(neighbour, quantile, epsilon, 0, 10, grid))
        assert np.max(np.abs(log_ratio)) <= epsilon + 1e-9


def test_the_density_check_has_power():
    """Weights four times too sharp (exp(2ε·u): no halving and a sensitivity of 1/2 wrongly assumed) leak ~2ε.

    Empty data vs one point at 0.01, minimum (quantile 0) on [0, 1]: below 0.01 the log-ratio is
    ε'/2 - ln(0.99 + 0.01·exp(ε'/2)) for weights exp(ε'·u/2).
    """
    epsilon, grid = 1.0, np.array([0.005, 0.5])
    for used, leaks in ((epsilon, False), (4 * epsilon, True)):
        log_ratio = np.log(density([], 0.0, used, 0, 1, grid)) - np.log(density([0.01], 0.0, used, 0, 1, grid))
        expected = used / 2 - np.log(0.99 + 0.01 * np.exp(used / 2))
        assert np.isclose(np.max(np.abs(log_ratio)), expected)
        assert (np.max(np.abs(log_ratio)) > epsilon) == leaks


def test_samples_follow_the_piece_probabilities():
    data = np.array([1.0, 2.0, 2.5, 7.0])
    edges, p = quantile_intervals(data, 0.5, 1.0, 0.0, 10.0)
    rng = make_rng(2024)
    draws = np.array([private_quantile(data, 0.5, 1.0, 0.0, 10.0, rng=rng) for _ in range(20_000)])
    observed = np.bincount(np.searchsorted(edges, draws, side="right") - 1, minlength=p.size)[: p.size]
    assert stats.chisquare(observed, p * observed.sum()).pvalue > 1e-3


def test_median_of_ages_is_accurate_at_moderate_epsilon():
    rng = make_rng(5)
    ages = rng.integers(17, 91, size=5000).astype(float)
    releases = [private_quantile(ages, 0.5, 1.0, 0, 100, rng=rng) for _ in range(200)]
    assert abs(np.median(releases) - np.median(ages)) < 1.0


def test_empty_data_and_out_of_range_values_do_not_raise():
    rng = make_rng(3)
    assert 0 <= private_quantile([], 0.5, 1.0, 0, 1, rng=rng) <= 1
    assert 0 <= private_quantile([-5.0, 50.0], 0.5, 1.0, 0, 1, rng=rng) <= 1


@pytest.mark.parametrize("kwargs, name", [
    (dict(quantile=1.5), "quantile"), (dict(epsilon=0.0), "epsilon"), (dict(lower=2.0), "lower"),
    (dict(lower=-1e308, upper=1e308), "lower"), (dict(values=[np.nan]), "values"),
])
def test_bad_parameters_are_refused_by_name(kwargs, name):
    args = dict(values=[1.0, 2.0], quantile=0.5, epsilon=1.0, lower=0.0, upper=1.0) | kwargs
    with pytest.raises(ValueError, match=name):
        private_quantile(**args, rng=make_rng(0))


def test_rng_is_required():
    with pytest.raises((TypeError, ValueError)):
        private_quantile([1.0], 0.5, 1.0, 0.0, 1.0, rng=0)
