"""Figures of chapters/03_composition.ipynb: averaging under a budget, advanced composition, noisy histograms."""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator
from matplotlib.transforms import offset_copy

from ..composition_rules import advanced_epsilon as _advanced_epsilon
from ..mechanisms import laplace_mech
from ..noise import laplace_pdf
from ..random import make_rng
from ..validation import check_finite_array
from .live import LivePlot
from .style import OKABE_ITO, book_style, count_older_than_40, is_finite_number, new_figure

__all__ = ["plot_averaging", "AveragingPlot", "plot_advanced_composition", "AdvancedCompositionPlot",
           "plot_noisy_histogram"]

_NICE = [1, 2, 5, 10]  # tick steps for MaxNLocator: fewer labels than the default, still round numbers


# Fixed settings of the slider figures (not parameters: `interact` would turn them into sliders)
N_TRIALS, HALF_WIDTH, K_MAX_AVERAGING, K_MAX_ADVANCED = 10_000, 20.0, 50, 1000


def _ladder_ceiling(x: float, steps=(1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)) -> float:
    """The smallest of ``steps`` times a power of ten that is ≥ ``x`` (> 0): a y-limit from a short ladder.

    Finer than ``nice_ceiling`` (1, 2, 5): a slider figure whose y-range must follow the
    setting changes it at a few steps (each one full draw) and wastes at most 25 % of the height.

    >>> _ladder_ceiling(0.131), _ladder_ceiling(2.0), _ladder_ceiling(8.4)
    (0.15, 2.0, 10.0)
    """
    power = 10.0 ** math.floor(math.log10(x))
    for step in (*steps, 10.0):
        if step * power >= x * (1 - 1e-12):
            return float(f"{step * power:.12g}")
    return 10.0 * power  # pragma: no cover


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

    def build(self):
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

    def update(self, epsilon=1.0, k=10, seed=2024):
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
        left_top = _ladder_ceiling(1.05 * max(float(h_single.max()), float(h_averaged.max()), float(density.max())))
        right_top = _ladder_ceiling(1.05 * max(math.sqrt(2 * k_max) / epsilon, sd_single, sd_averaged))
        margin = 0.05 * (k_max - 1)
        left.set_ylim(0, left_top)
        right.set_ylim(0, right_top)
        right.set_xlim(1 - margin, k_max + margin)
        return left_top, right_top, k_max


def plot_averaging(epsilon=1.0, k=10, seed=2024):
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


