"""The live board against hostile sockets: a member's page opens and plays while 2,000 sockets are
held against a bot whose process may open 1,024 files.

    .venv/bin/python -m benchmarks.hostile_sockets [--hostile 2000] [--turns 20] [--seed S]

Starts the Discord emulator (127.0.0.1 only) with Activities enabled, and ``python -m bot`` as its
own process with ``THOLOS_WEB_PORT`` set, its open files limited to 1,024 (soft and hard, set
before it starts: the bot cannot raise it, so its live board takes 1,024 − 256 = 768 pages).
Three phases, one channel each; in each, a member launches the Activity there, gets a session the
real way (``POST /api/session``, the emulator's OAuth2), opens a page (an aiohttp WebSocket client
from 127.0.0.1), starts a game against the AI (easy) from its lobby and plays ``--turns`` turns
from the page, each a random legal turn after half a second's thought; meanwhile ``/healthz``
(the metrics server) is asked every half second:

1. ``quiet``: nothing else.
2. ``silent``: another process (this script, ``--attacker``) holds ``--hostile`` sockets to
   ``/api/live`` from eight loopback addresses (127.0.0.2–9), none ever saying hello, each
   pinging every 4 s; a socket the bot closes or refuses is opened again ``--reopen`` seconds
   later (1: a flood of connections, over a thousand a second; 5: a patient holder).
3. ``sessions``: the attacker holds as many sockets with valid sessions — 10 members, 4 sessions
   each, obtained the real way — each saying hello and then sending 10 messages a second (junk
   and lobbies), again reopened ``--reopen`` seconds after the bot closes or refuses one.

The attacker starts first and the member's page opens three seconds after each of its sockets
was tried once. A turn's time: from the page sending it until the page has the board of the version
after it. Targets: the page opens in every phase; the turns' p95 under attack within 1.5× of the
quiet phase's; ``/healthz`` answers 200 throughout; the bot's log without a traceback (asyncio's
"socket.accept() out of system resource" included) and its exit clean.

Exits with 1 if a target or a check fails. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from engine import Position
from engine.builder import SKIP, TurnBuilder, turn_path
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.emulator import process as process_module

from .bot_latency import (
    BenchmarkError,
    ProcessWatch,
    add_tables,
    free_port,
    lighten_emulator,
    machine_line,
    percentile,
    running,
    stop_cleanly,
    stop_on_signals,
)
from .live_board import sessions_for

OPEN_FILES = 1024
"""The bot's limit of open files (soft and hard), as the issue's target sets it."""
DEFAULT_HOSTILE = 2000
DEFAULT_TURNS = 20
TARGET_RATIO = 1.5
"""The turns' p95 under attack ÷ quiet, at most."""
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 10)]
"""The attacker's source addresses (loopback only)."""
PING_EVERY = 4.0
"""Seconds between a hostile socket's pings."""
REOPEN_AFTER = 1.0
"""Seconds before the attacker opens again a socket the bot closed or refused (``--reopen``)."""
FLOOD_RATE = 10.0
"""Messages a second of a hostile page with a valid session."""
HOSTILE_MEMBERS, SESSIONS_EACH = 10, 4
THINK = 0.5
"""Seconds the member thinks before each turn."""
HEALTH_EVERY = 0.5
"""Seconds between two asks of ``/healthz``."""
PATIENCE = 60.0
"""Seconds the member's page waits for a frame."""


# -- the attacker (its own process) ---------------------------------------------------------------


@dataclass
class Attack:
    """What the attacker's sockets went through."""

    open: int = 0
    """Sockets open now (connected, the bot not yet closing them)."""
    connecting: int = 0
    opened: int = 0
    failed: int = 0
    closes: Counter[str] = field(default_factory=Counter)
    sent: int = 0

    def line(self) -> str:
        return json.dumps(
            {
                "open": self.open,
                "connecting": self.connecting,
                "opened": self.opened,
                "failed": self.failed,
                "closes": dict(self.closes),
                "sent": self.sent,
            }
        )


