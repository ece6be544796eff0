"""Chapter 12's exercise specifications (exercises/ch12.py): the reference answer passes its own check for the
book's numbers and five drawn parameter sets, and every typical mistake fails with its hint."""

import numpy as np
import pytest

from dp_lib.selfcheck import decode, encode, evaluate, to_plain
from exercises.ch12 import EXERCISES

SEEDS = range(5)
BIG = 1e12


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


def test_setup_and_setup_code_run():
    import exercises.ch12 as chapter

    namespace = {}
    exec(chapter.SETUP + "rng = make_rng(0)\n", namespace)  # the assignment's setup cell
    for ex in EXERCISES:
        exec(ex.setup_code(ex.default), dict(namespace))


def test_ex5_corner_is_where_the_two_bounds_meet():
    """α* = (1-δ)/(1+e^ε): the two bounds agree there, the first is lower before, the second after."""
    import math

    from dp_lib import max_tpr

    ex = next(e for e in EXERCISES if e.key == "ex5")
    def first(a, e, d):
        return math.exp(e) * a + d

    def second(a, e, d):
        return 1 - math.exp(-e) * (1 - d - a)

    for p in [ex.default] + [ex.params(np.random.default_rng(s)) for s in range(5)]:
        e, d = p["epsilon"], p["delta"]
        alpha, tpr = ex.solve(p)
        assert first(alpha, e, d) == pytest.approx(second(alpha, e, d), rel=1e-12)
        assert first(alpha, e, d) == pytest.approx(tpr, rel=1e-12)
        assert first(0.9 * alpha, e, d) < second(0.9 * alpha, e, d) and first(1.1 * alpha, e, d) > second(1.1 * alpha, e, d)
        assert float(max_tpr(alpha, e, d)) == pytest.approx(tpr, rel=1e-12)
