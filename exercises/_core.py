"""The specification of one exercise: its parameters, statement, reference answer, checks, grading and exam.

Each chapter's exercises live in ``exercises/chNN.py`` as a list ``EXERCISES`` of subclasses' instances of
:class:`Exercise`. From one specification the repository derives

* the chapter's self-check cell (``check(answer_ex2, "dpx1:...")``, the encoded :meth:`Exercise.check_doc` for
  the book's numbers, :attr:`Exercise.default`), written by ``python -m tools.classroom checks --write``;
* a graded assignment per student (``python -m tools.classroom assign``): the statement with that student's
  numbers (:meth:`Exercise.params`), an encoded self-check for those numbers, and, kept by the teacher, the
  hidden tests (:meth:`Exercise.hidden_tests`) and the points;
* the rubric of the open parts (:attr:`Exercise.rubric`), graded by hand;
* exam questions (:meth:`Exercise.exam`): numeric with a tolerance, multiple choice whose distractors are the
  typical mistakes the check names.

This package is teacher material: the notebooks of the book never import it (they call
``dp_lib.selfcheck.check`` with the encoded document), and a submission being graded cannot read it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, ClassVar

import numpy as np


@dataclasses.dataclass(frozen=True)
class Mistake:
    """A typical wrong value of one part and the hint that names it (an interval [lo, hi], or an exact value)."""

    hint: str
    lo: float | None = None
    hi: float | None = None
    value: Any = None

    @classmethod
    def near(cls, value: float, hint: str, *, rtol: float = 0.01, atol: float = 0.0) -> "Mistake":
        lo, hi = _interval(value, rtol, atol)
        return cls(hint, lo, hi)

    def doc(self) -> dict:
        if self.lo is not None:
            return {"lo": _round(self.lo), "hi": _round(self.hi), "hint": self.hint}
        return {"value": self.value, "hint": self.hint}


@dataclasses.dataclass(frozen=True)
class Part:
    """One value of an answer: where it is (``path``), what is right and the typical mistakes.

    kind ``number``: right values are the closed interval [lo, hi]; ``exact``/``bool``/``set``: ``value``.
    """

    label: str
    hint: str
    kind: str = "number"
    lo: float | None = None
    hi: float | None = None
    value: Any = None
    path: str = ""
    mistakes: tuple[Mistake, ...] = ()

    @classmethod
    def near(cls, label: str, value: float, hint: str, *, rtol: float = 0.01, atol: float = 0.0,
             mistakes=(), path: str = "") -> "Part":
        """A number right within ``rtol``/``atol`` of ``value`` (honest rounding)."""
        lo, hi = _interval(value, rtol, atol)
        return cls(label, hint, "number", lo, hi, path=path, mistakes=tuple(mistakes))

    @classmethod
    def between(cls, label: str, lo: float, hi: float, hint: str, *, mistakes=(), path: str = "") -> "Part":
        return cls(label, hint, "number", float(lo), float(hi), path=path, mistakes=tuple(mistakes))

    @classmethod
    def equal(cls, label: str, value: Any, hint: str, *, kind: str = "exact", mistakes=(), path: str = "") -> "Part":
        return cls(label, hint, kind, value=value, path=path, mistakes=tuple(mistakes))

    def doc(self) -> dict:
        out = {"label": self.label, "path": self.path, "kind": self.kind, "hint": self.hint,
               "mistakes": [m.doc() for m in self.mistakes]}
        if self.kind == "number":
            out.update(lo=_round(self.lo), hi=_round(self.hi))
        else:
            out["value"] = self.value
        return out


@dataclasses.dataclass(frozen=True)
class Condition:
    """An extra condition on part ``part`` (for example an attribute of a result object), tested first."""

    part: int
    path: str
    hint: str
    kind: str = "number"
    lo: float | None = None
    hi: float | None = None
    value: Any = None

    def doc(self) -> dict:
        out = {"part": self.part, "path": self.path, "kind": self.kind, "hint": self.hint}
        if self.kind == "number":
            out.update(lo=_round(self.lo), hi=_round(self.hi))
        else:
            out["value"] = self.value
        return out


@dataclasses.dataclass(frozen=True)
class Probe:
    """A hidden test that needs the student's code: call ``function`` with ``args`` (plain data) in the student's
    process; ``expect(result_plain, params)`` returns ``None`` or a hint (never the expected value).

    ``function`` is a name the student defines, or a dotted path from one (``answer_ex1.event``: the event
    inside the student's AuditResult); with ``arrays`` every list argument arrives as a float numpy array."""

    name: str
    function: str
    args: tuple
    expect: Callable[[Any, dict], str | None]
    points: float = 1.0
    arrays: bool = False


@dataclasses.dataclass(frozen=True)
class RubricItem:
    """One criterion of an open part, graded by hand."""

    criterion: str
    points: float
    full: str
    partial: str
    none: str


@dataclasses.dataclass(frozen=True)
class ExamQuestion:
    """A question for the exam bank: ``numeric`` (answer ± tolerance) or ``choice`` (one right option)."""

    name: str
    text: str  # Markdown with $...$ math
    kind: str  # "numeric" | "choice"
    answer: Any = None  # numeric: the value; choice: the right option's text
    tolerance: float = 0.0  # numeric: absolute tolerance
    distractors: tuple[str, ...] = ()  # choice: wrong options, each from a named typical mistake
    feedback: tuple[str, ...] = ()  # choice: one per distractor, the mistake it stands for
    points: float = 1.0


class Exercise:
    """One exercise of a chapter. Subclass it and set the class attributes; override the methods.

    Attributes
    ----------
    chapter : "02"; key : "ex2" (the answer variable is ``answer_ex2`` unless ``answer`` says otherwise);
    label : the book's label (``ch02-ex2``); title : a few words; points : total points of the automatic
    part; kind : "auto" (all checked by the grader), "mixed" (checked parts and an open part) or "open"
    (rubric only); default : the book's parameters; rubric : criteria of the open part; prompt : the open
    question, as shown in the assignment (answered in a Markdown cell).

    randomness : how the answer may depend on the setup cell's ``rng`` (the grader runs every submission a second
    time with a hidden seed in the setup cell, see ``tools/classroom/grade.py``):

    * ``"none"`` — the answer must not depend on the seed: both runs give the same value of every part (to 1e-9);
    * ``"fixed-seed"`` — the exercise fixes its own seed (``make_rng(2024)``): like ``"none"``;
    * ``"draws"`` — a Monte Carlo answer from ``rng``: the second run must pass the same parts too, and the answer
      must change with the seed (a number typed in from a classmate or the book does not);
    * ``"either"`` — the statement allows an exact value or an estimate from ``rng`` (or a choice that honest
      seeds may change): the second run must pass the same parts, nothing more.
    """

    chapter: ClassVar[str]
    key: ClassVar[str]
    answer: ClassVar[str] = ""
    label: ClassVar[str] = ""
    title: ClassVar[str] = ""
    points: ClassVar[float] = 2.0
    kind: ClassVar[str] = "auto"
    default: ClassVar[dict] = {}
    rubric: ClassVar[tuple[RubricItem, ...]] = ()
    prompt: ClassVar[str] = ""
    exercise_type: ClassVar[str] = "computation"  # computation | derivation | design | find-the-bug
    randomness: ClassVar[str] = ""  # none | draws | fixed-seed | either (every specification sets it)

    @property
    def name(self) -> str:
        return self.answer or f"answer_{self.key}"

    def params(self, rng: np.random.Generator) -> dict:
        """One student's parameters, drawn with ``rng``. Default: the book's (no variation)."""
        return dict(self.default)

    def statement(self, p: dict) -> str:
        """The exercise's text (Markdown) for parameters ``p``, as the assignment shows it."""
        raise NotImplementedError

    def setup_code(self, p: dict) -> str:
        """Code the assignment puts before the answer cell (given functions, data); may be empty."""
        return ""

    def solve(self, p: dict) -> Any:
        """The reference answer for ``p`` (the answer object the chapter's solution computes)."""
        raise NotImplementedError

    def parts(self, p: dict) -> list[Part]:
        """The parts of the answer and what is right for ``p``."""
        raise NotImplementedError

    def conditions(self, p: dict) -> list[Condition]:
        return []

    shape: ClassVar[int | None] = None  # None: one value; n: a sequence of n parts
    shape_hint: ClassVar[str] = ""
    missing: ClassVar[str] = ""

    def check_doc(self, p: dict) -> dict:
        """The self-check document for ``p`` (see ``dp_lib.selfcheck``)."""
        return {"name": self.name, "missing": self.missing or f"set {self.name}",
                "shape": self.shape, "shape_hint": self.shape_hint or f"{self.name} has {self.shape} parts",
                "parts": [part.doc() for part in self.parts(p)],
                "checks": [c.doc() for c in self.conditions(p)]}

    def hidden_tests(self, p: dict) -> list[Probe]:
        """Graded tests beyond the parts (the student's function on other inputs, edge cases)."""
        return []

    def exam(self) -> list[ExamQuestion]:
        """Exam questions drawn from this exercise (numbers of the book, or others)."""
        return []


RANDOMNESS = ("none", "draws", "fixed-seed", "either")


def _interval(value: float, rtol: float, atol: float) -> tuple[float, float]:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("value must be finite")
    width = max(abs(value) * rtol, atol)
    return value - width, value + width


def _round(x: float | None) -> float | None:
    """12 significant digits: an encoded check does not depend on the last bit of the machine that wrote it."""
    return None if x is None else float(f"{float(x):.12g}")
