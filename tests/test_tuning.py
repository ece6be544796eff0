"""Private hyperparameter tuning (dp_lib.tuning): exact laws, the verified bounds, the tuners and their charges."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import dp_lib as dp
from dp_lib import (EpsilonDeltaEvent, PrivacyAccountant, RdpAccountant, make_rng, random_stopping,
                    random_stopping_epsilon, tnb_mean, tnb_tuning, tnb_tuning_epsilon, tnb_tuning_rdp,
                    tuning_output_pmf)


def _loss(p, q):
    return float(np.max(np.abs(np.log(p) - np.log(q))))


def _random_dp_pair(rng, eps, m):
    """Two pmfs on m outputs whose log-ratio is at most eps everywhere (an ε-DP mechanism on D, D')."""
    while True:
        p = rng.dirichlet(np.full(m, 0.5)) + 1e-12
        p /= p.sum()
        q = p * np.exp(rng.uniform(-eps, eps, m))
        q /= q.sum()
        if _loss(p, q) <= eps:
            return p, q


# --- the exact output law -------------------------------------------------------------------------------------

def test_best_of_k_reaches_k_epsilon_on_the_constructed_case():
    eps, k = 0.5, 6
    p = np.array([0.3, 0.7])  # CDF ratio at the lowest output is e^ε
    q = np.array([0.3 * math.exp(-eps), 1 - 0.3 * math.exp(-eps)])
    assert _loss(p, q) == pytest.approx(eps)
    assert _loss(tuning_output_pmf(p, k=k), tuning_output_pmf(q, k=k)) == pytest.approx(k * eps)
    assert dp.best_of_k_epsilon(eps, k) == pytest.approx(k * eps)


def test_geometric_law_is_the_closed_form_and_sums_to_one():
    p, g = np.array([0.2, 0.5, 0.3]), 0.3
    cdf = np.cumsum(p)
    closed = g * cdf / (1 - (1 - g) * cdf)
    assert np.allclose(tuning_output_pmf(p, gamma=g), np.diff(closed, prepend=0.0))
    for eta in (0.0, 0.5, 1.0, 3.0):
        out = tuning_output_pmf(p, gamma=g, eta=eta)
        assert out.sum() == pytest.approx(1.0) and np.all(out >= 0)


def test_law_of_k_is_the_mixture_of_fixed_k():
    p, g, eta = np.array([0.1, 0.6, 0.3]), 0.25, 2.0
    ks = np.arange(1, 400)
    w = (1 - g) ** ks * np.cumprod((ks - 1 + eta) / ks) / (g ** -eta - 1)  # Definition 1
    mixture = sum(wk * tuning_output_pmf(p, k=int(k)) for k, wk in zip(ks, w))
    assert w.sum() == pytest.approx(1.0) and np.allclose(mixture, tuning_output_pmf(p, gamma=g, eta=eta))
    assert float((ks * w).sum()) == pytest.approx(tnb_mean(eta, g))


@pytest.mark.parametrize("eta", [0.0, 0.5, 1.0, 2.0])
def test_random_number_of_runs_never_exceeds_two_plus_eta_epsilon(eta):
    rng, worst = make_rng(34), 0.0
    for _ in range(300):
        eps = float(rng.uniform(0.1, 2.0))
        p, q = _random_dp_pair(rng, eps, int(rng.integers(2, 6)))
        for g in (0.001, 0.05, 0.5):
            loss = _loss(tuning_output_pmf(p, gamma=g, eta=eta), tuning_output_pmf(q, gamma=g, eta=eta))
            assert loss <= random_stopping_epsilon(eps, eta) * (1 + 1e-9)
            worst = max(worst, loss / eps)
    assert worst > 1.5  # the search does find cases well above ε


def test_random_stopping_bound_is_nearly_attained():
    """A three-output ε-DP pair whose geometric best-of law loses more than 2.9ε (the bound is 3ε)."""
    eps, g = 1.0, 0.001
    p = np.array([0.728, 0.001, 0.271])
    q = np.array([0.728 / math.e, 0.001 / math.e, 0.0])
    q[2] = 1 - q[:2].sum()
    assert _loss(p, q) <= eps
    loss = _loss(tuning_output_pmf(p, gamma=g), tuning_output_pmf(q, gamma=g))
    assert 2.9 * eps < loss <= 3 * eps


def test_publishing_the_number_of_runs_loses_k_epsilon():
    """(K, best) together: the event {K = k, best = lowest} has ratio F(low)^k / F'(low)^k = e^{kε}."""
    eps, g, k = 0.5, 0.2, 7
    p, q = np.array([0.3, 0.7]), np.array([0.3 * math.exp(-eps), 1 - 0.3 * math.exp(-eps)])
    joint_p = g * (1 - g) ** (k - 1) * tuning_output_pmf(p, k=k)[0]
    joint_q = g * (1 - g) ** (k - 1) * tuning_output_pmf(q, k=k)[0]
    assert math.log(joint_p / joint_q) == pytest.approx(k * eps) and k * eps > random_stopping_epsilon(eps)


# --- the bounds, by hand ----------------------------------------------------------------------------------------

def test_theorem_2_by_hand():
    # ε + (1+η)(1 - 1/λ̂)ε̂ + (1+η)ln(1/γ)/λ̂ + ln(E[K])/(λ-1) with λ=2, ε=0.1, λ̂=4, ε̂=0.2, η=1, γ=0.1, E[K]=10
    assert tnb_tuning_rdp(2.0, 0.1, 4.0, 0.2, 1.0, 0.1) == pytest.approx(0.1 + 0.3 + math.log(10) / 2 + math.log(10))
    assert tnb_mean(0.0, 0.1) == pytest.approx(9 / math.log(10))
    assert tnb_mean(2.0, 0.5) == pytest.approx(2 * 0.5 / (0.5 * 0.75))


def test_theorem_6_by_hand_and_its_condition():
    assert dp.poisson_tuning_rdp(3.0, 0.2, 0.4, 1e-6, 10.0) == pytest.approx(0.2 + 1e-5 + math.log(10) / 2)
    with pytest.raises(ValueError, match="epsilon_hat"):
        dp.poisson_tuning_rdp(3.0, 0.2, 0.41, 1e-6, 10.0)  # e^0.41 > 1 + 1/2


def test_converted_epsilon_tends_to_the_pure_bound_and_beats_composition():
    eps = tnb_tuning_epsilon(EpsilonDeltaEvent(0.1), 1e-5, 1.0, 0.1)
    assert 0.3 < eps < 0.4  # Corollary 3's 3ε = 0.3 is the λ → ∞ limit; orders stop at 256
    run, event = dp.adult_tuning_run(steps=20)
    rdp_twelve = RdpAccountant().compose(dp.Repeated(event, 12)).epsilon(1e-5)
    assert tnb_tuning_epsilon(event, 1e-5, 1.0, 1 / 12) < rdp_twelve


# --- the tuners -------------------------------------------------------------------------------------------------

def _noisy_choice(pmf):
    """A finite base mechanism: each run outputs index i with probability pmf[i] (score = i)."""
    def run(config, *, rng):
        i = int(rng.choice(len(pmf), p=pmf))
        return float(i), i
    return run


def _tuner_counts(gamma, trials=4000):
    rng, run, out = make_rng(12), _noisy_choice([0.5, 0.3, 0.2]), np.zeros(3)
    for _ in range(trials):
        out[random_stopping(run, ["only"], 1.0, gamma, rng=rng).model] += 1
    return out


def test_random_stopping_matches_the_exact_law_and_a_wrong_gamma_fails():
    counts = _tuner_counts(0.3)
    exact = tuning_output_pmf([0.5, 0.3, 0.2], gamma=0.3)
    assert stats.chisquare(counts, counts.sum() * exact).pvalue > 1e-3
    wrong = tuning_output_pmf([0.5, 0.3, 0.2], gamma=0.4)  # power: the law of another γ is rejected
    assert stats.chisquare(counts, counts.sum() * wrong).pvalue < 1e-6


def test_tnb_number_of_runs_matches_definition_1():
    rng = make_rng(5)
    draws = np.array([dp.sample_tnb(2.0, 0.3, rng=rng) for _ in range(4000)])
    assert abs(draws.mean() - tnb_mean(2.0, 0.3)) < 4 * draws.std() / math.sqrt(draws.size) and draws.min() >= 1
    logs = np.array([dp.sample_tnb(0.0, 0.1, rng=rng) for _ in range(4000)])
    assert abs(logs.mean() - tnb_mean(0.0, 0.1)) < 4 * logs.std() / math.sqrt(logs.size)


def test_candidates_are_drawn_uniformly():
    seen = []

    def run(config, *, rng):
        seen.append(config)
        return 0.0, None
    rng = make_rng(3)
    for _ in range(300):
        random_stopping(run, ["a", "b", "c"], 1.0, 0.2, rng=rng)
    counts = pd.Series(seen).value_counts().reindex(["a", "b", "c"]).to_numpy()
    assert stats.chisquare(counts).pvalue > 1e-3


def test_ties_go_to_the_earlier_candidate():
    def run(config, *, rng):
        return 1.0, config
    assert dp.best_of_k(run, ["x", "y", "z"], EpsilonDeltaEvent(1.0), rng=make_rng(0)).config == "x"


def test_accountant_charged_once_and_nothing_on_failure():
    acct = PrivacyAccountant(10.0)
    run = _noisy_choice([0.5, 0.5])
    random_stopping(run, ["a", "b"], 1.0, 0.5, rng=make_rng(0), accountant=acct)
    assert acct.history["epsilon"].tolist() == [3.0]
    small = PrivacyAccountant(2.0)
    calls = []

    def counting(config, *, rng):
        calls.append(config)
        return 0.0, None
    with pytest.raises(dp.BudgetExceededError):
        random_stopping(counting, ["a"], 1.0, 0.5, rng=make_rng(0), accountant=small)
    assert len(small.history) == 0 and not calls  # refused before any run
    with pytest.raises(ValueError):  # an RdpAccountant cannot hold an (ε, δ > 0) charge: refused before running
        tnb_tuning(counting, ["a"], EpsilonDeltaEvent(0.1), 1e-5, eta=1.0, gamma=0.5, rng=make_rng(0),
                   accountant=RdpAccountant())
    assert not calls

    def broken(config, *, rng):
        raise RuntimeError("the run failed")
    acct = PrivacyAccountant(10.0)
    with pytest.raises(RuntimeError):
        dp.best_of_k(broken, ["a"], EpsilonDeltaEvent(1.0), rng=make_rng(0), accountant=acct)
    assert len(acct.history) == 0


def test_best_of_k_charges_the_composition():
    acct = RdpAccountant()
    dp.best_of_k(_noisy_choice([0.5, 0.5]), ["a", "b", "c"], dp.GaussianEvent(4.0), rng=make_rng(0), accountant=acct)
    assert acct.history["event"][0] == dp.Repeated(dp.GaussianEvent(4.0), 3)


@pytest.mark.parametrize("call,error,name", [
    (lambda: random_stopping("run", ["a"], 1.0, 0.5, rng=make_rng(0)), TypeError, "run"),
    (lambda: random_stopping(_noisy_choice([1.0]), [], 1.0, 0.5, rng=make_rng(0)), ValueError, "candidates"),
    (lambda: random_stopping(_noisy_choice([1.0]), ["a"], 1.0, 1e-6, rng=make_rng(0)), ValueError, "gamma"),
    (lambda: random_stopping(_noisy_choice([1.0]), ["a"], 1.0, 0.5, rng=0), TypeError, "rng"),
    (lambda: random_stopping(lambda c, *, rng: 1.0, ["a"], 1.0, 1.0, rng=make_rng(0)), TypeError, "run"),
    (lambda: tnb_tuning(_noisy_choice([1.0]), ["a"], "event", 1e-5, eta=1.0, gamma=0.5, rng=make_rng(0)),
     TypeError, "run_event"),
    (lambda: dp.sample_tnb(-0.5, 0.5, rng=make_rng(0)), ValueError, "eta"),
    (lambda: tuning_output_pmf([0.5, 0.5]), TypeError, "k"),
    (lambda: tuning_output_pmf([0.5, 0.6], k=2), ValueError, "pmf"),
    (lambda: tnb_tuning_rdp(1.0, 0.1, 2.0, 0.1, 1.0, 0.5), ValueError, "order"),
])
def test_bad_inputs(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- the shipped table -----------------------------------------------------------------------------------------

def test_tuning_table_row_reruns_exactly():
    """One row of dp_lib/datasets/tuning.csv (best of k, seed 0: 12 DP-SGD runs, < 1 s) re-run."""
    from benchmarks.tuning_table import RESULTS, row

    shipped = pd.read_csv(RESULTS)
    expected = shipped[(shipped["method"] == "best of k") & (shipped["seed"] == 0)].iloc[0].to_dict()
    got = row("best of k", 0)
    assert got["method"] == expected.pop("method")
    assert {k: got[k] for k in expected} == pytest.approx(expected, rel=1e-12)
