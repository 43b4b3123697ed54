"""Thousands of random and mutated messages at every door of the live board's server (the real
aiohttp server, the real services, SQLite): first messages of sockets that have not said hello,
messages of pages that have, HTTP requests with mangled paths, headers and bodies written on the
socket as they are. Throughout, two members' pages of a game stay connected. Then: nothing was
logged at ERROR, every fuzzing page that said hello is still served, the two pages were never
dropped and a turn played on one reaches both — the bot still plays. On SQLite and PostgreSQL.
Seeded: the seed is printed, and the test holds for any seed."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import string
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.web import live as live_module
from bot.web.limits import Doors
from bot.web.live import MESSAGE_LIMIT
from bot.web.sessions import Session
from engine.builder import SKIP, TurnBuilder, turn_path
from tests.features.play.test_service import ALICE, BOB, CHANNEL, GUILD, by, challenge
from tests.web.test_server import Served, serve

PATIENCE = 30.0
"""Seconds a test waits for a frame (the wait ends when it comes)."""
FIRST_MESSAGES = 400
"""Sockets that send one fuzzed first message instead of a hello."""
PAGES, MESSAGES_PER_PAGE = 16, 150
"""Fuzzing pages that said hello, and the fuzzed messages each sends."""
REQUESTS = 800
"""Fuzzed HTTP requests."""
AT_ONCE = 40
"""Sockets or requests in flight at once."""
KEYS = ["type", "game", "version", "path", "level", "attempt", "lesson", "position", "session"]
TYPES = [
    "hello",
    "turn",
    "open",
    "lobby",
    "home",
    "play_ai",
    "puzzle",
    "puzzle_answer",
    "puzzle_reveal",
    "lesson",
    "lesson_answer",
    "analyse",
    "analysis_board",
    "analysis_turn",
    "analysis_review",
    "analysis_best",
]
NASTY_STRINGS = [
    "",
    " ",
    "\x00",
    "\ud800",
    "\udfff",
    "é" * 50,
    "😀" * 30,
    "../../etc/passwd",
    "%00",
    "<@1>",
    "${x}",
    "{0}",
    "{lesson}",
    "%s",
    "\\",
    '"',
    "P" * 9,
    "TPwbg",
    "i-1",
    "s1..",
    "\n\r\t",
    "A" * 5000,
]
NASTY_NUMBERS = [0, -1, 1, 2**31, 2**63 - 1, 2**63, 2**64, 2**70, -(2**63) - 1, 10**30]


def nasty(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, rich in the values that break readers."""
    kind = rng.randrange(10 if depth < 4 else 7)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice(NASTY_NUMBERS) * rng.choice([1, -1])
    if kind == 2:
        return rng.choice([0.5, -1.5, 1e308, float("nan"), float("inf"), 1.0, -0.0])
    if kind in (3, 4):
        return rng.choice(NASTY_STRINGS)
    if kind in (5, 6):
        return "".join(rng.choice(string.printable + "éü€\u202e") for _ in range(rng.randrange(20)))
    if kind in (7, 8):
        return [nasty(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): nasty(rng, depth + 1) for _ in range(rng.randrange(4))}


def mangled(rng: random.Random, text: str) -> str:
    """``text`` with a few characters changed, cut, doubled or nested deep."""
    kind = rng.randrange(6)
    if kind == 0 and text:
        cut = rng.randrange(len(text))
        return text[:cut]
    if kind == 1:
        depth = rng.choice([9, 50, 700, 1000])
        return "[" * depth + text + "]" * depth
    if kind == 2:
        return text * rng.randrange(2, 60)  # often past the limit
    chars = list(text)
    for _ in range(rng.randrange(1, 5)):
        at = rng.randrange(len(chars) + 1)
        change = rng.choice(["insert", "delete", "replace"])
        if change == "insert" or not chars or at == len(chars):
            chars.insert(at, rng.choice('{}[]",:\\é\x00 0123456789'))
        elif change == "delete":
            del chars[at]
        else:
            chars[at] = rng.choice('{}[]",:\\é0a')
    return "".join(chars)


