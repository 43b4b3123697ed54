"""SQLite storage: the connection and migrations (``db``) and the game repository (``games``)."""

from .db import Database, DatabaseTooNewError
from .games import (
    Challenge,
    ChannelBusyError,
    Game,
    GameStore,
    StaleGameError,
    TurnRecord,
)
from .ratings import FinishedGame, PlayerRating, RatingStore

__all__ = [
    "Challenge",
    "ChannelBusyError",
    "Database",
    "DatabaseTooNewError",
    "FinishedGame",
    "Game",
    "GameStore",
    "PlayerRating",
    "RatingStore",
    "StaleGameError",
    "TurnRecord",
]
