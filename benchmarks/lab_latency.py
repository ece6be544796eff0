"""End-to-end slider latency in JupyterLab, as the student feels it: ``python -m benchmarks.lab_latency``.

A benchmark, run on demand (CI does not run it: ``tests/browser/test_jupyterlab_sliders.py`` checks that
every chapter runs and one slider per chapter redraws). It starts JupyterLab and headless Debian Chromium
(``benchmarks/lab_session.py``, shared with that test), runs every chapter that has a slider, and for every
slider of every ``interact_figure`` records inside the page (``performance.now()``, a MutationObserver, the
image decoded and the next frame painted):

* 10 single steps (one arrow key, wait until the figure is new and the kernel idle): the time from
  the key to the new figure on screen; p50 and p95;
* a drag: 20 key presses 30 ms apart; the time from the last key that moved the slider (a short
  slider, e.g. 11 seeds, stops at its end) until the final figure is painted
  (and stays), and the stale figures painted after the last key before the final one.

Along the way it checks what the test checks (the figure's PNG bytes change and the slider moves, no
error or traceback, no JavaScript error, no request off the machine) and saves screenshots to
``artifacts/screenshots/lab_<chapter>_*.png``. The numbers go to ``benchmarks/results/lab_latency_<label>.json``
(label ``--label``, else ``DP_LATENCY_LABEL``, else "latest"; one entry per chapter, replaced when the chapter
is measured again), and ``--report`` turns those files into ``benchmarks/results/lab_latency.md``:

    python -m benchmarks.lab_latency                          # every slider chapter (about 10 minutes on 2 cores)
    python -m benchmarks.lab_latency --chapter 02_laplace     # one chapter (repeatable)
    python -m benchmarks.lab_latency --report before latest   # the tables, from the saved runs (or: ... before latest)

Targets: p50 <= 150 ms, p95 <= 300 ms, final figure <= 300 ms after the last key with at most one
stale figure. Kernel CPU per step is the kernel process's CPU time over the 10 steps / 10: what the
figure costs, independent of how loaded the machine is (the wall times are not). Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .lab_session import (CHAPTERS, INTERACT_STATE, NOTEBOOK_STATE, REDRAW_S, ROOT, children, direction,
                          figure_png, launch_chromium, moved, new_context, no_errors, open_and_run, slider_cells,
                          slider_notebooks)

RESULTS = Path(__file__).resolve().parent / "results"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
P50_MS, P95_MS, DRAG_MS, STALE = 150.0, 300.0, 300.0, 1

# ----------------------------------------------------------------------------------------------
# The sweep: timestamps taken inside the page
# ----------------------------------------------------------------------------------------------
#
# A capturing ``keydown`` listener on the interact box records ``performance.now()`` for every key;
# a MutationObserver sees each new figure (a new <img> element or a new ``src``), waits until the
# image is decoded and the next frame has been painted (rAF + a task), and records that time. So
# no Playwright round trip lies inside a measured interval.

STEPS = 10        # single steps per slider (p50/p95)
DRAG_STEPS = 20   # a fast drag: key presses this many ...
DRAG_GAP_S = 0.03  # ... this far apart
QUIET_S = 0.4     # a step is over when the kernel is idle and no new figure came for this long
DRAG_QUIET_S = 3.0  # ... a drag, this long

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


def _kernel_cpu_s(lab) -> float:
    """User + system CPU seconds of the server's kernel processes (Linux /proc)."""
    total = 0.0
    for pid in children(lab.proc.pid):
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


def _measure_slider(page, lab, index, handle) -> tuple[dict, dict]:
    """STEPS single steps, then a DRAG_STEPS drag; timings from the page's own clock.

    Returns the state after the first step (its PNG and readouts) and the timings."""
    page.evaluate(INSTRUMENT, index)
    handle.focus()
    key = direction(handle, STEPS)
    steps, cpu0 = [], _kernel_cpu_s(lab)
    for _ in range(STEPS):
        before = page.evaluate(LATENCY_LOG, index)
        readouts = page.evaluate(INTERACT_STATE, index)["handles"]
        handle.press(key)
        if not moved(page, index, readouts):  # at the end of the range: come back
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
            _quiet(page, index, -1, REDRAW_S)
            before = page.evaluate(LATENCY_LOG, index)
            handle.press(key)
        log = _quiet(page, index, len(before["figures"]), REDRAW_S)
        k = len(before["keys"])  # this key's index in log["keys"]
        new = [f for f in log["figures"] if f["afterKeys"] > k]
        steps.append(new[0]["painted"] - log["keys"][k])
        if len(steps) == 1:  # the first step's figure (ten steps may come back to the start)
            stepped = {"png": figure_png(page, index), "handles": page.evaluate(INTERACT_STATE, index)["handles"]}
    cpu_step = (_kernel_cpu_s(lab) - cpu0) / STEPS
    key = direction(handle, DRAG_STEPS)  # the side with more room (a short slider stops at its end)
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
    return {"png": figure_png(page, index), "handles": page.evaluate(INTERACT_STATE, index)["handles"]}


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


