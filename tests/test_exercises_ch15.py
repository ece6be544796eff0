"""Chapter 15's exercise specifications (exercises/ch15.py): the reference answer passes its own check for the
book's numbers and five drawn parameter sets, and every typical mistake fails with its hint."""

import numpy as np
import pytest

from dp_lib.selfcheck import decode, encode, evaluate, to_plain
from exercises.ch15 import EXERCISES

SEEDS = range(5)
BIG = 1e15


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


def _with(answer, i, value, shape, path=""):
    if path:  # a "[key]" part of a dict answer: replace that entry (keys match by number)
        key = next(k for k in answer if float(k) == float(path[1:-1]))
        return {**answer, key: value}
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
                result = evaluate(_with(right, i, _inside(m), ex.shape, part.path), doc)[i]
                assert not result.ok and result.hint == m.hint, (p, m.hint, result)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.key)
def test_exam_and_rubric(ex):
    for q in ex.exam():
        assert q.kind in ("numeric", "choice")
        if q.kind == "choice":
            assert len(q.distractors) == len(q.feedback) and q.answer not in q.distractors
    assert (ex.kind == "auto") == (not ex.rubric)


def test_setup_and_setup_code_run():
    import exercises.ch15 as chapter

    namespace = {}
    exec(chapter.SETUP + "rng = make_rng(0)\n", namespace)  # the assignment's setup cell
    for ex in EXERCISES:
        exec(ex.setup_code(ex.default), dict(namespace))


def test_ex5_chain_of_neighbours_by_hand():
    """δ_user is what k applications of P ≤ e^ε P' + δ give, and lies between kδ and k e^((k-1)ε) δ."""
    import math

    ex = next(e for e in EXERCISES if e.key == "ex5")
    for p in [ex.default] + [ex.params(np.random.default_rng(s)) for s in range(5)]:
        e, d, k = p["epsilon"], p["delta"], p["rows"]
        factor, slack = 1.0, 0.0
        for _ in range(k):  # one more row: P[M(D_0)] ≤ factor·(e^ε P[M(D_j+1)] + δ) + slack
            factor, slack = factor * math.exp(e), slack + factor * d
        eps_user, delta_user = ex.solve(p)
        assert math.exp(eps_user) == pytest.approx(factor) and delta_user == pytest.approx(slack, rel=1e-12)
        assert k * d <= delta_user <= k * math.exp((k - 1) * e) * d
