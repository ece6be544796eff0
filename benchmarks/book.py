"""Whole-book cost: ``pytest --nbval`` and ``jupyter-book build --all .`` from a clean build folder.

Both run in a temporary copy of the repository (``_build`` and caches left
out), so the working tree's ``_build`` is untouched and the build really
starts clean. ``PYTHONPATH`` points at the copy, so the notebooks' kernels
import the copy's ``dp_lib``. Takes minutes: ``python -m benchmarks --book``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["COMMANDS", "run_book"]

ROOT = Path(__file__).resolve().parents[1]
_IGNORE = shutil.ignore_patterns("_build", "__pycache__", ".pytest_cache", ".ipynb_checkpoints", "*.egg-info")
_BIN = Path(sys.executable).parent
COMMANDS = {
    "pytest --nbval": [sys.executable, "-m", "pytest", "--nbval", "-p", "no:cacheprovider", "-q"],
    "jupyter-book build --all .": [str(_BIN / "jupyter-book") if (_BIN / "jupyter-book").exists()
                                   else shutil.which("jupyter-book") or "jupyter-book", "build", "--all", "."],
}


def _tail(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def run_book(log=print, timeout=3600) -> dict:
    """Time both commands in a fresh copy of the repository; return seconds, exit codes and summaries."""
    result = {"cpu_count": os.cpu_count(), "load_before": os.getloadavg(), "commands": []}
    with tempfile.TemporaryDirectory(prefix="dp-book-bench-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=_IGNORE, symlinks=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(copy), os.environ.get("PYTHONPATH")]))}
        for label, command in COMMANDS.items():
            log(f"  book: {label} (in {copy}) ...")
            start = time.perf_counter()
            try:
                done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout,
                                      check=False)
                code, summary = done.returncode, _tail(done.stdout) or _tail(done.stderr)
            except subprocess.TimeoutExpired:
                code, summary = "timeout", f"stopped after {timeout} s"
            seconds = time.perf_counter() - start
            result["commands"].append({"command": label, "seconds": seconds, "exit": code, "summary": summary})
            log(f"  book: {label}: {seconds:.0f} s, exit {code}: {summary}")
    result["load_after"] = os.getloadavg()
    return result
