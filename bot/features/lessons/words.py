"""What a lesson says, for every face (its Discord messages and the live page): its title and
place in the course, the rule and the task, the image's view ("You" play White), the verdict on
a turn tried, the course as a list, and the lesson as a :class:`~bot.words.board.Board` for a
face that draws boards. Pure: no I/O, no Discord."""

from __future__ import annotations

import dataclasses

from bot.base.game import Game
from bot.features.lessons.course import ADVANCED, BASICS, COURSE, Lesson
from bot.features.lessons.store import Progress
from bot.words.board import Board, board_of
from bot.words.phrases import colour_name
from engine import WHITE, Turn
from engine.vocabulary import N_
from rendering.describe import turn_text
from rendering.translator import Translator
from rendering.view import BoardView

PARTS = ((BASICS, N_("The basics")), (ADVANCED, N_("The ornaments (advanced game)")))
"""The course's two parts and their headings."""


def lesson_title(t: Translator, lesson: Lesson) -> str:
    """``Lesson 3 of 23 · Placing a stone``."""
    number = COURSE.index(lesson) + 1
    return t(
        "Lesson {number} of {count} · {title}",
        number=number,
        count=len(COURSE),
        title=t(lesson.title),
    )


def lesson_text(t: Translator, lesson: Lesson) -> str:
    """The rule in a sentence or three, then the task."""
    rule = " ".join(t(sentence) for sentence in lesson.explanation)
    return rule + "\n" + t("**Your task:** {task}", task=t(lesson.task))


def image_view(t: Translator, lesson: Lesson) -> BoardView:
    """The lesson's image: "You" play White against "Rival", the lesson's title as headline."""
    return BoardView(white_name=t("You"), black_name=t("Rival"), note=t(lesson.title), translator=t)


def small_print(t: Translator, lesson: Lesson) -> str:
    """``Lesson 3 · <position>``: the lesson and its canonical position."""
    return t("Lesson {number}", number=COURSE.index(lesson) + 1) + f" · {lesson.position}"


def named_turn(t: Translator, turn: Turn) -> str:
    """The learner's turn in words, with its notation."""
    return f"{turn_text(turn, colour_name(t, WHITE), t)} (`{turn}`)"


def verdict(t: Translator, turn: Turn, why: str | None, finished_now: bool) -> str:
    """Done, or not yet and why (``why``: the task's reason, ``None`` when done); the course's
    end the first time it is reached."""
    if why is not None:
        return t("❌ **Not yet:** {turn}.", turn=named_turn(t, turn)) + "\n" + t(why)
    text = t("✅ **Done!** {turn}.", turn=named_turn(t, turn))
    if finished_now:
        text += "\n" + course_finished(t)
    return text


def course_finished(t: Translator) -> str:
    """What the end of the course says."""
    return t(
        "🎓 **You finished the course!** You know every rule of Tholos: play your first game "
        "against the easy AI, with hints whenever you want one."
    )


def course_list(t: Translator, progress: Progress) -> str:
    """Every lesson by part, numbered, the done ones ticked and the member's current one
    marked."""
    lines = [t("**The course:** {done} of {count} lessons done.", **_counts(progress))]
    for part, heading in PARTS:
        lines.append(f"**{t(heading)}**")
        for lesson in part:
            number = COURSE.index(lesson) + 1
            mark = "✅" if progress.passed(lesson.id) else "▫️"
            here = " ◀" if lesson.id == progress.current else ""
            lines.append(f"{mark} {number}. {t(lesson.title)}{here}")
    return "\n".join(lines)


def course_line(t: Translator, progress: Progress) -> str | None:
    """The course in a stats line: finished, or how far (``None``: never started)."""
    if progress.finished_at is not None:
        return t("🎓 Finished the course <t:{when}:D>.", when=int(progress.finished_at))
    if progress.current is None:
        return None
    return t("📘 The course: {done} of {count} lessons done.", **_counts(progress))


def _counts(progress: Progress) -> dict[str, int]:
    ids = [lesson.id for lesson in COURSE]
    return {"done": progress.count_passed(ids), "count": len(COURSE)}


def lesson_game(lesson: Lesson, t: Translator, name: str, user_id: int) -> Game:
    """A lesson as a game that has just begun, for a face that draws games: the member
    (``name``) plays White, to move, against "Rival"."""
    return Game(
        white_id=user_id,
        black_id=0,
        white_name=name,
        black_name=t("Rival"),
        mode=lesson.start.mode,
        start_position=lesson.start,
        position=lesson.start,
        version=COURSE.index(lesson) + 1,
    )


def lesson_board(lesson: Lesson, game: Game, t: Translator) -> Board:
    """The board of a lesson (``game``: :func:`lesson_game`): its title, the lesson's title as
    its headline, the lesson's small print; its steps are the turn's."""
    names = {game.white_id: game.white_name, game.black_id: game.black_name}
    board = board_of(game, t, who=lambda user: names.get(user, "?"))
    return dataclasses.replace(
        board,
        title=lesson_title(t, lesson),
        small_print=small_print(t, lesson),
        image=dataclasses.replace(board.image, note=t(lesson.title)),
    )
