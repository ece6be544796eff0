"""The UCI Adult census data with fake personal identifiers, and its public codebook.

The data files ship inside the package (``dp_lib/datasets/``, package data read
through ``importlib.resources``), so ``load_adult()`` works from an installed
wheel as well as from the repository; ``data/`` in the repository holds the
scripts that write them and their provenance and licence (``data/README.md``).

The codebook constants (``OCCUPATIONS``, ``MARITAL_STATUSES``, ``EDUCATION_LEVELS``, ``COUNTRIES``) are public
knowledge from the census documentation, never read off the data: they are
the domains and candidate sets of the chapters' mechanisms.
"""

from __future__ import annotations

import os
import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

__all__ = ["ADULT_PATH", "ADULT_SHA256", "ADULT_PUBLIC_SIZE_BOUND", "OCCUPATIONS", "MARITAL_STATUSES",
           "EDUCATION_LEVELS", "COUNTRIES", "load_adult", "ssn_numbers",
           "occupation_counts", "marital_status_counts", "count_older_than_40"]

#: The shipped Adult file, ``dp_lib/datasets/adult_with_pii.csv`` (package data; its neighbours in that folder are the
#: other data files: ``ADULT_PATH.with_name("public_roster.csv")``, ``"visits.csv"``, ``"dp_sgd_accuracy.csv"``,
#: ``"iterations_tradeoff.csv"``). A real path: dp_lib is installed unzipped (a wheel always is).
ADULT_PATH = Path(str(resources.files(__package__) / "datasets" / "adult_with_pii.csv")).resolve()
#: SHA-256 of the shipped ``adult_with_pii.csv``; ``load_adult()`` refuses a file that differs.
ADULT_SHA256 = "57c95bc5cd54056aee7bcb4e15e6c21c2c8491c3a83271e78258c634a79b1b3d"

#: The public domain of ``Occupation``: the 14 values listed in the UCI documentation, in its order.
OCCUPATIONS = (
    "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
    "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
    "Priv-house-serv", "Protective-serv", "Armed-Forces",
)
#: The public candidates of ``Marital Status``: the 7 values listed in the UCI documentation, in its order.
MARITAL_STATUSES = (
    "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed", "Married-spouse-absent",
    "Married-AF-spouse",
)
#: The public candidates of ``Education``: the 16 values listed in the UCI documentation, in its order.
EDUCATION_LEVELS = (
    "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm", "Assoc-voc", "9th", "7th-8th",
    "12th", "Masters", "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool",
)
#: The public candidates of ``Country`` (native country): the 41 values listed in the UCI documentation, in its order.
COUNTRIES = (
    "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany", "Outlying-US(Guam-USVI-etc)",
    "India", "Japan", "Greece", "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland",
    "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador",
    "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia",
    "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
)

_ROWS = 32561
#: A public upper bound on the number of people in the extract: the UCI documentation lists 48,842 records for the
#: whole Adult data (training and test files). Chapters derive δ from it (δ = 1/N²) instead of from the private n.
ADULT_PUBLIC_SIZE_BOUND = 48_842
_COLUMNS = [
    "Name", "DOB", "SSN", "Zip", "Age", "Workclass", "fnlwgt", "Education",
    "Education-Num", "Marital Status", "Occupation", "Relationship", "Race", "Sex",
    "Capital Gain", "Capital Loss", "Hours per week", "Country", "Target",
]
_NUMERIC = ["Age", "fnlwgt", "Education-Num", "Capital Gain", "Capital Loss", "Hours per week"]
_MAY_BE_MISSING = ("Workclass", "Occupation", "Country")  # "?" in the UCI file: missing by design
_REBUILD = ("reinstall dp_lib, or in the repository rebuild it with `python data/make_adult_with_pii.py` "
            "from the repository root")


@lru_cache(maxsize=4)
def _read_adult(path: Path, identity: tuple) -> pd.DataFrame:
    """Parse and check the file; ``identity`` (size, mtime, inode) is part of the cache key, so an edit re-reads it."""
    content = path.read_bytes()
    digest = hashlib.sha256(content).hexdigest()
    if path == ADULT_PATH and digest != ADULT_SHA256:
        raise ValueError(f"the Adult data file {path} is corrupted or modified: its SHA-256 checksum is {digest}, "
                         f"expected {ADULT_SHA256}; {_REBUILD}")
    try:
        df = pd.read_csv(path, dtype={"Zip": str}, keep_default_na=False, na_values=[""])
    except Exception as exc:  # a truncated or garbled file
        raise ValueError(f"the Adult data file {path} could not be read ({exc}); {_REBUILD}") from None
    if list(df.columns) != _COLUMNS or len(df) != _ROWS:
        raise ValueError(
            f"the Adult data file {path} is corrupted: expected {_ROWS} rows with columns "
            f"{_COLUMNS}, got {len(df)} rows with {list(df.columns)}; {_REBUILD}"
        )
    bad = [c for c in _NUMERIC if not pd.api.types.is_numeric_dtype(df[c]) or df[c].isna().any()]
    bad += [c for c in _COLUMNS if c not in _MAY_BE_MISSING and c not in _NUMERIC and df[c].isna().any()]
    if bad:
        raise ValueError(f"the Adult data file {path} is corrupted: columns {bad} must hold numbers (or, for "
                         f"text columns other than {list(_MAY_BE_MISSING)}, values) with no missing values "
                         f"(a cut-off last row or text in a number column); {_REBUILD}")
    return df


