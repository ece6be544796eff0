"""Figures of the sparse-vector chapter: which countries have more than T people, and the budget split.

Size: about 155 lines of code (at the ~150 line): the three figures share the cached country counts
and the cached unit-scale draws that make the slider fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from matplotlib.figure import Figure

import math
from functools import lru_cache

import matplotlib as mpl
import numpy as np
from matplotlib.collections import PolyCollection

from ..data import COUNTRIES, load_adult
from ..noise import check_noise_range, sample_laplace
from ..random import make_rng
from ..svt import svt_budget_split, svt_noise_scales
from ..validation import check_epsilon, check_finite_array, check_int
from .live import LivePlot
from .style import OKABE_ITO, book_style, new_figure

__all__ = ["country_counts", "plot_svt_countries", "SVTCountriesPlot", "plot_svt_split", "plot_svt_loss_growth"]


@lru_cache(maxsize=1)
def _country_counts():
    names = sorted(c for c in COUNTRIES if c != "United-States")  # the public codebook, in a public order
    counts = load_adult()["Country"].value_counts().reindex(names, fill_value=0)  # a country nobody names: 0
    return tuple(names), counts.to_numpy(dtype=float)


def country_counts() -> tuple[list[str], np.ndarray]:
    """(countries, counts): the 40 countries of birth of the codebook other than the United States, alphabetical.

    The list of countries is public (``dp_lib.COUNTRIES``, the UCI documentation),
    never read off the data, so a country with no one in the data keeps its
    place with count 0; it fixes the order in which the sparse vector technique
    asks its queries. The counts are private. Cached.

    Defined in: chapters/06_sparse_vector.ipynb
    """
    names, counts = _country_counts()
    return list(names), counts.copy()


def _standard_draws(seed, n_runs, n_queries):
    """The SVT runs' noise at scale 1, drawn from ``make_rng(seed)`` in ``svt_transcript``'s order (ρ, then ν).

    ``sample_laplace(b)`` multiplies its draws at scale 1 by b last, so b times these is, bit for bit, the
    noise ``sparse_vector`` draws from the same seed at scale b: a slider move rescales them instead of
    drawing 4000 × 41 Laplace values again. Cached for integer seeds (the same seed, the same draws).
    """
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return _standard_draws_cached(int(seed), n_runs, n_queries)
    return _draw_standard(seed, n_runs, n_queries)


def _draw_standard(seed, n_runs, n_queries):
    gen = make_rng(seed)
    rho = sample_laplace(1.0, size=(n_runs, 1), rng=gen)
    nu = sample_laplace(1.0, size=(n_runs, n_queries), rng=gen)
    rho.flags.writeable = nu.flags.writeable = False
    return rho, nu


_standard_draws_cached = lru_cache(maxsize=4)(_draw_standard)


def _svt_runs(counts, t, eps, c, n_runs, seed):
    """``sparse_vector(counts, t, eps, c, rng=make_rng(seed), monotone=True, size=n_runs)``, from cached draws.

    The same checks, scales and arithmetic as ``svt_transcript`` (``tests/test_sparse_vector.py`` compares
    the two bit for bit).
    """
    b_rho, b_nu = svt_noise_scales(eps, c, monotone=True)
    check_noise_range(b_rho, t, name="threshold_scale")
    check_noise_range(b_nu, float(np.max(np.abs(counts))), name="query_scale")
    rho, nu = _standard_draws(seed, n_runs, counts.size)
    positive = counts + b_nu * nu >= t + b_rho * rho
    positive &= np.cumsum(positive, axis=1) - positive < c  # halt after the c-th positive
    return positive


class SVTCountriesPlot(LivePlot):
    """The slider figure of the sparse-vector chapter (``plot_svt_countries``), built once and updated per move.

    Top: the true count of each country (cut at 200) coloured by whether it is
    above T, and the threshold line; bottom: the share of runs reporting each
    country. Both y-ranges were fixed before ([0, 200] and [0, 1]), so the figure
    has one view. The runs' noise is drawn once per seed at scale 1 and rescaled
    per move (``_standard_draws``): the same runs as ``sparse_vector`` draws.

    Used in: chapters/06_sparse_vector.ipynb, through ``plot_svt_countries``
    """

    def build(self) -> None:
        names, self.counts = _country_counts()
        x = np.arange(self.counts.size)
        fig, (top, bottom) = new_figure(2, 1, width=10.0, height=5.2, sharex=True)
        fig.set_layout_engine(None)  # fixed axes positions: no layout pass (not even LivePlot's, at the defaults)
        top.set_position([0.07, 0.60, 0.91, 0.31])
        bottom.set_position([0.07, 0.25, 0.91, 0.31])
        self.fig = fig
        # Each row of bars is one PolyCollection (what ax.bar draws, as one artist): 40 bar patches cost
        # ~5 ms per move to draw, a collection of 40 rectangles ~0.7 ms.
        self.corners = np.stack([x - 0.4, x - 0.4, x + 0.4, x + 0.4], axis=1)  # each bar: (x, 0) up and back
        self.top_bars = self._bars(top, np.minimum(self.counts, 200))
        self.line = top.axhline(0, color="black", lw=1, ls="--", label=" ")
        top.set(ylim=(0, 200), ylabel="people (cut at 200)")
        self.legend = top.legend(loc="upper right", fontsize=8)
        self.bottom_bars = self._bars(bottom, np.zeros(x.size))
        bottom.set(ylim=(0, 1), ylabel="share of runs\nreporting it")
        bottom.set_xticks(x, [n if len(n) <= 18 else n[:16] + "…" for n in names], rotation=90, fontsize=7)
        self.suptitle = fig.suptitle(" ", fontsize=10)
        self.changing = [self.top_bars, self.line, self.legend, self.bottom_bars, self.suptitle]

    def _verts(self, heights):
        ys = np.stack([np.zeros_like(heights), heights, heights, np.zeros_like(heights)], axis=1)
        return np.stack([self.corners, ys], axis=2)

    def _bars(self, ax, heights):
        bars = PolyCollection(self._verts(heights), facecolors=OKABE_ITO["blue"], edgecolors="none", linewidths=0)
        ax.add_collection(bars)
        lo, hi = self.corners.min(), self.corners.max()
        margin = mpl.rcParams["axes.xmargin"] * (hi - lo)
        ax.set_xlim(lo - margin, hi + margin)  # as ax.bar autoscales
        return bars

    def update(self, epsilon: float = 0.5, threshold: float = 50, c: int = 3, n_runs: int = 4000,
               seed: int = 2024) -> None:
        eps = check_epsilon(epsilon)
        t = float(check_finite_array(threshold, "threshold", ndim=0))
        c = check_int(c, "c", minimum=1)
        n_runs = check_int(n_runs, "n_runs", minimum=1)
        counts = self.counts
        runs = _svt_runs(counts, t, eps, c, n_runs, seed)
        share, above = runs.mean(axis=0), counts > t
        colors = np.where(above, OKABE_ITO["blue"], OKABE_ITO["orange"])
        self.top_bars.set_facecolor(colors)
        self.bottom_bars.set_facecolor(colors)
        self.bottom_bars.set_verts(self._verts(share))
        self.line.set_ydata([t, t])
        self.legend.get_texts()[0].set_text(f"threshold T = {t:g}")
        true_hits = (runs & above).sum(axis=1).mean()
        self.suptitle.set_text(f"SVT at ε = {eps:g}, c = {c}: on average {runs.sum(axis=1).mean():.2f} countries "
                               f"reported, {true_hits:.2f} of them truly above T")


def plot_svt_countries(epsilon: float = 0.5, threshold: float = 50, c: int = 3, n_runs: int = 4000,
                       seed: int = 2024) -> Figure:
    """The slider figure of the sparse-vector chapter: which countries does SVT report above T?

    Top: the true count of each country (alphabetical, the order of the
    queries) against the threshold T. Bottom: the share of ``n_runs`` runs of
    ``sparse_vector`` (monotone counting queries, Δ = 1, default split) that
    report each country, coloured by whether it truly is above T.
    Drawn by ``SVTCountriesPlot``.

    Defined in: chapters/06_sparse_vector.ipynb
    """
    return SVTCountriesPlot().figure(epsilon=epsilon, threshold=threshold, c=c, n_runs=n_runs, seed=seed)


plot_svt_countries.live = SVTCountriesPlot


def _split_curve(counts, t, eps, c, shares, n_runs, seed):
    """Mean number of truly-above queries among the reported ones, for each threshold share ε₁/ε.

    Common random numbers: the same standard Laplace draws are rescaled for every share (and every c:
    ``_standard_draws`` keeps them for the seed).
    """
    rho0, nu0 = _standard_draws(seed, n_runs, counts.size)
    above, out = counts > t, []
    for s in shares:
        b_rho, b_nu = svt_noise_scales(eps, c, monotone=True, split=float(s))
        positive = counts + b_nu * nu0 >= t + b_rho * rho0
        positive &= np.cumsum(positive, axis=1, dtype=np.int16) - positive < c  # int16: counts up to 40
        out.append((positive & above).sum() / n_runs)  # the mean over runs of each run's count, exactly
    return np.array(out)


@book_style
def plot_svt_split(epsilon: float = 0.5, threshold: float = 50, cs: tuple[int, ...] = (1, 3, 6), n_runs: int = 2000,
                   seed: int = 7) -> Figure:
    """Accuracy of sparse_vector against the share ε₁/ε of the budget spent on the threshold noise.

    For each c, the mean number of reported countries that truly are above T
    (out of at most c), on the country counts with monotone queries, as the
    threshold's share ε₁/ε varies; dots mark Lyu, Su & Li's share for monotone queries, 1/(1 + c^(2/3)),
    crosses the even split 1/2.

    Defined in: chapters/06_sparse_vector.ipynb
    """
    eps = check_epsilon(epsilon)
    _, counts = _country_counts()
    shares = np.linspace(0.03, 0.97, 48)
    fig, ax = new_figure(width=7.0, height=3.4)
    colors = [OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["green"], OKABE_ITO["purple"]]
    for c, color in zip(cs, colors):
        curve = _split_curve(counts, float(threshold), eps, c, shares, n_runs, seed)
        best = svt_budget_split(1.0, c, monotone=True)[0]
        marks = _split_curve(counts, float(threshold), eps, c, [best, 0.5], n_runs, seed)
        ax.plot(shares, curve, color=color, label=f"c = {c}")
        ax.plot([best], marks[:1], "o", color=color)
        ax.plot([0.5], marks[1:], "x", color=color)
    ax.set(xlabel="share of the budget on the threshold, ε₁/ε", ylabel="truly-above countries reported",
           title=f"Budget split at ε = {eps:g}, T = {threshold:g} (dots: monotone ratio 1 : c^(2/3), crosses: 1 : 1)")
    ax.title.set_fontsize(10)
    ax.legend(fontsize=8)
    return fig


def _answered_pattern_probability(values, positives, threshold_scale, query_scale):
    """``svt_pattern_probability(values, 0.0, positives, threshold_scale, query_scale)`` when every query is answered.

    The same quadrature (``quad`` between the same kinks) of the same integrand, written out in plain floats:
    the survival P(ν_i ≥ r - q_i) by ``laplace_cdf``'s formula, without its argument checks and numpy calls on
    16-element arrays, which were ~90% of the figure's time (~6,700 evaluations). Every query is answered when
    there is no cutoff, or when the pattern's c-th ⊤ is its last query, as in ``plot_svt_loss_growth``.
    ``tests/test_sparse_vector.py`` checks that the two agree (bit for bit on this machine).
    """
    from scipy.integrate import quad

    q, hit, t = np.asarray(values, dtype=float), np.asarray(positives, dtype=bool), 0.0
    b_rho, b_nu = float(threshold_scale), float(query_scale)
    terms = list(zip(q.tolist(), hit.tolist()))

    def integrand(r):
        product = 1.0
        for q_i, hit_i in terms:  # P(ν_i >= t + r - q_i) = laplace_cdf(-(t + r - q_i), 0, b_nu), as svt._survival
            z = -(t + r - q_i) / b_nu
            up = 0.5 * math.exp(z) if z < 0 else 1 - 0.5 * math.exp(-z)
            product *= up if hit_i else 1.0 - up
        return product * math.exp(-abs(r) / b_rho) / (2 * b_rho)

    kinks = np.unique(np.concatenate([q - t, [0.0]]))
    total = quad(integrand, -np.inf, kinks[0], limit=200)[0] + quad(integrand, kinks[-1], np.inf, limit=200)[0]
    for lo, hi in zip(kinks[:-1], kinks[1:]):
        total += quad(integrand, lo, hi, limit=200)[0]
    return float(min(max(total, 0.0), 1.0))


@book_style
def plot_svt_loss_growth(epsilon: float = 1.0, max_pairs: int = 8) -> Figure:
    """Exact privacy loss on the '⊥…⊥ ⊤…⊤' counterexample: Chen et al. grows without bound, Alg. 1 stays below ε.

    With m queries that are 0 on x and 1 on x' answered ⊥, then m queries that
    are 1 on x and 0 on x' answered ⊤, the log-ratio of the transcript's exact
    probabilities (quadrature over ρ) for the no-cutoff variant grows about
    linearly in m; Lyu–Su–Li Algorithm 1 with c = m stays below ε.

    Defined in: chapters/06_sparse_vector.ipynb
    """
    eps = check_epsilon(epsilon)
    ms = np.arange(1, check_int(max_pairs, "max_pairs", minimum=1) + 1)
    chen, alg1 = [], []
    for m in ms:
        x, xp = np.r_[np.zeros(m), np.ones(m)], np.r_[np.ones(m), np.zeros(m)]
        pattern = np.r_[np.zeros(m, bool), np.ones(m, bool)]
        # Chen et al. has no cutoff and Alg. 1's c = m-th ⊤ is the last query: every query is answered
        for out, (b_rho, b_nu) in ((chen, (2 / eps, 2 / eps)), (alg1, svt_noise_scales(eps, int(m)))):
            p, p_prime = (_answered_pattern_probability(v, pattern, b_rho, b_nu) for v in (x, xp))
            out.append(np.log(p / p_prime))
    fig, ax = new_figure(width=7.0, height=3.2)
    ax.plot(ms, chen, "o-", color=OKABE_ITO["vermillion"], label="Chen et al. 2015 (no cutoff)")
    ax.plot(ms, alg1, "s-", color=OKABE_ITO["blue"], label="Lyu–Su–Li Alg. 1 with c = m")
    ax.axhline(eps, color="black", ls="--", lw=1, label=f"claimed ε = {eps:g}")
    ax.set(xlabel="m (queries answered ⊥, then m answered ⊤)", ylabel="exact privacy loss of the transcript",
           title="One transcript, two neighbouring inputs: the loss of the broken variant keeps growing")
    ax.title.set_fontsize(10)
    ax.legend(fontsize=8, loc="upper left")  # where "best" puts it, without testing positions against the lines
    return fig
