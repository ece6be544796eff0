"""The classroom tool end to end (issue 37): assign, grade in the sandbox, and a submission cannot fool the grader.

Three parts, each graded in one parallel batch so the file stays under a minute on two busy cores:

* chapters 02 and 03 (whatever exercises their specifications hold), three roster students, submissions that
  are correct (a "draws" answer computed from the setup's rng), blank, wrong with the typical mistake, crashing,
  looping, allocating 2 GB, with deleted cells, copied from another student and malicious, and (round D) that
  type in the book's stochastic answer, edit their setup seed, or depend on the seed where they must not; the
  gradebook is asserted row by row. Rounds A and D are graded with the hidden-seed reruns; rounds B and C (the
  sandbox's robustness) run once, to keep the time;
* a tiny specification with a "draws" and a "none" exercise (chapter 98): the reruns' verdicts one by one;
* a tiny specification of its own (chapter 99: ``answer_ex1`` = twice a per-student number, with a hidden test
  that calls the student's ``twice``; ``answer_ex2`` = a word, with a rubric item), so each attack has its own
  test that does not depend on the chapters' content.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import math
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dp_lib.selfcheck import evaluate, to_plain
from exercises._core import Exercise, Mistake, Part, Probe, RubricItem
from tools.classroom import assign as A
from tools.classroom import grade as G
from tools.classroom import sandbox, specs

pytestmark = pytest.mark.skipif(sandbox.landlock_abi() < 1 or not sys.platform.startswith("linux"),
                                reason="grading needs Linux with Landlock")

KEY = b"0123456789abcdef0123456789abcdef-test-course-key"
ROSTER = [{"student_id": "s001", "name": "Ada Lovelace", "email": "ada@example.org"},
          {"student_id": "s002", "name": "Alan Turing", "email": ""},
          {"student_id": "s003", "name": "Grace Hopper", "email": ""}]
LIMITS = sandbox.Limits(timeout=30, cpu_seconds=20, memory_mib=1024, cell_timeout=5)  # a setup cell loads data


def _nb(cells: list[str]) -> bytes:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [],
                                  "execution_count": None} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _code_cells(path: Path) -> list[dict]:
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _with_answers(notebook: Path, answers: dict[str, str]) -> bytes:
    """The student notebook with the answer cells replaced: {answer name: source of the cell}."""
    nb = json.loads(notebook.read_text())
    for cell in nb["cells"]:
        if "answer" in cell["metadata"].get("tags", []):
            name = cell["source"].split("=")[0].strip()
            if name in answers:
                cell["source"] = answers[name]
    return json.dumps(nb).encode()


def _set_at(plain, path: str, value):
    """plain data with ``value`` at ``path`` (".name" / "[i]" steps, as dp_lib.selfcheck reads them)."""
    if not path:
        return value
    plain = copy.deepcopy(plain)
    steps = [s for s in path.replace("[", ".[").split(".") if s]
    target = plain
    for step in steps[:-1]:
        target = target[int(step[1:-1])] if step.startswith("[") else target[step]
    last = steps[-1]
    target[int(last[1:-1]) if last.startswith("[") else last] = value
    return plain


def _mistaken(ex, p):
    """(plain answer with the first typical mistake in it, index of that part) or None."""
    plain = to_plain(ex.solve(p))
    for i, part in enumerate(ex.parts(p)):
        if part.mistakes:
            m = part.mistakes[0]
            value = (m.lo + m.hi) / 2 if m.lo is not None else m.value
            if ex.shape is None:
                wrong = _set_at(plain, part.path, value)
            else:
                wrong = list(plain)
                wrong[i] = _set_at(wrong[i], part.path, value)
            if not evaluate(wrong, ex.check_doc(p))[i].ok:
                return wrong, i
    return None


def _read_gradebook(out: Path) -> list[list[str]]:
    with open(out / "gradebook.csv", newline="") as f:
        return list(csv.reader(f))


# =============================================================================================================
# End to end: chapters 02 and 03
# =============================================================================================================

ROUNDS = {"A": ("correct", "blank", "mistake"), "B": ("crash", "loop", "memory"), "C": ("deleted", "copied", "malicious"),
          "D": ("typed", "seed-edit", "seed-dependent")}
RESEEDED_ROUNDS = ("A", "D")  # graded with the hidden-seed reruns
TYPED = ("mistake", "typed", "copied", "crash", "loop", "memory")  # kinds whose answers are typed-in numbers


def _honest(ex, p) -> str | None:
    """A student's code for a "draws" answer of chapters 02/03: computed from the setup cell's rng."""
    if (ex.chapter, ex.key) == ("02", "ex1"):
        return (f"_draws = -{p['b']!r} * np.log(open_uniform(100_000, rng=rng))\n"
                f"{ex.name} = (float(_draws.mean()), float(_draws.min()), float(_draws.var()))")
    if (ex.chapter, ex.key) == ("02", "ex3"):
        from exercises.ch02 import GROUPS

        column, value, _ = GROUPS[p["group"]]
        return (f"_count = int((adult[{column!r}] == {value!r}).sum())\n"
                f"_releases = laplace_mech(np.full(1000, _count), 1, {p['epsilon']!r}, rng=rng)\n"
                f"{ex.name} = float(np.median(pct_error(_count, _releases)))")
    return None


def _jittered(exercises: list, p: dict):
    """(exercise, source) of the first "none" exercise whose first part is a number with room above the right
    value: the right answer plus up to 1e-4 from rng, right in each run but not the same in both."""
    for ex in exercises:
        if ex.kind == "open" or ex.randomness != "none":
            continue
        part = ex.parts(p[ex.key])[0]
        plain = to_plain(ex.solve(p[ex.key]))
        value = plain if ex.shape is None else plain[0]
        if part.kind == "number" and not part.path and isinstance(value, float) and part.hi - value > 1e-3:
            if ex.shape is None:
                return ex, f"{ex.name} = {value!r} + 1e-4 * rng.random()"
            rest = "".join(f", {v!r}" for v in plain[1:])
            return ex, f"{ex.name} = ({value!r} + 1e-4 * rng.random(){rest})"
    raise AssertionError("no exercise to jitter")


def _edit_setup(raw: bytes) -> bytes:
    """The setup cell with the book's seed instead of the student's (and the comment gone)."""
    nb = json.loads(raw)
    cell = next(c for c in nb["cells"] if c.get("id") == "setup")
    cell["source"] = cell["source"].split("\nrng = make_rng(")[0] + "\nrng = make_rng(2024)  # the book's numbers\n"
    return json.dumps(nb).encode()


def _submission(kind: str, folder: Path, sid: str, exercises: list, params: dict) -> bytes:
    notebook = folder / "student" / f"{sid}.ipynb"
    auto = [ex for ex in exercises if ex.kind != "open"]
    typed = {ex.name: f"{ex.name} = {to_plain(ex.solve(params[sid][ex.key]))!r}" for ex in auto}
    right = {ex.name: _honest(ex, params[sid][ex.key]) or typed[ex.name] for ex in auto}
    assert all(_honest(ex, params[sid][ex.key]) for ex in auto if ex.randomness == "draws"), "draws without code"
    if kind == "correct":
        return _with_answers(notebook, right)
    if kind == "typed":  # the book's answers typed in, the stochastic ones too
        return _with_answers(notebook, typed)
    if kind == "seed-edit":  # honest code, the setup cell's seed edited: the grader runs its own setup cell
        return _edit_setup(_with_answers(notebook, right))
    if kind == "seed-dependent":  # a "none" answer that moves with the seed
        ex, source = _jittered(auto, params[sid])
        return _with_answers(notebook, {**right, ex.name: source})
    if kind == "blank":
        return notebook.read_bytes()
    if kind == "mistake":
        answers = dict(right)
        for ex in auto:
            wrong = _mistaken(ex, params[sid][ex.key])
            if wrong:
                answers[ex.name] = f"{ex.name} = {wrong[0]!r}"
        return _with_answers(notebook, answers)
    first = auto[0].name
    if kind == "crash":
        return _with_answers(notebook, {**typed, first: f"{first} = 1 / 0"})
    if kind == "loop":
        return _with_answers(notebook, {**typed, first: "while True:\n    pass"})
    if kind == "memory":
        return _with_answers(notebook, {**typed, first: f"{typed[first]}\nimport numpy\nbig = numpy.ones(2**28)  # 2 GiB"})
    if kind == "deleted":
        nb = json.loads(notebook.read_text())
        nb["cells"] = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
        return json.dumps(nb).encode()
    if kind == "copied":  # s002 hands in s001's right answers
        return _with_answers(notebook, {ex.name: f"{ex.name} = {to_plain(ex.solve(params['s001'][ex.key]))!r}"
                                        for ex in auto})
    if kind == "malicious":  # the helpers and numpy patched, the grader's files read; the answers wrong
        attack = ("import numpy as np, math, dp_lib.selfcheck as sc\n"
                  "np.isclose = lambda *a, **k: True\nnp.allclose = lambda *a, **k: True\n"
                  "math.isclose = lambda *a, **k: True\nsc.evaluate = lambda *a, **k: []\n"
                  "def check(*a, **k):\n    return 'Correct!'\n")
        answers = {ex.name: f"{ex.name} = 'correct'" for ex in auto}
        answers[first] = attack + f"{first} = 'correct'"
        return _with_answers(notebook, answers)
    raise ValueError(kind)


def _expected(kind: str, ex, p: dict, first: bool, copied_params: dict | None = None, reseeded: bool = False,
              jittered=None) -> float:
    """Points of an auto exercise for a generated submission (probes need the student's code: never earned)."""
    parts, _ = A.auto_points(ex, p)
    full = sum(parts)
    if kind in ("blank", "deleted", "malicious"):
        return 0.0
    if reseeded and ex.randomness == "draws" and (kind in TYPED and (kind != "mistake" or _mistaken(ex, p))):
        return 0.0  # a typed-in stochastic answer does not change with the hidden seed: its right parts are lost
    if kind == "mistake":
        wrong = _mistaken(ex, p)
        return full - parts[wrong[1]] if wrong else full
    if kind == "seed-dependent" and ex is jittered:
        return full - parts[0]  # the jittered part changes with the seed where it must not
    if kind in ("crash", "loop"):
        return 0.0 if first else full
    if kind == "copied":
        plain = to_plain(ex.solve(copied_params))
        return sum(pts for r, pts in zip(evaluate(plain, ex.check_doc(p)), parts) if r.ok)
    return full  # correct, memory (the allocation fails, the answers stay)


def _fmt(x: float) -> str:
    return f"{round(x, 4):g}"


E2E_CHAPTERS = [n for n in ("02", "03") if specs.has_spec(n)]


@pytest.fixture(scope="module")
def e2e(tmp_path_factory):
    """Assign chapters 02 and 03, grade three rounds of three submissions per chapter, all in one pool."""
    root = tmp_path_factory.mktemp("e2e")
    A.assign(E2E_CHAPTERS, ROSTER, root / "assignment", KEY)
    runs = {}
    sandboxes = ThreadPoolExecutor(max_workers=2)  # two sandboxed runs at a time, for all graders
    with ThreadPoolExecutor(max_workers=6) as pool:
        futures = {}
        for number in E2E_CHAPTERS:
            folder = root / "assignment" / number
            graders = {reseed: G.Grader(folder, limits=LIMITS, jobs=2, workroot=root, pool=sandboxes, reseed=reseed)
                       for reseed in (True, False)}
            for rnd, kinds in ROUNDS.items():
                grader = graders[rnd in RESEEDED_ROUNDS]
                subs = {s["student_id"]: _submission(k, folder, s["student_id"], grader.exercises, grader.params)
                        for s, k in zip(ROSTER, kinds)}
                sub_dir = root / f"submissions_{number}{rnd}"
                sub_dir.mkdir()
                for sid, raw in subs.items():
                    (sub_dir / f"{sid}.ipynb").write_bytes(raw)
                collected, _ = G.collect(sub_dir, r"(?P<id>[^/]+)\.ipynb")
                for sid, raw in collected.items():
                    futures[(number, rnd, sid)] = pool.submit(grader.run_one, sid, raw)
            runs[number] = graders[True]
        done = {key: f.result() for key, f in futures.items()}
    sandboxes.shutdown()
    results = {}
    for number, grader in runs.items():
        for rnd in ROUNDS:
            grades = [done[(number, rnd, s["student_id"])] for s in ROSTER]
            out = root / f"graded_{number}{rnd}"
            G.write_outputs(out, grader.exercises, grades, f"Chapter {number}")
            results[(number, rnd)] = (grader, grades, out)
    return results


@pytest.mark.parametrize("number", ["02", "03"])
@pytest.mark.parametrize("rnd", list(ROUNDS))
def test_end_to_end_gradebook(e2e, number, rnd):
    """Row by row; in rounds A and D a typed-in stochastic answer loses its points, a seed edit changes nothing."""
    if number not in E2E_CHAPTERS:
        pytest.skip(f"no exercises/ch{number}.py yet")
    grader, grades, out = e2e[(number, rnd)]
    book = _read_gradebook(out)
    header = ["student_id", "name", "email"]
    for ex in grader.exercises:
        header += [f"{ex.key} (auto)"] if ex.kind != "open" else []
        header += [f"{ex.key} (manual)"] if ex.rubric else []
    assert book[0] == header + ["flag", "total"]
    auto = [ex for ex in grader.exercises if ex.kind != "open"]
    print(f"\nchapter {number}, round {rnd}:")
    for row, student, kind in zip(book[1:], ROSTER, ROUNDS[rnd]):
        sid = student["student_id"]
        print("   ", kind.ljust(9), ",".join(row))
        expected = [sid, student["name"], student["email"]]
        total = 0.0
        jittered = _jittered(grader.exercises, grader.params[sid])[0] if kind == "seed-dependent" else None
        for ex in grader.exercises:
            if ex.kind != "open":
                pts = _expected(kind, ex, grader.params[sid][ex.key], ex is auto[0], grader.params["s001"][ex.key],
                                rnd in RESEEDED_ROUNDS, jittered)
                total += pts
                expected.append(_fmt(pts))
            if ex.rubric:
                expected.append("")  # graded by hand
        flag = ""
        if kind == "copied" and any(to_plain(grader.params["s001"][ex.key]) != to_plain(grader.params[sid][ex.key])
                                    and not all(r.ok for r in evaluate(to_plain(ex.solve(grader.params["s001"][ex.key])),
                                                                       ex.check_doc(grader.params[sid][ex.key])))
                                    for ex in auto):
            flag = "answers match s001's numbers, not their own"
        assert row == expected + [flag, _fmt(total)], kind


def test_end_to_end_feedback_and_log(e2e):
    if not E2E_CHAPTERS:
        pytest.skip("no chapter specification yet")
    number = E2E_CHAPTERS[0]
    grader, grades, out = e2e[(number, "A")]
    mistake = (out / "feedback" / "s003.md").read_text()
    for ex in grader.exercises:
        wrong = _mistaken(ex, grader.params["s003"][ex.key]) if ex.kind != "open" else None
        if wrong:
            assert ex.parts(grader.params["s003"][ex.key])[wrong[1]].mistakes[0].hint in mistake
    assert "graded by your teacher" in mistake or not any(ex.rubric for ex in grader.exercises)
    _, grades_b, out_b = e2e[(number, "B")]
    loop = next(g for g in grades_b if g.student_id == "s002")
    assert any(c["error"] == "CellTimeout" for c in loop.cells)
    memory = next(g for g in grades_b if g.student_id == "s003")
    assert any(c["error"] == "MemoryError" for c in memory.cells)
    crash = (out_b / "feedback" / "s001.md").read_text()
    assert "ZeroDivisionError" in crash
    _, grades_c, out_c = e2e[(number, "C")]
    malicious = next(g for g in grades_c if g.student_id == "s003")
    assert malicious.total == 0
    with open(out / "grades_long.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["status"] for r in rows} <= {"ok", "failed", "missing", "manual", "skipped"}
    assert {r["kind"] for r in rows} >= {"part", "reseeded"} and {r["kind"] for r in rows} <= {
        "part", "reseeded", "probe", "manual"}
    for r in rows:  # a reseeded row per auto exercise: a deduction, never a gain
        assert r["kind"] != "reseeded" or (float(r["points"]) <= 0 and r["max"] == "0")
    typed = (e2e[(number, "D")][2] / "feedback" / "s001.md").read_text()
    draws = [ex for ex in grader.exercises if ex.randomness == "draws"]
    assert ("does not change with the random seed" in typed) == bool(draws)
    dependent = (e2e[(number, "D")][2] / "feedback" / "s003.md").read_text()
    assert "changes with the random stream where it should not" in dependent
    for ex in grader.exercises:  # the feedback never shows the expected value of a reseeded failure
        if ex.kind != "open":
            assert repr(to_plain(ex.solve(grader.params["s003"][ex.key]))) not in dependent
    seconds = [g.seconds for _, grades, _ in e2e.values() for g in grades if g.seconds]
    print(f"\ngrading time per submission: mean {sum(seconds) / len(seconds):.2f} s, max {max(seconds):.2f} s "
          f"({len(seconds)} submissions, 2 at a time)")


def test_assign_is_deterministic_and_keeps_the_key_out(tmp_path):
    if not E2E_CHAPTERS:
        pytest.skip("no chapter specification yet")
    number = E2E_CHAPTERS[0]
    A.assign([number], ROSTER, tmp_path / "a", KEY)
    A.assign([number], ROSTER, tmp_path / "b", KEY)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    student = (tmp_path / "a" / number / "student" / "s001.ipynb").read_text()
    assert KEY.decode() not in student and "manifest" not in student
    nb = json.loads(student)
    sources = [c["source"] for c in nb["cells"]]
    for ex in specs.exercises(number):
        if ex.kind != "open":
            assert any(s.startswith(f'check({ex.name}, "dpx1:') for s in sources), ex.key
    assert any("raises-exception" in c["metadata"].get("tags", []) for c in nb["cells"])
    seeds = {A.seed_for(KEY, number, s["student_id"]) for s in ROSTER}
    assert len(seeds) == 3 and A.seed_for(b"another key" * 4, number, "s001") not in seeds


def test_key_file_is_created_private(tmp_path):
    key = A.load_key(tmp_path / "k" / "course.key")
    assert len(key) == 64 and (tmp_path / "k" / "course.key").stat().st_mode & 0o777 == 0o600
    assert A.load_key(tmp_path / "k" / "course.key") == key


def test_roster_errors(tmp_path):
    bad = tmp_path / "r.csv"
    bad.write_text("id,name\n1,x\n")
    with pytest.raises(ValueError, match="student_id,name"):
        A.read_roster(bad)
    bad.write_text("student_id,name\n../x,x\n")
    with pytest.raises(ValueError, match="student_id"):
        A.read_roster(bad)
    bad.write_text("student_id,name,email\ns1,A,a@x\ns1,B,\n")
    with pytest.raises(ValueError, match="twice"):
        A.read_roster(bad)


# =============================================================================================================
# Attacks, against a tiny specification of the test's own
# =============================================================================================================

class Twice(Exercise):
    chapter, key, title, points = "99", "ex1", "Twice a number", 2.0
    randomness = "none"
    default = {"a": 3.0}
    missing = "set answer_ex1 to twice a, and define twice(x)"

    def params(self, rng):
        return {"a": float(rng.integers(100, 100_000))}

    def statement(self, p):
        return f"Set `answer_ex1` to twice {p['a']:g}, and define a function `twice(x)`."

    def solve(self, p):
        return 2 * p["a"]

    def parts(self, p):
        return [Part.near("value", 2 * p["a"], "answer_ex1 is 2 a", rtol=1e-9,
                          mistakes=[Mistake.near(p["a"], "that is a itself, not twice it", rtol=1e-9)])]

    def hidden_tests(self, p):
        return [Probe("twice-7.5", "twice", (7.5,), lambda v, p: None if v == 15.0 else "twice(7.5) is 15")]


class Word(Exercise):
    chapter, key, title, points, kind = "99", "ex2", "A word", 1.0, "mixed"
    randomness = "none"
    prompt = "Why?"
    rubric = (RubricItem("reason", 1, "a reason", "half a reason", "none"),)

    def statement(self, p):
        return "Set `answer_ex2` to the name of the noise."

    def solve(self, p):
        return "laplace"

    def parts(self, p):
        return [Part.equal("word", "laplace", "the noise is Laplace noise")]


SPEC = [Twice(), Word()]
RIGHT_EX2 = "answer_ex2 = 'laplace'"


@pytest.fixture(scope="module")
def attack_setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("attack")
    A.assign(["99"], ROSTER, root / "assignment", KEY, exercises=SPEC, setup="import numpy as np", title="Test")
    folder = root / "assignment" / "99"
    subs = root / "submissions"
    subs.mkdir()
    out = root / "graded"
    out.mkdir()
    (out / "gradebook.csv").write_text("previous gradebook\n")
    key_file = root / "course.key"
    key_file.write_bytes(KEY)
    grader = G.Grader(folder, exercises=SPEC, limits=sandbox.Limits(timeout=8, cpu_seconds=6, memory_mib=1024,
                                                                   cell_timeout=2), jobs=2, workroot=root,
                      reseed=False)  # the sandbox's tests: one run each (the reruns have their own tests)
    a = {sid: grader.params[sid]["ex1"]["a"] for sid in grader.params}
    assert len(set(a.values())) == 3
    paths = {"manifest": folder / "grader" / "manifest.json", "key": key_file, "out": out / "gradebook.csv",
             "other": subs / "s002.ipynb", "spec": specs.EXERCISES / "ch02.py", "solutions": folder / "solutions"
             / "s001.ipynb", "repo": specs.ROOT / "README.md"}
    (subs / "s002.ipynb").write_bytes(_nb([f"answer_ex1 = {2 * a['s002']}"]))
    return grader, a, paths, root


HONEST = "def twice(x):\n    return 2 * x\n"


def _attacks(a: float, paths: dict) -> dict[str, list[str]]:
    right = f"answer_ex1 = {2 * a!r}"
    wrong = "answer_ex1 = 1.0"
    leak = ("import json, os\nanswer_ex1 = None\n")
    return {
        "honest": ["%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n"
                   "display(plt.gcf())\n" + HONEST, right, RIGHT_EX2],
        "redefine_check": ["import dp_lib.selfcheck as sc\n"
                           "def check(*a, **k):\n    return 'Correct!'\n"
                           "sc.check = check\nsc.evaluate = lambda *a, **k: []\nsc._matches = lambda *a: True\n",
                           wrong, "check(answer_ex1, 'dpx1:anything')", RIGHT_EX2],
        "monkeypatch_numpy": ["import numpy as np, math, operator\nnp.isclose = lambda *a, **k: True\n"
                              "np.allclose = lambda *a, **k: True\nmath.isclose = lambda *a, **k: True\n"
                              "np.testing.assert_allclose = lambda *a, **k: None\noperator.le = lambda *a: True",
                              wrong, RIGHT_EX2],
        "eq_object": ["class Always:\n    def __eq__(self, other):\n        return True\n"
                      "    def __le__(self, other):\n        return True\n    def __ge__(self, other):\n"
                      "        return True\n    __hash__ = object.__hash__\n"
                      "answer_ex1 = Always()\nanswer_ex2 = Always()"],
        "float_lies": ["class Liar(float):\n    def __eq__(self, other):\n        return True\n"
                       "    def __float__(self):\n        return 1e300\n"
                       "class Str(str):\n    def __eq__(self, other):\n        return True\n"
                       "answer_ex1 = Liar(1.0)\nanswer_ex2 = Str('gauss')"],
        "fake_report": ["import json, os\nfake = json.dumps({'answers': {'answer_ex1': 1.0}, 'probes': {}, 'cells': [],"
                        " 'total': 3, 'points': {'ex1': 2}}).encode()\n"
                        "for fd in range(3, 64):\n    try:\n        os.write(fd, fake)\n    except OSError:\n"
                        "        pass\n", wrong, RIGHT_EX2],
        "nested_report": ["import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'[' * 200_000)\n"
                          "    except OSError:\n        pass\nos._exit(0)"],
        "close_report": [HONEST, right, RIGHT_EX2, "import os\nfor fd in range(3, 64):\n    try:\n"
                         "        os.close(fd)\n    except OSError:\n        pass"],
        "print_results": ["print('{\"answers\": {\"answer_ex1\": 0}, \"total\": 3}')\nprint('ex1: 2/2 points, total 3')\n"
                          "import sys\nsys.stderr.write('RESULT ex1 2/2')", wrong, RIGHT_EX2],
        "write_grader_files": [f"open({str(paths['out'])!r}, 'w').write('s001,3')",
                               f"open({str(paths['manifest'])!r}, 'w').write('{{}}')",
                               f"open({str(paths['manifest'].parent / 'evil.json')!r}, 'w').write('x')",
                               HONEST, right, RIGHT_EX2],
        "read_manifest": [leak + f"m = json.load(open({str(paths['manifest'])!r}))\n"
                          "answer_ex1 = 2 * m['students']['s001']['params']['ex1']['a']", RIGHT_EX2],
        "read_key": [leak + f"key = open({str(paths['key'])!r}).read()\nanswer_ex1 = 1.0", RIGHT_EX2],
        "read_exercises": [leak + f"src = open({str(paths['spec'])!r}).read()\nanswer_ex1 = 1.0", RIGHT_EX2],
        "read_other_submission": [leak + f"other = open({str(paths['other'])!r}).read()\nanswer_ex1 = 1.0",
                                  RIGHT_EX2],
        "read_solutions": [leak + f"sol = open({str(paths['solutions'])!r}).read()\nanswer_ex1 = 1.0", RIGHT_EX2],
        "list_proc": [leak + "procs = os.listdir('/proc')\nanswer_ex1 = 1.0", RIGHT_EX2],
        "fork_bomb": ["import os\nwhile True:\n    os.fork()",
                      "import multiprocessing\nmultiprocessing.Pool(4)",
                      "import subprocess\nsubprocess.run(['sh', '-c', 'echo hi'])",
                      HONEST, right, RIGHT_EX2],
        "kill_grader": ["import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", HONEST, right, RIGHT_EX2],
        "network": ["import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=1)", HONEST, right, RIGHT_EX2],
        "huge_output": ["print('x' * 50_000_000)", "import os\nos.write(1, b'y' * 40_000_000)",
                        "while True:\n    print('z' * 1000)", HONEST, right, RIGHT_EX2],
        "sys_exit": ["import sys\nsys.exit(0)", "raise KeyboardInterrupt", HONEST, right, RIGHT_EX2],
        "os_exit": [HONEST, right, RIGHT_EX2, "import os\nos._exit(0)"],
        "unstoppable_loop": [HONEST, right, RIGHT_EX2,
                             "while True:\n    try:\n        while True:\n            pass\n"
                             "    except BaseException:\n        pass"],
        "other_names": [HONEST, f"answer_ex1_final = {2 * a!r}\nscore = 3\npoints_ex1 = 2\ngrade = {{'ex1': 2}}",
                        f"answer_ex2 = {2 * a!r}", "answer_ex99 = 1"],
        "invalid_json": "{ this is not a notebook",
    }


@pytest.fixture(scope="module")
def attacks(attack_setup):
    grader, a, paths, root = attack_setup
    before = {k: (p.read_bytes() if p.is_file() else None) for k, p in paths.items()}
    cases = _attacks(a["s001"], paths)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(grader.run_one, "s001", cells.encode() if isinstance(cells, str) else _nb(cells))
                   for name, cells in cases.items()}
        results = {name: f.result() for name, f in futures.items()}
    after = {k: (p.read_bytes() if p.is_file() else None) for k, p in paths.items()}
    return results, before, after, grader, paths


def _points(grade) -> dict:
    return {x.part: x.points for x in grade.lines}


def _errors(grade) -> list[str]:
    return [c["error"] for c in grade.cells if not c["ok"]]


def test_honest_submission_gets_everything(attacks):
    g = attacks[0]["honest"]
    assert _points(g) == {"value": 1.0, "hidden: twice-7.5": 1.0, "word": 1.0, "manual: reason": None}
    assert g.total == 3 and not g.problem and g.copied_from == []


def test_attack_redefining_check_and_helpers(attacks):
    g = attacks[0]["redefine_check"]
    assert _points(g)["value"] == 0 and g.total == 1  # only the honest word


def test_attack_monkeypatching_numpy(attacks):
    g = attacks[0]["monkeypatch_numpy"]
    assert _points(g)["value"] == 0 and g.total == 1


def test_attack_eq_object(attacks):
    assert attacks[0]["eq_object"].total == 0


def test_attack_float_that_lies(attacks):
    g = attacks[0]["float_lies"]
    assert g.total == 0 and _points(g)["value"] == 0  # compared as the plain float its __float__ gives


def test_attack_fake_report_on_the_report_descriptor(attacks):
    g = attacks[0]["fake_report"]
    assert g.total == 0 and "report" in g.problem  # the report is unreadable: the student's own loss


def test_attack_deeply_nested_report(attacks):
    g = attacks[0]["nested_report"]
    assert g.total == 0 and "report" in g.problem  # no RecursionError in the grader


def test_attack_closing_the_report_descriptor(attacks):
    g = attacks[0]["close_report"]
    assert g.total == 0 and "before its report was written" in g.problem


def test_attack_printing_fake_results(attacks):
    g = attacks[0]["print_results"]
    assert _points(g)["value"] == 0 and g.total == 1 and not g.problem


def test_attack_writing_output_and_grader_folder(attacks):
    results, before, after, _, _ = attacks
    g = results["write_grader_files"]
    assert _errors(g)[:3] == ["PermissionError"] * 3 and g.total == 3
    assert before == after and not (paths_of(attacks)["manifest"].parent / "evil.json").exists()


def paths_of(attacks):
    return attacks[4]


def test_attack_files_unchanged_and_unread(attacks):
    results, before, after, grader, _ = attacks
    assert before == after
    assert not (grader.folder / "grader" / "evil.json").exists()
    for name in ("read_manifest", "read_key", "read_exercises", "read_other_submission", "read_solutions",
                 "list_proc"):
        g = results[name]
        assert _errors(g) == ["PermissionError"], (name, g.cells)
        assert _points(g)["value"] == 0, name


def test_attack_fork_bomb_and_subprocess(attacks):
    g = attacks[0]["fork_bomb"]
    assert _errors(g) == ["PermissionError"] * 3 and g.total == 3


def test_attack_signal_to_the_grader(attacks):
    g = attacks[0]["kill_grader"]
    assert _errors(g) == ["PermissionError"] and g.total == 3  # and this test process is alive


def test_attack_network(attacks):
    g = attacks[0]["network"]
    assert _errors(g) == ["PermissionError"] and g.total == 3


def test_attack_huge_output(attacks):
    g = attacks[0]["huge_output"]
    assert g.total == 3 and "CellTimeout" in _errors(g)


def test_attack_sys_exit_in_a_cell(attacks):
    g = attacks[0]["sys_exit"]
    assert _errors(g) == ["SystemExit", "KeyboardInterrupt"] and g.total == 3


def test_attack_os_exit_costs_only_this_student(attacks):
    g = attacks[0]["os_exit"]
    assert g.total == 0 and "report" in g.problem


def test_attack_loop_that_catches_the_cell_timeout(attacks):
    g = attacks[0]["unstoppable_loop"]
    assert g.total == 0 and ("wall clock" in g.problem or "CPU time" in g.problem) and g.seconds < 15


def test_attack_setting_other_names(attacks):
    g = attacks[0]["other_names"]
    assert _points(g) == {"value": 0.0, "hidden: twice-7.5": 1.0, "word": 0.0, "manual: reason": None}


def test_invalid_notebook(attacks):
    g = attacks[0]["invalid_json"]
    assert g.total == 0 and "not a valid notebook" in g.problem and g.seconds == 0


def test_grade_cli_batch_with_broken_and_copied(attack_setup, tmp_path):
    """The command: LMS file names, a copy, a missing student, a non-notebook; refuses an unsafe layout."""
    grader, a, paths, root = attack_setup
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "Ada_123_assignsubmission_file_s001.ipynb").write_bytes(_nb([HONEST, f"answer_ex1 = {2 * a['s002']!r}",
                                                                        RIGHT_EX2]))
    (subs / "Alan_124_assignsubmission_file_s002.ipynb").write_bytes(b"\x00\x01 not json")
    (subs / "readme.txt").write_text("x")
    from tools.classroom.__main__ import main as cli

    import tools.classroom.grade as grade_mod

    original = grade_mod.specs.exercises
    grade_mod.specs.exercises = lambda chapter: SPEC if specs.chapter_number(chapter) == "99" else original(chapter)
    try:
        rc = cli(["grade", str(subs), "--assignment", str(root / "assignment"), "--out", str(tmp_path / "out"),
                  "--pattern", r".*_assignsubmission_file_(?P<id>[^_/]+)\.ipynb", "--timeout", "20"])
    finally:
        grade_mod.specs.exercises = original
    assert rc == 0
    book = _read_gradebook(tmp_path / "out")
    assert book == [["student_id", "name", "email", "ex1 (auto)", "ex2 (auto)", "ex2 (manual)", "flag", "total"],
                    ["s001", "Ada Lovelace", "ada@example.org", "1", "1", "",
                     "answers match s002's numbers, not their own", "2"],
                    ["s002", "Alan Turing", "", "0", "0", "", "the file is not a valid notebook (invalid JSON)", "0"],
                    ["s003", "Grace Hopper", "", "0", "0", "", "no submission", "0"]]
    feedback = (tmp_path / "out" / "feedback" / "s001.md").read_text()
    assert "another student's numbers" in feedback and "reason (1 points): to be graded by your teacher" in feedback
    # the output folder inside a readable path is refused
    with pytest.raises(ValueError, match="graded code may read"):
        sandbox.assert_protected([Path(sandbox.read_paths()[0]) / "graded"])


