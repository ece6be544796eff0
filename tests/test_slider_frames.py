"""Pre-rendered slider frames (tools/slider_frames.py) for the static site.

The spec checks run always. The frame check needs a built site
(`jupyter-book build .`) and is skipped without one; `.ci/run` runs it after
the build. It re-draws every frame with the chapter's plotting function and
requires byte-equal PNGs, so the site's frames cannot drift from the code.
"""

import importlib.util
import inspect
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
_spec = importlib.util.spec_from_file_location("slider_frames", ROOT / "tools" / "slider_frames.py")
slider_frames = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slider_frames)


def _slider_specs():
    found = []
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            spec = cell.get("metadata", {}).get("slider_frames")
            if spec:
                found.append(pytest.param(path.stem, spec, id=f"{path.stem}:{spec['function'].rpartition('.')[2]}"))
    return found


SPECS = _slider_specs()


def test_every_chapter_with_sliders_has_frames():
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        has_slider = any("interact(" in "".join(c["source"]) for c in cells if c["cell_type"] == "code")
        has_frames = any(c.get("metadata", {}).get("slider_frames") for c in cells)
        assert has_frames or not has_slider, f"{path.name} has a slider but no pre-rendered frames"


@pytest.mark.parametrize("doc, spec", SPECS)
def test_spec_is_valid(doc, spec):
    func = slider_frames.resolve_function(spec["function"])
    params = inspect.signature(func).parameters
    for name, values in spec["grid"].items():
        assert name in params, f"{spec['function']} has no parameter {name}"
        assert 2 <= len(values) <= 25 and values == sorted(values) and len(set(values)) == len(values)
    assert len(slider_frames.grid_points(spec)) <= 120, "keep the build fast and the site small"
    slider_frames.default_setting(spec)  # raises if a default is off the grid


@pytest.mark.skipif(not SITE.is_dir(), reason="no built site: run `jupyter-book build .` first")
@pytest.mark.parametrize("doc, spec", SPECS)
def test_built_frames_equal_the_plotting_function(doc, spec):
    folder = SITE / "_static" / slider_frames.STATIC_DIR
    page = (SITE / "chapters" / f"{doc}.html").read_text()
    for setting in slider_frames.grid_points(spec):
        name = slider_frames.frame_name(spec, setting)
        assert name in page, f"{doc}.html does not reference the frame for {setting}"
        assert (folder / name).read_bytes() == slider_frames.render_frame(spec, setting), f"stale frame {setting}"
