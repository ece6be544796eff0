"""Sphinx extension: sliders that move in the static book, with no kernel and no CDN.

A chapter's slider cell (``_ = interact_figure(plot_x, ...)``) may carry cell metadata

    "slider_frames": {
        "function": "dp_lib.plotting.plot_noisy_count",
        "grid": {"epsilon": [0.1, 0.5, 1.0, 2.0], "sensitivity": [1.0, 2.0]},
        "alt": "Noisy counts at ε = {epsilon}, sensitivity {sensitivity}",
        "formats": {"epsilon": "{:.3g}"}          (optional: how values are shown)
    }

At build time this extension calls the same plotting function for every point
of the grid (the other arguments keep their defaults, including the figure's
seed), saves each figure as a PNG under ``_static/slider-frames/`` and places
below the cell a small HTML form: one range control per parameter, the
current value beside it, and the image for that setting. The default setting
of the function must be on the grid; it is shown first. A few lines of local
JavaScript swap the image and its alt text, and put that text into a polite
live region (``role="status"``) so that a screen reader announces what the new
figure shows; nothing is fetched from another host. The range controls are
native inputs: Tab reaches them, the arrow keys, Home and End move them.

``render_frame`` is also what the tests use to check that the built frames are
exactly what the plotting function draws: the code the JupyterLab slider runs
(``frame_renderer``: a ``LiveFigure`` for a ``LivePlot`` figure), so a frame is
byte for byte the image the slider shows, and tests/test_live_plots.py checks
that image against the whole figure drawn from scratch, pixel for pixel.

Speed: each slider's frames are drawn by one renderer (the unchanging part of
the figure once per view) in worker processes (one per core) while Sphinx
reads the other pages, and kept in ``.slider-frames-cache/`` (ignored by git) under a
key made of the frame's function, setting and a hash of every ``dp_lib`` source
file and the matplotlib/numpy versions, so a rebuild redraws only the frames
whose code or arguments changed. ``DP_SLIDER_FRAMES_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import inspect
import itertools
import json
import os
import posixpath
import shutil
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

from docutils import nodes

from tools.i18n import SLIDER_NOTE, slider_spec, translator

STATIC_DIR = "slider-frames"
JS_FILE = "slider_frames.js"
_HERE = Path(__file__).resolve().parent / "slider_frames_static"
CACHE_DIR = Path(__file__).resolve().parents[1] / ".slider-frames-cache"


def chapter_specs(root: Path = Path(__file__).resolve().parents[1]) -> list[tuple[str, dict, str]]:
    """``(chapter stem, slider_frames spec, cell source)`` for every slider cell of the chapters, in order."""
    found = []
    for path in sorted((Path(root) / "chapters").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            spec = cell.get("metadata", {}).get("slider_frames")
            if spec:
                found.append((path.stem, spec, "".join(cell["source"])))
    return found


def resolve_function(dotted: str):
    """Import ``package.module.function`` and return the function."""
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def slider_names(spec: dict) -> list[str]:
    """The grid's parameters in the order of the function's signature (notebook JSON sorts keys)."""
    order = list(inspect.signature(resolve_function(spec["function"])).parameters)
    return sorted(spec["grid"], key=order.index)


def grid_points(spec: dict) -> list[dict]:
    """Every combination of the grid, in row-major order of the parameters."""
    names = slider_names(spec)
    return [dict(zip(names, values)) for values in itertools.product(*(spec["grid"][n] for n in names))]


def default_setting(spec: dict) -> dict:
    """The function's default value for each slider parameter (must lie on the grid)."""
    params = inspect.signature(resolve_function(spec["function"])).parameters
    defaults = {name: params[name].default for name in slider_names(spec)}
    for name, value in defaults.items():
        if value not in spec["grid"][name]:
            raise ValueError(f"slider_frames: the default {name}={value!r} of {spec['function']} is not on its grid")
    return defaults


def frame_renderer(spec: dict):
    """``setting -> PNG bytes``, the code the JupyterLab slider runs (``interact_figure``).

    For a ``LivePlot`` figure (``plot_x.live``) one ``LiveFigure`` serves every
    setting, as in JupyterLab: it draws the unchanging part once per view.
    """
    function = resolve_function(spec["function"])
    if getattr(function, "live", None) is not None:
        from dp_lib.plotting.live import LiveFigure

        return LiveFigure(function.live).png
    from dp_lib.widgets import figure_png, slider_figure

    return lambda setting: figure_png(slider_figure(function, setting))


def render_frame(spec: dict, setting: dict) -> bytes:
    """PNG bytes of the figure for one setting, exactly as the JupyterLab slider shows it (a fresh renderer)."""
    return frame_renderer(spec)(setting)


