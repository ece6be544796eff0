"""The student environment (``requirements-student.txt``): run every chapter in it, measure, and link to a hub.

Usage (from the repository root):

    python -m tools.student_env [--venv DIR] [--chapters 02 15 ...] [--write-readme] [--json PATH]
    python -m tools.student_env link --hub URL --repo URL --branch B --path chapters/02_laplace.ipynb
    python -m tools.student_env imports

The first form creates (or reuses) a virtual environment from ``requirements-student.txt`` (whose last line,
``-e .``, installs ``dp_lib``) and runs each chapter in a kernel of that environment with nbclient, the way
JupyterLab's *Run All* does: every cell in order, and the run fails on the first error except in a cell tagged
``raises-exception``. Outputs are not compared (``pytest --nbval`` does that in the full environment). For each
chapter it measures the Run-All wall time (from the kernel being ready to the last cell done) and the kernel's peak
memory: the largest peak resident set size (``ru_maxrss``) among the processes the runner started and reaped,
which are the kernel and whatever the kernel started. Each chapter runs in its own child process of the venv's
Python (``python -m tools.student_env _execute NOTEBOOK``), so nothing else is counted. It prints a Markdown table;
``--write-readme`` writes it into README.md between the marker comments (``tools/generated_block.py``).
``python -m benchmarks.student_env`` is the benchmark around it (a fresh venv, install time, environment sizes).

``link`` prints an nbgitpuller link: ``<hub>/hub/user-redirect/git-pull?repo=...&urlpath=...&branch=...``, the
same query the nbgitpuller link generator writes (JupyterLab, the repository cloned into a folder named after it).

``imports`` lists the third-party modules that the chapters' code cells and ``dp_lib`` import, with the
distribution of the current environment that provides each (how ``requirements-student.txt`` was chosen).

Maintainer tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
STUDENT_REQUIREMENTS = ROOT / "requirements-student.txt"
MAIN_REQUIREMENTS = ROOT / "requirements.txt"
BEGIN = "<!-- student environment: begin (python -m benchmarks.student_env --write-readme) -->"
END = "<!-- student environment: end -->"
CONTINUE_TAG = "raises-exception"
CELL_TIMEOUT = 900  # seconds, one cell
_STAMP = ".student-env-requirements.sha256"  # in the venv: the requirements it was installed from

# What the student environment must not contain: the book build, browser, translation, test, data-rebuilding
# and Spark tools of requirements.txt and requirements-spark.txt (the PDF needs TeX from Debian, no Python
# package). Two of them are needed all the same, because the chapters import them: myst-nb (every chapter's
# setup cell imports ``glue``) and dp-accounting (Chapter 10's hidden cross-check cell); their own pinned
# dependencies (Sphinx, mpmath) come with them. tests/test_student_env.py checks both lists against the chapters.
EXCLUDED = {
    "build": {"jupyter-book", "sphinx", "myst-nb", "sphinx-book-theme", "sphinx-proof", "sphinx-exercise",
              "sphinxcontrib-bibtex"},
    "translation": {"sphinx-intl"},
    "test": {"pytest", "pytest-xdist", "nbval", "hypothesis", "ruff", "dp-accounting", "mpmath"},
    "browser": {"playwright"},
    "data rebuilding": {"faker"},
    "spark": {"pyspark", "py4j"},
}
NEEDED_BY_CHAPTERS = {"myst-nb": "myst_nb", "dp-accounting": "dp_accounting"}  # distribution -> module imported
PINNED_DEPENDENCIES = {"sphinx": "myst-nb", "mpmath": "dp-accounting"}  # dependency -> the needed distribution
HUB_ONLY = {"nbgitpuller"}  # in requirements-student.txt, not in requirements.txt


# ---- requirement files --------------------------------------------------------------------------------------

def canonical(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Requirements:
    pins: dict[str, str]        # canonical name -> version (every requirement must be pinned with ==)
    names: dict[str, str]       # canonical name -> the name as written
    editable: tuple[str, ...]   # the -e lines' targets


def parse_requirements(text: str) -> Requirements:
    """The ``name==version`` lines and ``-e`` lines of a requirements file; anything else is an error."""
    pins: dict[str, str] = {}
    names: dict[str, str] = {}
    editable: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-e "):
            editable.append(line[3:].strip())
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)", line)
        if not match:
            raise ValueError(f"line {number}: {raw!r} is not 'name==version' or '-e PATH'")
        key = canonical(match.group(1))
        if key in pins:
            raise ValueError(f"line {number}: {match.group(1)} is listed twice")
        pins[key], names[key] = match.group(2), match.group(1)
    return Requirements(pins, names, tuple(editable))


def rule_violations(student: Requirements, main: Requirements) -> list[str]:
    """What breaks the student file's rules: the main file's pins, nothing excluded, dp_lib installed."""
    problems = []
    for key, version in student.pins.items():
        if key in main.pins and main.pins[key] != version:
            problems.append(f"{student.names[key]}=={version}: requirements.txt pins {main.pins[key]}")
        elif key not in main.pins and key not in HUB_ONLY:
            problems.append(f"{student.names[key]}: not in requirements.txt (only {sorted(HUB_ONLY)} may be new)")
    allowed = set(NEEDED_BY_CHAPTERS) | set(PINNED_DEPENDENCIES)
    for group, members in EXCLUDED.items():
        for key in sorted((members - allowed) & set(student.pins)):
            problems.append(f"{student.names[key]}: a {group} tool, not needed to run the chapters")
    for dependency, needed in PINNED_DEPENDENCIES.items():
        if dependency in student.pins and needed not in student.pins:
            problems.append(f"{student.names[dependency]} is pinned for {needed}, which is not listed")
    if "." not in student.editable:
        problems.append("no '-e .' line: dp_lib would not be installed")
    return problems


def read_requirements(path: Path) -> Requirements:
    return parse_requirements(path.read_text(encoding="utf-8"))


# ---- what the chapters import -------------------------------------------------------------------------------

def _code_without_magics(source: str) -> str:
    """IPython magics and shell lines blanked, so that ``ast`` can parse the cell."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def imported_modules(source: str) -> set[str]:
    """The top-level names of the modules that Python source imports (absolute imports only)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def chapter_imports(paths: list[Path] | None = None) -> dict[str, set[str]]:
    """module -> the chapters (file stems) whose code cells import it."""
    result: dict[str, set[str]] = {}
    for path in paths or sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                for module in imported_modules(_code_without_magics("".join(cell["source"]))):
                    result.setdefault(module, set()).add(path.stem)
    return result


def library_imports() -> dict[str, set[str]]:
    """module -> the dp_lib files that import it."""
    result: dict[str, set[str]] = {}
    for path in sorted((ROOT / "dp_lib").rglob("*.py")):
        for module in imported_modules(path.read_text(encoding="utf-8")):
            result.setdefault(module, set()).add(str(path.relative_to(ROOT)))
    return result


def third_party(modules) -> set[str]:
    """The modules that are neither the standard library nor the repository's own packages."""
    own = {"dp_lib", "tools", "exercises", "__future__"}
    return {m for m in modules if m not in sys.stdlib_module_names and m not in own}


