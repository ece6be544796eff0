"""Slider latency: the time from moving a slider to a drawn figure.

The callback that a slider runs (``dp_lib.widgets.interact_figure``) is the
chapter's plotting function, then one PNG encode of its figure, exactly as the
notebook does it (``dp_lib.widgets.figure_png``: no tight bounding box). So one
latency = ``fig = function(**setting)`` + ``figure_png(fig)``, timed after one
warm-up call (which fills the lru_caches over the Adult data, as the chapter's
static cell does first). ``--png tight`` times IPython's default inline encode
instead (``bbox_inches="tight"``, which draws the figure twice): what a slider
cost before ``interact_figure``.

Sources, in this order:
1. every notebook cell with ``slider_frames`` metadata (tools/slider_frames.py
   names the function and the grid): timed at the function's default setting
   and at the all-min and all-max corners of the grid;
2. every other ``dp_lib.plotting.plot_*`` whose parameters all have defaults,
   for chapters whose notebooks do not carry the metadata yet: timed at the
   defaults only. The source column says whether a notebook passes it to
   ``interact()`` (a slider without pre-rendered frames) or not (a static
   figure that merely has all-default arguments).

Besides the total, the time until the function returns its figure
("build": computation and artist creation) is reported, so a miss can be
told apart as slow computation/artists or slow rendering (total - build).
"""

from __future__ import annotations

import inspect
import json
import re
import statistics
import time
from pathlib import Path


__all__ = ["ROOT", "SliderCase", "discover", "time_callback", "run_sliders"]

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 100.0   # process CPU time of one callback (the end-to-end target is 150 ms)
STATIC_TARGET_MS = 300.0  # a static figure at its defaults, PNG included


def _png_encoder(mode: str):
    """``figure -> PNG bytes`` as the notebook encodes it ("book") or as IPython's default did ("tight")."""
    if mode == "tight":
        from IPython.core.pylabtools import print_figure

        return lambda fig: print_figure(fig, "png", bbox_inches="tight")
    from dp_lib.widgets import figure_png

    return figure_png


def _slider_frames_tool():
    from tools import slider_frames

    return slider_frames


class SliderCase:
    """One figure function and the settings at which its callback is timed."""

    def __init__(self, function, dotted, source, settings, chapter, grid=None):
        self.function, self.dotted, self.source, self.grid = function, dotted, source, grid
        self.settings, self.chapter = settings, chapter  # settings: list of (label, kwargs, neighbouring kwargs)


def _chapter_of(function) -> str:
    found = re.search(r"Defined in:\s*(\S+)", inspect.getdoc(function) or "")
    return Path(found.group(1)).stem if found else "?"


def _all_defaults(function) -> bool:
    params = inspect.signature(function).parameters.values()
    needs = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return all(p.default is not inspect.Parameter.empty for p in needs)


