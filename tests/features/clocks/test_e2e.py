"""Live games through the real bot, against the emulator's clock: Discord's time moves (the
emulator backdates or postdates new messages and interactions) so that no test waits minutes.

Every test ends with no failed interaction and no rule violation recorded by the emulator.
"""

from __future__ import annotations

import io
import os
import random
import re
import sqlite3
import tempfile
import time
from pathlib import Path

from PIL import Image

from engine.record import read_record
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table, path_of, press_paths

FRAME_SEEN = Path(os.environ.get("THOLOS_FRAME_DIR", tempfile.gettempdir())) / "clocks-frame.png"
"""Where the test leaves a replay frame for a person to look at."""
CLOCK_LINE = re.compile(r"⏱️ Clock (\S+): (.*)")
RUNS_OUT = re.compile(r"<t:(\d+):R>")


def clock_line(table: Table) -> str:
    """The newest board's clock line."""
    found = CLOCK_LINE.search(table.status())
    assert found, f"no clock on {table.status()!r}"
    return found[0]


def stored(bot: BotProcess, sql: str, *parameters: object) -> list[tuple]:
    with sqlite3.connect(bot.db_path) as db:
        return db.execute(sql, parameters).fetchall()


async def test_a_live_game_is_won_on_time_across_a_kill_just_before_the_flag(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    rng = random.Random(seed)
    board = await table.start_game(alice, bob, pace="3+2")
    assert "Claim" not in str(board.buttons), "no idle claim in a live game"
    line = clock_line(table)
    assert line.startswith("⏱️ Clock 3+2: ⚪ White 3:00 ⏳ out of time <t:") and "Black 3:00" in line
    await table.play(rng.choice(table.position().legal_turns()))  # Alice
    # Bob plays; Alice's next board is posted 176 s ago by Discord's clock: hers runs out
    # about 6 s from now (her 3:02, less the 176 s)
    emulator.clock_offset = -176.0
    await table.play(rng.choice(table.position().legal_turns()))
    emulator.clock_offset = 0.0
    line = clock_line(table)
    shown = int(RUNS_OUT.search(line)[1])
    flag = "SELECT flag_at FROM games"
    await emulator.wait_for(lambda: stored(tholos_bot, flag) != [(None,)], what="her clock")
    ((flag_at,),) = stored(tholos_bot, flag)
    assert table.mover().id == alice.id and 3 <= flag_at - time.time() <= 8, line
    assert abs(shown - flag_at) <= 1.5, "the board shows when her clock runs out"
    await emulator.wait_for(lambda: time.time() >= flag_at - 1.5, what="1.5 s before the flag")
    assert await tholos_bot.kill() == -9  # the flag falls while the bot is down
    await tholos_bot.start()
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="the flag")
    assert f"<@{bob.id}> wins" in table.status() and "on time" in table.status()
    assert len([b for b in table.boards() if "Game over." in table.status(b)]) == 1
    ((status, result, reason, white, black, flagged),) = stored(
        tholos_bot,
        "SELECT status, result, reason, white_clock, black_clock, flag_at FROM games",
    )
    assert (status, result, reason, white, flagged) == ("finished", "black", "timeout", 0, None)
    clocks = [row[0] for row in stored(tholos_bot, "SELECT clock FROM turns ORDER BY ply")]
    assert clocks[0] > 170 and clocks[1] == black  # each turn's clock, with its increment
    await tholos_bot.settle()

    final = table.board
    shown = (await table.click(alice, final, table.labelled(final, "Record"))).original
    record = read_record(shown.attachments[0].data.decode())
    assert record.time_control == "180+2" and record.termination == "timeout"
    assert record.clocks == tuple(int(clock) for clock in clocks)
    await table.click(bob, final, table.labelled(final, "Replay"))
    replay = await table.private_file(bob)
    frames = Image.open(io.BytesIO(replay.attachments[0].data))
    assert frames.n_frames == len(clocks) + 2
    frames.seek(1)
    frames.convert("RGB").save(FRAME_SEEN)  # looked at: "Turn 1 of 2 · White 2:58 · Black 3:00"
    table.assert_clean()


async def test_a_turn_that_reaches_the_bot_after_the_flag_is_refused_with_the_result(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob, pace="3+2")
    turn = random.Random(seed).choice(table.position().legal_turns())
    emulator.clock_offset = 200.0  # Alice presses 200 s after her board: 20 s too late
    path = path_of(table.position(board), turn)
    for press in press_paths(table.position(board), path):
        last = await table.click(alice, board, table.custom_id(board, f":{press}:n"))
        if "Time's up" in board.text:
            break
    emulator.clock_offset = 0.0
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="the result")
    assert "Time's up" in board.text and not board.buttons
    assert f"<@{bob.id}> wins" in table.status() and "on time" in table.status()
    assert stored(tholos_bot, "SELECT COUNT(*) FROM turns") == [(0,)]
    assert stored(tholos_bot, "SELECT reason, white_clock FROM games") == [("timeout", 0)]
    assert last.acknowledged
    await tholos_bot.settle()
    table.assert_clean()


async def test_servers_choose_their_default_pace_and_clocks(
    emulator: Emulator, tholos_bot: BotProcess
):
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    refused = await table.slash(alice, "tholos-admin settings", clocks="5+5,7+1")
    assert any("don't have these clocks: 7+1" in m.text for m in refused.messages)
    refused = await table.slash(alice, "tholos-admin settings", clocks="10+5", default_pace="5+5")
    assert any("must be correspondence or an offered clock" in m.text for m in refused.messages)
    saved = await table.slash(alice, "tholos-admin settings", clocks="5+5,10+5", default_pace="5+5")
    fields = {f["name"]: f["value"] for f in saved.original.embeds[0]["fields"]}
    assert fields["Default pace"] == "live clock 5+5"
    assert fields["Live clocks offered"] == "5+5, 10+5"
    turned_away = await table.slash(alice, "tholos challenge", opponent=bob, pace="3+2")
    assert any("doesn't offer the 3+2 clock" in m.text for m in turned_away.messages)
    made = (await table.slash(alice, "tholos challenge", opponent=bob)).original
    assert "live clock 5+5" in made.text
    table.assert_clean()
