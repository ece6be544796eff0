"""Figures of the tighter accounting: composition bounds for Gaussian releases (taught in chapters/10_accounting.ipynb).

The DP-SGD figure of chapters/11_private_learning.ipynb is in ``dp_lib.plotting.dp_sgd`` (imported here, so both
stay listed in this module's ``__all__``).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
from matplotlib.transforms import offset_copy
from numpy.typing import ArrayLike

from ..composition_rules import advanced_composition
from ..rdp import DEFAULT_ORDERS, gaussian_zcdp, rdp_to_epsilon, zcdp_to_epsilon
from .dp_sgd import DpSgdPlot, plot_dp_sgd
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, is_finite_number, new_figure

__all__ = ["gaussian_composition_bounds", "plot_tighter_composition", "TighterCompositionPlot", "plot_dp_sgd",
           "DpSgdPlot"]  # the last two from dp_lib.plotting.dp_sgd

K_GRID = np.unique(np.round(np.logspace(0, 3, 31)).astype(int))  # 1 .. 1,000 releases
DELTA = 1e-5


def _gaussian_epsilon(sigma: float, deltas: ArrayLike) -> np.ndarray:
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


def gaussian_composition_bounds(sigma: float, ks: ArrayLike = K_GRID, delta: float = DELTA) -> dict[str, np.ndarray]:
    """Total ε of k Gaussian releases (σ, sensitivity 1) at total δ, by four accountants.

    basic: each release (ε₁, δ/k) with the exact Gaussian ε₁, total k ε₁; advanced
    (Theorem 3.5 of chapters/03_composition.ipynb; Dwork & Roth Thm 3.20): releases at δ/(2k), δ' = δ/2; zCDP: ρ = k/(2σ²), ε = ρ + 2 sqrt(ρ ln(1/δ));
    RDP: k α/(2σ²) at integer orders 2..256, improved conversion.

    Returns
    -------
    dict of name -> array of ε (one per k).

    Privacy: none: arithmetic on public parameters.
    See: chapters/10_accounting.ipynb (zCDP and RDP; since they moved there from chapters/03_composition.ipynb no
    chapter draws ``plot_tighter_composition``)
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
    """The slider figure of the tighter accounting (``plot_tighter_composition``), built once.

    Left: total ε against k = 1..1,000 on log–log axes for the four accountants of
    ``gaussian_composition_bounds``; right: each bound divided by the RDP bound. The
    y-ranges follow σ through a short ladder (the view): left from 0.01 to the next
    power of ten above the largest bound, at least 10⁴ (so one range serves every
    σ ≥ 3 of the slider); right from 0.5 to 1.1 × the largest ratio rounded up to
    1, 2 or 5 × 10^k, at least 50 (one range for every σ ≥ 5). The old figure
    autoscaled the left axis to the data, e.g. 0.24–710 at σ = 10.

    See: chapters/10_accounting.ipynb (the accounting it plots; no chapter draws this figure since the move)
    """

    def build(self) -> None:
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

    def update(self, sigma: float = 10.0) -> float:
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


def plot_tighter_composition(sigma: float = 10.0) -> Figure:
    """Total ε after k Gaussian releases at noise σ (δ = 1e-5): basic, advanced, zCDP and RDP accounting.

    Left: total ε against k on log–log axes for the four accountants. Right: each bound
    divided by the RDP bound: basic composition grows like k; advanced has a √k term plus a
    term kε(e^ε − 1) linear in k, which dominates here because each release's ε is not small;
    zCDP and RDP grow like √k while kρ ≪ ln(1/δ), then linearly, and stay close to each other.
    Built by ``TighterCompositionPlot``.

    See: chapters/10_accounting.ipynb (the zCDP and RDP accounting it plots; no chapter draws this figure since
    that material moved there from chapters/03_composition.ipynb)
    """
    return TighterCompositionPlot().figure(sigma=sigma)


plot_tighter_composition.live = TighterCompositionPlot
