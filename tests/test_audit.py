"""The empirical auditor (dp_lib.audit) and audits of every mechanism in dp_lib.

Every audit runs at the fixed seed SEED with confidence 1 - alpha = 0.999:
a truly (ε, δ)-DP mechanism is flagged with probability at most 0.001, so a
correct mechanism passing here is not luck, and a broken one failing is
certain beyond that error rate. The audits of the correct mechanisms use the
neighbouring inputs and events that come closest to their claimed ε (see
chapters/05_auditing.ipynb). The broken mechanisms live in this file only.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dp_lib import make_rng
from dp_lib.audit import (AuditResult, ThresholdEvent, audit_table, clopper_pearson, epsilon_lower_bound,
                          repeat_mechanism, search_events)
from dp_lib.noise import sample_laplace

SEED = 2024
CONFIDENCE = 0.999
TRIALS = 200_000


def audit(mechanism, x, x_prime, claimed, *, delta=0.0, trials=TRIALS, seed=SEED):
    """Pilot-chosen threshold event, certified on a fresh batch, at the fixed seed."""
    return search_events(mechanism, x, x_prime, trials, CONFIDENCE, rng=make_rng(seed), delta=delta,
                         claimed_epsilon=claimed)


# --- the auditor itself --------------------------------------------------------------------------

def test_clopper_pearson_matches_beta_quantiles():
    low, high = clopper_pearson(np.array([0, 3, 50, 100]), 100, 0.01)
    assert low[0] == 0.0 and high[-1] == 1.0
    np.testing.assert_allclose(low[1:], stats.beta.ppf(0.01, [3, 50, 100], [98, 51, 1]), rtol=1e-10)
    np.testing.assert_allclose(high[:-1], stats.beta.ppf(0.99, [1, 4, 51], [100, 97, 50]), rtol=1e-10)


@pytest.mark.parametrize("p", [0.01, 0.2, 0.5, 0.93])
def test_clopper_pearson_bounds_are_exact_not_asymptotic(p):
    """P[lower > p] <= alpha and P[upper < p] <= alpha, computed exactly from the binomial pmf."""
    n, alpha = 40, 0.05
    k = np.arange(n + 1)
    low, high = clopper_pearson(k, n, alpha)
    pmf = stats.binom.pmf(k, n, p)
    assert pmf[low > p].sum() <= alpha + 1e-12
    assert pmf[high < p].sum() <= alpha + 1e-12


def test_the_coverage_check_catches_an_asymptotic_interval():
    """Power twin: the Wald bound p̂ + z sqrt(p̂(1-p̂)/n) fails the same exact check at p = 0.01."""
    n, alpha, p = 40, 0.05, 0.01
    k = np.arange(n + 1)
    p_hat = k / n
    wald_high = p_hat + stats.norm.ppf(1 - alpha) * np.sqrt(p_hat * (1 - p_hat) / n)
    assert stats.binom.pmf(k, n, p)[wald_high < p].sum() > alpha


def _constant(value_on_x, value_on_x_prime):
    """A deterministic 'mechanism' whose outputs are fixed 0/1 patterns: the counts are known."""
    def mechanism(data, size, rng):
        share = value_on_x if data == "x" else value_on_x_prime
        return (np.arange(size) < share * size).astype(float)
    return mechanism


def test_bound_by_hand_both_orders_and_union_bound():
    n, conf = 1000, 0.95
    res = epsilon_lower_bound(_constant(0.3, 0.6), "x", "x'", ThresholdEvent(0.5), n, conf, rng=make_rng(0),
                              claimed_epsilon=0.1)
    a = (1 - conf) / 4
    low1 = stats.beta.ppf(a, 600, 401)
    high0 = stats.beta.ppf(1 - a, 301, 700)
    assert (res.count, res.count_prime) == (300, 600)
    assert res.frequency == 0.3 and res.frequency_prime == 0.6
    assert res.epsilon_lb == pytest.approx(math.log(low1 / high0), rel=1e-9)
    assert res.larger == "x_prime" and res.flagged is True and res.exceeds(0.1) and not res.exceeds(1.0)
    swapped = epsilon_lower_bound(_constant(0.3, 0.6), "x'", "x", ThresholdEvent(0.5), n, conf, rng=make_rng(0))
    assert swapped.epsilon_lb == pytest.approx(res.epsilon_lb) and swapped.larger == "x"
    assert swapped.flagged is None


def test_delta_is_subtracted_from_the_larger_probability():
    pure = epsilon_lower_bound(_constant(0.3, 0.6), "x", "x'", ThresholdEvent(0.5), 1000, rng=make_rng(0))
    approx = epsilon_lower_bound(_constant(0.3, 0.6), "x", "x'", ThresholdEvent(0.5), 1000, rng=make_rng(0),
                                 delta=0.1)
    low1, high0 = pure.interval_prime[0], pure.interval[1]
    assert approx.epsilon_lb == pytest.approx(math.log((low1 - 0.1) / high0))
    assert approx.epsilon_lb < pure.epsilon_lb


def test_bound_is_floored_at_zero_when_nothing_separates():
    res = epsilon_lower_bound(_constant(0.0, 0.0), "x", "x'", ThresholdEvent(0.5), 1000, rng=make_rng(0))
    assert res.epsilon_lb == 0.0 and res.count == res.count_prime == 0


def laplace_count(epsilon, scale_factor=1.0):
    """count(data) + Lap(scale_factor / epsilon): correct for scale_factor = 1."""
    def mechanism(data, size, rng):
        return len(data) + sample_laplace(scale_factor / epsilon, size=size, rng=rng)
    return mechanism


def test_false_alarm_rate_is_at_most_alpha_over_many_seeds():
    """A correct Laplace count audited with its best event, 60 seeds at alpha = 0.05: few flags."""
    flags = [search_events(laplace_count(1.0), [0] * 10, [0] * 11, 20_000, 0.95, rng=make_rng(seed),
                           claimed_epsilon=1.0).flagged for seed in range(60)]
    assert sum(flags) <= 9  # Binomial(60, 0.05) exceeds 9 with probability < 0.002


def test_search_never_reuses_the_pilot_batch():
    mech = laplace_count(1.0)
    res = search_events(mech, [0] * 10, [0] * 11, 40_000, rng=make_rng(5), pilot_trials=10_000)
    rng = make_rng(5)
    mech([0] * 10, size=10_000, rng=rng), mech([0] * 11, size=10_000, rng=rng)  # the pilot
    fresh = epsilon_lower_bound(mech, [0] * 10, [0] * 11, res.event, 40_000, rng=rng)
    assert fresh == res


def test_search_is_deterministic_for_a_fixed_seed():
    assert audit(laplace_count(1.0), [0] * 10, [0] * 11, 1.0, trials=50_000) == \
        audit(laplace_count(1.0), [0] * 10, [0] * 11, 1.0, trials=50_000)


def test_search_finds_the_separating_value_of_discrete_outputs():
    def coin(data, size, rng):
        return rng.random(size) < (0.75 if data else 0.25)
    res = audit(coin, True, False, math.log(3))
    assert res.event in (ThresholdEvent(0.5, above=True), ThresholdEvent(0.5, above=False))


def test_repeat_mechanism_matches_a_vectorized_run():
    single = repeat_mechanism(lambda data, rng: len(data) + sample_laplace(1.0, rng=rng))
    np.testing.assert_array_equal(single([0, 0], size=500, rng=make_rng(3)),
                                  laplace_count(1.0)([0, 0], size=500, rng=make_rng(3)))


def test_audit_table_reports_verdicts():
    bad = audit(laplace_count(1.0, 0.5), [0] * 10, [0] * 11, 1.0, trials=50_000)
    good = audit(laplace_count(1.0), [0] * 10, [0] * 11, 1.0, trials=50_000)
    table = audit_table({"broken": bad, "correct": good})
    assert table.loc["broken", "verdict"] == "refuted" and table.loc["correct", "verdict"] == "not refuted"
    assert table.loc["broken", "certified lower bound"] == bad.epsilon_lb
    assert isinstance(table, pd.DataFrame) and table.index.name == "mechanism"


@pytest.mark.parametrize("kwargs, name, error", [
    ({"trials": 0}, "trials", ValueError), ({"trials": 2.5}, "trials", TypeError),
    ({"confidence": 1.0}, "confidence", ValueError), ({"confidence": np.nan}, "confidence", ValueError),
    ({"delta": 1.0}, "delta", ValueError), ({"delta": -0.1}, "delta", ValueError),
    ({"claimed_epsilon": 0.0}, "claimed_epsilon", ValueError),
    ({"claimed_epsilon": np.inf}, "claimed_epsilon", ValueError),
    ({"rng": 2024}, "rng", TypeError), ({"rng": None}, "rng", TypeError), ({"trials": "100"}, "trials", TypeError),
])
def test_epsilon_lower_bound_rejects_bad_arguments(kwargs, name, error):
    args = {"trials": 100, "confidence": 0.95, "rng": make_rng(0), "delta": 0.0, "claimed_epsilon": None}
    args.update(kwargs)
    with pytest.raises(error, match=name):
        epsilon_lower_bound(laplace_count(1.0), [0], [0, 0], ThresholdEvent(0.0), args.pop("trials"),
                            args.pop("confidence"), **args)


def test_bad_mechanisms_and_events_are_refused():
    with pytest.raises(TypeError, match="mechanism"):
        epsilon_lower_bound("laplace", [0], [0, 0], ThresholdEvent(0.0), 10, rng=make_rng(0))
    with pytest.raises(ValueError, match="mechanism"):  # one output instead of `trials`
        epsilon_lower_bound(lambda d, size, rng: 1.0, [0], [0, 0], ThresholdEvent(0.0), 10, rng=make_rng(0))
    with pytest.raises(TypeError, match="event"):
        epsilon_lower_bound(laplace_count(1.0), [0], [0, 0], "y > 0", 10, rng=make_rng(0))
    with pytest.raises(ValueError, match="event"):  # counts instead of booleans
        epsilon_lower_bound(laplace_count(1.0), [0], [0, 0], lambda y: (y > 0).astype(int), 10, rng=make_rng(0))
    with pytest.raises(ValueError, match="mechanism"):  # search_events needs one number per run
        search_events(lambda d, size, rng: np.zeros((size, 2)), [0], [0, 0], 10, rng=make_rng(0))
    with pytest.raises(ValueError, match="pilot_trials"):
        search_events(laplace_count(1.0), [0], [0, 0], 10, rng=make_rng(0), pilot_trials=0)
    with pytest.raises(TypeError, match="single_run"):
        repeat_mechanism(None)
    with pytest.raises(ValueError, match="results"):
        audit_table({})
    with pytest.raises(TypeError, match="results"):
        audit_table([1])
    with pytest.raises(ValueError, match="count"):
        clopper_pearson(11, 10, 0.05)
    with pytest.raises(ValueError, match="alpha"):
        clopper_pearson(1, 10, 0.0)


def test_result_is_frozen():
    res = epsilon_lower_bound(_constant(0.3, 0.6), "x", "x'", ThresholdEvent(0.5), 100, rng=make_rng(0))
    assert isinstance(res, AuditResult)
    with pytest.raises(AttributeError):
        res.epsilon_lb = 0.0


# --- every correct mechanism in dp_lib passes ------------------------------------------------------
# Each case: name -> (mechanism, x, x_prime, claimed ε, δ). Selection mechanisms take the score vector as
# their input: two score vectors at L-inf distance Δ = 1 are what two neighbouring data sets can produce.

from dp_lib import (PrivacyAccountant, exponential_mech, gaussian_mech, gs_mean, krr_perturb,  # noqa: E402
                    krr_perturb_counts, laplace_mech, noisy_gradient_descent, oue_params, parallel_epsilon, parallel_histogram,
                    permute_and_flip, ptr_mean, randomized_response, report_noisy_max, rr_epsilon,
                    sample_and_aggregate, sequential_epsilon, smooth_mean, sue_params, unary_encode,
                    unary_epsilon, unary_perturb, unary_perturb_counts)

N_CANDIDATES = 20
CANDIDATES = np.arange(N_CANDIDATES)
FLAT = np.zeros(N_CANDIDATES)  # every score 0 ...
TILTED = np.r_[1.0, -np.ones(N_CANDIDATES - 1)]  # ... vs one up, all others down: not monotone
BUMPED = np.r_[1.0, np.zeros(N_CANDIDATES - 1)]  # one count up by 1 (add a record): monotone


def _selection(select, **kwargs):
    def mechanism(scores, size, rng):
        return select(CANDIDATES, scores, 1.0, 1.0, rng=rng, size=size, **kwargs)
    return mechanism


def _laplace_count(data, size, rng):
    return laplace_mech(np.full(size, float(len(data))), 1.0, 1.0, rng=rng)


def _gaussian(epsilon, calibration):
    def mechanism(data, size, rng):
        return gaussian_mech(np.full(size, float(len(data))), 1.0, epsilon, 1e-5, rng=rng, calibration=calibration)
    return mechanism


def _accountant_laplace(data, size, rng):
    acct = PrivacyAccountant(1.0)
    return acct.laplace_mech(np.full(size, float(len(data))), 1.0, 1.0, rng=rng, label="count")


def _two_laplace_releases(data, size, rng):
    """Two counts released at ε = 0.5 and 0.25; post-processed to 0.5 y1 + 0.25 y2 for the audit."""
    y1 = laplace_mech(np.full(size, float(len(data))), 1.0, 0.5, rng=rng)
    y2 = laplace_mech(np.full(size, float(len(data))), 1.0, 0.25, rng=rng)
    return 0.5 * y1 + 0.25 * y2


def _histogram_counts(df):
    return df["colour"].value_counts().reindex(["red", "blue"], fill_value=0).to_numpy(float)


def _histogram(df, size, rng):
    """parallel_histogram's release, vectorized over runs (see test_parallel_histogram_is_laplace_per_bin)."""
    return laplace_mech(np.tile(_histogram_counts(df), (size, 1)), 1.0, 1.0, rng=rng)[:, 0]


