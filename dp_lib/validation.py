"""The one validation contract of ``dp_lib``: every argument check lives here.

Each check returns the cleaned value or raises ``ValueError`` naming the
parameter and its accepted range, so bad input never turns into a silent NaN,
an ``OverflowError`` or a wrong answer. The contract, for every public function:

- real scalars (``check_real``, ``check_positive``, ``check_epsilon``, ...):
  ints or floats, finite, representable as float64; booleans, strings and
  arrays are refused;
- integers (``check_int``): ints (Python or numpy), not booleans or floats;
- arrays of numbers (``check_finite_array``): int, uint or float dtypes only;
  booleans, strings and objects that are not numbers are refused;
- ``size`` (``check_size``): ``None``, an int >= 0 or a tuple of them, as in numpy;
- choices (``check_choice``): one of a fixed tuple of strings;
- switches (``check_bool``): ``True`` or ``False`` (numpy booleans too);
- public domains and candidate lists (``check_domain``): a non-empty sequence
  of distinct, hashable values, given in advance (never read off the data).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import pandas as pd

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
    "check_finite_array",
    "check_bool_array",
    "check_count_array",
    "check_domain",
    "check_same_length",
    "check_nonempty",
    "check_pq",
    "domain_positions",
    "scalar_or_array",
    "label_like",
    "refuse_overflow",
    "MAX_INT",
]

#: Integers above 2**53 are not exact as float64, and every formula here works in float64: they are refused.
MAX_INT = 2**53


def check_real(value, name: str, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """Require a finite real number (not a bool, string or array) in [minimum, maximum]; return it as a float."""
    if type(value) is float and minimum is None and maximum is None and math.isfinite(value):
        return value  # the common case, without the abstract-base-class checks below
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)) or isinstance(
            value, np.complexfloating):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    try:
        x = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number representable as float64, got {value!r}") from None
    if not math.isfinite(x) or (minimum is not None and x < minimum) or (maximum is not None and x > maximum):
        low = "-inf" if minimum is None else f"{minimum:g}"
        high = "inf" if maximum is None else f"{maximum:g}"
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value!r}")
    return x


def check_positive(value, name: str) -> float:
    """Require a finite number > 0."""
    try:
        x = check_real(value, name)
    except ValueError:
        x = math.nan
    if not x > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def check_nonnegative(value, name: str) -> float:
    """Require a finite number >= 0."""
    try:
        x = check_real(value, name)
    except ValueError:
        x = math.nan
    if not x >= 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Require a privacy parameter epsilon in (0, inf)."""
    return check_positive(epsilon, name)


def check_delta(delta, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Require delta in (0, 1), or [0, 1) when ``allow_zero``."""
    interval = "[0, 1)" if allow_zero else "(0, 1)"
    try:
        x = check_real(delta, name)
    except ValueError:
        raise ValueError(f"{name} must be in {interval}, got {delta!r}") from None
    if not ((x >= 0 if allow_zero else x > 0) and x < 1):
        raise ValueError(f"{name} must be in {interval}, got {delta!r}")
    return x


def check_probability(value, name: str, *, low_open: bool = False, high_open: bool = False) -> float:
    """Require a probability in [0, 1] (ends optionally open)."""
    interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
    try:
        x = check_real(value, name)
    except ValueError:
        raise ValueError(f"{name} must be a probability in {interval}, got {value!r}") from None
    if not ((x > 0 if low_open else x >= 0) and (x < 1 if high_open else x <= 1)):
        raise ValueError(f"{name} must be a probability in {interval}, got {value!r}")
    return x


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Require an integer in [minimum, maximum] (either end optional)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    k = int(value)
    maximum = MAX_INT if maximum is None else min(maximum, MAX_INT)
    if (minimum is not None and k < minimum) or k > maximum:
        low = "-inf" if minimum is None else str(minimum)
        high = "2**53" if maximum == MAX_INT else str(maximum)
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    return k


_MAX_ELEMENTS = 2**40  # a size beyond this cannot be allocated; refuse it with a message instead of a MemoryError


def check_size(size, name: str = "size"):
    """numpy's ``size``: None (one draw), an int >= 0 or a tuple of them. Returns None or a tuple."""
    if size is None:
        return None
    dims = size if isinstance(size, tuple) else (size,)
    try:
        shape = tuple(check_int(d, name, minimum=0) for d in dims)
    except ValueError:
        raise ValueError(f"{name} must be None, an integer >= 0 or a tuple of them, got {size!r}") from None
    if math.prod(shape) > _MAX_ELEMENTS:
        raise ValueError(f"{name} must ask for at most 2**40 values, got {size!r}")
    return shape


def check_choice(value, name: str, choices: tuple):
    """Require one of ``choices`` (strings); return it."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")
    return value


def check_bool(value, name: str) -> bool:
    """Require True or False (Python or numpy booleans; not 0/1)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_finite_array(values, name: str, *, ndim: int | None = None, allow_empty: bool = True,
                       min_size: int = 0) -> np.ndarray:
    """Return ``values`` as a float array, refusing non-numbers, NaN, inf, wrong shapes and small sizes.

    Only int, uint and float data are numbers here: booleans, strings (even
    "1.0"), complex numbers and integers too large for float64 are refused.
    """
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be numeric (an array of finite real numbers), got a string {values!r}")
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be numeric (an array of finite real numbers)") from None
    if raw.dtype.kind == "O":
        raw = _object_numbers(raw, name)
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be numeric (an array of finite real numbers, not booleans or strings), "
                         f"got dtype {raw.dtype}")
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


