"""Figures of chapters/12_attacking_models.ipynb about private hyperparameter tuning (``dp_lib.tuning``)."""

from __future__ import annotations

import math

import numpy as np

from ..tuning import random_stopping_epsilon, tuning_output_pmf
from ..validation import check_epsilon, check_int
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, new_figure

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


class TuningLossPlot(LivePlot):
    """The slider figure of chapters/12_attacking_models.ipynb (``plot_tuning_loss``), built once and updated per move.

    The curves, the 3ε line, the marker at k, the bars and the titles change; the y-ranges follow ε (left) and
    k·ε (right) on the 1-2-5 ladder of ``nice_ceiling``, so a move changes the view only at a few steps.

    Used in: chapters/12_attacking_models.ipynb, through ``plot_tuning_loss``
    """

    def build(self):
        self.ks = np.arange(1, _MAX_K + 1)
        self.fig, (ax, bars) = new_figure(1, 2, width=9.0, height=3.3, gridspec_kw={"width_ratios": [2, 1]})
        self.axes = (ax, bars)
        zeros = np.zeros(_MAX_K)
        (self.fixed,) = ax.plot(self.ks, zeros, color=OKABE_ITO["vermillion"], label="best of k runs")
        (self.stop,) = ax.plot(self.ks, zeros, color=OKABE_ITO["blue"], label="random stopping, E[K] = k")
        self.bound = ax.axhline(0.0, color=OKABE_ITO["black"], lw=0.8, ls=":")
        self.bound_text = ax.text(1, 0.0, "3ε bound", va="bottom")
        self.marker = ax.axvline(1, color=OKABE_ITO["black"], lw=0.8, alpha=0.5)
        ax.set_title(" ", y=1.0)
        ax.set(xlabel="k (number of runs, or its expectation)", ylabel="worst privacy loss")
        ax.legend(loc="upper left", fontsize=8)
        x = np.arange(3)
        self.fixed_bars = bars.bar(x - 0.2, np.zeros(3), 0.4, color=OKABE_ITO["vermillion"], label="best of k")
        self.stop_bars = bars.bar(x + 0.2, np.zeros(3), 0.4, color=OKABE_ITO["blue"], label="random stopping")
        bars.set_xticks(x, ["worst", "rare middle", "best"])
        bars.set_title(" ", y=1.0)
        bars.set(ylabel="privacy loss of the output")
        self.changing = [self.fixed, self.stop, self.bound, self.bound_text, self.marker, ax.title,
                         *self.fixed_bars, *self.stop_bars, bars.title]

    def update(self, epsilon=1.0, k=10):
        eps, kk = check_epsilon(epsilon), check_int(k, "k", minimum=1, maximum=_MAX_K)
        p, q = tuning_pair(eps)
        fixed = [_loss(tuning_output_pmf(p, k=int(j)), tuning_output_pmf(q, k=int(j))) for j in self.ks]
        stop = [_loss(tuning_output_pmf(p, gamma=1 / j), tuning_output_pmf(q, gamma=1 / j)) if j > 1 else fixed[0]
                for j in self.ks]
        ax, bars = self.axes
        bound = random_stopping_epsilon(eps)
        self.fixed.set_ydata([f.max() for f in fixed])
        self.stop.set_ydata([s.max() for s in stop])
        self.bound.set_ydata([bound, bound])
        self.bound_text.set_y(bound)
        self.marker.set_xdata([kk, kk])
        ax.title.set_text(f"ε = {eps:g} per run")
        for rect, height in zip(self.fixed_bars, fixed[kk - 1]):
            rect.set_height(height)
        for rect, height in zip(self.stop_bars, stop[kk - 1]):
            rect.set_height(height)
        bars.title.set_text(f"k = {kk}")
        left_top, right_top = nice_ceiling(8 * eps), nice_ceiling(max(kk, 3) * eps * 1.05)
        ax.set_ylim(0, left_top)
        bars.set_ylim(0, right_top)
        return left_top, right_top


def plot_tuning_loss(epsilon=1.0, k=10):
    """Exact privacy loss of reporting the best of k runs vs random stopping with E[K] = k runs.

    Left: the worst loss over outputs as the (expected) number of runs grows, for ε-DP runs on a
    three-output pair: the best of k climbs as kε, random stopping (stop with probability 1/k after
    each run) stays below its 3ε bound however many runs it makes. Right: the loss of each output at
    the chosen k. Takeaway: a fixed number of runs costs k times the budget; a random one costs a constant.
    Drawn by ``TuningLossPlot``.

    Defined in: chapters/12_attacking_models.ipynb
    """
    return TuningLossPlot().figure(epsilon=epsilon, k=k)


plot_tuning_loss.live = TuningLossPlot
