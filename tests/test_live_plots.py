"""Slider figures built once and updated in place (dp_lib/plotting/live.py).

For every slider cell of the book (its ``slider_frames`` metadata names the
function and the grid), the function has a ``LivePlot`` class (``.live``),
and the image a slider shows equals the whole figure drawn from scratch,
pixel for pixel, at the grid's default, its corners and a spread of points
in between, after the renderer has walked through other settings first.
"""

import inspect
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dp_lib.plotting.live import LiveFigure, LivePlot, nice_ceiling
from dp_lib.widgets import figure_png
from tools import slider_frames

ROOT = Path(__file__).resolve().parents[1]


def _specs():
    return [pytest.param(spec, id=f"{doc}:{spec['function'].rpartition('.')[2]}")
            for doc, spec, _ in slider_frames.chapter_specs(ROOT)]


SPECS = _specs()


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _checked_points(spec, count=6):
    """The default, the all-min and all-max corners and a spread of grid points (deterministic)."""
    points = slider_frames.grid_points(spec)
    chosen = [slider_frames.default_setting(spec), points[0], points[-1]]
    chosen += [points[i] for i in np.linspace(1, len(points) - 2, count).round().astype(int)]
    unique = []
    for p in chosen:
        if p not in unique:
            unique.append(p)
    return unique


@pytest.mark.parametrize("spec", SPECS)
def test_slider_function_has_a_live_plot_with_the_same_parameters(spec):
    function = slider_frames.resolve_function(spec["function"])
    live = getattr(function, "live", None)
    assert isinstance(live, type) and issubclass(live, LivePlot), f"{spec['function']} has no LivePlot (.live)"
    ours = {n: p.default for n, p in inspect.signature(function).parameters.items()}
    theirs = {n: p.default for n, p in inspect.signature(live.update).parameters.items() if n != "self"}
    assert ours == theirs, "the function and its LivePlot.update must take the same arguments and defaults"


@pytest.mark.parametrize("spec", SPECS)
def test_slider_frame_equals_the_whole_figure_drawn_from_scratch(spec):
    function = slider_frames.resolve_function(spec["function"])
    renderer = LiveFigure(function.live)
    points = _checked_points(spec)
    for setting in reversed(slider_frames.grid_points(spec)[::7]):  # walk elsewhere first: history must not matter
        renderer.png(setting)
    for setting in points:
        frame = _pixels(renderer.png(setting))
        try:
            whole = _pixels(figure_png(function(**setting)))
        except ValueError:  # an invalid combination: the slider shows a message instead
            assert frame.shape[:2] == (renderer.plot.fig.bbox.height, renderer.plot.fig.bbox.width)
            continue
        assert frame.shape == whole.shape, setting
        differ = np.any(frame != whole, axis=2)
        rows, cols = np.nonzero(differ)
        assert not differ.any(), (f"{setting}: {differ.sum()} pixels differ from the whole figure, e.g. at "
                                  f"(row, col) {list(zip(rows[:5].tolist(), cols[:5].tolist()))}")


@pytest.mark.parametrize("spec", SPECS)
def test_frames_do_not_depend_on_the_settings_shown_before(spec):
    function = slider_frames.resolve_function(spec["function"])
    walked = LiveFigure(function.live)
    points = slider_frames.grid_points(spec)
    frames = {}
    for setting in points[::-1][:: max(1, len(points) // 12)]:
        frames[json.dumps(setting, sort_keys=True)] = walked.png(setting)
    for key, png in list(frames.items())[:4]:
        assert LiveFigure(function.live).png(json.loads(key)) == png, key


def test_a_setting_that_raises_shows_a_message_of_the_same_size():
    from dp_lib.plotting import plot_noisy_count

    renderer = LiveFigure(plot_noisy_count.live)
    good = _pixels(renderer.png({"epsilon": 1.0}))
    bad = _pixels(renderer.png({"epsilon": -1.0}))
    assert bad.shape == good.shape and not np.array_equal(bad, good)
    assert np.array_equal(_pixels(renderer.png({"epsilon": 1.0})), good)  # and the next move draws again


def test_nice_ceiling():
    assert [nice_ceiling(x) for x in (0.3, 2.0, 7.1, 0.005, 0.0051, 1.0, 9.99, 0.12)] == \
        [0.5, 2.0, 10.0, 0.005, 0.01, 1.0, 10.0, 0.2]
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="x must be"):
            nice_ceiling(bad)
