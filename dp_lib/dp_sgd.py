"""Minibatch DP-SGD for logistic regression: Poisson sampling, per-example clipping, Gaussian noise.

Each step samples every training row independently with probability q, clips
each sampled row's gradient to L2 norm C, adds N(0, (σC)² I) to the sum and
divides by the public expected batch size q·n. The privacy of T such steps is
computed from the subsampled Gaussian's RDP curve (``dp_lib.rdp``; amplification
by subsampling); ``dp_sgd_sigma`` finds σ for a target (ε, δ) (Abadi et al. 2016),
and an accountant passed in is charged the event
``Repeated(PoissonSampled(q, GaussianEvent(σ)), T)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .events import GaussianEvent, PoissonSampled, Repeated
from .random import check_rng
from .rdp import DEFAULT_ORDERS, dp_sgd_sigma, rdp_to_epsilon, subsampled_gaussian_rdp
from .shaping import refuse_overflow
from .validation import (check_delta, check_epsilon, check_features_labels, check_finite_array, check_int, check_positive,
                         check_probability, check_same_length)

__all__ = ["poisson_batches", "dp_sgd_step", "minibatch_dp_sgd"]

#: Limits checked before anything is allocated: at most 10**7 steps, and at most 10**8 row indices
#: expected over all batches (steps × n × q; 800 MB of int64).
MAX_STEPS, MAX_BATCH_ROWS = 10**7, 10**8


def _check_steps(steps: Any, n: int, q: float) -> int:
    """``steps`` as an int in [1, MAX_STEPS] whose batches hold at most MAX_BATCH_ROWS rows on average."""
    t = check_int(steps, "steps", minimum=1, maximum=MAX_STEPS)
    if t * n * q > MAX_BATCH_ROWS:
        raise ValueError(f"steps: {t} batches of about {n * q:.4g} rows exceed the limit of {MAX_BATCH_ROWS:.0e} "
                         f"row indices in memory; use fewer steps or a smaller q, got steps={steps!r}")
    return t


def poisson_batches(n: int, q: float, steps: int, *, rng: np.random.Generator) -> list[np.ndarray]:
    """Index arrays of ``steps`` Poisson samples: each of the n rows is in a batch with probability q.

    A batch's size is drawn from Binomial(n, q), then that many distinct rows uniformly
    at random: the same law as n independent coin flips, without drawing n uniforms per step.

    Parameters
    ----------
    n : int >= 1, the number of rows.  q : float in (0, 1], the sampling rate.
    steps : int in [1, 10**7], with steps × n × q <= 10**8 (refused before anything is allocated).
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    list of ``steps`` integer arrays (sorted row indices; a batch may be empty).

    Privacy: none by itself; sampling with a data-independent q is what amplifies the Gaussian steps.

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(3)
    >>> [len(b) for b in poisson_batches(1000, 0.01, 5, rng=rng)]
    [6, 8, 13, 10, 6]
    """
    n, q = check_int(n, "n", minimum=1), check_probability(q, "q", low_open=True)
    t, rng = _check_steps(steps, n, q), check_rng(rng)
    sizes = rng.binomial(n, q, size=t)
    return [np.sort(rng.choice(n, size=m, replace=False)) for m in sizes]


def _scaled_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row xᵢ as mᵢ uᵢ with mᵢ = max |xᵢⱼ| (1 for a zero row): (U, m, ||uᵢ||), all finite for any finite X."""
    m = np.max(np.abs(X), axis=1, initial=0.0)
    m = np.where(m > 0, m, 1.0)
    U = X / m[:, None]  # entries in [-1, 1]: their norms cannot overflow, even for features of 1e308
    return U, m, np.linalg.norm(U, axis=1)


