"""Minibatch DP-SGD: Poisson batches, per-example clipping, Gaussian noise, the accountant's charge."""

import warnings

import numpy as np
import pytest
from scipy import stats

from dp_lib import (PrivacyAccountant, RdpAccountant, accuracy, adult_features, clip_rows, dp_sgd_sigma, dp_sgd_step,
                    logistic_gradients, make_rng, minibatch_dp_sgd, poisson_batches)
from dp_lib.events import GaussianEvent, PoissonSampled, Repeated

ALPHA = 1e-3


@pytest.fixture(scope="module")
def adult():
    return adult_features()


def test_poisson_batch_sizes_are_binomial(rng):
    n, q = 2000, 0.02
    sizes = np.array([len(b) for b in poisson_batches(n, q, 20_000, rng=rng)])
    k = np.arange(sizes.max() + 1)
    ok = stats.binom.pmf(k, n, q) * len(sizes) >= 5  # cells with enough expected counts
    def chi2_pvalue(p):
        expected = stats.binom.pmf(k, n, p) * len(sizes)
        observed = np.bincount(sizes, minlength=len(k))
        obs = np.append(observed[ok], observed[~ok].sum())
        exp = np.append(expected[ok], len(sizes) - expected[ok].sum())
        return stats.chisquare(obs, exp).pvalue
    assert chi2_pvalue(q) > ALPHA
    assert chi2_pvalue(1.1 * q) < ALPHA  # power: a 10 % wrong rate is caught


def test_poisson_batches_include_every_row_independently(rng):
    n, q, steps = 500, 0.1, 4000
    member = np.zeros((steps, n), dtype=bool)
    for t, b in enumerate(poisson_batches(n, q, steps, rng=rng)):
        member[t, b] = True
    counts = member.sum(axis=0)  # each ~ Binomial(steps, q), independently
    assert stats.kstest((counts - steps * q) / np.sqrt(steps * q * (1 - q)), "norm").pvalue > ALPHA
    both = (member[:, 0] & member[:, 1]).mean()
    assert abs(both - q * q) < 4 * np.sqrt(q * q / steps)
    assert all(len(np.unique(b)) == len(b) for b in poisson_batches(n, q, 50, rng=rng))


def test_step_clips_each_example_and_divides_by_expected_batch(adult, rng):
    X, y = adult.X_train[:300], adult.y_train[:300]
    theta = make_rng(1).normal(0, 1, X.shape[1])
    reference = clip_rows(logistic_gradients(theta, X, y), 0.3).sum(axis=0)  # the chapter's public helpers
    new = dp_sgd_step(theta, X, y, 0.3, 1e-12, 50.0, rng=rng, learning_rate=2.0)
    np.testing.assert_allclose((theta - new) * 50.0 / 2.0, reference, rtol=1e-9, atol=1e-9)


def test_step_noise_is_sigma_times_c(rng):
    # an empty batch leaves only the noise: (θ - θ') B / η ~ N(0, (σC)²) per coordinate
    d, sigma, c, b, eta = 4, 1.7, 0.5, 20.0, 3.0
    draws = np.array([dp_sgd_step(np.zeros(d), np.empty((0, d)), np.empty(0), c, sigma, b, rng=rng,
                                  learning_rate=eta) for _ in range(5000)]).ravel() * -b / eta
    assert stats.kstest(draws, "norm", args=(0, sigma * c)).pvalue > ALPHA
    assert stats.kstest(draws, "norm", args=(0, sigma)).pvalue < ALPHA  # forgetting C is caught


def test_training_spends_exactly_the_budget_and_charges_the_accountant(adult):
    X, y = adult.X_train, adult.y_train
    acct = RdpAccountant()
    theta, history = minibatch_dp_sgd(X, y, 1.0, 1e-5, 200, 1.5, q=0.01, public_n=len(y), rng=make_rng(4),
                                      accountant=acct)
    sigma = dp_sgd_sigma(1.0, 1e-5, 0.01, 200)
    assert history["sigma"].iloc[-1] == sigma
    assert history["epsilon_spent"].is_monotonic_increasing
    assert history["epsilon_spent"].iloc[-1] == pytest.approx(acct.epsilon(1e-5)) and acct.epsilon(1e-5) <= 1.0
    assert acct.epsilon(1e-5) > 0.999  # σ is the smallest: nearly all of the budget is used
    assert abs(history["batch_size"].iloc[1:].mean() - 0.01 * len(y)) < 4 * np.sqrt(0.01 * len(y) / 200)
    assert accuracy(theta, adult.X_test, adult.y_test) > 1 - adult.y_test.mean() + 0.05  # it learns


def test_training_is_reproducible_and_noise_varies(adult):
    X, y = adult.X_train[:2000], adult.y_train[:2000]
    run = [minibatch_dp_sgd(X, y, 1.0, 1e-5, 20, 1.0, q=0.05, public_n=2000, rng=make_rng(s))[0] for s in (9, 9, 10)]
    np.testing.assert_array_equal(run[0], run[1])
    assert not np.array_equal(run[0], run[2])


