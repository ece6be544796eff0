"""Scaling out: the chapter's PipelineDP pipeline on LocalBackend vs Spark local[2] at 10^5, 10^6, 10^7 rows.

    python -m benchmarks.spark_scaling [--local-max 1000000] [--sizes 100000 1000000 10000000]

Needs `pip install -r requirements-spark.txt` and Java. The log is `dp_lib.simulate_visits` in chunks of
100,000 users (seeded per chunk); for Spark each chunk is generated inside the executors (on the fly), cached and
counted before the clock starts, so the timings are the pipeline only. LocalBackend times are process CPU time
and wall time of the driver; Spark times are wall time (the work runs in the JVM and Python workers).
Writes benchmarks/results/spark_scaling.json (or --out) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from dp_lib import CATEGORIES, make_rng, pipeline_dp_release, simulate_visits

USERS_PER_CHUNK = 100_000  # about 259,000 rows
PARAMS = dict(partitions=CATEGORIES, epsilon=1.0, max_partitions=2, max_per_partition=3, min_value=0.0,
              max_value=100.0)
OUT = Path(__file__).resolve().parent / "results" / "spark_scaling.json"


def chunk_rows(i):
    log = simulate_visits(np.arange(i * USERS_PER_CHUNK, (i + 1) * USERS_PER_CHUNK), rng=make_rng(10_000 + i))
    return list(log.itertuples(index=False, name=None))


def n_chunks(rows):
    return max(1, int(np.ceil(rows / (2.59 * USERS_PER_CHUNK))))


def local_run(rows):
    import pipeline_dp
    data = [r for i in range(n_chunks(rows)) for r in chunk_rows(i)][:rows]
    cpu, wall = time.process_time(), time.perf_counter()
    out = dict(pipeline_dp_release(data, pipeline_dp.LocalBackend(), **PARAMS))
    return {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall, "partitions": len(out)}


def spark_run(sc, rows):
    import pipeline_dp
    k = n_chunks(rows)
    per_chunk = -(-rows // k)
    data = sc.parallelize(range(k), k).flatMap(lambda i: chunk_rows(i)[:per_chunk]).cache()
    actual = data.count()
    wall = time.perf_counter()
    out = dict(pipeline_dp_release(data, pipeline_dp.SparkRDDBackend(sc), **PARAMS).collect())
    seconds = time.perf_counter() - wall
    data.unpersist()
    return {"rows": actual, "wall_s": seconds, "partitions": len(out)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--local-max", type=int, default=1_000_000, help="largest size run on LocalBackend")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the JSON results")
    args = parser.parse_args()
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("dp-book-bench").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "3g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    results = {"load_start": os.getloadavg()[0], "python": platform.python_version(), "cores": os.cpu_count(),
               "runs": []}
    for rows in args.sizes:
        run = {"rows": rows, "spark": spark_run(spark.sparkContext, rows)}
        if rows <= args.local_max:
            run["local"] = local_run(rows)
        results["runs"].append(run)
        print(json.dumps(run), flush=True)
    spark.stop()
    results["load_end"] = os.getloadavg()[0]
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print("| rows | LocalBackend CPU s | LocalBackend wall s | Spark local[2] wall s |\n|---|---|---|---|")
    for run in results["runs"]:
        local = run.get("local")
        cells = (f"{local['cpu_s']:.1f} | {local['wall_s']:.1f}" if local else "not run | not run")
        print(f"| {run['rows']:,} | {cells} | {run['spark']['wall_s']:.1f} |")


if __name__ == "__main__":
    main()
