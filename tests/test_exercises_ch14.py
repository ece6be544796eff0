"""Chapter 14's exercise specifications (exercises/ch14.py): the reference answer passes its own check for the
book's numbers and five drawn parameter sets, and every typical mistake fails with its hint."""

import numpy as np
import pytest

from dp_lib.selfcheck import decode, encode, evaluate, to_plain
from exercises.ch14 import EXERCISES

SEEDS = range(5)
BIG = 1e14


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


def test_ex4_accepts_a_series_or_a_dict_with_int_keys():
    import pandas as pd

    from dp_lib.selfcheck import check

    ex = next(e for e in EXERCISES if e.key == "ex4")
    code = encode(ex.check_doc(ex.default))
    ratios = ex.solve(ex.default)
    assert check(pd.Series(ratios).round(6), code) == "Correct!"
    assert check({(int(s) if s == int(s) else s): r for s, r in ratios.items()}, code) == "Correct!"
    with pytest.raises(AssertionError, match="dict or a pandas Series"):
        check(list(ratios.values()), code)
    with pytest.raises(AssertionError, match="continuous Gaussian"):
        check({s: 1.0 for s in ratios}, code)


def test_setup_and_setup_code_run():
    import exercises.ch14 as chapter

    namespace = {}
    exec(chapter.SETUP + "rng = make_rng(0)\n", namespace)  # the assignment's setup cell
    for ex in EXERCISES:
        exec(ex.setup_code(ex.default), dict(namespace))


@pytest.mark.parametrize("epsilon", [0.25, 0.5, 2.0, 4.0])
def test_ex5_derived_variance_is_the_pmf_sum(epsilon):
    """The derivation's 2p/(1-p)² against Σ z² P(z) summed over the integers, and below 2t²."""
    from dp_lib import discrete_laplace_pmf

    ex = next(e for e in EXERCISES if e.key == "ex5")
    var, ratio = ex.solve({"epsilon": epsilon})
    zs = np.arange(-2000, 2001)
    assert var == pytest.approx(float(np.sum(zs ** 2 * discrete_laplace_pmf(zs, 1 / epsilon))), rel=1e-9)
    assert ratio < 1
