"""Sphinx extension: what the PDF edition (``jupyter-book build . --builder pdflatex``) leaves out.

Paper cannot run a widget or unfold a hidden answer, so for the LaTeX builder only:

* the solutions are omitted: every ``{solution}`` block (sphinx-exercise) and every code cell tagged
  ``solution``; the exercises and their self-check cells stay;
* each slider cell (a code cell calling ``interact(``) is replaced by one sentence pointing to the
  online book; the cell before it, which draws the figure at the slider's default values, stays, so
  every slider appears as its static default figure;
* any output that is a widget's text stand-in (``interactive(children=...``, ``FloatSlider(...``) is
  dropped, so no raw widget representation can reach the page.

Code outputs must stay readable on paper (``tools/latex/dpoutputs.sty`` holds the LaTeX side):

* a pandas DataFrame (its ``text/html`` output) becomes a real table (booktabs), whose long headers
  take two lines and which is scaled down only if it is still wider than the line, or turned
  sideways on a page of its own if that would shrink it below 70 % (``DataFrameTables``); the HTML
  build keeps pandas' own HTML;
* any other output block whose longest line is wider than the line is set in a smaller font so that
  it fits, never broken with Sphinx's continuation arrow; only a prose line (a message, no aligned
  columns) that would need a font below 4/5 of the code size is broken instead, at its spaces, with
  an indent and no arrow (``FitOutputs``).

The root document (the preface) gets its title back as an unnumbered chapter in the contents, and
the bibliography lists each work once (see ``_one_bibliography``).
The HTML build is untouched. The nodes are removed when the assembled book is resolved
(``doctree-resolved``), so it does not matter which builder read the sources first.
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.texescape import escape

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


# ---- Code outputs on paper -------------------------------------------------------------------------------
STY = Path(__file__).parent / "latex" / "dpoutputs.sty"
NUMBER = re.compile(r"^[-+\u2212]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?$"
                    r"|^(?:-?inf|nan|NaN|<NA>|None|True|False)$")
ALIGNED = re.compile(r"\S {2,}\S")  # columns: two spaces or more inside a line


def columns(line: str) -> int:
    """The width of a line in monospaced columns (a wide East Asian character takes two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line.expandtabs())


class _HtmlTable(HTMLParser):
    """The cells of the first <table> of pandas' HTML: header rows, body rows, the text after it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.head, self.body, self.after = [], [], []
        self._section = self._row = self._cell = None
        self._depth = 0  # inside <table>
        self._done = self._style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "style":
            self._style = True
        elif tag == "table" and not self._done:
            self._depth += 1
        elif self._depth and tag in ("thead", "tbody"):
            self._section = self.head if tag == "thead" else self.body
        elif self._depth and tag == "tr":
            self._row = []
            (self.body if self._section is None else self._section).append(self._row)
        elif self._depth and tag in ("th", "td") and self._row is not None:
            self._cell = {"th": tag == "th", "text": "", "colspan": int(attrs.get("colspan") or 1),
                          "rowspan": int(attrs.get("rowspan") or 1)}
            self._row.append(self._cell)
        elif tag == "br" and self._cell is not None:
            self._cell["text"] += " "

    def handle_endtag(self, tag):
        if tag == "style":
            self._style = False
        elif tag == "table" and self._depth:
            self._depth -= 1
            self._done = not self._depth
        elif tag in ("th", "td"):
            self._cell = None
        elif tag == "tr":
            self._row = None
        elif tag in ("thead", "tbody"):
            self._section = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        elif self._done and not self._style and data.strip():
            self.after.append(data.strip())


def _grid(rows: list[list[dict]]) -> list[list[dict | None]]:
    """Rows with row spans filled in: a cell covered by a span from above is None (printed empty), and a
    cell covered by a column span from the left is the string "spanned"."""
    grid, pending = [], {}  # column -> rows still covered by a span from above
    for row in rows:
        out, cells = [], list(row)
        while cells or any(col >= len(out) for col in pending):
            col = len(out)
            if pending.get(col):
                pending[col] -= 1
                if not pending[col]:
                    del pending[col]
                out.append(None)
                continue
            if not cells:
                break
            cell = cells.pop(0)
            out.append(cell)
            out.extend(["spanned"] * (cell["colspan"] - 1))
            if cell["rowspan"] > 1:
                for c in range(col, col + cell["colspan"]):
                    pending[c] = cell["rowspan"] - 1
        grid.append(out)
    return grid


def _text(cell) -> str:
    return " ".join(cell["text"].split()) if isinstance(cell, dict) else ""


def _two_lines(text: str) -> tuple[str, str] | None:
    """The text split at the space nearest its middle (None without a space)."""
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    if not spaces:
        return None
    cut = min(spaces, key=lambda i: abs(2 * i - len(text)))
    return text[:cut], text[cut + 1:]


def dataframe_cells(html: str) -> tuple[list, list, list[str]]:
    """pandas' HTML table as header rows and body rows of equal length (cells: dicts, None for a cell
    covered by a row span, "spanned" for one covered by a column span), and the text after the table."""
    parser = _HtmlTable()
    parser.feed(html)
    head, body = _grid(parser.head), _grid(parser.body)
    width = max((len(row) for row in head + body), default=0)
    return ([row + [None] * (width - len(row)) for row in head],
            [row + [None] * (width - len(row)) for row in body], parser.after)


def dataframe_rows(html: str) -> list[list[str]]:
    """The text of each body row of pandas' HTML table (what tests/pdf looks for, one row a line)."""
    return [[_text(cell) for cell in row] for row in dataframe_cells(html)[1]]


