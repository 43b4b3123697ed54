"""The course through the real bot: a newcomer works through every lesson with the turn's
buttons — a turn that misses first (chosen at random among the legal turns the lesson's task
refuses), then one that does it (at random among those it accepts) — with the bot killed -9 on
the way; the course ends offering a first game."""

from __future__ import annotations

import random
import sqlite3

from bot.features.lessons.course import COURSE, Lesson, judge
from engine import Position, Turn
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Interaction, Member, Message
from tests.e2e.table import (
    FOOTER,
    HEADER,
    STATUS,
    Table,
    board_part,
    is_board,
    path_of,
)


def stored(bot: BotProcess, sql: str, *parameters: object) -> list[tuple]:
    with sqlite3.connect(bot.db_path) as db:
        return db.execute(sql, parameters).fetchall()


def lessons_seen(table: Table, member: Member) -> list[Message]:
    """The lesson messages ``member`` was shown here, oldest first."""
    return [
        m
        for m in table.emu.messages(table.channel, member)
        if m.ephemeral and is_board(m) and "📘" in board_part(m, HEADER)
    ]


async def next_lesson(table: Table, member: Member, count: int) -> Message:
    """Wait for ``member``'s lesson message number ``count + 1`` here."""
    await table.emu.wait_for(lambda: len(lessons_seen(table, member)) > count, what="a lesson")
    return lessons_seen(table, member)[-1]


def shown_position(message: Message) -> Position:
    """The position a lesson's small print gives (``Lesson 3 · <position>``)."""
    return Position.parse(board_part(message, FOOTER).split(" · ", 1)[1])


async def try_turn(table: Table, member: Member, message: Message, turn: Turn) -> str:
    """``member`` builds ``turn`` with the lesson's buttons; the verdict shown."""
    await table.click_path(member, message, path_of(shown_position(message), turn))
    await table.emu.wait_for(
        lambda: board_part(message, STATUS).startswith(("✅", "❌")), what="the verdict"
    )
    return board_part(message, STATUS)


def split(lesson: Lesson) -> tuple[list[Turn], list[Turn]]:
    """The legal turns of the lesson's position its task refuses, and those it accepts."""
    turns = lesson.start.legal_turns()
    return (
        [turn for turn in turns if not judge(lesson, turn).passed],
        [turn for turn in turns if judge(lesson, turn).passed],
    )


async def test_a_newcomer_works_through_the_course_across_a_kill(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Every lesson: a wrong turn (what it did and why not), Try again, a right one, Next; the
    bot killed -9 in the middle, /tholos learn continues at the same lesson; the course's end,
    the stored progress and /tholos stats agree."""
    rng = random.Random(seed)
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    kill_at = rng.randrange(2, len(COURSE))
    await table.slash(alice, "tholos learn")
    seen = 0
    for number, lesson in enumerate(COURSE, start=1):
        message = await next_lesson(table, alice, seen)
        seen += 1
        assert f"Lesson {number} of {len(COURSE)}" in board_part(message, HEADER)
        assert shown_position(message) == lesson.start, "the lesson's own position"
        if number == kill_at:  # the bot dies with the lesson shown: it comes back to it
            assert await bot.kill() == -9
            await bot.start()
            await table.slash(alice, "tholos learn")
            message = await next_lesson(table, alice, seen)
            seen += 1
            assert f"Lesson {number} of" in board_part(message, HEADER), "where she stopped"
        wrong, right = split(lesson)
        miss = rng.choice(wrong)
        said = await try_turn(table, alice, message, miss)
        why = judge(lesson, miss).why
        assert said.startswith("❌ **Not yet:**") and f"(`{miss}`)" in said, said
        assert why is not None and why in said, said
        await table.click(alice, message, table.labelled(message, "Try again"))
        assert not board_part(message, STATUS).startswith("❌"), "the lesson from its start"
        hit = rng.choice(right)
        said = await try_turn(table, alice, message, hit)
        assert said.startswith("✅ **Done!**") and f"(`{hit}`)" in said, said
        if number < len(COURSE):
            assert "finished the course" not in said
            await table.click(alice, message, table.labelled(message, "Next lesson"))
        else:
            assert "You finished the course!" in said
            assert "Play your first game" in [b.get("label") for b in message.buttons]
    done = stored(
        bot, "SELECT lesson, misses, passed_at FROM lessons_done WHERE user_id = ?", alice.id
    )
    assert sorted(row[0] for row in done) == sorted(lesson.id for lesson in COURSE)
    assert all(misses == 1 and passed_at for _, misses, passed_at in done), done
    learner = stored(bot, "SELECT current, finished_at FROM learners WHERE user_id = ?", alice.id)
    assert learner[0][0] == "#end" and learner[0][1] is not None
    stats = await table.slash(alice, "tholos stats")
    fields = {f["name"]: f["value"] for f in stats.original.embeds[0]["fields"]}
    assert fields["Lessons"].startswith("🎓 Finished the course"), fields
    again = await table.slash(alice, "tholos learn")  # past the end: the course and its list
    assert again.original is not None and "You finished the course!" in again.original.text
    assert f"{len(COURSE)} of {len(COURSE)} lessons done" in again.original.text
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_lessons_replayed_from_the_list_and_a_stale_message(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """Lessons lists the course (the current one marked); a lesson opened from it starts at
    its own position; the autocomplete of ``lesson`` offers every lesson; a wrong path is
    refused politely and changes nothing."""
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    await table.slash(alice, "tholos learn")
    first = await next_lesson(table, alice, 0)
    await table.click(alice, first, table.labelled(first, "Lessons"))
    listing = [m for m in emulator.messages(table.channel, alice) if "**The course:**" in m.text]
    assert len(listing) == 1 and "0 of 23 lessons done" in listing[0].text
    labels = [b.get("label") for b in listing[0].buttons]
    assert labels == [f"{n}. {lesson.title}" for n, lesson in enumerate(COURSE, start=1)]
    chosen = COURSE[9]
    await table.click(alice, listing[0], table.labelled(listing[0], f"10. {chosen.title}"))
    opened = await next_lesson(table, alice, 1)
    assert shown_position(opened) == chosen.start
    ix = await table.autocomplete(alice, "tholos learn", "lesson", "orn")
    assert [c["value"] for c in ix.choices] == [
        lesson.id for lesson in COURSE if lesson.part == "advanced"
    ]
    forged = f"tholos:le:{chosen.id}:Zz:n"
    said = await reply(emulator, await table.click(alice, opened, forged, stale=True))
    assert "isn't available" in said, said
    assert stored(bot, "SELECT current FROM learners") == [(chosen.id,)]
    table.assert_clean()
    assert await bot.stop() == 0


async def reply(emulator: Emulator, ix: Interaction) -> str:
    """The text ``ix`` was answered with, once it is there (a followup after a defer)."""
    await emulator.wait_for(lambda: any(m.text for m in ix.messages), what="the answer")
    return "\n".join(m.text for m in ix.messages)
