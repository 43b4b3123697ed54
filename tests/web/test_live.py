"""The live board's WebSocket, in-process: a real database on both backends, the real services,
the real aiohttp server and client. A session is made here with the server's key (the code
exchange with Discord is the end-to-end tests' business). Every refusal changes nothing."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.base.game import Game, Venue
from bot.base.game_options import GameOptions
from bot.base.paces import TimeControl
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.base.settings import Settings
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.app import App, build
from bot.discord.visibility import Visibility
from bot.features.challenges.feature import Challenges
from bot.features.challenges.service import TAKEN
from bot.features.challenges.store import Challenge, NewChallenge
from bot.features.play.feature import Play
from bot.features.play.web import MOST_ASKED
from bot.i18n.catalogues import translator
from bot.loops import work
from bot.storage.db import Database
from bot.web.limits import FULL_CLOSE, TOO_MANY_PAGES_CLOSE, Doors
from bot.web.live import BURST, MESSAGE_LIMIT, LiveBoards, refused
from bot.web.pages import PageParts
from bot.web.sessions import Session, Sessions, session_key
from bot.web.talk import PageTalk
from bot.words import phrases
from bot.words.board import LastTurn
from engine.ai import LEVELS
from engine.builder import SKIP, TurnBuilder, turn_path
from tests.databases import Services
from tests.discord_fakes import Wired
from tests.features.play.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD, NAMES, by, challenge
from tests.web.test_server import page_parts

AI = 999_999
PATIENCE = 30.0
"""Seconds a test waits for a frame (the wait ends when it comes)."""


class AiOpponent:
    """The opponent's one part the pages use: how the AI is named (the bot is not connected)."""

    def person(self, language: str, level: str) -> Person:
        return Person(AI, f"Tholos AI ({level})", bot=True)


@dataclass
class Live:
    """The live board's server over one database, and what it asked to post."""

    app: App
    services: Services
    """How games start and are played, wired over ``app``."""
    sessions: Sessions
    url: str
    boards: LiveBoards
    talk: PageTalk
    posted: list[tuple[Game, LastTurn | None]] = field(default_factory=list)

    def session(self, user_id: int, channel_id: int = CHANNEL, **changes: Any) -> str:
        fields = dict(
            user_id=user_id,
            name=NAMES.get(user_id, "Dave"),
            locale="en-US",
            channel_id=channel_id,
            guild_id=GUILD,
            instance_id="i-1",
            expires_at=time.time() + 600,
        )
        return self.sessions.issue(Session(**(fields | changes)))


class EveryoneSees(Visibility):
    """Every member sees every channel and thread: these tests are of the page's mechanics (who
    may see a game is tested end to end, ``tests/e2e/test_privacy.py``); the client of this
    server has no guild in its cache, where no one but a game's players would see it."""

    async def sees_place(self, *args: Any, **kwargs: Any) -> bool:
        return True


@pytest.fixture
async def live(database: Database, tmp_path: Path) -> AsyncIterator[Live]:
    settings = Settings(token="unused", database=str(tmp_path / "unused.db"))
    client = discord.Client(intents=discord.Intents.none())
    client._connection._add_guild(  # the bot is a member of GUILD, as its gateway said
        discord.Guild(data={"id": str(GUILD), "name": "Delphi"}, state=client._connection)  # type: ignore[typeddict-item]
    )
    app = dataclasses.replace(build(client, settings, database), visibility=EveryoneSees(client))
    sessions = Sessions(await session_key(database))
    posted: list[tuple[Game, LastTurn | None]] = []
    boards = LiveBoards(app, sessions)
    wired = Wired(app)
    parts = PageParts(page_parts(wired, AiOpponent()))
    play = parts.answering("turn")
    play.after_change = lambda game, last: posted.append((game, last))  # type: ignore[method-assign,union-attr]
    talk = PageTalk(app, boards, parts)

    async def socket(request: web.Request) -> web.WebSocketResponse:
        answer = web.WebSocketResponse(max_msg_size=64 * 1024)
        await answer.prepare(request)
        await talk.serve(answer)
        return answer

    web_app = web.Application()
    web_app.router.add_get("/api/live", socket)
    server = TestServer(web_app)
    await server.start_server()
    await boards.start()
    await parts.start(boards)
    services = Services(wired[Challenges].service, wired[Play].service)
    url = str(server.make_url("/api/live"))
    yield Live(app, services, sessions, url, boards, talk, posted)
    await parts.stop()
    await boards.close()
    await server.close()
    app.renderer.close()


