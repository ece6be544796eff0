"""dp_lib.query_release: the Adult data vector, marginal workloads, per-query noise and MWEM (chapters/13_query_release).

Privacy claims pinned here: the workload's sensitivity is the largest column norm (brute force over every cell),
per-query Laplace/Gaussian answers are unbiased with the stated scale, MWEM spends ε/(2T) on each of T selections
and ε/(2T) on each of T measurements (recorded calls, composing to ε), and MWEM equals a plain reference version.
"""

import inspect
import math

import numpy as np
import pandas as pd
import pytest

import dp_lib.query_release as qr
from dp_lib import (EDUCATION_LEVELS, OCCUPATIONS, gaussian_zcdp, load_adult, make_rng, sequential_epsilon)
from dp_lib.query_release import (ADULT_QUERY_DOMAIN, adult_histogram, gaussian_workload, laplace_workload,
                                  marginal_workload, mwem, workload_sensitivity)

SMALL = (2, 3, 2)


def _small_counts():
    return np.array([5, 0, 3, 2, 7, 1, 0, 4, 6, 2, 1, 9], dtype=float)


def test_domain_comes_from_the_codebook():
    assert ADULT_QUERY_DOMAIN["Education"] == EDUCATION_LEVELS
    assert ADULT_QUERY_DOMAIN["Occupation"] == (*OCCUPATIONS, "unknown")
    assert [len(v) for v in ADULT_QUERY_DOMAIN.values()] == [4, 16, 15, 2, 2]


def test_adult_histogram_counts_every_record_once():
    adult = load_adult()
    h = adult_histogram(adult)
    assert h.shape == (4, 16, 15, 2, 2) and int(h.sum()) == len(adult)
    sex_income = pd.crosstab(adult["Sex"], adult["Target"]).loc[["Male", "Female"], ["<=50K", ">50K"]].to_numpy()
    assert np.array_equal(h.sum(axis=(0, 1, 2)), sex_income)
    assert int(h[:, :, -1].sum()) == int(adult["Occupation"].isna().sum())  # missing occupation -> "unknown"


def test_adult_histogram_drops_out_of_domain_records_without_raising():
    adult = load_adult().head(3).copy()
    adult.loc[adult.index[0], "Age"] = 95
    adult.loc[adult.index[1], "Education"] = "PhD-in-something"
    assert int(adult_histogram(adult).sum()) == 1


def test_marginal_workload_answers_are_the_marginals():
    x = _small_counts()
    W, marginals = marginal_workload(SMALL, k=2)
    assert set(np.unique(W)) <= {0.0, 1.0} and len(set(marginals)) == 3
    table = x.reshape(SMALL)
    expected = np.concatenate([table.sum(axis=2).ravel(), table.sum(axis=1).ravel(), table.sum(axis=0).ravel()])
    assert np.array_equal(W @ x, expected)
    assert np.all(W.sum(axis=0) == 3)  # every cell in one query of each of the 3 marginals


@pytest.mark.parametrize("k", [1, 2, 3])
def test_sensitivity_is_the_worst_single_record_change(k):
    W, _ = marginal_workload(SMALL, k=k)
    x = _small_counts()
    changes = [W @ (x + np.eye(x.size)[c]) - W @ x for c in range(x.size)]  # add one record in cell c
    assert workload_sensitivity(W, 1) == max(np.abs(d).sum() for d in changes) == math.comb(3, k)
    assert math.isclose(workload_sensitivity(W, 2), max(np.linalg.norm(d) for d in changes))


def test_laplace_workload_is_unbiased_with_scale_delta1_over_epsilon():
    W, _ = marginal_workload(SMALL, k=2)
    x, eps = _small_counts(), 0.5
    errors = np.array([laplace_workload(x, W, eps, rng=make_rng(s)) - W @ x for s in range(3000)])
    b = workload_sensitivity(W, 1) / eps
    assert np.all(np.abs(errors.mean(axis=0)) < 4.5 * math.sqrt(2) * b / math.sqrt(3000))
    assert np.allclose(errors.var(axis=0), 2 * b * b, rtol=0.12)


def test_gaussian_workload_sigma_matches_rho():
    W, _ = marginal_workload(SMALL, k=2)
    x, rho = _small_counts(), 0.2
    sigma = workload_sensitivity(W, 2) / math.sqrt(2 * rho)
    assert math.isclose(gaussian_zcdp(sigma, workload_sensitivity(W, 2)), rho)
    errors = np.array([gaussian_workload(x, W, rho, rng=make_rng(s)) - W @ x for s in range(3000)])
    assert np.all(np.abs(errors.mean(axis=0)) < 4.5 * sigma / math.sqrt(3000))
    assert np.allclose(errors.std(axis=0), sigma, rtol=0.06)


def test_mwem_spends_epsilon_over_2T_per_selection_and_per_measurement(monkeypatch):
    calls = []
    real_em, real_lap = qr.exponential_mech, qr.laplace_mech

    def em(candidates, scores, sensitivity, epsilon, **kw):
        calls.append(("select", sensitivity, epsilon))
        return real_em(candidates, scores, sensitivity, epsilon, **kw)

    def lap(value, sensitivity, epsilon, **kw):
        calls.append(("measure", sensitivity, epsilon))
        return real_lap(value, sensitivity, epsilon, **kw)

    monkeypatch.setattr(qr, "exponential_mech", em)
    monkeypatch.setattr(qr, "laplace_mech", lap)
    W, _ = marginal_workload(SMALL, k=2)
    eps, T = 0.8, 7
    mwem(_small_counts(), W, eps, T, rng=make_rng(1), total=40.0)
    assert [c[0] for c in calls] == ["select", "measure"] * T
    assert all(c[1] == 1.0 and math.isclose(c[2], eps / (2 * T)) for c in calls)  # Laplace scale 2T/ε
    assert math.isclose(sequential_epsilon([c[2] for c in calls]), eps)


