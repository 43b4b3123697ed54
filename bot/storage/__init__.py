"""Storage: one database interface over two backends (``db``: SQLite in ``sqlite``, PostgreSQL
in ``postgres``), their migrations, and one repository per kind of record."""

from bot.storage.challenges import Challenge, ChallengeStore
from bot.storage.db import (
    Database,
    DatabaseBusy,
    DatabaseCannotWrite,
    DatabaseTooNewError,
    DatabaseUnavailable,
    Transaction,
    UniqueViolation,
    get_meta,
    is_postgres_url,
    set_meta,
)
from bot.storage.games import (
    FINISHED_TOPIC,
    GAMES_TOPIC,
    ChannelBusyError,
    Game,
    GamePlace,
    GameStore,
    NewGame,
    Outcome,
    StaleGameError,
    TurnRecord,
    abort_game,
    finish_game,
    record_turn,
)
from bot.storage.listings import GameListings
from bot.storage.ratings import FinishedGame, PlayerRating, RatedResult, RatingStore, rate_game
from bot.storage.sqlite import SqliteDatabase
from bot.storage.sweeps import Sweeps


async def open_database(url: str) -> Database:
    """Open (creating if needed) and migrate the database ``url`` names: a SQLite path, or a
    ``postgresql://user:pass@host:port/db`` URL.

    Raises :class:`DatabaseTooNewError` if its schema is newer than this code's, and
    :class:`DatabaseUnavailable` if it cannot be reached.
    """
    if is_postgres_url(url):
        from bot.storage.postgres import PostgresDatabase

        return await PostgresDatabase.open(url)

    return await SqliteDatabase.open(url)


__all__ = [
    "FINISHED_TOPIC",
    "GAMES_TOPIC",
    "Challenge",
    "ChallengeStore",
    "ChannelBusyError",
    "Database",
    "DatabaseBusy",
    "DatabaseCannotWrite",
    "DatabaseTooNewError",
    "DatabaseUnavailable",
    "FinishedGame",
    "Game",
    "GameListings",
    "GamePlace",
    "GameStore",
    "NewGame",
    "Outcome",
    "PlayerRating",
    "RatedResult",
    "RatingStore",
    "StaleGameError",
    "Sweeps",
    "Transaction",
    "TurnRecord",
    "UniqueViolation",
    "abort_game",
    "finish_game",
    "get_meta",
    "is_postgres_url",
    "open_database",
    "rate_game",
    "record_turn",
    "set_meta",
]