class Page:
    """One open page: its socket and the frames it received."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket

    async def frame(self, kind: str | None = None) -> dict[str, Any]:
        """The next frame (of ``kind``: others before it are skipped)."""
        async with asyncio.timeout(PATIENCE):
            while True:
                message = await self.socket.receive()
                assert message.type == aiohttp.WSMsgType.TEXT, message
                frame = json.loads(message.data)
                if kind is None or frame["type"] == kind:
                    return frame

    async def send(self, data: object) -> None:
        await self.socket.send_str(data if isinstance(data, str) else json.dumps(data))


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def open_page(http: aiohttp.ClientSession, live: Live, session: str) -> Page:
    page = Page(await http.ws_connect(live.url))
    await page.send({"type": "hello", "session": session})
    return page


def path_of(game: Game, rng: random.Random) -> str:
    """A random legal turn of ``game`` as the page sends it (a skipped bonus included)."""
    turn = rng.choice(game.position.legal_turns())
    path = turn_path(game.position, turn)
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, SKIP)
    return "".join(path)


async def new_game(live: Live, channel: int = CHANNEL) -> Game:
    """Alice (White, first) against Bob in ``channel``."""
    made = await challenge(live.services, channel=channel)
    answered = await live.services.challenges.answer(made.id, by(BOB, channel), "accept")
    assert answered.game is not None
    return answered.game


async def test_players_and_spectators_see_each_turn_and_only_the_player_to_move_plays(
    live: Live, http: aiohttp.ClientSession, seed: int
):
    """Alice (to move) gets the steps, Bob and Carol (watching) the same board without them;
    Alice's turn is stored and reaches all three pages, then Bob gets the steps."""
    rng = random.Random(seed)
    game = await new_game(live)
    alice = await open_page(http, live, live.session(ALICE))
    bob = await open_page(http, live, live.session(BOB))
    carol = await open_page(http, live, live.session(CAROL))
    for page in (alice, bob, carol):
        welcome = await page.frame()
        assert welcome["type"] == "welcome" and welcome["words"]["confirm"] == "Play this turn"
    first = [await page.frame("board") for page in (alice, bob, carol)]
    assert {frame["position"] for frame in first} == {str(game.position)}
    assert first[0]["steps"] and first[1]["steps"] is None and first[2]["steps"] is None
    path = path_of(game, rng)
    await alice.send({"type": "turn", "game": game.id, "version": game.version, "path": path})
    after = [await page.frame("board") for page in (alice, bob, carol)]
    stored = await live.app.stores.games.game(game.id)
    assert stored is not None and stored.version == game.version + 1
    assert {frame["position"] for frame in after} == {str(stored.position)}
    assert {frame["version"] for frame in after} == {stored.version}
    assert after[0]["steps"] is None and after[1]["steps"] and after[2]["steps"] is None
    assert [(posted.id, last and last.player_id) for posted, last in live.posted] == [
        (game.id, ALICE)
    ]


async def game_between_members(live: Live, channel: int, venue: Venue) -> Game:
    """Alice (White, first) against Bob where the bot is not (``venue``): a DM or a group DM
    between members, or a server without the bot — the game's server is none (``guild_id``
    0), its channel the one the challenge came from."""
    service = live.services.challenges
    made = await service.challenges.create(
        NewChallenge(
            DIRECT_MESSAGES,
            channel,
            Person(ALICE, NAMES[ALICE]),
            Person(BOB, NAMES[BOB]),
            GameOptions(colour="white", first="me").settled(),
            time.time() + 600,
            in_channel=True,
            venue=venue,
        ),
        now=time.time(),
    )
    game = await service.new_games.accepted(made, None, Person(BOB, NAMES[BOB]))
    assert game.answers_only and game.venue == venue
    return game


