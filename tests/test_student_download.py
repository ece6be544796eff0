"""The student edition as a download (tools/student_download.py, linked from the preface).

The zip holds exactly the student edition that tools/make_student_edition.py writes (one notebook per chapter and
its README, in one folder, no solution cell), is byte-stable from build to build, and the preface links the file
that the book build writes. That the link resolves in the built site is checked by tests/browser (every link of
every page, non-HTML ones by a request).
"""

import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from tools import make_student_edition as student
from tools import student_download as download

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p.name for p in (ROOT / "chapters").glob("*.ipynb"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    first = download.write_zip(ROOT, tmp_path_factory.mktemp("a") / download.ZIP_NAME)
    second = download.write_zip(ROOT, tmp_path_factory.mktemp("b") / download.ZIP_NAME)
    return first, second


def test_the_zip_is_byte_stable(built):
    first, second = built
    assert first.read_bytes() == second.read_bytes()


def test_the_zip_holds_the_student_edition_of_every_chapter(built, tmp_path):
    with zipfile.ZipFile(built[0]) as archive:
        names = archive.namelist()
        assert names == sorted(names)
        assert {n.split("/", 1)[0] for n in names} == {download.FOLDER} == {"student_edition"}
        files = [n.split("/", 1)[1] for n in names]
        assert sorted(f for f in files if f.endswith(".ipynb")) == CHAPTERS
        assert "README.md" in files
        student.write_edition([ROOT / "chapters" / CHAPTERS[0]], tmp_path)
        assert archive.read(f"{download.FOLDER}/{CHAPTERS[0]}") == (tmp_path / CHAPTERS[0]).read_bytes()
        for name in CHAPTERS:
            nb = nbformat.reads(archive.read(f"{download.FOLDER}/{name}").decode("utf-8"), as_version=4)
            tags = [set(c.get("metadata", {}).get("tags", [])) for c in nb.cells]
            assert not any("solution" in t for t in tags), name
            assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), name


def test_the_readme_and_the_preface_give_the_same_steps(built):
    """Unzipped in the clone's root the download is ``student_edition/``, the folder both texts open."""
    with zipfile.ZipFile(built[0]) as archive:
        readme = archive.read(f"{download.FOLDER}/README.md").decode("utf-8")
    preface = (ROOT / "chapters" / "00_preface.md").read_text(encoding="utf-8")
    bullet = preface[preface.index("**As a student, doing the exercises**"):]
    bullet = bullet[:bullet.index("\n\n#")]
    for text in (readme, bullet):
        position = 0
        for step in ("git clone", "pip install -r requirements-student.txt", f"unzip ~/Downloads/{download.ZIP_NAME}",
                     "jupyter lab student_edition/"):
            position = text.find(step, position)
            assert position != -1, f"{step!r} missing, or out of order"
        assert "python -m tools.make_student_edition" in text
    assert "Colab" in bullet and "raises-exception" in readme


def test_the_preface_links_the_file_the_build_writes():
    preface = (ROOT / "chapters" / "00_preface.md").read_text(encoding="utf-8")
    links = re.findall(r"\{download\}`[^`<]*<([^>]+)>`", preface)
    assert links, "the preface lost its {download} link to the student edition"
    target = (ROOT / "chapters" / links[0]).resolve()
    assert target == (ROOT / "_build" / "downloads" / download.ZIP_NAME).resolve()
