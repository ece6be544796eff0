"""Figures of Chapter 6: private vs non-private training, gradient norms, iterations against noise."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..learning import (accuracy, clipped_gradient_sum, adult_features, gradient_descent, iteration_budget,
                        logistic_gradients, noisy_gradient_descent)
from ..mechanisms import analytic_gaussian_sigma
from ..random import make_rng
from ..validation import check_int, check_positive
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["plot_private_training", "private_training_figure", "plot_gradient_norms", "plot_iterations_tradeoff"]

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

    Returns the test accuracy after each iteration and the norm of the (clipped)
    mean gradient at each iterate.
    """
    d = _data()
    _, history = gradient_descent(d.X_train, d.y_train, MAX_ITERATIONS, learning_rate=LEARNING_RATE,
                                  clip_norm=clip_norm)
    thetas = history.filter(like="theta_").to_numpy()
    grads = clipped_gradient_sum(thetas, d.X_train, d.y_train, clip_norm) / len(d.y_train)
    return accuracy(thetas, d.X_test, d.y_test), np.linalg.norm(grads, axis=1)


def _plain_log_ticks(axis, ticks):
    """Fixed log-axis ticks with plain labels: mathtext tick labels would double the drawing time."""
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def plot_private_training(epsilon=1.0, iterations=20, clip_norm=1.5, seed=2024):
    """The slider figure of Chapter 6: test accuracy per iteration, private and not.

    Trains on the Adult training split with total budget (``epsilon``, δ = 1e-5),
    k = ``iterations`` steps and clipping norm C = ``clip_norm`` (learning rate 4),
    drawing the noise from ``make_rng(seed)``. Only slider parameters are arguments.

    Defined in: chapters/08_private_learning.ipynb
    """
    return private_training_figure(epsilon, iterations, clip_norm, rng=make_rng(seed))


@book_style
def private_training_figure(epsilon, iterations, clip_norm, *, rng, delta=DELTA):
    """Left: test accuracy after each iteration for plain GD, clipped GD and noisy GD.
    Right: per step, the norm of the clipped average gradient against the norm of its noise.

    Defined in: chapters/08_private_learning.ipynb
    """
    k = check_int(iterations, "iterations", minimum=1, maximum=MAX_ITERATIONS)
    c = check_positive(clip_norm, "clip_norm")
    d = _data()
    _, history = noisy_gradient_descent(d.X_train, d.y_train, epsilon, delta, k, c, rng=rng,
                                        learning_rate=LEARNING_RATE)
    thetas = history.filter(like="theta_").to_numpy()
    private = accuracy(thetas, d.X_test, d.y_test)
    plain, clipped, signal = _plain_curve(None)[0][: k + 1], *(v[: k + 1] for v in _plain_curve(float(c)))
    steps = np.arange(k + 1)
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
    fig.set_layout_engine("none")  # fixed positions and ticks: a redraw skips the layout search
    left.set_position([0.075, 0.14, 0.52, 0.76])
    right.set_position([0.70, 0.14, 0.285, 0.76])
    step = next(s for s in (1, 2, 5, 10, 20, 25) if k / s <= 6)
    xticks = np.arange(0, k + 1, step)
    low = 0.6
    left.axhline(private[0], color=OKABE_ITO["black"], lw=0.8, ls=":", label=f"majority {private[0]:.3f}")
    left.plot(steps, plain, color=OKABE_ITO["blue"], label=f"non-private {plain[-1]:.3f}")
    left.plot(steps, clipped, color=OKABE_ITO["green"], ls="--", label=f"clipped {clipped[-1]:.3f}")
    left.plot(steps, np.maximum(private, low), color=OKABE_ITO["vermillion"], marker="o", ms=3,
              label=f"private {private[-1]:.3f}")
    below = private < low
    if below.any():
        left.plot(steps[below], np.full(below.sum(), low), ls="none", marker="v", ms=6,
                  color=OKABE_ITO["vermillion"], label=f"below {low:g}")
    left.set(xlabel="iteration", ylabel="test accuracy", ylim=(low, 0.86), xlim=(0, k),
             title=f"ε = {epsilon:g} in k = {k} steps, C = {c:g}")
    left.set_xticks(xticks, [str(t) for t in xticks])
    left.set_yticks(_ACC_TICKS, [f"{t:.2f}" for t in _ACC_TICKS])
    left.legend(loc="lower right", fontsize=8, frameon=True, framealpha=0.85, edgecolor="none")
    noise = history["sigma"].iloc[0] * math.sqrt(d.X_train.shape[1]) / history["n_hat"].iloc[0]
    right.semilogy(steps[1:], signal[:-1], color=OKABE_ITO["green"], ls="--", label="signal")
    right.axhline(noise, color=OKABE_ITO["vermillion"], label=f"noise {noise:.2g}")
    right.set(xlabel="iteration", ylabel="L2 norm per step", title="signal vs noise",
              xlim=(0.5, k + 0.5))
    shown = np.r_[signal[:-1], noise]  # the y-range follows the two curves (a factor 4 of room each way)
    right.set_ylim(shown[shown > 0].min() / 4, shown.max() * 4)
    right.set_xticks(xticks[xticks >= 1], [str(t) for t in xticks[xticks >= 1]])
    _plain_log_ticks(right.yaxis, [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4])
    right.legend(loc="upper center", ncol=2, fontsize=8)  # above 100: no curve ever reaches there
    return fig


