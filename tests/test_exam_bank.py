"""The exam bank (issue 37): at least 5 questions per chapter with a specification, exported as Moodle XML and
QTI 1.2 (Canvas) and parsed back with the right answers, tolerances, distractors and feedback."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
import zipfile

import pytest

from exercises._core import ExamQuestion
from tools.classroom import exam, specs
from tools.classroom.__main__ import main as cli

CHAPTERS = specs.spec_chapters()


@pytest.fixture(scope="module")
def bank():
    return exam.bank()


@pytest.mark.parametrize("number", CHAPTERS)
def test_at_least_five_questions_per_chapter(bank, number):
    questions = bank[number]
    assert len(questions) >= 5, f"chapter {number} has {len(questions)} exam questions; at least 5 expected"
    for q in questions:
        exam.validate_question(q)
        if q.kind == "choice":
            assert len(q.feedback) == len(q.distractors), f"{q.name}: one feedback (the mistake) per distractor"
            assert all(f.strip() for f in q.feedback), f"{q.name}: every distractor names its mistake"


def test_question_names_are_unique(bank):
    names = [q.name for qs in bank.values() for q in qs]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_moodle_roundtrip(bank):
    data = exam.moodle_xml(bank)
    parsed = exam.parse_moodle(data)
    assert exam.roundtrip_problems(bank, parsed) == []
    categories = [q for q in ET.fromstring(data).findall("question") if q.get("type") == "category"]
    assert len(categories) == len(bank)


def test_qti_roundtrip_and_package(bank, tmp_path):
    data = exam.qti_xml(bank)
    parsed = exam.parse_qti(data)
    assert exam.roundtrip_problems(bank, parsed) == []
    for p, q in zip(parsed, [q for qs in bank.values() for q in qs]):
        if q.kind == "numeric":
            assert p["interval"][0] <= q.answer <= p["interval"][1]
    assert cli(["exam", "--format", "qti", "--out", str(tmp_path / "bank.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "bank.zip") as z:
        assert sorted(z.namelist()) == ["dpx_exam_bank/dpx_exam_bank.xml", "imsmanifest.xml"]
        assert exam.parse_qti(z.read("dpx_exam_bank/dpx_exam_bank.xml")) == parsed
    assert cli(["exam", "--out", str(tmp_path / "bank.xml")]) == 0
    first = (tmp_path / "bank.xml").read_bytes()
    assert cli(["exam", "--out", str(tmp_path / "bank.xml")]) == 0
    assert (tmp_path / "bank.xml").read_bytes() == first  # deterministic


FIXTURE = {"99": [
    ExamQuestion("t-num", "What is $\\sqrt{2}/0.5$? Use `numpy` & <b>two</b> decimals.", "numeric",
                 answer=2.83, tolerance=0.01, points=2),
    ExamQuestion("t-mc", "Which scale gives $\\varepsilon$-DP for $\\Delta = 3$?", "choice", answer="6",
                 distractors=("0.167", "8.49", "1.5 < 2"), feedback=("that is ε/Δ", "that is √2·b", "Δ·ε & more")),
]}


def test_fixture_roundtrip_escaping_math_and_tolerance(monkeypatch):
    monkeypatch.setattr(exam.specs, "title", lambda n: "Test chapter")
    for data, parse in ((exam.moodle_xml(FIXTURE), exam.parse_moodle), (exam.qti_xml(FIXTURE), exam.parse_qti)):
        parsed = parse(data)
        assert exam.roundtrip_problems(FIXTURE, parsed) == []
        num, mc = parsed
        assert num["answer"] == 2.83 and math.isclose(num["tolerance"], 0.01) and num["points"] == 2
        assert "\\(\\sqrt{2}/0.5\\)" in num["text"] and "&lt;b&gt;" in num["text"]  # math delimiters; HTML escaped
        assert mc["answer"] == "6" and mc["distractors"] == ["0.167", "8.49", "1.5 < 2"]
        assert mc["feedback"] == ["that is ε/Δ", "that is √2·b", "Δ·ε & more"]


@pytest.mark.parametrize("bad", [
    ExamQuestion("b1", "x", "numeric", answer=float("nan")),
    ExamQuestion("b2", "x", "choice", answer="1", distractors=()),
    ExamQuestion("b3", "x", "choice", answer="1", distractors=("1", "2")),
    ExamQuestion("b4", "x", "choice", answer="1", distractors=("2",), feedback=("a", "b")),
    ExamQuestion("b5", "x", "essay"),
])
def test_invalid_questions_are_refused(bad):
    with pytest.raises(ValueError, match=bad.name):
        exam.validate_question(bad)
