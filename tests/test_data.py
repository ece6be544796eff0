"""The Adult data file and its loader."""

import pandas as pd
import pytest

from dp_lib import load_adult

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
