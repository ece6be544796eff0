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
