"""Finding the exercise specifications of a chapter (``exercises/chNN.py``)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"
EXERCISES = ROOT / "exercises"


def chapter_number(chapter: str | Path) -> str:
    """"02" for ``chapters/02_laplace.ipynb``, ``02_laplace``, ``02``, ``2`` or ``ch02``."""
    name = Path(str(chapter)).name
    match = re.match(r"(?:ch)?(\d{1,2})(?:_|\.|$)", name)
    if not match:
        raise ValueError(f"chapter must name a chapter (02, ch02 or chapters/02_x.ipynb), got {chapter!r}")
    return f"{int(match.group(1)):02d}"


def chapter_path(chapter: str | Path) -> Path:
    """The notebook of a chapter."""
    number = chapter_number(chapter)
    found = sorted(CHAPTERS.glob(f"{number}_*.ipynb"))
    if not found:
        raise ValueError(f"chapter {chapter!r}: no chapters/{number}_*.ipynb")
    return found[0]


def has_spec(chapter: str | Path) -> bool:
    return (EXERCISES / f"ch{chapter_number(chapter)}.py").exists()


def spec_chapters() -> list[str]:
    """Chapter numbers with a specification module, sorted."""
    return sorted(p.stem[2:] for p in EXERCISES.glob("ch[0-9][0-9].py"))


def exercises(chapter: str | Path) -> list:
    """The ``EXERCISES`` of a chapter's specification module (an empty list when there is none)."""
    if not has_spec(chapter):
        return []
    module = importlib.import_module(f"exercises.ch{chapter_number(chapter)}")
    return list(module.EXERCISES)


def setup_source(chapter: str | Path) -> str:
    """The spec module's ``SETUP`` (the imports of an assignment's setup cell), or a default."""
    module = importlib.import_module(f"exercises.ch{chapter_number(chapter)}")
    return getattr(module, "SETUP", DEFAULT_SETUP).strip()


def title(chapter: str | Path) -> str:
    """The chapter's title (its first Markdown heading)."""
    import json

    nb = json.loads(chapter_path(chapter).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return re.sub(r"\s*\(.*?\)=\s*$", "", line[2:]).strip()
    return f"Chapter {chapter_number(chapter)}"


DEFAULT_SETUP = """import numpy as np
from dp_lib import *  # noqa: F401,F403
from dp_lib.selfcheck import check"""


class Memo:
    """An exercise whose ``parts``, ``check_doc``, ``solve`` and ``hidden_tests`` are computed once per parameters
    (a specification may simulate to find its right interval; assign and grade ask for it several times)."""

    def __init__(self, exercise):
        self._exercise = exercise
        self._cache: dict = {}

    def __getattr__(self, name):
        return getattr(self._exercise, name)

    def __repr__(self) -> str:
        return f"Memo({self._exercise!r})"

    def _once(self, name: str, p, compute):
        import json

        from dp_lib.selfcheck import to_plain

        key = (name, json.dumps(to_plain(p), sort_keys=True, default=repr))
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def parts(self, p):
        return self._once("parts", p, lambda: self._exercise.parts(p))

    def solve(self, p):
        return self._once("solve", p, lambda: self._exercise.solve(p))

    def hidden_tests(self, p):
        return self._once("hidden_tests", p, lambda: self._exercise.hidden_tests(p))

    def check_doc(self, p):  # the class's check_doc, reading this object's memoized parts
        return self._once("check_doc", p, lambda: type(self._exercise).check_doc(self, p))


def memo(exercises: list) -> list:
    return [e if isinstance(e, Memo) else Memo(e) for e in exercises]
