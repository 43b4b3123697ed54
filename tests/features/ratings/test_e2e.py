"""Ratings end to end: games between three members, then /leaderboard and /tholos stats."""

from __future__ import annotations

from pathlib import Path

from bot.base.glicko2 import Rating, rate
from bot.storage import open_database
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.table import Table


async def resign_game(table: Table, white: Member, black: Member, loser: Member) -> None:
    """``white`` challenges ``black``; after one turn, ``loser`` resigns."""
    await table.start_game(white, black)
    await table.play("+w1")
    ask = (await table.slash(loser, "tholos resign")).original
    assert ask is not None
    await table.click(loser, ask, table.labelled(ask, "Yes, resign"))
    await table.emu.wait_for(lambda: table.status().startswith("Game over."), what="the end")


def expected_ratings(results: list[tuple[int, int]]) -> dict[int, Rating]:
    """Glicko-2 replayed from (winner, loser) pairs, one rating period per game."""
    ratings: dict[int, Rating] = {}
    for winner, loser in results:
        won, lost = ratings.get(winner, Rating()), ratings.get(loser, Rating())
        ratings[winner] = rate(won, [(lost, 1.0)])
        ratings[loser] = rate(lost, [(won, 0.0)])
    return ratings


async def test_leaderboard_and_stats_after_games_between_three_members(
    emulator: Emulator, tholos_bot: BotProcess
):
    """The order, ratings, deviations and records shown match the games played."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    empty = await table.slash(carol, "leaderboard")
    assert empty.original is not None and "No rated games" in empty.original.text
    games = [(alice, bob, bob), (carol, bob, bob), (alice, carol, carol), (bob, carol, carol)]
    for white, black, loser in games:
        await resign_game(table, white, black, loser)
    results = [
        (black.id if loser is white else white.id, loser.id) for white, black, loser in games
    ]
    expected = expected_ratings(results)
    order = sorted(expected, key=lambda user: (-expected[user].rating, user))
    board = (await table.slash(carol, "leaderboard")).original
    assert board is not None and not board.ephemeral
    lines = board.embeds[0]["description"].splitlines()
    assert [f"<@{user}>" in line for user, line in zip(order, lines, strict=True)] == [True] * 3
    for user, line in zip(order, lines, strict=True):
        shown = expected[user]
        assert f"**{shown.rating:.0f}** ±{shown.deviation:.0f} (provisional)" in line
    you = next(f["value"] for f in board.embeds[0]["fields"] if f["name"] == "You")
    assert you.startswith(f"<@{carol.id}>: #{order.index(carol.id) + 1} ·")
    stats = (await table.slash(bob, "tholos stats", options={"member": alice})).original
    assert stats is not None
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Record"].startswith("2 W · 0 L · 0 D")
    assert fields["Rating"].startswith(f"#{order.index(alice.id) + 1} of 3 · **")
    assert fields["Current streak"] == "2 wins"
    assert fields["Last games"].count("by resignation") == 2
    table.assert_clean()


async def test_leaderboard_pages_work_after_a_restart(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
):
    """25 rated players: 3 pages; Next and Previous keep working on the same message after a
    restart, and so does a button of the format posted before keyset paging."""
    path = tmp_path / "ranked.db"
    database = await open_database(str(path))
    async with database.transaction() as transaction:
        for user in range(1, 26):
            await transaction.execute(
                "INSERT INTO ratings (guild_id, user_id, rating, deviation, volatility, games, "
                "wins, losses, draws, updated_at) VALUES (?, ?, ?, 60, 0.06, 9, 5, 4, 0, 0)",
                (emulator.guild.id, user, 2000 - user),
            )
    await database.close()
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
    assert table.labelled(board, "Next") == "tholos:lbs:3:n:1975.0:25"
    table.assert_clean()
    assert await bot.stop() == 0
