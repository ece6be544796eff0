"""The chapters' self-check cells, written from the exercise specifications.

For each exercise of ``exercises/chNN.py`` (except ``kind = "open"``: no automatic part) the cell tagged
``check`` after the exercise's answer cell (tagged ``answer``, assigning ``answer_exN``) must be exactly

    check(answer_exN, "<encode(ex.check_doc(ex.default))>")

Documents are compared *decoded*, floats with a relative tolerance of 1e-9, so a last-bit difference of a
transcendental function on another CPU is not a difference (and ``--write`` then keeps the cell as it is).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from dp_lib.selfcheck import decode, encode
from tools.classroom import specs

RTOL = 1e-9


@dataclass
class Finding:
    notebook: Path
    key: str
    message: str


def same_doc(a, b, rtol: float = RTOL) -> bool:
    """Decoded check documents equal, floats within ``rtol`` (relative)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b if isinstance(a, bool) and isinstance(b, bool) else False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=1e-300) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_doc(a[k], b[k], rtol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_doc(x, y, rtol) for x, y in zip(a, b))
    return a == b


def check_source(ex) -> str:
    """The exact source of an exercise's check cell (the book's numbers)."""
    return f'check({ex.name}, "{encode(ex.check_doc(ex.default))}")'


def parse_check(source: str) -> tuple[str, dict] | None:
    """(answer name, decoded document) of a cell ``check(name, "dpx1:...")``, or None for any other cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "check"
            and len(call.args) == 2 and not call.keywords and isinstance(call.args[0], ast.Name)
            and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)):
        return None
    try:
        return call.args[0].id, decode(call.args[1].value)
    except ValueError:
        return None


def _tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _assigns(source: str, name: str) -> bool:
    return re.search(rf"^\s*{re.escape(name)}\s*=", source, flags=re.M) is not None


def find_check_cell(cells: list, name: str) -> tuple[int | None, int | None]:
    """(index of the answer cell assigning ``name``, index of the first ``check`` cell after it)."""
    answer = next((i for i, c in enumerate(cells) if c["cell_type"] == "code" and "answer" in _tags(c)
                   and _assigns(_source(c), name)), None)
    if answer is None:
        return None, None
    check = next((i for i in range(answer + 1, len(cells)) if "check" in _tags(cells[i])), None)
    if check is not None:  # the check must belong to this exercise: no other answer cell in between
        if any("answer" in _tags(cells[i]) for i in range(answer + 1, check)):
            check = None
    return answer, check


def run(notebook: Path, *, write: bool = False) -> list[Finding]:
    """Differences between a chapter's check cells and its specification (fixed in place with ``write``)."""
    notebook = Path(notebook)
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    cells = nb["cells"]
    findings, changed = [], False
    for ex in specs.exercises(notebook):
        if ex.kind == "open":
            continue
        answer, index = find_check_cell(cells, ex.name)
        if answer is None:
            findings.append(Finding(notebook, ex.key, f"no answer cell (tag 'answer') assigning {ex.name}"))
            continue
        if index is None:
            findings.append(Finding(notebook, ex.key, f"no check cell (tag 'check') after {ex.name}'s answer cell"))
            continue
        try:
            expected = ex.check_doc(ex.default)
        except Exception as error:  # noqa: BLE001 - one broken specification is a finding, not a crash
            findings.append(Finding(notebook, ex.key, f"the specification's check_doc(default) raised "
                                                      f"{type(error).__name__}: {error}"))
            continue
        parsed = parse_check(_source(cells[index]))
        if parsed is not None and parsed[0] == ex.name and same_doc(parsed[1], json.loads(json.dumps(expected))):
            continue
        what = ("is not check(name, \"dpx1:...\")" if parsed is None else
                f"checks {parsed[0]} instead of {ex.name}" if parsed[0] != ex.name else
                "encodes another document than the specification's check_doc(default)")
        findings.append(Finding(notebook, ex.key, f"cell {cells[index].get('id', index)} {what}"))
        if write:
            cells[index]["source"] = check_source(ex)
            changed = True
    if write and changed:
        notebook.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return findings


def main(paths: list[str], *, write: bool = False) -> int:
    notebooks = [Path(p) for p in paths] or [specs.chapter_path(n) for n in specs.spec_chapters()]
    bad = 0
    for notebook in notebooks:
        if not specs.has_spec(notebook):
            print(f"{notebook}: no exercises/ch{specs.chapter_number(notebook)}.py, skipped")
            continue
        findings = run(notebook, write=write)
        for f in findings:
            print(f"{f.notebook}: {f.key}: {f.message}" + ("  -> rewritten" if write and "cell" in f.message[:5]
                                                         else ""))
        if write and any(f.message.startswith("cell") for f in findings):
            print(f"{notebook}: now run python tools/refresh_notebooks.py {notebook}")
        unfixable = [f for f in findings if not (write and f.message.startswith("cell"))]
        bad += len(unfixable)
        if not findings:
            print(f"{notebook}: check cells match the specification")
    return 1 if bad else 0
