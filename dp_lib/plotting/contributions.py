"""Figures of the user-level chapter: event- vs user-level noise, the bounding trade-off, partition selection."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from ..contributions import CATEGORIES, load_visits, partition_selection_threshold
from ..validation import check_epsilon, check_int
from .live import LivePlot
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["visit_cells", "expected_bounded_counts", "plot_heavy_user", "plot_bounding_tradeoff",
           "BoundingTradeoffPlot", "plot_partition_selection"]

BIG = CATEGORIES[:10]


@lru_cache(maxsize=1)
def _cells():
    log = load_visits()
    cell = log.groupby(["user", "category"]).size().rename("n").reset_index()
    cell["m"] = cell.groupby("user")["category"].transform("size")
    cell["k"] = pd.Index(CATEGORIES).get_indexer(cell["category"])
    return cell[["n", "m", "k"]].to_numpy()


def visit_cells():
    """Rows per (user, category) of the shop log, with the user's number of categories.

    Returns
    -------
    numpy array of shape (cells, 3): n (rows), m (the user's categories), k (index in CATEGORIES).

    Privacy: none (raw data, for figures). See: chapters/15_user_level.ipynb (the chapter's figures count the same cells)
    """
    return _cells().copy()


def expected_bounded_counts(max_partitions, max_per_partition):
    """Expected row count per category after bounding: Σ over users of min(1, L0/m)·min(n, L∞).

    Returns
    -------
    numpy array, one value per entry of ``CATEGORIES``.

    Privacy: none (raw data, for figures). Defined in: chapters/15_user_level.ipynb

    Examples
    --------
    >>> int(expected_bounded_counts(30, 10_000).sum())
    84215
    """
    n, m, k = _cells().T
    weight = np.minimum(1.0, max_partitions / m) * np.minimum(n, max_per_partition)
    return np.bincount(k, weights=weight, minlength=len(CATEGORIES))


@book_style
def plot_heavy_user(epsilon=1.0, *, heavy_rows=631, max_per_partition=10, base=9_605, bounded_base=8_342):
    """Two panels: densities of the released "kitchen" count without and with the heaviest user.

    Left, event level (noise Lap(1/ε)), centred at ``base`` (the raw count without the user) and
    ``base + heavy_rows``: the curves are hundreds of noise widths apart, so one release tells
    whether the user is in the log. Right, user level with one public partition (every user keeps
    at most L∞ kitchen rows, noise Lap(L∞/ε)), centred at ``bounded_base`` (the bounded count
    without the user: bounding trims the other heavy users' rows too) and ``bounded_base + L∞``
    (the user has at least L∞ rows): the curves overlap and the user is hidden.

    Privacy: none (exact densities, no data). Defined in: chapters/15_user_level.ipynb
    """
    fig, axes = new_figure(1, 2, width=8.0, height=2.8)
    panels = ((axes[0], base, heavy_rows, 1 / epsilon, f"event level: Lap(1/ε), ε = {epsilon:g}"),
              (axes[1], bounded_base, max_per_partition, max_per_partition / epsilon,
               f"user level: L∞ = {max_per_partition}, Lap(L∞/ε)"))
    for ax, centre, shift, scale, title in panels:
        span = max(shift, 8 * scale)
        x = np.linspace(centre - 4 * scale - 0.1 * span, centre + shift + 4 * scale + 0.1 * span, 800)
        for loc, colour, label in ((centre, OKABE_ITO["blue"], "without the user"),
                                   (centre + shift, OKABE_ITO["vermillion"], "with the user")):
            ax.plot(x, np.exp(-np.abs(x - loc) / scale) / (2 * scale), color=colour, label=label)
        ax.set_title(title)
        ax.set_xlabel("released kitchen count")
        ax.set_yticks([])
        ax.xaxis.set_major_locator(MaxNLocator(5))  # five-digit counts: fewer ticks, so the labels never touch
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    axes[0].legend(loc="upper center")
    return fig


def _rms(l0, linf, epsilon, true):
    bias = true - expected_bounded_counts(l0, linf)[:10]
    return 100 * math.sqrt(np.mean((bias ** 2 + 2 * (l0 * linf / epsilon) ** 2) / true ** 2))


L0_CURVES = (1, 2, 3, 5, 10)
LINF_GRID = np.unique(np.round(np.geomspace(1, 200, 40)).astype(int))


@lru_cache(maxsize=1)
def _bias_table():
    """(true, bias): the true counts of the big categories and, for each L0 of the curves and L∞ of the grid,
    ``true - expected_bounded_counts(L0, L∞)`` (shape (curves, grid, 10)). It does not depend on ε: computed
    once, so a new ε costs one array expression instead of 200 passes over the log."""
    true = expected_bounded_counts(30, 10_000)[:10]
    bias = np.array([[true - expected_bounded_counts(l0, linf)[:10] for linf in LINF_GRID] for l0 in L0_CURVES])
    true.flags.writeable = bias.flags.writeable = False
    return true, bias


def _curves(epsilon):
    """{L0: RMS relative error (%) along ``LINF_GRID``}: ``_rms`` at every grid point, as one array expression."""
    true, bias = _bias_table()
    spread = np.array(L0_CURVES)[:, None, None] * LINF_GRID[None, :, None] / epsilon
    rms = 100 * np.sqrt(np.mean((bias ** 2 + 2 * spread ** 2) / true ** 2, axis=-1))
    return dict(zip(L0_CURVES, rms))


_CURVE_COLOURS = (OKABE_ITO["sky"], OKABE_ITO["green"], OKABE_ITO["purple"], OKABE_ITO["orange"], OKABE_ITO["black"])


class BoundingTradeoffPlot(LivePlot):
    """The slider figure of the user-level chapter (``plot_bounding_tradeoff``), built once and updated per move.

    Left: bias bars and noise dots for the ten big categories; right: the RMS
    curves for ε and the chosen setting. Both y-ranges were fixed before
    ([0, 100] and [0, 80], the dots and the star cut below their tops), so the
    figure has one view. The curves' bias part does not depend on ε and is
    computed once (``_bias_table``).

    Used in: chapters/15_user_level.ipynb, through ``plot_bounding_tradeoff``
    """

    def build(self):
        self.true = _bias_table()[0]
        fig, (left, right) = new_figure(1, 2, width=8.4, height=3.2)
        # Fixed positions (where constrained layout puts the axes at the defaults) instead of a layout pass,
        # which would cost ~150 ms of the static figure's 300 ms budget; every label but the titles is fixed.
        fig.set_layout_engine(None)
        left.set_position([0.0723588, 0.1698902, 0.4279984, 0.7547727])
        right.set_position([0.5670409, 0.1698902, 0.4279984, 0.7547727])
        self.fig, self.axes = fig, (left, right)
        self.bars = left.bar(range(10), np.zeros(10), color=OKABE_ITO["orange"], label="bias: rows dropped")
        (self.dots,) = left.plot(range(10), np.zeros(10), "o", color=OKABE_ITO["blue"], label="noise std")
        left.set_xticks(range(10), BIG, rotation=60, fontsize=8)
        left.set_ylabel("% of the true count")
        left.set_ylim(0, 100)
        left.set_title(" ")
        # The legends lie under the changing artists (zorder 0.9 < 1), so they stay in the background: drawn on
        # top, they cost ~25 ms per move. The bars never reach the left one; a dot or a curve that crosses a
        # legend's text is drawn over it.
        left.legend(loc="upper left").set_zorder(0.9)
        self.curves = [right.plot(LINF_GRID, np.zeros(LINF_GRID.size), color=colour, label=f"L0 = {l0}")[0]
                       for colour, l0 in zip(_CURVE_COLOURS, L0_CURVES)]
        (self.star,) = right.plot([10], [0], "*", ms=14, color=OKABE_ITO["vermillion"], label="chosen")
        right.set_xscale("log")
        right.set_xticks([1, 3, 10, 30, 100, 200], ["1", "3", "10", "30", "100", "200"])
        right.minorticks_off()
        right.set_xlim(*right.get_xlim())  # the autoscaled range of the L∞ grid, fixed (the star stays inside)
        right.set_xlabel("max_per_partition L∞ (log scale)")
        right.set_ylabel("RMS relative error (%)")
        right.set_ylim(0, 80)
        right.set_title(" ")
        right.legend(loc="upper center", fontsize=8, ncol=3).set_zorder(0.9)
        self.changing = [*self.bars, self.dots, left.title, *self.curves, self.star, right.title]

    def update(self, max_partitions=3, max_per_partition=10, epsilon=1.0):
        l0 = check_int(max_partitions, "max_partitions", minimum=1)
        linf = check_int(max_per_partition, "max_per_partition", minimum=1)
        eps = check_epsilon(epsilon)
        true = self.true
        bounded = expected_bounded_counts(l0, linf)
        bias = 100 * (true - bounded[:10]) / true
        noise = 100 * math.sqrt(2) * l0 * linf / eps / true
        for bar, height in zip(self.bars, bias):
            bar.set_height(height)
        self.dots.set_ydata(np.minimum(noise, 99))
        for line, rms in zip(self.curves, _curves(eps).values()):
            line.set_ydata(rms)
        self.star.set_data([linf], [min(_rms(l0, linf, eps, true), 79)])
        left, right = self.axes
        left.title.set_text(f"L0 = {max_partitions}, L∞ = {max_per_partition}, ε = {epsilon:g}")
        dropped = 100 * (1 - bounded.sum() / 84_215)
        right.title.set_text(f"rows dropped: {dropped:.1f} % of the log")


def plot_bounding_tradeoff(max_partitions=3, max_per_partition=10, epsilon=1.0):
    """Bias against noise as the contribution bounds move, on the shop log.

    Left: for the ten big categories, the relative error from bounding (expected rows dropped,
    bars) and the standard deviation of the Laplace noise √2·L0·L∞/ε (dots), in % of the true
    count. Right: the root-mean-square relative error over those categories against L∞ (log
    scale) for several L0, with the chosen setting marked. Small bounds drop rows (bias), large
    bounds need more noise: the error is smallest in between. Drawn by ``BoundingTradeoffPlot``.

    Privacy: none (expected values from the raw data, for teaching). Defined in: chapters/15_user_level.ipynb
    """
    return BoundingTradeoffPlot().figure(max_partitions=max_partitions, max_per_partition=max_per_partition,
                                         epsilon=epsilon)


plot_bounding_tradeoff.live = BoundingTradeoffPlot


@book_style
def plot_partition_selection(epsilon=1.0, delta=1e-6, max_partitions=1, user_counts=None):
    """Probability that Laplace thresholding keeps a partition, against its number of distinct users.

    The curve is 1 - P(Lap(b) <= τ - users) with (b, τ) from ``partition_selection_threshold``; the dashed
    line is τ, and the marks show the niche categories of the shop log at their user counts.

    Privacy: none (exact probabilities). Defined in: chapters/15_user_level.ipynb
    """
    b, tau = partition_selection_threshold(epsilon, delta, max_partitions)
    users = np.linspace(0, tau + 8 * b, 600)
    z = tau - users
    keep = np.where(z >= 0, 0.5 * np.exp(-np.abs(z) / b), 1 - 0.5 * np.exp(-np.abs(z) / b))
    fig, ax = new_figure(width=8.0, height=2.8)
    ax.plot(users, keep, color=OKABE_ITO["blue"])
    ax.axvline(tau, ls="--", color=OKABE_ITO["black"], lw=1)
    ax.text(tau, 0.05, f"  τ = {tau:.1f}", va="bottom")
    if user_counts is not None:
        c = np.asarray(user_counts, dtype=float)
        zc = tau - c
        ax.plot(c, np.where(zc >= 0, 0.5 * np.exp(-np.abs(zc) / b), 1 - 0.5 * np.exp(-np.abs(zc) / b)), "o",
                color=OKABE_ITO["vermillion"], label="niche categories")
        ax.legend(loc="center right")
    ax.set_xlabel("distinct users in the partition")
    ax.set_ylabel("P(partition released)")
    ax.set_title(f"Laplace thresholding, ε = {epsilon:g}, δ = {delta:g}, L0 = {max_partitions}")
    return fig