def check_bool_array(values, name: str, ndim: int) -> np.ndarray:
    """A boolean array of the given ndim; 0/1 numbers are accepted, anything else refused."""
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional boolean array, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf" and np.all((arr == 0) | (arr == 1)):
        return arr.astype(bool)
    raise ValueError(f"{name} must contain booleans (or 0/1), got dtype {arr.dtype}")


def check_count_array(values, name: str = "counts") -> np.ndarray:
    """A non-empty 1-d array of non-negative integer counts (ints or integral floats), as int64."""
    c = check_finite_array(values, name, ndim=1, allow_empty=False)
    if np.any(c < 0) or np.any(c != np.round(c)) or np.any(c >= 2.0**62):
        raise ValueError(f"{name} must contain non-negative integers below 2**62")
    return c.astype(np.int64)


def check_domain(domain, name: str = "domain", *, minimum: int = 1, as_index: bool = True):
    """A public domain or candidate list: >= ``minimum`` distinct hashable values, as a pandas Index.

    A string is refused (it would be read as a list of characters), as are
    sets (no fixed order) and missing values (NaN/None cannot be told apart).
    With ``as_index=False`` a short list or tuple is checked with a Python set
    (faster for the few candidates of a selection) and returned as it is.
    """
    if isinstance(domain, (str, bytes, set, frozenset, dict)) or not hasattr(domain, "__len__") or (
            isinstance(domain, (np.ndarray, pd.DataFrame)) and domain.ndim != 1):
        raise ValueError(f"{name} must be a sequence (list, tuple, array or Index) of values, got {domain!r:.80}")
    if not as_index and isinstance(domain, (list, tuple)) and len(domain) <= 1000:
        try:
            distinct = len(set(domain))
        except TypeError:
            raise ValueError(f"{name} must contain hashable values") from None
        if len(domain) < minimum:
            raise ValueError(f"{name} must not be empty" if minimum == 1 and len(domain) == 0 else
                             f"{name} must have at least {minimum} value(s), got {len(domain)}")
        if any(v is None or (isinstance(v, float) and v != v) for v in domain):
            raise ValueError(f"{name} must not contain missing values (NaN or None)")
        if distinct != len(domain):
            raise ValueError(f"{name} must not contain duplicates")
        return domain
    try:
        index = domain if isinstance(domain, pd.Index) else pd.Index(list(domain), tupleize_cols=False)
    except TypeError:
        raise ValueError(f"{name} must contain hashable values") from None
    if len(index) < minimum:
        raise ValueError(f"{name} must not be empty" if minimum == 1 and len(index) == 0 else
                         f"{name} must have at least {minimum} value(s), got {len(index)}")
    if index.hasnans:
        raise ValueError(f"{name} must not contain missing values (NaN or None)")
    try:
        unique = index.is_unique
    except TypeError:
        raise ValueError(f"{name} must contain hashable values") from None
    if not unique:
        raise ValueError(f"{name} must not contain duplicates")
    return index


def check_nonempty(values, name: str) -> None:
    """Require a sequence or array with at least one element."""
    try:
        n = len(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence, got {values!r:.80}") from None
    if n == 0:
        raise ValueError(f"{name} must not be empty")


def check_same_length(a, b, name_a: str, name_b: str) -> None:
    """Require two sequences of equal length."""
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")


def refuse_overflow(*names):
    """Decorator: a result beyond float64 (inf, NaN, OverflowError, ...) becomes a ValueError naming ``names``.

    For formulas whose exact value can exceed float64 at extreme but valid
    arguments: the caller gets a ValueError naming the parameters to change,
    never an ``inf`` or an arithmetic exception.
    """
    import functools

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


def _all_finite(out) -> bool:
    if isinstance(out, tuple):
        return all(_all_finite(o) for o in out)
    if isinstance(out, (pd.Series, pd.DataFrame)):
        out = out.to_numpy()
    arr = np.asarray(out)
    return arr.dtype.kind not in "fc" or bool(np.all(np.isfinite(arr)))


def check_pq(p, q, *, finite_epsilon: bool = False) -> tuple[float, float]:
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


def domain_positions(values, index: pd.Index, name: str = "values") -> np.ndarray:
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


def label_like(counts, arr):
    """Label ``arr`` (k or size x k) with the index of ``counts`` when that is a pandas Series (an output helper)."""
    if not isinstance(counts, pd.Series) or arr.ndim > 2:
        return arr
    return pd.Series(arr, index=counts.index) if arr.ndim == 1 else pd.DataFrame(arr, columns=counts.index)


def scalar_or_array(x):
    """Return a Python float for 0-d results and the array otherwise (the output convention of every sampler)."""
    return float(x) if np.ndim(x) == 0 else x


def _object_numbers(raw: np.ndarray, name: str) -> np.ndarray:
    """An object array (e.g. Python ints beyond int64, or a Series of objects) as float, or a ValueError."""
    flat = raw.ravel()
    if any(isinstance(v, (bool, np.bool_, str, bytes)) or not isinstance(v, (Real, np.number)) for v in flat):
        raise ValueError(f"{name} must be numeric (an array of finite real numbers, not booleans or strings)")
    try:
        return np.array([float(v) for v in flat], dtype=float).reshape(raw.shape)
    except OverflowError:
        raise ValueError(f"{name} must contain only finite numbers representable as float64") from None


def check_features_labels(X, y):
    """Return a finite, non-empty 2-d feature array ``X`` and its 0/1 labels ``y`` (same length) as floats."""
    X = check_finite_array(X, "X", ndim=2, allow_empty=False)
    y = check_finite_array(y, "y", ndim=1)
    check_same_length(X, y, "X", "y")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only the labels 0 and 1")
    return X, y
