"""Sphinx extension: what the PDF edition (``jupyter-book build . --builder pdflatex``) leaves out.

Paper cannot run a widget or unfold a hidden answer, so for the LaTeX builder only:

* the solutions are omitted: every ``{solution}`` block (sphinx-exercise) and every code cell tagged
  ``solution``; the exercises and their self-check cells stay;
* each slider cell (a code cell calling ``interact(``) is replaced by one sentence pointing to the
  online book; the cell before it, which draws the figure at the slider's default values, stays, so
  every slider appears as its static default figure;
* any output that is a widget's text stand-in (``interactive(children=...``, ``FloatSlider(...``) is
  dropped, so no raw widget representation can reach the page.

The HTML build is untouched. The nodes are removed when the assembled book is resolved
(``doctree-resolved``), so it does not matter which builder read the sources first.
"""

from __future__ import annotations

import re

from docutils import nodes

SLIDER_CALL = re.compile(r"\binteract(?:ive)?(?:_output)?\(")
WIDGET_TEXT = re.compile(r"^\s*(?:interactive\(children=|\w*(?:Slider|Widget|Box)\(|VBox\(|HBox\()")
SLIDER_NOTE = ("In the online book a slider here redraws the figure above for other values; "
               "the figure shows the default values.")


def _is_code_cell(node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def _source(cell) -> str:
    for child in cell.findall(nodes.container):
        if child.get("nb_element") == "cell_code_source":
            return child.astext()
    return ""


def _prune(app, doctree, docname) -> None:
    if app.builder.format != "latex":
        return
    from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

    for kind in (solution_node, solution_start_node, solution_end_node):
        for node in list(doctree.findall(kind)):
            node.parent.remove(node)
    for cell in list(doctree.findall(_is_code_cell)):
        if "tag_solution" in cell.get("classes", []):
            cell.parent.remove(cell)
        elif SLIDER_CALL.search(_source(cell)):
            note = nodes.paragraph("", "", nodes.emphasis("", SLIDER_NOTE))
            cell.replace_self(note)
    for output in list(doctree.findall(nodes.container)):
        if output.get("nb_element") == "cell_code_output" and WIDGET_TEXT.match(output.astext()):
            output.parent.remove(output)


def setup(app):
    app.connect("doctree-resolved", _prune)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
