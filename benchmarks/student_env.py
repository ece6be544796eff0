"""The student environment, measured: every chapter's Run All in a fresh venv from requirements-student.txt.

    python -m benchmarks.student_env [--venv DIR] [--chapters 02 15 ...] [--compare] [--write-readme] [--out PATH]

Creates the environment (in a temporary folder unless ``--venv`` names one; a venv made from the same file is
reused), times the install, measures its size on disk (``du``), then runs each chapter in a kernel of it
(``tools.student_env``: nbclient, Run All must finish without an error outside ``raises-exception`` cells) and
records the Run-All wall time and the kernel's peak memory. ``--compare`` also installs requirements.txt in a
second fresh venv, for its size. Writes benchmarks/results/student_env.json (or ``--out``), prints the Markdown
table, and with ``--write-readme`` writes it into README.md ("JupyterHub"). Exits 1 when a chapter fails, so CI
can run it as a step. Takes about as long as ``pytest --nbval`` plus one install.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from tools.student_env import (MAIN_REQUIREMENTS, STUDENT_REQUIREMENTS, ChapterRun, chapter_paths, directory_mib,
                               ensure_venv, run_all, table_markdown, venv_python, write_readme)

OUT = Path(__file__).resolve().parent / "results" / "student_env.json"


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def measure(venv: Path, chapters: list[str] | None, compare: bool) -> dict:
    start = time.perf_counter()
    install = ensure_venv(venv, STUDENT_REQUIREMENTS, log=_log)
    sizes = {"requirements-student.txt": round(directory_mib(venv))}
    if compare:
        with tempfile.TemporaryDirectory(prefix="full-env-") as folder:
            ensure_venv(Path(folder) / "venv", MAIN_REQUIREMENTS, log=_log)
            sizes["requirements.txt"] = round(directory_mib(Path(folder) / "venv"))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    started = time.perf_counter()
    runs = run_all(venv_python(venv), chapter_paths(chapters), log=_log)
    chapters_seconds = time.perf_counter() - started
    return {
        "date": dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "load_before": round(load, 1),
        "install_seconds": round(install, 1),
        "venv_mib": sizes,
        "chapters_seconds": round(chapters_seconds, 1),  # every chapter, with its process and kernel start
        "total_seconds": round(time.perf_counter() - start, 1),
        "chapters": [asdict(r) for r in runs],
    }


def note(results: dict) -> str:
    sizes = ", ".join(f"`{name}` {mib:,} MiB" for name, mib in results["venv_mib"].items())
    return (f"Measured {results['date']} with `python -m benchmarks.student_env` (Python {results['python']}, "
            f"os.cpu_count() = {results['cpu_count']}, load average before {results['load_before']}; the machine "
            f"was shared). Environment on disk: {sizes}. Install (from pip's cache) "
            f"{results['install_seconds']:,.0f} s; all chapters, kernel starts included, "
            f"{results['chapters_seconds']:,.0f} s; the whole run {results['total_seconds']:,.0f} s.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.student_env", description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, help="the environment to create or reuse (default: a temporary one)")
    parser.add_argument("--chapters", nargs="*", help="file-name prefixes, e.g. 02 15 (default: all)")
    parser.add_argument("--compare", action="store_true", help="also measure a venv made from requirements.txt")
    parser.add_argument("--write-readme", action="store_true", help="write the table into README.md")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the JSON results (default: {OUT.name})")
    args = parser.parse_args(argv)
    folder = None if args.venv else tempfile.mkdtemp(prefix="student-env-")
    try:
        results = measure(args.venv or Path(folder) / "venv", args.chapters, args.compare)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    runs = [ChapterRun(**r) for r in results["chapters"]]
    table = table_markdown(runs, note=note(results))
    print(table)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    if args.write_readme:
        write_readme(table)
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
