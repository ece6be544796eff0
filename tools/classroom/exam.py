"""``exam``: the exam bank — every ``exam()`` question of every specification, as Moodle XML or QTI 1.2 (Canvas).

Numeric questions keep their tolerance (Moodle ``numerical`` with ``<tolerance>``; Canvas ``numerical_question``
with the interval [answer - tolerance, answer + tolerance]); multiple-choice questions keep their distractors,
each with the feedback that names the typical mistake it stands for. Questions are grouped by chapter (a Moodle
category; a QTI section). Math ``$...$`` becomes ``\\(...\\)``, which both Moodle's and Canvas's MathJax render.
Every export is parsed back (:func:`parse_moodle`, :func:`parse_qti`) and compared with the specifications
before the command reports success.
"""

from __future__ import annotations

import html
import math
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from tools.classroom import specs

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"


def bank(chapters: list[str] | None = None) -> dict[str, list]:
    """{chapter number: [ExamQuestion]} for the chapters with a specification."""
    numbers = [specs.chapter_number(c) for c in chapters] if chapters else specs.spec_chapters()
    out = {}
    for number in numbers:
        questions = []
        for ex in specs.exercises(number):
            questions.extend(ex.exam())
        out[number] = questions
    return out


def validate_question(q) -> None:
    """ValueError when a question cannot be exported faithfully."""
    if q.kind == "numeric":
        if not isinstance(q.answer, (int, float)) or isinstance(q.answer, bool) or not math.isfinite(q.answer):
            raise ValueError(f"exam question {q.name}: a numeric answer must be a finite number, got {q.answer!r}")
        if not q.tolerance >= 0:
            raise ValueError(f"exam question {q.name}: tolerance must be >= 0")
    elif q.kind == "choice":
        if not q.distractors:
            raise ValueError(f"exam question {q.name}: a choice question needs distractors")
        if str(q.answer) in map(str, q.distractors) or len(set(map(str, q.distractors))) != len(q.distractors):
            raise ValueError(f"exam question {q.name}: the options must differ from each other and the answer")
        if q.feedback and len(q.feedback) != len(q.distractors):
            raise ValueError(f"exam question {q.name}: one feedback per distractor")
    else:
        raise ValueError(f"exam question {q.name}: kind must be 'numeric' or 'choice', got {q.kind!r}")


def math_text(text: str) -> str:
    """``$x$`` -> ``\\(x\\)``, ``$$x$$`` -> ``\\[x\\]`` (MathJax delimiters of Moodle and Canvas)."""
    text = re.sub(r"\$\$(.+?)\$\$", r"\\[\1\\]", text, flags=re.S)
    return re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", r"\\(\1\\)", text)


def to_html(text: str) -> str:
    """Markdown of a question (paragraphs, `code`, **bold**, *italic*, math) as simple HTML."""
    out = []
    for para in re.split(r"\n\s*\n", math_text(text).strip()):
        h = html.escape(para.strip(), quote=False)
        h = re.sub(r"`([^`]+)`", r"<code>\1</code>", h)
        h = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", h)
        h = re.sub(r"(?<![*\w])\*([^*\s][^*]*)\*", r"<em>\1</em>", h)
        out.append(f"<p>{h}</p>")
    return "".join(out)


def _num(x: float) -> str:
    return repr(float(x))


def _sub(parent, tag, text=None, **attrs):
    el = ET.SubElement(parent, tag, {k.rstrip("_"): str(v) for k, v in attrs.items()})
    if text is not None:
        el.text = str(text)
    return el


def _text(parent, tag, text, **attrs):
    el = _sub(parent, tag, **attrs)
    _sub(el, "text", text)
    return el


# -- Moodle XML ------------------------------------------------------------------------------------------------

