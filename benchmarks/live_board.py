"""The live board under load: one game watched by N open pages (200), and 20 live games beside it.

    .venv/bin/python -m benchmarks.live_board [--pages 200] [--turns 30] [--games 20] [--seed S]

Starts the Discord emulator (127.0.0.1 only) with Activities enabled, and ``python -m bot`` as its
own process with ``THOLOS_WEB_PORT`` set (the live board served; ``DISCORD_CLIENT_SECRET`` from
the emulator). One extra channel's game is opened on the live board the real way: its board's
Open the live board button launches the Activity, each of the N members (its two players and
N − 2 spectators) is given an authorization code in that instance by the emulator, and the code
is exchanged at ``POST /api/session`` (the bot asks the emulator for the token, the member and
the instance). Each page is an aiohttp WebSocket client in this process, offering
permessage-deflate as browsers do (``--no-compress``: not), that sends its session and reads
every frame; one real Chromium page (Debian's, through Playwright) watches too.

1. Latency: ``--turns`` turns of the watched game are played with the Discord buttons (as
   ``bot_latency``'s players press them), the bot otherwise idle. For each turn: from the press
   of its last step until each page has a board frame of the new version (p50/p95/max over all
   (turn, page) pairs; target p95 ≤ 150 ms), the slowest page of each turn, the Discord board,
   and the Chromium page (frame received and drawn).
2. Memory: the bot's RSS (VmRSS) before the sessions, after them, and after the N pages are
   connected and have their first board: KiB per open page.
3. Presses of ``--games`` live games (``bot_latency``'s players, ``--think`` 0.5 s) in windows of
   ``--seconds`` without pages and with the N pages watching the extra game, which gets a turn
   about every second in both (a new game for each window with pages), ``--rounds`` times
   (without then with, then with then without, …); "last step press → new board" p95 with
   pages ÷ without (target ≤ 1.2×).

Exits with 1 if a target fails on a quiet machine (other processes under 10% of a core) or a
check fails (emulator violations, failed interactions, a page that missed a turn, got an error
frame or was closed, a page's position other than the Discord board's, an unclean bot log or
exit code, a bot socket to an address other than 127.0.0.1). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import sys
import tempfile
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from playwright.async_api import Browser
from playwright.async_api import Page as BrowserPage

from engine import Position
from tests.browser import chromium
from tests.e2e.emulator import ActivityInstance, BotProcess, Emulator, Member
from tests.e2e.emulator.messages import Message

from .bot_latency import (
    CHANNEL_MESSAGE,
    CLOCK_TICKS,
    MIB,
    OTHER_CPU_WARNING,
    UPDATE_MESSAGE,
    BenchmarkError,
    Check,
    LiveGames,
    Player,
    ProcessWatch,
    Samples,
    Table,
    add_tables,
    code_under_test,
    expect,
    free_port,
    latency_row,
    lighten_emulator,
    machine_cpu,
    machine_line,
    percentile,
    prefill,
    read_board,
    running,
    stop_cleanly,
    stop_on_signals,
)

TARGET_PAGE_P95_MS = 150.0
TARGET_RATIO = 1.2
DEFAULT_PAGES = 200
DEFAULT_TURNS = 30
MAX_TURNS = 48
"""A basic game lasts at least 49 turns: the watched game does not end during part 1."""
DEFAULT_GAMES = 20
DEFAULT_THINK = 0.5
WATCHED_THINK = 0.3
"""Mean pause before each press of the watched game in part 3: a turn about every second."""
LAUNCH_ACTIVITY = 12
CONNECTING = 20
"""Pages connecting (or asking for a session) at once."""
FRAME_TIMEOUT = 30.0
"""Seconds every page has to get a turn's board frame (the wait ends when they have)."""
BOARD_HEAD = re.compile(r'\{"type":"board","game":(\d+),"version":(\d+),')
"""The start of a board frame (``bot.web.frames.board_frame``'s first keys, compact JSON): the
pages read the game and version from it and parse the rest only for the final check."""
KIB = 1024


# -- the pages: WebSocket clients of /api/live ----------------------------------------------------


@dataclass(eq=False)
class Page:
    """One open page: a member's session and what its WebSocket received."""

    member: Member
    session: str
    socket: aiohttp.ClientWebSocketResponse | None = None
    reader: asyncio.Task[None] | None = None
    game: int | None = None
    version: int = -1
    reached: dict[int, float] = field(default_factory=dict)
    """When a board frame of this version or a later one first arrived (wall clock)."""
    frames: int = 0
    repeats: int = 0
    """Board frames of a version the page already had."""
    last: str = ""
    kept: list[str] | None = None
    """Every board frame, for the page that keeps them (to size them on the wire)."""
    problems: list[str] = field(default_factory=list)


