"""The teacher's edition (``instructor/``, a Jupyter Book of its own): the generated parts of its chapter pages.

Each chapter of the main ``_toc.yml`` has a page ``instructor/<stem>.md`` written by hand (lecture plan, live
demonstrations, conceptual misconceptions) with four generated parts, rewritten by ``--write`` (and the intro
page ``instructor/intro.md`` has one, the preface's dependency map):

* the front matter's ``myst: substitutions:``: every ``{{ key }}`` the page uses is a value the chapter glues
  (MyST-NB ``glue``), formatted as the chapter's prose prints it (the first ``{glue:text}`key:fmt``` of the
  chapter), so a number a lecturer reads out is the number the students see;
* ``overview``: the chapter's file, learning objectives and prerequisites line (from its opening admonition);
* ``misconceptions``: the typical mistakes of the chapter's exercises, each as "Mistake: <the wrong value> for
  *part* — hint", from the exercise specification (``exercises/chNN.py``: the ``Mistake`` objects of
  ``Exercise.parts(default)``) where one exists for the exercise, else from the chapter's check cell (the mistakes
  of the decoded ``check(answer, "dpx1:...")`` document, or the messages of its ``assert ..., "hint"`` lines).
  Left out: a part's own hint (the message for any other wrong value: a recipe, not a misconception),
  answer-format hints ("answer_ex2 must be one of ...", "give the share as a fraction") and hints tied to one
  value of a list or grid ("at this k ...", "a smaller size already certifies ...", one hint for several values);
* ``exercises``: a table of the chapter's exercises (the number the book displays, "Exercise 2.1", as
  sphinx-exercise numbers them in chapter order; label, type, estimated minutes, homework/lab/exam, grading), from
  the specification where one exists, else from the chapter (see :func:`exercise_rows` for the rules).

Usage: ``python -m tools.instructor --write`` rewrites the generated parts of every page; ``--check`` lists
the pages whose generated parts are out of date (exit status 1). Maintainer tooling, not part of dp_lib.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from tools.generated_block import between, write_between

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "instructor"
BLOCKS = ("overview", "misconceptions", "exercises")
SUBSTITUTIONS_BEGIN = "    # substitutions: begin (python -m tools.instructor --write)"
SUBSTITUTIONS_END = "    # substitutions: end"


def markers(name: str) -> tuple[str, str]:
    """The marker comments of the generated block ``name``."""
    return f"<!-- {name}: begin (python -m tools.instructor --write) -->", f"<!-- {name}: end -->"


def chapters() -> list[str]:
    """The stems of the numbered chapters of the main book, in toc order (``02_laplace``, ...)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    stems = []
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            stem = Path(entry["file"]).name
            if re.match(r"\d\d_", stem):
                stems.append(stem)
    return stems


def page_path(stem: str) -> Path:
    return BOOK / f"{stem}.md"


# --- reading a chapter -------------------------------------------------------------------------------------------

@dataclass
class ChapterExercise:
    label: str
    statement: str
    answer: str = ""
    solution_lines: int = 0
    checks: list[str] = field(default_factory=list)  # sources of the check cells


@dataclass
class Chapter:
    stem: str
    title: str
    headings: list[str]
    code: str  # all code cells' sources
    markdown: str  # all markdown cells' sources
    glue: dict[str, str]  # key -> the glued text/plain
    exercises: list[ChapterExercise]

    @property
    def number(self) -> str:
        return self.stem[:2]


@lru_cache(maxsize=None)
def read_chapter(stem: str) -> Chapter:
    nb = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    title, headings, code, markdown, glue, exercises = "", [], [], [], {}, []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown":
            markdown.append(source)
            in_fence = False
            for line in source.splitlines():
                if line.startswith("```"):
                    in_fence = not in_fence
                if in_fence:
                    continue
                if line.startswith("# ") and not title:
                    title = line[2:].strip()
                elif re.match(r"#{2,3} ", line):
                    headings.append(line.lstrip("#").strip())
            found = re.search(r"`{3,}\{exercise\}[^\n]*\n:label: ([\w-]+)\n(.*?)\n`{3,}", source, re.S)
            if found:
                statement = found.group(2).strip()
                answer = re.search(r"`(answer_\w+)", statement)
                exercises.append(ChapterExercise(found.group(1), statement, answer.group(1) if answer else ""))
            continue
        code.append(source)
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                glue[name] = output["data"].get("application/papermill.record/text/plain", "")
        if exercises and "solution" in tags:
            exercises[-1].solution_lines += len([line for line in source.splitlines() if line.strip()])
        if exercises and "check" in tags:
            exercises[-1].checks.append(source)
            if not exercises[-1].answer:
                answer = re.search(r"\b(answer_\w+)", source)
                exercises[-1].answer = answer.group(1) if answer else ""
    return Chapter(stem, title, headings, "\n".join(code), "\n".join(markdown), glue, exercises)


