"""``grade``: run every submitted notebook in a sandbox, evaluate its answers here, write the gradebook.

The student is identified by the file name (``<student_id>.ipynb``, or ``--pattern`` for an LMS export); the
notebook's own metadata is never read. Every submission is read into memory first; then each one's code cells
run in a fresh sandboxed child process (``tools/classroom/sandbox.py``) that reports only the plain data of the
``answer_*`` names of the assignment and the results of the probes (the student's functions called on hidden
inputs). Everything is evaluated in this process against the student's own parameters, recomputed from the
seed in ``grader/manifest.json`` with the exercise specifications: the parts and conditions
(``dp_lib.selfcheck.evaluate``), the probes (``Probe.expect``). A broken submission (an exception, a loop, a
huge allocation, deleted cells, a file that is no notebook) costs its student, never the batch.

The setup cell is always the manifest's (the student's copy, cell id ``setup`` or the cell with the seed line,
is dropped), and every submission runs twice: with the student's seed, and with a hidden seed (from the course
key, in the manifest only) in that setup cell. Each exercise declares how its answer may depend on the seed
(``Exercise.randomness``): "none"/"fixed-seed" answers must be the same in both runs, "draws" answers must pass
the parts again and change, "either" answers must pass again. A part that fails this *reseeded* test loses its
points; a rerun that does not finish is tried once more, then costs every part that was right. When a "draws"
answer is the same in both runs, a third run with the second hidden seed decides (an honest answer of a few
hundred trials repeats by chance a few times in a thousand).

Outputs in ``--out``: ``gradebook.csv`` (one row per roster student), ``grades_long.csv`` (one row per hidden
test: kind ``part``, ``reseeded`` or ``probe``, and ``manual`` rubric items), ``feedback/<student_id>.md`` and
``grading_log.csv`` (status and seconds per submission).
"""

from __future__ import annotations

import csv
import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from dp_lib.selfcheck import _at, evaluate, to_plain
from exercises._core import RANDOMNESS
from tools.classroom import assign as assign_mod
from tools.classroom import sandbox, specs
from tools.classroom.checks import same_doc

SEED_MARK = "# your own numbers: keep this line as it is"  # the line assign writes into the setup cell
RESEEDED = "hidden: another random seed"
_ABSENT = object()


@dataclass
class Line:
    """One graded item: a part, a probe, or a manual (rubric) item."""

    exercise: str
    part: str
    points: float | None  # None: to be graded by hand
    max: float
    status: str  # "ok", "failed", "missing", "manual", "skipped"
    hint: str = ""
    kind: str = "part"  # "part" (the official run), "reseeded" (the hidden-seed run), "probe", "manual"


@dataclass
class StudentGrade:
    student_id: str
    name: str
    email: str
    lines: list[Line] = field(default_factory=list)
    problem: str = ""  # what went wrong with the submission as a whole
    copied_from: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cells: list = field(default_factory=list)
    submitted: bool = True

    def exercise_points(self, key: str) -> float:
        return round(sum(x.points for x in self.lines if x.exercise == key and x.points is not None), 4)

    @property
    def total(self) -> float:
        return round(sum(x.points for x in self.lines if x.points is not None), 4)


def find_assignment(folder: Path, chapter: str | None = None) -> Path:
    """The chapter folder (with ``grader/manifest.json``) inside an assignment folder."""
    folder = Path(folder)
    if (folder / "grader" / "manifest.json").exists():
        return folder
    if chapter:
        return find_assignment(folder / specs.chapter_number(chapter))
    found = sorted(p.parent.parent for p in folder.glob("*/grader/manifest.json"))
    if len(found) != 1:
        raise ValueError(f"assignment {folder}: expected one chapter folder with grader/manifest.json, found "
                         f"{[p.name for p in found]}; pass the chapter's folder (DIR/02)")
    return found[0]


def collect(submissions: Path, pattern: str) -> tuple[dict[str, bytes], list[str]]:
    """{student_id: file bytes} for the files whose name matches ``pattern`` (group ``id``); ignored names."""
    regex = re.compile(pattern)
    found, ignored = {}, []
    for path in sorted(Path(submissions).iterdir()):
        match = regex.fullmatch(path.name)
        if not path.is_file() or not match or not match.groupdict().get("id"):
            ignored.append(path.name)
            continue
        sid = match.group("id")
        if sid in found:
            ignored.append(path.name + " (second file for the same student)")
            continue
        found[sid] = path.read_bytes()[: 50 * 2**20]
    return found, ignored