@lru_cache(maxsize=1)
def code_hash() -> str:
    """A hash of everything a frame depends on: the dp_lib sources and the numpy/matplotlib versions."""
    import dp_lib
    import matplotlib
    import numpy

    digest = hashlib.sha256(f"{matplotlib.__version__} {numpy.__version__}".encode())
    package = Path(dp_lib.__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_path(spec: dict, setting: dict) -> Path:
    key = json.dumps({"function": spec["function"], "setting": setting, "code": code_hash()}, sort_keys=True)
    return CACHE_DIR / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.png"


def _render_to(spec: dict, jobs: list) -> None:
    """Worker: draw the frames ``[(setting, target), ...]`` of one slider into their targets (and the cache).

    One renderer walks the slider's settings, as a student's drag does; the
    frame test checks that each frame equals a fresh renderer's.
    """
    render = frame_renderer(spec)
    for setting, target in jobs:
        data = render(setting)
        Path(target).write_bytes(data)
        if os.environ.get("DP_SLIDER_FRAMES_CACHE", "1") != "0":
            cached = _cache_path(spec, setting)
            cached.parent.mkdir(exist_ok=True)
            tmp = cached.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(cached)


def frame_name(spec: dict, setting: dict) -> str:
    """A stable file name for one frame of one figure."""
    key = json.dumps({"function": spec["function"], "setting": setting}, sort_keys=True)
    label = "_".join(f"{k}-{v}" for k, v in setting.items()).replace(".", "p")
    return f"{spec['function'].rpartition('.')[2]}_{label}_{hashlib.sha1(key.encode()).hexdigest()[:8]}.png"


def _shown(spec: dict, name: str, value) -> str:
    """The value as the reader sees it, e.g. ``"formats": {"epsilon": "{:.3g}"}``."""
    return spec.get("formats", {}).get(name, "{}").format(value)


def _control_html(spec: dict, files: list[str], defaults: dict, cell_id: str, gettext=lambda message: message) -> str:
    """The static sliders' HTML; ``gettext`` translates the note, labels and alt template (tools.i18n)."""
    labels = {name: gettext(label) for name, label in spec.get("labels", {}).items()}
    alt = gettext(spec["alt"]) if "alt" in spec else "Figure for " + ", ".join(f"{n} = {{{n}}}" for n in spec["grid"])
    points = grid_points(spec)
    alts = [alt.format(**{n: _shown(spec, n, v) for n, v in p.items()}) for p in points]
    start = points.index(defaults)
    names = slider_names(spec)
    data = html.escape(json.dumps({"files": files, "alts": alts, "sizes": [len(spec["grid"][n]) for n in names]}))
    rows = []
    for name in names:
        values = spec["grid"][name]
        idx = values.index(defaults[name])
        label = html.escape(labels.get(name, name))
        shown = [_shown(spec, name, v) for v in values]
        rows.append(
            f'<label class="slider-frames-row">{label} '
            f'<input type="range" min="0" max="{len(values) - 1}" step="1" value="{idx}" '
            f'data-values="{html.escape(json.dumps(shown))}" aria-label="{label}" '
            f'aria-valuetext="{html.escape(shown[idx])}"> <output>{html.escape(shown[idx])}</output></label>'
        )
    # The live region: slider_frames.js writes the new frame's alt text into it, so a screen reader says
    # what the figure now shows (a changed alt attribute is not announced). Empty at first: a page load
    # announces nothing.
    return (
        f'<div class="slider-frames" id="{cell_id}" data-frames="{data}">'
        f'<p class="slider-frames-note">{html.escape(gettext(SLIDER_NOTE))}</p>'
        + "".join(rows)
        + f'<img class="slider-frames-image" src="{files[start]}" alt="{html.escape(alts[start])}">'
        '<p class="slider-frames-status" role="status" aria-live="polite" aria-atomic="true"></p>'
        "</div>"
    )


class _Frames:
    """Frames to draw, drawn by worker processes while Sphinx goes on reading pages."""

    def __init__(self):
        self.pool, self.futures = None, []

    def submit(self, spec: dict, frames: list) -> None:
        """Draw one slider's frames ``[(setting, target path), ...]``, copying those in the cache."""
        jobs = []
        for setting, target in frames:
            cached = _cache_path(spec, setting)
            if os.environ.get("DP_SLIDER_FRAMES_CACHE", "1") != "0" and cached.is_file():
                shutil.copyfile(cached, target)
            else:
                jobs.append((setting, str(target)))
        if not jobs:
            return
        if self.pool is None:
            import multiprocessing

            self.pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 1,
                                            mp_context=multiprocessing.get_context("fork"))
        self.futures.append(self.pool.submit(_render_to, spec, jobs))

    def finish(self) -> None:
        try:
            for future in self.futures:
                future.result()  # re-raises a worker's error
        finally:
            if self.pool is not None:
                self.pool.shutdown()
            self.pool, self.futures = None, []


_FRAMES = _Frames()


def _add_frames(app, doctree) -> None:
    if app.builder.format != "html":
        return
    docname = app.env.docname
    outdir = Path(app.outdir) / "_static" / STATIC_DIR
    count = 0
    gettext = translator(app, docname)
    for node in doctree.findall(nodes.container):
        spec = slider_spec(node)
        if not spec:
            continue
        defaults = default_setting(spec)
        files, frames = [], []
        outdir.mkdir(parents=True, exist_ok=True)
        for setting in grid_points(spec):
            name = frame_name(spec, setting)
            frames.append((setting, outdir / name))
            files.append(posixpath.relpath(f"_static/{STATIC_DIR}/{name}", posixpath.dirname(docname) or "."))
        _FRAMES.submit(spec, frames)
        cell_id = f"slider-frames-{posixpath.basename(docname)}-{count}"
        node.append(nodes.raw("", _control_html(spec, files, defaults, cell_id, gettext), format="html"))
        count += 1


def _wait_for_frames(app, env):
    _FRAMES.finish()


def _copy_static(app, exception) -> None:
    _FRAMES.finish()
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static"
        target.mkdir(parents=True, exist_ok=True)
        for name in (JS_FILE, "slider_frames.css"):
            shutil.copyfile(_HERE / name, target / name)


def setup(app):
    app.add_js_file(JS_FILE)
    app.add_css_file("slider_frames.css")
    app.connect("doctree-read", _add_frames)
    app.connect("env-updated", _wait_for_frames)
    app.connect("build-finished", _copy_static)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
