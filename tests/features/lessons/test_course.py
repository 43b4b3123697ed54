"""The course is honest: in every lesson, among all legal turns of its position at least one
does the task and at least one does not, each miss says why, and the course teaches every
bonus and every ornament."""

from __future__ import annotations

import pytest

from bot.features.lessons.course import ADVANCED, BASICS, COURSE, judge, lesson_by_id
from engine import ORNAMENTS, WHITE, Place


@pytest.mark.parametrize("lesson", COURSE, ids=lambda lesson: lesson.id)
def test_every_lesson_has_a_turn_that_passes_and_one_that_fails(lesson):
    position = lesson.start
    assert position.turn == WHITE and not position.is_over()
    verdicts = [judge(lesson, turn) for turn in position.legal_turns()]
    passed = [v for v in verdicts if v.passed]
    failed = [v for v in verdicts if not v.passed]
    assert passed and failed, f"{lesson.id}: {len(passed)} pass, {len(failed)} fail"
    assert all(v.why is None for v in passed)
    assert all(isinstance(v.why, str) and v.why.strip() for v in failed)


def test_the_course_is_one_rule_a_lesson_and_covers_the_game():
    ids = [lesson.id for lesson in COURSE]
    assert len(ids) == len(set(ids))
    for lesson in COURSE:
        assert 1 <= len(lesson.explanation) <= 3 and lesson.title and lesson.task
        assert lesson_by_id(lesson.id) is lesson
    bonuses = set()
    for lesson in BASICS:
        for turn in lesson.start.legal_turns():
            if judge(lesson, turn).passed and isinstance(turn, Place) and turn.bonus:
                bonuses.add(turn.location)
    assert bonuses == set(range(7)), "a lesson uses each place's bonus"
    taught = {ornament for lesson in ADVANCED for ornament in lesson.start.ornaments if ornament}
    assert taught == set(ORNAMENTS), "a lesson for each ornament"
    assert all(lesson.part == "basics" for lesson in BASICS)
    assert all(lesson.part == "advanced" for lesson in ADVANCED)
    with pytest.raises(KeyError):
        lesson_by_id("nope")
