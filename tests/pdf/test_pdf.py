"""The PDF edition, read back from the PDF itself (poppler's ``pdftotext``, ``pdfimages``, ``pdfinfo``).

Run after ``jupyter-book build . --builder pdflatex`` (``.ci/run`` does, after the HTML book):

    pytest tests/pdf -p no:cacheprovider

Not collected by a plain ``pytest`` (``norecursedirs`` lists ``pdf``); skipped with a reason when the
PDF or poppler-utils is missing (under ``CI=true``: failed, see tests/browser/ci_strict.py). Page images
for a person to look at: ``pdftoppm -png -r 60 -f N -l N``.

Checked: every document of ``_toc.yml`` is there under its title, in the toc's order; theorems and
definitions are numbered per chapter; every entry of references.bib is in the bibliography and no
citation or cross-reference is left unresolved (``??``); every figure of the committed notebooks is
there (solutions and slider cells excepted: the PDF omits the solutions and shows each slider as its
static default figure, with a note); no widget's text stand-in; every non-ASCII character of the
book's prose and outputs is in the text (so the fonts have it), and the LaTeX log has no
``Missing character``; no code output is broken with Sphinx's continuation arrow (only code is), and
every DataFrame is a table whose rows each stay on one line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
import yaml
from ci_strict import skip_or_fail  # tests/browser/ci_strict.py, loaded by this folder's conftest.py

ROOT = Path(__file__).resolve().parents[2]
PDF = Path(os.environ.get("DP_BOOK_PDF", ROOT / "_build" / "latex" / "dp-by-experiment.pdf"))
LOG = PDF.with_suffix(".log")
# The edition: "en", or "zh-CN" for the Chinese PDF (DP_BOOK_PDF=_build/zh/_build/latex/dp-by-experiment-zh.pdf),
# whose expected titles and notes are read from its translation catalogs (locales/zh_CN).
LANG = os.environ.get("DP_BOOK_LANG", "en")
SLIDER_CALL = re.compile(r"\binteract(?:ive)?(?:_output|_figure)?\(")
# Sphinx breaks a code line wider than the page: a visible space where it broke, and its continuation
# mark (\hookrightarrow) at the start of the rest.
VISIBLE_SPACE, CONTINUATION = "\u2423", "\u21aa"
# The words LaTeX and sphinx-proof print themselves, per edition.
# (The bibliography's heading is the Bibliography page's title: tools/latex_edition.py and tools/zh_edition.py.)
NAMES = {"en": {"Theorem": "Theorem", "Definition": "Definition", "Solution to": "Solution to Exercise"},
         "zh-CN": {"Theorem": "定理", "Definition": "定义", "Solution to": "解答 练习"}}[LANG]

if not PDF.is_file():
    skip_or_fail(f"no {PDF.relative_to(ROOT) if PDF.is_relative_to(ROOT) else PDF}: run "
                 "`jupyter-book build . --builder pdflatex` first (.ci/run does)", module=True)
if not shutil.which("pdftotext"):
    skip_or_fail("pdftotext is missing: apt-get install poppler-utils", module=True)


def _catalog(doc: str) -> dict:
    """msgid -> msgstr of one page's translation (empty in the English edition)."""
    if LANG == "en":
        return {}
    from babel.messages.pofile import read_po

    path = ROOT / "locales" / LANG.replace("-", "_") / "LC_MESSAGES" / f"{doc}.po"
    with open(path, "rb") as handle:
        return {m.id: m.string for m in read_po(handle) if m.id and m.string}


def _translated(doc: str, message: str) -> str:
    return _catalog(doc).get(message, message)


def _slider_note() -> str:
    from tools.i18n import PDF_SLIDER_NOTE

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return _translated(toc["root"], PDF_SLIDER_NOTE)[:40]


