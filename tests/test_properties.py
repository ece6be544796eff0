"""Property-based tests (Hypothesis) over the public functions of dp_lib.

Two properties, each checked on ~50 generated examples per function:
valid random inputs never give NaN or inf, and invalid inputs (ε of 0, negative,
NaN or inf; probabilities outside [0, 1]; empty inputs; mismatched lengths)
always raise ValueError naming the offending parameter. ``derandomize=True``
makes every run generate the same examples, so a failure is reproducible.
"""

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dp_lib as dp
from dp_lib import make_rng

FAST = settings(max_examples=50, deadline=None, derandomize=True, database=None)
# the per-function sweeps below run once for each of ~30 functions: fewer examples each keeps the file fast
SWEEP = settings(FAST, max_examples=25)
FEW = settings(FAST, max_examples=12)  # the invalid values form a small set (0, -0, < 0, -inf, NaN, inf)

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
positive = st.floats(1e-3, 1e3)
epsilons = st.floats(1e-3, 50.0)
small_epsilons = st.floats(1e-3, 0.999)  # the classic Gaussian calibration is proved for ε < 1 only
deltas = st.floats(1e-12, 0.5)
values_in_range = st.lists(st.floats(0.0, 100.0), min_size=2, max_size=40)
scores = st.lists(finite, min_size=1, max_size=8)
bad_epsilons = st.one_of(st.floats(max_value=0.0), st.just(math.nan), st.just(math.inf))  # includes 0, -0, -inf
bad_probabilities = st.one_of(st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0, exclude_min=True),
                              st.just(math.nan))
bad_deltas = st.one_of(st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0), st.just(math.nan))


def all_finite(out) -> bool:
    """True when every number in ``out`` (float, array, tuple, Series, DataFrame) is finite."""
    if isinstance(out, (pd.Series, pd.DataFrame)):
        out = out.to_numpy(dtype=float)
    if isinstance(out, tuple):
        return all(all_finite(o) for o in out)
    return bool(np.all(np.isfinite(np.asarray(out, dtype=float))))


def raises_naming(name):
    return pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b")


def _coin(data, size, rng):
    return rng.random(size) < data


def _at_most(epsilon, limit):
    """Valid ε above ``limit`` is lowered to it; invalid ε is passed on unchanged, to be refused."""
    return min(epsilon, limit) if 0 < epsilon < math.inf else epsilon


_X, _Y = np.array([[1.0, 0.5], [1.0, -2.0], [1.0, 3.0]]), np.array([1.0, 0.0, 1.0])