@pytest.mark.parametrize("venue", ["dm", "group_dm"])
async def test_a_game_between_members_in_a_dm_is_played_and_watched_on_its_pages(
    live: Live, http: aiohttp.ClientSession, seed: int, venue: Venue
):
    """A DM or group DM between members (no server: Discord's instance said so): the pages
    of the instance's participants there show the channel's game — its players play it,
    Carol (in the group DM, not playing) watches it — and a turn on the page reaches every
    page; a game of another DM is not theirs to open."""
    rng = random.Random(seed)
    group, elsewhere = 7_000, 7_001
    game = await game_between_members(live, group, venue)
    other = await game_between_members(live, elsewhere, venue)
    people = (ALICE, BOB, CAROL) if venue == "group_dm" else (ALICE, BOB)
    pages = [
        await open_page(http, live, live.session(user, channel_id=group, guild_id=None))
        for user in people
    ]
    first = [await page.frame("board") for page in pages]
    assert {frame["game"] for frame in first} == {game.id}
    assert first[0]["steps"] and all(frame["steps"] is None for frame in first[1:])
    path = path_of(game, rng)
    await pages[0].send({"type": "turn", "game": game.id, "version": game.version, "path": path})
    after = [await page.frame("board") for page in pages]
    stored = await live.app.stores.games.game(game.id)
    assert stored is not None and {frame["version"] for frame in after} == {stored.version}
    assert after[1]["steps"] and after[0]["steps"] is None
    assert all(frame["steps"] is None for frame in after[2:])  # Carol watches
    await pages[-1].send({"type": "open", "game": other.id})
    assert (await pages[-1].frame("error"))["code"] == "not_here"


async def open_challenge(live: Live, channel: int, challenger: int = ALICE) -> Challenge:
    """``challenger``'s open challenge in a group DM between members (the bot not in it)."""
    return await live.services.challenges.challenges.create(
        NewChallenge(
            DIRECT_MESSAGES,
            channel,
            Person(challenger, NAMES[challenger]),
            None,
            GameOptions().settled(),
            time.time() + 600,
            in_channel=True,
            venue="group_dm",
        ),
        now=time.time(),
    )


async def test_the_empty_seat_of_an_open_challenge_is_offered_and_taken_on_the_page(
    live: Live, http: aiohttp.ClientSession
):
    """In a group DM, Alice's open challenge waits: the page of Bob, in the Activity with her,
    asks about its participants and is offered her game's empty seat (nothing for the ids of
    members without one, or malformed ones); another group DM's challenge is not his to take;
    he takes the seat and the game shows on his page and on Alice's; taken, it is refused to
    Carol."""
    group, elsewhere = 8_000, 8_001
    seat = await open_challenge(live, group)
    foreign = await open_challenge(live, elsewhere, CAROL)
    pages = {
        user: await open_page(http, live, live.session(user, channel_id=group, guild_id=None))
        for user in (ALICE, BOB, CAROL)
    }
    for page in pages.values():
        await page.frame("lobby")
    bob = pages[BOB]
    await bob.send({"type": "seats", "players": [str(ALICE), str(CAROL), "x", str(BOB), 7]})
    (offered,) = (await bob.frame("seats"))["seats"]
    assert offered["challenge"] == seat.id and "Alice's game" in offered["label"]
    await pages[ALICE].send({"type": "seats", "players": [str(BOB)]})
    assert (await pages[ALICE].frame("seats"))["seats"] == []  # her own is no seat for her
    await bob.send({"type": "seats", "players": [str(n) for n in range(MOST_ASKED + 1)]})
    assert (await bob.frame("error"))["code"] == "malformed"
    await bob.send({"type": "take_seat", "challenge": foreign.id})
    assert (await bob.frame("error"))["code"] == "not_here"
    await bob.send({"type": "take_seat", "challenge": seat.id})
    shown = [await pages[user].frame("board") for user in (BOB, ALICE)]
    game = await live.app.stores.games.active_game(group)
    assert game is not None and {game.white_id, game.black_id} == {ALICE, BOB}
    assert {frame["game"] for frame in shown} == {game.id} and game.answers_only
    await pages[CAROL].send({"type": "take_seat", "challenge": seat.id})
    assert (await pages[CAROL].frame("error"))["code"] == "refused"