def test_no_landlock_means_no_grading_without_the_flag(attack_setup, tmp_path, monkeypatch, capsys):
    grader, a, paths, root = attack_setup
    monkeypatch.setattr(sandbox, "landlock_abi", lambda: 0)
    from tools.classroom.__main__ import main as cli

    (tmp_path / "subs").mkdir()
    assert cli(["grade", str(tmp_path / "subs"), "--assignment", str(root / "assignment" / "99"),
                "--out", str(tmp_path / "out")]) == 2
    assert "--no-sandbox" in capsys.readouterr().err and not (tmp_path / "out").exists()
    (tmp_path / "subs" / "s003.ipynb").write_bytes(_nb([HONEST, f"answer_ex1 = {2 * a['s003']!r}", RIGHT_EX2]))
    import tools.classroom.grade as grade_mod

    monkeypatch.setattr(grade_mod.specs, "exercises", lambda chapter: SPEC)
    assert cli(["grade", str(tmp_path / "subs"), "--assignment", str(root / "assignment" / "99"),
                "--out", str(tmp_path / "out"), "--no-sandbox"]) == 0
    assert "WARNING: --no-sandbox" in capsys.readouterr().err
    assert _read_gradebook(tmp_path / "out")[3][-2:] == ["", "3"]


def test_seed_is_hmac_of_chapter_and_id():
    import hmac

    digest = hmac.new(KEY, b"99|s001", hashlib.sha256).digest()
    assert A.seed_for(KEY, "99", "s001") == int.from_bytes(digest[:8], "big")
    assert math.isfinite(A.student_params(SPEC, A.seed_for(KEY, "99", "s001"))["ex1"]["a"])


