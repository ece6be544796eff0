"""The user-level chapter's PipelineDP pipeline, wrapped: checks first, then PipelineDP, numpy's global state restored.

PipelineDP bounds contributions itself and draws its Laplace noise from
Google's differential-privacy library (secure, not seedable); its partition
sampling uses numpy's *global* RandomState, which this wrapper saves and
restores so that calling it changes nothing else in the program.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from .validation import check_domain, check_epsilon, check_int, check_real

__all__ = ["pipeline_dp_release"]


def pipeline_dp_release(rows: Any, backend: Any, *, partitions: Sequence[Any], epsilon: float, max_partitions: int,
                        max_per_partition: int, min_value: float, max_value: float) -> Any:
    """The chapter's PipelineDP pipeline: user-level COUNT and SUM per public partition.

    ``rows`` are (user, partition, value) tuples in any collection the backend accepts
    (a list for ``pipeline_dp.LocalBackend()``, an RDD for ``pipeline_dp.SparkRDDBackend(sc)``).
    PipelineDP splits ε evenly between COUNT and SUM, bounds contributions itself and draws
    Laplace noise from Google's differential-privacy library (secure, cannot be seeded).

    Parameters
    ----------
    rows : collection of (user, partition, value) tuples accepted by ``backend``.
    backend : a PipelineDP backend (``LocalBackend()`` or ``SparkRDDBackend(sc)``).
    partitions : the public partitions.
    epsilon : float > 0, split evenly between COUNT and SUM.
    max_partitions, max_per_partition : ints ≥ 1, the bounds L0 and L∞.
    min_value, max_value : floats, the clamping range of the values.

    Returns
    -------
    For ``LocalBackend``: a list of (partition, MetricsTuple(count, sum)), computed here (so
    that numpy's global RandomState, which PipelineDP's sampling uses, is restored
    afterwards). For other backends: the backend's lazy collection (budget already computed);
    their work runs in other processes.

    Everything is checked before PipelineDP is called: ``rows`` must be a list or tuple of
    (user, partition, value) tuples for ``LocalBackend`` (a collection of the backend otherwise),
    ``backend`` a PipelineDP backend, ``partitions`` non-empty and distinct, ``min_value <=
    max_value`` real numbers (TypeError for booleans and strings). A missing value (NaN) in the
    private data is replaced by 0 clamped into [min_value, max_value], for every row alike,
    before bounding: never an exception, never ``sum = nan``.

    Privacy: ε-DP for user-level add/remove neighbours (PipelineDP's contract).

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> import pipeline_dp
    >>> out = dict(pipeline_dp_release([(1, "a", 3.0)] * 5, pipeline_dp.LocalBackend(), partitions=["a"],
    ...                                epsilon=1.0, max_partitions=1, max_per_partition=1, min_value=0.0,
    ...                                max_value=5.0))
    >>> sorted(out), out["a"]._fields
    (['a'], ('count', 'sum'))
    """
    import pipeline_dp

    check_epsilon(epsilon)
    l0 = check_int(max_partitions, "max_partitions", minimum=1)
    linf = check_int(max_per_partition, "max_per_partition", minimum=1)
    low, high = _value_range(min_value, max_value)
    keys = list(check_domain(partitions, "partitions"))
    if not isinstance(backend, pipeline_dp.PipelineBackend):
        raise TypeError(f"backend must be a PipelineDP backend (LocalBackend(), SparkRDDBackend(sc)), "
                        f"got {backend!r:.60}")
    local = isinstance(backend, pipeline_dp.LocalBackend)
    if local:
        _check_local_rows(rows)
    fill = min(max(0.0, low), high)  # what a missing value becomes
    cleaned = backend.map(rows, lambda r: (r[0], r[1], fill if r[2] != r[2] else r[2]), "Replace missing values")
    saved = np.random.get_state()  # PipelineDP samples with numpy's global RandomState: restore it afterwards
    try:
        accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=float(epsilon), total_delta=0)
        engine = pipeline_dp.DPEngine(accountant, backend)
        params = pipeline_dp.AggregateParams(
            noise_kind=pipeline_dp.NoiseKind.LAPLACE, metrics=[pipeline_dp.Metrics.COUNT, pipeline_dp.Metrics.SUM],
            max_partitions_contributed=l0, max_contributions_per_partition=linf, min_value=low, max_value=high)
        extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda r: r[0],
                                                partition_extractor=lambda r: r[1], value_extractor=lambda r: r[2])
        result = engine.aggregate(cleaned, params, extractors, public_partitions=keys)
        accountant.compute_budgets()
        return list(result) if local else result
    finally:
        np.random.set_state(saved)


def _value_range(min_value: Any, max_value: Any) -> tuple[float, float]:
    low, high = check_real(min_value, "min_value"), check_real(max_value, "max_value")
    if not (low <= high and math.isfinite(high - low)):
        raise ValueError(f"min_value and max_value must satisfy min_value <= max_value with a finite width, "
                         f"got {min_value!r}, {max_value!r}")
    return low, high


def _check_local_rows(rows: Any) -> None:
    """LocalBackend's rows: a list or tuple of (user, partition, value) with a real-number value (NaN allowed)."""
    if not isinstance(rows, (list, tuple)):
        raise TypeError(f"rows must be a list of (user, partition, value) tuples for LocalBackend, got "
                        f"{type(rows).__name__}")
    for row in rows:
        if not isinstance(row, (tuple, list)) or len(row) != 3:
            raise ValueError(f"rows must hold (user, partition, value) tuples, found {row!r:.60}")
        if isinstance(row[2], (bool, np.bool_, str, bytes)) or not isinstance(row[2], (Real, np.number)):
            raise TypeError(f"rows: every value must be a real number, found {row[2]!r:.40} in {row!r:.60}")