@dataclass(eq=False)
class Waiter:
    """Someone waiting for every page to reach ``version``."""

    version: int
    count: int
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Pages:
    """N open pages of one game (opened again, with the same sessions, for each game)."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        url: str,
        sessions: list[tuple[Member, str]],
        compress: bool,
        keeper: Member | None = None,
    ) -> None:
        self.http, self.url, self.sessions, self.compress = http, url, sessions, compress
        self.keeper = keeper
        """The member whose page keeps its frames."""
        self.pages: list[Page] = []
        self._waiters: list[Waiter] = []
        self._closing = False
        self.problems: list[str] = []
        """Problems of the pages closed so far."""

    async def open(self) -> float:
        """Connect every page, say hello with its session, and wait until each has a board;
        the seconds it took."""
        began = time.perf_counter()
        self._closing = False
        self.pages = [
            Page(member, session, kept=[] if member is self.keeper else None)
            for member, session in self.sessions
        ]
        limit = asyncio.Semaphore(CONNECTING)

        async def connect(page: Page) -> None:
            async with limit:
                page.socket = await self.http.ws_connect(
                    self.url, compress=15 if self.compress else 0
                )
                await page.socket.send_str(json.dumps({"type": "hello", "session": page.session}))
                page.reader = asyncio.create_task(self._read(page))

        await asyncio.gather(*(connect(page) for page in self.pages))
        missing = await self.wait(0)
        if missing:
            raise BenchmarkError(f"{missing} of {len(self.pages)} pages got no board")
        return time.perf_counter() - began

    async def close(self) -> None:
        self._closing = True
        await asyncio.gather(*(p.socket.close() for p in self.pages if p.socket is not None))
        await asyncio.gather(*(p.reader for p in self.pages if p.reader is not None))
        self.problems += [f"{p.member.user.username}: {x}" for p in self.pages for x in p.problems]

    async def _read(self, page: Page) -> None:
        assert page.socket is not None
        async for message in page.socket:
            at = time.time()
            if message.type != aiohttp.WSMsgType.TEXT:
                page.problems.append(f"a {message.type.name} message")
                continue
            text: str = message.data
            head = BOARD_HEAD.match(text)
            if head is None:
                if not text.startswith('{"type":"welcome"'):
                    page.problems.append(f"a frame {text[:160]}")
                continue
            game, version = int(head[1]), int(head[2])
            page.frames += 1
            page.last = text
            if page.kept is not None:
                page.kept.append(text)
            if page.game is None:
                page.game = game
            elif game != page.game:
                page.problems.append(f"a board of game {game} on the page of game {page.game}")
            self._advance(page, version, at)
        if not self._closing:
            page.problems.append(f"closed by the bot ({page.socket.close_code})")

    def _advance(self, page: Page, version: int, at: float) -> None:
        old = page.version
        if version <= old:
            page.repeats += 1
            return
        page.version = version
        for reached in range(version if old < 0 else old + 1, version + 1):
            page.reached[reached] = at
        for waiter in self._waiters:
            if old < waiter.version <= version:
                waiter.count += 1
                if waiter.count >= len(self.pages):
                    waiter.done.set()

    async def wait(self, version: int, timeout: float = FRAME_TIMEOUT) -> int:
        """Wait until every page has a board of ``version`` or later; how many have not after
        ``timeout``."""
        waiter = Waiter(version, sum(page.version >= version for page in self.pages))
        if waiter.count >= len(self.pages):
            return 0
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(timeout):
                await waiter.done.wait()
        except TimeoutError:
            pass
        finally:
            self._waiters.remove(waiter)
        return len(self.pages) - waiter.count

    def latencies(self, version: int, pressed: float) -> list[float]:
        """From ``pressed`` until each page had ``version`` (pages that have it)."""
        return [p.reached[version] - pressed for p in self.pages if version in p.reached]

    def positions(self) -> set[str]:
        """The positions the pages show now (their last board frames, parsed)."""
        return {json.loads(page.last)["position"] for page in self.pages}

    def kept(self) -> list[str]:
        return next((page.kept for page in self.pages if page.kept is not None), [])

    def frame_size(self, member: Member) -> int:
        """The size in bytes of the last board frame of ``member``'s page (0: no such page)."""
        return max((len(p.last.encode()) for p in self.pages if p.member is member), default=0)


# -- sessions, the real way -----------------------------------------------------------------------


