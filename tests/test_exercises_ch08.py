"""Chapter 8's exercise specifications (exercises/ch08.py): the stored sizes of ex4 are honest.

The checks common to every chapter are in tests/test_exercises.py."""

import numpy as np

from dp_lib.selfcheck import evaluate
from exercises.ch08 import EXERCISES


def test_stored_sizes_are_honest():
    """A fresh 2,000-trial measurement of the default (other seed, fewer draws) lies inside the check's intervals."""
    from dp_lib import make_rng, rejection_rate

    ex = EXERCISES[3]
    fresh = rejection_rate(np.outer([2 / 3, 1 / 3], [0.76, 0.24]), 500, 0.2, 2000, rng=make_rng(3), draws=200)
    assert all(r.ok for r in evaluate(fresh, ex.check_doc(ex.default)))