# ---- running a chapter --------------------------------------------------------------------------------------

@dataclass
class ChapterRun:
    chapter: str             # file stem, e.g. 02_laplace
    seconds: float           # Run All: kernel ready -> last cell done
    peak_mib: float          # largest peak RSS of the kernel (and its children)
    ok: bool
    error: str = ""          # the first error outside a raises-exception cell
    kernel_python: str = ""  # argv[0] of the kernel process


def _execute(path: Path) -> dict:
    """Run one notebook in a fresh kernel of this Python (the child process); return the measurements."""
    import resource

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    error, kernel_python = "", ""
    with client.setup_kernel():
        pid = getattr(client.km.provisioner, "pid", None)
        try:
            kernel_python = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
        except (OSError, TypeError):
            kernel_python = ""
        start = time.perf_counter()
        try:
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)  # raises unless the cell is tagged raises-exception
        except CellExecutionError as exc:
            text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # IPython's colours
            lines = [ln for ln in text.splitlines() if ln.strip()]
            error = f"cell {index}: " + (lines[-1] if lines else type(exc).__name__)
        seconds = time.perf_counter() - start
    # The kernel has been shut down and reaped; ru_maxrss of the children is in KiB on Linux.
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": seconds, "peak_mib": peak_kib / 1024, "ok": not error, "error": error,
            "kernel_python": kernel_python}


