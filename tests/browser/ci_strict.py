"""CI cannot pass by skipping: with ``CI=true``, the browser, PDF and Spark suites fail where they would skip.

Locally (``CI`` unset) these suites skip, each with a one-line reason, when Chromium, the built book, the
PDF, TeX's tools, pyspark or Java is missing. CI services set ``CI=true`` (``CI=true .ci/run`` does the
same locally); then

* ``skip_or_fail(reason)``, called at every skip point of the three suites, fails instead of skipping;
* a session that skipped any test (a skip from anywhere, e.g. a ``skipif`` of tests/test_slider_frames.py
  run in the browser step) or collected no test fails, and says why in one line.

The conftest.py of tests/browser, tests/pdf and tests/spark import this file as ``ci_strict`` (tests/ is
no package: tests/browser's conftest imports it from its own folder, the other two load it by path under
the same name) and call ``register`` in ``pytest_configure``; the session check is registered once
however many of them are loaded.
"""

from __future__ import annotations

import os

import pytest

PLUGIN_NAME = "dp-book-ci-strict"


def in_ci() -> bool:
    """Whether ``CI`` says this is a CI run ("true", as CI services set it, or "1")."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def skip_or_fail(reason: str, *, module: bool = False):
    """Skip with ``reason`` (``module=True``: the whole module, at import time); under CI=true, fail."""
    __tracebackhide__ = True  # the skip or failure is reported at the caller's line
    if in_ci():
        pytest.fail(f"CI=true, so this fails instead of skipping: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=module)


class StrictSession:
    """Under CI=true: a session with a skipped test, or with no test collected, fails."""

    def __init__(self):
        self.skipped: list[str] = []
        self.verdict = ""

    def _note(self, report):
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            if hasattr(report, "wasxfail"):
                reason = f"xfail: {report.wasxfail}"
            self.skipped.append(f"{report.nodeid or report.fspath}: {reason}".splitlines()[0])

    def pytest_collectreport(self, report):
        self._note(report)

    def pytest_runtest_logreport(self, report):
        self._note(report)

    def pytest_sessionfinish(self, session, exitstatus):
        if not in_ci():
            # Locally a suite skipped as a whole (a module-level skip: nothing collected, everything skipped
            # with a reason) passes, as any skip does; pytest would exit with 5, "no tests collected".
            if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.skipped:
                session.exitstatus = pytest.ExitCode.OK
            return
        if self.skipped:
            self.verdict = (f"CI=true: {len(self.skipped)} skipped, and CI cannot pass by skipping "
                            f"(first: {self.skipped[0]})")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif session.testscollected == 0:
            self.verdict = "CI=true: no test was collected, and CI cannot pass without running the suite"
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter):
        if self.verdict:
            terminalreporter.write_line(self.verdict, red=True, bold=True)


def register(config) -> None:
    """Register the session check once (called from each suite's ``pytest_configure``)."""
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(StrictSession(), PLUGIN_NAME)

