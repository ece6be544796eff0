"""Figures of chapters/09_local_dp.ipynb: randomized response, k-RR and unary encoding, local vs central.

The slider figures work from the 14 per-occupation counts of the Adult data
(cached once) and simulate a survey with the aggregate paths of
``dp_lib.local`` (binomial draws per category), so a redraw costs O(k), not O(n).

Size: about 185 lines of code (above ~150): the chapter's five figures, two of them slider classes,
share the validation and style helpers at the top; split by figure they would be repeated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from collections.abc import Hashable
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

import math
from numbers import Real

import numpy as np
import pandas as pd

from ..data import OCCUPATIONS, load_adult, occupation_counts  # noqa: F401 (re-exported)
from ..local import krr_params, krr_perturb_counts, krr_variance, rr_variance
from ..unary import debias_counts, oue_params, sue_params, unary_epsilon, unary_perturb_counts, unary_variance
from ..mechanisms import laplace_mech
from ..random import make_rng
from ..validation import check_epsilon, check_finite_array, check_int
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, book_style, decade_ticks, fixed_layout,  new_figure

__all__ = [
    "OCCUPATIONS", "occupation_counts", "plot_estimates_vs_normal", "plot_unary_histogram", "UnaryHistogramPlot",
    "plot_sue_vs_oue", "SueVsOuePlot", "plot_protocol_choice", "plot_local_vs_central",
]

def _valid_pq(p, q) -> bool:
    return all(isinstance(x, Real) and math.isfinite(x) for x in (p, q)) and 0 < q < p < 1


@book_style
def plot_estimates_vs_normal(estimates: ArrayLike, true_count: float, variance: float, *, title: str = "",
                             xlabel: str = "estimated count") -> Figure:
    """Histogram of repeated estimates against N(true_count, variance) and the true value.

    Defined in: chapters/09_local_dp.ipynb
    """
    from scipy.stats import norm  # here, not at the top: importing scipy.stats costs every chapter about a second

    est = check_finite_array(estimates, "estimates", ndim=1, allow_empty=False)
    sd = math.sqrt(float(variance))
    x = np.linspace(true_count - 4.5 * sd, true_count + 4.5 * sd, 401)
    fig, ax = new_figure(width=6.0)
    ax.hist(est, bins=40, density=True, color=OKABE_ITO["sky"], label=f"{est.size:,} surveys")
    ax.plot(x, norm.pdf(x, true_count, sd), color=OKABE_ITO["vermillion"], label=f"normal, std {sd:.1f} (formula)")
    ax.axvline(true_count, color=OKABE_ITO["black"], ls="--", lw=1, label=f"true count {true_count:,}")
    ax.set(title=title, xlabel=xlabel, ylabel="density")
    ax.legend(fontsize=8)
    return fig


class UnaryHistogramPlot(LivePlot):
    """The p/q slider figure of chapters/09_local_dp.ipynb (``plot_unary_histogram``), built once and updated per move.

    Grey bars: the true occupation counts (drawn once); blue bars with ±2 std
    error bars: one survey's estimates. The x-axis follows the error bars, as
    in the old figure, but on a ladder (the view): its right end is the
    1, 2, 5 × 10^k step at or above the largest count and bar end, its left
    end 0 when no error bar reaches below 0, else minus such a step (at least
    2 % of the right end), each with 3 % of the span to spare. Across the
    whole slider range that gives under 20 views. Fixed axes position.

    Used in: chapters/09_local_dp.ipynb, through ``plot_unary_histogram``
    """

    def build(self) -> None:
        from matplotlib.figure import Figure

        counts = occupation_counts()
        self.counts, self.order = counts, counts.sort_values().index
        self.n = int(counts.sum())
        y = np.arange(len(self.order))
        self.fig = Figure(figsize=(8.0, 4.2))  # fixed position: the labels never change, and a redraw is faster
        ax = self.ax = self.fig.add_axes((0.17, 0.12, 0.8, 0.8))
        ax.barh(y + 0.2, counts[self.order], height=0.4, color=OKABE_ITO["black"], alpha=0.35, label="true count")
        ax.set_yticks(y, self.order, fontsize=8)
        low, high = -0.4, y.size - 1 + 0.4  # the bars' extent, and the 5 % margins autoscaling gave: fixed
        ax.set(xlabel="number of respondents", title=" ", ylim=(low - 0.05 * (high - low), high + 0.05 * (high - low)))
        zeros = np.zeros(y.size)
        self.bars = ax.barh(y - 0.2, zeros, height=0.4, xerr=zeros, color=OKABE_ITO["blue"], error_kw={"lw": 0.8},
                            label="estimate ± 2 std")
        (self.errorbars,) = self.bars.errorbar.lines[2]  # the LineCollection of the ±2 std bars
        self.y = y - 0.2
        ax.legend(loc="lower right", fontsize=8)
        self.changing = [*self.bars.patches, self.errorbars, ax.title]

    def update(self, p: float = 0.75, q: float = 0.25, seed: int = 2024) -> Hashable:
        if not _valid_pq(p, q):
            raise ValueError(f"p and q must satisfy 0 < q < p < 1 (got p = {p!r}, q = {q!r}): with p ≤ q a "
                             "reported 1 is no more likely for the true value than for any other, so "
                             "(C − nq)/(p − q) is undefined. Move p above q.")
        counts, order, n = self.counts, self.order, self.n
        est = debias_counts(unary_perturb_counts(counts, p, q, rng=make_rng(seed)), n, p, q)
        sd = np.sqrt(unary_variance(n, p, q, count=counts.to_numpy()))
        est_sorted = np.asarray(est[order], dtype=float)
        err = 2 * np.asarray(pd.Series(sd, counts.index)[order], dtype=float)
        for rect, width in zip(self.bars.patches, est_sorted):
            rect.set_width(width)
        self.errorbars.set_segments(np.stack([np.column_stack([est_sorted - err, self.y]),
                                              np.column_stack([est_sorted + err, self.y])], axis=1))
        self.ax.title.set_text(f"unary encoding, p = {p:.2f}, q = {q:.2f}:  ε = {unary_epsilon(p, q):.2f},  "
                               f"std of a count ≈ {math.sqrt(unary_variance(n, p, q)):,.0f}")
        # the axis follows the error bars (room for negative estimates only when they occur), on a ladder
        low, high = float(np.min(est - 2 * sd)), max(float(counts.max()), float(np.max(est + 2 * sd)))
        right = nice_ceiling(high)
        left = 0.0 if low >= 0 else -nice_ceiling(max(-low, 0.02 * right))
        span = right - left
        self.ax.set_xlim(left - 0.03 * span, right + 0.03 * span)
        return left, right


def plot_unary_histogram(p: float = 0.75, q: float = 0.25, seed: int = 2024) -> Figure:
    """The p/q slider figure: true vs estimated occupation counts from unary encoding.

    One survey of the 30 718 respondents with an occupation, drawn with
    ``unary_perturb_counts`` from ``make_rng(seed)``; error bars are ±2 exact
    standard deviations. ε = ln(p(1-q)/((1-p)q)) is shown in the title. An
    unusable pair (p <= q, or p, q outside (0, 1)) raises ``ValueError`` saying
    why (the slider shows that message instead of the figure). Built by ``UnaryHistogramPlot``.

    Defined in: chapters/09_local_dp.ipynb
    """
    return UnaryHistogramPlot().figure(p=p, q=q, seed=seed)


plot_unary_histogram.live = UnaryHistogramPlot


class SueVsOuePlot(LivePlot):
    """The ε slider figure of chapters/09_local_dp.ipynb (``plot_sue_vs_oue``), built once and updated per move.

    Per occupation, the standard deviation of the estimates over ``n_surveys``
    simulated surveys (dots) and the exact one (black ticks), for SUE and OUE.
    As in the old figure, the x-axis is linear and fitted to the exact
    standard deviations at this ε, so it changes with every ε: the x-axis
    (ticks, tick labels, vertical grid lines) is one of the changing artists
    and is drawn with the dots on every move: moving ε needs no new view. The
    y-axis (the 14 occupation names) stays in the background, and so does the
    x-axis label, which names ``n_surveys`` (the view). Fixed axes position.

    Used in: chapters/09_local_dp.ipynb, through ``plot_sue_vs_oue``
    """

    def build(self) -> None:
        from matplotlib.backends.backend_agg import RendererAgg
        from matplotlib.figure import Figure
        from matplotlib.font_manager import FontProperties
        from matplotlib.lines import Line2D
        from matplotlib.text import Annotation

        counts = occupation_counts()
        self.n, self.c = int(counts.sum()), counts.to_numpy()
        self.fig = Figure(figsize=(7.5, 4.0))  # fixed position: the labels never change, and a redraw is faster
        ax = self.ax = self.fig.add_axes((0.19, 0.13, 0.78, 0.7))
        y = np.arange(self.c.size)
        zeros = np.zeros(y.size)
        self.lines = []  # (simulated dots, exact ticks) for SUE, then OUE
        for shift, color in ((0.15, OKABE_ITO["orange"]), (-0.15, OKABE_ITO["blue"])):
            (dots,) = ax.plot(zeros, y + shift, "o", color=color, ms=6)
            (ticks,) = ax.plot(zeros, y + shift, "|", color=OKABE_ITO["black"], ms=10)
            self.lines.append((dots, ticks))
        ax.set_yticks(y, OCCUPATIONS, fontsize=8)
        low, high = -0.15, y.size - 1 + 0.15
        ax.set_ylim(low - 0.05 * (high - low), high + 0.05 * (high - low))  # what autoscaling gave: fixed
        # the x-axis label names n_surveys only: a figure text in the background (the view), where the axis
        # would put it (centred under the axes, its top 4 pt below the tick labels), not redrawn per move
        self.xlabel = self.fig.text(0.58, 22.8333 / 400, " ", ha="center", va="top")
        ax.xaxis.set_label_coords(0.5, 0.0)  # its own label stays empty: fixed, so no draw measures where it goes
        ax.set_title(" ", pad=22)
        # the legend of the old figure, its names drawn once (the background): only "(p = …, q = …)" after
        # SUE and OUE changes, drawn right after the name; the columns leave room for it (it has a fixed width)
        exact = Line2D([], [], ls="none", marker="|", color=OKABE_ITO["black"], ms=10)
        after = RendererAgg(1, 1, self.fig.dpi).get_text_width_height_descent(
            " (p = 0.000, q = 0.000)", FontProperties(size=8), ismath=False)[0] * 72 / self.fig.dpi / 8  # in ems
        legend = self.fig.legend([dots for dots, _ in self.lines] + [exact], ["SUE", "OUE", "exact formula"],
                                 fontsize=8, loc="lower center", bbox_to_anchor=(0.58, 0.83), ncol=3, frameon=False,
                                 columnspacing=2.0 + after)
        legend.set_zorder(2)  # drawn before the texts that continue its names (zorder 3)
        self.after_names = [self.fig.add_artist(Annotation(" ", (1, 0), xycoords=name, va="bottom", fontsize=8))
                            for name in legend.get_texts()[:2]]
        # the x-axis moves with ε; the y-axis (drawn with it at zorder 0.5 by default) does not: put it just
        # below, so that it stays in the background (the two grids cross in the same colour: the order is invisible)
        ax.yaxis.set_zorder(0.4)
        self.changing = [ax.xaxis, *(a for pair in self.lines for a in pair), ax.title, *self.after_names]

    def update(self, epsilon: float = math.log(9), seed: int = 2024, n_surveys: int = 500) -> Hashable:
        eps = check_epsilon(epsilon)
        n_surveys = check_int(n_surveys, "n_surveys", minimum=2)
        n, c, rng = self.n, self.c, make_rng(seed)
        ratio = unary_variance(n, *sue_params(eps)) / unary_variance(n, *oue_params(eps))
        exact = []
        for (dots, ticks), text, params in zip(self.lines, self.after_names, (sue_params(eps), oue_params(eps))):
            errors = debias_counts(unary_perturb_counts(c, *params, rng=rng, size=n_surveys), n, *params) - c
            dots.set_xdata(errors.std(axis=0, ddof=1))
            exact.append(np.sqrt(unary_variance(n, *params, count=c)))
            ticks.set_xdata(exact[-1])
            text.set_text(f" (p = {params[0]:.3f}, q = {params[1]:.3f})")
        exact = np.concatenate(exact)
        self.ax.set_xlim(0.85 * exact.min(), 1.15 * exact.max())  # linear and fitted: the SUE/OUE gap fills the width
        self.ax.title.set_text(f"SUE vs OUE at ε = {eps:.2f}: count-free variance ratio SUE/OUE = {ratio:.2f}")
        self.xlabel.set_text(f"standard deviation of the estimated count ({n_surveys} surveys)")
        return n_surveys


def plot_sue_vs_oue(epsilon: float = math.log(9), seed: int = 2024, n_surveys: int = 500) -> Figure:
    """The ε slider figure: SUE vs OUE on the occupation counts at the same ε.

    For each occupation, the standard deviation of its estimate over
    ``n_surveys`` simulated surveys (dots, drawn with ``unary_perturb_counts``
    from ``make_rng(seed)``) against the exact formula (black ticks). The
    x-axis is linear and fitted to the exact standard deviations at this ε,
    so the gap between the two protocols fills the width. Built by ``SueVsOuePlot``.

    Defined in: chapters/09_local_dp.ipynb
    """
    return SueVsOuePlot().figure(epsilon=epsilon, seed=seed, n_surveys=n_surveys)


plot_sue_vs_oue.live = SueVsOuePlot


@book_style
def plot_protocol_choice(epsilon: float = math.log(9), k: int = 14, k_max: int = 60) -> Figure:
    """Variance per respondent of GRR, SUE and OUE against the domain size, at one ε.

    The count-free variances cross at k = 3e^ε + 2: below it k-RR is better.

    Defined in: chapters/09_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    ks = np.arange(2, check_int(k_max, "k_max", minimum=3) + 1)
    fig, ax = new_figure(width=6.5)
    ax.plot(ks, [krr_variance(1, int(j), eps) for j in ks], color=OKABE_ITO["green"], label="GRR (k-RR)")
    ax.axhline(unary_variance(1, *oue_params(eps)), color=OKABE_ITO["blue"], label="OUE")
    ax.axhline(unary_variance(1, *sue_params(eps)), color=OKABE_ITO["orange"], label="SUE")
    cross = 3 * math.exp(eps) + 2
    ax.axvline(cross, color=OKABE_ITO["black"], ls="--", lw=1, label=f"$k = 3e^\\varepsilon + 2$ = {cross:.1f}")
    ax.plot([k], [krr_variance(1, k, eps)], "o", color=OKABE_ITO["green"], label=f"k = {k}")
    ax.set(title=f"which protocol? ε = {eps:.2f}", xlabel="domain size k", ylabel="variance of a count / n",
           ylim=(0, None))
    ax.legend(fontsize=8)
    return fig


