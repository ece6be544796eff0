"""Figures of chapters/06_local_sensitivity.ipynb: the local-sensitivity leak, PTR, smooth sensitivity, sample-and-aggregate."""

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
    distance_to_high_sensitivity,
    gs_mean,
    log_smooth_sensitivity_terms,
    ptr_bottom_probability,
    ptr_mean,
    ptr_threshold,
    smooth_beta,
    smooth_mean,
    smooth_sensitivity_mean,
)
from ..validation import check_finite_array
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, book_style, decade_ticks, fixed_layout,  is_finite_number, new_figure

__all__ = [
    "plot_ls_leak",
    "plot_ptr_refusal",
    "plot_smooth_terms",
    "plot_saa_tradeoff",
    "plot_mechanism_comparison",
    "MechanismComparisonPlot",
]

UPPER = 100.0


@lru_cache(maxsize=1)
def _adult_ages_and_ids():
    """Adult ages (float) and the SSN as an integer per-record identifier, read once."""
    adult = load_adult()
    ids = ssn_numbers(adult["SSN"])
    ages = adult["Age"].to_numpy(dtype=float)
    ages.flags.writeable = ids.flags.writeable = False
    return ages, ids


@book_style
def plot_ls_leak(releases_a, releases_b, *, centre, threshold, epsilon, success,
                 labels=("x", "x'"), half_width=None):
    """The leak of local-sensitivity noise: two output histograms and the success rate against the ε-DP cap.

    Left: histograms of the releases on two neighbouring data sets with the
    same mean ``centre``, and the distinguisher's band |y - centre| < threshold.
    Right: the cap e^ε/(1 + e^ε) that ε-DP puts on the success rate of any test
    (equal priors), against the measured ``success`` of the band test, which
    does not depend on ε because only the ratio of the two noise scales matters.

    Defined in: chapters/06_local_sensitivity.ipynb
    """
    a = check_finite_array(releases_a, "releases_a", ndim=1, allow_empty=False)
    b = check_finite_array(releases_b, "releases_b", ndim=1, allow_empty=False)
    hw = half_width or 6 * threshold
    edges = np.linspace(centre - hw, centre + hw, 81)
    fig, (left, right) = new_figure(1, 2)
    fixed_layout(fig, left=0.1035, bottom=0.149, right=0.9948, top=0.9247, wspace=0.1836)
    left.hist(a, bins=edges, density=True, histtype="step", lw=1.5, color=OKABE_ITO["blue"], label=labels[0])
    left.hist(b, bins=edges, density=True, histtype="step", lw=1.5, color=OKABE_ITO["vermillion"], label=labels[1])
    left.axvspan(centre - threshold, centre + threshold, color=OKABE_ITO["yellow"], alpha=0.3,
                 label="band: guess x'")
    left.set(title=f"releases at ε = {epsilon:.3g}", xlabel="released mean age", ylabel="density",
             xlim=(centre - hw, centre + hw))
    left.legend(fontsize=8, loc="upper left")
    eps = np.linspace(0.01, 2.0, 200)
    right.plot(eps, np.exp(eps) / (1 + np.exp(eps)), color=OKABE_ITO["black"], label="ε-DP cap e^ε/(1+e^ε)")
    right.axhline(success, color=OKABE_ITO["vermillion"], lw=2, label=f"band test: {success:.3f} (above the cap: shaded)")
    right.fill_between(eps, np.exp(eps) / (1 + np.exp(eps)), success,
                       where=success > np.exp(eps) / (1 + np.exp(eps)), color=OKABE_ITO["vermillion"], alpha=0.2)
    right.plot([epsilon], [success], "o", color=OKABE_ITO["vermillion"])
    right.set(title="success rate of telling x from x'", xlabel="ε", ylabel="P[correct guess]", ylim=(0.45, 0.9))
    right.legend(fontsize=8, loc="upper left")
    return fig


@book_style
def plot_ptr_refusal(epsilon=1.0, delta=None, *, n=32_561, upper=UPPER):
    """P[⊥] of propose-test-release: against the distance γ (left) and against the proposed bound Δ̂ (right).

    Left, log scale: the correct threshold ln(1/δ)/ε lets an unsafe data set
    (γ = 0) pass with probability δ/2; the slip ln(2/δ)/(2ε) with the same
    Lap(1/ε) test noise lets it pass with ½√(δ/2). Right: for the mean of n
    values in [0, U] (U = ``upper``), γ̂ depends on n and Δ̂ only, so P[⊥] drops from 1 to 0
    just right of Δ̂ = U/n, where γ̂ first exceeds the threshold.
    δ defaults to 1/N² for the public size bound N = 48,842.

    Defined in: chapters/06_local_sensitivity.ipynb
    """
    delta = 1 / ADULT_PUBLIC_SIZE_BOUND**2 if delta is None else delta
    t, t_slip = ptr_threshold(epsilon, delta), math.log(2 / delta) / (2 * epsilon)
    gamma = np.arange(0, int(2 * t) + 6)
    fig, (left, right) = new_figure(1, 2)
    fixed_layout(fig, left=0.0885, bottom=0.149, right=0.9948, top=0.9247, wspace=0.2018)
    left.semilogy(gamma, 1 - ptr_bottom_probability(gamma, epsilon, delta), "o-", ms=3,
                  label=f"threshold ln(1/δ)/ε = {t:.1f}")
    left.semilogy(gamma, 1 - ptr_bottom_probability(gamma, epsilon, delta, threshold=t_slip), "s-", ms=3,
                  color=OKABE_ITO["vermillion"], label=f"slip ln(2/δ)/(2ε) = {t_slip:.1f}")
    left.axhline(delta / 2, color=OKABE_ITO["black"], ls=":", label="δ/2")
    left.set(title="chance that the test passes", xlabel="distance γ to an unsafe data set", ylabel="P[release]")
    decade_ticks(left)
    left.legend(fontsize=8)
    ls = upper / n
    ratio = np.linspace(1 - 10 / n, 1 + 60 / n, 701)  # Δ̂ / (U/n): γ̂ grows by about 1 per 1/n
    gammas = np.array([distance_to_high_sensitivity(n, upper, r * ls) for r in ratio], dtype=float)
    right.plot(ratio, ptr_bottom_probability(gammas, epsilon, delta), color=OKABE_ITO["blue"])
    right.axvline(1.0, color=OKABE_ITO["black"], ls=":", label=f"Δ̂ = U/n = {ls:.6f}")
    right.set(title=f"mean of n = {n:,} values in [0, {upper:g}]", xlabel="proposed bound Δ̂ / (U/n)",
              ylabel="P[⊥]")
    right.legend(fontsize=8)
    right.ticklabel_format(axis="x", useOffset=False)
    return fig


