"""Lecture-hall mode (issue 38): the lecture style of ``dp_lib.plotting`` and ``python -m tools.slides``.

The decks of all 15 chapters are built once from the committed notebooks (about 10-15 s on two busy cores);
the figures command runs one tiny notebook (a kernel start), not a chapter.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import matplotlib as mpl
import nbformat
import pytest
from matplotlib.text import Text

from dp_lib.plotting import lecture as style
from tools import slides
from tools.make_student_edition import strip_solutions

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
MIN_SLIDES = 20   # the shortest chapter has about 27 slides and sub-slides


@pytest.fixture
def book_afterwards():
    yield
    style.use_style("book")


# --- the lecture style ---------------------------------------------------------------------------------------

def test_use_style_switches_rcparams_and_book_restores_them(book_afterwards):
    before = dict(mpl.rcParams)
    style.use_style("lecture")
    assert style.active_style() == "lecture"
    assert mpl.rcParams["figure.dpi"] == 2 * style.BOOK_STYLE["figure.dpi"]
    assert mpl.rcParams["legend.fontsize"] * mpl.rcParams["figure.dpi"] / 2 / 72 >= 20  # px at 1x display
    assert mpl.rcParams["lines.linewidth"] >= 2 * 1.5
    style.use_style("lecture")  # twice: the book's settings are still the ones restored
    style.use_style("book")
    assert style.active_style() == "book"
    assert dict(mpl.rcParams) == before


def test_use_style_refuses_bad_names():
    with pytest.raises(TypeError, match="name"):
        style.use_style(None)
    with pytest.raises(ValueError, match="name must be one of"):
        style.use_style("poster")
    assert style.active_style() == "book"


def _png_size(data: bytes) -> tuple[int, int]:
    return slides.png_size(data)


def test_lecture_figure_is_2x_with_large_text_and_thick_lines_and_book_is_unchanged(book_afterwards):
    from dp_lib.plotting import plot_laplace_shapes
    from dp_lib.widgets import figure_png

    book_png = figure_png(plot_laplace_shapes())
    style.use_style("lecture")
    fig = plot_laplace_shapes()
    png = figure_png(fig)
    width, height = _png_size(png)
    assert (width, height) == tuple(2 * x for x in _png_size(book_png))
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert min(t.get_fontsize() for t in texts) >= style.LECTURE_MIN_FONTSIZE
    legend_px = min(t.get_fontsize() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts())
    assert legend_px * 100 / 72 >= 20  # legend text in px when the figure is shown at its size (1x)
    assert min(line.get_linewidth() for ax in fig.axes for line in ax.get_lines()) >= style.LECTURE_MIN_LINEWIDTH
    style.use_style("book")
    assert figure_png(plot_laplace_shapes()) == book_png  # the book's figure, byte for byte


def test_lecture_fixed_position_figure_keeps_its_labels_inside(book_afterwards):
    """A slider figure with axes at fixed positions (no layout engine): the larger labels still fit."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from dp_lib.plotting import plot_unary_histogram

    style.use_style("lecture")
    fig = plot_unary_histogram()
    assert fig.get_layout_engine() is None
    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.axes[0].get_tightbbox(renderer)
    assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.width + 1 and box.y1 <= fig.bbox.height + 1


