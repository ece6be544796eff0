"""Guarantees of Chapter "Private statistics" that a mutation of the library would break (review items).

Each test pins one property exactly, at a fixed seed: the noise a release draws (not just the scale it reports),
the ε each quantile of a range is drawn at, the clipping of finite values, and that no record (NaN, ±inf) can
make a release fail.
"""

from __future__ import annotations

import warnings

import numpy as np

from dp_lib import PrivacyAccountant, laplace_mech, make_rng, private_quantile
from dp_lib import statistics
from dp_lib.hypothesis import table_from_counts
from dp_lib.statistics import private_mean, private_range, proportion_from_counts


def test_table_from_counts_draws_laplace_one_over_epsilon_per_cell():
    counts = np.array([[400.0, 100.0], [350.0, 150.0]])
    expected = np.maximum(laplace_mech(counts, 1.0, 0.3, rng=make_rng(5)), 0.0)
    assert np.array_equal(table_from_counts(counts, 0.3, rng=make_rng(5)).table, expected)


def test_proportion_from_counts_draws_laplace_one_over_epsilon_per_count():
    draws = make_rng(6)
    ones = max(laplace_mech(300.0, 1.0, 0.2, rng=draws), 0.0)
    zeros = max(laplace_mech(700.0, 1.0, 0.2, rng=draws), 0.0)
    release = proportion_from_counts(300, 700, 0.2, rng=make_rng(6))
    assert (release.proportion, release.count) == (min(ones / max(ones + zeros, 1.0), 1.0), max(ones + zeros, 1.0))


def test_private_range_draws_each_quantile_at_half_the_charged_epsilon(monkeypatch):
    seen = []

    def spy(values, quantile, epsilon, lower, upper, *, rng):
        seen.append(epsilon)
        return private_quantile(values, quantile, epsilon, lower, upper, rng=rng)

    monkeypatch.setattr(statistics, "private_quantile", spy)
    acct = PrivacyAccountant(1.0)
    private_range(np.arange(100.0), 0.4, 0, 150, rng=make_rng(0), accountant=acct)
    assert seen == [0.2, 0.2] and acct.spent == (0.4, 0.0)


def test_private_mean_clips_finite_values_to_the_range():
    far = private_mean([1000.0] * 50 + [-1000.0] * 20, 0, 10, 1.0, rng=make_rng(8))
    ends = private_mean([10.0] * 50 + [0.0] * 20, 0, 10, 1.0, rng=make_rng(8))
    assert (far.mean, far.variance, far.count) == (ends.mean, ends.variance, ends.count)


def test_a_nan_or_infinite_record_never_makes_a_quantile_or_range_fail():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        odd = private_quantile([np.nan, np.inf, -np.inf, 3.0], 0.5, 1.0, 0.0, 10.0, rng=make_rng(9))
        mapped = private_quantile([5.0, 10.0, 0.0, 3.0], 0.5, 1.0, 0.0, 10.0, rng=make_rng(9))
        assert odd == mapped                                   # NaN -> midpoint, ±inf -> the range's ends
        acct, again = PrivacyAccountant(1.0), PrivacyAccountant(1.0)
        odd_range = private_range([np.nan, 1e308, 40.0] * 30, 0.5, 0, 150, rng=make_rng(10), accountant=acct)
        mapped_range = private_range([75.0, 150.0, 40.0] * 30, 0.5, 0, 150, rng=make_rng(10), accountant=again)
        assert odd_range == mapped_range and acct.spent == (0.5, 0.0)
