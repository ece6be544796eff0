"""The text is held to the code's standard: a number the notebook computes is glued into the prose, never retyped.

For every chapter notebook, a number in a markdown cell that a code output of the same notebook also shows
(exactly, or rounded to the decimals the text uses) must come from the computation through MyST-NB's
``{glue:text}`` role. Numbers that are inputs, not results, are exempt:

* a number that appears in the source of a code cell of the notebook (a parameter the text names: ε = 0.5,
  n = 20,000, a seed);
* years (four digits from 1950 to 2039, no thousands separator): citations and deployments;
* integers below 10 and numbers with one significant digit ("0.9", "200"): too coarse to be a retyped result,
  and mostly parameters, counts of things or chapter numbers;
* section, theorem, table and chapter numbers ("Theorem 3.16", "§3.5");
* numbers inside math that is an exponent or index (``2^{52}``), inside roles (``{ref}``, ``{cite}``), labels,
  code spans, links and directive options;
* the entries of ``ALLOWED`` below, each with its reason (literature constants and derived constants that
  the text computes by hand next to its formula).

Glued values are rounded to a stable precision before they are glued (nbval compares the glue records), and
formatted in the role: ``glue("ch09_share", round(share, 4), display=False)`` and
``{glue:text}`ch09_share:.2f` ``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))

# (notebook stem, number as written) -> why it stays typed. Keep this list short and reasoned.
ALLOWED: dict[tuple[str, str], str] = {
    ("01_why_privacy", "19"): "part of a name, 'COVID-19' (the Google data sets in the deployed-ε table), not a number",
    ("11_private_learning", "16"): "the Adult codebook's public bounds (education levels 1 to 16; the extract keeps people "
                                   "older than 16), not computed; it matches a noise-multiplier ratio (16.07) by chance",
    ("07_local_sensitivity", "19"): "k = n − 1 = 19 for the exercise's n = 20, derived in the sentence itself",
    ("09_local_dp", "1.10"): "ln 3 ≈ 1.10, a constant typed beside its formula in the exercise's solution",
    ("11_private_learning", "41"): "derived in the sentence itself (one count + 40 steps); the solution cell prints "
                                   "the accountant's count right below it",
    ("15_user_level", "22"): "a benchmark result quoted from benchmarks/results/spark_scaling.json (21.6 CPU s for 10^6 "
                             "visits: about 22 µs a visit), not computed by the notebook; it matches an RMS error by chance",
}

_NUMBER = re.compile(r"(?<![\w.^_\\])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(\s?%)?(?![\w^])")
_STRIP = [
    re.compile(r"^\s*(`{3,}|:{3,}).*$", re.M),          # fence lines of directives (their content is prose)
    re.compile(r"\{glue(?::\w+)?\}`[^`]*`"),           # glued values: the point
    re.compile(r"\{[\w:-]+\}`[^`]*`"),                  # other roles: {ref}, {cite}, {eq}
    re.compile(r"``[^`\n]+?``|`[^`\n]+`"),              # code spans (on one line)
    re.compile(r"^\(.*\)=\s*$", re.M),                   # labels
    re.compile(r"^\s*:[\w-]+:.*$", re.M),                # directive options (:label:, :class:)
    re.compile(r"\]\([^)]*\)"),                          # link targets
    re.compile(r"https?://\S+"),
    re.compile(r"[\^_]\{[^{}]*\}|[\^_]-?\d+"),           # exponents and indices in math
    re.compile(r"\\(?:frac|tfrac|dfrac)\{\d+\}\{\d+\}"),  # typed fractions such as \tfrac12
    re.compile(r"(?:§|\b(?:Theorem|Thm|Corollary|Cor|Lemma|Proposition|Prop|Definition|Def|Section|Sec|Algorithm|Alg"
               r"|Table|Figure|Fig|Chapter|Eq|Example|Exercise)\.?)\s*\d+(?:\.\d+)*"),  # references into a text
]
_TAG = re.compile(r"<[^>]+>")


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _outputs_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(_text(out.get("text", "")))
        data = out.get("data", {})
        if "scrapbook" in out.get("metadata", {}):
            continue  # a glue record is the glued value itself
        for mime in ("text/plain", "text/html", "text/markdown", "text/latex"):
            if mime in data:
                parts.append(_TAG.sub(" ", _text(data[mime])))
    return "\n".join(parts)


def _numbers(text: str):
    """(as written, value, decimals, is_percent) for each number in ``text``."""
    for m in _NUMBER.finditer(text):
        whole, frac, pct = m.group(1), m.group(2), m.group(3)
        value = float(whole.replace(",", "") + ("." + frac if frac else ""))
        yield m.group(0).strip(), value, len(frac or ""), bool(pct)


def _significant_digits(written: str) -> int:
    digits = re.sub(r"[^\d]", "", written.split("%")[0]).lstrip("0")
    return len(digits.rstrip("0")) if "." not in written else len(digits)


def _matches(value: float, decimals: int, outputs: list[float]) -> bool:
    tol = 0.5 * 10.0**-decimals + 1e-12
    return any(abs(o - value) < tol and round(o, decimals) == round(value, decimals) for o in outputs)


def unglued_numbers(path: Path) -> list[str]:
    """Numbers typed in the markdown of ``path`` that its code outputs also show."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = "\n".join(_text(c["source"]) for c in cells if c["cell_type"] == "code")
    code_numbers = {v for _, v, _, _ in _numbers(code)}
    outputs = [v for c in cells if c["cell_type"] == "code" for _, v, _, _ in _numbers(_outputs_text(c))]
    found = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        text = _text(cell["source"])
        for pattern in _STRIP:
            text = pattern.sub(" ", text)
        for written, value, decimals, pct in _numbers(text):
            if (path.stem, written) in ALLOWED or value in code_numbers or (pct and value / 100 in code_numbers):
                continue
            if decimals == 0 and not pct and re.fullmatch(r"(19[5-9]|20[0-3])\d", written):
                continue  # a year
            if (value < 10 and decimals == 0) or _significant_digits(written) < 2:
                continue
            candidates = [(value, decimals)] + ([(value / 100, decimals + 2)] if pct else [])
            if any(_matches(v, d, outputs) for v, d in candidates):
                found.append(f"{path.name} markdown cell {i}: {written}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_computed_numbers_in_the_prose_are_glued(path):
    found = unglued_numbers(path)
    assert not found, ("numbers typed in the prose that a cell computes; glue them ({glue:text}) or, for a "
                       "literature constant, add them to ALLOWED with the reason:\n" + "\n".join(found))


def test_allow_list_entries_are_still_needed():
    stems = {p.stem for p in NOTEBOOKS}
    for (stem, written), reason in ALLOWED.items():
        assert stem in stems and reason.strip(), (stem, written)
        cells = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
        prose = "\n".join(_text(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert written in prose, f"{stem}: {written!r} is no longer in the text; remove it from ALLOWED"


@pytest.mark.parametrize("markdown, output, flagged", [
    ("about 0.90 of releases", "0.8986", True),           # rounded retype of an output
    ("a share of 89.9 %", "0.8986", True),                 # the same, as a percentage
    ("a share of {glue:text}`share:.2f`", "0.8986", False),  # glued
    ("32,166 rows", "32166", True),                        # a count
    ("at ε = 0.5", "0.5", False),                           # one significant digit: a parameter
    ("Chapter 3 of 10", "3 10", False),
    ("Dwork and Roth, Theorem 3.20 and §3.5", "3.20 3.5", False),  # references into a book
    ("Dwork (2014) and 2014 rows", "2014", False),         # a year
    ("2,014 rows", "2014", True),
    ("$2^{52}$ uniforms", "52", False),                     # an exponent
    ("ε′ ≈ 578", "577.83", True),
    ("ε′ ≈ 578", "612.1", False),
    ("````{exercise}\n:label: x\n\nAbout 0.8986 of them.\n````", "0.8986", True),  # inside a directive
])
def test_the_detector(tmp_path, markdown, output, flagged):
    nb = {"cells": [{"cell_type": "markdown", "source": markdown, "metadata": {}},
                    {"cell_type": "code", "source": "f()", "metadata": {}, "execution_count": 1,
                     "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                  "data": {"text/plain": output}}]}]}
    path = tmp_path / "toy.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert bool(unglued_numbers(path)) is flagged
    assert not math.isnan(len(markdown))
