"""Build dp_lib/datasets/visits.csv: a synthetic shop log with many rows per person, keyed by the Adult data's SSNs.

Run from the repository root: ``python data/make_visits.py``. The log is
``dp_lib.simulate_visits`` applied to the 32,561 SSNs of
dp_lib/datasets/adult_with_pii.csv with the seed below; numpy and pandas are
pinned in requirements.txt, so the file is byte-identical on every rebuild (the
script checks its MD5, and ``tests/test_data.py`` re-runs ``render`` and
requires the shipped bytes).
"""

import hashlib
from pathlib import Path

from dp_lib import load_adult, make_rng, simulate_visits

SEED = 2010
MD5 = "2688a505fda503d5dceca20a17342391"
DATASETS = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets"  # dp_lib's package data
ADULT = DATASETS / "adult_with_pii.csv"
OUT = DATASETS / "visits.csv"


def render() -> str:
    """The log's text: one row per visit (user, category, spend with two decimals)."""
    log = simulate_visits(load_adult(ADULT)["SSN"].to_numpy(), rng=make_rng(SEED))
    return log.to_csv(index=False, float_format="%.2f", lineterminator="\n")


def main():
    text = render()
    OUT.write_text(text, encoding="utf-8", newline="")
    digest = hashlib.md5(OUT.read_bytes()).hexdigest()
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} rows), MD5 {digest}")
    if digest != MD5:
        raise SystemExit(f"MD5 differs from the documented {MD5}: check the numpy/pandas pins")


if __name__ == "__main__":
    main()