class Fuzzer:
    """Messages for the doors: the page's real messages mutated, random values, raw text."""

    def __init__(self, rng: random.Random, templates: list[dict[str, Any]]) -> None:
        self.rng = rng
        self.templates = templates

    def message(self) -> str | bytes:
        rng = self.rng
        kind = rng.randrange(8)
        if kind == 0:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        if kind == 1:
            return json.dumps(nasty(rng))
        template = dict(rng.choice(self.templates))
        if kind <= 5:
            for _ in range(rng.randrange(1, 4)):
                action = rng.randrange(4)
                if action == 0 and template:
                    del template[rng.choice(list(template))]
                elif action == 1:
                    template["type"] = rng.choice([*TYPES, nasty(rng)])
                else:
                    template[rng.choice(KEYS)] = nasty(rng)
            return json.dumps(template)
        return mangled(rng, json.dumps(template))

    def hello(self, token: str) -> str | bytes:
        """A first message: a forged or mangled hello, or anything at all."""
        rng = self.rng
        if rng.random() < 0.4:
            return self.message()
        version, body, signature = token.split(".")
        forged = rng.choice(
            [
                f"{version}.{body}.{signature[::-1]}",
                f"{version}.{body}.{'é' * len(signature)}",
                f"{version}.{body[:-4]}AAAA.{signature}",
                f"s2.{body}.{signature}",
                f"{version}.{body}",
                mangled(rng, token),
                "[" * 600 + "]" * 600,
            ]
        )
        if forged == token:
            forged = token + "x"
        return json.dumps({"type": "hello", "session": forged})


def request(rng: random.Random, version: str) -> bytes:
    """An HTTP request as bytes, mangled in its method, path, headers or body (its length
    always told right: a body that never comes is the doors test's)."""
    method = rng.choice(
        [b"GET", b"POST", b"POST", b"PUT", b"HEAD", b"OPTIONS", b"DELETE", b"G\xc3T"]
    )
    path = rng.choice(
        [
            b"/",
            b"/api/config",
            b"/api/session",
            b"/api/live",
            b"/static/%00",
            f"/static/{version}/app.js".encode(),
            b"/static/" + b"a" * 3000,
            b"/static/../../etc/passwd",
            b"/caf\xc3\xa9",
            b"/\xff\xfe",
            b"/%ff%fe",
            b"/static/%2e%2e/%2e%2e/server.py",
            b"/?" + b"q=" * 500,
            b"//",
            b"*",
        ]
    )
    headers = [b"Host: x", b"Connection: close"]
    for _ in range(rng.randrange(4)):
        headers.append(
            rng.choice(
                [
                    b"X-Forwarded-For: " + rng.choice([b"::1", b"203.0.113.9", b"\xc3\xa9", b"a,"]),
                    b"X-Big: " + b"a" * rng.choice([100, 9000]),
                    b"Accept-Language: " + rng.choice([b"es;q=abc", b"\xff", b"de,;q=", b"x" * 99]),
                    b"Content-Type: " + rng.choice([b"application/json", b"\x00", b"text/html"]),
                    b"\xc3\xa9: x",
                    b"Upgrade: websocket",
                ]
            )
        )
    body = b""
    if method == b"POST":
        body = rng.choice(
            [
                b"",
                b"{",
                b"[]",
                b"null",
                b'{"code": 1}',
                b"[" * 500 + b"]" * 500,
                json.dumps(nasty(rng)).encode(),
                b"\xff\xfe\x00",
                b"x" * 2000,
                json.dumps({"code": "abc", "instance_id": nasty(rng)}).encode(),
            ]
        )
    headers.append(b"Content-Length: %d" % len(body))
    return method + b" " + path + b" HTTP/1.1\r\n" + b"\r\n".join(headers) + b"\r\n\r\n" + body


