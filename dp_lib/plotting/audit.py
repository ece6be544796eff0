"""Figures of chapters/05_auditing.ipynb (Checking a privacy claim): the certified lower bound tracking the true ε."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.ticker import FormatStrFormatter, MaxNLocator

from ..audit import ThresholdEvent, epsilon_lower_bound
from ..noise import laplace_pdf, sample_laplace
from ..random import make_rng
from ..validation import check_epsilon, check_finite_array, check_int
from .live import LivePlot
from .style import OKABE_ITO, count_older_than_40, new_figure

__all__ = ["AUDIT_EPSILONS", "laplace_audit_bounds", "plot_audit_laplace", "AuditLaplacePlot", "audit_laplace_figure"]

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

    Used in: chapters/05_auditing.ipynb, through ``plot_audit_laplace``

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


class AuditLaplacePlot(LivePlot):
    """The slider figure of chapters/05_auditing.ipynb (``plot_audit_laplace``), built once and updated per move.

    Right: the certified bounds on the grid (cached per seed) with fixed
    limits, as autoscaled for the default seed; the current ε moves the green
    line and diamonds. Left: the two output densities and the event. Their
    shape only scales with ε (width 1/ε, height ε), so the left panel's ranges
    come from a ladder of reference values ε_v = 3^k (…, 1/9, 1/3, 1, 3, …):
    the smallest ε_v ≥ ε gives the x-range the old figure had at ε_v and the
    y-range (0, 0.75 ε_v). That is the view: four for ε from 0.1 to 3; at
    ε = 1/3, 1 (the default) and 3 the panel looks exactly as before. The y tick labels keep two decimals
    so their width does not change with the view.

    Parameters
    ----------
    grid : array of ε, the x-values of the right panel (default ``AUDIT_EPSILONS``).
    trials : int, runs of the mechanism per certified bound.

    Used in: chapters/05_auditing.ipynb, through ``plot_audit_laplace``
    """

    def __init__(self, grid=AUDIT_EPSILONS, trials=_TRIALS):
        self.grid = check_finite_array(grid, "grid", ndim=1, allow_empty=False)
        self.trials = check_int(trials, "trials", minimum=1)
        super().__init__()

    def _bounds(self, seed):
        correct = laplace_audit_bounds(self.grid, seed=seed, trials=self.trials)
        buggy = laplace_audit_bounds(self.grid, seed=seed, scale_factor=0.5, trials=self.trials)
        return correct, buggy

    def build(self):
        grid, count = self.grid, float(count_older_than_40())
        self.count = count
        self.fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
        self.axes = (left, right)
        zeros = np.zeros(600)
        self.densities = [left.plot(zeros, zeros, color=OKABE_ITO[colour], label=f"output on {name}")[0]
                          for colour, name in (("blue", "D"), ("orange", "D' = D minus one person"))]
        self.event = left.fill_between(zeros, zeros, alpha=0.25, color=OKABE_ITO["blue"],
                                       label="event S = {output > f(D)}")
        left.set(title=" ", xlabel="released count", ylabel="density")
        # The legend sits above the densities (their peak is at most 2/3 of the height), so nothing overlaps
        # it: drawn under them, it stays in the unchanging background instead of being redrawn on every move.
        left.legend(loc="upper left", fontsize=7).set_zorder(0.9)
        left.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        left.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
        left.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))  # one width in every view
        left.ticklabel_format(axis="x", useOffset=False)

        correct, buggy = self._bounds(2024)
        right.plot(grid, grid, color=OKABE_ITO["black"], lw=1, ls="--", label="claimed ε")
        right.plot(grid, 2 * grid, color=OKABE_ITO["vermillion"], lw=1, ls=":", label="true ε of the bug (2ε)")
        (self.correct,) = right.plot(grid, correct, "o-", ms=3, color=OKABE_ITO["blue"], label="certified, Lap(Δ/ε)")
        (self.buggy,) = right.plot(grid, buggy, "s-", ms=3, color=OKABE_ITO["vermillion"],
                                   label="certified, bug Lap(Δ/(2ε))")
        right.locator_params(nbins=5)  # fewer tick labels: text layout dominates the redraw time
        right.set(xlim=right.get_xlim(), ylim=right.get_ylim())  # autoscaled for the default seed, then fixed
        self.marker_line = right.axvline(grid[0], color=OKABE_ITO["green"], lw=1)
        (self.diamonds,) = right.plot([grid[0]] * 2, [0.0, 0.0], "D", color=OKABE_ITO["green"], ms=6, label=" ")
        right.set(title=f"certified lower bound (95 %, {self.trials:,} runs each)", xlabel="claimed ε",
                  ylabel="certified lower bound on ε")
        right.title.set_zorder(0.9)  # outside the axes, overlapping nothing: kept in the background
        self.right_legend = right.legend(loc="upper left", fontsize=7)
        self.changing = [*self.densities, self.event, left.title, self.correct, self.buggy, self.marker_line,
                         self.diamonds, self.right_legend]

    @staticmethod
    def reference_epsilon(epsilon):
        """The left panel's view: the smallest 3^k that is ≥ ε (k an integer)."""
        k = math.ceil(math.log(epsilon) / math.log(3.0) - 1e-9)
        return 3.0**k if 3.0**k >= epsilon else 3.0 ** (k + 1)

    def update(self, epsilon=1.0, seed=2024):
        eps = check_epsilon(epsilon)
        view = self.reference_epsilon(eps)
        left, right = self.axes
        count, b, b_view = self.count, 1.0 / eps, 1.0 / view
        lo, hi = count - 1 - 6 * b_view, count + 6 * b_view  # the old figure's x-range at ε = view
        x = np.linspace(lo, hi, 600)
        for line, loc in zip(self.densities, (count, count - 1)):
            line.set_data(x, laplace_pdf(x, loc=loc, scale=b))
        inside = x > count
        self.event.set_data(x[inside], laplace_pdf(x[inside], loc=count, scale=b), 0)
        left.title.set_text(f"Laplace count, ε = {eps:g}")
        margin = 0.05 * (hi - lo)  # as autoscaling added
        left.set_xlim(lo - margin, hi + margin)
        left.set_ylim(0, 0.75 * view)  # the peak is at most ε/2: room for the legend above it

        correct, buggy = self._bounds(seed)
        self.correct.set_ydata(correct)
        self.buggy.set_ydata(buggy)
        now = laplace_audit_bounds([eps], seed=seed, trials=self.trials)[0]
        now_bug = laplace_audit_bounds([eps], seed=seed, scale_factor=0.5, trials=self.trials)[0]
        self.marker_line.set_xdata([eps, eps])
        self.diamonds.set_data([eps, eps], [now, now_bug])
        self.right_legend.get_texts()[-1].set_text(f"ε = {eps:g}: {now:.2f} and {now_bug:.2f}")
        return view


