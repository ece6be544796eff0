"""Whole-book cost: ``pytest --nbval`` and ``jupyter-book build --all .`` from a clean build folder.

Both run in a temporary copy of the repository: the files git tracks, with
their working-tree contents (so ``_build``, caches and other people's
untracked work in progress stay out; without git, the whole tree minus
``_build`` and caches). The working tree's ``_build`` is untouched and the
build really starts clean. ``PYTHONPATH`` points at the copy, so the notebooks' kernels
import the copy's ``dp_lib``. Takes minutes: ``python -m benchmarks --book``.
"""

from __future__ import annotations

import os
import re
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


def _copy_repository(target: Path) -> str:
    """Copy the tracked files (working-tree contents) to ``target``; return how."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(ROOT, target, ignore=_IGNORE, symlinks=True)
        return "the whole working tree without _build and caches"
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return "the files git tracks, with their working-tree contents"


def _tail(text: str) -> str:
    """The summary line of a command's output: the last line that reports an outcome, else the last line."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # colour codes
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip().strip("=")]
    for line in reversed(lines):
        if re.search(r"passed|failed|error|succeeded|warning", line, re.IGNORECASE):
            return line[:200]
    return lines[-1][:200] if lines else ""


def run_book(log=print, timeout=3600) -> dict:
    """Time both commands in a fresh copy of the repository; return seconds, exit codes and summaries."""
    result = {"cpu_count": os.cpu_count(), "load_before": os.getloadavg(), "commands": []}
    with tempfile.TemporaryDirectory(prefix="dp-book-bench-") as tmp:
        copy = Path(tmp) / "repo"
        result["copied"] = _copy_repository(copy)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(copy), os.environ.get("PYTHONPATH")]))}
        for label, command in COMMANDS.items():
            log(f"  book: {label} (in {copy}) ...")
            start = time.perf_counter()
            try:
                done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout,
                                      check=False)
                code, summary = done.returncode, _tail(done.stdout) or _tail(done.stderr)
                log_tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
            except subprocess.TimeoutExpired:
                code, summary, log_tail = "timeout", f"stopped after {timeout} s", []
            seconds = time.perf_counter() - start
            result["commands"].append({"command": label, "seconds": seconds, "exit": code, "summary": summary,
                                       "log_tail": log_tail})
            log(f"  book: {label}: {seconds:.0f} s, exit {code}: {summary}")
    result["load_after"] = os.getloadavg()
    return result
