"""A press → both boards of a game between two servers, served by two shard processes on one
PostgreSQL: the board in the place pressed (the press's own follow-up) and in the other place
(a background post by the process owning that server, woken by the store's announcement).

    .venv/bin/python -m benchmarks.cross_server [--games 4] [--turns 30] [--seed 1] [--think 0.2]

Starts a PostgreSQL server (the tests' embedded one), the Discord emulator (127.0.0.1 only) and
two ``python -m bot`` processes, shard 0 and shard 1 of two, each serving one server (no
threads: the boards in the channels). ``--games`` pool games (started as the pool starts them,
``insert_pool_game``) between a member of each server, each game in a channel of its own on both
sides, are played **concurrently**: the player to move waits up to ``2 * --think`` seconds, then
clicks through a random legal turn in their own server; ``--turns`` turns a game (fewer if it
ends). Prints, per completing press, the time to the new board in the pressed place, in the
other place, and in both (p50/p95/max), for presses in shard 0's server and in shard 1's. Exits
with 1 if a check fails (boards that differ between the places, a board posted twice, an
emulator violation, a failed interaction, an unclean log or exit code). See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bot.base.seats import Seat
from bot.storage import open_database
from bot.storage.games.places import insert_pool_game
from engine import WHITE
from tests.e2e.emulator import BotProcess, Channel, Emulator, Member, User
from tests.e2e.emulator.model import snowflake
from tests.e2e.table import FOOTER, Table, board_part, path_of
from tests.postgres import PostgresServer

from .bot_latency import code_under_test, latency_row, lighten_emulator, machine_line, running

SHARDS = 2
WIDTH = 44


@dataclass
class CrossGame:
    """One pool game: its two places (shard 0's server, shard 1's) and its two players."""

    tables: tuple[Table, Table]
    players: tuple[Member, Member]
    """White (asked in shard 0's server), Black (shard 1's)."""
    problems: list[str] = field(default_factory=list)


@dataclass
class Samples:
    """Seconds from a completing press to each board, by the shard of the place pressed."""

    pressed: dict[int, list[float]] = field(default_factory=lambda: {0: [], 1: []})
    other: dict[int, list[float]] = field(default_factory=lambda: {0: [], 1: []})
    both: dict[int, list[float]] = field(default_factory=lambda: {0: [], 1: []})


def add_games(emu: Emulator, count: int) -> list[CrossGame]:
    """Two servers (one per shard), and ``count`` channels and pairs of members across them;
    must run before the bots start (their GUILD_CREATE lists the channels)."""
    guilds = [emu.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    games = []
    for number in range(1, count + 1):
        players, tables = [], []
        for shard, guild in enumerate(guilds):
            name = f"player-{number:02d}{'wb'[shard]}"
            member = Member(User(id=snowflake(), username=name, global_name=name.title()))
            guild.members[member.id] = member
            emu.world.people[name] = member
            players.append(member)
            channel = Channel(
                id=snowflake(), name=f"pool-{number:02d}", guild_id=guild.id, position=number
            )
            guild.channels[channel.id] = channel
            tables.append(Table(emu, channel))
        games.append(CrossGame((tables[0], tables[1]), (players[0], players[1])))
    return games


def seat(game: CrossGame, side: int) -> Seat:
    """Where a player of ``game`` asked for it."""
    member, table = game.players[side], game.tables[side]
    assert table.guild is not None and member.user.global_name is not None
    return Seat(
        member.id, member.user.global_name, table.guild.id, table.channel.id, "server", "en"
    )


def in_step(game: CrossGame, plies: int) -> bool:
    """Both places show the board of ``plies`` turns, the same position."""
    tables = game.tables
    if not all(len(table.boards()) == plies + 1 for table in tables):
        return False
    return tables[0].position() == tables[1].position()


async def play(
    emu: Emulator, game: CrossGame, turns: int, rng: random.Random, think: float, samples: Samples
) -> None:
    """Play ``turns`` random turns of ``game`` (fewer if it ends), timing each press's boards."""
    await emu.wait_for(lambda: in_step(game, 0), 60, "both first boards")
    for plies in range(1, turns + 1):
        position = game.tables[0].position()
        if position.outcome() is not None:
            return
        side = 0 if position.turn == WHITE else 1
        await asyncio.sleep(rng.uniform(0, 2 * think))
        pressed, other = await timed_press(
            emu, game, side, path_of(position, rng.choice(position.legal_turns()))
        )
        samples.pressed[side].append(pressed)
        samples.other[side].append(other)
        samples.both[side].append(max(pressed, other))
        if not in_step(game, plies):
            game.problems.append(f"ply {plies}: the places differ")
            return


