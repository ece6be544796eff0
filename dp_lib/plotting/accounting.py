"""Figures of the tighter accounting: composition bounds for Gaussian releases (Ch. 2) and DP-SGD (Ch. 6)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..accounting import DEFAULT_ORDERS, gaussian_zcdp, rdp_to_epsilon, zcdp_to_epsilon
from ..composition import advanced_composition
from ..dp_sgd import minibatch_dp_sgd
from ..learning import accuracy, adult_features, gradient_descent, noisy_gradient_descent
from ..random import make_rng
from .style import OKABE_ITO, book_style, is_finite_number, message_figure, new_figure

__all__ = ["gaussian_composition_bounds", "plot_tighter_composition", "plot_dp_sgd"]

K_GRID = np.unique(np.round(np.logspace(0, 3, 31)).astype(int))  # 1 .. 1,000 releases
DELTA = 1e-5
EPOCHS = 2  # DP-SGD passes over the data in the Chapter 6 figure
CLIP, LR_SGD, LR_GD, K_GD = 1.5, 2.0, 4.0, 20


def _gaussian_epsilon(sigma, deltas):
    """Exact ε at which N(0, σ²) noise on a sensitivity-1 query is (ε, δ)-DP (Balle & Wang 2018), per δ."""
    from scipy.special import log_ndtr, ndtr

    deltas = np.asarray(deltas, dtype=float)
    lo, hi = np.zeros_like(deltas), np.full_like(deltas, 100.0)
    for _ in range(60):  # δ(ε) falls with ε: bisect on all the targets at once
        mid = 0.5 * (lo + hi)
        a, c = 1 / (2 * sigma), mid * sigma
        too_small = ndtr(a - c) - np.exp(mid + log_ndtr(-a - c)) > deltas
        lo, hi = np.where(too_small, mid, lo), np.where(too_small, hi, mid)
    return hi


def gaussian_composition_bounds(sigma, ks=K_GRID, delta=DELTA):
    """Total ε of k Gaussian releases (σ, sensitivity 1) at total δ, by four accountants.

    basic: each release (ε₁, δ/k) with the exact Gaussian ε₁, total k ε₁; advanced
    (Thm 3.20): releases at δ/(2k), δ' = δ/2; zCDP: ρ = k/(2σ²), ε = ρ + 2 sqrt(ρ ln(1/δ));
    RDP: k α/(2σ²) at integer orders 2..256, improved conversion.

    Returns
    -------
    dict of name -> array of ε (one per k).

    Privacy: none: arithmetic on public parameters. Defined in: chapters/03_composition.ipynb
    """
    ks = np.asarray(ks)
    basic = ks * _gaussian_epsilon(sigma, delta / ks)
    eps_half = _gaussian_epsilon(sigma, delta / (2 * ks))
    advanced = np.array([advanced_composition(e, 0.0, int(k), delta / 2)[0] for e, k in zip(eps_half, ks)])
    rho = gaussian_zcdp(sigma)
    zcdp = np.array([zcdp_to_epsilon(rho * k, delta) for k in ks])
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    rdp = np.array([rdp_to_epsilon(orders, k * orders * rho, delta)[0] for k in ks])
    return {"basic": basic, "advanced (Thm 3.20)": advanced, "zCDP": zcdp, "RDP (orders 2–256)": rdp}


@book_style
def plot_tighter_composition(sigma=10.0):
    """Total ε after k Gaussian releases at noise σ (δ = 1e-5): basic, advanced, zCDP and RDP accounting.

    Left: total ε against k on log–log axes for the four accountants. Right: each bound
    divided by the RDP bound: basic composition grows like k and advanced like √k with a
    large constant, while zCDP and RDP stay close to each other and far below both.

    Defined in: chapters/03_composition.ipynb
    """
    if not (is_finite_number(sigma) and 0.2 <= sigma <= 100):
        return message_figure(f"σ must be a number in [0.2, 100] (got {sigma!r})")
    bounds = gaussian_composition_bounds(float(sigma))
    colours = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "black")]
    fig, (left, right) = new_figure(1, 2)
    for (name, eps), colour in zip(bounds.items(), colours):
        left.loglog(K_GRID, eps, color=colour, label=name)
        right.semilogx(K_GRID, eps / bounds["RDP (orders 2–256)"], color=colour, label=name)
    rdp_end = bounds["RDP (orders 2–256)"][-1]
    left.set(title=f"σ = {sigma:g}: after {K_GRID[-1]:,} releases RDP gives ε = {rdp_end:.3g}",
             xlabel="k (Gaussian releases)", ylabel="total ε at δ = 1e-5")
    right.set(title="each bound / RDP", xlabel="k (log scale)", ylabel="ratio to RDP (log scale)")
    right.set_yscale("log")
    for ax in (left, right):
        ax.xaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    left.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    top = max(2.0, 1.2 * max(float(np.max(v / bounds["RDP (orders 2–256)"])) for v in bounds.values()))
    right.set_ylim(0.5, top)
    right.yaxis.set_major_locator(FixedLocator([t for t in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500) if t <= top]))
    right.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    left.legend(loc="upper left", fontsize=8)
    return fig


@lru_cache(maxsize=1)
def _data():
    data = adult_features()
    baseline = accuracy(gradient_descent(data.X_train, data.y_train, 100)[0], data.X_test, data.y_test)
    return data, baseline


@lru_cache(maxsize=16)
def _full_batch(epsilon):
    """Test accuracy after each of K_GD full-batch noisy GD iterations (public n, seed 2024)."""
    data, _ = _data()
    n = len(data.y_train)
    _, history = noisy_gradient_descent(data.X_train, data.y_train, epsilon, DELTA, K_GD, CLIP,
                                        rng=make_rng(2024), learning_rate=LR_GD, public_n=n)
    thetas = history.filter(regex=r"^theta_").to_numpy()
    return accuracy(thetas, data.X_test, data.y_test), float(history["sigma"].iloc[-1]) / CLIP


@book_style
def plot_dp_sgd(epsilon=1.0, q=0.01, seed=2024):
    """DP-SGD against full-batch noisy GD at the same (ε, δ = 1e-5) on the Adult data.

    Left: test accuracy against epochs (passes over the data) for DP-SGD with Poisson
    rate q for 2 epochs (T = 2/q steps, σ from the RDP accountant) and for full-batch noisy
    GD (20 iterations, sequential composition), with the non-private model for reference.
    Right: ε spent by DP-SGD after each step, as the RDP accountant reports it.

    Defined in: chapters/08_private_learning.ipynb
    """
    if not (is_finite_number(epsilon) and 0.05 <= epsilon <= 100):
        return message_figure(f"ε must be a number in [0.05, 100] (got {epsilon!r})")
    if not (is_finite_number(q) and 0.001 <= q <= 1):
        return message_figure(f"q must be a sampling rate in [0.001, 1] (got {q!r})")
    data, baseline = _data()
    n, steps = len(data.y_train), max(1, round(EPOCHS / q))
    _, history = minibatch_dp_sgd(data.X_train, data.y_train, epsilon, DELTA, steps, CLIP, q=q, public_n=n,
                                  rng=make_rng(seed), learning_rate=LR_SGD)
    sgd_acc = accuracy(history.filter(regex=r"^theta_").to_numpy(), data.X_test, data.y_test)
    gd_acc, gd_sigma = _full_batch(float(epsilon))
    sigma = float(history["sigma"].iloc[-1])

    fig, (left, right) = new_figure(1, 2)
    left.plot(np.arange(steps + 1) * EPOCHS / steps, sgd_acc, color=OKABE_ITO["vermillion"],
              label=f"DP-SGD, q = {q:g}, σ = {sigma:.2f}")
    left.plot(np.arange(K_GD + 1) * EPOCHS / K_GD, gd_acc, color=OKABE_ITO["blue"], marker=".",
              label=f"full-batch noisy GD, σ/C = {gd_sigma:.2f}")
    left.axhline(baseline, color=OKABE_ITO["black"], lw=1, ls="--", label="non-private")
    left.set(title=f"ε = {epsilon:g}, δ = 1e-5", xlabel=f"epochs (full-batch: {K_GD} iterations)",
             ylabel="test accuracy", ylim=(0.6, 0.86), xlim=(0, EPOCHS))
    left.legend(loc="lower right", fontsize=8)
    right.plot(np.arange(steps + 1) * EPOCHS / steps, history["epsilon_spent"], color=OKABE_ITO["vermillion"])
    right.axhline(epsilon, color=OKABE_ITO["black"], lw=1, ls=":")
    right.set(title=f"RDP accountant: ε after each of T = {steps:,} steps", xlabel="epochs",
              ylabel="ε spent (δ = 1e-5)", xlim=(0, EPOCHS), ylim=(0, 1.1 * epsilon))
    return fig
