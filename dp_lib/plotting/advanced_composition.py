"""The advanced-composition slider figure of chapters/03_composition.ipynb, and the y-limit ladder of its figures."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator
from matplotlib.transforms import offset_copy

from ..composition_rules import advanced_epsilon as _advanced_epsilon
from .live import LivePlot
from .style import OKABE_ITO, is_finite_number, new_figure

__all__ = ["plot_advanced_composition", "AdvancedCompositionPlot"]

_NICE = [1, 2, 5, 10]  # tick steps for MaxNLocator: fewer labels than the default, still round numbers
K_MAX_ADVANCED = 1000  # a fixed setting of the slider figure (not a parameter: `interact` would make it a slider)


def ladder_ceiling(x: float, steps: tuple = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)) -> float:
    """The smallest of ``steps`` times a power of ten that is ≥ ``x`` (> 0): a y-limit from a short ladder.

    Finer than ``nice_ceiling`` (1, 2, 5): a slider figure whose y-range must follow the
    setting changes it at a few steps (each one full draw) and wastes at most 25 % of the height.

    >>> ladder_ceiling(0.131), ladder_ceiling(2.0), ladder_ceiling(8.4)
    (0.15, 2.0, 10.0)
    """
    power = 10.0 ** math.floor(math.log10(x))
    for step in (*steps, 10.0):
        if step * power >= x * (1 - 1e-12):
            return float(f"{step * power:.12g}")
    return 10.0 * power  # pragma: no cover


class AdvancedCompositionPlot(LivePlot):
    """The second slider figure of chapters/03_composition.ipynb (``plot_advanced_composition``), built once and updated per move.

    Left: plain k ε and the advanced bound against k = 1..1,000, the region where
    advanced is smaller shaded. Its y-limit follows ε through a short ladder (the
    view): the old limit 1.05 max(1,000 ε, min(ε'(1,000), 3,000 ε)), taken at
    δ' = 1e-10 (the slider's smallest, so moving δ' never changes the view) and
    rounded up; the view also says which of the two legends is shown (the shaded
    region's entry only where advanced wins for some k ≤ 1,000). Right: the ratio
    ε' / (k ε) on a log k axis, on a fixed y-range (0, 8.4) that covers every slider
    setting (the old figure's largest, 1.05 × 8), wider only for ε beyond the slider.

    Used in: chapters/03_composition.ipynb, through ``plot_advanced_composition``
    """

    _legend_loc = dict(loc="upper left", fontsize=8)

    def build(self) -> None:
        from matplotlib.legend import Legend

        self.ks = ks = np.arange(1, K_MAX_ADVANCED + 1)
        self.fig, (left, right) = new_figure(1, 2)
        self.axes = (left, right)
        zeros = np.zeros(ks.shape)
        (self.plain,) = left.plot(ks, ks.astype(float), color=OKABE_ITO["blue"], label="plain: k·ε")
        (self.advanced,) = left.plot(ks, zeros, color=OKABE_ITO["vermillion"], label="advanced (Thm 3.5)")  # the chapter's numbering
        self.fill = left.fill_between(ks, zeros, zeros, color=OKABE_ITO["green"], alpha=0.25,
                                      label="advanced is smaller")
        left.set_title(" ", y=1.0)  # y given: no title-placement pass (it measures all tick labels)
        left.set(xlabel="k (queries)", ylabel="total ε")
        left.set_xlim(left.get_xlim())  # as autoscaling sets it for k = 1..1,000, then fixed
        left.xaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        left.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        # the y-label at a fixed distance, room for 4-digit tick labels (ε = 1: "2000"; the defaults show "100")
        left.yaxis.set_label_coords(0, 0.5, transform=offset_copy(left.transAxes, fig=self.fig, x=-36, units="points"))
        # two legends, one shown (part of the view): with the shaded region's entry when advanced wins somewhere,
        # else without. Below the changing artists (zorder 0.9, above the grid) they are drawn once per view;
        # the lines and the shading stay clear of the upper-left corner.
        self.legend_wins = left.legend(**self._legend_loc)
        self.legend_never = Legend(left, [self.plain, self.advanced],
                                   [self.plain.get_label(), self.advanced.get_label()], **self._legend_loc)
        left.add_artist(self.legend_never)
        for legend in (self.legend_wins, self.legend_never):
            legend.set_zorder(0.9)

        (self.ratio,) = right.semilogx(ks, np.ones(ks.shape), color=OKABE_ITO["vermillion"], label="advanced / plain")
        right.set_xlim(right.get_xlim())
        right.xaxis.set_minor_locator(NullLocator())  # fewer ticks, plain labels (not mathtext): a faster redraw
        right.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        right.yaxis.set_major_locator(MaxNLocator(5, steps=_NICE))
        right.axhline(1.0, color=OKABE_ITO["blue"], lw=1, label="break-even")
        self.limit = right.axhline(1.0, color=OKABE_ITO["black"], lw=1, ls="--", label="limit e^ε − 1")
        self.break_even = right.axvline(1.0, color=OKABE_ITO["green"], lw=1, ls=":")
        right.set_title(" ", y=1.0)
        right.set(xlabel="k (queries, log scale)", ylabel="advanced ε' / plain kε")
        # the legend never changes: drawn just below the lines, it is part of the background (a move does not
        # lay it out again); only the dotted break-even line can cross it, for break-even points past k ≈ 100
        right.legend(loc="upper right", fontsize=8).set_zorder(1.9)
        self.changing = [self.plain, self.advanced, self.fill, left.title,
                         self.ratio, self.limit, self.break_even, right.title]

    def update(self, epsilon: float = 0.1, delta_prime: float = 1e-5) -> tuple[float, float, bool]:
        if not (is_finite_number(epsilon) and 0 < epsilon <= 10):
            raise ValueError(f"epsilon (ε per query) must be in (0, 10] (got {epsilon!r})")
        if not (is_finite_number(delta_prime) and 0 < delta_prime < 1):
            raise ValueError(f"delta_prime (δ') must be in (0, 1) (got {delta_prime!r})")
        ks = self.ks
        plain = ks * epsilon
        advanced = _advanced_epsilon(epsilon, ks, delta_prime)
        wins = advanced < plain
        break_even = (2 * math.log(1 / delta_prime) / (2 - math.exp(epsilon)) ** 2 if epsilon < math.log(2)
                      else math.inf)
        verdict = (f"advanced wins for k ≥ {math.floor(break_even) + 1:,}" if math.isfinite(break_even)
                   else "advanced never wins (ε ≥ ln 2)")
        left, right = self.axes
        self.plain.set_ydata(plain)
        self.advanced.set_ydata(advanced)
        self.fill.set_data(ks, advanced, plain, where=wins)  # no polygon where advanced never wins
        left.title.set_text(f"ε = {epsilon:g} per query, δ' = {delta_prime:.0e}")

        ratio = advanced / plain
        self.ratio.set_ydata(ratio)
        self.limit.set_ydata([math.expm1(epsilon)] * 2)
        shown = math.isfinite(break_even) and break_even < K_MAX_ADVANCED
        self.break_even.set_xdata([break_even if shown else 1.0] * 2)
        self.break_even.set_visible(shown)
        right.title.set_text(verdict)

        # the view: the left y-limit at the slider's smallest δ' (1e-10, or δ' if smaller), from a ladder;
        # which legend is shown
        end_low = float(_advanced_epsilon(epsilon, K_MAX_ADVANCED, min(delta_prime, 1e-10)))
        top = ladder_ceiling(1.05 * max(plain[-1], min(end_low, 3 * plain[-1])))
        right_top = max(8.4, 1.05 * 1.1 * math.expm1(epsilon))  # 8.4 for every ε ≤ 2
        some_wins = bool(wins.any())
        left.set_ylim(0, top)
        right.set_ylim(0, right_top)
        self.legend_wins.set_visible(some_wins)
        self.legend_never.set_visible(not some_wins)
        return top, right_top, some_wins


def plot_advanced_composition(epsilon: float = 0.1, delta_prime: float = 1e-5) -> Figure:
    """The second slider figure of chapters/03_composition.ipynb: total ε of k ε-DP queries, plain vs advanced.

    Left: plain composition k ε against the advanced composition bound of
    Dwork, Rothblum & Vadhan (Dwork & Roth 2014, Thm 3.20; Theorem 3.5 of the
    chapter, as the legend says)
    ε' = sqrt(2k ln(1/δ')) ε + k ε (e^ε − 1), which costs an extra δ'.
    Right: the ratio ε' / (k ε) = sqrt(2 ln(1/δ')/k) + e^ε − 1 on a log k
    axis; advanced composition helps only where it is below 1, which needs
    ε < ln 2 and k past the break-even point 2 ln(1/δ') / (2 − e^ε)².
    Built by ``AdvancedCompositionPlot``.

    Defined in: chapters/03_composition.ipynb
    """
    return AdvancedCompositionPlot().figure(epsilon=epsilon, delta_prime=delta_prime)


plot_advanced_composition.live = AdvancedCompositionPlot
