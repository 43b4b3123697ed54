"""Ratings end to end: games between members with settled ratings, then ``/leaderboard`` (the
server's, the live pool's, the global one) and ``/tholos stats``; the leaderboard's pages across
a restart."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from bot.storage import open_database
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.table import Table
from tests.glicko2_paper import Player, Row, later, replay

SETTLED = 60.0
"""The deviation of the members' settled ratings: on the leaderboards (90 or less)."""


async def resign_game(table: Table, white: Member, black: Member, loser: Member) -> None:
    """``white`` challenges ``black``; after one turn, ``loser`` resigns."""
    await table.start_game(white, black)
    await table.play("+w1")
    ask = (await table.slash(loser, "tholos resign")).original
    assert ask is not None
    await table.click(loser, ask, table.labelled(ask, "Yes, resign"))
    await table.emu.wait_for(lambda: table.status().startswith("Game over."), what="the end")


def settle(path: Path, guild_id: int, ratings: dict[int, tuple[float, float]], at: float) -> None:
    """Correspondence ratings (user → rating, deviation) rated at ``at``, members of the
    server's board, written into the running bot's database."""
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) "
            "VALUES ('correspondence', ?, ?, ?, 0.06, 30, 15, 15, 0, ?)",
            [(user, rating, deviation, at) for user, (rating, deviation) in ratings.items()],
        )
        db.executemany(
            "INSERT INTO server_players (guild_id, user_id) VALUES (?, ?)",
            [(guild_id, user) for user in ratings],
        )


def expected_rows(path: Path, seeded: dict[int, tuple[float, float]], at: float) -> dict[int, Row]:
    """The tests' own Glicko-2 from the seeded rows and the stored games, in rating order."""
    with sqlite3.connect(path) as db:
        games = db.execute(
            "SELECT white_id, black_id, result, finished_at, time_control, ai_level, ai_id "
            "FROM games WHERE status = 'finished' AND rated ORDER BY rated_seq"
        ).fetchall()
    start = {
        ("correspondence", user): Row(Player(rating, deviation), 30, 15, 15, 0, at)
        for user, (rating, deviation) in seeded.items()
    }
    return {user: row for (_, user), row in replay(games, start).items()}