@book_style
def plot_smooth_terms(epsilon=1.0, delta=None, *, n=32_561, small_n=50, upper=UPPER):
    """log10 of e^{-βk} A(k), A(k) = upper/max(n - k, 1), over every k from 0 to n + 1, for two sizes n.

    The maximum (the smooth sensitivity S_β, marked) sits at k = 0 for the Adult
    size but at the far end for a small data set: truncating the max to small k
    would understate S_β there. δ defaults to 1/48842² (a public bound on n).

    Defined in: chapters/06_local_sensitivity.ipynb
    """
    delta = 1 / ADULT_PUBLIC_SIZE_BOUND**2 if delta is None else delta
    beta = smooth_beta(epsilon, delta)
    fig, axes = new_figure(1, 2)
    fixed_layout(fig, left=0.091, bottom=0.149, right=0.9948, top=0.9234, wspace=0.1808)
    for ax, size in zip(axes, (n, small_n)):
        k = np.arange(size + 2)
        terms = log_smooth_sensitivity_terms(size, upper, beta, k) / math.log(10)
        s = smooth_sensitivity_mean(size, upper, epsilon, delta)
        ax.plot(k, terms, color=OKABE_ITO["blue"], label="log10 e^(−βk) A(k)")
        best = int(np.argmax(terms))
        ax.plot([best], [terms[best]], "o", color=OKABE_ITO["vermillion"], label=f"max at k = {best:,}: S_β = {s:.3g}")
        ax.axhline(math.log10(upper / size), color=OKABE_ITO["black"], ls=":", lw=1, label="k = 0 term, U/n")
        if best != size - 1:  # the far end is a local maximum too: show how small it is
            ax.annotate(f"k = n − 1: 10^{terms[size - 1]:.0f}", (size - 1, terms[size - 1]), xytext=(-10, 25),
                        textcoords="offset points", ha="right", fontsize=8, arrowprops={"arrowstyle": "->"})
        ax.set(title=f"n = {size:,}, β = {beta:.4f}", xlabel="k (records removed)", ylabel="log10 of the term")
        ax.legend(fontsize=8, loc="upper right" if size == n else "upper center",
                  bbox_to_anchor=(1.0, 0.9) if size == n else None)
    return fig


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
    √2·(U - L)/(Kε), so the figure needs no simulation (K is the keyword ``k`` of ``chunk_answers``).

    Defined in: chapters/06_local_sensitivity.ipynb
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
    """The slider figure of chapters/06_local_sensitivity.ipynb (``plot_mechanism_comparison``), built once and updated per move.

    Four step histograms of the percent error (80 log-spaced bins from 10^-5
    to 10^3 %, fixed) and one legend entry per mechanism with its median and
    share of ⊥. The y-axis (runs per bin, autoscaled in the old figure) steps
    through 1, 2, 5 × 10^k as the highest bin grows or shrinks (the view),
    up to 1,050 (all 1,000 runs in one bin). Fixed axes position (no layout pass).

    Speed: text is the costly part of a move, so the legend's boxes and
    mechanism names are drawn once, with the figure's background; only what
    follows each name (PTR's b, the k of sample-and-aggregate, the median,
    the share of ⊥) is a changing text, placed right after its name.

    Used in: chapters/06_local_sensitivity.ipynb, through ``plot_mechanism_comparison``
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
    """The slider figure of chapters/06_local_sensitivity.ipynb: percent error of four private means of the Adult ages at the same ε.

    1,000 runs each (``COMPARISON_RUNS``), from ``make_rng(seed)``: the global-sensitivity mean
    (noisy sum / noisy count, ε-DP), PTR with ε/2 for the test and ε/2 for the
    release at proposed bound ``bound`` ((ε, δ)-DP; ⊥ runs are counted, not
    plotted), smooth sensitivity with Laplace noise ((ε, δ)-DP) and
    sample-and-aggregate with ``k`` hash chunks of the mean (ε-DP). δ = 1/N² for the public
    size bound N = 48,842 (``ADULT_PUBLIC_SIZE_BOUND``), not the private n.
    Ages are clipped to [0, 100]. The x-axis is logarithmic and fixed.
    Built by ``MechanismComparisonPlot``.

    Defined in: chapters/06_local_sensitivity.ipynb
    """
    return MechanismComparisonPlot().figure(epsilon=epsilon, bound=bound, k=k, seed=seed)


plot_mechanism_comparison.live = MechanismComparisonPlot