async def launch(emu: Emulator, player: Player) -> ActivityInstance:
    """The watched game's White presses Open the live board: Discord launches the Activity."""
    board, table = player.board, player.table
    assert board is not None
    found = [b["custom_id"] for b in board.buttons if b.get("label") == "Open the live board"]
    if len(found) != 1:
        raise BenchmarkError(f"no Open the live board button: {board.text!r}")
    ix = await emu.click(table.white, board, found[0])
    expect(ix, LAUNCH_ACTIVITY)
    instance = emu.activity_instance(table.channel)
    if instance is None:
        raise BenchmarkError(f"{ix} launched no Activity in #{table.channel.name}")
    return instance


async def sessions_for(
    emu: Emulator,
    http: aiohttp.ClientSession,
    base: str,
    members: list[Member],
    instance: ActivityInstance,
) -> list[tuple[Member, str]]:
    """Each member joins ``instance`` and is given a code (the SDK's ``authorize``), which the
    bot exchanges for a session (``POST /api/session``). Each asks from an address of its own,
    as members do behind Discord's proxy (``X-Forwarded-For``, believed from the loopback), and
    a 429 of the live board's rate limit is waited out as its Retry-After says: setup only,
    nothing is timed yet."""
    limit = asyncio.Semaphore(CONNECTING)

    async def one(number: int, member: Member) -> tuple[Member, str]:
        address = f"10.0.{number // 250}.{number % 250 + 1}"
        while True:
            code = emu.authorize(member, instance)
            async with (
                limit,
                http.post(
                    f"{base}/api/session",
                    json={"code": code, "instance_id": instance.id},
                    headers={"X-Forwarded-For": address},
                ) as answer,
            ):
                body = await answer.json()
                wait = float(answer.headers.get("Retry-After", "1"))
            if answer.status != 429:
                break
            await asyncio.sleep(wait)
        if answer.status != 200 or body.get("user") != str(member.id):
            raise BenchmarkError(f"no session for {member.user.username}: {answer.status} {body}")
        return member, body["session"]

    return list(await asyncio.gather(*(one(n, m) for n, m in enumerate(members))))


# -- one real browser -----------------------------------------------------------------------------

SEEN_SCRIPT = """() => {
  window.seenAt = {};
  const note = () => {
    const version = document.body.dataset.version;
    if (version !== undefined && !(version in window.seenAt)) {
      window.seenAt[version] = performance.timeOrigin + performance.now();
    }
  };
  note();
  new MutationObserver(note).observe(document.body,
                                     {attributes: true, attributeFilter: ["data-version"]});
}"""
"""Notes when the page first shows each version: its ``data-version`` is set as it draws a
board frame; the observer runs once the frame's handler (drawing included) is done."""


@contextlib.asynccontextmanager
async def browser_page(
    emu: Emulator, port: int, member: Member, instance: ActivityInstance, table: Table
) -> AsyncIterator[BrowserPage]:
    """``member`` opens the live board in Chromium outside Discord (the SDK's mock, told by the
    query string what Discord would tell it), as ``tests/features/live/test_e2e_board.py`` does."""
    query = {
        "instance_id": instance.id,
        "guild_id": emu.guild.id,
        "channel_id": table.channel.id,
        "code": emu.authorize(member, instance),
    }
    browser: Browser
    async with chromium() as browser:
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        await page.goto(f"http://127.0.0.1:{port}/?{urlencode(query)}")
        await page.wait_for_function(
            "() => document.body.dataset.connection === 'open' && document.body.dataset.version",
            timeout=FRAME_TIMEOUT * 1000,
        )
        await page.evaluate(SEEN_SCRIPT)
        yield page


async def browser_saw(page: BrowserPage, version: int) -> float:
    """When the browser's page first showed ``version`` (wall clock, seconds)."""
    await page.wait_for_function(
        "version => window.seenAt[version] !== undefined",
        arg=str(version),
        timeout=FRAME_TIMEOUT * 1000,
    )
    return float(await page.evaluate("version => window.seenAt[version]", str(version))) / 1000


# -- the watched game -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """A turn of the watched game and when it reached the pages."""

    pressed: float
    """When its last step was pressed (wall clock)."""
    version: int
    pages: tuple[float, ...]
    browser: float | None
    missing: int
    """Pages that had not got it after :data:`FRAME_TIMEOUT`."""