JUNK = ["{}", '{"type": []}', "[" * 600 + "]" * 600, '{"type":"turn","game":1}', '{"type":"lobby"}']
"""What a hostile page with a session sends, over and over."""


async def hostile_socket(
    http: aiohttp.ClientSession,
    url: str,
    token: str | None,
    attack: Attack,
    rng: random.Random,
    reopen: float,
) -> None:
    """One socket, opened again whenever the bot closes it: silent and pinging (``token``
    ``None``), or saying hello with ``token`` and flooding."""
    while True:
        attack.connecting += 1
        try:
            socket = await http.ws_connect(
                url, autoping=True, timeout=aiohttp.ClientWSTimeout(ws_close=1.0)
            )
        except (aiohttp.ClientError, OSError, TimeoutError):
            attack.failed += 1
            await asyncio.sleep(reopen)
            continue
        finally:
            attack.connecting -= 1
        attack.open += 1
        attack.opened += 1
        try:
            if token is not None:
                await socket.send_str(json.dumps({"type": "hello", "session": token}))
            pinged = time.monotonic() - rng.random() * PING_EVERY
            wait = PING_EVERY if token is None else 1 / FLOOD_RATE
            while not socket.closed:
                try:
                    message = await socket.receive(timeout=wait)
                except TimeoutError:
                    message = None
                if message is not None and message.type in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSING,
                    aiohttp.WSMsgType.CLOSED,
                    aiohttp.WSMsgType.ERROR,
                ):
                    break
                if token is not None and message is None:
                    await socket.send_str(rng.choice(JUNK))
                    attack.sent += 1
                if time.monotonic() - pinged >= PING_EVERY:
                    await socket.ping()
                    pinged = time.monotonic()
        except (aiohttp.ClientError, ConnectionError, RuntimeError):
            pass
        finally:
            attack.open -= 1
            attack.closes[str(socket.close_code)] += 1
        await asyncio.sleep(reopen)


async def attacker(
    port: int, count: int, tokens_path: str | None, seed: int, reopen: float
) -> None:
    """``count`` hostile sockets against ``port`` until SIGTERM; a line of figures a second."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    tokens = json.loads(Path(tokens_path).read_text()) if tokens_path else [None]
    url = f"http://127.0.0.1:{port}/api/live"
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    attack = Attack()
    async with contextlib.AsyncExitStack() as stack:
        sessions = [
            await stack.enter_async_context(
                aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0))
                )
            )
            for address in ADDRESSES
        ]
        tasks = [
            asyncio.create_task(
                hostile_socket(
                    sessions[n % len(sessions)],
                    url,
                    tokens[n % len(tokens)],
                    attack,
                    random.Random(seed * 10_000 + n),
                    reopen,
                )
            )
            for n in range(count)
        ]
        while not stop.is_set():
            print(attack.line(), flush=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@contextlib.asynccontextmanager
async def attacking(
    port: int, count: int, tokens: list[str] | None, seed: int, reopen: float, tmp: Path
) -> AsyncIterator[list[dict[str, Any]]]:
    """The attacker running (its figures, a line a second, in the list yielded) until the
    block ends; the block starts once each of its sockets was tried (opened or refused)."""
    arguments = ["--attacker", "--port", str(port), "--hostile", str(count), "--seed", str(seed)]
    arguments += ["--reopen", str(reopen)]
    if tokens is not None:
        path = tmp / "tokens.json"
        path.write_text(json.dumps(tokens))
        arguments += ["--tokens", str(path)]
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "benchmarks.hostile_sockets",
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert process.stdout is not None
    lines: list[dict[str, Any]] = []
    held = asyncio.Event()

    async def read() -> None:
        assert process.stdout is not None
        async for line in process.stdout:
            lines.append(json.loads(line))
            if lines[-1]["opened"] + lines[-1]["failed"] >= count:
                held.set()

    reader = asyncio.create_task(read())
    try:
        async with asyncio.timeout(PATIENCE):
            await held.wait()
        await asyncio.sleep(3.0)  # a few seconds of it before the page opens
        yield lines
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        await process.wait()
        await reader


# -- the member's page ----------------------------------------------------------------------------


class MemberPage:
    """A member's page: its frames as they come."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.frames: list[dict[str, Any]] = []
        self.arrived: list[float] = []
        self._new = asyncio.Event()
        self._reader = asyncio.create_task(self._read())
        self.closed_by_bot: int | None = None

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.TEXT:
                self.frames.append(json.loads(message.data))
                self.arrived.append(time.perf_counter())
                self._new.set()
        self.closed_by_bot = self.socket.close_code
        self._new.set()

    async def frame(self, wanted: Any, since: int = 0) -> tuple[dict[str, Any], float]:
        """The first frame from ``since`` on for which ``wanted`` holds, and when it came."""
        async with asyncio.timeout(PATIENCE):
            while True:
                for index in range(since, len(self.frames)):
                    if wanted(self.frames[index]):
                        return self.frames[index], self.arrived[index]
                if self.closed_by_bot is not None:
                    raise BenchmarkError(f"the page was closed ({self.closed_by_bot})")
                self._new.clear()
                await self._new.wait()

    async def close(self) -> None:
        await self.socket.close()
        await self._reader


