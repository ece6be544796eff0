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
