"""The student edition (tools/make_student_edition.py): no solution survives, and the checks check.

The command is run once into a temporary folder. For every chapter: no solution code or solution
text is left, outputs and execution counts are cleared, the check cells are kept unchanged, and each
``answer_...`` a solution assigned has its ``answer_... = None  # your answer here`` line. Then every
chapter with check cells is executed in a fresh kernel with errors allowed, and each check cell must
fail (AssertionError or TypeError) on the empty answers. To keep this fast only the setup cell and
the exercise section run; if a check needs something from the chapter body (a NameError), the whole
student notebook runs instead. That the same checks pass on the real solutions is what strict nbval
verifies on the committed chapters (`pytest --nbval`); here the committed outputs are checked for it.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tools import make_student_edition as student

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def _has_checks(path):
    return any("check" in _tags(c) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student_edition")
    subprocess.run([sys.executable, "-m", "tools.make_student_edition", "--out", str(out)], cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    return out


def _solution_lines(nb):
    """Distinctive lines of the solutions: solution code cells and {solution} directive bodies."""
    elsewhere = set()
    lines = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and "solution" in _tags(cell):
            lines.update(line.strip() for line in cell.source.splitlines())
        elif cell.cell_type == "markdown":
            stripped = student.strip_solutions(cell.source)
            removed = set(cell.source.splitlines()) - set(stripped.splitlines())
            lines.update(line.strip() for line in removed)
            elsewhere.update(line.strip() for line in stripped.splitlines())
        else:
            elsewhere.update(line.strip() for line in cell.source.splitlines())
    return {line for line in lines - elsewhere if len(line) >= 12 and re.search(r"[A-Za-z0-9]{3}", line)}


def test_the_command_writes_every_chapter(edition):
    assert NOTEBOOKS
    assert sorted(p.name for p in edition.glob("*.ipynb")) == [p.name for p in NOTEBOOKS]
    assert (edition / "README.md").is_file()


def test_placeholders_and_directives_are_recognised():
    assert student.answer_names("x = 1\nanswer_a, answer_b = 2, 3\nanswer_c: int = 4\nanswer_a += 1") == \
        ["answer_a", "answer_b", "answer_c"]
    assert student.answer_names("%time answer_x = 3\nanswer_y = 4") == ["answer_y"]  # regex fallback
    text = ("Before.\n\n````{exercise}\n:label: e1\nTask.\n````\n\n````{solution} e1\n:class: dropdown\n"
            "Secret.\n```python\ncode()\n```\n````\n\n:::{solution} e2\nHidden.\n:::\nAfter.")
    assert student.strip_solutions(text) == "Before.\n\n````{exercise}\n:label: e1\nTask.\n````\n\nAfter."
    gated = "A\n```{solution-start} e1\n```\nSecret\n```{solution-end}\n```\nB"
    assert student.strip_solutions(gated) == "A\nB"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_solution_survives(edition, path):
    original = nbformat.read(path, as_version=4)
    copy = nbformat.read(edition / path.name, as_version=4)
    text = "\n".join(c.source for c in copy.cells)
    assert "{solution" not in text
    assert not any("solution" in _tags(c) for c in copy.cells)
    kept = {line.strip() for line in text.splitlines()}
    leaked = sorted(_solution_lines(original) & kept)
    assert not leaked, f"{path.name}: solution text in the student edition: {leaked[:5]}"
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert "widgets" not in copy.metadata
    # The check cells are all there, unchanged and in order; every answer has its placeholder.
    checks = [c.source for c in original.cells if "check" in _tags(c)]
    assert [c.source for c in copy.cells if "check" in _tags(c)] == checks
    for cell in original.cells:
        if "solution" in _tags(cell) and cell.cell_type == "code":
            for name in student.answer_names(cell.source):
                assert f"{name} = None  # your answer here" in text, f"{path.name}: no placeholder for {name}"
    assert "# your answer here" in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_checks_pass_on_the_committed_solutions(path):
    """The committed (nbval-verified) outputs of every check cell show no error."""
    for cell in nbformat.read(path, as_version=4).cells:
        if "check" in _tags(cell):
            assert cell.outputs and all(o.output_type != "error" for o in cell.outputs), \
                f"{path.name}: a check cell fails on the real solution: {cell.source[:80]}"


def _run(nb, cells, folder):
    run = nbformat.v4.new_notebook(cells=[nbformat.from_dict(c) for c in cells], metadata=nb.metadata)
    NotebookClient(run, timeout=120, kernel_name="python3", allow_errors=True, record_timing=False,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return [c for c in run.cells if "check" in _tags(c)]


def _errors(check_cells):
    return [next((o.ename for o in c.outputs if o.output_type == "error"), None) for c in check_cells]


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if _has_checks(p)], ids=lambda p: p.stem)
def test_checks_fail_on_empty_answers(edition, path):
    nb = nbformat.read(edition / path.name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    start = next((i for i, c in enumerate(nb.cells)
                  if c.cell_type == "markdown" and re.search(r"^## Exercises", c.source, re.M)), None)
    quick = [code[0]] + [c for c in nb.cells[start:] if c.cell_type == "code"] if start is not None else code
    errors = _errors(_run(nb, quick, ROOT / "chapters"))
    if "NameError" in errors or start is None:  # a check uses the chapter body: run everything
        errors = _errors(_run(nb, code, ROOT / "chapters"))
    assert errors, f"{path.name}: no check cells ran"
    assert all(e in ("AssertionError", "TypeError") for e in errors), \
        f"{path.name}: every check must fail on the empty answers with an assertion; got {errors}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_students_cell_comes_before_each_solution(path):
    """Exercise, then the student's cell (tag ``answer``), then the {solution} text and code, then the check:
    a reader working in the full notebook writes an answer before any solution, and the student edition is the
    same notebook with the solutions cut out."""
    cells = nbformat.read(path, as_version=4).cells
    for i, cell in enumerate(cells):
        if not (cell.cell_type == "code" and "solution" in _tags(cell)) or "solution" in _tags(cells[i - 1]):
            continue
        j = i - 1  # back over the {solution} markdown to the student's cell
        while j >= 0 and cells[j].cell_type == "markdown" and "{solution" in cells[j].source \
                and "{exercise" not in cells[j].source:
            j -= 1
        assert j < i - 1, f"{path.name}: solution cell {i} has no {{solution}} text right before it"
        answer = cells[j]
        assert answer.cell_type == "code" and "answer" in _tags(answer), \
            f"{path.name}: no student's cell (tag 'answer') before the solution at cell {i}"
        run = [c for c in cells[i:] if "solution" in _tags(c)][:1] + \
            [c for k, c in enumerate(cells[i + 1:], i + 1) if "solution" in _tags(c) and
             all("solution" in _tags(x) for x in cells[i:k + 1])]
        names = list(dict.fromkeys(n for c in run for n in student.answer_names(c.source)))
        expected = "\n".join(f"{n} = None  # your answer here" for n in names) or "# your answer here"
        assert answer.source == expected, f"{path.name}: the student's cell before cell {i} should read {expected!r}"
        assert "{exercise" in cells[j - 1].source or cells[j - 1].cell_type == "code", \
            f"{path.name}: the student's cell at {j} does not follow its exercise"
