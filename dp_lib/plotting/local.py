"""Figures of Chapter 5: randomized response, k-RR and unary encoding, local vs central.

The slider figures work from the 14 per-occupation counts of the Adult data
(cached once) and simulate a survey with the aggregate paths of
``dp_lib.local`` (binomial draws per category), so a redraw costs O(k), not O(n).
"""

from __future__ import annotations

import math
from functools import lru_cache
from numbers import Real

import numpy as np
import pandas as pd
from scipy.stats import norm

from ..data import OCCUPATIONS, load_adult, occupation_counts  # noqa: F401 (re-exported)
from ..local import (
    debias_counts, krr_params, krr_perturb_counts, krr_variance, oue_params, rr_variance, sue_params,
    unary_epsilon, unary_perturb_counts, unary_variance,
)
from ..mechanisms import laplace_mech
from ..random import make_rng
from ..validation import check_epsilon, check_finite_array, check_int
from .style import OKABE_ITO, book_style, new_figure

__all__ = [
    "OCCUPATIONS", "occupation_counts", "plot_estimates_vs_normal", "plot_unary_histogram",
    "plot_sue_vs_oue", "plot_protocol_choice", "plot_local_vs_central",
]

def _valid_pq(p, q) -> bool:
    return all(isinstance(x, Real) and math.isfinite(x) for x in (p, q)) and 0 < q < p < 1


@book_style
def plot_estimates_vs_normal(estimates, true_count, variance, *, title="", xlabel="estimated count"):
    """Histogram of repeated estimates against N(true_count, variance) and the true value.

    Defined in: chapters/07_local_dp.ipynb
    """
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


@book_style
def plot_unary_histogram(p=0.75, q=0.25, seed=2024):
    """The p/q slider figure: true vs estimated occupation counts from unary encoding.

    One survey of the 30 718 respondents with an occupation, drawn with
    ``unary_perturb_counts`` from ``make_rng(seed)``; error bars are ±2 exact
    standard deviations. ε = ln(p(1-q)/((1-p)q)) is shown in the title. An
    unusable pair (p <= q, or p, q outside (0, 1)) raises ``ValueError`` saying
    why (the slider shows that message instead of the figure).

    Defined in: chapters/07_local_dp.ipynb
    """
    if not _valid_pq(p, q):
        raise ValueError(f"p and q must satisfy 0 < q < p < 1 (got p = {p!r}, q = {q!r}): with p ≤ q a reported 1 "
                         "is no more likely for the true value than for any other, so (C − nq)/(p − q) is "
                         "undefined. Move p above q.")
    counts = occupation_counts()
    order = counts.sort_values().index
    y = np.arange(len(order))
    fig, ax = new_figure(width=8.0, height=4.2)
    fig.set_layout_engine("none")  # fixed position: the labels never change, and a redraw is faster
    ax.set_position([0.17, 0.12, 0.8, 0.8])
    ax.barh(y + 0.2, counts[order], height=0.4, color=OKABE_ITO["black"], alpha=0.35, label="true count")
    ax.set_yticks(y, order, fontsize=8)
    n = int(counts.sum())
    est = debias_counts(unary_perturb_counts(counts, p, q, rng=make_rng(seed)), n, p, q)
    sd = np.sqrt(unary_variance(n, p, q, count=counts.to_numpy()))
    # the axis follows the error bars (room for negative estimates only when they occur)
    left, right = min(0.0, float(np.min(est - 2 * sd))), max(float(counts.max()), float(np.max(est + 2 * sd)))
    ax.set(xlabel="number of respondents", xlim=(left - 0.03 * (right - left), right + 0.03 * (right - left)))
    ax.barh(y - 0.2, est[order], height=0.4, xerr=2 * pd.Series(sd, counts.index)[order],
            color=OKABE_ITO["blue"], error_kw={"lw": 0.8}, label="estimate ± 2 std")
    ax.set_title(f"unary encoding, p = {p:.2f}, q = {q:.2f}:  ε = {unary_epsilon(p, q):.2f},  "
                 f"std of a count ≈ {math.sqrt(unary_variance(n, p, q)):,.0f}")
    ax.legend(loc="lower right", fontsize=8)
    return fig


@book_style
def plot_sue_vs_oue(epsilon=math.log(9), seed=2024, n_surveys=500):
    """The ε slider figure: SUE vs OUE on the occupation counts at the same ε.

    For each occupation, the standard deviation of its estimate over
    ``n_surveys`` simulated surveys (dots, drawn with ``unary_perturb_counts``
    from ``make_rng(seed)``) against the exact formula (black ticks). The
    x-axis is linear and fitted to the exact standard deviations at this ε,
    so the gap between the two protocols fills the width.

    Defined in: chapters/07_local_dp.ipynb
    """
    eps = check_epsilon(epsilon)
    n_surveys = check_int(n_surveys, "n_surveys", minimum=2)
    counts = occupation_counts()
    n, c = int(counts.sum()), counts.to_numpy()
    rng = make_rng(seed)
    fig, ax = new_figure(width=7.5, height=4.0)
    fig.set_layout_engine("none")  # fixed position: the labels never change, and a redraw is faster
    ax.set_position([0.19, 0.13, 0.78, 0.7])
    y = np.arange(c.size)
    ratio = unary_variance(n, *sue_params(eps)) / unary_variance(n, *oue_params(eps))
    for shift, name, params, color in ((0.15, "SUE", sue_params(eps), OKABE_ITO["orange"]),
                                       (-0.15, "OUE", oue_params(eps), OKABE_ITO["blue"])):
        errors = debias_counts(unary_perturb_counts(c, *params, rng=rng, size=n_surveys), n, *params) - c
        ax.plot(errors.std(axis=0, ddof=1), y + shift, "o", color=color, ms=6,
                label=f"{name} (p = {params[0]:.3f}, q = {params[1]:.3f})")
        ax.plot(np.sqrt(unary_variance(n, *params, count=c)), y + shift, "|", color=OKABE_ITO["black"], ms=10)
    ax.plot([], [], "|", color=OKABE_ITO["black"], ms=10, label="exact formula")
    ax.set_yticks(y, OCCUPATIONS, fontsize=8)
    exact = np.concatenate([np.sqrt(unary_variance(n, *params, count=c)) for params in (sue_params(eps), oue_params(eps))])
    ax.set(xlim=(0.85 * exact.min(), 1.15 * exact.max()),  # linear and fitted: the SUE/OUE gap fills the width
           xlabel=f"standard deviation of the estimated count ({n_surveys} surveys)",
           )
    ax.set_title(f"SUE vs OUE at ε = {eps:.2f}: count-free variance ratio SUE/OUE = {ratio:.2f}", pad=22)
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    return fig


@book_style
def plot_protocol_choice(epsilon=math.log(9), k=14, k_max=60):
    """Variance per respondent of GRR, SUE and OUE against the domain size, at one ε.

    The count-free variances cross at k = 3e^ε + 2: below it k-RR is better.

    Defined in: chapters/07_local_dp.ipynb
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
def plot_local_vs_central(epsilon=math.log(3), k=14, seed=2024, n_surveys=300):
    """Standard deviation of one count against the number of respondents n (log-log).

    Local protocols (binary RR for a yes/no question; k-RR and OUE for a
    k-value histogram, each value held by n/k respondents) against the
    central Laplace mechanism Lap(1/ε). Lines: exact formulas; markers:
    ``n_surveys`` simulated surveys each (aggregate paths), from ``make_rng(seed)``.

    Defined in: chapters/07_local_dp.ipynb
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
    ax.legend(fontsize=8)
    return fig