@book_style
def plot_gradient_norms(clip_norm=1.5, iterations=20):
    """Histograms of per-example gradient norms at θ = 0 and after ``iterations`` steps of plain GD, with C.

    Defined in: chapters/08_private_learning.ipynb
    """
    c = check_positive(clip_norm, "clip_norm")
    d = _data()
    theta, _ = gradient_descent(d.X_train, d.y_train, iterations, learning_rate=LEARNING_RATE)
    fig, ax = new_figure(width=7.0, height=3.2)
    bins = np.linspace(0, math.sqrt(7), 61)
    for t, colour, name in [(np.zeros_like(theta), OKABE_ITO["sky"], "at θ = 0"),
                            (theta, OKABE_ITO["blue"], f"after {iterations} steps")]:
        norms = np.linalg.norm(logistic_gradients(t, d.X_train, d.y_train), axis=1)
        ax.hist(norms, bins=bins, color=colour, alpha=0.6,
                label=f"{name}: {np.mean(norms > c):.1%} clipped")
    ax.axvline(c, color=OKABE_ITO["vermillion"], ls="--", label=f"C = {c:g}")
    ax.set(xlabel="per-example gradient norm ‖gᵢ‖₂", ylabel="training examples", title="who gets clipped?")
    ax.legend(fontsize=8)
    return fig


def _final_accuracy(epsilon, k, clip_norm, seeds, composition="sequential"):
    d = _data()
    return np.mean([accuracy(noisy_gradient_descent(d.X_train, d.y_train, epsilon, DELTA, k, clip_norm,
                                                    rng=make_rng(s), learning_rate=LEARNING_RATE,
                                                    composition=composition)[0], d.X_test, d.y_test)
                    for s in seeds])


@book_style
def plot_iterations_tradeoff(epsilons=(0.03, 0.1, 1.0), iterations=(1, 2, 5, 10, 20, 50, 100), clip_norm=1.5,
                             seeds=range(5)):
    """Left: noise σ per step against k at ε = 1, sequential vs advanced composition.
    Right: final test accuracy against k for each ε (mean over ``seeds``), with the non-private run.

    Defined in: chapters/08_private_learning.ipynb
    """
    ks = np.array(iterations)
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
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
    right.set(xlabel="iterations k", ylabel="final test accuracy", title=f"mean over {len(seeds)} seeds",
              ylim=(0.6, 0.86))
    _plain_log_ticks(right.xaxis, [1, 10, 100])
    right.legend(fontsize=8, loc="lower right")
    return fig
