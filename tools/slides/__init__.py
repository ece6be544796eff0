"""Lecture-hall material from the chapters (issue 38): slide-ready figures and reveal.js slide decks, offline.

Usage (from the repository root):

    python -m tools.slides figures chapters/02_laplace.ipynb    # runs the chapter; -> _build/slides/figures/
    python -m tools.slides deck chapters/*.ipynb               # from the committed outputs; -> _build/slides/decks/
    python -m tools.slides deck chapters/02_laplace.ipynb --lecture --out DIR   # lecture-style figures

``figures`` executes each chapter (nbclient, a fresh kernel in ``chapters/``) with the lecture style on
(``DP_BOOK_STYLE=lecture``, see ``dp_lib.plotting.use_style``: twice the resolution, text of at least 15 pt,
thicker lines) and writes every figure as ``<chapter>/<section number>-<section slug>_cell<NNN>.png``, plus an
``index.html`` that shows them at their size with their alt text.

``deck`` turns each chapter's executed notebook into ``<chapter>.html``, a reveal.js deck made by nbconvert's
``SlidesExporter`` (template ``dp_reveal`` beside this file, based on nbconvert's ``reveal`` one):

* the chapter title and every ``##``/``###`` section start a slide; a section longer than one screen goes on
  in sub-slides (down arrow), split between cells or between paragraphs of a long markdown cell;
* the markdown is the student edition's plain Markdown (``tools.make_student_edition``: glued values, numbered
  theorems, citations; solutions removed), so MyST roles and directives do not show as source;
* code inputs are hidden where the book hides them (``hide-input``, ``remove-input``), cells the book removes or
  folds away (``remove-cell``, ``hide-cell``: solutions, "Going deeper" code) are left out, and so are the
  self-checks (``check``), the answer cells (``answer``) and the slider cells (their static figure, the cell
  before, stays);
* it needs no network: reveal.js 4.0.2 (``tools/slides/reveal.js``, the version nbconvert's template is written
  for) and MathJax 3.2.2 (``vendor/mathjax``, the copy the book's site uses) are copied into ``<out>/vendor/``
  and referenced by relative URLs; the figures are embedded in the page. Open ``<out>/index.html``.

With ``--lecture`` the deck shows the lecture-style figures (the chapter is executed first, as for ``figures``);
without it, the committed outputs (no execution). Maintainer and teacher tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
import shutil
import struct
import time
from pathlib import Path

import nbformat

from tools.make_student_edition import PLACEHOLDER, Book, student_notebook

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path(__file__).resolve().parent / "templates"
REVEAL = Path(__file__).with_name("reveal.js")  # not under vendor/: that folder is the site's static path
MATHJAX = ROOT / "vendor" / "mathjax"

SKIP_TAGS = {"remove-cell", "hide-cell", "solution", "check", "answer"}
HIDE_INPUT_TAGS = {"hide-input", "remove-input"}
HIDE_OUTPUT_TAGS = {"remove-output"}
SLIDE_ROWS = 20          # what fits on a 960 x 700 slide (a little more scrolls): rows of about 30 px
MARKDOWN_CHARS = 90      # characters of markdown text in one row
ROW_PX = 30
_HEADING = re.compile(r"^(#{1,3})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_OTHER_CHAPTER = re.compile(r"\]\((\d\d_\w+)\.ipynb(#[^)\s]*)?\)")
GLUE_PREFIX = "application/papermill.record/"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_SLIDER = re.compile(r"\binteract(_figure)?\(")  # as benchmarks/lab_session.SLIDER_CALL


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def slug(text: str) -> str:
    """A file-name part for a heading: lower case ASCII words joined by hyphens (at most 40 characters)."""
    words = re.findall(r"[a-z0-9]+", text.lower().encode("ascii", "ignore").decode())
    return "-".join(words)[:40].strip("-") or "section"


# --- executing a chapter ------------------------------------------------------------------------------------

def execute(path: Path, *, lecture: bool = True, timeout: int = 600) -> nbformat.NotebookNode:
    """Run the notebook ``path`` in a fresh kernel in its own folder and return it (the file is not changed).

    ``lecture``: with ``DP_BOOK_STYLE=lecture`` in the kernel's environment (``dp_lib.plotting``'s
    lecture-hall style); otherwise the kernel inherits this process's setting.
    """
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    env = dict(os.environ)
    if lecture:
        env["DP_BOOK_STYLE"] = "lecture"
    NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(Path(path).resolve().parent)}}).execute(env=env)
    return nb


# --- figures --------------------------------------------------------------------------------------------------

def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels from a PNG's header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("data must be a PNG file")
    return struct.unpack(">II", data[16:24])


def sections(nb) -> list[tuple[int, str]]:
    """For each cell of ``nb``: (section number, section title), counting the ``#``/``##``/``###`` headings."""
    out, number, title, fence = [], 0, "", None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                code = _FENCE.match(line)
                if fence:
                    fence = None if code and line.strip().startswith(fence) else fence
                    continue
                if code:
                    fence = code.group(1)
                    continue
                heading = _HEADING.match(line)
                if heading:
                    number, title = number + 1, heading.group(2)
        out.append((number, title))
    return out


