"""``assign``: one assignment per chapter and student, from the chapter's exercise specifications.

For each chapter and each roster student (``student_id,name[,email]``):

* ``OUT/<chapter>/student/<id>.ipynb`` — the student's notebook: title, instructions, a setup cell (the spec
  module's ``SETUP`` and ``rng = make_rng(<seed>)``), and per exercise its statement with the student's
  numbers, the exercise's setup code, an answer cell, the encoded self-check for the student's numbers (tag
  ``raises-exception``: Run All goes on) and, for an open part, a Markdown answer cell with the question;
* ``OUT/<chapter>/grader/manifest.json`` — the official setup cell's source, and per student the seed, the two
  hidden seeds of the reruns, the parameters and the points (the hidden tests are the specifications
  themselves, evaluated at grading time);
* ``OUT/<chapter>/rubric.md`` — every open part: criteria, points, full/partial/no credit;
* ``OUT/<chapter>/solutions/<id>.ipynb`` — the reference answers for that student (for the teacher).

The seed of a student is HMAC-SHA256(course key, "<chapter>|<student_id>"); the key is a random secret kept in
``--key-file`` (created with mode 0600 on first use) and never written into a student's file. The output is
deterministic: the same key, roster and specifications give the same files.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import json
import os
import re
import secrets
from pathlib import Path

from dp_lib import make_rng
from dp_lib.selfcheck import encode, to_plain
from tools.classroom import specs

DEFAULT_KEY = Path("~/.config/dp-classroom/course.key")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


# -- key, roster, seeds -------------------------------------------------------------------------------------------

def load_key(path: str | Path | None) -> bytes:
    """The course key; a new random one (mode 0600) when the file does not exist."""
    path = Path(path or DEFAULT_KEY).expanduser()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        print(f"new course key in {path} (mode 0600): keep it; the same key gives the same student numbers")
    text = path.read_text(encoding="utf-8").strip()
    if len(text) < 32:
        raise ValueError(f"key_file {path} holds no key (at least 32 characters expected)")
    return text.encode("utf-8")


def read_roster(path: str | Path) -> list[dict]:
    """Rows ``{"student_id", "name", "email"}`` of a roster CSV (``student_id,name[,email]``)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        fields = [c.strip() for c in reader.fieldnames or []]
        if "student_id" not in fields or "name" not in fields:
            raise ValueError(f"roster {path} needs the columns student_id,name (and optionally email); got {fields}")
        rows, seen = [], set()
        for n, row in enumerate(reader, start=2):
            row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
            sid = row["student_id"]
            if not ID_PATTERN.match(sid):
                raise ValueError(f"roster {path}, line {n}: student_id {sid!r} must be letters, digits, '.', '_' "
                                 "or '-' (it names the student's file)")
            if sid in seen:
                raise ValueError(f"roster {path}, line {n}: student_id {sid!r} appears twice")
            seen.add(sid)
            rows.append({"student_id": sid, "name": row["name"], "email": row.get("email", "")})
    return rows


