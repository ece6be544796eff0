"""Shared pieces of the browser tests: Debian's Chromium driven by Playwright, offline.

These tests are not collected by a plain ``pytest`` / ``pytest --nbval`` (``norecursedirs`` in
pyproject.toml lists ``browser``); run them explicitly, after the book build:

    pytest tests/browser -p no:cacheprovider

They skip with a reason when /usr/bin/chromium or the ``playwright`` package is missing; under
``CI=true`` they fail instead, and so does a session that skipped a test or collected none
(``ci_strict.py``). Playwright never downloads a browser here: it drives the system Chromium through
``executable_path``. Chromium's flags, the NetworkGuard and the JupyterLab server are in
``benchmarks/lab_session.py``, shared with the latency benchmark.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import ci_strict  # ./ci_strict.py (pytest puts this folder on sys.path to import this conftest)
import pytest

from benchmarks.lab_session import CHROMIUM, launch_chromium
from benchmarks.lab_session import new_context as _new_context

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
SITE = Path(os.environ.get("DP_BOOK_HTML", ROOT / "_build" / "html")).resolve()  # the built site the tests read
# --doctest-modules would import this file as the module "conftest", which clashes with tests/pdf's and
# tests/spark's conftest.py when they run in one session (e.g. pytest tests/browser tests/pdf)
collect_ignore = ["conftest.py"]


def pytest_configure(config):
    ci_strict.register(config)


def _playwright_or_skip():
    if not (CHROMIUM.is_file() or shutil.which(str(CHROMIUM))):
        ci_strict.skip_or_fail(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        ci_strict.skip_or_fail("the playwright package is missing: pip install -r requirements.txt")
    return sync_playwright


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session (each test opens its own context)."""
    sync_playwright = _playwright_or_skip()
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def new_context(browser):
    """Factory: a fresh browser context (service workers blocked, since routes cannot see their
    requests) and the NetworkGuard watching it (``blocked``, ``assert_offline()``)."""
    def make(**kwargs):
        return _new_context(browser, **kwargs)
    return make


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    """The built site (``DP_BOOK_HTML``, default _build/html) served on a free loopback port; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