def load_adult(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """Return the Adult data (32,561 rows): 4 fake identifier columns, then the 15 UCI columns.

    The file is parsed once per process and cached; each call returns a copy,
    so a chapter that edits its DataFrame cannot change another's. The cache is
    keyed on the file's path, size, modification time and inode, so a changed
    file is read again. The shipped file must match ``ADULT_SHA256``; every
    file must have the 19 columns, 32,561 rows and numbers (no gaps) in the
    numeric columns.

    Parameters
    ----------
    path : str or Path, optional; defaults to the shipped file, ``ADULT_PATH``.

    Returns
    -------
    pandas DataFrame, a fresh copy.

    Privacy: none; this is the sensitive data set that the chapters protect.
    Name, DOB, SSN and Zip are synthetic (Faker), not real people.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> adult = load_adult()
    >>> adult.shape
    (32561, 19)
    """
    if path is not None and not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    resolved = Path(path).resolve() if path is not None else ADULT_PATH
    if not resolved.is_file():
        raise FileNotFoundError(f"the Adult data file {resolved} is missing; {_REBUILD}")
    st = resolved.stat()
    return _read_adult(resolved, (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)).copy()


def ssn_numbers(ssn: ArrayLike) -> np.ndarray:
    """The SSNs 'ddd-dd-dddd' as 9-digit integers (int64): a per-record key for hashing and splitting.

    Parameters
    ----------
    ssn : 1-d sequence (list, array or Series) of strings 'ddd-dd-dddd'.

    Returns
    -------
    numpy int64 array.

    Privacy: none; a per-record map (each key depends on its own record only).

    Used in: chapters/07_local_sensitivity.ipynb, through ``plot_saa_tradeoff`` (chunks keyed by SSN), and
    chapters/11_private_learning.ipynb, through ``holdout_mask``

    Examples
    --------
    >>> ssn_numbers(["161-03-5439", "813-91-2255"]).tolist()
    [161035439, 813912255]
    """
    if isinstance(ssn, (str, bytes)) or not hasattr(ssn, "__len__"):
        raise TypeError(f"ssn must be a 1-dimensional sequence of strings 'ddd-dd-dddd', got {ssn!r:.60}")
    if np.ndim(ssn) != 1:
        raise ValueError(f"ssn must be a 1-dimensional sequence of strings 'ddd-dd-dddd', got {ssn!r:.60}")
    s = pd.Series(np.asarray(ssn, dtype=object))
    if not s.map(lambda v: isinstance(v, str)).all():
        raise TypeError("ssn must contain strings of the form 'ddd-dd-dddd'")
    if not s.str.fullmatch(r"\d{3}-\d{2}-\d{4}").all():
        raise ValueError("ssn must contain strings of the form 'ddd-dd-dddd'")
    return s.str.replace("-", "", regex=False).astype(np.int64).to_numpy()


@lru_cache(maxsize=1)
def _occupation_counts() -> pd.Series:
    occ = load_adult()["Occupation"].dropna()
    return occ.value_counts().reindex(list(OCCUPATIONS), fill_value=0).rename("true count")


def occupation_counts() -> pd.Series:
    """True count per occupation in the Adult data (missing occupations dropped: n = 30 718).

    Computed once per process; each call returns a copy.

    Returns
    -------
    pandas Series indexed by ``OCCUPATIONS``.

    Privacy: none; these are the sensitive true counts, used to simulate surveys.

    Defined in: chapters/09_local_dp.ipynb

    Examples
    --------
    >>> int(occupation_counts().sum()), int(occupation_counts()["Sales"])
    (30718, 3650)
    """
    return _occupation_counts().copy()


@lru_cache(maxsize=1)
def _marital_status_counts():
    counts = load_adult()["Marital Status"].value_counts().reindex(list(MARITAL_STATUSES), fill_value=0)
    counts = counts.sort_values(ascending=False, kind="stable")
    return tuple(counts.index), counts.to_numpy(dtype=float)


def marital_status_counts() -> pd.Series:
    """(categories, counts) of ``Marital Status`` in the Adult data, largest first; cached.

    The 7 categories are the public ``MARITAL_STATUSES``; the counts are the
    private scores. Under add/remove-one neighbours they are monotone with Δ = 1.

    Returns
    -------
    (list of 7 categories, numpy array of 7 counts).

    Privacy: none; the sensitive true counts (the scores of the selection in chapters/04_exponential_mechanism.ipynb).

    Used in: chapters/04_exponential_mechanism.ipynb, through the selection figures (``dp_lib.plotting.selection``)

    Examples
    --------
    >>> categories, counts = marital_status_counts()
    >>> categories[0], int(counts.sum())
    ('Married-civ-spouse', 32561)
    """
    categories, counts = _marital_status_counts()
    return list(categories), counts.copy()


@lru_cache(maxsize=1)
def count_older_than_40() -> int:
    """The running counting query of chapters/01_why_privacy.ipynb, 02_laplace.ipynb and 05_auditing.ipynb: people in the Adult data older than 40.

    Returns
    -------
    int, the true count.

    Privacy: none; the true answer that the chapters then release with noise.

    Used in: chapters/02_laplace.ipynb, through the running example's figures (``dp_lib.plotting``)

    Examples
    --------
    >>> count_older_than_40()
    13443
    """
    return int((load_adult()["Age"] > 40).sum())
