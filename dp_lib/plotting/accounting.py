"""Figures of the tighter accounting: composition bounds for Gaussian releases (chapters/03_composition.ipynb)
and DP-SGD (chapters/08_private_learning.ipynb)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator
from matplotlib.transforms import offset_copy

from ..composition_rules import advanced_composition
from ..dp_sgd import minibatch_dp_sgd
from ..learning import accuracy, adult_features, gradient_descent, noisy_gradient_descent
from ..random import make_rng
from ..rdp import DEFAULT_ORDERS, gaussian_zcdp, rdp_to_epsilon, zcdp_to_epsilon
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, is_finite_number, new_figure

__all__ = ["gaussian_composition_bounds", "plot_tighter_composition", "TighterCompositionPlot", "plot_dp_sgd",
           "DpSgdPlot"]

K_GRID = np.unique(np.round(np.logspace(0, 3, 31)).astype(int))  # 1 .. 1,000 releases
DELTA = 1e-5
EPOCHS = 2  # DP-SGD passes over the data in the figure of chapters/08_private_learning.ipynb
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
    (Theorem 3.5 of chapters/03_composition.ipynb; Dwork & Roth Thm 3.20): releases at δ/(2k), δ' = δ/2; zCDP: ρ = k/(2σ²), ε = ρ + 2 sqrt(ρ ln(1/δ));
    RDP: k α/(2σ²) at integer orders 2..256, improved conversion.

    Returns
    -------
    dict of name -> array of ε (one per k).

    Privacy: none: arithmetic on public parameters. Used in: chapters/03_composition.ipynb, through ``plot_tighter_composition``
    """
    ks = np.asarray(ks)
    basic = ks * _gaussian_epsilon(sigma, delta / ks)
    eps_half = _gaussian_epsilon(sigma, delta / (2 * ks))
    advanced = np.array([advanced_composition(e, 0.0, int(k), delta / 2)[0] for e, k in zip(eps_half, ks)])
    rho = gaussian_zcdp(sigma)
    zcdp = np.array([zcdp_to_epsilon(rho * k, delta) for k in ks])
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    rdp = np.array([rdp_to_epsilon(orders, k * orders * rho, delta)[0] for k in ks])
    return {"basic": basic, "advanced (Thm 3.5)": advanced, "zCDP": zcdp, "RDP (orders 2–256)": rdp}


_ACCOUNTANTS = ("basic", "advanced (Thm 3.5)", "zCDP", "RDP (orders 2–256)")  # gaussian_composition_bounds keys
_RATIO_TICKS = (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000)


