"""Puzzles through the real bot: every puzzle it serves is read from its message and solved
again here by exhaustive search (its answer must be the only best turn); a member answers right
and wrong with the turn's buttons, across a kill -9, and reads the counts and ratings back; the
puzzle of the day is posted once per server and day by two processes on one PostgreSQL, across
a kill -9 in the moment between its post and its record, counts its solvers, and shows its
answer the next day. Every test ends with no failed interaction and no rule violation."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import re
import sqlite3
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import asyncpg

from engine import Position
from engine.puzzles import WIN, Puzzle, puzzle_in
from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member, Message
from tests.e2e.emulator.model import SEND_MESSAGES
from tests.e2e.table import FOOTER, HEADER, STATUS, Table, board_part, is_board, path_of
from tests.e2e.test_shards import SHARDS, shard_env
from tests.features.live.test_e2e_board import PATIENCE_MS, live_bot, open_page
from tests.postgres import PostgresServer

PUZZLE_SEEN = Path(os.environ.get("THOLOS_FRAME_DIR", tempfile.gettempdir())) / "puzzle.png"
"""Where the test leaves the live board's last verdict for a person to look at."""
PATIENCE = 60.0
"""How long a test waits for what another process writes."""
RATING = re.compile(r"Your puzzle rating: (\d+) → (\d+) \(([+−]\d+|±0)\)")


def stored(bot: BotProcess, sql: str, *parameters: object) -> list[tuple]:
    with sqlite3.connect(bot.db_path) as db:
        return db.execute(sql, parameters).fetchall()


def puzzles_seen(table: Table, member: Member) -> list[Message]:
    """The puzzle boards ``member`` was shown here, oldest first."""
    return [m for m in table.emu.messages(table.channel, member) if m.ephemeral and is_board(m)]


async def next_puzzle(table: Table, member: Member, count: int) -> Message:
    """Wait for ``member``'s puzzle number ``count + 1`` here."""
    await table.emu.wait_for(lambda: len(puzzles_seen(table, member)) > count, what="a puzzle")
    return puzzles_seen(table, member)[-1]


def _solved(position: str) -> Puzzle | None:
    return puzzle_in(Position.parse(position), "served")


async def solved(position: Position) -> Puzzle | None:
    """The puzzle ``position`` makes, by an exhaustive search in another process (here it
    would hold up the emulator, which runs on this process's loop)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return await asyncio.get_running_loop().run_in_executor(pool, _solved, str(position))


async def solved_here(message: Message) -> tuple[Position, str]:
    """The puzzle a message shows, solved independently: its position (from the small print)
    and its one answer, proven unique by exhaustive search; the caption must say it."""
    position = Position.parse(board_part(message, FOOTER).split(" · ", 1)[1])
    found = await solved(position)
    assert found is not None, f"{position} is not a puzzle: its best turn is not unique"
    colour = "White" if position.turn == 0 else "Black"
    goal = "win" if found.best == WIN else "hold the draw"
    assert f"**{colour} to play and {goal}.**" in board_part(message, HEADER)
    assert (message.attachments[0].description or "").startswith(f"{colour} to play and {goal}")
    return position, str(found.answer)


async def answer(table: Table, member: Member, message: Message, turn: str) -> str:
    """``member`` builds ``turn`` with the puzzle's buttons; the verdict shown."""
    position = Position.parse(board_part(message, FOOTER).split(" · ", 1)[1])
    await table.click_path(member, message, path_of(position, turn))
    await table.emu.wait_for(
        lambda: (
            "puzzle rating" in board_part(message, STATUS)
            or "counts once" in board_part(message, STATUS)
        ),
        what="the verdict",
    )
    return board_part(message, STATUS)


async def polled(connection: asyncpg.Connection, query: str, *arguments: object) -> object:
    """The first value of ``query`` once it is not ``NULL`` (other processes write it)."""
    async with asyncio.timeout(PATIENCE):
        while (value := await connection.fetchval(query, *arguments)) is None:
            await asyncio.sleep(0.05)
    return value


def wrong_turn(position: Position, right: str) -> str:
    return next(str(turn) for turn in position.legal_turns() if str(turn) != right)


