"""Self-checks for the exercises: compare an answer with an encoded expectation, name the typical mistake.

A check cell of a chapter (or of a graded assignment) reads

    check(answer_ex2, "dpx1:eJy...")

The second argument is an *encoded check*: a small JSON document (what the answer should look like, the
interval of right values for each part, and the typical mistakes with their hints), compressed and base64
encoded, so that the expected value is not readable at a glance in the student edition. It is written by the
exercise specifications of the repository (``exercises/``, ``python -m tools.classroom checks``), not by hand.

``check`` raises ``AssertionError`` with a hint when the answer is missing, has the wrong shape, matches a
typical mistake or is out of range, and returns ``"Correct!"`` otherwise. It teaches, it does not grade: the
graded tests of an assignment run in the grader's own process (``tools/classroom.py``).

``to_plain`` turns an answer into plain data (numbers, strings, lists, dicts), the only form in which an answer
leaves a student's process in grading; ``check`` compares that plain form.

The encoded document (version 1)::

    {"name": "answer_ex2",                # the variable, for the messages
     "missing": "set answer_ex2 to ...",  # the message when the answer is None
     "shape": 2,                          # null: one value; n: a sequence of n parts
     "shape_hint": "answer_ex2 must be a pair (scale, std)",
     "parts": [                           # one per value (null shape: parts of the one value, by path)
        {"path": "",                      # where the value is: "" the part itself, ".epsilon_lb" an attribute/key
         "kind": "number",                # number | exact | set | bool
         "lo": 3.996, "hi": 4.004,        # number: the closed interval of right values
         "value": ...,                    # exact/set/bool: the right value
         "hint": "the scale is sensitivity / epsilon",
         "mistakes": [{"lo": .., "hi": .., "value": .., "hint": "..."}]}],
     "checks": [{"part": 0, "path": ".claimed_epsilon", "kind": "number", "lo": 1, "hi": 1, "hint": "..."}]}

Mistakes are tested before the right interval, in order, so a hint can name a mistake that lies near the
right value. ``checks`` are extra conditions on parts (for example an attribute of a result object), tested
first.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import numbers
import re
import zlib
from typing import Any

__all__ = ["check", "decode", "encode", "to_plain", "evaluate", "CheckResult"]

PREFIX = "dpx1:"
_MAX_ITEMS = 100_000  # a longer array is summarised, never sent whole


def encode(doc: dict) -> str:
    """The encoded form of a check document (see the module docstring)."""
    if not isinstance(doc, dict):
        raise TypeError("doc must be a dict")
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return PREFIX + base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def decode(code: str) -> dict:
    """The check document of an encoded check."""
    if not isinstance(code, str):
        raise TypeError("code must be a str (the encoded check)")
    if not code.startswith(PREFIX):
        raise ValueError(f"code must start with {PREFIX!r}")
    try:
        doc = json.loads(zlib.decompress(base64.b64decode(code[len(PREFIX):], validate=True)))
    except (ValueError, zlib.error) as error:
        raise ValueError(f"code is not a valid encoded check: {error}") from None
    if not isinstance(doc, dict) or "parts" not in doc:
        raise ValueError("code is not a valid encoded check: no parts")
    return doc


def to_plain(value: Any, _depth: int = 0) -> Any:
    """Plain data (None, bool, int, float, str, list, dict with str keys) for an answer.

    numpy scalars and arrays, tuples, pandas objects, dataclasses and objects with public attributes are
    converted; anything else becomes its ``repr`` (a string), so the result is always JSON-serialisable
    (non-finite floats are kept as floats: the caller encodes them).
    """
    if _depth > 8:
        return repr(value)[:200]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    try:  # numpy and pandas without importing them here
        import numpy as np

        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.ndarray):
            if value.size > _MAX_ITEMS:
                return {"__array__": "too large", "shape": list(value.shape)}
            return [to_plain(v, _depth + 1) for v in value.tolist()] if value.ndim else to_plain(value.item())
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    if hasattr(value, "to_dict") and hasattr(value, "index"):  # pandas Series / DataFrame
        try:
            return to_plain(value.to_dict(), _depth + 1)
        except Exception:  # noqa: BLE001 - a student's object: never fail here
            return repr(value)[:200]
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_plain(v, _depth + 1) for v in list(items)[:_MAX_ITEMS]]
    if isinstance(value, dict):
        return {str(k): to_plain(v, _depth + 1) for k, v in list(value.items())[:_MAX_ITEMS]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value)}
    if hasattr(value, "_asdict"):  # namedtuple
        return to_plain(dict(value._asdict()), _depth + 1)
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {k: to_plain(v, _depth + 1) for k, v in attrs.items() if not k.startswith("_")}
    return repr(value)[:200]


def _at(value: Any, path: str) -> Any:
    """The value at ``path`` (".name" or "[i]" steps) in plain data; KeyError when it is not there.

    A "[key]" step on a dict reads the key ``key``, or the key with the same number ("[0.25]" finds the key "0.25"
    and "[1.0]" the key "1", as the float and int keys of a student's dict or Series become strings)."""
    for bracket, name in re.findall(r"\[([^\]]*)\]|([^.\[\]]+)", path):
        if bracket and isinstance(value, dict):
            value = value[bracket] if bracket in value else value[_numeric_key(value, bracket)]
        elif bracket:
            value = value[int(bracket)]
        elif isinstance(value, dict):
            value = value[name]
        else:
            raise KeyError(name)
    return value


def _numeric_key(mapping: dict, key: str) -> str:
    """The key of ``mapping`` whose number equals the number ``key``; KeyError when there is none."""
    try:
        return next(k for k in mapping if float(k) == float(key))
    except (ValueError, StopIteration):
        raise KeyError(key) from None


def _matches(value: Any, rule: dict) -> bool:
    kind = rule.get("kind", "number")
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -math.inf < value < math.inf:
            return False  # no NaN or inf (compared, not converted: an int beyond float range does not overflow)
        if rule.get("lo") is None:  # a mistake given as one exact value
            return value == rule.get("value")
        return rule["lo"] <= value <= rule["hi"]
    if kind == "bool":
        return isinstance(value, bool) and value == rule["value"]
    if kind == "set":
        return isinstance(value, list) and sorted(map(repr, value)) == sorted(map(repr, rule["value"]))
    if kind == "exact":
        return value == rule["value"]
    raise ValueError(f"unknown kind {kind!r}")


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """The outcome for one part of an answer: ``ok``, and the hint when not."""

    part: int
    ok: bool
    hint: str = ""


def evaluate(plain: Any, doc: dict) -> list[CheckResult]:
    """Each part of the plain answer ``plain`` against the check document ``doc``; never raises on the answer."""
    if plain is None:
        return [CheckResult(i, False, doc.get("missing", "set the answer")) for i in range(len(doc["parts"]))]
    shape = doc.get("shape")
    if shape is not None:
        if not isinstance(plain, list) or len(plain) != shape:
            hint = doc.get("shape_hint", f"{doc.get('name', 'the answer')} must have {shape} parts")
            return [CheckResult(i, False, hint) for i in range(len(doc["parts"]))]
        values = plain
    else:
        values = [plain]
    failed: dict[int, str] = {}
    for extra in doc.get("checks", []):
        i = extra.get("part", 0)
        if i in failed:
            continue
        try:
            ok = _matches(_at(values[i if shape is not None else 0], extra.get("path", "")), extra)
        except (KeyError, IndexError, TypeError, ValueError):
            ok = False
        if not ok:
            failed[i] = extra["hint"]
    results = []
    for i, part in enumerate(doc["parts"]):
        if i in failed:
            results.append(CheckResult(i, False, failed[i]))
            continue
        try:
            value = _at(values[i if shape is not None else 0], part.get("path", ""))  # null shape: one value
        except (KeyError, IndexError, TypeError, ValueError):
            results.append(CheckResult(i, False, part["hint"]))
            continue
        hint = next((m["hint"] for m in part.get("mistakes", [])
                     if _matches(value, {"kind": part.get("kind", "number"), **m})), None)
        if hint is None and not _matches(value, part):
            hint = part["hint"]
        results.append(CheckResult(i, hint is None, hint or ""))
    return results


def check(answer: Any, code: str) -> str:
    """Check ``answer`` against the encoded check ``code``: ``"Correct!"``, or ``AssertionError`` with a hint.

    Examples
    --------
    >>> code = encode({"name": "x", "missing": "set x", "shape": None,
    ...                "parts": [{"kind": "number", "lo": 3.99, "hi": 4.01, "hint": "Δ/ε",
    ...                           "mistakes": [{"lo": 0.24, "hi": 0.26, "hint": "that is ε/Δ"}]}]})
    >>> check(4.0, code)
    'Correct!'
    >>> check(0.25, code)
    Traceback (most recent call last):
    ...
    AssertionError: that is ε/Δ
    """
    doc = decode(code)
    for result in evaluate(to_plain(answer), doc):
        if not result.ok:
            raise AssertionError(result.hint)
    return "Correct!"
