"""The chapters' prerequisites: what each chapter states, what its code uses, and the preface's dependency map.

Every chapter states its direct prerequisites in its opening cell, as the LAST line of the "Learning objectives"
admonition, in this format (one line, or one paragraph continued on the next lines, up to the closing ``:::``)::

    :::{admonition} Learning objectives
    :class: tip
    After this chapter you can
    - ...

    **Prerequisites:** {doc}`02_laplace` (the Laplace mechanism) and {doc}`03_composition` (sequential composition).
    :::

    Core reading time: about {glue:text}`ch05_reading_minutes` minutes, measured by `tools/reading_time.py`; the
    *Going deeper* blocks are optional.

* the ``{doc}`` targets are the chapter's direct prerequisites: earlier chapters of the toc only (each with, in
  brackets, what is used from it); a link to the preface (``{doc}`00_preface```) is not a prerequisite. A chapter
  that needs nothing but the preface's background says so: ``**Prerequisites:** none beyond the background listed
  in the {doc}`00_preface` (...).``
* the line after the admonition is the reading-time line above: ``{glue:text}`chNN_reading_minutes``` (NN = the
  chapter's two digits), glued by a hidden code cell right after the setup cell, tagged ``remove-cell``, whose source
  is exactly :func:`glue_cell_source` for the chapter (copy it from ``python -m tools.prerequisites --glue-cell
  chapters/NN_name.ipynb``). The cell finds the repository root from the working directory (``chapters/``,
  ``student_edition/``), measures the chapter in ``chapters/`` with :mod:`tools.reading_time` and glues an int;
  a copy run outside the repository skips it.

This module reads the toc (``_toc.yml``: the chapters in reading order), the Prerequisites lines, the ``dp_lib``
names each chapter's code imports (``from dp_lib... import name`` and ``dp.name`` after ``import dp_lib as dp``)
and the "Defined in: chapters/<stem>.ipynb" line of every public ``dp_lib`` / ``dp_lib.plotting`` /
``dp_lib.widgets`` name. tests/test_prerequisites.py holds the chapters to it.

Usage: ``python -m tools.prerequisites`` prints the dependency map; ``--write-preface`` writes it into
chapters/00_preface.md between the marker comments; ``--check`` lists the violations (a later chapter's function
used, a used chapter missing from the prerequisites).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import sys
from functools import lru_cache
from pathlib import Path

import yaml

from tools.generated_block import between, write_between

ROOT = Path(__file__).resolve().parents[1]
PREFACE = ROOT / "chapters" / "00_preface.md"
BEGIN, END = "<!-- dependency map: begin (python -m tools.prerequisites --write-preface) -->", \
    "<!-- dependency map: end -->"
PUBLIC_MODULES = ("dp_lib", "dp_lib.plotting", "dp_lib.widgets")
PREREQ_LINE = re.compile(r"^\*\*Prerequisites:\*\*")
DOC_ROLE = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")
DEFINED_IN = re.compile(r"Defined in: chapters/([\w.-]+)\.ipynb")
NOT_A_PREREQUISITE = {"00_preface"}


def chapters(root: Path = ROOT) -> list[str]:
    """The chapter notebooks' stems in toc order (the "Chapters" part only: no notation, no bibliography)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    stems = []
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            path = root / (entry["file"] + ".ipynb")
            if path.is_file():
                stems.append(path.stem)
    return stems


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def prerequisite_lines(path: Path) -> list[str]:
    """Every Prerequisites paragraph of a notebook's markdown (a paragraph: up to a blank line or a fence)."""
    found = []
    for cell in _cells(path):
        if cell["cell_type"] != "markdown":
            continue
        lines = _source(cell).splitlines()
        for i, line in enumerate(lines):
            if PREREQ_LINE.match(line.strip()):
                para = [line.strip()]
                for nxt in lines[i + 1:]:
                    if not nxt.strip() or nxt.strip().startswith((":::", "```")):
                        break
                    para.append(nxt.strip())
                found.append(" ".join(para))
    return found


def stated_prerequisites(path: Path) -> list[str]:
    """The chapters a notebook's (first) Prerequisites line links to, in the order written."""
    lines = prerequisite_lines(path)
    if not lines:
        return []
    targets = [Path(t).stem for t in DOC_ROLE.findall(lines[0])]
    return list(dict.fromkeys(t for t in targets if t not in NOT_A_PREREQUISITE))