async def timed_press(emu: Emulator, game: CrossGame, side: int, path: str) -> tuple[float, float]:
    """``side``'s player clicks ``path`` in their place; seconds from the completing press to
    the new board there, and in the other place."""
    tables = (game.tables[side], game.tables[1 - side])
    counts = [len(table.boards()) for table in tables]
    seen: dict[int, float] = {}
    await tables[0].click_path(game.players[side], tables[0].board, path, wait=False)
    pressed_at = time.perf_counter()

    def arrived() -> bool:
        for index, table in enumerate(tables):
            if index not in seen and len(table.boards()) > counts[index]:
                seen[index] = time.perf_counter() - pressed_at
        return len(seen) == 2

    await emu.wait_for(arrived, 60, "both boards")
    return seen[0], seen[1]


def checks(emu: Emulator, games: list[CrossGame]) -> list[tuple[bool, str]]:
    """Every place's boards, each posted once; no violation or failed interaction."""
    twice = 0
    for game in games:
        for table in game.tables:
            shown = Counter(board_part(board, FOOTER) for board in table.boards())
            twice += sum(count - 1 for count in shown.values())
    problems = [problem for game in games for problem in game.problems]
    failed = [ix for game in games for t in game.tables for ix in t.made if ix.failed]
    return [
        (not problems, f"both places in step after every turn ({len(problems)} problems)"),
        (twice == 0, f"boards posted twice: {twice}"),
        (not emu.violations, f"emulator violations: {len(emu.violations)}"),
        (not failed, f"failed interactions: {len(failed)}"),
    ]


async def measure(args: argparse.Namespace, workdir: Path) -> bool:
    """Start PostgreSQL, the emulator and the two shards; play; report; whether all held."""
    lighten_emulator()
    server = PostgresServer()
    server.start()
    try:
        url = await server.create_database()
        async with Emulator() as emu:
            games = add_games(emu, args.games)
            bots = [
                BotProcess(
                    "bot",
                    emu,
                    workdir / "unused.db",
                    workdir / f"shard-{shard}.log",
                    env={
                        "LOG_LEVEL": os.environ.get("LOG_LEVEL", "INFO"),
                        "THOLOS_DB": url,
                        "THOLOS_SHARD_COUNT": str(SHARDS),
                        "THOLOS_SHARD_IDS": str(shard),
                        "THOLOS_THREADS": "off",  # the boards in the channels watched
                    },
                    guild_commands=False,
                )
                for shard in (0, 1)
            ]
            with running(bots[0], "shard 0"), running(bots[1], "shard 1"):
                await bots[0].start(sync=True)
                await bots[1].start()
                samples = await play_all(emu, games, url, args)
                await asyncio.gather(*(bot.settle() for bot in bots))
                found = checks(emu, games)
                for shard, bot in enumerate(bots):
                    code = await bot.stop()
                    found.append((code == 0, f"shard {shard}'s process stopped with {code}"))
                    log = bot.log()
                    found.append(("Traceback" not in log, f"shard {shard}'s log has no traceback"))
    finally:
        server.close()
    report(args, samples)
    for ok, text in found:
        print(f"  [{'PASS' if ok else 'FAIL'}] {text}")
    return all(ok for ok, _ in found)


async def play_all(
    emu: Emulator, games: list[CrossGame], url: str, args: argparse.Namespace
) -> Samples:
    """Start every game as the pool would, then play them all at once."""
    database = await open_database(url)
    try:
        for game in games:
            async with database.transaction() as transaction:
                await insert_pool_game(
                    transaction, seat(game, 0), seat(game, 1), "correspondence", time.time()
                )
    finally:
        await database.close()
    samples = Samples()
    rng = random.Random(args.seed)
    await asyncio.gather(
        *(
            play(emu, game, args.turns, random.Random(rng.random()), args.think, samples)
            for game in games
        )
    )
    return samples


def report(args: argparse.Namespace, samples: Samples) -> None:
    print(
        f"Tholos cross-server benchmark: {args.games} pool games between two servers, two "
        f"shard processes on PostgreSQL, {args.turns} turns a game, --think {args.think:g} s, "
        f"--seed {args.seed}"
    )
    print(machine_line())
    print(f"code: {code_under_test()}")
    print(f"\n    {'completing press → board (ms)':<{WIDTH}}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    for shard in (0, 1):
        where = f"pressed in shard {shard}'s server"
        print(latency_row(f"{where}: there", samples.pressed[shard], WIDTH))
        print(latency_row(f"{where}: the other server", samples.other[shard], WIDTH))
        print(latency_row(f"{where}: both", samples.both[shard], WIDTH))
    every = samples.both[0] + samples.both[1]
    print(latency_row("any press: both boards", every, WIDTH))


def main() -> None:
    parser = argparse.ArgumentParser(description="A press → both boards across two shards.")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        ok = asyncio.run(measure(args, Path(workdir)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
