"""Sample-and-aggregate: any function of the data, made private through a fixed partition.

Each record's chunk is decided by the record alone (a hash of its key), so
adding or removing a row changes one chunk; each chunk's answer is clipped to
[lower, upper] and the mean of the k answers gets Lap((upper - lower)/(k ε)).
Defined beside the other tools of chapters/07_local_sensitivity.ipynb in ``dp_lib.sensitivity``.
"""

from __future__ import annotations

from collections.abc import Callable
import math

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .noise import check_noise_range, sample_laplace
from .random import check_rng
from .validation import check_epsilon, check_finite_array, check_int, check_size, scalar_or_array

__all__ = ["hash_chunks", "contiguous_chunk_count", "chunk_answers", "sample_and_aggregate"]


def hash_chunks(keys: ArrayLike | None, k: int) -> np.ndarray:
    """Chunk label in 0..k-1 of each record: a stable 64-bit hash of its key, modulo k.

    The label depends on the record's own key only, so adding or removing a
    record changes exactly one chunk. The hash (pandas' SipHash with a fixed
    key) is the same in every process.

    Privacy: none; a data-independent partition, as parallel composition needs.

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> labels = hash_chunks(np.arange(10_000), 4)
    >>> np.bincount(labels).tolist()  # about 2500 each
    [2410, 2561, 2456, 2573]
    """
    k = check_int(k, "k", minimum=1)
    if isinstance(keys, (str, bytes, dict, set)) or not hasattr(keys, "__len__"):
        raise TypeError(f"keys must be a 1-dimensional array of identifiers, got {type(keys).__name__}")
    keys = np.asarray(keys)
    if keys.ndim != 1:
        raise ValueError(f"keys must be a 1-dimensional array, got shape {keys.shape}")
    if keys.size == 0:
        return np.zeros(0, dtype=np.int64)
    return (pd.util.hash_array(keys) % np.uint64(k)).astype(np.int64)


