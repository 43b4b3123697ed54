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

__all__ = [
    "Challenge",
    "ChannelBusyError",
    "Database",
    "DatabaseTooNewError",
    "Game",
    "GameStore",
    "StaleGameError",
    "TurnRecord",
]
