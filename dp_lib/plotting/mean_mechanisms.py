"""Figures of chapters/07_local_sensitivity.ipynb that compare mean mechanisms on the Adult ages.

Sample-and-aggregate's error against the number of chunks, and the four mean
mechanisms (global sensitivity, PTR, smooth sensitivity, sample-and-aggregate)
side by side with a slider. Split from ``dp_lib.plotting.sensitivity``, which
re-exports these names.
"""

from __future__ import annotations

import math
from functools import lru_cache
from numbers import Integral

import numpy as np
from matplotlib.ticker import FuncFormatter, NullLocator

from ..data import ADULT_PUBLIC_SIZE_BOUND, load_adult, ssn_numbers
from ..mechanisms import pct_error
from ..random import make_rng
from ..aggregate import chunk_answers, hash_chunks, sample_and_aggregate
from ..sensitivity import (
    gs_mean,
    ptr_mean,
    smooth_mean,
)
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, book_style, decade_ticks, fixed_layout,  is_finite_number, new_figure

__all__ = ["plot_saa_tradeoff", "plot_mechanism_comparison", "MechanismComparisonPlot"]

UPPER = 100.0  # the public upper bound on an age (also dp_lib.plotting.sensitivity.UPPER)


@lru_cache(maxsize=1)
def _adult_ages_and_ids():
    """Adult ages (float) and the SSN as an integer per-record identifier, read once."""
    adult = load_adult()
    ids = ssn_numbers(adult["SSN"])
    ages = adult["Age"].to_numpy(dtype=float)
    ages.flags.writeable = ids.flags.writeable = False
    return ages, ids


