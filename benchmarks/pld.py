"""``python -m benchmarks.pld``: DP-SGD's accounting (T = 10,000 Poisson-subsampled Gaussian steps, q = 0.01,
σ = 1.1, ε at δ = 1e-5) with dp_lib's ``PldAccountant`` against dp-accounting 0.6.0's ``PLDAccountant`` at the
same discretisation (grid step h of the privacy loss), side by side (goal: ratio <= 1).

Both do the whole job: build the step's PLD (both orderings), compose it 10,000 times, read ε. Process CPU time
(``time.process_time``), best of ``--repeats``, the two interleaved, so the load of other processes on a shared
machine inflates it less than wall time. Writes ``benchmarks/results/pld.json`` and ``pld.md``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from dp_accounting import dp_event
from dp_accounting import pld as g_pld

from dp_lib import PldAccountant
from dp_lib.events import GaussianEvent, PoissonSampled, Repeated

RESULTS = Path(__file__).resolve().parent / "results"
Q, SIGMA, STEPS, DELTA = 0.01, 1.1, 10_000, 1e-5


def ours(step: float) -> float:
    return PldAccountant(step).compose(Repeated(PoissonSampled(Q, GaussianEvent(SIGMA)), STEPS)).epsilon(DELTA)


def google(step: float) -> float:
    event = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(SIGMA)), STEPS)
    return g_pld.PLDAccountant(value_discretization_interval=step).compose(event).get_epsilon(DELTA)


def _cpu(fn, step):
    start = time.process_time()
    eps = fn(step)
    return time.process_time() - start, eps


def run_pld(repeats: int = 5, steps=(1e-3, 1e-4), log=print) -> list[dict]:
    rows = []
    for step in steps:
        best = {"dp_lib": float("inf"), "dp-accounting": float("inf")}
        eps = {}
        for _ in range(repeats):
            for name, fn in (("dp_lib", ours), ("dp-accounting", google)):
                seconds, eps[name] = _cpu(fn, step)
                best[name] = min(best[name], seconds)
        row = {"h": step, "dp_lib_s": best["dp_lib"], "dp_accounting_s": best["dp-accounting"],
               "ratio": best["dp_lib"] / best["dp-accounting"], "dp_lib_eps": eps["dp_lib"],
               "dp_accounting_eps": eps["dp-accounting"]}
        log(f"h = {step:g}: dp_lib {row['dp_lib_s']:.3f} s (ε {row['dp_lib_eps']:.4f}), dp-accounting "
            f"{row['dp_accounting_s']:.3f} s (ε {row['dp_accounting_eps']:.4f}), ratio {row['ratio']:.2f}")
        rows.append(row)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pld", description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rows = run_pld(args.repeats)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "pld.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = ["| grid step h | dp_lib CPU s | dp-accounting CPU s | ratio | ε dp_lib | ε dp-accounting |",
             "|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['h']:g} | {r['dp_lib_s']:.3f} | {r['dp_accounting_s']:.3f} | {r['ratio']:.2f} | "
              f"{r['dp_lib_eps']:.4f} | {r['dp_accounting_eps']:.4f} |" for r in rows]
    (RESULTS / "pld.md").write_text(f"T = {STEPS:,} steps, q = {Q}, σ = {SIGMA}, δ = {DELTA:g}; best of "
                                    f"{args.repeats}, process CPU time\n\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
