"""Figures of the auditing appendix: the certified lower bound tracking the true ε."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..audit import ThresholdEvent, epsilon_lower_bound
from ..noise import laplace_pdf, sample_laplace
from ..random import make_rng
from ..validation import check_epsilon, check_finite_array, check_int
from .style import OKABE_ITO, book_style, count_older_than_40, new_figure

__all__ = ["AUDIT_EPSILONS", "laplace_audit_bounds", "plot_audit_laplace", "audit_laplace_figure"]

AUDIT_EPSILONS = np.round(np.arange(1, 31) * 0.1, 10)  # the slider's grid, ε = 0.1, 0.2, ..., 3.0
_TRIALS = 100_000
_CONFIDENCE = 0.95


@lru_cache(maxsize=1024)
def _bound(epsilon: float, seed: int, scale_factor: float, trials: int) -> float:
    """Certified ε_lb of count + Lap(scale_factor/ε), D vs D', event {output > f(D)}, own seed per point."""
    count = float(count_older_than_40())

    def mechanism(true_count, size, rng):
        return true_count + sample_laplace(scale_factor / epsilon, size=size, rng=rng)

    rng = make_rng([seed, int(round(epsilon * 10_000)), int(round(scale_factor * 10_000))])
    event = ThresholdEvent(count)  # above both means: probability ratio exactly e^ε, chosen before sampling
    return epsilon_lower_bound(mechanism, count, count - 1, event, trials, _CONFIDENCE, rng=rng).epsilon_lb


def laplace_audit_bounds(epsilons, *, seed=2024, scale_factor=1.0, trials=_TRIALS):
    """Certified lower bounds (95 % confidence) for the Laplace count at each ε, cached per point.

    The mechanism releases the Adult count of people older than 40 plus
    Lap(scale_factor/ε): ``scale_factor = 1`` is the correct Laplace mechanism,
    0.5 the bug that uses Δ/(2ε) (truly 2ε-DP). Neighbours: the data and the data
    without one person older than 40; event: {output > f(D)}, fixed by
    analysis. Each ε uses its own generator derived from ``seed``, so a point
    does not depend on which other points were computed.

    Returns
    -------
    numpy array of ε_lb, one per entry of ``epsilons``.

    Privacy: none (an audit).

    Defined in: chapters/A1_auditing.ipynb

    Examples
    --------
    >>> laplace_audit_bounds([1.0, 2.0]).round(3)
    array([0.981, 1.97 ])
    """
    eps = check_finite_array(epsilons, "epsilons", ndim=1, allow_empty=False)
    for e in eps:
        check_epsilon(e)
    n = check_int(trials, "trials", minimum=1)
    factor = float(check_finite_array(scale_factor, "scale_factor", ndim=0))
    return np.array([_bound(round(float(e), 10), int(seed), factor, n) for e in eps])


def plot_audit_laplace(epsilon=1.0, seed=2024):
    """The slider figure of the appendix: the certified bound tracks the true ε of the Laplace mechanism.

    Left: the output densities on the two neighbours at this ε and the audited
    event. Right: certified lower bounds against the true ε on the grid
    ``AUDIT_EPSILONS``, for the correct mechanism and for the Δ/(2ε) bug, with
    the current ε marked. The grid is computed once (cached), so a redraw only
    draws the figure. Only slider parameters are arguments.

    Defined in: chapters/A1_auditing.ipynb
    """
    return audit_laplace_figure(epsilon, seed=seed)


@book_style
def audit_laplace_figure(epsilon, *, seed=2024, grid=AUDIT_EPSILONS, trials=_TRIALS):
    """Output densities with the event (left); certified ε_lb against the true ε (right).

    Defined in: chapters/A1_auditing.ipynb
    """
    eps = check_epsilon(epsilon)
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
    count = float(count_older_than_40())
    b = 1.0 / eps
    x = np.linspace(count - 1 - 6 * b, count + 6 * b, 600)
    for loc, colour, name in ((count, "blue", "D"), (count - 1, "orange", "D' = D minus one person")):
        left.plot(x, laplace_pdf(x, loc=loc, scale=b), color=OKABE_ITO[colour], label=f"output on {name}")
    inside = x > count
    left.fill_between(x[inside], laplace_pdf(x[inside], loc=count, scale=b), alpha=0.25, color=OKABE_ITO["blue"],
                      label="event S = {output > f(D)}")
    left.set(title=f"Laplace count, ε = {eps:g}", xlabel="released count", ylabel="density",
             ylim=(0, 0.75 * eps))  # the peak is ε/2: room for the legend above it
    left.legend(loc="upper left", fontsize=7)

    correct = laplace_audit_bounds(grid, seed=seed, trials=trials)
    buggy = laplace_audit_bounds(grid, seed=seed, scale_factor=0.5, trials=trials)
    right.plot(grid, grid, color=OKABE_ITO["black"], lw=1, ls="--", label="claimed ε")
    right.plot(grid, 2 * grid, color=OKABE_ITO["vermillion"], lw=1, ls=":", label="true ε of the bug (2ε)")
    right.plot(grid, correct, "o-", ms=3, color=OKABE_ITO["blue"], label="certified, Lap(Δ/ε)")
    right.plot(grid, buggy, "s-", ms=3, color=OKABE_ITO["vermillion"], label="certified, bug Lap(Δ/(2ε))")
    now, now_bug = laplace_audit_bounds([eps], seed=seed, trials=trials)[0], \
        laplace_audit_bounds([eps], seed=seed, scale_factor=0.5, trials=trials)[0]
    right.axvline(eps, color=OKABE_ITO["green"], lw=1)
    right.plot([eps, eps], [now, now_bug], "D", color=OKABE_ITO["green"], ms=6,
               label=f"ε = {eps:g}: {now:.2f} and {now_bug:.2f}")
    right.set(title=f"certified lower bound (95 %, {trials:,} runs each)", xlabel="claimed ε",
              ylabel="certified lower bound on ε")
    right.legend(loc="upper left", fontsize=7)
    for ax in (left, right):
        ax.locator_params(nbins=5)  # fewer tick labels: text layout dominates the redraw time
    left.ticklabel_format(axis="x", useOffset=False)
    return fig
