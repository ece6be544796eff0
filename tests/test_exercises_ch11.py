"""Chapter 11's exercise specifications (exercises/ch11.py): the reference answer passes its own check for the
book's numbers and five drawn parameter sets, and every typical mistake fails with its hint."""

import numpy as np
import pytest

from dp_lib.selfcheck import decode, encode, evaluate, to_plain
from exercises.ch11 import EXERCISES

SEEDS = range(5)
BIG = 1e11


def _param_sets(ex):
    return [ex.default] + [ex.params(np.random.default_rng(s)) for s in SEEDS]


def _inside(m):
    """A value that the mistake ``m`` names (a midpoint, or a point of a one-sided interval)."""
    if m.lo is None:
        return m.value
    if m.lo <= -BIG:
        return m.hi - 0.5 * abs(m.hi) - 0.01
    if m.hi >= BIG:
        return 1.5 * m.lo + 0.01
    return (m.lo + m.hi) / 2


def _with(answer, i, value, shape):
    if shape is None:
        return value
    answer = list(answer)
    answer[i] = value
    return answer


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.key)
def test_reference_answer_passes(ex):
    for p in _param_sets(ex):
        doc = decode(encode(ex.check_doc(p)))
        results = evaluate(to_plain(ex.solve(p)), doc)
        assert all(r.ok for r in results), (p, [r.hint for r in results if not r.ok])
        assert not any(r.ok for r in evaluate(None, doc))
        assert ex.statement(p)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.key)
def test_each_mistake_names_itself(ex):
    for p in _param_sets(ex):
        doc = ex.check_doc(p)
        right = to_plain(ex.solve(p))
        for i, part in enumerate(ex.parts(p)):
            for m in part.mistakes:
                result = evaluate(_with(right, i, _inside(m), ex.shape), doc)[i]
                assert not result.ok and result.hint == m.hint, (p, m.hint, result)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.key)
def test_exam_and_rubric(ex):
    for q in ex.exam():
        assert q.kind in ("numeric", "choice")
        if q.kind == "choice":
            assert len(q.distractors) == len(q.feedback) and q.answer not in q.distractors
    assert (ex.kind == "auto") == (not ex.rubric)


@pytest.mark.parametrize("steps", [400, 500, 600])
def test_ex5_every_valid_bound_is_accepted(steps):
    from dp_lib import (PldAccountant, RdpAccountant, gdp_epsilon, gaussian_rdp, gaussian_zcdp, rdp_to_epsilon,
                        zcdp_to_epsilon)
    from dp_lib.events import GaussianEvent, Repeated

    ex = next(e for e in EXERCISES if e.key == "ex5")
    p = dict(ex.default, steps=steps)
    z = ex.solve(p)[0]
    rho = steps * gaussian_zcdp(z)
    orders = np.round(np.concatenate([np.arange(1.01, 2, 0.01), np.arange(2, 257)]), 2)
    bounds = [steps * zcdp_to_epsilon(gaussian_zcdp(z), 1e-5 / steps),
              RdpAccountant().compose(Repeated(GaussianEvent(z), steps)).epsilon(1e-5), zcdp_to_epsilon(rho, 1e-5),
              rdp_to_epsilon(orders, steps * gaussian_rdp(orders, z), 1e-5)[0],
              PldAccountant(step=1e-3).compose(Repeated(GaussianEvent(z), steps)).epsilon(1e-5),
              gdp_epsilon(1e-5, np.sqrt(steps) / z)]
    doc = ex.check_doc(p)
    for bound in bounds:
        assert all(r.ok for r in evaluate([z, float(bound)], doc)), bound


def test_setup_and_setup_code_run():
    import exercises.ch11 as chapter

    namespace = {}
    exec(chapter.SETUP + "rng = make_rng(0)\n", namespace)  # the assignment's setup cell
    for ex in EXERCISES:
        exec(ex.setup_code(ex.default), dict(namespace))


def test_ex6_sigma_doubles_with_the_sensitivity():
    """The analytic Gaussian σ is proportional to Δ: the replace-one σ is twice the add/remove one."""
    from dp_lib import analytic_gaussian_sigma

    ex = next(e for e in EXERCISES if e.key == "ex6")
    for p in [ex.default] + [ex.params(np.random.default_rng(s)) for s in range(5)]:
        sensitivity, sigma = ex.solve(p)
        add_remove = analytic_gaussian_sigma(p["clip"], 0.95 * p["epsilon"] / p["k"], p["delta"] / p["k"])
        assert sensitivity == 2 * p["clip"] and sigma == pytest.approx(2 * add_remove, rel=1e-9)