async def play_watched(
    player: Player,
    pages: Pages | None,
    stop: Callable[[], bool],
    browser: BrowserPage | None = None,
    limit: int | None = None,
) -> list[Turn]:
    """Turns of the watched game with the Discord buttons until ``stop()`` (or ``limit``
    turns); with ``pages``, each turn waits until they have it and the game is not continued
    past its end (the pages watch that game). Without pages a game that ends is followed by a
    new one."""
    turns: list[Turn] = []
    while not stop() and player.problem is None and (limit is None or len(turns) < limit):
        version = 0
        if pages is not None:
            if player.over:
                break
            assert player.board is not None
            version = read_board(player.board, player.members)[2] + 1
        await player.play(1)
        if player.problem is not None or pages is None:
            continue
        pressed = player.samples.new_board_at[-1]
        missing = await pages.wait(version)
        seen = None if browser is None else await browser_saw(browser, version) - pressed
        turns.append(
            Turn(pressed, version, tuple(pages.latencies(version, pressed)), seen, missing)
        )
    return turns


async def new_watched_game(emu: Emulator, player: Player) -> None:
    """End the watched game (White resigns, if it is still played) and start the next one."""
    table = player.table
    if not player.over:
        ask = await emu.slash(table.white, "tholos resign", channel=table.channel)
        expect(ask, CHANNEL_MESSAGE)
        assert ask.original is not None
        confirm = [b["custom_id"] for b in ask.original.buttons if b.get("label") == "Yes, resign"]
        if len(confirm) != 1:
            raise BenchmarkError(f"no Yes, resign button: {ask.original.text!r}")
        expect(await emu.click(table.white, ask.original, confirm[0]), UPDATE_MESSAGE)
    await player.start()
    if player.problem is not None:
        raise BenchmarkError(player.problem)


def discord_position(board: Message | None, player: Player) -> str:
    assert board is not None
    position: Position = read_board(board, player.members, active=False)[0]
    return str(position)


def wire_sizes(frames: list[str]) -> tuple[int, int]:
    """The bytes of ``frames``, and their bytes once deflated as aiohttp sends them with
    permessage-deflate (one compressor per connection, its context kept from frame to frame,
    ``Z_BEST_SPEED``, 15 window bits; each frame's 4-byte flush trailer left off)."""
    compressor = zlib.compressobj(zlib.Z_BEST_SPEED, zlib.DEFLATED, -15)
    deflated = 0
    for frame in frames:
        data = frame.encode()
        deflated += len(compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)) - 4
    return sum(len(frame.encode()) for frame in frames), deflated


# -- CPU of process trees -------------------------------------------------------------------------


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its descendants, with those of its children that ended (a
    process's own CPU plus its waited-for children's, summed over the live tree)."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        spent[pid] = sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
    total = 0.0
    for pid, cpu in spent.items():
        ancestor = pid
        while ancestor not in (root, 0, 1) and ancestor in parents:
            ancestor = parents[ancestor]
        if ancestor == root:
            total += cpu
    return total


@dataclass(frozen=True)
class Reading:
    """Wall clock and CPU seconds so far: the bot's, this process's tree's (the bot, the
    emulator and players, Chromium) and the whole machine's."""

    at: float
    bot: float
    tree: float
    machine: float


@dataclass(frozen=True)
class Usage:
    """CPU seconds over a span: the bot's, the benchmark's own (emulator, players, pages,
    Chromium) and other processes'."""

    seconds: float
    bot: float
    ours: float
    other: float

    def lines(self, turns: int | None = None) -> Iterable[str]:
        seconds = self.seconds or 1.0
        per_turn = f", {1000 * self.bot / turns:.0f} ms a turn" if turns else ""
        yield (
            f"    CPU: bot {self.bot:.1f} s ({100 * self.bot / seconds:.0f}% of a core"
            f"{per_turn}), emulator, players, pages and browser {self.ours:.1f} s "
            f"({100 * self.ours / seconds:.0f}% of a core)"
        )
        warning = " — busy machine: figures disturbed" if self.busy > OTHER_CPU_WARNING else ""
        yield f"    CPU of other processes meanwhile: {100 * self.busy:.0f}% of a core{warning}"

    @property
    def busy(self) -> float:
        """Share of a core other processes used (never below 0: the counters are read one
        after the other, so a little of ours can fall outside the machine's)."""
        return max(0.0, self.other / (self.seconds or 1.0))


def reading(bot_pid: int) -> Reading:
    """The clock and CPU counters now."""
    return Reading(time.time(), tree_cpu(bot_pid), tree_cpu(os.getpid()), machine_cpu())


def usage(start: Reading, end: Reading) -> Usage:
    """What was used between two readings."""
    tree = end.tree - start.tree
    bot = end.bot - start.bot
    return Usage(end.at - start.at, bot, tree - bot, end.machine - start.machine - tree)


# -- the run --------------------------------------------------------------------------------------


@dataclass
class Window:
    """A span of part 3: live games played, with or without the pages."""

    pages: bool
    start: float
    end: float
    usage: Usage
    watched_turns: int