def _reference_mwem(x, W, eps, T, rng, n, repetitions=10):
    """A plain MWEM written from the paper: dense updates A * exp(q * (m - q.A) / 2n) over every cell."""
    true, A, measured, out = W @ x, np.full(x.size, n / x.size), [], []
    for _ in range(T):
        score = np.abs(W @ A - true)
        z = (eps / (2 * T)) * score / 2.0
        p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        cdf = np.cumsum(p)
        q = min(int(np.searchsorted(cdf, cdf[-1] * rng.random(), side="right")), len(p) - 1)
        m = qr.laplace_mech(true[q], 1.0, eps / (2 * T), rng=rng)
        measured.append((W[q], min(max(m, 0.0), n)))
        for _ in range(repetitions):
            for row, m_j in measured:
                A = A * np.exp(row * (m_j - row @ A) / (2 * n))
                A = A * (n / A.sum())
        out.append(A)
    return np.mean(out, axis=0)


@pytest.mark.parametrize("seed", range(5))
def test_mwem_agrees_with_a_plain_reference_version(seed):
    W, _ = marginal_workload(SMALL, k=2)
    x = _small_counts()
    ours = mwem(x, W, 2.0, 6, rng=make_rng(seed), total=float(x.sum()))
    ref = _reference_mwem(x, W, 2.0, 6, make_rng(seed), float(x.sum()))
    assert np.allclose(ours, ref, rtol=1e-9, atol=1e-9)


def test_mwem_returns_a_histogram_with_total_records_and_learns():
    adult_h = adult_histogram(load_adult())
    W, _ = marginal_workload(adult_h.shape, k=2)
    x = adult_h.ravel().astype(float)
    out = mwem(x, W, 10.0, 20, rng=make_rng(3), total=float(x.sum()))
    uniform = np.full(x.size, x.sum() / x.size)
    assert np.all(out >= 0) and math.isclose(out.sum(), x.sum())
    assert np.abs(W @ out - W @ x).mean() < 0.6 * np.abs(W @ uniform - W @ x).mean()


@pytest.mark.parametrize("total", [25.0, 100.0])
def test_mwem_uses_the_public_total_not_the_data_size(total):
    """n enters only as the declared public ``total`` (x sums to 40 here): the output has ``total`` records and
    equals the reference run with n = total (using x.sum() instead would fail both)."""
    assert "total" in inspect.signature(mwem).parameters
    W, _ = marginal_workload(SMALL, k=2)
    x = _small_counts()
    ours = mwem(x, W, 2.0, 5, rng=make_rng(4), total=total)
    assert math.isclose(ours.sum(), total)
    assert np.allclose(ours, _reference_mwem(x, W, 2.0, 5, make_rng(4), total), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("eps, T, seed", [(1.0, 20, 2024), (0.01, 30, 1), (3.0, 7, 5)])
def test_the_sliders_fast_mwem_equals_mwem(eps, T, seed):
    """dp_lib.plotting's mwem_fast (the slider's O(|cells|) bookkeeping) gives dp_lib.mwem's histogram on Adult."""
    from dp_lib.plotting.query_release import mwem_fast

    adult_h = adult_histogram(load_adult())
    W, _ = marginal_workload(adult_h.shape, k=2)
    x = adult_h.ravel().astype(float)
    ours = mwem(x, W, eps, T, rng=make_rng(seed), total=float(x.sum()))
    assert np.allclose(mwem_fast(x, W, eps, T, rng=make_rng(seed), total=float(x.sum())), ours, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("kwargs, error", [
    ({"rng": 3}, TypeError), ({"epsilon": "1"}, TypeError), ({"rounds": 0}, ValueError),
    ({"rounds": 2.5}, TypeError), ({"total": -1.0}, ValueError), ({"average": "yes"}, TypeError),
    ({"workload": [[1, 0]]}, TypeError), ({"workload": np.full((2, 12), 0.5)}, ValueError),
    ({"x": np.full(12, -1.0)}, ValueError), ({"x": "counts"}, TypeError),
])
def test_mwem_refuses_bad_parameters_naming_them(kwargs, error):
    W, _ = marginal_workload(SMALL, k=2)
    args = {"x": _small_counts(), "workload": W, "epsilon": 1.0, "rounds": 3, "rng": make_rng(0), "total": 40.0}
    args.update(kwargs)
    name = next(iter(kwargs))
    with pytest.raises(error, match=name if name != "workload" or error is TypeError else "workload"):
        mwem(**args)


def test_extreme_budgets_give_finite_histograms():
    W, _ = marginal_workload(SMALL, k=2)
    for eps in (1e-6, 1e3):
        out = mwem(_small_counts(), W, eps, 3, rng=make_rng(0), total=40.0)
        assert np.all(np.isfinite(out)) and math.isclose(out.sum(), 40.0)


def test_mwem_budget_through_the_accountant():
    """The events interface: T rounds of an ε/(2T) selection and a Lap(2T/ε) measurement fill a budget of exactly ε."""
    from dp_lib import (BudgetExceededError, Composed, EpsilonDeltaEvent, LaplaceEvent, PrivacyAccountant,
                        Repeated)

    eps, T = 1.0, 20
    rounds = Repeated(Composed((EpsilonDeltaEvent(eps / (2 * T)), LaplaceEvent(2 * T / eps))), T)
    assert math.isclose(PrivacyAccountant(eps).compose(rounds, label="MWEM").epsilon(0.0), eps)
    with pytest.raises(BudgetExceededError):
        PrivacyAccountant(0.99 * eps).compose(rounds)
