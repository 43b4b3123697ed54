"""The live board's doors against strangers, in-process (the real aiohttp server on SQLite): a
WebSocket counted from its accept, a hello deadline that pings do not move, a share per client
address, a silent socket cut to make room for a page; and every bad input refused with a word
and no traceback — each test checks that nothing was logged at ERROR."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from yarl import URL

from bot.web import live as live_module
from bot.web.headers import HEADERS
from bot.web.limits import FULL_CLOSE, SESSION_CLOSE, Buckets, Doors
from bot.web.live import nesting, parsed, stored_int
from bot.web.sessions import Session
from bot.web.strangers import QUIET_EVERY, REQUEST_LOG, Quiet, StrangersRequests
from tests.features.play.test_service import ALICE, BOB, CHANNEL, GUILD, NAMES
from tests.web.test_server import Served, serve

PATIENCE = 30.0
"""Seconds a test waits for a condition (the wait ends when it holds)."""
DROPPED = aiohttp.WSCloseCode.ABNORMAL_CLOSURE
"""How a client sees a socket the server dropped without a word (a silent one)."""
LIFTED = (1e9, 1e9)
"""A rate no test reaches (the rate it lifts is another test's)."""


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    doors = Doors(per_process=6, per_address=3, member_messages=LIFTED)
    async for found in serve(tmp_path, doors=doors):
        yield found


@pytest.fixture(autouse=True)
def no_errors(caplog: pytest.LogCaptureFixture) -> Any:
    """Whatever a test throws at the server, nothing is logged at ERROR."""
    caplog.set_level(logging.INFO)
    yield
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not errors, [record.getMessage() for record in errors]


def token(served: Served, user_id: int = ALICE, **changes: Any) -> str:
    """A session the server's key signed (Discord's part is the end-to-end tests')."""
    fields = dict(
        user_id=user_id,
        name=NAMES.get(user_id, "Dave"),
        locale="en-US",
        channel_id=CHANNEL,
        guild_id=GUILD,
        instance_id="i-1-gc-1-10",
        expires_at=time.time() + 600,
    )
    assert served.server.sessions is not None
    return served.server.sessions.issue(Session(**(fields | changes)))


async def connect(served: Served, address: str = "203.0.113.1") -> aiohttp.ClientWebSocketResponse:
    """A WebSocket to ``/api/live`` from ``address`` (told by a proxy on this machine)."""
    return await served.http.ws_connect(
        served.base + "/api/live", headers={"X-Forwarded-For": address}, autoping=False
    )


async def frame(socket: aiohttp.ClientWebSocketResponse, kind: str | None = None) -> dict:
    """The next frame (of ``kind``: others before it are skipped)."""
    async with asyncio.timeout(PATIENCE):
        while True:
            message = await socket.receive()
            assert message.type == aiohttp.WSMsgType.TEXT, message
            data = json.loads(message.data)
            if kind is None or data["type"] == kind:
                return data


async def closed(socket: aiohttp.ClientWebSocketResponse) -> int | None:
    """The close code of ``socket`` once the server closed it (frames before it skipped)."""
    async with asyncio.timeout(PATIENCE):
        while (await socket.receive()).type not in (
            aiohttp.WSMsgType.CLOSE,
            aiohttp.WSMsgType.CLOSED,
        ):
            pass
    return socket.close_code


async def page(served: Served, user_id: int = ALICE, address: str = "203.0.113.1") -> Any:
    """A page that said hello, showing its channel (its first frame read)."""
    socket = await connect(served, address)
    await socket.send_json({"type": "hello", "session": token(served, user_id)})
    await frame(socket, "welcome")
    return socket


async def wait_until(condition: Any, what: str) -> None:
    async with asyncio.timeout(PATIENCE):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), what


