"""The live board's web server in-process (a real aiohttp server on a SQLite database): its
headers, the page's versioned files, the start-up words, the rate of ``/api/session`` (per
address and overall, a 429 with ``Retry-After`` in the browser's language), and its posts after
a page's turn counted as work. Discord itself is the end-to-end tests' business."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import discord
import pytest
from yarl import URL

from bot.base.game import Game
from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.settings import Settings
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.app import build
from bot.features.challenges.feature import Challenges
from bot.features.challenges.store import NewChallenge
from bot.features.live.feature import LiveBoard
from bot.features.play.feature import Play
from bot.features.play.service import TurnPlayed
from bot.features.play.web import PlayPages
from bot.loops import background, work
from bot.storage import open_database
from bot.storage.leases import board_lease
from bot.web import limits as limits_module
from bot.web.headers import FOREVER
from bot.web.identity import ActivityInstance, DiscordIdentity, Member, NotVouched
from bot.web.limits import Doors, SessionLimits, TokenBucket, client_address
from bot.web.pages import PagePart
from bot.web.server import STATIC, WebServer, browser_language, static_version
from bot.words.board import LastTurn
from engine.builder import SKIP, TurnBuilder, turn_path
from tests.databases import Services
from tests.discord_fakes import Wired
from tests.features.play.test_service import ALICE, BOB, by, challenge

PATIENCE = 30.0
"""Seconds a test waits for a condition (the wait ends when it holds)."""


class Opponent:
    """The opponent's parts the server uses: scheduling the AI after a page's turn, and its
    name for a game against it."""

    bot_id = 999_999
    """The AI's user id (the bot's)."""

    def __init__(self) -> None:
        self.scheduled: list[int] = []
        self.searches = Searches()

    def schedule(self, game: Game) -> None:
        self.scheduled.append(game.id)

    def person(self, language: str, level: str) -> Person:
        return Person(999_999, f"Tholos AI ({level})", bot=True)


class Searches:
    """The AI's searches, as a page's turn where the bot is not asks for one now."""

    def __init__(self) -> None:
        self.asked: list[Game] = []
        self.asked_once = asyncio.Event()

    async def move_now(self, game: Game) -> None:
        self.asked.append(game)
        self.asked_once.set()


class Refusing:
    """Discord's identity service refusing every code (it is asked only for well-formed
    asks: the count of them is what the overall limit saw), and saying every member with a
    session is still in their Activity."""

    def __init__(self) -> None:
        self.asked = 0

    async def member(self, code: str) -> None:
        self.asked += 1
        raise NotVouched("not a code Discord gave")

    async def still_there(self, session: object) -> bool:
        """Every member is still in their Activity (the bot is not connected to ask)."""
        return True


class Vouching:
    """Discord's identity service for a few members and Activity instances: each code names
    a member, each instance runs where ``instances`` says, with those users."""

    def __init__(self, instances: dict[str, ActivityInstance]) -> None:
        self.instances = instances

    async def member(self, code: str) -> Member:
        user_id = int(code.removeprefix("code-"))
        return Member(user_id, f"Member {user_id}", "en-US", f"token-{user_id}")

    async def place(self, instance_id: str) -> ActivityInstance:
        if instance_id not in self.instances:
            raise NotVouched("the activity instance: 404 Unknown")
        return self.instances[instance_id]

    async def still_there(self, session: object) -> bool:
        return True


def page_parts(wired: Wired, opponent: object) -> list[PagePart]:
    """The features' parts of the page as the composition root hands them to the live board,
    the AI's part in them played by ``opponent``."""
    parts = list(wired[LiveBoard].parts)
    play = next(part for part in parts if isinstance(part, PlayPages))
    play.opponent = opponent  # type: ignore[assignment]
    return parts


@dataclass
class Served:
    server: WebServer
    base: str
    http: aiohttp.ClientSession
    opponent: Opponent
    services: Services
    """How games start and are played: the services the server's pages use."""


