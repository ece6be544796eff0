"""The private-training figure of chapters/11_private_learning.ipynb: private against non-private accuracy.

Split from ``dp_lib.plotting.learning`` (gradient norms, iterations against
noise), which re-exports these names and the chapter's constants.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import matplotlib as mpl
from matplotlib.legend import Legend
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..learning import (accuracy, adult_features, clipped_gradient_sum, gradient_descent, noisy_gradient_descent)
from ..random import make_rng
from ..validation import check_int, check_positive
from .live import LivePlot, nice_ceiling
from .lecture import for_projection, style_params
from .style import OKABE_ITO, new_figure

__all__ = ["plot_private_training", "PrivateTrainingPlot", "private_training_figure"]

MAX_ITERATIONS = 100  # the cached non-private curves cover the slider's range
DELTA = 1e-5
LEARNING_RATE = 4.0
ACC_TICKS = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85)  # plain_curve, plain_log_ticks, ACC_TICKS: shared with .learning


@lru_cache(maxsize=1)
def _data():
    """The chapter's features (read-only arrays, shared by the cached curves)."""
    data = adult_features()
    for a in data[:4]:
        a.flags.writeable = False
    return data


@lru_cache(maxsize=64)
def plain_curve(clip_norm):
    """Plain GD (clip_norm None: no clipping) for 0..MAX_ITERATIONS iterations.

    Returns the test accuracy after each iteration and the norm of the clipped
    mean gradient at each iterate (None without clipping: no figure shows it).
    """
    d = _data()
    _, history = gradient_descent(d.X_train, d.y_train, MAX_ITERATIONS, learning_rate=LEARNING_RATE,
                                  clip_norm=clip_norm)
    thetas = history.filter(like="theta_").to_numpy()
    if clip_norm is None:
        return accuracy(thetas, d.X_test, d.y_test), None
    grads = clipped_gradient_sum(thetas, d.X_train, d.y_train, clip_norm) / len(d.y_train)
    return accuracy(thetas, d.X_test, d.y_test), np.linalg.norm(grads, axis=1)


def plain_log_ticks(axis, ticks):
    """Fixed log-axis ticks with plain labels: mathtext tick labels would double the drawing time."""
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def _iteration_ticks(top):
    """Ticks 0..top on an iteration axis, at most 7 of them."""
    step = next(s for s in (1, 2, 5, 10, 20, 25) if top / s <= 6)
    return np.arange(0, top + 1, step)


class PrivateTrainingPlot(LivePlot):
    """The slider figure of chapters/11_private_learning.ipynb (``plot_private_training``), built once and updated per move.

    Left: test accuracy after each iteration for plain GD, clipped GD and noisy
    GD (values below 0.6 drawn at 0.6 and marked ▼, with a legend entry then);
    right: per step, the norm of the clipped average gradient against the norm of
    its noise, on a log scale. The view: both x-axes run to the smallest of 1, 2,
    5, 10, 20, 50, 100 that is ≥ k (the curves end at k), and the right y-axis
    spans whole decades with at least a factor 4 of room below and above the two
    curves. The accuracy axis is fixed (0.6 to 0.86).

    Used in: chapters/11_private_learning.ipynb, through ``plot_private_training``
    """

    low = 0.6

    def build(self):
        d = _data()
        # the accuracy at θ = 0 (every run's first iterate): predicting the majority class
        majority = accuracy(np.zeros(d.X_train.shape[1]), d.X_test, d.y_test)
        self.fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
        self.fig.set_layout_engine(None)  # fixed positions and ticks: no layout pass (LivePlot skips its own too)
        left.set_position([0.075, 0.14, 0.52, 0.76])
        right.set_position([0.70, 0.14, 0.285, 0.76])
        self.axes = (left, right)
        zero = [0.0, 1.0], [self.low, self.low]
        base = left.axhline(majority, color=OKABE_ITO["black"], lw=0.8, ls=":")
        (self.plain,) = left.plot(*zero, color=OKABE_ITO["blue"])
        (self.clipped,) = left.plot(*zero, color=OKABE_ITO["green"], ls="--")
        (self.private,) = left.plot(*zero, color=OKABE_ITO["vermillion"], marker="o", ms=3)
        (self.below,) = left.plot([], [], ls="none", marker="v", ms=6, color=OKABE_ITO["vermillion"])
        left.set(xlabel="iteration", ylabel="test accuracy", ylim=(self.low, 0.86), title=" ")
        left.set_yticks(ACC_TICKS, [f"{t:.2f}" for t in ACC_TICKS])
        names = [f"majority {majority:.3f}", "non-private", "clipped", "private", f"below {self.low:g}"]
        style = dict(loc="lower right", fontsize=8, frameon=True, framealpha=0.85, edgecolor="none")
        handles = [base, self.plain, self.clipped, self.private, self.below]
        # two legends, one shown: with the "below" entry when some iterate is below the axis, without it otherwise
        self.legend_short = left.legend(handles[:4], names[:4], **style)
        self.legend_long = Legend(left, handles, names, **style)
        left.add_artist(self.legend_long)
        (self.signal,) = right.semilogy([1.0, 2.0], [1.0, 1.0], color=OKABE_ITO["green"], ls="--", label="signal")
        self.noise = right.axhline(1.0, color=OKABE_ITO["vermillion"], label="noise")
        right.set(xlabel="iteration", ylabel="L2 norm per step", title="signal vs noise")
        right.title.set_zorder(1)  # above the axes, clear of the curves: with the fixed background, drawn once
        plain_log_ticks(right.yaxis, [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4])
        self.legend_right = right.legend(loc="upper center", ncol=2, fontsize=8)  # above the curves: see update
        self.changing = [self.plain, self.clipped, self.private, self.below, self.legend_short, self.legend_long,
                         left.title, self.signal, self.noise, self.legend_right]

    def update(self, epsilon=1.0, iterations=20, clip_norm=1.5, seed=2024):
        try:
            run = _cached_private_run(epsilon, iterations, clip_norm, seed)
        except TypeError:  # an unhashable argument: train without the cache (and let the checks name it)
            run = _private_run(epsilon, iterations, clip_norm, rng=make_rng(seed), delta=DELTA)
        return self.show(epsilon, iterations, clip_norm, run=run)

    def show(self, epsilon, iterations, clip_norm, *, run):
        """Put one training ``run`` (``_private_run``) and the plain curves into the artists; return the view."""
        k = check_int(iterations, "iterations", minimum=1, maximum=MAX_ITERATIONS)
        c = check_positive(clip_norm, "clip_norm")
        private, noise = run
        plain, clipped, signal = plain_curve(None)[0][: k + 1], *(v[: k + 1] for v in plain_curve(float(c)))
        steps = np.arange(k + 1)
        below = private < self.low
        shown = np.r_[signal[:-1], noise]  # the y-range follows the two curves, a factor 4 of room each way
        bottom = 10.0 ** math.floor(math.log10(shown[shown > 0].min() / 4))
        top = 10.0 ** math.ceil(math.log10(shown.max() * 4))
        xtop = int(nice_ceiling(k))
        left, right = self.axes
        self.plain.set_data(steps, plain)
        self.clipped.set_data(steps, clipped)
        self.private.set_data(steps, np.maximum(private, self.low))
        self.below.set_data(steps[below], np.full(below.sum(), self.low))
        self.legend_short.set_visible(not below.any())
        self.legend_long.set_visible(bool(below.any()))
        for legend in (self.legend_short, self.legend_long):
            texts = legend.get_texts()
            for text, name, value in zip(texts[1:4], ("non-private", "clipped", "private"),
                                         (plain[-1], clipped[-1], private[-1])):
                text.set_text(f"{name} {value:.3f}")
        left.title.set_text(f"ε = {epsilon:g} in k = {k} steps, C = {c:g}")
        self.signal.set_data(steps[1:], signal[:-1])
        self.noise.set_ydata([noise, noise])
        self.legend_right.get_texts()[1].set_text(f"noise {noise:.2g}")
        # the view: x-axes to xtop, y-axis of the right panel from bottom to top (whole decades)
        xticks = _iteration_ticks(xtop)
        left.set_xlim(0, xtop)
        left.set_xticks(xticks, [str(t) for t in xticks])
        right.set_xlim(0.5, xtop + 0.5)
        right.set_xticks(xticks[1:], [str(t) for t in xticks[1:]])
        right.set_ylim(bottom, top)
        return xtop, bottom, top


