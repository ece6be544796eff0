"""Scale: randomized response and unary encoding at n = 10^7 respondents, time and peak memory.

Each case runs in a fresh Python process (``python -m benchmarks.scale CASE``
prints one JSON line), so one case's memory cannot hide another's. Peak memory
is measured two ways, both from a baseline taken after the imports:

* ``rss``: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` (the process's
  high-water mark, what the operating system must provide) minus the baseline;
* ``traced``: the ``tracemalloc`` peak (numpy reports its buffers to it).

Both include the inputs (the 10^7 answers or values), which the case creates
after the baseline. The time is wall-clock for the mechanism only (not the
inputs), measured in the same run with tracemalloc on.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

N = 10_000_000
DOMAIN = 100
CHUNK = 100_000  # respondents per step of unary_reported_counts (its default)
TARGET_GIB = 2.0
ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "rr": "Randomized response, per respondent: randomized_response + rr_estimate_count",
    "ue_streamed": f"Unary encoding, per respondent, streamed: unary_reported_counts (chunks of {CHUNK:,}) "
                   "+ debias_counts",
    "ue_counts": "Unary encoding from the counts: bincount + unary_perturb_counts + debias_counts",
}

__all__ = ["CASES", "N", "DOMAIN", "run_case", "run_scale"]


def _maxrss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _inputs(case, rng, np):
    if case == "rr":
        return rng.random(N) < 0.3
    # a skewed distribution over the domain (P[value < v] = (v / DOMAIN)^(1/3)), so the counts differ
    return (rng.random(N) ** 3 * DOMAIN).astype(np.int64)


def _mechanism(case, data, rng, np, dp):
    if case == "rr":
        return dp.rr_estimate_count(dp.randomized_response(data, 0.75, rng=rng), 0.75)
    domain = list(range(DOMAIN))
    p, q = dp.sue_params(1.0)
    if case == "ue_streamed":  # per-respondent unary_perturb on chunks; only the k totals are kept
        totals = dp.unary_reported_counts(data, domain, p, q, rng=rng, chunk_size=CHUNK)
        return dp.debias_counts(totals, data.size, p, q)
    if case == "ue_counts":
        counts = np.bincount(data, minlength=DOMAIN)
        return dp.debias_counts(dp.unary_perturb_counts(counts, p, q, rng=rng), data.size, p, q)
    raise ValueError(f"case must be one of {sorted(CASES)}, got {case!r}")


def run_case(case: str) -> dict:
    """Run one case in this process (call it in a fresh process) and return its figures."""
    import numpy as np

    import dp_lib as dp

    baseline = _maxrss_bytes()
    tracemalloc.start()
    rng = dp.make_rng(2024)
    data = _inputs(case, rng, np)
    start = time.perf_counter()
    estimate = _mechanism(case, data, rng, np, dp)
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    estimate = np.atleast_1d(np.asarray(estimate, dtype=float))
    return {"case": case, "n": N, "seconds": seconds, "rss_peak_mib": (_maxrss_bytes() - baseline) / 2**20,
            "traced_peak_mib": traced / 2**20, "input_mib": data.nbytes / 2**20,
            "estimate_total": float(estimate.sum())}


def run_scale(log=print) -> list[dict]:
    """Every case, each in a fresh subprocess of this interpreter."""
    rows = []
    for case, what in CASES.items():
        done = subprocess.run([sys.executable, "-m", "benchmarks.scale", case], capture_output=True, text=True,
                              check=False, cwd=ROOT)
        if done.returncode != 0:
            row = {"case": case, "what": what, "error": done.stderr.strip().splitlines()[-1:] or ["failed"]}
            row["status"] = "ERROR"
        else:
            row = {**json.loads(done.stdout.strip().splitlines()[-1]), "what": what}
            peak_gib = max(row["rss_peak_mib"], row["traced_peak_mib"]) / 1024
            row["status"] = "pass" if peak_gib <= TARGET_GIB else "MISS"
        rows.append(row)
        log(f"  scale {case:12s} " + (f"{row['seconds']:7.2f} s  rss +{row['rss_peak_mib']:7.0f} MiB  "
                                       f"traced {row['traced_peak_mib']:7.0f} MiB  {row['status']}"
                                       if "seconds" in row else f"ERROR {row['error']}"))
    return rows


if __name__ == "__main__":
    print(json.dumps(run_case(sys.argv[1])))
