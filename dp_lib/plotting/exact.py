"""Figures of the chapter on noise on a real computer: the float lattice, exact discrete noise."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

from functools import lru_cache

import numpy as np
from matplotlib.collections import PolyCollection

from ..exact import discrete_gaussian_pmf, discrete_laplace_pmf
from ..floating import laplace_reachable
from ..mechanisms import laplace_mech
from ..noise import laplace_pdf
from ..random import make_rng
from ..validation import check_finite_array
from .live import LivePlot
from .style import OKABE_ITO, book_style, is_finite_number, new_figure

__all__ = ["plot_float_lattice", "FloatLatticePlot", "plot_discrete_samples"]

_WINDOW = 48  # consecutive doubles shown


def _window(scale):
    """48 consecutive doubles starting at 1 + scale/2, a typical output of f(D') = 1 plus noise."""
    start = 1.0 + scale / 2
    steps = np.arange(_WINDOW)
    return start + steps * np.spacing(start), steps


@lru_cache(maxsize=256)
def _window_reachable_from_one(scale):
    """Which doubles of the window f(D') = 1 can produce at ``scale`` (cached: a seed move does not redo it)."""
    return laplace_reachable(_window(scale)[0], 1.0, scale)


class FloatLatticePlot(LivePlot):
    """The float-lattice slider figure of chapters/14_exact_noise.ipynb (``plot_float_lattice``), built once and updated per move.

    The axes are fixed (k from −1 to 48, the two rows), so there is one view.
    The x-axis label names the first double of the window, which moves with b,
    so it is a changing text placed where the axis puts its (blank) label: the
    axis and its tick labels stay in the unchanging background.

    Used in: chapters/14_exact_noise.ipynb, through ``plot_float_lattice``
    """

    rows = [(0.0, "from f(D) = 0", OKABE_ITO["blue"], 1), (1.0, "from f(D') = 1", OKABE_ITO["orange"], 0)]

    def build(self) -> None:
        steps = np.arange(_WINDOW)
        self.fig, ax = new_figure(width=8.0, height=2.6)
        self.ax = ax
        self.markers = []
        for _, _label, color, row in self.rows:
            missed = ax.scatter(steps, np.full(_WINDOW, row), s=30, facecolors="none", edgecolors="0.75")
            hit = ax.scatter(steps, np.full(_WINDOW, row), s=45, color=color, label=" ")
            self.markers.append((missed, hit))
        ax.set(yticks=[0, 1], yticklabels=["f(D') = 1", "f(D) = 0"], ylim=(-0.5, 2.0), xlim=(-1, _WINDOW),
               xlabel=" ", title=" ")
        # the label's text: at the top centre of the blank axis label, which the layout made room for
        self.xlabel = ax.annotate(" ", xy=(0.5, 1.0), xycoords=ax.xaxis.label, ha="center", va="top",
                                  fontsize=ax.xaxis.label.get_fontsize(), color=ax.xaxis.label.get_color())
        self.xlabel.set_in_layout(False)
        self.legend = ax.legend(loc="upper center", ncol=2)
        self.changing = [*(m for pair in self.markers for m in pair), self.xlabel, self.legend, ax.title]

    def update(self, scale: float = 1.0, seed: int = 2024) -> None:
        if not (is_finite_number(scale) and 0.05 <= scale <= 1e6):
            raise ValueError("scale: the scale b must be a number in [0.05, 1e6]")
        y, steps = _window(scale)
        released = laplace_mech(np.ones(5000), 1.0, 1.0 / scale, rng=make_rng(seed))
        # One binary search for the window and the releases against f(D) = 0 (elementwise, so the same answers as
        # two calls, in about half the time); the window against f(D') = 1 depends on the scale only.
        from_zero = laplace_reachable(np.concatenate([y, released]), 0.0, scale)
        hits = {0.0: from_zero[:_WINDOW], 1.0: _window_reachable_from_one(float(scale))}
        share = float(1.0 - from_zero[_WINDOW:].mean())  # distinguishing_share(released, 0.0, scale)
        for (loc, label, _, row), (missed, hit_markers), text in zip(self.rows, self.markers, self.legend.get_texts()):
            hit = hits[loc]
            missed.set_offsets(np.column_stack([steps[~hit], np.full((~hit).sum(), row)]))
            hit_markers.set_offsets(np.column_stack([steps[hit], np.full(hit.sum(), row)]))
            text.set_text(f"{label}: {hit.sum()} of 48")
        self.xlabel.set_text(f"index of the double after {y[0]:.17g} (one ulp apart)")
        self.ax.title.set_text(f"b = {scale:g}: {share:.2%} of releases from f(D') = 1 are impossible from f(D) = 0")


def plot_float_lattice(scale: float = 1.0, seed: int = 2024) -> Figure:
    """Which of 48 consecutive doubles the float Laplace mechanism can output from f(D) = 0 and from f(D') = 1.

    Each marker is one double near 1 + b/2 (x-axis: its offset in units in the last place); a filled
    marker means the book's ``laplace_mech`` can output it. Most doubles reachable from f(D') = 1 are
    unreachable from f(D) = 0, so seeing one proves the input was D'. The title gives the share of
    5,000 seeded releases from f(D') = 1 that no run on f(D) = 0 can produce. Drawn by ``FloatLatticePlot``;
    a scale b outside [0.05, 1e6] raises ``ValueError`` (a slider shows the message).

    Defined in: chapters/14_exact_noise.ipynb
    """
    return FloatLatticePlot().figure(scale=scale, seed=seed)


plot_float_lattice.live = FloatLatticePlot


@book_style
def plot_discrete_samples(laplace_draws: ArrayLike, laplace_scale: float, gaussian_draws: ArrayLike,
                          gaussian_sigma: float) -> Figure:
    """Exact discrete Laplace (left) and discrete Gaussian (right) draws against their pmfs, with the continuous densities.

    Bars: share of draws at each integer; dots: the exact pmf; line: the continuous density with the same
    scale, which the discrete law follows closely once the scale is a few units.

    Defined in: chapters/14_exact_noise.ipynb
    """
    fig, axes = new_figure(1, 2)
    panels = [(laplace_draws, lambda k: discrete_laplace_pmf(k, laplace_scale),
               lambda x: laplace_pdf(x, scale=laplace_scale), f"discrete Laplace, scale {laplace_scale:g}"),
              (gaussian_draws, lambda k: discrete_gaussian_pmf(k, gaussian_sigma),
               lambda x: np.exp(-x * x / (2 * gaussian_sigma**2)) / np.sqrt(2 * np.pi * gaussian_sigma**2),
               f"discrete Gaussian, σ = {gaussian_sigma:g}")]
    for ax, (draws, pmf, density, title) in zip(axes, panels):
        draws = check_finite_array(draws, "draws", ndim=1, allow_empty=False).astype(np.int64)
        k = np.arange(-12, 13)
        inside = (draws >= -12) & (draws <= 12)
        share = np.bincount(draws[inside] + 12, minlength=k.size) / draws.size  # = mean(draws == v) for each v
        ax.plot(k, pmf(k), "o", color=OKABE_ITO["vermillion"], ms=4, label="exact pmf")
        x = np.linspace(-12.5, 12.5, 501)
        ax.plot(x, density(x), color=OKABE_ITO["black"], lw=1, label="continuous density")
        # The bars (width 0.8, under the lines and last in the legend, as ax.bar's) as one collection: ax.bar
        # made a patch and a data-limit update per bar, a third of the figure's time.
        left, right, zero = k - 0.4, k + 0.4, np.zeros_like(share)
        bars = PolyCollection(np.stack([np.column_stack([left, left, right, right]),
                                        np.column_stack([zero, share, share, zero])], axis=-1),
                              facecolors=OKABE_ITO["sky"], edgecolors="none", label=f"{draws.size:,} draws")
        bars.sticky_edges.y.append(0.0)  # the y-axis starts at 0, as with bars
        ax.add_collection(bars)
        ax.set(title=title, xlabel="noise z (an integer)", ylabel="probability")
        ax.locator_params(axis="y", nbins=4)  # fewer tick labels to lay out: a faster draw
    axes[0].legend(loc="upper left", fontsize=8)
    return fig
