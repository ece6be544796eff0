"""dp_lib.widgets: the chapters' sliders (interact_figure), one PNG encode per move, one error policy."""

import base64
import struct

import pytest
from ipywidgets import FloatSlider, IntSlider, fixed

from dp_lib.plotting import plot_averaging, plot_unary_histogram
from dp_lib.widgets import PNG_SETTINGS, default_layout, slider_figure, figure_png, interact_figure, setup_figures


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", data[16:24])


def test_figure_png_is_the_whole_figure_and_byte_stable():
    fig = plot_averaging()
    width, height = fig.get_size_inches() * fig.dpi
    data = figure_png(fig)
    assert _png_size(data) == (round(width), round(height))  # no tight bbox: the figure's own size
    assert data == figure_png(plot_averaging())  # seeded figure, no timestamp: the same bytes
    assert b"Software" not in data
    assert PNG_SETTINGS["bbox_inches"] is None


def test_slider_figure_turns_only_value_errors_into_a_message():
    fig = slider_figure(plot_unary_histogram, {"p": 0.25, "q": 0.5})
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert len(texts) == 1 and "Move p above q" in texts[0] and texts[0].startswith("No figure for this setting")
    assert tuple(fig.get_size_inches()) == (8.0, 4.2)
    fig = slider_figure(plot_averaging, {"epsilon": 2.0, "k": 20})  # a valid setting: the figure ...
    assert [ax.get_position().bounds for ax in fig.axes] == \
        [p.bounds for p in default_layout(plot_averaging)[1]]  # ... laid out as at the defaults
    assert type(fig.get_layout_engine()).__name__ == "PlaceHolderLayoutEngine"  # no layout pass per draw
    assert figure_png(slider_figure(plot_averaging, {})) == figure_png(plot_averaging())  # defaults: unchanged

    def broken(**kwargs):
        raise ZeroDivisionError("a bug, not a setting")

    with pytest.raises(ZeroDivisionError):  # bugs are not hidden behind a message
        slider_figure(broken, {})


def _pixels(png: bytes):
    import io

    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_interact_figure_redraws_on_every_move_and_keeps_the_size():
    """A live slider's image shows, pixel for pixel, the whole figure the function draws for that setting."""
    import numpy as np

    p = FloatSlider(min=0.05, max=0.95, step=0.05, value=0.75)
    q = FloatSlider(min=0.05, max=0.95, step=0.05, value=0.25)
    box = interact_figure(plot_unary_histogram, p=p, q=q, seed=fixed(2024))
    image = box.children[-1]
    assert "widget-interact" in box._dom_classes and list(box.children[:2]) == [p, q]
    first = bytes(image.value)
    assert np.array_equal(_pixels(first), _pixels(figure_png(plot_unary_histogram(0.75, 0.25, 2024))))
    p.value = 0.8
    assert np.array_equal(_pixels(bytes(image.value)), _pixels(figure_png(plot_unary_histogram(0.8, 0.25, 2024))))
    assert bytes(image.value) != first
    q.value = 0.9  # p <= q: a message of the same size, not a traceback
    assert _png_size(bytes(image.value)) == _png_size(first)
    q.value = 0.25
    assert np.array_equal(_pixels(bytes(image.value)), _pixels(figure_png(plot_unary_histogram(0.8, 0.25, 2024))))


def test_interact_figure_refuses_what_is_not_a_control():
    with pytest.raises(TypeError, match="epsilon"):
        interact_figure(plot_averaging, epsilon=1.0)
    box = interact_figure(plot_averaging, epsilon=FloatSlider(value=1.0), k=IntSlider(value=10, min=1, max=50))
    assert len(box.children) == 3


def test_setup_figures_sets_the_inline_backend():
    from IPython.core.interactiveshell import InteractiveShell
    from matplotlib.figure import Figure
    from matplotlib_inline.backend_inline import InlineBackend

    shell = InteractiveShell.instance()
    try:
        setup_figures()
        assert InlineBackend.instance().print_figure_kwargs["bbox_inches"] is None
        png = shell.display_formatter.formatters["image/png"]
        fig = plot_averaging()
        assert base64.b64decode(png(fig)) == figure_png(fig)  # a static figure is exactly what the slider shows
        assert Figure in png.type_printers
    finally:
        InteractiveShell.clear_instance()


def test_interact_figure_draws_a_live_plot_with_its_live_figure():
    from dp_lib.plotting import plot_noisy_count
    from dp_lib.plotting.live import LiveFigure

    box = interact_figure(plot_noisy_count, epsilon=FloatSlider(min=0.1, max=5.0, step=0.1, value=1.0),
                          seed=fixed(2025))
    box.children[0].value = 2.0
    assert bytes(box.children[-1].value) == LiveFigure(plot_noisy_count.live).png({"epsilon": 2.0, "seed": 2025})
    box.children[0].value = 1.0
    assert bytes(box.children[-1].value) == LiveFigure(plot_noisy_count.live).png({"epsilon": 1.0, "seed": 2025})
