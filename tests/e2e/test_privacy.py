"""Privacy, end to end (the bot's own process, the emulator as Discord): a finished game opens —
``/tholos record``, ``replay``, ``analyse game:``, and the live page's ``analyse`` — only for its
players and the members who can see its channel or thread: View Channel there, and in a private
thread being one of its members or having Manage Threads. A member who cannot see it reads
exactly what a game id that does not exist reads. The live page is asked over its own
WebSocket, with a session the page would have (an authorization code exchanged at
``/api/session``)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import aiohttp

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.emulator.api import PATIENCE
from tests.e2e.emulator.model import MANAGE_THREADS
from tests.e2e.table import Table
from tests.features.analysis.test_e2e_from_discord import (
    NOT_FINISHED,
    asked,
    game_of,
    launched,
    play_then_resign,
    told,
)
from tests.features.live.test_e2e_board import free_port

THREADS_AND_PAGE = {"THOLOS_THREADS": "on"}
NOT_HERE = "That game is not played in this channel or its threads."
FRAME_SECONDS = 20.0
"""The longest the page's socket waits for the answer to one message."""


async def live_bot(emulator: Emulator, spawn_bot: SpawnBot) -> tuple[BotProcess, int]:
    """A bot serving the live board on a free port (returned), a thread per game, started."""
    emulator.enable_activities()
    port = free_port()
    bot = spawn_bot(emulator, env={**THREADS_AND_PAGE, "THOLOS_WEB_PORT": str(port)})
    await bot.start(sync=True)
    return bot, port


async def finished_in_thread(
    lobby: Table, white: Member, black: Member, rng: random.Random
) -> tuple[Table, int]:
    """``white`` and ``black`` play two turns in a thread of ``lobby``'s channel, then
    ``black`` resigns: the thread's table and the game's id."""
    table = await lobby.start_game_in_thread(white, black)
    await play_then_resign(table, black, rng)
    return table, game_of(table.board)


async def session_of(port: int, emulator: Emulator, member: Member, table: Table) -> str:
    """A page session of ``member`` in the Activity running in ``table``'s channel."""
    instance = emulator.activity_instance(table.channel)
    assert instance is not None, "the Activity runs there"
    code = emulator.authorize(member, instance)
    url = f"http://127.0.0.1:{port}/api/session"
    async with (
        aiohttp.ClientSession() as http,
        http.post(url, json={"code": code, "instance_id": instance.id}) as answer,
    ):
        body = await answer.json()
        assert answer.status == 200, body
        return body["session"]


async def page_answers(
    port: int,
    session: str,
    messages: list[dict[str, Any]],
    kinds: tuple[str, ...] = ("analysis", "error"),
) -> list[dict]:
    """What the page's server says on a WebSocket of ``session``: what it shows after the hello
    (a ``lobby``, a ``board``, or the ``analysis`` its member asked for from Discord), then the
    answer — the first frame of ``kinds`` — to each of ``messages``, sent one at a time."""
    frames: list[dict] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"ws://127.0.0.1:{port}/api/live") as socket,
    ):

        async def next_of(wanted: tuple[str, ...]) -> dict:
            while True:
                frame = json.loads(await socket.receive_str(timeout=FRAME_SECONDS))
                if frame["type"] in wanted:
                    return frame

        await socket.send_str(json.dumps({"type": "hello", "session": session}))
        frames.append(await next_of(("lobby", "board", "analysis")))
        for message in messages:
            await socket.send_str(json.dumps(message))
            frames.append(await next_of(kinds))
    return frames


def replays(table: Table, member: Member, game_id: int) -> int:
    """How many replays of ``game_id`` ``member`` was sent privately in ``table``'s channel."""
    return sum(
        attachment.filename.startswith(f"tholos-{game_id}.")
        and not attachment.filename.endswith(".txt")
        for message in table.emu.messages(table.channel, member)
        if message.ephemeral
        for attachment in message.attachments
    )