def _record(label, notebook, results) -> None:
    """Write ``results`` as ``notebook``'s entry of ``lab_latency_<label>.json`` (the other chapters' stay)."""
    path = RESULTS / f"lab_latency_{label}.json"
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[notebook.stem] = {"sliders": results, "load_average": os.getloadavg(),
                           "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


def measure_notebook(browser, lab, notebook, label) -> list[dict]:
    """Run ``notebook`` in JupyterLab and time every slider of every interact box (see the module's doc)."""
    name = notebook.name
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"lab_{notebook.stem}_FAILED.png").unlink(missing_ok=True)  # from an earlier run
    context, guard = new_context(browser)
    page = context.new_page()
    page.set_default_timeout(60_000)
    js_errors: list[str] = []
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    results = []
    try:
        open_and_run(page, lab, name)
        boxes = page.locator(".widget-interact")
        n_interact, n_cells = boxes.count(), slider_cells(notebook)
        assert n_interact >= n_cells, f"{name}: {n_cells} interact cells but {n_interact} widgets rendered"
        for i in range(n_interact):
            handles = boxes.nth(i).locator(".widget-slider .noUi-handle")
            assert handles.count() >= 1, f"{name}: interact #{i} has no slider"
            for j in range(handles.count()):
                handle = handles.nth(j)
                handle.scroll_into_view_if_needed()
                before = page.evaluate(INTERACT_STATE, i)
                assert before["imgs"], f"{name}: interact #{i} shows no figure before the slider moves"
                old_png = figure_png(page, i)
                try:
                    stepped, timings = _measure_slider(page, lab, i, handle)
                except AssertionError as err:  # arrow keys that stick (noUiSlider and sub-0.01 float steps)
                    stepped = _step_by_readout(page, i, j, handle)
                    timings = {"steps_ms": None, "note": f"arrow keys did not step this slider ({err}); "
                                                         "its value was typed into the readout instead"}
                assert stepped["handles"] != before["handles"], f"{name}: slider {j} of interact #{i} did not move"
                assert stepped["png"] != old_png, f"{name}: slider {j} of interact #{i} did not change the figure"
                no_errors(page.evaluate(NOTEBOOK_STATE), f"{name}, slider {j} of interact #{i}")
                text = boxes.nth(i).locator(".widget-slider .widget-label").nth(j).inner_text().strip()
                results.append({"interact": i, "slider": j, "label": text, **timings})
                _record(label, notebook, results)  # after every slider, so a later failure keeps these numbers
                if j == 0:
                    boxes.nth(i).screenshot(path=SCREENSHOTS / f"lab_{notebook.stem}_interact{i}.png")
                _restore(page, i, j, before["handles"][j])
        page.screenshot(path=SCREENSHOTS / f"lab_{notebook.stem}.png")
        assert results, f"{name}: no slider was measured"
        assert not js_errors, f"{name}: JavaScript errors: {js_errors[:5]}"
        guard.assert_offline()
        return results
    except Exception:
        page.screenshot(path=SCREENSHOTS / f"lab_{notebook.stem}_FAILED.png")
        raise
    finally:
        context.close()
        lab.shutdown_kernels()


def sweep(label: str, chapters=None) -> int:
    """Measure the slider chapters (all, or those whose stem is in ``chapters``); 0 if every one passed."""
    from playwright.sync_api import sync_playwright

    from .lab_session import CHROMIUM, LabServer

    notebooks = slider_notebooks()
    if chapters:
        unknown = sorted(set(chapters) - {nb.stem for nb in notebooks})
        if unknown:
            print(f"no slider chapter named {', '.join(unknown)} in {CHAPTERS}", file=sys.stderr)
            return 2
        notebooks = [nb for nb in notebooks if nb.stem in chapters]
    if not CHROMIUM.is_file():
        print(f"{CHROMIUM} is missing: apt-get install -y chromium", file=sys.stderr)
        return 2
    failed = []
    with tempfile.TemporaryDirectory(prefix="lab-latency-") as home, sync_playwright() as pw:
        browser = launch_chromium(pw)
        lab = LabServer(Path(home))
        try:
            for notebook in notebooks:
                start = time.monotonic()
                try:
                    results = measure_notebook(browser, lab, notebook, label)
                except Exception:  # any failure of one chapter: report it, measure the others
                    failed.append(notebook.stem)
                    traceback.print_exc()
                    print(lab.log_tail(1500), file=sys.stderr)
                    continue
                print(f"{notebook.stem}: {len(results)} sliders in {time.monotonic() - start:.0f} s",
                      file=sys.stderr, flush=True)
        finally:
            lab.stop()
            browser.close()
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