def moodle_xml(questions_by_chapter: dict[str, list]) -> bytes:
    quiz = ET.Element("quiz")
    for number, questions in questions_by_chapter.items():
        cat = _sub(quiz, "question", type="category")
        _text(cat, "category", f"$course$/Differential Privacy by Experiment/Chapter {int(number)}: "
                               f"{specs.title(number)}")
        for q in questions:
            validate_question(q)
            el = _sub(quiz, "question", type="numerical" if q.kind == "numeric" else "multichoice")
            _text(el, "name", q.name)
            _text(el, "questiontext", to_html(q.text), format="html")
            _text(el, "generalfeedback", "", format="html")
            _sub(el, "defaultgrade", f"{q.points:g}")
            _sub(el, "penalty", "0")
            _sub(el, "hidden", "0")
            if q.kind == "numeric":
                ans = _sub(el, "answer", fraction="100", format="moodle_auto_format")
                _sub(ans, "text", _num(q.answer))
                _sub(ans, "tolerance", _num(q.tolerance))
                _text(ans, "feedback", "Correct.", format="html")
            else:
                _sub(el, "single", "true")
                _sub(el, "shuffleanswers", "true")
                _sub(el, "answernumbering", "abc")
                right = _sub(el, "answer", fraction="100", format="html")
                _sub(right, "text", to_html(str(q.answer)))
                _text(right, "feedback", "Correct.", format="html")
                for i, wrong in enumerate(q.distractors):
                    ans = _sub(el, "answer", fraction="0", format="html")
                    _sub(ans, "text", to_html(str(wrong)))
                    _text(ans, "feedback", to_html(q.feedback[i]) if q.feedback else "", format="html")
    ET.indent(quiz)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(quiz, encoding="utf-8") + b"\n"


def _strip_html(text: str) -> str:
    text = re.sub(r"<[^>]+>", "", text or "")
    return html.unescape(text)


def parse_moodle(data: bytes) -> list[dict]:
    """The questions of a Moodle XML export: name, kind, answer, tolerance, distractors, feedback, points."""
    out = []
    for el in ET.fromstring(data).findall("question"):
        kind = el.get("type")
        if kind == "category":
            continue
        q = {"name": el.findtext("name/text"), "text": el.findtext("questiontext/text"),
             "points": float(el.findtext("defaultgrade"))}
        answers = el.findall("answer")
        if kind == "numerical":
            (ans,) = answers
            q.update(kind="numeric", answer=float(ans.findtext("text")), tolerance=float(ans.findtext("tolerance")))
        elif kind == "multichoice":
            right = [a for a in answers if float(a.get("fraction")) == 100]
            wrong = [a for a in answers if float(a.get("fraction")) == 0]
            if len(right) != 1 or len(right) + len(wrong) != len(answers):
                raise ValueError(f"question {q['name']}: one right answer and wrong ones with fraction 0 expected")
            q.update(kind="choice", answer=_strip_html(right[0].findtext("text")),
                     distractors=[_strip_html(a.findtext("text")) for a in wrong],
                     feedback=[_strip_html(a.findtext("feedback/text")) for a in wrong])
        else:
            raise ValueError(f"unexpected question type {kind!r}")
        out.append(q)
    return out


# -- QTI 1.2 (Canvas) ------------------------------------------------------------------------------------------

def _q(tag: str) -> str:
    return f"{{{QTI_NS}}}{tag}"


def _meta(item, fields: dict) -> None:
    md = _sub(_sub(item, "itemmetadata"), "qtimetadata")
    for label, entry in fields.items():
        f = _sub(md, "qtimetadatafield")
        _sub(f, "fieldlabel", label)
        _sub(f, "fieldentry", entry)


def _material(parent, text: str, texttype: str = "text/html"):
    mat = _sub(parent, "material")
    _sub(mat, "mattext", text, texttype=texttype)
    return mat


