"""Slider latency: the time from moving a slider to a drawn figure.

The callback that ``interact`` runs is the chapter's plotting function; the
figure must then be drawn. So one latency = ``fig = function(**setting)`` +
``FigureCanvasAgg(fig).draw()``, timed after one warm-up call (which fills the
lru_caches over the Adult data, as the chapter's static cell does first).

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

import importlib.util
import inspect
import json
import re
import statistics
import time
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg

__all__ = ["ROOT", "SliderCase", "discover", "time_callback", "run_sliders"]

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 150.0


def _slider_frames_tool():
    spec = importlib.util.spec_from_file_location("slider_frames", ROOT / "tools" / "slider_frames.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SliderCase:
    """One figure function and the settings at which its callback is timed."""

    def __init__(self, function, dotted, source, settings, chapter):
        self.function, self.dotted, self.source = function, dotted, source
        self.settings, self.chapter = settings, chapter  # settings: list of (label, kwargs)


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
                for name in re.findall(r"\binteract\(\s*(\w+)", "".join(cell["source"])):
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
            except Exception as exc:  # a broken spec is reported as a row, not a crash
                function, settings = None, [("default", {})]
                source += f"; ERROR {type(exc).__name__}: {exc}"[:200]
            cases.append(SliderCase(function, spec["function"], source, settings, path.stem))
            seen.add(spec["function"].rpartition(".")[2])
    import dp_lib.plotting as plotting

    for name in plotting.__all__:
        function = getattr(plotting, name)
        if name.startswith("plot_") and name not in seen and callable(function) and _all_defaults(function):
            source = (f"interact() in chapters/{interactive[name]} without slider_frames: defaults only"
                      if name in interactive else "all-default dp_lib.plotting.plot_*, not in an interact() cell")
            cases.append(SliderCase(function, f"dp_lib.plotting.{name}", source, [("default", {})],
                                    _chapter_of(function)))
    return cases


def time_callback(function, setting, repeats=5) -> dict:
    """Median (and max) milliseconds of ``function(**setting)`` + an Agg draw, after one warm-up call.

    Wall-clock time is the target's measure; the process CPU time is reported
    beside it, because on a shared machine the wall time also counts the time
    other processes hold the core (CPU time ~ the wall time on an idle machine,
    as the callback is single-threaded).
    """

    def callback():
        fig = function(**setting)
        built = time.perf_counter()
        FigureCanvasAgg(fig).draw()
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


def _status(result) -> str:
    if result["repeats"] == 0:
        return "ERROR"
    if result["median_ms"] <= TARGET_MS:
        return "pass"
    return "MISS (load: cpu pass)" if result["cpu_median_ms"] <= TARGET_MS else "MISS"


def run_sliders(repeats=5, log=print) -> list[dict]:
    """Time every discovered case; one result row per (function, setting)."""
    rows = []
    for case in discover():
        for label, setting in case.settings:
            shown = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in setting.items())
            row = {"chapter": case.chapter, "function": case.dotted.rpartition(".")[2], "setting": label,
                   "values": shown or "defaults", "source": case.source}
            try:
                if case.function is None:
                    raise LookupError("no function")
                result = time_callback(case.function, setting, repeats)
            except Exception as exc:  # a figure under construction elsewhere must not stop the run
                nan = float("nan")
                result = {"median_ms": nan, "max_ms": nan, "cpu_median_ms": nan, "build_median_ms": nan,
                          "repeats": 0}
                row["source"] += f"; ERROR {type(exc).__name__}: {exc}"[:200]
            row.update(result, status=_status(result))
            rows.append(row)
            log(f"  slider {row['function']:30s} {label:8s} {row['median_ms']:8.1f} ms wall "
                f"{row['cpu_median_ms']:8.1f} ms cpu  {row['status']}")
    return rows
