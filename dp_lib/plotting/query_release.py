"""Figures of chapters/13_query_release.ipynb: workload error, MWEM (the slider), consistency and its bias.

The slider figure works from the Adult histogram over the chapter's public domain (built once and cached)
and runs one MWEM release per redraw, with ``mwem_fast`` (the same algorithm and the same random draws as
``dp_lib.mwem``, bookkeeping in O(cells of the query) per update; tests/test_query_release.py pins the agreement);
the per-query Laplace errors do not depend on T and are cached by (ε, seed), and each grid point's errors are cached.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from ..data import load_adult
from ..mechanisms import laplace_mech
from ..query_release import ADULT_QUERY_DOMAIN, adult_histogram, marginal_workload
from ..selection import exponential_mech
from ..random import make_rng
from ..validation import check_epsilon, check_int
from .live import LivePlot
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["plot_workload_error", "plot_mwem", "MwemPlot", "mwem_fast", "plot_consistency_bias"]


@lru_cache(maxsize=1)
def _adult_workload():
    counts = adult_histogram(load_adult()).ravel().astype(float)
    workload, marginals = marginal_workload(tuple(len(v) for v in ADULT_QUERY_DOMAIN.values()), k=2)
    names = list(ADULT_QUERY_DOMAIN)
    labels = [" × ".join(names[a][:3] for a in attrs) for attrs in dict.fromkeys(marginals)]
    return counts, workload, np.array([list(dict.fromkeys(marginals)).index(m) for m in marginals]), labels


@lru_cache(maxsize=64)
def _laplace_errors(epsilon: float, seed: int) -> np.ndarray:
    counts, workload, _, _ = _adult_workload()
    answers = _true_answers()  # laplace_workload's draws: Lap(Δ₁/ε) on W x, Δ₁ = 10 for the ten 2-way marginals
    return np.abs(laplace_mech(answers, 10.0, epsilon, rng=make_rng(seed)) - answers)


@lru_cache(maxsize=1)
def _true_answers() -> np.ndarray:
    counts, workload, _, _ = _adult_workload()
    return workload @ counts


def _query_sums(workload: np.ndarray):
    """(a -> W @ a without BLAS, one bincount; the cells of each query) for a 0/1 workload."""
    owner, cells = np.nonzero(workload)
    queries = np.split(cells, np.cumsum(np.bincount(owner, minlength=workload.shape[0]))[:-1])
    return (lambda a: np.bincount(owner, weights=a[cells], minlength=workload.shape[0])), queries


def mwem_fast(x: np.ndarray, workload: np.ndarray, epsilon: float, rounds: int, *, rng: np.random.Generator,
              total: float, repetitions: int = 10) -> np.ndarray:
    """``dp_lib.mwem`` (averaged output) with an unnormalised histogram: the same draws, O(|cells|) per update.

    Keeps Ã with A = n Ã / Z, so rescaling to n records is a change of the scalar Z instead of a pass over every
    cell. Arguments are trusted (checked by the caller); the result equals ``mwem``'s up to float rounding.

    Privacy: as ``dp_lib.mwem``: ε-DP in exact arithmetic for add/remove-one neighbours with ``total`` public.

    Used in: chapters/13_query_release.ipynb, through ``plot_mwem``
    """
    answer, queries = _query_sums(workload)  # W @ a without BLAS (threaded BLAS stalls a slider on a busy machine)
    true_answers, n = answer(np.asarray(x, dtype=float)), float(total)
    weights, z = np.full(workload.shape[1], n / workload.shape[1]), n  # A = n * weights / z
    measured, history = [], np.zeros_like(weights)
    for _ in range(rounds):
        scores = np.abs(answer(weights) * (n / z) - true_answers)
        q = exponential_mech(np.arange(workload.shape[0]), scores, 1.0, epsilon / (2 * rounds), rng=rng)
        m = laplace_mech(true_answers[q], 1.0, epsilon / (2 * rounds), rng=rng)
        measured.append((queries[q], min(max(m, 0.0), n)))
        for cells, m in measured * repetitions:
            part = float(weights[cells].sum())
            factor = math.exp((m - part * n / z) / (2.0 * n))
            weights[cells] *= factor
            z += part * (factor - 1.0)
        weights *= n / weights.sum()  # renormalise once per round (no drift of z)
        z = n
        history += weights
    return history / rounds


@lru_cache(maxsize=512)
def _mwem_errors(epsilon: float, rounds: int, seed: int) -> np.ndarray:
    counts, workload, _, _ = _adult_workload()
    synthetic = mwem_fast(counts, workload, epsilon, rounds, rng=make_rng(seed), total=float(counts.sum()))
    return np.abs(_query_sums(workload)[0](synthetic) - _true_answers())


@book_style
def plot_workload_error(table: pd.DataFrame, *, title: str = "mean error per query of the 2-way marginals"):
    """Mean absolute error per query against ε, one line per method (columns of ``table``, ε as its index).

    Defined in: chapters/13_query_release.ipynb
    """
    fig, ax = new_figure(width=6.5)
    markers = "osD^v"
    for i, method in enumerate(table.columns):
        ax.plot(table.index, table[method], marker=markers[i % len(markers)], label=method)
    ax.set(xscale="log", yscale="log", xlabel="ε (δ = 1e-5 for the zCDP methods)", ylabel="mean |error| per query",
           title=title)
    ax.legend(fontsize=8)
    return fig


class MwemPlot(LivePlot):
    """The slider figure of chapters/13_query_release.ipynb (``plot_mwem``), built once and updated per move.

    Mean error per query of each 2-way marginal, for MWEM (ε, T rounds) and for per-query Laplace noise at the
    same ε; the log y-axis is fixed, so a move only changes the bar heights and the title.

    Used in: chapters/13_query_release.ipynb, through ``plot_mwem``
    """

    def build(self) -> None:
        _, _, _, labels = _adult_workload()
        pos = np.arange(len(labels))
        self.fig, ax = new_figure(width=8.0, height=3.4)
        self.mwem_bars = ax.bar(pos - 0.2, np.ones(len(labels)), width=0.4, color=OKABE_ITO["vermillion"],
                                label="MWEM (ε, T rounds)")
        self.laplace_bars = ax.bar(pos + 0.2, np.ones(len(labels)), width=0.4, color=OKABE_ITO["blue"],
                                   label="per-query Laplace (ε)")
        ax.set_xticks(pos, labels, rotation=30, ha="right", fontsize=8)
        ax.set(yscale="log", ylim=(0.3, 3e4), ylabel="mean |error| per query", title=" ")
        ax.legend(loc="upper left", fontsize=8)
        self.ax = ax
        self.changing = [*self.mwem_bars, *self.laplace_bars, ax.title]

    def update(self, epsilon: float = 1.0, rounds: int = 20, seed: int = 2024) -> None:
        eps = check_epsilon(epsilon)
        t = check_int(rounds, "rounds", minimum=1, maximum=200)
        seed = check_int(seed, "seed", minimum=0)
        _, _, marginal, _ = _adult_workload()
        mwem_err = _mwem_errors(eps, t, seed)
        lap_err = _laplace_errors(eps, seed)
        for bars, err in ((self.mwem_bars, mwem_err), (self.laplace_bars, lap_err)):
            for bar, height in zip(bars, np.bincount(marginal, weights=err) / np.bincount(marginal)):
                bar.set_height(height)
        self.ax.title.set_text(f"2-way marginals of Adult, ε = {eps:g}: mean error MWEM (T = {t}) "
                               f"{mwem_err.mean():.1f}, Laplace {lap_err.mean():.1f}")


def plot_mwem(epsilon: float = 1.0, rounds: int = 20, seed: int = 2024):
    """The slider figure: mean error per marginal of MWEM (ε, T rounds) against per-query Laplace noise at ε.

    Both releases are ε-DP; the draws come from ``make_rng(seed)``, so a setting always shows the same picture.

    Defined in: chapters/13_query_release.ipynb
    """
    return MwemPlot().figure(epsilon=epsilon, rounds=rounds, seed=seed)


plot_mwem.live = MwemPlot


@book_style
def plot_consistency_bias(true_counts, bias: dict, *, title: str = "bias of each subgroup count, by its true size"):
    """Mean error (estimate - truth) of each leaf against its true count, one series per method in ``bias``.

    Defined in: chapters/13_query_release.ipynb
    """
    truth = np.asarray(true_counts, dtype=float)
    fig, ax = new_figure(width=6.5)
    colours = [OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["vermillion"]]
    for (name, values), colour, marker in zip(bias.items(), colours, "os^"):
        ax.scatter(truth + 1, values, s=18, color=colour, marker=marker, label=name, alpha=0.8)
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set(xscale="log", xlabel="true count + 1 (log scale)", ylabel="mean of estimate − truth", title=title)
    ax.legend(fontsize=8)
    return fig
