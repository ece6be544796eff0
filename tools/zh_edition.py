"""The Chinese edition (中文版): build it, or bring its translation catalogs up to date.

    python -m tools.zh_edition html [jupyter-book options]   # _build/zh/_build/html/
    python -m tools.zh_edition pdf  [jupyter-book options]   # _build/zh/_build/latex/dp-by-experiment-zh.pdf
    python -m tools.zh_edition extract                       # after editing English prose: update the .po files
    python -m tools.zh_edition check [FILE.po ...]           # untranslated, fuzzy, damaged or off-glossary messages

The translation is Sphinx's own (gettext): ``extract`` runs the gettext builder over the book
(MyST-NB hands it the notebooks' markdown; ``tools.i18n`` adds alt texts and slider text) into
``_build/gettext/`` and merges the new templates into ``locales/zh_CN/LC_MESSAGES/**/*.po`` with
sphinx-intl. A changed English paragraph comes back as a *fuzzy* message holding the old
translation, a new one as untranslated; ``tests/test_translation.py`` fails on either until a
translator has dealt with it.

``check`` also enforces the glossary (``locales/zh_CN/GLOSSARY.md``, its machine-readable block):
an English term's messages must use its rendering and none of its variants; bare 隐私 + noun (a
calque of "private X") is flagged; a space beside ``**bold**`` inside Chinese text is flagged unless
CommonMark's flanking rule needs it. See ``terminology_problems``.

``html`` and ``pdf`` build the book from the same sources with ``language: zh_CN``. The settings
are the English ``_config.yml`` plus the overrides below, written to ``_build/zh/_config.yml`` so
the two editions cannot drift apart; the build directories are separate (``_build/zh/``).
"""

from __future__ import annotations

import functools
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


# Roles whose text is prose to translate and whose target (``<label>``, ``<path>``) must be kept.
_REF_ROLES = ("ref", "prf:ref", "doc", "numref", "download")


def _role_key(role: str, content: str) -> str:
    """A role as it must survive translation: ``{ref}`text <label>``` keeps its label, not its text
    (likewise ``{download}`text <path>```)."""
    target = re.search(r"<([^<>]+)>\s*$", content)
    return f"{{{role}}}" + (target.group(1) if target and role in _REF_ROLES else content)


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


def message_problems(msgid: str, msgstr: str, fuzzy: bool, page: str | None = None) -> list[str]:
    """Why one translated message is not ready (empty list: it is).

    ``page`` (a catalog's stem, e.g. ``09_local_dp``) selects the glossary rules limited to some pages."""
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
    if not fuzzy:  # a fuzzy message holds an old translation: it is redone anyway
        problems += terminology_problems(msgid, msgstr, page)
    return problems


# ---------------------------------------------------------------------------------------------------
# The terminology check (issue 39). The rules live in GLOSSARY.md, in the fenced YAML block after the
# marker comment, next to the tables a translator reads; this code only applies them.

GLOSSARY = LOCALE_DIR / LANGUAGE / "GLOSSARY.md"
_RULES_BLOCK = re.compile(r"<!-- terminology-check -->\s*```yaml\n(.*?)^```", re.S | re.M)


@functools.lru_cache(maxsize=None)
def terminology(path: Path = GLOSSARY) -> dict:
    """The machine-readable glossary: ``terms``, ``banned``, ``private`` and ``first_use`` rules, compiled."""
    found = _RULES_BLOCK.search(path.read_text(encoding="utf-8"))
    if not found:
        raise ValueError(f"{path}: no terminology-check block")
    rules = yaml.safe_load(found.group(1))
    for term in rules["terms"]:
        term["en_re"] = re.compile(term["en"])
        term["zh_re"] = [re.compile(z) for z in term.get("zh", [])]
        term["variants_re"] = [re.compile(v) for v in term.get("variants", [])]
    for ban in rules["banned"]:
        ban["zh_re"] = re.compile(ban["zh"])
    for first in rules["first_use"]:
        first["en_re"], first["zh_re"] = re.compile(first["en"]), re.compile(first["zh"])
    private = rules["private"]
    private["compounds"] = tuple(private["compounds"])
    private["function_words"] = tuple(private["function_words"])
    private["before_re"] = re.compile("(?:" + "|".join(private["fine_before"]) + ")$")
    return rules


