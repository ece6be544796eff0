"""Shared argument checks for every public function in ``dp_lib``.

Each check raises ``ValueError`` naming the parameter and the accepted
range, so bad input never turns into a silent NaN or a wrong answer.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = [
    "check_epsilon",
    "check_delta",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_int",
    "check_finite_array",
    "check_same_length",
    "check_nonempty",
]


def _as_real(value, name: str) -> float:
    """Return ``value`` as a float, refusing booleans, strings and arrays."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    return float(value)


def check_positive(value, name: str) -> float:
    """Require a finite number > 0."""
    x = _as_real(value, name)
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def check_nonnegative(value, name: str) -> float:
    """Require a finite number >= 0."""
    x = _as_real(value, name)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Require a privacy parameter epsilon in (0, inf)."""
    return check_positive(epsilon, name)


def check_delta(delta, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Require delta in (0, 1), or [0, 1) when ``allow_zero``."""
    x = _as_real(delta, name)
    low_ok = x >= 0 if allow_zero else x > 0
    if not (math.isfinite(x) and low_ok and x < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be in {interval}, got {delta!r}")
    return x


def check_probability(value, name: str, *, low_open: bool = False, high_open: bool = False) -> float:
    """Require a probability in [0, 1] (ends optionally open)."""
    x = _as_real(value, name)
    ok = math.isfinite(x) and (x > 0 if low_open else x >= 0) and (x < 1 if high_open else x <= 1)
    if not ok:
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise ValueError(f"{name} must be a probability in {interval}, got {value!r}")
    return x


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Require an integer in [minimum, maximum] (either end optional)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    k = int(value)
    if (minimum is not None and k < minimum) or (maximum is not None and k > maximum):
        low = "-inf" if minimum is None else str(minimum)
        high = "inf" if maximum is None else str(maximum)
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    return k


def check_finite_array(values, name: str, *, ndim: int | None = None, allow_empty: bool = True) -> np.ndarray:
    """Return ``values`` as a float array, refusing NaN, inf, wrong shapes and (optionally) emptiness."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric (an array of finite real numbers)") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional array, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return arr


def check_nonempty(values, name: str) -> None:
    """Require a sequence or array with at least one element."""
    if len(values) == 0:
        raise ValueError(f"{name} must not be empty")


def check_same_length(a, b, name_a: str, name_b: str) -> None:
    """Require two sequences of equal length."""
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")