async def serve(
    tmp_path: Path,
    static: Path = STATIC,
    limits: SessionLimits | None = None,
    doors: Doors | None = None,
    url: str | None = None,
) -> AsyncIterator[Served]:
    """The server over a new SQLite database in ``tmp_path``, or the database at ``url``."""
    url = url or str(tmp_path / "tholos.db")
    database = await open_database(url)
    settings = Settings(token="unused", database=url)
    app = build(discord.Client(intents=discord.Intents.none()), settings, database)
    opponent = Opponent()
    wired = Wired(app)
    parts = page_parts(wired, opponent)
    server = WebServer(app, "secret", parts, static=static, limits=limits, doors=doors)
    server.door.identity = Refusing()  # type: ignore[assignment]
    await server.start("127.0.0.1", 0)
    async with aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{server.port}"
        services = Services(wired[Challenges].service, wired[Play].service)
        yield Served(server, base, http, opponent, services)
    await server.stop()
    app.renderer.close()
    await database.close()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    async for found in serve(tmp_path):
        yield found


async def text(http: aiohttp.ClientSession, url: str | URL) -> tuple[int, dict[str, str], str]:
    async with http.get(url) as answer:
        return answer.status, dict(answer.headers), await answer.text()


async def test_the_page_may_be_framed_by_any_discord_client(served: Served) -> None:
    """No ``frame-ancestors`` (Discord's clients frame the page from origins no source can
    name, ``null`` among them); everything else still only from the page's own origin."""
    status, headers, _ = await text(served.http, served.base + "/")
    policy = headers["Content-Security-Policy"]
    assert status == 200 and "frame-ancestors" not in policy
    wanted = ["default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'"]
    for directive in wanted:
        assert directive in policy, directive
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-cache"


async def test_a_release_that_changes_a_file_changes_every_url_the_page_loads(
    tmp_path: Path,
) -> None:
    """The page names its files under a digest of them all: served for good under that name,
    never cached under another, nothing outside the folder; a changed file (a release) gives
    every file a new name — the script that imports the SDK by a relative path included."""
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    urls = []
    for release in range(2):
        run = tmp_path / f"run{release}"
        run.mkdir()
        async for served in serve(run, static):
            status, headers, page = await text(served.http, served.base + "/")
            named = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
            version = served.server.version
            wanted = [f"/static/{version}/app.js", f"/static/{version}/style.css"]
            assert status == 200 and sorted(named) == wanted
            urls.append(named)
            for url in named:
                status, headers, body = await text(served.http, served.base + url)
                assert status == 200 and headers["Cache-Control"] == FOREVER
                assert body == (static / url.rsplit("/", 1)[1]).read_text(encoding="utf-8")
            script = (static / "app.js").read_text(encoding="utf-8")
            assert 'from "./vendor/embedded-app-sdk/index.mjs"' in script
            sdk = f"/static/{served.server.version}/vendor/embedded-app-sdk/index.mjs"
            status, headers, _ = await text(served.http, served.base + sdk)
            assert status == 200 and headers["Cache-Control"] == FOREVER
            assert "javascript" in headers["Content-Type"]
            other = "/static/000000000000/style.css"  # another release's page, mid-restart
            status, headers, body = await text(served.http, served.base + other)
            assert (status, headers["Cache-Control"]) == (200, "no-cache")
            for outside in [
                f"/static/{version}/../../server.py",
                "/static/../server.py",
                f"/static/{version}/nothing.js",
            ]:
                url = URL(served.base + outside, encoded=True)  # sent as it is: no ".." undone
                assert (await text(served.http, url))[0] == 404, outside
        with (static / "style.css").open("a", encoding="utf-8") as css:
            css.write("\n/* the next release */\n")
    assert urls[0] != urls[1] and len(set(urls[0]) & set(urls[1])) == 0
    assert static_version(static) == static_version(static)


async def test_the_start_up_words_come_in_the_browsers_language(served: Served) -> None:
    """``/api/config`` names the application and what the page may have to say before it has
    a session, in the first of our languages the browser asks for."""
    for header, language, word in [
        ("es-ES,es;q=0.9", "es", "Discord"),
        ("fr-FR,fr;q=0.9,de;q=0.8,en;q=0.5", "de", "Discord"),
        ("", "en", "Discord did not start the live board in time"),
    ]:
        async with served.http.get(
            served.base + "/api/config", headers={"Accept-Language": header}
        ) as answer:
            body = await answer.json()
        assert body["language"] == language
        assert set(body["words"]) == {"not_ready", "offline", "retrying", "failed"}
        assert word in body["words"]["not_ready"]
        assert "{seconds}" in body["words"]["retrying"]
    assert browser_language("de;q=0.1, es;q=0.5") == "es"
    assert browser_language("pt-BR, en-GB;q=0.2") == "en"


