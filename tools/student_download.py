"""Sphinx extension: the student edition as a download on the site (the preface links it).

At ``builder-inited`` it writes the student edition of every chapter (``tools.make_student_edition``: the
exercises without their solutions, outputs cleared, plain Markdown) into one zip file, ``_build/downloads/`` +
``ZIP_NAME`` under the book's root. The zip holds one folder, ``student_edition/``: unzipped in the root of a clone
of the repository it is the same folder that ``python -m tools.make_student_edition`` writes, and its README and the
preface say ``jupyter lab student_edition/``. The preface links it with MyST's ``{download}`` role, so Sphinx copies it into the site's
``_downloads/`` folder and the link works offline, in both editions. The zip is byte-stable: sorted entries, a
fixed timestamp, written to a temporary file and renamed, so two builds never see half a file.

Maintainer tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

from tools.make_student_edition import write_edition

ZIP_NAME = "dp-by-experiment-student-edition.zip"
FOLDER = "student_edition"   # the one folder inside the zip: unzipped in a clone's root, where the README expects it
FIXED_TIME = (1980, 1, 1, 0, 0, 0)            # zip's earliest date: the same bytes on every build


def write_zip(book_root: Path, target: Path) -> Path:
    """Write the student edition of ``book_root/chapters/*.ipynb`` to the zip file ``target``; return it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / FOLDER
        write_edition(sorted((book_root / "chapters").glob("*.ipynb")), folder)
        partial = target.with_name(f".{target.name}.{os.getpid()}.part")
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.iterdir()):
                info = zipfile.ZipInfo(f"{FOLDER}/{path.name}", date_time=FIXED_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes())
        partial.replace(target)
    return target


def _builder_inited(app) -> None:
    write_zip(Path(app.srcdir), Path(app.srcdir) / "_build" / "downloads" / ZIP_NAME)


def setup(app):
    app.connect("builder-inited", _builder_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