async def test_pings_do_not_move_the_hello_deadline(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket that pings and never says hello is dropped at the deadline, counted from its
    accept (each ping used to start the wait again)."""
    monkeypatch.setattr("bot.web.talk.HELLO_TIMEOUT", 0.5)
    socket = await connect(served)
    pings = 0

    async def pinging() -> None:
        nonlocal pings
        while True:
            await socket.ping()
            pings += 1
            await asyncio.sleep(0.05)  # a ping every 50 ms, ten times within the deadline

    task = asyncio.create_task(pinging())
    try:
        assert await closed(socket) == DROPPED
    finally:
        task.cancel()
    assert pings > 1
    assert served.server.talk is not None
    await wait_until(lambda: served.server.talk.doors.open == 0, "the socket is forgotten")


async def test_silent_sockets_make_room_and_an_address_has_a_share(served: Served) -> None:
    """Counted from its accept, a silent socket takes a place; when its address's share (3)
    or the process (6) is full, the silent socket that waited longest is cut for the new one,
    so silent sockets never keep a page out. Pages that said hello are never cut: past the
    share with no silent socket left, the new socket is told the board is full (4503)."""
    doors = served.server.talk.doors  # type: ignore[union-attr]
    silent = [await connect(served) for _ in range(3)]
    await wait_until(lambda: doors.open == 3, "the silent sockets count from their accept")
    alice = await page(served)  # same address: the oldest silent socket makes room
    assert await closed(silent[0]) == DROPPED and doors.cut == 1
    bob = await page(served, BOB)
    assert await closed(silent[1]) == DROPPED
    third = await page(served, ALICE)
    assert await closed(silent[2]) == DROPPED
    refused = await connect(served)  # three pages of the address said hello: none is cut
    assert (await frame(refused))["code"] == "full"
    assert await closed(refused) == FULL_CLOSE
    await wait_until(lambda: doors.open == 3, "the cut and refused sockets are forgotten")
    others = [await page(served, BOB, "198.51.100.7") for _ in range(3)]  # another address
    assert doors.open == 6
    full = await connect(served, "192.0.2.1")  # the process is full of pages
    assert (await frame(full))["code"] == "full" and await closed(full) == FULL_CLOSE
    for socket in (alice, bob, third, *others):
        await socket.send_json({"type": "home"})
        assert (await frame(socket))["type"] in ("lobby", "board")  # still served


async def test_no_more_than_so_many_sockets_wait_for_their_hello(tmp_path: Path) -> None:
    """Past the number of sockets that may wait for their hello at once, each new one cuts
    the one that has waited longest, whatever the room left in the process."""
    async for served in serve(tmp_path, doors=Doors(silent=2)):
        silent = [await connect(served, f"203.0.113.{n}") for n in range(3)]
        assert await closed(silent[0]) == DROPPED
        alice = await page(served)
        assert await closed(silent[1]) == DROPPED
        await alice.send_json({"type": "home"})
        assert (await frame(alice))["type"] in ("lobby", "board")


async def test_an_address_opening_sockets_too_often_is_refused_before_the_upgrade(
    served: Served,
) -> None:
    """Past its address's burst of opens, a WebSocket is answered 429 with ``Retry-After``
    before its upgrade (nothing of it kept); another address opens its page."""
    frozen = [0.0]
    served.server.opening = Buckets((2, 1.0), clock=lambda: frozen[0])
    for _ in range(2):
        await (await connect(served)).close()
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await connect(served)
    assert refused.value.status == 429 and refused.value.headers["Retry-After"] == "1"
    await (await page(served, BOB, "198.51.100.7")).close()
    frozen[0] += 1.0
    await (await page(served)).close()


async def test_a_member_holds_a_bounded_number_of_pages_over_all_sessions(
    tmp_path: Path,
) -> None:
    """Many sessions of one member (each one vouched for by Discord) hold at most the
    member's share of pages together."""
    async for served in serve(tmp_path, doors=Doors(per_member=3, per_session=2)):
        sockets = []
        for number in range(3):
            socket = await connect(served, f"203.0.113.{number}")
            await socket.send_json(
                {"type": "hello", "session": token(served, instance_id=f"i-{number}")}
            )
            await frame(socket, "welcome")
            sockets.append(socket)
        fourth = await connect(served, "203.0.113.9")
        await fourth.send_json({"type": "hello", "session": token(served, instance_id="i-9")})
        assert (await frame(fourth))["code"] == "too_many_pages"
        bob = await page(served, BOB)
        await bob.send_json({"type": "home"})
        await frame(bob)


async def test_a_member_opening_pages_again_and_again_is_told_the_board_is_full(
    tmp_path: Path,
) -> None:
    """Past the member's burst of opens, a page that says hello is told the board is full
    (4503: it tries again later); another member opens theirs."""
    frozen = [0.0]
    doors = Doors(member_opens=(3, 0.5), clock=lambda: frozen[0])
    async for served in serve(tmp_path, doors=doors):
        for _ in range(3):
            socket = await page(served)
            await socket.close()
        again = await connect(served)
        await again.send_json({"type": "hello", "session": token(served)})
        refused = await frame(again)
        assert (refused["code"], await closed(again)) == ("full", FULL_CLOSE)
        await (await page(served, BOB)).close()
        frozen[0] += 2.0  # a token back: the member opens one more
        await (await page(served)).close()


async def test_a_members_pages_share_one_rate_of_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two pages of one member together get the member's burst (each page's own rate lifted
    here); past it each is told to slow down, another member's page is served."""
    monkeypatch.setattr(live_module, "PER_SECOND", 1e9)
    frozen = [0.0]
    doors = Doors(member_messages=(4, 1.0), clock=lambda: frozen[0])
    async for served in serve(tmp_path, doors=doors):
        first, second = await page(served), await page(served)
        for socket in (first, second, first, second):
            await socket.send_json({"type": "nothing"})
            assert (await frame(socket, "error"))["code"] == "malformed"
        for socket in (first, second):
            await socket.send_json({"type": "nothing"})
            assert (await frame(socket, "error"))["code"] == "slow_down"
        bob = await page(served, BOB)
        await bob.send_json({"type": "nothing"})
        assert (await frame(bob, "error"))["code"] == "malformed"
        frozen[0] += 1.0
        await first.send_json({"type": "nothing"})
        assert (await frame(first, "error"))["code"] == "malformed"


