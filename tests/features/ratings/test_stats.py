"""Player statistics from a finished-game history."""

from __future__ import annotations

from bot.features.ratings.stats import FinishedGame, Record, player_stats

ME, RIVAL, OTHER, BOT = 1, 2, 3, 4


def game(
    number: int,
    white: int,
    black: int,
    result: str,
    points: tuple[int, int],
    reason: str = "points",
    ai_level: str | None = None,
) -> FinishedGame:
    """A finished game at time ``number`` (rated, unless against the AI)."""
    return FinishedGame(
        number, white, black, result, reason, points[0], points[1], float(number), ai_level
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
    recent = [played.win_loss_draw for played in stats.recent]
    assert recent == ["loss", "loss", "draw", "win", "loss"]


def test_no_games():
    """Someone who never finished a game has empty stats."""
    stats = player_stats(ME, [])
    assert stats.overall.games == 0 and stats.overall.win_rate is None
    assert stats.streak is None and stats.biggest_win is None and stats.recent == []


def test_games_against_the_ai_have_their_own_records():
    """AI games count per level, in the recent games, and nowhere else."""
    ai = [
        game(7, ME, BOT, "white", (20, 5), ai_level="hard"),
        game(8, BOT, ME, "white", (9, 8), ai_level="easy"),
        game(9, ME, BOT, "white", (40, 0), ai_level="hard"),
    ]
    stats = player_stats(ME, HISTORY + ai)
    assert stats.against_ai == {"easy": Record(0, 1, 0), "hard": Record(2, 0, 0)}
    assert list(stats.against_ai) == ["easy", "hard"]
    members = player_stats(ME, HISTORY)
    assert (stats.overall, stats.streak, stats.biggest_win) == (
        members.overall,
        members.streak,
        members.biggest_win,
    )
    assert [played.game.id for played in stats.recent] == [9, 8, 7, 6, 5]
    assert player_stats(ME, ai).overall.games == 0
