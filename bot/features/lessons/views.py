"""A lesson's Discord face: the message around its image (title, rule and task, prompt, small
print) and its buttons — the turn's steps, Try again, Next lesson, the course's list, the first
game. Its words are :mod:`bot.features.lessons.words`'s."""

from __future__ import annotations

from bot.discord.controls import Button, CustomId, Row
from bot.discord.layout import (
    IMAGE_NAME,
    STEP_KIND,
    STEP_KINDS,
    STEP_PATH,
    BoardLook,
    choice_rows,
)
from bot.features.lessons.course import COURSE, Lesson
from bot.features.lessons.store import Progress
from bot.features.lessons.words import lesson_text, lesson_title, small_print
from bot.words.board import ACCENT
from bot.words.choices import Choice
from bot.words.steps import press_choices, step_prompt
from engine import WHITE
from engine.builder import TurnBuilder
from rendering.translator import Translator

LESSON = r"[a-z0-9-]{1,16}"
"""A field holding a lesson's id (:mod:`bot.features.lessons.course`)."""
LESSON_STEP = CustomId(
    "le", (("lesson", LESSON, str), ("path", STEP_PATH, str), ("kind", STEP_KIND, str))
)
"""A step of the turn a member builds in a lesson (as the board's step, for the lesson)."""
LESSON_OPEN = CustomId("leo", (("lesson", LESSON, str),))
"""Open a lesson from its start: Try again, Next lesson, a lesson of the course's list."""
LESSON_LIST = CustomId("lel", ())
"""The course's lessons, to replay any."""
FIRST_GAME = CustomId("lfg", ())
"""After the course: a first game against the easy AI, with hints (answered by the challenges
feature, which starts games against the AI)."""

LIST_PER_ROW = 5
"""Lessons in a row of the course's list (Discord's most)."""


def look(t: Translator, lesson: Lesson, alt: str) -> BoardLook:
    """A lesson's message around its image: its title, rule and task above, the first step's
    prompt below, its position in small print."""
    header = f"### 📘 {lesson_title(t, lesson)}\n{lesson_text(t, lesson)}"
    builder = TurnBuilder(lesson.start)
    step = builder.step()
    assert step is not None  # a lesson's position is not over
    status = step_prompt(t, builder, step)
    footer = "-# " + small_print(t, lesson)
    return BoardLook(ACCENT[WHITE], header, IMAGE_NAME, alt, status, footer)


def step_rows(t: Translator, lesson: Lesson, builder: TurnBuilder) -> list[Row]:
    """The buttons of the turn's next step in ``lesson``, and the course's list."""
    step = builder.step()
    assert step is not None  # the turn is not whole
    options, commands = press_choices(t, builder, step)

    def button(choice: Choice) -> Button:
        if choice.action == "lessons":
            return list_button(t)
        return Button.of(
            LESSON_STEP,
            lesson=lesson.id,
            path=choice.path,
            kind=STEP_KINDS[choice.action],
            label=choice.label,
            emoji=choice.emoji,
            emphasis=choice.emphasis,
            enabled=choice.enabled,
        )

    return choice_rows(options, (*commands, Choice("lessons", t("Lessons"), "📚")), button)


def list_button(t: Translator) -> Button:
    """The course's list."""
    return Button.of(LESSON_LIST, label=t("Lessons"), emoji="📚")


def again_rows(t: Translator, lesson: Lesson) -> list[Row]:
    """After a miss: Try again (the lesson from its start), and the list."""
    again = Button.of(
        LESSON_STEP,
        lesson=lesson.id,
        path="",
        kind=STEP_KINDS["cancel"],
        label=t("Try again"),
        emoji="🔁",
        emphasis="primary",
    )
    return [[again, list_button(t)]]


def next_rows(t: Translator, then: Lesson | None) -> list[Row]:
    """After a task done: the next lesson (the first game after the last), and the list."""
    if then is None:
        return [[first_game_button(t), list_button(t)]]
    following = Button.of(
        LESSON_OPEN,
        lesson=then.id,
        label=t("Next lesson"),
        emoji="➡️",
        emphasis="primary",
    )
    return [[following, list_button(t)]]


def first_game_button(t: Translator) -> Button:
    """The course's last step: a game against the easy AI, with hints."""
    return Button.of(FIRST_GAME, label=t("Play your first game"), emoji="🎲", emphasis="success")


def list_rows(t: Translator, progress: Progress) -> list[Row]:
    """A button for every lesson, numbered and ticked when done; the first game once the
    course is finished."""
    buttons: Row = [
        Button.of(
            LESSON_OPEN,
            lesson=lesson.id,
            label=f"{number}. {t(lesson.title)}"[:80],
            emoji="✅" if progress.passed(lesson.id) else None,
            emphasis="primary" if lesson.id == progress.current else "secondary",
        )
        for number, lesson in enumerate(COURSE, start=1)
    ]
    rows = [buttons[at : at + LIST_PER_ROW] for at in range(0, len(buttons), LIST_PER_ROW)]
    if progress.finished_at is not None and len(rows[-1]) < LIST_PER_ROW:
        rows[-1].append(first_game_button(t))
    return rows