class AdvancedCompositionPlot(LivePlot):
    """The second slider figure of chapters/03_composition.ipynb (``plot_advanced_composition``), built once and updated per move.

    Left: plain k ε and the advanced bound against k = 1..1,000, the region where
    advanced is smaller shaded. Its y-limit follows ε through a short ladder (the
    view): the old limit 1.05 max(1,000 ε, min(ε'(1,000), 3,000 ε)), taken at
    δ' = 1e-10 (the slider's smallest, so moving δ' never changes the view) and
    rounded up; the view also says which of the two legends is shown (the shaded
    region's entry only where advanced wins for some k ≤ 1,000). Right: the ratio
    ε' / (k ε) on a log k axis, on a fixed y-range (0, 8.4) that covers every slider
    setting (the old figure's largest, 1.05 × 8), wider only for ε beyond the slider.

    Used in: chapters/03_composition.ipynb, through ``plot_advanced_composition``
    """

    _legend_loc = dict(loc="upper left", fontsize=8)

    def build(self):
        from matplotlib.legend import Legend

        self.ks = ks = np.arange(1, K_MAX_ADVANCED + 1)
        self.fig, (left, right) = new_figure(1, 2)
        self.axes = (left, right)
        zeros = np.zeros(ks.shape)
        (self.plain,) = left.plot(ks, ks.astype(float), color=OKABE_ITO["blue"], label="plain: k·ε")
        (self.advanced,) = left.plot(ks, zeros, color=OKABE_ITO["vermillion"], label="advanced (Thm 3.5)")  # the chapter's numbering
        self.fill = left.fill_between(ks, zeros, zeros, color=OKABE_ITO["green"], alpha=0.25,
                                      label="advanced is smaller")
        left.set_title(" ", y=1.0)  # y given: no title-placement pass (it measures all tick labels)
        left.set(xlabel="k (queries)", ylabel="total ε")
        left.set_xlim(left.get_xlim())  # as autoscaling sets it for k = 1..1,000, then fixed
        left.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        left.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        # the y-label at a fixed distance, room for 4-digit tick labels (ε = 1: "2000"; the defaults show "100")
        left.yaxis.set_label_coords(0, 0.5, transform=offset_copy(left.transAxes, fig=self.fig, x=-36, units="points"))
        # two legends, one shown (part of the view): with the shaded region's entry when advanced wins somewhere,
        # else without. Below the changing artists (zorder 0.9, above the grid) they are drawn once per view;
        # the lines and the shading stay clear of the upper-left corner.
        self.legend_wins = left.legend(**self._legend_loc)
        self.legend_never = Legend(left, [self.plain, self.advanced],
                                   [self.plain.get_label(), self.advanced.get_label()], **self._legend_loc)
        left.add_artist(self.legend_never)
        for legend in (self.legend_wins, self.legend_never):
            legend.set_zorder(0.9)

        (self.ratio,) = right.semilogx(ks, np.ones(ks.shape), color=OKABE_ITO["vermillion"], label="advanced / plain")
        right.set_xlim(right.get_xlim())
        right.xaxis.set_minor_locator(NullLocator())  # fewer ticks, plain labels (not mathtext): a faster redraw
        right.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        right.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        right.axhline(1.0, color=OKABE_ITO["blue"], lw=1, label="break-even")
        self.limit = right.axhline(1.0, color=OKABE_ITO["black"], lw=1, ls="--", label="limit e^ε − 1")
        self.break_even = right.axvline(1.0, color=OKABE_ITO["green"], lw=1, ls=":")
        right.set_title(" ", y=1.0)
        right.set(xlabel="k (queries, log scale)", ylabel="advanced ε' / plain kε")
        # the legend never changes: drawn just below the lines, it is part of the background (a move does not
        # lay it out again); only the dotted break-even line can cross it, for break-even points past k ≈ 100
        right.legend(loc="upper right", fontsize=8).set_zorder(1.9)
        self.changing = [self.plain, self.advanced, self.fill, left.title,
                         self.ratio, self.limit, self.break_even, right.title]

    def update(self, epsilon=0.1, delta_prime=1e-5):
        if not (is_finite_number(epsilon) and 0 < epsilon <= 10):
            raise ValueError(f"epsilon (ε per query) must be in (0, 10] (got {epsilon!r})")
        if not (is_finite_number(delta_prime) and 0 < delta_prime < 1):
            raise ValueError(f"delta_prime (δ') must be in (0, 1) (got {delta_prime!r})")
        ks = self.ks
        plain = ks * epsilon
        advanced = _advanced_epsilon(epsilon, ks, delta_prime)
        wins = advanced < plain
        break_even = (2 * math.log(1 / delta_prime) / (2 - math.exp(epsilon)) ** 2 if epsilon < math.log(2)
                      else math.inf)
        verdict = (f"advanced wins for k ≥ {math.floor(break_even) + 1:,}" if math.isfinite(break_even)
                   else "advanced never wins (ε ≥ ln 2)")
        left, right = self.axes
        self.plain.set_ydata(plain)
        self.advanced.set_ydata(advanced)
        self.fill.set_data(ks, advanced, plain, where=wins)  # no polygon where advanced never wins
        left.title.set_text(f"ε = {epsilon:g} per query, δ' = {delta_prime:.0e}")

        ratio = advanced / plain
        self.ratio.set_ydata(ratio)
        self.limit.set_ydata([math.expm1(epsilon)] * 2)
        shown = math.isfinite(break_even) and break_even < K_MAX_ADVANCED
        self.break_even.set_xdata([break_even if shown else 1.0] * 2)
        self.break_even.set_visible(shown)
        right.title.set_text(verdict)

        # the view: the left y-limit at the slider's smallest δ' (1e-10, or δ' if smaller), from a ladder;
        # which legend is shown
        end_low = float(_advanced_epsilon(epsilon, K_MAX_ADVANCED, min(delta_prime, 1e-10)))
        top = _ladder_ceiling(1.05 * max(plain[-1], min(end_low, 3 * plain[-1])))
        right_top = max(8.4, 1.05 * 1.1 * math.expm1(epsilon))  # 8.4 for every ε ≤ 2
        some_wins = bool(wins.any())
        left.set_ylim(0, top)
        right.set_ylim(0, right_top)
        self.legend_wins.set_visible(some_wins)
        self.legend_never.set_visible(not some_wins)
        return top, right_top, some_wins


def plot_advanced_composition(epsilon=0.1, delta_prime=1e-5):
    """The second slider figure of chapters/03_composition.ipynb: total ε of k ε-DP queries, plain vs advanced.

    Left: plain composition k ε against the advanced composition bound of
    Dwork, Rothblum & Vadhan (Dwork & Roth 2014, Thm 3.20; Theorem 3.5 of the
    chapter, as the legend says)
    ε' = sqrt(2k ln(1/δ')) ε + k ε (e^ε − 1), which costs an extra δ'.
    Right: the ratio ε' / (k ε) = sqrt(2 ln(1/δ')/k) + e^ε − 1 on a log k
    axis; advanced composition helps only where it is below 1, which needs
    ε < ln 2 and k past the break-even point 2 ln(1/δ') / (2 − e^ε)².
    Built by ``AdvancedCompositionPlot``.

    Defined in: chapters/03_composition.ipynb
    """
    return AdvancedCompositionPlot().figure(epsilon=epsilon, delta_prime=delta_prime)


plot_advanced_composition.live = AdvancedCompositionPlot


@book_style
def plot_noisy_histogram(true_counts, noisy_counts, *, epsilon, title="noisy histogram"):
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
