"""A generated block inside a hand-written file: the text between two marker comments (the preface's dependency map,
the README's reading-time table). One place for reading and rewriting it. Maintainer tooling, not part of dp_lib."""

from __future__ import annotations

import re
from pathlib import Path


def _pattern(begin: str, end: str) -> str:
    return re.escape(begin) + r"\n(.*?)\n" + re.escape(end)


def between(text: str, begin: str, end: str) -> str | None:
    """The text between the markers (each on its own line), or None when they are missing."""
    match = re.search(_pattern(begin, end), text, re.S)
    return match.group(1) if match else None


def write_between(path: Path, begin: str, end: str, content: str) -> bool:
    """Replace what stands between the markers in ``path`` by ``content``; True if the file changed."""
    text = path.read_text(encoding="utf-8")
    if between(text, begin, end) is None:
        raise SystemExit(f"{path}: the marker comments {begin!r} ... {end!r} are missing")
    new = re.sub(_pattern(begin, end), lambda _: f"{begin}\n{content}\n{end}", text, flags=re.S)
    path.write_text(new, encoding="utf-8")
    return new != text
