"""Figures of chapters/10_accounting.ipynb: composition bounds against k, trade-off curves, the subsampled
Gaussian's privacy loss, and shuffled against Poisson batches."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .. import DEFAULT_ORDERS, advanced_epsilon, optimal_composition_epsilon, rdp_to_epsilon, subsampled_gaussian_rdp
from ..events import GaussianEvent, LaplaceEvent, PoissonSampled, Repeated
from ..fdp import clt_mu, epsilon_delta_tradeoff, gaussian_tradeoff, gdp_delta, gdp_epsilon
from ..pld import PldAccountant
from ..shuffling import two_batch_shuffle_delta
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, book_style, new_figure

if TYPE_CHECKING:  # annotations only
    from collections.abc import Hashable

    from matplotlib.figure import Figure

__all__ = ["composition_curves", "plot_composition_vs_k", "plot_tradeoff_curves", "TradeoffPlot", "plot_subsampled_loss",
           "SubsampledLossPlot", "plot_shuffle_vs_poisson"]

K_VALUES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def composition_curves(epsilon=1.0, delta=1e-5, ks=K_VALUES):
    """ε' of k ε-DP steps at δ' by basic, advanced composition (Dwork & Roth Thm 3.20), the tanh form, optimal (KOV) and a PLD of Laplace steps.

    Returns
    -------
    dict of name -> list of ε' (one per k).

    Privacy: none: arithmetic on public parameters. Used in: chapters/10_accounting.ipynb, through
    ``plot_composition_vs_k``
    """
    ks = [int(k) for k in ks]
    tanh_form = [k * epsilon * math.tanh(epsilon / 2) + epsilon * math.sqrt(2 * k * math.log(1 / delta)) for k in ks]
    step = epsilon / 100
    return {"basic kε": [k * epsilon for k in ks],
            "advanced composition": [float(advanced_epsilon(epsilon, k, delta)) for k in ks],
            "kε·tanh(ε/2) + ε√(2k ln 1/δ′)": tanh_form,
            "optimal (any ε-DP steps)": [optimal_composition_epsilon(epsilon, k, delta) for k in ks],
            "PLD, Laplace steps": [PldAccountant(step).compose(Repeated(LaplaceEvent(1 / epsilon), k)).epsilon(delta)
                                   for k in ks]}


@book_style
def plot_composition_vs_k(epsilon=1.0, delta=1e-5):
    """ε' against k for the accountants of ``composition_curves`` (log-log)."""
    curves = composition_curves(epsilon, delta)
    fig, ax = new_figure(width=7.5, height=3.6)
    for (name, values), marker in zip(curves.items(), "os^Dv"):
        ax.plot(K_VALUES, values, marker=marker, ms=4, label=name)
    ax.set(xscale="log", yscale="log", xlabel="k, number of ε-DP steps", ylabel=f"total ε′ at δ′ = {delta:g}",
           title=f"Composing k steps of ε = {epsilon:g}")
    ax.legend(fontsize=8)
    return fig


class TradeoffPlot(LivePlot):
    """The trade-off slider figure of chapters/10_accounting.ipynb (``plot_tradeoff_curves``): one μ-GDP step, its
    k-fold composition (√k μ-GDP) and the (ε, δ(ε)) region of that composition, which touches the composed curve
    (the curve is the envelope of all such regions). Built once; a move updates the three curves and their labels.

    Used in: chapters/10_accounting.ipynb, through ``plot_tradeoff_curves``
    """

    fpr = np.linspace(0, 1, 401)

    def build(self) -> None:
        self.fig, ax = new_figure(width=5.2, height=4.2)
        ax.plot(self.fpr, 1 - self.fpr, color=OKABE_ITO["black"], lw=0.8, ls=":",
                label="perfect privacy: FNR = 1 − FPR")
        self.lines = [ax.plot(self.fpr, 1 - self.fpr, label=" ")[0], ax.plot(self.fpr, 1 - self.fpr, label=" ")[0],
                      ax.plot(self.fpr, 1 - self.fpr, ls="--", label=" ")[0]]
        ax.set(xlabel="FPR, false-positive rate", ylabel="smallest FNR, false-negative rate", xlim=(0, 1),
               ylim=(0, 1), title="Trade-off curves (f-DP)")
        ax.set_aspect("equal")
        self.texts = ax.legend(fontsize=8, loc="upper right").get_texts()[1:]
        self.changing = [*self.lines, *self.texts]

    def update(self, mu: float = 1.0, k: int = 4, epsilon: float = 1.0) -> Hashable:
        k = int(k)
        mu_k = math.sqrt(k) * mu
        delta = gdp_delta(epsilon, mu_k)
        curves = (gaussian_tradeoff(self.fpr, mu), gaussian_tradeoff(self.fpr, mu_k),
                  epsilon_delta_tradeoff(self.fpr, epsilon, delta))
        for line, curve in zip(self.lines, curves):
            line.set_ydata(curve)
        self.relabel(self.lines, self.texts, [f"one step: G_μ, μ = {mu:g}", f"{k} steps: G_√kμ, √k μ = {mu_k:.2f}",
                                              f"({epsilon:g}, {delta:.3f})-DP region of the {k} steps"])
        return None


