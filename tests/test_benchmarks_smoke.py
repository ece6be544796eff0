"""Smoke test of the benchmark suite (benchmarks/): the references must keep computing what dp_lib computes.

No timing is asserted here (a benchmark is not a test). Each per-element
reference of benchmarks/references.py is checked against dp_lib at a tiny
size: deterministic parts exactly, random parts by their distribution at a
fixed seed (two-sided checks at 4 standard errors or alpha = 0.001), so a
reference that drifted from dp_lib's statistic would fail.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import dp_lib
from dp_lib import make_rng

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # benchmarks/ is a top-level package beside dp_lib, not installed
    sys.path.insert(0, str(ROOT))

from benchmarks import references as ref  # noqa: E402
from benchmarks.families import adult_inputs, build_families  # noqa: E402
from benchmarks.report import csv_rows, markdown  # noqa: E402


def _sane(out):
    arr = np.asarray(out)
    return arr.size > 0 and (arr.dtype.kind not in "fc" or bool(np.isfinite(arr).all()))


def test_every_family_runs_at_a_tiny_size():
    for fam in build_families(tiny=True):
        reference, lib = fam.reference(), fam.dp_lib()
        # the same statistic: as many draws / releases / estimates, once the reference is scaled up
        assert np.size(reference) * fam.reference_scale == np.size(lib), fam.name
        assert _sane(reference) and _sane(lib), fam.name
        for floor in (fam.floor, *fam.extra_floors.values()):
            assert _sane(floor()), fam.name


def test_laplace_reference_is_the_inverse_cdf():
    u = np.array([1e-9, 0.1, 0.4999, 0.5, 0.73, 1 - 1e-9])
    mine = [ref.laplace_from_uniform(x, 2.0) for x in u]
    np.testing.assert_allclose(mine, dp_lib.laplace_inverse_cdf(u, scale=2.0), rtol=1e-14)
    draws = ref.reference_laplace(3000, 2.0, rng=make_rng(1))
    assert stats.kstest(draws, lambda x: dp_lib.laplace_cdf(x, scale=2.0)).pvalue > 0.001


def test_rr_reference_matches_dp_lib():
    p, n = 0.75, 4000
    rng = make_rng(5)
    for truth, expected in ((True, p), (False, 1 - p)):  # P[report yes | truth]
        reports = [ref.rr_respond(truth, p, rng) for _ in range(n)]
        assert abs(np.mean(reports) - expected) < 4 * math.sqrt(p * (1 - p) / n)
    assert ref.rr_estimate(reports, p) == pytest.approx(dp_lib.rr_estimate_count(reports, p), rel=1e-12)
    truths = [True] * 300 + [False] * 700
    assert abs(ref.reference_rr(truths, p, rng=rng) - 300) < 4 * math.sqrt(dp_lib.rr_variance(1000, p))


def test_unary_reference_matches_dp_lib():
    domain, p, q = ["a", "b", "c"], 0.75, 0.25
    values = ["a", "c", "c", "b"]
    np.testing.assert_array_equal([ref.ue_encode(v, domain) for v in values], dp_lib.unary_encode(values, domain))
    rng = make_rng(2)
    n = 4000
    ones = np.mean([ref.ue_perturb_bit(1, p, q, rng) for _ in range(n)])
    zeros = np.mean([ref.ue_perturb_bit(0, p, q, rng) for _ in range(n)])
    assert abs(ones - p) < 4 * math.sqrt(p * (1 - p) / n) and abs(zeros - q) < 4 * math.sqrt(q * (1 - q) / n)
    reports = dp_lib.unary_perturb(dp_lib.unary_encode(values * 50, domain), p, q, rng=make_rng(3))
    np.testing.assert_allclose(ref.ue_estimate(reports.sum(axis=0).tolist(), reports.shape[0], p, q),
                               dp_lib.unary_aggregate(reports, p, q), rtol=1e-12)
    est = ref.reference_unary(values * 200, domain, p, q, rng=make_rng(4))
    assert len(est) == 3 and abs(sum(est) - 800) < 4 * math.sqrt(3 * dp_lib.unary_variance(800, p, q))


def test_em_reference_matches_dp_lib():
    column = adult_inputs()["marital"].iloc[:300]
    options = sorted(column.unique().tolist())
    eps = 0.05
    exact = dp_lib.exponential_probabilities(column.value_counts()[options].to_numpy(), 1.0, eps)
    np.testing.assert_allclose(ref.em_probabilities(column, options, 1.0, eps), exact, rtol=1e-12)
    draws = ref.reference_em_sampler(options, column.value_counts()[options].tolist(), 1.0, eps, 400,
                                     rng=make_rng(8))
    observed = np.array([draws.count(o) for o in options])
    keep = exact * 400 >= 5  # pool the rare candidates for the chi-square test
    f_obs = np.append(observed[keep], observed[~keep].sum())
    f_exp = np.append(exact[keep], exact[~keep].sum()) * 400
    assert stats.chisquare(f_obs[f_exp > 0], f_exp[f_exp > 0]).pvalue > 0.001
    assert set(ref.reference_em(column, options, 1.0, eps, 3, rng=make_rng(9))) <= set(options)


def test_saa_reference_matches_dp_lib():
    inputs = adult_inputs()
    ages, ids = inputs["ages"][:2000], inputs["ids"][:2000]
    k = 40
    labels = dict(zip(ids.tolist(), dp_lib.hash_chunks(ids, k).tolist()))
    mine = ref.saa_chunk_answers(ages.tolist(), ids.tolist(), k, 0.0, 100.0, chunk_of=labels.__getitem__)
    np.testing.assert_allclose(mine, dp_lib.chunk_answers(ages, "mean", k, 0.0, 100.0, keys=ids), rtol=1e-12)
    release = ref.reference_saa_release(ages.tolist(), ids.tolist(), k, 0.0, 100.0, 1e9, make_rng(1),
                                        chunk_of=labels.__getitem__)
    lib = dp_lib.sample_and_aggregate(ages, "mean", k, 0.0, 100.0, 1e9, rng=make_rng(1), keys=ids)
    assert release == pytest.approx(lib, abs=1e-6)


def test_smooth_reference_matches_dp_lib():
    for n in (1, 2, 50, 3000):
        for delta in (1e-6, 1 / 32561**2):
            assert ref.smooth_sensitivity(n, 100.0, 1.0, delta) == pytest.approx(
                dp_lib.smooth_sensitivity_mean(n, 100.0, 1.0, delta), rel=1e-12)
    ages = adult_inputs()["ages"][:3000]
    mine = ref.reference_smooth(ages.tolist(), 100.0, 1e9, 1e-6, 2, rng=make_rng(2))
    np.testing.assert_allclose(mine, ages.mean(), atol=1e-6)


def test_report_renders():
    mech = [{"family": "f", "size": "n", "reference_s": 1.0, "dp_lib_s": 0.01, "floor_s": 0.005,
             "reference_size": "", "reference_scale": 1.0, "dp_lib_label": "a", "floor_label": "b",
             "ref_over_dp": 100.0, "dp_over_floor": 2.0, "dp_over_floor_cpu": 2.0, "ref_ok": True, "floor_ok": True, "extra": {}}]
    meta = {"command": "python -m benchmarks", "when": "now", "commit": "x", "python": "3", "numpy": "2",
            "cpu_count": 2, "load_before": (1.0,), "load_after": (1.0,), "seconds": 1.0, "rounds": 5,
            "repeats": 5, "n_scale": 10}
    text = markdown(meta, mech=mech)
    assert "| f | n | 1 | 0.01 | 0.005 | 100 ✓ | 2 ✓ | 2 | pass |" in text
    assert {r["metric"] for r in csv_rows(mech=mech)} >= {"reference/dp_lib", "dp_lib/floor"}
