"""dp_lib as an installed package: a wheel built from the repository, installed in a fresh venv outside it.

The wheel is built by pip (an isolated PEP 517 build: setuptools only, no numpy, so the version must be read
statically from ``dp_lib/__init__.py``) from a copy of the files it needs, so the build leaves nothing in the
repository. It must hold the package and its data files, the licences, and nothing else (no tests, chapters,
generators). It is installed with ``pip --python <fresh venv> install --no-deps --no-index`` into a venv made with
``--without-pip`` in a temporary directory, and everything then runs with that directory as the working directory,
so the repository is not importable.

The dependencies (numpy, pandas, scipy, matplotlib, and pytest for the doctest run) are borrowed from the
environment running these tests: a ``.pth`` file in the fresh venv lists that environment's site-packages
directories. Python runs the ``.pth`` files of its own site-packages only, so the editable install's hook
(``__editable__...pth``, which maps ``dp_lib`` to this repository) in a borrowed directory is never run: the only
``dp_lib`` the fresh venv can import is the wheel's, which the first test checks. (``--system-site-packages``
would borrow the base interpreter's packages, which lack numpy; installing the dependencies from the index would
take minutes.) About 15 s in all, most of it the doctests.
"""

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import dp_lib

ROOT = Path(__file__).resolve().parents[1]
DATASETS = {p.name for p in (ROOT / "dp_lib" / "datasets").glob("*.csv")}
BUILD_FILES = ["pyproject.toml", "README.md", "LICENSE", "LICENSE-CONTENT.md"]


def _env():
    """The environment without anything that would put the repository (or other code) on the path."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTEST_ADDOPTS", "PYTEST_PLUGINS",
                        "VIRTUAL_ENV"}}
    return env | {"PYTHONNOUSERSITE": "1", "MPLBACKEND": "Agg"}


def _run(args, cwd, timeout=300):
    out = subprocess.run(args, check=False, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(map(str, args))} failed:\n{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
    return out.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel path, fresh venv's python, working directory outside the repository)."""
    tmp = tmp_path_factory.mktemp("dp_lib_package").resolve()
    assert not tmp.is_relative_to(ROOT), f"the temporary directory {tmp} must be outside the repository"
    src, dist, work = tmp / "src", tmp / "dist", tmp / "work"
    work.mkdir()
    shutil.copytree(ROOT / "dp_lib", src / "dp_lib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, src / name)
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--quiet", "-w", str(dist)], cwd=work)
    (wheel,) = dist.glob("dp_lib-*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=work)
    python = venv / "bin" / "python"
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=work).strip())
    borrowed = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "_borrowed_dependencies.pth").write_text("\n".join(borrowed) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--quiet",
          str(wheel)], cwd=work)
    return wheel, python, work


def test_wheel_holds_the_package_its_data_and_licences_only(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    info = f"dp_lib-{dp_lib.__version__}.dist-info/"
    assert wheel.name == f"dp_lib-{dp_lib.__version__}-py3-none-any.whl"
    assert all(n.startswith(("dp_lib/", info)) for n in names), [n for n in names if not n.startswith("dp_lib")]
    assert {n.removeprefix("dp_lib/datasets/") for n in names if n.startswith("dp_lib/datasets/")} == DATASETS
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "dp_lib").rglob("*.py") if "__pycache__" not in p.parts}
    assert modules <= set(names), modules - set(names)
    assert "dp_lib/py.typed" in names, "the PEP 561 marker must ship in the wheel"
    assert {info + "licenses/LICENSE", info + "licenses/LICENSE-CONTENT.md"} <= set(names)
    with zipfile.ZipFile(wheel) as z:
        metadata = z.read(info + "METADATA").decode()
        for name in DATASETS:
            assert z.read(f"dp_lib/datasets/{name}") == (ROOT / "dp_lib" / "datasets" / name).read_bytes(), name
    assert f"Version: {dp_lib.__version__}\n" in metadata
    assert "License-Expression: MIT AND CC-BY-4.0\n" in metadata


CHECK = r"""
import json, sys
from pathlib import Path
import pandas as pd
import dp_lib
from dp_lib import make_rng
from dp_lib.plotting import learning

adult = dp_lib.load_adult()
roster = pd.read_csv(dp_lib.ADULT_PATH.with_name("public_roster.csv"), dtype={"Zip": str})  # as Chapter 1 reads it
table = pd.read_csv(dp_lib.ADULT_PATH.with_name("dp_sgd_accuracy.csv"))  # as Chapter 11 reads it
print(json.dumps({
    "prefix": sys.prefix, "dp_lib": dp_lib.__file__, "data": str(dp_lib.ADULT_PATH), "sys_path": sys.path,
    "version": dp_lib.__version__,
    "adult": adult.shape, "older_than_40": dp_lib.count_older_than_40(),
    "occupations": int(dp_lib.occupation_counts().sum()), "visits": dp_lib.load_visits().shape,
    "visits_path": str(dp_lib.VISITS_PATH), "roster": roster.shape, "dp_sgd_accuracy": table.shape,
    "tradeoff_table": str(learning.TRADEOFF_TABLE), "tradeoff_runs": len(pd.read_csv(learning.TRADEOFF_TABLE)),
    "noisy_count": float(dp_lib.laplace_mech(13443.0, 1.0, 1.0, rng=make_rng(0))),
}))
"""


def test_installed_dp_lib_is_the_wheels_and_reads_its_data(installed):
    _, python, work = installed
    got = json.loads(_run([python, "-c", CHECK], cwd=work))
    prefix = Path(got["prefix"]).resolve()
    assert prefix == python.parent.parent.resolve()
    for key in ("dp_lib", "data", "visits_path", "tradeoff_table"):
        assert Path(got[key]).resolve().is_relative_to(prefix), f"{key}: {got[key]} is not inside the fresh venv"
    assert not any((work / p).resolve() == ROOT for p in got["sys_path"]), "the repository is on sys.path"
    assert got["version"] == dp_lib.__version__
    assert got["adult"] == [32561, 19] and got["older_than_40"] == 13443 and got["occupations"] == 30718
    assert got["visits"] == [84215, 3] and got["roster"] == [2000, 4]
    assert got["dp_sgd_accuracy"] == [9, 5] and got["tradeoff_runs"] == 105
    assert got["noisy_count"] == float(dp_lib.laplace_mech(13443.0, 1.0, 1.0, rng=dp_lib.make_rng(0)))


def test_every_module_doctest_passes_in_the_installed_package(installed):
    """``pytest --doctest-modules`` over the installed dp_lib (every module, plotting included), run in the venv."""
    _, python, work = installed
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=work).strip())
    # The installed package's directory, named explicitly: pytest collects those files (and would stop with an
    # "import file mismatch" if `import dp_lib` found another copy).
    out = _run([python, "-m", "pytest", "--doctest-modules", str(purelib / "dp_lib"), "-v", "-p", "no:cacheprovider",
                "-o", "addopts=", "--rootdir", str(work)], cwd=work)
    passed = [line for line in out.splitlines() if "::" in line and " PASSED" in line]
    assert len(passed) >= 150, out[-3000:]  # 162 doctests in 0.3.0
    assert not [line for line in out.splitlines() if "::" in line and (" FAILED" in line or " ERROR" in line)], out
