"""The Chinese edition's translation catalogs: complete, intact and in step with the English source.

``tools.zh_edition`` holds the checks; these tests run them on ``locales/zh_CN`` and re-extract the
English messages to compare message ids, so an edited English paragraph fails here until its
translation is updated (``python -m tools.zh_edition extract``, then translate the fuzzy/new messages).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tools import zh_edition
from tools.zh_edition import message_problems

ROOT = Path(__file__).resolve().parents[1]
LC_MESSAGES = ROOT / "locales" / "zh_CN" / "LC_MESSAGES"


def _messages(path: Path):
    with open(path, "rb") as handle:
        return [m for m in read_po(handle) if m.id]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """The English messages as the gettext builder extracts them today (one .pot per page)."""
    out = tmp_path_factory.mktemp("gettext")
    subprocess.run(["jupyter-book", "build", str(ROOT), "--builder", "custom", "--custom-builder", "gettext",
                    "--path-output", str(out), "--all", "-q"], check=True, cwd=ROOT, capture_output=True)
    return out / "_build" / "gettext"


def test_every_page_has_a_catalog(extracted):
    pages = sorted(p.relative_to(extracted).with_suffix("") for p in extracted.rglob("*.pot"))
    catalogs = sorted(p.relative_to(LC_MESSAGES).with_suffix("") for p in LC_MESSAGES.rglob("*.po"))
    assert pages and catalogs == pages


def test_catalogs_match_the_english_source(extracted):
    """Same message ids as a fresh extraction: no English message missing, none left over."""
    for pot in sorted(extracted.rglob("*.pot")):
        po = LC_MESSAGES / pot.relative_to(extracted).with_suffix(".po")
        english = {m.id for m in _messages(pot)}
        translated = {m.id for m in _messages(po)}
        assert english == translated, (f"{po.name} is out of date: run `python -m tools.zh_edition extract`; "
                                       f"new {sorted(english - translated)[:3]}, gone {sorted(translated - english)[:3]}")


@pytest.mark.parametrize("po", sorted(LC_MESSAGES.rglob("*.po")), ids=lambda p: p.stem)
def test_every_message_translated_and_intact(po):
    """No untranslated or fuzzy message; math, code, roles and placeholders carried over unchanged."""
    problems = zh_edition.catalog_problems(po)
    assert not problems, "\n".join(problems[:10])


def test_catalogs_hold_alt_texts_and_slider_text():
    messages = {m.id for po in LC_MESSAGES.rglob("*.po") for m in _messages(po)}
    from tools.i18n import PDF_SLIDER_NOTE, SLIDER_NOTE

    assert SLIDER_NOTE in messages and PDF_SLIDER_NOTE in messages
    assert any(m.startswith("Laplace densities and CDFs") for m in messages)  # a figure's alt text


@pytest.mark.parametrize("msgid, msgstr, problem", [
    ("Draw $x$ with `f`.", "", "untranslated"),
    ("Draw $x$ with `f`.", "用 `f` 抽取 $y$。", "math differ"),
    ("Draw $x$ with `f`.", "用 `g` 抽取 $x$。", "code differ"),
    ("See {ref}`the proof <thm-x>`.", "见{ref}`证明 <thm-y>`。", "roles differ"),
    ("See {cite:p}`dwork2006`.", "见 {cite:p}`dwork2014`。", "roles differ"),
    ("A share of {glue:text}`ch09_share:.2f`.", "比例为 0.90。", "roles differ"),  # glued number retyped
    ("A share of {glue:text}`ch09_share:.2f`.", "比例为 {glue:text}`ch09_share:.1%`。", "roles differ"),  # format
    ("ε = {epsilon} here", "此处 ε = {eps}", "placeholders differ"),
    ("the noise is large", "the noise is large", "no Chinese"),
])
def test_the_check_catches_damage(msgid, msgstr, problem):
    assert any(p.startswith(problem) for p in message_problems(msgid, msgstr, fuzzy=False))


def test_the_check_passes_a_good_translation_and_flags_fuzzy():
    msgid = ("See {ref}`the proof <thm-x>` of $x$ in `f` {cite:p}`dwork2006`, at ε = {epsilon}, "
             "a share of {glue:text}`ch09_share:.2f`.")
    msgstr = ("参见 $x$ 的{ref}`证明 <thm-x>`，见 `f` {cite:p}`dwork2006`，此时 ε = {epsilon}，"
              "比例为 {glue:text}`ch09_share:.2f`。")
    assert message_problems(msgid, msgstr, fuzzy=False) == []
    assert message_problems(msgid, msgstr, fuzzy=True) == ["fuzzy"]


def test_a_role_shown_inside_a_code_span_is_code_not_a_role():
    """The preface names MyST syntax (`{glue:text}`, `{dropdown}`) in code spans: the words after such a span are
    prose to translate, not a role's content to keep; the code spans themselves must still survive."""
    msgid = "Markup such as `{glue:text}` and `{dropdown}` shows as typed in JupyterLab."
    assert message_problems(msgid, "在 JupyterLab 中，`{glue:text}` 和 `{dropdown}` 这样的标记会原样显示。",
                            fuzzy=False) == []
    assert any(p.startswith("code differ") for p in
               message_problems(msgid, "在 JupyterLab 中，`{glue:text}` 这样的标记会原样显示。", fuzzy=False))


def test_glossary_exists():
    text = (ROOT / "locales" / "zh_CN" / "GLOSSARY.md").read_text(encoding="utf-8")
    for term in ("差分隐私", "隐私预算", "敏感度", "拉普拉斯机制", "指数机制", "随机响应", "本地差分隐私"):
        assert term in text


def test_the_chinese_config_derives_from_the_english_one():
    config = zh_edition.zh_config()
    assert config["sphinx"]["config"]["language"] == "zh_CN"
    assert config["title"] == zh_edition.TITLE
    assert "xeCJK" not in config["sphinx"]["config"]["latex_elements"]["fontpkg"]  # Sphinx adds it for zh
    assert "Noto Serif CJK SC" in config["sphinx"]["config"]["latex_elements"]["fontpkg"]
    assert sys.modules["tools.zh_edition"] is zh_edition


def test_compiled_catalogs_qualify_every_glue_role_with_its_notebook(tmp_path):
    """A translated paragraph is parsed without its notebook, so MyST-NB can resolve only document-qualified
    glue roles there: the zh edition's compiled catalogs write every same-page role as ``page.ipynb::key``."""
    from babel.messages.mofile import read_mo

    assert zh_edition._qualified_glue("{glue:text}`k:.2f`, {glue:text}`k`, {glue:text}`b.ipynb::j:.1%`",
                                      "a.ipynb") == \
        "{glue:text}`a.ipynb::k:.2f`, {glue:text}`a.ipynb::k:s`, {glue:text}`b.ipynb::j:.1%`"
    assert zh_edition._qualified_glue("Markup such as `{glue:text}` stays as typed.", "a.ipynb") == \
        "Markup such as `{glue:text}` stays as typed."  # a role shown in a code span is code
    glued = 0
    for mo in zh_edition.compile_catalogs():
        with open(mo, "rb") as handle:
            for message in read_mo(handle):
                for content in re.findall(r"(?<!`)\{glue(?::\w+)?\}`([^`]*)`", str(message.string or "")):
                    assert "::" in content and content.count(":") >= 3, (mo.name, content)
                    glued += 1
    assert glued > 100
