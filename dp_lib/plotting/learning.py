"""Figures of chapters/08_private_learning.ipynb: private vs non-private training, gradient norms, iterations against noise."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import matplotlib as mpl
from matplotlib.legend import Legend
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..data import ADULT_PATH
from ..learning import (accuracy, adult_features, clipped_gradient_sum, gradient_descent, iteration_budget,
                        logistic_gradients, noisy_gradient_descent)
from ..mechanisms import analytic_gaussian_sigma
from ..random import make_rng
from ..validation import check_int, check_positive
from .live import LivePlot, nice_ceiling
from .style import BOOK_STYLE, OKABE_ITO, book_style, new_figure

__all__ = ["plot_private_training", "PrivateTrainingPlot", "private_training_figure", "plot_gradient_norms", "plot_iterations_tradeoff"]

MAX_ITERATIONS = 100  # the cached non-private curves cover the slider's range
DELTA = 1e-5
LEARNING_RATE = 4.0
_ACC_TICKS = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85)


@lru_cache(maxsize=1)
def _data():
    """The chapter's features (read-only arrays, shared by the cached curves)."""
    data = adult_features()
    for a in data[:4]:
        a.flags.writeable = False
    return data


@lru_cache(maxsize=64)
def _plain_curve(clip_norm):
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


def _plain_log_ticks(axis, ticks):
    """Fixed log-axis ticks with plain labels: mathtext tick labels would double the drawing time."""
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def _iteration_ticks(top):
    """Ticks 0..top on an iteration axis, at most 7 of them."""
    step = next(s for s in (1, 2, 5, 10, 20, 25) if top / s <= 6)
    return np.arange(0, top + 1, step)


class PrivateTrainingPlot(LivePlot):
    """The slider figure of chapters/08_private_learning.ipynb (``plot_private_training``), built once and updated per move.

    Left: test accuracy after each iteration for plain GD, clipped GD and noisy
    GD (values below 0.6 drawn at 0.6 and marked ▼, with a legend entry then);
    right: per step, the norm of the clipped average gradient against the norm of
    its noise, on a log scale. The view: both x-axes run to the smallest of 1, 2,
    5, 10, 20, 50, 100 that is ≥ k (the curves end at k), and the right y-axis
    spans whole decades with at least a factor 4 of room below and above the two
    curves. The accuracy axis is fixed (0.6 to 0.86).

    Used in: chapters/08_private_learning.ipynb, through ``plot_private_training``
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
        left.set_yticks(_ACC_TICKS, [f"{t:.2f}" for t in _ACC_TICKS])
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
        _plain_log_ticks(right.yaxis, [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4])
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
        plain, clipped, signal = _plain_curve(None)[0][: k + 1], *(v[: k + 1] for v in _plain_curve(float(c)))
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
    """The slider figure of chapters/08_private_learning.ipynb: test accuracy per iteration, private and not (``PrivateTrainingPlot``).

    Trains on the Adult training split with total budget (``epsilon``, δ = 1e-5),
    k = ``iterations`` steps and clipping norm C = ``clip_norm`` (learning rate 4),
    drawing the noise from ``make_rng(seed)``. Only slider parameters are arguments.

    Defined in: chapters/08_private_learning.ipynb
    """
    return PrivateTrainingPlot().figure(epsilon=epsilon, iterations=iterations, clip_norm=clip_norm, seed=seed)


plot_private_training.live = PrivateTrainingPlot


def private_training_figure(epsilon, iterations, clip_norm, *, rng, delta=DELTA):
    """Left: test accuracy after each iteration for plain GD, clipped GD and noisy GD.
    Right: per step, the norm of the clipped average gradient against the norm of its noise.

    The figure of ``plot_private_training`` for any ``rng`` and ``delta``.

    Used in: chapters/08_private_learning.ipynb, through ``plot_private_training``
    """
    plot = PrivateTrainingPlot()
    run = _private_run(epsilon, iterations, clip_norm, rng=rng, delta=delta)
    with mpl.rc_context(BOOK_STYLE):
        plot.show(epsilon, iterations, clip_norm, run=run)
    for artist in plot.changing:
        artist.set_animated(False)
    return plot.fig


@book_style
def plot_gradient_norms(clip_norm=1.5, iterations=20):
    """Histograms of per-example gradient norms at θ = 0 and after ``iterations`` steps of plain GD, with C.

    Defined in: chapters/08_private_learning.ipynb
    """
    c = check_positive(clip_norm, "clip_norm")
    d = _data()
    theta, _ = gradient_descent(d.X_train, d.y_train, iterations, learning_rate=LEARNING_RATE)
    fig, ax = new_figure(width=7.0, height=3.2)
    fig.set_layout_engine(None)  # fixed position (constrained layout's at the defaults): no layout search
    ax.set_position([0.0997, 0.149, 0.8944, 0.7757])
    bins = np.linspace(0, math.sqrt(7), 61)
    for t, colour, name in [(np.zeros_like(theta), OKABE_ITO["sky"], "at θ = 0"),
                            (theta, OKABE_ITO["blue"], f"after {iterations} steps")]:
        norms = np.linalg.norm(logistic_gradients(t, d.X_train, d.y_train), axis=1)
        counts, _ = np.histogram(norms, bins=bins)  # the histogram as one filled outline: 1 artist, not 60 bars
        ax.stairs(counts, bins, fill=True, color=colour, alpha=0.6, label=f"{name}: {np.mean(norms > c):.1%} clipped")
    ax.axvline(c, color=OKABE_ITO["vermillion"], ls="--", label=f"C = {c:g}")
    ax.set(xlabel="per-example gradient norm ‖gᵢ‖₂", ylabel="training examples", title="who gets clipped?")
    ax.legend(fontsize=8)
    return fig


#: The noisy-GD runs of chapters/08_private_learning.ipynb for ``plot_iterations_tradeoff`` at its defaults (105 trainings, 2-3 s): one row per
#: run with its test accuracy; ``python data/make_iterations_tradeoff.py`` rewrites it from ``_tradeoff_rows``.
TRADEOFF_TABLE = ADULT_PATH.with_name("iterations_tradeoff.csv")
TRADEOFF_COLUMNS = ("epsilon", "iterations", "clip_norm", "seed", "accuracy")


def _tradeoff_run(epsilon, iterations, clip_norm, seed):
    """Test accuracy of one noisy-GD training (sequential composition) of ``plot_iterations_tradeoff``."""
    d = _data()
    theta, _ = noisy_gradient_descent(d.X_train, d.y_train, epsilon, DELTA, iterations, clip_norm,
                                      rng=make_rng(seed), learning_rate=LEARNING_RATE, composition="sequential")
    return accuracy(theta, d.X_test, d.y_test)


def _tradeoff_rows(epsilons=(0.03, 0.1, 1.0), iterations=(1, 2, 5, 10, 20, 50, 100), clip_norm=1.5,
                   seeds=range(5)):
    """The rows of ``TRADEOFF_TABLE``: (ε, k, C, seed, test accuracy) for every run of the figure's defaults."""
    return [(float(eps), int(k), float(clip_norm), int(s), _tradeoff_run(float(eps), int(k), float(clip_norm), int(s)))
            for eps in epsilons for k in iterations for s in seeds]