async def test_a_member_solves_and_fails_puzzles_across_a_kill(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Five puzzles with /tholos puzzle and Next: right, wrong, right across a kill -9 (the
    same puzzle comes back), one at random, and one whose answer she asks to see (a miss);
    each verdict's rating move, the stored counts and /tholos stats agree."""
    rng = random.Random(seed)
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    shipped = stored(bot, "SELECT COUNT(*) FROM puzzles")[0][0]
    assert shipped >= 25, "the shipped set is there at once"
    ratings, count = [1500], 0
    await table.slash(alice, "tholos puzzle")
    for number in range(5):
        shown = await next_puzzle(table, alice, count)
        count += 1
        position, right = await solved_here(shown)
        if number == 2:  # shown, not answered: the bot dies and comes back
            assert await bot.kill() == -9
            await bot.start()
            await table.slash(alice, "tholos puzzle")
            again = await next_puzzle(table, alice, count)
            count += 1
            assert board_part(again, FOOTER) == board_part(shown, FOOTER), "the same puzzle"
            shown = again
        correct = number not in (1, 4) if number != 3 else rng.random() < 0.5
        if number == 4:  # she asks for the answer: a miss
            await table.click(alice, shown, table.labelled(shown, "Show the answer"))
            await emulator.wait_for(
                lambda s=shown: "puzzle rating" in board_part(s, STATUS), what="the answer shown"
            )
            said = board_part(shown, STATUS)
            assert said.startswith("💡 **The answer:**"), said
        else:
            turn = right if correct else wrong_turn(position, right)
            said = await answer(table, alice, shown, turn)
            assert said.startswith("✅ **Right!**" if correct else "❌ **Not this one:**"), said
        assert f"`{right}`" in said, "the answer is shown"
        found = RATING.search(said)
        assert found is not None, said
        before, after = int(found[1]), int(found[2])
        assert before == ratings[-1] and (after > before) == correct, said
        change = 0 if found[3] == "±0" else int(found[3].replace("−", "-"))
        assert change == after - before, said
        ratings.append(after)
        if number < 4:
            await table.click(alice, shown, table.labelled(shown, "Next puzzle"))
    rows = stored(bot, "SELECT correct, rated FROM puzzle_attempts ORDER BY id")
    assert len(rows) == 5 and all(rated for _, rated in rows), "one attempt a puzzle shown"
    player = stored(bot, "SELECT rating, attempts, solved FROM puzzle_players")[0]
    assert round(player[0]) == ratings[-1] and player[1] == 5
    assert player[2] == sum(correct for correct, _ in rows)
    stats = await table.slash(alice, "tholos stats")
    fields = {f["name"]: f["value"] for f in stats.original.embeds[0]["fields"]}
    assert fields["Puzzles"].startswith(f"Rating {ratings[-1]} · solved {player[2]} of 5")
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_the_puzzle_of_the_day_once_per_server_across_processes_and_a_kill(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    url = await postgres_server.create_database()
    other = emulator.add_guild("Shard 1", shard=(1, SHARDS))
    first, second = (
        spawn_bot(emulator, env=shard_env(url, shard), guild_commands=False) for shard in (0, 1)
    )
    await first.start(sync=True)
    await second.start()
    tables = [Table(emulator, "general"), Table(emulator, "games", guild=other)]
    home = tables[0]
    alice, bob, carol = home.people_named("alice", "bob", "carol")
    for table in tables:
        await table.slash(alice, "tholos-admin settings", daily_puzzle="on")

    def dailies(table: Table) -> list[Message]:
        return [
            m
            for m in emulator.messages(table.channel)
            if is_board(m) and "Puzzle of the day" in board_part(m, HEADER)
        ]

    for table in tables:
        await emulator.wait_for(lambda table=table: len(dailies(table)) == 1, what="the post")
    connection = await asyncpg.connect(url)
    try:
        for table in tables:  # each post is recorded once it is out (the record may lag)
            await polled(
                connection,
                "SELECT message_id FROM daily_puzzles WHERE guild_id = $1",
                table.guild.id if table.guild else 0,
            )
        rows = await connection.fetch("SELECT guild_id, day, message_id FROM daily_puzzles")
        assert len(rows) == 2 and all(row["message_id"] for row in rows)
        # The moment between the post and its record: the message is out, not recorded.
        await connection.execute(
            "UPDATE daily_puzzles SET message_id = NULL WHERE guild_id = $1", other.id
        )
        assert await second.kill() == -9
        third = spawn_bot(emulator, env=shard_env(url, 1), guild_commands=False)
        await third.start()
        recorded = await polled(
            connection, "SELECT message_id FROM daily_puzzles WHERE guild_id = $1", other.id
        )
        assert recorded == dailies(tables[1])[0].id, "the resend was answered with the first"
        assert [len(dailies(table)) for table in tables] == [1, 1], "once per server and day"
        daily = dailies(home)[0]
        position, right = await solved_here(daily)
        assert "Solved by 0 of 0." in board_part(daily, STATUS)
        for member, turn in ((bob, right), (carol, wrong_turn(position, right))):
            await home.click(member, daily, home.labelled(daily, "Solve it"))
            shown = await next_puzzle(home, member, 0)
            assert board_part(shown, FOOTER) == board_part(daily, FOOTER)
            await answer(home, member, shown, turn)
        await first.settle()
        await emulator.wait_for(
            lambda: "Solved by 1 of 2." in board_part(daily, STATUS), what="the tally"
        )
        assert f"First to solve it: <@{bob.id}>." in board_part(daily, STATUS)
        await home.click(bob, daily, home.labelled(daily, "Solve it"))
        assert "✅ **Right!**" in home.ephemeral(bob)[-1], "answered already: the first answer"
        # The next day: the day's row is moved to yesterday, and the loop woken.
        await connection.execute("UPDATE daily_puzzles SET day = '2000-01-01'")
        await home.slash(alice, "tholos-admin settings", daily_puzzle="on")
        await emulator.wait_for(lambda: len(dailies(home)) == 2, what="the next day's post")
        await emulator.wait_for(
            lambda: "The answer:" in board_part(daily, STATUS), what="yesterday's answer"
        )
        assert f"`{right}`" in board_part(daily, STATUS) and not daily.buttons
        assert board_part(dailies(home)[1], FOOTER) != board_part(daily, FOOTER)
    finally:
        await connection.close()
    for table in tables:
        table.assert_clean()
    for process in (first, third):
        assert await process.stop() == 0
        process.assert_clean_log()
        assert postgres_server.password not in process.log()


async def test_puzzles_on_the_live_board(emulator: Emulator, spawn_bot: SpawnBot, seed: int):
    """Alice opens the live board where no game is played and asks for a puzzle: the page
    draws it (the same one ``/tholos puzzle`` gives her on Discord); she builds the one answer
    by clicking and hears she is right; the next one she answers at random; the third she asks
    to see (a miss)."""
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    await emulator.launch_entry_point(alice, table.channel)
    async with chromium() as browser:
        page = await open_page(browser, emulator, port, alice, table)
        await page.locator("#puzzle").click()
        answered: list[bool] = []
        for number, correct in enumerate((True, rng.random() < 0.5, False)):
            await page.wait_for_function(
                "() => document.body.dataset.game === '0' && !document.body.dataset.verdict"
                " && document.querySelector('#small-print').textContent.startsWith('Puzzle')",
                timeout=PATIENCE_MS,
            )
            small = await page.locator("#small-print").inner_text()
            position = Position.parse(small.split(" · ", 1)[1])
            found = await solved(position)
            assert found is not None, f"{position} is not a puzzle"
            if number == 0:  # Discord shows her the same open puzzle
                await table.slash(alice, "tholos puzzle")
                shown = await next_puzzle(table, alice, 0)
                assert board_part(shown, FOOTER) == f"-# {small}"
            right = str(found.answer)
            if number == 2:
                await page.locator("#reveal").click()
            else:
                path = path_of(position, right if correct else wrong_turn(position, right))
                for depth in range(1, len(path) + 1):
                    await page.locator(f'button[data-path="{path[:depth]}"]').click()
                await page.locator("#confirm").click()
            await page.wait_for_function("() => document.body.dataset.verdict", timeout=PATIENCE_MS)
            verdict = await page.locator("#notice").inner_text()
            assert await page.evaluate("document.body.dataset.verdict") == (
                "right" if correct else "wrong"
            ), verdict
            heard = "✅ Right!" if correct else "❌ Not this one:"
            assert verdict.startswith(heard if number < 2 else "💡 The answer:"), verdict
            assert right in verdict and "Your puzzle rating: " in verdict
            answered.append(correct)
            await page.screenshot(path=str(PUZZLE_SEEN))
            await page.locator("#next-puzzle").click()
    rows = stored(
        bot, "SELECT correct, answer FROM puzzle_attempts WHERE answered_at IS NOT NULL ORDER BY id"
    )
    assert [bool(row[0]) for row in rows] == [True, answered[1], False]
    assert rows[2][1] is None and rows[1][1] is not None
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_channel_the_bot_cannot_post_in_gets_no_puzzle_of_the_day(
    emulator: Emulator, tholos_bot: BotProcess
):
    """An admin who picks a channel where the bot may not post hears what it lacks, and
    nothing is saved; a channel that loses the bot's permission after it was chosen gets no
    post that day (said once in the log), and nothing is refused by Discord."""
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    read_only = emulator.channel("read-only")
    await table.slash(alice, "tholos-admin settings", puzzle_channel=read_only)
    said = table.ephemeral(alice)[-1]
    assert said.startswith(f"I can't post the puzzle of the day in <#{read_only.id}>"), said
    assert "Send Messages" in said
    assert stored(tholos_bot, "SELECT puzzle_channel FROM guild_settings") in ([], [(None,)])
    games = emulator.channel("games")
    await table.slash(alice, "tholos-admin settings", puzzle_channel=games)
    await emulator.wait_for(
        lambda: any(is_board(m) for m in emulator.messages(games)), what="the day's post in #games"
    )
    emulator.deny(games, SEND_MESSAGES)
    with sqlite3.connect(tholos_bot.db_path) as db:  # the next day: no post allowed
        db.execute("UPDATE daily_puzzles SET day = '2000-01-01'")
    await table.slash(alice, "tholos-admin settings", challenge_minutes=60)  # wakes the loop
    await emulator.wait_for(
        lambda: "cannot post server" in tholos_bot.log(), what="the refusal in the log"
    )
    await tholos_bot.settle()
    assert sum(is_board(m) for m in emulator.messages(games)) == 1
    assert tholos_bot.log().count("cannot post server") == 1
    table.assert_clean()
