"""Player statistics from a finished-game history."""

from __future__ import annotations

from bot.stats import Record, player_stats
from bot.storage import FinishedGame

ME, RIVAL, OTHER = 1, 2, 3


def game(
    number: int,
    white: int,
    black: int,
    result: str,
    points: tuple[int, int],
    reason: str = "points",
) -> FinishedGame:
    """A finished rated game at time ``number``."""
    return FinishedGame(
        number, white, black, result, reason, points[0], points[1], float(number), True
    )


HISTORY = [
    game(1, ME, RIVAL, "white", (20, 10)),  # win as White by 10
    game(2, RIVAL, ME, "white", (15, 12)),  # loss as Black
    game(3, OTHER, ME, "black", (5, 30)),  # win as Black by 25: the biggest
    game(4, ME, OTHER, "draw", (18, 18), "tie"),
    game(5, ME, RIVAL, "black", (3, 9), "resignation"),  # loss as White
    game(6, RIVAL, ME, "white", (11, 7), "timeout"),  # loss as Black
]


def test_records_by_colour_points_and_biggest_win():
    """W/L/D overall and by colour, mean points, and the widest win."""
    stats = player_stats(ME, HISTORY)
    assert stats.overall == Record(2, 3, 1) and stats.overall.win_rate == 2 / 6
    assert stats.as_white == Record(1, 1, 1) and stats.as_black == Record(1, 2, 0)
    assert stats.mean_points_for == (20 + 12 + 30 + 18 + 3 + 7) / 6
    assert stats.mean_points_against == (10 + 15 + 5 + 18 + 9 + 11) / 6
    assert stats.biggest_win is not None and stats.biggest_win.game.id == 3
    assert (stats.biggest_win.points_for, stats.biggest_win.opponent_id) == (30, OTHER)


def test_streak_and_recent_games_newest_first():
    """The current streak counts equal results back from the newest; five recent games."""
    stats = player_stats(ME, HISTORY)
    assert stats.streak == ("loss", 2)
    assert [played.game.id for played in stats.recent] == [6, 5, 4, 3, 2]
    assert [played.outcome for played in stats.recent] == ["loss", "loss", "draw", "win", "loss"]


def test_no_games():
    """Someone who never finished a game has empty stats."""
    stats = player_stats(ME, [])
    assert stats.overall.games == 0 and stats.overall.win_rate is None
    assert stats.streak is None and stats.biggest_win is None and stats.recent == []
