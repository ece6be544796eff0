"""Minibatch DP-SGD: Poisson batches, per-example clipping, Gaussian noise, the accountant's charge."""

import numpy as np
import pytest
from scipy import stats

from dp_lib import (RdpAccountant, accuracy, adult_features, clip_rows, dp_sgd_sigma, dp_sgd_step,
                    logistic_gradients, make_rng, minibatch_dp_sgd, poisson_batches)

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
    for kwargs, name in [({"q": 0.0}, "q"), ({"q": 1.5}, "q"), ({"public_n": 0}, "public_n"),
                         ({"accountant": object()}, "accountant"), ({"learning_rate": -1.0}, "learning_rate")]:
        args = {"q": 0.1, "public_n": 100, "rng": rng, **kwargs}
        with pytest.raises(ValueError, match=name):
            minibatch_dp_sgd(X, y, 1.0, 1e-5, 10, 1.0, **args)
    with pytest.raises((TypeError, ValueError), match="rng"):
        minibatch_dp_sgd(X, y, 1.0, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=3)
    with pytest.raises(ValueError, match="y"):
        minibatch_dp_sgd(X, y + 2, 1.0, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=rng)
    acct = RdpAccountant()
    with pytest.raises(ValueError, match="epsilon"):
        minibatch_dp_sgd(X, y, 0.001, 1e-5, 10, 1.0, q=0.1, public_n=100, rng=rng, accountant=acct)
    assert not acct.history  # a failing call records nothing
