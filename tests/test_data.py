"""The data files shipped in dp_lib/datasets/, their loader, and their generators in data/.

One copy of each file: the CSVs live only in the package (``dp_lib/datasets/``, read through
``importlib.resources``), and ``data/`` holds the scripts that write them. Each cheap script is
re-run here and must give the shipped bytes; the one that takes minutes is held to a checksum.
"""

import csv
import hashlib
import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from dp_lib import ADULT_PATH, ADULT_SHA256, load_adult

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "dp_lib" / "datasets"
#: dp_sgd_accuracy.csv takes minutes to rebuild (`python -m benchmarks.dp_sgd_table`, 60 private trainings), so it
#: is held to its checksum; Chapter 11 recomputes one of its rows in front of the reader.
DP_SGD_ACCURACY_SHA256 = "fcbb054fab3fc1f4623780db9fa47f5c5c68550bd36ced47f68fc1e741fed62d"
#: tuning.csv (`python -m benchmarks.tuning_table`, ~500 DP-SGD trainings): its checksum; tests/test_tuning.py re-runs a row.
TUNING_SHA256 = "b46ca55c166190b8705940b7dbe49c387df2d0ae7ff76c7c383d602b7556877c"
SHIPPED = {"adult_with_pii.csv", "public_roster.csv", "visits.csv", "iterations_tradeoff.csv", "dp_sgd_accuracy.csv",
           "tuning.csv"}

MARITAL = {"Married-civ-spouse": 14976, "Never-married": 10683, "Divorced": 4443, "Separated": 1025,
           "Widowed": 993, "Married-spouse-absent": 418, "Married-AF-spouse": 23}


def test_rows_columns_and_published_counts():
    adult = load_adult()
    assert adult.shape == (32561, 19)
    assert adult["Marital Status"].value_counts().to_dict() == MARITAL
    assert adult["Age"].min() == 17 and adult["Age"].max() == 90
    assert round(adult["Age"].mean(), 6) == 38.581647


def test_fake_identifiers_are_well_formed_and_consistent():
    adult = load_adult()
    assert adult["SSN"].str.fullmatch(r"\d{3}-\d{2}-\d{4}").all()
    assert adult["Zip"].str.fullmatch(r"\d{5}").all()
    dob = pd.to_datetime(adult["DOB"])
    census = pd.Timestamp("1994-07-01")
    age_at_census = census.year - dob.dt.year - ((dob.dt.month > 7) | ((dob.dt.month == 7) & (dob.dt.day > 1)))
    assert (age_at_census == adult["Age"]).all()


def test_missing_values_are_empty_cells():
    adult = load_adult()
    assert not adult.isin(["?"]).any().any()
    assert adult["Occupation"].isna().sum() == 1843


def test_copies_are_independent():
    first = load_adult()
    first.loc[0, "Age"] = -1
    assert load_adult().loc[0, "Age"] == 39


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        load_adult(tmp_path / "nope.csv")


def test_corrupted_file_names_the_path(tmp_path):
    bad = tmp_path / "short.csv"
    bad.write_text("Name,Age\nx,1\n")
    with pytest.raises(ValueError, match="short.csv"):
        load_adult(bad)


# --- one copy of each file, and its generator ---------------------------------------------------------------------

def _generator(name):
    """The script data/<name>.py as a module (not run as __main__: nothing is written)."""
    spec = importlib.util.spec_from_file_location(f"data_{name}", ROOT / "data" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_data_files_live_only_in_the_package():
    assert {p.name for p in DATASETS.glob("*.csv")} == SHIPPED
    assert not list((ROOT / "data").glob("*.csv")), "data/ holds the generators; the CSVs live in dp_lib/datasets/"
    assert ADULT_PATH == DATASETS / "adult_with_pii.csv"


@pytest.mark.parametrize("name", ["make_adult_with_pii", "make_public_roster", "make_visits",
                                  "make_iterations_tradeoff"])
def test_generators_write_into_the_package(name):
    assert _generator(name).OUT.parent == DATASETS


def test_adult_file_is_what_its_generator_writes():
    """The fake identifiers re-made (Faker, seeded) beside the census columns give the shipped bytes.

    The census columns come from a download (data/make_adult_with_pii.py checks its MD5); here they are read
    back from the shipped file, whose SHA-256 pins them. About 4 s.
    """
    shipped = (DATASETS / "adult_with_pii.csv").read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == ADULT_SHA256
    make = _generator("make_adult_with_pii")
    with open(DATASETS / "adult_with_pii.csv", newline="", encoding="utf-8") as f:
        header, *rows = csv.reader(f)
    assert header[4:] == make.UCI_COLUMNS
    assert make.render([row[4:] for row in rows]).encode("utf-8") == shipped


def test_public_roster_is_what_its_generator_writes():
    assert _generator("make_public_roster").render().encode("utf-8") == (DATASETS / "public_roster.csv").read_bytes()


def test_visits_is_what_its_generator_writes():
    make = _generator("make_visits")
    text = make.render().encode("utf-8")
    assert text == (DATASETS / "visits.csv").read_bytes()
    assert hashlib.md5(text).hexdigest() == make.MD5


def test_iterations_tradeoff_is_what_its_generator_writes():
    """All 105 noisy-GD trainings of Chapter 11's figure, re-run (1-3 s)."""
    shipped = (DATASETS / "iterations_tradeoff.csv").read_bytes()
    assert _generator("make_iterations_tradeoff").render().encode("utf-8") == shipped


def test_dp_sgd_accuracy_matches_its_checksum():
    assert hashlib.sha256((DATASETS / "dp_sgd_accuracy.csv").read_bytes()).hexdigest() == DP_SGD_ACCURACY_SHA256


def test_tuning_table_matches_its_checksum():
    assert hashlib.sha256((DATASETS / "tuning.csv").read_bytes()).hexdigest() == TUNING_SHA256


def test_codebook_constants_cover_the_data_and_nothing_is_read_off_it():
    """The public candidate lists are the UCI codebook's: every value in the data is listed, each once."""
    from dp_lib.data import COUNTRIES, EDUCATION_LEVELS, MARITAL_STATUSES, OCCUPATIONS

    adult = load_adult()
    for constant, column, size in ((EDUCATION_LEVELS, "Education", 16), (COUNTRIES, "Country", 41),
                                   (OCCUPATIONS, "Occupation", 14), (MARITAL_STATUSES, "Marital Status", 7)):
        assert len(constant) == len(set(constant)) == size
        assert set(adult[column].dropna()) <= set(constant), column


# chapters/12_attacking_models.ipynb: `python -m benchmarks.membership_table` (about a minute) writes both files;
# tests/test_membership.py and tests/test_canary.py re-run one setting and a few canary runs exactly.
SHIPPED |= {"membership_inference.csv", "canary_audit.csv"}
MEMBERSHIP_SHA256 = "d4770aa9759ccf84e0ff172dbdf325d6c1feb8822528ab0b5219ff354e509f24"
CANARY_AUDIT_SHA256 = "7e3b52ee1bfb8578c2333dd2afbcd9b3d5cec09492721cb2c2d43df23080e501"


@pytest.mark.parametrize("name,digest", [("membership_inference.csv", MEMBERSHIP_SHA256),
                                         ("canary_audit.csv", CANARY_AUDIT_SHA256)])
def test_attack_tables_match_their_checksums(name, digest):
    assert hashlib.sha256((DATASETS / name).read_bytes()).hexdigest() == digest
