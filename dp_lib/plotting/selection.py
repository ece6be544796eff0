"""Figures of chapters/04_exponential_mechanism.ipynb: choosing privately (EM, report noisy max, permute-and-flip)."""

from __future__ import annotations


import numpy as np

from ..data import load_adult, marital_status_counts  # noqa: F401 (re-exported)
from ..random import make_rng
from ..selection import exponential_probabilities, permute_and_flip_probabilities, report_noisy_max
from ..validation import check_epsilon, check_finite_array, check_int
from .live import LivePlot
from .selection_bounds import plot_em_laplace, plot_noisy_max_loss, plot_utility_bound  # noqa: F401 (re-exported)
from .style import OKABE_ITO, book_style, new_figure

__all__ = [
    "marital_status_counts",
    "plot_selection_distributions",
    "SelectionDistributionsPlot",
    "plot_exact_vs_observed",
    "plot_noisy_max_loss",
    "plot_em_laplace",
    "plot_utility_bound",
]

_MECH_COLORS = {"EM": OKABE_ITO["blue"], "PF": OKABE_ITO["green"], "RNM": OKABE_ITO["orange"]}


class SelectionDistributionsPlot(LivePlot):
    """The slider figure of chapters/04_exponential_mechanism.ipynb (``plot_selection_distributions``), built once and updated per move.

    Three panels of horizontal bars, one per mechanism, over the ``Marital Status``
    categories; each bar carries its probability as text and each title the
    expected error. The x-axes are probabilities, fixed at [0, 1] as before. The
    view is ``n_draws`` (the noisy-max title names it; the chapter's slider keeps
    it fixed), so the chapter's slider has one view. The unchanging words of the
    titles stay in the background (text costs ~0.1 ms per glyph per move).

    Used in: chapters/04_exponential_mechanism.ipynb, through ``plot_selection_distributions``
    """

    def build(self):
        self.categories, self.counts = marital_status_counts()
        y = np.arange(self.counts.size)
        fig, axes = new_figure(1, 3, width=10.0, height=3.6, sharey=True)
        # fixed positions instead of constrained layout: the labels never change, and a redraw is twice as fast
        fig.set_layout_engine(None)  # no layout pass, not even the one LivePlot runs at the defaults
        for i, ax in enumerate(axes):
            ax.set_position([0.215 + i * 0.262, 0.135, 0.24, 0.635])
        self.fig, self.axes = fig, axes
        self.bars, self.values, self.errors = {}, {}, {}
        for ax, key in zip(axes, ("EM", "RNM", "PF")):
            self.bars[key] = ax.barh(y, np.zeros(y.size), color=_MECH_COLORS[key])
            self.values[key] = [ax.text(0.02, yi, " ", va="center", fontsize=8) for yi in y]
            ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", "", "0.5", "", "1"])
            ax.set(xlim=(0, 1), xlabel="probability of being released", title=" \n")
            ax.title.set(fontsize=9, zorder=0.9)  # below the bars: in the background (above the axes anyway)
        # Each title's second line, "expected error N people", is two texts at the title's place with an empty
        # first line: "expected error " stays in the background, "N people" changes (text costs ~0.1 ms per
        # glyph per move). The pair is centred for a four-digit N.
        for ax, key in zip(axes, ("EM", "RNM", "PF")):
            style = dict(transform=ax.title.get_transform(), va="baseline",
                         fontproperties=ax.title.get_fontproperties())
            words = ax.text(0.5, 1.0, "\nexpected error ", ha="right", zorder=0.9, **style)
            self.errors[key] = ax.text(0.5, 1.0, "\n0,000 people", ha="left", **style)
            width = words.get_window_extent().width - self.errors[key].get_window_extent().width  # public API
            for text in (words, self.errors[key]):
                text.set_x(0.5 + width / 2 / ax.bbox.width)
        axes[0].set_yticks(y, [f"{c} ({n:,.0f})" for c, n in zip(self.categories, self.counts)], fontsize=8)
        axes[0].invert_yaxis()
        axes[0].set_ylabel("Marital Status (true count)")
        # The suptitle as its unchanging words (background) and ε (changing) on one baseline, the pair centred
        # for a 6-character ε and its top at 0.98 as suptitle's: its ~60 glyphs would cost ~10 ms per move.
        words = fig.text(0.5, 0.98, "Most common marital status (monotone counts, Δ = 1) at ε = ", fontsize=11,
                         ha="right", va="baseline")
        self.epsilon_text = fig.text(0.5, 0.98, "0.0002", fontsize=11, ha="left", va="baseline")
        box, number = words.get_window_extent(), self.epsilon_text.get_window_extent()
        join = 0.5 + (box.width - number.width) / 2 / fig.bbox.width  # the words end and ε starts here
        ascent = box.y1 / fig.bbox.height - 0.98
        for text in (words, self.epsilon_text):
            text.set(x=join, y=0.98 - ascent)
        self.changing = [self.epsilon_text]
        for key in ("EM", "RNM", "PF"):
            self.changing += [*self.bars[key], *self.values[key], self.errors[key]]

    def update(self, epsilon=0.0002, seed=2024, n_draws=10_000):
        eps = check_epsilon(epsilon)
        n_draws = check_int(n_draws, "n_draws", minimum=1)
        counts, best = self.counts, self.counts.max()
        rnm = report_noisy_max(np.arange(counts.size), counts, 1.0, eps, rng=make_rng(seed),
                               monotone=True, size=n_draws)
        panels = {
            "EM": exponential_probabilities(counts, 1.0, eps, monotone=True),
            "RNM": np.bincount(rnm, minlength=counts.size) / n_draws,
            "PF": permute_and_flip_probabilities(counts, 1.0, eps, monotone=True),
        }
        labels = {"EM": "exponential mechanism (exact)", "RNM": f"noisy max, Laplace ({n_draws:,} draws)",
                  "PF": "permute-and-flip (exact)"}
        for ax, (key, p) in zip(self.axes, panels.items()):
            for bar, text, pi in zip(self.bars[key], self.values[key], p):
                bar.set_width(pi)
                text.set_x(min(pi, 0.75) + 0.02)
                text.set_text(f"{pi:.3f}")
            ax.title.set_text(f"{labels[key]}\n")  # outside self.changing: the view (n_draws) fixes it
            self.errors[key].set_text(f"\n{best - p @ counts:,.0f} people")
        self.epsilon_text.set_text(f"{eps:g}")
        return n_draws  # the RNM panel's title names it; the chapter's slider keeps it fixed: one view


