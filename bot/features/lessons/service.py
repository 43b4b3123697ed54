"""The course without Discord: the lesson a member is at, a lesson they open from the list, and
their turn built one choice at a time, judged by the lesson's task once it is whole — the same for
a press on Discord and a turn sent by the live page."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.base.refusals import Refusal
from bot.features.lessons.course import COURSE, Lesson, Verdict, judge, lesson_by_id
from bot.features.lessons.store import COURSE_END, LessonStore, Progress
from bot.words.phrases import command
from engine import IllegalTurnError, Turn
from engine.builder import TurnBuilder
from engine.vocabulary import N_

NO_SUCH_LESSON = N_("There is no such lesson: {learn} shows the course.")
COURSE_IDS = tuple(lesson.id for lesson in COURSE)


@dataclass(frozen=True, slots=True)
class LessonShown:
    """A lesson to do: its task's turn, built as far as ``builder``."""

    lesson: Lesson
    progress: Progress
    builder: TurnBuilder

    @property
    def number(self) -> int:
        """Its place in the course, from 1."""
        return number_of(self.lesson)


@dataclass(frozen=True, slots=True)
class LessonTried:
    """A whole turn tried in a lesson, judged and stored."""

    lesson: Lesson
    turn: Turn
    verdict: Verdict
    progress: Progress
    """The member's course after it."""
    then: Lesson | None
    """The lesson that follows (``None``: it was the last)."""
    finished_now: bool
    """This turn finished the course, the first time."""

    @property
    def number(self) -> int:
        return number_of(self.lesson)


@dataclass(frozen=True, slots=True)
class CourseDone:
    """The member is past the last lesson."""

    progress: Progress


def number_of(lesson: Lesson) -> int:
    """``lesson``'s place in the course, from 1."""
    return COURSE.index(lesson) + 1


def following(lesson: Lesson) -> Lesson | None:
    """The lesson after ``lesson`` (``None``: the last)."""
    index = COURSE.index(lesson) + 1
    return COURSE[index] if index < len(COURSE) else None


class LessonService:
    """Shows lessons and judges turns over the course's store."""

    def __init__(self, store: LessonStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    async def current(self, user_id: int) -> LessonShown | CourseDone:
        """The lesson the member is at (the first for a newcomer), or the course's end."""
        progress = await self.store.progress(user_id)
        if progress.current == COURSE_END:
            return CourseDone(progress)
        lesson = _lesson(progress.current or COURSE[0].id)
        if progress.current is None:
            return await self.open(user_id, lesson.id)
        return LessonShown(lesson, progress, TurnBuilder(lesson.start))

    async def open(self, user_id: int, lesson_id: str) -> LessonShown:
        """``lesson_id`` from its start; the member is at it from now on."""
        lesson = _lesson(lesson_id)
        await self.store.show(user_id, lesson.id, self.clock())
        progress = await self.store.progress(user_id)
        return LessonShown(lesson, progress, TurnBuilder(lesson.start))

    async def progress(self, user_id: int) -> Progress:
        """Where the member is in the course."""
        return await self.store.progress(user_id)

    async def step(self, user_id: int, lesson_id: str, path: str) -> LessonShown | LessonTried:
        """One more choice of the member's turn in ``lesson_id`` (``path``: the choices so far):
        its next step, or, whole, the turn judged and stored."""
        lesson = _lesson(lesson_id)
        try:
            builder = TurnBuilder(lesson.start, tuple(path))
        except IllegalTurnError:
            raise Refusal("That choice isn't available.") from None
        turn = builder.turn
        if turn is None:
            return LessonShown(lesson, await self.store.progress(user_id), builder)
        verdict, then, now = judge(lesson, turn), following(lesson), self.clock()
        progress = await self.store.tried(
            user_id,
            lesson.id,
            verdict.passed,
            COURSE_END if then is None else then.id,
            COURSE_IDS,
            now,
        )
        finished_now = verdict.passed and progress.finished_at == now
        return LessonTried(lesson, turn, verdict, progress, then, finished_now)


def _lesson(lesson_id: str) -> Lesson:
    try:
        return lesson_by_id(lesson_id)
    except KeyError:
        raise Refusal(NO_SUCH_LESSON, learn=command("tholos learn")) from None
