"""User-level privacy on a log with many rows per person: contribution bounding and partition selection.

The unit of privacy is a *user*, not a row: neighbouring logs differ by all the
rows of one user. Bounding makes that tractable: keep at most ``max_partitions``
partitions per user (L0) and at most ``max_per_partition`` rows per user and
partition (L∞). Then one user moves at most L0 per-partition counts, each by at
most L∞, so the L1 sensitivity of the vector of counts is L0·L∞ (sums of values
clamped to [min_value, max_value]: L0·L∞·max(|min_value|, |max_value|)); its L2
sensitivity is √L0·L∞ (Wilson et al., PoPETs 2020, §3).

The rows kept are chosen by each user's own random draws, never by looking at
other users, so bounding is a per-user transformation and the sensitivity bound
holds for every pair of neighbouring logs.

One job: bounding and the mechanisms built on it. The shop log (generator and
loader) is ``dp_lib.visits``; the PipelineDP wrapper is
``dp_lib.pipelinedp_release``; their names stay importable from here.

A missing value (NaN) in a value column is replaced by 0 clamped into
[min_value, max_value], for every row alike, before bounding; ±inf is clamped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .mechanisms import laplace_mech, laplace_scale
from .noise import sample_laplace
from .pipelinedp_release import pipeline_dp_release  # noqa: F401  (the old import path)
from .random import check_rng
from .validation import (check_dataframe, check_delta, check_domain, check_finite_array, check_int, check_positive,
                         check_probability, check_real)
from .visits import CATEGORIES, VISITS_PATH, load_visits, simulate_visits  # noqa: F401  (the old import path)

__all__ = ["bound_contributions", "contribution_sensitivity", "contribution_envelope", "user_level_count",
           "user_level_sum", "partition_selection_threshold", "select_partitions"]


def _check_frame(df: Any, *columns: tuple[str, Any]) -> None:
    check_dataframe(df, "df")
    for name, column in columns:
        if column not in df.columns:
            raise ValueError(f"{name} must name a column of df, got {column!r}")


def bound_contributions(df: pd.DataFrame, user: str, partition: str, *, max_partitions: int, max_per_partition: int,
                        rng: np.random.Generator) -> pd.DataFrame:
    """Keep, per user, at most ``max_partitions`` partitions and ``max_per_partition`` rows in each.

    The chapter's per-user sampling, step by step: every row gets an independent
    uniform priority, and in each (user, partition) pair the L∞ rows with the
    smallest priorities are kept; every pair gets an independent uniform priority,
    and each user keeps the L0 pairs with the smallest. Keeping the k smallest of
    independent uniform priorities is a uniformly random k-subset, so the kept
    partitions are a uniformly random subset of the user's partitions and the kept
    rows a uniformly random subset of the user's rows there. Each user's choice
    uses that user's own draws only. Pairs are ordered by user and then partition
    (their codes in order of first appearance), so the draws are reproducible.

    Parameters
    ----------
    df : pandas DataFrame, one row per event.
    user, partition : column names of the privacy unit and of the group-by key.
    max_partitions : int >= 1, L0. max_per_partition : int >= 1, L∞.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    pandas DataFrame: the kept rows of ``df``, in their original order.

    Privacy: none by itself; a per-user transformation after which one user changes at
    most L0 partition counts by at most L∞ each (see ``contribution_sensitivity``).

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> log = pd.DataFrame({"user": [1, 1, 1, 1, 2], "page": ["a", "a", "a", "b", "a"]})
    >>> kept = bound_contributions(log, "user", "page", max_partitions=1, max_per_partition=2, rng=make_rng(0))
    >>> int(kept.groupby("user")["page"].nunique().max()), bool(kept.groupby(["user", "page"]).size().max() <= 2)
    (1, True)
    """
    _check_frame(df, ("user", user), ("partition", partition))
    l0 = check_int(max_partitions, "max_partitions", minimum=1)
    linf = check_int(max_per_partition, "max_per_partition", minimum=1)
    rng = check_rng(rng)
    rows = pd.DataFrame({"user": pd.factorize(df[user], use_na_sentinel=False)[0],
                         "partition": pd.factorize(df[partition], use_na_sentinel=False)[0]})
    # 1. L∞: a uniform priority per row; keep the L∞ smallest in each (user, partition) pair
    rows["row_priority"] = rng.random(len(rows))
    row_kept = rows.groupby(["user", "partition"])["row_priority"].rank(method="first") <= linf
    # 2. L0: a uniform priority per (user, partition) pair; keep each user's L0 smallest
    pairs = rows[["user", "partition"]].drop_duplicates().sort_values(["user", "partition"])
    pairs["pair_priority"] = rng.random(len(pairs))
    kept_pairs = pairs[pairs.groupby("user")["pair_priority"].rank(method="first") <= l0]
    pair_kept = pd.MultiIndex.from_frame(rows[["user", "partition"]]).isin(
        pd.MultiIndex.from_frame(kept_pairs[["user", "partition"]]))
    return df[row_kept.to_numpy() & pair_kept].copy()


def contribution_sensitivity(max_partitions: int, max_per_partition: int, max_value: float = 1.0) -> dict[str, float]:
    """Sensitivities of the per-partition counts (``max_value=1``) or sums after bounding.

    Parameters
    ----------
    max_partitions : int ≥ 1, L0, the partitions one user may touch.
    max_per_partition : int ≥ 1, L∞, the rows one user may add to a partition.
    max_value : float > 0, the largest |value| of one row (1 for counts).

    Returns
    -------
    dict with "L0" (partitions one user can change), "Linf" (the largest change in one
    partition: L∞·max_value), "L1" = L0·L∞·max_value and "L2" = √L0·L∞·max_value.

    Privacy: none (a formula); the bounds hold for user-level add/remove neighbours.

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> contribution_sensitivity(3, 2)
    {'L0': 3, 'Linf': 2.0, 'L1': 6.0, 'L2': 3.4641016151377544}
    """
    l0 = check_int(max_partitions, "max_partitions", minimum=1)
    linf = check_int(max_per_partition, "max_per_partition", minimum=1) * check_positive(max_value, "max_value")
    if not (math.isfinite(linf) and math.isfinite(l0 * linf)):
        raise ValueError(f"max_value must be small enough for a finite sensitivity L0·L∞·max_value, got {max_value!r}")
    return {"L0": l0, "Linf": linf, "L1": l0 * linf, "L2": math.sqrt(l0) * linf}


def contribution_envelope(df: pd.DataFrame, user: str, partition: str, value: str, *, partitions: Sequence[Any],
                          max_partitions: int, max_per_partition: int, min_value: float, max_value: float,
                          failure: float = 1e-06) -> pd.DataFrame:
    """Where a bounded per-partition count and clamped sum must lie, whatever the bounding draws.

    Each user's contribution to a partition is independent of the other users': a user with
    m partitions keeps each with probability p = min(1, L0/m), and then min(n, L∞) of its n
    rows. So the bounded count (sum) has the mean Σ p·min(n, L∞) (Σ p·min(n, L∞)/n·S, with S
    the user's clamped total) and, by Hoeffding's inequality over users, stays within
    ``*_slack`` of it except with probability ``failure``. That probability is per value: for
    all 2·len(partitions) counts and sums at once, pass ``failure`` divided by their number (a
    union bound). A release adds its noise on top: this lets a test check a library whose
    randomness cannot be seeded.

    Parameters
    ----------
    df : pandas DataFrame, the log.
    user, partition, value : column names.
    partitions : the public partitions.
    max_partitions, max_per_partition : ints ≥ 1, the bounds L0 and L∞.
    min_value, max_value : floats, the clamping range of ``value``.
    failure : float in (0, 1), the probability that one value (one count or one sum) leaves its bound.

    Returns
    -------
    pandas DataFrame indexed by ``partitions``: count_mean, count_slack, sum_mean, sum_slack.

    Privacy: none; it reads the raw data (for tests and teaching, never for a release).

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> log = pd.DataFrame({"user": [1, 1, 2], "page": ["a", "b", "a"], "spend": [5.0, 7.0, 1.0]})
    >>> contribution_envelope(log, "user", "page", "spend", partitions=["a", "b"], max_partitions=1,
    ...                       max_per_partition=1, min_value=0.0, max_value=10.0)["count_mean"].tolist()
    [1.5, 0.5]
    """
    _check_frame(df, ("user", user), ("partition", partition), ("value", value))
    l0 = check_int(max_partitions, "max_partitions", minimum=1)
    linf = check_int(max_per_partition, "max_per_partition", minimum=1)
    keys = check_domain(partitions, "partitions")
    public = df[df[partition].isin(keys)]
    low, high = check_real(min_value, "min_value"), check_real(max_value, "max_value")
    if not (low <= high and math.isfinite(high - low)):
        raise ValueError(f"min_value and max_value must satisfy min_value <= max_value with a finite width, "
                         f"got {min_value!r}, {max_value!r}")
    v = pd.Series(_clamped(public[value], low, high), index=public.index).sort_values()
    by_cell = v.groupby([public[user], public[partition]], sort=False)
    cell = pd.DataFrame({"n": by_cell.size(), "total": by_cell.sum(),
                         "low": v[by_cell.cumcount() < linf].groupby([public[user], public[partition]]).sum(),
                         "high": v[by_cell.cumcount(ascending=False) < linf].groupby(
                             [public[user], public[partition]]).sum()})
    p = np.minimum(1.0, l0 / cell.groupby(level=0)["n"].transform("size"))
    kept = cell["n"].clip(upper=linf)
    out = pd.DataFrame({"count_mean": p * kept, "count_range2": (kept * (p < 1)) ** 2,
                        "sum_mean": p * kept / cell["n"] * cell["total"],
                        "sum_range2": (cell["high"] - cell["low"] * (p == 1)) ** 2}).groupby(level=1).sum()
    out = out.reindex(keys, fill_value=0.0)
    failure = check_probability(failure, "failure", low_open=True, high_open=True)
    width = math.sqrt((math.log(2.0) - math.log(failure)) / 2)  # Hoeffding: ln(2/failure) without underflow
    return pd.DataFrame({"count_mean": out["count_mean"], "count_slack": np.sqrt(out["count_range2"]) * width,
                         "sum_mean": out["sum_mean"], "sum_slack": np.sqrt(out["sum_range2"]) * width})


def _clamped(values: pd.Series, low: float, high: float) -> np.ndarray:
    """A value column clamped to [low, high]; a missing value (NaN) becomes 0 clamped, for every row alike."""
    if values.dtype.kind not in "iuf":
        raise TypeError(f"df[value] must hold numbers, got dtype {values.dtype}")
    v = values.to_numpy(dtype=float)
    return np.clip(np.where(np.isnan(v), 0.0, v), low, high)


def _bounded(df: pd.DataFrame, user: str, partition: str, partitions: Any, l0: int, linf: int,
             rng: np.random.Generator, *extra: tuple[str, Any]) -> tuple[pd.Index, pd.DataFrame]:
    _check_frame(df, ("user", user), ("partition", partition), *extra)
    keys = check_domain(partitions, "partitions")
    public = df[df[partition].isin(keys)]  # a per-row filter by a public list: no privacy cost
    return keys, bound_contributions(public, user, partition, max_partitions=l0, max_per_partition=linf, rng=rng)


def user_level_count(df: pd.DataFrame, user: str, partition: str, *, partitions: Sequence[Any], max_partitions: int,
                     max_per_partition: int, epsilon: float, rng: np.random.Generator) -> pd.Series:
    """Noisy row count per public partition, ε-DP at the user level.

    Restricts ``df`` to the public ``partitions``, bounds contributions, counts rows per
    partition and adds Lap(L0·L∞/ε) to every count (zeros included).

    Parameters
    ----------
    df : pandas DataFrame, the log.
    user, partition : column names.
    partitions : the public partitions (fixed before looking at the data).
    max_partitions, max_per_partition : ints ≥ 1, the bounds L0 and L∞.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    pandas Series of noisy counts indexed by ``partitions``.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for user-level add/remove neighbours (all rows of one user): L1 sensitivity L0·L∞
    after bounding (Wilson et al. 2020).

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> log = pd.DataFrame({"user": [1, 1, 2], "page": ["a", "a", "b"]})
    >>> user_level_count(log, "user", "page", partitions=["a", "b", "c"], max_partitions=1,
    ...                  max_per_partition=1, epsilon=1.0, rng=make_rng(0)).index.tolist()
    ['a', 'b', 'c']
    """
    scale_sens = contribution_sensitivity(max_partitions, max_per_partition)["L1"]
    keys, kept = _bounded(df, user, partition, partitions, max_partitions, max_per_partition, check_rng(rng))
    counts = kept.groupby(partition).size().reindex(keys, fill_value=0).to_numpy(dtype=float)
    return pd.Series(laplace_mech(counts, scale_sens, epsilon, rng=rng), index=keys, name="noisy count")


def user_level_sum(df: pd.DataFrame, user: str, partition: str, value: str, *, partitions: Sequence[Any],
                   max_partitions: int, max_per_partition: int, min_value: float, max_value: float, epsilon: float,
                   rng: np.random.Generator) -> pd.Series:
    """Noisy sum of ``value`` (each row clamped to [min_value, max_value]) per public partition, ε-DP per user.

    Parameters
    ----------
    df : pandas DataFrame, the log.
    user, partition, value : column names.
    partitions : the public partitions.
    max_partitions, max_per_partition : ints ≥ 1, the bounds L0 and L∞.
    min_value, max_value : floats, each row's value is clamped to this range.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    pandas Series of noisy sums indexed by ``partitions``; noise Lap(L0·L∞·max(|min|, |max|)/ε).

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for user-level add/remove neighbours (Wilson et al. 2020).

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> log = pd.DataFrame({"user": [1, 1, 2], "page": ["a", "a", "b"], "spend": [5.0, 50.0, 1.0]})
    >>> user_level_sum(log, "user", "page", "spend", partitions=["a", "b"], max_partitions=1, max_per_partition=1,
    ...                min_value=0.0, max_value=10.0, epsilon=1.0, rng=make_rng(0)).shape
    (2,)
    """
    low, high = check_real(min_value, "min_value"), check_real(max_value, "max_value")
    if not low <= high or max(abs(low), abs(high)) == 0:
        raise ValueError(f"need min_value <= max_value, not both 0; got {min_value!r}, {max_value!r}")
    sens = contribution_sensitivity(max_partitions, max_per_partition, max(abs(low), abs(high)))["L1"]
    keys, kept = _bounded(df, user, partition, partitions, max_partitions, max_per_partition, check_rng(rng),
                          ("value", value))
    clamped = _clamped(kept[value], low, high)
    sums = pd.Series(clamped, index=kept.index).groupby(kept[partition]).sum().reindex(keys, fill_value=0.0)
    return pd.Series(laplace_mech(sums.to_numpy(), sens, epsilon, rng=rng), index=keys, name="noisy sum")


def partition_selection_threshold(epsilon: float, delta: float, max_partitions: int) -> tuple[float, float]:
    """Noise scale b = L0/ε and threshold τ = 1 + b·ln(L0/(2δ)) of Laplace thresholding.

    A partition that only the added user holds has user count 1 and passes with
    probability ½·exp(-(τ - 1)/b) = δ/L0; over the user's at most L0 partitions that is
    at most δ. (τ is floored at 1, where the pass probability ½ is at most δ.)

    Parameters
    ----------
    epsilon : float > 0.
    delta : float in (0, 1).
    max_partitions : int ≥ 1, L0.

    Returns
    -------
    (scale, threshold) : floats.

    Privacy: none (a formula); see ``select_partitions``.

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> b, tau = partition_selection_threshold(1.0, 1e-6, 1)
    >>> b, round(tau, 4)
    (1.0, 14.1224)
    """
    b = laplace_scale(check_int(max_partitions, "max_partitions", minimum=1), epsilon)
    tau = 1.0 + b * max(math.log(max_partitions) - math.log(2.0) - math.log(check_delta(delta)), 0.0)
    if not (math.isfinite(tau) and tau < 1e300):  # leaves room for Lap(b) noise on top without overflow
        raise ValueError(f"epsilon is too small for a finite threshold (max_partitions / epsilon = {b:g}), "
                         f"got epsilon={epsilon!r}")
    return b, tau


def select_partitions(counts_of_distinct_users: ArrayLike, epsilon: float, delta: float, max_partitions: int, *,
                      rng: np.random.Generator) -> np.ndarray | pd.Series:
    """Laplace thresholding: keep a partition iff its distinct-user count + Lap(L0/ε) exceeds τ.

    Parameters
    ----------
    counts_of_distinct_users : array-like or pandas Series of counts >= 0, computed after each
        user was bounded to at most ``max_partitions`` partitions.
    epsilon : float > 0. delta : float in (0, 1). max_partitions : int >= 1, L0.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    Boolean mask of the kept partitions (a Series with the same index for a Series input).

    Privacy: (ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for user-level add/remove neighbours: the noisy counts of partitions
    present in both logs are ε-DP (L1 sensitivity L0), and a partition only the added user
    holds is released with probability at most δ/L0 (Korolova et al. 2009; Wilson et al.
    2020; Desfontaines et al. 2022 give the optimal rule).

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> select_partitions([1, 5, 500], 1.0, 1e-6, 1, rng=make_rng(0)).tolist()
    [False, False, True]
    """
    counts = check_finite_array(counts_of_distinct_users, "counts_of_distinct_users", ndim=1)
    if np.any(counts < 0):
        raise ValueError("counts_of_distinct_users must be counts >= 0")
    b, tau = partition_selection_threshold(epsilon, delta, max_partitions)
    keep = counts + sample_laplace(b, size=counts.size, rng=check_rng(rng)) > tau
    if isinstance(counts_of_distinct_users, pd.Series):
        return pd.Series(keep, index=counts_of_distinct_users.index, name="kept")
    return keep