def _histogram_difference(df, size, rng):
    """parallel_histogram's release, post-processed to red - blue (the statistic for replace-one)."""
    noisy = laplace_mech(np.tile(_histogram_counts(df), (size, 1)), 1.0, 1.0, rng=rng)
    return noisy[:, 0] - noisy[:, 1]


def _rr(data, size, rng):
    return randomized_response(np.full(size, data), 0.75, rng=rng)


def _krr(data, size, rng):
    return krr_perturb(np.full(size, data), range(4), 1.0, rng=rng)


def _krr_counts(counts, size, rng):
    return krr_perturb_counts(counts, 1.0, rng=rng, size=size)[:, 0]


def _unary(params):
    def mechanism(value, size, rng):
        bits = unary_perturb(unary_encode(np.full(size, value), range(4)), *params, rng=rng)
        return bits[:, 0].astype(int) - bits[:, 1]  # the likelihood-ratio statistic: post-processing
    return mechanism


def _unary_counts(counts, size, rng):
    totals = unary_perturb_counts(counts, *sue_params(1.0), rng=rng, size=size)
    return totals[:, 0] - totals[:, 1]


def _gs_mean(values, size, rng):
    return gs_mean(values, 100, 1.0, rng=rng, size=size)


def _ptr(values, size, rng):
    out = ptr_mean(values, 100, 5.0, 1.0, 1e-3, rng=rng, size=size)
    return np.where(np.isnan(out), -1e6, out)  # ⊥ -> a number below every release: post-processing


