"""Tests for dp_lib.learning: features, clipping, gradients, (noisy) gradient descent, accounting."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dp_lib import (PrivacyAccountant, accuracy, accuracy_curve, adult_features, advanced_composition,
                    analytic_gaussian_sigma, clip_rows, gradient_descent, holdout_mask, iteration_budget,
                    load_adult, logistic_gradients, logistic_loss, make_rng, noisy_gradient_descent)
from dp_lib.composition import BudgetExceededError


@pytest.fixture(scope="module")
def toy():
    """A small, well-separated problem: n = 400 rows, d = 3 (intercept + 2 features)."""
    gen = make_rng(7)
    Z = gen.normal(size=(400, 2))
    y = (Z @ np.array([1.5, -1.0]) + 0.3 * gen.normal(size=400) > 0).astype(float)
    return np.column_stack([np.ones(400), Z]), y


@pytest.fixture(scope="module")
def data():
    return adult_features()


# --- features and split -------------------------------------------------------------------------

def test_adult_features_shape_bounds_and_labels(data):
    assert data.X_train.shape == (26101, 12) and data.X_test.shape == (6460, 12)
    assert data.feature_names[0] == "intercept" and len(data.feature_names) == 12
    X = np.vstack([data.X_train, data.X_test])
    assert np.all(X[:, 0] == 1)
    assert np.all((X[:, 1:6] >= -1) & (X[:, 1:6] <= 1))
    assert np.all(X[:, 6:].sum(axis=1) == 1), "every record has exactly one Relationship"
    assert np.linalg.norm(X, axis=1).max() <= math.sqrt(7) + 1e-12
    adult = load_adult()
    test = holdout_mask(adult["SSN"])
    assert np.array_equal(data.y_test, (adult.loc[test, "Target"] == ">50K").to_numpy(dtype=float))
    assert abs(data.y_train.mean() - 0.2409) < 1e-3


def test_features_are_a_per_record_map():
    """Dropping rows leaves the other rows' features and their train/test side unchanged (no data-dependent scaling)."""
    adult = load_adult()
    full, part = adult_features(adult), adult_features(adult.iloc[500:])
    test = holdout_mask(adult["SSN"])
    n_test_dropped = int(test[:500].sum())
    assert np.array_equal(full.X_test[n_test_dropped:], part.X_test)
    assert np.array_equal(full.X_train[500 - n_test_dropped:], part.X_train)


def test_adult_features_returns_fresh_arrays():
    first = adult_features()
    first.X_train[:] = 0
    assert adult_features().X_train[0, 0] == 1


def test_holdout_mask_is_deterministic_and_validated():
    ssn = load_adult()["SSN"]
    m = holdout_mask(ssn)
    assert np.array_equal(m, holdout_mask(ssn)) and m.sum() == 6460
    with pytest.raises(ValueError, match="ssn"):
        holdout_mask(["123456789"])
    with pytest.raises(TypeError, match="adult"):
        adult_features(adult=[1, 2])


# --- clipping -----------------------------------------------------------------------------------

def test_clip_rows_bounds_norms_and_keeps_small_rows(rng):
    X = rng.normal(scale=3.0, size=(2000, 5))
    X[:10] *= 1e-3  # rows that are already short
    X[10] = 0.0
    clipped = clip_rows(X, 1.5)
    norms, clipped_norms = np.linalg.norm(X, axis=1), np.linalg.norm(clipped, axis=1)
    assert np.all(clipped_norms <= 1.5 * (1 + 1e-12))
    small = norms <= 1.5
    assert np.array_equal(clipped[small], X[small])
    assert np.allclose(clipped_norms[~small], 1.5)
    cosine = np.sum(clipped * X, axis=1)[~small] / (clipped_norms * norms)[~small]
    assert np.allclose(cosine, 1.0), "clipping keeps the direction"


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf])
def test_clip_rows_refuses_bad_norm(bad):
    with pytest.raises(ValueError, match="max_norm"):
        clip_rows([[1.0, 2.0]], bad)


def test_clip_rows_refuses_non_matrix():
    with pytest.raises(ValueError, match="X"):
        clip_rows([1.0, 2.0], 1.0)


