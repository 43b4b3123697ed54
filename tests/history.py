"""A large played history, written straight into the bot's database: many finished, rated games
between many players (for the maintenance tests and ``benchmarks.rebuild``).

    .venv/bin/python -m tests.history PATH_OR_URL --games 100000 --players 2000

The games are real: each is one of up to 50 distinct games of uniformly random legal turns,
with its turns, positions, result and points as the bot stores them, in rating order
(``rated_seq``). The ratings table is left as ``--ratings`` says: ``empty`` (a rebuild has
everything to write), ``rated`` (rebuilt, as if each game had been rated when it ended).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import sys
import time
from dataclasses import dataclass

from bot.base.database_url import redact
from bot.features.admin.copy import continue_identities
from bot.features.ratings.rebuild import rebuild_ratings
from bot.storage import open_database
from bot.storage.db import Database
from engine import WHITE
from engine.newgame import new_game
from engine.play import random_game
from engine.scoring import score
from tests.glicko2_paper import Player, Row, replay

FIRST_PLAYER = 900_000_000_000_000_000
"""The players' user ids count up from here (snowflake-sized, clear of the emulator's)."""
Key = tuple[str, int]
"""(pool, user id)"""
CHUNK = 5000
"""Games written per transaction."""


@dataclass(frozen=True, slots=True)
class Template:
    """One played game: its start, end, result and turns (mover colour, notation, after)."""

    start: str
    final: str
    result: str
    reason: str
    points: tuple[int, int]
    turns: tuple[tuple[int, str, str], ...]


def templates(rng: random.Random, count: int) -> list[Template]:
    """``count`` distinct basic games of uniformly random legal turns, either colour first."""
    made = []
    for _ in range(count):
        start = new_game("basic", seed=rng.randrange(2**31), first=rng.randrange(2))
        played = random_game(start, rng)
        position, turns = played.start, []
        for turn in played.turns:
            mover = position.turn
            position = position.apply_unchecked(turn)
            turns.append((mover, str(turn), str(position)))
        scored = score(played.final)
        assert scored.outcome is not None
        made.append(
            Template(
                str(played.start),
                str(played.final),
                scored.outcome.result,
                scored.outcome.reason,
                scored.totals,
                tuple(turns),
            )
        )
    return made


@dataclass(frozen=True, slots=True)
class History:
    """What :func:`write_history` wrote."""

    games: int
    turns: int
    players: int
    seconds: float


async def write_history(
    database: Database,
    *,
    games: int,
    players: int,
    guild_id: int,
    channel_id: int,
    seed: int = 1,
    with_turns: bool = True,
    rated: bool = False,
) -> History:
    """Write ``games`` finished, rated games between ``players`` players of ``guild_id``,
    played (as far as the database knows) in ``channel_id``, ending over the last year; then
    rate them with the bot's rebuild if ``rated``."""
    began = time.perf_counter()
    rng = random.Random(seed)
    cycle = templates(rng, min(games, 50))
    first_id = 1 + (await database.fetchone("SELECT COALESCE(MAX(id), 0) FROM games"))[0]
    first_seq = 1 + (await database.fetchone("SELECT COALESCE(MAX(rated_seq), 0) FROM games"))[0]
    now = time.time() - 365 * 86400.0
    step = 365 * 86400.0 / max(games, 1) / 2
    written_turns = 0
    for chunk in range(0, games, CHUNK):
        game_rows, turn_rows = [], []
        for number in range(chunk, min(games, chunk + CHUNK)):
            template = cycle[number % len(cycle)]
            white, black = rng.sample(range(players), 2)
            game_id, plies = first_id + number, len(template.turns)
            end = now + step
            game_rows.append(
                (
                    game_id,
                    guild_id,
                    channel_id,
                    FIRST_PLAYER + white,
                    FIRST_PLAYER + black,
                    f"player {white}",
                    f"player {black}",
                    "basic",
                    0,
                    template.start,
                    template.final,
                    plies,
                    plies,
                    "finished",
                    template.result,
                    template.reason,
                    *template.points,
                    plies,
                    now,
                    end,
                    end,
                    end,
                    True,
                    first_seq + number,
                )
            )
            if with_turns:
                for ply, (mover, turn, after) in enumerate(template.turns, start=1):
                    player = FIRST_PLAYER + (white if mover == WHITE else black)
                    turn_rows.append((game_id, ply, player, turn, after, now + ply))
            now = end + step
        async with database.transaction() as transaction:
            await transaction.executemany(
                "INSERT INTO games (id, guild_id, channel_id, white_id, black_id, white_name, "
                "black_name, mode, seed, start_position, position, version, plies, status, "
                "result, reason, white_points, black_points, board_version, created_at, "
                "updated_at, last_move_at, finished_at, rated, rated_seq) "
                f"VALUES ({', '.join('?' * 25)})",
                game_rows,
            )
            await transaction.executemany(
                "INSERT INTO turns (game_id, ply, player_id, turn, position_after, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                turn_rows,
            )
            if database.dialect == "postgresql":
                await continue_identities(transaction)
        written_turns += len(turn_rows)
    if rated:
        await rebuild_ratings(database)
    return History(games, written_turns, players, time.perf_counter() - began)


