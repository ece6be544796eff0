"""Markdown and CSV output of a benchmark run."""

from __future__ import annotations

import csv
import io

__all__ = ["markdown", "csv_rows", "write_csv", "fmt_s"]

REF_TARGET, FLOOR_TARGET = 50.0, 5.0  # issue 30: readable first, within 5x of the numpy floor


def fmt_s(seconds: float) -> str:
    """Seconds with 3 significant digits, in plain or scientific notation as fits."""
    if seconds >= 100:
        return f"{seconds:,.0f}"
    if seconds >= 0.001:
        return f"{seconds:.3g}"
    return f"{seconds:.2e}"


def _ratio(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _table(header, rows) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _mech_status(m) -> str:
    if m["ref_ok"] and m["floor_ok"]:
        return "pass"
    if m["ref_ok"] and m["dp_over_floor_cpu"] <= FLOOR_TARGET:
        return "MISS (load: cpu pass)"
    return "MISS"


def _mechanisms_md(mech, rounds) -> list[str]:
    out = [f"### Mechanisms: reference vs dp_lib vs numpy floor (median of {rounds} interleaved rounds, wall clock)",
           ""]
    rows = []
    for m in mech:
        ref = fmt_s(m["reference_s"]) + (" \\*" if m["reference_scale"] != 1 else "")
        rows.append([m["family"], m["size"], ref, fmt_s(m["dp_lib_s"]), fmt_s(m["floor_s"]),
                     f"{_ratio(m['ref_over_dp'])} {'✓' if m['ref_ok'] else '✗'}",
                     f"{_ratio(m['dp_over_floor'])} {'✓' if m['floor_ok'] else '✗'}",
                     _ratio(m["dp_over_floor_cpu"]), _mech_status(m)])
    out += _table(["family", "workload", "reference (s)", "dp_lib (s)", "floor (s)",
                   f"reference / dp_lib (≥ {REF_TARGET:g})", f"dp_lib / floor (≤ {FLOOR_TARGET:g})",
                   "dp_lib / floor in CPU time", "status"], rows)
    scaled = [m for m in mech if m["reference_scale"] != 1]
    if scaled:
        out += ["", "\\* reference run at a smaller size and scaled linearly to the workload (one Python call per "
                "element): " + "; ".join(f"{m['family']}: {m['reference_size']}, x{m['reference_scale']:g}"
                                         for m in scaled) + "."]
    out += ["", "Ratios and status use wall-clock medians; the CPU-time ratio (process CPU time of the same "
            "calls) leaves out the time other processes held the core, and \"MISS (load: cpu pass)\" marks a miss "
            "that it does not show."]
    out += ["", "What each column runs (reference = one Python call per respondent / bit / draw / release, "
            "in `benchmarks/references.py`):", ""]
    out += _table(["family", "dp_lib", "floor (bare numpy)", "other floors: dp_lib / floor"],
                  [[m["family"], f"`{m['dp_lib_label']}`", f"`{m['floor_label']}`",
                    "; ".join(f"`{k}`: {_ratio(v)}" for k, v in m["extra"].items()) or "—"] for m in mech])
    return out


def _sliders_md(sliders, repeats) -> list[str]:
    png = sliders[0].get("png", "book") if sliders else "book"
    how = "as `interact_figure` does it" if png == "book" else "IPython's bbox_inches='tight'"
    out = [f"### Slider callbacks ({how}) and static figures; median of {repeats} after a warm-up; "
           "target: process CPU time ≤ 100 ms for a slider move, ≤ 300 ms for a static figure", ""]

    def view(s):
        return f"{s['view_ms']:.0f}" if "view_ms" in s else "—"

    def walk(s):
        if "walk_median_ms" not in s:
            return "—"
        return f"{s['walk_median_ms']:.0f} / {s['walk_p95_ms']:.0f} ({s['walk_frames']})"

    rows = [[s["chapter"], f"`{s['function']}`", s["setting"], s["values"], f"{s['median_ms']:.0f}",
             f"{s['build_median_ms']:.0f}", f"{s['max_ms']:.0f}", f"{s['cpu_median_ms']:.0f}", view(s), walk(s), s["status"],
             s["source"]] for s in sliders]
    out += _table(["chapter", "function", "setting", "values", "median (ms)", "of which build (ms)", "max (ms)",
                   "CPU median (ms)", "first visit of a view (ms)", "grid walk CPU median / p95 (frames)", "status",
                   "source"], rows)
    out += ["", "A slider figure (a `LivePlot`, dp_lib/plotting/live.py) is timed as a move: its `LiveFigure` "
            "goes to the setting from one grid step away (both views already drawn); build = the update "
            "(computation, artists' data), the rest = drawing the changing artists over the kept background "
            "and the PNG encode. The first visit of a view also draws the whole figure once: that column is the "
            "CPU time of a fresh renderer's first frame. Grid walk: one fresh renderer through the slider's whole "
            "grid (row-major), run first, so every setting is new and the figure's caches start cold: what a "
            "first drag costs; a slider row passes only if this median is within the target too. Other rows (static figures, plotting functions "
            "without a `LivePlot`): the function, then `figure_png` (one Agg draw + zlib). Status uses the "
            "CPU median: the process CPU time, which leaves out the time other processes held the core on a "
            "shared machine (wall medians are shown beside it). End-to-end latency in JupyterLab: "
            "`python -m benchmarks.lab_latency`."]
    return out


def _scale_md(scale, n) -> list[str]:
    out = [f"### Scale: n = {n:,} respondents (unary encoding: domain 100), each case in a fresh process; "
           "target peak ≤ 2 GiB", ""]
    rows = []
    for s in scale:
        if "seconds" not in s:
            rows.append([s["case"], s["what"], "—", "—", "—", "—", s["status"]])
            continue
        rows.append([s["case"], s["what"], f"{s['seconds']:.2f}", f"{s['rss_peak_mib']:,.0f}",
                     f"{s['traced_peak_mib']:,.0f}", f"{s['input_mib']:,.0f}", s["status"]])
    out += _table(["case", "what", "time (s)", "peak RSS over baseline (MiB)", "tracemalloc peak (MiB)",
                   "inputs (MiB, included)", "status"], rows)
    return out


def _book_md(book) -> list[str]:
    if not book:
        return ["### Whole-book cost", "", "Not measured yet: run `python -m benchmarks --book`."]
    out = [f"### Whole-book cost ({book['when']}, os.cpu_count() = {book['cpu_count']}, "
           f"load average before {book['load_before'][0]:.1f})", ""]
    out += _table(["command (clean copy of the repository)", "time (s)", "exit", "last line of output"],
                  [[f"`{c['command']}`", f"{c['seconds']:.0f}", c["exit"], c["summary"].replace("|", "/")]
                   for c in book["commands"]])
    if book.get("from_previous_run"):
        out += ["", "(From the last `python -m benchmarks --book` run; this run did not repeat it.)"]
    return out


def markdown(meta, mech=None, sliders=None, scale=None, book=None) -> str:
    """The whole report as markdown."""
    lines = ["## Performance", "",
             f"Run `{meta['command']}` on {meta['when']}: commit {meta['commit']}, Python {meta['python']}, "
             f"numpy {meta['numpy']}, os.cpu_count() = {meta['cpu_count']}, load average "
             f"{meta['load_before'][0]:.1f} at the start and {meta['load_after'][0]:.1f} at the end "
             f"(the machine is shared: wall times are noisy), {meta['seconds']:.0f} s in all.", ""]
    if mech is not None:
        lines += _mechanisms_md(mech, meta["rounds"]) + [""]
    if sliders is not None:
        lines += _sliders_md(sliders, meta["repeats"]) + [""]
    if scale is not None:
        lines += _scale_md(scale, meta["n_scale"]) + [""]
    lines += _book_md(book) + [""]
    return "\n".join(lines)


def csv_rows(mech=None, sliders=None, scale=None, book=None) -> list[dict]:
    """Long format: one row per measured figure."""
    rows = []

    def add(section, item, setting, metric, value, unit, target="", status="", note=""):
        rows.append({"section": section, "item": item, "setting": setting, "metric": metric, "value": value,
                     "unit": unit, "target": target, "status": status, "note": note})

    for m in mech or []:
        note = f"reference at {m['reference_size']}, scaled x{m['reference_scale']:g}" if m["reference_scale"] != 1 else ""
        add("mechanisms", m["family"], m["size"], "reference", m["reference_s"], "s", note=note)
        add("mechanisms", m["family"], m["size"], "dp_lib", m["dp_lib_s"], "s", note=m["dp_lib_label"])
        add("mechanisms", m["family"], m["size"], "floor", m["floor_s"], "s", note=m["floor_label"])
        add("mechanisms", m["family"], m["size"], "reference/dp_lib", m["ref_over_dp"], "ratio", ">= 50",
            "pass" if m["ref_ok"] else "MISS")
        add("mechanisms", m["family"], m["size"], "dp_lib/floor", m["dp_over_floor"], "ratio", f"<= {FLOOR_TARGET:g}",
            "pass" if m["floor_ok"] else "MISS")
        add("mechanisms", m["family"], m["size"], "dp_lib/floor cpu", m["dp_over_floor_cpu"], "ratio")
        for label, value in m["extra"].items():
            add("mechanisms", m["family"], m["size"], f"dp_lib/{label}", value, "ratio", note="extra floor")
    for s in sliders or []:
        item = f"{s['chapter']}:{s['function']}"
        add("sliders", item, f"{s['setting']} ({s['values']})", "median", s["median_ms"], "ms", "",
            s["status"], s["source"])
        add("sliders", item, f"{s['setting']} ({s['values']})", "max", s["max_ms"], "ms")
        add("sliders", item, f"{s['setting']} ({s['values']})", "cpu median", s["cpu_median_ms"], "ms")
        add("sliders", item, f"{s['setting']} ({s['values']})", "build median", s["build_median_ms"], "ms")
    for s in scale or []:
        if "seconds" not in s:
            add("scale", s["case"], "n=1e7", "error", "", "", status="ERROR", note=" ".join(s["error"]))
            continue
        add("scale", s["case"], f"n={s['n']}", "time", s["seconds"], "s", note=s["what"])
        add("scale", s["case"], f"n={s['n']}", "peak rss over baseline", s["rss_peak_mib"], "MiB", "<= 2048",
            s["status"])
        add("scale", s["case"], f"n={s['n']}", "tracemalloc peak", s["traced_peak_mib"], "MiB", "<= 2048")
    if book:
        for c in book["commands"]:
            add("book", c["command"], f"cpu_count={book['cpu_count']}", "time", c["seconds"], "s",
                status=f"exit {c['exit']}", note=book["when"])
    return rows


def write_csv(path, rows) -> None:
    """Write ``csv_rows`` output to ``path``."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["section"], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    path.write_text(buf.getvalue())