def _smooth(noise, delta):
    def mechanism(values, size, rng):
        return smooth_mean(values, 100, 1.0, delta, rng=rng, noise=noise, size=size)
    return mechanism


def _saa(values, size, rng):
    return sample_and_aggregate(values, np.mean, 10, 0, 100, 1.0, rng=rng, size=size)


def _df(*colours):
    return pd.DataFrame({"colour": list(colours)})


COUNT, COUNT_PLUS_ONE = [0] * 10, [0] * 11
AGES = [0.0] * 200  # mean of values in [0, 100]; the neighbour adds one record at the top of the range
CORRECT = {
    "laplace_mech": (_laplace_count, COUNT, COUNT_PLUS_ONE, 1.0, 0.0),
    "gaussian_mech (analytic)": (_gaussian(1.0, "analytic"), COUNT, COUNT_PLUS_ONE, 1.0, 1e-5),
    "gaussian_mech (classic)": (_gaussian(0.5, "classic"), COUNT, COUNT_PLUS_ONE, 0.5, 1e-5),
    "PrivacyAccountant.laplace_mech": (_accountant_laplace, COUNT, COUNT_PLUS_ONE, 1.0, 0.0),
    "sequential composition (0.5 + 0.25)": (_two_laplace_releases, COUNT, COUNT_PLUS_ONE,
                                            sequential_epsilon([0.5, 0.25]), 0.0),
    "parallel_histogram": (_histogram, _df(*["red"] * 5, "blue"), _df(*["red"] * 6, "blue"),
                           parallel_epsilon([1.0, 1.0]), 0.0),
    "parallel_histogram (replace-one, 2ε)": (_histogram_difference, _df(*["red"] * 5, "blue"),
                                             _df(*["red"] * 4, "blue", "blue"), 2 * 1.0, 0.0),
    "exponential_mech": (_selection(exponential_mech), FLAT, TILTED, 1.0, 0.0),
    "exponential_mech (monotone)": (_selection(exponential_mech, monotone=True), FLAT, BUMPED, 1.0, 0.0),
    "report_noisy_max (laplace)": (_selection(report_noisy_max, noise="laplace"), FLAT, TILTED, 1.0, 0.0),
    "report_noisy_max (gumbel)": (_selection(report_noisy_max, noise="gumbel"), FLAT, TILTED, 1.0, 0.0),
    "report_noisy_max (exponential)": (_selection(report_noisy_max, noise="exponential"), FLAT, TILTED, 1.0, 0.0),
    "report_noisy_max (laplace, monotone)": (_selection(report_noisy_max, noise="laplace", monotone=True),
                                             FLAT, BUMPED, 1.0, 0.0),
    "permute_and_flip": (_selection(permute_and_flip), FLAT, TILTED, 1.0, 0.0),
    "permute_and_flip (monotone)": (_selection(permute_and_flip, monotone=True), FLAT, BUMPED, 1.0, 0.0),
    "randomized_response (p = 3/4)": (_rr, True, False, rr_epsilon(0.75), 0.0),
    "krr_perturb (k = 4)": (_krr, 0, 1, 1.0, 0.0),
    "krr_perturb_counts (k = 4)": (_krr_counts, [1, 0, 0, 0], [0, 1, 0, 0], 1.0, 0.0),
    "unary_perturb (SUE)": (_unary(sue_params(1.0)), 0, 1, unary_epsilon(*sue_params(1.0)), 0.0),
    "unary_perturb (OUE)": (_unary(oue_params(1.0)), 0, 1, unary_epsilon(*oue_params(1.0)), 0.0),
    "unary_perturb_counts (SUE)": (_unary_counts, [1, 0, 0, 0], [0, 1, 0, 0], 1.0, 0.0),
    "gs_mean": (_gs_mean, AGES[:10], AGES[:10] + [100.0], 1.0, 0.0),
    "ptr_mean (total 2ε, δ)": (_ptr, AGES[:25], AGES[:25] + [100.0], 2.0, 1e-3),
    "smooth_mean (laplace, ε, δ)": (_smooth("laplace", 1e-6), AGES, AGES + [100.0], 1.0, 1e-6),
    "smooth_mean (cauchy)": (_smooth("cauchy", 0.0), AGES, AGES + [100.0], 1.0, 0.0),
    "sample_and_aggregate": (_saa, [40.0] * 200, [40.0] * 200 + [10_000.0], 1.0, 0.0),
}