@dataclass
class Phase:
    """One phase's figures."""

    name: str
    open_seconds: float = 0.0
    turns: list[float] = field(default_factory=list)
    health: list[float] = field(default_factory=list)
    health_failures: list[str] = field(default_factory=list)
    attack: dict[str, Any] | None = None
    bot_cpu: float = 0.0
    """The bot's CPU seconds a second while the page played."""


def a_turn(frame: dict[str, Any], rng: random.Random) -> str:
    """A random legal turn of the board ``frame``'s position, as the page sends it."""
    position = Position.parse(frame["position"])
    turn = rng.choice(position.legal_turns())
    path = turn_path(position, turn)
    if TurnBuilder(position, path).turn is None:
        path = (*path, SKIP)
    return "".join(path)


async def play(
    http: aiohttp.ClientSession, port: int, token: str, turns: int, rng: random.Random, phase: Phase
) -> None:
    """Open the member's page, start a game against the AI and play ``turns`` turns (a new
    game when one ends)."""
    began = time.perf_counter()
    page = MemberPage(await http.ws_connect(f"http://127.0.0.1:{port}/api/live"))
    await page.socket.send_str(json.dumps({"type": "hello", "session": token}))
    await page.frame(lambda frame: frame["type"] == "lobby")
    phase.open_seconds = time.perf_counter() - began
    try:
        while len(phase.turns) < turns:
            since = len(page.frames)
            await page.socket.send_str(json.dumps({"type": "play_ai", "level": "easy"}))
            board, _ = await page.frame(lambda frame: frame["type"] == "board", since)
            game = board["game"]
            while len(phase.turns) < turns:
                mine, _ = await page.frame(
                    lambda frame, game=game: (
                        frame["type"] == "board"
                        and frame["game"] == game
                        and (frame["steps"] is not None or frame["phase"] == "over")
                    ),
                    since,
                )
                if mine["phase"] == "over":
                    await page.socket.send_str(json.dumps({"type": "lobby"}))
                    break
                await asyncio.sleep(THINK)  # the member thinks (and keeps to a page's rate)
                since = len(page.frames)
                sent = time.perf_counter()
                message = {"type": "turn", "game": game, "version": mine["version"]}
                await page.socket.send_str(json.dumps(message | {"path": a_turn(mine, rng)}))
                after, arrived = await page.frame(
                    lambda frame, v=mine["version"]: (
                        frame["type"] in ("board", "error")
                        and (frame["type"] == "error" or frame["version"] > v)
                    ),
                    since,
                )
                if after["type"] == "error":
                    raise BenchmarkError(f"the page's turn was refused: {after}")
                phase.turns.append(arrived - sent)
                since = page.frames.index(after)
    finally:
        await page.close()