def plot_audit_laplace(epsilon=1.0, seed=2024):
    """The slider figure of chapters/05_auditing.ipynb: the certified bound tracks the true ε of the Laplace mechanism.

    Left: the correct mechanism's output densities on the two neighbours at
    this ε and the audited event. Right: certified lower bounds against the
    claimed ε on the grid ``AUDIT_EPSILONS``, for the correct mechanism (true
    ε = the claim) and for the Δ/(2ε) bug (true ε = twice the claim), with the
    current ε marked. The grid is computed once (cached), so a redraw only
    draws the figure. Only slider parameters are arguments. Drawn by ``AuditLaplacePlot``.

    Defined in: chapters/05_auditing.ipynb
    """
    return AuditLaplacePlot().figure(epsilon=epsilon, seed=seed)


plot_audit_laplace.live = AuditLaplacePlot


def audit_laplace_figure(epsilon, *, seed=2024, grid=AUDIT_EPSILONS, trials=_TRIALS):
    """Output densities with the event (left); certified ε_lb against the claimed ε (right).

    ``plot_audit_laplace`` with another grid or number of runs (``AuditLaplacePlot``).

    Used in: chapters/05_auditing.ipynb, through ``plot_audit_laplace``
    """
    return AuditLaplacePlot(grid=grid, trials=trials).figure(epsilon=epsilon, seed=seed)