# noisy_gradient_descent has no size argument: one training run per call, through repeat_mechanism (a loop),
# so this audit uses fewer runs. One step, Laplace noise, public n: θ₁ = -η (Σ clip(gᵢ) + noise) / n.
# D: ten rows x = 4, y = 0 (each gradient 2, clipped to C = 1); D' adds x = 4, y = 1 (clipped gradient -1).
GD_D = (np.full((10, 1), 4.0), np.zeros(10))
GD_D_PRIME = (np.full((11, 1), 4.0), np.r_[np.zeros(10), 1.0])
GD_TRIALS = 2_000


def _one_gd_step(data, rng, noise="laplace", delta=0.0):
    theta, _ = noisy_gradient_descent(*data, 1.0, delta, 1, 1.0, rng=rng, noise=noise, public_n=10,
                                      learning_rate=1.0)
    return theta[0]


def _one_gaussian_gd_step(data, rng):
    return _one_gd_step(data, rng, noise="gaussian", delta=1e-5)


# Laplace: the audit has power (bound > 0.3). Gaussian at (1, 1e-5): σ = 3.73 C, so 2,000 runs certify nothing
# (bound 0); it only shows that the mechanism runs under the auditor and is not flagged.
@pytest.mark.parametrize("step, delta, min_bound", [(_one_gd_step, 0.0, 0.3), (_one_gaussian_gd_step, 1e-5, -1.0)],
                         ids=["laplace", "gaussian"])
