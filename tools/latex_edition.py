"""Sphinx extension: what the PDF edition (``jupyter-book build . --builder pdflatex``) leaves out.

Paper cannot run a widget or unfold a hidden answer, so for the LaTeX builder only:

* the solutions are omitted: every ``{solution}`` block (sphinx-exercise) and every code cell tagged
  ``solution``; the exercises and their self-check cells stay;
* each slider cell (a code cell calling ``interact(``) is replaced by one sentence pointing to the
  online book; the cell before it, which draws the figure at the slider's default values, stays, so
  every slider appears as its static default figure;
* any output that is a widget's text stand-in (``interactive(children=...``, ``FloatSlider(...``) is
  dropped, so no raw widget representation can reach the page.

The root document (the preface) gets its title back as an unnumbered chapter in the contents, and
the bibliography lists each work once (see ``_one_bibliography``).
The HTML build is untouched. The nodes are removed when the assembled book is resolved
(``doctree-resolved``), so it does not matter which builder read the sources first.
"""

from __future__ import annotations

import re

from docutils import nodes

from tools.i18n import PDF_SLIDER_NOTE, translator

SLIDER_CALL = re.compile(r"\binteract(?:ive)?(?:_output|_figure)?\(")
WIDGET_TEXT = re.compile(r"^\s*(?:interactive\(children=|\w*(?:Slider|Widget|Box)\(|VBox\(|HBox\()")


def _is_code_cell(node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def _source(cell) -> str:
    for child in cell.findall(nodes.container):
        if child.get("nb_element") == "cell_code_source":
            return child.astext()
    return ""


def _preface_heading(app, doctree) -> None:
    """sphinx-jupyterbook-latex prints the root document as untitled front matter: give it its title
    back as an unnumbered chapter that is listed in the contents."""
    title = app.env.titles.get(app.config.root_doc)
    if title is None:
        return
    text = title.astext().replace("\\", "").replace("{", "").replace("}", "")
    doctree.insert(0, nodes.raw("", f"\\chapter*{{{text}}}\\addcontentsline{{toc}}{{chapter}}{{{text}}}\n",
                                format="latex"))


def _one_bibliography(app, doctree) -> None:
    """Each chapter's "References" block and the book's Bibliography chapter all list their entries,
    and LaTeX gathers every entry at the end: the PDF would list a work once per chapter citing it,
    under empty "References" headings. Keep one entry per work (the Bibliography document's), point
    the chapters' citation links at it, and drop the emptied headings and the Bibliography document's
    own chapter (the gathered list is the PDF's Bibliography chapter)."""
    key_of = {c.citation_id: c.key for c in app.env.get_domain("cite").citations}
    citations = [n for n in doctree.findall(nodes.citation) if n["ids"] and n["ids"][0] in key_of]
    if not citations:
        return
    per_doc: dict[str, int] = {}
    for node in citations:
        per_doc[node["docname"]] = per_doc.get(node["docname"], 0) + 1
    main = max(per_doc, key=per_doc.get)  # the document listing the most works: the bibliography
    kept = {key_of[n["ids"][0]]: n for n in citations if n["docname"] == main}
    for node in citations:
        key = key_of[node["ids"][0]]
        if node["docname"] != main and key in kept:
            anchor = f"\\hypertarget{{cite.{node['docname']}:{node['ids'][0]}}}{{}}"
            kept[key].children[-1].insert(0, nodes.raw("", anchor, format="latex"))
            node.parent.remove(node)
    # By now Sphinx has gathered the entries into one list at the end of the book, which LaTeX prints
    # as an unnumbered "Bibliography" chapter; the Bibliography document's own chapter would be an
    # empty duplicate before it. Drop it, keeping its labels (now on the list) for links to it.
    from sphinx import addnodes
    from sphinx.builders.latex.nodes import thebibliography

    biblist = next(iter(doctree.findall(thebibliography)), None)
    for start in list(doctree.findall(addnodes.start_of_file)):
        if biblist is None or start["docname"] != main or next(iter(start.findall(nodes.citation)), None):
            continue
        ids = dict.fromkeys([f"{main}:{i}" for s in start.findall(nodes.section) for i in s["ids"]]
                            + [f"{main}::doc"])
        labels = "\\phantomsection" + "".join(f"\\label{{\\detokenize{{{i}}}}}" for i in ids)
        start.parent.remove(start)
        biblist.parent.insert(biblist.parent.index(biblist), nodes.raw("", labels, format="latex"))
    for section in list(doctree.findall(nodes.section)):  # headings whose entries have moved away
        content = [c for c in section.children if not isinstance(c, (nodes.title, nodes.target))]
        if not any(c.astext().strip() or next(iter(c.findall(nodes.image)), None) for c in content):
            section.parent.remove(section)


def _prune(app, doctree, docname) -> None:
    if app.builder.format != "latex":
        return
    if docname == app.config.root_doc:  # the assembled book
        _preface_heading(app, doctree)
        _one_bibliography(app, doctree)
    from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

    for kind in (solution_node, solution_start_node, solution_end_node):
        for node in list(doctree.findall(kind)):
            node.parent.remove(node)
    slider_note = translator(app, app.config.root_doc)(PDF_SLIDER_NOTE)  # a book-wide message (tools.i18n)
    for cell in list(doctree.findall(_is_code_cell)):
        if "tag_solution" in cell.get("classes", []):
            cell.parent.remove(cell)
        elif SLIDER_CALL.search(_source(cell)):
            note = nodes.paragraph("", "", nodes.emphasis("", slider_note))
            cell.replace_self(note)
    for output in list(doctree.findall(nodes.container)):
        if output.get("nb_element") == "cell_code_output" and WIDGET_TEXT.match(output.astext()):
            output.parent.remove(output)


def setup(app):
    app.connect("doctree-resolved", _prune)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
