"""One figure style for the whole book: colour-blind-safe, fixed sizes.

Figures are built as ``matplotlib.figure.Figure`` objects (not through
``pyplot``), so a function can return its figure: a notebook cell that ends
with it shows it once, ``interact`` redraws it, and the benchmarks and the
build can render it to PNG without a display.
"""

from __future__ import annotations

import functools
import math
from functools import lru_cache
from numbers import Real

import matplotlib as mpl
from matplotlib.figure import Figure

__all__ = ["OKABE_ITO", "COLORS", "BOOK_STYLE", "book_style", "new_figure", "message_figure", "is_finite_number",
           "count_older_than_40"]

# Okabe & Ito (2008), distinguishable under the common colour-vision deficiencies
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
COLORS = [OKABE_ITO[c] for c in ("blue", "orange", "green", "vermillion", "sky", "purple", "black")]

BOOK_STYLE = {
    "axes.prop_cycle": mpl.cycler(color=COLORS),
    "axes.grid": True,
    "axes.axisbelow": True,  # grid and ticks under the data (and, for a slider, in its fixed background)
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 10,
    "axes.titlesize": 11,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "hist.bins": 60,
}


def book_style(func):
    """Decorator: draw the whole figure inside the book's rc settings."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with mpl.rc_context(BOOK_STYLE):
            return func(*args, **kwargs)

    return wrapper


def new_figure(nrows=1, ncols=1, *, width=8.0, height=3.2, **subplot_kw):
    """Return ``(fig, axes)``: a pyplot-free Figure with constrained layout.

    Call it inside a ``@book_style`` function so the style applies.
    """
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=True, **subplot_kw)
    return fig, axes


def message_figure(text, *, width=8.0, height=1.6):
    """A figure that shows ``text`` instead of a plot, for slider settings that make no sense.

    A slider callback that raised would leave a traceback under the slider; a
    message keeps the figure area readable.
    """
    fig, ax = new_figure(width=width, height=height)
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, color=OKABE_ITO["vermillion"])
    return fig


def is_finite_number(x) -> bool:
    """True for a finite real number (booleans excluded): what a slider can legitimately pass."""
    return isinstance(x, Real) and not isinstance(x, bool) and math.isfinite(x)


from ..data import count_older_than_40  # noqa: E402,F401 (moved to dp_lib.data; re-exported here)