# Every public function with an ε parameter, called with otherwise valid arguments.
EPSILON_FUNCTIONS = {
    "laplace_scale": lambda e, rng: dp.laplace_scale(1.0, e),
    "laplace_mech": lambda e, rng: dp.laplace_mech([1.0, 2.0], 1.0, e, rng=rng),
    "gaussian_sigma": lambda e, rng: dp.gaussian_sigma(1.0, _at_most(e, 0.999), 1e-5),
    "analytic_gaussian_sigma": lambda e, rng: dp.analytic_gaussian_sigma(1.0, e, 1e-5),
    "gaussian_delta": lambda e, rng: dp.gaussian_delta(2.0, 1.0, e),
    "gaussian_mech": lambda e, rng: dp.gaussian_mech([1.0, 2.0], 1.0, e, 1e-5, rng=rng),
    "advanced_composition": lambda e, rng: dp.advanced_composition(_at_most(e, 700.0), 0.0, 10, 1e-5),
    "PrivacyAccountant.laplace_mech": lambda e, rng: dp.PrivacyAccountant(1e6).laplace_mech(3.0, 1.0, e, rng=rng),
    "parallel_histogram": lambda e, rng: dp.parallel_histogram(pd.DataFrame({"c": ["a", "b", "a"]}), "c", e,
                                                               rng=rng, domain=["a", "b"]),
    "exponential_probabilities": lambda e, rng: dp.exponential_probabilities([3.0, 1.0], 1.0, e),
    "exponential_mech": lambda e, rng: dp.exponential_probabilities([3.0, 1.0], 1.0, e)
    + dp.exponential_mech([0, 1], [3.0, 1.0], 1.0, e, rng=rng),
    "exponential_error_bound": lambda e, rng: dp.exponential_error_bound(10, 1.0, e, 2.0),
    "noisy_max_scale": lambda e, rng: dp.noisy_max_scale(1.0, e),
    "report_noisy_max": lambda e, rng: dp.report_noisy_max([0, 1], [3.0, 1.0], 1.0, e, rng=rng),
    "permute_and_flip": lambda e, rng: dp.permute_and_flip([0, 1], [3.0, 1.0], 1.0, e, rng=rng),
    "permute_and_flip_probabilities": lambda e, rng: dp.permute_and_flip_probabilities([3.0, 1.0], 1.0, e),
    "krr_params": lambda e, rng: dp.krr_params(e, 4),
    "krr_perturb": lambda e, rng: dp.krr_perturb([0, 1, 2], range(4), e, rng=rng),
    "krr_perturb_counts": lambda e, rng: dp.krr_perturb_counts([5, 3, 0], e, rng=rng),
    "krr_estimate": lambda e, rng: dp.krr_estimate([0, 1, 1], range(3), e),
    "krr_variance": lambda e, rng: dp.krr_variance(100, 4, e),
    "sue_params": lambda e, rng: dp.sue_params(e),
    "oue_params": lambda e, rng: dp.oue_params(e),
    "ptr_threshold": lambda e, rng: dp.ptr_threshold(e, 1e-6),
    "ptr_bottom_probability": lambda e, rng: dp.ptr_bottom_probability(3.0, e, 1e-6),
    "gs_mean": lambda e, rng: dp.gs_mean([30.0, 40.0, 50.0], 100, e, rng=rng),
    "ptr_mean": lambda e, rng: dp.ptr_mean([30.0] * 50, 100, 5.0, e, 1e-3, rng=rng, size=3),
    "smooth_beta": lambda e, rng: dp.smooth_beta(e, 1e-6),
    "smooth_sensitivity_mean": lambda e, rng: dp.smooth_sensitivity_mean(50, 100, e, 1e-6),
    "smooth_mean": lambda e, rng: dp.smooth_mean([30.0, 40.0, 50.0], 100, e, 1e-6, rng=rng),
    "sample_and_aggregate": lambda e, rng: dp.sample_and_aggregate([30.0, 40.0, 50.0, 60.0], "mean", 2, 0, 100, e,
                                                                   rng=rng),
    "iteration_budget": lambda e, rng: dp.iteration_budget(e, 1e-5, 10, composition="advanced")[:3],
    "noisy_gradient_descent": lambda e, rng: dp.noisy_gradient_descent(_X, _Y, e, 1e-5, 3, 1.0, rng=rng)[0],
    "epsilon_lower_bound": lambda e, rng: dp.epsilon_lower_bound(_coin, 0.6, 0.4, lambda y: y, 200, rng=rng,
                                                                 claimed_epsilon=e).epsilon_lb,
}
# names of the ε parameter where it is not "epsilon"
EPSILON_NAMES = {"epsilon_lower_bound": "claimed_epsilon"}


@pytest.mark.parametrize("name", list(EPSILON_FUNCTIONS))
@SWEEP
@given(epsilon=epsilons, seed=st.integers(0, 2**32 - 1))
def test_valid_epsilon_gives_finite_output(name, epsilon, seed):
    out = EPSILON_FUNCTIONS[name](epsilon, make_rng(seed))
    if name == "ptr_mean":  # NaN marks ⊥ in ptr_mean's array output; every release is finite
        out = out[~np.isnan(out)]
    assert all_finite(out), f"{name}(epsilon={epsilon!r}) -> {out!r}"


@pytest.mark.parametrize("name", list(EPSILON_FUNCTIONS))
@FEW
@given(epsilon=bad_epsilons)
def test_invalid_epsilon_raises_naming_it(name, epsilon):
    with raises_naming(EPSILON_NAMES.get(name, "epsilon")):
        EPSILON_FUNCTIONS[name](epsilon, make_rng(0))


# --- mechanisms on random valid data ----------------------------------------------------------------

@FAST
@given(value=st.lists(finite, min_size=1, max_size=10), sensitivity=positive, epsilon=epsilons, delta=deltas,
       seed=st.integers(0, 2**32 - 1))
def test_laplace_and_gaussian_mechanisms_are_finite(value, sensitivity, epsilon, delta, seed):
    rng = make_rng(seed)
    assert all_finite(dp.laplace_mech(value, sensitivity, epsilon, rng=rng))
    assert all_finite(dp.gaussian_mech(value, sensitivity, epsilon, delta, rng=rng))
    assert all_finite(dp.sample_laplace(sensitivity, size=5, loc=value[0], rng=rng))


