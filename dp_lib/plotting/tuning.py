"""Figures of chapters/12_attacking_models.ipynb about private hyperparameter tuning (``dp_lib.tuning``)."""

from __future__ import annotations

import math

import numpy as np

from ..tuning import random_stopping_epsilon, tuning_output_pmf
from ..validation import check_epsilon, check_int
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["tuning_pair", "plot_tuning_loss"]

_MAX_K = 30


def tuning_pair(epsilon=1.0, rare=0.001):
    """An ε-DP pair of three-output laws (worst, middle, best) on which random stopping loses almost 3ε.

    p = (s - r, r, 1 - s) and q = ((s - r)e^-ε, r e^-ε, (1 - s)e^ε) with s = e^ε/(1 + e^ε), r = ``rare``·s:
    every output's probability changes by exactly the factor e^ε, and the rare middle output is where
    the best of a random number of runs leaks most.

    Used in: chapters/12_attacking_models.ipynb, through ``plot_tuning_loss``
    """
    eps = check_epsilon(epsilon)
    s = math.exp(eps) / (1 + math.exp(eps))
    r = rare * s
    p = np.array([s - r, r, 1 - s])
    return p, np.array([p[0] * math.exp(-eps), p[1] * math.exp(-eps), 1 - (s * math.exp(-eps))])


def _loss(p, q):
    return np.abs(np.log(p) - np.log(q))


@book_style
def plot_tuning_loss(epsilon=1.0, k=10):
    """Exact privacy loss of reporting the best of k runs vs random stopping with E[K] = k runs.

    Left: the worst loss over outputs as the (expected) number of runs grows, for ε-DP runs on a
    three-output pair: the best of k climbs as kε, random stopping (stop with probability 1/k after
    each run) stays below its 3ε bound however many runs it makes. Right: the loss of each output at
    the chosen k. Takeaway: a fixed number of runs costs k times the budget; a random one costs a constant.

    Defined in: chapters/12_attacking_models.ipynb
    """
    eps, kk = check_epsilon(epsilon), check_int(k, "k", minimum=1, maximum=_MAX_K)
    p, q = tuning_pair(eps)
    ks = np.arange(1, _MAX_K + 1)
    fixed = [_loss(tuning_output_pmf(p, k=int(j)), tuning_output_pmf(q, k=int(j))) for j in ks]
    stop = [_loss(tuning_output_pmf(p, gamma=1 / j), tuning_output_pmf(q, gamma=1 / j)) if j > 1 else fixed[0]
            for j in ks]
    fig, (ax, bars) = new_figure(1, 2, width=9.0, height=3.3, gridspec_kw={"width_ratios": [2, 1]})
    ax.plot(ks, [f.max() for f in fixed], color=OKABE_ITO["vermillion"], label="best of k runs")
    ax.plot(ks, [s.max() for s in stop], color=OKABE_ITO["blue"], label="random stopping, E[K] = k")
    ax.axhline(random_stopping_epsilon(eps), color=OKABE_ITO["black"], lw=0.8, ls=":")
    ax.text(1, random_stopping_epsilon(eps), "3ε bound", va="bottom")
    ax.axvline(kk, color=OKABE_ITO["black"], lw=0.8, alpha=0.5)
    ax.set(xlabel="k (number of runs, or its expectation)", ylabel="worst privacy loss",
           ylim=(0, 8 * eps), title=f"ε = {eps:g} per run")
    ax.legend(loc="upper left", fontsize=8)
    x = np.arange(3)
    bars.bar(x - 0.2, fixed[kk - 1], 0.4, color=OKABE_ITO["vermillion"], label="best of k")
    bars.bar(x + 0.2, stop[kk - 1], 0.4, color=OKABE_ITO["blue"], label="random stopping")
    bars.set_xticks(x, ["worst", "rare middle", "best"])
    bars.set(ylabel="privacy loss of the output", title=f"k = {kk}", ylim=(0, max(kk, 3) * eps * 1.05))
    return fig