def code_cells(raw: bytes, *, drop_setup: bool = False) -> list[str]:
    """The code cells' sources of a notebook file, in order (ValueError when it is no notebook).

    With ``drop_setup`` the student's copy of the setup cell (id ``setup``, or a cell with the seed line that
    assign writes) is left out: the grader runs the manifest's own setup cell instead."""
    try:
        nb = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the file is not a valid notebook (invalid JSON)") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("the file is not a notebook (no list of cells)")
    sources = []
    for cell in nb["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            src = "".join(s for s in src if isinstance(s, str)) if isinstance(src, list) else str(src)
            if drop_setup and (cell.get("id") == "setup" or SEED_MARK in src):
                continue
            sources.append("\n".join(line for line in src.splitlines()
                                     if not line.lstrip().startswith(("%", "!"))))  # IPython magics: skipped
    return sources


def part_values(plain, doc: dict) -> list:
    """The value of each part of a plain answer (``_ABSENT`` where there is none), as ``evaluate`` reads them."""
    values = []
    for i, part in enumerate(doc["parts"]):
        try:
            base = plain if doc.get("shape") is None else plain[i]
            values.append(_at(base, part.get("path", "")))
        except (KeyError, IndexError, TypeError, ValueError):
            values.append(_ABSENT)
    return values


def _same(a, b) -> bool:
    """Two part values equal, floats within 1e-9 relative."""
    if a is _ABSENT or b is _ABSENT:
        return a is b
    return same_doc(a, b, 1e-9)


class Grader:
    """Grades submissions of one chapter assignment (exercises and setup may be given, as tests do)."""

    def __init__(self, assignment: Path, *, exercises: list | None = None, limits: sandbox.Limits | None = None,
                 use_sandbox: bool = True, jobs: int = 2, workroot: Path | None = None, reseed: bool = True,
                 pool: ThreadPoolExecutor | None = None):
        self.folder = Path(assignment)
        self.manifest = json.loads((self.folder / "grader" / "manifest.json").read_text(encoding="utf-8"))
        self.exercises = specs.memo(exercises if exercises is not None else specs.exercises(self.manifest["chapter"]))
        self.limits, self.use_sandbox, self.jobs, self.workroot = limits or sandbox.Limits(), use_sandbox, jobs, workroot
        self.params = {}
        self._docs = {}
        self.warnings = []
        self.setup = self.manifest.get("setup")
        if self.setup is None and exercises is None:  # a manifest written before the setup was stored
            self.setup = specs.setup_source(self.manifest["chapter"])
        self.reseed = reseed and all(e.get("hidden_seeds") for e in self.manifest["students"].values())
        if reseed and not self.reseed:
            self.warnings.append("the manifest has no hidden seeds (written by an older assign): graded without the "
                                 "reseeded runs; run assign again with the same key (the student files do not change)")
        for ex in self.exercises:
            if ex.kind != "open" and getattr(ex, "randomness", "") not in RANDOMNESS:
                self.warnings.append(f"{ex.key}: no randomness declaration (one of {', '.join(RANDOMNESS)}); its "
                                     "reseeded test is skipped")
        self._pool = pool or ThreadPoolExecutor(max_workers=max(1, jobs))  # the sandboxed runs, ``jobs`` at a time
        for sid, entry in self.manifest["students"].items():
            params = assign_mod.student_params(self.exercises, entry["seed"])
            for key, value in params.items():
                if key in entry["params"] and to_plain(value) != entry["params"][key]:
                    self.warnings.append(f"{sid} {key}: the specification now draws other numbers than at "
                                         "assign time; graded with the numbers of the student's notebook")
                    params[key] = entry["params"][key]
            self.params[sid] = params

    def doc(self, sid: str, ex) -> dict:
        """The check document of an exercise for a student's numbers (computed once: a spec may be slow)."""
        key = (sid, ex.key)
        if key not in self._docs:
            self._docs[key] = ex.check_doc(self.params[sid][ex.key])
        return self._docs[key]

    def parts(self, sid: str, ex) -> list:
        key = (sid, ex.key, "parts")
        if key not in self._docs:
            self._docs[key] = ex.parts(self.params[sid][ex.key])
        return self._docs[key]

    def _job(self, sid: str):
        answers = [ex.name for ex in self.exercises if ex.kind != "open"]
        probes = []
        for ex in self.exercises:
            if ex.kind == "open":
                continue
            try:
                tests = ex.hidden_tests(self.params[sid][ex.key])
            except Exception:  # noqa: BLE001 - reported when the exercise is scored
                continue
            for probe in tests:
                probes.append({"name": f"{ex.key}:{probe.name}", "function": probe.function,
                               "args": to_plain(list(probe.args))})
        return answers, probes

    def cells_for(self, sid: str, cells: list[str], seed: int) -> list[str]:
        """The manifest's setup cell with ``seed``, then the student's code cells (their setup cell dropped)."""
        if self.setup is None:
            return cells
        return [assign_mod.setup_cell(self.manifest["chapter"], seed, self.setup), *cells]

    def _run(self, cells: list[str], answers: list[str], probes: list[dict]):
        return self._pool.submit(sandbox.run, cells, answers, probes, sandbox=self.use_sandbox, limits=self.limits,
                                 workroot=self.workroot)

    def run_one(self, sid: str, raw: bytes) -> StudentGrade:
        entry = self.manifest["students"][sid]
        grade = StudentGrade(sid, entry["name"], entry.get("email", ""))
        try:
            cells = code_cells(raw, drop_setup=self.setup is not None)
        except ValueError as error:
            grade.problem = str(error)
            self._score(grade, None)
            return grade
        answers, probes = self._job(sid)
        hidden = entry.get("hidden_seeds") or [] if self.reseed else []
        own = self._run(self.cells_for(sid, cells, entry["seed"]), answers, probes)
        again = self._run(self.cells_for(sid, cells, hidden[0]), answers, []) if hidden else None  # in parallel
        result = own.result()
        reruns = [again.result()] if again else []
        grade.seconds, grade.cells = result.seconds, result.cells
        grade.problem = result.problem
        if reruns and result.report and reruns[0].report is None:  # once more, alone: a busy machine is no reason
            reruns[0] = self._run(self.cells_for(sid, cells, hidden[0]), answers, []).result()  # to lose points
        if reruns and result.report and reruns[0].report and len(hidden) > 1 \
                and self._repeated(sid, result.report, reruns[0].report):
            reruns.append(self._run(self.cells_for(sid, cells, hidden[1]), answers, []).result())
        grade.seconds += sum(r.seconds for r in reruns)
        self._score(grade, result.report, reruns if hidden else None)
        return grade

    def _repeated(self, sid: str, first: dict, second: dict) -> bool:
        """A "draws" exercise with a right part whose answer is the same in both runs (a third run decides)."""
        for ex in self.exercises:
            if ex.kind == "open" or getattr(ex, "randomness", "") != "draws":
                continue
            doc = self.doc(sid, ex)
            one, two = first["answers"].get(ex.name), second["answers"].get(ex.name)
            if any(r.ok for r in evaluate(one, doc)) and all(
                    _same(a, b) for a, b in zip(part_values(one, doc), part_values(two, doc))):
                return True
        return False

    def _score(self, grade: StudentGrade, report: dict | None, reruns: list | None = None) -> None:
        sid = grade.student_id
        answers = (report or {}).get("answers", {})
        probes = (report or {}).get("probes", {})
        for ex in self.exercises:
            try:
                self._score_exercise(grade, ex, answers, probes, reruns)
            except Exception as error:  # noqa: BLE001 - a broken specification: the teacher grades it by hand
                grade.lines = [x for x in grade.lines if x.exercise != ex.key]
                grade.lines.append(Line(ex.key, "specification error", None, float(ex.points), "manual",
                                        f"the grader could not evaluate this exercise ({type(error).__name__}: "
                                        f"{str(error)[:120]}); graded by hand"))
                self.warnings.append(f"{sid} {ex.key}: the specification raised {type(error).__name__}: {error}")
        if report is not None:
            try:
                grade.copied_from = self._copied(sid, answers)
            except Exception as error:  # noqa: BLE001
                self.warnings.append(f"{sid}: copy detection failed ({type(error).__name__}: {error})")

    def _score_exercise(self, grade: StudentGrade, ex, answers: dict, probes: dict, reruns: list | None) -> None:
        sid = grade.student_id
        p = self.params[sid][ex.key]
        part_points, probe_points = assign_mod.auto_points(ex, p)
        if ex.kind != "open":
            plain = answers.get(ex.name)
            results = evaluate(plain, self.doc(sid, ex))
            labels = [part.label for part in self.parts(sid, ex)]
            for r, pts in zip(results, part_points):
                status = "ok" if r.ok else ("missing" if plain is None else "failed")
                grade.lines.append(Line(ex.key, labels[r.part] or f"part {r.part + 1}",
                                        pts if r.ok else 0.0, pts, status, "" if r.ok else r.hint))
            if reruns is not None and getattr(ex, "randomness", "") in RANDOMNESS:
                grade.lines.append(self._reseeded(sid, ex, plain, results, part_points, labels, reruns))
            for probe, pts in zip(ex.hidden_tests(p), probe_points):
                got = probes.get(f"{ex.key}:{probe.name}")
                if got is None or "__error__" in got:
                    why = (got or {}).get("__error__", "not run")
                    hint = f"hidden test {probe.name}: `{probe.function}` did not run ({why})"
                else:
                    try:
                        hint = probe.expect(got.get("value"), p)
                        hint = None if hint is None else str(hint)
                    except Exception as error:  # noqa: BLE001 - an odd value from the student
                        hint = f"hidden test {probe.name}: unexpected result ({type(error).__name__})"
                grade.lines.append(Line(ex.key, f"hidden: {probe.name}", pts if hint is None else 0.0, pts,
                                        "ok" if hint is None else "failed", hint or "", kind="probe"))
        for item in ex.rubric:
            grade.lines.append(Line(ex.key, f"manual: {item.criterion}", None, float(item.points), "manual",
                                    kind="manual"))

    def _reseeded(self, sid: str, ex, plain, results: list, part_points: list, labels: list, reruns: list) -> Line:
        """The hidden-seed test of one exercise: a deduction of the points of the parts it affects (max 0)."""
        earned = [r.part for r in results if r.ok]
        if not earned:
            return Line(ex.key, RESEEDED, 0.0, 0.0, "skipped", "no part was right in the official run", "reseeded")
        mode, doc = ex.randomness, self.doc(sid, ex)
        second = reruns[0] if reruns else None
        if second is None or second.report is None:
            why = second.problem if second is not None else "not run"
            affected, hint = earned, ("with another seed in the setup cell your notebook did not finish, twice "
                                      f"({why}), so these answers could not be confirmed")
        else:
            again = second.report["answers"].get(ex.name)
            first_values = part_values(plain, doc)
            again_values = part_values(again, doc)
            if mode in ("none", "fixed-seed"):
                affected = [i for i in earned if not _same(first_values[i], again_values[i])]
                how = ("use the seed the exercise gives (make_rng(...)), not the setup cell's rng" if mode == "fixed-seed"
                       else "compute it exactly, it must not depend on the draws")
                hint = ("your answer changes with the random stream where it should not (with another "
                        f"seed in the setup cell it came out different): {how}")
            else:
                failed = {r.part: r.hint for r in evaluate(again, doc) if not r.ok}
                unchanged = mode == "draws" and all(_same(a, b) for a, b in zip(first_values, again_values))
                if unchanged and len(reruns) > 1 and reruns[1].report is not None:
                    third = part_values(reruns[1].report["answers"].get(ex.name), doc)
                    unchanged = all(_same(a, b) for a, b in zip(first_values, third))
                if unchanged:
                    affected = earned
                    hint = ("your answer does not change with the random seed: compute it from the "
                            "draws (rng of the setup cell), do not type it in")
                else:
                    affected = [i for i in earned if i in failed]
                    hint = "with another seed in the setup cell your answer fails: " + "; ".join(
                        dict.fromkeys(failed[i] for i in affected))
        if not affected:
            return Line(ex.key, RESEEDED, 0.0, 0.0, "ok", "", "reseeded")
        lost = sum(part_points[i] for i in affected)
        names = ", ".join(labels[i] or f"part {i + 1}" for i in affected)
        return Line(ex.key, RESEEDED, -lost, 0.0, "failed", f"{hint} (parts: {names})", "reseeded")

    def _copied(self, sid: str, answers: dict) -> list[str]:
        """Other students whose expected answers this submission matches where it fails its own."""
        sources = []
        for other in self.manifest["students"]:
            if other == sid:
                continue
            for ex in self.exercises:
                if ex.kind == "open" or answers.get(ex.name) is None:
                    continue
                plain = answers[ex.name]
                if to_plain(self.params[sid][ex.key]) == to_plain(self.params[other][ex.key]):
                    continue
                if not all(r.ok for r in evaluate(plain, self.doc(sid, ex))) \
                        and all(r.ok for r in evaluate(plain, self.doc(other, ex))):
                    sources.append(other)
                    break
        return sources

    def grade_all(self, submissions: dict[str, bytes]) -> list[StudentGrade]:
        """A grade per roster student (in roster order); submissions of unknown students are ignored."""
        known = {sid: raw for sid, raw in submissions.items() if sid in self.manifest["students"]}
        with ThreadPoolExecutor(max_workers=max(1, self.jobs)) as pool:  # each waits for its runs in self._pool
            futures = {sid: pool.submit(self.run_one, sid, raw) for sid, raw in known.items()}
            done = {sid: f.result() for sid, f in futures.items()}
        grades = []
        for sid, entry in self.manifest["students"].items():
            if sid in done:
                grades.append(done[sid])
            else:
                grade = StudentGrade(sid, entry["name"], entry.get("email", ""), submitted=False,
                                     problem="no submission")
                self._score(grade, None)
                grades.append(grade)
        return grades


# -- outputs ---------------------------------------------------------------------------------------------------

def gradebook_rows(exercises: list, grades: list[StudentGrade]) -> list[list]:
    header = ["student_id", "name", "email"]
    for ex in exercises:
        if ex.kind != "open":
            header.append(f"{ex.key} (auto)")
        if ex.rubric:
            header.append(f"{ex.key} (manual)")
    header += ["flag", "total"]
    rows = [header]
    for g in grades:
        row = [g.student_id, g.name, g.email]
        for ex in exercises:
            if ex.kind != "open":
                row.append(f"{g.exercise_points(ex.key):g}" if g.submitted else "0")
            if ex.rubric:
                row.append("")
        flags = []
        if not g.submitted:
            flags.append("no submission")
        elif g.problem:
            flags.append(g.problem)
        if g.copied_from:
            flags.append("answers match " + ", ".join(g.copied_from) + "'s numbers, not their own")
        row += ["; ".join(flags), f"{g.total:g}"]
        rows.append(row)
    return rows


def feedback(g: StudentGrade, exercises: list, title: str) -> str:
    out = [f"# Feedback: {title}", "", f"{g.name} ({g.student_id}) — automatic points: **{g.total:g}** of "
           f"{sum(x.max for x in g.lines if x.points is not None):g}", ""]
    if not g.submitted:
        out += ["No submission was received.", ""]
    elif g.problem:
        out += [f"**Your notebook could not be graded in full:** {g.problem}.", ""]
    if g.copied_from:
        out += ["**Note:** some of your answers are right for another student's numbers, not for yours. "
                "Your teacher will look at this.", ""]
    failed_cells = [c for c in g.cells if not c.get("ok")]
    if failed_cells:
        out += ["Cells that raised an error when your notebook was run from the top:", ""]
        out += [f"- code cell {int(c['index']) + 1}: {c['error']}: {c['message'][:160]}" for c in failed_cells[:10]]
        out.append("")
    for i, ex in enumerate(exercises, start=1):
        lines = [x for x in g.lines if x.exercise == ex.key]
        got = sum(x.points for x in lines if x.points is not None)
        top = sum(x.max for x in lines if x.points is not None)
        out.append(f"## Exercise {i}: {ex.title} — {got:g} / {top:g}" + (" (+ graded by hand)" if ex.rubric else ""))
        out.append("")
        for x in lines:
            if x.kind == "reseeded":
                if x.status == "ok":
                    out.append(f"- {x.part}: passed")
                elif x.status == "failed":
                    out.append(f"- {x.part}: loses {-x.points:g} point(s) — {x.hint}")
                continue
            if x.status == "ok":
                out.append(f"- {x.part}: correct ({x.points:g} / {x.max:g})")
            elif x.status == "manual":
                out.append(f"- {x.part} ({x.max:g} points): to be graded by your teacher")
            else:
                out.append(f"- {x.part}: 0 / {x.max:g} — {x.hint}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def write_outputs(out: Path, exercises: list, grades: list[StudentGrade], title: str) -> None:
    out = Path(out)
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    with open(out / "gradebook.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(gradebook_rows(exercises, grades))
    with open(out / "grades_long.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "exercise", "kind", "part", "points", "max", "status", "hint"])
        for g in grades:
            for x in g.lines:
                w.writerow([g.student_id, x.exercise, x.kind, x.part, "" if x.points is None else f"{x.points:g}",
                            f"{x.max:g}", x.status, x.hint])
    with open(out / "grading_log.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "submitted", "seconds", "problem", "failed_cells", "copied_from"])
        for g in grades:
            w.writerow([g.student_id, g.submitted, f"{g.seconds:.2f}", g.problem,
                        sum(1 for c in g.cells if not c.get("ok")), " ".join(g.copied_from)])
    for g in grades:
        (out / "feedback" / f"{g.student_id}.md").write_text(feedback(g, exercises, title), encoding="utf-8")


def main(args) -> int:
    folder = find_assignment(Path(args.assignment))
    submissions_dir = Path(args.submissions)
    out = Path(args.out) if args.out else submissions_dir.resolve().parent / "graded"
    abi = sandbox.landlock_abi()
    if abi < 1 and not args.no_sandbox:
        print("refusing to grade: this kernel has no Landlock (Linux >= 5.13 with Landlock enabled), so a "
              "submission could read the grader's files and other submissions. Grade on such a machine, or pass "
              "--no-sandbox to run the submissions with the process limits only.", file=sys.stderr)
        return 2
    use_sandbox = not args.no_sandbox
    if not use_sandbox:
        print("WARNING: --no-sandbox: submissions run with time and memory limits but can read every file you "
              "can (the grader folder, other submissions).", file=sys.stderr)
    else:
        try:
            sandbox.assert_protected([folder, submissions_dir, out, specs.EXERCISES])
        except ValueError as error:
            print(f"refusing to grade: {error}", file=sys.stderr)
            return 2
    limits = sandbox.Limits(timeout=args.timeout, cpu_seconds=args.cpu, memory_mib=args.memory,
                            cell_timeout=min(20.0, args.timeout / 2))
    submissions, ignored = collect(submissions_dir, args.pattern)  # everything in memory before any code runs
    grader = Grader(folder, limits=limits, use_sandbox=use_sandbox, jobs=args.jobs)
    for warning in grader.warnings:
        print("warning:", warning, file=sys.stderr)
    unknown = sorted(set(submissions) - set(grader.manifest["students"]))
    for name in ignored + [f"{sid} (not on the roster)" for sid in unknown]:
        print(f"ignored: {name}", file=sys.stderr)
    start = time.perf_counter()
    grades = grader.grade_all(submissions)
    wall = time.perf_counter() - start
    write_outputs(out, grader.exercises, grades, f"Chapter {int(grader.manifest['chapter'])}: "
                  f"{grader.manifest['title']}")
    ran = [g for g in grades if g.seconds]
    per = sum(g.seconds for g in ran) / len(ran) if ran else 0.0
    print(f"graded {len(ran)} submissions in {wall:.1f} s ({per:.1f} s each in its sandbox, {args.jobs} at a time"
          f"{', Landlock ABI %d' % abi if use_sandbox else ', NO SANDBOX'}); {out}/gradebook.csv, "
          f"grades_long.csv, feedback/")
    return 0
