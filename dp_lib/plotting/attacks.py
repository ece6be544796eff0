"""Figures of the opening chapter: reconstruction, the privacy loss, the hypothesis-testing region."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..attacks import max_tpr, membership_attack, subset_queries
from ..data import load_adult
from ..mechanisms import laplace_scale
from ..noise import laplace_cdf, laplace_pdf
from ..random import make_rng
from ..validation import check_epsilon, check_nonnegative
from .live import LivePlot
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["plot_reconstruction", "ReconstructionPlot", "reconstruction_curve", "plot_privacy_loss",
           "plot_testing_region", "HypothesisTestingRegionPlot"]

_BLOCK = 200          # people in the reconstruction block (the first rows of the Adult data)
_QUERIES = 4 * _BLOCK  # random subset-sum queries
_REPEATS = 20         # noise draws per noise level on the accuracy curve
_RATIOS = np.linspace(0.0, 3.0, 31)


@lru_cache(maxsize=1)
def _reconstruction_setup():
    """Secret bits, queries, least-squares solver and standard noise draws; they never change with the slider."""
    secret = (load_adult()["Target"].iloc[:_BLOCK] == ">50K").to_numpy(float)
    rng = make_rng(2003)
    queries = subset_queries(_BLOCK, _QUERIES, rng=rng)
    solver = np.linalg.pinv(queries)                      # least squares = pinv @ answers
    unit_noise = rng.uniform(-1.0, 1.0, size=(_REPEATS, _QUERIES))
    return secret, queries, solver, unit_noise, queries @ secret


def _estimates(noise_ratio):
    """Least-squares estimates (repeats × people) with uniform noise of bound noise_ratio·√n."""
    secret, _, solver, unit_noise, exact = _reconstruction_setup()
    answers = exact + noise_ratio * math.sqrt(_BLOCK) * unit_noise
    return answers @ solver.T


def _first_estimates(noise_ratio):
    """Row 0 of ``_estimates(noise_ratio)`` (the first noise draw), as one vector product.

    The slider shows only this draw; computing the other 19 rows took most of a
    move (a 20 × 800 by 800 × 200 product). Equal to ``_estimates(r)[0]`` up to
    rounding (about 1e-15, tests/test_attacks.py).
    """
    _, _, solver, unit_noise, exact = _reconstruction_setup()
    return solver @ (exact + noise_ratio * math.sqrt(_BLOCK) * unit_noise[0])


@lru_cache(maxsize=1)
def reconstruction_curve():
    """Fraction of bits recovered (mean over 20 noise draws) at E/√n = 0, 0.1, …, 3; n = 200, m = 800.

    Returns
    -------
    (ratios, accuracy) arrays.

    Used in: chapters/01_why_privacy.ipynb, through ``plot_reconstruction``
    """
    secret = _reconstruction_setup()[0]
    acc = np.array([np.mean((_estimates(r) > 0.5) == secret) for r in _RATIOS])
    return _RATIOS.copy(), acc


class ReconstructionPlot(LivePlot):
    """The reconstruction slider figure of chapters/01_why_privacy.ipynb (``plot_reconstruction``), built once and updated per move.

    Left, the accuracy curve (computed once, cached) with the current setting
    as a dot; right, the least-squares estimate per person. Both panels keep
    fixed ranges: x ∈ [0, 3] and y ∈ [0.4, 1.02] on the left, y ∈ [−1.5, 2.5] on
    the right (as before) and the person axis at its autoscaled range. One view.

    Used in: chapters/01_why_privacy.ipynb, through ``plot_reconstruction``
    """

    def build(self):
        secret = _reconstruction_setup()[0]
        ratios, acc = reconstruction_curve()
        self.secret = secret
        self.fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
        self.axes = (left, right)
        left.plot(ratios, acc, color=OKABE_ITO["blue"], label="least squares")
        left.axhline(1 - secret.mean(), color=OKABE_ITO["orange"], ls="--", lw=1, label="guess: nobody > 50K")
        left.axhline(0.5, color=OKABE_ITO["black"], ls=":", lw=1, label="coin flip")
        (self.dot,) = left.plot([0.0], [0.5], "o", color=OKABE_ITO["vermillion"], label=" ")
        left.set(xlim=(0, 3), ylim=(0.4, 1.02), xlabel="noise bound E / √n", ylabel="fraction of bits recovered",
                 title=f"n = {_BLOCK} people, m = {_QUERIES} queries")
        left.title.set_zorder(0.9)  # unchanging and outside the axes, overlapping nothing: kept in the background
        self.left_legend = left.legend(loc="upper right", fontsize=8)
        people = np.arange(_BLOCK)
        self.points = []
        for bit, colour, name in ((0, OKABE_ITO["sky"], "true bit 0"), (1, OKABE_ITO["vermillion"], "true bit 1")):
            mask = secret == bit
            (line,) = right.plot(people[mask], np.zeros(mask.sum()), ".", ms=4, color=colour, label=name)
            self.points.append((line, mask))
        right.axhline(0.5, color=OKABE_ITO["black"], lw=1, ls="--")
        right.set(ylim=(-1.5, 2.5), xlabel="person", ylabel="least-squares estimate", title=" ")
        right.set_xlim(right.get_xlim())  # the autoscaled person range, fixed: it does not depend on the slider
        right.legend(loc="upper right", fontsize=8)
        self.changing = [self.dot, self.left_legend, *(line for line, _ in self.points), right.title]

    def update(self, noise_ratio=0.5):
        r = check_nonnegative(noise_ratio, "noise_ratio")
        est = _first_estimates(r)
        here = float(np.mean((est > 0.5) == self.secret))
        self.dot.set_data([r], [here])
        self.left_legend.get_texts()[3].set_text(f"E/√n = {r:g}: {here:.0%}")  # the dot's entry
        for line, mask in self.points:
            line.set_ydata(est[mask])
        self.axes[1].title.set_text(f"E = {r:g}·√n = {r * math.sqrt(_BLOCK):.1f}")


def plot_reconstruction(noise_ratio=0.5):
    """Reconstruction attack on 200 incomes: share of bits recovered against the noise bound E/√n, and the estimates.

    Left, the fraction of secret bits (income > 50K) that least squares
    recovers from 800 random subset sums answered with noise up to E, as E/√n
    grows; the dot marks the slider's setting. Right, the least-squares
    estimate for each person at that setting, coloured by the true bit, with
    the rounding threshold ½. Recovery is near perfect up to E ≈ 0.25·√n,
    already lower at 0.5·√n, and close to guessing once E passes √n. The
    curve is a mean over 20 noise draws; the dot and the right panel show one
    draw. Queries and noise come from ``make_rng(2003)``, independent of the
    chapter's generator. Drawn by ``ReconstructionPlot``.

    Defined in: chapters/01_why_privacy.ipynb
    """
    return ReconstructionPlot().figure(noise_ratio=noise_ratio)


plot_reconstruction.live = ReconstructionPlot


@book_style
def plot_privacy_loss(epsilon=1.0, *, sigma=None):
    """A noisy count's densities on neighbours D and D′ and its privacy loss: within ±ε for Laplace noise, unbounded for Gaussian.

    A count that is 1 on D and 0 on D′ is released with Laplace noise of
    scale b = 1/ε added (what chapters/02_laplace.ipynb calls the Laplace
    mechanism). The log-ratio of the two densities is the privacy loss at
    output y: for Laplace noise it never leaves [−ε, ε]. For comparison,
    normal (Gaussian) noise with the same standard deviation has a
    straight-line loss that grows without bound, which is why it needs a δ.

    Defined in: chapters/01_why_privacy.ipynb
    """
    eps = check_epsilon(epsilon)
    b = laplace_scale(1.0, eps)
    s = math.sqrt(2) * b if sigma is None else check_nonnegative(sigma, "sigma")
    y = np.linspace(-4 * b - 1, 4 * b + 2, 801)
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.2)
    left.plot(y, laplace_pdf(y, loc=1.0, scale=b), color=OKABE_ITO["blue"], label="p_D (count 1)")
    left.plot(y, laplace_pdf(y, loc=0.0, scale=b), color=OKABE_ITO["orange"], ls="--", label="p_D′ (count 0)")
    left.set(title=f"Laplace noise of scale 1/ε, ε = {eps:g}", xlabel="output y", ylabel="density")
    left.legend(fontsize=8, loc="upper right")  # where "best" put it, without its search over 801-point lines
    laplace_loss = (np.abs(y) - np.abs(y - 1.0)) / b
    gauss_loss = ((y - 0.0) ** 2 - (y - 1.0) ** 2) / (2 * s ** 2)
    right.plot(y, laplace_loss, color=OKABE_ITO["blue"], label="Laplace")
    right.plot(y, gauss_loss, color=OKABE_ITO["green"], ls="-.", label=f"Gaussian, σ = {s:.2g}")
    for level in (eps, -eps):
        right.axhline(level, color=OKABE_ITO["vermillion"], lw=1, ls=":")
    right.text(y[0], eps, " +ε", va="bottom", color=OKABE_ITO["vermillion"])
    right.text(y[0], -eps, " −ε", va="top", color=OKABE_ITO["vermillion"])
    right.set(title="privacy loss ln p_D(y) / p_D′(y)", xlabel="output y", ylim=(-3 * eps, 3 * eps))
    right.legend(fontsize=8, loc="lower right")
    for ax in (left, right):
        ax.locator_params(nbins=4)  # fewer ticks: creating and measuring tick labels dominates the draw time
    return fig


class HypothesisTestingRegionPlot(LivePlot):
    """The testing-region slider figure of chapters/01_why_privacy.ipynb (``plot_testing_region``), built once and updated per move.

    The unit square is fixed (both axes [0, 1], equal aspect), so there is one
    view: the region, the exact ROC curve, the legend and the title change
    with ε, the attacker's dot and its legend entry also with the seed.

    Used in: chapters/01_why_privacy.ipynb, through ``plot_testing_region``
    """

    def build(self):
        self.f = np.linspace(0.0, 1.0, 401)
        zeros = np.zeros_like(self.f)
        self.fig, ax = new_figure(width=5.6, height=4.4)
        self.ax = ax
        self.region = ax.fill_between(self.f, zeros, zeros, color=OKABE_ITO["sky"], alpha=0.35, label=" ")
        ax.plot(self.f, self.f, color=OKABE_ITO["black"], lw=0.8, ls=":", label="random guessing")
        (self.roc,) = ax.plot(np.zeros(801), np.zeros(801), color=OKABE_ITO["blue"], lw=1.2,
                              label="threshold tests (exact)")
        (self.dot,) = ax.plot([0.0], [0.0], "o", color=OKABE_ITO["vermillion"], label=" ")
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", xlabel="false-positive rate",
               ylabel="true-positive rate", title=" ")
        ax.title.set_fontsize(9)
        self.legend = ax.legend(loc="upper left", fontsize=8)
        self.changing = [self.region, self.roc, self.dot, self.legend, ax.title]

    def update(self, epsilon=1.0, seed=2015):
        eps = check_epsilon(epsilon)
        b = laplace_scale(1.0, eps)
        f = self.f
        upper = max_tpr(f, eps)
        lower = 1 - max_tpr(1 - f, eps)
        t = np.linspace(-12 * b, 12 * b + 1, 801)
        roc_fpr, roc_tpr = 1 - laplace_cdf(t, scale=b), 1 - laplace_cdf(t - 1.0, scale=b)
        fpr, tpr = membership_attack(0.0, eps, trials=20_000, rng=make_rng(seed))
        self.region.set_data(f, lower, upper)
        self.roc.set_data(roc_fpr, roc_tpr)
        self.dot.set_data([fpr], [tpr])
        region_text, _, _, dot_text = self.legend.get_texts()
        region_text.set_text(f"allowed by {eps:g}-DP")
        dot_text.set_text(f"attacker ({fpr:.3f}, {tpr:.3f})")
        # The title states the region's two inequalities (the theorem the text has just given), not a sampled
        # number: the dot's accuracy, measured on 20,000 releases, exceeds the cap e^ε/(1 + e^ε) at small ε for
        # some seeds (sampling noise), which an "accuracy ≤ cap" title would print as a false inequality.
        self.ax.title.set_text(f"ε = {eps:g}: FPR + e^ε·FNR ≥ 1 and e^ε·FPR + FNR ≥ 1")


def plot_testing_region(epsilon=1.0, seed=2015):
    """Every test of "is Alice in the data?" against an ε-DP release lies in the shaded region; an attacker's point inside it.

    The shaded area is the set of (false-positive rate, true-positive rate)
    pairs allowed by FPR + e^ε·FNR ≥ 1 and its mirror image. The curve is the
    exact ROC of threshold tests on a Laplace count (Alice adds 1); the dot is
    a membership-inference attacker who says "in" when the noisy count is
    above the midpoint, re-run here on 20,000 releases each way with
    ``make_rng(seed)``; at small ε its sampling noise can put it a hair
    outside the region. The title states the two inequalities. Drawn by
    ``HypothesisTestingRegionPlot``.

    Defined in: chapters/01_why_privacy.ipynb
    """
    return HypothesisTestingRegionPlot().figure(epsilon=epsilon, seed=seed)


plot_testing_region.live = HypothesisTestingRegionPlot