@dataclass
class Results:
    """What the run measured and found."""

    sessions_seconds: float = 0.0
    open_seconds: float = 0.0
    rss: dict[str, int] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    board: list[float] = field(default_factory=list)
    """Part 1: last step press → new Discord board of the watched game."""
    part1: Usage | None = None
    frames: int = 0
    repeats: int = 0
    frame_sizes: tuple[int, int] = (0, 0)
    wire: tuple[int, int] = (0, 0)
    """A spectator's board frames in part 1: bytes, and bytes deflated as on the wire."""
    positions_agree: list[bool] = field(default_factory=list)
    windows: list[Window] = field(default_factory=list)
    loaded_turns: list[Turn] = field(default_factory=list)
    live: Samples = field(default_factory=Samples)
    """Part 3: the live games' presses."""
    problems: list[str] = field(default_factory=list)
    addresses: set[str] = field(default_factory=set)
    exit_code: int | None = None
    reopen_seconds: list[float] = field(default_factory=list)


async def run(args: argparse.Namespace) -> tuple[Results, Emulator]:
    stop_on_signals()
    lighten_emulator()
    results = Results()
    with tempfile.TemporaryDirectory(prefix="tholos-live-bench-") as tmp:
        async with Emulator() as emu:
            emu.enable_activities()
            tables = add_tables(emu, args.games + 1)
            games, watched = tables[:-1], tables[-1]
            watchers = [emu.add_person(f"watcher-{n:03d}") for n in range(max(0, args.pages - 2))]
            members = [watched.white, watched.black, *watchers][: args.pages]
            in_browser = emu.add_person("browser-watcher")
            db_path = Path(tmp) / "live.db"
            await prefill(str(db_path), 10, tables, args.seed)
            port = free_port()
            env = {"LOG_LEVEL": "INFO", "THOLOS_THREADS": "off", "THOLOS_WEB_PORT": str(port)}
            bot = BotProcess("bot", emu, db_path, Path(tmp) / "bot.log", env=env)
            with running(bot, "live board"):
                await bot.start(sync=True)
                await measure(emu, bot, port, games, watched, members, in_browser, args, results)
                results.exit_code = await stop_cleanly(bot, results.problems)
    return results, emu


async def measure(
    emu: Emulator,
    bot: BotProcess,
    port: int,
    games: list[Table],
    watched: Table,
    members: list[Member],
    in_browser: Member,
    args: argparse.Namespace,
    results: Results,
) -> None:
    assert bot.process is not None
    pid = bot.process.pid
    watch = ProcessWatch(pid)
    watch.start()
    base = f"http://127.0.0.1:{port}"
    player = Player(emu, watched, args.seed * 1000 + 999, args.think, Samples())
    connector = aiohttp.TCPConnector(limit=0)  # a WebSocket holds its connection
    async with aiohttp.ClientSession(connector=connector) as http:
        # 1 and 2: sessions, pages, turns on an otherwise idle bot
        await player.start()
        if player.problem is not None:
            raise BenchmarkError(player.problem)
        instance = await launch(emu, player)
        await bot.settle()
        results.rss["before the sessions"] = watch.rss()
        began = time.perf_counter()
        sessions = await sessions_for(emu, http, base, members, instance)
        results.sessions_seconds = time.perf_counter() - began
        await bot.settle()
        results.rss[f"after {len(sessions)} sessions"] = watch.rss()
        pages = Pages(
            http, f"ws://127.0.0.1:{port}/api/live", sessions, args.compress, keeper=members[-1]
        )
        results.open_seconds = await pages.open()
        await bot.settle()
        results.rss[f"after {len(sessions)} pages opened"] = watch.rss()
        async with contextlib.AsyncExitStack() as stack:
            browser = None
            if args.browser:
                browser = await stack.enter_async_context(
                    browser_page(emu, port, in_browser, instance, watched)
                )
            start = reading(pid)
            results.turns = await play_watched(
                player, pages, lambda: False, browser, limit=args.turns
            )
            results.part1 = usage(start, reading(pid))
        results.board = list(player.samples.new_board)
        await bot.settle()
        results.rss["after the turns"] = watch.rss()
        results.frames = sum(p.frames for p in pages.pages)
        results.repeats = sum(p.repeats for p in pages.pages)
        to_move = read_board(player.board, player.members)[3] if not player.over else None
        spectator = members[-1]  # a watcher (with --pages 2: a player)
        results.wire = wire_sizes(pages.kept())
        pages.keeper = None
        results.frame_sizes = (
            pages.frame_size(spectator),
            0 if to_move is None else pages.frame_size(to_move),
        )
        results.positions_agree.append(
            pages.positions() == {discord_position(player.board, player)}
        )
        await pages.close()

        # 3: live games with and without the pages
        if args.games:
            await live_games(emu, pid, games, player, pages, args, results)
    await watch.stop()
    results.addresses = watch.addresses
    results.problems += pages.problems
    if player.problem:
        results.problems.append(player.problem)


