"""A player's statistics from their finished games. Pure: no I/O, no Discord."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.base.game_options import Level
from engine.ai import LEVELS
from engine.scoring import Reason, Result

WinLossDraw = Literal["win", "loss", "draw"]
"""A finished game for one of its players."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game as a player's history needs it."""

    id: int
    white_id: int
    black_id: int
    result: Result
    reason: Reason
    white_points: int
    black_points: int
    finished_at: float
    ai_level: Level | None
    """The AI's level in a game against the AI, else ``None``."""
    time_control: str | None = None
    """A live game's clock (``"5+3"``), else ``None``."""
    rated: bool = False
    """Whether it counted for ratings (a game against the AI may)."""


@dataclass(frozen=True, slots=True)
class Record:
    """Wins, losses and draws."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        """All games counted."""
        return self.wins + self.losses + self.draws

    @property
    def win_rate(self) -> float | None:
        """Wins per game (``None`` without games)."""
        return self.wins / self.games if self.games else None

    def add(self, win_loss_draw: WinLossDraw) -> Record:
        """The record with one more result."""
        return Record(
            self.wins + (win_loss_draw == "win"),
            self.losses + (win_loss_draw == "loss"),
            self.draws + (win_loss_draw == "draw"),
        )


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game from the player's side."""

    game: FinishedGame
    win_loss_draw: WinLossDraw
    opponent_id: int
    points_for: int
    points_against: int


@dataclass(frozen=True, slots=True)
class Stats:
    """What ``/tholos stats`` shows besides the rating. The records, points, biggest win and
    streak count games between members; games against the AI have their own records."""

    overall: Record
    as_white: Record
    as_black: Record
    mean_points_for: float | None
    mean_points_against: float | None
    biggest_win: Played | None
    """The win with the largest points margin (the latest among equals)."""
    streak: tuple[WinLossDraw, int] | None
    """The current run of equal results, newest first."""
    recent: list[Played] = field(default_factory=list)
    """The last five games, newest first (against the AI too)."""
    against_ai: dict[Level, Record] = field(default_factory=dict)
    """The record against each AI level played, easiest first."""


def played(user_id: int, game: FinishedGame) -> Played:
    """``game`` seen by ``user_id``, who played in it."""
    white = game.white_id == user_id
    mine, theirs = (game.white_points, game.black_points)[:: 1 if white else -1]
    if game.result == "draw":
        win_loss_draw: WinLossDraw = "draw"
    else:
        win_loss_draw = "win" if (game.result == "white") == white else "loss"
    return Played(game, win_loss_draw, game.black_id if white else game.white_id, mine, theirs)


def player_stats(user_id: int, history: Sequence[FinishedGame]) -> Stats:
    """Statistics of ``user_id`` over ``history`` (their finished games, oldest first)."""
    everything = [played(user_id, game) for game in history]
    against_ai: dict[Level, Record] = {}
    for game in everything:
        level = game.game.ai_level
        if level is not None:
            against_ai[level] = against_ai.get(level, Record()).add(game.win_loss_draw)
    games = [game for game in everything if game.game.ai_level is None]
    overall, as_white, as_black = Record(), Record(), Record()
    for game in games:
        overall = overall.add(game.win_loss_draw)
        if game.game.white_id == user_id:
            as_white = as_white.add(game.win_loss_draw)
        else:
            as_black = as_black.add(game.win_loss_draw)
    wins = [game for game in games if game.win_loss_draw == "win"]
    biggest = max(
        wins, key=lambda g: (g.points_for - g.points_against, g.game.finished_at), default=None
    )
    streak = None
    if games:
        latest = games[-1].win_loss_draw
        length = next(
            (n for n, g in enumerate(reversed(games)) if g.win_loss_draw != latest), len(games)
        )
        streak = (latest, length)
    count = len(games)
    return Stats(
        overall=overall,
        as_white=as_white,
        as_black=as_black,
        mean_points_for=sum(g.points_for for g in games) / count if count else None,
        mean_points_against=sum(g.points_against for g in games) / count if count else None,
        biggest_win=biggest,
        streak=streak,
        recent=everything[::-1][:5],
        against_ai={level: against_ai[level] for level in LEVELS if level in against_ai},
    )