def visible_text(text: str, keep_math: bool = False) -> str:
    """The words of a message a reader sees as prose: code and math blanked, a reference role by its text.

    With ``keep_math`` the math stays as written and a glue role (a number the notebook prints) becomes
    ``#``: the ``banned`` rules see what is next to the prose (``$(\\varepsilon, \\delta)$-DP``, 小
    {glue:text}`k` 倍), which blanking would hide."""
    def role(match):
        name, content = match.groups()
        label = re.match(r"(.*?)\s*<[^<>]+>\s*$", content, re.S)
        if name in _REF_ROLES and label:
            return f" {label.group(1)} "
        return "#" if keep_math and name.startswith("glue") else " "
    text = _ROLE.sub(role, text)
    text = _CODE.sub(" ", text)
    return text if keep_math else _MATH.sub(" ", text)


def english_text(text: str) -> str:
    """The English prose the glossary's ``en`` patterns are matched in: as ``visible_text``, with emphasis
    markers dropped (a *differencing* attack is a differencing attack)."""
    return visible_text(text).replace("*", "")


def _is_cjk(ch: str) -> bool:
    """A Han character, CJK punctuation, a full-width form or a Chinese quotation mark."""
    return bool(ch) and ("\u3400" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"
                         or ch in "“”‘’")


def _masked(text: str) -> str:
    """``text`` with the insides of code spans and math blanked (their delimiters kept), same length:
    an asterisk there is no emphasis, and a delimiter's neighbours keep their character class."""
    def blank(match):
        s = match.group(0)
        edge = 2 if s[:2] in ("``", "$$") else 1
        return s[:edge] + "x" * (len(s) - 2 * edge) + s[-edge:]
    return _MATH.sub(blank, _CODE.sub(blank, text))


def _flanking(last: str, following: str) -> tuple[bool, bool]:
    """CommonMark's (left, right) flanking of a delimiter run between the characters ``last`` and
    ``following`` (a space for the start or end of the text), with markdown-it's character classes,
    the parser MyST uses."""
    from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace

    def punct(ch):
        return isMdAsciiPunct(ord(ch)) or isPunctChar(ch)
    last_ws, next_ws = isWhiteSpace(ord(last)), isWhiteSpace(ord(following))
    left = not (next_ws or (punct(following) and not (last_ws or punct(last))))
    right = not (last_ws or (punct(last) and not (next_ws or punct(following))))
    return left, right


def bold_problems(msgstr: str) -> list[str]:
    """``**`` that cannot open or close (the bold would show as asterisks), and a space between Chinese
    text and a bold span of Chinese text that the flanking rule does not need (创建 **一个** 带种子的)."""
    text = _masked(msgstr)
    runs = [m for m in re.finditer(r"(?<!\\)\*{2,}", text)]
    if len(runs) % 2:
        return ["bold: unpaired **"]
    problems = []
    char = lambda i: text[i] if 0 <= i < len(text) else " "  # noqa: E731 (start and end count as space)
    for opening, closing in zip(runs[::2], runs[1::2]):
        bold = msgstr[opening.end():closing.start()]
        if not _flanking(char(opening.start() - 1), char(opening.end()))[0]:
            problems.append(f"bold: **{bold}** cannot open (CommonMark flanking): add a space before it")
        if not _flanking(char(closing.start() - 1), char(closing.end()))[1]:
            problems.append(f"bold: **{bold}** cannot close (CommonMark flanking): add a space after it")
        before, first = opening.start() - 1, opening.end()
        if (char(before) == " " and _is_cjk(char(before - 1)) and _is_cjk(char(first))
                and _flanking(char(before - 1), char(first))[0]):
            problems.append(f"bold: stray space before **{bold}**")
        after, last = closing.end(), closing.start() - 1
        if (char(after) == " " and _is_cjk(char(after + 1)) and _is_cjk(char(last))
                and _flanking(char(last), char(after + 1))[1]):
            problems.append(f"bold: stray space after **{bold}**")
    return problems