def plot_tradeoff_curves(mu: float = 1.0, k: int = 4, epsilon: float = 1.0) -> Figure:
    """Trade-off curves of one μ-GDP step and of k of them, with the (ε, δ(ε)) region of the k steps (``TradeoffPlot``).

    Privacy: none: arithmetic on public parameters. Used in: chapters/10_accounting.ipynb
    """
    return TradeoffPlot().figure(mu=mu, k=k, epsilon=epsilon)


plot_tradeoff_curves.live = TradeoffPlot


class SubsampledLossPlot(LivePlot):
    """The slider figure of chapters/10_accounting.ipynb (``plot_subsampled_loss``), built once, updated per move.

    The privacy loss of T Poisson-subsampled Gaussian steps (removal ordering, dp_lib's PLD), standardised by the
    CLT's μ as (L - μ²/2)/μ, so the CLT's normal is the fixed N(0, 1) curve and the axes never move; the title
    gives ε at δ by PLD, RDP (integer orders) and the CLT approximation. The y-range is the view.

    Used in: chapters/10_accounting.ipynb, through ``plot_subsampled_loss``
    """

    edges = np.linspace(-5.0, 6.0, 111)

    def build(self) -> None:
        self.fig, ax = new_figure(width=7.5, height=3.4)
        self.ax = ax
        self.bars = ax.stairs(np.zeros(self.edges.size - 1), self.edges, fill=True, alpha=0.5,
                              label="PLD (dp_lib), removal ordering")
        z = np.linspace(-5.0, 6.0, 400)
        ax.plot(z, np.exp(-z * z / 2) / math.sqrt(2 * math.pi), color=OKABE_ITO["vermillion"],
                label="CLT: N(μ²/2, μ²), standardised")
        ax.set(xlim=(-5.0, 6.0), xlabel="standardised privacy loss (L − μ²/2)/μ of all steps", ylabel="density",
               title=" ")
        ax.title.set_fontsize(9)
        ax.legend(fontsize=8, loc="upper right")
        self.changing = [self.bars, ax.title]

    def update(self, sigma: float = 1.1, q: float = 0.01, steps: int = 1000, delta: float = 1e-5) -> Hashable:
        steps = int(steps)
        mu = clt_mu(q, sigma, steps)
        grid = min(0.02, max(1e-3, mu / 1000))  # finer than the histogram's bins; coarse grids stay pessimistic
        acc = PldAccountant(step=grid).compose(Repeated(PoissonSampled(q, GaussianEvent(sigma)), steps))
        pld = acc.plds[0]
        orders = np.asarray(DEFAULT_ORDERS, dtype=float)
        eps_rdp = rdp_to_epsilon(orders, steps * subsampled_gaussian_rdp(orders, q, sigma), delta)[0]
        heights, _ = np.histogram((pld.losses - mu * mu / 2) / mu, bins=self.edges, weights=pld.masses)
        heights = heights / np.diff(self.edges)
        self.bars.set_data(heights)
        self.ax.title.set_text(f"z = {sigma:g}, q = {q:g}, T = {steps:,}, μ = {mu:.3g}: ε at δ = {delta:g}: "
                               f"PLD {acc.epsilon(delta):.2f}, RDP {eps_rdp:.2f}, CLT {gdp_epsilon(delta, mu):.2f}")
        top = nice_ceiling(1.05 * max(float(heights.max()), 0.42))
        self.ax.set_ylim(0, top)
        return top


def plot_subsampled_loss(sigma: float = 1.1, q: float = 0.01, steps: int = 1000, delta: float = 1e-5) -> Figure:
    """The privacy loss of ``steps`` Poisson-subsampled Gaussian steps against the CLT's normal, standardised, with ε
    at ``delta`` by PLD, RDP and the CLT in the title (``SubsampledLossPlot``).

    Privacy: none: arithmetic on public parameters. Used in: chapters/10_accounting.ipynb
    """
    return SubsampledLossPlot().figure(sigma=sigma, q=q, steps=steps, delta=delta)


plot_subsampled_loss.live = SubsampledLossPlot


@book_style
def plot_shuffle_vs_poisson(sigma=0.5):
    """δ(ε) of one epoch in two shuffled batches (exact) against the Poisson accountant's δ(ε) at q = ½, T = 2."""
    eps = np.linspace(0, 3, 61)
    shuffled = [two_batch_shuffle_delta(e, sigma) for e in eps]
    acc = PldAccountant(step=1e-3).compose(Repeated(PoissonSampled(0.5, GaussianEvent(sigma)), 2))
    poisson = [acc.delta(e) for e in eps]
    fig, ax = new_figure(width=6.5, height=3.4)
    ax.plot(eps, shuffled, label="shuffled batches (exact, this pair)")
    ax.plot(eps, poisson, ls="--", label="Poisson accountant, q = ½")
    ax.fill_between(eps, poisson, shuffled, where=np.asarray(shuffled) > np.asarray(poisson), alpha=0.25,
                    color=OKABE_ITO["vermillion"], label="Poisson δ below this pair's: claim false here")
    ax.set(xlabel="ε", ylabel="δ(ε)", title=f"One epoch, two batches, σ = {sigma:g}")
    ax.legend(fontsize=8)
    return fig
