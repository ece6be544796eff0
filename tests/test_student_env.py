"""The student environment kit: requirements-student.txt's rules, the chapter runner, the README table, the hub
files (checked statically: no Docker here) and the nbgitpuller links. Fast: the full run of every chapter in a fresh
venv is a benchmark (python -m benchmarks.student_env)."""

from __future__ import annotations

import json
import math
import re
import sys
from importlib.metadata import PackageNotFoundError, distribution, packages_distributions
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
import yaml

from tools import student_env as se
from tools.generated_block import between

ROOT = Path(__file__).resolve().parents[1]
STUDENT = se.read_requirements(ROOT / "requirements-student.txt")
MAIN = se.read_requirements(ROOT / "requirements.txt")


def _closure(names) -> set[str]:
    """The distributions ``names`` need in this environment (their requirements, recursively, no extras)."""
    from packaging.requirements import Requirement

    seen, todo = set(), [se.canonical(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(se.canonical(req.name))
    return seen


# ---- requirements-student.txt ----------------------------------------------------------------------------------

def test_student_requirements_keep_the_rules():
    assert se.rule_violations(STUDENT, MAIN) == []


def test_every_pin_is_the_main_files_and_the_excluded_groups_are_out():
    for name, version in STUDENT.pins.items():
        assert name in se.HUB_ONLY or MAIN.pins[name] == version, name
    for group in ("build", "translation", "test", "browser", "data rebuilding", "spark"):
        kept = se.EXCLUDED[group] & set(STUDENT.pins)
        assert kept <= set(se.NEEDED_BY_CHAPTERS) | set(se.PINNED_DEPENDENCIES), (group, kept)
    for spark in ("pyspark", "py4j", "playwright", "jupyter-book", "pytest", "nbval", "faker", "sphinx-intl"):
        assert spark not in STUDENT.pins


def test_the_exceptions_are_what_the_chapters_import():
    """myst-nb and dp-accounting are in only because chapter code imports them; Sphinx and mpmath only as their
    pinned dependencies."""
    imported = se.chapter_imports()
    for dist, module in se.NEEDED_BY_CHAPTERS.items():
        assert imported.get(module), f"no chapter imports {module}: drop {dist} from requirements-student.txt"
    for dependency, parent in se.PINNED_DEPENDENCIES.items():
        assert dependency in _closure([parent]) - {se.canonical(parent)}, (dependency, parent)


def test_every_module_the_chapters_and_dp_lib_import_is_installed_by_the_student_file():
    provides = packages_distributions()
    installed = _closure(STUDENT.pins)
    modules = se.third_party(set(se.chapter_imports()) | set(se.library_imports()))
    assert {"numpy", "myst_nb", "opendp", "pipeline_dp", "dp_accounting", "ipywidgets"} <= modules
    missing = {m for m in modules if not {se.canonical(d) for d in provides.get(m, [])} & installed}
    assert not missing, f"imported but not installed by requirements-student.txt: {sorted(missing)}"


def test_nothing_listed_that_the_chapters_do_not_need():
    """Each listed package is imported by a chapter or dp_lib, is a dependency of one that is, or is the
    JupyterLab/kernel/hub layer."""
    provides = packages_distributions()
    modules = se.third_party(set(se.chapter_imports()) | set(se.library_imports()))
    imported = {se.canonical(d) for m in modules for d in provides.get(m, [])}
    needed = _closure(imported | {"jupyterlab", "ipykernel", "nbgitpuller"})
    assert set(STUDENT.pins) - needed == set()


@pytest.mark.parametrize("text, problem", [
    ("numpy==1.0\n-e .\n", "requirements.txt pins"),
    ("playwright==1.65.2\n-e .\n", "browser tool"),
    ("pytest==9.2.0\n-e .\n", "test tool"),
    ("numpy==2.4.6\n", "no '-e .'"),
    ("leftpad==1.0\n-e .\n", "not in requirements.txt"),
    ("sphinx==7.4.7\n-e .\n", "pinned for myst-nb"),
])
def test_the_rules_catch_each_kind_of_mistake(text, problem):
    assert any(problem in p for p in se.rule_violations(se.parse_requirements(text), MAIN))


def test_a_requirement_must_be_pinned():
    with pytest.raises(ValueError, match="line 2"):
        se.parse_requirements("numpy==2.4.6\npandas>=2\n")


# ---- the runner and the table --------------------------------------------------------------------------------

def test_runner_runs_a_notebook_like_run_all(tmp_path):
    """One tiny notebook in the current environment: a raises-exception cell is passed, a real error stops it."""
    cells = [nbformat.v4.new_code_cell("import numpy as np\nx = np.ones(20_000_000)"),
             nbformat.v4.new_code_cell("raise ValueError('expected')", metadata={"tags": ["raises-exception"]}),
             nbformat.v4.new_code_cell("x.sum()"),
             nbformat.v4.new_code_cell("1 / 0")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nbformat.write(nb, tmp_path / "99_toy.ipynb")
    run = se.run_chapter(sys.executable, tmp_path / "99_toy.ipynb", timeout=300)
    assert run.chapter == "99_toy"
    assert not run.ok and run.error.startswith("cell 3:") and "ZeroDivisionError" in run.error
    assert "\x1b" not in run.error
    assert run.seconds > 0
    assert run.peak_mib > 150, "the kernel held 160 MB of ones"  # the peak RSS of the kernel, not of the runner
    assert Path(run.kernel_python).name.startswith("python")


def test_table_lists_each_chapter_with_a_total():
    runs = [se.ChapterRun("01_a", 10.04, 250.2, True), se.ChapterRun("02_b", 5.0, 400.6, False, "cell 7: KeyError|x"),
            se.ChapterRun("03_c", math.nan, math.nan, False, "timed out")]
    table = se.table_markdown(runs, note="Measured today.")
    lines = table.splitlines()
    assert lines[0].startswith("| chapter | Run All (s) | kernel peak memory (MiB) |")
    assert "| 01_a | 10.0 | 250 | ok |" in lines
    assert "| 02_b | 5.0 | 401 | **failed**: cell 7: KeyError/x |" in lines
    assert "| 03_c | — | — |" in table
    assert "| **all 3** | 15.0 (total) | 401 (largest) | **2 failed** |" in lines
    assert lines[-1] == "Measured today."


def test_write_readme_replaces_only_the_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{se.BEGIN}\nold\n{se.END}\nafter\n")
    assert se.write_readme("| new |", readme)
    assert readme.read_text() == f"before\n{se.BEGIN}\n| new |\n{se.END}\nafter\n"


def test_readme_table_covers_every_chapter_and_none_failed():
    block = between((ROOT / "README.md").read_text(encoding="utf-8"), se.BEGIN, se.END)
    assert block is not None, "README.md lacks the student-environment table (python -m benchmarks.student_env)"
    for path in se.chapter_paths(None):
        assert re.search(rf"^\| {path.stem} \| [\d.,]+ \| [\d,]+ \| ok \|$", block, re.M), path.stem
    assert "failed" not in block


# ---- hub/ -----------------------------------------------------------------------------------------------------

def _dockerfile() -> list[str]:
    text = (ROOT / "hub" / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_dockerfile_installs_the_student_requirements_and_copies_files_that_exist():
    lines = _dockerfile()
    assert lines[0] == f"FROM python:{(ROOT / 'runtime.txt').read_text().strip().removeprefix('python-')}-slim"
    pip = [ln for ln in lines if ln.startswith("RUN pip install")]
    assert len(pip) == 1 and "-r requirements-student.txt" in pip[0]
    assert re.search(r'"jupyterhub==\$\{JUPYTERHUB_VERSION\}"', pip[0])  # jupyterhub-singleuser for the hub
    assert re.search(r"ARG JUPYTERHUB_VERSION=\d+\.\d+\.\d+$", "\n".join(lines), re.M)
    ignored = (ROOT / "hub" / "Dockerfile.dockerignore").read_text(encoding="utf-8").split()
    kept = {p[1:].rstrip("/") for p in ignored if p.startswith("!")}
    copied = []
    for line in lines:
        if line.startswith("COPY"):
            parts = [p for p in line.split()[1:] if not p.startswith("--")]
            copied += parts[:-1]
    assert "requirements-student.txt" in copied and "dp_lib/" in copied and "chapters/" in copied
    for source in copied:
        assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which does not exist"
        assert source.rstrip("/") in kept, f"{source} is excluded from the build context by Dockerfile.dockerignore"
    # the last -e line installs dp_lib from the folder where pyproject.toml and dp_lib/ were copied
    assert STUDENT.editable == (".",)
    users = [ln.split()[1] for ln in lines if ln.startswith("USER")]
    assert users and users[-1] not in ("root", "0")
    assert json.loads(lines[-1].removeprefix("CMD"))[:2] == ["jupyter", "lab"]


def test_config_yaml_asks_for_the_measured_memory_with_headroom():
    config = yaml.safe_load((ROOT / "hub" / "config.yaml").read_text(encoding="utf-8"))
    single = config["singleuser"]
    results = json.loads((ROOT / "benchmarks" / "results" / "student_env.json").read_text())
    peak = max(c["peak_mib"] for c in results["chapters"])
    typical = sorted(c["peak_mib"] for c in results["chapters"])[len(results["chapters"]) // 2]

    def mib(text: str) -> float:
        number, unit = re.fullmatch(r"([\d.]+)([MG])", str(text)).groups()
        return float(number) * (1024 if unit == "G" else 1)

    assert mib(single["memory"]["limit"]) >= 1.5 * peak, "the limit leaves no room over the largest chapter"
    assert mib(single["memory"]["guarantee"]) >= typical
    assert mib(single["memory"]["guarantee"]) <= mib(single["memory"]["limit"])
    assert 0 < single["cpu"]["guarantee"] <= single["cpu"]["limit"]
    assert single["defaultUrl"] == "/lab"
    assert single["image"]["name"].endswith("dp-by-experiment")


def test_no_placeholder_hub_in_the_book_config():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    url = (config.get("launch_buttons") or {}).get("jupyterhub_url")
    assert not url or "example" not in url


# ---- nbgitpuller links -----------------------------------------------------------------------------------------

def test_link_is_the_one_nbgitpuller_generates():
    link = se.nbgitpuller_link("https://hub.example.edu/", "https://github.com/dp-by-experiment/dp-by-experiment",
                               "chapters/02_laplace.ipynb", "main")
    assert link == ("https://hub.example.edu/hub/user-redirect/git-pull?"
                    "repo=https%3A%2F%2Fgithub.com%2Fdp-by-experiment%2Fdp-by-experiment"
                    "&urlpath=lab%2Ftree%2Fdp-by-experiment%2Fchapters%2F02_laplace.ipynb&branch=main")


def test_link_round_trips_awkward_values():
    link = se.nbgitpuller_link("https://uni.example/jupyter", "https://git.example/a b/course.git",
                               "/chapters/15 user & more.ipynb", "term/2027+fall")
    parts = urlsplit(link)
    assert parts.path == "/jupyter/hub/user-redirect/git-pull"
    query = parse_qs(parts.query, strict_parsing=True)
    assert query == {"repo": ["https://git.example/a b/course.git"], "branch": ["term/2027+fall"],
                     "urlpath": ["lab/tree/course/chapters/15 user & more.ipynb"]}


@pytest.mark.parametrize("kwargs, message", [
    ({"hub": "hub.example.edu"}, "hub must be"),
    ({"repo": "git@github.com:x/y.git"}, "repo must be"),
    ({"path": "../secrets.ipynb"}, "path must be"),
    ({"branch": ""}, "branch must be"),
])
def test_link_refuses_bad_input(kwargs, message):
    args = {"hub": "https://hub.example.edu", "repo": "https://github.com/x/y", "path": "chapters/02_laplace.ipynb",
            "branch": "main"} | kwargs
    with pytest.raises(ValueError, match=message):
        se.nbgitpuller_link(**args)


def test_link_command_line(capsys):
    assert se.main(["link", "--hub", "https://hub.example.edu", "--repo", "https://github.com/x/y", "--branch",
                    "release-0.3", "--path", "chapters/02_laplace.ipynb"]) == 0
    assert capsys.readouterr().out.strip().endswith("urlpath=lab%2Ftree%2Fy%2Fchapters%2F02_laplace.ipynb"
                                                     "&branch=release-0.3")
