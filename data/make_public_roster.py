"""Build dp_lib/datasets/public_roster.csv: a made-up "public roster" (like a voter list) for the linkage attack.

Usage (from the repository root; needs Faker, no network):

    python data/make_public_roster.py

The roster lists Name, DOB, Zip and Sex for 2,000 people: 1,000 of them are
people of dp_lib/datasets/adult_with_pii.csv (their fake identifiers copied from that
file), and 1,000 are new fake people who are not in the data, made by the same
generator (Faker, locale en_US) with a fixed seed. The rows are shuffled. So an
attacker who joins the de-identified census rows to this roster on
(DOB, Zip, Sex) can re-identify the listed participants, and the outsiders
show that a roster also names people a release does not contain. Everything
is fake; no real person is described. Running the script twice writes
byte-identical files with the pinned Faker version (``tests/test_data.py``
re-runs ``render`` and requires the shipped bytes).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

from faker import Faker

SEED = 2020
N_MEMBERS = 1000
N_OUTSIDERS = 1000
CENSUS_DATE = dt.date(1994, 7, 1)
DATASETS = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets"  # dp_lib's package data
ADULT = DATASETS / "adult_with_pii.csv"
OUT = DATASETS / "public_roster.csv"
COLUMNS = ["Name", "DOB", "Zip", "Sex"]


def read_adult_identifiers() -> list[list[str]]:
    """Name, DOB, Zip and Sex of every row of the Adult file, in file order."""
    with ADULT.open(encoding="utf-8", newline="") as f:
        return [[row[c] for c in COLUMNS] for row in csv.DictReader(f)]


def outsider(fake: Faker) -> list[str]:
    """A fake person aged 17 to 90 on the census date, made like the Adult file's identifiers."""
    dob = fake.date_between_dates(CENSUS_DATE.replace(year=1904), CENSUS_DATE.replace(year=1977))
    return [fake.name(), dob.isoformat(), fake.zipcode(), fake.random_element(["Female", "Male"])]


def render() -> str:
    """The roster's text: members drawn from the Adult file, outsiders made up, shuffled (Faker, seeded)."""
    fake = Faker("en_US")
    fake.seed_instance(SEED)
    people = read_adult_identifiers()
    members = [people[i] for i in sorted(fake.random.sample(range(len(people)), N_MEMBERS))]
    rows = members + [outsider(fake) for _ in range(N_OUTSIDERS)]
    fake.random.shuffle(rows)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return buf.getvalue()


def main() -> None:
    text = render()
    OUT.write_text(text, encoding="utf-8", newline="")
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} rows)")


if __name__ == "__main__":
    main()