@book_style
def plot_local_vs_central(epsilon: float = math.log(3), k: int = 14, seed: int = 2024,
                          n_surveys: int = 300) -> Figure:
    """Standard deviation of one count against the number of respondents n (log-log).

    Local protocols (binary RR for a yes/no question; k-RR and OUE for a
    k-value histogram, each value held by n/k respondents) against the
    central Laplace mechanism Lap(1/ε). Lines: exact formulas; markers:
    ``n_surveys`` simulated surveys each (aggregate paths), from ``make_rng(seed)``.

    Defined in: chapters/09_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=2)
    rng = make_rng(seed)
    ns = np.logspace(2, 7, 41).round().astype(int)
    p_rr = 1 / (1 + math.exp(-eps))
    oue = oue_params(eps)
    exact = {
        "binary RR (yes/no)": [math.sqrt(rr_variance(int(n), p_rr)) for n in ns],
        f"k-RR, k = {k}": [math.sqrt(krr_variance(int(n), k, eps, count=n // k)) for n in ns],
        f"OUE, k = {k}": [math.sqrt(unary_variance(int(n), *oue, count=n // k)) for n in ns],
        "central Laplace, Δ = 1": np.full(ns.size, math.sqrt(2) / eps),
    }
    colors = [OKABE_ITO[c] for c in ("orange", "green", "blue", "vermillion")]
    fig, ax = new_figure(width=6.5, height=4.0)
    fixed_layout(fig, left=0.0889, bottom=0.1192, right=0.9936, top=0.9397)
    for (label, line), color in zip(exact.items(), colors):
        ax.plot(ns, line, color=color, label=label)
    for n in 10 ** np.arange(2, 8):
        c = np.full(k, n // k)
        c[0] += n - c.sum()
        c0 = c[-1]  # the category with exactly n // k respondents
        sims = [
            debias_counts(krr_perturb_counts([c0, n - c0], eps, rng=rng, size=n_surveys), n, p_rr, 1 - p_rr)[:, 0],
            debias_counts(krr_perturb_counts(c, eps, rng=rng, size=n_surveys), n, *krr_params(eps, k))[:, -1],
            debias_counts(unary_perturb_counts(c, *oue, rng=rng, size=n_surveys), n, *oue)[:, -1],
            laplace_mech(np.full(n_surveys, float(c0)), 1.0, eps, rng=rng),
        ]
        for est, color in zip(sims, colors):
            ax.plot([n], [np.sqrt(np.mean((est - c0) ** 2))], "o", color=color, ms=5)
    ax.plot([], [], "o", color="grey", ms=5, label=f"simulated ({n_surveys} surveys)")
    ax.set(xscale="log", yscale="log", xlabel="number of respondents n", ylabel="std of one estimated count",
           title=f"local vs central, ε = {eps:.2f}")
    decade_ticks(ax)
    ax.legend(fontsize=8)
    return fig