async def answer_of(port: int, raw: bytes) -> bytes:
    """The first line of what the server answers ``raw`` (it closes the connection)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        async with asyncio.timeout(PATIENCE):
            return await reader.readline()
    finally:
        writer.close()


class Listener:
    """A WebSocket's frames, read as they come (a page that does not read its frames would be
    too slow: the server would drop it)."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.frames: list[dict[str, Any]] = []
        self.closed = asyncio.Event()
        self._changed = asyncio.Event()
        self._task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.TEXT:
                self.frames.append(json.loads(message.data))
                self._changed.set()
        self.closed.set()
        self._changed.set()

    async def wait_for(self, found: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first frame (received or to come) for which ``found`` holds."""
        async with asyncio.timeout(PATIENCE):
            while True:
                for frame in self.frames:
                    if found(frame):
                        return frame
                assert not self.closed.is_set(), ("closed", self.socket.close_code)
                self._changed.clear()
                await self._changed.wait()

    async def close(self) -> None:
        await self.socket.close()
        await self._task


@pytest.fixture
async def served(tmp_path: Path, database_url: str) -> AsyncIterator[Served]:
    """The server on SQLite, then on PostgreSQL."""
    lifted = (1e9, 1e9)  # the rates of messages and opens are the doors tests'
    doors = Doors(member_messages=lifted, member_opens=lifted)
    async for found in serve(tmp_path, doors=doors, url=database_url):
        yield found


async def test_fuzzed_messages_at_every_door(
    served: Served, seed: int, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(live_module, "PER_SECOND", 1e9)  # (likewise a page's own rate)
    rng = random.Random(seed)
    app, sessions, boards = served.server.app, served.server.sessions, served.server.live
    assert sessions is not None and boards is not None
    changed: list[int] = []  # (no Discord here to post the boards on: the changes are noted)
    noted = asyncio.Event()

    def note(game_id: int) -> None:
        changed.append(game_id)
        noted.set()

    play = served.server.parts.answering("turn")
    monkeypatch.setattr(play, "after_change", lambda game, last: note(game.id))
    services = served.services
    made = await challenge(services)
    game = (await services.challenges.answer(made.id, by(BOB), "accept")).game
    assert game is not None

    def token(user_id: int, channel_id: int = CHANNEL) -> str:
        fields = dict(
            user_id=user_id,
            name=f"Member {user_id}",
            locale=rng.choice(["en-US", "es-ES", "de"]),
            channel_id=channel_id,
            guild_id=GUILD,
            instance_id=f"i-{user_id}-gc-1-{channel_id}",
            expires_at=time.time() + 600,
        )
        return sessions.issue(Session(**fields))  # type: ignore[arg-type]

    async def connect(address: str) -> aiohttp.ClientWebSocketResponse:
        return await served.http.ws_connect(
            served.base + "/api/live", headers={"X-Forwarded-For": address}
        )

    healthy = {}
    for user in (ALICE, BOB):
        socket = await connect(f"192.0.2.{user % 250}")
        await socket.send_json({"type": "hello", "session": token(user)})
        healthy[user] = Listener(socket)
        await healthy[user].wait_for(lambda frame: frame["type"] == "board")

    start = str(game.position)
    sentinel = str(game.position.apply(rng.choice(game.position.legal_turns())))
    templates: list[dict[str, Any]] = [
        {"type": "turn", "game": game.id, "version": game.version, "path": "TPw1"},
        {"type": "open", "game": game.id},
        {"type": "lobby"},
        {"type": "home"},
        {"type": "play_ai", "level": "easy"},
        {"type": "puzzle"},
        {"type": "puzzle_answer", "attempt": 1, "path": "P"},
        {"type": "puzzle_reveal", "attempt": 1},
        {"type": "lesson", "lesson": "take"},
        {"type": "lesson_answer", "lesson": "take", "path": "T"},
        {"type": "analyse", "position": start},
        {"type": "analyse", "game": game.id},
        {"type": "analysis_board", "position": start, "game": None},
        {"type": "analysis_turn", "position": start, "path": "Tw", "game": None},
        {"type": "analysis_review", "game": game.id},
        {"type": "analysis_best", "position": "not a position"},
    ]
    fuzzer = Fuzzer(rng, templates)

    # 1. Sockets whose first message is not a good hello: each is refused with a word.
    async def first_message(number: int) -> None:
        socket = await connect(f"198.51.100.{number % 200}")
        listener = Listener(socket)
        first = fuzzer.hello(token(ALICE + 1000 + number))
        await (socket.send_bytes(first) if isinstance(first, bytes) else socket.send_str(first))
        refused = await listener.wait_for(lambda frame: frame["type"] == "error")
        assert refused["code"] in ("session", "too_big") and refused["message"], refused
        await listener.close()

    for batch in range(0, FIRST_MESSAGES, AT_ONCE):
        await asyncio.gather(*(first_message(n) for n in range(batch, batch + AT_ONCE)))

    # 2. Pages that said hello, each sending fuzzed messages, then asking for the sentinel.
    async def fuzzing_page(number: int) -> None:
        channel = CHANNEL if number % 2 else CHANNEL + 1 + number  # with a game, or none
        socket = await connect(f"2001:db8:{number}::1")
        await socket.send_json({"type": "hello", "session": token(300 + number, channel)})
        listener = Listener(socket)
        await listener.wait_for(lambda frame: frame["type"] == "welcome")
        for _ in range(MESSAGES_PER_PAGE):
            message = fuzzer.message()
            if isinstance(message, bytes):
                await socket.send_bytes(message)
            elif len(message) <= 16 * MESSAGE_LIMIT:
                await socket.send_str(message)
        await socket.send_json({"type": "analyse", "position": sentinel})
        await listener.wait_for(
            lambda frame: frame["type"] == "analysis" and frame["positions"] == [sentinel]
        )
        answered.update(frame.get("code") or frame["type"] for frame in listener.frames)
        await listener.close()

    answered: set[str] = set()
    await asyncio.gather(*(fuzzing_page(number) for number in range(PAGES)))
    print("the pages were answered:", sorted(answered))
    assert {"malformed", "too_big", "refused", "lobby", "analysis"} <= answered

    # 3. HTTP requests, written as they are: never a 5xx.
    version = served.server.version
    statuses: set[bytes] = set()

    async def one_request() -> None:
        line = await answer_of(served.server.port, request(rng, version))
        assert line.startswith(b"HTTP/1."), line
        statuses.add(line.split(b" ")[1])

    for _ in range(0, REQUESTS, AT_ONCE):
        await asyncio.gather(*(one_request() for _ in range(AT_ONCE)))
    print("the requests were answered:", sorted(statuses))
    assert not any(status.startswith(b"5") for status in statuses), statuses
    assert {b"200", b"400", b"404"} <= statuses

    # The two members' pages were never dropped, and the game goes on.
    for listener in healthy.values():
        assert not listener.closed.is_set()
    current = await app.stores.games.game(game.id)
    assert current is not None and current.version == game.version
    turn = rng.choice(current.position.legal_turns())
    path = turn_path(current.position, turn)
    if TurnBuilder(current.position, path).turn is None:
        path = (*path, SKIP)
    before = len(changed)  # (games the fuzzing pages started against the AI may change too)
    noted.clear()
    await healthy[ALICE].socket.send_json(
        {"type": "turn", "game": game.id, "version": current.version, "path": "".join(path)}
    )
    for listener in healthy.values():
        await listener.wait_for(
            lambda frame: frame["type"] == "board" and frame.get("version") == current.version + 1
        )
    # The pages may hear of the turn before its handler notes it: wait for the note.
    while game.id not in changed[before:]:  # and its Discord board would be posted
        await asyncio.wait_for(noted.wait(), timeout=30)
        noted.clear()
    for listener in healthy.values():
        await listener.close()
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not errors, [record.getMessage() for record in errors[:5]]
