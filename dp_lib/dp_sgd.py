"""Minibatch DP-SGD for logistic regression: Poisson sampling, per-example clipping, Gaussian noise.

Each step samples every training row independently with probability q, clips
each sampled row's gradient to L2 norm C, adds N(0, (σC)² I) to the sum and
divides by the public expected batch size q·n. The privacy of T such steps is
computed by the RDP accountant of ``dp_lib.accounting`` (amplification by
subsampling); ``dp_sgd_sigma`` finds σ for a target (ε, δ) (Abadi et al. 2016).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .accounting import DEFAULT_ORDERS, RdpAccountant, dp_sgd_sigma, rdp_to_epsilon, subsampled_gaussian_rdp
from .random import check_rng
from .validation import (check_delta, check_epsilon, check_features_labels, check_finite_array, check_int, check_positive,
                         check_probability, check_same_length, refuse_overflow)

__all__ = ["poisson_batches", "dp_sgd_step", "minibatch_dp_sgd"]




def poisson_batches(n, q, steps, *, rng):
    """Index arrays of ``steps`` Poisson samples: each of the n rows is in a batch with probability q.

    A batch's size is drawn from Binomial(n, q), then that many distinct rows uniformly
    at random: the same law as n independent coin flips, without drawing n uniforms per step.

    Parameters
    ----------
    n : int >= 1, the number of rows.  q : float in (0, 1], the sampling rate.  steps : int >= 1.
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    list of ``steps`` integer arrays (sorted row indices; a batch may be empty).

    Privacy: none by itself; sampling with a data-independent q is what amplifies the Gaussian steps.

    Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(3)
    >>> [len(b) for b in poisson_batches(1000, 0.01, 5, rng=rng)]
    [6, 8, 13, 10, 6]
    """
    n, t = check_int(n, "n", minimum=1), check_int(steps, "steps", minimum=1)
    q = check_probability(q, "q", low_open=True)
    rng = check_rng(rng)
    sizes = rng.binomial(n, q, size=t)
    return [np.sort(rng.choice(n, size=m, replace=False)) for m in sizes]


def _clipped_gradient_sum(theta, X, y, row_norms, clip_norm):
    """Σᵢ clip(gᵢ, C) over the given rows, with gᵢ = (σ(θ·xᵢ) - yᵢ) xᵢ formed for all rows at once."""
    residual = 0.5 * (1.0 + np.tanh(0.5 * (X @ theta))) - y  # σ(z) - y, overflow-free
    grads = residual[:, None] * X  # the per-example gradients, one row each
    norms = np.abs(residual) * row_norms  # ||gᵢ|| = |rᵢ| ||xᵢ||, without a second pass over grads
    scale = np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
    return scale @ grads


@refuse_overflow("theta", "X", "clip_norm", "noise_multiplier", "expected_batch_size", "learning_rate")
def dp_sgd_step(theta, X, y, clip_norm, noise_multiplier, expected_batch_size, *, rng, learning_rate=2.0):
    """One DP-SGD update on a (Poisson-sampled) batch: θ - η (Σ clip(gᵢ, C) + N(0, (σC)² I)) / B.

    Parameters
    ----------
    theta : d parameters.  X, y : the batch's rows and 0/1 labels (may be empty).
    clip_norm : float > 0, C.  noise_multiplier : float > 0, σ.
    expected_batch_size : float > 0, B = q·n with a public n.
    rng : numpy.random.Generator (keyword-only, required).  learning_rate : float > 0, η.

    Returns
    -------
    numpy array, the new θ.

    Privacy: one Gaussian release with L2 sensitivity C (add/remove-one); with Poisson
    sampling at rate q its RDP is ``subsampled_gaussian_rdp(alpha, q, noise_multiplier)``,
    in exact arithmetic (the float implementation is not: see chapters/09_exact_noise.ipynb).

    Defined in: chapters/08_private_learning.ipynb

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
    if X.shape[1] != len(theta):
        raise ValueError(f"theta must have {X.shape[1]} entries to match X, got {len(theta)}")
    c, s = check_positive(clip_norm, "clip_norm"), check_positive(noise_multiplier, "noise_multiplier")
    b, eta = check_positive(expected_batch_size, "expected_batch_size"), check_positive(learning_rate, "learning_rate")
    rng = check_rng(rng)
    total = _clipped_gradient_sum(theta, X, y, np.linalg.norm(X, axis=1), c)
    return theta - eta * (total + rng.normal(0.0, s * c, size=len(theta))) / b


