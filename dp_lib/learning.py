"""Private learning: logistic regression trained by noisy gradient descent.

The average gradient is a sum query divided by a count. Clipping every
per-example gradient to L2 norm C bounds the sum's sensitivity, so each step
can be released with the Gaussian (or Laplace) mechanism, and the steps
compose. The features come from per-record maps with public bounds, so
preprocessing spends no budget.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pandas as pd

from .composition import PrivacyAccountant
from .data import load_adult, ssn_numbers
from .mechanisms import analytic_gaussian_sigma, laplace_mech
from .noise import sample_laplace
from .random import check_rng
from .validation import (check_choice, check_delta, check_epsilon, check_features_labels, check_finite_array, check_int,
                         check_positive, check_probability, refuse_overflow)

__all__ = [
    "NUMERIC_BOUNDS", "RELATIONSHIPS", "AdultFeatures", "holdout_mask", "adult_features", "clip_rows",
    "logistic_loss", "logistic_gradients", "accuracy", "accuracy_curve", "gradient_descent",
    "iteration_budget", "noisy_gradient_descent", "clipped_gradient_sum",
]

# Public bounds (from the census documentation, not from the data): values are clipped to them, then mapped to [-1, 1].
NUMERIC_BOUNDS = {
    "Age": (17.0, 90.0),                        # the extract keeps ages > 16; 90 is the census top code
    "Education-Num": (1.0, 16.0),               # the 16 education levels
    "Hours per week": (1.0, 99.0),              # 99 is the top code
    "Capital Gain": (0.0, math.log1p(99_999)),  # log(1 + dollars); 99,999 is the top code
    "Capital Loss": (0.0, math.log1p(99_999)),  # same public dollar cap
}
RELATIONSHIPS = ("Husband", "Wife", "Own-child", "Unmarried", "Not-in-family", "Other-relative")
_LOG_COLUMNS = ("Capital Gain", "Capital Loss")
_HOLDOUT_BUCKETS = 5  # a record is in the test set when hash(SSN) mod 5 == 0: about 20 %


class AdultFeatures(NamedTuple):
    """Design matrices and labels of the fixed train/test split (see ``adult_features``).

    Privacy: none; public-bound features of the sensitive data.

    Used in: chapters/08_private_learning.ipynb, through ``adult_features``

    Examples
    --------
    >>> AdultFeatures._fields[:2]
    ('X_train', 'X_test')
    """

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    feature_names: tuple


def holdout_mask(ssn):
    """True for the records of the test set: splitmix64(SSN digits) mod 5 == 0.

    The split depends on each record alone, never on the other rows, so
    adding or removing a person moves nobody else between the two sets.

    Privacy: none by itself; a per-record rule, so the split leaks nothing about other records.

    Used in: chapters/08_private_learning.ipynb, through ``adult_features``

    Examples
    --------
    >>> holdout_mask(["161-03-5439", "813-91-2255"]).tolist()
    [False, True]
    """
    x = ssn_numbers(ssn).astype(np.uint64)
    x = x + np.uint64(0x9E3779B97F4A7C15)  # splitmix64 finaliser; uint64 arithmetic wraps
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return x % np.uint64(_HOLDOUT_BUCKETS) == 0


def _design(adult: pd.DataFrame):
    cols = {"intercept": np.ones(len(adult))}
    for name, (lo, hi) in NUMERIC_BOUNDS.items():
        v = adult[name].to_numpy(dtype=float)
        v = np.log1p(np.maximum(v, 0)) if name in _LOG_COLUMNS else v
        cols[name] = 2 * (np.clip(v, lo, hi) - lo) / (hi - lo) - 1
    for r in RELATIONSHIPS:
        cols[f"Relationship={r}"] = (adult["Relationship"] == r).to_numpy(dtype=float)
    X = np.column_stack(list(cols.values()))
    y = (adult["Target"] == ">50K").to_numpy(dtype=float)
    test = holdout_mask(adult["SSN"])
    return AdultFeatures(X[~test], X[test], y[~test], y[test], tuple(cols))


@lru_cache(maxsize=1)
def _default_features() -> AdultFeatures:
    return _design(load_adult())


def adult_features(adult=None) -> AdultFeatures:
    """Logistic-regression features of the Adult data, split into train and test sets.

    Columns: an intercept (1); Age, Education-Num, Hours per week, and
    log(1 + Capital Gain/Loss), each clipped to its public bound in
    ``NUMERIC_BOUNDS`` and mapped linearly to [-1, 1]; a one-hot encoding of
    Relationship over the public list ``RELATIONSHIPS``. So every row has
    L2 norm at most sqrt(7). The label is 1 for Target ">50K". The split is
    ``holdout_mask(SSN)``: 6,460 test and 26,101 training rows of the full data.

    Parameters
    ----------
    adult : DataFrame with the Adult columns, optional; defaults to ``load_adult()`` (cached).

    Returns
    -------
    AdultFeatures(X_train, X_test, y_train, y_test, feature_names), fresh arrays.

    Privacy: none spent: each row is mapped on its own with public constants
    (scaling by the data's own min/max would make one person's features depend
    on everyone else's values).

    Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> data = adult_features()
    >>> data.X_train.shape, data.X_test.shape
    ((26101, 12), (6460, 12))
    """
    if adult is None:
        cached = _default_features()
        return AdultFeatures(*(a.copy() for a in cached[:4]), cached.feature_names)
    if not isinstance(adult, pd.DataFrame):
        raise TypeError(f"adult must be a pandas DataFrame or None, got {type(adult).__name__}")
    missing = [c for c in [*NUMERIC_BOUNDS, "Relationship", "Target", "SSN"] if c not in adult.columns]
    if missing:
        raise ValueError(f"adult must have the Adult columns; missing {missing}")
    return _design(adult)


def clip_rows(X, max_norm):
    """Scale down every row of ``X`` whose L2 norm exceeds ``max_norm`` to norm exactly ``max_norm``.

    Row x becomes x * min(1, max_norm / ||x||₂); shorter rows are unchanged.

    Privacy: after clipping, adding or removing one row changes the column sums
    by at most ``max_norm`` in L2 norm.

    Defined in: chapters/08_private_learning.ipynb

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


def logistic_loss(theta, X, y):
    """Per-example logistic loss ln(1 + e^{θ·x}) - y θ·x (computed without overflow).

    Privacy: none; a training objective. Defined in: chapters/08_private_learning.ipynb

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
def logistic_gradients(theta, X, y):
    """Per-example gradients of the logistic loss, an n × d array: row i is (σ(θ·xᵢ) - yᵢ) xᵢ.

    Since |σ - y| < 1, row i has norm below ||xᵢ||₂: the loss is ||x||-Lipschitz in θ.

    Privacy: none; the sum of these rows is the query noisy gradient descent privatises.

    Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> logistic_gradients([0.0, 0.0], [[1.0, 2.0], [1.0, -1.0]], [1.0, 0.0]).tolist()
    [[-0.5, -1.0], [0.5, -0.5]]
    """
    X, y = check_features_labels(X, y)
    residual = _sigmoid(X @ _check_theta(theta, X.shape[1])) - y
    return residual[:, None] * X


@refuse_overflow("theta", "X", "y")
def accuracy(theta, X, y):
    """Share of rows where the prediction 1{θ·x > 0} equals y; one value per row of a 2-d ``theta``.

    Privacy: none; evaluate on the test set only. Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> accuracy([1.0, -1.0], [[2.0, 1.0], [1.0, 2.0]], [1.0, 1.0])
    0.5
    """
    X, y = check_features_labels(X, y)
    theta = _check_theta(theta, X.shape[1])
    correct = ((theta @ X.T) > 0) == y  # m × n for a 2-d theta (faster than X @ theta.T here)
    return correct.mean(axis=-1) if theta.ndim == 2 else float(correct.mean())


def accuracy_curve(history, X, y):
    """Accuracy of every iterate in a training ``history`` (its ``theta_j`` columns), indexed by iteration.

    Privacy: post-processing of the released iterates; the evaluation data is not protected.

    Defined in: chapters/08_private_learning.ipynb

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


def _residual_bounds(X, clip_norm):
    """Per-row bound C/||xᵢ|| on the residual: clipping gᵢ = rᵢxᵢ to norm C is clipping rᵢ to ±C/||xᵢ||."""
    if clip_norm is None:
        return None
    norms = np.linalg.norm(X, axis=1)
    return np.divide(clip_norm, norms, out=np.full(len(norms), np.inf), where=norms > 0)


def _clipped_sum(theta, X, y, bounds):
    """Σᵢ clip(gᵢ, C) without forming the n × d matrix of per-example gradients.

    The literal per-example form, which this equals up to rounding::

        G = (_sigmoid(X @ theta) - y)[:, None] * X                     # row i is g_i = (σ(θ·x_i) - y_i) x_i
        norms = np.linalg.norm(G, axis=1)
        G *= np.minimum(1, C / np.maximum(norms, 1e-300))[:, None]   # clip every g_i to L2 norm C
        return G.sum(axis=0)

    Since g_i is the scalar r_i = σ(θ·x_i) - y_i times x_i, clipping g_i to norm
    C is clipping r_i to ±C/||x_i|| (``bounds``, from ``_residual_bounds``), and
    the sum is X.T @ r: one matrix-vector product instead of an n × d array,
    about 10× faster per step (see benchmarks).
    """
    r = _sigmoid(X @ theta) - y
    if bounds is not None:
        r = np.minimum(np.maximum(r, -bounds), bounds)
    return X.T @ r


@refuse_overflow("theta", "X", "y", "clip_norm")
def clipped_gradient_sum(theta, X, y, clip_norm):
    """Σᵢ clip(gᵢ, C): the sum of the per-example logistic gradients, each clipped to L2 norm ``clip_norm``.

    The query that noisy gradient descent releases with noise at every step;
    computed without forming the n × d matrix of gradients (see ``_clipped_sum``).

    Parameters
    ----------
    theta : array of shape (d,), or (m, d) for m iterates at once.
    X : n × d array; y : n labels in {0, 1}.
    clip_norm : float > 0, C; or None for the plain (unclipped) sum.

    Returns
    -------
    array of shape (d,), or (m, d).

    Privacy: none by itself; its L2 sensitivity is C under add/remove-one neighbours.

    Used in: chapters/08_private_learning.ipynb, through ``noisy_gradient_descent``

    Examples
    --------
    >>> clipped_gradient_sum([0.0, 0.0], [[3.0, 4.0], [0.3, 0.4]], [1.0, 0.0], 1.0).round(2).tolist()
    [-0.45, -0.6]
    """
    X, y = check_features_labels(X, y)
    theta = _check_theta(theta, X.shape[1])
    bounds = _residual_bounds(X, None if clip_norm is None else check_positive(clip_norm, "clip_norm"))
    if theta.ndim == 1:
        return _clipped_sum(theta, X, y, bounds)
    return np.array([_clipped_sum(t, X, y, bounds) for t in theta])


def _frame(thetas, extra=None):
    df = pd.DataFrame(thetas, columns=[f"theta_{j}" for j in range(thetas.shape[1])])
    df.index.name = "iteration"
    for name, values in (extra or {}).items():
        df[name] = values
    return df


def gradient_descent(X, y, iterations, *, learning_rate=4.0, clip_norm=None):
    """Plain (non-private) gradient descent on the mean logistic loss, from θ = 0.

    θ ← θ - η · (1/n) Σᵢ gᵢ, with each gᵢ clipped to L2 norm ``clip_norm`` if given.

    Returns
    -------
    (theta, history): the final θ and a DataFrame of θ after each iteration (row 0 is the start).

    Privacy: none; the baseline. Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> theta, history = gradient_descent([[1.0, 2.0], [1.0, -1.0]], [1.0, 0.0], 3)
    >>> len(history), theta.shape
    (4, (2,))
    """
    X, y = check_features_labels(X, y)
    k = check_int(iterations, "iterations", minimum=1, maximum=10**6)
    eta = check_positive(learning_rate, "learning_rate")
    c = None if clip_norm is None else check_positive(clip_norm, "clip_norm")
    bounds, thetas = _residual_bounds(X, c), np.zeros((k + 1, X.shape[1]))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(k):  # iterations are sequential; each step is vectorised over the rows
            thetas[t + 1] = thetas[t] - eta * _clipped_sum(thetas[t], X, y, bounds) / len(y)
    if not np.all(np.isfinite(thetas)):
        raise ValueError("learning_rate is too large for these X: theta left float64 (use a smaller learning_rate)")
    return thetas[-1].copy(), _frame(thetas)


def iteration_budget(epsilon, delta, iterations, *, noise="gaussian", composition="sequential"):
    """Per-iteration (ε_i, δ_i) and the extra δ' that let k iterations cost (``epsilon``, ``delta``) in total.

    sequential: ε_i = ε/k, δ_i = δ/k (Gaussian) or 0 (Laplace), δ' = 0.
    advanced (Dwork, Rothblum & Vadhan; Dwork & Roth Thm 3.20): δ' = δ/2 and δ_i = δ/(2k)
    (Gaussian) or δ' = δ, δ_i = 0 (Laplace); ε_i is the largest value with
    ε_i sqrt(2k ln(1/δ')) + k ε_i (e^{ε_i} - 1) <= ε. The advanced split is returned
    only when its noise is smaller: its Gaussian σ (``analytic_gaussian_sigma`` at
    (ε_i, δ_i)) or Laplace std sqrt(2)/ε_i below the sequential one; otherwise
    the sequential split is returned (advanced composition also halves δ_i).

    Returns
    -------
    (epsilon_i, delta_i, delta_prime, rule) with rule "sequential" or "advanced".

    Privacy: k adaptive (ε_i, δ_i)-DP steps are then (ε, δ)-DP under the named rule.

    Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> eps_i, delta_i, delta_prime, rule = iteration_budget(1.0, 1e-5, 100, composition="advanced")
    >>> round(eps_i, 4), f"{delta_i:.3g}", delta_prime, rule
    (0.0195, '5e-08', 5e-06, 'advanced')
    """
    eps = check_epsilon(epsilon)
    k = check_int(iterations, "iterations", minimum=1)
    noise = check_choice(noise, "noise", ("gaussian", "laplace"))
    composition = check_choice(composition, "composition", ("sequential", "advanced"))
    dlt = check_delta(delta, allow_zero=noise == "laplace" and composition == "sequential")
    gaussian = noise == "gaussian"
    sequential = (eps / k, dlt / k if gaussian else 0.0, 0.0, "sequential")
    if composition == "sequential":
        return sequential
    delta_prime = dlt / 2 if gaussian else dlt
    lo, hi = 0.0, min(eps, 50.0)  # the total is increasing in ε_i, and exceeds any float ε long before ε_i = 50
    # Each round evaluates advanced_epsilon(mid, k, delta_prime) (composition.py), written out: its argument
    # checks pass here (0 < mid <= 50, k valid; δ' is checked once, below), and the same numpy expression on
    # the same arguments gives the same numbers at a tenth of the cost (tests/test_learning.py compares).
    check_delta(delta_prime, "delta_prime")
    k_array = np.asarray(k, dtype=float)
    for _ in range(100):  # bisect for the largest ε_i whose advanced total is <= ε
        mid = (lo + hi) / 2
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.sqrt(2 * k_array * -math.log(delta_prime)) * mid + k_array * mid * np.expm1(mid)
        new = (mid, hi) if total <= eps else (lo, mid)
        if new == (lo, hi):  # mid rounds to an end and stays there: later rounds change nothing
            break
        lo, hi = new
    advanced = (lo, dlt / (2 * k) if gaussian else 0.0, delta_prime, "advanced")
    return advanced if lo > 0 and _noise_std(advanced, noise) < _noise_std(sequential, noise) else sequential


def _noise_std(budget, noise):
    """Noise std per coordinate for sensitivity 1 at a per-step (ε_i, δ_i): what iteration_budget compares."""
    eps_i, delta_i = budget[0], budget[1]
    return analytic_gaussian_sigma(1.0, eps_i, delta_i) if noise == "gaussian" else math.sqrt(2) / eps_i


def noisy_gradient_descent(X, y, epsilon, delta, iterations, clip_norm, *, rng, learning_rate=4.0,
                           accountant=None, noise="gaussian", composition="sequential",
                           count_share=0.05, public_n=None):
    """Differentially private gradient descent for logistic regression, from θ = 0.

    Budget. Unless ``public_n`` is given, a share ``count_share`` of ε is spent
    once on a noisy count ñ = n + Lap(1/ε_count) (sensitivity 1, pure DP), reused
    by every step. The rest, ε_grad = ε - ε_count, and all of δ are split over the
    k = ``iterations`` steps by ``iteration_budget``; sequentially ε_i = ε_grad/k, δ_i = δ/k.
    Step t clips each per-example gradient to L2 norm C = ``clip_norm``, so the
    sum Σᵢ gᵢ has L2 sensitivity C under add/remove-one, and releases
    S̃ = Σᵢ gᵢ + N(0, σ² I) with σ = ``analytic_gaussian_sigma(C, ε_i, δ_i)``, or with
    ``noise="laplace"`` adds Lap(C sqrt(d)/ε_i) per coordinate, because
    ||g||₁ <= sqrt(d) ||g||₂ <= C sqrt(d) (then δ_i = 0). The update is
    θ ← θ - η S̃ / max(ñ, 1). Totals: (ε, δ) by sequential (or advanced) composition.

    Parameters
    ----------
    X : n × d array; y : n labels in {0, 1}.
    epsilon : float > 0, the total ε.  delta : the total δ in (0, 1) ([0, 1) for sequential Laplace).
    iterations : int >= 1, k.  clip_norm : float > 0, C.
    rng : numpy.random.Generator (keyword-only, required).
    learning_rate : float > 0, η; the default suits rows like those of ``adult_features`` (norm <= sqrt(7)).
    accountant : PrivacyAccountant, optional. Checked for room before anything is computed
        (``BudgetExceededError``, nothing recorded), then charged: "noisy count" (ε_count, 0) and
        one charge "noisy gradient t/k" of (ε_i, δ_i) per iteration, so k + 1 charges summing to
        (ε, δ). With the advanced rule the k steps are one charge, since the accountant only adds.
    noise : "gaussian" or "laplace".  composition : "sequential" or "advanced".
    count_share : share of ε in (0, 1) for the noisy count.  public_n : int, optional, a public
        training-set size (then no count is released and all of ε goes to the gradients).

    Returns
    -------
    (theta, history): the final θ, and a DataFrame with θ after each iteration (row 0 is the start)
    and the cumulative ``epsilon_spent``, ``delta_spent``, ``sigma`` (noise std per coordinate) and ``n_hat``.

    Privacy: (ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/09_exact_noise.ipynb)
    for add/remove-one neighbours (rows of X, y); every iterate is released.

    Defined in: chapters/08_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> X, y = [[1.0, 0.5], [1.0, -0.5], [1.0, 1.0]] * 100, [1.0, 0.0, 1.0] * 100
    >>> theta, history = noisy_gradient_descent(X, y, 1.0, 1e-5, 10, 1.0, rng=make_rng(2024))
    >>> round(float(history["epsilon_spent"].iloc[-1]), 6), len(history)
    (1.0, 11)
    """
    X, y = check_features_labels(X, y)
    eps, k = check_epsilon(epsilon), check_int(iterations, "iterations", minimum=1, maximum=10**6)
    c, eta = check_positive(clip_norm, "clip_norm"), check_positive(learning_rate, "learning_rate")
    rng = check_rng(rng)
    if accountant is not None and not isinstance(accountant, PrivacyAccountant):
        raise TypeError(f"accountant must be a PrivacyAccountant or None, got {type(accountant).__name__}")
    if public_n is None:
        eps_count = eps * check_probability(count_share, "count_share", low_open=True, high_open=True)
    else:
        public_n, eps_count = check_int(public_n, "public_n", minimum=1), 0.0
    budget = iteration_budget(eps - eps_count, delta, k, noise=noise, composition=composition)
    sigma = _step_sigma(budget, c, X.shape[1], noise)
    charges = _charges(budget, k, eps_count, eps - eps_count, public_n is None)  # (step, label, ε, δ)
    if accountant is not None:
        accountant.check_room([(e, dl, label) for _, label, e, dl in charges], "noisy_gradient_descent")
    n_hat = float(public_n) if public_n is not None else max(laplace_mech(float(len(y)), 1.0, eps_count, rng=rng), 1.0)

    bounds, thetas = _residual_bounds(X, c), np.zeros((k + 1, X.shape[1]))
    for t in range(k):  # θ ← θ - η (Σᵢ clip(gᵢ, C) + noise) / ñ; each step is vectorised over the rows
        noise_vec = (rng.normal(0.0, sigma, size=X.shape[1]) if noise == "gaussian"
                     else sample_laplace(sigma / math.sqrt(2), size=X.shape[1], rng=rng))
        with np.errstate(over="ignore", invalid="ignore"):
            thetas[t + 1] = thetas[t] - eta * (_clipped_sum(thetas[t], X, y, bounds) + noise_vec) / n_hat
    if not np.all(np.isfinite(thetas)):
        raise ValueError(f"learning_rate is too large: theta left float64 (learning_rate={learning_rate!r})")

    if accountant is not None:
        accountant.spend_many([(e, dl, label) for _, label, e, dl in charges])
    spent = _cumulative_spend(charges, k)
    history = _frame(thetas, {"epsilon_spent": spent[:, 0], "delta_spent": spent[:, 1], "sigma": sigma, "n_hat": n_hat})
    return thetas[-1].copy(), history


def _step_sigma(budget, clip_norm, d, noise):
    """Noise std per coordinate of one step: analytic Gaussian σ, or sqrt(2) times the Laplace scale C sqrt(d)/ε_i."""
    eps_i, delta_i = budget[0], budget[1]
    if noise == "gaussian":
        return analytic_gaussian_sigma(clip_norm, eps_i, delta_i)
    return math.sqrt(2 * d) * clip_norm / eps_i


def _charges(budget, k, eps_count, eps_grad, count_released):
    """The accountant charges of one training run: (step at which it is made, label, ε, δ); step 0 is the start."""
    eps_i, delta_i, delta_prime, rule = budget
    charges = [(0, "noisy count", eps_count, 0.0)] if count_released else []
    if rule == "sequential":
        return charges + [(t, f"noisy gradient {t}/{k}", eps_i, delta_i) for t in range(1, k + 1)]
    return charges + [(1, f"noisy gradients, {k} iterations (advanced composition)", eps_grad,
                       k * delta_i + delta_prime)]


def _cumulative_spend(charges, k):
    """(k + 1) × 2 array of the (ε, δ) spent up to each iteration."""
    spent = np.zeros((k + 1, 2))
    for step, _, e, dl in charges:
        spent[step:] += (e, dl)
    return spent