async def live_games(
    emu: Emulator,
    pid: int,
    games: list[Table],
    player: Player,
    pages: Pages,
    args: argparse.Namespace,
    results: Results,
) -> None:
    """Part 3: ``--games`` live games throughout, the watched game a turn about every second,
    windows without and with the pages (in the order without, with, with, without, …: the live
    games' cost drifts as they go on, and ends and new games come in waves)."""
    player.think = WATCHED_THINK
    live = LiveGames(emu, games, args.seed, args.think)
    live.start()
    halt = asyncio.Event()
    """Set: the watched game stops after its current turn."""
    cadence = asyncio.create_task(play_watched(player, None, halt.is_set))
    await emu.wait_for(
        lambda: all(p.games for p in live.players) or bool(live.problems()),
        60.0,
        "the live games to start",
    )
    await asyncio.sleep(args.warmup)
    try:
        for round_ in range(args.rounds):  # without, with; with, without; …: a drift cancels
            for with_pages in (False, True) if round_ % 2 == 0 else (True, False):
                if with_pages:
                    halt.set()
                    await cadence
                    halt.clear()
                    await new_watched_game(emu, player)
                    results.reopen_seconds.append(await pages.open())
                    cadence = asyncio.create_task(play_watched(player, pages, halt.is_set))
                start = reading(pid)
                await asyncio.sleep(args.seconds)
                end = reading(pid)
                turns: list[Turn] = []
                if with_pages:
                    halt.set()
                    turns = await cadence
                    halt.clear()
                    results.loaded_turns += turns
                    results.positions_agree.append(
                        pages.positions() == {discord_position(player.board, player)}
                    )
                    await pages.close()
                    cadence = asyncio.create_task(play_watched(player, None, halt.is_set))
                results.windows.append(
                    Window(with_pages, start.at, end.at, usage(start, end), len(turns))
                )
    finally:
        halt.set()
        await cadence
        await live.stop()
    results.live = live.samples
    results.problems += live.problems()


# -- the report -----------------------------------------------------------------------------------


def in_windows(results: Results, with_pages: bool) -> list[float]:
    """Last step press → new board of the live games pressed in the windows of one kind."""
    spans = [(w.start, w.end) for w in results.windows if w.pages == with_pages]
    pairs = zip(results.live.new_board_at, results.live.new_board, strict=True)
    return [latency for at, latency in pairs if any(a <= at < b for a, b in spans)]


def kib(value: float) -> str:
    return f"{value / KIB:.0f} KiB"