def figures(nb, stem: str) -> list[dict]:
    """The figures of an executed notebook: ``{name, png, alt, section}`` per PNG output, solutions left out."""
    found = []
    for index, (cell, (number, title)) in enumerate(zip(nb.cells, sections(nb))):
        if cell.cell_type != "code" or "solution" in _tags(cell):
            continue
        pngs = [out["data"]["image/png"] for out in cell.get("outputs", []) if "image/png" in out.get("data", {})]
        alt = cell.metadata.get("mystnb", {}).get("image", {}).get("alt", "")
        for k, data in enumerate(pngs):
            suffix = f"-{k + 1}" if len(pngs) > 1 else ""
            found.append({"name": f"{stem}/{number:02d}-{slug(title)}_cell{index:03d}{suffix}.png",
                          "png": base64.b64decode(data), "alt": alt, "section": title})
    return found


def write_figures(paths: list[Path], out: Path, *, lecture: bool = True) -> list[Path]:
    """Execute each chapter (lecture style) and write its figures and an ``index.html`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written, parts = [], []
    for path in paths:
        path = Path(path)
        items = figures(execute(path, lecture=lecture), path.stem)
        parts.append(f"<h2>{html.escape(path.stem)}</h2>")
        for item in items:
            target = out / item["name"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(item["png"])
            written.append(target)
            width, height = png_size(item["png"])
            scale = 2 if lecture else 1  # a lecture figure has twice the pixels of its size on screen
            parts.append(
                f'<figure><img src="{html.escape(item["name"])}" width="{width // scale}" '
                f'height="{height // scale}" alt="{html.escape(item["alt"])}">'
                f"<figcaption>{html.escape(item['section'])}: <code>{html.escape(item['name'])}</code>"
                "</figcaption></figure>")
    (out / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lecture figures</title>"
        "<style>body{font-family:sans-serif;margin:2em}img{max-width:100%;height:auto}"
        "figure{margin:2em 0}</style></head>\n<body><h1>Lecture figures</h1>\n" + "\n".join(parts)
        + "\n</body></html>\n", encoding="utf-8")
    return written


# --- decks ----------------------------------------------------------------------------------------------------

def _blocks(markdown: str) -> list[str]:
    """``markdown`` cut at blank lines into blocks that are safe to put on different slides: never inside a
    code fence, a ``$$`` display or a ``<details>`` element; a heading line is a block of its own."""
    blocks, current, fence, math_open, details = [], [], None, False, 0

    def close():
        if any(x.strip() for x in current):
            blocks.append("\n".join(current).strip("\n"))
        current.clear()

    for line in markdown.split("\n"):
        stripped = line.strip()
        code = _FENCE.match(line)
        if fence:
            fence = None if code and stripped.startswith(fence) and not stripped[len(fence):].strip() else fence
        elif code:
            fence = code.group(1)
        elif stripped.count("$$") % 2 == 1:
            math_open = not math_open
        else:
            details += stripped.count("<details") - stripped.count("</details>")
        free = not (fence or math_open or details)
        if free and _HEADING.match(line):
            close()
            current.append(line)
            close()
            continue
        if free and not stripped:
            close()
            continue
        current.append(line)
    close()
    merged = []  # a display formula stays with the sentence that leads into it and the one that goes on after it
    for block in blocks:
        leads_in = block.lstrip().startswith("$$") and not _HEADING.match(merged[-1]) if merged else False
        goes_on = bool(merged) and merged[-1].rstrip().endswith("$$") and block[:1].islower()
        if leads_in or goes_on:
            merged[-1] += "\n\n" + block
        else:
            merged.append(block)
    return merged


def _rows_markdown(text: str) -> float:
    rows = 0.0
    for line in text.split("\n"):
        if line.strip() in ("$$", ""):
            rows += 0.5
        else:
            rows += math.ceil(len(line) / MARKDOWN_CHARS)
    return rows + 0.5


def _rows_outputs(cell, image_scale: int) -> float:
    rows = 0.0
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if "image/png" in data:
            rows += png_size(base64.b64decode(data["image/png"]))[1] / image_scale / ROW_PX
        elif "text/html" in data:
            rows += 1 + "".join(data["text/html"]).count("<tr")
        elif "text/plain" in data:
            rows += min(15, "".join(data["text/plain"]).count("\n") + 1)
        elif out.get("output_type") == "stream":
            rows += min(15, "".join(out.get("text", "")).count("\n") + 1)
    return rows


def deck_notebook(nb, stem: str, book: Book, *, image_scale: int = 1) -> nbformat.NotebookNode:
    """The notebook the deck of chapter ``stem`` is made of: plain Markdown, the book's visible cells only, and
    ``metadata.slideshow.slide_type`` on every cell. ``nb`` is executed; it is not modified.
    ``image_scale``: pixels per displayed pixel of its figures (2 for the lecture style)."""
    plain = student_notebook(nb, stem, book)  # MyST -> Markdown, solutions out (outputs cleared: put back below)
    original = {cell.get("id"): cell for cell in nb.cells}
    solution_ids = {cell.get("id") for cell in nb.cells if "solution" in _tags(cell)}
    cells = []
    for cell in plain.cells:
        if cell.get("id") == "student-edition-note" or _tags(cell) & SKIP_TAGS:
            continue
        if cell.cell_type == "markdown":
            source = _OTHER_CHAPTER.sub(r"](\1.html\2)", cell.source)  # a link to a chapter: to its deck
            for block in _blocks(source):
                piece = nbformat.v4.new_markdown_cell(block)
                piece.metadata["dp_rows"] = 1.5 if _HEADING.match(block) else _rows_markdown(block)
                piece.metadata["dp_heading"] = bool(_HEADING.match(block) and block.count("\n") == 0)
                cells.append(piece)
            continue
        if cell.cell_type != "code":
            continue
        source = original.get(cell.get("id"))
        if source is None or cell.get("id") in solution_ids or PLACEHOLDER in cell.source:
            continue
        cell.outputs = [out for out in source.get("outputs", [])  # glue(..., display=False): nothing shown
                        if not all(k.startswith(GLUE_PREFIX) for k in out.get("data", {"-": None}))]
        cell.execution_count = source.get("execution_count")
        tags = _tags(cell)
        if _SLIDER.search(cell.source) or any(WIDGET_VIEW in out.get("data", {}) for out in cell.outputs):
            continue  # a slider: nothing to show without a kernel (its static figure is the cell before)
        if tags & HIDE_OUTPUT_TAGS:
            cell.outputs = []
        hidden = bool(tags & HIDE_INPUT_TAGS)
        if hidden:
            cell.metadata["transient"] = {"remove_source": True}
        if hidden and not cell.outputs:
            continue
        for out in cell.outputs:
            data = out.get("data", {})
            if "image/png" in data and image_scale != 1:
                width, _ = png_size(base64.b64decode(data["image/png"]))
                out.setdefault("metadata", {})["image/png"] = {"width": width // image_scale}
        rows = (0 if hidden else cell.source.count("\n") + 1.5) + _rows_outputs(cell, image_scale)
        cell.metadata["dp_rows"] = rows
        cell.metadata["dp_heading"] = False
        cells.append(cell)
    used, lead_in = 0.0, False
    for i, cell in enumerate(cells):
        rows = cell.metadata.pop("dp_rows")
        if cell.metadata.pop("dp_heading") or i == 0:
            kind, used = "slide", 0.0
        elif used > 0 and used + rows > SLIDE_ROWS and not lead_in:
            kind, used = "subslide", 0.0
        else:
            kind = "-"
        used += rows
        cell.metadata["slideshow"] = {"slide_type": kind}
        last = cell.source.rstrip().rsplit("\n", 1)[-1].strip() if cell.cell_type == "markdown" else ""
        lead_in = last.endswith(":") or bool(re.fullmatch(r"\*\*[^*]+\*\*", last))  # stays with what follows
    plain.cells = cells
    return plain


def _exporter():
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(extra_template_basedirs=[str(TEMPLATES)], template_name="dp_reveal")
    exporter.reveal_url_prefix = "vendor/reveal.js"
    exporter.reveal_theme = "white"  # the one theme vendored
    exporter.mathjax_url = "vendor/mathjax/tex-mml-chtml.js"
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    return exporter


def copy_vendor(out: Path) -> None:
    """reveal.js and MathJax from ``vendor/`` into ``out/vendor/`` (what the decks load, relative URLs)."""
    for source in (REVEAL, MATHJAX):
        target = out / "vendor" / source.name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target)


def write_decks(paths: list[Path], out: Path, *, lecture: bool = False) -> list[Path]:
    """Write the deck of each chapter in ``paths`` into ``out`` (plus the vendored scripts and an index)."""
    out.mkdir(parents=True, exist_ok=True)
    copy_vendor(out)
    exporter, books, written, links = _exporter(), {}, [], []
    for path in paths:
        path = Path(path).resolve()
        book = books.setdefault(path.parent, Book(path.parent))
        nb = execute(path, lecture=True) if lecture else nbformat.read(path, as_version=4)
        deck = deck_notebook(nb, path.stem, book, image_scale=2 if lecture else 1)
        body, _ = exporter.from_notebook_node(deck, resources={"metadata": {"name": book.title(path.stem)
                                                                             or path.stem}})
        target = out / f"{path.stem}.html"
        target.write_text(body, encoding="utf-8")
        written.append(target)
        links.append(f'<li><a href="{target.name}">{html.escape(book.title(path.stem) or path.stem)}</a></li>')
    (out / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Slide decks</title></head>\n"
        "<body><h1>Slide decks</h1>\n<ul>\n" + "\n".join(links) + "\n</ul>\n</body></html>\n", encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tools.slides", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fig = commands.add_parser("figures", help="execute chapters in the lecture style and write their figures")
    deck = commands.add_parser("deck", help="reveal.js slide decks from the executed chapters")
    for command, default in ((fig, "_build/slides/figures"), (deck, "_build/slides/decks")):  # _build/: ignored by git
        command.add_argument("chapters", nargs="+", type=Path, help="chapter notebooks (chapters/NN_x.ipynb)")
        command.add_argument("--out", type=Path, default=Path(default), help=f"output folder (default: {default})")
    deck.add_argument("--lecture", action="store_true", help="execute the chapters and show lecture-style figures")
    args = parser.parse_args(argv)
    for path in args.chapters:
        if path.suffix != ".ipynb" or not path.is_file():
            parser.error(f"not a chapter notebook: {path}")
    start = time.perf_counter()
    if args.command == "figures":
        written = write_figures(args.chapters, args.out)
        print(f"{len(written)} figures and index.html in {args.out} ({time.perf_counter() - start:.1f} s)")
    else:
        written = write_decks(args.chapters, args.out, lecture=args.lecture)
        print(f"{len(written)} decks and index.html in {args.out} ({time.perf_counter() - start:.1f} s)")
