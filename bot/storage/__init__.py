"""Storage: the connection and migrations (``db``), and one repository per kind of record."""

from .challenges import Challenge, ChallengeStore
from .db import Database, DatabaseTooNewError
from .games import ChannelBusyError, Game, GameStore, Outcome, StaleGameError, TurnRecord
from .ratings import FinishedGame, PlayerRating, RatedResult, RatingStore, rate_game

__all__ = [
    "Challenge",
    "ChallengeStore",
    "ChannelBusyError",
    "Database",
    "DatabaseTooNewError",
    "FinishedGame",
    "Game",
    "GameStore",
    "Outcome",
    "PlayerRating",
    "RatedResult",
    "RatingStore",
    "StaleGameError",
    "TurnRecord",
    "rate_game",
]