def discover(root=ROOT) -> list[SliderCase]:
    """Slider figures from the notebooks' metadata, then the other all-default ``plot_*`` functions."""
    tool = _slider_frames_tool()
    cases, seen, interactive = [], set(), {}
    for path in sorted((Path(root) / "chapters").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                for name in re.findall(r"\binteract(?:_figure)?\(\s*(\w+)", "".join(cell["source"])):
                    interactive.setdefault(name, path.name)
            spec = cell.get("metadata", {}).get("slider_frames")
            if not spec:
                continue
            source = f"slider_frames in chapters/{path.name}"
            try:
                function = tool.resolve_function(spec["function"])
                grid = spec["grid"]
                settings = [
                    ("default", tool.default_setting(spec)),
                    ("all-min", {name: min(values) for name, values in grid.items()}),
                    ("all-max", {name: max(values) for name, values in grid.items()}),
                ]
                settings = [(label, kwargs, _neighbour(grid, kwargs)) for label, kwargs in settings]
            except Exception as exc:  # a broken spec is reported as a row, not a crash
                function, settings = None, [("default", {}, {})]
                source += f"; ERROR {type(exc).__name__}: {exc}"[:200]
            cases.append(SliderCase(function, spec["function"], source, settings, path.stem, spec.get("grid")))
            seen.add(spec["function"].rpartition(".")[2])
    import dp_lib.plotting as plotting

    for name in plotting.__all__:
        function = getattr(plotting, name)
        if name.startswith("plot_") and name not in seen and callable(function) and _all_defaults(function):
            source = (f"interact() in chapters/{interactive[name]} without slider_frames: defaults only"
                      if name in interactive else "all-default dp_lib.plotting.plot_*, not in an interact() cell")
            cases.append(SliderCase(function, f"dp_lib.plotting.{name}", source, [("default", {}, {})],
                                    _chapter_of(function)))
    return cases


def time_callback(function, setting, repeats=5, png="book", slider=True, neighbour=None) -> dict:
    """Median (and max) milliseconds of ``function(**setting)`` + one PNG encode, after one warm-up call.

    Wall-clock time is the target's measure; the process CPU time is reported
    beside it, because on a shared machine the wall time also counts the time
    other processes hold the core (CPU time ~ the wall time on an idle machine,
    as the callback is single-threaded).
    """

    if png == "book" and slider and getattr(function, "live", None) is not None:
        return _time_live_move(function, setting, repeats, neighbour)
    encode = _png_encoder(png)
    if png == "book" and slider:  # what interact_figure does on a move
        from dp_lib.widgets import slider_figure

        def make():
            return slider_figure(function, setting)
    else:  # a static figure (the notebook's formatter) or the old interact
        def make():
            return function(**setting)

    def callback():
        fig = make()
        built = time.perf_counter()
        encode(fig)
        return built

    callback()  # warm-up: imports, caches, font cache
    wall, cpu, build = [], [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        built = callback()
        end = time.perf_counter()
        wall.append((end - start) * 1e3)
        cpu.append((time.process_time() - start_cpu) * 1e3)
        build.append((built - start) * 1e3)
    return {"median_ms": statistics.median(wall), "max_ms": max(wall), "cpu_median_ms": statistics.median(cpu),
            "build_median_ms": statistics.median(build), "repeats": repeats}


def time_live_walk(function, points) -> dict:
    """A fresh ``LiveFigure`` walking ``points`` (the slider grid, row-major: the last slider moves fastest):
    process CPU per frame, each setting visited for the first time (views drawn as they come)."""
    from dp_lib.plotting.live import LiveFigure

    renderer = LiveFigure(function.live)
    cpu = []
    for point in points:
        start = time.process_time()
        renderer.png(point)
        cpu.append((time.process_time() - start) * 1e3)
    ordered = sorted(cpu)
    return {"walk_median_ms": statistics.median(cpu), "walk_p95_ms": ordered[round(0.95 * (len(ordered) - 1))],
            "walk_frames": len(cpu)}


def _time_live_move(function, setting, repeats, neighbour) -> dict:
    """A slider move to ``setting`` from ``neighbour`` (one grid step away), as ``interact_figure`` draws it.

    One ``LiveFigure`` (what the slider keeps), warmed up on both settings, so
    their views' backgrounds are drawn: then each repeat moves to the
    neighbour (untimed) and back to ``setting`` (timed: the update, the
    foreground draw and the PNG encode). "build" is the update alone. The
    first visit of a view costs one whole-figure draw more: ``view_ms``.
    """
    from dp_lib.plotting.live import LiveFigure

    neighbour = setting if neighbour is None else neighbour
    first = LiveFigure(function.live)
    start = time.process_time()
    first.png(setting)
    view_ms = (time.process_time() - start) * 1e3
    renderer = LiveFigure(function.live)
    renderer.png(setting)
    renderer.png(neighbour)
    wall, cpu, build = [], [], []
    for _ in range(repeats):
        renderer.png(neighbour)
        start = time.perf_counter()
        renderer.plot.update(**setting)
        build.append((time.perf_counter() - start) * 1e3)
        start, start_cpu = time.perf_counter(), time.process_time()
        renderer.png(setting)
        wall.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.process_time() - start_cpu) * 1e3)
    return {"median_ms": statistics.median(wall), "max_ms": max(wall), "cpu_median_ms": statistics.median(cpu),
            "build_median_ms": statistics.median(build), "repeats": repeats, "view_ms": view_ms}


def _neighbour(grid: dict, setting: dict) -> dict:
    """``setting`` with its first slider moved one grid step (towards the middle)."""
    name = next(iter(grid))
    values = grid[name]
    i = values.index(setting[name]) if setting[name] in values else 0
    j = i + 1 if i + 1 < len(values) else i - 1
    return {**setting, name: values[max(j, 0)]}


def _status(result, target) -> str:
    if result["repeats"] == 0:
        return "ERROR"
    return "pass" if result["cpu_median_ms"] <= target else "MISS"


def run_sliders(repeats=5, log=print, png="book") -> list[dict]:
    """Time every discovered case; one result row per (function, setting)."""
    rows = []
    tool = _slider_frames_tool()
    for case in discover():
        walk = {}
        if case.function is not None and getattr(case.function, "live", None) is not None and case.grid:
            try:  # first, before any warm-up fills the figure's caches: what a student's first drag costs
                walk = time_live_walk(case.function, tool.grid_points({"function": case.dotted, "grid": case.grid}))
            except Exception as exc:  # reported in the row's source, as the other errors
                walk = {"walk_error": f"{type(exc).__name__}: {exc}"[:200]}
        for label, setting, neighbour in case.settings:
            shown = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in setting.items())
            row = {"chapter": case.chapter, "function": case.dotted.rpartition(".")[2], "setting": label,
                   "values": shown or "defaults", "source": case.source}
            try:
                if case.function is None:
                    raise LookupError("no function")
                result = time_callback(case.function, setting, repeats, png, case.source.startswith("slider_frames"),
                                       neighbour)
            except Exception as exc:  # a figure under construction elsewhere must not stop the run
                nan = float("nan")
                result = {"median_ms": nan, "max_ms": nan, "cpu_median_ms": nan, "build_median_ms": nan,
                          "repeats": 0}
                row["source"] += f"; ERROR {type(exc).__name__}: {exc}"[:200]
            target = TARGET_MS if case.source.startswith("slider_frames") else STATIC_TARGET_MS
            row.update(result, status=_status(result, target), png=png)
            if walk:
                row.update(walk)
                if row["status"] == "pass" and walk.get("walk_median_ms", float("inf")) > target:
                    row["status"] = "MISS"  # a first drag must keep up too, not only moves to cached settings
            rows.append(row)
            log(f"  slider {row['function']:30s} {label:8s} {row['median_ms']:8.1f} ms wall "
                f"{row['cpu_median_ms']:8.1f} ms cpu  {row['status']}")
    return rows