def test_the_client_address_is_the_proxys_word_only_from_a_local_proxy() -> None:
    """Behind the reverse proxy on the same machine, the address it added last; the entries a
    client wrote before it, and any header of a peer that is not local, are not believed."""
    assert client_address("127.0.0.1", "203.0.113.9") == "203.0.113.9"
    assert client_address("::1", "6.6.6.6, 203.0.113.9") == "203.0.113.9"
    assert client_address("198.51.100.4", "203.0.113.9") == "198.51.100.4"
    assert client_address("127.0.0.1", None) == "127.0.0.1"
    assert client_address(None, "203.0.113.9") == "?"


def test_an_ipv6_client_is_counted_by_its_64_bits_of_network() -> None:
    """Every address of one /64 is one client's (a provider hands out no less); an IPv4
    address written as IPv6 is the IPv4 address."""
    one = client_address("2001:db8:1:2:aaaa::1", None)
    assert one == client_address("::1", "2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert client_address("2001:db8:1:3::1", None) != one
    assert client_address("::ffff:203.0.113.9", None) == "203.0.113.9"
    assert client_address("127.0.0.1", "not an address" * 20) == ("not an address" * 20)[:64]


def test_a_token_bucket_allows_a_burst_then_a_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(3, 2.0, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take() == pytest.approx(0.5)
    now[0] += 0.5
    assert bucket.take() == 0.0 and not bucket.full()
    now[0] += 10
    assert bucket.full()


WELL_FORMED = b'{"code": "abc123", "instance_id": "i-1-gc-2-3"}'


async def ask_session(
    served: Served, address: str, body: bytes = b"{"
) -> tuple[int, dict[str, str], dict]:
    headers = {"X-Forwarded-For": address, "Accept-Language": "es-ES"}
    async with served.http.post(served.base + "/api/session", data=body, headers=headers) as answer:
        return answer.status, dict(answer.headers), await answer.json()


async def test_api_session_is_rate_limited_per_address_and_overall(tmp_path: Path) -> None:
    """An address that asks too often gets 429 with ``Retry-After`` and a message in the
    browser's language, another address is still served; malformed asks count against their
    address only, so strangers' empty bodies from any number of addresses cost the members
    nothing; the well-formed asks of everyone together are held to the overall rate."""
    frozen = [0.0]
    limits = SessionLimits(per_address=(3, 0.5), overall=(5, 1.0), clock=lambda: frozen[0])
    async for served in serve(tmp_path, limits=limits):
        identity = served.server.door.identity
        assert isinstance(identity, Refusing)
        answers = [await ask_session(served, "203.0.113.1") for _ in range(4)]
        assert [status for status, _, _ in answers] == [400, 400, 400, 429]
        _, headers, body = answers[-1]
        assert headers["Retry-After"] == "2" and body["error"] == "busy"
        assert "un minuto" in body["message"]  # Spanish, as the browser asked
        for stranger in range(50):  # malformed, from as many addresses: the members lose nothing
            assert (await ask_session(served, f"198.51.100.{stranger}", b""))[0] == 400
        for address in range(2, 7):  # five well-formed asks in all: Discord is asked each
            assert (await ask_session(served, f"203.0.113.{address}", WELL_FORMED))[0] == 403
        assert identity.asked == 5
        status, headers, body = await ask_session(served, "203.0.113.7", WELL_FORMED)
        assert (status, headers["Retry-After"], body["error"]) == (429, "1", "busy")
        frozen[0] += 1.0  # a second later, one more may ask
        assert (await ask_session(served, "203.0.113.7", WELL_FORMED))[0] == 403
        assert (await ask_session(served, "203.0.113.8", WELL_FORMED))[0] == 429
        assert identity.asked == 6


async def test_the_post_after_a_pages_turn_is_counted_as_work(served: Served) -> None:
    """The server's post of the Discord board after a page's turn runs in a task of its own,
    counted as work from its creation until it is done (the shutdown and the tests wait for
    it); the AI is scheduled after it."""
    services = served.services
    made = await challenge(services)
    game = (await services.challenges.answer(made.id, by(BOB), "accept")).game
    before = work.in_flight()
    play = served.server.parts.answering("turn")
    assert isinstance(play, PlayPages)
    play.after_change(game, None)  # as a page's new game would
    assert work.in_flight() == before + 1
    async with asyncio.timeout(PATIENCE):
        while work.in_flight() != before:  # the post (the bot is not connected: it fails,
            await asyncio.sleep(0.01)  # logged, and housekeeping posts it later)
    assert served.opponent.scheduled == [game.id]


async def test_the_activity_instance_is_asked_within_a_background_calls_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The look-up of the Activity's instance (the bot's token) is bounded like every
    background Discord call: a Discord that never answers gives no session, not a page that
    waits for ever."""
    monkeypatch.setattr(background, "DISCORD_CALL_SECONDS", 0.05)
    asked = asyncio.Event()

    class Http:
        async def request(self, route: object) -> None:
            asked.set()
            await asyncio.Event().wait()  # no answer, ever

    client = type("Client", (), {"application_id": 1, "http": Http()})()
    identity = DiscordIdentity(client, "secret")  # type: ignore[arg-type]
    with pytest.raises(NotVouched, match="no answer in time"):
        await identity.place("i-1")
    assert asked.is_set()


def test_the_process_asks_for_the_open_files_its_pages_need(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each page is an open file: the soft limit is raised to fit the pages and the rest;
    a hard limit too low for them lowers how many pages the process takes."""
    asked: list[tuple[int, int]] = []
    limits = {"soft": 1024, "hard": 1_048_576}

    def getrlimit(which: int) -> tuple[int, int]:
        return limits["soft"], limits["hard"]

    def setrlimit(which: int, wanted: tuple[int, int]) -> None:
        asked.append(wanted)
        limits["soft"] = wanted[0]

    monkeypatch.setattr(limits_module.resource, "getrlimit", getrlimit)
    monkeypatch.setattr(limits_module.resource, "setrlimit", setrlimit)
    room = limits_module.RESERVED_DESCRIPTORS
    assert limits_module.descriptors_for(2000) == 2000
    assert asked == [(2000 + room, 1_048_576)]
    limits.update(soft=512, hard=600)
    assert limits_module.descriptors_for(2000) == 600 - room
    assert asked[-1] == (600, 600)
    assert limits_module.descriptors_for(100) == 100  # enough already: nothing asked
    assert len(asked) == 2


DM_CHANNEL, GROUP_DM = 500, 600


@pytest.mark.parametrize(
    "instance, code, status",
    [
        ("i-1-pc-500", "code-100", 200),  # a DM between Alice and Bob: Alice
        ("i-1-pc-500", "code-200", 200),  # and Bob
        ("i-2-pc-600", "code-300", 200),  # a group DM: Carol, who plays no game there
        ("i-1-pc-500", "code-300", 403),  # Carol is no participant of the DM's instance
        ("i-3-pc-600", "code-100", 403),  # an instance Discord never gave
        ("i-9-pc-600", "code-100", 200),  # named after the group DM, run in the DM
    ],
    ids=["dm", "dm-other", "group-dm", "stranger", "unknown", "forged-channel"],
)
async def test_a_dm_or_group_dm_page_gets_a_session_only_where_discord_places_its_member(
    tmp_path: Path, instance: str, code: str, status: int
) -> None:
    """In a DM or group DM (no server, the bot not in it) Discord's answer about the Activity
    instance — asked with the bot's token — is the page's place: a participant of it gets a
    session in its channel, with no server; a member not in it, or an instance Discord does
    not know, gets none; the page's word (the instance id's name of a channel) counts for
    nothing."""
    async for served in serve(tmp_path):
        dm = ActivityInstance(DM_CHANNEL, None, frozenset({100, 200}))
        served.server.door.identity = Vouching(  # type: ignore[assignment]
            {
                "i-1-pc-500": dm,
                "i-2-pc-600": ActivityInstance(GROUP_DM, None, frozenset({100, 200, 300})),
                "i-9-pc-600": dm,
            }
        )
        body = json.dumps({"code": code, "instance_id": instance}).encode()
        answered, headers, said = await ask_session(served, "203.0.113.1", body)
        assert answered == status, said
        if status != 200:
            assert "session" not in said and said["error"] in ("not_in_activity", "not_vouched")
            continue
        assert served.server.sessions is not None
        session = served.server.sessions.read(said["session"], time.time())
        assert session is not None and session.guild_id is None
        assert session.channel_id == (GROUP_DM if instance == "i-2-pc-600" else DM_CHANNEL)
        assert (session.user_id, said["user"]) == (int(code[5:]), code[5:])
        assert said["access_token"] == f"token-{code[5:]}"  # the member's own, for their SDK
        assert headers["Cache-Control"] == "no-store"


async def test_a_pages_turn_in_a_game_where_the_bot_is_not_posts_nothing(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a page's turn in a game between members in a DM (answers only), nothing is
    posted, the board's lease the turn took is given back at once (a press there must show
    the board now, not once the lease ran out), and the AI's picker is not woken (it leaves
    such games alone: there the AI plays within the press, or right after a page's turn)."""
    services = served.services
    made = await services.challenges.challenges.create(
        NewChallenge(
            DIRECT_MESSAGES,
            DM_CHANNEL,
            Person(ALICE, "Alice"),
            Person(BOB, "Bob"),
            GameOptions(colour="white", first="me").settled(),
            time.time() + 600,
            in_channel=True,
            venue="dm",
        ),
        now=time.time(),
    )
    game = await services.challenges.new_games.accepted(made, None, Person(BOB, "Bob"))
    posts: list[Game] = []
    background = served.server.app.poster.background
    monkeypatch.setattr(background, "post_soon", lambda game, *_, **__: posts.append(game))
    path = turn_path(game.position, game.position.legal_turns()[0])
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, SKIP)
    played = await services.play.choose(game.id, game.version, "".join(path), by(ALICE, DM_CHANNEL))
    assert isinstance(played, TurnPlayed)
    lease = board_lease(game.id, played.game.version)
    leases = served.server.app.poster.leases
    assert await leases.expires_at(lease) is not None  # taken with the turn
    play = served.server.parts.answering("turn")
    assert isinstance(play, PlayPages)
    play.after_change(played.game, LastTurn(played.turn, ALICE))
    async with asyncio.timeout(PATIENCE):
        while await leases.expires_at(lease) is not None:
            await asyncio.sleep(0.01)
    assert posts == [] and served.opponent.scheduled == []