@FAST
@given(sensitivity=positive, epsilon=small_epsilons, delta=deltas)
def test_gaussian_calibrations_are_finite_and_ordered(sensitivity, epsilon, delta):
    classic = dp.gaussian_sigma(sensitivity, epsilon, delta)
    tight = dp.analytic_gaussian_sigma(sensitivity, epsilon, delta)
    assert all_finite((classic, tight)) and 0 < tight <= classic * (1 + 1e-9)


@FAST
@given(x=st.lists(finite, min_size=1, max_size=10), loc=finite, scale=positive, u=st.floats(0.0, 1.0,
                                                                                          exclude_min=True,
                                                                                          exclude_max=True))
def test_laplace_formulas_are_finite(x, loc, scale, u):
    assert all_finite(dp.laplace_pdf(x, loc, scale))
    cdf = dp.laplace_cdf(x, loc, scale)
    assert all_finite(cdf) and np.all((0 <= cdf) & (cdf <= 1))
    assert all_finite(dp.laplace_inverse_cdf(u, loc, scale))


@FAST
@given(u=scores, sensitivity=positive, epsilon=epsilons, monotone=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_selection_probabilities_and_draws_are_valid(u, sensitivity, epsilon, monotone, seed):
    rng = make_rng(seed)
    cands = list(range(len(u)))
    for probs in (dp.exponential_probabilities(u, sensitivity, epsilon, monotone),
                  dp.permute_and_flip_probabilities(u, sensitivity, epsilon, monotone)):
        assert all_finite(probs) and np.all(probs >= 0) and math.isclose(probs.sum(), 1.0, rel_tol=1e-9)
    for draw in (dp.exponential_mech(cands, u, sensitivity, epsilon, rng=rng, monotone=monotone, size=5),
                 dp.report_noisy_max(cands, u, sensitivity, epsilon, rng=rng, monotone=monotone, size=5,
                                     noise="gumbel"),
                 dp.permute_and_flip(cands, u, sensitivity, epsilon, rng=rng, monotone=monotone, size=5)):
        assert set(draw.tolist()) <= set(cands)


@FAST
@given(eps_list=st.lists(st.floats(0.0, 100.0), max_size=10), epsilon=st.floats(1e-3, 700.0),
       k=st.integers(1, 10**6), delta_prime=st.floats(1e-12, 0.999))
def test_composition_rules_are_finite(eps_list, epsilon, k, delta_prime):
    assert all_finite((dp.sequential_epsilon(eps_list), dp.parallel_epsilon(eps_list)))
    try:
        total = dp.advanced_composition(epsilon, 0.0, k, delta_prime)
    except ValueError as err:  # a total beyond float64 is refused, naming the parameters (issue 14)
        assert "k" in str(err) and "epsilon" in str(err)
    else:
        assert all_finite(total)


@FAST
@given(p=st.floats(0.5, 1.0, exclude_min=True, exclude_max=True), epsilon=epsilons, k=st.integers(2, 30),
       n=st.integers(1, 10**6), seed=st.integers(0, 2**32 - 1))
def test_local_protocols_are_finite(p, epsilon, k, n, seed):
    rng = make_rng(seed)
    if p < 1.0:  # floats just below 1 are fine; exactly 1 is refused
        assert all_finite((dp.rr_epsilon(p), dp.rr_variance(n, p)))
        assert dp.randomized_response([True, False], p, rng=rng).dtype == bool
    for pq in (dp.krr_params(epsilon, k), dp.sue_params(epsilon), dp.oue_params(epsilon)):
        assert all_finite(pq)
        if pq[0] > pq[1] > 0 and pq[0] < 1:
            assert all_finite((dp.unary_variance(n, *pq), dp.debias_counts([3, 7], 10, *pq)))
    assert all_finite(dp.krr_variance(n, k, epsilon))
    assert all_finite(dp.krr_perturb_counts([3] * k, epsilon, rng=rng))


@FAST
@given(values=values_in_range, epsilon=epsilons, bound=positive, delta=st.floats(1e-9, 0.1),
       k=st.integers(1, 2), seed=st.integers(0, 2**32 - 1))
def test_sensitivity_mechanisms_are_finite(values, epsilon, bound, delta, k, seed):
    rng = make_rng(seed)
    assert all_finite(dp.mean_local_sensitivity_at(values, 100))
    assert all_finite(dp.gs_mean(values, 100, epsilon, rng=rng))
    released = dp.ptr_mean(values, 100, bound, epsilon, delta, rng=rng)
    assert released is None or all_finite(released)
    assert all_finite(dp.smooth_mean(values, 100, epsilon, delta, rng=rng))
    assert all_finite(dp.smooth_mean(values, 100, epsilon, 0.0, rng=rng, noise="cauchy"))
    assert all_finite(dp.sample_and_aggregate(values, np.median, k, 0, 100, epsilon, rng=rng))


@FAST
@given(rows=st.lists(st.tuples(st.floats(-5.0, 5.0), st.booleans()), min_size=1, max_size=20), epsilon=epsilons,
       clip=positive, iterations=st.integers(1, 5), noise=st.sampled_from(["gaussian", "laplace"]),
       seed=st.integers(0, 2**32 - 1))
def test_noisy_gradient_descent_is_finite(rows, epsilon, clip, iterations, noise, seed):
    X = np.array([[1.0, x] for x, _ in rows])
    y = np.array([float(label) for _, label in rows])
    theta, history = dp.noisy_gradient_descent(X, y, epsilon, 1e-5, iterations, clip, rng=make_rng(seed), noise=noise)
    assert all_finite(theta) and all_finite(history)
    assert all_finite(dp.clip_rows(X, clip)) and np.all(np.linalg.norm(dp.clip_rows(X, clip), axis=1) <= clip * 1.000001)


@FAST
@given(count=st.integers(0, 50), extra=st.integers(0, 50), alpha=st.floats(1e-9, 0.5),
       p0=st.floats(0.0, 1.0), p1=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_audit_outputs_are_finite(count, extra, alpha, p0, p1, seed):
    low, high = dp.clopper_pearson(count, count + extra + 1, alpha)
    assert all_finite((low, high)) and 0 <= low <= high <= 1
    res = dp.epsilon_lower_bound(_coin, p0, p1, lambda y: y, 100, rng=make_rng(seed))
    assert all_finite(res.epsilon_lb) and res.epsilon_lb >= 0


# --- probabilities outside [0, 1], bad δ, empty inputs, mismatched lengths ---------------------------

PROBABILITY_FUNCTIONS = {
    ("randomized_response", "p"): lambda b: dp.randomized_response([True], b, rng=make_rng(0)),
    ("rr_epsilon", "p"): lambda b: dp.rr_epsilon(b),
    ("unary_perturb", "p"): lambda b: dp.unary_perturb([[True, False]], b, 0.1, rng=make_rng(0)),
    ("unary_perturb", "q"): lambda b: dp.unary_perturb([[True, False]], 0.9, b, rng=make_rng(0)),
    ("unary_epsilon", "q"): lambda b: dp.unary_epsilon(0.9, b),
    ("debias_counts", "p"): lambda b: dp.debias_counts([1, 2], 3, b, 0.1),
    ("unary_perturb_counts", "q"): lambda b: dp.unary_perturb_counts([1, 2], 0.9, b, rng=make_rng(0)),
    ("clopper_pearson", "alpha"): lambda b: dp.clopper_pearson(1, 10, b),
    ("epsilon_lower_bound", "confidence"): lambda b: dp.epsilon_lower_bound(_coin, 0.5, 0.5, lambda y: y, 10, b,
                                                                            rng=make_rng(0)),
}


@pytest.mark.parametrize("key", list(PROBABILITY_FUNCTIONS), ids=lambda k: f"{k[0]}-{k[1]}")
@FEW
@given(bad=bad_probabilities)
def test_probability_outside_unit_interval_raises_naming_it(key, bad):
    with raises_naming(key[1]):
        PROBABILITY_FUNCTIONS[key](bad)


DELTA_FUNCTIONS = {
    ("gaussian_mech", "delta"): lambda b: dp.gaussian_mech(1.0, 1.0, 1.0, b, rng=make_rng(0)),
    ("analytic_gaussian_sigma", "delta"): lambda b: dp.analytic_gaussian_sigma(1.0, 1.0, b),
    ("advanced_composition", "delta_prime"): lambda b: dp.advanced_composition(0.1, 0.0, 10, b),
    ("sequential_delta", "deltas"): lambda b: dp.sequential_delta([0.1, b]),
    ("ptr_mean", "delta"): lambda b: dp.ptr_mean([1.0] * 10, 100, 5.0, 1.0, b, rng=make_rng(0)),
    ("smooth_mean", "delta"): lambda b: dp.smooth_mean([1.0] * 10, 100, 1.0, b, rng=make_rng(0)),
    ("epsilon_lower_bound", "delta"): lambda b: dp.epsilon_lower_bound(_coin, 0.5, 0.5, lambda y: y, 10,
                                                                       rng=make_rng(0), delta=b),
}


@pytest.mark.parametrize("key", list(DELTA_FUNCTIONS), ids=lambda k: f"{k[0]}-{k[1]}")
@FEW
@given(bad=bad_deltas)
def test_delta_outside_its_range_raises_naming_it(key, bad):
    if key[0] == "epsilon_lower_bound" and bad == 0.0:
        return  # δ = 0 is the pure-DP audit
    with raises_naming(key[1]):
        DELTA_FUNCTIONS[key](bad)


EMPTY_INPUTS = {
    ("exponential_mech", "candidates"): lambda: dp.exponential_mech([], [], 1.0, 1.0, rng=make_rng(0)),
    ("exponential_probabilities", "scores"): lambda: dp.exponential_probabilities([], 1.0, 1.0),
    ("report_noisy_max", "candidates"): lambda: dp.report_noisy_max([], [], 1.0, 1.0, rng=make_rng(0)),
    ("permute_and_flip", "candidates"): lambda: dp.permute_and_flip([], [], 1.0, 1.0, rng=make_rng(0)),
    ("permute_and_flip_probabilities", "scores"): lambda: dp.permute_and_flip_probabilities([], 1.0, 1.0),
    ("gs_mean", "values"): lambda: dp.gs_mean([], 100, 1.0, rng=make_rng(0)),
    ("ptr_mean", "values"): lambda: dp.ptr_mean([], 100, 5.0, 1.0, 1e-6, rng=make_rng(0)),
    ("smooth_mean", "values"): lambda: dp.smooth_mean([], 100, 1.0, 1e-6, rng=make_rng(0)),
    ("mean_local_sensitivity_at", "values"): lambda: dp.mean_local_sensitivity_at([], 100),
    ("krr_perturb_counts", "counts"): lambda: dp.krr_perturb_counts([], 1.0, rng=make_rng(0)),
    ("unary_encode", "domain"): lambda: dp.unary_encode([], []),
    ("krr_perturb", "domain"): lambda: dp.krr_perturb([], [], 1.0, rng=make_rng(0)),
    ("audit_table", "results"): lambda: dp.audit_table({}),
    ("noisy_gradient_descent", "X"): lambda: dp.noisy_gradient_descent(np.empty((0, 2)), [], 1.0, 1e-5, 1, 1.0,
                                                                       rng=make_rng(0)),
}


@pytest.mark.parametrize("key", list(EMPTY_INPUTS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_empty_input_raises_naming_it(key):
    with raises_naming(key[1]):
        EMPTY_INPUTS[key]()


MISMATCHED = {
    ("exponential_mech", "candidates"): lambda n, m: dp.exponential_mech(list(range(n)), [0.0] * m, 1.0, 1.0,
                                                                         rng=make_rng(0)),
    ("report_noisy_max", "candidates"): lambda n, m: dp.report_noisy_max(list(range(n)), [0.0] * m, 1.0, 1.0,
                                                                         rng=make_rng(0)),
    ("permute_and_flip", "candidates"): lambda n, m: dp.permute_and_flip(list(range(n)), [0.0] * m, 1.0, 1.0,
                                                                         rng=make_rng(0)),
    ("chunk_answers", "keys"): lambda n, m: dp.chunk_answers([1.0] * n, "mean", 1, 0, 100, keys=list(range(m))),
    ("unary_aggregate", "domain"): lambda n, m: dp.unary_aggregate([[True] * n], 0.9, 0.1, domain=list(range(m))),
    ("noisy_gradient_descent", "X"): lambda n, m: dp.noisy_gradient_descent(np.ones((n, 2)), [0.0] * m, 1.0, 1e-5,
                                                                             1, 1.0, rng=make_rng(0)),
    ("epsilon_lower_bound", "mechanism"): lambda n, m: dp.epsilon_lower_bound(
        lambda d, size, rng: np.zeros(m), 0, 1, lambda y: y > 0, n, rng=make_rng(0)),
    ("epsilon_lower_bound", "event"): lambda n, m: dp.epsilon_lower_bound(
        lambda d, size, rng: np.zeros(size), 0, 1, lambda y: np.zeros(m, bool), n, rng=make_rng(0)),
}


@pytest.mark.parametrize("key", list(MISMATCHED), ids=lambda k: f"{k[0]}-{k[1]}")
@FAST
@given(n=st.integers(1, 12), m=st.integers(1, 12))
def test_mismatched_lengths_raise_naming_the_parameter(key, n, m):
    if n == m:
        return
    with raises_naming(key[1]):
        MISMATCHED[key](n, m)
