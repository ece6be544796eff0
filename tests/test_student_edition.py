"""The student edition (tools/make_student_edition.py): no solution survives, the checks check, Run All runs
past them, and the markdown is plain Markdown that JupyterLab renders.

The command is run once into a temporary folder. For every chapter: no solution code or solution
text is left, outputs and execution counts are cleared, the check cells are kept unchanged and tagged
``raises-exception``, and each ``answer_...`` a solution assigned has its ``answer_... = None  # your answer here``
line. The markdown has no MyST markup left (glue roles, directives, roles, targets), the glued numbers appear
formatted as the book shows them, theorems and exercises carry the book's numbers. Then every chapter with check
cells is executed in a fresh kernel in which a cell error stops the run unless the cell is tagged
``raises-exception`` (as *Run All* in JupyterLab), and each check cell must fail (AssertionError or TypeError) on
the empty answers while every code cell runs. To keep this fast only the setup cell and the exercise section run;
if that is not enough (a check needs something from the chapter body), the whole student notebook runs instead.
That the same checks pass on the real solutions is what strict nbval verifies on the committed chapters
(`pytest --nbval`); here the committed outputs are checked for it.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

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
    # The check cells are all there, unchanged and in order, and Run All goes on past them; every answer has
    # its placeholder.
    checks = [c.source for c in original.cells if "check" in _tags(c)]
    assert [c.source for c in copy.cells if "check" in _tags(c)] == checks
    assert all("raises-exception" in _tags(c) for c in copy.cells if "check" in _tags(c))
    assert all("raises-exception" not in _tags(c) for c in copy.cells if "check" not in _tags(c))
    for cell in original.cells:
        if "solution" in _tags(cell) and cell.cell_type == "code":
            for name in student.answer_names(cell.source):
                assert f"{name} = None  # your answer here" in text, f"{path.name}: no placeholder for {name}"
    assert "# your answer here" in text


MYST_LEFT = re.compile(r"\{glue|\{prf:|:::\{|```\{|~~~\{|\{doc\}|\{cite|\{ref\}|\{numref\}|\{exercise|\{dropdown"
                       r"|\{admonition|\{bibliography|^\([^()\s]+\)=\s*$|^:(?:class|label|filter|open):", re.M)


def _markdown(nb):
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _glued(path, name, fmt):
    """``name`` as the book shows it with format ``fmt``: MyST-NB's own formatting of the committed output."""
    from myst_nb.core.variables import format_plain_text
    data = student._glue_data(nbformat.read(path, as_version=4))
    return format_plain_text(data[name], fmt)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_markdown_is_plain(edition, path):
    """JupyterLab shows MyST markup raw: none may be left, and every glued value appears as the book formats it."""
    text = _markdown(nbformat.read(edition / path.name, as_version=4))
    left = MYST_LEFT.search(text)
    assert not left, f"{path.name}: MyST markup in the student edition: {text[left.start() - 40:left.end() + 60]!r}"
    assert text.count("<details>") == text.count("</details>")
    original = _markdown(nbformat.read(path, as_version=4))
    for role in re.finditer(r"\{glue:text\}`(?:([^`:]+)::)?([^`:]+)(?::([^`]*))?`", student.strip_solutions(original)):
        source = path.parent / role.group(1) if role.group(1) else path
        assert _glued(source, role.group(2), role.group(3) or "") in text, f"{path.name}: {role.group(0)} not shown"


def test_spot_checks_of_the_converted_markdown(edition):
    why = _markdown(nbformat.read(edition / "01_why_privacy.ipynb", as_version=4))
    half = _glued(ROOT / "chapters" / "01_why_privacy.ipynb", "ch01_noisy_800_half", ".0%")
    assert half.endswith("%") and "." not in half
    assert f"least squares recovers {half} of the bits from 800 answers" in why
    assert "**Definition 1.1 (ε-differential privacy).**" in why
    audit = _markdown(nbformat.read(edition / "05_auditing.ipynb", as_version=4))
    low = _glued(ROOT / "chapters" / "14_exact_noise.ipynb", "ch09_share_numpy_min", ".2f")  # glued in chapter 14
    assert re.fullmatch(r"\d\.\d\d", low) and f"of probability {low} to" in audit
    slip = _glued(ROOT / "chapters" / "07_local_sensitivity.ipynb", "ch06_pass_slip", ".3g")  # glued in chapter 7
    assert f"with probability {slip} instead" in audit
    assert "**Theorem 5.1 (What an audit tests).**" in audit          # numbered as in the book
    assert "by\nTheorem 5.1, and" in audit                            # {prf:ref}
    assert "<details>\n<summary>Going deeper: proof of the audit principle</summary>\n\n*Proof.*\n\n" in audit
    assert "[Why privacy is hard](01_why_privacy.ipynb)" in audit      # {doc}: the chapter's title, linked
    assert "(Clopper and Pearson 1934)" in audit and "Mironov (2012)" in audit   # {cite:p}, {cite:t}
    assert "**Learning objectives**\n\nAfter this chapter you can" in audit
    assert "**Exercise 5.1.**" in audit
    assert "- C. J. Clopper, E. S. Pearson (1934). *The Use of Confidence" in audit  # {bibliography}
    readme = (edition / "README.md").read_text(encoding="utf-8")
    assert "jupyter lab student_edition/" in readme and "raises-exception" in readme


