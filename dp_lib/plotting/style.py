"""One figure style for the whole book: colour-blind-safe, fixed sizes.

Figures are built as ``matplotlib.figure.Figure`` objects (not through
``pyplot``), so a function can return its figure: a notebook cell that ends
with it shows it once, ``interact`` redraws it, and the benchmarks and the
build can render it to PNG without a display.
"""

from __future__ import annotations

import functools
import math
from numbers import Real

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullLocator

__all__ = ["OKABE_ITO", "COLORS", "BOOK_STYLE", "book_style", "new_figure", "message_figure", "is_finite_number",
           "count_older_than_40", "fixed_layout", "decade_label", "decade_ticks"]

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
    """Decorator: draw the whole figure inside the active style's rc settings (the book's by default)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with mpl.rc_context(lecture.style_params()):  # BOOK_STYLE unless use_style("lecture")
            return lecture.for_projection(func(*args, **kwargs))

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


def fixed_layout(fig, *, left, bottom, right, top, wspace=0.2):
    """Put the subplots where the constrained layout puts them for the chapter's figure, with no layout pass.

    Speed: before drawing, a constrained layout measures every tick label,
    title and legend of every axes, twice: about a third of the time of these
    figures. Their labels have the same size at every setting the chapters
    use, so the margins it found (in figure fractions) are written down here.
    """
    if lecture.active_style() == "lecture":  # the margins were measured for the book's text: keep the layout engine
        return
    fig.set_layout_engine(None)
    fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top, wspace=wspace)


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(value, _position=None) -> str:
    """10^k as plain text with superscript digits (10³, 10⁻²), as the log axes' mathtext 10^k reads.

    >>> decade_label(1000.0), decade_label(0.01), decade_label(1.0), decade_label(30.0)
    ('10³', '10⁻²', '10⁰', '30')
    """
    exponent = round(math.log10(value)) if value > 0 else 0
    return f"10{str(exponent).translate(_SUPERSCRIPTS)}" if math.isclose(value, 10.0**exponent) else f"{value:g}"


def decade_ticks(ax):
    """On each log axis of ``ax``: decade ticks labelled 10³ in plain text, and no minor ticks.

    Speed: matplotlib makes a tick object (with its label) for each minor tick,
    2-9 × 10^k, and typesets each 10^k as mathtext; a constrained layout
    measures them all, twice. Decade ticks and grid lines, labelled with
    superscript digits, read the same at a fraction of the cost.
    """
    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            axis.set_major_formatter(FuncFormatter(decade_label))
            axis.set_minor_locator(NullLocator())


from ..data import count_older_than_40  # noqa: E402,F401 (moved to dp_lib.data; re-exported here)

from . import lecture  # noqa: E402 (the lecture-hall style; it imports BOOK_STYLE from here)
