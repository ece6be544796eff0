"""Sliders for the book's figures: ``interact_figure`` and the notebook's figure settings.

A chapter's slider cell is one line, the same call shape as ``ipywidgets.interact``::

    _ = interact_figure(plot_noisy_count, epsilon=FloatSlider(min=0.1, max=5.0, step=0.1, value=1.0))

The book's slider figures are ``LivePlot`` classes (``plot_x.live``, see
``dp_lib/plotting/live.py``): the figure is built once, and each move updates
its lines, bars and titles in place and redraws only those over a kept image
of the rest (``LiveFigure``), then encodes one PNG and sets it as the value of
one ``ipywidgets.Image``. Nothing goes through an Output widget, so no PNG is
echoed back to the kernel. The frame equals the whole figure drawn from
scratch, pixel for pixel (tests/test_live_plots.py). ``setup_figures()`` (in a
chapter's setup cell) shows static figures drawn once, without a tight box.

Any other plotting function still works: each move builds a new figure, keeps
the axes where the layout engine put them for the default setting
(``slider_figure``: no layout pass per move, no jumping axes) and draws it
once. An invalid slider combination: the plotting function raises
``ValueError`` (as every ``dp_lib`` function does) and the slider shows the
message in place of the figure; the static site's frames
(tools/slider_frames.py) are made by the same code.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported on first use only
    from matplotlib.figure import Figure

__all__ = ["PNG_SETTINGS", "figure_png", "default_layout", "slider_figure", "setup_figures", "interact_figure"]

# What the notebook's inline backend, the slider widget and the static-site frames all use.
PNG_SETTINGS = {"format": "png", "bbox_inches": None, "metadata": {"Software": None}}


def figure_png(fig: Figure) -> bytes:
    """PNG bytes of a figure, drawn once at its own size and resolution (``fig.dpi``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, e.g. what a ``dp_lib.plotting`` function returns.

    Returns
    -------
    bytes
        The PNG file (no tight bounding box, no software stamp: byte-stable).

    Privacy: none: a helper that touches no private data.

    Used in: chapters/02_laplace.ipynb, through ``interact_figure`` (and tools/slider_frames.py for the static site)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> from dp_lib.plotting import message_figure
    >>> rng = make_rng(1)
    >>> figure_png(message_figure("hello"))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    buf = io.BytesIO()
    # print_png draws once (running the figure's layout engine, if any, inside that draw); savefig would
    # first make a second, "draw-disabled" pass whenever the figure has a layout engine.
    FigureCanvasAgg(fig).print_png(buf, metadata=PNG_SETTINGS["metadata"])
    return buf.getvalue()


def default_layout(function: Callable[..., Any]) -> tuple[tuple[float, float], list | None]:
    """The figure of ``function()`` at its defaults, laid out: its size and its axes' positions.

    Parameters
    ----------
    function : callable
        A plotting function whose arguments all have defaults.

    Returns
    -------
    tuple
        ``(size, positions)``: (width, height) in inches and one ``Bbox`` per axes (``None`` when
        the figure has no layout engine, i.e. already fixed positions). Cached per function.

    Privacy: none: a helper that touches no private data (the function's own guarantee applies).

    Used in: chapters/02_laplace.ipynb, through ``interact_figure``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> from dp_lib.plotting import plot_averaging
    >>> rng = make_rng(1)
    >>> size, positions = default_layout(plot_averaging)
    >>> size, len(positions)
    ((8.0, 3.2), 2)
    """
    if not callable(function):
        raise TypeError(f"function must be a plotting function, got {type(function).__name__}")
    if function not in _LAYOUTS:
        from matplotlib.figure import Figure

        fig = function()
        if not isinstance(fig, Figure):
            raise TypeError(f"function must return a matplotlib Figure, {function!r:.60} returned "
                            f"{type(fig).__name__}")
        positions = None
        if fig.get_layout_engine() is not None:
            fig.draw_without_rendering()  # runs the layout engine once
            positions = [ax.get_position().frozen() for ax in fig.axes]
        _LAYOUTS[function] = (tuple(float(x) for x in fig.get_size_inches()), positions)
    return _LAYOUTS[function]


_LAYOUTS: dict = {}


def slider_figure(function: Callable[..., Any], kwargs: dict[str, Any]) -> Figure:
    """The figure a slider shows for ``function(**kwargs)``: fixed layout, or why there is none.

    The axes keep the positions the layout engine gives the figure at the
    function's defaults, so a redraw does not lay the figure out again (about
    half of a draw) and the axes do not jump while the slider moves. A setting
    for which the function raises ``ValueError`` gives a figure of the same
    size showing the message: the one way every slider handles an invalid
    combination (``interact_figure`` in JupyterLab, the static site's frames).

    Parameters
    ----------
    function : callable
        A plotting function that returns a Figure, has defaults for every argument,
        and raises ``ValueError`` for a setting that makes no sense (e.g. p ≤ q).
    kwargs : dict
        Its arguments.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, or a message figure with the ``ValueError``'s text.

    Privacy: none: a helper that touches no private data (the function's own guarantee applies).

    Used in: chapters/02_laplace.ipynb, through ``interact_figure`` (and tools/slider_frames.py)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> from dp_lib.plotting import plot_averaging
    >>> rng = make_rng(1)
    >>> fig = slider_figure(plot_averaging, {"epsilon": -1.0})
    >>> [float(x) for x in fig.get_size_inches()], fig.axes[0].texts[0].get_text()[:26]
    ([8.0, 3.2], 'No figure for this setting')
    """
    size, positions = default_layout(function)
    try:
        fig = function(**kwargs)
    except ValueError as err:
        from .plotting import message_figure

        return message_figure(f"No figure for this setting: {err}", width=size[0], height=size[1])
    if positions is not None and len(positions) == len(fig.axes):
        fig.set_layout_engine("none")
        for ax, position in zip(fig.axes, positions):
            ax.set_position(position)
    return fig


def setup_figures() -> None:
    """Show every figure of the notebook as ``figure_png`` draws it: once, at its own size.

    IPython's inline backend saves figures with ``bbox_inches="tight"``, which
    draws each figure twice (three layout passes with constrained layout). This
    sets its ``print_figure_kwargs`` to no tight bounding box and shows a
    ``Figure`` with ``figure_png`` (one draw). Call once in a chapter's setup
    cell, after ``%matplotlib inline``; outside IPython it does nothing.

    Parameters
    ----------
    None.

    Returns
    -------
    None

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(1)
    >>> setup_figures()  # no IPython here: nothing to configure
    """
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return
    from binascii import b2a_base64

    from matplotlib.figure import Figure
    from matplotlib_inline.backend_inline import InlineBackend, set_matplotlib_formats

    settings = {k: v for k, v in PNG_SETTINGS.items() if k != "format"}
    InlineBackend.instance().print_figure_kwargs = settings  # kept if %matplotlib inline runs again
    set_matplotlib_formats("png", **settings)
    # A Figure (what the dp_lib.plotting functions return) is shown exactly as figure_png draws it: one draw.
    shell.display_formatter.formatters["image/png"].for_type(
        Figure, lambda fig: b2a_base64(figure_png(fig), newline=False).decode("ascii"))


def interact_figure(function: Callable[..., Any], /, **widgets: Any) -> Any:
    """Sliders that redraw a figure: ``interact(function, **widgets)`` for plotting functions.

    Parameters
    ----------
    function : callable
        A ``dp_lib.plotting`` function returning a Figure.
    **widgets
        One ipywidgets control (``FloatSlider``, ``IntSlider``, ...) or ``fixed(value)``
        per argument, as for ``ipywidgets.interact``; unnamed arguments keep their defaults.

    Returns
    -------
    ipywidgets.VBox
        The controls and the figure (already displayed).

    Privacy: none: a helper that touches no private data (the function's own guarantee applies).

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> from ipywidgets import FloatSlider
    >>> from dp_lib import make_rng
    >>> from dp_lib.plotting import plot_averaging
    >>> rng = make_rng(1)
    >>> box = interact_figure(plot_averaging, epsilon=FloatSlider(min=0.5, max=2, value=1))  # doctest: +ELLIPSIS
    VBox(children=(FloatSlider(...), Image(...)), _dom_classes=('widget-interact',))
    >>> box.children[0].value = 2.0  # redraws the figure
    >>> bytes(box.children[-1].value[:4])
    b'\\x89PNG'
    """
    from IPython.display import display
    from ipywidgets import Image, VBox, ValueWidget, fixed

    controls, fixed_args = {}, {}
    for name, widget in widgets.items():
        if isinstance(widget, fixed):
            fixed_args[name] = widget.value
        elif isinstance(widget, ValueWidget):
            controls[name] = widget
        else:
            raise TypeError(f"{name} must be an ipywidgets control or fixed(value), got {type(widget).__name__}")
    image = Image(format="png")
    live = getattr(function, "live", None)
    if live is not None:  # a LivePlot: built once, each move redraws only what changed
        from .plotting.live import LiveFigure

        renderer = LiveFigure(live)

        def frame(kwargs):
            return renderer.png(kwargs)
    else:  # any other plotting function: a new figure per move, drawn once with its layout frozen
        def frame(kwargs):
            return figure_png(slider_figure(function, kwargs))

    def redraw(_change=None):
        image.value = frame({**fixed_args, **{name: w.value for name, w in controls.items()}})

    redraw()
    for widget in controls.values():
        widget.observe(redraw, names="value")
    box = VBox([*controls.values(), image])
    box.add_class("widget-interact")
    display(box)
    return box
