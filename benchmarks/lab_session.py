"""JupyterLab in headless Debian Chromium, offline: the pieces shared by the browser test and the benchmark.

``tests/browser/test_jupyterlab_sliders.py`` (CI: every chapter runs, one slider moves) and
``benchmarks/lab_latency.py`` (on demand: every slider is timed) both use

* ``CHROMIUM``, ``CHROMIUM_ARGS``, ``launch_chromium`` and ``NetworkGuard``: Debian's ``/usr/bin/chromium``
  driven by Playwright (never ``playwright install``), and a route that aborts and records every request
  leaving the machine;
* ``LabServer``: one JupyterLab server on 127.0.0.1 (a free port, a random token, private JUPYTER_* and
  matplotlib folders, no news or update checks, autosave off) serving a temporary copy of ``chapters/``,
  so the committed notebooks are never touched; the server and its kernels run on ``LAB_PYTHON``: the Python of
  this process, or the one named by the environment variable ``DP_BOOK_LAB_PYTHON`` (``.ci/run`` names the
  student environment's, a fresh venv of ``requirements-student.txt``, so every chapter is run there);
* ``open_and_run`` and the page probes (``NOTEBOOK_STATE``, ``INTERACT_STATE``, ``figure_png``, ``poll``,
  ``no_errors``, ``direction``, ``moved``): open a notebook, Run All with no error output, read a slider
  box's figure and readouts.

Every wait is bounded.
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
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"

# ----------------------------------------------------------------------------------------------
# Chromium, offline
# ----------------------------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
# Flags that keep Chromium quiet on the network (Playwright adds --headless itself and
# gives every launch a fresh temporary --user-data-dir).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def launch_chromium(playwright):
    """Debian's Chromium, headless, through a started ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                                      timeout=60_000)


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


def new_context(browser, **kwargs):
    """A fresh browser context (service workers blocked, since routes cannot see their requests) and
    the NetworkGuard watching it."""
    kwargs.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(service_workers="block", **kwargs)
    return context, NetworkGuard(context)


# ----------------------------------------------------------------------------------------------
# The chapters with sliders
# ----------------------------------------------------------------------------------------------

# a slider cell: ``interact(...)`` (ipywidgets) or ``interact_figure(...)`` (dp_lib.widgets)
SLIDER_CALL = re.compile(r"\binteract(_figure)?\(")


