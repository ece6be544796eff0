"""dp_lib.synthetic: marginals measured under zCDP, IPF fit and sampling (chapters/13_query_release).

Privacy claims pinned here: the Gaussian scale σ = √(k/(2ρ)) makes k marginal measurements compose to ρ-zCDP, the
noise is unbiased, and the fit and the sampler are post-processing (functions of the measurements only).
"""

import inspect
import math

import numpy as np
import pytest

from dp_lib import gaussian_zcdp, make_rng
from dp_lib.synthetic import fit_marginals, measure_marginals, sample_records

TABLE = np.arange(24, dtype=float).reshape(2, 3, 4)
PAIRS = [(0, 1), (0, 2), (1, 2)]


def test_sigma_composes_to_rho():
    rho = 0.3
    m = measure_marginals(TABLE, PAIRS, rho, rng=make_rng(0))
    assert math.isclose(m["sigma"], math.sqrt(len(PAIRS) / (2 * rho)))
    assert math.isclose(sum(gaussian_zcdp(m["sigma"], 1.0) for _ in PAIRS), rho)  # each marginal: L2 sensitivity 1


def test_several_marginals_get_the_stated_sd():
    """k = 3 marginals at ρ: every cell's noise has sd √(k/(2ρ)), as reported (noise σ/√k would spend ρk)."""
    rho = 0.3
    runs = [measure_marginals(TABLE, PAIRS, rho, rng=make_rng(s)) for s in range(3000)]
    for attrs in PAIRS:
        truth = TABLE.sum(axis=tuple(i for i in range(3) if i not in attrs))
        noise = np.array([r[attrs] for r in runs]) - truth
        assert np.allclose(noise.std(axis=0), math.sqrt(len(PAIRS) / (2 * rho)), rtol=0.07)


def test_measurements_are_unbiased_with_the_stated_sd():
    draws = np.array([measure_marginals(TABLE, [(0, 1)], 0.5, rng=make_rng(s))[(0, 1)] for s in range(4000)])
    truth, sigma = TABLE.sum(axis=2), 1.0
    assert np.all(np.abs(draws.mean(axis=0) - truth) < 4.5 * sigma / math.sqrt(4000))
    assert np.allclose(draws.std(axis=0), sigma, rtol=0.06)


def test_fit_reproduces_consistent_marginals():
    exact = {attrs: TABLE.sum(axis=tuple(i for i in range(3) if i not in attrs)) for attrs in PAIRS}
    fit = fit_marginals(TABLE.shape, exact, float(TABLE.sum()), iterations=200)
    for attrs, target in exact.items():
        assert np.allclose(fit.sum(axis=tuple(i for i in range(3) if i not in attrs)), target, atol=1e-6)


def test_fit_and_sampling_are_post_processing():
    for func in (fit_marginals, sample_records):
        assert not {"counts", "data", "x", "adult"} & set(inspect.signature(func).parameters)
    m = measure_marginals(TABLE, PAIRS, 1.0, rng=make_rng(5))
    a = fit_marginals(TABLE.shape, m, 276.0)  # the public total, not the data's: the table sums to what it is given
    assert np.all(a >= 0) and math.isclose(a.sum(), 276.0)
    assert math.isclose(fit_marginals(TABLE.shape, m, 1000.0).sum(), 1000.0)


def test_sampling_follows_the_table():
    table = np.array([[3.0, 1.0], [0.0, 0.0]])
    df = sample_records(table, 20_000, {"a": ("x", "y"), "b": ("u", "v")}, rng=make_rng(2))
    assert set(df["a"]) == {"x"}
    assert abs((df["b"] == "u").mean() - 0.75) < 0.02


@pytest.mark.parametrize("call, error", [
    (lambda: measure_marginals(TABLE.tolist(), PAIRS, 1.0, rng=make_rng(0)), TypeError),
    (lambda: measure_marginals(TABLE, [(1, 0)], 1.0, rng=make_rng(0)), ValueError),
    (lambda: measure_marginals(TABLE, PAIRS, 0.0, rng=make_rng(0)), ValueError),
    (lambda: measure_marginals(TABLE, PAIRS, 1.0, rng=1), TypeError),
    (lambda: fit_marginals(TABLE.shape, {(0,): np.ones(3)}, 10.0), ValueError),
    (lambda: sample_records(TABLE, 5, {"a": (1, 2)}, rng=make_rng(0)), ValueError),
])
def test_bad_parameters_are_refused(call, error):
    with pytest.raises(error):
        call()


def test_marginal_measurements_through_the_rdp_accountant():
    """k Gaussian measurements at sigma = sqrt(k / (2 rho)): the RDP accountant certifies no more than rho-zCDP's ε."""
    from dp_lib import GaussianEvent, RdpAccountant, Repeated, zcdp_to_epsilon

    rho, k, delta = 0.02, 10, 1e-5
    sigma = measure_marginals(TABLE, PAIRS[:1] * 1, rho / k, rng=make_rng(0))["sigma"]
    assert math.isclose(sigma, math.sqrt(k / (2 * rho)))
    eps = RdpAccountant().compose(Repeated(GaussianEvent(sigma), k)).epsilon(delta)
    assert eps <= zcdp_to_epsilon(rho, delta) + 1e-9
