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
    other_data = np.zeros_like(TABLE)  # a different data set: nothing the fit reads can tell them apart
    assert other_data.sum() != TABLE.sum()
    a = fit_marginals(TABLE.shape, m, 276.0)
    b = fit_marginals(TABLE.shape, dict(m), 276.0)
    assert np.array_equal(a, b) and np.all(a >= 0) and math.isclose(a.sum(), 276.0)


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


def test_ipf_agrees_with_private_pgm():
    """Cross-check against an independent implementation: the ``mbi`` package (Private-PGM, McKenna et al.), installed
    with ``pip install -r requirements-synth.txt``. On the same noisy 2-way marginals of Adult's age band x sex x income,
    its mirror-descent fit and our IPF fit agree to within about 1.5 noise standard deviations in every cell, and
    both are as close to the truth as the noise allows (measured: max difference 6.2 at sigma 5.5)."""
    pytest.importorskip("mbi")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import jax
        import mbi
        from mbi import estimation

        jax.config.update("jax_enable_x64", True)
    from dp_lib import adult_histogram, load_adult

    h = adult_histogram(load_adult()).sum(axis=(1, 2))
    n, pairs, names = float(h.sum()), [(0, 1), (0, 2), (1, 2)], ("age", "sex", "income")
    m = measure_marginals(h, pairs, 0.05, rng=make_rng(3))
    ours = fit_marginals(h.shape, m, n, iterations=200)
    measurements = [mbi.LinearMeasurement(m[p].ravel(), tuple(names[i] for i in p), stddev=m["sigma"]) for p in pairs]
    model = estimation.MirrorDescent().estimate(mbi.Domain(names, h.shape), measurements, known_total=n, iters=3000)
    for p in pairs:
        theirs = np.asarray(model.project(tuple(names[i] for i in p)).datavector()).reshape([h.shape[i] for i in p])
        mine = ours.sum(axis=tuple(i for i in range(3) if i not in p))
        truth = h.sum(axis=tuple(i for i in range(3) if i not in p))
        assert np.abs(mine - theirs).max() < 1.5 * m["sigma"]
        assert np.abs(mine - truth).mean() < 1.5 * m["sigma"] and np.abs(theirs - truth).mean() < 1.5 * m["sigma"]


def test_marginal_measurements_through_the_rdp_accountant():
    """k Gaussian measurements at sigma = sqrt(k / (2 rho)): the RDP accountant certifies no more than rho-zCDP's ε."""
    from dp_lib import GaussianEvent, RdpAccountant, Repeated, zcdp_to_epsilon

    rho, k, delta = 0.02, 10, 1e-5
    sigma = measure_marginals(TABLE, PAIRS[:1] * 1, rho / k, rng=make_rng(0))["sigma"]
    assert math.isclose(sigma, math.sqrt(k / (2 * rho)))
    eps = RdpAccountant().compose(Repeated(GaussianEvent(sigma), k)).epsilon(delta)
    assert eps <= zcdp_to_epsilon(rho, delta) + 1e-9