@lru_cache(maxsize=1)
def _stored_runs():
    """{(ε, k, C, seed): accuracy} read from ``TRADEOFF_TABLE`` (floats written with repr: read back exactly).

    Without the file every run is trained (slower, same figure).
    """
    import csv

    try:
        with open(TRADEOFF_TABLE, newline="") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        return {}
    assert tuple(rows[0]) == TRADEOFF_COLUMNS, f"{TRADEOFF_TABLE} has columns {rows[0]}"
    return {(float(e), int(k), float(c), int(s)): float(a) for e, k, c, s, a in rows[1:]}


def _final_accuracy(epsilon, k, clip_norm, seeds):
    """Mean test accuracy over ``seeds``: each run read from ``TRADEOFF_TABLE`` when stored, else trained here."""
    stored, accs = _stored_runs(), []
    for s in seeds:
        try:
            key = (float(epsilon), int(k), float(clip_norm), int(s))
        except (TypeError, ValueError):
            key = None
        accs.append(stored[key] if key in stored else _tradeoff_run(epsilon, k, clip_norm, s))
    return np.mean(accs)


@book_style
def plot_iterations_tradeoff(epsilons=(0.03, 0.1, 1.0), iterations=(1, 2, 5, 10, 20, 50, 100), clip_norm=1.5,
                             seeds=range(5)):
    """Left: noise σ per step against k at ε = 1, sequential vs advanced composition.
    Right: final test accuracy against k for each ε (mean over ``seeds``; sequential composition, the
    trainer's default), with the non-private run.

    The 105 trainings of the defaults are read from ``data/iterations_tradeoff.csv`` (``TRADEOFF_TABLE``;
    ``tests/test_learning.py`` retrains a sample of them); other settings train here.

    Defined in: chapters/08_private_learning.ipynb
    """
    ks = np.array(iterations)
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
    fig.set_layout_engine("none")  # fixed positions (constrained layout's at the defaults): no layout search
    left.set_position([0.067, 0.1402, 0.4255, 0.7889])
    right.set_position([0.5699, 0.1402, 0.4255, 0.7889])
    for rule, style in [("sequential", "-"), ("advanced", "--")]:
        sig = [analytic_gaussian_sigma(clip_norm, *iteration_budget(0.95, DELTA, int(k), composition=rule)[:2])
               for k in ks]
        left.loglog(ks, sig, ls=style, marker="o", ms=3, color=OKABE_ITO["vermillion"], label=f"{rule} composition")
    left.set(xlabel="iterations k", ylabel="σ per step", title=f"noise per step at ε = 1, C = {clip_norm:g}")
    _plain_log_ticks(left.xaxis, [1, 10, 100])
    _plain_log_ticks(left.yaxis, [1, 10, 100, 1000])
    left.legend(fontsize=8)
    plain = _plain_curve(None)[0]
    right.semilogx(ks, plain[ks], color=OKABE_ITO["blue"], marker="o", ms=3, label="non-private")
    for eps, colour in zip(epsilons, [OKABE_ITO["green"], OKABE_ITO["orange"], OKABE_ITO["vermillion"],
                                      OKABE_ITO["purple"]]):
        accs = [_final_accuracy(eps, int(k), clip_norm, seeds) for k in ks]
        right.semilogx(ks, accs, color=colour, marker="o", ms=3, label=f"private, ε = {eps:g}")
    right.set(xlabel="iterations k", ylabel="final test accuracy", title=f"sequential composition, mean over {len(seeds)} seeds",
              ylim=(0.6, 0.86))
    right.set_yticks(_ACC_TICKS, [f"{t:.2f}" for t in _ACC_TICKS])
    _plain_log_ticks(right.xaxis, [1, 10, 100])
    right.legend(fontsize=8, loc="lower right")
    return fig