HOSTILE_FIRST_MESSAGES: list[str | bytes] = [
    json.dumps({"type": "hello", "session": "s1.e30.\u00e9\u00e9\u00e9"}),  # non-ASCII signature
    json.dumps({"type": "hello", "session": "s1.\u00e9.x"}),
    "[" * 1000 + "]" * 1000,  # a thousand levels in 2 KB
    '{"type":"hello","session":' + "[" * 900 + "]" * 900 + "}",
    json.dumps({"type": []}),
    "{}",
    "\u00e9" * 3000,
    b"\x00\xff binary",
]


@pytest.mark.parametrize("first", HOSTILE_FIRST_MESSAGES, ids=range(len(HOSTILE_FIRST_MESSAGES)))
async def test_a_bad_hello_is_refused_with_a_word(served: Served, first: str | bytes) -> None:
    socket = await connect(served)
    await (socket.send_bytes(first) if isinstance(first, bytes) else socket.send_str(first))
    refused = await frame(socket)
    assert (refused["type"], refused["code"]) == ("error", "session") and refused["message"]
    assert await closed(socket) == SESSION_CLOSE


HOSTILE_MESSAGES: list[tuple[object, str]] = [
    ("[" * 1000 + "]" * 1000, "malformed"),
    ('{"type":"turn","game":' + "[" * 800 + "]" * 800 + "}", "malformed"),
    ({"type": []}, "malformed"),
    ({"type": {"a": 1}}, "malformed"),
    ({}, "malformed"),
    ({"type": None}, "malformed"),
    ({"type": "play_ai", "level": []}, "malformed"),
    ({"type": "play_ai", "level": {"x": 1}}, "malformed"),
    ({"type": "open", "game": 2**70}, "not_here"),
    ({"type": "open", "game": -(2**70)}, "not_here"),
    ({"type": "open", "game": True}, "not_here"),
    ({"type": "analyse", "game": 2**70}, "refused"),
    ({"type": "analysis_review", "game": 2**70}, "refused"),
    ({"type": "analysis_board", "position": "x", "game": 2**70}, "refused"),
    ({"type": "turn", "game": 2**70, "version": 1, "path": "P"}, "malformed"),
    ({"type": "turn", "game": 1, "version": 2**64, "path": "P"}, "malformed"),
    ({"type": "puzzle_reveal", "attempt": 2**70}, "malformed"),
    ({"type": "puzzle_answer", "attempt": 1.5, "path": "P"}, "malformed"),
    ({"type": "lesson_answer", "lesson": [], "path": "P"}, "malformed"),
    ({"type": "nothing"}, "malformed"),
    ({"type": "open", "game": 2**63 - 1}, "not_here"),
    ({"type": "analyse", "game": 2**63 - 1}, "refused"),
    ({"type": "analysis_review", "game": -(2**63)}, "refused"),
    ({"type": "puzzle_reveal", "attempt": 2**63 - 1}, "refused"),
    ({"type": "turn", "game": 2**63 - 1, "version": 2**63 - 1, "path": "P"}, "no_game"),
]