@pytest.mark.parametrize(
    "message, code",
    [
        ("not json", "malformed"),
        ('["a", "list"]', "malformed"),
        ({"type": "turn", "game": "1", "version": 1, "path": "T"}, "malformed"),
        ({"type": "turn", "game": 0, "version": 1, "path": "x;DROP"}, "malformed"),
        ({"type": "resign"}, "malformed"),
        ("x" * (MESSAGE_LIMIT + 1), "too_big"),
    ],
)
async def test_malformed_and_oversized_messages_get_an_error_frame_and_change_nothing(
    live: Live, http: aiohttp.ClientSession, message: object, code: str
):
    game = await new_game(live)
    alice = await open_page(http, live, live.session(ALICE))
    await alice.frame("board")
    await alice.send(message)
    error = await alice.frame()
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert (await live.app.stores.games.game(game.id)).version == game.version  # type: ignore[union-attr]


async def test_refused_turns_change_nothing(live: Live, http: aiohttp.ClientSession, seed: int):
    """A spectator's turn, a turn out of turn, one for an old version, an illegal one and an
    unfinished one: each refused with its reason, the game unchanged."""
    rng = random.Random(seed)
    game = await new_game(live)
    pages = {user: await open_page(http, live, live.session(user)) for user in (ALICE, BOB, CAROL)}
    for page in pages.values():
        await page.frame("board")
    legal = path_of(game, rng)
    attempts = [
        (CAROL, {"version": game.version, "path": legal}, "spectator"),
        (BOB, {"version": game.version, "path": legal}, "refused"),  # not Bob's turn
        (ALICE, {"version": game.version - 1, "path": legal}, "refused"),  # an old board
        (ALICE, {"version": game.version, "path": "Tg3"}, "refused"),  # gray: at most 2
        (ALICE, {"version": game.version, "path": "P"}, "incomplete"),
    ]
    for user, fields, code in attempts:
        await pages[user].send({"type": "turn", "game": game.id} | fields)
        error = await pages[user].frame("error")
        assert error["code"] == code and error["message"], error
        assert "<@" not in error["message"]  # names, not Discord mentions
    assert (await live.app.stores.games.game(game.id)).version == game.version  # type: ignore[union-attr]
    assert live.posted == []


async def test_forged_expired_and_foreign_sessions_are_refused(
    live: Live, http: aiohttp.ClientSession
):
    await new_game(live)
    good = live.session(ALICE)
    version, body, signature = good.split(".")
    forged = ".".join((version, body[:-4] + ("AAAA" if body[-4:] != "AAAA" else "BBBB"), signature))
    other_key = Sessions(b"k" * 32).issue(
        Session(ALICE, "Alice", None, CHANNEL, GUILD, "i", time.time() + 600)
    )
    expired = live.session(ALICE, expires_at=time.time() - 1)
    for session in (forged, other_key, expired, "", None):
        page = await open_page(http, live, session)  # type: ignore[arg-type]
        error = await page.frame()
        assert error["type"] == "error" and error["code"] == "session"
        closing = await page.socket.receive()
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert page.socket.close_code == 4001


async def test_a_flood_is_throttled_then_cut_off(live: Live, http: aiohttp.ClientSession):
    game = await new_game(live)
    alice = await open_page(http, live, live.session(ALICE))
    await alice.frame("board")
    stale = {"type": "turn", "game": game.id, "version": game.version - 1, "path": "T"}
    for _ in range(BURST * 8):
        await alice.send(stale)
    codes = []
    while True:
        message = await alice.socket.receive()
        if message.type != aiohttp.WSMsgType.TEXT:
            break
        frame = json.loads(message.data)
        if frame["type"] == "error":
            codes.append(frame["code"])
    assert "slow_down" in codes and codes.count("refused") >= BURST - 1
    assert alice.socket.close_code == 1008  # cut off after too many refusals
    assert (await live.app.stores.games.game(game.id)).version == game.version  # type: ignore[union-attr]


async def test_a_page_where_no_game_is_played_lists_the_members_games_and_gets_the_next(
    live: Live, http: aiohttp.ClientSession
):
    elsewhere = 999
    game = await new_game(live)
    page = await open_page(http, live, live.session(ALICE, channel_id=elsewhere))
    lobby = await page.frame("lobby")
    assert [listed["id"] for listed in lobby["games"]] == [game.id]
    assert lobby["games"][0]["your_turn"] is True
    assert lobby["games"][0]["url"].startswith("https://discord.com/channels/")
    here = await new_game(live, elsewhere)  # a game starts where the page is open: it shows
    board = await page.frame("board")
    assert (board["game"], board["position"]) == (here.id, str(here.position))
    assert board["steps"]  # Alice moves first


