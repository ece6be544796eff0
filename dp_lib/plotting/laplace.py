"""Figures of Chapter 1: the Laplace density, sampling checks, noisy answers."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..mechanisms import analytic_gaussian_sigma, laplace_mech, laplace_scale
from ..noise import laplace_cdf, laplace_pdf
from ..random import make_rng
from ..validation import check_finite_array, check_int
from .style import OKABE_ITO, book_style, count_older_than_40, new_figure

__all__ = ["plot_laplace_shapes", "plot_sample_check", "plot_noisy_count", "noisy_count_figure", "plot_laplace_vs_gaussian"]


@book_style
def plot_laplace_shapes(scales=(0.5, 1.0, 2.0), *, xlim=6.0):
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
def plot_sample_check(samples, scale, *, loc=0.0, title="inverse-CDF samples"):
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


def plot_noisy_count(epsilon=1.0, sensitivity=1.0, seed=2024):
    """The slider figure of Chapter 1: noise density and 10,000 noisy answers.

    Left, the density of Lap(Δ/ε); right, a histogram of 10,000 releases of
    the chapter's count (people in the Adult data older than 40) through
    ``laplace_mech``, with the exact density on top. The x-axes stay fixed as
    the sliders move, so the spread is visible. The draws come from
    ``make_rng(seed)``: each slider setting always shows the same picture.
    Only slider parameters are arguments, so ``interact`` makes a slider for each.

    Defined in: chapters/02_laplace.ipynb
    """
    return noisy_count_figure(epsilon, sensitivity, true_answer=count_older_than_40(), rng=make_rng(seed))


@book_style
def noisy_count_figure(epsilon, sensitivity, *, true_answer, rng, n_draws=10_000, half_width=15.0):
    """Noise density and a histogram of ``n_draws`` Laplace releases of ``true_answer``.

    Defined in: chapters/02_laplace.ipynb
    """
    n_draws = check_int(n_draws, "n_draws", minimum=1)
    b = laplace_scale(sensitivity, epsilon)
    noisy = laplace_mech(np.full(n_draws, float(true_answer)), sensitivity, epsilon, rng=rng)
    x = np.linspace(-half_width, half_width, 801)
    fig, (left, right) = new_figure(1, 2)
    left.plot(x, laplace_pdf(x, scale=b), color=OKABE_ITO["vermillion"])
    left.fill_between(x, laplace_pdf(x, scale=b), alpha=0.2, color=OKABE_ITO["vermillion"])
    left.set(title=f"noise density Lap(b = Δ/ε = {b:.3g})", xlabel="noise", xlim=(-half_width, half_width))
    edges = np.linspace(true_answer - half_width, true_answer + half_width, 81)
    inside = np.mean(np.abs(noisy - true_answer) <= half_width)
    counts, _ = np.histogram(noisy, bins=edges)
    right.stairs(counts / (n_draws * np.diff(edges)), edges, fill=True, color=OKABE_ITO["sky"],
                 label=f"{n_draws:,} releases")
    right.plot(x + true_answer, laplace_pdf(x, scale=b), color=OKABE_ITO["vermillion"], label="exact")
    right.axvline(true_answer, color=OKABE_ITO["black"], lw=1, ls="--", label="true answer")
    right.set(title=f"noisy answers, ε = {epsilon:g}, Δ = {sensitivity:g} ({inside:.0%} in view)", xlabel="released count",
              xlim=(true_answer - half_width, true_answer + half_width))
    right.xaxis.set_major_locator(MaxNLocator(4))
    right.legend(loc="upper right", fontsize=7)  # clear of the true-answer line at the centre
    return fig


@book_style
def plot_laplace_vs_gaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0, *, half_width=15.0):
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