def dataframe_latex(html: str) -> str | None:
    """pandas' HTML table as a ``\\dpTable`` call (tools/latex/dpoutputs.sty), or None if it holds no table."""
    head, body, after = dataframe_cells(html)
    if not body:
        return None
    width = len(body[0])
    # pandas puts the index names on a header row of their own; where no column holds text on both
    # rows, the two rows are one
    if len(head) >= 2 and all(not (_text(a) and _text(b)) for a, b in zip(head[-2], head[-1], strict=True)):
        last = head.pop()
        head[-1] = [b if _text(b) else a for a, b in zip(head[-1], last, strict=True)]
    index = 0  # leading <th> columns of the body: the index
    while index < width and all(isinstance(row[index], dict) and row[index]["th"] or row[index] is None
                                for row in body):
        index += 1
    align = ["l" if col < index or not all(NUMBER.match(_text(row[col])) for row in body if _text(row[col]))
             else "r" for col in range(width)]
    longest = [max([len(_text(row[col])) for row in body] + [1]) for col in range(width)]

    def row_tex(row, split):
        out = []
        for col, cell in enumerate(row):
            if cell == "spanned":
                continue
            text = _text(cell)
            tex = escape(text, "xelatex")
            if isinstance(cell, dict) and cell["colspan"] > 1:
                tex = f"\\multicolumn{{{cell['colspan']}}}{{c}}{{{tex}}}"
            elif split and len(text) > longest[col] + 2 and (halves := _two_lines(text)):
                tex = f"\\dpHead{{{align[col]}}}{{{escape(halves[0], 'xelatex')}\\\\{escape(halves[1], 'xelatex')}}}"
            out.append(tex)
        return " & ".join(out) + r" \\"

    def tabular(split):
        lines = [f"\\begin{{tabular}}{{@{{}}{''.join(align)}@{{}}}}", r"\toprule"]
        lines += [row_tex(row, split) for row in head]
        lines += [r"\midrule"] if head else []
        lines += [row_tex(row, False) for row in body]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)

    after = "".join(f"\n\n{{\\small {escape(text, 'xelatex')}}}\\par" for text in after)
    return f"\\dpTable{{%\n{tabular(False)}}}{{%\n{tabular(True)}}}{after}\n"


class DataFrameTables(SphinxPostTransform):
    """LaTeX only: a DataFrame output becomes a table. Runs before MyST-NB picks one output format per
    output (its SelectMimeType, priority 4), while the output's text/html is still in the tree."""

    default_priority = 3
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            html = [raw for part in bundle.children if part.get("mime_type") == "text/html"
                    for raw in part.findall(nodes.raw)]
            text = html[0].astext() if html else ""
            if 'class="dataframe"' not in text:
                continue
            table = dataframe_latex(text)
            if table is not None:
                bundle.replace_self(nodes.raw("", table, format="latex"))


class FitOutputs(SphinxPostTransform):
    """LaTeX only: an output block wider than the line gets a smaller font (tools/latex/dpoutputs.sty)."""

    default_priority = 5  # after MyST-NB's SelectMimeType (4)
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        for output in list(self.document.findall(nodes.container)):
            if output.get("nb_element") != "cell_code_output":
                continue
            for block in list(output.findall(nodes.literal_block)):
                lines = block.astext().splitlines() or [""]
                kind = "t" if any(ALIGNED.search(line.strip()) for line in lines) else "p"
                parent = block.parent
                at = parent.index(block)
                parent.insert(at + 1, nodes.raw("", "\\dpOutputEnd\n", format="latex"))
                parent.insert(at, nodes.raw("", f"\\dpOutputBegin{{{max(map(columns, lines))}}}{{{kind}}}\n",
                                          format="latex"))


def _latex_support(app, config) -> None:
    config.latex_additional_files = [*config.latex_additional_files, str(STY)]


def setup(app):
    app.connect("doctree-resolved", _prune)
    app.connect("config-inited", _latex_support)
    app.add_latex_package(STY.stem)
    app.add_post_transform(DataFrameTables)
    app.add_post_transform(FitOutputs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