class TighterCompositionPlot(LivePlot):
    """The slider figure of the tighter accounting in chapters/03_composition.ipynb (``plot_tighter_composition``), built once.

    Left: total ε against k = 1..1,000 on log–log axes for the four accountants of
    ``gaussian_composition_bounds``; right: each bound divided by the RDP bound. The
    y-ranges follow σ through a short ladder (the view): left from 0.01 to the next
    power of ten above the largest bound, at least 10⁴ (so one range serves every
    σ ≥ 3 of the slider); right from 0.5 to 1.1 × the largest ratio rounded up to
    1, 2 or 5 × 10^k, at least 50 (one range for every σ ≥ 5). The old figure
    autoscaled the left axis to the data, e.g. 0.24–710 at σ = 10.

    Used in: chapters/03_composition.ipynb, through ``plot_tighter_composition``
    """

    def build(self):
        self.fig, (left, right) = new_figure(1, 2)
        self.axes = (left, right)
        colours = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "black")]
        ones = np.ones(K_GRID.shape)
        self.bounds_lines, self.ratio_lines = [], []
        for name, colour in zip(_ACCOUNTANTS, colours):
            self.bounds_lines += left.loglog(K_GRID, ones, color=colour, label=name)
            self.ratio_lines += right.semilogx(K_GRID, ones, color=colour, label=name)
        left.set_title(" ", y=1.0)  # y given: no title-placement pass (it measures all tick labels)
        left.set(xlabel="k (Gaussian releases)", ylabel="total ε at δ = 1e-5")
        right.set_title("each bound / RDP", y=1.0)
        right.set(xlabel="k (log scale)", ylabel="ratio to RDP (log scale)")
        right.set_yscale("log")
        for ax in (left, right):
            ax.set_xlim(ax.get_xlim())  # as autoscaling sets it for k = 1..1,000, then fixed
            ax.xaxis.set_minor_locator(NullLocator())
            ax.yaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            # the y-label at a fixed distance, room for 5-character tick labels ("10000", "1e+06"; "1000" right)
            ax.yaxis.set_label_coords(0, 0.5, transform=offset_copy(ax.transAxes, fig=self.fig, x=-40, units="points"))
        left.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        right.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        # the legend never changes: drawn just below the lines (which stay clear of it), it is part of the
        # background and a move does not lay it out again
        left.legend(loc="upper left", fontsize=8).set_zorder(1.9)
        self.changing = [*self.bounds_lines, left.title, *self.ratio_lines]

    def update(self, sigma=10.0):
        if not (is_finite_number(sigma) and 0.2 <= sigma <= 100):
            raise ValueError(f"sigma (σ) must be a number in [0.2, 100] (got {sigma!r})")
        bounds = gaussian_composition_bounds(float(sigma))
        rdp = bounds["RDP (orders 2–256)"]
        left, right = self.axes
        for (_name, eps), bound_line, ratio_line in zip(bounds.items(), self.bounds_lines, self.ratio_lines):
            bound_line.set_ydata(eps)
            ratio_line.set_ydata(eps / rdp)
        left.title.set_text(f"σ = {sigma:g}: after {K_GRID[-1]:,} releases RDP gives ε = {rdp[-1]:.3g}")
        # the view: whole decades on the left, 1/2/5 steps on the right, both with a floor
        low = min(float(np.min(v)) for v in bounds.values())
        high = max(float(np.max(v)) for v in bounds.values())
        left_lim = (min(0.01, 10.0 ** math.floor(math.log10(low))), max(1e4, 10.0 ** math.ceil(math.log10(high))))
        top = max(50.0, nice_ceiling(1.1 * max(float(np.max(v / rdp)) for v in bounds.values())))
        left.set_ylim(*left_lim)
        right.set_ylim(0.5, top)
        right.yaxis.set_major_locator(FixedLocator([t for t in _RATIO_TICKS if t <= top]))  # no unseen ticks to make
        return left_lim, top


def plot_tighter_composition(sigma=10.0):
    """Total ε after k Gaussian releases at noise σ (δ = 1e-5): basic, advanced, zCDP and RDP accounting.

    Left: total ε against k on log–log axes for the four accountants. Right: each bound
    divided by the RDP bound: basic composition grows like k; advanced has a √k term plus a
    term kε(e^ε − 1) linear in k, which dominates here because each release's ε is not small;
    zCDP and RDP grow like √k while kρ ≪ ln(1/δ), then linearly, and stay close to each other.
    Built by ``TighterCompositionPlot``.

    Defined in: chapters/03_composition.ipynb
    """
    return TighterCompositionPlot().figure(sigma=sigma)


plot_tighter_composition.live = TighterCompositionPlot


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


@lru_cache(maxsize=64)
def _dp_sgd_run(epsilon, q, seed):
    """DP-SGD of the figure of chapters/08_private_learning.ipynb at one setting: (steps, test accuracy per step, ε spent per step, z).

    Cached (a slider revisits settings, and ``DpSgdPlot`` is built at the defaults first):
    the same call of ``minibatch_dp_sgd`` with ``make_rng(seed)`` gives the same numbers.
    """
    data, _ = _data()
    n, steps = len(data.y_train), max(1, round(EPOCHS / q))
    _, history = minibatch_dp_sgd(data.X_train, data.y_train, epsilon, DELTA, steps, CLIP, q=q, public_n=n,
                                  rng=make_rng(seed), learning_rate=LR_SGD)
    sgd_acc = accuracy(history.filter(regex=r"^theta_").to_numpy(), data.X_test, data.y_test)
    spent = history["epsilon_spent"].to_numpy()
    for array in (sgd_acc, spent):
        array.flags.writeable = False
    return steps, sgd_acc, spent, float(history["sigma"].iloc[-1])


