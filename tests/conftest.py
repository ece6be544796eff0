"""Shared fixtures: every test gets its own seeded generator."""

import pytest

from dp_lib import make_rng


@pytest.fixture
def rng():
    return make_rng(20240601)
