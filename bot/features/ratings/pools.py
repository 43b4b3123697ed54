"""The rules of the members' ratings: one Glicko-2 rating per member in each pool (``live``: any
clock; ``correspondence``), the deviation growing with the time not played, the thresholds of a
provisional and of a ranked rating, and the AI's fixed rating. Pure: no I/O.

Each rated game is rated the moment it ends, for each member against the other's rating at
that moment (their deviation grown to it), in the order games were rated (``games.rated_seq``);
the rating period of step 6 is the time since the member was last rated in the pool, as on
Lichess. The figures behind the constants: docs/data.md, "Ratings".
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.glicko2 import Rating, grown, rate
from bot.base.paces import RatingPool, rating_pool
from engine.ai import LEVEL_RATINGS
from engine.scoring import Result

RATING_PERIOD = 4.665 * 86400.0
"""Seconds in a rating period (Lichess's 0.21436 periods a day): a deviation grows by one
volatility per period, φ' = √(φ² + σ²·t). From an active member's ~45–60 it reaches
:data:`RANKED_DEVIATION` after roughly half a year without a rated game, and
:data:`PROVISIONAL_DEVIATION` after about a year."""
PROVISIONAL_DEVIATION = 110.0
"""Above this deviation a rating is provisional (Lichess's threshold): a newcomer's, until about
11 rated games (measured: the median of simulated newcomers against settled opponents)."""
RANKED_DEVIATION = 90.0
"""At or below this deviation a member is on the leaderboards: about 16 rated games for a
newcomer playing daily or faster, 18 at one a week (Lichess asks 75: some 24–32 games, too many
for a game whose servers have a few players each)."""
RANKED_GAMES = 16
"""About how many rated games a newcomer plays to reach :data:`RANKED_DEVIATION` (said on an
empty leaderboard)."""
AI_DEVIATION = 60.0
"""The deviation of the AI's fixed rating in a rated game against it: as sure as the rating of
a member who plays all the time (the floor, measured 45–65), not surer — its strength is
measured and never changes, but its place on the members' scale is an estimate."""
_SCORES = {"white": (1.0, 0.0), "black": (0.0, 1.0), "draw": (0.5, 0.5)}


def periods(since: float, until: float) -> float:
    """Rating periods from ``since`` to ``until`` (none if the clock went back)."""
    return max(0.0, until - since) / RATING_PERIOD


def ai_rating(level: str) -> Rating:
    """The AI's rating at ``level``: fixed, never updated by its games."""
    return Rating(float(LEVEL_RATINGS[level]), AI_DEVIATION)


@dataclass(frozen=True, slots=True)
class RatedResult:
    """What rating a finished game needs: who played, how it ended and when, its pace (its
    pool), the AI's level and user id in a game against it, and the server it was played in."""

    game_id: int
    white_id: int
    black_id: int
    result: Result
    finished_at: float
    time_control: str | None = None
    ai_level: str | None = None
    ai_id: int | None = None
    guild_id: int = 0

    @property
    def pool(self) -> RatingPool:
        return rating_pool(self.time_control)


NEWCOMER = Rating()
"""The rating of a member's first rated game in a pool: 1500 ± 350."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A member's row in a pool: the rating as last rated, the rated games behind it, and when."""

    rating: Rating = NEWCOMER
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    updated_at: float = 0.0

    def at(self, now: float) -> Rating:
        """The rating at ``now``: its deviation grown since it was last rated (a newcomer's
        stays 1500 ± 350)."""
        return grown(self.rating, periods(self.updated_at, now))

    def after(self, opponent: Rating, score: float, at: float) -> Standing:
        """This standing after one more rated game against ``opponent``, ending at ``at``."""
        return Standing(
            rate(self.rating, [(opponent, score)], periods(self.updated_at, at)),
            self.games + 1,
            self.wins + (score == 1.0),
            self.losses + (score == 0.0),
            self.draws + (score == 0.5),
            at,
        )


Key = tuple[RatingPool, int]
"""A member's row: (pool, user id)."""
Standings = dict[Key, Standing]


def rate_in(standings: Standings, game: RatedResult) -> list[Key]:
    """Apply ``game`` to ``standings``: each member in it is rated against the other's rating at
    the game's end (the AI's fixed one in a game against it, which rates only the member);
    return the keys it changed. The one rule of rating, live and in a rebuild."""
    pool, at = game.pool, game.finished_at
    sides = zip((game.white_id, game.black_id), _SCORES[game.result], strict=True)
    before = {
        user: standings.get((pool, user), Standing()) for user in (game.white_id, game.black_id)
    }
    now = {user: standing.at(at) for user, standing in before.items()}
    if game.ai_level is not None and game.ai_id is not None:
        now[game.ai_id] = ai_rating(game.ai_level)
    changed: list[Key] = []
    for user, score in sides:
        if user == game.ai_id:
            continue
        opponent = game.black_id if user == game.white_id else game.white_id
        standings[pool, user] = before[user].after(now[opponent], score, at)
        changed.append((pool, user))
    return changed