# --- loss, gradients, accuracy ------------------------------------------------------------------

def test_gradients_match_finite_differences(toy, rng):
    X, y = toy
    theta = rng.normal(size=3)
    grads = logistic_gradients(theta, X, y)
    assert grads.shape == X.shape
    h = 1e-6
    numeric = np.column_stack([(logistic_loss(theta + h * e, X, y) - logistic_loss(theta - h * e, X, y)) / (2 * h)
                               for e in np.eye(3)])
    assert np.allclose(grads, numeric, atol=1e-7)
    assert np.all(np.linalg.norm(grads, axis=1) < np.linalg.norm(X, axis=1)), "the loss is ||x||-Lipschitz"


def test_loss_is_stable_for_large_margins():
    loss = logistic_loss([1000.0], [[1.0], [-1.0]], [1.0, 1.0])
    assert np.all(np.isfinite(loss)) and loss[0] == 0.0 and loss[1] == pytest.approx(1000.0)


def test_accuracy_scalar_and_matrix(toy):
    X, y = toy
    thetas = np.array([[0.0, 0.0, 0.0], [0.0, 1.5, -1.0], [0.0, -1.5, 1.0]])
    accs = accuracy(thetas, X, y)
    assert accs[0] == pytest.approx(1 - y.mean()), "θ = 0 predicts 0 everywhere"
    assert accs[1] > 0.9 and accs[2] < 0.1
    assert accuracy(thetas[1], X, y) == accs[1]
    with pytest.raises(ValueError, match="theta"):
        accuracy([1.0, 2.0], X, y)


# --- plain gradient descent ---------------------------------------------------------------------

def test_gradient_descent_matches_a_loop_over_the_public_functions(toy):
    X, y = toy
    theta, history = gradient_descent(X, y, 15, learning_rate=0.5, clip_norm=0.7)
    manual = np.zeros(3)
    for _ in range(15):
        manual = manual - 0.5 * clip_rows(logistic_gradients(manual, X, y), 0.7).sum(axis=0) / len(y)
    assert np.allclose(theta, manual, rtol=1e-12, atol=1e-12)
    assert len(history) == 16 and np.all(history.iloc[0] == 0)
    unclipped, _ = gradient_descent(X, y, 15, learning_rate=0.5)
    assert not np.allclose(unclipped, theta), "clipping at 0.7 must change the path on this data"


def test_gradient_descent_decreases_the_loss(toy):
    X, y = toy
    _, history = gradient_descent(X, y, 30, learning_rate=1.0)
    losses = [logistic_loss(t, X, y).mean() for t in history.filter(like="theta_").to_numpy()]
    assert np.all(np.diff(losses) < 0)


# --- noisy gradient descent ---------------------------------------------------------------------

@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_without_noise_the_private_trainer_matches_clipped_gd(toy, noise):
    X, y = toy
    plain, _ = gradient_descent(X, y, 10, learning_rate=1.0, clip_norm=0.8)
    public, _ = noisy_gradient_descent(X, y, 1e9, 1e-5, 10, 0.8, rng=make_rng(1), learning_rate=1.0,
                                       noise=noise, public_n=len(y))
    counted, history = noisy_gradient_descent(X, y, 1e9, 1e-5, 10, 0.8, rng=make_rng(1), learning_rate=1.0,
                                              noise=noise)
    assert np.allclose(public, plain, atol=1e-6)
    assert np.allclose(counted, plain, atol=1e-6)
    assert abs(history["n_hat"].iloc[0] - len(y)) < 1e-3