def test_bad_parameters(adult, rng):
    X, y = adult.X_train[:100], adult.y_train[:100]
    for kwargs, name, error in [({"q": 0.0}, "q", ValueError), ({"q": 1.5}, "q", ValueError),
                                ({"public_n": 0}, "public_n", ValueError), ({"accountant": object()}, "accountant", TypeError),
                                ({"learning_rate": -1.0}, "learning_rate", ValueError), ({"q": "0.1"}, "q", TypeError)]:
        args = {"q": 0.1, "public_n": 100, "rng": rng, **kwargs}
        with pytest.raises(error, match=name):
            minibatch_dp_sgd(X, y, 1.0, 1e-5, 10, 1.0, **args)
    with pytest.raises((TypeError, ValueError), match="rng"):
        minibatch_dp_sgd(X, y, 1.0, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=3)
    with pytest.raises(ValueError, match="y"):
        minibatch_dp_sgd(X, y + 2, 1.0, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=rng)
    acct = RdpAccountant()
    with pytest.raises(ValueError, match="epsilon"):
        minibatch_dp_sgd(X, y, 0.001, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=rng, accountant=acct)
    assert acct.history.empty  # a failing call records nothing
    with pytest.raises(ValueError, match="RdpAccountant"):  # an accountant without the event's form refuses it
        minibatch_dp_sgd(X, y, 1.0, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=rng, accountant=PrivacyAccountant(10.0))


def test_the_accountant_is_charged_the_dp_sgd_event(adult):
    X, y = adult.X_train[:500], adult.y_train[:500]
    acct = RdpAccountant()
    minibatch_dp_sgd(X, y, 2.0, 1e-5, 30, 1.0, q=0.05, public_n=500, rng=make_rng(1), accountant=acct)
    sigma = dp_sgd_sigma(2.0, 1e-5, 0.05, 30)
    assert acct.history["event"].tolist() == [Repeated(PoissonSampled(0.05, GaussianEvent(sigma)), 30)]
    assert acct.history["label"].tolist() == ["minibatch_dp_sgd"]


# ---------------------------------------------------------------- edge cases (issue 30, item 7)


def _clipped_sum_by_hand(theta, X, y, c):
    """Σ clip(gᵢ, C) written out, for ordinary rows (no overflow)."""
    X = np.asarray(X, float)
    r = 1 / (1 + np.exp(-np.clip(X @ theta, -700, 700))) - y
    return sum(ri * x * min(1.0, c / (abs(ri) * np.linalg.norm(x))) if ri else 0 * x for ri, x in zip(r, X))


def test_edge_clipped_gradient_sum_with_features_of_1e308():
    X, y = [[1e308, 1e308]] * 20, np.ones(20)  # ||xᵢ|| = 1.41e308 overflows; each clipped gradient is -(1, 1)/√2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = dp_sgd_step([0.0, 0.0], X, y, 1.0, 1e-300, 1.0, rng=make_rng(0), learning_rate=1.0)
    np.testing.assert_allclose(-new, [-20 / np.sqrt(2)] * 2, rtol=1e-12)  # -Σ clip(gᵢ) = θ' for θ = 0, η = B = 1
    mixed = np.array([[1e308, -1e308], [3.0, 4.0], [-1e-300, 0.0], [0.0, 0.0], [-1e308, 5.0]])
    labels = np.array([0.0, 1.0, 1.0, 0.0, 0.0])
    theta = np.array([0.1, -0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dp_sgd_step(theta, mixed, labels, 0.7, 1e-300, 1.0, rng=make_rng(0), learning_rate=1.0)
    # row 0: θ·x = 3e307, so r = σ(θ·x) - 0 = 1 and the clipped gradient is C (1, -1)/√2 (its norm is 1.4e308);
    # row 1 is an ordinary row; row 2's gradient (5e-301, 0) is below C; row 3 is zero; row 4: θ·x = -1e307, r = 0
    expected = 0.7 * np.array([1.0, -1.0]) / np.sqrt(2) + _clipped_sum_by_hand(theta, mixed[1:2], labels[1:2], 0.7)
    np.testing.assert_allclose(theta - got, expected, rtol=1e-9, atol=1e-12)


def test_edge_poisson_batches_refuses_huge_steps_before_allocating():
    for steps in (10**7 + 1, 2**53):
        with pytest.raises(ValueError, match="steps"):
            poisson_batches(10, 0.5, steps, rng=make_rng(0))
    with pytest.raises(ValueError, match="steps"):  # 10**6 batches of 1000 rows: 10**9 indices
        poisson_batches(10**4, 0.1, 10**6, rng=make_rng(0))
    with pytest.raises(TypeError, match="steps"):
        poisson_batches(10, 0.5, 3.0, rng=make_rng(0))
    with pytest.raises(ValueError, match="steps"):
        minibatch_dp_sgd([[1.0, 0.0]] * 10, [0.0, 1.0] * 5, 1.0, 1e-5, 2**40, 1.0, q=0.5, public_n=10,
                         rng=make_rng(0))


def test_edge_minibatch_dp_sgd_with_extreme_values_warns_nothing_and_names_learning_rate():
    X, y = [[1e308, -1e308], [1e308, 1e308], [1.0, 0.5]] * 10, [1.0, 0.0, 1.0] * 10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theta, history = minibatch_dp_sgd(X, y, 1.0, 1e-5, 20, 1.0, q=0.2, public_n=30, rng=make_rng(0))
        assert np.all(np.isfinite(theta)) and np.all(np.isfinite(history.to_numpy()))
        with pytest.raises(ValueError, match="^learning_rate"):
            minibatch_dp_sgd(X, y, 1.0, 1e-5, 20, 1.0, q=0.2, public_n=30, rng=make_rng(0), learning_rate=1e308)


def test_edge_dp_sgd_step_refuses_labels_outside_0_1():
    for bad in ([2.0], [-1.0], [0.5]):
        with pytest.raises(ValueError, match="y"):
            dp_sgd_step([0.0], [[1.0]], bad, 1.0, 1.0, 1.0, rng=make_rng(0))
    with pytest.raises(TypeError, match="y"):
        dp_sgd_step([0.0], [[1.0]], ["1"], 1.0, 1.0, 1.0, rng=make_rng(0))
