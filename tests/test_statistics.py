"""dp_lib.statistics, dp_lib.intervals, dp_lib.hypothesis (Chapter "Private statistics").

Statistical tests run at fixed seeds. Coverage, size and power tolerances come from binomial (Clopper–Pearson)
intervals at a confidence that makes a false failure negligible; the two noise-variance checks compare 20,000
seeded draws with the formula at ±5 % (the relative sd of a variance estimate from 20,000 draws is below 2 %).
Exact-noise, clipping and ε-spy tests are in tests/test_statistics_guarantees.py.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings

import numpy as np
import pytest

from dp_lib import BudgetExceededError, PrivacyAccountant, laplace_mech, load_adult, make_rng
from dp_lib import hypothesis, intervals, statistics
from dp_lib.audit import clopper_pearson
from dp_lib.hypothesis import (TableRelease, chi_square_statistic, classical_p_value, independence_test,
                               private_table, rejection_rate, table_from_counts)
from dp_lib.intervals import (bootstrap_interval, coverage_interval, naive_interval, noise_aware_interval,
                              noise_variance, sampling_variance, simulate_coverage)
from dp_lib.statistics import (MeanRelease, ProportionRelease, mean_from_sums, mean_noise_sd, private_mean,
                               private_proportion, private_range)

MODULES = (statistics, intervals, hypothesis)
PUBLIC = [(m, name) for m in MODULES for name in m.__all__]


@pytest.fixture(scope="module")
def adult():
    data = load_adult()
    return data["Age"].to_numpy(dtype=float), (data["Target"] == ">50K").to_numpy()


# --- conventions (the module is not re-exported from dp_lib yet, so tests/test_conventions.py does not see it) ---

@pytest.mark.parametrize("module, name", PUBLIC, ids=[n for _, n in PUBLIC])
def test_docstrings_have_privacy_backlink_and_example(module, name):
    doc = inspect.getdoc(getattr(module, name))
    assert doc and "Privacy:" in doc and "chapters/08_private_statistics.ipynb" in doc and ">>>" in doc, name
    assert "Parameters\n---" in doc and "Returns\n---" in doc, f"{name}: numpydoc Parameters and Returns"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_modules_are_small(module):
    source = inspect.getsource(module)
    body = re.sub(r'""".*?"""', "", source, flags=re.S)
    code = [line for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert len(code) <= 150, f"{module.__name__}: {len(code)} code lines"


# --- exact noise scales -----------------------------------------------------------------------------------

def test_mean_noise_scales_are_exact():
    r = MeanRelease(0.0, 0.0, 1.0, 17.0, 90.0, 0.5)
    assert (r.count_scale, r.sum_scale, r.square_scale) == (6.0, 3 * 36.5 / 0.5, 3 * 36.5**2 / 0.5)
    assert ProportionRelease(0.1, 10.0, 0.25).scale == 4.0 and TableRelease(np.ones((2, 2)), 0.25).scale == 4.0


def test_private_mean_draws_exactly_the_written_out_noise(adult):
    ages, _ = adult
    draws = make_rng(7)
    centred = np.clip(ages, 17, 90) - 53.5
    n = max(laplace_mech(float(len(ages)), 1.0, 1 / 3, rng=draws), 1.0)
    s = laplace_mech(centred.sum(), 36.5, 1 / 3, rng=draws)
    q = laplace_mech((centred**2).sum(), 36.5**2, 1 / 3, rng=draws)
    release = private_mean(ages, 17, 90, 1.0, rng=make_rng(7))
    assert (release.mean, release.variance, release.count) == (53.5 + s / n, q / n - (s / n) ** 2, n)


def test_noise_sd_of_the_mean_matches_simulation():
    """Var of the noise in the mean at the midpoint is 2·b_S²/n²: checked on 20,000 seeded releases (±5 %)."""
    r = mean_from_sums(np.full(20_000, 1000.0), np.zeros(20_000), np.full(20_000, 1e5), 0.0, 100.0, 1.0,
                       rng=make_rng(1))
    assert abs(np.std(r.mean - 50.0) / mean_noise_sd(1000, 0, 100, 1.0) - 1) < 0.05
    assert math.isclose(mean_noise_sd(1000, 0, 100, 1.0), math.sqrt(2) * 150 / 1000)


def test_proportion_noise_variance_matches_simulation():
    many = statistics.proportion_from_counts(np.full(20_000, 300), np.full(20_000, 700), 0.2, rng=make_rng(2))
    predicted = float(noise_variance(ProportionRelease(0.3, 1000.0, 0.2)))
    assert abs(np.var(many.proportion) / predicted - 1) < 0.05


# --- data never makes a release fail ------------------------------------------------------------------------

def test_nan_and_inf_in_the_data_are_handled_for_every_record_alike():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = private_mean([np.nan, np.inf, -np.inf, 5.0], 0, 10, 1.0, rng=make_rng(0))
        b = private_mean([5.0, 10.0, 0.0, 5.0], 0, 10, 1.0, rng=make_rng(0))
        assert (a.mean, a.variance, a.count) == (b.mean, b.variance, b.count)   # NaN -> midpoint, ±inf -> ends
        assert math.isfinite(private_proportion(np.array([np.nan, 1.0, 0.0]), 1.0, rng=make_rng(0)).proportion)
        assert math.isfinite(private_mean([], 0, 10, 1.0, rng=make_rng(0)).mean)


def test_wrong_types_and_values_name_the_parameter():
    with pytest.raises(TypeError, match="values"):
        private_mean("abc", 0, 1, 1.0, rng=make_rng(0))
    with pytest.raises(ValueError, match="lower"):
        private_mean([1.0], 2, 1, 1.0, rng=make_rng(0))
    with pytest.raises(TypeError, match="rng"):
        private_mean([1.0], 0, 1, 1.0, rng=1)
    with pytest.raises(TypeError, match="accountant"):
        private_range([1.0], 1.0, 0, 10, rng=make_rng(0), accountant=None)
    with pytest.raises(TypeError, match="release"):
        naive_interval((0.5, 100))
    with pytest.raises(ValueError, match="confidence"):
        naive_interval(ProportionRelease(0.5, 100.0, 1.0), confidence=1.0)


# --- the range is charged before anything is drawn ------------------------------------------------------------

def test_private_range_charges_first_and_refuses_without_drawing():
    acct = PrivacyAccountant(1.0)
    low, high = private_range(np.arange(100.0), 0.4, 0, 150, rng=make_rng(0), accountant=acct)
    assert acct.spent == (0.4, 0.0) and len(acct.history) == 2 and 0 <= low <= high <= 150
    rng = make_rng(1)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        private_range(np.arange(100.0), 0.8, 0, 150, rng=rng, accountant=acct)
    assert rng.bit_generator.state == state and acct.spent == (0.4, 0.0)


# --- coverage by simulation, with binomial tolerances -------------------------------------------------------

def _inside(table, method, level=0.95, confidence=0.999):
    """The measured coverage is consistent with ``level``: level lies in its two-sided 99.9 % interval."""
    row = table[table["method"] == method].iloc[0]
    low, high = coverage_interval(int(row["covered"]), int(row["trials"]), confidence)
    return low <= level <= high


LAPLACE_LIMIT = 1 - math.exp(-1.959964 * math.sqrt(2))   # P(|Lap(b)| <= 1.96·sd): 0.937


@pytest.mark.parametrize("n, epsilon", [(1000, 0.1), (1000, 1.0), (10_000, 0.1)])
def test_noise_aware_and_bootstrap_cover_the_mean(adult, n, epsilon):
    """The bootstrap covers 95 %; the noise-aware normal interval lies between 95 % and the Laplace limit 93.7 %
    (when the Laplace noise dominates, a ±1.96 sd interval holds only 1 - e^(-1.96·√2) of it)."""
    table = simulate_coverage(adult[0], n, epsilon, 2000, rng=make_rng(100), lower=17.0, upper=90.0)
    assert _inside(table, "bootstrap")
    assert _inside(table, "noise-aware") or _inside(table, "noise-aware", level=LAPLACE_LIMIT)


@pytest.mark.parametrize("n, epsilon", [(1000, 0.1), (1000, 1.0), (100, 1.0)])
def test_noise_aware_and_bootstrap_cover_the_proportion(adult, n, epsilon):
    table = simulate_coverage(adult[1], n, epsilon, 2000, rng=make_rng(101))
    assert _inside(table, "noise-aware") and _inside(table, "bootstrap")


def test_the_naive_interval_undercovers_when_the_noise_matters(adult):
    table = simulate_coverage(adult[0], 1000, 0.1, 2000, rng=make_rng(102), lower=17.0, upper=90.0)
    row = table[table["method"] == "naive"].iloc[0]
    assert coverage_interval(int(row["covered"]), 2000, 0.999)[1] < 0.9


def test_clipping_bias_breaks_coverage(adult):
    """With the range [17, 50] the estimate is biased; no interval around it covers the true mean."""
    table = simulate_coverage(adult[0], 10_000, 1.0, 500, rng=make_rng(103), lower=17.0, upper=50.0)
    assert table["coverage"].max() < 0.05


def test_one_coverage_row_is_reproduced_exactly(adult):
    first = simulate_coverage(adult[1], 500, 0.5, 300, rng=make_rng(104))
    again = simulate_coverage(adult[1], 500, 0.5, 300, rng=make_rng(104))
    assert first.equals(again)


def test_intervals_are_ordered_and_finite():
    r = ProportionRelease(np.array([0.0, 0.3, 1.0]), np.array([1.0, 50.0, 1e6]), 0.5)
    for low, high in (naive_interval(r), noise_aware_interval(r), bootstrap_interval(r, rng=make_rng(0), draws=50)):
        assert np.all(np.isfinite(low)) and np.all(np.isfinite(high)) and np.all(low <= high)
    assert np.all(sampling_variance(r) >= 0)


# --- the test: size inside its binomial interval, power above a stated level ----------------------------------

NULL = np.outer([2 / 3, 1 / 3], [0.76, 0.24])
EFFECT = np.array([[2 / 3 * 0.70, 2 / 3 * 0.30], [1 / 3 * 0.82, 1 / 3 * 0.18]])


@pytest.mark.parametrize("n, epsilon", [(200, 0.1), (1000, 1.0)])
def test_private_test_has_its_nominal_size(n, epsilon):
    rates = rejection_rate(NULL, n, epsilon, 2000, rng=make_rng(200), draws=300)
    low, high = clopper_pearson(round(rates["private"] * 2000), 2000, 0.0005)
    assert low <= 0.05 <= high + 1 / 300          # the Monte Carlo p-value's own granularity (1/(draws + 1))


def test_classical_reading_of_a_noisy_table_has_the_wrong_size():
    rates = rejection_rate(NULL, 200, 0.1, 1000, rng=make_rng(201), draws=100)
    assert clopper_pearson(round(rates["classical"] * 1000), 1000, 0.0005)[0] > 0.2


def test_private_test_has_power_at_the_stated_effect():
    """Power above 0.6 at n = 1,000, ε = 0.1 and above 0.95 at ε = 1 (30 % vs 18 %)."""
    low = rejection_rate(EFFECT, 1000, 0.1, 1000, rng=make_rng(202), draws=300)["private"]
    high = rejection_rate(EFFECT, 1000, 1.0, 1000, rng=make_rng(203), draws=300)["private"]
    assert clopper_pearson(round(low * 1000), 1000, 0.0005)[0] > 0.6
    assert clopper_pearson(round(high * 1000), 1000, 0.0005)[0] > 0.95


def test_chi_square_and_classical_p_value_match_scipy():
    from scipy.stats import chi2, chi2_contingency

    table = np.array([[30.0, 70.0], [50.0, 50.0]])
    stat = chi_square_statistic(table)
    assert math.isclose(stat, chi2_contingency(table, correction=False)[0], rel_tol=1e-12)
    assert math.isclose(classical_p_value(stat), chi2.sf(stat, 1), rel_tol=1e-9)
    assert chi_square_statistic(np.zeros((2, 2))) == 0.0


def test_private_table_counts_each_record_in_one_cell():
    g = np.array([True, True, False, False, False])
    y = np.array([True, False, True, True, False])
    release = private_table(g, y, 1e9, rng=make_rng(0))
    assert np.allclose(release.table, [[1, 2], [1, 1]], atol=1e-6)
    with pytest.raises(ValueError, match="same length"):
        private_table(g, y[:3], 1.0, rng=make_rng(0))


def test_independence_test_is_vectorised_and_post_processing():
    release = table_from_counts(np.array([[[400, 100], [350, 150]], [[400, 100], [400, 100]]]), 1.0, rng=make_rng(0))
    stat, p = independence_test(release, rng=make_rng(1), draws=200)
    assert stat.shape == (2,) and p[0] < 0.01 < p[1]
