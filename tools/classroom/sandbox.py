"""The parent side of the sandbox: run a submission's cells in a fresh, limited, Landlocked child process.

The child is ``python -I -c <runner.py>`` (isolated mode: no PYTHON* variables, no user site, the working
directory not on ``sys.path``) in a new session, with a scrubbed environment and a new empty working folder.
Its job comes on stdin; its report is read from a file the parent opened and handed over as a file
descriptor, after the child has ended (killed with its process group after ``timeout`` seconds). The report is
size-capped and validated: only plain data (None, bool, int, float, str, lists, dicts with str keys) passes.
"""

from __future__ import annotations

import json
import os
import signal
import site
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import dp_lib

RUNNER = (Path(__file__).with_name("runner.py")).read_text(encoding="utf-8")
REPORT_CAP = 8 * 2**20  # bytes of a report the parent reads at most
OUTPUT_CHARS = 20_000  # characters of printed output a submission keeps
SYSTEM_READ = ["/usr/lib", "/lib", "/lib64", "/usr/lib64", "/etc/ld.so.cache", "/etc/localtime",
               "/usr/share/zoneinfo", "/usr/share/fonts", "/dev/urandom", "/dev/null"]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(444, None, 0, 1)
    return abi if abi > 0 else 0


def read_paths() -> list[str]:
    """What a submission may read: Python's installation, site-packages, dp_lib (with its data), system libraries."""
    paths = {sys.base_prefix, sys.prefix, *site.getsitepackages(), str(Path(dp_lib.__file__).parent)}
    return sorted(paths) + SYSTEM_READ


def assert_protected(paths: list[Path]) -> None:
    """Refuse to grade when a folder that must stay unreadable lies under a path the submission may read."""
    readable = [Path(p).resolve() for p in read_paths() if p not in ("/dev/null", "/dev/urandom")]
    for path in paths:
        path = Path(path).resolve()
        for allowed in readable:
            if path == allowed or allowed in path.parents:
                raise ValueError(f"{path} lies under {allowed}, which graded code may read; move it elsewhere")


BASELINE_CODE = """\
import matplotlib
matplotlib.use("Agg")
import numpy, pandas, matplotlib.pyplot, dp_lib
with open("/proc/self/status") as f:
    print(next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:")))
"""
_baseline: list[int] = []


def baseline_bytes() -> int:
    """The address space of a Python that imported numpy, pandas, matplotlib and dp_lib (measured once)."""
    if not _baseline:
        env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg",
               "MPLCONFIGDIR": tempfile.mkdtemp(prefix="mpl-")}
        _copy_font_cache(Path(env["MPLCONFIGDIR"]))
        out = subprocess.run([sys.executable, "-I", "-c", BASELINE_CODE], capture_output=True, text=True, env=env,
                             cwd=env["MPLCONFIGDIR"], timeout=120, check=True)
        _remove(Path(env["MPLCONFIGDIR"]))
        _baseline.append(int(out.stdout.split()[-1]))
    return _baseline[0]


@dataclass
class Limits:
    timeout: float = 60.0  # wall-clock seconds for the whole submission
    cpu_seconds: int = 30
    memory_mib: int = 1024  # address space above the baseline of importing numpy/pandas/matplotlib/dp_lib
    file_bytes: int = 16 * 2**20
    cell_timeout: float = 20.0


@dataclass
class RunResult:
    report: dict | None  # the validated report, None when there is none
    problem: str = ""  # why there is no report (killed, limit, invalid)
    seconds: float = 0.0
    returncode: int | None = None
    stderr: str = ""
    cells: list = field(default_factory=list)


def is_plain(value, depth: int = 0) -> bool:
    if depth > 12:
        return False
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, list):
        return all(is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_plain(v, depth + 1) for k, v in value.items())
    return False


