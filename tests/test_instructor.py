"""The teacher's edition (instructor/): a page per chapter, lecture plans of 90 minutes, generated parts current,
every section, cell and function a page names present in its chapter, and nothing of it in the student site."""

from __future__ import annotations

import re

import pytest
import yaml

from tools import instructor

ROOT = instructor.ROOT
STEMS = instructor.chapters()
BLOCK_KINDS = ("motivation", "demos", "board derivation", "pair exercise", "wrap-up")


def _page(stem: str) -> str:
    return instructor.page_path(stem).read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    found = re.search(rf"^## {re.escape(heading)}.*?\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert found, f"no section '## {heading}'"
    return found.group(1)


def test_every_chapter_has_a_page_in_the_toc():
    toc = yaml.safe_load((ROOT / "instructor" / "_toc.yml").read_text(encoding="utf-8"))
    assert toc["root"] == "intro"
    assert [entry["file"] for entry in toc["chapters"]] == STEMS
    missing = [stem for stem in STEMS if not instructor.page_path(stem).is_file()]
    assert not missing, f"chapters without instructor notes: {missing}"


@pytest.mark.parametrize("stem", STEMS)
def test_lecture_plan_adds_up_to_90_minutes(stem):
    rows = [line.split("|")[1:-1] for line in _section(_page(stem), "Lecture plan").splitlines()
            if re.match(r"\| \d+:\d\d \|", line)]
    assert rows, f"{stem}: no timed rows in the lecture plan"
    clock = 0
    for start, minutes, block, _ in rows:
        hours, mins = map(int, start.split(":"))
        assert 60 * hours + mins == clock, f"{stem}: the block starting at {start.strip()} should start at {clock} min"
        assert block.strip() in BLOCK_KINDS, f"{stem}: unknown block {block.strip()!r}"
        clock += int(minutes)
    assert clock == 90, f"{stem}: the lecture plan adds up to {clock} minutes"
    assert {row[2].strip() for row in rows} == set(BLOCK_KINDS), f"{stem}: a plan has all five kinds of block"


def test_generated_parts_are_current():
    problems = {stem: names for stem in STEMS if (names := instructor.stale(stem))}
    assert not instructor.stale_intro(), "instructor/intro.md is out of date: python -m tools.instructor --write"
    assert not problems, f"out of date (python -m tools.instructor --write): {problems}"


@pytest.mark.parametrize("stem", STEMS)
def test_named_sections_and_calls_exist_in_the_chapter(stem):
    chapter = instructor.read_chapter(stem)
    text = _page(stem)
    # a section is named "**§ Heading**" (a demonstration's first words) or "§ *Heading*" (in a sentence)
    sections = re.findall(r"\*\*§ ([^*]+)\*\*", text) + re.findall(r"§ \*([^*]+)\*", text)
    assert sections, f"{stem}: the demonstrations name no section"
    assert text.count("§") == len(sections), f"{stem}: write a section as **§ Heading** or § *Heading*"
    for name in sections:
        assert name.strip() in chapter.headings, f"{stem}: no section {name.strip()!r} in the chapter"
    demos = _section(text, "Live demonstrations")
    code = re.sub(r"#[^\n]*", "", chapter.code)
    for span in re.findall(r"`([^`]+)`", demos):
        # functions and cells called by name (not methods such as rng.random, which belong to their object)
        names = re.findall(r"(?<![.\w])([A-Za-z_]\w*)\(", span) + re.findall(r"interact_figure\((\w+)", span)
        for name in names:
            assert re.search(rf"\b{name}\b", code), f"{stem}: `{span}` names {name}, not in the chapter's code"
        for keyword in re.findall(r"interact_figure\(\w+, (.*)\)", span):
            for arg in re.findall(r"(\w+)=", keyword):
                call = re.search(rf"interact_figure\({names[-1]},.*?\n?.*?{arg}=", code, re.S)
                assert call, f"{stem}: the slider {arg} of {names[-1]} is not in the chapter"


@pytest.mark.parametrize("stem", STEMS)
def test_numbers_are_the_chapters_glued_values(stem):
    chapter = instructor.read_chapter(stem)
    body = _page(stem).split(instructor.SUBSTITUTIONS_END, 1)[-1]
    unknown = sorted(set(instructor.SUBSTITUTION.findall(body)) - set(chapter.glue))
    assert not unknown, f"{stem}: {{{{ key }}}} of values the chapter does not glue: {unknown}"


def test_the_student_site_does_not_include_the_notes():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "instructor" not in toc
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert "instructor/**" in config["exclude_patterns"]
    from tools.zh_edition import zh_config

    assert "instructor/**" in zh_config()["exclude_patterns"]


def test_misconceptions_leave_out_format_and_value_dependent_hints():
    """The review's examples: answer-format hints and hints that only make sense next to one wrong value are not
    misconceptions; a hint that names a mistake on its own is."""
    for hint in ("answer_ex2 must be a whole number k >= 1", "answer_ex4 must be one of 1000, 2000, 5000",
                 "answer with one of the run counts of the exercise", "give the share as a fraction, not in percent",
                 "47 is τ rounded to a whole number; give τ to two decimals", "at this k advanced does not win yet",
                 "advanced composition already wins at a smaller k", "a larger epsilon of the grid still shows the gap",
                 "a smaller size already certifies 0.75", "this event should separate the inputs completely",
                 "integer orders only: start at 1.01", "with 100 runs the certified bound is still below 1"):
        assert not instructor._is_misconception(hint), hint
    for hint in ("that is 1 - p, the probability of lying", "the scale is b = Δ/ε, not ε/Δ",
                 "too few runs: 20,000 is enough only with alpha or alpha/2; each of the four bounds uses alpha/4"):
        assert instructor._is_misconception(hint), hint
    # one hint for several wrong values enumerates a grid; each kept mistake shows its wrong value
    parts = [("k", [{"value": 30, "hint": "30.7 is the break-even point; round it up"},
                    {"lo": 1.0, "hi": 2.0, "hint": "on the grid"}, {"lo": 3.0, "hi": 4.0, "hint": "on the grid"}]),
             ("p", [{"lo": 0.2662, "hi": 0.2716, "hint": "that is 1 - p"}, {"lo": 0.45, "hi": 1e300, "hint": "x"}])]
    assert instructor._mistakes(parts) == [("k", "30", "30.7 is the break-even point; round it up"),
                                           ("p", "0.2689", "that is 1 - p"), ("p", "at least 0.45", "x")]


@pytest.mark.parametrize("stem", STEMS)
def test_misconceptions_are_mistakes_not_recipes(stem):
    """Every generated item is a "Mistake: ..." line, and no part's own hint (the message for any other wrong
    value, a recipe such as "use max_tpr(fpr, epsilon, delta)") is listed unless a mistake says the same."""
    from tools.generated_block import between

    block = between(_page(stem), *instructor.markers("misconceptions"))
    items = [line for line in block.splitlines() if line.startswith("  - ")]
    assert all(line.startswith("  - Mistake: ") for line in items), f"{stem}: an item is not a mistake"
    chapter = instructor.read_chapter(stem)
    for exercise in chapter.exercises:
        spec = instructor.spec_for(chapter, exercise)
        if spec is None:
            continue
        for part in spec.parts(spec.default):
            if part.hint not in {m.hint for m in part.mistakes}:
                assert f"— {instructor.plain_roles(part.hint, chapter)}\n" not in block + "\n", \
                    f"{stem}: {exercise.label}'s part hint {part.hint!r} is listed as a misconception"


@pytest.mark.parametrize("stem", STEMS)
def test_exercise_table_shows_the_books_numbering(stem):
    """sphinx-exercise numbers a chapter's exercises "Exercise N.K" in chapter order (N: the chapter's number in
    the numbered toc); the table shows that number next to the label."""
    from tools.generated_block import between

    block = between(_page(stem), *instructor.markers("exercises"))
    rows = [line.split("|")[1:3] for line in block.splitlines() if re.match(r"\| \d+\.\d+ \|", line)]
    number = STEMS.index(stem) + 1
    labels = [exercise.label for exercise in instructor.read_chapter(stem).exercises]
    assert [(n.strip(), label.strip()) for n, label in rows] == [(f"{number}.{k}", label)
                                                                for k, label in enumerate(labels, start=1)]
