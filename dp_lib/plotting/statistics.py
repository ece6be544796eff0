"""Figures of the private-statistics chapter: clipping bias against noise, and measured coverage."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..data import load_adult
from ..statistics import mean_noise_sd
from ..validation import check_epsilon, check_int, check_real
from .live import LivePlot
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["clipping_errors", "ClippingTradeoffPlot", "plot_clipping_tradeoff", "plot_coverage"]

AGE_LOWER = 17.0                       # the public lower end of Adult's ages (the extract keeps people over 16)
UPPERS = np.arange(20.0, 150.5, 0.5)   # candidate upper bounds U for the figure


@lru_cache(maxsize=1)
def _age_moments():
    ages = load_adult()["Age"].to_numpy(dtype=float)
    clipped = np.clip(ages[None, :], AGE_LOWER, UPPERS[:, None])
    return clipped.mean(axis=1) - ages.mean(), clipped.std(axis=1), float(ages.mean())


def clipping_errors(n, epsilon, uppers=None):
    """Bias, sampling sd, noise sd and RMSE of the clipped mean age over the range [17, U], for each upper bound U.

    The bias and spread come from the whole Adult file (NOT private: a teaching diagnostic that looks at the
    data); the noise sd is ``mean_noise_sd`` at the clipped mean (d = clipped mean - midpoint, so the count's noise
    is included).

    Returns
    -------
    dict of arrays: "upper", "bias", "sampling_sd", "noise_sd", "rmse".

    Privacy: none (reads the raw data, for figures). Defined in: chapters/08_private_statistics.ipynb

    Examples
    --------
    >>> errors = clipping_errors(1000, 1.0)
    >>> float(errors["upper"][np.argmin(errors["rmse"])])
    73.0
    """
    size, eps = check_int(n, "n", minimum=1), check_epsilon(epsilon)
    bias, spread, true_mean = _age_moments()
    upper = UPPERS if uppers is None else np.asarray(uppers, dtype=float)
    if uppers is not None:
        bias, spread = np.interp(upper, UPPERS, bias), np.interp(upper, UPPERS, spread)
    clipped_mean = np.clip(true_mean + bias, AGE_LOWER, upper)
    noise = np.array([mean_noise_sd(size, AGE_LOWER, float(u), eps, mean=float(c)) for u, c in zip(upper, clipped_mean)])
    sampling = spread / np.sqrt(size)
    return {"upper": upper, "bias": bias, "sampling_sd": sampling, "noise_sd": noise,
            "rmse": np.sqrt(bias**2 + sampling**2 + noise**2)}


class ClippingTradeoffPlot(LivePlot):
    """The slider figure of the private-statistics chapter (``plot_clipping_tradeoff``), built once, updated per move.

    The bias curve does not depend on the slider and is drawn once; the noise, sampling and RMSE curves, the best
    bound and the chosen bound move. The y-range is fixed ([1e-3, 1e2], log scale), so the figure has one view.

    Used in: chapters/08_private_statistics.ipynb, through ``plot_clipping_tradeoff``
    """

    def build(self):
        bias, _, _ = _age_moments()
        fig, ax = new_figure(width=8.0, height=3.2)
        self.fig, self.ax = fig, ax
        ax.plot(UPPERS, np.maximum(np.abs(bias), 1e-6), color=OKABE_ITO["orange"], label="|bias| (clipping)")
        (self.noise,) = ax.plot(UPPERS, np.ones(UPPERS.size), color=OKABE_ITO["sky"], linestyle="--",
                                label="noise sd")
        (self.sampling,) = ax.plot(UPPERS, np.ones(UPPERS.size), color=OKABE_ITO["green"], linestyle=":",
                                   label="sampling sd")
        (self.rmse,) = ax.plot(UPPERS, np.ones(UPPERS.size), color=OKABE_ITO["blue"], linewidth=2, label="RMSE")
        (self.best,) = ax.plot([90.0], [1.0], "o", color=OKABE_ITO["vermillion"], label="best U")
        self.chosen = ax.axvline(70.0, color=OKABE_ITO["black"], linestyle="--", linewidth=1, label="your U")
        ax.set_yscale("log")
        ax.set_ylim(1e-3, 1e2)
        ax.set_xlim(UPPERS[0], UPPERS[-1])
        ax.set_xlabel("upper clipping bound U (years); lower bound 17")
        ax.set_ylabel("error of the mean age (years)")
        ax.set_title(" ")
        ax.legend(loc="lower right", fontsize=8, ncols=3).set_zorder(0.9)
        self.changing = [self.noise, self.sampling, self.rmse, self.best, self.chosen, ax.title]

    def update(self, epsilon=1.0, n=1000, bound=70.0):
        eps, size, chosen = check_epsilon(epsilon), check_int(n, "n", minimum=1), check_real(bound, "bound")
        e = clipping_errors(size, eps)
        self.noise.set_ydata(e["noise_sd"])
        self.sampling.set_ydata(e["sampling_sd"])
        self.rmse.set_ydata(e["rmse"])
        best = int(np.argmin(e["rmse"]))
        self.best.set_data([e["upper"][best]], [e["rmse"][best]])
        self.chosen.set_xdata([chosen, chosen])
        at_bound = float(np.interp(chosen, e["upper"], e["rmse"]))
        self.ax.title.set_text(f"n = {size:,}, ε = {eps:g}: best U = {e['upper'][best]:.1f} "
                               f"(RMSE {e['rmse'][best]:.3g}); your U = {chosen:g} (RMSE {at_bound:.3g})")


def plot_clipping_tradeoff(epsilon=1.0, n=1000, bound=70.0):
    """Error of the private mean age against the upper clipping bound: bias, noise and their RMSE, with the best bound.

    A low bound cuts the old (the bias grows as the bound falls below 90); a high bound needs more noise (the
    noise sd grows roughly in proportion to it). The RMSE curve has a minimum in between, marked; the dashed line is the chosen
    ``bound``. Drawn by ``ClippingTradeoffPlot``.

    Privacy: none (reads the raw data, for figures). Defined in: chapters/08_private_statistics.ipynb
    """
    return ClippingTradeoffPlot().figure(epsilon=epsilon, n=n, bound=bound)


plot_clipping_tradeoff.live = ClippingTradeoffPlot


@book_style
def plot_coverage(table, confidence=0.95):
    """Measured coverage of the three intervals for a mean and a proportion, with binomial 95 % intervals.

    One panel per statistic; on the x axis each (n, ε) setting, one marker per method with its Clopper–Pearson
    interval, and the nominal level as a line. The naive interval falls far below it where the DP noise is a large
    share of the variance (for a mean, when ε·√n is small).

    Privacy: none (simulated data). Defined in: chapters/08_private_statistics.ipynb
    """
    fig, axes = new_figure(1, 2, width=8.0, height=3.4, sharey=True)
    styles = {"naive": ("vermillion", "v"), "noise-aware": ("blue", "o"), "bootstrap": ("green", "s")}
    for ax, (kind, part) in zip(axes, table.groupby("statistic", sort=False)):
        settings = list(dict.fromkeys(zip(part["n"], part["epsilon"])))
        for offset, (method, (colour, marker)) in zip((-0.2, 0.0, 0.2), styles.items()):
            rows = part[part["method"] == method]
            x = np.array([settings.index(s) for s in zip(rows["n"], rows["epsilon"])]) + offset
            err = np.vstack([rows["coverage"] - rows["low"], rows["high"] - rows["coverage"]])
            ax.errorbar(x, rows["coverage"], yerr=err, fmt=marker, color=OKABE_ITO[colour], markersize=4,
                        label=method)
        ax.axhline(confidence, color=OKABE_ITO["black"], linewidth=1, linestyle="--")
        ax.set_xticks(range(len(settings)), [f"{n:,}\n{e:g}" for n, e in settings], fontsize=7)
        ax.set_xlabel("n (top) and ε (bottom)")
        ax.set_title(f"a private {kind}")
    axes[0].set_ylabel("measured coverage")
    axes[0].set_ylim(0, 1.02)
    axes[1].legend(loc="lower right", fontsize=8)
    return fig
