"""Consistency post-processing of noisy counts: children that add up to their parent, and no negative counts.

A hierarchy (a total, its groups, their subgroups) is measured with noise at every level; the noisy numbers
disagree with each other. Least-squares projection finds the consistent set of counts closest to them;
non-negativity adds the constraint that no count is below 0. Both read the noisy answers only, so both are
post-processing: they keep the guarantee of the measurement and cannot touch the data.

The chapter: chapters/13_query_release.ipynb.
"""

from __future__ import annotations

import numpy as np

from .validation import check_finite_array, check_int

__all__ = ["hierarchy_matrix", "split_residual", "least_squares_consistent", "nonnegative_consistent"]

_MAX_COUNT = 2.0**53  # counts stay exact in float64, and sums of them finite


def _check_array(values, name: str, ndim: int) -> np.ndarray:
    if not isinstance(values, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be an array, got {type(values).__name__}")
    out = check_finite_array(values, name, ndim=ndim, allow_empty=False)
    if np.any(np.abs(out) > _MAX_COUNT):
        raise ValueError(f"{name} must be counts below 2**53 in magnitude")
    return out


def _check_system(hierarchy, noisy) -> tuple[np.ndarray, np.ndarray]:
    h = _check_array(hierarchy, "hierarchy", 2)
    y = _check_array(noisy, "noisy", 1)
    if y.size != h.shape[0]:
        raise ValueError(f"noisy must hold one answer per row of hierarchy ({h.shape[0]}), got {y.size}")
    return h, y


def hierarchy_matrix(group_sizes: list) -> np.ndarray:
    """The 0/1 matrix of a three-level hierarchy over its leaves: one row for the total, one per group, one per leaf.

    Parameters
    ----------
    group_sizes : sequence of ints >= 1, the number of subgroups (leaves) in each group, in order.

    Returns
    -------
    numpy float array of shape (1 + groups + leaves, leaves); row r is the set of leaves node r adds up.

    Privacy: none (public: built from the sizes of the public hierarchy).

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> hierarchy_matrix([2, 1]).astype(int).tolist()
    [[1, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    """
    if not isinstance(group_sizes, (list, tuple, np.ndarray)) or len(group_sizes) == 0:
        raise TypeError("group_sizes must be a non-empty sequence of ints")
    sizes = [check_int(s, "group_sizes", minimum=1, maximum=100_000) for s in group_sizes]
    group_of_leaf = np.repeat(np.arange(len(sizes)), sizes)
    groups = np.equal.outer(np.arange(len(sizes)), group_of_leaf)
    return np.vstack([np.ones((1, group_of_leaf.size)), groups, np.eye(group_of_leaf.size)]).astype(float)


def split_residual(parent: float, children: np.ndarray) -> np.ndarray:
    """Make children add up to a parent held fixed: add (parent - Σ children)/m to each of the m children.

    The least-squares projection onto {Σ c = parent} when the children's noise has equal variance.

    Parameters
    ----------
    parent : float, the parent's count (exact or already consistent).  children : 1-d array of noisy counts.

    Returns
    -------
    numpy float array: the children, shifted equally so that they sum to ``parent``.

    Privacy: post-processing (it reads noisy answers only): the guarantee of whatever produced them.

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> split_residual(10.0, [3.0, 4.0, 6.0]).tolist()
    [2.0, 3.0, 5.0]
    """
    if isinstance(parent, (bool, np.bool_)) or not isinstance(parent, (int, float, np.number)):
        raise TypeError(f"parent must be a number, got {type(parent).__name__}")
    p = float(_check_array([parent], "parent", 1)[0])
    c = _check_array(children, "children", 1)
    return c + (p - c.sum()) / c.size


def least_squares_consistent(hierarchy: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """The consistent answers closest to the noisy ones: H l̂ with l̂ = argmin_l ||H l - y||² (ordinary least squares).

    Parameters
    ----------
    hierarchy : 2-d 0/1 array (nodes x leaves), e.g. ``hierarchy_matrix``.  noisy : 1-d array, one noisy answer per
    node (equal noise variance at every node).

    Returns
    -------
    numpy float array, one consistent answer per node (children add up to their parents; may be negative).

    Privacy: post-processing (a function of ``noisy`` and the public hierarchy only): the measurement's guarantee.

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> H = hierarchy_matrix([2])
    >>> least_squares_consistent(H, [10.0, 11.0, 3.0, 4.0]).round(2).tolist()
    [9.8, 9.8, 4.4, 5.4]
    """
    h, y = _check_system(hierarchy, noisy)
    leaves, *_ = np.linalg.lstsq(h, y, rcond=None)
    return h @ leaves


def nonnegative_consistent(hierarchy: np.ndarray, noisy: np.ndarray) -> np.ndarray:
    """The consistent, non-negative answers closest to the noisy ones: H l̂ with l̂ = argmin_{l >= 0} ||H l - y||².

    Parameters
    ----------
    hierarchy : 2-d 0/1 array (nodes x leaves).  noisy : 1-d array, one noisy answer per node.

    Returns
    -------
    numpy float array, one answer per node: consistent and non-negative (scipy's non-negative least squares).

    Privacy: post-processing (a function of ``noisy`` and the public hierarchy only): the measurement's guarantee.

    Defined in: chapters/13_query_release.ipynb

    Examples
    --------
    >>> H = hierarchy_matrix([2])
    >>> nonnegative_consistent(H, [10.0, 11.0, 12.0, -3.0]).round(2).tolist()
    [11.0, 11.0, 11.0, 0.0]
    """
    from scipy.optimize import nnls  # here, not at the top: import dp_lib must not import scipy

    h, y = _check_system(hierarchy, noisy)
    leaves, _ = nnls(h, y)
    return h @ leaves