def run_chapter(python: str | Path, path: Path, *, timeout: float = 3600) -> ChapterRun:
    """Run ``path`` in a child process of ``python`` (a venv's or the current one) and return its measurements."""
    # No PYTHONPATH: the child finds tools/ as its working directory (python -m), the kernel (working directory
    # chapters/) imports the dp_lib that the environment installed.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    bindir = Path(python).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    if (bindir.parent / "pyvenv.cfg").is_file():
        env["VIRTUAL_ENV"] = str(bindir.parent)
    command = [str(python), "-m", "tools.student_env", "_execute", str(Path(path).resolve())]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ChapterRun(Path(path).stem, timeout, float("nan"), False, f"timed out after {timeout:.0f} s")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return ChapterRun(Path(path).stem, float("nan"), float("nan"), False, f"runner failed: {tail}")
    run = ChapterRun(Path(path).stem, **json.loads(lines[-1]))
    if run.kernel_python and Path(run.kernel_python).parent != Path(python).parent:
        run.ok, run.error = False, f"the kernel ran {run.kernel_python}, not the environment's Python"
    return run


# ---- the virtual environment --------------------------------------------------------------------------------

def venv_python(venv: Path) -> Path:
    return Path(venv) / "bin" / "python"


def ensure_venv(venv: Path, requirements: Path = STUDENT_REQUIREMENTS, log=print) -> float:
    """Create ``venv`` from ``requirements`` (run from the repository root, so ``-e .`` installs dp_lib), or reuse
    it when it was made from the same file; return the seconds spent installing (0 when reused)."""
    venv = Path(venv)
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    stamp = venv / _STAMP
    if venv_python(venv).exists() and stamp.is_file() and stamp.read_text().strip() == digest:
        log(f"reusing {venv} (made from this {requirements.name})")
        return 0.0
    start = time.perf_counter()
    log(f"creating {venv} from {requirements.name}")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(requirements)], cwd=ROOT, check=True)
    stamp.write_text(digest + "\n")
    return time.perf_counter() - start


