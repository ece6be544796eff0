"""``python -m benchmarks [--book] [--only SECTIONS] [--rounds R] [--repeats R]``: run, print, write results."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from . import report
from .book import run_book
from .families import run_mechanisms
from .imports import imports_md, run_imports
from .scale import N as N_SCALE
from .scale import run_scale
from .sliders import run_sliders

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = RESULTS.parents[1]
SECTIONS = ("imports", "mechanisms", "sliders", "scale", "book", "pld")


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _commit() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        return sha + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--book", action="store_true",
                        help="also time `pytest --nbval` and a clean `jupyter-book build --all .` (minutes)")
    parser.add_argument("--only", default="", help="comma-separated subset of " + ",".join(SECTIONS)
                        + " (results/latest.* are then left as they are)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per mechanism family (5)")
    parser.add_argument("--repeats", type=int, default=5, help="timed callbacks per slider setting (5)")
    parser.add_argument("--png", choices=("book", "tight"), default="book",
                        help="slider callbacks: encode the PNG as the notebook does (book) or with IPython's "
                             "default bbox_inches='tight' (the slow path before dp_lib.widgets)")
    args = parser.parse_args(argv)
    only = [s for s in args.only.split(",") if s]
    if any(s not in SECTIONS for s in only):
        parser.error(f"--only takes a comma-separated subset of {','.join(SECTIONS)}")
    sections = only or [s for s in SECTIONS if s != "book" or args.book]

    start, load_before = time.perf_counter(), os.getloadavg()
    _log(f"benchmarks: sections {', '.join(sections)}; os.cpu_count() = {os.cpu_count()}, "
         f"load average {load_before[0]:.1f}")
    mech = sliders = scale = imports = None
    if "imports" in sections:
        _log("imports:")
        imports = run_imports(log=_log)
    if "mechanisms" in sections:
        _log("mechanisms:")
        mech = run_mechanisms(rounds=args.rounds, log=_log)
    if "sliders" in sections:
        _log("sliders:")
        sliders = run_sliders(repeats=args.repeats, log=_log, png=args.png)
    if "scale" in sections:
        _log("scale:")
        scale = run_scale(log=_log)
    if "pld" in sections:  # DP-SGD's accounting, dp_lib's PLD vs dp-accounting's (writes results/pld.*)
        _log("pld:")
        from .pld import main as pld_main
        pld_main([])
    book = None
    RESULTS.mkdir(exist_ok=True)
    book_file = RESULTS / "book.json"
    if "book" in sections:
        _log("whole book:")
        book = {**run_book(log=_log), "when": dt.datetime.now().strftime("%Y-%m-%d %H:%M"), "commit": _commit()}
        book_file.write_text(json.dumps(book, indent=1) + "\n")
    elif book_file.is_file():
        book = {**json.loads(book_file.read_text()), "from_previous_run": True}

    command = "python -m benchmarks" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    meta = {"command": command, "when": dt.datetime.now().strftime("%Y-%m-%d %H:%M"), "commit": _commit(),
            "python": platform.python_version(), "numpy": np.__version__, "cpu_count": os.cpu_count(),
            "load_before": load_before, "load_after": os.getloadavg(), "seconds": time.perf_counter() - start,
            "rounds": args.rounds, "repeats": args.repeats, "n_scale": N_SCALE}
    text = report.markdown(meta, mech, sliders, scale, book)
    if imports is not None:
        text = text.rstrip("\n") + "\n" + "\n".join(imports_md(imports)) + "\n"
    print(text)
    if only:
        _log("partial run (--only): benchmarks/results/latest.md and latest.csv left as they are")
    else:
        (RESULTS / "latest.md").write_text(text)
        report.write_csv(RESULTS / "latest.csv", report.csv_rows(mech, sliders, scale, book))
        _log(f"wrote {RESULTS / 'latest.md'} and {RESULTS / 'latest.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
