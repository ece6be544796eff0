"""Pre-rendered slider frames (tools/slider_frames.py) for the static site.

The spec checks run always. The frame check needs a built site
(`jupyter-book build .`) and is skipped without one; `.ci/run` runs it after
the build. It re-draws every frame with the chapter's plotting function and
requires byte-equal PNGs, so the site's frames cannot drift from the code.
"""

import ast
import inspect
import json
import math
from pathlib import Path

import pytest

from tools import slider_frames

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"


def _slider_specs():
    return [pytest.param(doc, spec, source, id=f"{doc}:{spec['function'].rpartition('.')[2]}")
            for doc, spec, source in slider_frames.chapter_specs(ROOT)]


SPECS = _slider_specs()


def test_every_chapter_with_sliders_has_frames():
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        has_slider = any("interact_figure(" in "".join(c["source"]) for c in cells if c["cell_type"] == "code")
        has_frames = any(c.get("metadata", {}).get("slider_frames") for c in cells)
        assert has_frames or not has_slider, f"{path.name} has a slider but no pre-rendered frames"


@pytest.mark.parametrize("doc, spec, source", SPECS)
def test_spec_is_valid(doc, spec, source):
    func = slider_frames.resolve_function(spec["function"])
    params = inspect.signature(func).parameters
    for name, values in spec["grid"].items():
        assert name in params, f"{spec['function']} has no parameter {name}"
        assert 2 <= len(values) <= 25 and values == sorted(values) and len(set(values)) == len(values)
    assert len(slider_frames.grid_points(spec)) <= 120, "keep the build fast and the site small"
    slider_frames.default_setting(spec)  # raises if a default is off the grid


def _slider_ranges(source):
    """{argument: (low, high, start value)} of the slider cell's controls, evaluated from its source."""
    def linear(**kw):
        return ("range", kw["min"], kw["max"], kw.get("value"))

    def log(**kw):
        base = kw.get("base", 10)
        return ("range", base ** kw["min"], base ** kw["max"], kw.get("value"))

    names = {"FloatSlider": linear, "IntSlider": linear, "FloatLogSlider": log,
             "fixed": lambda value: ("fixed", value, value, value), "math": math}
    call = ast.parse(source).body[0].value
    return {kw.arg: eval(compile(ast.Expression(kw.value), "<slider>", "eval"), names)  # noqa: S307 (our cells)
            for kw in call.keywords}


@pytest.mark.parametrize("doc, spec, source", SPECS)
def test_grid_lies_inside_the_sliders(doc, spec, source):
    """The grid is declared once, in the cell's metadata: every value is one the slider can reach,
    the slider starts at the function's default, and that default is a grid point."""
    ranges = _slider_ranges(source)
    defaults = slider_frames.default_setting(spec)
    for name, values in spec["grid"].items():
        assert name in ranges and ranges[name][0] == "range", f"{doc}: {name} has frames but no slider"
        _, low, high, start = ranges[name]
        tol = 1e-9 * max(abs(low), abs(high))
        outside = [v for v in values if not low - tol <= v <= high + tol]
        assert not outside, f"{doc}: {name} grid values {outside} lie outside the slider's [{low}, {high}]"
        assert start is None or math.isclose(start, defaults[name]), \
            f"{doc}: the {name} slider starts at {start}, the function's default is {defaults[name]}"


@pytest.mark.skipif(not SITE.is_dir(), reason="no built site: run `jupyter-book build .` first")
@pytest.mark.parametrize("doc, spec, source", SPECS)
def test_built_frames_equal_the_plotting_function(doc, spec, source):
    """Every built frame equals a re-draw by the slider's code walking the grid backwards (the build walks
    it forwards, so each frame is checked after a different history), and a few equal a fresh renderer's."""
    folder = SITE / "_static" / slider_frames.STATIC_DIR
    page = (SITE / "chapters" / f"{doc}.html").read_text()
    render = slider_frames.frame_renderer(spec)
    points = slider_frames.grid_points(spec)
    for setting in reversed(points):
        name = slider_frames.frame_name(spec, setting)
        assert name in page, f"{doc}.html does not reference the frame for {setting}"
        assert (folder / name).read_bytes() == render(setting), f"stale frame {setting}"
    for setting in (points[0], slider_frames.default_setting(spec), points[-1]):
        name = slider_frames.frame_name(spec, setting)
        assert (folder / name).read_bytes() == slider_frames.render_frame(spec, setting), f"stale frame {setting}"
