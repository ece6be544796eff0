"""The chapters as students run them: JupyterLab in headless Chromium, Run All, move every slider.

One JupyterLab server (127.0.0.1, a free port, a random token, private JUPYTER_* folders, no
news or update checks) serves a temporary copy of ``chapters/``, so autosave can never touch the
committed notebooks. For every chapter notebook with a slider cell (``interact_figure(``) the test
opens it, runs all cells, then for each slider of each interact box presses an arrow key 10 times
(one step at a time) and then 20 times 30 ms apart (a fast drag), and checks that

* the figure's PNG bytes change (the kernel redrew it), and the slider's value moved;
* no cell and no slider callback shows an error or a traceback (both render as stderr output);
* the page raised no JavaScript error and made no request outside 127.0.0.1.

The same moves are timed inside the page (see "Latency" below) and written to
``benchmarks/results/lab_latency_<label>.json``; no timing is asserted (``python -m
benchmarks.lab_latency`` reports them). Screenshots go to ``artifacts/screenshots/lab_<chapter>_*.png``.
Run with ``pytest tests/browser -p no:cacheprovider``; every wait is bounded.
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"
SERVER_START_S = 300  # a loaded machine (the 2-core CI box shared with other jobs) can take minutes
PAGE_LOAD_S = 180
RUN_ALL_S = 300
REDRAW_S = 60


# a slider cell: ``interact(...)`` (ipywidgets) or ``interact_figure(...)`` (dp_lib.widgets)
SLIDER_CALL = re.compile(r"\binteract(_figure)?\(")


def _slider_notebooks():
    found = []
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        if any(c["cell_type"] == "code" and SLIDER_CALL.search("".join(c["source"])) for c in cells):
            found.append(path)
    return found


SLIDER_NOTEBOOKS = _slider_notebooks()


# ----------------------------------------------------------------------------------------------
# The JupyterLab server
# ----------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _isolated_env(home: Path) -> dict[str, str]:
    """Private Jupyter/IPython/matplotlib folders and settings that keep JupyterLab offline."""
    dirs = {name: home / name.lower() for name in (
        "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
        "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR", "MPLCONFIGDIR")}
    for folder in dirs.values():
        folder.mkdir(parents=True)
    _write_json(dirs["JUPYTER_CONFIG_DIR"] / "jupyter_server_config.json", {"LabApp": {
        "news_url": None,  # JSON null; the command line would make it the string "None"
        "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate",
        "extension_manager": "readonly",
        "expose_app_in_browser": True,
    }})
    settings = dirs["JUPYTERLAB_SETTINGS_DIR"]
    _write_json(settings / "@jupyterlab/apputils-extension/notification.jupyterlab-settings",
                {"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True})
    # Keep every cell in the DOM (JupyterLab 4 otherwise drops off-screen cells).
    _write_json(settings / "@jupyterlab/notebook-extension/tracker.jupyterlab-settings",
                {"windowingMode": "none"})
    _write_json(settings / "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings",
                {"autosave": False})
    env = dict(os.environ)
    env.update({name: str(folder) for name, folder in dirs.items()})
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env


def _children(pid: int) -> list[int]:
    """PIDs whose parent is ``pid`` (the kernels the server started)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


class LabServer:
    def __init__(self, home: Path):
        self.root = home / "root"
        shutil.copytree(CHAPTERS, self.root / "chapters", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        self.token = secrets.token_hex(24)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = home / "jupyterlab.log"
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")  # otherwise JupyterLab exits at once when run as root
        env = _isolated_env(home / "jupyter")
        # Build matplotlib's font cache now, so no kernel prints "building the font cache" on stderr.
        subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, check=True, timeout=300)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, env=env, cwd=self.root,
                                     stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._wait_ready()

    def log_tail(self, n: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-n:]

    def api(self, path: str, method: str = "GET"):
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.api("/api/status")
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"JupyterLab did not answer within {SERVER_START_S} s:\n{self.log_tail()}")

    def shutdown_kernels(self) -> None:
        for session in self.api("/api/sessions"):
            self.api(f"/api/sessions/{session['id']}", method="DELETE")

    def stop(self) -> None:
        kernels = _children(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for pid in kernels:  # leftovers, by PID
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser):
    # ``browser`` first: without Chromium/Playwright the test skips before a server starts.
    server = LabServer(tmp_path_factory.mktemp("jupyterlab"))
    try:
        yield server
    finally:
        server.stop()