async def test_a_member_starts_a_game_against_the_ai_where_none_is_played(
    live: Live, http: aiohttp.ClientSession
):
    """The lobby offers the AI's levels; a bad level is refused; a good one starts a game in
    the page's channel, which the page then shows (and the bot is asked to post its board)."""
    quiet = 4242
    page = await open_page(http, live, live.session(CAROL, channel_id=quiet))
    lobby = await page.frame("lobby")
    assert [level["level"] for level in lobby["levels"]] == list(LEVELS)
    await page.send({"type": "play_ai", "level": "impossible"})
    assert (await page.frame("error"))["code"] == "malformed"
    await page.send({"type": "play_ai", "level": "easy"})
    board = await page.frame("board")
    game = await live.app.stores.games.active_game(quiet)
    assert game is not None and game.ai_level == "easy"
    assert {game.white_id, game.black_id} == {CAROL, AI}
    assert (board["game"], board["position"]) == (game.id, str(game.position))
    assert [(posted.id, last) for posted, last in live.posted] == [(game.id, None)]
    await page.send({"type": "play_ai", "level": "easy"})  # a game is on: refused
    assert (await page.frame("error"))["code"] == "no_game"


@pytest.mark.parametrize("guild_id", [None, GUILD + 1], ids=["dm", "server-without-the-bot"])
async def test_no_game_against_the_ai_starts_where_the_bot_cannot_post(
    live: Live, http: aiohttp.ClientSession, guild_id: int | None
):
    """A page in a DM or group DM between members, or in a server that did not add the bot:
    its lobby offers no AI (and says where one starts), and a game against the AI asked for
    anyway is refused — its boards could not be shown in Discord."""
    quiet = 4343
    page = await open_page(http, live, live.session(CAROL, channel_id=quiet, guild_id=guild_id))
    lobby = await page.frame("lobby")
    assert lobby["levels"] == []
    await page.send({"type": "play_ai", "level": "easy"})
    assert (await page.frame("error"))["code"] == "ai_elsewhere"
    assert await live.app.stores.games.active_game(quiet) is None and live.posted == []


async def test_a_rematch_in_the_channel_replaces_a_finished_game_on_the_page(
    live: Live, http: aiohttp.ClientSession
):
    """A page whose game ended shows the next game started in its channel."""
    game = await new_game(live)
    page = await open_page(http, live, live.session(CAROL))
    await page.frame("board")
    ended = await live.services.play.resign(game.id, game.version, by(ALICE))
    final = await page.frame("board")
    assert final["phase"] == "over" and final["version"] == ended.version
    again = await new_game(live)
    board = await page.frame("board")
    while board["game"] == game.id:  # the final board again: a listener that reconnected
        assert board["phase"] == "over"  # may have missed changes, so every page is refreshed
        board = await page.frame("board")
    assert (board["game"], board["phase"]) == (again.id, "turn")


async def test_a_live_games_page_shows_the_clocks_and_a_late_turn_ends_it_on_time(
    live: Live, http: aiohttp.ClientSession, seed: int
):
    """The frames carry the clocks (the mover's running once her board is out); a turn sent
    after her clock ran out is refused, the game ends on time, and its final board is posted."""
    rng = random.Random(seed)
    made = await live.services.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(BOB, "Bob"),
        options=GameOptions(colour="white", first="me", clock=TimeControl(3, 2)),
    )
    game = (await live.services.challenges.answer(made.id, by(BOB), "accept")).game
    alice = await open_page(http, live, live.session(ALICE))
    clocks = (await alice.frame("board"))["clocks"]
    assert clocks == {
        "control": "3+2",
        "left": [180.0, 180.0],
        "running": None,
        "runs_out_in": None,
    }
    posted = time.time() - 181.0  # her board went out over three minutes ago
    await live.app.stores.games.set_board_message(
        game.id, 1, game.version, (posted, posted + 180.0)
    )
    clocks = (await alice.frame("board"))["clocks"]  # the clock's start is announced
    assert clocks["running"] == "white" and clocks["runs_out_in"] == 0  # and it has run out
    game = await live.app.stores.games.game(game.id)
    await alice.send(
        {"type": "turn", "game": game.id, "version": game.version, "path": path_of(game, rng)}
    )
    error = await alice.frame("error")
    assert error["code"] == "refused" and "Time's up" in error["message"]
    final = await alice.frame("board")
    assert final["phase"] == "over" and final["clocks"]["left"][0] == 0
    over = await live.app.stores.games.game(game.id)
    assert (over.outcome.result, over.outcome.reason, over.plies) == ("black", "timeout", 0)
    assert [(posted.id, posted.is_active) for posted, _ in live.posted] == [(game.id, False)]


