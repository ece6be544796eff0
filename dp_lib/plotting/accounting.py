"""Figures of private learning's accounting: the DP-SGD figure (chapters/11_private_learning.ipynb).

The figure lives in ``dp_lib.plotting.dp_sgd``; this module keeps its names importable from
``dp_lib.plotting.accounting``, where earlier versions had them. (The composition-bounds figure that
compared basic, advanced, zCDP and RDP accounting left the book with the Rényi material of the
composition chapter; chapters/10_accounting.ipynb draws its own figures from ``dp_lib.plotting.pld``.)
"""

from __future__ import annotations

from .dp_sgd import DpSgdPlot, plot_dp_sgd

__all__ = ["plot_dp_sgd", "DpSgdPlot"]