def test_noisy_gradient_descent_passes_its_audit(step, delta, min_bound):
    result = audit(repeat_mechanism(step), GD_D, GD_D_PRIME, 1.0, delta=delta, trials=GD_TRIALS)
    assert not result.flagged and result.epsilon_lb > min_bound


@pytest.mark.parametrize("name", list(CORRECT))
def test_correct_mechanism_passes_its_audit(name):
    mechanism, x, x_prime, claimed, delta = CORRECT[name]
    result = audit(mechanism, x, x_prime, claimed, delta=delta)
    assert not result.flagged, f"{name}: certified {result.epsilon_lb:.3f} > claimed {claimed:.3f}"


@pytest.mark.parametrize("name", ["laplace_mech", "exponential_mech", "randomized_response (p = 3/4)",
                                  "krr_perturb (k = 4)", "unary_perturb (OUE)", "permute_and_flip"])
def test_tight_audits_come_close_to_the_claim(name):
    """Power: where the inputs and event are worst-case, the bound is near the exact privacy loss."""
    mechanism, x, x_prime, claimed, delta = CORRECT[name]
    exact = {"exponential_mech": math.log(N_CANDIDATES * math.e / (math.e + N_CANDIDATES - 1)),
             "permute_and_flip": None}.get(name, claimed)
    result = audit(mechanism, x, x_prime, claimed, delta=delta)
    if exact is None:  # PF: P[0 | flat] = 1/20; P[0 | tilted] from the exact formula
        from dp_lib import permute_and_flip_probabilities
        exact = math.log(permute_and_flip_probabilities(TILTED, 1.0, 1.0)[0] * N_CANDIDATES)
    assert exact - 0.15 < result.epsilon_lb <= exact