def private_problems(msgstr: str, rules: dict | None = None) -> list[str]:
    """Bare 隐私 used as an adjective, the calque of "private X" (隐私分位数, 隐私地学习, 非隐私模型,
    是隐私的, 隐私性): the rule is 满足差分隐私的X or 差分隐私X. 隐私 as a noun (隐私与准确性) and the
    glossary's compounds (隐私损失, 隐私预算, ...) are fine; see the glossary for the lists."""
    private = (rules or terminology())["private"]
    text = visible_text(msgstr)
    problems = []
    for match in re.finditer("隐私", text):
        before, after = text[:match.start()], text[match.end():]
        if private["before_re"].search(before):
            continue
        shown = text[max(0, match.start() - 4):match.end() + 4]
        if before.endswith("非"):
            problems.append(f"private: 非隐私 in …{shown}… (non-private: 无隐私保护的)")
        elif after.startswith(private["compounds"]):
            continue
        elif after[:1] in ("的", "地", "性"):
            problems.append(f"private: 隐私{after[:1]} in …{shown}… (满足差分隐私的 / 差分隐私X; confidential: 私密)")
        elif _is_cjk(after[:1]) and "\u4e00" <= after[:1] <= "\u9fff" and not after.startswith(private["function_words"]):
            problems.append(f"private: bare 隐私 + noun in …{shown}… (满足差分隐私的X / 差分隐私X)")
    return problems


def terminology_problems(msgid: str, msgstr: str, page: str | None = None, rules: dict | None = None) -> list[str]:
    """How one translation departs from the glossary's machine-readable rules."""
    rules = rules or terminology()
    # emphasis markers dropped on both sides: *局部*敏感度 is 局部敏感度, **noisy** gradient descent a term
    english, chinese = english_text(msgid), visible_text(msgstr).replace("*", "")
    with_math = visible_text(msgstr, keep_math=True).replace("*", "")
    problems = []
    for term in rules["terms"]:
        if term.get("pages") and page not in term["pages"]:
            continue
        if not term["en_re"].search(english):
            continue
        if term["zh_re"] and not any(z.search(chinese) for z in term["zh_re"]):
            problems.append(f"term: {term['en']!r} is rendered {' / '.join(term['zh'])}")
        for variant in term["variants_re"]:
            found = variant.search(chinese)
            if found:
                problems.append(f"term: {found.group(0)!r} for {term['en']!r}: use {' / '.join(term['zh'])}")
    for ban in rules["banned"]:
        found = ban["zh_re"].search(with_math)
        if found:
            problems.append(f"banned: {found.group(0)!r}: {ban['use']}")
    problems += private_problems(msgstr, rules)
    problems += bold_problems(msgstr)
    return problems


def first_use_problems(page: str, messages: list[tuple[str, str]], rules: dict | None = None) -> list[str]:
    """The glossary's notes at a term's first use in a page (in catalog order, which is reading order)."""
    problems = []
    for first in (rules or terminology())["first_use"]:
        if first["pages"] != "all" and page not in first["pages"]:
            continue
        for msgid, msgstr in messages:
            if len(msgid.split()) < first.get("min_words", 0):  # a title: the note goes in the prose
                continue
            if first["en_re"].search(english_text(msgid)):
                if not first["zh_re"].search(msgstr):
                    problems.append(f"first use of {first['en']!r} lacks {first['zh']!r} ({first['why']}): "
                                    f"{msgid[:60]!r}")
                break
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
        for problem in message_problems(message.id, message.string, message.fuzzy, page=po_path.stem):
            lines.append(f"{po_path.name}: {message.id[:70]!r}: {problem}")
    translated = [(m.id, m.string) for m in catalog if m.id and m.string and not m.fuzzy]
    lines += [f"{po_path.name}: {problem}" for problem in first_use_problems(po_path.stem, translated)]
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