@pytest.mark.parametrize("noise, cdf", [("gaussian", stats.norm.cdf), ("laplace", stats.laplace.cdf)])
def test_noise_has_the_stated_scale(noise, cdf):
    """One step from θ = 0 with η = 1 and public n = 1: θ₁ = -(clipped sum + noise), so the noise is exposed.

    d = 3000 coordinates give 3000 draws; KS test at alpha = 0.001 against the stated law (fixed seed).
    """
    d, C, eps, delta = 3000, 2.0, 0.5, 1e-6
    X = np.zeros((4, d))
    y = np.array([0.0, 1.0, 0.0, 1.0])
    theta, history = noisy_gradient_descent(X, y, eps, delta, 1, C, rng=make_rng(3), learning_rate=1.0,
                                            noise=noise, public_n=1)
    drawn = -theta
    if noise == "gaussian":
        scale = analytic_gaussian_sigma(C, eps, delta)
        assert history["sigma"].iloc[0] == pytest.approx(scale)
    else:
        scale = C * math.sqrt(d) / eps  # Laplace b from the L1 bound C sqrt(d)
        assert history["sigma"].iloc[0] == pytest.approx(math.sqrt(2) * scale)
    assert stats.kstest(drawn, cdf, args=(0.0, scale)).pvalue > 0.001
    assert stats.kstest(drawn, cdf, args=(0.0, 1.5 * scale)).pvalue < 0.001, "a 1.5x scale must be detectable"


def test_accountant_records_the_stated_sequential_composition(toy):
    X, y = toy
    acct = PrivacyAccountant(2.0, 1e-5)
    _, history = noisy_gradient_descent(X, y, 1.0, 1e-6, 8, 1.0, rng=make_rng(2), accountant=acct)
    charges = acct.history
    assert len(charges) == 9
    assert charges["label"].iloc[0] == "noisy count" and charges["label"].iloc[-1] == "noisy gradient 8/8"
    assert charges["epsilon"].iloc[0] == pytest.approx(0.05) and charges["delta"].iloc[0] == 0
    assert np.allclose(charges["epsilon"].iloc[1:], 0.95 / 8) and np.allclose(charges["delta"].iloc[1:], 1e-6 / 8)
    assert acct.spent[0] == pytest.approx(1.0, rel=1e-12) and acct.spent[1] == pytest.approx(1e-6, rel=1e-12)
    assert history["epsilon_spent"].iloc[-1] == pytest.approx(1.0) and history["delta_spent"].iloc[-1] == pytest.approx(1e-6)
    assert np.allclose(history["epsilon_spent"].iloc[1:].to_numpy(), 0.05 + 0.95 / 8 * np.arange(1, 9))


def test_public_n_means_exactly_k_charges(toy):
    X, y = toy
    acct = PrivacyAccountant(1.0, 1e-5)
    noisy_gradient_descent(X, y, 1.0, 1e-5, 5, 1.0, rng=make_rng(2), accountant=acct, public_n=len(y))
    assert len(acct.history) == 5 and np.allclose(acct.history["epsilon"], 0.2)
    assert acct.spent[0] == pytest.approx(1.0)


def test_advanced_composition_is_one_charge_and_a_larger_step_budget(toy):
    X, y = toy
    acct = PrivacyAccountant(1.0, 1e-5)
    _, history = noisy_gradient_descent(X, y, 1.0, 1e-5, 100, 1.0, rng=make_rng(2), accountant=acct,
                                        composition="advanced", public_n=len(y))
    assert len(acct.history) == 1 and acct.spent[0] == pytest.approx(1.0) and acct.spent[1] == pytest.approx(1e-5)
    eps_i, delta_i, delta_prime, rule = iteration_budget(1.0, 1e-5, 100, composition="advanced")
    assert rule == "advanced" and eps_i > 1.9 * (1.0 / 100)
    sequential_sigma = analytic_gaussian_sigma(1.0, 0.01, 1e-7)
    assert history["sigma"].iloc[0] < 0.6 * sequential_sigma


def test_accountant_refusal_records_nothing_and_draws_nothing(toy):
    X, y = toy
    acct = PrivacyAccountant(1.0, 1e-5)
    acct.spend(0.5, label="earlier")
    gen = make_rng(5)
    state = gen.bit_generator.state
    with pytest.raises(BudgetExceededError):
        noisy_gradient_descent(X, y, 1.0, 1e-6, 5, 1.0, rng=gen, accountant=acct)
    assert len(acct.history) == 1 and gen.bit_generator.state == state


