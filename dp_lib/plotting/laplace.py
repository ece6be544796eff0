"""Figures of chapters/02_laplace.ipynb: the Laplace density, sampling checks, noisy answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from collections.abc import Hashable
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..mechanisms import analytic_gaussian_sigma, laplace_mech, laplace_scale
from ..noise import laplace_cdf, laplace_pdf
from ..random import make_rng
from ..validation import check_finite_array
from .live import LivePlot, nice_ceiling
from .style import OKABE_ITO, book_style, count_older_than_40, new_figure

__all__ = ["plot_laplace_shapes", "plot_sample_check", "plot_noisy_count", "NoisyCountPlot", "plot_laplace_vs_gaussian"]


@book_style
def plot_laplace_shapes(scales: tuple[float, ...] = (0.5, 1.0, 2.0), *, xlim: float = 6.0) -> Figure:
    """Density (left) and CDF (right) of Lap(0, b) for a few scales b.

    Defined in: chapters/02_laplace.ipynb
    """
    x = np.linspace(-xlim, xlim, 801)
    fig, (left, right) = new_figure(1, 2)
    for b in scales:
        left.plot(x, laplace_pdf(x, scale=b), label=f"b = {b:g}")
        right.plot(x, laplace_cdf(x, scale=b), label=f"b = {b:g}")
    left.set(title="density p(x)", xlabel="x")
    right.set(title="CDF F(x)", xlabel="x")
    left.legend()
    return fig


@book_style
def plot_sample_check(samples: ArrayLike, scale: float, *, loc: float = 0.0,
                      title: str = "inverse-CDF samples") -> Figure:
    """Histogram of ``samples`` (density-normalised) against the exact Lap(loc, scale) density.

    Defined in: chapters/02_laplace.ipynb
    """
    samples = check_finite_array(samples, "samples", ndim=1, allow_empty=False)
    lim = loc + 6 * scale
    x = np.linspace(2 * loc - lim, lim, 801)
    fig, ax = new_figure(width=6.0)
    edges = np.linspace(2 * loc - lim, lim, 81)
    counts, _ = np.histogram(samples, bins=edges)
    ax.stairs(counts / (samples.size * np.diff(edges)), edges, fill=True, color=OKABE_ITO["sky"],
              label=f"{samples.size:,} samples")
    ax.plot(x, laplace_pdf(x, loc=loc, scale=scale), color=OKABE_ITO["vermillion"], label="exact density")
    ax.set(title=title, xlabel="x", ylabel="density")
    ax.legend()
    return fig


class NoisyCountPlot(LivePlot):
    """The slider figure of chapters/02_laplace.ipynb (``plot_noisy_count``), built once and updated per move.

    Left, the density of Lap(Δ/ε); right, a histogram of ``n_draws`` releases
    of the chapter's count (people in the Adult data older than 40) through
    ``laplace_mech``, with the exact density on top. The x-axes stay fixed, so
    the spread is visible; the y-axes step through 1, 2, 5 × 10^k as the peak
    ε/(2Δ) grows or shrinks (the view).

    Used in: chapters/02_laplace.ipynb, through ``plot_noisy_count``
    """

    n_draws = 10_000
    half_width = 15.0

    def build(self) -> None:
        hw, true_answer = self.half_width, count_older_than_40()
        self.true_answer = true_answer
        self.x = np.linspace(-hw, hw, 801)
        self.edges = np.linspace(true_answer - hw, true_answer + hw, 81)
        self.fig, (left, right) = new_figure(1, 2, sharey=True)  # both panels are densities: one y-scale
        self.axes = (left, right)
        zeros = np.zeros_like(self.x)
        (self.density,) = left.plot(self.x, zeros, color=OKABE_ITO["vermillion"])
        self.fill = left.fill_between(self.x, zeros, alpha=0.2, color=OKABE_ITO["vermillion"])
        left.set(title=" ", xlabel="noise", xlim=(-hw, hw))
        self.bars = right.stairs(np.zeros(self.edges.size - 1), self.edges, fill=True, color=OKABE_ITO["sky"],
                                 label=f"{self.n_draws:,} releases")
        (self.exact,) = right.plot(self.x + true_answer, zeros, color=OKABE_ITO["vermillion"], label="exact")
        right.axvline(true_answer, color=OKABE_ITO["black"], lw=1, ls="--", label="true answer")
        right.set(title=" ", xlabel="released count", xlim=(true_answer - hw, true_answer + hw))
        right.xaxis.set_major_locator(MaxNLocator(4))
        right.legend(loc="upper right", fontsize=7)  # clear of the true-answer line at the centre
        self.changing = [self.fill, self.density, left.title, self.bars, self.exact, right.title]

    def update(self, epsilon: float = 1.0, sensitivity: float = 1.0, seed: int = 2024) -> Hashable:
        b = laplace_scale(sensitivity, epsilon)
        noisy = laplace_mech(np.full(self.n_draws, float(self.true_answer)), sensitivity, epsilon,
                             rng=make_rng(seed))
        density = laplace_pdf(self.x, scale=b)
        counts, _ = np.histogram(noisy, bins=self.edges)
        heights = counts / (self.n_draws * np.diff(self.edges))
        inside = np.mean(np.abs(noisy - self.true_answer) <= self.half_width)
        left, right = self.axes
        self.density.set_ydata(density)
        self.fill.set_data(self.x, density, 0)
        self.bars.set_data(heights)
        self.exact.set_ydata(density)
        left.title.set_text(f"noise density Lap(b = Δ/ε = {b:.3g})")
        right.title.set_text(f"noisy answers, ε = {epsilon:g}, Δ = {sensitivity:g} ({inside:.0%} in view)")
        top = nice_ceiling(1.05 * max(density.max(), heights.max()))  # the peak is ε/(2Δ)
        left.set_ylim(0, top)  # shared with the right panel
        return top


def plot_noisy_count(epsilon: float = 1.0, sensitivity: float = 1.0, seed: int = 2024) -> Figure:
    """The slider figure of chapters/02_laplace.ipynb: noise density and 10,000 noisy answers (``NoisyCountPlot``).

    The draws come from ``make_rng(seed)``: each slider setting always shows the same picture.
    Only slider parameters are arguments, so ``interact_figure`` makes a slider for each.

    Defined in: chapters/02_laplace.ipynb
    """
    return NoisyCountPlot().figure(epsilon=epsilon, sensitivity=sensitivity, seed=seed)


plot_noisy_count.live = NoisyCountPlot


@book_style
def plot_laplace_vs_gaussian(epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0, *,
                             half_width: float = 15.0) -> Figure:
    """Noise densities of the Laplace (ε-DP) and analytic Gaussian ((ε, δ)-DP) mechanisms.

    Defined in: chapters/02_laplace.ipynb
    """
    from scipy.stats import norm

    b = laplace_scale(sensitivity, epsilon)
    sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    x = np.linspace(-half_width, half_width, 801)
    fig, ax = new_figure(width=6.0)
    ax.plot(x, laplace_pdf(x, scale=b), label=f"Laplace, b = {b:.3g} (std {np.sqrt(2) * b:.3g})")
    ax.plot(x, norm.pdf(x, scale=sigma), label=f"Gaussian, σ = {sigma:.3g}")
    ax.set(title=f"noise for one 1-sensitive query at ε = {epsilon:g}, δ = {delta:g}", xlabel="noise")
    ax.legend()
    return fig
