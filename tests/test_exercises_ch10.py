"""The exercise specifications of Chapter 6 (exercises.ch10.py): the reference answer passes its own check for
the book's numbers and for drawn ones, and every typical mistake fails with its hint."""

import copy

import numpy as np
import pytest

from dp_lib.selfcheck import check, decode, encode, evaluate, to_plain
from exercises.ch10 import EXERCISES

CASES = [(ex, seed) for ex in EXERCISES for seed in (None, 0, 1, 2, 3, 4)]


def _params(ex, seed):
    return dict(ex.default) if seed is None else ex.params(np.random.default_rng(seed))


def _replace(plain, shape, index, path, value):
    """``plain`` with the value of part ``index`` at ``path`` replaced by ``value``."""
    plain = copy.deepcopy(plain)
    if shape is None and not path:
        return value
    holder = plain if shape is None else plain
    steps = ([f"[{index}]"] if shape is not None else []) + [s for s in path.split(".") if s]
    for step in steps[:-1]:
        holder = holder[int(step[1:-1])] if step.startswith("[") else holder[step]
    last = steps[-1]
    holder[int(last[1:-1]) if last.startswith("[") else last] = value
    return plain


def _inside(mistake):
    if mistake.lo is None:
        return mistake.value
    return (mistake.lo + mistake.hi) / 2


@pytest.mark.parametrize(("ex", "seed"), CASES, ids=[f"{ex.key}-{seed}" for ex, seed in CASES])
def test_reference_answer_passes(ex, seed):
    p = _params(ex, seed)
    doc = ex.check_doc(p)
    assert decode(encode(doc)) == doc
    results = evaluate(to_plain(ex.solve(p)), doc)
    assert all(r.ok for r in results), [r.hint for r in results if not r.ok]
    assert ex.statement(p)
    if seed is None:
        assert check(ex.solve(p), encode(doc)) == "Correct!"


@pytest.mark.parametrize(("ex", "seed"), CASES, ids=[f"{ex.key}-{seed}" for ex, seed in CASES])
def test_mistakes_fail_with_their_hint(ex, seed):
    p = _params(ex, seed)
    doc = ex.check_doc(p)
    plain = to_plain(ex.solve(p))
    assert not any(r.ok for r in evaluate(None, doc))
    for i, part in enumerate(ex.parts(p)):
        for mistake in part.mistakes:
            wrong = _replace(plain, ex.shape, i, part.path, _inside(mistake))
            assert evaluate(wrong, doc)[i].hint == mistake.hint


def test_rubrics_and_exam():
    for ex in EXERCISES:
        assert ex.exercise_type in {"computation", "derivation", "design", "find-the-bug"}
        if ex.kind != "auto":
            assert ex.prompt and ex.rubric
    kinds = {ex.exercise_type for ex in EXERCISES}
    assert "derivation" in kinds and kinds & {"design", "find-the-bug"}
    questions = [q for ex in EXERCISES for q in ex.exam()]
    assert len(questions) >= 5
    for q in questions:
        assert q.kind in {"numeric", "choice"}
        if q.kind == "choice":
            assert len(q.distractors) == len(q.feedback) >= 1 and q.answer not in q.distractors