def minibatch_dp_sgd(X, y, epsilon, delta, steps, clip_norm, *, q, public_n, rng, learning_rate=2.0, accountant=None):
    """Differentially private minibatch SGD for logistic regression, from θ = 0.

    σ = ``dp_sgd_sigma(epsilon, delta, q, steps)`` is the smallest noise multiplier the RDP
    accountant certifies; then ``steps`` times: draw a Poisson batch (rate q), clip each
    per-example gradient to C = ``clip_norm``, add N(0, (σC)² I) to their sum, divide by the
    expected batch size B = q · ``public_n`` and step. ``public_n`` must be public (a published
    count, or a bound): the true n is private, and only the step size depends on it.

    Parameters
    ----------
    X : n × d array; y : n labels in {0, 1}.  epsilon : float > 0.  delta : float in (0, 1).
    steps : int >= 1, T.  clip_norm : float > 0, C.
    q : float in (0, 1], the sampling rate (public).  public_n : int >= 1, the public size.
    rng : numpy.random.Generator (keyword-only, required).  learning_rate : float > 0, η.
    accountant : RdpAccountant, optional; charged T subsampled-Gaussian steps.

    Returns
    -------
    (theta, history): the final θ, and a DataFrame with θ after each step (row 0 is the start),
    ``batch_size``, the cumulative ``epsilon_spent`` (RDP, converted at ``delta``) and ``sigma``.

    Privacy: (ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/09_exact_noise.ipynb)
    for add/remove-one neighbours (rows of X, y); every iterate is released.

    Defined in: chapters/08_private_learning.ipynb

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
    t, c = check_int(steps, "steps", minimum=1), check_positive(clip_norm, "clip_norm")
    q = check_probability(q, "q", low_open=True)
    n_pub, eta = check_int(public_n, "public_n", minimum=1), check_positive(learning_rate, "learning_rate")
    rng = check_rng(rng)
    if accountant is not None and not isinstance(accountant, RdpAccountant):
        raise ValueError(f"accountant must be an RdpAccountant or None, got {type(accountant).__name__}")
    sigma = dp_sgd_sigma(eps, dlt, q, t)
    if not np.isfinite(sigma * c):
        raise ValueError(f"clip_norm: the noise std sigma * clip_norm = {sigma:.4g} * {c:.4g} is beyond float64")
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    step_rdp = subsampled_gaussian_rdp(orders, q, sigma)
    row_norms, b = np.linalg.norm(X, axis=1), q * n_pub
    thetas, sizes = np.zeros((t + 1, X.shape[1])), np.zeros(t + 1, dtype=int)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # checked below, before anything is recorded
        for i, idx in enumerate(poisson_batches(len(y), q, t, rng=rng)):  # steps are sequential; rows vectorised
            total = _clipped_gradient_sum(thetas[i], X[idx], y[idx], row_norms[idx], c)
            thetas[i + 1] = thetas[i] - eta * (total + rng.normal(0.0, sigma * c, size=X.shape[1])) / b
            sizes[i + 1] = len(idx)
    if not np.all(np.isfinite(thetas)):
        raise ValueError("learning_rate, clip_norm, q, public_n: the iterates left float64 (inf or NaN); use less "
                         "extreme values")
    if accountant is not None:  # only a run that returns is charged
        accountant.compose("subsampled_gaussian", q=q, sigma=sigma, count=t)
    spent = [0.0] + [rdp_to_epsilon(orders, k * step_rdp, dlt)[0] for k in range(1, t + 1)]
    history = pd.DataFrame(thetas, columns=[f"theta_{j}" for j in range(X.shape[1])])
    history.index.name = "step"
    history["batch_size"], history["epsilon_spent"], history["sigma"] = sizes, spent, sigma
    return thetas[-1].copy(), history
