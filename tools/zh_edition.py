"""The Chinese edition (中文版): build it, or bring its translation catalogs up to date.

    python -m tools.zh_edition html [jupyter-book options]   # _build/zh/_build/html/
    python -m tools.zh_edition pdf  [jupyter-book options]   # _build/zh/_build/latex/dp-by-experiment-zh.pdf
    python -m tools.zh_edition extract                       # after editing English prose: update the .po files
    python -m tools.zh_edition check [FILE.po ...]           # untranslated, fuzzy or damaged messages

The translation is Sphinx's own (gettext): ``extract`` runs the gettext builder over the book
(MyST-NB hands it the notebooks' markdown; ``tools.i18n`` adds alt texts and slider text) into
``_build/gettext/`` and merges the new templates into ``locales/zh_CN/LC_MESSAGES/**/*.po`` with
sphinx-intl. A changed English paragraph comes back as a *fuzzy* message holding the old
translation, a new one as untranslated; ``tests/test_translation.py`` fails on either until a
translator has dealt with it.

``html`` and ``pdf`` build the book from the same sources with ``language: zh_CN``. The settings
are the English ``_config.yml`` plus the overrides below, written to ``_build/zh/_config.yml`` so
the two editions cannot drift apart; the build directories are separate (``_build/zh/``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = "zh_CN"
LOCALE_DIR = ROOT / "locales"
POT_DIR = ROOT / "_build" / "gettext"
OUT_DIR = ROOT / "_build" / "zh"
PDF_NAME = "dp-by-experiment-zh"

TITLE = "用实验学差分隐私"
AUTHOR = "《用实验学差分隐私》作者团队"

# XeLaTeX with xeCJK (Sphinx loads it for zh) and Debian's Noto CJK fonts (fonts-noto-cjk); the
# Latin, Greek and math fonts stay those of the English PDF.
CJK_FONTS = r"""
\setCJKmainfont{Noto Serif CJK SC}
\setCJKsansfont{Noto Sans CJK SC}
\setCJKmonofont{Noto Sans Mono CJK SC}
\makeatletter
\AtBeginDocument{\renewcommand{\contentsname}{目录}\renewcommand{\bibname}{BIBNAME}%
  \renewcommand{\figurename}{图}\renewcommand{\tablename}{表}\renewcommand{\appendixname}{附录}%
  \renewcommand*{\dpSidewaysNote}[1]{（此表横排于第~\pageref{#1}~页。）}% tools/latex/dpoutputs.sty
  \def\@chapapp{第}\def\@chappos{章}% "第 3 章": Sphinx's running heads use \@chappos (made for Japanese)
  \renewcommand{\DOCH}{\raggedleft\CNV\FmN{\@chapapp}\space\CNoV\thechapter\space\CNV\FmN{\@chappos}%
    \par\nobreak\vskip 40\p@}}% fncychap's Sonny chapter heading, with 章 after the number
\makeatother
"""
# (babel stays English in Sphinx's LaTeX for zh, and sphinx-jupyterbook-latex sets \contentsname to
# "Contents": the names LaTeX prints itself are set after both, at \begin{document}. The bibliography's
# heading is the translated title of the Bibliography page, as the English PDF's is that page's title.)


def zh_config() -> dict:
    """The English configuration with the Chinese edition's overrides."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = TITLE
    config["author"] = AUTHOR
    sphinx = config["sphinx"]
    # jupyter-book resolves local extension paths against the config file's folder: point at the root.
    sphinx["local_extensions"] = {name: str(ROOT) for name in sphinx["local_extensions"]}
    settings = sphinx["config"]
    settings["language"] = LANGUAGE
    # MyST-NB's labels on hidden code cells (it has no Chinese catalog of its own)
    settings["nb_code_prompt_show"] = "显示代码单元格"
    settings["nb_code_prompt_hide"] = "隐藏代码单元格"
    # The catalogs are compiled by compile_catalogs() below, not by Sphinx (see there why).
    settings["gettext_auto_build"] = False
    settings["latex_elements"]["fontpkg"] += CJK_FONTS.replace("BIBNAME", translated("chapters/bibliography",
                                                                                        "Bibliography"))
    config["latex"]["latex_documents"]["targetname"] = f"{PDF_NAME}.tex"
    return config


def translated(page: str, message: str) -> str:
    """One message of one page in the Chinese catalogs (the English if it has no translation)."""
    from babel.messages.pofile import read_po

    with open(LOCALE_DIR / LANGUAGE / "LC_MESSAGES" / f"{page}.po", "rb") as handle:
        found = read_po(handle).get(message)
    return found.string if found is not None and found.string else message


# A glue role and its content: {glue:text}`key`, {glue:text}`key:fmt` or {glue:text}`other.ipynb::key:fmt`.
_GLUE_ROLE = re.compile(r"(?<!`)(\{glue(?::\w+)?\}`)([^`]*)(`)")  # not one shown inside a code span


def _qualified_glue(text: str, notebook: str) -> str:
    """Every glue role of ``text`` that names no document, written with ``notebook`` (``nb.ipynb::key:fmt``).

    MyST-NB splits a role's format at its last colon, so a qualified key gets an explicit format: ``s``,
    the default (the same text)."""
    def qualify(match):
        opening, content, closing = match.groups()
        if "::" in content:
            return match.group(0)
        return f"{opening}{notebook}::{content}{'' if ':' in content else ':s'}{closing}"
    return _GLUE_ROLE.sub(qualify, text)


def compile_catalogs() -> list[Path]:
    """Compile every .po catalog to the .mo file the build reads, as Sphinx would, with one change.

    MyST-NB resolves a glue role that names no document from the notebook being parsed. A translated
    paragraph is parsed on its own, without that notebook, so there the role finds no data. The
    document-qualified form (``{glue:text}`01_why_privacy.ipynb::key```) is resolved after translation,
    from the build environment: in the compiled catalog of a notebook page every glue role of that
    page is written in that form. The .po files, which translators edit, keep the English form.
    """
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    messages_dir = LOCALE_DIR / LANGUAGE / "LC_MESSAGES"
    for po in catalogs():
        with open(po, "rb") as handle:
            catalog = read_po(handle)
        notebook = ROOT / po.relative_to(messages_dir).with_suffix(".ipynb")
        if notebook.is_file():
            for message in catalog:
                if message.id and isinstance(message.string, str):
                    message.string = _qualified_glue(message.string, notebook.name)
        mo = po.with_suffix(".mo")
        with open(mo, "wb") as handle:
            write_mo(handle, catalog)  # fuzzy messages are left out, as Sphinx does
        written.append(mo)
    return written


def build(builder: str, options: list[str]) -> int:
    """Build the Chinese edition with jupyter-book; returns its exit status."""
    compile_catalogs()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    config_path = OUT_DIR / "_config.yml"
    config_path.write_text(yaml.safe_dump(zh_config(), allow_unicode=True, sort_keys=False), encoding="utf-8")
    command = ["jupyter-book", "build", str(ROOT), "--config", str(config_path), "--path-output", str(OUT_DIR),
               "--builder", builder, *options]
    return subprocess.call(command, cwd=ROOT)


def extract() -> int:
    """Re-extract the English messages and merge them into the zh_CN catalogs."""
    from sphinx_intl import basic

    status = subprocess.call(["jupyter-book", "build", str(ROOT), "--builder", "custom", "--custom-builder",
                              "gettext", "--path-output", str(ROOT / "_build" / "gettext-build"), "--all", "-q"],
                             cwd=ROOT)
    if status:
        return status
    built = ROOT / "_build" / "gettext-build" / "_build" / "gettext"
    # One message per line (no wrapping), obsolete messages dropped: small, reviewable diffs.
    basic.update(str(LOCALE_DIR), str(built), (LANGUAGE,), line_width=-1, ignore_obsolete=True, jobs=1)
    return 0


# What a translation must carry over unchanged from the English message (MyST markup).
_MATH = re.compile(r"\$\$.+?\$\$|(?<!\\)\$(?!\s).+?(?<![\s\\])\$", re.S)
_CODE = re.compile(r"``.+?``|`[^`]+`")
_ROLE = re.compile(r"(?<!`)\{([\w:-]+)\}`([^`]*)`")  # not a {role} shown inside a code span
_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ENGLISH_WORD = re.compile(r"\b[a-z]{4,}\b")


def _role_key(role: str, content: str) -> str:
    """A role as it must survive translation: ``{ref}`text <label>``` keeps its label, not its text."""
    target = re.search(r"<([^<>]+)>\s*$", content)
    return f"{{{role}}}" + (target.group(1) if target and role in ("ref", "prf:ref", "doc", "numref") else content)


def markup(text: str) -> dict:
    """The pieces of a message a translation must keep: math, code, roles (with their targets), placeholders."""
    roles = [_role_key(*m) for m in _ROLE.findall(text)]
    rest = _ROLE.sub(" ", text)
    code = _CODE.findall(rest)
    rest = _CODE.sub(" ", rest)
    math = _MATH.findall(rest)
    rest = _MATH.sub(" ", rest)
    return {"roles": sorted(roles), "code": sorted(code), "math": sorted(math),
            "placeholders": sorted(_PLACEHOLDER.findall(rest)), "prose": rest}


def message_problems(msgid: str, msgstr: str, fuzzy: bool) -> list[str]:
    """Why one translated message is not ready (empty list: it is)."""
    if not msgstr:
        return ["untranslated"]
    problems = ["fuzzy"] if fuzzy else []
    source, target = markup(msgid), markup(msgstr)
    for kind in ("roles", "code", "math", "placeholders"):
        if source[kind] != target[kind]:
            missing = [x for x in source[kind] if x not in target[kind]]
            extra = [x for x in target[kind] if x not in source[kind]]
            problems.append(f"{kind} differ: missing {missing}, extra {extra}")
    if _ENGLISH_WORD.search(source["prose"]) and not _CJK.search(msgstr):
        problems.append("no Chinese in the translation")
    return problems


def catalog_problems(po_path: Path) -> list[str]:
    """Every problem of one catalog, as ``file: message: problem`` lines."""
    from babel.messages.pofile import read_po

    with open(po_path, "rb") as handle:
        catalog = read_po(handle)
    lines = []
    for message in catalog:
        if not message.id:
            continue
        for problem in message_problems(message.id, message.string, message.fuzzy):
            lines.append(f"{po_path.name}: {message.id[:70]!r}: {problem}")
    return lines


def catalogs() -> list[Path]:
    """The Chinese edition's translation catalogs."""
    return sorted((LOCALE_DIR / LANGUAGE / "LC_MESSAGES").rglob("*.po"))


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("html", "pdf", "extract", "check"):
        print(__doc__)
        return 2
    if argv[0] == "extract":
        return extract()
    if argv[0] == "check":
        problems = [line for path in (map(Path, argv[1:]) if argv[1:] else catalogs())
                    for line in catalog_problems(path)]
        print("\n".join(problems) or "no problems")
        return 1 if problems else 0
    return build("html" if argv[0] == "html" else "pdflatex", argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