async def test_leaderboards_and_stats_after_games_between_settled_members(
    emulator: Emulator, tholos_bot: BotProcess
):
    """The order, ratings, deviations (grown to the moment shown) and records shown match the
    games played, as the tests' own Glicko-2 recomputes them; an unsettled member is left off;
    the live pool's board is empty; the global board lists who joined the pool, by name."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    unsettled = 7  # a member of the server's board whose deviation is too wide
    empty = await table.slash(carol, "leaderboard")
    assert empty.original is not None and "Nobody is on this leaderboard yet" in empty.original.text
    seeded = {
        alice.id: (1500.0, SETTLED),
        bob.id: (1520.0, SETTLED),
        carol.id: (1480.0, SETTLED),
        unsettled: (1900.0, 200.0),
    }
    at = time.time()
    settle(tholos_bot.db_path, table.guild.id, seeded, at)
    games = [(alice, bob, bob), (carol, bob, bob), (alice, carol, carol), (bob, carol, carol)]
    for white, black, loser in games:
        await resign_game(table, white, black, loser)
    rows = expected_rows(tholos_bot.db_path, seeded, at)
    shown_at = time.time()
    board = (await table.slash(carol, "leaderboard")).original
    now = {
        user: later(row.player, (shown_at - row.at) / (4.665 * 86400)) for user, row in rows.items()
    }
    ranked = [user for user in rows if now[user].rd <= 90]
    assert sorted(ranked) == sorted((alice.id, bob.id, carol.id))
    order = sorted(ranked, key=lambda user: (-now[user].r, user))
    assert board is not None and not board.ephemeral
    embed = board.embeds[0]
    assert embed["title"] == "Tholos leaderboard · correspondence"
    lines = embed["description"].splitlines()
    for rank, (user, line) in enumerate(zip(order, lines, strict=True), start=1):
        shown, row = now[user], rows[user]
        assert line.startswith(f"`#{rank}` <@{user}> **{shown.r:.0f}** ±{shown.rd:.0f} · "), line
        assert line.endswith(f" · {row.wins}–{row.losses}–{row.draws}"), line
    you = next(f["value"] for f in embed["fields"] if f["name"] == "You")
    assert you.startswith(f"<@{carol.id}>: #{order.index(carol.id) + 1} ·")
    stats = (await table.slash(bob, "tholos stats", options={"member": alice})).original
    assert stats is not None
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Record"].startswith("2 W · 0 L · 0 D")
    assert fields["Rating"].startswith(f"Correspondence: #{order.index(alice.id) + 1} of 3 · **")
    assert fields["Current streak"] == "2 wins"
    assert fields["Last games"].count("by resignation") == 2
    live = await table.slash(alice, "leaderboard", options={"pace": "live"})
    assert live.original is not None and "Nobody is on this leaderboard yet" in live.original.text
    with sqlite3.connect(tholos_bot.db_path) as db:
        db.execute(
            "INSERT INTO pool_members (user_id, name, joined_at) VALUES (?, 'Bob *Global*', 0)",
            (bob.id,),
        )
    everyone = (await table.slash(alice, "leaderboard", options={"scope": "global"})).original
    assert everyone is not None
    assert everyone.embeds[0]["title"] == "Tholos leaderboard · correspondence · global"
    (line,) = everyone.embeds[0]["description"].splitlines()
    assert line.startswith("`#1` Bob \\*Global\\* **")
    you = next(f["value"] for f in everyone.embeds[0]["fields"] if f["name"] == "You")
    assert "the global board lists the members who joined the pool" in you
    with sqlite3.connect(tholos_bot.db_path) as db:
        db.execute("UPDATE member_ratings SET deviation = 200 WHERE user_id = ?", (carol.id,))
    theirs = (await table.slash(carol, "leaderboard")).original
    assert theirs is not None and f"<@{carol.id}>" not in theirs.embeds[0]["description"]
    you = next(f["value"] for f in theirs.embeds[0]["fields"] if f["name"] == "You")
    assert you.endswith("(provisional) — on the board once ± is 90 or less."), you
    table.assert_clean()


async def test_leaderboard_pages_work_after_a_restart(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
):
    """25 ranked members: 3 pages; Next and Previous keep working on the same message after a
    restart, and so does a button of the format posted before keyset paging."""
    path = tmp_path / "ranked.db"
    database = await open_database(str(path))
    await database.close()
    ranked = {user: (2000.0 - user, SETTLED) for user in range(1, 26)}
    settle(path, emulator.guild.id, ranked, time.time())
    bot = spawn_bot(emulator, db_path=path)
    await bot.start(sync=True)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    board = (await table.slash(alice, "leaderboard")).original
    assert board is not None
    assert "Page 1 of 3" in board.embeds[0]["footer"]["text"]
    assert board.embeds[0]["description"].splitlines()[0].startswith("`#1` <@1> **1999**")
    assert [b.get("disabled", False) for b in board.buttons] == [True, False]
    await table.click(alice, board, table.labelled(board, "Next"))
    assert "Page 2 of 3" in board.embeds[0]["footer"]["text"]
    assert board.embeds[0]["description"].splitlines()[0].startswith("`#11` <@11>")
    assert await bot.restart() == 0
    await table.click(alice, board, table.labelled(board, "Next"))
    assert "Page 3 of 3" in board.embeds[0]["footer"]["text"]
    assert len(board.embeds[0]["description"].splitlines()) == 5
    assert [b.get("disabled", False) for b in board.buttons] == [False, True]
    await table.click(alice, board, table.labelled(board, "Previous"))
    assert "Page 2 of 3" in board.embeds[0]["footer"]["text"]
    assert board.embeds[0]["description"].splitlines()[0].startswith("`#11` <@11>")
    # A button posted before keyset paging carries only the page: it still works.
    await table.click(alice, board, "tholos:lb:2:n", stale=True)
    assert "Page 3 of 3" in board.embeds[0]["footer"]["text"]
    assert board.embeds[0]["description"].splitlines()[0].startswith("`#21` <@21>")
    assert table.labelled(board, "Next") == "tholos:lbp:correspondence:server:3:n:1975.0:25"
    table.assert_clean()
    assert await bot.stop() == 0


async def test_outside_servers_with_the_bot_the_leaderboard_is_the_global_one(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """``/leaderboard`` is offered in the DM with the bot, in DMs between members and in a
    server without the bot (a user install): each shows the global board, whatever ``scope``
    asks; in a server with the bot, its own board."""
    bot = spawn_bot(emulator, guild_commands=False)
    await bot.start(sync=True)
    alice = emulator.member("alice")
    dave = emulator.add_user("dave")
    emulator.install_for_user(dave)
    at = time.time()
    settle(bot.db_path, emulator.guild.id, {alice.id: (1600.0, SETTLED)}, at)
    with sqlite3.connect(bot.db_path) as db:
        db.execute(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) VALUES ('correspondence', ?, 1700, ?, 0.06, 30, "
            "20, 10, 0, ?)",
            (dave.id, SETTLED, at),
        )
        db.execute(
            "INSERT INTO pool_members (user_id, name, joined_at) VALUES (?, 'Dave', 0)",
            (dave.id,),
        )
    places = [
        emulator.dm_channel(dave),
        emulator.dm_between(dave, alice),
        emulator.channel("general", emulator.add_guild_without_bot("Elsewhere", [dave])),
    ]
    for place in places:
        ix = await emulator.slash(dave, "leaderboard", channel=place, scope="server")
        shown = ix.original
        assert shown is not None and not shown.ephemeral, place.name
        assert shown.embeds[0]["title"] == "Tholos leaderboard · correspondence · global"
        assert shown.embeds[0]["description"].startswith("`#1` Dave **1700**")
    here = (await emulator.slash(alice, "leaderboard")).original
    assert here is not None and here.embeds[0]["title"] == "Tholos leaderboard · correspondence"
    assert here.embeds[0]["description"].startswith(f"`#1` <@{alice.id}> **1600**")
    bot.assert_clean_log()