def test_a_glued_value_that_cannot_be_found_is_an_error(tmp_path):
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    glue = nbformat.v4.new_code_cell("glue('x', 0.25)", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/plain": "0.25"}, metadata={"scrapbook": {"name": "x", "mime_prefix": ""}})])
    good = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A\n\nShare {glue:text}`x:.0%`."), glue])
    nbformat.write(good, chapters / "a.ipynb")
    student.write_edition([chapters / "a.ipynb"], tmp_path / "out")
    assert "Share 25%." in _markdown(nbformat.read(tmp_path / "out" / "a.ipynb", as_version=4))
    for role in ("{glue:text}`y:.2f`", "{glue:text}`a.ipynb::y`", "{glue:text}`missing.ipynb::x:.2f`"):
        bad = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# B\n\nValue {role}.")])
        nbformat.write(bad, chapters / "b.ipynb")
        with pytest.raises(student.GlueError):
            student.write_edition([chapters / "b.ipynb"], tmp_path / "out2")
    result = subprocess.run([sys.executable, "-m", "tools.make_student_edition", "--out", str(tmp_path / "out3"),
                             str(chapters / "b.ipynb")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "missing.ipynb" in result.stderr
    assert not (tmp_path / "out3" / "b.ipynb").exists()


def test_the_glue_format_is_myst_nbs():
    from myst_nb.core.variables import format_plain_text
    for text, fmt in [("0.7123", ".0%"), ("3200", ",d"), ("7.2391e-06", ".3g"), ("'abc'", ""), ("12", ".2f"),
                      ("np.float64(0.5)", ""), ("True", "")]:
        assert student.format_plain_text(text, fmt) == format_plain_text(text, fmt)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_checks_pass_on_the_committed_solutions(path):
    """The committed (nbval-verified) outputs of every check cell show no error."""
    for cell in nbformat.read(path, as_version=4).cells:
        if "check" in _tags(cell):
            assert cell.outputs and all(o.output_type != "error" for o in cell.outputs), \
                f"{path.name}: a check cell fails on the real solution: {cell.source[:80]}"


def _run(nb, cells, folder):
    """Run ``cells`` as JupyterLab's Run All does: an error stops the run unless its cell is tagged
    ``raises-exception`` (nbclient raises CellExecutionError then). Returns the executed code cells."""
    run = nbformat.v4.new_notebook(cells=[nbformat.from_dict(c) for c in cells], metadata=nb.metadata)
    NotebookClient(run, timeout=120, kernel_name="python3", allow_errors=False, record_timing=False,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return run.cells


def _errors(cells):
    return [next((o.ename for o in c.outputs if o.output_type == "error"), None) for c in cells if "check" in _tags(c)]


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if _has_checks(p)], ids=lambda p: p.stem)
def test_checks_fail_on_empty_answers_and_run_all_goes_on(edition, path):
    nb = nbformat.read(edition / path.name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    start = next((i for i, c in enumerate(nb.cells)
                  if c.cell_type == "markdown" and re.search(r"^## Exercises", c.source, re.M)), None)
    quick = [code[0]] + [c for c in nb.cells[start:] if c.cell_type == "code"] if start is not None else code
    try:
        ran = _run(nb, quick, ROOT / "chapters")
        if "NameError" in _errors(ran):
            raise CellExecutionError("a check uses the chapter body", "", "NameError")
    except CellExecutionError:  # the exercises need the chapter body: run everything
        ran = _run(nb, code, ROOT / "chapters")
    errors = _errors(ran)
    assert errors, f"{path.name}: no check cells ran"
    assert all(e in ("AssertionError", "TypeError") for e in errors), \
        f"{path.name}: every check must fail on the empty answers with an assertion; got {errors}"
    assert all(c.execution_count is not None for c in ran), f"{path.name}: the run stopped before the last cell"


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