def _code(source: str) -> str:
    """A code cell's source as Python: IPython magics and shell lines commented out."""
    return "\n".join("#" + line if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def used_names(path: Path) -> dict[str, str]:
    """The dp_lib names a notebook's code uses: {name: module imported from} (``dp_lib`` for ``dp.name``)."""
    used: dict[str, str] = {}
    for cell in _cells(path):
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse(_code(_source(cell)))
        except SyntaxError:
            continue
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "dp_lib" and not node.level:
                for alias in node.names:
                    used.setdefault(alias.name, node.module)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "dp_lib":
                        aliases[alias.asname or alias.name] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                used.setdefault(node.attr, aliases[node.value.id])
    return used


def _defined_in(obj) -> str | None:
    doc = inspect.getdoc(obj) if (inspect.isfunction(obj) or inspect.isclass(obj) or callable(obj)) else None
    found = DEFINED_IN.findall(doc or "")
    return found[0] if found else None


@lru_cache(maxsize=None)
def defined_in() -> dict[str, str]:
    """Every public dp_lib / dp_lib.plotting / dp_lib.widgets name with a "Defined in" line: {name: chapter stem}."""
    found: dict[str, str] = {}
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            chapter = _defined_in(getattr(module, attr))
            if chapter is not None:
                found.setdefault(attr, chapter)
    return found


def _chapter_of(name: str, module: str) -> str | None:
    """The "Defined in" chapter of ``name`` as imported from ``module`` (public names first)."""
    if name in defined_in():
        return defined_in()[name]
    try:
        return _defined_in(getattr(importlib.import_module(module), name))
    except (ImportError, AttributeError):
        return None


def used_chapters(path: Path) -> dict[str, list[str]]:
    """{chapter stem: the dp_lib names defined in it that ``path``'s code uses} (its own chapter included)."""
    result: dict[str, list[str]] = {}
    for name, module in sorted(used_names(path).items()):
        chapter = _chapter_of(name, module)
        if chapter is not None:
            result.setdefault(chapter, []).append(name)
    return result


def closure(stem: str, prereqs: dict[str, list[str]]) -> set[str]:
    """The chapters ``stem`` builds on, directly or through its prerequisites' prerequisites."""
    seen, todo = set(), list(prereqs.get(stem, []))
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(prereqs.get(current, []))
    return seen


def all_prerequisites(root: Path = ROOT) -> dict[str, list[str]]:
    """{chapter: its stated direct prerequisites} for every chapter of the toc."""
    return {stem: stated_prerequisites(root / "chapters" / f"{stem}.ipynb") for stem in chapters(root)}


def later_chapter_uses(root: Path = ROOT) -> list[str]:
    """Violations: a chapter's code uses a name whose "Defined in" chapter comes later in the toc (or is no
    chapter of the toc)."""
    order = {stem: i for i, stem in enumerate(chapters(root))}
    found = []
    for stem, i in order.items():
        for chapter, names in used_chapters(root / "chapters" / f"{stem}.ipynb").items():
            if order.get(chapter, len(order)) > i:
                found.append(f"{stem} uses {', '.join(names)} (Defined in {chapter})")
    return found


def incomplete_prerequisites(root: Path = ROOT) -> list[str]:
    """Violations: a chapter uses functions of a chapter that is not among its prerequisites' closure."""
    prereqs = all_prerequisites(root)
    found = []
    for stem in prereqs:
        reach = closure(stem, prereqs) | {stem}
        for chapter, names in used_chapters(root / "chapters" / f"{stem}.ipynb").items():
            if chapter not in reach:
                found.append(f"{stem} uses {', '.join(names)} (Defined in {chapter}), not among its prerequisites")
    return found


def prerequisite_line_problems(root: Path = ROOT) -> list[str]:
    """Violations of the format: not exactly one Prerequisites line, not the last line of the opening cell's
    admonition, a target that is no earlier chapter, a chapter after the first with none, a first chapter that
    does not point to the preface."""
    order = chapters(root)
    found = []
    for i, stem in enumerate(order):
        path = root / "chapters" / f"{stem}.ipynb"
        lines = prerequisite_lines(path)
        if len(lines) != 1:
            found.append(f"{stem}: {len(lines)} Prerequisites lines, expected exactly one")
            continue
        opening = _source(_cells(path)[0])
        last = re.search(r"\n(\*\*Prerequisites:\*\*.*?)\n:::", opening, re.S)
        if not last or "\n\n" in last.group(1) or ":::" in last.group(1):
            found.append(f"{stem}: the Prerequisites line is not the last line of the opening admonition")
        for target in stated_prerequisites(path):
            if target not in order[:i]:
                found.append(f"{stem}: prerequisite {target} is not an earlier chapter of the toc")
        if i > 0 and not stated_prerequisites(path):
            found.append(f"{stem}: no prerequisite chapter (only the first chapter needs none)")
        if i == 0 and "00_preface" not in lines[0]:
            found.append(f"{stem}: the first chapter's line points to the preface's background")
    return found


def stated_reading_minutes(path: Path) -> int | None:
    """The minutes a notebook's hidden reading-time cell glued (None if there is no such cell or output)."""
    stem = path.stem
    for cell in _cells(path):
        if cell["cell_type"] == "code" and _source(cell) == glue_cell_source(stem):
            if "remove-cell" not in cell["metadata"].get("tags", []):
                return None
            for out in cell.get("outputs", []):
                name = out.get("metadata", {}).get("scrapbook", {}).get("name")
                if name == f"ch{stem[:2]}_reading_minutes":
                    return int(out["data"]["application/papermill.record/text/plain"])
    return None


def reading_time_problems(root: Path = ROOT) -> list[str]:
    """Violations: a chapter's reading time is typed, or its hidden cell is missing, misplaced or stale."""
    from tools.reading_time import measure

    found = []
    for stem in chapters(root):
        path = root / "chapters" / f"{stem}.ipynb"
        cells = _cells(path)
        role = f"{{glue:text}}`ch{stem[:2]}_reading_minutes`"
        if f"Core reading time: about {role} minutes" not in _source(cells[0]):
            found.append(f"{stem}: the opening cell does not state 'Core reading time: about {role} minutes'")
        code = [c for c in cells if c["cell_type"] == "code"]
        if len(code) < 2 or _source(code[1]) != glue_cell_source(stem):
            found.append(f"{stem}: the cell after the setup cell is not the hidden reading-time cell "
                         f"(python -m tools.prerequisites --glue-cell chapters/{stem}.ipynb)")
        glued, measured = stated_reading_minutes(path), round(measure(path).minutes)
        if glued != measured:
            found.append(f"{stem}: glued reading time {glued} != {measured} minutes measured now (refresh it)")
    return found


def dependency_map(root: Path = ROOT) -> str:
    """The preface's Markdown table: each chapter and the chapters it builds on (direct prerequisites)."""
    rows = ["| chapter | builds on |", "|---|---|"]
    for stem, prereqs in all_prerequisites(root).items():
        builds_on = ", ".join(f"{{doc}}`{p}`" for p in prereqs) or "the preface's background"
        rows.append(f"| {{doc}}`{stem}` | {builds_on} |")
    return "\n".join(rows)


def preface_map(text: str) -> str | None:
    """The dependency map written in a preface's text between the markers (None if they are missing)."""
    written = between(text, BEGIN, END)
    return written.strip() if written is not None else None


def write_preface(root: Path = ROOT) -> bool:
    """Write the generated map between the preface's markers; True if the file changed."""
    return write_between(root / "chapters" / "00_preface.md", BEGIN, END, dependency_map(root))


def glue_cell_source(stem: str) -> str:
    """The source of a chapter's hidden reading-time cell (tag ``remove-cell``, right after the setup cell)."""
    return (
        "import sys\n"
        "from pathlib import Path\n\n"
        "# The core reading time stated in the opening cell, measured by tools/reading_time.py on chapters/"
        f"{stem}.ipynb.\n"
        "# The repository root is the first folder up from here (chapters/, student_edition/) that has tools/.\n"
        "_root = next((p for p in (Path.cwd(), *Path.cwd().parents) if (p / \"tools\" / \"reading_time.py\").is_file()),"
        " None)\n"
        "if _root is not None:  # a copy run outside the repository skips the measurement\n"
        "    sys.path.insert(0, str(_root))\n"
        "    from tools.reading_time import measure\n\n"
        f"    glue(\"ch{stem[:2]}_reading_minutes\", round(measure(_root / \"chapters\" / \"{stem}.ipynb\").minutes),"
        " display=False)"
    )


def main(argv: list[str]) -> None:
    if "--glue-cell" in argv:
        print(glue_cell_source(Path(argv[argv.index("--glue-cell") + 1]).stem))
    elif "--write-preface" in argv:
        print("preface updated" if write_preface() else "preface already up to date")
    elif "--check" in argv:
        problems = (prerequisite_line_problems() + later_chapter_uses() + incomplete_prerequisites()
                    + reading_time_problems())
        print("\n".join(problems) or "no violations")
    else:
        print(dependency_map())


if __name__ == "__main__":
    main(sys.argv[1:])