def directory_mib(path: Path) -> float:
    """Disk use of a folder (``du -sk``), in MiB."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0]) / 1024


# ---- the table ----------------------------------------------------------------------------------------------

def _number(value: float, digits: int) -> str:
    return "—" if value != value else f"{value:,.{digits}f}"  # NaN -> dash


def table_markdown(runs: list[ChapterRun], *, note: str = "") -> str:
    """A Markdown table of the runs, with a total line and an optional note line under it."""
    lines = ["| chapter | Run All (s) | kernel peak memory (MiB) | result |", "|---|---:|---:|---|"]
    for run in runs:
        result = "ok" if run.ok else f"**failed**: {run.error.replace('|', '/')[:120]}"
        lines.append(f"| {run.chapter} | {_number(run.seconds, 1)} | {_number(run.peak_mib, 0)} | {result} |")
    seconds = [r.seconds for r in runs if r.seconds == r.seconds]
    peaks = [r.peak_mib for r in runs if r.peak_mib == r.peak_mib]
    failed = sum(not r.ok for r in runs)
    lines.append(f"| **all {len(runs)}** | {_number(sum(seconds), 1) if seconds else '—'} (total) | "
                 f"{_number(max(peaks), 0) if peaks else '—'} (largest) | "
                 f"{'ok' if not failed else f'**{failed} failed**'} |")
    if note:
        lines += ["", note]
    return "\n".join(lines)


def write_readme(table: str, readme: Path = ROOT / "README.md") -> bool:
    from tools.generated_block import write_between

    return write_between(readme, BEGIN, END, table)


# ---- nbgitpuller ----------------------------------------------------------------------------------------------

def nbgitpuller_link(hub: str, repo: str, path: str, branch: str = "main") -> str:
    """The link that makes a JupyterHub clone (or update) ``repo`` at ``branch`` into the user's home and open
    ``path`` (relative to the repository root) in JupyterLab."""
    for name, url in (("hub", hub), ("repo", repo)):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{name} must be an http(s) URL, got {url!r}")
    if not branch or any(ch.isspace() for ch in branch):
        raise ValueError(f"branch must be a branch name, got {branch!r}")
    clean = path.strip().lstrip("/")
    if not clean or ".." in Path(clean).parts:
        raise ValueError(f"path must be a file inside the repository, got {path!r}")
    folder = urlsplit(repo).path.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    query = urlencode([("repo", repo), ("urlpath", f"lab/tree/{folder}/{clean}"), ("branch", branch)])
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


# ---- command line ---------------------------------------------------------------------------------------------

def chapter_paths(selected: list[str] | None) -> list[Path]:
    """The chapter notebooks, all or those whose file name starts with one of ``selected`` (``02``, ``15_user``)."""
    paths = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
    if not selected:
        return paths
    chosen = [p for p in paths if any(p.name.startswith(s) or p.stem == s for s in selected)]
    unknown = [s for s in selected if not any(p.name.startswith(s) or p.stem == s for p in paths)]
    if unknown:
        raise SystemExit(f"no chapter matches {unknown}")
    return chosen


def run_all(python: Path, paths: list[Path], log=print) -> list[ChapterRun]:
    runs = []
    for path in paths:
        run = run_chapter(python, path)
        log(f"{run.chapter}: {'ok' if run.ok else 'FAILED ' + run.error} in {run.seconds:.1f} s, "
            f"peak {run.peak_mib:.0f} MiB")
        runs.append(run)
    return runs


def _imports_report() -> str:
    from importlib.metadata import packages_distributions

    provides = packages_distributions()
    student = read_requirements(STUDENT_REQUIREMENTS)
    lines = []
    for source, found in (("chapters", chapter_imports()), ("dp_lib", library_imports())):
        for module in sorted(third_party(found)):
            dists = ", ".join(provides.get(module, ["?"]))
            listed = "listed" if any(canonical(d) in student.pins for d in provides.get(module, [])) else "dependency"
            where = ", ".join(sorted(found[module]))
            lines.append(f"{source}: {module} ({dists}; {listed}) <- {where[:100]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_execute"]:
        print(json.dumps(_execute(Path(argv[1]))))
        return 0
    if argv[:1] == ["imports"]:
        print(_imports_report())
        return 0
    if argv[:1] == ["link"]:
        parser = argparse.ArgumentParser(prog="python -m tools.student_env link", description=nbgitpuller_link.__doc__)
        parser.add_argument("--hub", required=True, help="the hub's address, e.g. https://hub.example.edu")
        parser.add_argument("--repo", required=True, help="the repository to clone (the course's fork)")
        parser.add_argument("--branch", default="main")
        parser.add_argument("--path", default="chapters/01_why_privacy.ipynb", help="the file to open")
        args = parser.parse_args(argv[1:])
        try:
            print(nbgitpuller_link(args.hub, args.repo, args.path, args.branch))
        except ValueError as error:
            parser.error(str(error))
        return 0
    parser = argparse.ArgumentParser(prog="python -m tools.student_env", description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv" / "student",
                        help="the environment to create or reuse (default: .venv/student, ignored by git)")
    parser.add_argument("--chapters", nargs="*", help="file-name prefixes, e.g. 02 15 (default: all)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into README.md")
    parser.add_argument("--json", type=Path, help="also write the measurements as JSON")
    args = parser.parse_args(argv)
    paths = chapter_paths(args.chapters)
    ensure_venv(args.venv)
    runs = run_all(venv_python(args.venv), paths)
    table = table_markdown(runs)
    print(table)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1) + "\n")
    if args.write_readme:
        write_readme(table)
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