async def test_a_game_in_a_private_channel_opens_for_its_viewers_and_players_only(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Alice and Bob play in a thread of #games, which only Bob and Carol (and Alice, the
    owner) can see. Dave, who cannot, is told of its id exactly what he is told of an id that
    does not exist — on Discord and on the page —, and nothing is stored for him; Carol, who
    can see it, and Bob, who played it, get its record, its replay and its analysis."""
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    alice, bob, carol = emulator.member("alice"), emulator.member("bob"), emulator.member("carol")
    dave = emulator.add_person("dave")
    lobby = Table(emulator, "games")
    emulator.hide(lobby.channel, seen_by=(bob, carol))
    thread, hidden = await finished_in_thread(lobby, alice, bob, rng)
    nowhere = hidden + 1000
    general = Table(emulator, "general")

    for command in ("tholos record", "tholos replay", "tholos analyse"):
        for game in (hidden, nowhere):
            assert told(await general.slash(dave, command, game=game)) == NOT_FINISHED, command
    assert all(user != dave.id for user, _, _ in asked(bot)), "a refusal stores nothing"

    for member in (carol, bob):
        record = await general.slash(member, "tholos record", game=hidden)
        assert record.original is not None and record.original.ephemeral
        assert record.original.attachments[0].filename == f"tholos-{hidden}.txt"
        await general.slash(member, "tholos replay", game=hidden)
        await emulator.wait_for(lambda m=member: replays(general, m, hidden) == 1, what="replay")
        assert launched(await general.slash(member, "tholos analyse", game=hidden))
    assert {(carol.id, hidden), (bob.id, hidden)} <= {(u, g) for u, _, g in asked(bot)}

    # The page: Dave's and Carol's sessions in #general, where Carol's analyse runs it.
    shown, *strangers = await page_answers(
        port,
        await session_of(port, emulator, dave, general),
        [{"type": "analyse", "game": hidden}, {"type": "analyse", "game": nowhere}],
    )
    assert [frame.get("message") for frame in strangers] == [NOT_FINISHED, NOT_FINISHED]
    assert strangers[0] == strangers[1]
    assert shown["type"] == "lobby", "Dave asked nothing from Discord"
    asked_for, seen = await page_answers(
        port,
        await session_of(port, emulator, carol, general),
        [{"type": "analyse", "game": hidden}],
    )
    assert asked_for["type"] == seen["type"] == "analysis", "Carol's ask, shown at once"
    assert asked_for["game"] == seen["game"] == hidden
    for table in (general, thread, lobby):
        table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_game_in_a_private_thread_opens_for_its_members_moderators_and_players_only(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Bob starts a private thread in #general with Alice, Carol and the bot, and Alice and Bob
    play there; then the thread is archived (out of the bot's cache). Dave, who is not in it,
    is told what he is told of a game that does not exist; Carol, a member of the thread, and
    Erin, who may manage threads, get its record; the players too."""
    rng = random.Random(seed)
    bot, _ = await live_bot(emulator, spawn_bot)
    alice, bob, carol = emulator.member("alice"), emulator.member("bob"), emulator.member("carol")
    dave, erin = emulator.add_person("dave"), emulator.add_person("erin")
    emulator.give_role(erin, "moderators", MANAGE_THREADS)
    general = Table(emulator, "general")
    the_bot = emulator.guild.members[emulator.bot_user.id]
    thread = emulator.private_thread(
        general.channel, bob, "quiet game", members=(alice, carol, the_bot)
    )
    table = Table(emulator, thread)
    await table.start_game(alice, bob)
    hidden = game_of(table.board)
    await table.play(rng.choice(table.position().legal_turns()))
    ask = await table.slash(bob, "tholos resign")
    assert ask.original is not None
    await table.click(bob, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="the end")
    await bot.settle()
    emulator.archive(thread)

    for command in ("tholos record", "tholos replay", "tholos analyse"):
        for game in (hidden, hidden + 1000):
            assert told(await general.slash(dave, command, game=game)) == NOT_FINISHED, command
    for member in (carol, erin, alice, bob):
        record = await general.slash(member, "tholos record", game=hidden)
        assert record.original is not None, member.user.username
        assert record.original.attachments, (member.user.username, record.original.text)
        assert record.original.attachments[0].filename == f"tholos-{hidden}.txt"
    in_thread = await table.slash(carol, "tholos record", game=hidden)  # Discord let her in
    assert in_thread.original is not None and in_thread.original.attachments
    fetched = [r for r in emulator.requests if r.path == f"/api/v10/channels/{thread.id}"]
    assert [(r.method, r.status) for r in fetched] == [("GET", 200)], "archived: asked once"
    assert general.failed() == [] and table.failed() == []
    asked_of_discord = {(v.code, v.request) for v in emulator.violations}
    lookup = f"GET /api/v10/channels/{thread.id}/thread-members/{dave.id}"
    assert asked_of_discord == {(10007, lookup)}, "Discord said once Dave is not in the thread"
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_page_opens_no_game_in_a_channel_its_member_no_longer_sees(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """Dave opens the live board in #general, where Alice and Bob play in a thread: his lobby
    lists their game and he may open it. Once #general is hidden from him, a page of his
    session lists it no more, and asking to open it is answered as for a game that does not
    exist."""
    bot, port = await live_bot(emulator, spawn_bot)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    dave = emulator.add_person("dave")
    general = Table(emulator, "general")
    thread = await general.start_game_in_thread(alice, bob)
    game = game_of(thread.board)
    await emulator.launch_entry_point(dave, general.channel)
    session = await session_of(port, emulator, dave, general)
    opening = [{"type": "open", "game": game}, {"type": "open", "game": game + 1000}]
    kinds = ("opened", "error")
    lobby, opened, nowhere = await page_answers(port, session, opening, kinds)
    assert [listed["id"] for listed in lobby["here"]] == [game]
    assert opened == {"type": "opened", "game": game, "listed": True}
    assert nowhere["type"] == "error" and nowhere["code"] == "not_here"

    emulator.hide(general.channel, seen_by=(alice, bob))
    deadline = time.monotonic() + PATIENCE  # until the bot has heard of it (CHANNEL_UPDATE)
    while (answers := await page_answers(port, session, opening, kinds))[0]["here"]:
        assert time.monotonic() < deadline, "the page still lists a game Dave cannot see"
    _, hidden, nowhere = answers
    assert hidden == nowhere == {"type": "error", "code": "not_here", "message": NOT_HERE}
    for table in (general, thread):
        table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
