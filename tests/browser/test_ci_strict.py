"""CI cannot pass by skipping (ci_strict.py): the suites' skip points and the session check, each run in a
fresh pytest process with and without ``CI=true``.

* The real suites with what they need taken away (no built site, no PDF, pyspark unimportable): without
  CI they skip, each with its one-line reason, and pass; with ``CI=true`` every one of them fails, naming
  that reason.
* A small suite of its own: a skip that does not go through ``skip_or_fail`` (a ``pytest.skip`` or
  ``skipif`` anywhere in the session) fails a ``CI=true`` session, and so does a session that collects
  no test.

No browser is started: every skip point here comes before one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CI_STRICT = Path(__file__).resolve().with_name("ci_strict.py")


def _pytest(args, cwd, *, ci, env=None):
    """``python -m pytest -rs ARGS`` in ``cwd``, with CI=true or without CI; (exit code, output)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("CI", "DP_BOOK_HTML", "DP_BOOK_PDF", "DP_BOOK_LANG")}
    if ci:
        environ["CI"] = "true"
    environ.update(env or {})
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args], cwd=cwd,
                         env=environ, capture_output=True, text=True, timeout=300)
    return run.returncode, run.stdout + run.stderr


def _without_prerequisites(tmp_path):
    """Environment in which the real suites lack their prerequisites: no site, no PDF, pyspark unimportable."""
    stub = tmp_path / "no_pyspark" / "pyspark"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('pyspark made unimportable by test_ci_strict.py')\n")
    path = os.pathsep.join(filter(None, [str(stub.parent), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "DP_BOOK_HTML": str(tmp_path / "no_site"),
            "DP_BOOK_PDF": str(tmp_path / "no.pdf")}


REAL = ["tests/browser/test_static_site.py", "tests/browser/test_static_sliders.py", "tests/pdf", "tests/spark"]
REASONS = ["no built site in _build/html", "no built site: run", "no.pdf: run", "pyspark is not installed"]


def test_real_suites_skip_with_reasons_locally(tmp_path):
    code, out = _pytest(REAL, ROOT, ci=False, env=_without_prerequisites(tmp_path))
    assert code == 0, out
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    for reason in REASONS:
        assert any(reason in line for line in skipped), f"no skip with reason {reason!r}:\n{out}"
    assert "CI=true" not in out


def test_real_suites_fail_under_ci(tmp_path):
    # (past the collection errors, so that the skip point in test_static_sliders.py's fixture is reached too)
    code, out = _pytest(["--continue-on-collection-errors", *REAL], ROOT, ci=True, env=_without_prerequisites(tmp_path))
    assert code != 0, out
    assert "SKIPPED" not in out, out
    failures = [line for line in out.splitlines() if "CI=true, so this fails instead of skipping: " in line]
    for reason in REASONS:
        assert any(reason in line for line in failures), f"no failure naming {reason!r}:\n{out}"


BARE = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the small suite needs no plugin (nbval, hypothesis, ...)


def _own_suite(tmp_path, tests: str) -> Path:
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""\
        import importlib.util, sys

        spec = importlib.util.spec_from_file_location("ci_strict", {str(CI_STRICT)!r})
        ci_strict = importlib.util.module_from_spec(spec)
        sys.modules["ci_strict"] = ci_strict
        spec.loader.exec_module(ci_strict)


        def pytest_configure(config):
            ci_strict.register(config)
        """))
    (tmp_path / "test_own.py").write_text(textwrap.dedent(tests))
    return tmp_path


def test_any_skip_fails_a_ci_session(tmp_path):
    suite = _own_suite(tmp_path, """\
        import pytest

        def test_passes():
            pass

        @pytest.mark.skipif(True, reason="a plain skipif, not skip_or_fail")
        def test_skipped():
            pass
        """)
    code, out = _pytest(["test_own.py"], suite, ci=False, env=BARE)
    assert code == 0 and "a plain skipif, not skip_or_fail" in out, out
    code, out = _pytest(["test_own.py"], suite, ci=True, env=BARE)
    assert code == 1, out
    assert "CI=true: 1 skipped, and CI cannot pass by skipping" in out and "a plain skipif" in out, out


def test_no_test_collected_fails_a_ci_session(tmp_path):
    suite = _own_suite(tmp_path, "# no tests\n")
    code, out = _pytest(["test_own.py"], suite, ci=True, env=BARE)
    assert code == 5, out
    assert "CI=true: no test was collected" in out, out
