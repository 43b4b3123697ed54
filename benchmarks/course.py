"""How long the course takes someone who does every task right the first time.

    .venv/bin/python -m benchmarks.course [--words-per-minute 200] [--seconds-a-press 2.5]

For each lesson: the words to read (rule and task, in en/es/de) and the fewest presses of a turn
that does its task (the step buttons, Skip where a bonus is offered), plus Next lesson between
lessons and ``/tholos learn`` once. The minutes are an estimate from a reading speed and a time a
press (looking for the button included); the bot's own time a press is measured by
``benchmarks/bot_latency.py`` (tens of milliseconds) and left out. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse

from bot.features.lessons.course import COURSE, Lesson, judge
from bot.features.lessons.words import lesson_text
from bot.i18n.catalogues import translator
from engine.builder import chosen_path
from engine.presses import presses


def fewest_presses(lesson: Lesson) -> int:
    """The fewest presses of the step buttons a turn that does ``lesson``'s task takes."""
    position = lesson.start
    return min(
        len(presses(position, chosen_path(position, turn)))
        for turn in position.legal_turns()
        if judge(lesson, turn).passed
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words-per-minute", type=float, default=200.0)
    parser.add_argument("--seconds-a-press", type=float, default=2.5)
    args = parser.parse_args()
    presses = [fewest_presses(lesson) for lesson in COURSE]
    total_presses = sum(presses) + (len(COURSE) - 1) + 1  # Next lesson, and /tholos learn
    print(
        f"{len(COURSE)} lessons, {len(COURSE)} turns, {total_presses} presses "
        f"(turns {sum(presses)}: {min(presses)}–{max(presses)} a turn)"
    )
    for language in ("en", "es", "de"):
        t = translator(language)
        read = sum(len(lesson_text(t, lesson).split()) for lesson in COURSE)
        minutes = read / args.words_per_minute + total_presses * args.seconds_a_press / 60
        print(
            f"{language}: {read} words to read; about {minutes:.1f} minutes "
            f"({args.words_per_minute:.0f} words a minute, {args.seconds_a_press} s a press)"
        )


if __name__ == "__main__":
    main()
