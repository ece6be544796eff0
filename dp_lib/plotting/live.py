"""Slider figures that are built once and then updated in place.

Drawing a matplotlib figure from scratch costs 100-400 ms, mostly in Python:
laying out ticks, tick labels, titles and legends. A slider moves a few lines,
bars and titles, so a slider figure is written as a small class:

- ``build(self)`` makes the figure once: the axes with fixed limits, the labels,
  the legend, and one artist for each thing that moves (a line, the bars of a
  histogram, a title). It lists the moving artists in ``self.changing``.
- ``update(self, **setting)`` computes the figure's numbers for one setting and
  puts them into those artists (``set_ydata``, ``set_data``, ``set_text``). Its
  keyword arguments and their defaults are the slider's parameters. What it
  shows depends only on ``setting``, never on the settings shown before.

The chapter's plotting function is then ``XPlot().figure(**setting)``: a
static figure, drawn whole. A slider (``dp_lib.widgets.interact_figure``) and
the static site's frames keep one ``LiveFigure`` per slider, which draws the
unchanging part of the figure once, keeps that image, and for each move only
pastes it back and draws the changing artists on top (matplotlib's public
blitting API: ``copy_from_bbox``, ``restore_region``, ``draw_artist``).
A move then costs the update, a few artists and the PNG encode: 10-40 ms.

If an update must also change something in the unchanging part (say the
y-range, when a slider changes a density's height by a factor of 50), it
returns a hashable *view* (e.g. the y-limits, picked from a short ladder); the
``LiveFigure`` keeps one background per view, so each view is drawn once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from collections.abc import Hashable
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

import io

import matplotlib as mpl

from .lecture import for_projection, style_params

__all__ = ["LivePlot", "LiveFigure", "encode_png", "nice_ceiling"]


class LivePlot:
    """Base class of a slider figure: ``build`` once, then ``update(**setting)`` per move."""

    fig = None
    changing: list = []

    def __init__(self):
        with mpl.rc_context(style_params()):
            self.build()
            for_projection(self.fig)  # the lecture style's minimum text and line sizes (nothing in the book's)
        self._frozen = False

    def build(self) -> None:  # pragma: no cover - every slider figure defines it
        raise NotImplementedError

    def update(self, **setting) -> Hashable:  # pragma: no cover - every slider figure defines it
        """Put the numbers for ``setting`` into ``self.changing``; return the view (``None``: one view)."""
        raise NotImplementedError

    @staticmethod
    def relabel(artists: list, legend_texts: list, labels: list[str]) -> None:
        """Give ``artists`` new legend ``labels`` and show them in the legend's text artists (``legend.get_texts()``)."""
        for artist, text, label in zip(artists, legend_texts, labels):
            artist.set_label(label)
            text.set_text(label)

    def freeze_layout(self) -> None:
        """Lay the figure out once, for the defaults, and keep the axes there (no layout pass per move)."""
        if self._frozen:
            return
        with mpl.rc_context(style_params()):
            self.update()
            if self.fig.get_layout_engine() is not None:
                self.fig.draw_without_rendering()
        self.fig.set_layout_engine("none")
        self._frozen = True

    def figure(self, **setting) -> Figure:
        """The whole figure for ``setting``, as a chapter's static cell shows it.

        At the defaults the figure keeps its layout engine, which runs inside
        the one draw that shows it; at any other setting the axes stay where
        the defaults put them, as on the slider.
        """
        import inspect

        defaults = {name: p.default for name, p in inspect.signature(self.update).parameters.items()}
        if any(setting[name] != defaults.get(name) for name in setting):
            self.freeze_layout()
        with mpl.rc_context(style_params()):
            self.update(**setting)
        return for_projection(self.fig)