def test_parallel_histogram_is_laplace_per_bin():
    """The vectorized stand-in audited above is parallel_histogram, draw for draw."""
    df = _df("red", "red", "blue")
    released = parallel_histogram(df, "colour", 1.0, rng=make_rng(9), domain=["red", "blue"])
    np.testing.assert_array_equal(released.to_numpy(), laplace_mech(_histogram_counts(df), 1.0, 1.0,
                                                                      rng=make_rng(9)))


# --- deliberately broken mechanisms (here only, never in dp_lib) are caught --------------------------

def _laplace_half_scale(data, size, rng):
    """BUG: Lap(Δ/(2ε)) instead of Lap(Δ/ε) for a count at ε = 1: really 2ε-DP."""
    return len(data) + sample_laplace(1.0 / (2 * 1.0), size=size, rng=rng)


def _mean_with_local_sensitivity(data, size, rng):
    """BUG: mean of values in [0, 1] + Lap(LS/ε) with the data-dependent LS = 1/(|D| + 1), ε = 1."""
    local_sensitivity = 1.0 / (len(data) + 1)
    return np.mean(data) + sample_laplace(local_sensitivity / 1.0, size=size, rng=rng)


def _rr_with_p(p):
    """BUG when claimed ln 3: truthful with probability p, so really ln(p / (1 - p))-DP."""
    def mechanism(truth, size, rng):
        return np.where(rng.random(size) < p, truth, not truth)
    return mechanism


def _em_without_the_half(scores, size, rng):
    """BUG: exp(ε u / Δ) instead of exp(ε u / (2Δ)) on non-monotone scores, ε = Δ = 1."""
    weights = np.exp(1.0 * (scores - scores.max()) / 1.0)
    return rng.choice(scores.size, size=size, p=weights / weights.sum())


