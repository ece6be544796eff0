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


def test_nan_and_inf_records_are_mapped_the_same_way_for_every_record():
    """NaN counts as the range's midpoint and ±inf is clipped to its ends: a fixed map, so no record can make the
    release fail (an error on one data set and an output on its neighbour would break DP)."""
    odd = private_quantile([np.nan, np.inf, -np.inf, 0.25], 0.5, 1.0, 0, 1, rng=make_rng(4))
    assert odd == private_quantile([0.5, 1.0, 0.0, 0.25], 0.5, 1.0, 0, 1, rng=make_rng(4))
    edges, _ = quantile_intervals([np.nan, np.inf], 0.5, 1.0, 0.0, 2.0)
    assert edges.tolist() == [0.0, 1.0, 2.0, 2.0]


@pytest.mark.parametrize("kwargs, name", [
    (dict(quantile=1.5), "quantile"), (dict(epsilon=0.0), "epsilon"), (dict(lower=2.0), "lower"),
    (dict(lower=-1e308, upper=1e308), "lower"), (dict(values=[[1.0, 2.0]]), "values"),
])
def test_bad_parameters_are_refused_by_name(kwargs, name):
    args = dict(values=[1.0, 2.0], quantile=0.5, epsilon=1.0, lower=0.0, upper=1.0) | kwargs
    with pytest.raises(ValueError, match=name):
        private_quantile(**args, rng=make_rng(0))


def test_rng_is_required():
    with pytest.raises((TypeError, ValueError)):
        private_quantile([1.0], 0.5, 1.0, 0.0, 1.0, rng=0)


# ------------------------------------------------ the score's sensitivity is max(q, 1 - q) (DP_REFERENCE §14)
# An independent implementation of the continuous-range quantile EM with weight exp(c·u(x)),
# u(x) = -|#{x_i < x} - q·n|: its density is constant between sorted points, so the exact worst
# log-ratio of two neighbours is a maximum over the pieces of their merged breakpoints.

def _log_density_pieces(data, quantile, c, lower, upper):
    data = np.sort(np.asarray(data, dtype=float))
    edges = np.concatenate(([lower], data, [upper]))
    log_w = -c * np.abs(np.arange(data.size + 1) - quantile * data.size)
    with np.errstate(divide="ignore"):  # zero-length pieces (points at the range's ends) carry no mass
        log_norm = np.logaddexp.reduce(np.log(np.diff(edges)) + log_w)
    return edges, log_w - log_norm


def _max_log_ratio(data, neighbour, quantile, c, lower, upper):
    e1, l1 = _log_density_pieces(data, quantile, c, lower, upper)
    e2, l2 = _log_density_pieces(neighbour, quantile, c, lower, upper)
    cuts = np.unique(np.concatenate((e1, e2)))
    mids = ((cuts[:-1] + cuts[1:]) / 2)[np.diff(cuts) > 0]
    a = l1[np.searchsorted(e1, mids, side="right") - 1]
    b = l2[np.searchsorted(e2, mids, side="right") - 1]
    return float(np.max(np.abs(a - b)))


_DOMAIN, _LOWER, _UPPER = (0.0, 1.0, 2.5, 3.0, 6.0), 0.0, 6.0  # includes both ends of the range


def _worst_over_all_neighbours(quantile, c, max_n=8):
    """Max log density ratio over every multiset of <= max_n points from _DOMAIN and all its add/remove neighbours."""
    from itertools import combinations_with_replacement

    worst = 0.0
    for n in range(max_n + 1):
        for data in combinations_with_replacement(_DOMAIN, n):
            data = list(data)
            # adding any domain value covers removals too (the pair is symmetric and we enumerate every data set)
            for x in _DOMAIN:
                worst = max(worst, _max_log_ratio(data, data + [x], quantile, c, _LOWER, _UPPER))
    return worst


@pytest.mark.parametrize("quantile", [0.1, 0.5, 0.9])
def test_weight_scaled_by_max_q_one_minus_q_is_epsilon_dp_on_all_neighbours(quantile):
    epsilon = 1.0
    sensitivity = max(quantile, 1 - quantile)  # #below moves by 0 or 1, q·n by q
    worst = _worst_over_all_neighbours(quantile, epsilon / (2 * sensitivity))
    assert worst <= epsilon + 1e-9
    assert worst > 0.5 * epsilon  # the enumeration reaches far into the bound


@pytest.mark.parametrize("quantile", [0.1, 0.5, 0.9])
def test_library_weight_exp_epsilon_u_over_2_matches_and_is_conservative(quantile):
    # the library uses exp(ε·u/2): the same pieces and probabilities as the general form with c = ε/2,
    # and a loss of at most max(q, 1 - q)·ε <= ε
    epsilon, data = 1.0, [1.0, 2.5, 2.5, 6.0]
    edges, p = quantile_intervals(data, quantile, epsilon, _LOWER, _UPPER)
    my_edges, log_density = _log_density_pieces(data, quantile, epsilon / 2, _LOWER, _UPPER)
    assert np.array_equal(edges, my_edges)
    assert np.allclose(p, np.exp(log_density) * np.diff(edges), rtol=1e-12, atol=0)
    worst = _worst_over_all_neighbours(quantile, epsilon / 2)
    assert worst <= max(quantile, 1 - quantile) * epsilon + 1e-9


def test_weight_exp_epsilon_u_is_not_epsilon_dp_away_from_the_median():
    """exp(ε·u) (no halving, sensitivity 1 assumed) is ε-DP only for the median.

    Its loss is up to 2·max(q, 1 - q)·ε: 1.8 at q = 0.9, ε = 1. The enumeration of small data sets already
    exceeds ε; nine points at the bottom of [0, 1], a tenth and the added one near the top get within 0.02 of 1.8.
    """
    epsilon = 1.0
    assert _worst_over_all_neighbours(0.5, epsilon) <= epsilon + 1e-9
    enumerated = _worst_over_all_neighbours(0.9, epsilon)
    assert enumerated > 1.5 * epsilon
    data = [1e-4] * 9 + [0.99]
    built = _max_log_ratio(data, data + [0.9999], 0.9, epsilon, 0.0, 1.0)
    assert 1.78 < built <= 2 * 0.9 * epsilon
