"""The exercises whose answer or numbering changed between two releases (two git refs).

Usage (from the repository root):

    python -m tools.changed_answers v0.2.0 HEAD            # Markdown, for the CHANGELOG's release entry
    python -m tools.changed_answers v0.2.0 v0.3.0 --json   # the same as data
    python -m tools.changed_answers v0.2.0 HEAD --write-changelog   # into CHANGELOG.md's top entry

It reads the chapter notebooks of both refs with ``git show REF:path`` (the numbered chapters of ``_toc.yml`` at
that ref, then the other notebooks in ``chapters/``) and finds the exercises: each ``{exercise}`` directive with
its ``:label:`` and title, numbered as the book numbers them ("Exercise 5.2": chapter 5 of the toc, second
exercise), together with the cells after it up to the next exercise or heading. An exercise is the same in both
refs when its label is (else: the same chapter file and position). It reports

* **added** and **removed** exercises; **renumbered** ones (another chapter number or position) and **retitled**
  ones;
* **answer changed**: the outputs of its solution cells changed (tag ``solution``: the printed and displayed
  text, and the glued values that both refs glue; figures are not compared, a newly glued value is not a change),
  or its self-check did. A check cell
  ``check(answer_x, "dpx1:...")`` is compared by its decoded document (``dp_lib.selfcheck.decode``): the right
  values (shape, parts, extra conditions) are the answer, a change only in hints or typical mistakes is listed
  as such; any other check cell by its source. A check rewritten from one form to the other is named, and then
  only the solution outputs decide; a self-check added or removed is listed on its own;
* exercises whose statement text changed (the wording, shown for information).

Numbers are compared with a tolerance, so that the last bit of a float (``log``/``exp`` differ across CPUs) is not
a change: relative 1e-9, and one unit in the last printed decimal of a number printed with at least five
significant digits and a decimal point (a rounded print of a value whose last bit moved). Maintainer tooling,
not part of ``dp_lib``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- changed exercises: begin (python -m tools.changed_answers REF1 REF2 --write-changelog) -->"
END = "<!-- changed exercises: end -->"
EXERCISE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{exercise\}[ \t]*(?P<title>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                      re.M | re.S)
LABEL = re.compile(r"^:label:[ \t]*(\S+)[ \t]*$", re.M)
OPTION = re.compile(r"^:[\w-]+:.*$\n?", re.M)
HEADING = re.compile(r"^#{1,6} ", re.M)
ENCODED_CHECK = re.compile(r"""check\(\s*\w+\s*,\s*["'](dpx\d+:[A-Za-z0-9+/=]+)["']\s*\)""")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
REL_TOL, ABS_TOL = 1e-9, 1e-12
ANSWER_KEYS = ("path", "kind", "lo", "hi", "value", "part")  # of a part or an extra condition: the right answer


# ---- reading a ref ---------------------------------------------------------------------------------------------

def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def chapter_files(repo: Path, ref: str) -> list[tuple[str, int | None]]:
    """``(path, chapter number or None)`` of the chapter notebooks at ``ref``: the numbered part of ``_toc.yml`` in
    its order, then the other notebooks of ``chapters/``."""
    import yaml

    listed = [p for p in git(repo, "ls-tree", "--name-only", ref, "chapters/").split() if p.endswith(".ipynb")]
    numbered: list[str] = []
    try:
        toc = yaml.safe_load(git(repo, "show", f"{ref}:_toc.yml")) or {}
    except SystemExit:
        toc = {}
    for part in toc.get("parts", []):
        if part.get("numbered"):
            numbered += [f"{entry['file']}.ipynb" for entry in part.get("chapters", []) if "file" in entry]
    numbered = [p for p in numbered if p in listed]
    return [(p, i) for i, p in enumerate(numbered, 1)] + [(p, None) for p in sorted(listed) if p not in numbered]


@dataclass
class Exercise:
    chapter: str                # file stem
    chapter_number: int | None  # in the numbered part of the toc
    position: int               # 1, 2, ... in the chapter
    label: str
    title: str
    statement: str
    solution_outputs: list[str] = field(default_factory=list)  # what a reader sees
    glued: dict[str, str] = field(default_factory=dict)  # glue name -> text/plain (the numbers the prose quotes)
    checks: list = field(default_factory=list)  # per check cell: {"doc": decoded} or {"source": text}

    @property
    def number(self) -> str:
        return f"{self.chapter_number if self.chapter_number else self.chapter}.{self.position}"

    @property
    def key(self) -> str:
        return self.label or f"{self.chapter}#{self.position}"


def _plain_outputs(cell: dict) -> tuple[list[str], dict[str, str]]:
    """The text of a code cell's visible outputs: stream text, text/plain (or HTML when there is no plain text),
    errors; and its glued values by name. Figures and widget views are left out."""
    texts, glued = [], {}
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            texts.append("".join(out.get("text", "")))
        elif kind == "error":
            texts.append(f"{out.get('ename')}: {out.get('evalue')}")
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            name = (out.get("metadata", {}).get("scrapbook") or {}).get("name")
            if name:
                glued[name] = "".join(next((v for m, v in data.items() if m.endswith("text/plain")), ""))
                continue
            value = data.get("text/plain") or data.get("text/html") or data.get("text/markdown")
            if value is not None:
                texts.append("".join(value))
    return texts, glued


def _check_entry(source: str) -> dict:
    match = ENCODED_CHECK.search(source)
    if match:
        try:
            from dp_lib.selfcheck import decode

            return {"doc": decode(match.group(1))}
        except (ImportError, ValueError, TypeError):
            pass
    return {"source": source}


def exercises_of(nb: dict, chapter: str, number: int | None) -> list[Exercise]:
    """The exercises of one notebook, each with the cells that follow it."""
    found: list[Exercise] = []
    current: Exercise | None = None
    for cell in nb.get("cells", []):
        source = "".join(cell.get("source", ""))
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.get("cell_type") == "markdown":
            matches = list(EXERCISE.finditer(source))
            if matches:
                for match in matches:
                    label = LABEL.search(match.group("body"))
                    current = Exercise(chapter, number, len(found) + 1, label.group(1) if label else "",
                                       match.group("title").strip(), OPTION.sub("", match.group("body")).strip())
                    found.append(current)
            elif HEADING.search(source) and "{solution" not in source:
                current = None  # a new section (References, ...) ends the exercises
            continue
        if current is None or cell.get("cell_type") != "code":
            continue
        if "solution" in tags:
            texts, glued = _plain_outputs(cell)
            current.solution_outputs += texts
            current.glued.update(glued)
        if "check" in tags:
            current.checks.append(_check_entry(source))
    return found


def read_ref(repo: Path, ref: str) -> list[Exercise]:
    exercises = []
    for path, number in chapter_files(repo, ref):
        nb = json.loads(git(repo, "show", f"{ref}:{path}"))
        exercises += exercises_of(nb, PurePosixPath(path).stem, number)
    return exercises


# ---- comparing, with a tolerance for the last bit ----------------------------------------------------------------

def _significant_digits(token: str) -> int:
    mantissa = re.split(r"[eE]", token)[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mantissa)


def numbers_close(a: str, b: str) -> bool:
    """Two printed numbers that differ at most in the last bit of the value (see the module docstring)."""
    x, y = float(a), float(b)
    if math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL):
        return True
    if "." in a and "." in b and min(_significant_digits(a), _significant_digits(b)) >= 5:
        decimals = min(len(re.split(r"[eE]", t)[0].split(".")[1]) for t in (a, b))
        scale = 10.0 ** int(re.split(r"[eE]", a)[1]) if re.search(r"[eE]", a) else 1.0
        return abs(x - y) <= 10.0 ** -decimals * scale * (1 + 1e-9)
    return False


def texts_equal(a: str, b: str) -> bool:
    """Equal up to runs of white space and last-bit differences of the numbers in them."""
    a, b = " ".join(a.split()), " ".join(b.split())
    if a == b:
        return True
    numbers_a, numbers_b = NUMBER.findall(a), NUMBER.findall(b)
    if NUMBER.split(a) != NUMBER.split(b) or len(numbers_a) != len(numbers_b):
        return False
    return all(numbers_close(x, y) for x, y in zip(numbers_a, numbers_b))


def values_equal(a, b) -> bool:
    """JSON values equal, floats within the tolerance."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL) or a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return a == b


def _answer_of(doc: dict) -> dict:
    """The part of a check document that is the right answer (not the hints, not the typical mistakes)."""
    def pick(item: dict) -> dict:
        return {k: item[k] for k in ANSWER_KEYS if k in item}

    return {"shape": doc.get("shape"), "parts": [pick(p) for p in doc.get("parts", [])],
            "checks": [pick(c) for c in doc.get("checks", [])]}


def compare_checks(old: list[dict], new: list[dict]) -> list[str]:
    """What changed between two exercises' check cells: [] when nothing did."""
    if len(old) != len(new):
        return [f"self-check cells: {len(old)} -> {len(new)}"]
    notes = []
    for before, after in zip(old, new):
        if "doc" in before and "doc" in after:
            if not values_equal(_answer_of(before["doc"]), _answer_of(after["doc"])):
                notes.append("right answer of the check changed")
            elif not values_equal(before["doc"], after["doc"]):
                notes.append("check hints or typical mistakes changed")
        elif "source" in before and "source" in after:
            if not texts_equal(before["source"], after["source"]):
                notes.append("check cell changed")
        else:
            notes.append("check rewritten as an encoded check" if "doc" in after else "check rewritten as code")
    return notes


# ---- the report -----------------------------------------------------------------------------------------------

@dataclass
class Change:
    kind: str        # added | removed | renumbered | retitled | answer | statement | check-format | check-hints
    label: str
    old: str         # "Exercise 5.2 (05_auditing)" or ""
    new: str
    detail: str = ""


def _where(ex: Exercise | None) -> str:
    return "" if ex is None else f"Exercise {ex.number} ({ex.chapter})"


def compare(old: list[Exercise], new: list[Exercise]) -> list[Change]:
    before = {e.key: e for e in old}
    after = {e.key: e for e in new}
    changes: list[Change] = []
    for key, ex in after.items():
        if key not in before:
            changes.append(Change("added", ex.label, "", _where(ex), ex.title))
    for key, ex in before.items():
        if key not in after:
            changes.append(Change("removed", ex.label, _where(ex), "", ex.title))
    for key in [k for k in after if k in before]:
        a, b = before[key], after[key]
        if a.number != b.number or a.chapter != b.chapter:
            changes.append(Change("renumbered", b.label, _where(a), _where(b)))
        if a.title != b.title:
            changes.append(Change("retitled", b.label, _where(a), _where(b), f"{a.title!r} -> {b.title!r}"))
        answer_notes = []
        if len(a.solution_outputs) != len(b.solution_outputs) or not all(
                texts_equal(x, y) for x, y in zip(a.solution_outputs, b.solution_outputs)):
            answer_notes.append("solution output changed")
        moved = [n for n in sorted(a.glued.keys() & b.glued.keys()) if not texts_equal(a.glued[n], b.glued[n])]
        if moved:
            answer_notes.append("glued " + ", ".join(f"{n} {a.glued[n]} -> {b.glued[n]}" for n in moved))
        check_notes = compare_checks(a.checks, b.checks)
        answer_notes += [n for n in check_notes if n in ("right answer of the check changed", "check cell changed")]
        if answer_notes:
            changes.append(Change("answer", b.label, _where(a), _where(b), "; ".join(answer_notes)))
        for note in check_notes:
            kind = ("check-format" if note.startswith("check rewritten") else "check-hints"
                    if note.startswith("check hints") else "check-count" if note.startswith("self-check cells") else "")
            if kind:
                changes.append(Change(kind, b.label, _where(a), _where(b), note))
        if not texts_equal(a.statement, b.statement):
            changes.append(Change("statement", b.label, _where(a), _where(b)))
    return changes


SECTIONS = [
    ("answer", "Answer changed (solution outputs or the self-check's right values)"),
    ("added", "Added"),
    ("removed", "Removed"),
    ("renumbered", "Renumbered"),
    ("retitled", "Retitled"),
    ("check-count", "Self-check added or removed"),
    ("check-format", "Self-check rewritten (compare the solution outputs; hints may differ)"),
    ("check-hints", "Self-check hints or typical mistakes changed (same right answer)"),
    ("statement", "Statement reworded (for information)"),
]


def report_markdown(changes: list[Change], ref1: str, ref2: str) -> str:
    lines = [f"Exercises compared between `{ref1}` and `{ref2}` by `python -m tools.changed_answers {ref1} {ref2}`."]
    if not changes:
        return lines[0] + " No exercise was added, removed, renumbered or retitled, and no answer changed."
    for kind, heading in SECTIONS:
        items = [c for c in changes if c.kind == kind]
        if not items:
            continue
        lines += ["", f"**{heading}** ({len(items)}):", ""]
        for c in items:
            where = c.new or c.old
            if kind == "renumbered":
                where = f"{c.old} → {c.new}"
            label = f" `{c.label}`" if c.label else ""
            lines.append(f"- {where}{label}" + (f": {c.detail}" if c.detail and kind not in ("check-format",) else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.changed_answers", description=__doc__.split("\n\n")[0])
    parser.add_argument("ref1", help="the older release (a tag, branch or commit)")
    parser.add_argument("ref2", help="the newer one (e.g. HEAD)")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the git repository (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the changes as JSON")
    parser.add_argument("--write-changelog", action="store_true",
                        help="write the report into CHANGELOG.md between its marker comments")
    args = parser.parse_args(argv)
    changes = compare(read_ref(args.repo, args.ref1), read_ref(args.repo, args.ref2))
    if args.json:
        print(json.dumps([asdict(c) for c in changes], indent=1, ensure_ascii=False))
    else:
        text = report_markdown(changes, args.ref1, args.ref2)
        print(text)
        if args.write_changelog:
            from tools.generated_block import write_between

            write_between(args.repo / "CHANGELOG.md", BEGIN, END, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