def test_iteration_budget_rules():
    eps_i, delta_i, delta_prime, rule = iteration_budget(1.0, 1e-5, 10)
    assert (eps_i, delta_i, delta_prime, rule) == (pytest.approx(0.1), pytest.approx(1e-6, rel=1e-12), 0.0, "sequential")
    assert iteration_budget(1.0, 0.0, 10, noise="laplace") == (0.1, 0.0, 0.0, "sequential")
    assert iteration_budget(1.0, 1e-5, 2, composition="advanced")[3] == "sequential", "advanced never helps at k = 2"
    for eps, k in [(1.0, 100), (0.1, 200), (10.0, 2000)]:
        eps_i, delta_i, delta_prime, rule = iteration_budget(eps, 1e-5, k, composition="advanced")
        total_eps, total_delta = advanced_composition(eps_i, delta_i, k, delta_prime)
        assert rule == "advanced" and total_eps == pytest.approx(eps, rel=1e-9) and total_eps <= eps
        assert total_delta == pytest.approx(1e-5)


def test_reproducible_with_a_fixed_generator(toy):
    X, y = toy
    a, ha = noisy_gradient_descent(X, y, 0.5, 1e-5, 5, 1.0, rng=make_rng(11))
    b, hb = noisy_gradient_descent(X, y, 0.5, 1e-5, 5, 1.0, rng=make_rng(11))
    c, _ = noisy_gradient_descent(X, y, 0.5, 1e-5, 5, 1.0, rng=make_rng(12))
    assert np.array_equal(a, b) and ha.equals(hb)
    assert not np.allclose(a, c)


def test_private_training_on_adult_beats_the_majority_class(data):
    theta, history = noisy_gradient_descent(data.X_train, data.y_train, 1.0, 1e-5, 20, 1.5, rng=make_rng(2024))
    curve = accuracy_curve(history, data.X_test, data.y_test)
    assert isinstance(curve, pd.Series) and len(curve) == 21
    assert curve.iloc[0] == pytest.approx(1 - data.y_test.mean())
    assert curve.iloc[-1] > 0.8 and curve.iloc[-1] == accuracy(theta, data.X_test, data.y_test)