DAVE = 400


async def thread_game(live: Live, white: int, black: int, thread: int) -> Game:
    """``white`` against ``black`` (White first) in the thread ``thread`` of CHANNEL."""
    made = await live.services.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=Person(white, NAMES.get(white, "Dave")),
        opponent=Person(black, NAMES.get(black, "Dave")),
        options=GameOptions(colour="white", first="me"),
    )
    answered = await live.services.challenges.answer(made.id, by(black), "accept", thread_id=thread)
    assert answered.game is not None and answered.game.parent_id == CHANNEL
    return answered.game


async def wait_until(condition: Any, what: str) -> None:
    """Wait (the event loop going on) until ``condition()`` holds."""
    async with asyncio.timeout(PATIENCE):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), what


async def test_a_page_in_the_threads_parent_channel_lists_their_games_and_opens_one(
    live: Live, http: aiohttp.ClientSession, seed: int
):
    """Discord may launch the Activity in the channel whose threads hold the games: a page
    there lists them (newest first) and opens one — watching it, a turn in it shown — but no
    game of another channel, whatever it asks (the session's channel decides); and it goes back
    to the list."""
    rng = random.Random(seed)
    first = await thread_game(live, ALICE, BOB, 11)
    second = await thread_game(live, CAROL, BOB, 12)
    elsewhere = await new_game(live, 999)
    dave = await open_page(http, live, live.session(DAVE))
    lobby = await dave.frame("lobby")
    assert [(game["id"], game["yours"]) for game in lobby["here"]] == [
        (second.id, False),
        (first.id, False),
    ]
    for asked in (elsewhere.id, "1", None):
        await dave.send({"type": "open", "game": asked})
        assert (await dave.frame("error"))["code"] == "not_here"
    await dave.send({"type": "open", "game": first.id})
    assert await dave.frame() == {"type": "opened", "game": first.id, "listed": True}
    board = await dave.frame("board")
    assert (board["game"], board["steps"]) == (first.id, None)
    path = path_of(first, rng)
    await dave.send({"type": "turn", "game": first.id, "version": first.version, "path": path})
    assert (await dave.frame("error"))["code"] == "spectator"
    await live.services.play.choose(first.id, first.version, path, by(ALICE, 11))
    board = await dave.frame("board")
    assert (board["game"], board["version"]) == (first.id, first.version + 1)
    await dave.send({"type": "lobby"})
    assert len((await dave.frame("lobby"))["here"]) == 2
    alice_elsewhere = await open_page(http, live, live.session(ALICE, channel_id=999))
    await alice_elsewhere.frame("board")
    await alice_elsewhere.send({"type": "open", "game": first.id})  # her game, not there
    assert (await alice_elsewhere.frame("error"))["code"] == "not_here"


async def test_the_player_of_one_game_in_the_threads_sees_it_at_once_and_plays_it(
    live: Live, http: aiohttp.ClientSession, seed: int
):
    """Alice plays one of the games of the channel's threads: her page opens it at once, with
    her steps, and her turn is played; Bob plays two of them: his page lists them as his."""
    rng = random.Random(seed)
    mine = await thread_game(live, ALICE, BOB, 11)
    other = await thread_game(live, CAROL, BOB, 12)
    alice = await open_page(http, live, live.session(ALICE))
    assert await alice.frame("opened") == {"type": "opened", "game": mine.id, "listed": True}
    board = await alice.frame("board")
    assert board["game"] == mine.id and board["steps"]
    path = path_of(mine, rng)
    await alice.send({"type": "turn", "game": mine.id, "version": mine.version, "path": path})
    assert (await alice.frame("board"))["version"] == mine.version + 1
    assert [(game.id, last and last.player_id) for game, last in live.posted] == [(mine.id, ALICE)]
    bob = await open_page(http, live, live.session(BOB))
    lobby = await bob.frame("lobby")
    assert [(game["id"], game["yours"]) for game in lobby["here"]] == [
        (other.id, True),
        (mine.id, True),
    ]