# ----------------------------------------------------------------------------------------------
# Talking to the JupyterLab page
# ----------------------------------------------------------------------------------------------

NOTEBOOK_STATE = """() => {
  const nb = window.jupyterapp.shell.currentWidget;
  const cells = nb.content.widgets.filter(c => c.model.type === 'code'
                                          && c.model.sharedModel.getSource().trim() !== '');
  const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
  const kernel = nb.sessionContext.session && nb.sessionContext.session.kernel;
  return {
    total: cells.length,
    executed: cells.filter(c => c.model.executionCount !== null).length,
    kernel: kernel ? kernel.status : 'none',
    indicator: indicator ? indicator.getAttribute('data-status') : 'missing',
    stderr: Array.from(document.querySelectorAll("[data-mime-type='application/vnd.jupyter.stderr']"))
                 .map(e => e.innerText.slice(0, 2000)),
  };
}"""

INTERACT_STATE = """(index) => {
  const box = document.querySelectorAll('.widget-interact')[index];
  const imgs = Array.from(box.querySelectorAll('img')).map(i => i.getAttribute('src') || '');
  // the readouts, not aria-valuenow (noUiSlider rounds that to one decimal: 0.75 -> "0.8")
  const handles = Array.from(box.querySelectorAll('.widget-slider .widget-readout'))
                       .map(r => r.innerText.trim());
  return {imgs, handles};
}"""