async def test_the_ai_answers_a_pages_turn_where_the_bot_is_not(served: Served) -> None:
    """An AI game in a DM between members (answers only: the picker leaves it alone): after the
    human's turn on the page, its search is asked for at once, for the game as the turn left
    it; nothing is posted."""
    game = await served.services.challenges.new_games.start_ai_game(
        guild_id=DIRECT_MESSAGES,
        channel_id=DM_CHANNEL,
        human=Person(ALICE, "Alice"),
        ai=served.opponent.person("en", "easy"),
        level="easy",
        options=GameOptions(colour="white", first="me"),
        venue="dm",
    )
    path = turn_path(game.position, game.position.legal_turns()[0])
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, SKIP)
    played = await served.services.play.choose(
        game.id, game.version, "".join(path), by(ALICE, DM_CHANNEL)
    )
    assert isinstance(played, TurnPlayed) and played.game.answers_only
    play = served.server.parts.answering("turn")
    assert isinstance(play, PlayPages)
    play.after_change(played.game, LastTurn(played.turn, ALICE))
    searches = served.opponent.searches
    await asyncio.wait_for(searches.asked_once.wait(), PATIENCE)
    assert [(asked.id, asked.version) for asked in searches.asked] == [
        (game.id, played.game.version)
    ]
    assert served.opponent.scheduled == []