class DpSgdPlot(LivePlot):
    """The DP-SGD slider figure of chapters/08_private_learning.ipynb (``plot_dp_sgd``), built once and updated per move.

    Left: test accuracy against epochs on fixed axes (0–2 epochs, accuracy 0.6–0.86).
    Right: ε spent after each step; its y-range is (0, 1.1 ε) as before, so each ε
    of the slider is one view. Runs are cached per (ε, q, seed) and the full-batch
    runs per ε; a first visit still trains and calibrates σ (see ``_dp_sgd_run``).

    Used in: chapters/08_private_learning.ipynb, through ``plot_dp_sgd``
    """

    def build(self):
        _, baseline = _data()
        self.fig, (left, right) = new_figure(1, 2)
        self.axes = (left, right)
        (self.sgd,) = left.plot([0, EPOCHS], [0, 0], color=OKABE_ITO["vermillion"], label=" ")
        self.gd_x = np.arange(K_GD + 1) * EPOCHS / K_GD
        (self.gd,) = left.plot(self.gd_x, np.zeros(self.gd_x.shape), color=OKABE_ITO["blue"], marker=".",
                               label=" ")
        left.axhline(baseline, color=OKABE_ITO["black"], lw=1, ls="--", label="non-private")
        left.set_title(" ", y=1.0)  # y given: no title-placement pass (it measures all tick labels)
        left.set(xlabel=f"epochs (full-batch: {K_GD} iterations)", ylabel="test accuracy",
                 ylim=(0.6, 0.86), xlim=(0, EPOCHS))
        legend = left.legend(loc="lower right", fontsize=8)
        (self.spent,) = right.plot([0, EPOCHS], [0, 0], color=OKABE_ITO["vermillion"])
        self.target = right.axhline(1.0, color=OKABE_ITO["black"], lw=1, ls=":")
        right.set_title(" ", y=1.0)
        right.set(xlabel="epochs", ylabel="ε spent (δ = 1e-5)", xlim=(0, EPOCHS))
        # 1, 2, 5 steps (no 2.5: no "0.025" labels at small ε) and the y-label at a fixed distance, room for
        # 4-character tick labels ("0.10"): the layout is made once, at the defaults' "0.2"
        right.yaxis.set_major_locator(MaxNLocator("auto", steps=[1, 2, 5, 10]))
        right.yaxis.set_label_coords(0, 0.5, transform=offset_copy(right.transAxes, fig=self.fig, x=-36,
                                                                   units="points"))
        self.legend_texts = legend.get_texts()[:2]
        self.changing = [self.sgd, self.gd, left.title, *self.legend_texts, self.spent, self.target, right.title]

    def update(self, epsilon=1.0, q=0.01, seed=2024):
        if not (is_finite_number(epsilon) and 0.05 <= epsilon <= 100):
            raise ValueError(f"epsilon (ε) must be a number in [0.05, 100] (got {epsilon!r})")
        if not (is_finite_number(q) and 0.001 <= q <= 1):
            raise ValueError(f"q must be a sampling rate in [0.001, 1] (got {q!r})")
        steps, sgd_acc, spent, sigma = _dp_sgd_run(epsilon, q, seed)
        gd_acc, gd_sigma = _full_batch(float(epsilon))
        left, right = self.axes
        epochs = np.arange(steps + 1) * EPOCHS / steps
        self.sgd.set_data(epochs, sgd_acc)
        self.gd.set_ydata(gd_acc)
        labels = (f"DP-SGD, q = {q:g}, z = {sigma:.2f}", f"full-batch noisy GD, z = σ/C = {gd_sigma:.2f}")  # z: noise multiplier
        self.relabel((self.sgd, self.gd), self.legend_texts, labels)
        left.title.set_text(f"ε = {epsilon:g}, δ = 1e-5")
        self.spent.set_data(epochs, spent)
        self.target.set_ydata([epsilon, epsilon])
        right.title.set_text(f"RDP accountant: ε after each of T = {steps:,} steps")
        top = 1.1 * epsilon  # the view: one per ε
        right.set_ylim(0, top)
        return top


def plot_dp_sgd(epsilon=1.0, q=0.01, seed=2024):
    """Two panels: DP-SGD against full-batch noisy GD at the same (ε, δ = 1e-5) on the Adult data, and ε per step.

    Left: test accuracy against epochs (passes over the data) for DP-SGD with Poisson
    rate q for 2 epochs (T = 2/q steps, the noise multiplier z = σ/C from the RDP accountant) and for full-batch noisy
    GD (20 iterations, sequential composition), with the non-private model for reference.
    Right: ε spent by DP-SGD after each step, as the RDP accountant reports it.
    Built by ``DpSgdPlot``.

    Defined in: chapters/08_private_learning.ipynb
    """
    return DpSgdPlot().figure(epsilon=epsilon, q=q, seed=seed)


plot_dp_sgd.live = DpSgdPlot
