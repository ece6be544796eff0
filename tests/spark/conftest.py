"""tests/spark under CI=true: a missing pyspark or Java runtime fails instead of skipping, and so does a
session that skipped a test or collected none (tests/browser/ci_strict.py, shared with tests/browser
and tests/pdf)."""

import importlib.util
import sys
from pathlib import Path


def _ci_strict():
    """tests/browser/ci_strict.py as the module ``ci_strict`` (tests/ is no package: loaded by path)."""
    if "ci_strict" not in sys.modules:
        spec = importlib.util.spec_from_file_location("ci_strict", Path(__file__).parents[1] / "browser" / "ci_strict.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["ci_strict"] = module
        spec.loader.exec_module(module)
    return sys.modules["ci_strict"]


ci_strict = _ci_strict()
# --doctest-modules would import this file as the module "conftest", which clashes with the other suites'
# conftest.py when they run in one session (e.g. pytest tests/pdf tests/spark)
collect_ignore = ["conftest.py"]


def pytest_configure(config):
    ci_strict.register(config)
