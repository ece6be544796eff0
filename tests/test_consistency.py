"""dp_lib.consistency: least-squares consistency and non-negativity (chapters/13_query_release).

Pinned here: projection is post-processing (a function of the noisy answers and the public hierarchy only),
least squares is consistent, idempotent and unbiased, and non-negativity biases small counts UP (by simulation).
"""

import inspect

import numpy as np
import pytest

from dp_lib import make_rng
from dp_lib.consistency import hierarchy_matrix, least_squares_consistent, nonnegative_consistent, split_residual

H = hierarchy_matrix([3, 2])
LEAVES = np.array([0.0, 2.0, 40.0, 1.0, 300.0])


def test_hierarchy_matrix_rows():
    assert H.shape == (1 + 2 + 5, 5)
    assert np.array_equal(H @ LEAVES, [343.0, 42.0, 301.0, *LEAVES])


def test_split_residual_is_the_constrained_least_squares_solution():
    y = np.array([3.0, 4.0, 6.0])
    out = split_residual(10.0, y)
    assert np.isclose(out.sum(), 10.0)
    # any other point on the constraint set is farther from y
    gen = make_rng(0)
    for _ in range(100):
        d = gen.normal(size=3)
        d -= d.mean()
        assert ((out + d - y) ** 2).sum() >= ((out - y) ** 2).sum()


def test_least_squares_is_a_consistent_idempotent_projection():
    y = H @ LEAVES + make_rng(1).normal(0, 5, size=H.shape[0])
    c = least_squares_consistent(H, y)
    assert np.isclose(c[0], c[1] + c[2]) and np.isclose(c[1], c[3:6].sum()) and np.isclose(c[2], c[6:].sum())
    assert np.allclose(least_squares_consistent(H, c), c)


def test_least_squares_is_unbiased_and_nonnegativity_biases_small_counts_up():
    gen = make_rng(2)
    truth = H @ LEAVES
    reps = truth + gen.normal(0, 10.0, size=(3000, truth.size))
    ls = np.array([least_squares_consistent(H, r) for r in reps])[:, 3:]
    nn = np.array([nonnegative_consistent(H, r) for r in reps])[:, 3:]
    se = 10.0 / np.sqrt(3000)
    assert np.all(np.abs(ls.mean(axis=0) - LEAVES) < 4.5 * se)
    assert np.all(nn >= 0)
    assert nn.mean(axis=0)[0] - LEAVES[0] > 2.0  # a true zero is pushed up (E[max(Z, 0)]-like)
    assert nn.mean(axis=0)[1] - LEAVES[1] > 1.0
    assert ((nn - LEAVES) ** 2).mean() < ((ls - LEAVES) ** 2).mean()  # and the error still goes down


@pytest.mark.parametrize("func", [least_squares_consistent, nonnegative_consistent, split_residual])
def test_projection_takes_no_data_argument(func):
    """Post-processing by construction: the only inputs are the public hierarchy and the noisy answers."""
    assert list(inspect.signature(func).parameters) in (["hierarchy", "noisy"], ["parent", "children"])


@pytest.mark.parametrize("call, error", [
    (lambda: least_squares_consistent(H, [1.0, 2.0]), ValueError),
    (lambda: least_squares_consistent(H, "noisy"), TypeError),
    (lambda: nonnegative_consistent(H.tolist()[0], np.ones(8)), ValueError),
    (lambda: split_residual("10", [1.0, 2.0]), TypeError),
    (lambda: hierarchy_matrix([2, 0]), ValueError),
    (lambda: hierarchy_matrix(3), TypeError),
])
def test_bad_parameters_are_refused(call, error):
    with pytest.raises(error):
        call()
