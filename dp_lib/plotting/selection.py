"""Figures of chapters/04_exponential_mechanism.ipynb: choosing privately (EM, report noisy max, permute-and-flip)."""

from __future__ import annotations


import numpy as np

from ..data import load_adult, marital_status_counts  # noqa: F401 (re-exported)
from ..noise import laplace_pdf
from ..random import make_rng
from ..selection import (exponential_error_bound, exponential_mech, exponential_probabilities,
                         laplace_noisy_max_win_probability, permute_and_flip_probabilities,
                         report_noisy_max)
from ..validation import check_epsilon, check_finite_array, check_int, check_positive
from .live import LivePlot
from .style import OKABE_ITO, book_style, new_figure

__all__ = [
    "marital_status_counts",
    "plot_selection_distributions",
    "SelectionDistributionsPlot",
    "plot_exact_vs_observed",
    "plot_noisy_max_loss",
    "plot_em_laplace",
    "plot_utility_bound",
]

_MECH_COLORS = {"EM": OKABE_ITO["blue"], "PF": OKABE_ITO["green"], "RNM": OKABE_ITO["orange"]}


class SelectionDistributionsPlot(LivePlot):
    """The slider figure of chapters/04_exponential_mechanism.ipynb (``plot_selection_distributions``), built once and updated per move.

    Three panels of horizontal bars, one per mechanism, over the ``Marital Status``
    categories; each bar carries its probability as text and each title the
    expected error. The x-axes are probabilities, fixed at [0, 1] as before. The
    view is ``n_draws`` (the noisy-max title names it; the chapter's slider keeps
    it fixed), so the chapter's slider has one view. The unchanging words of the
    titles stay in the background (text costs ~0.1 ms per glyph per move).

    Used in: chapters/04_exponential_mechanism.ipynb, through ``plot_selection_distributions``
    """

    def build(self):
        self.categories, self.counts = marital_status_counts()
        y = np.arange(self.counts.size)
        fig, axes = new_figure(1, 3, width=10.0, height=3.6, sharey=True)
        # fixed positions instead of constrained layout: the labels never change, and a redraw is twice as fast
        fig.set_layout_engine(None)  # no layout pass, not even the one LivePlot runs at the defaults
        for i, ax in enumerate(axes):
            ax.set_position([0.215 + i * 0.262, 0.135, 0.24, 0.635])
        self.fig, self.axes = fig, axes
        self.bars, self.values, self.errors = {}, {}, {}
        for ax, key in zip(axes, ("EM", "RNM", "PF")):
            self.bars[key] = ax.barh(y, np.zeros(y.size), color=_MECH_COLORS[key])
            self.values[key] = [ax.text(0.02, yi, " ", va="center", fontsize=8) for yi in y]
            ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", "", "0.5", "", "1"])
            ax.set(xlim=(0, 1), xlabel="probability of being released", title=" \n")
            ax.title.set(fontsize=9, zorder=0.9)  # below the bars: in the background (above the axes anyway)
        # Each title's second line, "expected error N people", is two texts at the title's place with an empty
        # first line: "expected error " stays in the background, "N people" changes (text costs ~0.1 ms per
        # glyph per move). The pair is centred for a four-digit N.
        renderer = fig._get_renderer()
        for ax, key in zip(axes, ("EM", "RNM", "PF")):
            style = dict(transform=ax.title.get_transform(), va="baseline",
                         fontproperties=ax.title.get_fontproperties())
            words = ax.text(0.5, 1.0, "\nexpected error ", ha="right", zorder=0.9, **style)
            self.errors[key] = ax.text(0.5, 1.0, "\n0,000 people", ha="left", **style)
            width = (words.get_window_extent(renderer).width - self.errors[key].get_window_extent(renderer).width)
            for text in (words, self.errors[key]):
                text.set_x(0.5 + width / 2 / ax.bbox.width)
        axes[0].set_yticks(y, [f"{c} ({n:,.0f})" for c, n in zip(self.categories, self.counts)], fontsize=8)
        axes[0].invert_yaxis()
        axes[0].set_ylabel("Marital Status (true count)")
        # The suptitle as its unchanging words (background) and ε (changing) on one baseline, the pair centred
        # for a 6-character ε and its top at 0.98 as suptitle's: its ~60 glyphs would cost ~10 ms per move.
        words = fig.text(0.5, 0.98, "Most common marital status (monotone counts, Δ = 1) at ε = ", fontsize=11,
                         ha="right", va="baseline")
        self.epsilon_text = fig.text(0.5, 0.98, "0.0002", fontsize=11, ha="left", va="baseline")
        box, number = words.get_window_extent(renderer), self.epsilon_text.get_window_extent(renderer)
        join = 0.5 + (box.width - number.width) / 2 / fig.bbox.width  # the words end and ε starts here
        ascent = box.y1 / fig.bbox.height - 0.98
        for text in (words, self.epsilon_text):
            text.set(x=join, y=0.98 - ascent)
        self.changing = [self.epsilon_text]
        for key in ("EM", "RNM", "PF"):
            self.changing += [*self.bars[key], *self.values[key], self.errors[key]]

    def update(self, epsilon=0.0002, seed=2024, n_draws=10_000):
        eps = check_epsilon(epsilon)
        n_draws = check_int(n_draws, "n_draws", minimum=1)
        counts, best = self.counts, self.counts.max()
        rnm = report_noisy_max(np.arange(counts.size), counts, 1.0, eps, rng=make_rng(seed),
                               monotone=True, size=n_draws)
        panels = {
            "EM": exponential_probabilities(counts, 1.0, eps, monotone=True),
            "RNM": np.bincount(rnm, minlength=counts.size) / n_draws,
            "PF": permute_and_flip_probabilities(counts, 1.0, eps, monotone=True),
        }
        labels = {"EM": "exponential mechanism (exact)", "RNM": f"noisy max, Laplace ({n_draws:,} draws)",
                  "PF": "permute-and-flip (exact)"}
        for ax, (key, p) in zip(self.axes, panels.items()):
            for bar, text, pi in zip(self.bars[key], self.values[key], p):
                bar.set_width(pi)
                text.set_x(min(pi, 0.75) + 0.02)
                text.set_text(f"{pi:.3f}")
            ax.title.set_text(f"{labels[key]}\n")  # outside self.changing: the view (n_draws) fixes it
            self.errors[key].set_text(f"\n{best - p @ counts:,.0f} people")
        self.epsilon_text.set_text(f"{eps:g}")
        return n_draws  # the RNM panel's title names it; the chapter's slider keeps it fixed: one view