def slider_cells(notebook: Path) -> int:
    """How many code cells of ``notebook`` call ``interact``/``interact_figure``."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(1 for c in cells if c["cell_type"] == "code" and SLIDER_CALL.search("".join(c["source"])))


def slider_notebooks() -> list[Path]:
    """The chapter notebooks with at least one slider cell, in file order."""
    return [path for path in sorted(CHAPTERS.glob("*.ipynb")) if slider_cells(path)]


# ----------------------------------------------------------------------------------------------
# The JupyterLab server
# ----------------------------------------------------------------------------------------------

SERVER_START_S = 300  # a loaded machine (the 2-core CI box shared with other jobs) can take minutes
PAGE_LOAD_S = 180
RUN_ALL_S = 300
REDRAW_S = 60


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


def children(pid: int) -> list[int]:
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


LAB_PYTHON = os.environ.get("DP_BOOK_LAB_PYTHON") or sys.executable


class LabServer:
    """JupyterLab on 127.0.0.1 serving a copy of ``chapters/`` under ``home``; ``stop()`` ends it and its kernels."""

    def __init__(self, home: Path):
        self.root = home / "root"
        shutil.copytree(CHAPTERS, self.root / "chapters", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        self.token = secrets.token_hex(24)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = home / "jupyterlab.log"
        cmd = [LAB_PYTHON, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")  # otherwise JupyterLab exits at once when run as root
        env = _isolated_env(home / "jupyter")
        # Build matplotlib's font cache now, so no kernel prints "building the font cache" on stderr.
        subprocess.run([LAB_PYTHON, "-c", "import matplotlib.font_manager"], env=env, check=True, timeout=300)
        self._log = open(self.log_path, "wb")  # the server's log, open until stop()
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

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/chapters/{name}?reset&token={self.token}"

    def shutdown_kernels(self) -> None:
        for session in self.api("/api/sessions"):
            self.api(f"/api/sessions/{session['id']}", method="DELETE")

    def stop(self) -> None:
        kernels = children(self.proc.pid)
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

FIGURE_BYTES = """async (index) => {
  const imgs = document.querySelectorAll('.widget-interact')[index].querySelectorAll('img');
  const src = imgs[imgs.length - 1].getAttribute('src');
  const buf = new Uint8Array(await (await fetch(src)).arrayBuffer());
  let s = ''; for (const b of buf) s += String.fromCharCode(b);
  return btoa(s);
}"""


def poll(page, script, done, timeout_s, what, arg=None):
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


def no_errors(state, where):
    tracebacks = state["stderr"]
    assert not tracebacks, f"{where}: the page shows error/stderr output:\n" + "\n---\n".join(tracebacks)


def open_and_run(page, lab, name):
    """Open ``chapters/<name>`` in JupyterLab, clear its outputs and Run All; fail on any error output.

    A page that already shows this server's JupyterLab opens the notebook in place (``docmanager:open``:
    no second page load); call ``close_notebook`` first. Any other page loads JupyterLab at the notebook."""
    in_lab = page.url.startswith(f"{lab.url}/lab") and page.evaluate("() => !!window.jupyterapp")
    if in_lab:
        page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); }",
                      f"chapters/{name}")
    else:
        page.goto(lab.notebook_url(name), timeout=PAGE_LOAD_S * 1000)
    page.wait_for_function(
        """(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                       return !!(w && w.sessionContext && w.context && w.context.path.endsWith(name)); }""",
        arg=name, timeout=PAGE_LOAD_S * 1000)
    # The idle indicator can read idle before the kernel connects: wait for the session itself.
    page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.sessionContext.ready; }")
    poll(page, NOTEBOOK_STATE, lambda s: s["kernel"] == "idle", PAGE_LOAD_S, "an idle kernel")
    # Clear the committed outputs and counts, so "executed" below means executed now.
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")

    def finished(state):
        if state["stderr"]:  # run-all stops at an error: fail now rather than time out
            return True
        return (state["executed"] == state["total"] and state["kernel"] == "idle"
                and state["indicator"] == "idle")

    state = poll(page, NOTEBOOK_STATE, finished, RUN_ALL_S, f"Run All of {name}")
    no_errors(state, f"{name} after Run All")


CLOSE_NOTEBOOKS = """async () => {
  const app = window.jupyterapp;
  for (const w of Array.from(app.shell.widgets('main'))) {
    if (w.sessionContext) { await w.sessionContext.shutdown(); }
    if (w.context) { w.context.model.dirty = false; }  // no "save changes?" dialog: the copy is thrown away
    w.dispose();
  }
  // (JupyterLab may open a Launcher in the empty main area: not a document, not counted)
  return Array.from(app.shell.widgets('main')).filter(w => w.context).length;
}"""


def close_notebook(page) -> None:
    """Shut down the kernels of the open notebooks and close them, unsaved (the page stays in JupyterLab)."""
    left = page.evaluate(CLOSE_NOTEBOOKS)
    assert left == 0, f"{left} JupyterLab tabs did not close"


def figure_png(page, index) -> bytes:
    """The PNG bytes of the figure interact ``index`` shows (a data: URL or a blob: URL)."""
    data = base64.b64decode(page.evaluate(FIGURE_BYTES, index))
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), "the slider figure is not a PNG"
    return data


def moved(page, index, readouts, timeout_s=3.0) -> bool:
    """Whether the readouts of interact ``index`` changed from ``readouts`` within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.evaluate(INTERACT_STATE, index)["handles"] != readouts:
            return True
        time.sleep(0.05)
    return False


def direction(handle, steps):
    """The arrow key that has room for ``steps`` steps (else the side with more room)."""
    now, lo, hi = (float(handle.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
    return "ArrowRight" if hi - now >= now - lo else "ArrowLeft"
