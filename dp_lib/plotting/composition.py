"""Figures of chapters/03_composition.ipynb: averaging under a budget, advanced composition, noisy histograms.

The advanced-composition figure lives in ``dp_lib.plotting.advanced_composition`` (imported here, so this module's
``__all__`` still lists every figure of the chapter).
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import offset_copy

from ..mechanisms import laplace_mech
from ..noise import laplace_pdf
from ..random import make_rng
from ..validation import check_finite_array
from .advanced_composition import AdvancedCompositionPlot, ladder_ceiling, plot_advanced_composition
from .live import LivePlot
from .style import OKABE_ITO, book_style, count_older_than_40, is_finite_number, new_figure

__all__ = ["plot_averaging", "AveragingPlot", "plot_advanced_composition", "AdvancedCompositionPlot",
           "plot_noisy_histogram"]  # the advanced-composition pair from dp_lib.plotting.advanced_composition

_NICE = [1, 2, 5, 10]  # tick steps for MaxNLocator: fewer labels than the default, still round numbers


# Fixed settings of the slider figures (not parameters: `interact` would turn them into sliders)
N_TRIALS, HALF_WIDTH, K_MAX_AVERAGING = 10_000, 20.0, 50


class AveragingPlot(LivePlot):
    """The first slider figure of chapters/03_composition.ipynb (``plot_averaging``), built once and updated per move.

    Left: histograms of the error of 10,000 releases (one answer at ε; the mean of k
    answers at ε/k) and the Lap(1/ε) density, on a fixed x-range of ±20. Right: the
    error's standard deviation against k, exact and measured, for k up to 50 (or k).
    The y-axes follow the setting through a short ladder of limits (the view): the
    left one from the highest bar or density peak ε/2, the right one from √(2k)/ε;
    the right one starts at 0 (the old figure's autoscaling started it a little
    below √2/ε).

    Used in: chapters/03_composition.ipynb, through ``plot_averaging``
    """

    def build(self) -> None:
        self.true_answer = count_older_than_40()
        self.edges = np.linspace(-HALF_WIDTH, HALF_WIDTH, 81)
        self.x = np.linspace(-HALF_WIDTH, HALF_WIDTH, 401)
        self.fig, (left, right) = new_figure(1, 2)
        self.axes = (left, right)
        heights = np.zeros(self.edges.size - 1)
        # one filled step polygon per histogram (not 80 bar patches): a faster redraw
        self.single = left.stairs(heights, self.edges, fill=True, color=OKABE_ITO["blue"], alpha=0.55, label=" ")
        self.averaged = left.stairs(heights, self.edges, fill=True, color=OKABE_ITO["orange"], alpha=0.55,
                                    label=" ")
        (self.density,) = left.plot(self.x, np.zeros_like(self.x), color=OKABE_ITO["blue"], lw=1.2,
                                    label="Lap(1/ε) density")
        left.set_title(" ", y=1.0)  # y given: no title-placement pass (it measures all tick labels)
        left.set(xlabel="error of the released count", ylabel="density", xlim=(-HALF_WIDTH, HALF_WIDTH))
        left.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))  # fewer tick labels to lay out: a faster redraw
        left.yaxis.set_major_locator(MaxNLocator(4, steps=_NICE))
        # the y-label at a fixed distance, room for 4-character tick labels ("0.15"): the layout is made
        # once, at the defaults' "0.2", and the label must not move out of the figure for another view
        left.yaxis.set_label_coords(0, 0.5, transform=offset_copy(left.transAxes, fig=self.fig, x=-36, units="points"))
        legend = left.legend(loc="upper left", fontsize=8)
        ks = np.arange(1, K_MAX_AVERAGING + 1)
        (self.exact_one,) = right.plot(ks, np.zeros(ks.shape), color=OKABE_ITO["blue"], label="one at ε: √2/ε")
        (self.exact_avg,) = right.plot(ks, np.zeros(ks.shape), color=OKABE_ITO["orange"],
                                       label="mean of k at ε/k: √(2k)/ε")
        (self.measured,) = right.plot([1, 1], [0, 0], "o", color=OKABE_ITO["black"], ms=4, label="measured")
        right.set_title(" ", y=1.0)
        right.set(xlabel="k (answers averaged)", ylabel="standard deviation of the error")
        right.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        right.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        # the legend never changes: drawn just below the lines (it is clear of them), it is part of the
        # background and a move does not lay it out again
        right.legend(loc="upper left", fontsize=8).set_zorder(1.9)
        self.legend_texts = legend.get_texts()[:2]
        self.changing = [self.single, self.averaged, self.density, left.title, *self.legend_texts,
                         self.exact_one, self.exact_avg, self.measured, right.title]

    def update(self, epsilon: float = 1.0, k: int = 10, seed: int = 2024) -> tuple:
        if not (is_finite_number(epsilon) and epsilon > 0):
            raise ValueError(f"epsilon (ε) must be a number > 0 (got {epsilon!r})")
        if not (isinstance(k, Integral) and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"k must be a whole number ≥ 1 (got {k!r})")
        true_answer = self.true_answer
        rng = make_rng(seed)
        single = laplace_mech(np.full(N_TRIALS, float(true_answer)), 1.0, epsilon, rng=rng) - true_answer
        averaged = laplace_mech(np.full((N_TRIALS, k), float(true_answer)), 1.0, epsilon / k, rng=rng).mean(axis=1)
        averaged -= true_answer
        std_one, std_avg = math.sqrt(2) / epsilon, math.sqrt(2 * k) / epsilon
        sd_single, sd_averaged = float(single.std()), float(averaged.std())

        left, right = self.axes
        h_single = np.histogram(single, bins=self.edges, density=True)[0]
        h_averaged = np.histogram(averaged, bins=self.edges, density=True)[0]
        density = laplace_pdf(self.x, scale=1 / epsilon)
        self.single.set_data(h_single)
        self.averaged.set_data(h_averaged)
        self.density.set_ydata(density)
        labels = (f"one at ε: std {sd_single:.2f}", f"mean of {k} at ε/k: std {sd_averaged:.2f}")
        self.relabel((self.single, self.averaged), self.legend_texts, labels)
        left.title.set_text(f"same budget ε = {epsilon:g}, split {k} ways")

        k_max = max(K_MAX_AVERAGING, k)
        ks = np.arange(1, k_max + 1)
        self.exact_one.set_data(ks, np.full(ks.shape, std_one))
        self.exact_avg.set_data(ks, np.sqrt(2 * ks) / epsilon)
        self.measured.set_data([k, k], [sd_single, sd_averaged])
        right.title.set_text(f"error std at k = {k}: ×{std_avg / std_one:.2f}")

        # the view: y-limits from a ladder (peak of the bars or of the density ε/2; the top of √(2k)/ε),
        # the x-range of the right panel as autoscaling gave it (5 % margins around 1..max(50, k))
        left_top = ladder_ceiling(1.05 * max(float(h_single.max()), float(h_averaged.max()), float(density.max())))
        right_top = ladder_ceiling(1.05 * max(math.sqrt(2 * k_max) / epsilon, sd_single, sd_averaged))
        margin = 0.05 * (k_max - 1)
        left.set_ylim(0, left_top)
        right.set_ylim(0, right_top)
        right.set_xlim(1 - margin, k_max + margin)
        return left_top, right_top, k_max


def plot_averaging(epsilon: float = 1.0, k: int = 10, seed: int = 2024) -> Figure:
    """The first slider figure of chapters/03_composition.ipynb: k answers at ε/k, averaged, vs one answer at ε.

    Left: the error (released − true) of 10,000 releases of the count of
    people older than 40 in the Adult data, once with a single Laplace answer at
    ε and once as the mean of k answers at ε/k each. Both spend ε in total.
    Right: the standard deviations against k, exact (√2/ε and √(2k)/ε) and
    measured. The x-axis is fixed, so moving the sliders shows the spread.
    The noise comes from ``make_rng(seed)``. Built by ``AveragingPlot``.

    Defined in: chapters/03_composition.ipynb
    """
    return AveragingPlot().figure(epsilon=epsilon, k=k, seed=seed)


plot_averaging.live = AveragingPlot


@book_style
def plot_noisy_histogram(true_counts: pd.Series, noisy_counts: pd.Series, *, epsilon: float,
                         title: str = "noisy histogram") -> Figure:
    """True vs noisy counts per category (left) and the noise in each bin (right).

    ``true_counts`` and ``noisy_counts`` are pandas Series with the same index.
    The band on the right is ±2 standard deviations of Lap(1/ε).

    Defined in: chapters/03_composition.ipynb
    """
    true = check_finite_array(true_counts, "true_counts", ndim=1, allow_empty=False)
    noisy = check_finite_array(noisy_counts.reindex(true_counts.index), "noisy_counts", ndim=1)
    labels = [str(c) for c in true_counts.index]
    y = np.arange(len(labels))
    fig, (left, right) = new_figure(1, 2, height=0.3 * len(labels) + 1.2, sharey=True)
    left.barh(y, true, color=OKABE_ITO["sky"], label="true count")
    left.plot(noisy, y, "|", color=OKABE_ITO["vermillion"], ms=12, mew=2, label="noisy count")
    left.set_title(title, y=1.0)  # y given: no title-placement pass (it measures all tick labels)
    left.set(xlabel="count", yticks=y, yticklabels=labels)
    left.invert_yaxis()
    left.legend(loc="center right", fontsize=8)
    band = 2 * math.sqrt(2) / epsilon
    right.axvspan(-band, band, color=OKABE_ITO["orange"], alpha=0.2, label="±2 std of Lap(1/ε)")
    right.plot(noisy - true, y, "o", color=OKABE_ITO["vermillion"], label="noisy − true")
    right.axvline(0, color=OKABE_ITO["black"], lw=1)
    right.set_title(f"noise per bin, ε = {epsilon:g}", y=1.0)
    right.set(xlabel="noisy − true")
    right.legend(loc="lower right", fontsize=8)
    for ax in (left, right):  # fewer tick labels to lay out (3 instead of 6 on the counts): a faster draw
        ax.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
    return fig
