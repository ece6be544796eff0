"""Lecture-hall mode (issue 38): the book's figures for a projector, by one switch.

``use_style("lecture")`` (or ``DP_BOOK_STYLE=lecture`` in the environment when
``dp_lib.plotting`` is imported) draws every figure at twice the resolution, with
text of at least 15 pt and thicker lines; ``use_style("book")`` goes back. The
book's style is the default, and in it nothing here changes a figure: its PNGs
stay byte for byte what they were. ``python -m tools.slides`` uses the switch
for slide-ready figures and decks (README, "Lecture hall").
"""

from __future__ import annotations

import os

import matplotlib as mpl
from matplotlib.figure import Figure

from .style import BOOK_STYLE

__all__ = ["LECTURE_STYLE", "LECTURE_MIN_FONTSIZE", "LECTURE_MIN_LINEWIDTH", "STYLES", "use_style", "active_style",
           "style_params", "for_projection"]

# The same figures for a projector: twice the resolution (an 8-inch figure is a
# 1600 px PNG, shown at 800 px), text of at least LECTURE_MIN_FONTSIZE points (15 pt = 20.8 px at 1x, i.e. at
# 100 dpi; legends, tick labels and annotations alike, also where a figure asks for fontsize=8), lines of at
# least LECTURE_MIN_LINEWIDTH points. The book's style stays the default: nothing here runs unless asked for.
LECTURE_MIN_FONTSIZE = 15.0
LECTURE_MIN_LINEWIDTH = 2.0
LECTURE_STYLE = {
    **BOOK_STYLE,
    "figure.dpi": 200,
    "savefig.dpi": 200,
    "font.size": 16,
    "axes.titlesize": 17,
    "axes.labelsize": 16,
    "legend.fontsize": LECTURE_MIN_FONTSIZE,
    "xtick.labelsize": LECTURE_MIN_FONTSIZE,
    "ytick.labelsize": LECTURE_MIN_FONTSIZE,
    "lines.linewidth": 3.0,
    "lines.markersize": 9.0,
    "axes.linewidth": 1.6,
    "grid.linewidth": 1.2,
    "grid.alpha": 0.4,
    "xtick.major.width": 1.6,
    "ytick.major.width": 1.6,
    "xtick.major.size": 6.0,
    "ytick.major.size": 6.0,
    "patch.linewidth": 1.5,
    "legend.handlelength": 2.5,
}
STYLES = {"book": BOOK_STYLE, "lecture": LECTURE_STYLE}

_state = {"active": "book", "saved": None}  # saved: matplotlib's global settings before use_style("lecture")


