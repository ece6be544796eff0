"""The chapters come in prerequisite order, say so, and state a measured reading time (tools/prerequisites.py).

(a) no chapter's code uses a public dp_lib name whose "Defined in" chapter comes later in the toc;
(b) every chapter has exactly one Prerequisites line, the last of its opening admonition, naming earlier chapters;
(c) the prerequisites are complete: every chapter whose functions a chapter uses is reachable through them;
(d) the preface's dependency map is the generated one;
(e) every chapter's reading time is glued by its hidden cell, and the glued figure is the tool's.

Each check runs on the book (one test per chapter, so a failure names the chapter) and on a small mutated copy in a
temporary folder, which must make it fail.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools import prerequisites as pre
from tools.reading_time import measure

ROOT = pre.ROOT
CHAPTERS = pre.chapters()


def _problems_of(stem: str, problems: list[str]) -> list[str]:
    return [p for p in problems if p.startswith(f"{stem}:") or p.startswith(f"{stem} ")]


def test_the_toc_gives_the_chapters_in_order():
    assert CHAPTERS[0] == "01_why_privacy" and len(CHAPTERS) >= 14
    assert CHAPTERS == sorted(CHAPTERS), "the file names are numbered in the toc's order"
    assert "notation" not in CHAPTERS and "bibliography" not in CHAPTERS


# ------------------------------------------------------------------ the book
LATER = pre.later_chapter_uses()
LINES = pre.prerequisite_line_problems()
INCOMPLETE = pre.incomplete_prerequisites()
READING = pre.reading_time_problems()


@pytest.mark.parametrize("stem", CHAPTERS)
def test_a_no_function_from_a_later_chapter(stem):
    found = _problems_of(stem, LATER)
    assert not found, ("a chapter uses dp_lib functions that a later chapter introduces (move the introduction, "
                       "or the docstring's 'Defined in'):\n" + "\n".join(found))


@pytest.mark.parametrize("stem", CHAPTERS)
def test_b_one_prerequisites_line_naming_earlier_chapters(stem):
    found = _problems_of(stem, LINES)
    assert not found, "see the format in tools/prerequisites.py:\n" + "\n".join(found)


@pytest.mark.parametrize("stem", CHAPTERS)
def test_c_the_prerequisites_are_complete(stem):
    found = _problems_of(stem, INCOMPLETE)
    assert not found, "add the chapter to the Prerequisites line (or reach it through one):\n" + "\n".join(found)


def test_d_the_preface_shows_the_generated_dependency_map():
    written = pre.preface_map(pre.PREFACE.read_text(encoding="utf-8"))
    assert written is not None, "chapters/00_preface.md lost the dependency map's marker comments"
    assert written == pre.dependency_map(), "run: python -m tools.prerequisites --write-preface"


@pytest.mark.parametrize("stem", CHAPTERS)
def test_e_the_reading_time_is_glued_from_the_tool(stem):
    found = _problems_of(stem, READING)
    assert not found, "\n".join(found)


# ------------------------------------------------------------------ the checks fail on mutated copies
def _toy_book(tmp_path: Path, stems: list[str]) -> Path:
    """A copy of the toc restricted to ``stems`` and of their notebooks and the preface."""
    (tmp_path / "chapters").mkdir()
    entries = "\n".join(f"      - file: chapters/{s}" for s in stems)
    (tmp_path / "_toc.yml").write_text(f"format: jb-book\nroot: chapters/00_preface\nparts:\n  - caption: Chapters\n"
                                       f"    chapters:\n{entries}\n", encoding="utf-8")
    for stem in stems:
        shutil.copy(ROOT / "chapters" / f"{stem}.ipynb", tmp_path / "chapters" / f"{stem}.ipynb")
    shutil.copy(pre.PREFACE, tmp_path / "chapters" / "00_preface.md")
    return tmp_path


def _edit(path: Path, change) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    change(nb["cells"])
    path.write_text(json.dumps(nb), encoding="utf-8")


def _set_source(cell: dict, text: str) -> None:
    cell["source"] = text


def _opening(cells) -> str:
    return pre._source(cells[0])


def test_a_fails_when_a_chapter_uses_a_later_chapters_function(tmp_path):
    root = _toy_book(tmp_path, ["01_why_privacy", "02_laplace", "03_composition"])
    assert _problems_of("02_laplace", pre.later_chapter_uses(root)) == []
    # the Laplace chapter now calls the accountant of the composition chapter
    _edit(root / "chapters" / "02_laplace.ipynb",
          lambda cells: cells.append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                      "source": "from dp_lib import PrivacyAccountant\nPrivacyAccountant(1.0)"}))
    assert _problems_of("02_laplace", pre.later_chapter_uses(root)) == [
        "02_laplace uses PrivacyAccountant (Defined in 03_composition)"]


def test_b_fails_on_a_later_target_a_second_line_or_a_missing_line(tmp_path):
    root = _toy_book(tmp_path, ["01_why_privacy", "02_laplace", "03_composition", "04_exponential_mechanism"])
    path = root / "chapters" / "03_composition.ipynb"
    ok = _opening(json.loads(path.read_text(encoding="utf-8"))["cells"])
    assert _problems_of("03_composition", pre.prerequisite_line_problems(root)) == []

    _edit(path, lambda cells: _set_source(cells[0], ok.replace("{doc}`02_laplace`", "{doc}`04_exponential_mechanism`")))
    assert "03_composition: prerequisite 04_exponential_mechanism is not an earlier chapter of the toc" in \
        pre.prerequisite_line_problems(root)

    _edit(path, lambda cells: _set_source(cells[0], ok.replace("\n:::", "\n\n**Prerequisites:** none.\n:::", 1)))
    assert "03_composition: 2 Prerequisites lines, expected exactly one" in pre.prerequisite_line_problems(root)

    no_line = "\n".join(line for line in ok.split("\n") if not line.startswith("**Prerequisites:**"))
    _edit(path, lambda cells: _set_source(cells[0], no_line))
    assert "03_composition: 0 Prerequisites lines, expected exactly one" in pre.prerequisite_line_problems(root)


def test_c_fails_when_a_used_chapter_is_not_reachable(tmp_path):
    root = _toy_book(tmp_path, ["01_why_privacy", "02_laplace", "03_composition", "04_exponential_mechanism"])
    path = root / "chapters" / "04_exponential_mechanism.ipynb"
    assert not [p for p in pre.incomplete_prerequisites(root) if p.startswith("04_")]
    # drop Composition from its line: it reaches Laplace and Chapter 1 no more, whose functions it uses
    _edit(path, lambda cells: _set_source(cells[0], _opening(cells).replace(
        "{doc}`02_laplace` (sensitivity, Laplace noise) and {doc}`03_composition` (sequential composition)",
        "{doc}`03_composition` (sequential composition)").replace("{doc}`03_composition` (sequential composition)",
                                                                  "{doc}`01_why_privacy` (the definition)")))
    found = [p for p in pre.incomplete_prerequisites(root) if p.startswith("04_")]
    assert found and "Defined in 02_laplace" in found[0]


def test_d_fails_when_the_map_is_stale(tmp_path):
    root = _toy_book(tmp_path, ["02_laplace", "03_composition"])
    preface = root / "chapters" / "00_preface.md"
    preface.write_text(f"# Preface\n\n{pre.BEGIN}\n| chapter | builds on |\n|---|---|\n{pre.END}\n", encoding="utf-8")
    assert pre.preface_map(preface.read_text(encoding="utf-8")) != pre.dependency_map(root)
    assert pre.write_preface(root) is True and pre.write_preface(root) is False
    assert pre.preface_map(preface.read_text(encoding="utf-8")) == pre.dependency_map(root)
    assert "| {doc}`03_composition` | {doc}`01_why_privacy`, {doc}`02_laplace` |" in pre.dependency_map(root)


def test_e_fails_on_a_typed_a_stale_or_a_missing_reading_time(tmp_path):
    root = _toy_book(tmp_path, ["02_laplace"])
    path = root / "chapters" / "02_laplace.ipynb"
    assert pre.reading_time_problems(root) == []
    minutes = round(measure(path).minutes)

    def stale(cells):
        hidden = next(c for c in cells if c.get("id") == "reading-time")
        hidden["outputs"][0]["data"]["application/papermill.record/text/plain"] = str(minutes + 1)
    _edit(path, stale)
    assert pre.reading_time_problems(root) == [
        f"02_laplace: glued reading time {minutes + 1} != {minutes} minutes measured now (refresh it)"]

    shutil.copy(ROOT / "chapters" / "02_laplace.ipynb", path)
    _edit(path, lambda cells: _set_source(cells[0], _opening(cells).replace(
        "{glue:text}`ch02_reading_minutes`", str(minutes))))
    assert len(pre.reading_time_problems(root)) == 1

    shutil.copy(ROOT / "chapters" / "02_laplace.ipynb", path)
    _edit(path, lambda cells: cells.remove(next(c for c in cells if c.get("id") == "reading-time")))
    assert len(pre.reading_time_problems(root)) == 2  # no hidden cell, so nothing glued


def test_used_names_reads_imports_and_module_attributes(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source":
                     "%matplotlib inline\nimport dp_lib as dp\nfrom dp_lib.plotting import plot_noisy_count as p\n"
                     "dp.laplace_mech(1.0, 1.0, 1.0, rng=None)"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "99_toy.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert pre.used_names(path) == {"plot_noisy_count": "dp_lib.plotting", "laplace_mech": "dp_lib"}
    assert pre.used_chapters(path) == {"02_laplace": ["laplace_mech", "plot_noisy_count"]}