def test_grading_uses_the_numbers_the_student_saw(attack_setup, tmp_path):
    """A specification edited after assign: the grader keeps the manifest's numbers (and warns)."""
    import shutil

    grader, a, paths, root = attack_setup
    folder = tmp_path / "99"
    shutil.copytree(grader.folder, folder)
    manifest = json.loads((folder / "grader" / "manifest.json").read_text())
    manifest["students"]["s001"]["params"]["ex1"]["a"] = 21.0  # as if params() had drawn 21 at assign time
    (folder / "grader" / "manifest.json").write_text(json.dumps(manifest))
    edited = G.Grader(folder, exercises=SPEC, limits=LIMITS, workroot=tmp_path)
    assert edited.params["s001"]["ex1"] == {"a": 21.0} and any("s001 ex1" in w for w in edited.warnings)
    assert edited.run_one("s001", _nb([HONEST, "answer_ex1 = 42.0", RIGHT_EX2])).total == 3


# =============================================================================================================
# The hidden-seed reruns, against a tiny specification of the test's own (chapter 98)
# =============================================================================================================

class UniformMean(Exercise):
    chapter, key, title, points = "98", "ex1", "A Monte Carlo mean", 2.0
    randomness = "draws"
    default = {"n": 10_000}

    def statement(self, p):
        return "Set `answer_ex1` to the mean of `rng.random(10_000)`."

    def solve(self, p):
        return 0.5

    def parts(self, p):
        se = math.sqrt(1 / 12 / p["n"])
        return [Part.between("mean", 0.5 - 6 * se, 0.5 + 6 * se, "the mean of uniform draws is near 1/2")]