async def test_bad_messages_after_the_hello_are_refused_and_the_page_stays(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each is refused with an error frame (the codes the page knows); the page stays open
    and is served after them all; on SQLite and PostgreSQL (the largest id they store is looked
    up, a larger one never). (The rate of a page's messages is another test's: here it is
    lifted.)"""
    monkeypatch.setattr(live_module, "PER_SECOND", 1e9)
    async for served in serve(tmp_path, doors=Doors(member_messages=LIFTED), url=database_url):
        await refused_one_by_one(served)


async def refused_one_by_one(served: Served) -> None:
    socket = await page(served)
    await frame(socket)  # its lobby
    for message, code in HOSTILE_MESSAGES:
        await (socket.send_str(message) if isinstance(message, str) else socket.send_json(message))
        refused = await frame(socket, "error")
        assert refused["code"] == code and refused["message"], (message, refused)
    await socket.send_json({"type": "lobby"})
    assert (await frame(socket, "lobby"))["type"] == "lobby"
    assert not socket.closed


async def test_http_errors_carry_the_security_headers(served: Served) -> None:
    """404 (a missing file, a path the system cannot name), 405, 413 and 429 carry the same
    headers as the page: aiohttp's own answers too."""
    http, base = served.http, served.base
    version = served.server.version
    requests = [
        ("GET", "/nothing", None, 404),
        ("GET", "/static/%00", None, 404),
        ("GET", f"/static/{version}/%00.js", None, 404),
        ("GET", "/static/" + "a" * 5000, None, 404),
        ("GET", "/api/session", None, 405),
        ("POST", "/api/session", b"x" * 5000, 413),
        ("POST", "/api/session", b"[" * 500 + b"]" * 500, 400),
        ("POST", "/api/session", b'{"code":' + b"[" * 490 + b"]" * 490 + b"}", 400),
        ("POST", "/api/session", b"\xff\xfe{}", 400),
        ("POST", "/api/session", b'{"code":"abc","instance_id":"../../users/@me"}', 400),
        ("POST", "/api/session", b'{"code":"a b","instance_id":"i-1-gc-1-2"}', 400),
    ]
    for method, path, body, status in requests:
        url = URL(base + path, encoded=True)
        async with http.request(method, url, data=body) as answer:
            assert answer.status == status, (path, answer.status)
            for name, value in HEADERS.items():
                assert answer.headers.get(name) == value, (path, name)


async def raw(served: Served, request: bytes) -> bytes:
    """What the server answers ``request`` written on a socket as it is."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.server.port)
    writer.write(request)
    await writer.drain()
    async with asyncio.timeout(PATIENCE):
        answer = await reader.read(65536)
    writer.close()
    return answer


async def test_a_request_aiohttp_cannot_read_is_one_quiet_line(
    served: Served, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw UTF-8 byte in the path, a header over 8 KiB: 400, and not an error of ours — at
    most one line a minute at INFO saying how many, no traceback."""
    [strangers] = [each for each in REQUEST_LOG.filters if isinstance(each, StrangersRequests)]
    monkeypatch.setattr(strangers.quiet, "_last", None)  # (no line yet: another test's is not)
    for _ in range(20):
        answer = await raw(served, "GET /caf\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert answer.split(b" ")[1] == b"400"
        answer = await raw(
            served, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
        )
        assert answer.split(b" ")[1] in (b"400", b"431")
    lines = [r for r in caplog.records if "could not be read or answered" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert all(not r.exc_info for r in caplog.records if r.name.startswith("bot.web"))
    status, _, _ = await get(served, "/")
    assert status == 200  # served as before


def test_a_client_gone_before_its_answer_is_not_an_error_of_ours(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """aiohttp's ERROR for a request whose client went before the answer (a reset
    connection) is quieted; an error of a handler of ours is not."""
    for error in (ConnectionResetError("Cannot write to closing transport"), KeyError("ours")):
        try:
            raise error
        except Exception:
            REQUEST_LOG.exception("Error handling request from %s", "127.0.0.9")
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.exc_info[1] for r in errors if r.exc_info] == [error]
    caplog.clear()  # (the handler's error was logged on purpose)


async def get(served: Served, path: str) -> tuple[int, dict[str, str], str]:
    async with served.http.get(served.base + path) as answer:
        return answer.status, dict(answer.headers), await answer.text()


async def test_requests_held_open_are_held_to_a_share_per_address(served: Served) -> None:
    """Requests whose body never comes hold their address's share: the next request of that
    address is answered 429; another address is served."""
    served.server.requests.per_address = 2
    held = [await held_request(served, "203.0.113.5") for _ in range(2)]
    await wait_until(
        lambda: served.server.requests._addresses.get("203.0.113.5") == 2, "both are in flight"
    )
    async with served.http.get(
        served.base + "/", headers={"X-Forwarded-For": "203.0.113.5"}
    ) as answer:
        assert answer.status == 429 and answer.headers["Retry-After"] == "1"
    async with served.http.get(
        served.base + "/", headers={"X-Forwarded-For": "203.0.113.6"}
    ) as answer:
        assert answer.status == 200
    for writer in held:
        writer.close()


async def test_past_so_many_connections_the_one_idle_longest_is_closed(served: Served) -> None:
    """Raw connections that never send a request hold a descriptor each: past the process's
    number, each new connection closes the one idle longest — never one with a request in
    hand (a page, a request whose body is coming) — and a page opens."""
    connections = served.server.connections
    connections.most = 4
    held = await held_request(served, "203.0.113.5")  # a request in hand, the oldest
    raw = [await asyncio.open_connection("127.0.0.1", served.server.port) for _ in range(3)]
    await wait_until(
        lambda: (connections.open, connections.in_hand) == (4, 1), "the connections are counted"
    )
    alice = await page(served)  # (its connection new: the oldest raw one makes room)
    async with asyncio.timeout(PATIENCE):
        assert await raw[0][0].read() == b""  # closed by the server
    assert connections.closed == 1  # the raw one, not the older request in hand
    await alice.send_json({"type": "home"})
    assert (await frame(alice))["type"] in ("lobby", "board")
    for _, writer in raw:
        writer.close()
    held.close()


async def held_request(served: Served, address: str) -> asyncio.StreamWriter:
    """A request to ``/api/session`` whose body never comes (in hand until the server's
    patience ends)."""
    _, writer = await asyncio.open_connection("127.0.0.1", served.server.port)
    writer.write(
        b"POST /api/session HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "
        + address.encode()
        + b"\r\nContent-Length: 100\r\n\r\n{"
    )
    await writer.drain()
    return writer


async def test_accepts_refused_for_want_of_descriptors_are_one_warning_a_minute(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    """asyncio's word on each accept that failed for want of file descriptors (a traceback
    each, thousands a second) becomes one warning a minute for this server's socket; the same
    word about another socket still goes to the handler there was."""
    loop = asyncio.get_running_loop()
    port = served.server.port

    class Listening:
        def __init__(self, port: int) -> None:
            self.port = port

        def getsockname(self) -> tuple[str, int]:
            return ("127.0.0.1", self.port)

    for _ in range(1000):
        loop.call_exception_handler(
            {
                "message": "socket.accept() out of system resource",
                "exception": OSError(24, "Too many open files"),
                "socket": Listening(port),
            }
        )
    warnings = [r for r in caplog.records if "out of file descriptors" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert served.server.accepts.count == 999
    caplog.clear()
    loop.call_exception_handler(
        {"message": "socket.accept() out of system resource", "socket": Listening(port + 1)}
    )
    others = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(others) == 1  # not ours: said as before
    caplog.clear()


def test_quiet_says_how_many_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    quiet = Quiet(logging.getLogger("test.quiet"), "%d times", clock=lambda: now[0])
    for _ in range(5):
        quiet.note()
    now[0] += QUIET_EVERY
    quiet.note()
    assert [r.getMessage() for r in caplog.records if r.name == "test.quiet"] == [
        "1 times",
        "5 times",
    ]


def test_messages_nested_deeper_than_a_page_sends_are_not_parsed() -> None:
    assert nesting('{"a": "[[[[[[[[[[[[", "b": [1, {"c": "\\"]"}]}') == 3
    assert parsed('{"type": "x", "a": [[[1]]]}') == {"type": "x", "a": [[[1]]]}
    assert parsed("[" * 1000 + "]" * 1000) is None
    assert parsed('{"a":' * 10 + "1" + "}" * 10) is None
    assert parsed("[]") is None and parsed('"x"') is None and parsed(3) is None
    assert live_module.DEPTH_LIMIT >= 2


def test_only_numbers_the_database_holds_are_ids() -> None:
    assert [stored_int(v) for v in (1, 0, 2**63 - 1, -(2**63))] == [1, 0, 2**63 - 1, -(2**63)]
    assert [stored_int(v) for v in (2**63, -(2**63) - 1, True, 1.0, "1", None)] == [None] * 6