def qti_xml(questions_by_chapter: dict[str, list], title: str = "Differential Privacy by Experiment: exam bank") -> bytes:
    ET.register_namespace("", QTI_NS)
    root = ET.Element("questestinterop", xmlns=QTI_NS)
    assessment = _sub(root, "assessment", ident="dpx_exam_bank", title=title)
    _meta(assessment, {"cc_maxattempts": "1"})
    top = _sub(assessment, "section", ident="root_section")
    for number, questions in questions_by_chapter.items():
        section = _sub(top, "section", ident=f"ch{number}", title=f"Chapter {int(number)}: {specs.title(number)}")
        for q in questions:
            validate_question(q)
            item = _sub(section, "item", ident=q.name, title=q.name)
            qtype = "numerical_question" if q.kind == "numeric" else "multiple_choice_question"
            _meta(item, {"question_type": qtype, "points_possible": f"{q.points:g}"})
            pres = _sub(item, "presentation")
            _material(pres, to_html(q.text))
            proc = _sub(item, "resprocessing")
            outcomes = _sub(proc, "outcomes")
            _sub(outcomes, "decvar", maxvalue="100", minvalue="0", varname="SCORE", vartype="Decimal")
            if q.kind == "numeric":
                resp = _sub(pres, "response_str", ident="response1", rcardinality="Single")
                _sub(_sub(resp, "render_fib", fibtype="Decimal"), "response_label", ident="answer1")
                cond = _sub(proc, "respcondition", continue_="No")
                var = _sub(_sub(cond, "conditionvar"), "or")
                _sub(var, "varequal", _num(q.answer), respident="response1")
                both = _sub(var, "and")
                _sub(both, "vargte", _num(q.answer - q.tolerance), respident="response1")
                _sub(both, "varlte", _num(q.answer + q.tolerance), respident="response1")
                _sub(cond, "setvar", "100", action="Set", varname="SCORE")
            else:
                resp = _sub(pres, "response_lid", ident="response1", rcardinality="Single")
                choice = _sub(resp, "render_choice")
                options = [str(q.answer), *map(str, q.distractors)]
                for i, text in enumerate(options):
                    _material(_sub(choice, "response_label", ident=f"{q.name}-{i}"), to_html(text))
                for i in range(1, len(options)):
                    cond = _sub(proc, "respcondition", continue_="Yes")
                    _sub(_sub(cond, "conditionvar"), "varequal", f"{q.name}-{i}", respident="response1")
                    _sub(cond, "displayfeedback", feedbacktype="Response", linkrefid=f"{q.name}-{i}_fb")
                cond = _sub(proc, "respcondition", continue_="No")
                _sub(_sub(cond, "conditionvar"), "varequal", f"{q.name}-0", respident="response1")
                _sub(cond, "setvar", "100", action="Set", varname="SCORE")
                for i in range(1, len(options)):
                    fb = _sub(item, "itemfeedback", ident=f"{q.name}-{i}_fb")
                    _material(_sub(fb, "flow_mat"), to_html(q.feedback[i - 1]) if q.feedback else "")
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def parse_qti(data: bytes) -> list[dict]:
    """The questions of a QTI 1.2 export (the same fields as :func:`parse_moodle`)."""
    out = []
    for item in ET.fromstring(data).iter(_q("item")):
        meta = {f.findtext(_q("fieldlabel")): f.findtext(_q("fieldentry")) for f in item.iter(_q("qtimetadatafield"))}
        q = {"name": item.get("ident"), "text": item.find(f"{_q('presentation')}/{_q('material')}/{_q('mattext')}").text,
             "points": float(meta["points_possible"])}
        proc = item.find(_q("resprocessing"))
        scoring = [c for c in proc.findall(_q("respcondition")) if c.find(_q("setvar")) is not None]
        if len(scoring) != 1 or scoring[0].find(_q("setvar")).text != "100":
            raise ValueError(f"item {q['name']}: one condition setting SCORE to 100 expected")
        if meta["question_type"] == "numerical_question":
            lo = float(scoring[0].find(f".//{_q('vargte')}").text)
            hi = float(scoring[0].find(f".//{_q('varlte')}").text)
            exact = float(scoring[0].find(f".//{_q('varequal')}").text)
            q.update(kind="numeric", answer=exact, tolerance=(hi - lo) / 2, interval=(lo, hi))
        elif meta["question_type"] == "multiple_choice_question":
            labels = {lab.get("ident"): _strip_html(lab.find(f"{_q('material')}/{_q('mattext')}").text)
                      for lab in item.iter(_q("response_label"))}
            right = scoring[0].find(f".//{_q('varequal')}").text
            feedback = {fb.get("ident"): _strip_html(fb.find(f".//{_q('mattext')}").text or "")
                        for fb in item.findall(_q("itemfeedback"))}
            links = {}
            for c in proc.findall(_q("respcondition")):
                shown = c.find(_q("displayfeedback"))
                if shown is not None:
                    links[c.find(f".//{_q('varequal')}").text] = feedback.get(shown.get("linkrefid"), "")
            wrong = [k for k in labels if k != right]
            q.update(kind="choice", answer=labels[right], distractors=[labels[k] for k in wrong],
                     feedback=[links.get(k, "") for k in wrong])
        else:
            raise ValueError(f"item {q['name']}: unexpected question type {meta['question_type']!r}")
        out.append(q)
    return out