class TwiceAgain(Twice):
    chapter, key = "98", "ex2"
    missing = "set answer_ex2 to twice a"

    def statement(self, p):
        return f"Set `answer_ex2` to twice {p['a']:g}."

    def parts(self, p):
        return [Part.near("value", 2 * p["a"], "answer_ex2 is 2 a", rtol=1e-3)]

    def hidden_tests(self, p):
        return []


SEEDED = [UniformMean(), TwiceAgain()]
SEEDED_SETUP = "import numpy as np\nfrom dp_lib import make_rng"
HONEST_MEAN = "answer_ex1 = float(rng.random(10_000).mean())"


def _seeded_cases(folder: Path, seed: int, a: float) -> dict[str, bytes]:
    from dp_lib import make_rng

    own = float(make_rng(seed).random(10_000).mean())  # what the student's notebook showed
    twice = f"answer_ex2 = {2 * a!r}"

    def nb(ex1: str, ex2: str = twice, setup: str | None = None) -> bytes:
        raw = _with_answers(folder / "student" / "s001.ipynb", {"answer_ex1": ex1, "answer_ex2": ex2})
        if setup is None:
            return raw
        notebook = json.loads(raw)
        next(c for c in notebook["cells"] if c.get("id") == "setup")["source"] = setup
        return json.dumps(notebook).encode()

    marked = f"{SEEDED_SETUP}\nrng = make_rng(7)  {G.SEED_MARK}"
    return {
        "honest": nb(HONEST_MEAN),
        "typed_own": nb(f"answer_ex1 = {own!r}"),  # the number the notebook showed, typed in
        "typed_book": nb("answer_ex1 = 0.5002"),  # a number from the book (or a classmate)
        "seed_edit": nb(HONEST_MEAN, setup=f"{SEEDED_SETUP}\nrng = make_rng(2024)"),  # ignored: the grader's setup
        "seed_pinned": nb(f"rng = make_rng(2024)\n{HONEST_MEAN}"),  # a seed of one's own in an answer cell
        "no_cell_ids": _nb([marked, HONEST_MEAN, twice]),  # the setup cell found by its seed line
        "seed_dependent": nb(HONEST_MEAN, f"answer_ex2 = {2 * a!r} * (1 + 1e-4 * rng.random())"),
        "detects_rerun": nb(f"answer_ex1 = {own!r}\nif float(rng.random()) != float(make_rng({seed}).random()):\n"
                            "    import os\n    os._exit(0)  # not my seed: the hidden run, leave without a report"),
    }


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    root = tmp_path_factory.mktemp("seeded")
    A.assign(["98"], ROSTER, root / "assignment", KEY, exercises=SEEDED, setup=SEEDED_SETUP, title="Seeds")
    folder = root / "assignment" / "98"
    grader = G.Grader(folder, exercises=SEEDED, limits=sandbox.Limits(timeout=20, cpu_seconds=15, cell_timeout=5),
                      jobs=2, workroot=root)
    entry = grader.manifest["students"]["s001"]
    cases = _seeded_cases(folder, entry["seed"], grader.params["s001"]["ex2"]["a"])
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(grader.run_one, "s001", raw) for name, raw in cases.items()}
        results = {name: f.result() for name, f in futures.items()}
    G.write_outputs(root / "graded", grader.exercises, list(results.values()), "Seeds")
    return results, grader, folder, root


