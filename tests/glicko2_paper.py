"""Glicko-2 written again from Glickman's paper ("Example of the Glicko-2 system", 2013), for the
tests: it imports nothing of the bot's ratings, so that a rating the bot stored and this one
recomputed from the stored games agree only if both follow the paper.

The bot's time rule (docs/data.md, "Ratings"): a member's deviation grows by σ²·t over the t
rating periods (4.665 days each) since they were last rated in the pool, up to 350 — in step 6
of a rated game, and when shown; each game is rated for each member against the other's rating
at its end; a game against the AI rates the member against the level's fixed rating ± 60.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.ai import LEVEL_RATINGS

GLICKO2_SCALE = 173.7178  # the paper's conversion factor (400 / ln 10, as it prints it)
SYSTEM_TAU = 0.5
TOLERANCE = 0.000001
PERIOD_SECONDS = 4.665 * 24 * 3600
HIGHEST_RD = 350.0
AI_RD = 60.0


@dataclass(frozen=True)
class Player:
    """A rating r, its deviation RD and volatility σ, on the Glicko scale."""

    r: float = 1500.0
    rd: float = 350.0
    sigma: float = 0.06


def later(player: Player, periods: float) -> Player:
    """Step 6 alone (no games): φ* = √(φ² + σ²·t), at most 350."""
    phi = player.rd / GLICKO2_SCALE
    phi_star = math.sqrt(phi**2 + periods * player.sigma**2)
    return Player(player.r, min(GLICKO2_SCALE * phi_star, HIGHEST_RD), player.sigma)


def glicko2(player: Player, games: list[tuple[Player, float]], periods: float = 1.0) -> Player:
    """Steps 1–8 of the paper for one rating period of ``periods`` (step 6 grows by σ'²·t)."""
    mu, phi = (player.r - 1500.0) / GLICKO2_SCALE, player.rd / GLICKO2_SCALE  # step 2
    g = [1.0 / math.sqrt(1.0 + 3.0 * (o.rd / GLICKO2_SCALE) ** 2 / math.pi**2) for o, _ in games]
    e = [
        1.0 / (1.0 + math.exp(-gj * (mu - (o.r - 1500.0) / GLICKO2_SCALE)))
        for gj, (o, _) in zip(g, games, strict=True)
    ]
    v = 1.0 / sum(gj**2 * ej * (1.0 - ej) for gj, ej in zip(g, e, strict=True))  # step 3
    total = sum(gj * (s - ej) for gj, ej, (_, s) in zip(g, e, games, strict=True))
    delta = v * total  # step 4
    sigma = _volatility(phi, player.sigma, v, delta)  # step 5
    phi_star = min(math.sqrt(phi**2 + periods * sigma**2), HIGHEST_RD / GLICKO2_SCALE)  # step 6
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)  # step 7
    mu_new = mu + phi_new**2 * total
    return Player(GLICKO2_SCALE * mu_new + 1500.0, GLICKO2_SCALE * phi_new, sigma)  # step 8


def _volatility(phi: float, sigma: float, v: float, delta: float) -> float:
    """Step 5: the paper's iteration (Illinois), item by item."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta**2 - phi**2 - v - ex)) / (2.0 * (phi**2 + v + ex) ** 2) - (
            x - a
        ) / SYSTEM_TAU**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * SYSTEM_TAU) < 0:
            k += 1
        big_b = a - k * SYSTEM_TAU
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > TOLERANCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


@dataclass(frozen=True)
class Row:
    """A member's row in a pool: the rating as last rated, the record, when."""

    player: Player = Player()
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    at: float = 0.0


def _periods(since: float, until: float) -> float:
    return max(0.0, until - since) / PERIOD_SECONDS


def replay(
    games: list[tuple], start: dict[tuple[str, int], Row] | None = None
) -> dict[tuple[str, int], Row]:
    """Every member's row after ``games`` in order — (white, black, result, finished_at,
    time_control, ai_level, ai_id) each — from the rows ``start`` (none: newcomers)."""
    table: dict[tuple[str, int], Row] = dict(start or {})
    for white, black, result, at, time_control, ai_level, ai_id in games:
        pool = "correspondence" if time_control is None else "live"
        white_score = {"white": 1.0, "black": 0.0, "draw": 0.5}[result]
        scores = {white: white_score, black: 1.0 - white_score}
        rows = {user: table.get((pool, user), Row()) for user in (white, black)}
        now = {user: later(row.player, _periods(row.at, at)) for user, row in rows.items()}
        if ai_level is not None:
            now[ai_id] = Player(float(LEVEL_RATINGS[ai_level]), AI_RD)
        for user, other in ((white, black), (black, white)):
            if ai_level is not None and user == ai_id:
                continue
            row, score = rows[user], scores[user]
            table[pool, user] = Row(
                glicko2(row.player, [(now[other], score)], _periods(row.at, at)),
                row.games + 1,
                row.wins + (score == 1.0),
                row.losses + (score == 0.0),
                row.draws + (score == 0.5),
                at,
            )
    return table