def contiguous_chunk_count(n: int, k: int) -> int:
    """Chunks made by the slip ``[x[i:i + m] for i in range(0, n, m)]`` with m = ceil(n/k): ceil(n/m).

    Often fewer than k, so noise calibrated to k understates ε by k / count.

    Privacy: none; a diagnostic of a common slip.

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> contiguous_chunk_count(32561, 600), contiguous_chunk_count(32561, 6000)
    (593, 5427)
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=1, maximum=n)
    return -(-n // -(-n // k))


def _one_number(answer):
    try:
        return float(answer)
    except (TypeError, ValueError):
        raise ValueError(f"f must return one number per chunk, got {answer!r}") from None


def chunk_answers(values: ArrayLike, f: Callable[[np.ndarray], float] | str, k: int, lower: float, upper: float, *,
                  keys: ArrayLike | None = None, default: float | None = None) -> np.ndarray:
    """The k clipped chunk answers clip(f(chunk_j), lower, upper) of sample-and-aggregate.

    Chunk j holds the records whose ``hash_chunks(keys, k)`` is j (``keys``
    defaults to the row index). An empty chunk, or a non-finite f, gives
    ``default`` (midpoint of [lower, upper] unless set). f = ``np.mean`` or
    ``"mean"`` uses a vectorized path (np.bincount); any other f is called once
    per non-empty chunk.

    Parameters
    ----------
    values : 1-d array of finite numbers (may be empty: every chunk then answers ``default``).
    f : callable taking a 1-d array (one chunk) and returning a number, or "mean".
    k : int >= 1, the fixed number of chunks (chunks left empty answer ``default``).
    lower, upper : floats with lower < upper, the clipping range of the answers.
    keys : optional 1-d array, one identifier per value.
    default : optional float, the answer of an empty chunk.

    Returns
    -------
    numpy array of k floats in [lower, upper].

    Privacy: none by itself; each answer depends on its own chunk only.

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> chunk_answers([10.0, 20.0, 30.0, 40.0], "mean", 1, 0, 100).tolist()
    [25.0]
    >>> chunk_answers([10.0, 20.0, 30.0, 40.0], np.median, 3, 0, 100).size
    3
    """
    x = check_finite_array(values, "values", ndim=1)
    k = check_int(k, "k", minimum=1, maximum=2**31)  # k > len(values) is allowed: the empty chunks answer default
    lo = float(check_finite_array(lower, "lower", ndim=0))
    hi = float(check_finite_array(upper, "upper", ndim=0))
    if not lo < hi or not np.isfinite(hi - lo):
        raise ValueError(f"lower must be < upper with a finite difference upper - lower, got lower={lower!r}, "
                         f"upper={upper!r}")
    fill = (lo + hi) / 2 if default is None else float(check_finite_array(default, "default", ndim=0))
    if keys is None:
        keys = np.arange(x.size)
    elif isinstance(keys, (str, bytes)) or np.ndim(keys) != 1:
        raise ValueError(f"keys must be a 1-dimensional array, one identifier per value, got {keys!r:.60}")
    if len(keys) != x.size:
        raise ValueError(f"keys must have one entry per value, got {len(keys)} keys for {x.size} values")
    labels = hash_chunks(keys, k)
    counts = np.bincount(labels, minlength=k)
    if f is np.mean or (isinstance(f, str) and f == "mean"):
        with np.errstate(invalid="ignore", divide="ignore"):
            answers = np.bincount(labels, weights=x, minlength=k) / counts
    elif callable(f):
        order = np.argsort(labels, kind="stable")
        pieces = np.split(x[order], np.cumsum(counts)[:-1])
        answers = np.array([_one_number(f(p)) if p.size else np.nan for p in pieces])
    elif isinstance(f, str):
        raise ValueError(f"f must be a callable of one chunk or 'mean', got {f!r}")
    else:
        raise TypeError(f"f must be a callable of one chunk or 'mean', got {f!r}")
    answers = np.where(np.isfinite(answers), answers, fill)
    return np.clip(answers, lo, hi)


def sample_and_aggregate(values: ArrayLike, f: Callable[[np.ndarray], float] | str, k: int, lower: float, upper: float,
                         epsilon: float, *, rng: np.random.Generator, keys: ArrayLike | None = None,
                         default: float | None = None,
                         size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
    """Sample-and-aggregate: mean of k clipped chunk answers + Lap((upper - lower)/(kε)).

    Records go to exactly k chunks by a hash of their key (``keys``, e.g. the
    SSN column). Without ``keys`` the row index 0, 1, 2, ... is hashed instead,
    and the guarantee below then needs the row index to be a stable, public
    identifier of each record: for a table read from a file it is not (removing
    a row renumbers every later row, moving many records between chunks), so
    pass a real identifier. See ``chunk_answers`` for f and ``default``.
    ``size`` gives that many independent runs on the same chunks.

    Parameters
    ----------
    values, f, k, lower, upper, keys, default : as in ``chunk_answers``.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).
    size : None or int >= 1, the number of independent runs.

    Returns
    -------
    float, or an array of ``size`` floats.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for add/remove-one neighbours, when each record's key is fixed by the record alone: with ``keys``, or with
    keys=None valid only if the row index is a stable, public identifier (never renumbered when a record is added
    or removed). Then one record changes one chunk answer by at most upper - lower, the mean by (upper - lower)/k
    (disjoint, data-independent chunks).

    Defined in: chapters/07_local_sensitivity.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> ages = np.tile([30.0, 40.0, 50.0], 1000)
    >>> round(sample_and_aggregate(ages, np.median, 100, 0, 100, 1.0, rng=make_rng(2024)), 0)
    40.0
    """
    answers = chunk_answers(values, f, k, lower, upper, keys=keys, default=default)
    scale = (float(upper) - float(lower)) / answers.size / check_epsilon(epsilon)
    if not 0 < scale < math.inf:
        raise ValueError(f"epsilon must give a finite noise scale (upper - lower)/(k epsilon) > 0, got {epsilon!r}")
    check_noise_range(scale, max(abs(float(lower)), abs(float(upper))), name="epsilon, lower and upper")
    noise = sample_laplace(scale, size=check_size(size), rng=check_rng(rng))
    return scalar_or_array(answers.mean() + noise)
