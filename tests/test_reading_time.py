"""The reading-time tool counts exactly the core path: prose outside collapsed blocks, visible code."""

from __future__ import annotations

import json

import pytest

from tools.reading_time import Reading, count_words, core_markdown, measure, table


def _notebook(tmp_path, cells):
    path = tmp_path / "99_toy.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text, tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text, "outputs": []}


def test_collapsed_blocks_and_markup_are_not_core():
    text = ("One two three.\n````{dropdown} Going deeper: proof\nhidden words here\n```{prf:proof}\nmore\n```\n````\n"
            ":::{admonition} Learning objectives\n:class: tip\nfour five\n:::\n")
    assert count_words(core_markdown(text)) == 5


def test_roles_keep_their_text_and_links_lose_their_target():
    assert count_words("See {doc}`the chapter` and [this page](https://example.org/a/b) $x$ and *so*.") == 9


def test_a_glued_value_is_one_word():
    # the reader sees one number, whatever the glue name and its format
    assert count_words("about {glue:text}`ch02_reading_minutes` minutes, {glue:text}`ch05_eps_hat:.2f` here") == 5
    assert count_words("about {glue}`ch02_big_table` rows") == 3


def test_measure_stops_at_exercises_and_skips_hidden_code(tmp_path):
    cells = [_md("# Title\n\nWords in the core."), _code("import x\nimport y", tags=["hide-input"]),
             _code("a = 1\n\nb = 2\n"), _code("secret = 3", tags=["solution", "hide-cell"]),
             _md("## Exercises\n\nnot counted"), _code("c = 3")]
    reading = measure(_notebook(tmp_path, cells))
    assert (reading.words, reading.code_lines) == (5, 2)
    assert reading.minutes == pytest.approx(5 / 150 + 2 * 10 / 60)


def test_table_has_one_row_per_chapter():
    rows = table([Reading("01_a", 1500, 60), Reading("02_b", 3000, 0)]).splitlines()
    assert rows[2] == "| 01_a | 1,500 | 60 | 20 |" and rows[3] == "| 02_b | 3,000 | 0 | 20 |"


# ---- the README's table, the 30-minute target and the 80 % of exercises with a check (issue 31) -------------------

def _exercise(n):
    return _md(f"````{{exercise}}\n:label: ex-{n}\nTask {n}.\n````\n")


def test_exercise_counts_pair_each_check_with_the_exercise_before_it(tmp_path):
    from tools.reading_time import exercise_counts

    cells = [_md("## Exercises\n"), _exercise(1), _code("answer_ex1 = None", ["answer"]), _code("assert 1", ["check"]),
             _code("assert 2", ["check"]),  # a second check of exercise 1 counts once
             _exercise(2), _code("# your answer here", ["answer"]),
             _exercise(3), _code("answer_ex3 = None", ["answer"]), _code("assert 3", ["check"])]
    assert exercise_counts(_notebook(tmp_path, cells)) == (3, 2)
    assert exercise_counts(_notebook(tmp_path, cells[:2])) == (1, 0)


def test_the_readme_shows_the_generated_table():
    from tools import reading_time

    written = reading_time.readme_table(reading_time.README.read_text(encoding="utf-8"))
    assert written is not None, "README.md lost the reading-time table's marker comments"
    assert written == reading_time.book_table(), "run: python -m tools.reading_time --write-readme"


def test_every_chapter_meets_the_course_targets():
    from tools import reading_time
    from tools.prerequisites import chapters

    for stem in chapters():
        path = reading_time.ROOT / "chapters" / f"{stem}.ipynb"
        minutes = measure(path).minutes
        exercises, checked = reading_time.exercise_counts(path)
        assert round(minutes) <= 30, f"{stem}: core reading time {minutes:.1f} min > 30"
        assert exercises >= 1 and checked >= 0.8 * exercises, f"{stem}: {checked} of {exercises} exercises checked"


def test_write_readme_replaces_only_the_table(tmp_path):
    import shutil

    from tools import reading_time

    (tmp_path / "chapters").mkdir()
    shutil.copy(reading_time.ROOT / "_toc.yml", tmp_path / "_toc.yml")
    for stem in __import__("tools.prerequisites", fromlist=["chapters"]).chapters():
        shutil.copy(reading_time.ROOT / "chapters" / f"{stem}.ipynb", tmp_path / "chapters")
    (tmp_path / "README.md").write_text(f"# Title\n\nbefore\n\n{reading_time.BEGIN}\nstale\n{reading_time.END}\n\nafter\n",
                                        encoding="utf-8")
    assert reading_time.write_readme(tmp_path) is True and reading_time.write_readme(tmp_path) is False
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nbefore\n\n") and text.endswith("\n\nafter\n") and "stale" not in text