class LiveFigure:
    """PNG frames of one ``LivePlot`` for a moving slider, drawn with matplotlib's public blitting API.

    Within each axes, matplotlib draws the children in zorder. Everything from
    the lowest changing artist's zorder up is this axes' *foreground*: the
    changing artists and whatever lies above them (spines, titles, a legend),
    marked ``set_animated(True)`` so that a whole-figure draw leaves them out.
    That draw is the background (frame, ticks, grid, labels): drawn once per
    view and kept with ``canvas.copy_from_bbox``. A move updates the artists in
    place, pastes the background back (``canvas.restore_region``) and draws the
    foreground in the same order as a whole-figure draw (``Axes.draw_artist``,
    ``Figure.draw_artist``). So a frame equals the whole figure drawn from
    scratch, pixel for pixel (``tests/test_live_plots.py``), while the costly
    part (tick and label layout) is drawn once.

    Parameters
    ----------
    plot_class : type
        A ``LivePlot`` subclass (``plot_x.live`` of a slider figure).
    """

    def __init__(self, plot_class: type) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.plot = plot_class()
        self.plot.freeze_layout()
        self.canvas = FigureCanvasAgg(self.plot.fig)
        self._backgrounds = {}
        self._foreground = _foreground(self.plot)
        for _, artists in self._foreground:
            for artist in artists:
                artist.set_animated(True)  # a whole-figure draw now leaves them out: the background

    def png(self, setting: dict) -> bytes:
        """The PNG the slider shows for ``setting``, or a message for a setting that raises ``ValueError``."""
        try:
            with mpl.rc_context(style_params()):
                view = self.plot.update(**setting)
        except ValueError as err:
            return self._message(f"No figure for this setting: {err}")
        background = self._backgrounds.get(view)
        if background is None:
            self.canvas.draw()
            background = self._backgrounds[view] = self.canvas.copy_from_bbox(self.plot.fig.bbox)
        else:
            self.canvas.restore_region(background)
        for owner, artists in self._foreground:
            for artist in artists:
                (self.plot.fig if owner is None else owner).draw_artist(artist)
        return encode_png(self.canvas)

    def _message(self, text: str) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        from .style import message_figure

        width, height = self.plot.fig.get_size_inches()
        canvas = FigureCanvasAgg(message_figure(text, width=float(width), height=float(height)))
        canvas.draw()
        return encode_png(canvas)


def _foreground(plot) -> list:
    """[(axes, artists in draw order)] from each axes' lowest changing zorder up; (None, [...]) for the figure's."""
    fig, changing = plot.fig, list(plot.changing)
    parts = []
    for ax in fig.axes:
        mine = [a for a in changing if a.axes is ax]
        if not mine:
            continue
        lowest = min(a.get_zorder() for a in mine)
        # Axes.draw's list: the children but the patch; spines only with a frame, axis objects only when shown
        children = [a for a in ax.get_children() if a is not ax.patch]
        if not (ax.axison and ax.get_frame_on()):
            children = [a for a in children if a not in ax.spines.values()]
        if not ax.axison:
            children = [a for a in children if a not in (ax.xaxis, ax.yaxis)]
        ordered = sorted(children, key=lambda a: a.get_zorder())  # stable, as Axes.draw's sort
        parts.append((ax, [a for a in ordered if a.get_zorder() >= lowest]))
    loose = [a for a in changing if a.axes is None]
    if loose:
        parts.append((None, loose))
    return parts


def encode_png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas as an RGB PNG (the book's figures are opaque), fastest zlib level.

    Speed: level 1 and no alpha channel encode an 800x320 figure in about 7 ms
    instead of 13 ms (print_png's RGBA at level 6) for a file a few per cent
    larger (benchmarks/results/sliders_issue15.md).
    """
    from PIL import Image

    width, height = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=1)
    return buf.getvalue()


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is ≥ ``x`` (> 0): an axis limit from a short ladder.

    A slider figure whose y-range must follow the setting returns such limits as
    its view, so the axis changes at a few steps instead of on every move.

    >>> nice_ceiling(0.3), nice_ceiling(2.0), nice_ceiling(7.1)
    (0.5, 2.0, 10.0)
    """
    import math

    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"x must be a positive finite number, got {x!r}")
    power = 10.0 ** math.floor(math.log10(x))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * power >= x * (1 - 1e-12):
            return float(f"{step * power:.12g}")
    return 10.0 * power  # pragma: no cover
