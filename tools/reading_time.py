"""Measured core reading time of each chapter (BOOK.md: "A core path").

A chapter's *core* is what a student reads on the default path: the markdown before the ``Exercises``
heading, without the collapsed blocks (``{dropdown}`` "Going deeper" blocks, exercise and solution blocks,
the bibliography), and the code cells that the book shows expanded (not tagged ``hide-input``,
``hide-cell``, ``remove-input``, ``remove-cell`` or ``solution``). Its reading time is

    core words / 150 words per minute  +  10 seconds per visible non-blank core code line,

the rates BOOK.md fixes for this kind of text (prose with mathematics). Words are whitespace-separated
tokens after MyST markup is removed; a display-math line counts its tokens like prose, and a glued value
(``{glue:text}`name:.2f` ``) is one word, the number the reader sees.

The table also counts each chapter's exercises (``{exercise}`` blocks) and how many of them have a self-check (a
code cell tagged ``check`` after the exercise and before the next one); BOOK.md asks for checks on at least 80 %.

Usage: ``python -m tools.reading_time [NOTEBOOK ...]`` prints a Markdown table of the chapters in the toc's order;
``--write-readme`` writes it into README.md between the marker comments (tests/test_reading_time.py holds the
README to it).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.generated_block import between, write_between

WORDS_PER_MINUTE = 150
SECONDS_PER_CODE_LINE = 10
HIDDEN_TAGS = {"hide-input", "hide-cell", "remove-input", "remove-cell", "solution"}
COLLAPSED = {"dropdown", "exercise", "solution", "bibliography"}
FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}")
ROLE = re.compile(r"\{[\w:-]+\}`([^`]*)`")
GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}", re.M)
ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEGIN, END = "<!-- reading times: begin (python -m tools.reading_time --write-readme) -->", "<!-- reading times: end -->"


@dataclass(frozen=True)
class Reading:
    """One chapter's core: words, visible code lines and the minutes they take."""

    chapter: str
    words: int
    code_lines: int

    @property
    def minutes(self) -> float:
        return self.words / WORDS_PER_MINUTE + self.code_lines * SECONDS_PER_CODE_LINE / 60


def core_markdown(text: str) -> str:
    """The markdown of one cell without its collapsed blocks (nested fences are skipped whole)."""
    kept, closing = [], None
    for line in text.splitlines():
        if closing is not None:
            if line.strip() == closing:
                closing = None
            continue
        match = FENCE.match(line.strip())
        if match and match.group("name") in COLLAPSED:
            closing = match.group("fence")
            continue
        if re.match(r"^\s*(`{3,}|:{3,})", line) or re.match(r"^\s*:[\w-]+:", line):
            continue  # a directive's fence or option line is markup, not text
        kept.append(line)
    return "\n".join(kept)


def count_words(markdown: str) -> int:
    """Whitespace tokens of the text a reader sees (roles keep their text, a glued value is one number, link
    targets and markup go)."""
    text = ROLE.sub(r"\1", GLUE.sub("0", markdown))
    text = re.sub(r"\]\([^)]*\)", "]", text)  # [label](target) -> [label]
    text = re.sub(r"[#*_>|\[\]]", " ", text)
    return sum(1 for token in text.split() if any(ch.isalnum() for ch in token))


def measure(path: Path) -> Reading:
    """Count the core of one chapter notebook."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    words = code = 0
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            if re.search(r"^#{1,3} Exercises\s*$", source, re.M):
                break
            words += count_words(core_markdown(source))
        elif cell["cell_type"] == "code" and not HIDDEN_TAGS & set(cell["metadata"].get("tags", [])):
            code += sum(1 for line in source.splitlines() if line.strip())
    return Reading(Path(path).stem, words, code)


def exercise_counts(path: Path) -> tuple[int, int]:
    """(exercises, exercises with a self-check) of one chapter notebook."""
    exercises = checked = 0
    waiting = False  # an exercise seen, its check not yet
    for cell in json.loads(Path(path).read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown" and (found := len(EXERCISE.findall("".join(cell["source"])))):
            exercises, waiting = exercises + found, True
        elif cell["cell_type"] == "code" and "check" in cell["metadata"].get("tags", []) and waiting:
            checked, waiting = checked + 1, False
    return exercises, checked


def table(readings: list[Reading], exercises: list[tuple[int, int]] | None = None) -> str:
    """The README's Markdown table of core reading times (and, if given, exercises and checks)."""
    if exercises is None:
        rows = ["| chapter | core words | visible core code lines | core minutes |", "|---|---:|---:|---:|"]
        return "\n".join(rows + [f"| {r.chapter} | {r.words:,} | {r.code_lines} | {r.minutes:.0f} |" for r in readings])
    rows = ["| chapter | core words | visible core code lines | core minutes | exercises | with a check |",
            "|---|---:|---:|---:|---:|---:|"]
    rows += [f"| {r.chapter} | {r.words:,} | {r.code_lines} | {r.minutes:.0f} | {n} | {k} |"
             for r, (n, k) in zip(readings, exercises)]
    return "\n".join(rows)


def book_table(root: Path = ROOT) -> str:
    """The table of every chapter in the toc's order, with exercise counts."""
    from tools.prerequisites import chapters  # the toc's order

    paths = [root / "chapters" / f"{stem}.ipynb" for stem in chapters(root)]
    return table([measure(p) for p in paths], [exercise_counts(p) for p in paths])


def readme_table(text: str) -> str | None:
    """The table between the README's markers, or None when the markers are missing."""
    return between(text, BEGIN, END)


def write_readme(root: Path = ROOT) -> bool:
    """Write the generated table between the README's markers; True if the file changed."""
    return write_between(root / "README.md", BEGIN, END, book_table(root))


def main(argv: list[str]) -> None:
    if argv == ["--write-readme"]:
        print("README updated" if write_readme() else "README unchanged")
    elif argv:
        paths = [Path(p) for p in argv]
        print(table([measure(p) for p in paths], [exercise_counts(p) for p in paths]))
    else:
        print(book_table())


if __name__ == "__main__":
    main(sys.argv[1:])
