"""Figures of chapters/12_attacking_models.ipynb: ROC curves of membership attacks against the DP ceiling."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..attacks import max_tpr
from ..membership import roc_auc, roc_curve
from ..validation import check_delta, check_epsilon
from .style import COLORS, OKABE_ITO, book_style, new_figure

__all__ = ["plot_membership_roc"]


@book_style
def plot_membership_roc(curves: Mapping, epsilon: float | None = None, delta: float = 1e-5):
    """ROC curves of membership attacks on log–log axes, with the (ε, δ)-DP ceiling on any attack's TPR.

    One curve per attack (true-positive rate against false-positive rate, both from 1e-4 to 1, AUC in the
    legend), the diagonal of guessing, and, when ``epsilon`` is given, the ceiling
    min(1, e^ε FPR + δ, 1 - e^(-ε)(1 - δ - FPR)) shaded above: no attack on an (ε, δ)-DP training can reach
    it. Log axes show what matters for privacy: how many members an attack finds at FPR 0.1 % or 1 %.

    Parameters
    ----------
    curves : mapping of an attack's name to (scores, members), as taken by ``roc_curve``.
    epsilon : float > 0 or None, the ε of the ceiling.  delta : float in [0, 1).

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
    for colour, (name, (scores, members)) in zip(COLORS, curves.items()):
        fpr, tpr = roc_curve(scores, members)
        ax.plot(np.maximum(fpr, 1e-4), np.maximum(tpr, 1e-4), color=colour,
                label=f"{name} (AUC {roc_auc(scores, members):.3f})")
    if epsilon is not None:
        eps, dlt = check_epsilon(epsilon), check_delta(delta, allow_zero=True)
        ceiling = max_tpr(grid, eps, dlt)
        ax.fill_between(grid, ceiling, 1.0, color=OKABE_ITO["vermillion"], alpha=0.15,
                        label=f"impossible at ε = {eps:g}, δ = {dlt:g}")
    ax.set(xscale="log", yscale="log", xlim=(1e-4, 1), ylim=(1e-4, 1), xlabel="false-positive rate",
           ylabel="true-positive rate")
    ax.legend(fontsize=8, loc="lower right")
    return fig
