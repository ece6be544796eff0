"""Write the student edition of the chapters: the exercises without their solutions, in plain Markdown.

Usage (from the repository root):

    python -m tools.make_student_edition                       # every chapters/*.ipynb -> student_edition/
    python -m tools.make_student_edition --out handout chapters/02_laplace.ipynb

For each chapter notebook it writes a copy in which

* every code cell tagged ``solution`` is removed. In the chapters the student's cell (tag ``answer``:
  ``answer_xxx = None  # your answer here``, one line per answer name, or the comment
  ``# your answer here``) comes right after the exercise and before its solution, so it stays; a run of
  solution cells without such a cell before it is replaced by one;
* the ``{solution}`` directives (and ``{solution-start}`` ... ``{solution-end}`` blocks) are removed
  from the markdown, and markdown cells tagged ``solution`` are dropped;
* the markdown is turned from MyST into the plain Markdown that JupyterLab renders (``to_plain_markdown``):
  each ``{glue:text}`` role becomes its value, formatted as the book shows it (from the committed outputs of
  the chapter, or of the chapter named by ``other.ipynb::name``; a value that cannot be found is an error,
  ``GlueError``); dropdowns become ``<details>`` blocks; admonitions, ``{prf:...}`` and ``{exercise}``
  directives a bold title line (``**Theorem 5.1 (title).**``, numbered as in the book) and their body;
  ``{doc}`` a link to the chapter's notebook, titled with its first heading; ``{ref}``/``{prf:ref}``/``{numref}``
  their text, the target's heading or its number; ``{cite}`` "(Author Year)" from ``references.bib``;
  ``{bibliography}`` the list of the works the chapter cites; ``(label)=`` targets are dropped. Math stays;
* the self-check cells (tag ``check``) are kept with their source unchanged, and get the tag
  ``raises-exception``: they fail until the answer is right, and JupyterLab's *Run All* does not stop at a
  cell with that tag (it asks the kernel to go on with the queued cells, ``stop_on_error: false``), so the
  cells after an unanswered exercise still run;
* all outputs are cleared, execution counts reset and the saved widget state removed;
* a short note after the title says how to use the edition.

The output folder (``student_edition/`` by default, ignored by git) also gets a README. The
notebooks import ``dp_lib``, so students install what running the chapters needs first
(``pip install -r requirements-student.txt``, which installs ``dp_lib`` too). Running this twice gives identical files.
Maintainer tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import argparse
import ast
import html
import re
import sys
import unicodedata
from ast import literal_eval
from functools import cached_property
from pathlib import Path, PurePosixPath

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "student_edition"
PLACEHOLDER = "# your answer here"
CONTINUE_TAG = "raises-exception"   # JupyterLab's Run All goes on past a failing cell with this tag
DEFAULT_REPOSITORY = "https://github.com/dp-by-experiment/dp-by-experiment"
NOTE = (
    "**Student edition.** The solutions of the exercises are removed. Write your code where a cell says "
    "`# your answer here`; where it says `answer_... = None`, replace `None` by your answer. The cell after "
    "such an answer checks it: it fails with a message until the answer is right, then shows `'Correct!'`. "
    "Run the chapter from the top first (*Run All*), so that the data and the functions it defines exist. "
    "The check cells carry the tag `raises-exception`, so *Run All* does not stop at a check you have not "
    "answered yet: it runs the whole chapter, and each unanswered check shows its error message."
)
README = """# Student edition

The chapters of *Differential Privacy by Experiment* with the solutions of the exercises removed and the
book's markup turned into plain Markdown (the numbers the text quotes, the definitions, theorems and
*Going deeper* blocks all show in JupyterLab). From a terminal:

    git clone {repository}
    cd {name}
    pip install -r requirements-student.txt
    unzip ~/Downloads/dp-by-experiment-student-edition.zip   # where your browser saved it; gives student_edition/
    jupyter lab student_edition/

Instead of downloading it you can write this folder yourself, in the clone's root:
`python -m tools.make_student_edition`. `requirements-student.txt` installs what running the chapters needs,
`dp_lib` among it (every chapter imports it, with its data sets); no book build, browser or test tools.

