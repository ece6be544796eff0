"""The one validation contract of ``dp_lib``: every argument check lives here.

Each check returns the cleaned value or raises, naming the parameter: a wrong
TYPE raises ``TypeError`` (as Python and scikit-learn do) and a wrong VALUE of
the right type raises ``ValueError``, so bad input never turns into a silent
NaN, an ``OverflowError`` or a wrong answer. The contract, for every public
function:

- real scalars (``check_real``, ``check_positive``, ``check_epsilon``, ...):
  ints or floats; booleans, strings, ``None`` and arrays are the wrong type
  (TypeError); NaN, inf, values beyond float64 or outside the range are wrong
  values (ValueError);
- integers (``check_int``): ints (Python or numpy); booleans and floats are the
  wrong type, even 3.0 (TypeError);
- counts given as numbers or arrays (``check_whole_numbers``): a fraction such as
  2.5 is the wrong type (TypeError), integral floats such as 3.0 are accepted;
- arrays of numbers (``check_finite_array``): int, uint or float dtypes only;
  booleans, strings and objects that are not numbers are the wrong type;
  NaN, inf, a wrong shape or too few values are wrong values;
- ``size`` (``check_size``): ``None``, an int >= 0 or a tuple of them, as in numpy;
- choices (``check_choice``): one of a fixed tuple of strings (a non-string is a TypeError);
- flags (``check_bool``): ``True`` or ``False`` (numpy booleans too); 0, 1,
  ``"False"`` and ``None`` are the wrong type;
- tables (``check_dataframe``): a pandas DataFrame, not a list or a dict;
- public domains and candidate lists (``check_domain``): a non-empty sequence
  of distinct, hashable values, given in advance (never read off the data).

Output shaping (``scalar_or_array``, ``label_like``, ``refuse_overflow``) lives
in ``dp_lib.shaping``; the names stay importable from here for older imports.

Size: about 225 code lines, one module on purpose: it is the whole argument contract, read and changed in one
place (the scalar, integer, size, flag and choice checks share their TypeError/ValueError rule with the array,
domain and table checks; the output helpers already moved to ``dp_lib.shaping``).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from .shaping import label_like, refuse_overflow, scalar_or_array  # noqa: F401  (moved; kept importable)

__all__ = [
    "check_real",
    "check_features_labels",
    "check_epsilon",
    "check_delta",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_int",
    "check_size",
    "check_choice",
    "check_bool",
    "check_dataframe",
    "check_finite_array",
    "check_bool_array",
    "check_count_array",
    "check_whole_numbers",
    "check_domain",
    "check_same_length",
    "check_nonempty",
    "check_pq",
    "domain_positions",
    "MAX_INT",
]

#: Integers above 2**53 are not exact as float64, and every formula here works in float64: they are refused.
MAX_INT = 2**53


def _is_real(value: Any) -> bool:
    return not isinstance(value, (bool, np.bool_, np.complexfloating)) and isinstance(value, (Real, np.number))


def check_real(value: Any, name: str, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """Require a finite real number (TypeError for a bool, string, None or array) in [minimum, maximum]."""
    if type(value) is float and minimum is None and maximum is None and math.isfinite(value):
        return value  # the common case, without the abstract-base-class checks below
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r:.40}")
    try:
        x = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number representable as float64, got {value!r:.40}") from None
    if not math.isfinite(x) or (minimum is not None and x < minimum) or (maximum is not None and x > maximum):
        low = "-inf" if minimum is None else f"{minimum:g}"
        high = "inf" if maximum is None else f"{maximum:g}"
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value!r:.40}")
    return x


def _real_or_nan(value: Any, name: str) -> float:
    """``check_real``, with every wrong VALUE mapped to NaN (the caller words the ValueError)."""
    try:
        return check_real(value, name)
    except ValueError:
        return math.nan


def check_positive(value: Any, name: str) -> float:
    """Require a finite number > 0."""
    if not _real_or_nan(value, name) > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r:.40}")
    return float(value)


def check_nonnegative(value: Any, name: str) -> float:
    """Require a finite number >= 0."""
    if not _real_or_nan(value, name) >= 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r:.40}")
    return float(value)


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Require a privacy parameter epsilon in (0, inf)."""
    return check_positive(epsilon, name)