async def ask_health(http: aiohttp.ClientSession, url: str, phase: Phase) -> None:
    """``/healthz`` every :data:`HEALTH_EVERY` until cancelled."""
    while True:
        began = time.perf_counter()
        try:
            async with http.get(url, timeout=aiohttp.ClientTimeout(total=10)) as answer:
                await answer.read()
                if answer.status != 200:
                    phase.health_failures.append(str(answer.status))
        except (aiohttp.ClientError, TimeoutError) as error:
            phase.health_failures.append(type(error).__name__)
        phase.health.append(time.perf_counter() - began)
        await asyncio.sleep(HEALTH_EVERY)


# -- the run --------------------------------------------------------------------------------------


def limited_open_files() -> None:
    """The bot's process may open :data:`OPEN_FILES` files, and cannot raise it."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))


def open_files_limit(pid: int) -> str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return " ".join(line.split()[3:5])
    return "?"


async def run(args: argparse.Namespace) -> tuple[list[Phase], dict[str, Any]]:
    stop_on_signals()
    lighten_emulator()
    rng = random.Random(args.seed)
    phases = [Phase("quiet"), Phase("silent"), Phase("sessions")]
    facts: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tholos-hostile-") as folder:
        tmp = Path(folder)
        async with Emulator() as emu:
            emu.enable_activities()
            tables = add_tables(emu, len(phases) + 1)
            hostile = [emu.add_person(f"hostile-{n:02d}") for n in range(HOSTILE_MEMBERS)]
            port = free_port()
            env = {"LOG_LEVEL": "INFO", "THOLOS_THREADS": "off", "THOLOS_WEB_PORT": str(port)}
            bot = BotProcess("bot", emu, tmp / "bot.db", tmp / "bot.log", env=env)
            die_with_parent = process_module._die_with_parent

            def preexec() -> None:
                die_with_parent()
                limited_open_files()

            process_module._die_with_parent = preexec
            try:
                with running(bot, "hostile sockets"):
                    await bot.start(sync=True)
                    assert bot.process is not None
                    facts["open files"] = open_files_limit(bot.process.pid)
                    health = (await bot.metrics_url()).replace("/metrics", "/healthz")
                    connector = aiohttp.TCPConnector(limit=0)
                    async with aiohttp.ClientSession(connector=connector) as http:
                        base = f"http://127.0.0.1:{port}"
                        for phase, table in zip(phases, tables, strict=False):
                            instance = emu.state.activities.launch(table.white.user, table.channel)
                            ((_, token),) = await sessions_for(
                                emu, http, base, [table.white], instance
                            )
                            tokens = None
                            if phase.name == "sessions":
                                place = emu.state.activities.launch(
                                    hostile[0].user, tables[-1].channel
                                )
                                tokens = []
                                for _ in range(SESSIONS_EACH):
                                    made = await sessions_for(emu, http, base, hostile, place)
                                    tokens += [session for _, session in made]
                            cpu, began = ProcessWatch(bot.process.pid).cpu(), time.perf_counter()
                            await one_phase(
                                http, port, token, health, tokens, phase, rng, args, tmp
                            )
                            used = ProcessWatch(bot.process.pid).cpu() - cpu
                            phase.bot_cpu = used / (time.perf_counter() - began)
                            print(phase_line(phase), flush=True)
                    problems: list[str] = []
                    facts["exit code"] = await stop_cleanly(bot, problems)
                    facts["problems"] = problems
                    log = bot.log()
                    facts["accept tracebacks"] = log.count("socket.accept() out of system resource")
                    facts["descriptor warnings"] = log.count("out of file descriptors")
                    errors = [line for line in log.splitlines() if " ERROR " in line]
                    facts["error lines"] = len(errors)
                    facts["errors"] = Counter(line.split(" ERROR ")[1][:160] for line in errors)
                    if args.log:
                        Path(args.log).write_text(log)
            finally:
                process_module._die_with_parent = die_with_parent
    return phases, facts


async def one_phase(
    http: aiohttp.ClientSession,
    port: int,
    token: str,
    health: str,
    tokens: list[str] | None,
    phase: Phase,
    rng: random.Random,
    args: argparse.Namespace,
    tmp: Path,
) -> None:
    asking = asyncio.create_task(ask_health(http, health, phase))
    try:
        if phase.name == "quiet":
            await play(http, port, token, args.turns, rng, phase)
            return
        async with attacking(port, args.hostile, tokens, args.seed, args.reopen, tmp) as lines:
            await play(http, port, token, args.turns, rng, phase)
            phase.attack = lines[-1] if lines else None
    finally:
        asking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asking


def ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q) * 1000:.0f}" if values else "–"


def phase_line(phase: Phase) -> str:
    attack = ""
    if phase.attack is not None:
        found = phase.attack
        attack = (
            f"; attacker: {found['open']} open, {found['connecting']} connecting, "
            f"{found['opened']} opened in all, closes {found['closes']}, {found['failed']} failed"
        )
    return (
        f"{phase.name}: page open {phase.open_seconds * 1000:.0f} ms; turns p50/p95/max "
        f"{ms(phase.turns, 50)}/{ms(phase.turns, 95)}/{ms(phase.turns, 100)} ms "
        f"({len(phase.turns)}); /healthz p95 {ms(phase.health, 95)} ms, "
        f"{len(phase.health_failures)} failed of {len(phase.health)}; bot CPU "
        f"{phase.bot_cpu:.2f} s/s{attack}"
    )


def report(phases: list[Phase], facts: dict[str, Any], args: argparse.Namespace) -> bool:
    print(machine_line())
    print(f"bot: open files {facts.get('open files')}, exit code {facts.get('exit code')}")
    print(f"attacker: {args.hostile} sockets, reopened after {args.reopen} s")
    for phase in phases:
        print(phase_line(phase))
    quiet = percentile(phases[0].turns, 95)
    passed = True
    for phase in phases[1:]:
        ratio = percentile(phase.turns, 95) / quiet
        fine = ratio <= TARGET_RATIO
        passed &= fine
        verdict = "ok" if fine else "MISSED"
        print(f"{phase.name}: turn p95 ÷ quiet = {ratio:.2f}× (≤ {TARGET_RATIO}×): {verdict}")
    for phase in phases:
        if phase.health_failures:
            passed = False
            print(f"{phase.name}: /healthz failed {Counter(phase.health_failures)}")
    print(
        f"bot log: {facts.get('accept tracebacks')} accept tracebacks, "
        f"{facts.get('descriptor warnings')} out-of-descriptors warnings, "
        f"{facts.get('error lines')} ERROR lines"
    )
    for line, count in facts.get("errors", Counter()).most_common(8):
        print(f"  {count} × {line}")
    if facts.get("problems") or facts.get("exit code") != 0 or facts.get("accept tracebacks"):
        passed = False
        print(f"problems: {facts.get('problems')}")
    return passed


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hostile", type=int, default=DEFAULT_HOSTILE)
    parser.add_argument("--turns", type=int, default=DEFAULT_TURNS)
    parser.add_argument("--seed", type=int, default=random.randrange(2**32))
    parser.add_argument("--reopen", type=float, default=REOPEN_AFTER)
    parser.add_argument("--log", help="write the bot's log there")
    parser.add_argument("--attacker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tokens", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    if args.attacker:
        asyncio.run(attacker(args.port, args.hostile, args.tokens, args.seed, args.reopen))
        return 0
    print(f"seed {args.seed}: replay with --seed {args.seed}", flush=True)
    try:
        phases, facts = asyncio.run(run(args))
    except BenchmarkError as error:
        print(f"failed: {error}")
        return 1
    return 0 if report(phases, facts, args) else 1


if __name__ == "__main__":
    sys.exit(main())
