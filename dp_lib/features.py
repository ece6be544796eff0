"""Adult feature engineering for the private-learning chapter: per-record maps with public bounds (data, not training).

Every record is mapped on its own with public constants (census bounds, a
fixed list of relationships, a hash of the record's own SSN for the split),
so preprocessing spends no privacy budget. Training lives in
``dp_lib.learning``; the logistic model's loss and gradients in
``dp_lib.logistic``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .data import load_adult, ssn_numbers

__all__ = ["NUMERIC_BOUNDS", "RELATIONSHIPS", "AdultFeatures", "holdout_mask", "adult_features"]

# Public bounds (from the census documentation, not from the data): values are clipped to them, then mapped to [-1, 1].
NUMERIC_BOUNDS = {
    "Age": (17.0, 90.0),                        # the extract keeps ages > 16; 90 is the census top code
    "Education-Num": (1.0, 16.0),               # the 16 education levels
    "Hours per week": (1.0, 99.0),              # 99 is the top code
    "Capital Gain": (0.0, math.log1p(99_999)),  # log(1 + dollars); 99,999 is the top code
    "Capital Loss": (0.0, math.log1p(99_999)),  # same public dollar cap
}
RELATIONSHIPS = ("Husband", "Wife", "Own-child", "Unmarried", "Not-in-family", "Other-relative")
_LOG_COLUMNS = ("Capital Gain", "Capital Loss")
_HOLDOUT_BUCKETS = 5  # a record is in the test set when hash(SSN) mod 5 == 0: about 20 %


class AdultFeatures(NamedTuple):
    """Design matrices and labels of the fixed train/test split (see ``adult_features``).

    Privacy: none; public-bound features of the sensitive data.

    Used in: chapters/11_private_learning.ipynb, through ``adult_features``

    Examples
    --------
    >>> AdultFeatures._fields[:2]
    ('X_train', 'X_test')
    """

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    feature_names: tuple


def holdout_mask(ssn: ArrayLike) -> np.ndarray:
    """True for the records of the test set: splitmix64(SSN digits) mod 5 == 0.

    The split depends on each record alone, never on the other rows, so
    adding or removing a person moves nobody else between the two sets.

    Privacy: none by itself; a per-record rule, so the split leaks nothing about other records.

    Used in: chapters/11_private_learning.ipynb, through ``adult_features``

    Examples
    --------
    >>> holdout_mask(["161-03-5439", "813-91-2255"]).tolist()
    [False, True]
    """
    x = ssn_numbers(ssn).astype(np.uint64)
    x = x + np.uint64(0x9E3779B97F4A7C15)  # splitmix64 finaliser; uint64 arithmetic wraps
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return x % np.uint64(_HOLDOUT_BUCKETS) == 0


def _design(adult: pd.DataFrame) -> AdultFeatures:
    cols = {"intercept": np.ones(len(adult))}
    for name, (lo, hi) in NUMERIC_BOUNDS.items():
        v = adult[name].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            v = np.log1p(np.maximum(v, 0)) if name in _LOG_COLUMNS else v
        scaled = 2 * (np.clip(v, lo, hi) - lo) / (hi - lo) - 1
        cols[name] = np.where(np.isnan(scaled), 0.0, scaled)  # a missing value: the centre of the public range
    for r in RELATIONSHIPS:
        cols[f"Relationship={r}"] = (adult["Relationship"] == r).to_numpy(dtype=float)
    X = np.column_stack(list(cols.values()))
    y = (adult["Target"] == ">50K").to_numpy(dtype=float)
    test = holdout_mask(adult["SSN"])
    return AdultFeatures(X[~test], X[test], y[~test], y[test], tuple(cols))


@lru_cache(maxsize=1)
def _default_features() -> AdultFeatures:
    return _design(load_adult())


def adult_features(adult: pd.DataFrame | None = None) -> AdultFeatures:
    """Logistic-regression features of the Adult data, split into train and test sets.

    Columns: an intercept (1); Age, Education-Num, Hours per week, and
    log(1 + Capital Gain/Loss), each clipped to its public bound in
    ``NUMERIC_BOUNDS`` and mapped linearly to [-1, 1]; a one-hot encoding of
    Relationship over the public list ``RELATIONSHIPS``. So every row has
    L2 norm at most sqrt(7). The label is 1 for Target ">50K". The split is
    ``holdout_mask(SSN)``: 6,460 test and 26,101 training rows of the full data.
    A missing (NaN) numeric value becomes 0, the centre of its public range,
    for every record alike (±inf is clipped to the bound): no NaN ever
    reaches the features.

    Parameters
    ----------
    adult : DataFrame with the Adult columns, optional; defaults to ``load_adult()`` (cached).

    Returns
    -------
    AdultFeatures(X_train, X_test, y_train, y_test, feature_names), fresh arrays.

    Privacy: none spent: each row is mapped on its own with public constants
    (scaling by the data's own min/max would make one person's features depend
    on everyone else's values).

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> data = adult_features()
    >>> data.X_train.shape, data.X_test.shape
    ((26101, 12), (6460, 12))
    """
    if adult is None:
        cached = _default_features()
        return AdultFeatures(*(a.copy() for a in cached[:4]), cached.feature_names)
    if not isinstance(adult, pd.DataFrame):
        raise TypeError(f"adult must be a pandas DataFrame or None, got {type(adult).__name__}")
    missing = [c for c in [*NUMERIC_BOUNDS, "Relationship", "Target", "SSN"] if c not in adult.columns]
    if missing:
        raise ValueError(f"adult must have the Adult columns; missing {missing}")
    return _design(adult)