def _by_exercise(grade) -> dict:
    return {key: grade.exercise_points(key) for key in ("ex1", "ex2")}


@pytest.mark.parametrize("name, ex1, ex2, hint", [
    ("honest", 2, 2, None),
    ("typed_own", 0, 2, "does not change with the random seed"),
    ("typed_book", 0, 2, "does not change with the random seed"),
    ("seed_edit", 2, 2, None),  # had the edited setup run, both runs would share make_rng(2024): ex1 would be 0
    ("seed_pinned", 0, 2, "does not change with the random seed"),
    ("no_cell_ids", 2, 2, None),
    ("seed_dependent", 2, 0, "changes with the random stream where it should not"),
    ("detects_rerun", 0, 0, "did not finish"),
])
def test_reseeded_runs(seeded, name, ex1, ex2, hint):
    grade = seeded[0][name]
    assert _by_exercise(grade) == {"ex1": ex1, "ex2": ex2}, (name, grade.lines, grade.cells)
    reseeded = [x for x in grade.lines if x.kind == "reseeded"]
    assert len(reseeded) == 2 and all(x.max == 0 and x.points <= 0 for x in reseeded)
    first = {x.exercise: x.points for x in grade.lines if x.kind == "part"}
    assert first == {"ex1": 2.0, "ex2": 2.0}, name  # every case is right in the official run
    if hint:
        assert any(hint in x.hint for x in reseeded), [x.hint for x in reseeded]
        text = G.feedback(grade, seeded[1].exercises, "Seeds")
        assert hint in text and "0.5002" not in text


