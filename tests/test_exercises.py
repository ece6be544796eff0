"""The exercise specifications of every chapter (exercises/ch01.py … ch15.py): the reference answer passes its own
check for the book's numbers and for five drawn parameter sets, the blank answer fails, every typical mistake fails
with its own hint at its path, and every chapter has rubrics, an exam bank and a setup that runs.

Chapter-specific recomputations stay in tests/test_exercises_chNN.py."""

import copy
import importlib

import numpy as np
import pytest

from dp_lib.selfcheck import check, decode, encode, evaluate, to_plain

CHAPTERS = [f"{n:02d}" for n in range(1, 16)]
MODULES = {nn: importlib.import_module(f"exercises.ch{nn}") for nn in CHAPTERS}
SEEDS = (None, 0, 1, 2, 3, 4)  # None: the book's numbers (the default)
BIG = 1e11  # an interval end at least this far out is one-sided

EXERCISES = [(nn, ex) for nn in CHAPTERS for ex in MODULES[nn].EXERCISES]
CASES = [(nn, ex, seed) for nn, ex in EXERCISES for seed in SEEDS]
CASE_IDS = [f"{nn}-{ex.key}-{'default' if seed is None else f'seed{seed}'}" for nn, ex, seed in CASES]


def _params(ex, seed):
    return dict(ex.default) if seed is None else ex.params(np.random.default_rng(seed))


_SOLVED = {}


def _solved(nn, ex, seed):
    """The parameters, check document and reference answer of a case, computed once for both tests (some
    solutions simulate for seconds)."""
    if (nn, ex.key, seed) not in _SOLVED:
        p = _params(ex, seed)
        _SOLVED[nn, ex.key, seed] = p, ex.check_doc(p), ex.solve(p)
    p, doc, answer = _SOLVED[nn, ex.key, seed]
    return p, copy.deepcopy(doc), answer


def _replace(plain, shape, index, path, value):
    """``plain`` with the value of part ``index`` at ``path`` replaced by ``value``: ".name" steps into dicts,
    "[key]" a dict entry whose key matches by number; a list answer (``shape`` set) is indexed by part first."""
    if path.startswith("["):
        key = next(k for k in plain if float(k) == float(path[1:-1]))
        return {**plain, key: value}
    steps = ([index] if shape is not None else []) + [s for s in path.split(".") if s]
    if not steps:
        return value
    plain = copy.deepcopy(plain)
    holder = plain
    for step in steps[:-1]:
        holder = holder[step]
    holder[steps[-1]] = value
    return plain


def _inside(m, earlier):
    """Values that the mistake ``m`` names: its value; the midpoint of a two-sided interval; for a one-sided
    interval a point near its finite end, and its midpoint unless a mistake in ``earlier`` (checked first) holds
    it too."""
    if m.lo is None:
        return [m.value]
    middle = (m.lo + m.hi) / 2
    if m.lo <= -BIG:
        points = [m.hi - 0.5 * abs(m.hi) - 0.01]
    elif m.hi >= BIG:
        points = [1.5 * m.lo + 0.01]
    else:
        return [middle]
    shadowed = any(e.value == middle if e.lo is None else e.lo <= middle <= e.hi for e in earlier)
    return points if shadowed else [middle, *points]


@pytest.mark.parametrize(("nn", "ex", "seed"), CASES, ids=CASE_IDS)
def test_reference_answer_passes(nn, ex, seed):
    p, doc, answer = _solved(nn, ex, seed)
    assert decode(encode(doc)) == doc
    results = evaluate(to_plain(answer), doc)
    assert all(r.ok for r in results), (p, [r.hint for r in results if not r.ok])
    assert not any(r.ok for r in evaluate(None, doc))
    assert ex.statement(p) and isinstance(ex.setup_code(p), str)
    if seed is None:
        assert check(ex.solve(p), encode(doc)) == "Correct!"  # a fresh solution, given as a student would


@pytest.mark.parametrize(("nn", "ex", "seed"), CASES, ids=CASE_IDS)
def test_mistakes_fail_with_their_hint(nn, ex, seed):
    p, doc, answer = _solved(nn, ex, seed)
    code = encode(doc)
    plain = to_plain(answer)
    for i, (part, stored) in enumerate(zip(ex.parts(p), doc["parts"], strict=True)):
        for j, (m, mistake) in enumerate(zip(part.mistakes, stored["mistakes"], strict=True)):
            for value in _inside(m, part.mistakes[:j]):  # the part alone: this mistake's hint
                result = evaluate(_replace(plain, ex.shape, i, part.path, value), doc)[i]
                assert not result.ok and result.hint == m.hint, (p, m.hint, value, result)
            if "value" in mistake:
                values = [mistake["value"]]
            else:  # points of the stored interval; an earlier mistake may shadow some of them, never all
                lo, hi = mistake["lo"], mistake["hi"]
                values = [lo + (hi - lo) * f for f in (0.5, 0.25, 0.75, 0.1, 0.9)] + [lo, hi]
            hints = []
            for value in values:  # the whole check: every point fails, one of them with this hint
                with pytest.raises(AssertionError) as failed:
                    check(_replace(plain, ex.shape, i, part.path, value), code)
                hints.append(str(failed.value))
            assert mistake["hint"] in hints


@pytest.mark.parametrize(("nn", "ex"), EXERCISES, ids=[f"{nn}-{ex.key}" for nn, ex in EXERCISES])
def test_spec_is_complete(nn, ex):
    assert ex.exercise_type in {"computation", "derivation", "design", "find-the-bug"}
    assert ex.kind in {"auto", "mixed", "open"}
    if ex.kind != "auto":
        assert ex.prompt and ex.rubric
    assert (ex.kind == "auto") == (not ex.rubric)
    for q in ex.exam():
        assert q.kind in {"numeric", "choice"}
        if q.kind == "choice":
            assert len(q.distractors) == len(q.feedback) >= 1 and q.answer not in q.distractors


@pytest.mark.parametrize("nn", CHAPTERS)
def test_chapter_has_exam_and_exercise_types(nn):
    exercises = MODULES[nn].EXERCISES
    assert sum(len(ex.exam()) for ex in exercises) >= 5
    kinds = {ex.exercise_type for ex in exercises}
    assert "derivation" in kinds and kinds & {"design", "find-the-bug"}


@pytest.mark.parametrize("nn", CHAPTERS)
def test_setup_and_setup_code_run(nn):
    namespace = {}
    exec(MODULES[nn].SETUP + "rng = make_rng(0)\n", namespace)  # the assignment's setup cell
    for ex in MODULES[nn].EXERCISES:
        exec(ex.setup_code(ex.default), dict(namespace))