def qti_package(xml: bytes, path: Path) -> None:
    """A Canvas-importable QTI zip: the assessment and its ``imsmanifest.xml``."""
    manifest = """<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="dpx_exam_bank_manifest" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1">
  <metadata><schema>IMS Content</schema><schemaversion>1.1.3</schemaversion></metadata>
  <organizations/>
  <resources>
    <resource identifier="dpx_exam_bank" type="imsqti_xmlv1p2">
      <file href="dpx_exam_bank/dpx_exam_bank.xml"/>
    </resource>
  </resources>
</manifest>
"""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in (("imsmanifest.xml", manifest.encode()), ("dpx_exam_bank/dpx_exam_bank.xml", xml)):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # deterministic bytes
            z.writestr(info, data, zipfile.ZIP_DEFLATED)


def roundtrip_problems(questions_by_chapter: dict[str, list], parsed: list[dict]) -> list[str]:
    """Differences between the specifications' questions and an export parsed back."""
    problems = []
    expected = [q for qs in questions_by_chapter.values() for q in qs]
    if [q.name for q in expected] != [p["name"] for p in parsed]:
        return [f"question names differ: {[q.name for q in expected]} vs {[p['name'] for p in parsed]}"]
    for q, p in zip(expected, parsed):
        if p["kind"] != q.kind or not math.isclose(p["points"], q.points):
            problems.append(f"{q.name}: kind or points differ")
        elif q.kind == "numeric":
            if not (math.isclose(p["answer"], q.answer, rel_tol=1e-12, abs_tol=1e-15)
                    and math.isclose(p["tolerance"], q.tolerance, rel_tol=1e-9, abs_tol=1e-12)):
                problems.append(f"{q.name}: answer or tolerance differ ({p['answer']} ± {p['tolerance']})")
        else:
            plain = [_strip_html(to_html(str(x))) for x in (q.answer, *q.distractors)]
            fb = [_strip_html(to_html(x)) for x in q.feedback] if q.feedback else [""] * len(q.distractors)
            if [p["answer"], *p["distractors"]] != plain or p["feedback"] != fb:
                problems.append(f"{q.name}: options or feedback differ")
    return problems


def main(args) -> int:
    questions = bank(args.chapters or None)
    out = Path(args.out)
    if args.format == "moodle":
        data = moodle_xml(questions)
        parsed = parse_moodle(data)
        out.write_bytes(data)
    else:
        data = qti_xml(questions)
        parsed = parse_qti(data)
        if out.suffix == ".zip":
            qti_package(data, out)
        else:
            out.write_bytes(data)
    problems = roundtrip_problems(questions, parsed)
    for problem in problems:
        print("round trip:", problem)
    sizes = ", ".join(f"ch{n}: {len(qs)}" for n, qs in questions.items())
    print(f"{out}: {sum(len(qs) for qs in questions.values())} questions ({sizes}), {args.format}, "
          + ("parsed back: OK" if not problems else "parsed back: DIFFERENCES"))
    return 1 if problems else 0