async def test_a_game_started_in_a_thread_reaches_the_pages_of_its_parent_channel(
    live: Live, http: aiohttp.ClientSession
):
    """Alice and Carol wait in the channel (no game there or in its threads); Alice's game
    starts in a thread of it: her page shows it, Carol's list shows it."""
    alice = await open_page(http, live, live.session(ALICE))
    carol = await open_page(http, live, live.session(CAROL))
    for page in (alice, carol):
        assert (await page.frame("lobby"))["here"] == []
    game = await thread_game(live, ALICE, BOB, 11)
    board = await alice.frame("board")
    assert (board["game"], bool(board["steps"])) == (game.id, True)
    lobby = await carol.frame("lobby")
    assert [(listed["id"], listed["yours"]) for listed in lobby["here"]] == [(game.id, False)]


async def test_a_session_holds_a_few_pages_and_the_process_a_bounded_number(
    live: Live, http: aiohttp.ClientSession
):
    """Past its session's share a page is told why (in its member's language) and closed for
    good (4029); past the process's — a socket that has not said who it is counts too, from
    its accept — the silent socket that waited longest is cut to make room, and with none to
    cut the page is told the board is full (before its hello: in its browser's language) and
    closed to try again later (4503). A page that goes frees its place."""
    await new_game(live)
    doors = live.talk.doors = Doors(per_session=2, per_process=3)
    session = live.session(ALICE)
    pages = [await open_page(http, live, session) for _ in range(2)]
    for page in pages:
        await page.frame("board")
    third = await open_page(http, live, session)
    refused = await third.frame()
    assert (refused["type"], refused["code"]) == ("error", "too_many_pages")
    assert refused["message"].startswith("This live board is open too many times")
    await third.socket.receive()
    assert third.socket.close_code == TOO_MANY_PAGES_CLOSE
    await pages[0].socket.close()
    await wait_until(lambda: doors.open == 1, "the closed pages are forgotten")
    again = await open_page(http, live, session)
    await again.frame("board")
    silent = await http.ws_connect(live.url)  # says nothing (yet): it counts
    await wait_until(lambda: doors.open == 3, "the silent socket is counted")
    bob = await open_page(http, live, live.session(BOB, locale="es-ES"))
    await bob.frame("board")  # the silent socket made room
    assert (await silent.receive()).type == aiohttp.WSMsgType.CLOSE and doors.cut == 1
    carol = Page(await http.ws_connect(live.url))
    refused = await carol.frame()
    assert (refused["type"], refused["code"]) == ("error", "full")
    assert refused["message"].startswith("The live board is full")
    await carol.socket.receive()
    assert carol.socket.close_code == FULL_CLOSE


async def test_sending_a_change_to_the_pages_is_counted_as_work(
    live: Live, http: aiohttp.ClientSession
):
    """A change of a game is sent to its pages by a task counted as work from the moment
    the change is heard until every page has it (the shutdown and the tests wait on it)."""
    game = await new_game(live)
    carol = await open_page(http, live, live.session(CAROL))
    await carol.frame("board")
    await wait_until(lambda: not live.boards._refreshing, "the first board's refresh is done")
    before = work.in_flight()  # (this process's other tests may have left work running)
    live.boards._heard(str(game.id))  # as the storage announces a change of it
    assert work.in_flight() == before + 1
    await carol.frame("board")
    await wait_until(lambda: work.in_flight() == before, "the refresh is done")


def test_a_refusal_names_a_command_on_the_page_as_text(monkeypatch: pytest.MonkeyPatch):
    """A refusal that mentions a command as Discord does (``</tholos challenge:42>``) shows
    its name on the page, which has no mentions."""
    monkeypatch.setitem(phrases._COMMAND_IDS, "tholos", 42)
    said = refused(translator("en"), Refusal(TAKEN, challenge=phrases.command("tholos challenge")))
    assert "/tholos challenge" in said["message"] and "</" not in said["message"]
