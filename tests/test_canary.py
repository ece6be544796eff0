"""dp_lib.canary: the Dirac canary audit of DP-SGD, its shipped runs, and a broken DP-SGD it must catch."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dp_lib import (accountant_epsilons, adult_features, audit_canary, canary_datasets, canary_mechanism,
                    dp_sgd_sigma, dp_sgd_step, make_rng, minibatch_dp_sgd, poisson_batches, replay_mechanism,
                    search_events)

SHIPPED = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets" / "canary_audit.csv"
EPS, DELTA, T = 2.0, 1e-5, 10


def _shipped():
    runs = pd.read_csv(SHIPPED).sort_values(["world", "run"])
    return (runs.loc[runs["world"] == "x", "canary_weight"].to_numpy(),
            runs.loc[runs["world"] == "x_prime", "canary_weight"].to_numpy())


def _certify(x, x_prime):
    return search_events(replay_mechanism(x, x_prime), "x", "x_prime", 5000, rng=make_rng(0), pilot_trials=1000,
                         delta=DELTA, claimed_epsilon=EPS)


def test_canary_datasets_are_add_remove_neighbours():
    (X0, y0), (X1, y1) = canary_datasets([[1.0, 0.5], [1.0, -0.5]], [1.0, 0.0], scale=3.0)
    assert np.array_equal(X1[:2], X0) and np.array_equal(y1[:2], y0)
    assert X1[2].tolist() == [0.0, 0.0, 3.0] and y1[2] == 1.0 and not X0[:, -1].any()


def test_shipped_audit_certifies_a_positive_bound_below_the_accountants():
    result = _certify(*_shipped())
    sigma = dp_sgd_sigma(EPS, DELTA, 1.0, T)
    stated = accountant_epsilons(sigma, 1.0, T, DELTA)
    assert 0.3 < result.epsilon_lb <= stated["pld"] <= stated["rdp"] <= EPS
    assert result.flagged is False and result.larger == "x_prime"


def test_shipped_runs_are_what_the_code_gives_bit_for_bit():
    from benchmarks.membership_table import PILOT, canary_run, canary_worlds

    x, x_prime = _shipped()
    worlds = canary_worlds()
    for world, stored in ((0, x), (1, x_prime)):
        for i in (0, PILOT + 7):
            assert canary_run(world, i, worlds) == stored[i]


def test_the_canary_gradient_was_clipped_to_exactly_c():
    """With the gradient always exactly C, θ_j·B/(ηC) is N(0, Tσ²) without the canary and N(T, Tσ²) with it.

    The canary's gradient is C while M σ(-M θ_j) >= C, i.e. θ_j <= ln(M/C - 1)/M = ln 3 / 4 for M = 4, C = 1;
    every shipped final weight is far below, and so are the iterates of a few re-run trainings.
    """
    from benchmarks.membership_table import CANARY, canary_worlds

    x, x_prime = _shipped()
    sigma, scale = dp_sgd_sigma(EPS, DELTA, 1.0, T), CANARY["public_n"] / CANARY["learning_rate"]
    for outputs, mean in ((x, 0.0), (x_prime, T)):
        s = outputs * scale
        assert abs(s.mean() - mean) < 4 * math.sqrt(T) * sigma / math.sqrt(len(s))
        assert abs(s.std() / (math.sqrt(T) * sigma) - 1) < 0.05
    assert x_prime.max() < math.log(3) / 4
    X1, y1 = canary_worlds()[1]
    for seed in range(3):
        _, history = minibatch_dp_sgd(X1, y1, EPS, DELTA, T, 1.0, q=1.0, public_n=CANARY["public_n"],
                                      learning_rate=CANARY["learning_rate"], rng=make_rng(seed))
        assert (history[f"theta_{X1.shape[1] - 1}"] < math.log(3) / 4).all()


def _broken_dp_sgd(X, y, *, rng, noise_divisor=4.0, epsilon=EPS):
    """DP-SGD that claims (ε, δ) but adds σ/4 noise: the implementation bug the audit must catch."""
    n = 100
    sigma = dp_sgd_sigma(epsilon, DELTA, 1.0, T) / noise_divisor
    theta = np.zeros(X.shape[1])
    for batch in poisson_batches(len(y), 1.0, T, rng=rng):
        theta = dp_sgd_step(theta, X[batch], y[batch], 1.0, sigma, n, rng=rng, learning_rate=0.1)
    return theta


def test_audit_catches_dp_sgd_with_a_quarter_of_the_noise():
    data = adult_features()
    X, y = data.X_train[:100], data.y_train[:100]
    broken = audit_canary(_broken_dp_sgd, X, y, 1000, rng=make_rng(8), pilot_trials=250, claimed_epsilon=EPS)
    assert broken.flagged and broken.epsilon_lb > EPS


def test_the_same_small_audit_passes_the_honest_noise():
    data = adult_features()
    X, y = data.X_train[:100], data.y_train[:100]
    honest = audit_canary(lambda X, y, rng: _broken_dp_sgd(X, y, rng=rng, noise_divisor=1.0), X, y, 1000,
                          rng=make_rng(8), pilot_trials=250, claimed_epsilon=EPS)
    assert not honest.flagged and honest.epsilon_lb > 0


def test_accountant_epsilons_exact_for_full_batch():
    stated = accountant_epsilons(6.8, 1.0, 10, 1e-5)
    assert stated["pld"] == pytest.approx(stated["exact"], abs=1e-3) and stated["rdp"] > stated["pld"]
    assert "exact" not in accountant_epsilons(2.0, 0.1, 10, 1e-5)


def test_bad_inputs_name_the_parameter():
    mech = replay_mechanism([1.0], [2.0])
    mech("x", 1, make_rng(0))
    with pytest.raises(ValueError, match="size"):
        mech("x", 1, make_rng(0))
    with pytest.raises(ValueError, match="data"):
        mech("y", 1, make_rng(0))
    with pytest.raises(TypeError, match="trainer"):
        canary_mechanism(3)
    with pytest.raises(ValueError, match="scale"):
        canary_datasets([[1.0]], [1.0], scale=0.0)
    with pytest.raises(ValueError, match="q"):
        accountant_epsilons(1.0, 0.0, 10, 1e-5)
    with pytest.raises(TypeError, match="steps"):
        accountant_epsilons(1.0, 0.5, 2.5, 1e-5)
    with pytest.raises(ValueError, match="outputs"):
        replay_mechanism([np.nan], [1.0])