def _clipped_gradient_sum(theta: np.ndarray, U: np.ndarray, m: np.ndarray, u_norms: np.ndarray, y: np.ndarray,
                          clip_norm: float) -> np.ndarray:
    """Σᵢ clip(gᵢ, C) over the given rows, gᵢ = rᵢ xᵢ with rᵢ = σ(θ·xᵢ) - yᵢ, xᵢ = mᵢ uᵢ (``_scaled_rows``).

    clip(gᵢ, C) = gᵢ min(1, C/||gᵢ||) = sign(rᵢ) min(|rᵢ| mᵢ, C/||uᵢ||) uᵢ: the same vector, written
    with the scaled row uᵢ so that no norm overflows (||gᵢ|| = |rᵢ| mᵢ ||uᵢ|| can exceed float64).
    """
    with np.errstate(over="ignore"):  # θ·xᵢ = mᵢ (θ·uᵢ) may be ±inf: σ saturates at 0 or 1, as it should
        residual = 0.5 * (1.0 + np.tanh(0.5 * m * (U @ theta))) - y  # σ(z) - y
    cap = np.divide(clip_norm, u_norms, out=np.full_like(u_norms, np.inf), where=u_norms > 0)
    coefficient = np.sign(residual) * np.minimum(np.abs(residual) * m, cap)
    return coefficient @ U


@refuse_overflow("theta", "X", "clip_norm", "noise_multiplier", "expected_batch_size", "learning_rate")
def dp_sgd_step(theta: ArrayLike, X: ArrayLike, y: ArrayLike, clip_norm: float, noise_multiplier: float,
                expected_batch_size: float, *, rng: np.random.Generator, learning_rate: float = 2.0) -> np.ndarray:
    """One DP-SGD update on a (Poisson-sampled) batch: θ - η (Σ clip(gᵢ, C) + N(0, (σC)² I)) / B.

    Parameters
    ----------
    theta : d parameters.  X, y : the batch's rows and labels in {0, 1} (may be empty; other labels: ValueError).
    clip_norm : float > 0, C.  noise_multiplier : float > 0, σ.
    expected_batch_size : float > 0, B = q·n with a public n.
    rng : numpy.random.Generator (keyword-only, required).  learning_rate : float > 0, η.

    Returns
    -------
    numpy array, the new θ.

    Privacy: one Gaussian release with L2 sensitivity C (add/remove-one); with Poisson
    sampling at rate q its RDP is ``subsampled_gaussian_rdp(alpha, q, noise_multiplier)``,
    in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb).

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(5)
    >>> dp_sgd_step([0.0, 0.0], [[1.0, 1.0]], [1.0], 1.0, 1.0, 1.0, rng=rng).round(3).tolist()
    [2.604, 3.649]
    """
    theta = check_finite_array(theta, "theta", ndim=1)
    X = check_finite_array(X, "X", ndim=2)
    y = check_finite_array(y, "y", ndim=1)
    check_same_length(X, y, "X", "y")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only the labels 0 and 1")
    if X.shape[1] != len(theta):
        raise ValueError(f"theta must have {X.shape[1]} entries to match X, got {len(theta)}")
    c, s = check_positive(clip_norm, "clip_norm"), check_positive(noise_multiplier, "noise_multiplier")
    b, eta = check_positive(expected_batch_size, "expected_batch_size"), check_positive(learning_rate, "learning_rate")
    rng = check_rng(rng)
    total = _clipped_gradient_sum(theta, *_scaled_rows(X), y, c)
    return theta - eta * (total + rng.normal(0.0, s * c, size=len(theta))) / b