def test_reseeded_rows_in_the_long_csv(seeded):
    _, grader, folder, root = seeded
    with open(root / "graded" / "grades_long.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["kind"] for r in rows} == {"part", "reseeded"}
    assert sum(1 for r in rows if r["kind"] == "reseeded" and r["status"] == "failed") == 6


def test_hidden_seeds_stay_in_the_manifest(seeded):
    _, grader, folder, root = seeded
    for sid, entry in grader.manifest["students"].items():
        hidden = entry["hidden_seeds"]
        assert hidden == A.hidden_seeds(KEY, "98", sid) and len(set(hidden) | {entry["seed"]}) == 3
        text = (folder / "student" / f"{sid}.ipynb").read_text()
        assert all(str(h) not in text for h in hidden) and str(entry["seed"]) in text
    assert grader.manifest["setup"] == SEEDED_SETUP
    cells = grader.cells_for("s001", ["x = 1"], 5)
    assert cells[0].startswith(SEEDED_SETUP) and "rng = make_rng(5)" in cells[0] and cells[1:] == ["x = 1"]
    raw = _nb([f"rng = make_rng(1)  {G.SEED_MARK}", "answer_ex1 = 1"])
    assert G.code_cells(raw, drop_setup=True) == ["answer_ex1 = 1"] and len(G.code_cells(raw)) == 2



def test_probe_of_a_function_inside_an_answer(tmp_path):
    """A probe may call a function reached from an answer (the event of an AuditResult), with array arguments."""
    cells = ["import numpy as np\nclass Result:\n    pass\nanswer_ex1 = Result()\n"
             "answer_ex1.event = lambda out: ~np.isnan(out)"]
    probes = [{"name": "event", "function": "answer_ex1.event", "args": [[math.nan, 1.0, -3.0]], "arrays": True},
              {"name": "missing", "function": "answer_ex1.nothing", "args": [[1.0]], "arrays": True}]
    result = sandbox.run(cells, ["answer_ex1"], probes, limits=sandbox.Limits(timeout=20, cell_timeout=5),
                         workroot=tmp_path)
    assert result.report["probes"]["event"] == {"value": [False, True, True]}
    assert "not defined" in result.report["probes"]["missing"]["__error__"]


def test_every_specification_declares_its_randomness():
    from exercises._core import RANDOMNESS

    for number in specs.spec_chapters():
        for ex in specs.exercises(number):
            assert ex.randomness in RANDOMNESS, (number, ex.key)