def check_delta(delta: Any, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Require delta in (0, 1), or [0, 1) when ``allow_zero``."""
    x = _real_or_nan(delta, name)
    if not ((x >= 0 if allow_zero else x > 0) and x < 1):
        raise ValueError(f"{name} must be in {'[0, 1)' if allow_zero else '(0, 1)'}, got {delta!r:.40}")
    return x


def check_probability(value: Any, name: str, *, low_open: bool = False, high_open: bool = False) -> float:
    """Require a probability in [0, 1] (ends optionally open)."""
    x = _real_or_nan(value, name)
    if not ((x > 0 if low_open else x >= 0) and (x < 1 if high_open else x <= 1)):
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise ValueError(f"{name} must be a probability in {interval}, got {value!r:.40}")
    return x


def check_int(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Require an integer (TypeError for a bool, float or string) in [minimum, maximum] (either end optional)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r:.40}")
    k = int(value)
    maximum = MAX_INT if maximum is None else min(maximum, MAX_INT)
    if (minimum is not None and k < minimum) or k > maximum:
        low = "-inf" if minimum is None else str(minimum)
        high = "2**53" if maximum == MAX_INT else str(maximum)
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r:.40}")
    return k


_MAX_ELEMENTS = 2**40  # a size beyond this cannot be allocated; refuse it with a message instead of a MemoryError


def check_size(size: Any, name: str = "size") -> tuple[int, ...] | None:
    """numpy's ``size``: None (one draw), an int >= 0 or a tuple of them. Returns None or a tuple."""
    if size is None:
        return None
    dims = size if isinstance(size, tuple) else (size,)
    if not all(isinstance(d, (Integral, np.integer)) and not isinstance(d, (bool, np.bool_)) for d in dims):
        raise TypeError(f"{name} must be None, an integer >= 0 or a tuple of them, got {size!r:.40}")
    if any(d < 0 for d in dims):
        raise ValueError(f"{name} must be None, an integer >= 0 or a tuple of them, got {size!r:.40}")
    shape = tuple(int(d) for d in dims)
    if math.prod(shape) > _MAX_ELEMENTS:
        raise ValueError(f"{name} must ask for at most 2**40 values, got {size!r:.40}")
    return shape


def check_choice(value: Any, name: str, choices: tuple) -> str:
    """Require one of ``choices`` (strings): TypeError for a non-string, ValueError for another string."""
    allowed = ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {allowed}; got {type(value).__name__} {value!r:.40}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {allowed}; got {value!r:.40}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """Require True or False (Python or numpy booleans; 0/1, "False" and None are a TypeError)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r:.40}")
    return bool(value)


def check_dataframe(value: Any, name: str) -> pd.DataFrame:
    """Require a pandas DataFrame (a list, dict or array is a TypeError)."""
    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(value).__name__}")
    return value


def check_finite_array(values: Any, name: str, *, ndim: int | None = None, allow_empty: bool = True,
                       min_size: int = 0) -> np.ndarray:
    """Return ``values`` as a float array: TypeError for non-numbers, ValueError for NaN, inf, shapes, sizes.

    Only int, uint and float data are numbers here: booleans, strings (even
    "1.0"), complex numbers and None are the wrong type; integers too large for
    float64 are a wrong value.
    """
    raw = _numeric_array(values, name)
    with np.errstate(over="ignore"):
        arr = raw if raw.dtype == np.float64 else raw.astype(float)  # no copy for float64 input
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional array, got shape {arr.shape}")
    if (not allow_empty or min_size > 0) and arr.size < max(min_size, 1):
        what = "must not be empty" if min_size <= 1 else f"must contain at least {min_size} values, got {arr.size}"
        raise ValueError(f"{name} {what}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf, nothing beyond float64)")
    return arr


def _numeric_array(values: Any, name: str) -> np.ndarray:
    """``values`` as an int/uint/float array, or a TypeError (ValueError for ragged or too-large numbers)."""
    if isinstance(values, (str, bytes, dict, set, frozenset)) or values is None:
        raise TypeError(f"{name} must be numeric (an array of finite real numbers), got {type(values).__name__}")
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a rectangular array of finite real numbers") from None
    if raw.dtype.kind == "O":
        raw = _object_numbers(raw, name)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric (an array of finite real numbers, not booleans or strings), "
                        f"got dtype {raw.dtype}")
    return raw


def _object_numbers(raw: np.ndarray, name: str) -> np.ndarray:
    """An object array (e.g. Python ints beyond int64, or a Series of objects) as float."""
    flat = raw.ravel()
    if not all(_is_real(v) for v in flat):
        raise TypeError(f"{name} must be numeric (an array of finite real numbers, not booleans or strings)")
    try:
        return np.array([float(v) for v in flat], dtype=float).reshape(raw.shape)
    except OverflowError:
        raise ValueError(f"{name} must contain only finite numbers representable as float64") from None


def check_bool_array(values: Any, name: str, ndim: int) -> np.ndarray:
    """A boolean array of the given ndim; 0/1 numbers are accepted, other numbers are a ValueError."""
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(f"{name} must be a {ndim}-dimensional boolean array, got {type(values).__name__}")
    arr = np.asarray(values)
    if arr.dtype != bool and arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must contain booleans (or 0/1), got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional boolean array, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if np.all((arr == 0) | (arr == 1)):
        return arr.astype(bool)
    raise ValueError(f"{name} must contain booleans (or 0/1)")


def check_count_array(values: Any, name: str = "counts") -> np.ndarray:
    """A non-empty 1-d array of non-negative integer counts (ints or integral floats), as int64."""
    c = check_finite_array(values, name, ndim=1, allow_empty=False)
    if np.any(c < 0) or np.any(c != np.round(c)) or np.any(c >= 2.0**62):
        raise ValueError(f"{name} must contain non-negative integers below 2**62")
    return c.astype(np.int64)


def check_whole_numbers(values: Any, name: str, *, maximum: float | None = None) -> np.ndarray:
    """Counts in [0, maximum]: an int or float (or an array of them) without a fraction, as a float array.

    A fraction (2.5) is the wrong type for a count (TypeError, as ``check_int`` refuses a float);
    integral floats such as 3.0 or a float array of counts are accepted. Booleans and strings are a
    TypeError; NaN, inf, a negative count or one above ``maximum`` is a ValueError.
    """
    c = check_finite_array(values, name)
    if not np.all(c == np.round(c)):
        raise TypeError(f"{name} must be whole numbers (counts), not fractions, got {values!r:.60}")
    if np.any(c < 0) or (maximum is not None and np.any(c > maximum)):
        high = "inf" if maximum is None else str(maximum)
        raise ValueError(f"{name} must be in [0, {high}], got {values!r:.60}")
    return c


def check_domain(domain: Any, name: str = "domain", *, minimum: int = 1, as_index: bool = True) -> Any:
    """A public domain or candidate list: >= ``minimum`` distinct hashable values, as a pandas Index.

    A string is refused (it would be read as a list of characters), as are
    sets (no fixed order) and dicts: TypeError. Missing values (NaN/None cannot
    be told apart), duplicates and too few values: ValueError. With
    ``as_index=False`` a short list or tuple is checked with a Python set
    (faster for the few candidates of a selection) and returned as it is.
    """
    if isinstance(domain, (str, bytes, set, frozenset, dict)) or not hasattr(domain, "__len__"):
        raise TypeError(f"{name} must be a sequence (list, tuple, array or Index) of values, got {domain!r:.80}")
    if isinstance(domain, (np.ndarray, pd.DataFrame)) and domain.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {domain.shape}")
    short = not as_index and isinstance(domain, (list, tuple)) and len(domain) <= 1000
    try:
        values = domain if short else (domain if isinstance(domain, pd.Index) else
                                       pd.Index(list(domain), tupleize_cols=False))
        distinct = len(set(values)) if short else (len(values) if values.is_unique else -1)
    except TypeError:
        raise TypeError(f"{name} must contain hashable values") from None
    if len(values) < minimum:
        raise ValueError(f"{name} must not be empty" if minimum == 1 and len(values) == 0 else
                         f"{name} must have at least {minimum} value(s), got {len(values)}")
    if (values.hasnans if not short else any(v is None or (isinstance(v, float) and v != v) for v in values)):
        raise ValueError(f"{name} must not contain missing values (NaN or None)")
    if distinct != len(values):
        raise ValueError(f"{name} must not contain duplicates")
    return values


def check_nonempty(values: Any, name: str) -> None:
    """Require a sequence or array with at least one element."""
    try:
        n = len(values)
    except TypeError:
        raise TypeError(f"{name} must be a sequence, got {values!r:.80}") from None
    if n == 0:
        raise ValueError(f"{name} must not be empty")


def check_same_length(a: Any, b: Any, name_a: str, name_b: str) -> None:
    """Require two sequences of equal length."""
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")


def check_pq(p: Any, q: Any, *, finite_epsilon: bool = False) -> tuple[float, float]:
    """Require 0 <= q < p <= 1 (the estimator is defined), or 0 < q < p < 1 (epsilon is finite).

    p = 1 and q = 0 are the float limits of very large epsilon (e.g. ``krr_params(50, 3)``
    rounds p to 1.0), so samplers and estimators accept them; ``unary_epsilon`` does not.
    """
    p = check_probability(p, "p", low_open=finite_epsilon, high_open=finite_epsilon)
    q = check_probability(q, "q", low_open=finite_epsilon, high_open=finite_epsilon)
    if p <= q:
        raise ValueError(f"p must be greater than q, got p={p!r}, q={q!r}: with p <= q a report says "
                         "nothing (p = q) or the opposite (p < q), and (C - nq)/(p - q) is undefined")
    return p, q


def domain_positions(values: Any, index: pd.Index, name: str = "values") -> np.ndarray:
    """Position of each value in a checked domain (``check_domain``); values outside the domain are refused."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    pos = index.get_indexer(arr)
    if np.any(pos < 0):
        bad = arr[pos < 0][:3].tolist()
        raise ValueError(f"{name} must lie in the domain; found {bad} (missing values must be dropped "
                         "or given their own domain value first)")
    return pos


def check_features_labels(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return a finite, non-empty 2-d feature array ``X`` and its 0/1 labels ``y`` (same length) as floats."""
    X = check_finite_array(X, "X", ndim=2, allow_empty=False)
    y = check_finite_array(y, "y", ndim=1)
    check_same_length(X, y, "X", "y")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only the labels 0 and 1")
    return X, y
