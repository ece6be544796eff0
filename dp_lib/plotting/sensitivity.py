"""Figures of chapters/07_local_sensitivity.ipynb: the local-sensitivity leak, PTR, smooth sensitivity.

The mean-mechanism comparisons (sample-and-aggregate's trade-off, the four
mechanisms side by side) are in ``dp_lib.plotting.mean_mechanisms``; their
names stay importable from here.
"""

from __future__ import annotations

import math

import numpy as np

from ..data import ADULT_PUBLIC_SIZE_BOUND
from ..sensitivity import (
    distance_to_high_sensitivity,
    log_smooth_sensitivity_terms,
    ptr_bottom_probability,
    ptr_threshold,
    smooth_beta,
    smooth_sensitivity_mean,
)
from ..validation import check_finite_array
from .style import OKABE_ITO, book_style, decade_ticks, fixed_layout,  new_figure
from .mean_mechanisms import UPPER, MechanismComparisonPlot, plot_mechanism_comparison, plot_saa_tradeoff  # noqa: F401

__all__ = [
    "plot_ls_leak",
    "plot_ptr_refusal",
    "plot_smooth_terms",
    "plot_saa_tradeoff",
    "plot_mechanism_comparison",
    "MechanismComparisonPlot",
]

@book_style
def plot_ls_leak(releases_a, releases_b, *, centre, threshold, epsilon, success,
                 labels=("x", "x'"), half_width=None):
    """The leak of local-sensitivity noise: two output histograms and the success rate against the ε-DP cap.

    Left: histograms of the releases on two neighbouring data sets with the
    same mean ``centre``, and the distinguisher's band |y - centre| < threshold.
    Right: the cap e^ε/(1 + e^ε) that ε-DP puts on the success rate of any test
    (equal priors), against the measured ``success`` of the band test, which
    does not depend on ε because only the ratio of the two noise scales matters.

    Defined in: chapters/07_local_sensitivity.ipynb
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

    Defined in: chapters/07_local_sensitivity.ipynb
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

    Defined in: chapters/07_local_sensitivity.ipynb
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