def plot_selection_distributions(epsilon=0.0002, seed=2024, n_draws=10_000):
    """The slider figure of chapters/04_exponential_mechanism.ipynb: EM, report noisy max (Laplace) and PF side by side.

    Scores are the ``Marital Status`` counts, which are monotone counting
    scores with Δ = 1 under add/remove, so all three mechanisms use their
    monotone calibration: EM ∝ exp(ε u), RNM with Lap(1/ε), PF with
    exp(ε (u - u*)). EM and PF bars are exact probabilities; RNM bars are
    frequencies of ``n_draws`` releases drawn from ``make_rng(seed)``.
    Drawn by ``SelectionDistributionsPlot``.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    return SelectionDistributionsPlot().figure(epsilon=epsilon, seed=seed, n_draws=n_draws)


plot_selection_distributions.live = SelectionDistributionsPlot


@book_style
def plot_exact_vs_observed(candidates, exact, observed, *, title="", xlabel="candidate"):
    """Grouped bars: exact probabilities (dicts label -> array) beside observed frequencies.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    series = [(k, check_finite_array(v, k, ndim=1), True) for k, v in exact.items()]
    series += [(k, check_finite_array(v, k, ndim=1), False) for k, v in observed.items()]
    x = np.arange(len(candidates))
    width = 0.8 / len(series)
    fig, ax = new_figure(width=7.0, height=3.2)
    for i, (label, p, is_exact) in enumerate(series):
        ax.bar(x + (i - (len(series) - 1) / 2) * width, p, width, label=label,
               hatch=None if is_exact else "//", edgecolor="white", alpha=1.0 if is_exact else 0.8)
    labels = [str(c) for c in candidates]
    long = max(len(t) for t in labels) > 6
    ax.set_xticks(x, labels, rotation=20 if long else 0, ha="right" if long else "center", fontsize=8 if long else 10)
    ax.set(title=title, xlabel=xlabel, ylabel="probability / frequency")
    ax.legend(fontsize=8)
    return fig