# ----------------------------------------------------------------------------------------------
# The report
# ----------------------------------------------------------------------------------------------


def _p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def rows(label: str) -> list[dict]:
    """One row per slider from ``lab_latency_<label>.json``."""
    data = json.loads((RESULTS / f"lab_latency_{label}.json").read_text())
    out = []
    for chapter, entry in sorted(data.items()):
        for s in entry["sliders"]:
            if not s.get("steps_ms"):  # arrow keys did not step it: typed into the readout, not timed
                continue
            drag = s["drag"]
            row = {"label": label, "chapter": chapter, "interact": s["interact"], "slider": s["label"],
                   "p50": statistics.median(s["steps_ms"]), "p95": _p95(s["steps_ms"]), "max": max(s["steps_ms"]),
                   "cpu": s["kernel_cpu_per_step_ms"], "final": drag["final_after_last_key_ms"],
                   "stale": drag["stale_after_last_key"], "figures": drag["figures"], "keys": drag["keys"],
                   "moving": drag.get("moving_keys", drag["keys"]),
                   "load": entry["load_average"][0], "when": entry["when"]}
            row["ok"] = (row["p50"] <= P50_MS and row["p95"] <= P95_MS and row["final"] is not None
                         and row["final"] <= DRAG_MS and row["stale"] <= STALE)
            out.append(row)
    return out


def markdown(labels) -> str:
    lines = ["### Slider latency in JupyterLab (end to end, timestamps in the page)", "",
             f"Targets: p50 ≤ {P50_MS:.0f} ms, p95 ≤ {P95_MS:.0f} ms per step; after a 20-step drag (keys 30 ms "
             f"apart) the final figure ≤ {DRAG_MS:.0f} ms after the last key that moved the slider (a short slider "
             f"stops at its end), with ≤ {STALE} stale figure. "
             "Wall times depend on the machine's load (load average when the chapter ran is shown; the "
             "machine has 2 cores); kernel CPU per step does not.", ""]
    for label in labels:
        try:
            table = rows(label)
        except FileNotFoundError:
            continue
        all_steps = [r for r in table]
        lines += [f"#### {label}", "",
                  "| chapter | # | slider | p50 (ms) | p95 (ms) | max (ms) | kernel CPU / step (ms) | "
                  "drag: final after last key (ms) | drag: stale | drag: figures / keys (that moved it) | load | targets |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in table:
            final = "—" if r["final"] is None else f"{r['final']:.0f}"
            lines.append(f"| {r['chapter']} | {r['interact']} | {r['slider']} | {r['p50']:.0f} | {r['p95']:.0f} | "
                         f"{r['max']:.0f} | {r['cpu']:.0f} | {final} | {r['stale']} | {r['figures']} / {r['keys']} "
                         f"({r['moving']}) | "
                         f"{r['load']:.1f} | {'pass' if r['ok'] else 'MISS'} |")
        if all_steps:
            p50s = [r["p50"] for r in all_steps]
            p95s = [r["p95"] for r in all_steps]
            cpus = [r["cpu"] for r in all_steps]
            finals = [r["final"] for r in all_steps if r["final"] is not None]
            lines += ["", f"{len(all_steps)} sliders, {sum(r['ok'] for r in all_steps)} meet every target; "
                      f"p50 {min(p50s):.0f}–{max(p50s):.0f} ms, p95 {min(p95s):.0f}–{max(p95s):.0f} ms, "
                      f"kernel CPU per step {min(cpus):.0f}–{max(cpus):.0f} ms, drag final "
                      f"{min(finals, default=0):.0f}–{max(finals, default=0):.0f} ms, stale figures after the last "
                      f"key ≤ {max(r['stale'] for r in all_steps)}; run {all_steps[0]['when']}.", ""]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lab_latency",
                                     description="Slider latency in JupyterLab (see the module's doc).")
    parser.add_argument("--label", default=os.environ.get("DP_LATENCY_LABEL", "latest"),
                        help="the sweep writes results/lab_latency_<label>.json (default: $DP_LATENCY_LABEL or latest)")
    parser.add_argument("--chapter", action="append", metavar="STEM",
                        help="measure only this chapter, e.g. 02_laplace (repeatable; default: every slider chapter)")
    parser.add_argument("--report", nargs="*", metavar="LABEL",
                        help="no sweep: write results/lab_latency.md from the saved runs of these labels "
                             "(default: before latest)")
    parser.add_argument("labels", nargs="*", metavar="LABEL", help="the same as --report LABEL ...")
    args = parser.parse_args(argv)
    if args.report is not None or args.labels:
        text = markdown((args.report or []) + args.labels or ["before", "latest"])
        (RESULTS / "lab_latency.md").write_text(text)
        print(text)
        return 0
    status = sweep(args.label, args.chapter)
    print(markdown([args.label]))
    return status


if __name__ == "__main__":
    sys.exit(main())
