"""The chapters as students run them: JupyterLab in headless Chromium, Run All, one slider moves.

One JupyterLab server (127.0.0.1, a free port, a random token, private JUPYTER_* folders, no
news or update checks) serves a temporary copy of ``chapters/``, so autosave can never touch the
committed notebooks; one page loads JupyterLab once and opens the chapters one after the other
(``benchmarks/lab_session.py``, shared with the latency benchmark). For every chapter notebook with a
slider cell (``interact_figure(``) the test opens it, runs all cells, then presses one arrow key on the
first slider of the first interact box, and checks that

* no cell shows an error or a traceback (both render as stderr output), after Run All and after the move;
* every slider cell rendered its interact box;
* the figure's PNG bytes change (the kernel redrew it), and the slider's value moved;
* the page raised no JavaScript error and made no request outside 127.0.0.1.

Every slider, timed (10 steps and a fast drag each), is a benchmark, not a test: ``python -m
benchmarks.lab_latency``. Screenshots go to ``artifacts/screenshots/lab_<chapter>*.png``.
Run with ``pytest tests/browser -p no:cacheprovider``; every wait is bounded.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchmarks.lab_session import (
    INTERACT_STATE,
    LAB_PYTHON,
    NOTEBOOK_STATE,
    REDRAW_S,
    LabServer,
    close_notebook,
    direction,
    figure_png,
    no_errors,
    open_and_run,
    slider_cells,
    slider_notebooks,
)

SLIDER_NOTEBOOKS = slider_notebooks()
SETTLE_S = 0.5  # after a redraw: the kernel idle and the figure unchanged for this long


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser):
    # ``browser`` first: without Chromium/Playwright the test skips (or, under CI=true, fails) before a
    # server starts.
    server = LabServer(tmp_path_factory.mktemp("jupyterlab"))
    try:
        yield server
    finally:
        server.stop()


class LabPage:
    """One page for every chapter, so JupyterLab loads once; ``renew()`` gives a fresh context and page
    (after a failed chapter, whose page may hold a dialog or a half-run notebook)."""

    def __init__(self, new_context):
        self._new_context = new_context
        self.context = None
        self.renew()

    def renew(self):
        if self.context is not None:
            self.context.close()
        self.context, self.guard = self._new_context()
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.js_errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.js_errors.append(str(exc)))
        self.broken = False

    def close(self):
        self.context.close()


def test_the_kernels_run_the_lab_python(lab):
    """A kernel the server starts runs ``LAB_PYTHON`` (under .ci/run: the student environment's venv)."""
    kernel = lab.api("/api/kernels", "POST")
    try:
        deadline, argv = time.monotonic() + 60, None
        while argv is None and time.monotonic() < deadline:
            for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    args = cmdline.read_bytes().decode(errors="replace").split("\0")
                except OSError:
                    continue
                if any(kernel["id"] in a for a in args) and "ipykernel_launcher" in args:
                    argv = args
            time.sleep(0.2)
        assert argv is not None, "no kernel process found"
        assert argv[0] == LAB_PYTHON, f"the kernel runs {argv[0]}, not {LAB_PYTHON}"
    finally:
        lab.api(f"/api/kernels/{kernel['id']}", "DELETE")


@pytest.fixture(scope="module")
def lab_page(lab, new_context):
    state = LabPage(new_context)
    try:
        yield state
    finally:
        state.close()


def _redrawn(page, index, old_src, timeout_s=REDRAW_S):
    """Wait until interact ``index`` shows a figure other than ``old_src``, the kernel is idle and the
    figure has not changed for SETTLE_S; return the box's state."""
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        box = page.evaluate(INTERACT_STATE, index)
        src = box["imgs"][-1] if box["imgs"] else None
        idle = page.evaluate(NOTEBOOK_STATE)["kernel"] == "idle"
        if src != last or not idle:
            last, since = src, time.monotonic()
        elif src is not None and src != old_src and time.monotonic() - since >= SETTLE_S:
            return box
        time.sleep(0.05)
    raise AssertionError(f"interact #{index} did not redraw and settle within {timeout_s} s")


@pytest.mark.parametrize("notebook", SLIDER_NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_runs_and_a_slider_redraws(lab, lab_page, screenshots, notebook):
    if lab_page.broken:  # the previous chapter failed
        lab_page.renew()
    name, page = notebook.name, lab_page.page
    (screenshots / f"lab_{notebook.stem}_FAILED.png").unlink(missing_ok=True)  # from an earlier run
    blocked_before, errors_before = len(lab_page.guard.blocked), len(lab_page.js_errors)
    try:
        open_and_run(page, lab, name)
        boxes = page.locator(".widget-interact")
        n_cells = slider_cells(notebook)
        assert boxes.count() >= n_cells, f"{name}: {n_cells} interact cells but {boxes.count()} widgets rendered"

        # The first slider of the first interact box: one arrow key, towards the side with room.
        handle = boxes.first.locator(".widget-slider .noUi-handle").first
        assert handle.count() == 1, f"{name}: the first interact box has no slider"
        handle.scroll_into_view_if_needed()
        before = page.evaluate(INTERACT_STATE, 0)
        assert before["imgs"], f"{name}: the first interact box shows no figure before the slider moves"
        old_png = figure_png(page, 0)
        handle.focus()
        handle.press(direction(handle, 1))
        after = _redrawn(page, 0, before["imgs"][-1])
        assert after["handles"] != before["handles"], f"{name}: the first slider did not move"
        assert figure_png(page, 0) != old_png, f"{name}: the first slider did not change the figure's PNG"
        no_errors(page.evaluate(NOTEBOOK_STATE), f"{name}, after moving the first slider")
        boxes.first.screenshot(path=screenshots / f"lab_{notebook.stem}_interact0.png")

        js_errors = lab_page.js_errors[errors_before:]
        assert not js_errors, f"{name}: JavaScript errors: {js_errors[:5]}"
        blocked = lab_page.guard.blocked[blocked_before:]
        assert not blocked, f"{name}: requests left the machine: {sorted(set(blocked))[:10]}"
        close_notebook(page)
    except Exception:
        lab_page.broken = True
        page.screenshot(path=screenshots / f"lab_{notebook.stem}_FAILED.png")
        print(lab.log_tail(1500))
        raise
    finally:
        lab.shutdown_kernels()
