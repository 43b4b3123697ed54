"""The real bot against hostile or unlucky conditions: replayed ids, Discord failing mid-flow,
late expiry, forged custom_ids."""

from __future__ import annotations

import pytest
from aiohttp import web

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.emulator import rest as emulator_rest
from tests.e2e.table import Table


async def test_board_ids_replayed_in_another_channel_do_nothing(
    emulator: Emulator, tholos_bot: BotProcess
):
    """A player replays their board's custom_ids on a message in another channel: refused."""
    table, other = Table(emulator), Table(emulator, "games")
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    board = await table.start_game(alice, bob)
    host = (await other.slash(carol, "tholos challenge", opponent=bob)).original
    assert host is not None
    before = host.content
    take = table.custom_id(board, ":Tw1:n")
    await other.click(alice, host, take, stale=True)
    await other.click(alice, host, take.replace(":Tw1:n", ":Tb1:n"), stale=True)
    assert all("doesn't belong to a game in this channel" in t for t in other.ephemeral(alice))
    assert host.content == before and len(host.buttons) == 3
    assert other.boards() == [] and table.position() == table.position(board)
    table.assert_clean()
    other.assert_clean()


@pytest.fixture
def failing_followups(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Make the emulator refuse the next ``failures["left"]`` follow-up messages (HTTP 400, which
    discord.py does not retry). Request it before ``emulator``, which binds its routes."""
    failures = {"left": 0}
    create_followup = emulator_rest.Rest.create_followup

    async def flaky(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        if failures["left"]:
            failures["left"] -= 1
            return web.json_response({"message": "Bad Request", "code": 0}, status=400)
        return await create_followup(self, request)

    monkeypatch.setattr(emulator_rest.Rest, "create_followup", flaky)
    return failures


async def test_a_board_that_fails_to_post_is_explained_and_repaired(
    failing_followups: dict[str, int], emulator: Emulator, tholos_bot: BotProcess
):
    """Discord fails the new board's post: the player learns the turn is saved; /tholos board
    shows it; a restart posts what is still missing."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    failing_followups["left"] = 1
    await table.click(alice, board, table.custom_id(board, ":Tw1:n"))
    await tholos_bot.settle()
    assert any("saved, but I couldn't post the new board" in t for t in table.ephemeral(alice))
    assert len(table.boards()) == 1 and board.buttons == []
    failing_followups["left"] = 0
    await table.slash(bob, "tholos board")
    await emulator.wait_for(lambda: len(table.boards()) == 2, what="the board shown again")
    assert str(table.position()) == "-/-/-/-/-/-/- www bb b -"
    await table.play("+b1")
    failing_followups["left"] = 1
    current = table.board
    await table.click_path(alice, current, "PwA")
    await tholos_bot.settle()
    assert table.board.id == current.id, "the post failed"
    assert await tholos_bot.restart() == 0
    await emulator.wait_for(
        lambda: table.board.id != current.id, what="the board reposted at start"
    )
    assert str(table.position()) == "w/-/-/-/-/-/- ww bbb b -"
    assert table.mover().id == bob.id
    assert emulator.violations == []


async def test_an_expired_challenge_is_closed_on_time_and_frees_the_channel(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """Made while the challenges' loop sleeps its long sleep, a 1-second challenge is marked
    expired within seconds, and the channel then takes a new challenge."""
    bot = spawn_bot(emulator, env={"THOLOS_CHALLENGE_TIMEOUT": "1", "LOG_LEVEL": "DEBUG"})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    await emulator.wait_for(
        lambda: "challenges: next round in 30.0 s" in bot.log(), what="the expiry loop asleep"
    )
    first = (await table.slash(alice, "tholos challenge", opponent=bob)).original
    assert first is not None and "expires" in first.content
    await emulator.wait_for(lambda: "Expired" in first.content, what="expiry shown")
    second = (await table.slash(carol, "tholos challenge", opponent=bob)).original
    assert second is not None and not second.ephemeral, "the expired challenge blocked the channel"
    table.assert_clean()
    assert await bot.stop() == 0


async def test_forged_custom_ids_get_a_polite_answer(emulator: Emulator, tholos_bot: BotProcess):
    """Ids too large for the database, unknown kinds and junk paths: answered, nothing logged
    as a crash (the fixture checks the log)."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    for forged in (
        "tholos:claim:9999999999999999999",
        "tholos:s:1:0:ZZZZ:n",
        "tholos:nope",
        f"tholos:s:{9 * 10**17}:0:T:n",
    ):
        ix = await table.click(alice, board, forged, stale=True)
        assert ix.acknowledged, forged
    assert table.position() == table.position(board)
    assert len(table.ephemeral(alice)) == 4
    table.assert_clean()