def _poll(page, script, done, timeout_s, what, arg=None):
    """Evaluate ``script`` until ``done(state)``; a bounded wait that fails with the last state."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = page.evaluate(script, arg)
        if done(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}; last state: "
                                 f"{str(state)[:3000]}")
        time.sleep(0.25)


def _no_errors(state, where):
    tracebacks = state["stderr"]
    assert not tracebacks, f"{where}: the page shows error/stderr output:\n" + "\n---\n".join(tracebacks)


def _open_and_run(page, lab, name):
    page.goto(f"{lab.url}/lab/tree/chapters/{name}?reset&token={lab.token}", timeout=PAGE_LOAD_S * 1000)
    page.wait_for_function(
        """(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                       return !!(w && w.sessionContext && w.context && w.context.path.endsWith(name)); }""",
        arg=name, timeout=PAGE_LOAD_S * 1000)
    # The idle indicator can read idle before the kernel connects: wait for the session itself.
    page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.sessionContext.ready; }")
    _poll(page, NOTEBOOK_STATE, lambda s: s["kernel"] == "idle", PAGE_LOAD_S, "an idle kernel")
    # Clear the committed outputs and counts, so "executed" below means executed now.
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")

    def finished(state):
        if state["stderr"]:  # run-all stops at an error: fail now rather than time out
            return True
        return (state["executed"] == state["total"] and state["kernel"] == "idle"
                and state["indicator"] == "idle")

    state = _poll(page, NOTEBOOK_STATE, finished, RUN_ALL_S, f"Run All of {name}")
    _no_errors(state, f"{name} after Run All")


# ----------------------------------------------------------------------------------------------
# Latency, as the student feels it: timestamps taken inside the page
# ----------------------------------------------------------------------------------------------
#
# A capturing ``keydown`` listener on the interact box records ``performance.now()`` for every key;
# a MutationObserver sees each new figure (a new <img> element or a new ``src``), waits until the
# image is decoded and the next frame has been painted (rAF + a task), and records that time. So
# no Playwright round trip lies inside a measured interval. The numbers are written to
# ``benchmarks/results/lab_latency_<label>.json`` (``DP_LATENCY_LABEL``, default "latest") and
# summarised by ``python -m benchmarks.lab_latency``; no timing is asserted here.

STEPS = 10        # single steps per slider (p50/p95)
DRAG_STEPS = 20   # a fast drag: key presses this many ...
DRAG_GAP_S = 0.03  # ... this far apart
QUIET_S = 0.4     # a step is over when the kernel is idle and no new figure came for this long
DRAG_QUIET_S = 3.0  # ... a drag, this long
RESULTS = ROOT / "benchmarks" / "results"

INSTRUMENT = """(index) => {
  const box = document.querySelectorAll('.widget-interact')[index];
  if (box.__latency) return;
  const log = {keys: [], values: [], figures: []};
  box.__latency = log;
  const readouts = () => Array.from(box.querySelectorAll('.widget-slider .widget-readout'))
                              .map(r => r.innerText.trim()).join('|');
  box.addEventListener('keydown', () => {
    const i = log.keys.push(performance.now()) - 1;
    // the readouts once this key is handled (the slider's own listener runs after this capturing one):
    // a key at the end of the range moves nothing
    setTimeout(() => { log.values[i] = readouts(); }, 0);
  }, true);
  let lastImg = null, lastSrc = null;
  const check = () => {
    const imgs = box.querySelectorAll('img');
    const img = imgs[imgs.length - 1];
    if (!img) return;
    const src = img.getAttribute('src');
    if (img === lastImg && src === lastSrc) return;
    lastImg = img; lastSrc = src;
    const mutated = performance.now(), afterKeys = log.keys.length;
    const painted = () => requestAnimationFrame(() => setTimeout(() => log.figures.push(
        {mutated, painted: performance.now(), afterKeys}), 0));
    img.decode().then(painted, painted);
  };
  check();
  new MutationObserver(check).observe(box, {subtree: true, childList: true, attributes: true,
                                            attributeFilter: ['src']});
}"""

LATENCY_LOG = "(index) => { const l = document.querySelectorAll('.widget-interact')[index].__latency;" \
              " return {keys: l.keys.slice(), values: l.values.slice(), " \
              "figures: l.figures.slice().sort((a, b) => a.painted - b.painted)}; }"

FIGURE_BYTES = """async (index) => {
  const imgs = document.querySelectorAll('.widget-interact')[index].querySelectorAll('img');
  const src = imgs[imgs.length - 1].getAttribute('src');
  const buf = new Uint8Array(await (await fetch(src)).arrayBuffer());
  let s = ''; for (const b of buf) s += String.fromCharCode(b);
  return btoa(s);
}"""


def _figure_png(page, index) -> bytes:
    """The PNG bytes of the figure interact ``index`` shows (a data: URL or a blob: URL)."""
    data = base64.b64decode(page.evaluate(FIGURE_BYTES, index))
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), "the slider figure is not a PNG"
    return data


def _kernel_cpu_s(lab) -> float:
    """User + system CPU seconds of the server's kernel processes (Linux /proc)."""
    total = 0.0
    for pid in _children(lab.proc.pid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _quiet(page, index, n_figures_before, timeout_s, quiet_s=QUIET_S):
    """Wait until a figure newer than ``n_figures_before`` came, the kernel is idle and nothing
    changed for ``quiet_s``; return the page's log."""
    deadline = time.monotonic() + timeout_s
    last_count, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        log = page.evaluate(LATENCY_LOG, index)
        busy = page.evaluate(NOTEBOOK_STATE)["kernel"] != "idle"
        if busy or len(log["figures"]) != last_count:
            last_count, since = len(log["figures"]), time.monotonic()
        elif last_count > n_figures_before and time.monotonic() - since >= quiet_s:
            return log
        time.sleep(0.05)
    raise AssertionError(f"interact #{index} did not redraw and settle within {timeout_s} s")


def _moved(page, index, readouts, timeout_s=3.0) -> bool:
    """Whether the readouts of interact ``index`` changed from ``readouts`` within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.evaluate(INTERACT_STATE, index)["handles"] != readouts:
            return True
        time.sleep(0.05)
    return False


def _direction(handle, steps):
    """The arrow key that has room for ``steps`` steps (else the side with more room)."""
    now, lo, hi = (float(handle.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
    return "ArrowRight" if hi - now >= now - lo else "ArrowLeft"


def _measure_slider(page, lab, index, handle) -> dict:
    """STEPS single steps, then a DRAG_STEPS drag; timings from the page's own clock."""
    page.evaluate(INSTRUMENT, index)
    handle.focus()
    key = _direction(handle, STEPS)
    steps, cpu0 = [], _kernel_cpu_s(lab)
    for _ in range(STEPS):
        before = page.evaluate(LATENCY_LOG, index)
        readouts = page.evaluate(INTERACT_STATE, index)["handles"]
        handle.press(key)
        if not _moved(page, index, readouts):  # at the end of the range: come back
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
            _quiet(page, index, -1, REDRAW_S)
            before = page.evaluate(LATENCY_LOG, index)
            handle.press(key)
        log = _quiet(page, index, len(before["figures"]), REDRAW_S)
        k = len(before["keys"])  # this key's index in log["keys"]
        new = [f for f in log["figures"] if f["afterKeys"] > k]
        steps.append(new[0]["painted"] - log["keys"][k])
        if len(steps) == 1:  # the first step's figure (ten steps may come back to the start)
            stepped = {"png": _figure_png(page, index), "handles": page.evaluate(INTERACT_STATE, index)["handles"]}
    cpu_step = (_kernel_cpu_s(lab) - cpu0) / STEPS
    key = _direction(handle, DRAG_STEPS)  # the side with more room (a short slider stops at its end)
    before = page.evaluate(LATENCY_LOG, index)
    start_values = "|".join(page.evaluate(INTERACT_STATE, index)["handles"])
    start = time.monotonic()
    for i in range(DRAG_STEPS):
        handle.press(key)
        time.sleep(max(0.0, start + (i + 1) * DRAG_GAP_S - time.monotonic()))
    # ipywidgets throttles the drag's value messages: the last one can leave the page well after the
    # last key, so wait longer for quiet, and for a figure that came after the last key that moved
    # the slider (on a short slider, e.g. 11 seeds, the drag's last keys hit the end and move nothing).
    log = _quiet(page, index, len(before["figures"]), REDRAW_S, quiet_s=DRAG_QUIET_S)
    k0 = len(before["keys"])
    values = [start_values, *log["values"][k0:]]
    moving = [k0 + i for i in range(len(values) - 1) if values[i + 1] != values[i]]
    last = moving[-1] if moving else len(log["keys"]) - 1  # index of the last key that moved the slider
    deadline = time.monotonic() + DRAG_QUIET_S
    while not any(f["afterKeys"] > last for f in log["figures"]) and time.monotonic() < deadline:
        time.sleep(0.1)
        log = page.evaluate(LATENCY_LOG, index)
    last_key = log["keys"][last]
    during = [f for f in log["figures"] if f["afterKeys"] > k0]
    after_last = [f for f in during if f["afterKeys"] > last]  # mutated after the last key that moved it
    return stepped, {"steps_ms": steps, "kernel_cpu_per_step_ms": cpu_step * 1e3,
            "drag": {"keys": len(log["keys"]) - k0, "moving_keys": len(moving), "figures": len(during),
                     "final_after_last_key_ms": after_last[-1]["painted"] - last_key if after_last else None,
                     "stale_after_last_key": max(0, len(after_last) - 1)}}


def _step_by_readout(page, index, j, handle) -> dict:
    """Type a new value into slider ``j``'s readout and wait for the redraw; the stepped state."""
    box = page.locator(".widget-interact").nth(index)
    readout = box.locator(".widget-slider .widget-readout").nth(j)
    now = float(readout.inner_text().strip().replace(",", ""))
    lo, hi = (float(handle.get_attribute(a)) for a in ("aria-valuemin", "aria-valuemax"))
    target = (lo + hi) / 2 if hi > lo else now / 2  # aria values round tiny floats to 0.00: halve instead
    before = page.evaluate(LATENCY_LOG, index)
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(f"{target:.6g}")
    page.keyboard.press("Enter")
    _quiet(page, index, len(before["figures"]), REDRAW_S)
    return {"png": _figure_png(page, index), "handles": page.evaluate(INTERACT_STATE, index)["handles"]}


def _restore(page, index, j, text) -> None:
    """Type slider ``j``'s starting value back into its readout, so the next slider is measured from the
    chapter's default setting (at an extreme setting another slider may not change the picture at all,
    e.g. the seed when the noise is far narrower than a histogram bin)."""
    box = page.locator(".widget-interact").nth(index)
    if page.evaluate(INTERACT_STATE, index)["handles"][j] == text:
        return
    readout = box.locator(".widget-slider .widget-readout").nth(j)
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(text.replace(",", ""))
    page.keyboard.press("Enter")
    deadline, since = time.monotonic() + REDRAW_S, None
    while time.monotonic() < deadline:
        back = page.evaluate(INTERACT_STATE, index)["handles"][j] == text
        idle = page.evaluate(NOTEBOOK_STATE)["kernel"] == "idle"
        since = (since or time.monotonic()) if back and idle else None
        if since is not None and time.monotonic() - since >= QUIET_S:
            return
        time.sleep(0.05)
    raise AssertionError(f"interact #{index}: slider {j} did not return to {text}")


def _record(notebook, results) -> None:
    label = os.environ.get("DP_LATENCY_LABEL", "latest")
    path = RESULTS / f"lab_latency_{label}.json"
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[notebook.stem] = {"sliders": results, "load_average": os.getloadavg(),
                           "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


@pytest.mark.parametrize("notebook", SLIDER_NOTEBOOKS, ids=lambda p: p.stem)
def test_sliders_redraw_in_jupyterlab(new_context, lab, screenshots, notebook):
    name = notebook.name
    (screenshots / f"lab_{notebook.stem}_FAILED.png").unlink(missing_ok=True)  # from an earlier run
    context, guard = new_context()
    page = context.new_page()
    page.set_default_timeout(60_000)
    js_errors: list[str] = []
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    results = []
    try:
        _open_and_run(page, lab, name)
        boxes = page.locator(".widget-interact")
        n_interact = boxes.count()
        n_cells = len([c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
                       if c["cell_type"] == "code" and SLIDER_CALL.search("".join(c["source"]))])
        assert n_interact >= n_cells, f"{name}: {n_cells} interact cells but {n_interact} widgets rendered"
        moved = 0
        for i in range(n_interact):
            handles = boxes.nth(i).locator(".widget-slider .noUi-handle")
            assert handles.count() >= 1, f"{name}: interact #{i} has no slider"
            for j in range(handles.count()):
                handle = handles.nth(j)
                handle.scroll_into_view_if_needed()
                before = page.evaluate(INTERACT_STATE, i)
                assert before["imgs"], f"{name}: interact #{i} shows no figure before the slider moves"
                old_png = _figure_png(page, i)
                try:
                    stepped, timings = _measure_slider(page, lab, i, handle)
                except AssertionError as err:  # arrow keys that stick (noUiSlider and sub-0.01 float steps)
                    stepped = _step_by_readout(page, i, j, handle)
                    timings = {"steps_ms": None, "note": f"arrow keys did not step this slider ({err}); "
                                                         "its value was typed into the readout instead"}
                assert stepped["handles"] != before["handles"], f"{name}: slider {j} of interact #{i} did not move"
                assert stepped["png"] != old_png, f"{name}: slider {j} of interact #{i} did not change the figure"
                _no_errors(page.evaluate(NOTEBOOK_STATE), f"{name}, slider {j} of interact #{i}")
                label = boxes.nth(i).locator(".widget-slider .widget-label").nth(j).inner_text().strip()
                results.append({"interact": i, "slider": j, "label": label, **timings})
                _record(notebook, results)  # after every slider, so a later failure keeps these numbers
                moved += 1
                if j == 0:
                    boxes.nth(i).screenshot(path=screenshots / f"lab_{notebook.stem}_interact{i}.png")
                _restore(page, i, j, before["handles"][j])
        page.screenshot(path=screenshots / f"lab_{notebook.stem}.png")
        assert moved >= 1
        assert not js_errors, f"{name}: JavaScript errors: {js_errors[:5]}"
        guard.assert_offline()
    except Exception:
        page.screenshot(path=screenshots / f"lab_{notebook.stem}_FAILED.png")
        print(lab.log_tail(1500))
        raise
    finally:
        context.close()
        lab.shutdown_kernels()