def validate(raw: bytes, answers: list[str], probes: list[str]) -> tuple[dict | None, str]:
    """The report if it is one JSON object of the expected form (unknown names dropped), else (None, why)."""
    if len(raw) > REPORT_CAP:
        return None, "the report is larger than the cap"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, "no readable report (the process ended early or wrote to the report itself)"
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict) \
            or not isinstance(data.get("probes"), dict) or not isinstance(data.get("cells"), list):
        return None, "the report has the wrong form"
    report = {"answers": {}, "probes": {}, "cells": [], "landlock_abi": data.get("landlock_abi")}
    for name in answers:
        value = data["answers"].get(name)
        report["answers"][name] = value if is_plain(value) else None
    for name in probes:
        value = data["probes"].get(name)
        report["probes"][name] = value if isinstance(value, dict) and is_plain(value) else {"__error__": "no result"}
    for cell in data["cells"][:1000]:
        if isinstance(cell, dict) and is_plain(cell):
            report["cells"].append({"index": cell.get("index") if isinstance(cell.get("index"), int) else -1,
                                    "ok": cell.get("ok") is True,
                                    "error": str(cell.get("error", ""))[:80],
                                    "message": str(cell.get("message", ""))[:300]})
    return report, ""


def run(cells: list[str], answers: list[str], probes: list[dict], *, sandbox: bool = True,
        limits: Limits | None = None, workroot: Path | None = None) -> RunResult:
    """Run ``cells`` in a fresh child process; the plain data of ``answers`` and the results of ``probes``."""
    limits = limits or Limits()
    own = tempfile.mkdtemp(prefix="grade-", dir=workroot)
    os.chmod(own, 0o700)
    workdir = Path(own, "work")
    workdir.mkdir()
    (workdir / "mpl").mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir), "LANG": "C.UTF-8",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(workdir / "mpl"), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    _copy_font_cache(workdir / "mpl")
    report_path = Path(own, "report.json")
    fd = os.open(report_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    job = {"cells": cells, "answers": answers, "probes": probes, "result_fd": fd, "sandbox": sandbox,
           "address_space": baseline_bytes() + limits.memory_mib * 2**20,
           "selfcheck": str(Path(dp_lib.__file__).with_name("selfcheck.py")), "cpu_seconds": limits.cpu_seconds, "file_bytes": limits.file_bytes,
           "cell_timeout": limits.cell_timeout, "output_chars": OUTPUT_CHARS, "workdir": str(workdir),
           "read_paths": read_paths(), "write_paths": [str(workdir), "/dev/null"]}
    start = time.perf_counter()
    with open(Path(own, "stdout"), "wb") as out, open(Path(own, "stderr"), "wb") as err:
        proc = subprocess.Popen([sys.executable, "-I", "-c", RUNNER], stdin=subprocess.PIPE, stdout=out,
                                stderr=err, env=env, cwd=workdir, pass_fds=(fd,), start_new_session=True)
        os.close(fd)
        problem = ""
        try:
            proc.stdin.write(json.dumps(job).encode("utf-8"))
            proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            proc.wait(timeout=limits.timeout)
        except subprocess.TimeoutExpired:
            problem = f"stopped after {limits.timeout:g} s (wall clock)"
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    seconds = time.perf_counter() - start
    stderr = Path(own, "stderr").read_bytes()[-3000:].decode("utf-8", "replace")
    with open(report_path, "rb") as f:
        raw = f.read(REPORT_CAP + 1)
    _remove(Path(own))
    rc = proc.returncode
    if not problem and rc == 3:
        problem = "the sandbox could not be set up (grader: see the message on stderr)"
        print(f"sandbox setup failed: {stderr.strip()[-600:]}", file=sys.stderr)
    elif not problem and rc == 4:
        problem = "the notebook broke the grading process before its report was written"
    elif not problem and rc is not None and rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        problem = {"SIGXCPU": "CPU time limit", "SIGKILL": "killed (CPU time or memory limit)",
                   "SIGXFSZ": "file size limit", "SIGSYS": "a forbidden system call"}.get(name, f"signal {name}")
    report, why = validate(raw, answers, [p["name"] for p in probes])
    if report is None:
        problem = problem or why
    elif problem:
        report = None  # killed at the wall clock: whatever was written is not a finished report
    return RunResult(report, problem, seconds, rc, stderr, report["cells"] if report else [])


def _copy_font_cache(target: Path) -> None:
    """matplotlib's font list, so that a submission does not rebuild it (read before the sandbox starts)."""
    try:
        import matplotlib

        for cache in Path(matplotlib.get_cachedir()).glob("fontlist-*.json"):
            (target / cache.name).write_bytes(cache.read_bytes())
    except Exception:  # noqa: BLE001 - only a speed-up
        pass


def _remove(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
