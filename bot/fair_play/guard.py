"""Fair play: whether the engine may help a member with a position — the analysis board's best
turn, a game's hint. Not with the position of a game being played that is rated or between
members (or one turn from it: else a player asks about the position after each turn they
consider), nor with a puzzle's that the member has not answered yet (or two turns from it: the
value of each turn's position, or of each reply's, gives the answer away). Looked up in the
database's index (:mod:`bot.storage.watched`), which every process keeps in the transactions
that record the games' turns."""

from __future__ import annotations

from bot.base.refusals import Refusal
from bot.storage.db import Database
from bot.storage.watched import game_watching, puzzle_unanswered
from engine import Position
from engine.vocabulary import N_

GAME_IN_PROGRESS = N_(
    "No engine help here: this position is on the board of a game being played (rated, in a "
    "tournament or between members), or one turn from it. Fair play: ask again once that game "
    "is over."
)
PUZZLE_UNANSWERED = N_(
    "No engine help here: this position is a puzzle you have not answered yet, or two turns "
    "from it at most. Answer the puzzle first, then ask again."
)


class FairPlay:
    """Answers whether the engine may help a member with a position."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def check(self, position: Position, user_id: int, *, game_id: int | None = None) -> None:
        """Raise a :class:`Refusal` saying why if the engine may not help ``user_id`` with
        ``position``; ``game_id``: the game asking (its own position is no reason)."""
        if await game_watching(self.database, position, besides=game_id) is not None:
            raise Refusal(GAME_IN_PROGRESS)
        if await puzzle_unanswered(self.database, position, user_id) is not None:
            raise Refusal(PUZZLE_UNANSWERED)
