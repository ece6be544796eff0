"""Private learning: logistic regression trained by noisy gradient descent.

The average gradient is a sum query divided by a count. Clipping every
per-example gradient to L2 norm C bounds the sum's sensitivity, so each step
can be released with the Gaussian (or Laplace) mechanism, and the steps
compose. The features (``dp_lib.features``) come from per-record maps with
public bounds, so preprocessing spends no budget; the model's loss and
gradients are in ``dp_lib.logistic``. Both stay importable from here.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
import pandas as pd

from .composition import PrivacyAccountant
from .features import NUMERIC_BOUNDS, RELATIONSHIPS, AdultFeatures, adult_features, holdout_mask  # noqa: F401
from .logistic import (accuracy, accuracy_curve, clip_rows, clipped_gradient_sum, clipped_sum,  # noqa: F401
                       logistic_gradients, logistic_loss, residual_bounds)
from .mechanisms import analytic_gaussian_sigma, laplace_mech
from .noise import sample_laplace
from .random import check_rng
from .validation import (check_choice, check_delta, check_epsilon, check_features_labels, check_int, check_positive,
                         check_probability)

__all__ = ["gradient_descent", "iteration_budget", "noisy_gradient_descent"]

def _frame(thetas, extra=None):
    df = pd.DataFrame(thetas, columns=[f"theta_{j}" for j in range(thetas.shape[1])])
    df.index.name = "iteration"
    for name, values in (extra or {}).items():
        df[name] = values
    return df


def gradient_descent(X: ArrayLike, y: ArrayLike, iterations: int, *, learning_rate: float = 4.0,
                     clip_norm: float | None = None) -> tuple[np.ndarray, pd.DataFrame]:
    """Plain (non-private) gradient descent on the mean logistic loss, from θ = 0.

    θ ← θ - η · (1/n) Σᵢ gᵢ, with each gᵢ clipped to L2 norm ``clip_norm`` if given.

    Returns
    -------
    (theta, history): the final θ and a DataFrame of θ after each iteration (row 0 is the start).

    Privacy: none; the baseline. Defined in: chapters/11_private_learning.ipynb

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
    bounds, thetas = residual_bounds(X, c), np.zeros((k + 1, X.shape[1]))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(k):  # iterations are sequential; each step is vectorised over the rows
            thetas[t + 1] = thetas[t] - eta * clipped_sum(thetas[t], X, y, bounds) / len(y)
    if not np.all(np.isfinite(thetas)):
        raise ValueError("learning_rate is too large for these X: theta left float64 (use a smaller learning_rate)")
    return thetas[-1].copy(), _frame(thetas)


def iteration_budget(epsilon: float, delta: float, iterations: int, *, noise: str = "gaussian",
                     composition: str = "sequential") -> tuple[float, float, float, str]:
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

    Defined in: chapters/11_private_learning.ipynb

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


def noisy_gradient_descent(X: ArrayLike, y: ArrayLike, epsilon: float, delta: float, iterations: int, clip_norm: float,
                           *, rng: np.random.Generator, learning_rate: float = 4.0,
                           accountant: PrivacyAccountant | None = None, noise: str = "gaussian",
                           composition: str = "sequential", count_share: float = 0.05,
                           public_n: int | None = None) -> tuple[np.ndarray, pd.DataFrame]:
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

    Privacy: (ε, δ)-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for add/remove-one neighbours (rows of X, y); every iterate is released.

    Defined in: chapters/11_private_learning.ipynb

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

    bounds, thetas = residual_bounds(X, c), np.zeros((k + 1, X.shape[1]))
    for t in range(k):  # θ ← θ - η (Σᵢ clip(gᵢ, C) + noise) / ñ; each step is vectorised over the rows
        noise_vec = (rng.normal(0.0, sigma, size=X.shape[1]) if noise == "gaussian"
                     else sample_laplace(sigma / math.sqrt(2), size=X.shape[1], rng=rng))
        with np.errstate(over="ignore", invalid="ignore"):
            thetas[t + 1] = thetas[t] - eta * (clipped_sum(thetas[t], X, y, bounds) + noise_vec) / n_hat
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
