"""The course on the live page: the same :class:`~bot.features.lessons.service.LessonService` as
``/tholos learn`` and its buttons, so a lesson under way shows on both. The page asks for the
member's lesson (``lesson``, or a lesson by id), sends a whole turn (``lesson_answer``), and
hears the verdict (``verdict`` with the lesson that follows); the lobby shows where the member
is in the course (:func:`course_summary`)."""

from __future__ import annotations

from typing import Final

from bot.base.refusals import Refusal
from bot.features.lessons.course import COURSE
from bot.features.lessons.service import CourseDone, LessonService, LessonShown, LessonTried
from bot.features.lessons.store import Progress
from bot.features.lessons.words import (
    course_finished,
    lesson_board,
    lesson_game,
    lesson_text,
    lesson_title,
    verdict,
)
from bot.i18n.catalogues import translator
from bot.web.frames import board_frame, geometries
from bot.web.live import JSON, PATH, Page, plain, refuse, refused, send
from bot.web.pages import PagePart
from bot.words.steps import turn_steps
from engine.vocabulary import N_
from rendering.translator import Translator

LESSON_ID_LENGTH = 16
"""A lesson's id is at most this long (longer: not one)."""


def lesson_frame(shown: LessonShown, t: Translator, name: str, user_id: int) -> JSON:
    """The frame of a lesson for the member (``name``): a board like a game's whose steps are
    the task's turn, the lesson's id, and its rule and task in words."""
    lesson = shown.lesson
    game = lesson_game(lesson, t, name, user_id)
    frame = board_frame(lesson_board(lesson, game, t), t, turn_steps(game, t), 0.0)
    frame["lesson"] = lesson.id
    frame["lesson_text"] = plain(lesson_text(t, lesson))
    frame["geometries"] = geometries(game.position)
    return frame


def course_summary(t: Translator, progress: Progress) -> JSON:
    """Where the member is in the course, for the lobby: the lesson to continue with (``None``
    past the last), how many are done, and the button's words."""
    ids = [lesson.id for lesson in COURSE]
    current = next((lesson for lesson in COURSE if lesson.id == progress.current), None)
    if progress.current is None:
        label = t("Learn to play: start the course")
    elif current is None:
        label = t("Replay the course's lessons")
    else:
        label = t("Continue the course: {lesson}", lesson=lesson_title(t, current))
    return {
        "lesson": current.id if current else COURSE[0].id,
        "done": progress.count_passed(ids),
        "count": len(COURSE),
        "finished": progress.finished_at is not None,
        "label": label,
    }


WORDS: Final = {
    "next_lesson": N_("Next lesson"),
    "try_again": N_("Try again"),
}
"""The lessons' labels on the page, by key."""


class LessonPages(PagePart):
    """A page's lessons, and where its member is in the course (in its lobby)."""

    types = frozenset({"lesson", "lesson_answer"})
    words = WORDS

    def __init__(self, lessons: LessonService) -> None:
        self.lessons = lessons

    async def lobby(self, page: Page) -> JSON:
        """Where the member is in the course."""
        progress = await self.lessons.progress(page.session.user_id)
        return {"course": course_summary(translator(page.language), progress)}

    async def answer(self, page: Page, data: JSON) -> None:
        """The member's lesson (``lesson``: theirs, or the one named), or a whole turn tried
        in one (``lesson_answer``); a malformed message is refused, a refusal said."""
        session, t = page.session, translator(page.language)
        lesson, path = data.get("lesson"), data.get("path", "")
        named = isinstance(lesson, str) and 0 < len(lesson) <= LESSON_ID_LENGTH
        if data["type"] == "lesson_answer" and not (
            named and isinstance(path, str) and PATH.fullmatch(path)
        ):
            await refuse(page, "malformed")
            return
        try:
            if data["type"] == "lesson":
                await self._show(page, t, lesson if named else None)
                return
            assert isinstance(lesson, str) and isinstance(path, str)
            result = await self.lessons.step(session.user_id, lesson, path)
        except Refusal as refusal:
            await send(page.socket, refused(t, refusal))
            return
        if isinstance(result, LessonShown):
            await refuse(page, "incomplete")
            return
        await send(page.socket, verdict_frame(t, result))

    async def _show(self, page: Page, t: Translator, lesson: str | None) -> None:
        """The lesson named, or the member's; past the last, the course's end."""
        user = page.session.user_id
        self.boards.leave(page)
        shown = await (self.lessons.open(user, lesson) if lesson else self.lessons.current(user))
        if isinstance(shown, CourseDone):
            summary = course_summary(t, shown.progress)
            await send(page.socket, {"type": "course", "text": course_finished(t), **summary})
            return
        await send(page.socket, lesson_frame(shown, t, page.session.name, user))


def verdict_frame(t: Translator, tried: LessonTried) -> JSON:
    """A turn tried in a lesson: done or not and why, and the lesson that follows."""
    text = verdict(t, tried.turn, tried.verdict.why, tried.finished_now)
    return {
        "type": "verdict",
        "text": plain(text),
        "correct": tried.verdict.passed,
        "lesson": tried.lesson.id,
        "next": None if tried.then is None else tried.then.id,
    }
