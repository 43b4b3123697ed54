"""After the game, end to end: ``/tholos history`` paged with its buttons, the final board's
Replay (an animated image whose frames are the game's turns + the start + the final scoring),
Record (a file ``python -m engine replay`` accepts) and Review (one public message that shows
the progress, then the AI's review, stored: pressing again shows it to the presser)."""

from __future__ import annotations

import io
import random
import sqlite3
import subprocess
import sys

from PIL import Image

from engine.newgame import new_game
from engine.play import random_game
from engine.record import read_record
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.table import Table


async def play_and_resign(table: Table, white: Member, black: Member, turns: list[str]) -> None:
    """A short game: ``turns``, then ``black`` resigns."""
    await table.start_game(white, black)
    for turn in turns:
        await table.play(turn)
    ask = await table.slash(black, "tholos resign")
    assert ask.original is not None
    count = len(table.boards())
    await table.click(black, ask.original, table.labelled(ask.original, "Yes, resign"))
    await table.emu.wait_for(lambda: len(table.boards()) > count, what="the final board")
    assert table.status().startswith("Game over.")


async def test_history_lists_a_members_games_newest_first_paged(
    emulator: Emulator, tholos_bot: BotProcess
):
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    for opponent in (bob, carol) * 6:
        await play_and_resign(table, alice, opponent, ["+w1"])
    asked = await emulator.slash(
        bob, "tholos history", channel=table.channel, options={"member": alice}
    )
    shown = asked.original
    assert shown is not None and not shown.ephemeral
    head, _, *lines = shown.embeds[0]["description"].splitlines()
    assert head == f"<@{alice.id}>", "another member's history is not counted"
    assert len(lines) == 10 and all(line.startswith("✅ W") for line in lines)
    assert f"<@{carol.id}>" in lines[0] and f"<@{bob.id}>" in lines[1]
    assert all("[final board](https://discord.com/channels/" in line for line in lines)
    assert shown.embeds[0]["footer"]["text"] == "Page 1"
    await table.click(carol, shown, table.labelled(shown, "Next"))
    assert len(shown.embeds[0]["description"].splitlines()) == 2 + 2
    assert shown.embeds[0]["footer"]["text"] == "Page 2"
    await table.click(carol, shown, table.labelled(shown, "Previous"))
    assert shown.embeds[0]["description"].splitlines()[2:] == lines
    own = (await table.slash(alice, "tholos history")).original
    assert own is not None and own.embeds[0]["footer"]["text"] == "Page 1 of 2"
    assert own.embeds[0]["description"].splitlines()[0] == f"<@{alice.id}> · 12 finished games"
    await table.click(alice, own, table.labelled(own, "Next"))
    assert own.embeds[0]["footer"]["text"] == "Page 2 of 2"
    assert len(own.embeds[0]["description"].splitlines()) == 2 + 2
    await table.click(alice, own, table.labelled(own, "Previous"))
    assert own.embeds[0]["description"].splitlines()[2:] == lines
    mine = (await table.slash(bob, "tholos history")).original
    assert mine is not None
    head, _, *lost = mine.embeds[0]["description"].splitlines()
    assert head.endswith(" · 6 finished games")
    assert len(lost) == 6 and all(line.startswith("❌ L") for line in lost)
    table.assert_clean()


async def test_replay_and_record_of_a_finished_game(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    turns = [str(turn) for turn in random_game(new_game(), random.Random(seed)).turns[:5]]
    await play_and_resign(table, alice, bob, turns)
    final = table.board
    labels = [button.get("label") for button in final.buttons]
    assert labels == ["Rematch", "Replay", "Record", "Review"]
    await table.click(bob, final, table.labelled(final, "Replay"))
    replay = await table.private_file(bob)
    animation = Image.open(io.BytesIO(replay.attachments[0].data))
    assert animation.n_frames == len(turns) + 2
    assert not any(m.attachments for m in emulator.messages(table.channel, alice) if m.ephemeral)
    pressed = await table.click(alice, final, table.labelled(final, "Record"))
    assert pressed.original is not None and pressed.original.ephemeral
    record_ix = await table.slash(alice, "tholos record")
    assert record_ix.original is not None and record_ix.original.ephemeral
    text = record_ix.original.attachments[0].data.decode()
    assert pressed.original.attachments[0].data.decode() == text
    record = read_record(text)
    assert [str(turn) for turn in record.turns] == turns
    assert record.termination == "resignation" and record.result == "1-0"
    checked = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines()[0] == str(table.position(final))
    table.assert_clean()


async def test_review_shows_progress_survives_a_kill_and_is_stored(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    """Review: one public message shows the progress; the bot is killed while the AI works
    and the restarted bot finishes the review on the same message (accuracy for both players,
    their biggest mistakes, the chart); pressing again shows the stored review privately."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    turns = [str(turn) for turn in random_game(new_game(), random.Random(seed)).turns[:24]]
    await play_and_resign(table, alice, bob, turns)
    final = table.board
    await table.click(carol, final, table.labelled(final, "Review"))
    progress = next(
        m
        for m in emulator.messages(table.channel)
        if "reviewing" in m.content or "as soon as it can" in m.content
    )
    assert not progress.ephemeral

    def shown_on(message_id: int) -> bool:
        with sqlite3.connect(tholos_bot.db_path) as db:
            return db.execute("SELECT message_id FROM reviews").fetchone() == (message_id,)

    await emulator.wait_for(lambda: shown_on(progress.id), what="the review's message stored")
    assert await tholos_bot.kill() == -9
    with sqlite3.connect(tholos_bot.db_path) as db:
        status = db.execute("SELECT status FROM reviews").fetchone()[0]
    assert status in ("queued", "running"), "the kill came before the review was done"
    await tholos_bot.start()
    await emulator.wait_for(
        lambda: progress.embeds and progress.embeds[0]["title"].startswith("AI review"),
        timeout=300,
        what="the review on its message",  # at low priority
    )
    embed = progress.embeds[0]
    assert embed["title"] == f"AI review: {table_name(alice)} vs {table_name(bob)}"

    def stored() -> bool:
        with sqlite3.connect(tholos_bot.db_path) as db:
            return db.execute("SELECT status FROM reviews").fetchone() == ("done",)

    await emulator.wait_for(stored, what="the review stored (right after it is shown)")
    names = [field["name"] for field in embed["fields"]]
    assert len(names) == 2 and all("accuracy" in name and "%" in name for name in names)
    chart = progress.attachments[0].image()
    assert chart.size == (800, 260)
    await table.click(alice, final, table.labelled(final, "Review"))
    stored = [m for m in emulator.messages(table.channel, alice) if m.ephemeral and m.embeds]
    assert stored and stored[-1].embeds[0]["title"] == embed["title"]
    with sqlite3.connect(tholos_bot.db_path) as db:
        assert db.execute("SELECT status, done, total FROM reviews").fetchone() == (
            "done",
            len(turns) + 1,
            len(turns) + 1,
        )
    assert (
        sum(
            "AI review" in (m.embeds[0]["title"] if m.embeds else "")
            for m in emulator.messages(table.channel)
        )
        == 1
    )
    table.assert_clean()


def table_name(member: Member) -> str:
    """The display name the bot stores for a member."""
    return member.user.global_name or member.user.username