def use_style(name: str) -> None:
    """Switch every figure of ``dp_lib.plotting`` to a style: ``"book"`` (the default) or ``"lecture"``.

    ``"lecture"`` is for projection in a lecture hall: twice the resolution,
    text of at least 15 pt (about 21 px when the figure is shown at its size
    in inches at 100 dpi), thicker lines, and the constrained layout instead of
    the fixed margins that were measured for the book's text sizes. It also
    sets matplotlib's global settings (ticks drawn later take their size from
    there); ``use_style("book")`` puts them back as they were. Setting the
    environment variable ``DP_BOOK_STYLE=lecture`` before ``dp_lib.plotting`` is
    imported does the same (``python -m tools.slides`` runs the chapters so).

    Parameters
    ----------
    name : str
        ``"book"`` or ``"lecture"``.

    Returns
    -------
    None

    Privacy: none: a helper that touches no private data.

    Used in: tools/slides (lecture-hall figures and slide decks; README, "Lecture hall")

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(1)
    >>> use_style("lecture"); active_style(), mpl.rcParams["figure.dpi"]
    ('lecture', 200.0)
    >>> use_style("book"); active_style()
    'book'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {sorted(STYLES)}, got {type(name).__name__}")
    if name not in STYLES:
        raise ValueError(f"name must be one of {sorted(STYLES)}, got {name!r}")
    if name == "lecture":
        if _state["saved"] is None:
            _state["saved"] = {key: mpl.rcParams[key] for key in LECTURE_STYLE}
        mpl.rcParams.update(LECTURE_STYLE)
    elif _state["saved"] is not None:
        mpl.rcParams.update(_state["saved"])
        _state["saved"] = None
    _state["active"] = name


def active_style() -> str:
    """The name of the style figures are drawn in now: ``"book"`` unless ``use_style`` chose another."""
    return _state["active"]


def style_params() -> dict:
    """The rc settings of the active style (``BOOK_STYLE`` itself in the book's style)."""
    return STYLES[_state["active"]]


def for_projection(fig):
    """In the lecture style, raise small text and thin lines of ``fig`` to the lecture minimum; else nothing.

    Many figures ask for ``fontsize=8`` or ``lw=1`` explicitly, which the rc
    settings cannot change: each text below ``LECTURE_MIN_FONTSIZE`` and each
    data line (and legend line) below ``LECTURE_MIN_LINEWIDTH`` is raised to it.
    A figure without a layout engine (axes at fixed positions) then has its
    axes moved inwards so that the larger labels stay inside it. Returns ``fig``.
    """
    if _state["active"] != "lecture" or not isinstance(fig, Figure):
        return fig
    from matplotlib.collections import LineCollection
    from matplotlib.legend import Legend
    from matplotlib.lines import Line2D
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        if text.get_fontsize() < LECTURE_MIN_FONTSIZE:
            text.set_fontsize(LECTURE_MIN_FONTSIZE)
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    lines += [line for legend in fig.findobj(Legend) for line in legend.get_lines()]
    lines += [c for ax in fig.axes for c in ax.collections if isinstance(c, LineCollection)]
    for line in lines:
        widths = line.get_linewidth() if not isinstance(line, Line2D) else [line.get_linewidth()]
        if any(0 < w < LECTURE_MIN_LINEWIDTH for w in widths):
            line.set_linewidth([max(w, LECTURE_MIN_LINEWIDTH) if w > 0 else w for w in widths]
                               if not isinstance(line, Line2D) else LECTURE_MIN_LINEWIDTH)
    _wrap_titles(fig)
    if fig.get_layout_engine() is None:
        if fig.axes and all(ax.get_subplotspec() is not None for ax in fig.axes):
            for ax in fig.axes:  # subplots placed by hand (set_position) for the book's text: lay them out again
                ax.set_in_layout(True)
            fig.set_layout_engine("constrained")
            _outside_legends(fig)
        else:
            _fit_inside(fig)
    return fig


def _outside_legends(fig) -> None:
    """Figure legends placed by hand above or below the axes: the same legend, outside the constrained layout."""
    from matplotlib.text import Annotation

    if any(isinstance(a, Annotation) for a in fig.artists):  # texts attached to a legend's entries: leave it
        return
    for legend in list(fig.legends):
        box = legend.get_bbox_to_anchor().transformed(fig.transFigure.inverted())
        handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
        legend.remove()
        fig.legend(handles, labels, loc="outside lower center" if box.y0 < 0.5 else "outside upper center",
                   ncols=min(len(labels), 2))


def _wrap_titles(fig) -> None:
    """Break an axes title that is wider than its axes (at the lecture's text size) into lines that fit."""
    import textwrap

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    for ax in fig.axes:
        text = ax.title.get_text()
        if not text.strip() or "$" in text or "\n" in text:
            continue
        width, room = ax.title.get_window_extent(renderer).width, ax.get_window_extent(renderer).width
        if width > room > 0:
            ax.title.set_text(_break(text, max(12, int(len(text) * room / width * 0.95)), textwrap.fill))


def _break(text: str, chars: int, fill) -> str:
    """``text`` in lines of at most ``chars`` characters: at the ", " or ": " nearest its middle if that is enough,
    else word by word, keeping ``x = 1`` together (textwrap breaks at ASCII spaces only)."""
    cuts = [i + 2 for i in range(len(text) - 2) if text[i:i + 2] in (", ", ": ")]
    best = min(cuts, key=lambda i: max(i, len(text) - i), default=None)
    if best is not None and max(best, len(text) - best) <= chars:
        return text[:best].rstrip() + "\n" + text[best:].lstrip()
    return fill(text.replace(" = ", "\xa0=\xa0"), chars).replace("\xa0", " ")  # never break around "="


def _fit_inside(fig, pad: float = 4.0) -> None:
    """Move the axes of a figure without a layout engine so that their labels (in pixels) fit in it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    axes = [ax for ax in fig.axes if ax.get_visible()]
    if not axes:
        return
    renderer = FigureCanvasAgg(fig).get_renderer()
    outer = Bbox.union([ax.get_tightbbox(renderer) for ax in axes])
    width, height = fig.bbox.width, fig.bbox.height
    left, bottom = max(0.0, pad - outer.x0) / width, max(0.0, pad - outer.y0) / height
    right, top = max(0.0, outer.x1 - width + pad) / width, max(0.0, outer.y1 - height + pad) / height
    if left == bottom == right == top == 0.0:
        return
    inner = Bbox.union([ax.get_position() for ax in axes])
    sx = (inner.width - left - right) / inner.width
    sy = (inner.height - bottom - top) / inner.height
    if sx <= 0.2 or sy <= 0.2:  # labels larger than the figure: leave it as it is
        return
    for ax in axes:
        p = ax.get_position()
        ax.set_position((inner.x0 + left + (p.x0 - inner.x0) * sx, inner.y0 + bottom + (p.y0 - inner.y0) * sy,
                         p.width * sx, p.height * sy))

if os.environ.get("DP_BOOK_STYLE"):  # e.g. DP_BOOK_STYLE=lecture python -m tools.slides ... (a kernel inherits it)
    if os.environ["DP_BOOK_STYLE"] not in STYLES:
        raise ValueError(f"DP_BOOK_STYLE must be one of {sorted(STYLES)}, got {os.environ['DP_BOOK_STYLE']!r}")
    use_style(os.environ["DP_BOOK_STYLE"])
