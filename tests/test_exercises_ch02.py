"""The exercise specifications of Chapter 2 (exercises/ch02.py): the reference answer passes its own check for the
book's numbers and for drawn students' numbers, and every typical mistake fails with its own hint."""

import copy

import numpy as np
import pytest

from dp_lib.selfcheck import check, encode, evaluate, to_plain
from exercises.ch02 import EXERCISES

CASES = [(e, p) for e in EXERCISES for p in [e.default] + [e.params(np.random.default_rng(s)) for s in range(5)]]


def _with(answer, path, value):
    """A copy of the plain answer with ``value`` at ``path`` (".name" steps)."""
    if not path:
        return value
    answer = copy.deepcopy(answer)
    *steps, last = path.strip(".").split(".")
    target = answer
    for step in steps:
        target = target[step]
    target[last] = value
    return answer


@pytest.mark.parametrize("exercise, params", CASES, ids=[f"{e.key}-{i % 6}" for i, (e, _) in enumerate(CASES)])
def test_solution_passes_and_mistakes_fail(exercise, params):
    doc = exercise.check_doc(params)
    right = to_plain(exercise.solve(params))
    assert all(r.ok for r in evaluate(right, doc)), evaluate(right, doc)
    assert exercise.statement(params) and isinstance(exercise.setup_code(params), str)
    for i, part in enumerate(doc["parts"]):
        for mistake in part["mistakes"]:
            if "value" in mistake:
                values = [mistake["value"]]
            else:  # points of the interval; an earlier mistake may shadow some of them, never all
                lo, hi = mistake["lo"], mistake["hi"]
                values = [lo + (hi - lo) * f for f in (0.5, 0.25, 0.75, 0.1, 0.9)] + [lo, hi]
            hints = []
            for value in values:
                if doc["shape"] is None:
                    answer = _with(right, part["path"], value)
                else:
                    answer = [_with(v, part["path"], value) if j == i else v for j, v in enumerate(right)]
                with pytest.raises(AssertionError) as failed:
                    check(answer, encode(doc))
                hints.append(str(failed.value))
            assert mistake["hint"] in hints


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.key for e in EXERCISES])
def test_spec_is_complete(exercise):
    assert exercise.exercise_type in ("computation", "derivation", "design", "find-the-bug")
    if exercise.kind != "auto":
        assert exercise.prompt and exercise.rubric
    for question in exercise.exam():
        assert question.kind in ("numeric", "choice")
        if question.kind == "choice":
            assert len(question.distractors) == len(question.feedback) >= 1
            assert question.answer not in question.distractors


def test_exam_bank_has_five_questions():
    assert sum(len(e.exam()) for e in EXERCISES) >= 5