def report(results: Results, emu: Emulator, args: argparse.Namespace) -> bool:
    """Print the report; whether every target and check holds."""
    print(
        f"Tholos live board benchmark: {args.pages} pages on one game, {args.turns} turns; "
        f"{args.games} live games (--think {args.think:g} s), {args.rounds} × {args.seconds:g} s "
        f"without and with the pages; --seed {args.seed}"
    )
    print(machine_line())
    print(f"code: {code_under_test()}")
    print(
        "emulator: PNGs not decoded on serialising, no schema check of request bodies "
        "(as bot_latency); database: SQLite (WAL)"
    )
    compress = "permessage-deflate offered, as browsers do" if args.compress else "no compression"
    print(
        f"pages: aiohttp WebSocket clients in this process ({compress}), each with a session of "
        f"its own: {args.pages} members joined the Activity instance, their codes exchanged at "
        f"POST /api/session in {results.sessions_seconds:.1f} s"
        + ("; and one Chromium page" if args.browser else "")
    )

    print(
        f"\n1. One game, {args.pages} open pages, {len(results.turns)} turns with the Discord "
        "buttons (the bot otherwise idle)"
    )
    print(f"    {args.pages} pages connected and shown the board in {results.open_seconds:.1f} s")
    spectator, mover = results.frame_sizes
    print(
        f"    board frame: {spectator / KIB:.1f} KiB for a spectator, {mover / KIB:.1f} KiB "
        "for the player to move (the turn's steps)"
    )
    raw, deflated = results.wire
    frames = max(1, len(results.turns) + 1)
    print(
        f"    a spectator's frames: {raw / frames / KIB:.1f} KiB a turn, deflated "
        f"{deflated / frames / KIB:.2f} KiB (permessage-deflate as aiohttp does it, "
        f"{raw / max(1, deflated):.0f}× smaller)"
    )
    per_page = results.frames / max(1, len(results.turns) + 1) / max(1, args.pages)
    print(
        f"    board frames a page received: {results.frames / max(1, args.pages):.1f} "
        f"({per_page:.2f} a turn, the first board included; {results.repeats} repeated a "
        "version)"
    )
    pairs = [latency for turn in results.turns for latency in turn.pages]
    slowest = [max(turn.pages) for turn in results.turns if turn.pages]
    spread = [max(turn.pages) - min(turn.pages) for turn in results.turns if turn.pages]
    browser = [turn.browser for turn in results.turns if turn.browser is not None]
    print(f"    {'latency (ms)':<40}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    print(latency_row("last press → board frame on a page", pairs))
    print(latency_row("  the same, the slowest page of a turn", slowest))
    print(latency_row("  first page → last page of a turn", spread))
    if browser:
        print(latency_row("last press → Chromium page drawn", browser))
    print(latency_row("last press → new Discord board", results.board))
    for line in results.part1.lines(len(results.turns)) if results.part1 else ():
        print(line)

    print("\n2. Memory of the open pages (bot RSS, VmRSS, after the bot settled)")
    for label, value in results.rss.items():
        print(f"    {label}: {value / MIB:.1f} MiB")
    values = list(results.rss.values())
    per_page = (values[2] - values[1]) / max(1, args.pages)
    with_session = (values[2] - values[0]) / max(1, args.pages)
    after_turns = (values[3] - values[1]) / max(1, args.pages)
    print(
        f"    per open page: {kib(per_page)} once opened ({kib(with_session)} with its "
        f"session's exchange), {kib(after_turns)} after the turns (all the turns' growth "
        "counted as the pages')"
    )

    without, with_ = in_windows(results, False), in_windows(results, True)
    if args.games:
        print(
            f"\n3. {args.games} live games, {args.rounds} × {args.seconds:g} s windows without "
            f"and with {args.pages} pages watching one more game (a turn about every "
            f"second in both; a new game for each window with pages, opened in "
            f"{', '.join(f'{s:.1f}' for s in results.reopen_seconds)} s)"
        )
        print(f"    {'last step press → new board (ms)':<40}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
        print(latency_row("without pages", without))
        print(latency_row(f"with {args.pages} pages", with_))
        loaded = [latency for turn in results.loaded_turns for latency in turn.pages]
        print(latency_row("watched game: last press → page", loaded))
        for number, window in enumerate(results.windows, start=1):
            kind = f"with {args.pages} pages" if window.pages else "without pages"
            values = in_windows_of(results, window)
            p95 = f"p95 {1000 * percentile(values, 95):.0f} ms" if values else "no press"
            watched = f", {window.watched_turns} watched turns" if window.pages else ""
            used, seconds = window.usage, window.usage.seconds or 1.0
            print(
                f"    window {number} ({kind}): {len(values)} turns, {p95}{watched}; CPU "
                f"(% of a core): bot {100 * used.bot / seconds:.0f}, this process "
                f"{100 * used.ours / seconds:.0f}, others {100 * used.busy:.0f}"
            )

    found = checks(results, emu, args, pairs, without, with_)
    print("\nTargets and checks")
    for ok, text in found:
        print(f"  [{'INFO' if ok is None else 'PASS' if ok else 'FAIL'}] {text}")
    return all(ok is not False for ok, _ in found)


def in_windows_of(results: Results, window: Window) -> list[float]:
    pairs = zip(results.live.new_board_at, results.live.new_board, strict=True)
    return [latency for at, latency in pairs if window.start <= at < window.end]


def checks(
    results: Results,
    emu: Emulator,
    args: argparse.Namespace,
    pairs: list[float],
    without: list[float],
    with_: list[float],
) -> list[Check]:
    spans = [u for u in (results.part1, *(w.usage for w in results.windows)) if u is not None]
    busy = max((u.busy for u in spans), default=0.0)
    quiet = busy <= OTHER_CPU_WARNING

    def judged(ok: bool, text: str) -> Check:
        if ok or quiet:
            return ok, text
        return None, f"{text} — not judged: the machine was busy"

    found: list[Check] = []
    p95 = 1000 * percentile(pairs, 95) if pairs else math.inf
    text = (
        f"p95 last press → board frame on every page ≤ {TARGET_PAGE_P95_MS:.0f} ms with "
        f"{args.pages} pages: {p95:.0f} ms"
    )
    found.append(
        judged(p95 <= TARGET_PAGE_P95_MS, text) if args.pages >= DEFAULT_PAGES else (None, text)
    )
    if args.games:
        if without and with_:
            a, b = (1000 * percentile(values, 95) for values in (without, with_))
            text = (
                f"p95 last step press → new board of {args.games} live games with "
                f"{args.pages} pages ≤ {TARGET_RATIO}× without: {b:.0f} / {a:.0f} ms = "
                f"{b / a:.2f}×"
            )
            found.append(
                judged(b / a <= TARGET_RATIO, text) if args.games >= DEFAULT_GAMES else (None, text)
            )
        else:
            found.append((False, "no press of the live games in a window"))
    if not quiet:
        found.append(
            (
                None,
                f"WARNING: other processes used up to {100 * busy:.0f}% of a core "
                "during the run; latency and CPU figures are disturbed",
            )
        )
    missed = sum(turn.missing for turn in (*results.turns, *results.loaded_turns))
    failed = [ix for ix in emu.interactions if ix.failed or not ix.acknowledged]
    foreign = sorted(results.addresses - {"127.0.0.1"})
    found += [
        (
            bool(results.turns),
            f"turns of the watched game with the pages open: {len(results.turns)}",
        ),
        (
            missed == 0,
            f"(turn, page) pairs whose board frame did not come in {FRAME_TIMEOUT:g} s: {missed}",
        ),
        (
            all(results.positions_agree),
            "every page shows the Discord board's position after "
            f"the turns: {results.positions_agree}",
        ),
        (not emu.violations, f"emulator violations: {len(emu.violations)}"),
        (
            not failed,
            f"failed or unanswered interactions: {len(failed)} of {len(emu.interactions)}",
        ),
        (
            not results.problems,
            f"refused presses, wrong boards, page errors or closes, unclean "
            f"bot log: {len(results.problems)}",
        ),
        (results.exit_code == 0, f"bot exit code on SIGTERM: {results.exit_code}"),
        (
            not foreign,
            "bot sockets only to 127.0.0.1: "
            + ("yes" if not foreign else "NO: " + ", ".join(foreign)),
        ),
    ]
    found += [(False, f"violation: {v}") for v in emu.violations[:10]]
    found += [(False, f"failed: {ix}") for ix in failed[:10]]
    found += [(False, f"problem: {problem}") for problem in results.problems[:20]]
    return found


# -- main -----------------------------------------------------------------------------------------


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.live_board",
        description="One game watched by N live pages of the real bot, beside live games.",
    )
    add = parser.add_argument
    add("--pages", type=int, default=DEFAULT_PAGES, help=f"open pages ({DEFAULT_PAGES})")
    add(
        "--turns",
        type=int,
        default=DEFAULT_TURNS,
        help=f"turns of the watched game in part 1 ({DEFAULT_TURNS}; at most {MAX_TURNS})",
    )
    add(
        "--think",
        type=float,
        default=DEFAULT_THINK,
        help=f"mean pause before each press, seconds ({DEFAULT_THINK:g})",
    )
    add(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help=f"live games in part 3 ({DEFAULT_GAMES}; 0: no part 3)",
    )
    add(
        "--seconds",
        type=float,
        default=30.0,
        help="length of each window of part 3, seconds (30; a game lasts ≥ 49 turns, so ≤ 40)",
    )
    add(
        "--rounds",
        type=int,
        default=2,
        help="pairs of windows without and with the pages, in the order without, with, with, "
        "without, … (2)",
    )
    add(
        "--warmup",
        type=float,
        default=5.0,
        help="seconds of live games before the first window (5)",
    )
    add("--seed", type=int, default=1, help="seed of the players' choices and pauses (1)")
    add("--no-browser", dest="browser", action="store_false", help="no Chromium page in part 1")
    add(
        "--no-compress",
        dest="compress",
        action="store_false",
        help="the pages do not offer permessage-deflate (browsers do)",
    )
    args = parser.parse_args(argv)
    if not (args.pages >= 2 and 1 <= args.turns <= MAX_TURNS and args.think >= 0):
        parser.error(f"need --pages ≥ 2, 1 ≤ --turns ≤ {MAX_TURNS}, --think ≥ 0")
    if args.games < 0 or args.rounds < 1 or not 1 <= args.seconds <= 40 or args.warmup < 0:
        parser.error("need --games ≥ 0, --rounds ≥ 1, 1 ≤ --seconds ≤ 40, --warmup ≥ 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when every target and check holds, 1 otherwise, 130 when
    interrupted."""
    args = arguments(argv)
    began = time.perf_counter()
    try:
        results, emu = asyncio.run(run(args))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("interrupted; the bot was stopped", file=sys.stderr)
        return 130
    ok = report(results, emu, args)
    print(f"\ntotal {time.perf_counter() - began:.0f} s: {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
