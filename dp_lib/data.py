"""The UCI Adult census data with fake personal identifiers (``data/``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

__all__ = ["ADULT_PATH", "ADULT_PUBLIC_SIZE_BOUND", "load_adult"]

ADULT_PATH = Path(__file__).resolve().parents[1] / "data" / "adult_with_pii.csv"
_ROWS = 32561
#: A public upper bound on the number of people in the extract: the UCI documentation lists 48,842 records for the
#: whole Adult data (training and test files). Chapters derive δ from it (δ = 1/N²) instead of from the private n.
ADULT_PUBLIC_SIZE_BOUND = 48_842
_COLUMNS = [
    "Name", "DOB", "SSN", "Zip", "Age", "Workclass", "fnlwgt", "Education",
    "Education-Num", "Marital Status", "Occupation", "Relationship", "Race", "Sex",
    "Capital Gain", "Capital Loss", "Hours per week", "Country", "Target",
]
_REBUILD = "rebuild it with `python data/make_adult_with_pii.py` from the repository root"


@lru_cache(maxsize=4)
def _read_adult(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"the Adult data file {path} is missing; {_REBUILD}")
    try:
        df = pd.read_csv(path, dtype={"Zip": str}, keep_default_na=False, na_values=[""])
    except Exception as exc:  # a truncated or garbled file
        raise ValueError(f"the Adult data file {path} could not be read ({exc}); {_REBUILD}") from None
    if list(df.columns) != _COLUMNS or len(df) != _ROWS:
        raise ValueError(
            f"the Adult data file {path} is corrupted: expected {_ROWS} rows with columns "
            f"{_COLUMNS}, got {len(df)} rows with {list(df.columns)}; {_REBUILD}"
        )
    return df


def load_adult(path=None) -> pd.DataFrame:
    """Return the Adult data (32,561 rows): 4 fake identifier columns, then the 15 UCI columns.

    The file is parsed once per process and cached; each call returns a copy,
    so a chapter that edits its DataFrame cannot change another's.

    Parameters
    ----------
    path : str or Path, optional; defaults to ``data/adult_with_pii.csv``.

    Privacy: none; this is the sensitive data set that the chapters protect.
    Name, DOB, SSN and Zip are synthetic (Faker), not real people.

    Defined in: chapters/01_laplace.ipynb

    Examples
    --------
    >>> adult = load_adult()
    >>> adult.shape
    (32561, 19)
    """
    return _read_adult(Path(path).resolve() if path is not None else ADULT_PATH).copy()
