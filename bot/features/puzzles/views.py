"""A puzzle's Discord face: the message around its image (header, caption, prompt, small
print) and its buttons — the answer's steps, Next, the puzzle of the day's Solve it. Its words
are :mod:`bot.features.puzzles.words`'s."""

from __future__ import annotations

from bot.discord.controls import ROW_ID, SNOWFLAKE, Button, CustomId, Row
from bot.discord.layout import (
    IMAGE_NAME,
    STEP_KIND,
    STEP_KINDS,
    STEP_PATH,
    BoardLook,
    choice_rows,
)
from bot.features.puzzles.store import DailyPuzzle, StoredPuzzle
from bot.features.puzzles.words import caption, small_print
from bot.words.board import ACCENT
from bot.words.choices import Choice
from bot.words.steps import press_choices, step_prompt
from engine.builder import TurnBuilder
from rendering.translator import Translator

PUZZLE_STEP = CustomId(
    "pz", (("attempt", ROW_ID, int), ("path", STEP_PATH, str), ("kind", STEP_KIND, str))
)
"""A step of a puzzle's answer being built (as the board's step, for a member's attempt)."""
PUZZLE_GIVE_UP = CustomId("pzg", (("attempt", ROW_ID, int),))
"""Show a puzzle's answer without answering (it counts as a wrong answer)."""
PUZZLE_NEXT = CustomId("pzn", (("attempt", ROW_ID, int),))
"""Another puzzle, after the attempt answered."""
DAILY_PUZZLE = CustomId("pzd", (("guild", SNOWFLAKE, int), ("day", r"\d{4}-\d{2}-\d{2}", str)))
"""Solve a server's puzzle of the day (privately)."""


def look(t: Translator, stored: StoredPuzzle, title: str, intro: str, alt: str) -> BoardLook:
    """A puzzle's message around its image: ``title``, the caption and ``intro`` above, the
    step's prompt below, its position in small print."""
    puzzle = stored.puzzle
    header = f"### 🧩 {title}\n**{caption(t, puzzle)}.** {intro}"
    footer = "-# " + small_print(t, stored)
    builder = TurnBuilder(puzzle.position)
    step = builder.step()
    assert step is not None  # a puzzle's position is not over
    status = step_prompt(t, builder, step)
    return BoardLook(ACCENT[puzzle.position.turn], header, IMAGE_NAME, alt, status, footer)


def answer_rows(t: Translator, attempt_id: int, builder: TurnBuilder) -> list[Row]:
    """The buttons of the answer's next step: the turn's own choices, and Show the answer,
    for ``attempt_id``."""
    step = builder.step()
    assert step is not None  # the answer is not complete
    options, commands = press_choices(t, builder, step)
    reveal = Choice("reveal", t("Show the answer"), "💡")

    def button(choice: Choice) -> Button:
        if choice.action == "reveal":
            return Button.of(
                PUZZLE_GIVE_UP,
                attempt=attempt_id,
                label=choice.label,
                emoji=choice.emoji,
            )
        return Button.of(
            PUZZLE_STEP,
            attempt=attempt_id,
            path=choice.path,
            kind=STEP_KINDS[choice.action],
            label=choice.label,
            emoji=choice.emoji,
            emphasis=choice.emphasis,
            enabled=choice.enabled,
        )

    return choice_rows(options, (*commands, reveal), button)


def next_row(t: Translator, attempt_id: int) -> list[Row]:
    """Next, after an answer."""
    return [
        [
            Button.of(
                PUZZLE_NEXT,
                attempt=attempt_id,
                label=t("Next puzzle"),
                emoji="🧩",
                emphasis="primary",
            )
        ]
    ]


def daily_row(t: Translator, daily: DailyPuzzle) -> list[Row]:
    """Solve, while the answer is not out."""
    if daily.revealed:
        return []
    return [
        [
            Button.of(
                DAILY_PUZZLE,
                guild=daily.guild_id,
                day=daily.day,
                label=t("Solve it"),
                emoji="🧩",
                emphasis="primary",
            )
        ]
    ]
