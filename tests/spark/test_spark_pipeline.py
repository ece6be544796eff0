"""The chapter's PipelineDP pipeline on Apache Spark (local[2]) over 10^6 rows made on the fly.

Run explicitly, like the browser tests (`pytest tests/spark`, after `pip install -r requirements-spark.txt`;
.ci/run does it). Skipped, with the reason, when pyspark or a Java runtime is missing; under CI=true that
fails instead (tests/browser/ci_strict.py).

PipelineDP's noise and its contribution bounding draw from secure, unseedable randomness, so the checks are
the seed-independent invariants the chapter prints for the local run: every public partition is released, and
every count and sum lies within its simultaneous error bound (bounding spread by Hoeffding + Laplace tail),
which fails with probability below 2·10^-6.
"""

import math
import shutil

import numpy as np
import pytest
from ci_strict import skip_or_fail  # tests/browser/ci_strict.py, loaded by this folder's conftest.py

from dp_lib import CATEGORIES, contribution_envelope, make_rng, pipeline_dp_release, simulate_visits

try:
    import pyspark
except ImportError:
    pyspark = None
if pyspark is None:
    skip_or_fail("pyspark is not installed: pip install -r requirements-spark.txt", module=True)
if shutil.which("java") is None:
    skip_or_fail("no Java runtime on PATH (Spark needs one; .ci/run installs openjdk-17-jre-headless)", module=True)

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

ROWS = 1_000_000
EPSILON, L0, LINF, MAX_VALUE = 1.0, 2, 3, 100.0
FAILURE = 1e-6


@pytest.fixture(scope="module")
def spark_context():
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("dp-book-tests")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "2g")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    yield spark.sparkContext
    spark.stop()


@pytest.fixture(scope="module")
def log():
    return simulate_visits(np.arange(400_000), rng=make_rng(2026)).iloc[:ROWS]


def check_release(release, log):
    """Every public partition released; every count and sum within its simultaneous (1 - 2·FAILURE) bound."""
    env = contribution_envelope(log, "user", "category", "spend", partitions=CATEGORIES, max_partitions=L0,
                                max_per_partition=LINF, min_value=0.0, max_value=MAX_VALUE, failure=FAILURE)
    assert sorted(release) == sorted(CATEGORIES)
    tail = math.log(2 * len(CATEGORIES) / FAILURE)  # Laplace: P(|Z| > b·tail) = FAILURE / (2k) per value
    b_count, b_sum = L0 * LINF / (EPSILON / 2), L0 * LINF * MAX_VALUE / (EPSILON / 2)  # ε split over COUNT, SUM
    count = np.array([release[c].count for c in CATEGORIES])
    total = np.array([release[c].sum for c in CATEGORIES])
    assert np.all(np.abs(count - env["count_mean"]) <= env["count_slack"] + b_count * tail)
    assert np.all(np.abs(total - env["sum_mean"]) <= env["sum_slack"] + b_sum * tail)
    big = env["count_mean"].to_numpy() > 1000  # and the bound is not vacuous: big counts are within a few %
    assert np.all(np.abs(count[big] / env["count_mean"].to_numpy()[big] - 1) < 0.1)


def test_pipeline_on_spark_local_2(spark_context, log):
    import pipeline_dp
    rows = spark_context.parallelize(list(log.itertuples(index=False, name=None)), 8)
    result = pipeline_dp_release(rows, pipeline_dp.SparkRDDBackend(spark_context), partitions=CATEGORIES,
                                 epsilon=EPSILON, max_partitions=L0, max_per_partition=LINF, min_value=0.0,
                                 max_value=MAX_VALUE)
    check_release(dict(result.collect()), log)


def test_same_checks_pass_for_the_local_backend_on_a_slice(log):
    """The identical pipeline and checks on LocalBackend (10^5 rows, to keep the test short)."""
    import pipeline_dp
    part = log.iloc[:100_000]
    release = dict(pipeline_dp_release(list(part.itertuples(index=False, name=None)), pipeline_dp.LocalBackend(),
                                       partitions=CATEGORIES, epsilon=EPSILON, max_partitions=L0,
                                       max_per_partition=LINF, min_value=0.0, max_value=MAX_VALUE))
    check_release(release, part)
