"""Output shaping: how ``dp_lib``'s functions hand their results back.

One job, separate from the argument checks of ``dp_lib.validation``: a 0-d
result is a Python float, an array result keeps its shape (and the labels of a
pandas input), and a formula whose exact value leaves float64 at an extreme but
valid argument becomes a ``ValueError`` naming the parameters, never ``inf``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
import pandas as pd

__all__ = ["scalar_or_array", "label_like", "refuse_overflow"]


def scalar_or_array(x: Any) -> float | np.ndarray:
    """Return a Python float for 0-d results and the array otherwise (the output convention of every sampler)."""
    return float(x) if np.ndim(x) == 0 else x


def label_like(counts: Any, arr: np.ndarray) -> Any:
    """Label ``arr`` (k or size x k) with the index of ``counts`` when that is a pandas Series."""
    if not isinstance(counts, pd.Series) or arr.ndim > 2:
        return arr
    return pd.Series(arr, index=counts.index) if arr.ndim == 1 else pd.DataFrame(arr, columns=counts.index)


def refuse_overflow(*names: str) -> Callable:
    """Decorator: a result beyond float64 (inf, NaN, OverflowError, ...) becomes a ValueError naming ``names``.

    For formulas whose exact value can exceed float64 at extreme but valid
    arguments: the caller gets a ValueError naming the parameters to change,
    never an ``inf`` or an arithmetic exception.
    """
    def decorate(func):
        @functools.wraps(func)
        def guarded(*args, **kwargs):
            try:
                with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
                    out = func(*args, **kwargs)
            except (OverflowError, ZeroDivisionError) as err:
                raise ValueError(f"{', '.join(names)}: the result is beyond float64 ({err}); use less extreme "
                                 "values") from None
            if not _all_finite(out):
                raise ValueError(f"{', '.join(names)}: the result is beyond float64 (inf or NaN); use less extreme "
                                 "values")
            return out
        return guarded
    return decorate


def _all_finite(out: Any) -> bool:
    if isinstance(out, tuple):
        return all(_all_finite(o) for o in out)
    if isinstance(out, (pd.Series, pd.DataFrame)):
        out = out.to_numpy()
    arr = np.asarray(out)
    return arr.dtype.kind not in "fc" or bool(np.all(np.isfinite(arr)))
