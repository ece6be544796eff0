"""Shared pieces of the browser tests: Debian's Chromium driven by Playwright, offline.

These tests are not collected by a plain ``pytest`` / ``pytest --nbval`` (``norecursedirs`` in
pyproject.toml lists ``browser``); run them explicitly, after the book build:

    pytest tests/browser -p no:cacheprovider

They skip with a reason when /usr/bin/chromium or the ``playwright`` package is missing. Playwright
never downloads a browser here: it drives the system Chromium through ``executable_path``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
# Flags that keep Chromium quiet on the network (Playwright adds --headless itself and
# gives every launch a fresh temporary --user-data-dir).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _playwright_or_skip():
    if not (CHROMIUM.is_file() or shutil.which(str(CHROMIUM))):
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing: pip install -r requirements.txt")
    return sync_playwright


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session (each test opens its own context)."""
    sync_playwright = _playwright_or_skip()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                                     timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


class NetworkGuard:
    """Aborts and records every request that leaves the machine.

    ``assert_offline()`` fails if one happened; ``blocked`` lists them (useful when a page is
    expected to try a CDN and the test only wants it blocked).
    """

    def __init__(self, context):
        self.blocked: list[str] = []
        context.route("**/*", self._handle)

    def _handle(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or (parts.hostname or "") in LOOPBACK:
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def assert_offline(self):
        assert not self.blocked, f"requests left the machine: {sorted(set(self.blocked))[:10]}"


@pytest.fixture(scope="session")
def new_context(browser):
    """Factory: a fresh browser context (service workers blocked, since routes cannot see their
    requests) and the NetworkGuard watching it."""
    def make(**kwargs):
        kwargs.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(service_workers="block", **kwargs)
        return context, NetworkGuard(context)
    return make
