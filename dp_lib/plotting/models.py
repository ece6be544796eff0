"""Figures of chapters/12_attacking_models.ipynb: ROC curves of membership attacks against the DP ceiling."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import pandas as pd

from ..attacks import max_tpr
from ..data import ADULT_PATH
from ..membership import pld_max_tpr, roc_auc, roc_curve
from ..validation import check_delta, check_epsilon
from .live import LivePlot
from .style import COLORS, OKABE_ITO, book_style, new_figure

__all__ = ["plot_membership_roc", "plot_attack_ceiling"]


@book_style
def plot_membership_roc(curves: Mapping, accountant=None, epsilon: float | None = None, delta: float = 1e-5):
    """ROC curves of membership attacks on log–log axes, with the ceiling that DP puts on any attack's TPR.

    One curve per attack (true-positive rate against false-positive rate, both from 1e-4 to 1, AUC in the
    legend) and the diagonal of guessing. With ``accountant`` (a ``PldAccountant`` of the training) the region
    above the trade-off curve it certifies (``pld_max_tpr``) is shaded: no attack on that training can reach it.
    With ``epsilon`` the looser ceiling of the single pair (ε, δ), min(1, e^ε FPR + δ, 1 - e^(-ε)(1 - δ - FPR)),
    is drawn as a dashed line (shaded instead when there is no accountant). A dotted vertical line marks the FPR of
    10 false positives: left of it each curve rests on fewer than 10 non-member scores, is mostly noise, and can
    even cross a ceiling. Log axes show what matters for privacy: how many members an attack finds at FPR 0.1 % or 1 %.

    Parameters
    ----------
    curves : mapping of an attack's name to (scores, members), as taken by ``roc_curve``.
    accountant : a ``PldAccountant`` or None.  epsilon : float > 0 or None, the ε of the single-pair ceiling.
    delta : float in [0, 1), its δ.

    Returns
    -------
    matplotlib Figure.

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb
    """
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(f"curves must be a non-empty mapping of name -> (scores, members), got {type(curves).__name__}")
    fig, ax = new_figure(width=5.6, height=4.4)
    grid = np.geomspace(1e-4, 1.0, 200)
    ax.plot(grid, grid, color=OKABE_ITO["black"], lw=0.8, ls=":", label="guessing")
    out_scores = []
    for colour, (name, (scores, members)) in zip(COLORS, curves.items()):
        fpr, tpr = roc_curve(scores, members)
        out_scores.append(int(np.sum(~np.asarray(members, dtype=bool))))
        ax.plot(np.maximum(fpr, 1e-4), np.maximum(tpr, 1e-4), color=colour,
                label=f"{name} (AUC {roc_auc(scores, members):.3f})")
    ten = 10 / min(out_scores)
    ax.axvline(ten, color=OKABE_ITO["black"], lw=0.6, ls=(0, (1, 3)))
    ax.text(ten * 0.92, 0.5, "← fewer than 10 false positives", fontsize=7, ha="right", va="center")
    if accountant is not None:
        ceiling = pld_max_tpr(grid, accountant)
        ax.fill_between(grid, ceiling, 1.0, color=OKABE_ITO["vermillion"], alpha=0.15,
                        label=f"impossible: the PLD accountant's curve (ε = {accountant.epsilon(delta):.2f} at δ = {delta:g})")
    if epsilon is not None:
        eps, dlt = check_epsilon(epsilon), check_delta(delta, allow_zero=True)
        single = max_tpr(grid, eps, dlt)
        if accountant is None:
            ax.fill_between(grid, single, 1.0, color=OKABE_ITO["vermillion"], alpha=0.15,
                            label=f"impossible at ε = {eps:g}, δ = {dlt:g}")
        else:
            ax.plot(grid, single, color=OKABE_ITO["vermillion"], lw=1.0, ls="--",
                    label=f"ceiling of the single pair (ε = {eps:g}, δ = {dlt:g}): looser")
    ax.set(xscale="log", yscale="log", xlim=(1e-4, 1), ylim=(1e-4, 1), xlabel="false-positive rate",
           ylabel="true-positive rate")
    ax.legend(fontsize=7, loc="lower right")
    return fig


@lru_cache(maxsize=1)
def _membership_table() -> pd.DataFrame:
    """The shipped table of ``benchmarks/membership_table.py`` (read once)."""
    return pd.read_csv(ADULT_PATH.with_name("membership_inference.csv"))


class AttackCeilingPlot(LivePlot):
    """The ceiling slider figure of chapters/12_attacking_models.ipynb (``plot_attack_ceiling``), built once.

    The axes, the diagonal and the measured points are fixed; the shaded region and its legend label change with
    ε (one view).

    Used in: chapters/12_attacking_models.ipynb, through ``plot_attack_ceiling``
    """

    def build(self):
        self.grid = np.geomspace(1e-4, 1.0, 200)
        self.fig, ax = new_figure(width=5.6, height=4.4)
        ax.plot(self.grid, self.grid, color=OKABE_ITO["black"], lw=0.8, ls=":", label="guessing")
        self.region = ax.fill_between(self.grid, self.grid, 1.0, color=OKABE_ITO["vermillion"], alpha=0.15, label=" ")
        for colour, (_, row) in zip(COLORS, _membership_table().query("attack == 'online'").iterrows()):
            fpr = [row[f"false_positives_at_{f:g}"] / row["out_scores"] for f in (0.001, 0.01)]
            pld = float(row["epsilon_pld"])
            name = "non-private" if math.isinf(pld) else f"DP-SGD, ε = {pld:.2f} (PLD)"
            ax.plot(fpr, [row[f"tpr_at_{f:g}"] for f in (0.001, 0.01)], marker="o", color=colour, label=name)
        ax.set(xscale="log", yscale="log", xlim=(1e-4, 1), ylim=(1e-4, 1), xlabel="false-positive rate",
               ylabel="true-positive rate", title="online LiRA at FPR 0.1 % and 1 %, 512 models each")
        self.legend = ax.legend(fontsize=7, loc="lower right")
        self.changing = [self.region, self.legend]

    def update(self, epsilon=1.0, delta=1e-5):
        eps, dlt = check_epsilon(epsilon), check_delta(delta, allow_zero=True)
        self.region.set_data(self.grid, max_tpr(self.grid, eps, dlt), np.ones_like(self.grid))
        self.legend.get_texts()[1].set_text(f"impossible at ε = {eps:g}, δ = {dlt:g}")


def plot_attack_ceiling(epsilon: float = 1.0, delta: float = 1e-5):
    """The (ε, δ)-DP ceiling on an attack's TPR against LiRA's measured operating points on every model of the table.

    The shaded region is impossible for any attack on an (ε, δ)-DP training. The points are the online LiRA
    attack's (FPR, TPR) at the thresholds for FPR 0.1 % and 1 % from ``membership_inference.csv`` (512 models per
    setting): the non-private model and DP-SGD at four targets, labelled with the PLD accountant's ε; a setting whose
    PLD ε is at most ``epsilon`` must lie below this ceiling (the ceiling of one (ε, δ) pair; the PLD accountant's
    full curve, ``pld_max_tpr``, is lower still). Takeaway: at small ε the non-private attack lies in the impossible
    region; the DP-SGD points stay close to the guessing diagonal, except the ε ≈ 7 model's point at 0.1 % FPR
    (about 2.5 times guessing), which a ceiling below ε ≈ 0.9 forbids: allowed, since that model is only about
    7-DP. Drawn by ``AttackCeilingPlot``.

    Parameters
    ----------
    epsilon : float > 0, the ε of the ceiling.  delta : float in [0, 1).

    Returns
    -------
    matplotlib Figure.

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb
    """
    return AttackCeilingPlot().figure(epsilon=epsilon, delta=delta)


plot_attack_ceiling.live = AttackCeilingPlot
