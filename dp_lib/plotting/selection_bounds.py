"""Figures of chapters/04_exponential_mechanism.ipynb about what selection costs and guarantees.

The privacy loss of report noisy max, the exponential mechanism on a
continuous range beside Laplace noise, and the utility bound of the
exponential mechanism (the distributions of the three selection mechanisms are
in ``dp_lib.plotting.selection``, which re-exports these names).
"""

from __future__ import annotations

import numpy as np

from ..noise import laplace_pdf
from ..random import make_rng
from ..selection import (exponential_error_bound, exponential_mech, exponential_probabilities,
                         laplace_noisy_max_win_probability)
from ..validation import check_epsilon, check_finite_array, check_positive
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["plot_noisy_max_loss", "plot_em_laplace", "plot_utility_bound"]

@book_style
def plot_noisy_max_loss(epsilon=1.0, *, max_gap=12.0):
    """Exact privacy loss of report noisy max with Lap(1/ε) noise, two counting scores.

    Each curve is the worst log-ratio of an output's probability on neighbours,
    as a function of the score gap: monotone neighbours (one count moves by 1)
    stay below ε; general neighbours (both scores move by 1, in opposite
    directions) approach 2ε. Lap(2/ε) brings the general case back to ε.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    eps = check_epsilon(epsilon)
    gap = np.linspace(-max_gap, max_gap, 1201) / eps

    def loss(scale, step):
        def log_win(g):  # ln Pr[the first candidate wins]; Pr[second wins] is log_win(-g)
            return np.log(laplace_noisy_max_win_probability(g, scale))
        return np.maximum(np.abs(log_win(gap) - log_win(gap + step)), np.abs(log_win(-gap) - log_win(-gap - step)))

    fig, ax = new_figure(width=7.0, height=3.2)
    ax.plot(gap, loss(1 / eps, 1.0), label="Lap(1/ε), monotone neighbours (one count +1)")
    ax.plot(gap, loss(1 / eps, 2.0), label="Lap(1/ε), general neighbours (+1 and −1)")
    ax.plot(gap, loss(2 / eps, 2.0), label="Lap(2/ε), general neighbours", ls="--")
    for level, text in ((eps, "ε"), (2 * eps, "2ε")):
        ax.axhline(level, color=OKABE_ITO["black"], lw=0.8, ls=":")
        ax.text(gap[-1], level, text, va="bottom", ha="right")
    ax.set(title=f"report noisy max, two candidates, target ε = {eps:g}",
           xlabel="score gap u₁ − u₂", ylabel="privacy loss", ylim=(0, 3.0 * eps))
    ax.legend(fontsize=8, loc="upper center")
    return fig


@book_style
def plot_em_laplace(epsilon=1.0, sensitivity=1.0, *, true_answer=0.0, half_width=8.0, step=0.01):
    """The exponential mechanism on a fine grid of r with u = -|f(x) - r|, against Laplace densities.

    Left: grid densities of generic EM (exp(ε u/(2Δ)), i.e. Lap(2Δ/ε)) and of
    exp(ε u/Δ) (i.e. Lap(Δ/ε)), with the exact Laplace densities dashed
    (Lap(2Δ/ε)) and dotted (Lap(Δ/ε)). Right: the privacy loss
    ln p_x(r) - ln p_x'(r) of each along r, where f(x') = f(x) + Δ.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    eps, d = check_epsilon(epsilon), check_positive(sensitivity, "sensitivity")
    q = float(true_answer)
    r = q + (d / eps) * np.arange(-40.0, 40.0 + step / 2, step)  # ±40 scales: truncation ~e^-20

    def generic(center):
        return exponential_probabilities(-np.abs(center - r), d, eps) / (r[1] - r[0])

    def exact(center):
        w = np.exp(-eps * np.abs(center - r) / d)
        return w / (w.sum() * (r[1] - r[0]))

    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.4)
    for f, name, b, color, dash, lap in ((generic, "EM, exp(εu/2Δ)", 2 * d / eps, OKABE_ITO["blue"], "--", "Lap(2Δ/ε)"),
                                         (exact, "exp(εu/Δ)", d / eps, OKABE_ITO["vermillion"], ":", "Lap(Δ/ε)")):
        left.plot(r, f(q), color=color, lw=2.5, alpha=0.6, label=f"{name} on the grid")
        left.plot(r, laplace_pdf(r, loc=q, scale=b), color=OKABE_ITO["black"], lw=0.9, ls=dash,
                  label=f"Laplace density {lap}")
        right.plot(r, np.log(f(q)) - np.log(f(q + d)), color=color, label=name)
    lim = (q - half_width * d / eps, q + half_width * d / eps)
    left.set(title=f"u(x, r) = −|f(x) − r|, Δ = {d:g}, ε = {eps:g}", xlabel="output r", ylabel="density", xlim=lim)
    left.legend(fontsize=8, loc="upper left")
    for level in (eps / 2, eps, -eps / 2, -eps):
        right.axhline(level, color=OKABE_ITO["black"], lw=0.6, ls=":")
    right.set(title=f"privacy loss, f(x) = {q:g} vs f(x′) = {q + d:g}", xlabel="output r",
              ylabel="ln p_x(r) − ln p_x′(r)", xlim=lim, ylim=(-1.3 * eps, 1.3 * eps))
    # where loc="best" puts it, for every ε and Δ (the picture scales with them): "best" would test ~30
    # positions against the 8,001-point lines, a fifth of the figure's time
    right.legend(fontsize=8, loc="center right")
    return fig


@book_style
def plot_utility_bound(scores, epsilon, sensitivity=1.0, *, seed=2024, n_draws=10_000):
    """Observed and exact error tails of EM against the utility theorem's bound.

    error e = u* - u(output), u* the best score; the bound is Pr[e ≥ (2Δ/ε)(ln(|R|/|R*|) + t)] ≤ e^-t,
    R* the candidates with score u*.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    u = check_finite_array(scores, "scores", ndim=1, allow_empty=False)
    eps, d = check_epsilon(epsilon), check_positive(sensitivity, "sensitivity")
    draws = exponential_mech(np.arange(u.size), u, d, eps, rng=make_rng(seed), size=n_draws)
    errors = u.max() - u[draws]
    p = exponential_probabilities(u, d, eps)
    x = np.linspace(0, exponential_error_bound(u.size, d, eps, 7.0), 400)
    exact_tail = np.array([p[u.max() - u >= xi].sum() for xi in x])
    observed_tail = np.array([np.mean(errors >= xi) for xi in x])
    n_opt = int(np.sum(u == u.max()))
    bound = np.minimum(1.0, (u.size / n_opt) * np.exp(-x * eps / (2 * d)))
    fig, ax = new_figure(width=7.0, height=3.4)
    ax.step(x, observed_tail, where="post", color=OKABE_ITO["orange"], lw=2.5, alpha=0.7,
            label=f"observed, {n_draws:,} draws")
    ax.step(x, exact_tail, where="post", color=OKABE_ITO["blue"], lw=1, label="exact")
    ax.plot(x, bound, color=OKABE_ITO["vermillion"], ls="--", label="bound  (|R|/|R*|) exp(−εe/2Δ)")
    ax.set_yscale("log")
    ax.set(ylim=(0.5 / n_draws, 1.5), xlabel="error e = u* − u(output)", ylabel="Pr[error ≥ e]",
           title=f"utility of the exponential mechanism, |R| = {u.size}, ε = {eps:g}")
    ax.legend(fontsize=8)
    return fig
