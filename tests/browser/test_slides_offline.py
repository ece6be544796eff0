"""A chapter's slide deck opens with no network: reveal.js initialises, MathJax typesets, nothing is missing.

Builds the deck of chapter 2 (``python -m tools.slides deck``, from the committed notebook: about 1 s) into a
temporary folder, serves that folder on a loopback port and opens it in Chromium with every request that
leaves the machine aborted and recorded (``NetworkGuard``). Needs no built site. About 5 s.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tools import slides

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "chapters" / "02_laplace.ipynb"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def deck_url(tmp_path_factory):
    out = tmp_path_factory.mktemp("decks")
    slides.write_decks([CHAPTER], out)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{CHAPTER.stem}.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_deck_opens_offline_and_reveal_initialises(new_context, deck_url):
    context, guard = new_context()
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors, failed = [], []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        page.goto(deck_url)
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        total = page.evaluate("() => Reveal.getTotalSlides()")
        assert total >= 20, f"only {total} slides"
        assert page.evaluate("() => document.querySelectorAll('mjx-container').length") > 20  # math typeset
        assert page.evaluate("() => document.querySelectorAll('.reveal .slides img[alt]').length") >= 3
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => Reveal.getIndices().h === 1")
        font = page.evaluate("() => document.fonts.check('16px \"Source Sans Pro\"')")
        assert font, "the theme's font did not load from vendor/reveal.js"
        assert not errors, f"page errors: {errors[:3]}"
        assert not failed, f"missing files: {failed[:5]}"
        guard.assert_offline()
    finally:
        context.close()