def plot_selection_distributions(epsilon=0.0002, seed=2024, n_draws=10_000):
    """The slider figure of chapters/04_exponential_mechanism.ipynb: EM, report noisy max (Laplace) and PF side by side.

    Scores are the ``Marital Status`` counts, which are monotone counting
    scores with Δ = 1 under add/remove, so all three mechanisms use their
    monotone calibration: EM ∝ exp(ε u), RNM with Lap(1/ε), PF with
    exp(ε (u - u*)). EM and PF bars are exact probabilities; RNM bars are
    frequencies of ``n_draws`` releases drawn from ``make_rng(seed)``.
    Drawn by ``SelectionDistributionsPlot``.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    return SelectionDistributionsPlot().figure(epsilon=epsilon, seed=seed, n_draws=n_draws)


plot_selection_distributions.live = SelectionDistributionsPlot


@book_style
def plot_exact_vs_observed(candidates, exact, observed, *, title="", xlabel="candidate"):
    """Grouped bars: exact probabilities (dicts label -> array) beside observed frequencies.

    Defined in: chapters/04_exponential_mechanism.ipynb
    """
    series = [(k, check_finite_array(v, k, ndim=1), True) for k, v in exact.items()]
    series += [(k, check_finite_array(v, k, ndim=1), False) for k, v in observed.items()]
    x = np.arange(len(candidates))
    width = 0.8 / len(series)
    fig, ax = new_figure(width=7.0, height=3.2)
    for i, (label, p, is_exact) in enumerate(series):
        ax.bar(x + (i - (len(series) - 1) / 2) * width, p, width, label=label,
               hatch=None if is_exact else "//", edgecolor="white", alpha=1.0 if is_exact else 0.8)
    labels = [str(c) for c in candidates]
    long = max(len(t) for t in labels) > 6
    ax.set_xticks(x, labels, rotation=20 if long else 0, ha="right" if long else "center", fontsize=8 if long else 10)
    ax.set(title=title, xlabel=xlabel, ylabel="probability / frequency")
    ax.legend(fontsize=8)
    return fig


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
