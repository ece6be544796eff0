"""Figures of Chapter 2: averaging under a budget, advanced composition, noisy histograms."""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

from ..composition import advanced_epsilon as _advanced_epsilon
from ..mechanisms import laplace_mech
from ..noise import laplace_pdf
from ..random import make_rng
from ..validation import check_finite_array
from .style import OKABE_ITO, book_style, count_older_than_40, is_finite_number, new_figure

__all__ = ["plot_averaging", "plot_advanced_composition", "plot_noisy_histogram"]

_NICE = [1, 2, 5, 10]  # tick steps for MaxNLocator: fewer labels than the default, still round numbers


# Fixed settings of the slider figures (not parameters: `interact` would turn them into sliders)
N_TRIALS, HALF_WIDTH, K_MAX_AVERAGING, K_MAX_ADVANCED = 10_000, 20.0, 50, 1000


@book_style
def plot_averaging(epsilon=1.0, k=10, seed=2024):
    """The first slider figure of Chapter 2: k answers at ε/k, averaged, vs one answer at ε.

    Left: the error (released − true) of 10,000 releases of the count of
    people older than 40 in the Adult data, once with a single Laplace answer at
    ε and once as the mean of k answers at ε/k each. Both spend ε in total.
    Right: the standard deviations against k, exact (√2/ε and √(2k)/ε) and
    measured. The x-axis is fixed, so moving the sliders shows the spread.
    The noise comes from ``make_rng(seed)``.

    Defined in: chapters/03_composition.ipynb
    """
    if not (is_finite_number(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon (ε) must be a number > 0 (got {epsilon!r})")
    if not (isinstance(k, Integral) and not isinstance(k, bool) and k >= 1):
        raise ValueError(f"k must be a whole number ≥ 1 (got {k!r})")
    true_answer = count_older_than_40()
    rng = make_rng(seed)
    single = laplace_mech(np.full(N_TRIALS, float(true_answer)), 1.0, epsilon, rng=rng) - true_answer
    averaged = laplace_mech(np.full((N_TRIALS, k), float(true_answer)), 1.0, epsilon / k, rng=rng).mean(axis=1)
    averaged -= true_answer
    std_one, std_avg = math.sqrt(2) / epsilon, math.sqrt(2 * k) / epsilon

    fig, (left, right) = new_figure(1, 2)
    edges = np.linspace(-HALF_WIDTH, HALF_WIDTH, 81)
    # one filled step polygon per histogram (not 80 bar patches): a faster redraw
    left.stairs(np.histogram(single, bins=edges, density=True)[0], edges, fill=True, color=OKABE_ITO["blue"],
                alpha=0.55, label=f"one at ε: std {single.std():.2f}")
    left.stairs(np.histogram(averaged, bins=edges, density=True)[0], edges, fill=True, color=OKABE_ITO["orange"],
                alpha=0.55, label=f"mean of {k} at ε/k: std {averaged.std():.2f}")
    x = np.linspace(-HALF_WIDTH, HALF_WIDTH, 401)
    left.plot(x, laplace_pdf(x, scale=1 / epsilon), color=OKABE_ITO["blue"], lw=1.2, label="Lap(1/ε) density")
    left.set(title=f"same budget ε = {epsilon:g}, split {k} ways", xlabel="error of the released count",
             ylabel="density", xlim=(-HALF_WIDTH, HALF_WIDTH))
    left.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))  # fewer tick labels to lay out: a faster redraw
    left.yaxis.set_major_locator(MaxNLocator(4, steps=_NICE))
    left.legend(loc="upper left", fontsize=8)

    ks = np.arange(1, max(K_MAX_AVERAGING, k) + 1)
    right.plot(ks, np.full(ks.shape, std_one), color=OKABE_ITO["blue"], label="one at ε: √2/ε")
    right.plot(ks, np.sqrt(2 * ks) / epsilon, color=OKABE_ITO["orange"], label="mean of k at ε/k: √(2k)/ε")
    right.plot([k, k], [single.std(), averaged.std()], "o", color=OKABE_ITO["black"], ms=4, label="measured")
    right.set(title=f"error std at k = {k}: ×{std_avg / std_one:.2f}", xlabel="k (answers averaged)",
              ylabel="standard deviation of the error")
    right.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
    right.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
    right.legend(loc="upper left", fontsize=8)
    return fig


