"""tools/changed_answers.py on a throw-away git repository with two releases of a two-chapter book."""

from __future__ import annotations

import json
import subprocess

import pytest

from dp_lib.selfcheck import encode
from tools import changed_answers as ca

TOC = """format: jb-book
root: chapters/00_preface
parts:
  - caption: Chapters
    numbered: true
    chapters:
{entries}
"""


def _exercise(label, title="", body="Compute it.", fence="````"):
    return {"cell_type": "markdown", "metadata": {}, "source": f"{fence}{{exercise}} {title}\n:label: {label}\n\n{body}\n{fence}"}


def _code(source, tags=(), outputs=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": source, "outputs": list(outputs),
            "execution_count": 1}


def _result(text):
    return {"output_type": "execute_result", "data": {"text/plain": text}, "metadata": {}, "execution_count": 1}


def _glue(name, text):
    return {"output_type": "display_data", "data": {"application/papermill.record/text/plain": text},
            "metadata": {"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}}}


def _doc(lo, hi, hint="the scale is sensitivity / epsilon"):
    return encode({"name": "answer_ex1", "shape": None, "parts": [
        {"path": "", "kind": "number", "lo": lo, "hi": hi, "hint": hint, "mistakes": []}]})


def _nb(cells):
    return {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# A chapter"}, *cells,
                      {"cell_type": "markdown", "metadata": {}, "source": "## References"},
                      _code("x = 1", outputs=[_result("after the exercises")])],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _commit(repo, files, message):
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    for name in [n for n in (repo / "chapters").glob("*.ipynb") if f"chapters/{n.name}" not in files]:
        name.unlink()
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", message],
                   cwd=repo, check=True)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    repo = tmp_path_factory.mktemp("book")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    one = [
        _exercise("a-ex1", "Scale"), _code("answer_ex1 = None", ["answer"]),
        _code("answer_ex1 = 4.0\nanswer_ex1", ["solution"], [_result("4.000000000000001"), _glue("a_std", "5.6569")]),
        _code(f'check(answer_ex1, "{_doc(3.996, 4.004)}")', ["check"]),
        _exercise("a-ex2", "Variance"),
        _code("answer_ex2 = 8", ["solution"], [_result("8")]),
        _code(f'check(answer_ex2, "{_doc(7.9, 8.1)}")', ["check"]),
        _exercise("a-ex3", "Hints only"),
        _code("answer_ex3 = 1", ["solution"], [_result("0.123456")]),
        _code(f'check(answer_ex3, "{_doc(0.1, 0.2)}")', ["check"]),
        _exercise("a-ex4", "Gone"),
        _code("assert answer_ex4 == 2", ["check"]),
    ]
    two = [_exercise("b-ex1", "Old-style check"), _code("answer = 3", ["solution"], [_result("3")]),
           _code("assert abs(answer - 3) < 0.01, 'no'", ["check"])]
    _commit(repo, {"_toc.yml": TOC.format(entries="      - file: chapters/01_a\n      - file: chapters/02_b"),
                   "chapters/01_a.ipynb": _nb(one), "chapters/02_b.ipynb": _nb(two)}, "v1")
    subprocess.run(["git", "tag", "v1"], cwd=repo, check=True)

    one_new = [
        _exercise("a-new", "Warm-up"), _code("answer_ex0 = 1", ["solution"], [_result("1")]),   # added in front
        _exercise("a-ex1", "Scale"), _code("answer_ex1 = None", ["answer"]),
        # last-bit change and a rounded print one unit off: not an answer change; a newly glued value neither
        _code("answer_ex1 = 4.0\nanswer_ex1", ["solution"],
              [_result("4.0"), _glue("a_std", "5.6569"), _glue("a_new_value", "1.5")]),
        _code(f'check(answer_ex1, "{_doc(3.996 * (1 + 1e-15), 4.004)}")', ["check"]),
        _exercise("a-ex2", "Variance of Lap(b)"),                                                 # retitled
        _code("answer_ex2 = 8", ["solution"], [_result("8")]),
        _code(f'check(answer_ex2, "{_doc(15.9, 16.1)}")', ["check"]),                             # answer changed
        _exercise("a-ex3", "Hints only"),
        _code("answer_ex3 = 1", ["solution"], [_result("0.123457")]),
        _code(f'check(answer_ex3, "{_doc(0.1, 0.2, hint="another hint")}")', ["check"]),
    ]
    two_new = [_exercise("b-ex1", "Old-style check"), _code("answer = 3", ["solution"], [_result("3")]),
               _code(f'check(answer, "{_doc(2.99, 3.01)}")', ["check"])]                         # rewritten check
    # chapter 02 becomes chapter 03 (a new chapter 02 without exercises goes before it)
    _commit(repo, {"_toc.yml": TOC.format(entries="      - file: chapters/01_a\n      - file: chapters/02_new\n"
                                                  "      - file: chapters/03_b"),
                   "chapters/01_a.ipynb": _nb(one_new), "chapters/02_new.ipynb": _nb([]),
                   "chapters/03_b.ipynb": _nb(two_new)}, "v2")
    subprocess.run(["git", "tag", "v2"], cwd=repo, check=True)
    return repo


def _by_kind(changes):
    result: dict[str, list[tuple[str, str]]] = {}
    for c in changes:
        result.setdefault(c.kind, []).append((c.label, c.detail))
    return result


def test_reads_the_exercises_of_a_ref(book):
    exercises = ca.read_ref(book, "v1")
    assert [(e.number, e.label, e.title) for e in exercises] == [
        ("1.1", "a-ex1", "Scale"), ("1.2", "a-ex2", "Variance"), ("1.3", "a-ex3", "Hints only"),
        ("1.4", "a-ex4", "Gone"), ("2.1", "b-ex1", "Old-style check")]
    first = exercises[0]
    assert first.solution_outputs == ["4.000000000000001"] and first.glued == {"a_std": "5.6569"}
    assert first.checks[0]["doc"]["parts"][0]["lo"] == 3.996
    assert exercises[3].checks == [{"source": "assert answer_ex4 == 2"}]
    assert "after the exercises" not in json.dumps([e.solution_outputs for e in exercises])


def test_finds_every_kind_of_change_and_no_false_ones(book):
    kinds = _by_kind(ca.compare(ca.read_ref(book, "v1"), ca.read_ref(book, "v2")))
    assert [label for label, _ in kinds["added"]] == ["a-new"]
    assert [label for label, _ in kinds["removed"]] == ["a-ex4"]
    assert sorted(label for label, _ in kinds["renumbered"]) == ["a-ex1", "a-ex2", "a-ex3", "b-ex1"]
    assert kinds["retitled"] == [("a-ex2", "'Variance' -> 'Variance of Lap(b)'")]
    assert kinds["answer"] == [("a-ex2", "right answer of the check changed")]  # a-ex1, a-ex3: last bit only
    assert kinds["check-hints"] == [("a-ex3", "check hints or typical mistakes changed")]
    assert kinds["check-format"] == [("b-ex1", "check rewritten as an encoded check")]
    assert "statement" not in kinds


def test_renumbering_names_old_and_new_numbers(book):
    changes = ca.compare(ca.read_ref(book, "v1"), ca.read_ref(book, "v2"))
    moved = {c.label: (c.old, c.new) for c in changes if c.kind == "renumbered"}
    assert moved["a-ex1"] == ("Exercise 1.1 (01_a)", "Exercise 1.2 (01_a)")
    assert moved["b-ex1"] == ("Exercise 2.1 (02_b)", "Exercise 3.1 (03_b)")


def test_no_changes_between_a_ref_and_itself(book):
    assert ca.compare(ca.read_ref(book, "v2"), ca.read_ref(book, "v2")) == []
    assert "no answer changed" in ca.report_markdown([], "v2", "v2")


def test_command_line_markdown_and_changelog(book, capsys):
    (book / "CHANGELOG.md").write_text(f"# Changelog\n\n## 0.2.0\n\n{ca.BEGIN}\n(to be generated)\n{ca.END}\n")
    assert ca.main(["v1", "v2", "--repo", str(book), "--write-changelog"]) == 0
    out = capsys.readouterr().out
    assert "**Answer changed (solution outputs or the self-check's right values)** (1):" in out
    assert "- Exercise 1.3 (01_a) `a-ex2`: right answer of the check changed" in out
    assert "- Exercise 2.1 (02_b) → Exercise 3.1 (03_b) `b-ex1`" in out
    assert out.strip() in (book / "CHANGELOG.md").read_text()
    assert ca.main(["v1", "v2", "--repo", str(book), "--json"]) == 0
    assert {c["kind"] for c in json.loads(capsys.readouterr().out)} >= {"added", "removed", "answer"}


@pytest.mark.parametrize("a, b, same", [
    ("0.30000000000000004", "0.3", True),          # last bit
    ("13441.6198", "13441.6199", True),            # a rounded print one unit off
    ("0.8435", "0.9061", False),
    ("7841", "7842", False),                       # integers: exact
    ("0.12", "0.13", False),                       # too few digits to call it rounding
    ("1.2345e-05", "1.2346e-05", True),
    ("eps 1.0 (n=10)", "eps 1.0000000000000002 (n=10)", True),
    ("eps 1.0 (n=10)", "eps 1.0 (n=11)", False),
    ("a   b\n", "a b", True),
])
def test_texts_equal_up_to_the_last_bit(a, b, same):
    assert ca.texts_equal(a, b) is same


def test_unknown_ref_is_a_clear_error(book):
    with pytest.raises(SystemExit, match="git ls-tree"):
        ca.read_ref(book, "v9")


def test_the_newest_changelog_entry_has_the_exercise_section():
    """The release convention (CHANGELOG.md's preamble): each entry from 0.3 on names its tag and commit and lists
    the exercises whose answer or numbering changed, written by this tool between its markers."""
    text = (ca.ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = text.split("\n## ")[1].split("\n## ")[0]
    assert "Tag and commit:" in newest
    assert "### Exercises whose answer or numbering changed" in newest
    assert ca.BEGIN in newest and ca.END in newest
