"""Build data/visits.csv: a synthetic shop log with many rows per person, keyed by the Adult data's fake SSNs.

Run from the repository root: ``python data/make_visits.py``. The log is
``dp_lib.simulate_visits`` applied to the 32,561 SSNs of data/adult_with_pii.csv
with the seed below; numpy and pandas are pinned in requirements.txt, so the
file is byte-identical on every rebuild (the script checks its MD5).
"""

import hashlib
from pathlib import Path

from dp_lib import load_adult, make_rng, simulate_visits

SEED = 2010
MD5 = "2688a505fda503d5dceca20a17342391"
OUT = Path(__file__).resolve().parent / "visits.csv"


def main():
    log = simulate_visits(load_adult()["SSN"].to_numpy(), rng=make_rng(SEED))
    log.to_csv(OUT, index=False, float_format="%.2f")
    digest = hashlib.md5(OUT.read_bytes()).hexdigest()
    print(f"wrote {OUT} ({len(log)} rows, {log['user'].nunique()} users), MD5 {digest}")
    if digest != MD5:
        raise SystemExit(f"MD5 differs from the documented {MD5}: check the numpy/pandas pins")


if __name__ == "__main__":
    main()