def seed_for(key: bytes, chapter: str, student_id: str) -> int:
    """HMAC-SHA256(key, "chapter|student_id") as a 64-bit seed."""
    digest = hmac.new(key, f"{chapter}|{student_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def hidden_seeds(key: bytes, chapter: str, student_id: str) -> list[int]:
    """The two hidden seeds of a student's reruns, HMAC-SHA256(key, "hidden|chapter|student_id|i"): only in the
    grader's manifest, never in a student's file (the second is used only when the first rerun gives the same
    random answer, so that an honest answer that repeats by chance is not taken for a typed-in one)."""
    return [int.from_bytes(hmac.new(key, f"hidden|{chapter}|{student_id}|{i}".encode(), hashlib.sha256).digest()[:8],
                           "big") for i in (1, 2)]


def student_params(exercises: list, seed: int) -> dict:
    """Each exercise's parameters for a seed (drawn in the order of the specification)."""
    rng = make_rng(seed)
    return {ex.key: ex.params(rng) for ex in exercises}


# -- points ---------------------------------------------------------------------------------------------------

def auto_points(ex, p: dict) -> tuple[list[float], list[float]]:
    """(points per part, points per probe) of the automatic part; together ``ex.points``.

    Probes keep their points and the parts share the rest equally; when the probes claim all the points (or
    more), probes and parts get half each, in proportion."""
    if ex.kind == "open":
        return [], []
    parts = ex.parts(p)
    probes = ex.hidden_tests(p)
    probe_total = sum(pr.points for pr in probes)
    if not probes:
        return [ex.points / len(parts)] * len(parts), []
    if not parts:
        return [], [ex.points * pr.points / probe_total for pr in probes]
    if probe_total < ex.points:
        return [(ex.points - probe_total) / len(parts)] * len(parts), [pr.points for pr in probes]
    half = ex.points / 2
    return [half / len(parts)] * len(parts), [half * pr.points / probe_total for pr in probes]


def rubric_points(ex) -> float:
    return float(sum(item.points for item in ex.rubric))


# -- notebooks -------------------------------------------------------------------------------------------------

def _cell(kind: str, source: str, cell_id: str, tags=()) -> dict:
    cell = {"cell_type": kind, "id": cell_id, "metadata": {"tags": list(tags)} if tags else {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _notebook(cells: list, meta: dict) -> dict:
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"},
                                         "language_info": {"name": "python"}, "dp_classroom": meta},
            "nbformat": 4, "nbformat_minor": 5}


def setup_cell(chapter: str, seed: int, setup: str | None = None) -> str:
    source = specs.setup_source(chapter) if setup is None else setup.strip()
    lines = [source]
    if "make_rng" not in source:
        lines.append("from dp_lib import make_rng")
    if "import check" not in source:
        lines.append("from dp_lib.selfcheck import check")
    lines.append(f"\nrng = make_rng({seed})  # your own numbers: keep this line as it is")
    return "\n".join(lines)


INSTRUCTIONS = """\
**{name}** ({sid}) — your numbers differ from your classmates'.

Work through the exercises in order. Put each answer in its answer cell (`answer_... = ...`), then run the
check cell below it: it says *Correct!* or names the typical mistake (it accepts honest rounding). Open
questions are answered in the Markdown cells marked **Your answer**. Keep the setup cell and the names of the
answers as they are; you may add cells. Before you hand in, run *Kernel → Restart and Run All* and save.
Your notebook is graded by running it again from the top, so an answer must be computed or typed in a cell,
not only shown in an output. The grader runs its own copy of the setup cell (your edits to it are not used),
and runs your notebook a second time with another seed in `rng`: draw every random number of an exercise from
`rng` (unless the exercise gives its own seed), and compute a simulated answer from the draws rather than typing
a number in (a judgement or the value of a formula, such as a total ε in units of ε, may be typed).
"""

DRAWS_NOTE = ("\n\n*Draw the random numbers with `rng` from the setup cell: your notebook is also graded with "
              "another seed, and a Monte Carlo answer must follow it.*")


def student_notebook(chapter: str, exercises: list, student: dict, seed: int, params: dict,
                     *, solutions: bool = False, setup: str | None = None, title: str | None = None) -> dict:
    number = specs.chapter_number(chapter)
    title = title or specs.title(number)
    total = sum(ex.points for ex in exercises if ex.kind != "open") + sum(rubric_points(ex) for ex in exercises)
    cells = [_cell("markdown", f"# Chapter {int(number)}: {title} — assignment"
                   + (" (solutions)" if solutions else "") + "\n\n"
                   + INSTRUCTIONS.format(name=student["name"], sid=student["student_id"])
                   + f"\n{len(exercises)} exercises, {total:g} points.", "title"),
             _cell("code", setup_cell(number, seed, setup), "setup")]
    for i, ex in enumerate(exercises, start=1):
        p = params[ex.key]
        pts = (ex.points if ex.kind != "open" else 0) + rubric_points(ex)
        note = DRAWS_NOTE if getattr(ex, "randomness", "") == "draws" else ""
        cells.append(_cell("markdown", f"## Exercise {i}: {ex.title} ({pts:g} points)\n\n{ex.statement(p)}{note}",
                           f"{ex.key}-statement"))
        code = ex.setup_code(p)
        if code.strip():
            cells.append(_cell("code", code.strip(), f"{ex.key}-setup"))
        if ex.kind != "open":
            answer = f"{ex.name} = None  # your answer here"
            if solutions:
                answer = f"{ex.name} = {to_plain(ex.solve(p))!r}  # the reference answer (plain form)"
            cells.append(_cell("code", answer, f"{ex.key}-answer", ["answer"]))
            cells.append(_cell("code", f'check({ex.name}, "{encode(ex.check_doc(p))}")', f"{ex.key}-check",
                               ["check", "raises-exception"]))
        if ex.kind != "auto":
            text = f"**Your answer** ({ex.key}): {ex.prompt}\n\n"
            if solutions:
                text += "\n".join(f"- *{item.criterion}* ({item.points:g}): {item.full}" for item in ex.rubric)
            else:
                text += "*Write your answer here.*"
            cells.append(_cell("markdown", text, f"{ex.key}-open", ["open-answer"]))
    return _notebook(cells, {"chapter": number, "student_id": student["student_id"]})


def rubric_markdown(chapter: str, exercises: list, title: str | None = None) -> str:
    number = specs.chapter_number(chapter)
    out = [f"# Rubric — Chapter {int(number)}: {title or specs.title(number)}", "",
           "The open parts, graded by hand. Fill the gradebook's `<key> (manual)` columns with the points.", ""]
    any_open = False
    for i, ex in enumerate(exercises, start=1):
        if not ex.rubric:
            continue
        any_open = True
        out += [f"## Exercise {i} ({ex.key}): {ex.title} — {rubric_points(ex):g} points", "",
                f"**Question.** {ex.prompt}", "",
                "| criterion | points | full credit | partial credit | no credit |", "|---|---|---|---|---|"]
        for item in ex.rubric:
            cells = [item.criterion, f"{item.points:g}", item.full, item.partial, item.none]
            out.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
        out.append("")
    if not any_open:
        out.append("This chapter's exercises have no open part.")
    return "\n".join(out) + "\n"


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def assign(chapters: list[str], roster: list[dict], out: Path, key: bytes, *, solutions: bool = True,
           exercises: list | None = None, setup: str | None = None, title: str | None = None) -> list[Path]:
    """Write the assignments; the folders written (one per chapter).

    ``exercises``, ``setup`` and ``title`` replace the chapter's specification (one chapter; tests use it)."""
    written = []
    given = exercises
    for chapter in chapters:
        number = specs.chapter_number(chapter)
        exercises = specs.memo(given if given is not None else specs.exercises(number))
        title = title or specs.title(number)
        if not exercises:
            raise ValueError(f"chapter {chapter!r} has no exercise specification (exercises/ch{number}.py)")
        folder = Path(out) / number
        manifest = {"chapter": number, "title": title,
                    "exercises": [{"key": ex.key, "name": ex.name, "title": ex.title, "kind": ex.kind,
                                   "points": ex.points if ex.kind != "open" else 0.0,
                                   "rubric_points": rubric_points(ex)} for ex in exercises],
                    "setup": specs.setup_source(number) if setup is None else setup.strip(),
                    "students": {}}
        for student in roster:
            sid = student["student_id"]
            seed = seed_for(key, number, sid)
            params = student_params(exercises, seed)
            _write_json(folder / "student" / f"{sid}.ipynb",
                        student_notebook(number, exercises, student, seed, params, setup=setup, title=title))
            if solutions:
                _write_json(folder / "solutions" / f"{sid}.ipynb", student_notebook(
                    number, exercises, student, seed, params, solutions=True, setup=setup, title=title))
            manifest["students"][sid] = {
                "name": student["name"], "email": student["email"], "seed": seed,
                "hidden_seeds": hidden_seeds(key, number, sid),
                "params": {k: to_plain(v) for k, v in params.items()},
                "points": {ex.key: {"parts": auto_points(ex, params[ex.key])[0],
                                    "probes": auto_points(ex, params[ex.key])[1],  # memoized: computed once
                                    "rubric": rubric_points(ex)} for ex in exercises}}
        _write_json(folder / "grader" / "manifest.json", manifest)
        (folder / "rubric.md").write_text(rubric_markdown(number, exercises, title), encoding="utf-8")
        title = None if given is None else title
        os.chmod(folder / "grader", 0o700)
        written.append(folder)
    return written


def main(args) -> int:
    key = load_key(args.key_file)
    roster = read_roster(args.roster)
    for folder in assign(args.chapters, roster, Path(args.out), key, solutions=not args.no_solutions):
        print(f"{folder}: {len(roster)} student notebooks in student/, grader/manifest.json, rubric.md"
              + ("" if args.no_solutions else ", solutions/"))
    return 0