def _norm(text: str) -> str:
    """Compare text modulo ligatures, math alphabets (NFKC), case, hyphenation and line breaks."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s\-\u2010\u2011\u00ad]+", "", text)


@pytest.fixture(scope="module")
def text() -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(PDF), "-"], check=True, capture_output=True,
                          text=True, timeout=120).stdout


def _toc_docs() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for key, value in node.items():
                if key != "root":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def _source(doc: str) -> Path:
    for suffix in ("", ".ipynb", ".md"):
        path = ROOT / (doc + suffix)
        if path.is_file():
            return path
    raise FileNotFoundError(doc)


def _cells(path: Path) -> list[dict]:
    if path.suffix == ".ipynb":
        return json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [{"cell_type": "markdown", "source": path.read_text(encoding="utf-8"), "metadata": {}}]


def _markdown(path: Path) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")


def _title(path: Path, doc: str | None = None) -> str:
    match = re.search(r"^#\s+(.+?)\s*$", _markdown(path), re.M)
    assert match, f"{path.name} has no '# title'"
    title = _translated(doc, match.group(1)) if doc else match.group(1)
    return re.sub(r"[`*_]", "", title)


def _kept_code_cells(path: Path) -> list[dict]:
    """Code cells the PDF shows: not solutions, not slider cells."""
    return [c for c in _cells(path) if c["cell_type"] == "code"
            and "solution" not in c.get("metadata", {}).get("tags", [])
            and not SLIDER_CALL.search("".join(c["source"]))]


DOCS = _toc_docs()


def test_every_toc_document_is_there_in_order(text):
    """Each title appears in the table of contents and again as a heading in the body, both times in
    the order of _toc.yml."""
    flat = _norm(text)
    titles = [_title(_source(doc), doc) for doc in DOCS]
    cursor = 0
    for part in ("table of contents", "body"):
        for title in titles:
            where = flat.find(_norm(title), cursor)
            assert where >= 0, f"{title!r} is missing from the PDF's {part} (or out of the order of _toc.yml)"
            cursor = where + len(_norm(title))


def test_no_unresolved_references(text):
    assert "??" not in text, f"unresolved references: {re.findall(r'.{40}[?][?].{20}', text)[:5]}"
    assert "[?]" not in text


def test_theorems_and_definitions_are_numbered(text):
    expected = {NAMES["Theorem"]: 0, NAMES["Definition"]: 0}
    # a directive's fence opens its line (the preface shows "`{prf:theorem}`" in a code span: no theorem)
    directive = re.compile(r"^[ \t]*(?:`{3,}|:{3,})\{prf:(theorem|definition)\}([^\n]*)\n((?:[ \t]*:[\w-]+:.*\n)*)",
                           re.M)
    for doc in DOCS:
        for kind, title, options in directive.findall(_markdown(_source(doc))):
            assert title.strip(), f"{doc}: a {kind} without a title (the PDF's headings are found by their title)"
            if ":nonumber:" not in options:  # the appendix titles its own (A.1, A.2, ...)
                expected[NAMES[kind.capitalize()]] += 1
    for kind, count in expected.items():
        # the heading of each numbered theorem is a line "Theorem 4.6.1 (Report noisy max)": the number, then the
        # title; a mention in prose or a table's column ("Theorem 3.5") may start a line too, but has no title
        numbers = [tuple(int(part) for part in n.split("."))
                   for n in re.findall(rf"^{kind} (\d+(?:\.\d+)*)(?=\s*[（(])", text, re.M)]
        assert len(numbers) == count, \
            f"{count} {kind.lower()}s in the sources, {len(numbers)} numbered headings in the PDF: {numbers}"
        assert len(set(numbers)) == len(numbers), f"{kind} numbers repeat: {numbers}"
        chapters = [n for n in numbers if len(n) > 1]  # numbered chapters; the appendix part counts on its own
        assert chapters == sorted(chapters), f"{kind} numbers are not increasing through the book: {numbers}"


def test_bibliography_lists_every_entry(text):
    flat = _norm(text)
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    titles = re.findall(r"^\s*title\s*=\s*[{\"](.+?)[}\"]\s*,?\s*$", bib, re.M | re.I)
    assert titles, "no titles parsed from references.bib"
    missing = []
    for title in titles:
        words = re.sub(r"[{}\\$]", "", title).split()[:6]
        if _norm(" ".join(words)) not in flat:
            missing.append(title)
    assert not missing, f"bibliography entries missing from the PDF: {missing[:5]}"
    assert _norm(_translated("chapters/bibliography", "Bibliography")) in flat


def test_every_figure_is_there():
    pngs = sum("image/png" in out.get("data", {}) for doc in DOCS for c in _kept_code_cells(_source(doc))
               for out in c.get("outputs", []))
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], check=True, capture_output=True, text=True,
                             timeout=120).stdout.splitlines()[2:]
    images = sum(1 for line in listing if line.split()[2:3] == ["image"])
    assert images >= pngs, f"{pngs} figures in the notebooks (outside solutions), {images} images in the PDF"


def test_sliders_are_static_figures_and_solutions_are_omitted(text):
    sliders = sum(bool(SLIDER_CALL.search("".join(c["source"]))) for doc in DOCS for c in _cells(_source(doc))
                  if c["cell_type"] == "code" and "solution" not in c.get("metadata", {}).get("tags", []))
    assert _norm(text).count(_norm(_slider_note())) == sliders, f"expected {sliders} slider notes"
    for widget_text in ("interactive(children", "FloatSlider(", "IntSlider(", "model_id", "vnd.jupyter.widget"):
        assert widget_text not in text, f"a widget's raw representation is in the PDF: {widget_text}"
    assert NAMES["Solution to"] not in text, "the PDF edition omits the solutions"


def test_every_character_is_rendered(text):
    flat = unicodedata.normalize("NFKC", text)
    wanted = set()
    for doc in DOCS:
        path = _source(doc)
        wanted |= set(_markdown(path))
        for cell in _kept_code_cells(path):
            for out in cell.get("outputs", []):
                wanted |= set("".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", "")))
    wanted = {unicodedata.normalize("NFKC", ch) for ch in wanted if ord(ch) > 127
              and unicodedata.category(ch)[0] in "LSN"}  # letters, symbols, numbers
    missing = sorted(ch for ch in wanted if ch not in flat)
    assert not missing, f"characters of the book missing from the PDF text: {missing}"
    if LANG != "en":
        # Translations: their alt texts, slider text and solutions are not printed, so a few characters
        # may be used only there; nearly all must be in the text (the log check below covers the fonts).
        translated = {ch for doc in DOCS for ch in "".join(_catalog(doc).values()) if "\u4e00" <= ch <= "\u9fff"}
        absent = sorted(ch for ch in translated if ch not in flat)
        assert len(absent) <= 0.02 * len(translated), f"{len(absent)} of {len(translated)} characters absent: {absent}"
    if LOG.is_file():
        log = LOG.read_text(encoding="utf-8", errors="replace")
        lines = sorted(set(re.findall(r"Missing character: .*", log)))
        assert not lines, f"the fonts lack characters: {lines[:10]}"


def test_page_count_is_plausible():
    info = subprocess.run(["pdfinfo", str(PDF)], check=True, capture_output=True, text=True, timeout=60).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert pages >= 10 * len(DOCS) // 2, f"only {pages} pages for {len(DOCS)} documents"


def _squeeze(text: str) -> str:
    """Text without whitespace, hyphens (pdftotext joins a line ending in one to the next) and Sphinx's
    line-break marks, modulo NFKC."""
    text = unicodedata.normalize("NFKC", text).replace(VISIBLE_SPACE, "").replace(CONTINUATION, "")
    text = text.replace("\u30fb", "\u00b7")  # the Chinese PDF sets a middle dot in the CJK font
    return re.sub(r"[\s\-\u00ad]+", "", text)


def _kept_outputs(kind: str):
    """The outputs that the PDF prints (of kept code cells, not hidden) holding ``kind`` (a MIME type;
    "": all)."""
    hidden = {"hide-cell", "hide-output", "remove-cell", "remove-output"}
    for doc in DOCS:
        for cell in _kept_code_cells(_source(doc)):
            if hidden & set(cell.get("metadata", {}).get("tags", [])):
                continue
            for out in cell.get("outputs", []):
                if not kind or kind in out.get("data", {}):
                    yield doc, out


def _follows(code: str, before: str, after: str) -> bool:
    """Whether ``after`` follows ``before`` somewhere in ``code`` (a character or two may be missing
    from the PDF's text, such as a comment's "#" that pdftotext leaves out)."""
    return any(after in code[i + len(before):i + len(before) + len(after) + 3]
               for i in (m.start() for m in re.finditer(re.escape(before), code)))


def test_no_output_line_is_broken(text):
    """Sphinx breaks a code line wider than the page and marks the rest with an arrow. In code that is
    the convention; an output must fit instead (tools/latex_edition.py: DataFrames are tables, a wide
    output gets a smaller font, a long message breaks at its spaces with no arrow). So every arrow in
    the PDF must break a line of a code cell's source or of a literal block in the prose."""
    sources = []
    for doc in DOCS:
        for cell in _cells(_source(doc)):
            sources.append("".join(cell["source"]))
    code = _squeeze("\n".join(sources))
    printed = []
    for _, out in _kept_outputs(""):
        printed += [out.get("text", ""), out.get("data", {}).get("text/plain", ""), out.get("traceback", "")]
    outputs = _squeeze("\n".join("".join(part) for part in printed))
    broken = []
    for at in (m.start() for m in re.finditer(CONTINUATION, text)):
        # the broken line: the rest of the text line the mark starts, after the end of one of the lines
        # around it (pdftotext may move a line's trailing comment away from it, or join a line that ends
        # in a hyphen to the next: then the mark is inside a line)
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        after = _squeeze(text[at + 1:end])[:12]
        heads = text[max(0, start - 400):start].splitlines()[-3:] + text[end:end + 400].splitlines()[:4]
        heads = [line for line in [*heads, text[start:at]] if _squeeze(line)]
        if any(_follows(code, _squeeze(head)[-12:], after) for head in heads):
            continue  # a code line
        if after and after in code and after not in outputs:
            continue  # a code line whose start pdftotext moved further away (its trailing comment)
        broken.append(text[max(0, at - 80):at + 40])
    assert not broken, (f"{len(broken)} output lines are broken with Sphinx's continuation mark "
                        f"(of {text.count(CONTINUATION)} marks in all); the first: {broken[:3]}")


@pytest.fixture(scope="module")
def layout() -> str:
    """The PDF's text with its layout kept: a table's row is one line."""
    return subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", str(PDF), "-"], check=True,
                          capture_output=True, text=True, timeout=120).stdout


def test_every_dataframe_is_a_table_with_whole_rows(layout):
    """Each DataFrame of the kept cells is typeset as a table (tools/latex_edition.py): each of its rows
    is one line of the page, with its cells in order."""
    from tools.latex_edition import dataframe_rows

    lines = "\n".join(_squeeze(line) for line in layout.splitlines())
    frames = missing = 0
    examples = []
    for doc, out in _kept_outputs("text/html"):
        html = "".join(out["data"]["text/html"])
        if 'class="dataframe"' not in html:
            continue
        frames += 1
        for row in dataframe_rows(html):
            if _squeeze("".join(row)) not in lines:
                missing += 1
                examples.append(f"{doc}: {row}")
    assert frames, "no DataFrame outputs found in the notebooks"
    assert not missing, f"{missing} DataFrame rows are not whole lines of the PDF: {examples[:3]}"
