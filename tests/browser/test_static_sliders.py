"""The pre-rendered sliders of the static site move, offline, in headless Chromium (issue: sliders
that move in the rendered site).

For every chapter page with `slider_frames` controls: the default frame shows first; each range
control moved with the keyboard swaps in exactly the frame for the new grid point (its file is the
one `tools/slider_frames.py` wrote for that setting, and it loads); the shown value follows; and
moving the controls sends no request off the machine. Byte-equality of the frames with the
plotting function is checked in tests/test_slider_frames.py.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import ci_strict  # tests/browser/ci_strict.py: under CI=true, no site fails instead of skipping
import pytest

from tools import slider_frames

ROOT = Path(__file__).resolve().parents[2]
# The site and its language, as in test_static_site.py (DP_BOOK_HTML, DP_BOOK_LANG: the Chinese edition).
SITE = Path(os.environ.get("DP_BOOK_HTML", ROOT / "_build" / "html")).resolve()
LANG = os.environ.get("DP_BOOK_LANG", "en")


def _pages_with_frames():
    pages = {}
    for nb in sorted((ROOT / "chapters").glob("*.ipynb")):
        specs = [c["metadata"]["slider_frames"] for c in json.loads(nb.read_text())["cells"]
                 if c.get("metadata", {}).get("slider_frames")]
        if specs:
            pages[nb.stem] = specs
    return pages


PAGES = _pages_with_frames()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_url():
    if not (SITE / "chapters").is_dir():
        ci_strict.skip_or_fail("no built site: run `jupyter-book build .` first")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _state(box):
    return box.evaluate(
        """b => ({src: b.querySelector('img.slider-frames-image').getAttribute('src'),
                  values: [...b.querySelectorAll('input[type=range]')].map(i => Number(i.value)),
                  shown: [...b.querySelectorAll('output')].map(o => o.textContent),
                  data: JSON.parse(b.getAttribute('data-frames'))})"""
    )


def _expected_file(state):
    index = 0
    for size, value in zip(state["data"]["sizes"], state["values"]):
        index = index * size + value
    return state["data"]["files"][index]


def _wait_loaded(page, box):
    page.wait_for_function(
        "b => { const i = b.querySelector('img.slider-frames-image'); return i.complete && i.naturalWidth > 0; }",
        arg=box.element_handle(), timeout=10_000)


@pytest.mark.parametrize("doc", sorted(PAGES))
def test_static_sliders_move_offline(doc, site_url, new_context, screenshots):
    context, guard = new_context()
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        page.goto(f"{site_url}/chapters/{doc}.html", wait_until="load")
        boxes = page.locator(".slider-frames")
        assert boxes.count() == len(PAGES[doc]), f"{doc}: expected {len(PAGES[doc])} pre-rendered controls"
        blocked_before_moving = len(guard.blocked)  # the page's own CDN requests (MathJax...), blocked
        for i, spec in enumerate(PAGES[doc]):
            box = boxes.nth(i)
            box.scroll_into_view_if_needed()
            state = _state(box)
            default = slider_frames.default_setting(spec)
            assert state["src"].endswith(slider_frames.frame_name(spec, default)), "the default frame shows first"
            _wait_loaded(page, box)
            for j, name in enumerate(slider_frames.slider_names(spec)):
                values = spec["grid"][name]
                control = box.locator("input[type=range]").nth(j)
                before = _state(box)
                key = "ArrowLeft" if before["values"][j] == len(values) - 1 else "ArrowRight"
                control.focus()
                page.keyboard.press(key)
                after = _state(box)
                assert after["values"][j] == before["values"][j] + (1 if key == "ArrowRight" else -1)
                assert after["src"] != before["src"], f"{doc}: the image did not change"
                assert after["src"] == _expected_file(after), f"{doc}: wrong frame for {after['values']}"
                name = after["src"].rsplit("/", 1)[1]
                assert (SITE / "_static" / slider_frames.STATIC_DIR / name).is_file()
                assert after["shown"][j] == json.loads(control.get_attribute("data-values"))[after["values"][j]]
                _wait_loaded(page, box)
            page.keyboard.press("Home")
            assert _state(box)["values"][-1] == 0
            _wait_loaded(page, box)
            if LANG != "en":  # the note above the controls and the frames' alt text are translated
                note = box.locator(".slider-frames-note").inner_text()
                alt = box.locator("img.slider-frames-image").get_attribute("alt")
                assert re.search(r"[\u4e00-\u9fff]", note) and re.search(r"[\u4e00-\u9fff]", alt), (note, alt)
            edition = "" if LANG == "en" else f"{LANG}-"
            box.screenshot(path=str(screenshots / f"static-slider-{edition}{doc}-{i}.png"))
        assert len(guard.blocked) == blocked_before_moving, \
            f"moving the sliders requested off-machine URLs: {guard.blocked[blocked_before_moving:]}"
    finally:
        context.close()