def _rnm_monotone_scale_on_tilted_scores(scores, size, rng):
    """BUG: report noisy max with Lap(Δ/ε) (valid for monotone counts only) on non-monotone scores."""
    noisy = scores + sample_laplace(1.0 / 1.0, size=(size, scores.size), rng=rng)
    return np.argmax(noisy, axis=1)


def _saa_without_clipping(values, size, rng):
    """BUG: sample-and-aggregate (k = 10 hash chunks, range [0, 100], ε = 1) that forgets to clip."""
    from dp_lib import hash_chunks
    values = np.asarray(values, float)
    labels = hash_chunks(np.arange(values.size), 10)
    answers = np.bincount(labels, weights=values, minlength=10) / np.bincount(labels, minlength=10)
    return answers.mean() + sample_laplace(100 / (10 * 1.0), size=size, rng=rng)


def _gd_step_without_clipping(data, size, rng):
    """BUG: one noisy gradient step (Laplace noise for C = 1, ε = 1, public n = 10) that never clips."""
    X, y = data
    gradient_sum = float(((0.5 - y)[:, None] * X).sum())  # θ = 0: residual σ(0) - y = 0.5 - y
    return -(gradient_sum + sample_laplace(1.0 / 1.0, size=size, rng=rng)) / 10


BROKEN = {
    "Laplace at scale Δ/(2ε)": (_laplace_half_scale, COUNT, COUNT_PLUS_ONE, 1.0, 0.0),
    "Laplace calibrated to local sensitivity": (_mean_with_local_sensitivity, [0.0, 0.0], [0.0, 0.0, 1.0],
                                                1.0, 0.0),
    "randomized response p = 0.8, claimed ln 3": (_rr_with_p(0.8), True, False, math.log(3), 0.0),
    "randomized response p = 0.9, claimed ln 3": (_rr_with_p(0.9), True, False, math.log(3), 0.0),
    "exponential mechanism with ε/Δ on non-monotone scores": (_em_without_the_half, FLAT, TILTED, 1.0, 0.0),
    "report noisy max with Lap(Δ/ε) on non-monotone scores": (_rnm_monotone_scale_on_tilted_scores,
                                                              FLAT, TILTED, 1.0, 0.0),
    "sample-and-aggregate without clipping": (_saa_without_clipping, [40.0] * 200, [40.0] * 200 + [10_000.0],
                                              1.0, 0.0),
    "parallel_histogram claimed ε under replace-one": (_histogram_difference, _df(*["red"] * 5, "blue"),
                                                       _df(*["red"] * 4, "blue", "blue"), 1.0, 0.0),
    "noisy gradient descent without clipping": (_gd_step_without_clipping, GD_D, GD_D_PRIME, 1.0, 0.0),
    "ptr_mean claimed (ε, δ) instead of (2ε, δ)": (_ptr, AGES[:25], AGES[:25] + [100.0], 1.0, 1e-3),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_mechanism_is_caught(name):
    mechanism, x, x_prime, claimed, delta = BROKEN[name]
    result = audit(mechanism, x, x_prime, claimed, delta=delta)
    assert result.flagged and result.epsilon_lb > claimed, \
        f"{name}: certified {result.epsilon_lb:.3f} does not exceed claimed {claimed:.3f}"


# --- the appendix's slider figure ------------------------------------------------------------------

def test_figure_bounds_track_the_true_epsilon():
    from dp_lib.plotting.audit import laplace_audit_bounds
    grid = np.array([0.5, 1.0, 2.0, 3.0])
    correct = laplace_audit_bounds(grid)
    buggy = laplace_audit_bounds(grid, scale_factor=0.5)
    assert np.all(correct <= grid) and np.all(correct > grid - 0.15)
    assert np.all(buggy > grid) and np.all(buggy <= 2 * grid)


def test_slider_figure_defaults_and_invalid_epsilon():
    from matplotlib.figure import Figure

    from dp_lib.plotting import plot_audit_laplace
    assert isinstance(plot_audit_laplace(), Figure)
    with pytest.raises(ValueError, match="epsilon"):  # the slider shows this message (dp_lib.widgets)
        plot_audit_laplace(epsilon=0.0)