# --- the numbers: substitutions from the chapter's glue ----------------------------------------------------------

GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`(?:[\w.-]+::)?(\w+)(?::([^`]*))?`")
SUBSTITUTION = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def glue_value(chapter: Chapter, key: str) -> str:
    """The glued value ``key`` of ``chapter`` as the chapter's prose prints it (its first format for the key)."""
    if key not in chapter.glue:
        raise KeyError(f"{chapter.stem} glues no value {key!r}")
    text = chapter.glue[key]
    fmt = next((f or "" for k, f in GLUE_ROLE.findall(chapter.markdown) if k == key), "")
    try:
        value = ast.literal_eval(re.sub(r"^np\.\w+\((.*)\)$", r"\1", text))
    except (ValueError, SyntaxError):
        return text
    return format(value, fmt) if fmt else str(value)


def substitutions(chapter: Chapter, page_text: str) -> str:
    """The front matter's generated lines: one ``key: "value"`` per ``{{ key }}`` of the page body."""
    body = page_text.split(SUBSTITUTIONS_END, 1)[-1]
    keys = sorted(set(SUBSTITUTION.findall(body)))
    return "\n".join(f"    {key}: {json.dumps(glue_value(chapter, key), ensure_ascii=False)}" for key in keys)


def plain_roles(text: str, chapter: Chapter) -> str:
    """Chapter markup made valid in the teacher's edition: glue roles become their values, references to labels
    of the main book their text; ``{doc}`` links to chapters stay (they reach the same chapter's notes here)."""
    text = GLUE_ROLE.sub(lambda m: glue_value(chapter, m.group(1)) if m.group(1) in chapter.glue else m.group(0),
                         text)
    text = re.sub(r"\{(?:ref|numref|prf:ref|eq)\}`([^`<]*?)\s*<[^`>]+>`", r"\1", text)
    text = re.sub(r"\{(?:ref|numref|prf:ref|eq)\}`([^`]+)`", r"`\1`", text)
    text = re.sub(r"\{cite(?::\w+)?\}`[^`]+`", "", text)
    text = re.sub(r"(the )?\{doc\}`00_preface`", "the book's preface", text)
    return text


# --- the overview block ------------------------------------------------------------------------------------------

def overview(chapter: Chapter) -> str:
    nb = json.loads((ROOT / "chapters" / f"{chapter.stem}.ipynb").read_text(encoding="utf-8"))
    opening = "".join(nb["cells"][0]["source"])
    found = re.search(r":::\{admonition\} Learning objectives\n(?::class:[^\n]*\n)?(.*?)\n:::", opening, re.S)
    if not found:
        raise SystemExit(f"{chapter.stem}: no Learning objectives admonition in the opening cell")
    lines = found.group(1).strip().splitlines()
    objectives = [line for line in lines if line.startswith("- ") or line.startswith("  ")]
    prereq = " ".join(line.strip() for line in lines[next(i for i, line in enumerate(lines)
                                                              if line.startswith("**Prerequisites:**")):])
    minutes = chapter.glue.get(f"ch{chapter.number}_reading_minutes")
    out = [f"Chapter notebook: `chapters/{chapter.stem}.ipynb`"
           + (f"; core reading time about {minutes} minutes." if minutes else "."),
           "", "**Learning objectives.** After this chapter the students can", ""]
    out += [plain_roles(line, chapter) for line in objectives]
    out += ["", plain_roles(prereq, chapter)]
    return "\n".join(out)


# --- exercises: specifications and check cells -------------------------------------------------------------------

def _warn(message: str) -> None:
    print(f"tools.instructor: {message}", file=sys.stderr)


@lru_cache(maxsize=None)
def specifications(number: str) -> tuple:
    """The chapter's exercise specifications (``exercises/chNN.py``), or () while none exists.

    A specification that does not import, or whose ``parts(default)`` raises, is skipped with a warning (its own
    tests, tests/test_exercises.py, report the error): the notes fall back to the chapter's check cell."""
    if not (ROOT / "exercises" / f"ch{number}.py").is_file():
        return ()
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        found = tuple(importlib.import_module(f"exercises.ch{number}").EXERCISES)
    except Exception as error:  # noqa: BLE001 - someone else's file, possibly mid-edit
        _warn(f"exercises/ch{number}.py does not import ({error!r}); using the chapter's check cells")
        return ()
    usable = []
    for spec in found:
        try:
            spec.parts(spec.default)
        except Exception as error:  # noqa: BLE001
            _warn(f"exercises/ch{number}.py: {spec.label or spec.key}.parts(default) raises {error!r}; "
                  "using the chapter's check cell")
            continue
        usable.append(spec)
    return tuple(usable)


def spec_for(chapter: Chapter, exercise: ChapterExercise):
    for spec in specifications(chapter.number):
        if spec.label == exercise.label or (exercise.answer and spec.name == exercise.answer):
            return spec
    return None


# Hints that are not misconceptions: how to write the answer down (its form, unit or rounding), and hints that
# make sense only next to one wrong value of a list or grid ("at this k ...", "a smaller size already ...").
FORMAT_HINT = re.compile(r"^(set answer_|answer_\w+ (must|has|is not|should)|answer with |give |use at least )"
                         r"|, not (as |in )?(a )?(percent|percentage)\b|\bto (at least )?two decimals\b", re.I)
VALUE_HINT = re.compile(r"^(close\b|this \w+ should |with [\d,]+ runs |integer orders only)|\bat this \w+\b"
                        r"|\b(already|still) (wins|certifies|refutes|shows)\b", re.I)


def _is_shape_hint(hint: str) -> bool:
    """An answer-format hint (``answer_ex2 must be one of ...``, ``give the share as a fraction``)."""
    return bool(FORMAT_HINT.search(hint))


def _is_misconception(hint: str) -> bool:
    """A hint that states a mistake on its own: not an answer-format hint, not one tied to a single wrong value."""
    return not _is_shape_hint(hint) and not VALUE_HINT.search(hint)


def _number(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _wrong_value(mistake: dict) -> str:
    """The wrong answer a mistake names, as a reader would write it: its value, or its interval when wide (a bound
    of 1e8 or more in size stands for no bound: the specifications write "any value above x" that way)."""
    lo, hi, value = mistake.get("lo"), mistake.get("hi"), mistake.get("value")
    if lo is None and hi is None:
        if value is None:
            return ""
        return _number(value) if isinstance(value, float) else str(value)
    lo = -math.inf if lo is None or lo <= -1e8 else float(lo)
    hi = math.inf if hi is None or hi >= 1e8 else float(hi)
    if not math.isfinite(lo):
        return f"at most {_number(hi)}" if math.isfinite(hi) else ""
    if not math.isfinite(hi):
        return f"at least {_number(lo)}"
    middle = (lo + hi) / 2
    if hi - lo <= 0.05 * abs(middle) or hi - lo < 1e-12:
        return _number(middle)
    if hi - lo <= 0.01:  # an absolute tolerance around a small value
        return f"about {_number(middle if abs(middle) > (hi - lo) / 100 else 0.0)}"
    return f"{_number(lo)} to {_number(hi)}"


def _mistakes(parts: list[tuple[str, list[dict]]]) -> list[tuple[str, str, str]]:
    """(part, wrong value, hint) of the typical mistakes worth teaching: each part's ``mistakes`` (never the part's
    own hint, the message for any other wrong value, which is a recipe), without answer-format and value-dependent
    hints, nor a hint that a part gives for several wrong values (an enumeration of a list or grid)."""
    out = []
    for label, mistakes in parts:
        counts: dict[str, int] = {}
        for mistake in mistakes:
            counts[mistake["hint"]] = counts.get(mistake["hint"], 0) + 1
        out += [(label, _wrong_value(m), m["hint"]) for m in mistakes
                if counts[m["hint"]] == 1 and _is_misconception(m["hint"])]
    return out


def check_cell_hints(source: str) -> list[tuple[str, str, str]]:
    """(part, wrong value, hint) for the typical mistakes a check cell names: the mistakes of the decoded
    ``check(answer, "dpx1:...")`` documents, else the constant messages of its ``assert`` lines (without a value);
    filtered as :func:`_mistakes` filters a specification's."""
    from dp_lib.selfcheck import decode

    hints = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check" and len(node.args) == 2
                and isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("dpx1:")):
            doc = decode(node.args[1].value)
            hints += _mistakes([(part.get("label", ""), part.get("mistakes", [])) for part in doc["parts"]])
        elif isinstance(node, ast.Assert) and isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
            if _is_misconception(node.msg.value):
                hints.append(("", "", node.msg.value))
    return hints


def exercise_hints(chapter: Chapter, exercise: ChapterExercise) -> tuple[str, list[tuple[str, str, str]]]:
    """Where the mistakes come from ("spec" or "check cell") and their (part, wrong value, hint), without repeats."""
    spec = spec_for(chapter, exercise)
    if spec is not None:
        source = "spec"
        hints = _mistakes([(part.label, [m.doc() for m in part.mistakes]) for part in spec.parts(spec.default)])
    else:
        source = "check cell"
        hints = [triple for check in exercise.checks for triple in check_cell_hints(check)]
    seen, unique = set(), []
    for part, value, hint in hints:
        if hint not in seen:
            seen.add(hint)
            unique.append((part, value, hint))
    return source, unique


def _mistake_line(part: str, value: str, hint: str, chapter: Chapter) -> str:
    """``Mistake: <value> for *part* — hint`` (the hint as the self-check shows it next to that answer)."""
    what = f"{value} for *{part}*" if value and part else value or (f"*{part}*" if part else "")
    hint = plain_roles(hint, chapter)
    return f"  - Mistake: {what} — {hint}" if what else f"  - Mistake: {hint}"


def misconceptions(chapter: Chapter) -> str:
    out = []
    for exercise in chapter.exercises:
        source, hints = exercise_hints(chapter, exercise)
        if not hints:
            continue
        out.append(f"- **{exercise.label}** (from the {'exercise specification' if source == 'spec' else source}):")
        out += [_mistake_line(part, value, hint, chapter) for part, value, hint in hints]
    return "\n".join(out) if out else "(The chapter's exercises name no typical mistakes yet.)"


TYPE_WORDS = (("find-the-bug", r"\b(bug|broken|buggy|flaw)\w*"), ("derivation", r"\b(prove|derive|show that)\b"),
              ("design", r"\b(design|propose|choose)\b"))


def _first_sentence(text: str, limit: int = 70) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    sentence = re.split(r"(?<=[.?!:])\s", text, maxsplit=1)[0]
    if len(sentence) > limit:
        sentence = sentence[:limit].rsplit(" ", 1)[0] + " …"
    if sentence.count("$") % 2:
        sentence = sentence[:sentence.rfind("$")].rstrip() + " …"
    return sentence.replace("|", "\\|")


def exercise_rows(chapter: Chapter) -> list[dict]:
    """One row per exercise of the chapter.

    * title, type and grading from the specification (``title``, ``exercise_type``, ``kind``: auto -> auto-graded,
      mixed -> auto-graded + rubric, open -> rubric) where one exists; else the statement's first sentence, a type
      guessed from its words (bug/broken/flaw: find-the-bug; prove/derive/show that: derivation;
      design/propose/choose: design; otherwise computation) and auto-graded when a check cell follows it.
    * minutes: 5 + 1.5 per line of the model solution's code + 1 per 40 words of the statement, rounded up to 5.
    * use: exam when auto-graded and ≤ 10 minutes, or when the specification has exam questions; lab when the
      solution has ≥ 8 lines of code (simulation, data); homework otherwise (always for derivations, designs and
      rubric-graded work).
    """
    rows = []
    for exercise in chapter.exercises:
        spec = spec_for(chapter, exercise)
        words = len(exercise.statement.split())
        minutes = 5 * math.ceil((5 + 1.5 * exercise.solution_lines + words / 40) / 5)
        if spec is not None:
            title, kind, points = spec.title, spec.exercise_type, f"{spec.points:g}"
            grading = {"auto": "auto-graded", "mixed": "auto-graded + rubric", "open": "rubric"}[spec.kind]
            exam = len(spec.exam())
        else:
            title, points, exam = _first_sentence(plain_roles(exercise.statement, chapter)), "", 0
            lowered = exercise.statement.lower()
            kind = next((name for name, pattern in TYPE_WORDS if re.search(pattern, lowered)), "computation")
            grading = "auto-graded (self-check)" if exercise.checks else "rubric"
        uses = []
        if exam or (grading.startswith("auto") and minutes <= 10 and kind == "computation"):
            uses.append("exam" + (f" ({exam} in the bank)" if exam else ""))
        if exercise.solution_lines >= 8 and kind == "computation":
            uses.append("lab")
        if not uses or kind != "computation" or grading == "rubric":
            uses.append("homework")
        rows.append({"label": exercise.label, "title": title, "type": kind, "minutes": minutes, "points": points,
                     "use": ", ".join(uses), "grading": grading, "source": "spec" if spec is not None else "chapter"})
    return rows


def exercises_table(chapter: Chapter) -> str:
    rows = exercise_rows(chapter)
    if not rows:
        return "(The chapter has no exercises.)"
    number = chapters().index(chapter.stem) + 1  # the main book's toc is numbered; the preface is not
    out = ["| exercise | label | title | type | min | use | grading |", "|---|---|---|---|---|---|---|"]
    for position, r in enumerate(rows, start=1):
        grading = r["grading"] + (f", {r['points']} pts" if r["points"] else "")
        out.append(f"| {number}.{position} | {r['label']} | {r['title']} | {r['type']} | {r['minutes']} | {r['use']} "
                   f"| {grading} |")
    spec = [r["label"] for r in rows if r["source"] == "spec"]
    chapter_only = [r["label"] for r in rows if r["source"] != "spec"]
    notes = []
    if spec:
        notes.append(f"from the exercise specifications (`exercises/ch{chapter.number}.py`): {', '.join(spec)}")
    if chapter_only:
        notes.append(f"from the chapter (no specification yet): {', '.join(chapter_only)}")
    return ("\n".join(out) + "\n\nRows " + "; ".join(notes) + f". *Exercise* is the number the book displays "
            f"(Exercise {number}.1 is the chapter's first exercise, in the order of the chapter); *label* is its anchor "
            f"in the chapter's page, `{chapter.stem}.html#{rows[0]['label']}`, and the name the specifications and the "
            "grader use.")


# --- writing and checking ----------------------------------------------------------------------------------------

def generated(stem: str, page_text: str) -> dict[tuple[str, str], str]:
    """(begin, end) markers -> the generated content, for every generated part of the page of ``stem``."""
    chapter = read_chapter(stem)
    out = {markers(name): {"overview": overview, "misconceptions": misconceptions,
                           "exercises": exercises_table}[name](chapter) for name in BLOCKS}
    out[(SUBSTITUTIONS_BEGIN, SUBSTITUTIONS_END)] = substitutions(chapter, page_text)
    return out


INTRO = BOOK / "intro.md"


def intro_generated() -> dict[tuple[str, str], str]:
    """The intro page's generated part: the preface's dependency map (its ``{doc}`` links reach the notes here)."""
    from tools.prerequisites import dependency_map

    return {markers("dependency map"): dependency_map()}


def stale_intro() -> list[str]:
    text = INTRO.read_text(encoding="utf-8") if INTRO.is_file() else ""
    if not text:
        return ["page"]
    return [begin for (begin, end), content in intro_generated().items() if between(text, begin, end) != content]


def stale(stem: str) -> list[str]:
    """The names of the page's generated parts that are missing or out of date."""
    path = page_path(stem)
    if not path.is_file():
        return ["page"]
    text = path.read_text(encoding="utf-8")
    return [begin for (begin, end), content in generated(stem, text).items() if between(text, begin, end) != content]


def write(stem: str) -> bool:
    path = page_path(stem)
    return _write_blocks(path, generated(stem, _open_empty_blocks(path)))


def _open_empty_blocks(path: Path) -> str:
    """Give a new page's empty blocks (markers on consecutive lines) the empty line ``write_between`` expects."""
    text = path.read_text(encoding="utf-8")
    pairs = [markers(name) for name in (*BLOCKS, "dependency map")] + [(SUBSTITUTIONS_BEGIN, SUBSTITUTIONS_END)]
    for begin, end in pairs:
        text = text.replace(f"{begin}\n{end}", f"{begin}\n\n{end}")
    path.write_text(text, encoding="utf-8")
    return text


def _write_blocks(path: Path, blocks: dict[tuple[str, str], str]) -> bool:
    changed = False
    for (begin, end), content in blocks.items():
        changed |= write_between(path, begin, end, content)
    return changed


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        _open_empty_blocks(INTRO)
        if _write_blocks(INTRO, intro_generated()):
            print(f"wrote {INTRO.relative_to(ROOT)}")
        for stem in chapters():
            if page_path(stem).is_file() and write(stem):
                print(f"wrote {page_path(stem).relative_to(ROOT)}")
        return 0
    if argv == ["--check"]:
        problems = [f"{page_path(stem).relative_to(ROOT)}: {', '.join(names)}"
                    for stem in chapters() if (names := stale(stem))]
        if names := stale_intro():
            problems.append(f"{INTRO.relative_to(ROOT)}: {', '.join(names)}")
        print("\n".join(problems) if problems else "instructor pages: generated parts current")
        return 1 if problems else 0
    print(__doc__.split("Usage: ")[1].strip())
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