def _chunk_stds(values, keys, k, lower, upper):
    """``chunk_answers(values, np.std, k, lower, upper, keys=keys)``, vectorized (np.bincount).

    The same chunks, the same two-pass standard deviation (mean first, then the
    mean squared deviation from it) and the same default (the midpoint) for an
    empty chunk, without a Python call per chunk: 10,000 chunks take a
    millisecond instead of a quarter of a second. tests/test_sensitivity.py
    checks it against ``chunk_answers``.
    """
    labels = hash_chunks(keys, k)
    counts = np.bincount(labels, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.bincount(labels, weights=values, minlength=k) / counts
        stds = np.sqrt(np.bincount(labels, weights=(values - means[labels]) ** 2, minlength=k) / counts)
    return np.clip(np.where(np.isfinite(stds), stds, (lower + upper) / 2), lower, upper)


@book_style
def plot_saa_tradeoff(epsilon=1.0, *, ks=(10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)):
    """Sample-and-aggregate on the Adult ages: |bias|, noise std and RMSE against the number of chunks K.

    Chunks by a hash of the SSN. Left: f = mean clipped to [0, 100]; right:
    f = standard deviation clipped to [0, 50]. The bias is exact
    (mean of the chunk answers minus f of the whole data), the noise std is
    √2·(H - L)/(Kε) for the answer range [L, H], so the figure needs no simulation (K is the keyword ``k`` of ``chunk_answers``).

    Defined in: chapters/07_local_sensitivity.ipynb
    """
    ages, ids = _adult_ages_and_ids()
    ks = np.asarray(ks)
    fig, axes = new_figure(1, 2)
    fixed_layout(fig, left=0.0804, bottom=0.149, right=0.9948, top=0.9247, wspace=0.2066)
    for ax, (name, lo, hi, truth) in zip(axes, [("mean", 0.0, 100.0, ages.mean()), ("std", 0.0, 50.0, ages.std())]):
        if name == "mean":
            bias = np.array([chunk_answers(ages, "mean", int(k), lo, hi, keys=ids).mean() - truth for k in ks])
        else:  # chunk_answers(ages, np.std, k, lo, hi, keys=ids), vectorized
            bias = np.array([_chunk_stds(ages, ids, int(k), lo, hi).mean() - truth for k in ks])
        noise = math.sqrt(2) * (hi - lo) / (ks * epsilon)
        ax.loglog(ks, np.abs(bias), "o-", ms=3, color=OKABE_ITO["orange"], label="|bias|")
        ax.loglog(ks, noise, "s-", ms=3, color=OKABE_ITO["sky"], label="noise std")
        ax.loglog(ks, np.hypot(bias, noise), color=OKABE_ITO["black"], lw=2, label="RMSE")
        ax.set(title=f"f = {name} of a chunk, clipped to [{lo:g}, {hi:g}]", xlabel="number of chunks K",
               ylabel="years")
        decade_ticks(ax)
        ax.legend(fontsize=8)
    return fig


COMPARISON_RUNS = 1000  # a constant, not a parameter: `interact` would make it a slider


class MechanismComparisonPlot(LivePlot):
    """The slider figure of chapters/07_local_sensitivity.ipynb (``plot_mechanism_comparison``), built once and updated per move.

    Four step histograms of the percent error (80 log-spaced bins from 10^-5
    to 10^3 %, fixed) and one legend entry per mechanism with its median and
    share of ⊥. The y-axis (runs per bin, autoscaled in the old figure) steps
    through 1, 2, 5 × 10^k as the highest bin grows or shrinks (the view),
    up to 1,050 (all 1,000 runs in one bin). Fixed axes position (no layout pass).

    Speed: text is the costly part of a move, so the legend's boxes and
    mechanism names are drawn once, with the figure's background; only what
    follows each name (PTR's b, the k of sample-and-aggregate, the median,
    the share of ⊥) is a changing text, placed right after its name.

    Used in: chapters/07_local_sensitivity.ipynb, through ``plot_mechanism_comparison``
    """

    colours = ("blue", "vermillion", "green", "orange")
    names = ("GS: noisy sum / noisy count", "PTR", "smooth sensitivity (Laplace)", "sample-and-aggregate")

    def build(self):
        from matplotlib.figure import Figure
        from matplotlib.legend_handler import HandlerPatch
        from matplotlib.patches import StepPatch
        from matplotlib.text import Annotation

        self.edges = np.logspace(-5, 3, 81)
        self.fig = Figure(figsize=(8.0, 4.0))  # fixed position: the layout does not depend on the setting
        ax = self.ax = self.fig.add_axes((0.1, 0.252, 0.872, 0.688))
        zeros = np.zeros(self.edges.size - 1)
        self.steps = [ax.stairs(zeros, self.edges, lw=1.8, color=OKABE_ITO[c]) for c in self.colours]
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # plain text: no mathtext to typeset
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set(title=" ", xlabel="percent error (log scale)", ylabel="runs", xlim=(self.edges[0], self.edges[-1]))
        ax.yaxis.set_label_coords(-0.08, 0.5)  # clear of four-digit tick labels (the view reaches 1,050)
        # the legend of the old figure, two columns below the axes; the step outlines as boxes, as
        # ax.hist(histtype="step") shows them; column 2 starts clear of column 1's longest line
        legend = self.fig.legend(self.steps, self.names, fontsize=8, loc="upper left", ncol=2,
                                 bbox_to_anchor=(0.08, 0.125), columnspacing=12.0,
                                 handler_map={StepPatch: HandlerPatch()})
        legend.set_zorder(2)  # drawn before the texts that continue its names (zorder 3)
        self.rest = []  # what follows each name, drawn where the name's text ends
        for name in legend.get_texts():
            self.rest.append(self.fig.add_artist(Annotation(" ", (1, 0), xycoords=name, va="bottom", fontsize=8)))
        self.changing = [*self.steps, ax.title, *self.rest]

    def update(self, epsilon=1.0, bound=0.005, k=1000, seed=2024):
        ages, ids = _adult_ages_and_ids()
        n = ages.size
        if not (is_finite_number(epsilon) and epsilon > 0):
            raise ValueError(f"epsilon (ε) must be a number > 0 (got {epsilon!r})")
        if not (is_finite_number(bound) and bound > 0):
            raise ValueError(f"bound (the proposed bound Δ̂) must be a number > 0 (got {bound!r})")
        if not (isinstance(k, Integral) and not isinstance(k, bool) and 1 <= k <= n):
            raise ValueError(f"k must be a whole number of chunks in [1, {n:,}] (got {k!r})")
        delta, rng, truth = 1 / ADULT_PUBLIC_SIZE_BOUND**2, make_rng(seed), ages.mean()
        runs = (  # in this order from rng, as in the chapter
            gs_mean(ages, UPPER, epsilon, rng=rng, size=COMPARISON_RUNS),
            ptr_mean(ages, UPPER, bound, epsilon / 2, delta, rng=rng, size=COMPARISON_RUNS),
            smooth_mean(ages, UPPER, epsilon, delta, rng=rng, size=COMPARISON_RUNS),
            sample_and_aggregate(ages, "mean", k, 0.0, UPPER, epsilon, rng=rng, keys=ids, size=COMPARISON_RUNS),
        )
        after_names = ("", f", Δ̂ = {bound:.4g}", "", f", k = {k:,}")  # the legend entry: name, this, the numbers
        highest = 0
        for step, rest, label, out in zip(self.steps, self.rest, after_names, runs):
            released = out[~np.isnan(out)]
            step.set_visible(released.size > 0)
            if released.size == 0:
                rest.set_text(f"{label}: ⊥ in every run")
                continue
            err = np.clip(pct_error(truth, released), self.edges[0], self.edges[-1])
            counts, _ = np.histogram(err, bins=self.edges)
            step.set_data(counts)
            highest = max(highest, int(counts.max()))
            note = f", ⊥ {1 - released.size / out.size:.0%}" if released.size < out.size else ""
            rest.set_text(f"{label}: median {np.median(err):.3g} %{note}")
        self.ax.title.set_text(f"mean age, {COMPARISON_RUNS:,} runs each, ε = {epsilon:.3g} "
                               "(PTR and smooth: δ = 1/N², N = 48,842)")
        top = min(nice_ceiling(1.05 * max(highest, 1)), 1.05 * COMPARISON_RUNS)  # no bin holds more than all runs
        self.ax.set_ylim(0, top)
        return top


def plot_mechanism_comparison(epsilon=1.0, bound=0.005, k=1000, seed=2024):
    """The slider figure of chapters/07_local_sensitivity.ipynb: percent error of four private means of the Adult ages at the same ε.

    1,000 runs each (``COMPARISON_RUNS``), from ``make_rng(seed)``: the global-sensitivity mean
    (noisy sum / noisy count, ε-DP), PTR with ε/2 for the test and ε/2 for the
    release at proposed bound ``bound`` ((ε, δ)-DP; ⊥ runs are counted, not
    plotted), smooth sensitivity with Laplace noise ((ε, δ)-DP) and
    sample-and-aggregate with ``k`` hash chunks of the mean (ε-DP). δ = 1/N² for the public
    size bound N = 48,842 (``ADULT_PUBLIC_SIZE_BOUND``), not the private n.
    Ages are clipped to [0, 100]. The x-axis is logarithmic and fixed.
    Built by ``MechanismComparisonPlot``.

    Defined in: chapters/07_local_sensitivity.ipynb
    """
    return MechanismComparisonPlot().figure(epsilon=epsilon, bound=bound, k=k, seed=seed)


plot_mechanism_comparison.live = MechanismComparisonPlot
