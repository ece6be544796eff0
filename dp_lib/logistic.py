"""The logistic model of the private-learning chapter: loss, per-example gradients, clipping, accuracy.

The pieces that training (``dp_lib.learning``) composes: the per-example
logistic loss and its gradient, clipping to an L2 norm C (which bounds the
gradient sum's sensitivity by C), and the accuracy of released iterates.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .validation import check_features_labels, check_finite_array, check_positive, refuse_overflow

__all__ = ["clip_rows", "logistic_loss", "logistic_gradients", "accuracy", "accuracy_curve", "clipped_gradient_sum"]

def clip_rows(X: ArrayLike, max_norm: float) -> np.ndarray:
    """Scale down every row of ``X`` whose L2 norm exceeds ``max_norm`` to norm exactly ``max_norm``.

    Row x becomes x * min(1, max_norm / ||x||₂); shorter rows are unchanged.

    Privacy: after clipping, adding or removing one row changes the column sums
    by at most ``max_norm`` in L2 norm.

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> clip_rows([[3.0, 4.0], [0.3, 0.4]], 1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    X = check_finite_array(X, "X", ndim=2)
    c = check_positive(max_norm, "max_norm")
    with np.errstate(over="ignore"):
        norms = np.linalg.norm(X, axis=1)
    factor = np.minimum(1.0, c / np.where(norms > c, norms, c))
    clipped = X * factor[:, None]
    big = np.isinf(norms)  # ||x|| beyond float64 (entries above ~1e154): rescale by the largest entry first
    if big.any():
        unit = X[big] / np.max(np.abs(X[big]), axis=1, keepdims=True)
        clipped[big] = c * unit / np.linalg.norm(unit, axis=1, keepdims=True)
    return clipped


def _sigmoid(z):
    """σ(z) = 1/(1 + e^(-z)), computed as (1 + tanh(z/2))/2: it never overflows and is faster than scipy's expit."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))




def _check_theta(theta, d):
    theta = check_finite_array(theta, "theta")
    if theta.ndim not in (1, 2) or theta.shape[-1] != d:
        raise ValueError(f"theta must have shape ({d},) or (m, {d}) to match X, got {theta.shape}")
    return theta


def logistic_loss(theta: ArrayLike, X: ArrayLike, y: ArrayLike) -> float | np.ndarray:
    """Per-example logistic loss ln(1 + e^{θ·x}) - y θ·x (computed without overflow).

    Privacy: none; a training objective. Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> logistic_loss([0.0, 0.0], [[1.0, 2.0]], [1.0]).round(4).tolist()
    [0.6931]
    """
    X, y = check_features_labels(X, y)
    with np.errstate(over="ignore", invalid="ignore"):
        z = X @ _check_theta(theta, X.shape[1])
        loss = np.logaddexp(0.0, z) - y * z
    if not np.all(np.isfinite(loss)):
        raise ValueError("theta and X give scores theta·x beyond float64: the loss is not representable")
    return loss


@refuse_overflow("theta", "X", "y")
def logistic_gradients(theta: ArrayLike, X: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Per-example gradients of the logistic loss, an n × d array: row i is (σ(θ·xᵢ) - yᵢ) xᵢ.

    Since |σ - y| < 1, row i has norm below ||xᵢ||₂: the loss is ||x||-Lipschitz in θ.

    Privacy: none; the sum of these rows is the query noisy gradient descent privatises.

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> logistic_gradients([0.0, 0.0], [[1.0, 2.0], [1.0, -1.0]], [1.0, 0.0]).tolist()
    [[-0.5, -1.0], [0.5, -0.5]]
    """
    X, y = check_features_labels(X, y)
    residual = _sigmoid(X @ _check_theta(theta, X.shape[1])) - y
    return residual[:, None] * X


@refuse_overflow("theta", "X", "y")
def accuracy(theta: ArrayLike, X: ArrayLike, y: ArrayLike) -> float | np.ndarray:
    """Share of rows where the prediction 1{θ·x > 0} equals y; one value per row of a 2-d ``theta``.

    Privacy: none; evaluate on the test set only. Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> accuracy([1.0, -1.0], [[2.0, 1.0], [1.0, 2.0]], [1.0, 1.0])
    0.5
    """
    X, y = check_features_labels(X, y)
    theta = _check_theta(theta, X.shape[1])
    correct = ((theta @ X.T) > 0) == y  # m × n for a 2-d theta (faster than X @ theta.T here)
    return correct.mean(axis=-1) if theta.ndim == 2 else float(correct.mean())


def accuracy_curve(history: pd.DataFrame, X: ArrayLike, y: ArrayLike) -> pd.Series:
    """Accuracy of every iterate in a training ``history`` (its ``theta_j`` columns), indexed by iteration.

    Privacy: post-processing of the released iterates; the evaluation data is not protected.

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> import pandas as pd
    >>> history = pd.DataFrame({'theta_0': [0.0, 1.0]})
    >>> accuracy_curve(history, [[1.0], [-1.0]], [1.0, 0.0]).tolist()
    [0.5, 1.0]
    """
    if not isinstance(history, pd.DataFrame):
        raise TypeError(f"history must be the DataFrame returned by a trainer, got {type(history).__name__}")
    thetas = history.filter(regex=r"^theta_\d+$").to_numpy()
    return pd.Series(accuracy(thetas, X, y), index=history.index, name="accuracy")


_HUGE_NORM = 1e150  # rows longer than this are clipped through their direction x/||x|| (no overflow, no subnormals)


def residual_bounds(X: np.ndarray, clip_norm: float | None) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Per-row bound C/||xᵢ|| on the residual, and the mask of rows too long for it (takes checked values).

    Clipping gᵢ = rᵢxᵢ to norm C is clipping rᵢ to ±C/||xᵢ||. For a row whose
    norm is beyond ``_HUGE_NORM`` (or beyond float64), that bound underflows,
    so ``clipped_sum`` clips such a row through its direction instead.
    """
    if clip_norm is None:
        return None
    with np.errstate(over="ignore"):
        norms = np.linalg.norm(X, axis=1)
    huge = ~(norms <= _HUGE_NORM)
    bounds = np.divide(clip_norm, norms, out=np.full(len(norms), np.inf), where=(norms > 0) & ~huge)
    return bounds, huge, clip_norm


def _scores(theta: np.ndarray, X: np.ndarray) -> np.ndarray:
    """θ·xᵢ for every row; ±inf (never NaN, never an overflow warning) where the exact value leaves float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = X @ theta
    bad = ~np.isfinite(z)
    if bad.any():  # rescale the row by its largest entry first: m (x/m)·θ
        m = np.max(np.abs(X[bad]), axis=1)
        with np.errstate(over="ignore"):
            z[bad] = m * ((X[bad] / m[:, None]) @ theta)
    return z


def clipped_sum(theta: np.ndarray, X: np.ndarray, y: np.ndarray,
                bounds: tuple[np.ndarray, np.ndarray, float] | None) -> np.ndarray:
    """Σᵢ clip(gᵢ, C) without forming the n × d matrix of per-example gradients (takes checked values).

    The literal per-example form, which this equals up to rounding::

        G = (_sigmoid(X @ theta) - y)[:, None] * X                     # row i is g_i = (σ(θ·x_i) - y_i) x_i
        norms = np.linalg.norm(G, axis=1)
        G *= np.minimum(1, C / np.maximum(norms, 1e-300))[:, None]   # clip every g_i to L2 norm C
        return G.sum(axis=0)

    Since g_i is the scalar r_i = σ(θ·x_i) - y_i times x_i, clipping g_i to norm
    C is clipping r_i to ±C/||x_i|| (``bounds``, from ``residual_bounds``), and
    the sum is X.T @ r: one matrix-vector product instead of an n × d array,
    about 10× faster per step (see benchmarks). A row longer than 1e150 is
    clipped through its direction: C·sign(rᵢ)·xᵢ/||xᵢ|| (its |rᵢ|·||xᵢ|| > C
    unless rᵢ = 0).
    """
    r = _sigmoid(_scores(theta, X)) - y
    if bounds is None:
        return X.T @ r
    limit, huge, clip_norm = bounds
    r = np.minimum(np.maximum(r, -limit), limit)
    if not huge.any():
        return X.T @ r
    unit = X[huge] / np.max(np.abs(X[huge]), axis=1, keepdims=True)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    return X[~huge].T @ r[~huge] + clip_norm * (np.sign(r[huge]) @ unit)


@refuse_overflow("theta", "X", "y", "clip_norm")
def clipped_gradient_sum(theta: ArrayLike, X: ArrayLike, y: ArrayLike, clip_norm: float | None) -> np.ndarray:
    """Σᵢ clip(gᵢ, C): the sum of the per-example logistic gradients, each clipped to L2 norm ``clip_norm``.

    The query that noisy gradient descent releases with noise at every step;
    computed without forming the n × d matrix of gradients (see ``clipped_sum``).

    Parameters
    ----------
    theta : array of shape (d,), or (m, d) for m iterates at once.
    X : n × d array; y : n labels in {0, 1}.
    clip_norm : float > 0, C; or None for the plain (unclipped) sum.

    Returns
    -------
    array of shape (d,), or (m, d).

    Privacy: none by itself; its L2 sensitivity is C under add/remove-one neighbours.

    Used in: chapters/11_private_learning.ipynb, through ``noisy_gradient_descent``

    Examples
    --------
    >>> clipped_gradient_sum([0.0, 0.0], [[3.0, 4.0], [0.3, 0.4]], [1.0, 0.0], 1.0).round(2).tolist()
    [-0.45, -0.6]
    """
    X, y = check_features_labels(X, y)
    theta = _check_theta(theta, X.shape[1])
    bounds = residual_bounds(X, None if clip_norm is None else check_positive(clip_norm, "clip_norm"))
    if theta.ndim == 1:
        return clipped_sum(theta, X, y, bounds)
    return np.array([clipped_sum(t, X, y, bounds) for t in theta])