def minibatch_dp_sgd(X: ArrayLike, y: ArrayLike, epsilon: float, delta: float, steps: int, clip_norm: float, *,
                     q: float, public_n: int, rng: np.random.Generator, learning_rate: float = 2.0,
                     accountant: Any = None) -> tuple[np.ndarray, pd.DataFrame]:
    """Differentially private minibatch SGD for logistic regression, from θ = 0.

    σ = ``dp_sgd_sigma(epsilon, delta, q, steps)`` is the smallest noise multiplier the RDP
    accountant certifies; then ``steps`` times: draw a Poisson batch (rate q), clip each
    per-example gradient to C = ``clip_norm``, add N(0, (σC)² I) to their sum, divide by the
    expected batch size B = q · ``public_n`` and step. ``public_n`` must be public (a published
    count, or a bound): the true n is private, and only the step size depends on it.

    Parameters
    ----------
    X : n × d array; y : n labels in {0, 1}.  epsilon : float > 0.  delta : float in (0, 1).
    steps : int in [1, 10**7], T, with T × n × q <= 10**8.  clip_norm : float > 0, C.
    q : float in (0, 1], the sampling rate (public).  public_n : int >= 1, the public size.
    rng : numpy.random.Generator (keyword-only, required).  learning_rate : float > 0, η.
    accountant : optional, an accountant of the book (``RdpAccountant`` or the PLD accountant), charged
        ``Repeated(PoissonSampled(q, GaussianEvent(σ)), T)`` under the label "minibatch_dp_sgd" after a
        run that returns; an accountant that refuses the event raises then, recording nothing.

    Returns
    -------
    (theta, history): the final θ, and a DataFrame with θ after each step (row 0 is the start),
    ``batch_size``, the cumulative ``epsilon_spent`` (RDP, converted at ``delta``) and ``sigma``.

    Privacy: (ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for add/remove-one neighbours (rows of X, y); every iterate is released.

    Defined in: chapters/11_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(11)
    >>> X, y = [[1.0, 0.5], [1.0, -0.5], [1.0, 1.0]] * 100, [1.0, 0.0, 1.0] * 100
    >>> theta, history = minibatch_dp_sgd(X, y, 1.0, 1e-5, 50, 1.0, q=0.1, public_n=300, rng=rng)
    >>> round(float(history["epsilon_spent"].iloc[-1]), 3) <= 1.0, len(history)
    (True, 51)
    """
    X, y = check_features_labels(X, y)
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    q, c = check_probability(q, "q", low_open=True), check_positive(clip_norm, "clip_norm")
    t = _check_steps(steps, len(y), q)
    n_pub, eta = check_int(public_n, "public_n", minimum=1), check_positive(learning_rate, "learning_rate")
    rng = check_rng(rng)
    if accountant is not None and not callable(getattr(accountant, "compose", None)):
        raise TypeError(f"accountant must be an accountant with compose(event), such as RdpAccountant(), or None, "
                        f"got {type(accountant).__name__}")
    sigma = dp_sgd_sigma(eps, dlt, q, t)
    if not math.isfinite(sigma * c):
        raise ValueError(f"clip_norm: the noise std sigma * clip_norm = {sigma:.4g} * {c:.4g} is beyond float64")
    thetas, sizes = _descend(X, y, t, q, c, sigma, eta, q * n_pub, rng)
    if accountant is not None:  # only a run that returns is charged
        accountant.compose(Repeated(PoissonSampled(q, GaussianEvent(sigma)), t), label="minibatch_dp_sgd")
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    step_rdp = subsampled_gaussian_rdp(orders, q, sigma)
    spent = [0.0] + [rdp_to_epsilon(orders, k * step_rdp, dlt)[0] for k in range(1, t + 1)]
    history = pd.DataFrame(thetas, columns=[f"theta_{j}" for j in range(X.shape[1])])
    history.index.name = "step"
    history["batch_size"], history["epsilon_spent"], history["sigma"] = sizes, spent, sigma
    return thetas[-1].copy(), history


def _descend(X: np.ndarray, y: np.ndarray, t: int, q: float, c: float, sigma: float, eta: float, b: float,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """T DP-SGD steps from θ = 0 on checked arguments: the iterates (T + 1 rows) and the batch sizes."""
    U, m, u_norms = _scaled_rows(X)
    thetas, sizes = np.zeros((t + 1, X.shape[1])), np.zeros(t + 1, dtype=int)
    with np.errstate(over="ignore", invalid="ignore"):  # a θ beyond float64 is refused below
        for i, idx in enumerate(poisson_batches(len(y), q, t, rng=rng)):  # steps are sequential; rows vectorised
            total = _clipped_gradient_sum(thetas[i], U[idx], m[idx], u_norms[idx], y[idx], c)
            thetas[i + 1] = thetas[i] - eta * (total + rng.normal(0.0, sigma * c, size=X.shape[1])) / b
            sizes[i + 1] = len(idx)
    if not np.all(np.isfinite(thetas)):
        raise ValueError(f"learning_rate: the iterates left float64 with learning_rate={eta:g}, clip_norm={c:g} and "
                         f"expected batch size q * public_n = {b:g}; use a smaller learning_rate")
    return thetas, sizes