async def replayed_by_hand(database: Database) -> dict[Key, Row]:
    """The ratings the stored games make, recomputed by the tests' own Glicko-2
    (:mod:`tests.glicko2_paper`, not the bot's): (pool, user) → their row."""
    rows = await database.fetchall(
        "SELECT white_id, black_id, result, finished_at, time_control, ai_level, ai_id FROM games "
        "WHERE status = 'finished' AND rated ORDER BY rated_seq NULLS FIRST, finished_at, id"
    )
    return replay([tuple(row) for row in rows])


async def stored_ratings(database: Database) -> dict[Key, Row]:
    """The ``member_ratings`` table in the shape of :func:`replayed_by_hand`."""
    rows = await database.fetchall(
        "SELECT pool, user_id, rating, deviation, volatility, games, wins, losses, draws, "
        "updated_at FROM member_ratings"
    )
    return {(r[0], r[1]): Row(Player(r[2], r[3], r[4]), r[5], r[6], r[7], r[8], r[9]) for r in rows}


def assert_same_ratings(stored: dict[Key, Row], by_hand: dict[Key, Row]) -> None:
    """The same members in each pool, with the same records, and ratings equal up to the
    rounding of two implementations (a relative 1e-9)."""
    assert sorted(stored) == sorted(by_hand)
    for key, row in by_hand.items():
        mine = stored[key]
        assert (mine.games, mine.wins, mine.losses, mine.draws, mine.at) == (
            row.games,
            row.wins,
            row.losses,
            row.draws,
            row.at,
        ), key
        for name in ("r", "rd", "sigma"):
            ours, theirs = getattr(mine.player, name), getattr(row.player, name)
            assert math.isclose(ours, theirs, rel_tol=1e-9), (key, name, ours, theirs)


def same_ratings(stored: dict[Key, Row], by_hand: dict[Key, Row]) -> bool:
    """Whether :func:`assert_same_ratings` holds (for the benchmarks' reports)."""
    try:
        assert_same_ratings(stored, by_hand)
    except AssertionError:
        return False
    return True


async def assert_rated_as_by_hand(database: Database) -> None:
    """Every stored rating is what the tests' own Glicko-2 makes of the stored games."""
    assert_same_ratings(await stored_ratings(database), await replayed_by_hand(database))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.history", description=__doc__)
    parser.add_argument("database", help="a SQLite path or a postgresql:// URL (migrated here)")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--guild", type=int, default=1)
    parser.add_argument("--channel", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-turns", action="store_true", help="games only (faster)")
    parser.add_argument("--ratings", choices=("empty", "rated"), default="rated")
    args = parser.parse_args(argv)

    async def run() -> History:
        database = await open_database(args.database)
        try:
            return await write_history(
                database,
                games=args.games,
                players=args.players,
                guild_id=args.guild,
                channel_id=args.channel,
                seed=args.seed,
                with_turns=not args.no_turns,
                rated=args.ratings == "rated",
            )
        finally:
            await database.close()

    history = asyncio.run(run())
    print(
        f"wrote {history.games} games, {history.turns} turns, {history.players} players into "
        f"{redact(args.database)} in {history.seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