def _private_run(epsilon, iterations, clip_norm, *, rng, delta):
    """(test accuracy after each iteration, noise norm per step) of one noisy-GD training."""
    k = check_int(iterations, "iterations", minimum=1, maximum=MAX_ITERATIONS)
    c = check_positive(clip_norm, "clip_norm")
    d = _data()
    _, history = noisy_gradient_descent(d.X_train, d.y_train, epsilon, delta, k, c, rng=rng,
                                        learning_rate=LEARNING_RATE)
    private = accuracy(history.filter(like="theta_").to_numpy(), d.X_test, d.y_test)
    private.flags.writeable = False  # shared by the cache
    return private, history["sigma"].iloc[0] * math.sqrt(d.X_train.shape[1]) / history["n_hat"].iloc[0]


@lru_cache(maxsize=256, typed=True)  # typed: 1, 1.0 and True stay apart, so every new argument is checked
def _cached_private_run(epsilon, iterations, clip_norm, seed):
    """``_private_run`` with the noise from ``make_rng(seed)``: the same setting always gives the same run, so a
    slider coming back to a setting (or a figure drawn at the constructor's defaults) does not train again."""
    return _private_run(epsilon, iterations, clip_norm, rng=make_rng(seed), delta=DELTA)


def plot_private_training(epsilon=1.0, iterations=20, clip_norm=1.5, seed=2024):
    """The slider figure of chapters/11_private_learning.ipynb: test accuracy per iteration, private and not (``PrivateTrainingPlot``).

    Trains on the Adult training split with total budget (``epsilon``, δ = 1e-5),
    k = ``iterations`` steps and clipping norm C = ``clip_norm`` (learning rate 4),
    drawing the noise from ``make_rng(seed)``. Only slider parameters are arguments.

    Defined in: chapters/11_private_learning.ipynb
    """
    return PrivateTrainingPlot().figure(epsilon=epsilon, iterations=iterations, clip_norm=clip_norm, seed=seed)


plot_private_training.live = PrivateTrainingPlot


def private_training_figure(epsilon, iterations, clip_norm, *, rng, delta=DELTA):
    """Left: test accuracy after each iteration for plain GD, clipped GD and noisy GD.
    Right: per step, the norm of the clipped average gradient against the norm of its noise.

    The figure of ``plot_private_training`` for any ``rng`` and ``delta``.

    Used in: chapters/11_private_learning.ipynb, through ``plot_private_training``
    """
    plot = PrivateTrainingPlot()
    run = _private_run(epsilon, iterations, clip_norm, rng=rng, delta=delta)
    with mpl.rc_context(style_params()):
        plot.show(epsilon, iterations, clip_norm, run=run)
    for artist in plot.changing:
        artist.set_animated(False)
    return for_projection(plot.fig)
