"""Figures of chapters/11_private_learning.ipynb: gradient norms, and iterations against noise.

The private-against-non-private training figure and its slider live in
``dp_lib.plotting.private_training``; its names stay importable from here.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..data import ADULT_PATH
from ..learning import (accuracy, adult_features, gradient_descent, iteration_budget,
                        logistic_gradients, noisy_gradient_descent)
from ..mechanisms import analytic_gaussian_sigma
from ..random import make_rng
from ..validation import check_positive
from .private_training import (ACC_TICKS, DELTA, LEARNING_RATE, MAX_ITERATIONS, PrivateTrainingPlot,  # noqa: F401
                               plain_curve, plain_log_ticks, plot_private_training, private_training_figure)
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["plot_private_training", "PrivateTrainingPlot", "private_training_figure", "plot_gradient_norms", "plot_iterations_tradeoff"]

@lru_cache(maxsize=1)
def _data():
    """The chapter's features (read-only arrays, shared by the cached curves)."""
    data = adult_features()
    for a in data[:4]:
        a.flags.writeable = False
    return data


@book_style
def plot_gradient_norms(clip_norm=1.5, iterations=20):
    """Histograms of per-example gradient norms at θ = 0 and after ``iterations`` steps of plain GD, with C.

    Defined in: chapters/11_private_learning.ipynb
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


#: The noisy-GD runs of chapters/11_private_learning.ipynb for ``plot_iterations_tradeoff`` at its defaults (105 trainings, 2-3 s): one row per
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

    Defined in: chapters/11_private_learning.ipynb
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
    plain_log_ticks(left.xaxis, [1, 10, 100])
    plain_log_ticks(left.yaxis, [1, 10, 100, 1000])
    left.legend(fontsize=8)
    plain = plain_curve(None)[0]
    right.semilogx(ks, plain[ks], color=OKABE_ITO["blue"], marker="o", ms=3, label="non-private")
    for eps, colour in zip(epsilons, [OKABE_ITO["green"], OKABE_ITO["orange"], OKABE_ITO["vermillion"],
                                      OKABE_ITO["purple"]]):
        accs = [_final_accuracy(eps, int(k), clip_norm, seeds) for k in ks]
        right.semilogx(ks, accs, color=colour, marker="o", ms=3, label=f"private, ε = {eps:g}")
    right.set(xlabel="iterations k", ylabel="final test accuracy", title=f"sequential composition, mean over {len(seeds)} seeds",
              ylim=(0.6, 0.86))
    right.set_yticks(ACC_TICKS, [f"{t:.2f}" for t in ACC_TICKS])
    plain_log_ticks(right.xaxis, [1, 10, 100])
    right.legend(fontsize=8, loc="lower right")
    return fig
