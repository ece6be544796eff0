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

from .composition import BudgetExceededError, _advanced_epsilon
from .data import load_adult
from .mechanisms import analytic_gaussian_sigma, laplace_mech
from .noise import sample_laplace
from .random import check_rng
from .validation import (check_delta, check_epsilon, check_finite_array, check_int, check_positive,
                         check_probability, check_same_length)

__all__ = [
    "NUMERIC_BOUNDS", "RELATIONSHIPS", "AdultFeatures", "holdout_mask", "adult_features", "clip_rows",
    "logistic_loss", "logistic_gradients", "accuracy", "accuracy_curve", "gradient_descent",
    "iteration_budget", "noisy_gradient_descent",
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
    """Design matrices and labels of the fixed train/test split (see ``adult_features``)."""

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

    Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> holdout_mask(["161-03-5439", "813-91-2255"]).tolist()
    [False, True]
    """
    s = pd.Series(np.asarray(ssn, dtype=str))
    if not s.str.fullmatch(r"\d{3}-\d{2}-\d{4}").all():
        raise ValueError("ssn must contain strings of the form 'ddd-dd-dddd'")
    x = s.str.replace("-", "").astype(np.int64).to_numpy().astype(np.uint64)
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

    Defined in: chapters/06_private_learning.ipynb

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
        raise ValueError(f"adult must be a pandas DataFrame or None, got {type(adult).__name__}")
    missing = [c for c in [*NUMERIC_BOUNDS, "Relationship", "Target", "SSN"] if c not in adult.columns]
    if missing:
        raise ValueError(f"adult must have the Adult columns; missing {missing}")
    return _design(adult)


def clip_rows(X, max_norm):
    """Scale down every row of ``X`` whose L2 norm exceeds ``max_norm`` to norm exactly ``max_norm``.

    Row x becomes x * min(1, max_norm / ||x||₂); shorter rows are unchanged.

    Privacy: after clipping, adding or removing one row changes the column sums
    by at most ``max_norm`` in L2 norm.

    Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> clip_rows([[3.0, 4.0], [0.3, 0.4]], 1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    X = check_finite_array(X, "X", ndim=2)
    c = check_positive(max_norm, "max_norm")
    norms = np.linalg.norm(X, axis=1)
    factor = np.minimum(1.0, c / np.where(norms > c, norms, c))
    return X * factor[:, None]


def _sigmoid(z):
    """σ(z) = 1/(1 + e^(-z)), computed as (1 + tanh(z/2))/2: it never overflows and is faster than scipy's expit."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _check_xy(X, y):
    X = check_finite_array(X, "X", ndim=2, allow_empty=False)
    y = check_finite_array(y, "y", ndim=1)
    check_same_length(X, y, "X", "y")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only the labels 0 and 1")
    return X, y


def _check_theta(theta, d):
    theta = check_finite_array(theta, "theta")
    if theta.ndim not in (1, 2) or theta.shape[-1] != d:
        raise ValueError(f"theta must have shape ({d},) or (m, {d}) to match X, got {theta.shape}")
    return theta


def logistic_loss(theta, X, y):
    """Per-example logistic loss ln(1 + e^{θ·x}) - y θ·x (computed without overflow).

    Privacy: none; a training objective. Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> logistic_loss([0.0, 0.0], [[1.0, 2.0]], [1.0]).round(4).tolist()
    [0.6931]
    """
    X, y = _check_xy(X, y)
    z = X @ _check_theta(theta, X.shape[1])
    return np.logaddexp(0.0, z) - y * z


def logistic_gradients(theta, X, y):
    """Per-example gradients of the logistic loss, an n × d array: row i is (σ(θ·xᵢ) - yᵢ) xᵢ.

    Since |σ - y| < 1, row i has norm below ||xᵢ||₂: the loss is ||x||-Lipschitz in θ.

    Privacy: none; the sum of these rows is the query noisy gradient descent privatises.

    Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> logistic_gradients([0.0, 0.0], [[1.0, 2.0], [1.0, -1.0]], [1.0, 0.0]).tolist()
    [[-0.5, -1.0], [0.5, -0.5]]
    """
    X, y = _check_xy(X, y)
    residual = _sigmoid(X @ _check_theta(theta, X.shape[1])) - y
    return residual[:, None] * X


def accuracy(theta, X, y):
    """Share of rows where the prediction 1{θ·x > 0} equals y; one value per row of a 2-d ``theta``.

    Privacy: none; evaluate on the test set only. Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> accuracy([1.0, -1.0], [[2.0, 1.0], [1.0, 2.0]], [1.0, 1.0])
    0.5
    """
    X, y = _check_xy(X, y)
    theta = _check_theta(theta, X.shape[1])
    correct = ((theta @ X.T) > 0) == y  # m × n for a 2-d theta (faster than X @ theta.T here)
    return correct.mean(axis=-1) if theta.ndim == 2 else float(correct.mean())


def accuracy_curve(history, X, y):
    """Accuracy of every iterate in a training ``history`` (its ``theta_j`` columns), indexed by iteration.

    Privacy: post-processing of the released iterates; the evaluation data is not protected.

    Defined in: chapters/06_private_learning.ipynb
    """
    if not isinstance(history, pd.DataFrame):
        raise ValueError(f"history must be the DataFrame returned by a trainer, got {type(history).__name__}")
    thetas = history.filter(regex=r"^theta_\d+$").to_numpy()
    return pd.Series(accuracy(thetas, X, y), index=history.index, name="accuracy")


def _residual_bounds(X, clip_norm):
    """Per-row bound C/||xᵢ|| on the residual: clipping gᵢ = rᵢxᵢ to norm C is clipping rᵢ to ±C/||xᵢ||."""
    if clip_norm is None:
        return None
    norms = np.linalg.norm(X, axis=1)
    return np.divide(clip_norm, norms, out=np.full(len(norms), np.inf), where=norms > 0)


def _clipped_sum(theta, X, y, bounds):
    """Σᵢ clip(gᵢ, C) without forming the n × d matrix of per-example gradients."""
    r = _sigmoid(X @ theta) - y
    if bounds is not None:
        r = np.minimum(np.maximum(r, -bounds), bounds)
    return X.T @ r


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

    Privacy: none; the baseline. Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> theta, history = gradient_descent([[1.0, 2.0], [1.0, -1.0]], [1.0, 0.0], 3)
    >>> len(history), theta.shape
    (4, (2,))
    """
    X, y = _check_xy(X, y)
    k = check_int(iterations, "iterations", minimum=1)
    eta = check_positive(learning_rate, "learning_rate")
    c = None if clip_norm is None else check_positive(clip_norm, "clip_norm")
    bounds, thetas = _residual_bounds(X, c), np.zeros((k + 1, X.shape[1]))
    for t in range(k):  # iterations are sequential; each step is vectorised over the rows
        thetas[t + 1] = thetas[t] - eta * _clipped_sum(thetas[t], X, y, bounds) / len(y)
    return thetas[-1].copy(), _frame(thetas)


def iteration_budget(epsilon, delta, iterations, *, noise="gaussian", composition="sequential"):
    """Per-iteration (ε_i, δ_i) and the extra δ' that let k iterations cost (``epsilon``, ``delta``) in total.

    sequential: ε_i = ε/k, δ_i = δ/k (Gaussian) or 0 (Laplace), δ' = 0.
    advanced (Dwork, Rothblum & Vadhan; Dwork & Roth Thm 3.20): δ' = δ/2 and δ_i = δ/(2k)
    (Gaussian) or δ' = δ, δ_i = 0 (Laplace); ε_i is the largest value with
    ε_i sqrt(2k ln(1/δ')) + k ε_i (e^{ε_i} - 1) <= ε. When that ε_i is not larger
    than ε/k, the sequential split is returned instead.

    Returns
    -------
    (epsilon_i, delta_i, delta_prime, rule) with rule "sequential" or "advanced".

    Privacy: k adaptive (ε_i, δ_i)-DP steps are then (ε, δ)-DP under the named rule.

    Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> eps_i, delta_i, delta_prime, rule = iteration_budget(1.0, 1e-5, 100, composition="advanced")
    >>> round(eps_i, 4), f"{delta_i:.3g}", delta_prime, rule
    (0.0195, '5e-08', 5e-06, 'advanced')
    """
    eps = check_epsilon(epsilon)
    k = check_int(iterations, "iterations", minimum=1)
    if noise not in ("gaussian", "laplace"):
        raise ValueError(f"noise must be 'gaussian' or 'laplace', got {noise!r}")
    pure = noise == "laplace" and composition == "sequential"
    dlt = check_delta(delta, allow_zero=pure)
    if composition not in ("sequential", "advanced"):
        raise ValueError(f"composition must be 'sequential' or 'advanced', got {composition!r}")
    sequential = (eps / k, dlt / k if noise == "gaussian" else 0.0, 0.0, "sequential")
    if composition == "sequential":
        return sequential
    delta_prime = dlt / 2 if noise == "gaussian" else dlt
    lo, hi = 0.0, eps  # _advanced_epsilon is increasing in ε_i; bisect for the total = eps
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _advanced_epsilon(mid, k, delta_prime) <= eps else (lo, mid)
    if lo <= eps / k:
        return sequential
    return lo, (dlt / (2 * k) if noise == "gaussian" else 0.0), delta_prime, "advanced"


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

    Privacy: (ε, δ)-DP for add/remove-one neighbours (rows of X, y); every iterate is released.

    Defined in: chapters/06_private_learning.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> X, y = [[1.0, 0.5], [1.0, -0.5], [1.0, 1.0]] * 100, [1.0, 0.0, 1.0] * 100
    >>> theta, history = noisy_gradient_descent(X, y, 1.0, 1e-5, 10, 1.0, rng=make_rng(2024))
    >>> round(float(history["epsilon_spent"].iloc[-1]), 6), len(history)
    (1.0, 11)
    """
    X, y = _check_xy(X, y)
    eps, k = check_epsilon(epsilon), check_int(iterations, "iterations", minimum=1)
    c, eta = check_positive(clip_norm, "clip_norm"), check_positive(learning_rate, "learning_rate")
    rng = check_rng(rng)
    if public_n is None:
        eps_count = eps * check_probability(count_share, "count_share", low_open=True, high_open=True)
    else:
        public_n, eps_count = check_int(public_n, "public_n", minimum=1), 0.0
    eps_i, delta_i, delta_prime, rule = iteration_budget(eps - eps_count, delta, k, noise=noise,
                                                         composition=composition)
    d = X.shape[1]
    sigma = analytic_gaussian_sigma(c, eps_i, delta_i) if noise == "gaussian" else math.sqrt(2 * d) * c / eps_i
    # (step at which the charge is made, label, epsilon, delta); step 0 is before the first iteration
    charges = [] if public_n is not None else [(0, "noisy count", eps_count, 0.0)]
    if rule == "sequential":
        charges += [(t, f"noisy gradient {t}/{k}", eps_i, delta_i) for t in range(1, k + 1)]
    else:
        charges += [(1, f"noisy gradients, {k} iterations (advanced composition)", eps - eps_count,
                     k * delta_i + delta_prime)]
    if accountant is not None:
        _check_room(accountant, charges)
    n_hat = float(public_n) if public_n is not None else max(laplace_mech(float(len(y)), 1.0, eps_count, rng=rng), 1.0)
    bounds, thetas = _residual_bounds(X, c), np.zeros((k + 1, d))
    for t in range(k):  # iterations are sequential; each step is vectorised over the rows
        if noise == "gaussian":
            noise_vec = rng.normal(0.0, sigma, size=d)
        else:
            noise_vec = sample_laplace(sigma / math.sqrt(2), size=d, rng=rng)
        thetas[t + 1] = thetas[t] - eta * (_clipped_sum(thetas[t], X, y, bounds) + noise_vec) / n_hat
    spent = np.zeros((k + 1, 2))
    for step, label, e, dl in charges:
        spent[step:] += (e, dl)
        if accountant is not None:
            accountant.spend(e, dl, label=label)
    history = _frame(thetas, {"epsilon_spent": spent[:, 0], "delta_spent": spent[:, 1], "sigma": sigma, "n_hat": n_hat})
    return thetas[-1].copy(), history


def _check_room(accountant, charges):
    """Refuse, recording nothing, when the accountant cannot take all ``charges``."""
    spent_eps, spent_delta = accountant.spent
    need_eps = math.fsum([spent_eps] + [e for *_, e, _ in charges])
    need_delta = math.fsum([spent_delta] + [dl for *_, dl in charges])
    tol = 1 + accountant.REL_TOL
    if need_eps > accountant.epsilon_budget * tol or need_delta > accountant.delta_budget * tol:
        raise BudgetExceededError(
            f"noisy_gradient_descent needs (epsilon={need_eps - spent_eps:g}, delta={need_delta - spent_delta:g}) "
            "but the accountant has (epsilon, delta) = ({:.6g}, {:.6g}) left; nothing was recorded".format(
                *accountant.remaining))
