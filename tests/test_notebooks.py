"""House rules for the committed chapter notebooks (see BOOK.md).

nbval compares only cells that were executed, so these checks make sure the
committed notebooks are complete, ordered and follow the conventions that
keep strict nbval meaningful.
"""

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip", "nbval-raises-exception", "raises-exception"}


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _code_cells(path):
    return [c for c in _cells(path) if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def _source(cell):
    return "".join(cell["source"])


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks under chapters/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_top_to_bottom(path):
    counts = [c["execution_count"] for c in _code_cells(path)]
    assert counts == list(range(1, len(counts) + 1)), f"{path.name}: re-run it with tools/refresh_notebooks.py"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_kernel_and_no_errors(path):
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for cell in _code_cells(path):
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{path.name}: a committed cell shows an error"
            assert not (out["output_type"] == "stream" and out["name"] == "stderr"), \
                f"{path.name}: a committed cell writes to stderr (a warning?): {''.join(out['text'])[:200]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_seeds_one_generator(path):
    code = _code_cells(path)
    setup = code[0]
    assert "hide-input" in setup["metadata"].get("tags", []), "the setup cell is tagged hide-input"
    assert re.search(r"rng = make_rng\(\d+\)", _source(setup)), "the setup cell creates rng = make_rng(seed)"
    everything = "\n".join(_source(c) for c in code)
    for banned in ("np.random.seed(", "np.random.laplace(", "np.random.normal(", "default_rng(", "random.random("):
        assert banned not in everything, f"{path.name} uses global or ad-hoc randomness: {banned}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ignore_tags_only_on_slider_cells(path):
    for cell in _code_cells(path):
        tags = set(cell["metadata"].get("tags", []))
        if tags & IGNORE_TAGS:
            assert tags & IGNORE_TAGS == {"nbval-ignore-output"}, f"{path.name}: {tags & IGNORE_TAGS}"
            assert re.fullmatch(r"_ = interact_figure\(.*\)", _source(cell).strip(), re.S), \
                f"{path.name}: nbval-ignore-output is reserved for one-line slider cells"
        else:
            assert "interact_figure(" not in _source(cell), f"{path.name}: a slider cell without nbval-ignore-output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_code_cell_before_each_slider_draws_its_static_figure(path):
    """The static site and nbval see the slider's figure in the code cell just before the slider cell (BOOK.md);
    tests/browser/test_static_site.py relies on it, but runs only after a build: checked here, on every run."""
    code = _code_cells(path)
    for i, cell in enumerate(code):
        if "interact_figure(" in _source(cell):
            assert i > 0 and any("image/png" in out.get("data", {}) for out in code[i - 1].get("outputs", [])), (
                f"{path.name}: the code cell before the slider cell {_source(cell)[:50]!r} shows no figure: "
                "keep the static call (default arguments) right before the slider cell")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_sliders_use_interact_figure(path):
    """Sliders go through dp_lib.widgets (one PNG per move, no Output-widget echo), figures are drawn once.

    The conversion from ipywidgets (README, contributor notes): ``_ = interact(plot_x, ...)`` becomes
    ``_ = interact_figure(plot_x, ...)``; the setup cell imports ``interact_figure, setup_figures`` from
    ``dp_lib.widgets`` and calls ``setup_figures()`` after ``%matplotlib inline``.
    """
    code = _code_cells(path)
    for cell in code:
        src = _source(cell)
        assert not re.search(r"\binteract(ive_output)?\(", src), (
            f"{path.name}: a slider cell uses ipywidgets' interact: write `_ = interact_figure(plot_x, ...)` "
            f"(from dp_lib.widgets) instead: {src[:60]!r}")
    setup = _source(code[0])
    assert "from dp_lib.widgets import" in setup and re.search(r"^setup_figures\(\)$", setup, re.M), \
        f"{path.name}: the setup cell imports from dp_lib.widgets and calls setup_figures()"
    if "%matplotlib inline" in setup:
        assert setup.index("%matplotlib inline") < setup.index("\nsetup_figures()"), \
            f"{path.name}: call setup_figures() after %matplotlib inline (which would reset it)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_structure(path):
    cells = _cells(path)
    markdown = "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
    assert re.match(r"\([a-zA-Z0-9-]+\)=\n# ", _source(cells[0])), "label and title first"
    assert "Learning objectives" in _source(cells[0])
    assert len(re.findall(r"\{exercise\}", markdown)) >= 2
    assert "{bibliography}" in markdown
    tags = [set(c["metadata"].get("tags", [])) for c in _code_cells(path)]
    assert any("solution" in t for t in tags), "solutions carry the 'solution' tag"
    assert any("check" in t for t in tags), "at least one self-checking exercise ('check' tag)"
    for t in tags:
        assert not ({"solution", "check"} <= t), "a check cell must not be a solution cell"


def test_every_chapter_is_in_the_toc():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = toc.get("parts", [{"chapters": toc.get("chapters", [])}])
    listed = {entry["file"] for part in parts for entry in part["chapters"]} | {toc["root"]}
    for path in NOTEBOOKS:
        assert f"chapters/{path.stem}" in listed, f"{path.name} is missing from _toc.yml"


def _slider_calls():
    for path in NOTEBOOKS:
        for cell in _code_cells(path):
            src = _source(cell)
            if "interact_figure(" in src:
                yield pytest.param(path, src, id=f"{path.stem}")


@pytest.mark.parametrize("path, src", list(_slider_calls()))
def test_slider_cells_name_every_widget(path, src):
    """Every parameter of the plotted function with a default is named in the slider call.

    A slider or ``fixed(...)``: the call says in one place what the reader can move and what is held,
    and a later ``interact`` conversion cannot add a stray slider.
    """
    import ast
    import importlib
    import inspect

    call = ast.parse(src).body[0].value
    func_name = call.args[0].id
    func = getattr(importlib.import_module("dp_lib.plotting"), func_name)
    named = {kw.arg for kw in call.keywords}
    with_default = {n for n, p in inspect.signature(func).parameters.items() if p.default is not p.empty}
    assert with_default <= named, f"{path.name}: interact_figure({func_name}) leaves {with_default - named} unnamed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_figures_have_alt_text(path):
    """myst-nb writes metadata.mystnb.image.alt as the figure's alt text (tools/refresh_notebooks.py sets it)."""
    for cell in _code_cells(path):
        if any("image/png" in out.get("data", {}) for out in cell.get("outputs", [])):
            alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
            assert len(alt) > 10, f"{path.name}: a figure without alt text: {_source(cell)[:60]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_alt_texts_are_sentences_unique_per_figure(path):
    """Alt text tells a reader what the figure shows and its takeaway: a sentence, never shared by two figures."""
    alts = [cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "") for cell in _code_cells(path)
            if any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))]
    for alt in alts:
        assert len(alt) >= 40 and alt.rstrip()[-1] in ".?!", f"{path.name}: alt text is not a sentence: {alt!r}"
    assert len(set(alts)) == len(alts), f"{path.name}: two figures share an alt text"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_solutions_hidden_whole(path):
    """In the book a solution's code and output stay hidden until the reader clicks."""
    for cell in _code_cells(path):
        tags = cell["metadata"].get("tags", [])
        if "solution" in tags:
            assert "hide-cell" in tags, f"{path.name}: solution cell without hide-cell: {_source(cell)[:60]!r}"