@book_style
def plot_advanced_composition(epsilon=0.1, delta_prime=1e-5):
    """The second slider figure of Chapter 2: total ε of k ε-DP queries, plain vs advanced.

    Left: plain composition k ε against the advanced composition bound of
    Dwork, Rothblum & Vadhan (Dwork & Roth 2014, Thm 3.20)
    ε' = sqrt(2k ln(1/δ')) ε + k ε (e^ε − 1), which costs an extra δ'.
    Right: the ratio ε' / (k ε) = sqrt(2 ln(1/δ')/k) + e^ε − 1 on a log k
    axis; advanced composition helps only where it is below 1, which needs
    ε < ln 2 and k past the break-even point 2 ln(1/δ') / (2 − e^ε)².

    Defined in: chapters/03_composition.ipynb
    """
    if not (is_finite_number(epsilon) and 0 < epsilon <= 10):
        raise ValueError(f"epsilon (ε per query) must be in (0, 10] (got {epsilon!r})")
    if not (is_finite_number(delta_prime) and 0 < delta_prime < 1):
        raise ValueError(f"delta_prime (δ') must be in (0, 1) (got {delta_prime!r})")
    ks = np.arange(1, K_MAX_ADVANCED + 1)
    plain = ks * epsilon
    advanced = _advanced_epsilon(epsilon, ks, delta_prime)
    wins = advanced < plain
    break_even = 2 * math.log(1 / delta_prime) / (2 - math.exp(epsilon)) ** 2 if epsilon < math.log(2) else math.inf
    verdict = f"advanced wins for k ≥ {math.floor(break_even) + 1:,}" if math.isfinite(break_even) else "advanced never wins (ε ≥ ln 2)"

    fig, (left, right) = new_figure(1, 2)
    left.plot(ks, plain, color=OKABE_ITO["blue"], label="plain: k·ε")
    left.plot(ks, advanced, color=OKABE_ITO["vermillion"], label="advanced (Thm 3.20)")
    if wins.any():
        left.fill_between(ks, advanced, plain, where=wins, color=OKABE_ITO["green"], alpha=0.25,
                          label="advanced is smaller")
    left.set(title=f"ε = {epsilon:g} per query, δ' = {delta_prime:.0e}", xlabel="k (queries)",
             ylabel="total ε", ylim=(0, 1.05 * max(plain[-1], min(advanced[-1], 3 * plain[-1]))))
    left.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
    left.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
    left.legend(loc="upper left", fontsize=8)

    ratio = advanced / plain
    right.semilogx(ks, ratio, color=OKABE_ITO["vermillion"], label="advanced / plain")
    right.xaxis.set_minor_locator(NullLocator())  # fewer ticks, plain labels (not mathtext): a faster redraw
    right.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    right.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
    right.axhline(1.0, color=OKABE_ITO["blue"], lw=1, label="break-even")
    right.axhline(math.expm1(epsilon), color=OKABE_ITO["black"], lw=1, ls="--", label="limit e^ε − 1")
    if math.isfinite(break_even) and break_even < K_MAX_ADVANCED:
        right.axvline(break_even, color=OKABE_ITO["green"], lw=1, ls=":")
    right.set(title=verdict, xlabel="k (queries, log scale)", ylabel="advanced ε' / plain kε",
              ylim=(0, 1.05 * max(2.0, min(float(ratio[0]), 8.0), 1.1 * math.expm1(epsilon))))
    right.legend(loc="upper right", fontsize=8)
    return fig


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
    left.set(title=title, xlabel="count", yticks=y, yticklabels=labels)
    left.invert_yaxis()
    left.legend(loc="center right", fontsize=8)
    band = 2 * math.sqrt(2) / epsilon
    right.axvspan(-band, band, color=OKABE_ITO["orange"], alpha=0.2, label="±2 std of Lap(1/ε)")
    right.plot(noisy - true, y, "o", color=OKABE_ITO["vermillion"], label="noisy − true")
    right.axvline(0, color=OKABE_ITO["black"], lw=1)
    right.set(title=f"noise per bin, ε = {epsilon:g}", xlabel="noisy − true")
    right.legend(loc="lower right", fontsize=8)
    return fig
