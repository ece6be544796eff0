"""The shop log of the user-level chapter: a synthetic generator and the CSV loader (data, not mechanisms).

``data/visits.csv`` (shipped as ``dp_lib/datasets/visits.csv``) is written by
``data/make_visits.py`` with ``simulate_visits``; ``load_visits`` reads it back
and checks its columns. Bounding and the user-level mechanisms are in
``dp_lib.contributions``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .data import ADULT_PATH
from .random import check_rng

__all__ = ["VISITS_PATH", "CATEGORIES", "simulate_visits", "load_visits"]

VISITS_PATH = ADULT_PATH.with_name("visits.csv")  # shipped in dp_lib/datasets/, written by data/make_visits.py
CATEGORIES = (["books", "music", "garden", "kitchen", "toys", "sport", "health", "beauty", "tools", "games"]
              + [f"niche-{i:02d}" for i in range(1, 21)])
_WEIGHTS = np.r_[np.geomspace(1.0, 0.15, 10), np.geomspace(2e-3, 2e-5, 20)]
_COLUMNS = ("user", "category", "spend")


def simulate_visits(user_ids: ArrayLike, *, rng: np.random.Generator) -> pd.DataFrame:
    """A synthetic shop log: a heavy-tailed number of visits per user, each with a category and a spend.

    Each user makes 1 + ⌊Lomax(1.5)⌋ visits (capped at 2,000): most make one or two, a few
    make hundreds. Each user has a favourite category (drawn from a Zipf-like law over
    ``CATEGORIES``); a visit goes there with probability 0.6, otherwise to a category drawn
    from the same law. The spend is log-normal (median $20), rounded to cents.

    Parameters
    ----------
    user_ids : 1-d array-like of distinct identifiers (e.g. the Adult data's fake SSNs).
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    pandas DataFrame with columns "user", "category", "spend", one row per visit,
    grouped by user in the order of ``user_ids``.

    Privacy: none; it makes synthetic data (data/make_visits.py builds data/visits.csv with it).

    Used in: chapters/15_user_level.ipynb, through data/visits.csv (written by data/make_visits.py)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> log = simulate_visits(range(1000), rng=make_rng(1))
    >>> list(log.columns), bool(log.groupby("user").size().max() > 20)
    (['user', 'category', 'spend'], True)
    """
    rng = check_rng(rng)
    if isinstance(user_ids, (str, bytes, dict, set)) or not hasattr(user_ids, "__len__"):
        raise TypeError(f"user_ids must be a non-empty 1-d array of distinct identifiers, "
                        f"got {type(user_ids).__name__}")
    users = np.asarray(user_ids)
    if users.ndim != 1 or users.size == 0 or pd.Index(users).has_duplicates:
        raise ValueError("user_ids must be a non-empty 1-d array of distinct identifiers")
    n_visits = np.minimum(1 + np.floor(rng.pareto(1.5, users.size)), 2000).astype(np.int64)
    p = _WEIGHTS / _WEIGHTS.sum()
    favourite = rng.choice(len(CATEGORIES), size=users.size, p=p)
    owner = np.repeat(np.arange(users.size), n_visits)
    other = rng.choice(len(CATEGORIES), size=owner.size, p=p)
    category = np.where(rng.random(owner.size) < 0.6, favourite[owner], other)
    spend = np.round(np.exp(rng.normal(math.log(20.0), 1.0, owner.size)), 2)
    return pd.DataFrame({"user": users[owner], "category": np.asarray(CATEGORIES)[category], "spend": spend})


def load_visits(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """Return the shop log ``data/visits.csv``: one row per visit, keyed by the Adult data's fake SSN.

    Parameters
    ----------
    path : str or Path, optional; defaults to the shipped file, ``VISITS_PATH``.

    Returns
    -------
    pandas DataFrame with one row per visit (user, category, spend).

    Raises ``TypeError`` for a path that is not a str or Path, ``FileNotFoundError``
    for a missing file, and ``ValueError`` naming the file for an empty file or one
    without the columns user, category and spend.

    Privacy: none; this is the sensitive log that the user-level chapter protects.

    Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> load_visits().shape
    (84215, 3)
    """
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or Path) or None, got {path!r}")
    path = Path(path) if path is not None else VISITS_PATH
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; rebuild it with `python data/make_visits.py`")
    try:
        log = pd.read_csv(path, dtype={"user": str, "category": str, "spend": float})
    except pd.errors.EmptyDataError:
        raise ValueError(f"path: the visits file {path} is empty; rebuild it with "
                         "`python data/make_visits.py`") from None
    except ValueError as err:  # e.g. text in the spend column
        raise ValueError(f"path: the visits file {path} could not be read ({err})") from None
    missing = [c for c in _COLUMNS if c not in log.columns]
    if missing:
        raise ValueError(f"path: the visits file {path} has no column(s) {missing}; it needs {list(_COLUMNS)}")
    return log
