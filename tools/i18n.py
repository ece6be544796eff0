"""Sphinx extension: translate the text Sphinx's own gettext machinery does not reach.

Sphinx extracts and translates paragraphs, titles, admonitions, table cells and captions
(``jupyter-book build . --builder custom --custom-builder gettext``; translated through
``locale_dirs`` when ``language`` is set). Two kinds of reader-facing text live elsewhere:

* a figure's alt text, which a chapter writes in the code cell's metadata
  (``"mystnb": {"image": {"alt": ...}}``) and MyST-NB puts on the image node;
* the static slider controls of ``tools.slider_frames``: the note above them, each
  slider's label and the alt-text template of the frames (``"alt": "... ε = {epsilon}"``),
  and the sentence that stands for a slider in the PDF (``tools.latex_edition``).

This extension adds both to the gettext builder's catalog of the page they are on, so
they land in ``locales/<language>/LC_MESSAGES/<page>.po`` next to the page's prose, and,
in a translated build, looks them up in the same catalog. ``translator(app, docname)`` is
what ``tools.slider_frames`` calls for its strings.
"""

from __future__ import annotations

from os import path

from docutils import nodes
from sphinx import addnodes
from sphinx.builders.gettext import MsgOrigin
from sphinx.locale import init as init_locale
from sphinx.util.i18n import docname_to_domain

# Shown above every set of static sliders (tools.slider_frames); one message, translated per page.
SLIDER_NOTE = (
    "Pre-rendered figures: move a slider (mouse or arrow keys) to see the figure for that setting. "
    "For any other value, run the chapter in JupyterLab or open it with the launch buttons "
    "(rocket icon) at the top of the page."
)

# Replaces each slider cell in the PDF (tools.latex_edition); kept in the root document's catalog.
PDF_SLIDER_NOTE = ("In the online book a slider here redraws the figure above for other values; "
                   "the figure shows the default values.")


def slider_spec(node) -> dict | None:
    """The ``slider_frames`` metadata of a code cell's container node, if it has any."""
    if not isinstance(node, nodes.container) or node.get("nb_element") != "cell_code":
        return None
    return node.get("cell_metadata", {}).get("slider_frames") or None


def slider_messages(spec: dict) -> list[str]:
    """The reader-facing strings of one set of static sliders."""
    messages = [SLIDER_NOTE]
    if "alt" in spec:
        messages.append(spec["alt"])
    messages.extend(spec.get("labels", {}).values())
    return messages


def extra_messages(doctree):
    """Yield ``(message, node)`` for every figure alt text and static-slider string in a page.

    Alt texts are read from the code cells' metadata: the gettext builder's MyST-NB picks the
    text/plain form of an output, so there is no image node to read them from."""
    for node in doctree.findall(nodes.container):
        if node.get("nb_element") != "cell_code":
            continue
        alt = node.get("cell_metadata", {}).get("mystnb", {}).get("image", {}).get("alt")
        if alt:
            yield alt, node
        spec = slider_spec(node)
        if spec:
            for message in slider_messages(spec):
                yield message, node


def translator(app, docname: str):
    """``gettext`` for one page in this build's language (the identity in the English edition)."""
    language = app.config.language
    if not language or language == "en" or not app.config.locale_dirs:
        return lambda message: message
    domain = docname_to_domain(docname, app.config.gettext_compact)
    dirs = [path.join(app.srcdir, directory) for directory in app.config.locale_dirs]
    catalog, _ = init_locale(dirs, language, domain)
    return catalog.gettext


def _collect(app, doctree, docname) -> None:
    """gettext builder: add this page's extra messages to its catalog."""
    if app.builder.name != "gettext":
        return
    catalog = app.builder.catalogs[docname_to_domain(docname, app.config.gettext_compact)]
    source = app.env.doc2path(docname)
    for message, node in extra_messages(doctree):
        catalog.add(message, MsgOrigin(str(source), node.line or 0))
    if docname == app.config.root_doc:
        catalog.add(PDF_SLIDER_NOTE, MsgOrigin(str(source), 0))


def _prepare(app, doctree) -> None:
    """Display math is not a message (Sphinx would extract it); translated builds get translated alt
    texts and table-of-contents captions."""
    for node in doctree.findall(nodes.math_block):
        node["translatable"] = False
    gettext = translator(app, app.env.docname)
    for node in doctree.findall(nodes.image):
        if node.get("alt"):
            node["alt"] = gettext(node["alt"])
    # sphinx-external-toc inserts the table of contents after Sphinx's translation step: its part
    # captions ("Chapters", "Appendix"; extracted into the root page's catalog) are translated here,
    # before the toctree collector (doctree-read, priority 500) reads them for the sidebar.
    for node in doctree.findall(addnodes.toctree):
        if node.get("caption"):
            node["caption"] = node["rawcaption"] = gettext(node["caption"])
    for node in doctree.findall(nodes.compound):  # sphinx-jupyterbook-latex's copy: the PDF's part titles
        if "toctree-wrapper" in node["classes"] and node.get("caption"):
            node["caption"] = gettext(node["caption"])


def _translated_proof_titles(app) -> None:
    """sphinx-proof writes "Theorem 3.1" in English into LaTeX (its HTML uses its own translations):
    in a translated PDF, put its translated name ("定理 3.1") in its place."""
    if app.builder.format != "latex" or not app.config.language or app.config.language == "en":
        return
    from sphinx_proof import nodes as proof

    def fixed(depart):
        def depart_translated(self, node):
            title = proof.list_rindex(self.body, proof.latex_admonition_start) + 2
            depart(self, node)
            kind, _, number = self.body[title].partition(" ")
            self.body[title] = f"{proof._(kind)} {number}".rstrip()
        return depart_translated

    for node in (*proof.NODE_TYPES.values(), proof.unenumerable_node):
        visit, depart = (proof.visit_unenumerable_node, proof.depart_unenumerable_node) \
            if node is proof.unenumerable_node else (proof.visit_enumerable_node, proof.depart_enumerable_node)
        app.registry.add_translation_handlers(node, latex=(visit, fixed(depart)))


def setup(app):
    app.connect("doctree-resolved", _collect)
    app.connect("doctree-read", _prepare, priority=400)
    app.connect("builder-inited", _translated_proof_titles)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
