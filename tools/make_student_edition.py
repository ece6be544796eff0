"""Write the student edition of the chapters: the exercises without their solutions.

Usage (from the repository root):

    python tools/make_student_edition.py                      # every chapters/*.ipynb -> student_edition/
    python tools/make_student_edition.py --out handout chapters/02_laplace.ipynb

For each chapter notebook it writes a copy in which

* every code cell tagged ``solution`` is removed. In the chapters the student's cell (tag ``answer``:
  ``answer_xxx = None  # your answer here``, one line per answer name, or the comment
  ``# your answer here``) comes right after the exercise and before its solution, so it stays; a run of
  solution cells without such a cell before it is replaced by one;
* the ``{solution}`` directives (and ``{solution-start}`` ... ``{solution-end}`` blocks) are removed
  from the markdown, and markdown cells tagged ``solution`` are dropped;
* the self-check cells (tag ``check``) and everything else are kept, with all outputs cleared,
  execution counts reset and the saved widget state removed;
* a short note after the title says how to use the edition.

The output folder (``student_edition/`` by default, ignored by git) also gets a README. The
notebooks import ``dp_lib``, so students install the repository's requirements first
(``pip install -r requirements.txt``). Running this twice gives identical files.
Maintainer tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "student_edition"
PLACEHOLDER = "# your answer here"
NOTE = (
    "**Student edition.** The solutions of the exercises are removed. Write your code where a cell says "
    "`# your answer here`; where it says `answer_... = None`, replace `None` by your answer. The cell after "
    "such an answer checks it: it fails with a message until the answer is right, then shows `'Correct!'`. "
    "Run the chapter from the top first (*Run All*), so that the data and the functions it defines exist."
)
README = """# Student edition

The chapters of *Differential Privacy by Experiment* with the solutions of the exercises removed,
written by `python tools/make_student_edition.py`. Install the book's requirements first, from the
repository root:

    pip install -r requirements.txt
    jupyter lab student_edition/

In each chapter, run all cells, then work through the exercises at the end: replace each
`# your answer here` (or `answer_... = None`) with your own code. A cell that follows an answer checks
it and shows `'Correct!'` when it is right.
"""

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}|:{3,})\s*\{(?P<name>[A-Za-z0-9_:-]+)\}")
_ANSWER = re.compile(r"^(answer_\w+)\s*(?::[^=\n]*)?=(?!=)", re.M)


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def answer_names(source: str) -> list[str]:
    """Names ``answer_...`` that ``source`` assigns at top level, in order of first assignment."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython syntax (magics): fall back to a line-based search
        return list(dict.fromkeys(_ANSWER.findall(source)))
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name) and leaf.id.startswith("answer_"):
                    names.append(leaf.id)
    return list(dict.fromkeys(names))


def _closing(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _block_end(lines: list[str], start: int, fence: str) -> int:
    """Index of the line that closes the directive opened at ``start`` (or the last line)."""
    for i in range(start + 1, len(lines)):
        if _closing(lines[i], fence):
            return i
    return len(lines) - 1


def strip_solutions(markdown: str) -> str:
    """``markdown`` without its ``{solution}`` directives and ``{solution-start}``/``-end`` blocks."""
    lines = markdown.split("\n")
    keep, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        name = match.group("name") if match else ""
        if name == "solution":
            i = _block_end(lines, i, match.group("fence")) + 1
            continue
        if name == "solution-start":  # everything up to the end of the matching {solution-end}
            j = i + 1
            while j < len(lines):
                end = _FENCE.match(lines[j])
                if end and end.group("name") == "solution-end":
                    j = _block_end(lines, j, end.group("fence"))
                    break
                j += 1
            i = j + 1
            continue
        keep.append(lines[i])
        i += 1
    text = "\n".join(keep)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def _placeholder(solutions) -> nbformat.NotebookNode:
    names = [n for cell in solutions for n in answer_names(cell.source)]
    source = "\n".join(f"{n} = None  {PLACEHOLDER}" for n in dict.fromkeys(names)) or PLACEHOLDER
    cell = nbformat.v4.new_code_cell(source)
    if solutions[0].get("id"):
        cell["id"] = solutions[0]["id"]  # deterministic ids: re-running gives identical files
    return cell


def _flush(cells: list, solutions: list) -> None:
    """After a run of solution cells: nothing if the student's ``answer`` cell precedes them (the
    chapters' layout), otherwise a placeholder cell in their place."""
    if not (cells and "answer" in _tags(cells[-1])):
        cells.append(_placeholder(solutions))


def _clean(cell) -> nbformat.NotebookNode:
    cell.metadata.pop("execution", None)
    if cell.cell_type == "code":
        cell.outputs = []
        cell.execution_count = None
    return cell


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A student copy of ``nb`` (the argument is not modified)."""
    out = nbformat.from_dict(nb)
    cells, pending = [], []
    for cell in out.cells:
        if "solution" in _tags(cell) and cell.cell_type == "code":
            pending.append(cell)
            continue
        if pending:
            _flush(cells, pending)
            pending = []
        if cell.cell_type == "markdown":
            if "solution" in _tags(cell):
                continue
            cell.source = strip_solutions(cell.source)
            if not cell.source.strip():
                continue
        cells.append(_clean(cell))
    if pending:
        _flush(cells, pending)
    note = nbformat.v4.new_markdown_cell(NOTE)
    note["id"] = "student-edition-note"
    out.cells = cells[:1] + [note] + cells[1:]
    out.metadata.pop("widgets", None)
    return out


def write_edition(paths: list[Path], out_dir: Path) -> list[Path]:
    """Write the student copy of each notebook in ``paths`` into ``out_dir``; return the new paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "README.md").write_text(README, encoding="utf-8")
    written = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(student_notebook(nb), target)
        written.append(target)
    return written


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapters/*.ipynb")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: student_edition/)")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted((ROOT / "chapters").glob("*.ipynb"))
    for target in write_edition(paths, args.out.resolve()):
        print(target)


if __name__ == "__main__":
    main(sys.argv[1:])
