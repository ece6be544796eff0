"""``python -m benchmarks.live_moves``: the time of one slider move, for every slider figure.

One ``LiveFigure`` per slider (what ``interact_figure`` keeps), warmed up on the
default setting and one grid step away; then each repeat moves to the
neighbour and back, and the move back is timed (process CPU time: the update,
the redraw and the PNG encode), as ``benchmarks.sliders`` does it. Used to
measure ``LiveFigure`` before and after issue 30 (matplotlib's private blitting
helpers, a full ``canvas.draw()`` per move, the public blitting API). Writes
``benchmarks/results/live_moves.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
from pathlib import Path

from . import sliders

__all__ = ["run_live_moves", "markdown"]

RESULTS = Path(__file__).resolve().parent / "results"


def run_live_moves(repeats=7, log=print) -> dict:
    """{dotted function name: CPU median ms of a move to the default setting} for every slider with a LivePlot."""
    import matplotlib

    matplotlib.use("Agg")
    rows = {}
    for case in sliders.discover():
        if case.function is None or getattr(case.function, "live", None) is None or not case.grid:
            continue
        _, setting, neighbour = case.settings[0]
        rows[case.dotted] = sliders._time_live_move(case.function, setting, repeats, neighbour)["cpu_median_ms"]
        log(f"  {case.dotted:55s} {rows[case.dotted]:7.1f} ms")
    return rows


def markdown(rows: dict, meta: dict) -> str:
    """The moves as a markdown table with the median over the figures."""
    values = list(rows.values())
    lines = ["## Slider moves (LiveFigure, public matplotlib API)", "",
             f"`python -m benchmarks.live_moves` on {meta['when']}, os.cpu_count() = {meta['cpus']}, load average "
             f"{meta['load']:.1f}: process CPU time of one move to the default setting, median of {meta['repeats']}.",
             "", "| figure | move (ms, CPU) |", "|---|---|"]
    lines += [f"| `{name.rpartition('.')[2]}` | {ms:.1f} |" for name, ms in rows.items()]
    lines += ["", f"Median over {len(values)} figures {statistics.median(values):.1f} ms "
              f"(range {min(values):.1f}-{max(values):.1f}).", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.live_moves", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed moves per figure (7)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = run_live_moves(args.repeats, log=lambda s: print(s, file=sys.stderr, flush=True))
    meta = {"when": dt.datetime.now().strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "load": load,
            "repeats": args.repeats}
    text = markdown(rows, meta)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "live_moves.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
