"""``python -m benchmarks.exact``: exact samplers, dp_lib vs OpenDP, in draws per second.

dp_lib's discrete Laplace and discrete Gaussian samplers (Canonne, Kamath &
Steinke 2020): the readable ``sample_discrete_*`` (the paper's Algorithms 1-3,
one draw at a time) and the ``sample_discrete_*_vectorised`` variants (all
pending draws at once), against OpenDP's (``make_laplace`` and
``make_gaussian`` on a vector of integers, which sample the same laws exactly
in Rust, one draw at a time, from the operating system's CSPRNG). numpy's
float ``rng.laplace`` / ``rng.normal`` is shown as the speed of the
(inexact) float samplers these replace.

OpenDP's noise cannot be seeded, so it appears here and never in a test.
Medians of interleaved rounds; both wall clock and process CPU time (the
machine may be shared). Writes ``benchmarks/results/exact.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path

import dp_lib
from dp_lib import make_rng

from .timing import interleaved

__all__ = ["run_exact", "markdown"]

RESULTS = Path(__file__).resolve().parent / "results"
SETTINGS = [("discrete Laplace", 1), ("discrete Laplace", 10), ("discrete Laplace", 0.1),
            ("discrete Gaussian", 1), ("discrete Gaussian", 10), ("discrete Gaussian", 3.7)]


def _contenders(kind, scale, n):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    rng = make_rng(2024)
    zeros = [0] * n
    domain = dp.vector_domain(dp.atom_domain(T=int))
    if kind == "discrete Laplace":
        mech = dp.m.make_laplace(domain, dp.l1_distance(T=int), scale=float(scale))
        return {"dp_lib": lambda: dp_lib.sample_discrete_laplace_vectorised(scale, size=n, rng=rng),
                "dp_lib readable": lambda: dp_lib.sample_discrete_laplace(scale, size=n // 10, rng=rng),
                "OpenDP": lambda: mech(zeros),
                "numpy float": lambda: rng.laplace(0.0, float(scale), size=n)}
    mech = dp.m.make_gaussian(domain, dp.l2_distance(T=int), scale=float(scale))
    return {"dp_lib": lambda: dp_lib.sample_discrete_gaussian_vectorised(scale, size=n, rng=rng),
            "dp_lib readable": lambda: dp_lib.sample_discrete_gaussian(scale, size=n // 10, rng=rng),
            "OpenDP": lambda: mech(zeros),
            "numpy float": lambda: rng.normal(0.0, float(scale), size=n)}


def run_exact(n=100_000, rounds=3, log=print):
    """Time each setting; return a list of rows (dicts) with seconds per n draws."""
    rows = []
    for kind, scale in SETTINGS:
        times = interleaved(_contenders(kind, scale, n), rounds=rounds, min_time=0.05)
        row = {"sampler": kind, "scale": scale, "n": n}
        for name, t in times.items():
            row[name], row[name + " cpu"] = t["median"], t["cpu_median"]
        row["dp_lib readable"] *= 10  # it ran n/10 draws: per n draws (one draw after another: linear)
        row["dp_lib readable cpu"] *= 10
        rows.append(row)
        log(f"  {kind} {scale}: dp_lib {row['dp_lib']:.3g} s, OpenDP {row['OpenDP']:.3g} s")
    return rows


def markdown(rows, meta):
    """The results as a markdown section."""
    lines = ["## Exact samplers: dp_lib vs OpenDP", "",
             f"`python -m benchmarks.exact` on {meta['when']}, {rows[0]['n']:,} draws per call, median of "
             f"{meta['rounds']} interleaved rounds, os.cpu_count() = {meta['cpus']}, load average "
             f"{meta['load']:.1f} (shared machine: CPU-time ratios are the fairer ones).", "",
             "Draws per second in process CPU time (wall clock in brackets).", "",
             "| sampler | scale / σ | dp_lib vectorised draws/s | dp_lib readable draws/s | OpenDP draws/s | "
             "vectorised / OpenDP speed | numpy float draws/s |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        n = r["n"]
        rate = {k: f"{n / r[k + ' cpu']:,.0f} ({n / r[k]:,.0f})"
                for k in ("dp_lib", "dp_lib readable", "OpenDP", "numpy float")}
        lines.append(f"| {r['sampler']} | {r['scale']} | {rate['dp_lib']} | {rate['dp_lib readable']} | "
                     f"{rate['OpenDP']} | "
                     f"{r['OpenDP cpu'] / r['dp_lib cpu']:.1f}x ({r['OpenDP'] / r['dp_lib']:.1f}x) | "
                     f"{rate['numpy float']} |")
    lines += ["", "OpenDP draws from the OS CSPRNG and keeps arbitrary-precision integers per draw; dp_lib "
              "draws from PCG64 (not a CSPRNG). The vectorised form advances all pending draws together in numpy; "
              "the readable form (the paper's loop in Python integers) ran n/10 draws per call, scaled to n.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.exact", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="draws per call (100000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (3)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = run_exact(args.n, args.rounds, log=lambda s: print(s, file=sys.stderr, flush=True))
    meta = {"when": dt.datetime.now().strftime("%Y-%m-%d %H:%M"), "rounds": args.rounds,
            "cpus": os.cpu_count(), "load": load}
    text = markdown(rows, meta)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "exact.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