In each chapter choose *Run All*, then work through the exercises at the end: replace each
`# your answer here` (or `answer_... = None`) with your own code and run the cell and the check after it.
A check shows `'Correct!'` when your answer is right and fails with a hint until then. The check cells
carry the tag `raises-exception`, so *Run All* in JupyterLab runs past a failing check instead of
stopping there, and the cells after it (the next exercise's setup, say) still run.

Colab opens a notebook without `dp_lib`: add and run the first cell that the repository's README gives
in its section *Run the chapters yourself* (it clones the repository and puts it on `sys.path`).
"""

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}|:{3,})\s*\{(?P<name>[A-Za-z0-9_:-]+)\}")
_ANSWER = re.compile(r"^(answer_\w+)\s*(?::[^=\n]*)?=(?!=)", re.M)


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def answer_names(source: str) -> list[str]:
    """Names ``answer_...`` that ``source`` assigns at top level, in order of first assignment."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython syntax (magics): fall back to a line-based search
        return list(dict.fromkeys(_ANSWER.findall(source)))
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name) and leaf.id.startswith("answer_"):
                    names.append(leaf.id)
    return list(dict.fromkeys(names))


def _closing(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _block_end(lines: list[str], start: int, fence: str) -> int:
    """Index of the line that closes the directive opened at ``start`` (or the last line)."""
    for i in range(start + 1, len(lines)):
        if _closing(lines[i], fence):
            return i
    return len(lines) - 1


def strip_solutions(markdown: str) -> str:
    """``markdown`` without its ``{solution}`` directives and ``{solution-start}``/``-end`` blocks."""
    lines = markdown.split("\n")
    keep, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        name = match.group("name") if match else ""
        if name == "solution":
            i = _block_end(lines, i, match.group("fence")) + 1
            continue
        if name == "solution-start":  # everything up to the end of the matching {solution-end}
            j = i + 1
            while j < len(lines):
                end = _FENCE.match(lines[j])
                if end and end.group("name") == "solution-end":
                    j = _block_end(lines, j, end.group("fence"))
                    break
                j += 1
            i = j + 1
            continue
        keep.append(lines[i])
        i += 1
    text = "\n".join(keep)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")




# --- MyST to the Markdown JupyterLab renders --------------------------------------------------------------

class GlueError(LookupError):
    """A ``{glue:text}`` role whose value is not in the committed outputs of the notebook it names."""


_ROLE_OR_CODE = re.compile(r"\{(?P<role>[A-Za-z][\w:.+-]*)\}`(?P<content>[^`]*)`|(?P<code>(?P<ticks>`+)[^`]*?(?P=ticks))")
_LABEL_LINE = re.compile(r"^[ \t]*\(([^()\s]+)\)=[ \t]*$")
_OPTION = re.compile(r"^[ \t]*:([\w-]+):[ \t]*(.*)$")
_CODE_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(?!.*\{)")
_LEFT_OVER = re.compile(r"\{glue|\{prf:|\{doc\}|\{cite|\{[\w:.+-]+\}`|^[ \t]*(?::{3,}|`{3,}|~{3,})[ \t]*\{", re.M)
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
_KINDS = {"prf:" + k: k.capitalize() for k in (
    "theorem", "definition", "lemma", "corollary", "proposition", "algorithm", "conjecture", "axiom",
    "criterion", "example", "property", "observation", "assumption", "notation", "remark")}


def format_plain_text(text: str, fmt_spec: str) -> str:
    """A glued ``text/plain`` value formatted with ``fmt_spec``, as MyST-NB's ``{glue:text}`` role shows it
    (``myst_nb.core.variables.format_plain_text`` in myst-nb 1.4; a test compares the two)."""
    try:
        value = literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if fmt_spec == "":
        return str(value)
    type_char = fmt_spec[-1]
    if type_char == "s":
        value = str(value)
    elif type_char in ("b", "c", "d", "o", "x", "X"):
        value = int(value)
    elif type_char in ("e", "E", "f", "F", "g", "G", "n", "%"):
        value = float(value)
    return format(value, fmt_spec)


def _glue_data(nb) -> dict[str, str]:
    """``name -> text/plain`` of every value that ``nb``'s committed outputs glue: outputs whose
    ``metadata.scrapbook`` names them, read as ``myst_nb.ext.glue.extract_glue_data_cell`` does."""
    data = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            scrapbook = output.get("metadata", {}).get("scrapbook")
            if not scrapbook:
                continue
            prefix = scrapbook.get("mime_prefix", "")  # glue(..., display=False) stores prefixed mime types
            mimes = {k[len(prefix):]: v for k, v in output.get("data", {}).items()}
            if "text/plain" in mimes:
                data[scrapbook["name"]] = mimes["text/plain"]
    return data


def _latex_to_text(text: str) -> str:
    """The few LaTeX constructs of a BibTeX field as plain text: accents, ``\\&``, ``\\url{}``, braces."""
    accents = {"'": "\u0301", '"': "\u0308", "`": "\u0300", "~": "\u0303", "^": "\u0302", "c": "\u0327"}
    text = re.sub(r"\{?\\(['\"`~^c])\s*\{?([A-Za-z])\}?\}?", lambda m: m.group(2) + accents[m.group(1)], text)
    text = re.sub(r"\\(?:url|emph|textit|textbf)\{([^{}]*)\}", r"\1", text)
    text = text.replace("\\&", "&").replace("--", "–").replace("{", "").replace("}", "")
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", text)).strip()


def parse_bibtex(text: str) -> dict[str, dict[str, str]]:
    """``key -> {field: value}`` of a BibTeX file (the simple subset references.bib uses)."""
    entries = {}
    for match in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        fields, i = {"ENTRYTYPE": match.group(1).lower()}, match.end()
        while True:
            field = re.compile(r"\s*(\w+)\s*=\s*").match(text, i)
            if not field:
                break
            i = field.end()
            if text[i] == "{":
                depth, j = 0, i
                while True:
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    if depth == 0:
                        break
                    j += 1
                value, i = text[i + 1:j], j + 1
            elif text[i] == '"':
                j = text.index('"', i + 1)
                value, i = text[i + 1:j], j + 1
            else:
                value_match = re.compile(r"[^,}\s]+").match(text, i)
                value, i = value_match.group(0), value_match.end()
            fields[field.group(1).lower()] = value
            comma = re.compile(r"\s*,").match(text, i)
            if not comma:
                break
            i = comma.end()
        entries[match.group(2)] = fields
    return entries


def _authors(field: str) -> list[tuple[str, str]]:
    """``(last, full)`` for each author of a BibTeX ``author`` field."""
    names = []
    for name in re.split(r"\s+and\s+", field.strip()):
        if name.startswith("{") and name.endswith("}"):         # {Organisation}: one unit
            plain = _latex_to_text(name)
            names.append((plain, plain))
        elif "," in name:
            last, first = (_latex_to_text(part) for part in name.split(",", 1))
            names.append((last, f"{first} {last}".strip()))
        else:
            plain = _latex_to_text(name)
            names.append((plain.split()[-1] if plain else plain, plain))
    return names


class Book:
    """What converting one chapter needs to know about the book: the other chapters' titles, labels, glued
    values and numbers (``_toc.yml``), and the bibliography. ``folder`` holds the chapters."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.root = self.folder.parent

    @cached_property
    def _config(self) -> dict:
        path = self.root / "_config.yml"
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {} if path.is_file() else {}

    @cached_property
    def numbers(self) -> dict[str, int]:
        """Chapter number of each numbered chapter (by file stem), in the order of ``_toc.yml``."""
        path, numbers = self.root / "_toc.yml", {}
        if path.is_file():
            toc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for part in toc.get("parts", []):
                if part.get("numbered"):
                    for entry in part.get("chapters", []):
                        numbers[PurePosixPath(entry["file"]).stem] = len(numbers) + 1
        return numbers

    @cached_property
    def bibliography(self) -> dict[str, dict[str, str]]:
        files = self._config.get("bibtex_bibfiles") or ["references.bib"]
        entries = {}
        for name in files:
            if (self.root / name).is_file():
                entries.update(parse_bibtex((self.root / name).read_text(encoding="utf-8")))
        return entries

    @cached_property
    def repository(self) -> str:
        return (self._config.get("repository") or {}).get("url") or DEFAULT_REPOSITORY

    def _markdown(self, stem: str) -> list[str] | None:
        """The markdown sources of chapter ``stem`` (a notebook, or a MyST ``.md`` page), or None."""
        return self._sources.get(stem)

    @cached_property
    def _notebooks(self) -> dict[str, nbformat.NotebookNode]:
        return {p.stem: nbformat.read(p, as_version=4) for p in sorted(self.folder.glob("*.ipynb"))}

    @cached_property
    def _sources(self) -> dict[str, list[str]]:
        sources = {stem: [c.source for c in nb.cells if c.cell_type == "markdown"]
                   for stem, nb in self._notebooks.items()}
        for page in sorted(self.folder.glob("*.md")):
            sources.setdefault(page.stem, [page.read_text(encoding="utf-8")])
        return sources

    def notebook(self, stem: str) -> nbformat.NotebookNode | None:
        return self._notebooks.get(stem)

    def title(self, stem: str) -> str | None:
        for source in self._markdown(stem) or []:
            heading = re.search(r"^#[ \t]+(.+?)[ \t]*$", source, re.M)
            if heading:
                return heading.group(1)
        return None

    @cached_property
    def labels(self) -> dict[str, tuple[str, str]]:
        """``label -> (chapter stem, text)``: the heading after a ``(label)=`` target, or the number of a
        numbered directive ("Theorem 5.1", "Exercise 5.1") as the book shows it in a reference."""
        labels = {}
        for stem, sources in self._sources.items():
            number, counts = self.numbers.get(stem), {}
            for source in sources:
                lines = source.split("\n")
                for i, line in enumerate(lines):
                    target = _LABEL_LINE.match(line)
                    if target:
                        after = next((x for x in lines[i + 1:] if x.strip()), "")
                        heading = re.match(r"^#+[ \t]+(.+?)[ \t]*$", after)
                        labels[target.group(1)] = (stem, heading.group(1) if heading else target.group(1))
                        continue
                    opener = _FENCE.match(line)
                    if not opener:
                        continue
                    kind = _kind(opener.group("name"))
                    options = _options(lines[i + 1:])[0]
                    if kind:
                        counts[kind] = counts.get(kind, 0) + 1
                        text = f"{kind} {number}.{counts[kind]}" if number else kind
                        if "label" in options:
                            labels[options["label"]] = (stem, text)
                    elif "label" in options and opener.group("name") not in ("solution",):
                        labels[options["label"]] = (stem, _first_words(line))
        return labels

    def glue(self, stem: str, name: str) -> str:
        nb = self.notebook(stem)
        data = _glue_data(nb) if nb is not None else {}
        if name not in data:
            where = f"{stem}.ipynb" if nb is not None else f"{stem}.ipynb (no such notebook in {self.folder})"
            raise GlueError(f"{{glue:text}} value {name!r}: not glued in the committed outputs of {where}; "
                            "re-run that notebook (tools/refresh_notebooks.py) or fix the name")
        return data[name]

    def cite(self, keys: list[str], textual: bool) -> str:
        parts = []
        for key in keys:
            entry = self.bibliography.get(key)
            authors = _authors(entry["author"]) if entry and entry.get("author") else []
            year = entry.get("year") if entry else None
            if not (authors and year):
                parts.append(f"[{key}]")
                continue
            lasts = [last for last, _ in authors if last.lower() != "others"]
            if len(lasts) == len(authors) <= 2:
                who = " and ".join(lasts)
            else:                                    # three or more, or "and others"
                who = f"{lasts[0]} et al."
            parts.append(f"{who} ({year})" if textual else f"{who} {year}")
        return "; ".join(parts) if textual else f"({'; '.join(parts)})"

    def reference(self, key: str) -> str:
        entry = self.bibliography.get(key)
        if not entry:
            return f"[{key}]"
        names = [full for _, full in _authors(entry.get("author", ""))]
        if names and names[-1].lower() == "others":
            names[-1:] = ["et al."] if len(names) > 1 else []
        authors = ", ".join(names).replace(", et al.", " et al.") or _latex_to_text(
            entry.get("organization", entry.get("publisher", "")))
        venue = next((entry[f] for f in ("journal", "booktitle", "publisher", "institution", "howpublished")
                      if f in entry), "")
        text = f"{authors} ({entry.get('year', 'n.d.')}). *{_latex_to_text(entry.get('title', key))}*."
        if venue:
            text += f" {_latex_to_text(venue)}."
        if "doi" in entry:
            text += f" https://doi.org/{entry['doi']}"
        elif "url" in entry and entry["url"] not in venue:
            text += f" {entry['url']}"
        return text


def _kind(name: str) -> str | None:
    """The caption of a numbered directive (``Theorem``, ``Exercise``), None for the others."""
    return "Exercise" if name == "exercise" else _KINDS.get(name)


def _first_words(opener: str) -> str:
    return _FENCE.sub("", opener).strip()


def _options(body: list[str]) -> tuple[dict[str, str], list[str]]:
    """The ``:key: value`` lines (or ``---`` YAML block) that open a directive's body, and the rest."""
    options, i = {}, 0
    if body and body[0].strip() == "---":
        end = next((j for j in range(1, len(body)) if body[j].strip() == "---"), None)
        if end is not None:
            options = {str(k): str(v) for k, v in (yaml.safe_load("\n".join(body[1:end])) or {}).items()}
            i = end + 1
    while i < len(body) and _OPTION.match(body[i]):
        key, value = _OPTION.match(body[i]).groups()
        options[key] = value.strip()
        i += 1
    return options, body[i:]


class _Converter:
    """Converts the markdown cells of one chapter (``stem``) of ``book``; numbers its directives in order."""

    def __init__(self, book: Book, stem: str):
        self.book, self.stem = book, stem
        self.counts: dict[str, int] = {}
        nb = book.notebook(stem)
        sources = [c.source for c in nb.cells if c.cell_type == "markdown"] if nb is not None else []
        self.cited = list(dict.fromkeys(
            key.strip() for source in sources for role in _ROLE_OR_CODE.finditer(source)
            if (role.group("role") or "").startswith("cite") for key in role.group("content").split(",")))

    # inline ---------------------------------------------------------------------------------------------
    def inline(self, text: str) -> str:
        return _ROLE_OR_CODE.sub(lambda m: m.group(0) if m.group("code") else self.role(m.group("role"),
                                                                                        m.group("content")), text)

    def role(self, name: str, content: str) -> str:
        explicit = _EXPLICIT.match(content)
        text, target = (explicit.group("text"), explicit.group("target")) if explicit else (None, content)
        if name.startswith("glue"):
            doc, _, key = content.rpartition("::")
            key, fmt = (key.split(":", 1) + [""])[:2] if name == "glue:text" else (key, "")
            stem = PurePosixPath(doc).stem if doc else self.stem
            return format_plain_text(self.book.glue(stem, key), fmt)
        if name == "doc":
            stem = PurePosixPath(target).stem
            title = text or self.book.title(stem) or stem
            if (self.book.folder / f"{stem}.ipynb").is_file() and stem != self.stem:
                return f"[{title}]({stem}.ipynb)"
            return f"*{title}*" if not text else title
        if name in ("ref", "prf:ref", "numref", "eq", "term", "any", "std:ref"):
            found = self.book.labels.get(target)
            label = text or (found[1] if found else target)
            if found and found[0] != self.stem and (self.book.folder / f"{found[0]}.ipynb").is_file():
                return f"[{label}]({found[0]}.ipynb)"      # in another chapter: a link to its notebook
            return label
        if name.startswith("cite"):
            keys = [k.strip() for k in content.split(",") if k.strip()]
            return self.book.cite(keys, textual="t" in name.split(":", 1)[-1] if ":" in name else False)
        if name == "math":
            return f"${content}$"
        if name == "download":
            return text or PurePosixPath(target).name
        return text or target            # any other role: its text

    # blocks ---------------------------------------------------------------------------------------------
    def convert(self, source: str) -> str:
        lines = self.blocks(source.split("\n"))
        text = "\n".join(lines).strip("\n")
        left = _LEFT_OVER.search(_strip_code(text))
        if left:
            raise ValueError(f"{self.stem}: MyST markup left after the conversion: {text[left.start():][:80]!r}")
        return text

    def blocks(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        chunk: list[str] = []

        def flush():
            if chunk:
                out.extend(self.inline("\n".join(chunk)).split("\n"))
                chunk.clear()

        i = 0
        while i < len(lines):
            line = lines[i]
            code = _CODE_FENCE.match(line)
            opener = _FENCE.match(line)
            if code and not opener:                      # a plain code block: verbatim
                flush()
                end = _block_end(lines, i, code.group(1))
                out.extend(lines[i:end + 1])
                i = end + 1
            elif opener:
                flush()
                end = _block_end(lines, i, opener.group("fence"))
                options, body = _options(lines[i + 1:end])
                block = self.directive(opener.group("name"), line[opener.end():].strip(), options, body)
                indent = opener.group("indent")
                _separate(out)
                out.extend(indent + x if x else x for x in block)
                out.append("")
                i = end + 1
            elif _LABEL_LINE.match(line):
                i += 1
            else:
                chunk.append(line)
                i += 1
        flush()
        return _squeeze(out)

    def body(self, body: list[str]) -> list[str]:
        converted = self.blocks(body)
        while converted and not converted[0].strip():
            converted.pop(0)
        while converted and not converted[-1].strip():
            converted.pop()
        return converted

    def directive(self, name: str, argument: str, options: dict[str, str], body: list[str]) -> list[str]:
        title = self.inline(argument)
        if name == "dropdown" or (name == "admonition" and "dropdown" in options.get("class", "").split()):
            summary = _summary_html(title or "Details")
            return ["<details>", f"<summary>{summary}</summary>", "", *self.body(body), "", "</details>"]
        if name == "bibliography":
            keys = sorted(self.cited, key=lambda k: self.book.cite([k], textual=True).lower())
            return [f"- {self.book.reference(k)}" for k in keys]
        if name in ("code-block", "code", "sourcecode", "code-cell"):
            return [f"```{argument.split()[0] if argument else ''}", *body, "```"]
        if name == "math":
            return ["$$", *body, "$$"]
        kind = _kind(name)
        if kind:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            found = self.book.labels.get(options.get("label", ""))
            number = self.book.numbers.get(self.stem)
            caption = found[1] if found else (f"{kind} {number}.{self.counts[kind]}" if number else kind)
            heading = f"**{caption} ({title}).**" if title else f"**{caption}.**"
            return [heading, "", *self.body(body)]
        if name == "prf:proof":
            return ["*Proof.*" + (f" ({title})" if title else ""), "", *self.body(body), "", "∎"]
        if name in ("admonition", "note", "tip", "warning", "important", "caution", "attention", "danger",
                    "error", "hint", "seealso"):
            caption = title or name.capitalize()
            return [f"**{caption}**", "", *self.body(body)]
        caption = " ".join(x for x in (name.split(":")[-1].replace("-", " ").capitalize(), title) if x)
        return [f"**{caption}**", "", *self.body(body)]


def _strip_code(text: str) -> str:
    """``text`` without its code blocks and code spans (where MyST syntax may be quoted on purpose)."""
    lines, keep, fence = text.split("\n"), [], None
    for line in lines:
        code = _CODE_FENCE.match(line)
        if fence:
            if _closing(line, fence):
                fence = None
            continue
        if code and not _FENCE.match(line):
            fence = code.group(1)
            continue
        keep.append(line)
    return re.sub(r"(`+)[^`]*?\1", "", "\n".join(keep))


def _separate(out: list[str]) -> None:
    if out and out[-1].strip():
        out.append("")


def _squeeze(lines: list[str]) -> list[str]:
    """``lines`` with runs of blank lines outside code blocks cut to one."""
    out, fence = [], None
    for line in lines:
        code = _CODE_FENCE.match(line)
        if fence:
            fence = None if _closing(line, fence) else fence
        elif code:
            fence = code.group(1)
        elif not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return out


def _summary_html(title: str) -> str:
    """A dropdown's title for ``<summary>``: inline Markdown (code, bold, italics) as HTML; math stays."""
    parts = re.split(r"(`[^`]*`|\$[^$]*\$)", title)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        elif part.startswith("$") and part.endswith("$") and len(part) > 1:
            out.append(part)
        else:
            part = html.escape(part, quote=False)
            part = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", part)
            out.append(re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", part))
    return "".join(out)


def to_plain_markdown(source: str, stem: str, book: Book) -> str:
    """The MyST markdown ``source`` of chapter ``stem`` as plain Markdown for JupyterLab (see the module's
    docstring). Raises ``GlueError`` for a glued value that cannot be found."""
    return _Converter(book, stem).convert(source)


def _placeholder(solutions) -> nbformat.NotebookNode:
    names = [n for cell in solutions for n in answer_names(cell.source)]
    source = "\n".join(f"{n} = None  {PLACEHOLDER}" for n in dict.fromkeys(names)) or PLACEHOLDER
    cell = nbformat.v4.new_code_cell(source)
    if solutions[0].get("id"):
        cell["id"] = solutions[0]["id"]  # deterministic ids: re-running gives identical files
    return cell


def _flush(cells: list, solutions: list) -> None:
    """After a run of solution cells: nothing if the student's ``answer`` cell precedes them (the
    chapters' layout), otherwise a placeholder cell in their place."""
    if not (cells and "answer" in _tags(cells[-1])):
        cells.append(_placeholder(solutions))


def _clean(cell) -> nbformat.NotebookNode:
    cell.metadata.pop("execution", None)
    if cell.cell_type == "code":
        cell.outputs = []
        cell.execution_count = None
        if "check" in _tags(cell) and CONTINUE_TAG not in _tags(cell):
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), CONTINUE_TAG]
    return cell


def student_notebook(nb: nbformat.NotebookNode, stem: str, book: Book) -> nbformat.NotebookNode:
    """A student copy of ``nb``, chapter ``stem`` of ``book`` (the argument is not modified)."""
    out = nbformat.from_dict(nb)
    converter = _Converter(book, stem)
    cells, pending = [], []
    for cell in out.cells:
        if "solution" in _tags(cell) and cell.cell_type == "code":
            pending.append(cell)
            continue
        if pending:
            _flush(cells, pending)
            pending = []
        if cell.cell_type == "markdown":
            if "solution" in _tags(cell):
                continue
            cell.source = converter.convert(strip_solutions(cell.source))
            if not cell.source.strip():
                continue
        cells.append(_clean(cell))
    if pending:
        _flush(cells, pending)
    note = nbformat.v4.new_markdown_cell(NOTE)
    note["id"] = "student-edition-note"
    out.cells = cells[:1] + [note] + cells[1:]
    out.metadata.pop("widgets", None)
    return out


def write_edition(paths: list[Path], out_dir: Path) -> list[Path]:
    """Write the student copy of each notebook in ``paths`` into ``out_dir``; return the new paths. Raises
    ``GlueError`` (before writing anything) when a glued value a chapter shows cannot be found."""
    books: dict[Path, Book] = {}
    editions = []
    for path in paths:
        book = books.setdefault(path.parent.resolve(), Book(path.parent.resolve()))
        nb = book.notebook(path.stem) if path.parent.resolve() == book.folder else None
        editions.append((path, student_notebook(nb if nb is not None else nbformat.read(path, as_version=4),
                                                path.stem, book)))
    repository = next(iter(books.values())).repository if books else DEFAULT_REPOSITORY
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "README.md").write_text(
        README.format(repository=repository, name=repository.rstrip("/").rsplit("/", 1)[-1]), encoding="utf-8")
    written = []
    for path, edition in editions:
        target = out_dir / path.name
        nbformat.write(edition, target)
        written.append(target)
    return written


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapters/*.ipynb")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: student_edition/)")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted((ROOT / "chapters").glob("*.ipynb"))
    try:
        written = write_edition(paths, args.out.resolve())
    except (GlueError, ValueError) as exc:
        sys.exit(f"make_student_edition: {exc}")
    for target in written:
        print(target)


if __name__ == "__main__":
    main(sys.argv[1:])