@pytest.mark.parametrize("kwargs, name", [
    ({"clip_norm": 0.0}, "clip_norm"), ({"clip_norm": -1.0}, "clip_norm"),
    ({"iterations": 0}, "iterations"), ({"iterations": 2.5}, "iterations"),
    ({"epsilon": 0.0}, "epsilon"), ({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta"),
    ({"learning_rate": 0.0}, "learning_rate"), ({"noise": "cauchy"}, "noise"),
    ({"composition": "magic"}, "composition"), ({"count_share": 1.0}, "count_share"),
    ({"count_share": 0.0}, "count_share"), ({"public_n": 0}, "public_n"), ({"rng": 5}, "rng"),
    ({"epsilon": "1"}, "epsilon"), ({"noise": None}, "noise"),
])
def test_noisy_gradient_descent_names_the_bad_parameter(toy, kwargs, name):
    X, y = toy
    args = dict(X=X, y=y, epsilon=1.0, delta=1e-5, iterations=3, clip_norm=1.0, rng=make_rng(0)) | kwargs
    wrong_type = next(iter(kwargs.values())) in (2.5, 5, "1", None)  # a float count, an int seed, a string, None
    with pytest.raises(TypeError if wrong_type else ValueError, match=name):
        noisy_gradient_descent(**args)


@pytest.mark.parametrize("X, y, name", [
    (np.ones((5, 2)), np.ones(4), "X and y"), (np.ones(5), np.ones(5), "X"),
    (np.ones((3, 2)), np.array([0.0, 1.0, 2.0]), "y"), (np.full((2, 2), np.nan), np.ones(2), "X"),
])
def test_bad_data_is_refused_everywhere(X, y, name):
    with pytest.raises(ValueError, match=name):
        noisy_gradient_descent(X, y, 1.0, 1e-5, 3, 1.0, rng=make_rng(0))
    with pytest.raises(ValueError, match=name):
        gradient_descent(X, y, 3)
    with pytest.raises(ValueError, match=name):
        logistic_gradients(np.zeros(2), X, y)


def test_gradient_descent_names_the_bad_parameter(toy):
    X, y = toy
    with pytest.raises(ValueError, match="iterations"):
        gradient_descent(X, y, 0)
    with pytest.raises(ValueError, match="clip_norm"):
        gradient_descent(X, y, 3, clip_norm=0.0)
    with pytest.raises(TypeError, match="history"):
        accuracy_curve(np.zeros((2, 3)), X, y)


# --- figures --------------------------------------------------------------------------------------

def test_slider_figure_is_reproducible_and_shows_the_run():
    from matplotlib.figure import Figure

    from dp_lib.plotting import plot_private_training

    first, second = plot_private_training(), plot_private_training()
    assert isinstance(first, Figure) and len(first.axes) == 2
    lines = [ln for ln in first.axes[0].get_lines() if len(ln.get_xdata()) == 21]
    assert len(lines) == 3, "non-private, clipped and private curves over iterations 0..20"
    for a, b in zip(first.axes[0].get_lines(), second.axes[0].get_lines()):
        assert np.array_equal(a.get_ydata(), b.get_ydata())
    data = adult_features()
    _, history = noisy_gradient_descent(data.X_train, data.y_train, 1.0, 1e-5, 20, 1.5, rng=make_rng(2024))
    assert np.allclose(lines[-1].get_ydata(), np.maximum(accuracy_curve(history, data.X_test, data.y_test), 0.6))


@pytest.mark.parametrize("kwargs", [{"iterations": 0}, {"iterations": 101}, {"clip_norm": 0.0}, {"epsilon": 0.0}])
def test_slider_figure_refuses_invalid_settings(kwargs):
    from dp_lib.plotting import plot_private_training

    with pytest.raises(ValueError):  # the slider shows the message (dp_lib.widgets.figure_or_message)
        plot_private_training(**kwargs)


def test_iterations_tradeoff_table_is_what_the_code_gives():
    """data/iterations_tradeoff.csv holds every run of plot_iterations_tradeoff's defaults; a sample retrains exactly."""
    from dp_lib.plotting import learning as plots

    stored = plots._stored_runs()
    wanted = {(eps, k, 1.5, s) for eps in (0.03, 0.1, 1.0) for k in (1, 2, 5, 10, 20, 50, 100) for s in range(5)}
    assert set(stored) == wanted
    keys = sorted(stored)
    for key in [keys[i] for i in (0, 23, 51, 79, 104)]:  # ε = 0.03, 0.1 and 1; k from 1 to 100
        assert plots._tradeoff_run(*key) == stored[key], key
    # the figure's means are the table's (no training) and equal a mean of fresh runs
    assert plots._final_accuracy(0.1, 5, 1.5, range(5)) == np.mean([stored[(0.1, 5, 1.5, s)] for s in range(5)])


def test_advanced_iteration_budget_is_the_bisection_on_advanced_epsilon():
    from dp_lib.composition import advanced_epsilon

    for eps, k, delta in [(0.95, 20, 1e-5), (0.095, 100, 1e-5), (9.5, 5, 1e-7), (0.5, 1000, 1e-6)]:
        lo, hi = 0.0, min(eps, 50.0)
        for _ in range(100):  # the definition: 100 halvings, each testing advanced_epsilon
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if advanced_epsilon(mid, k, delta / 2) <= eps else (lo, mid)
        budget = iteration_budget(eps, delta, k, composition="advanced")
        assert budget[0] == lo or budget[3] == "sequential", (eps, k, delta)


def test_chapter_claim_laplace_steps_compose_below_the_optimal_composition_bound():
    """Chapter 11 (review fix): optimal composition (79.84 for 100 steps of ε_i = 1 at δ' = 1e-5) is the worst case
    over all ε_i-DP steps, attained by randomized response; 100 Laplace steps are already (68.3, 1e-5)-DP by a
    privacy-loss-distribution accountant (dp-accounting), as the chapter says in words."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from dp_lib import optimal_composition_epsilon

    laplace = pld.from_laplace_mechanism(1.0, value_discretization_interval=1e-3).self_compose(100)
    assert laplace.get_epsilon_for_delta(1e-5) == pytest.approx(68.3, abs=0.1)
    assert optimal_composition_epsilon(1.0, 100, 1e-5) == pytest.approx(79.84, abs=0.01)