def test_environment_variable_switches_at_import():
    code = "import matplotlib as mpl, dp_lib.plotting as p; print(p.active_style(), mpl.rcParams['figure.dpi'])"
    env = {**os.environ, "DP_BOOK_STYLE": "lecture"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.stdout.split() == ["lecture", "200.0"], run.stderr[-2000:]
    env["DP_BOOK_STYLE"] = "poster"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "DP_BOOK_STYLE must be one of" in run.stderr


# --- the figure set --------------------------------------------------------------------------------------------

def test_figures_runs_a_notebook_in_the_lecture_style(tmp_path):
    cells = [
        nbformat.v4.new_markdown_cell("# A tiny chapter"),
        nbformat.v4.new_code_cell("%matplotlib inline\nfrom dp_lib.plotting import plot_laplace_shapes, active_style\n"
                                  "from dp_lib.widgets import setup_figures\nsetup_figures()"),
        nbformat.v4.new_markdown_cell("## The Laplace shapes"),
        nbformat.v4.new_code_cell("plot_laplace_shapes()"),
        nbformat.v4.new_code_cell("active_style()"),
        nbformat.v4.new_code_cell("plot_laplace_shapes(scales=(3.0,))"),
    ]
    cells[3].metadata["mystnb"] = {"image": {"alt": "Three Laplace densities, sharper for a smaller scale."}}
    cells[5].metadata["tags"] = ["solution", "hide-cell"]
    path = tmp_path / "99_tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    out = tmp_path / "figures"
    written = slides.write_figures([path], out)
    assert [p.relative_to(out).as_posix() for p in written] == ["99_tiny/02-the-laplace-shapes_cell003.png"]
    assert _png_size(written[0].read_bytes())[0] == 1600  # 8 inches at 200 dpi: twice the book's 800 px
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'alt="Three Laplace densities, sharper for a smaller scale."' in index and 'width="800"' in index


# --- the decks -------------------------------------------------------------------------------------------------

class _Page(HTMLParser):
    """The links and sources of a page, its section count and the text of its markdown cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str]] = []
        self.sections = 0
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.urls.append((tag, value))
        self.sections += tag == "section"

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    out = tmp_path_factory.mktemp("decks")
    start = time.perf_counter()
    written = slides.write_decks(CHAPTERS, out)
    seconds = time.perf_counter() - start
    print(f"\n{len(written)} decks in {seconds:.1f} s")
    pages = {}
    for path in written:
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path.stem] = (path, page)
    return out, pages


def test_every_chapter_has_a_deck(decks):
    out, pages = decks
    assert sorted(pages) == [p.stem for p in CHAPTERS]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{stem}.html"' in index for stem in pages)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_deck_is_offline_and_complete(decks, chapter):
    out, pages = decks
    path, page = pages[chapter.stem]
    assert page.sections >= MIN_SLIDES, f"{chapter.stem}: only {page.sections} slides"
    source = path.read_text(encoding="utf-8")
    assert "url(http" not in source.replace(" ", "") and "@import url(//" not in source
    for tag, url in page.urls:
        if re.match(r"(?i)^(https?:)?//", url):
            assert tag == "a", f"{chapter.stem}: <{tag}> loads {url} from the network"
        elif not url.startswith(("#", "data:", "mailto:")):
            assert (out / url.split("#")[0]).is_file(), f"{chapter.stem}: {url} is not beside the deck"
    loaded = {url for tag, url in page.urls if tag in ("script", "link")}
    assert {"vendor/reveal.js/dist/reveal.js", "vendor/mathjax/tex-mml-chtml.js"} <= loaded
    assert "Reveal.initialize(" in source


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_deck_has_the_math_and_no_solutions_or_checks(decks, chapter):
    _, pages = decks
    path, page = pages[chapter.stem]
    text = html.unescape("".join(page.text))
    nb = nbformat.read(chapter, as_version=4)
    shown = [strip_solutions(c.source) for c in nb.cells
             if c.cell_type == "markdown" and "solution" not in c.metadata.get("tags", [])]
    displays = sum(s.count("$$") for s in shown) // 2
    assert text.count("$$") // 2 >= displays, f"{chapter.stem}: display math lost"
    assert text.count("$") >= 0.9 * sum(s.count("$") for s in shown), f"{chapter.stem}: inline math lost"
    assert "dpx1:" not in text and "check(answer_" not in text, f"{chapter.stem}: a self-check cell in the deck"
    hidden = []
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            hidden += [line.strip() for line in cell.source.split("\n")]
        elif cell.cell_type == "markdown":
            kept = set(strip_solutions(cell.source).split("\n"))
            hidden += [run for line in cell.source.split("\n") if line not in kept
                       for run in re.findall(r"[A-Za-z][A-Za-z ,']{30,}", line)]
    statements = "\n".join(shown)  # an exercise may name its answer variable: not a leak
    leaked = [line for line in hidden if len(line) >= 30 and line in text and line not in statements]
    assert not leaked, f"{chapter.stem}: solution text in the deck: {leaked[:3]}"
