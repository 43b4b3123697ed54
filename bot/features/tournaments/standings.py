"""A tournament's standings, as pure functions: points, tie-breaks and ranks from the results
of its pairings; and the Swiss pairing's view of each player (no I/O).

Points: a win 1, a draw ½, a loss 0, a bye 1. A forfeit (a game an opponent who withdrew could
not play) is a win without a game. Tie-breaks, in order:

- Swiss: **Buchholz** (the sum of the points of every opponent met, forfeits included; a bye
  adds nothing) and **Sonneborn-Berger** (the points of every opponent beaten, plus half of
  those drawn);
- round robin: **Sonneborn-Berger** and **head-to-head** (the points scored in the games
  between the players tied on points).

Players equal on points and both tie-breaks share a rank (listed by seed: rating, then id).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.features.tournaments.pairing import BLACK, WHITE, Entrant
from engine.scoring import Result

Format = Literal["swiss", "round_robin"]
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True, slots=True)
class Meeting:
    """One pairing of a round and its result, as the standings count it."""

    round: int
    white: int
    black: int | None
    """``None``: ``white`` has the bye."""
    result: Result | None = None
    """``None``: not decided yet (or the game was aborted: no result)."""
    played: bool = True
    """Played over the board (``False``: a bye, or a forfeit)."""

    def score_of(self, player: int) -> float | None:
        """``player``'s points from this pairing (``None``: undecided)."""
        if self.black is None:
            return WIN
        if self.result is None:
            return None
        if self.result == "draw":
            return DRAW
        won = (self.result == "white") == (player == self.white)
        return WIN if won else LOSS

    def opponent_of(self, player: int) -> int | None:
        """``player``'s opponent (``None``: a bye)."""
        return self.black if player == self.white else self.white


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings."""

    rank: int
    player: int
    points: float
    tiebreaks: tuple[float, float]
    played: int
    """Games played over the board with a result (not byes, not forfeits)."""


def points(pairings: Iterable[Meeting]) -> dict[int, float]:
    """Each player's points from the decided pairings."""
    totals: dict[int, float] = defaultdict(float)
    for pairing in pairings:
        for player in (pairing.white, pairing.black):
            if player is not None:
                totals[player] += pairing.score_of(player) or 0.0
    return totals


def standings(
    format: Format, seeds: Sequence[tuple[int, float]], pairings: Sequence[Meeting]
) -> list[Standing]:
    """The standings of the players ``seeds`` lists (``(id, rating)``) after ``pairings``."""
    total = points(pairings)
    decided = [p for p in pairings if p.black is not None and p.result is not None]
    first, second = _tiebreaks(format, total, decided)
    played: dict[int, int] = defaultdict(int)
    for pairing in decided:
        if pairing.played:
            played[pairing.white] += 1
            played[pairing.black or 0] += 1
    order = sorted(seeds, key=lambda seed: (-seed[1], seed[0]))
    keys = {player: (total[player], first[player], second[player]) for player, _ in order}
    ranked = sorted((player for player, _ in order), key=lambda p: keys[p], reverse=True)
    lines, rank = [], 0
    for index, player in enumerate(ranked):
        if index == 0 or keys[player] != keys[ranked[index - 1]]:
            rank = index + 1
        lines.append(Standing(rank, player, total[player], keys[player][1:], played[player]))
    return lines


def _tiebreaks(
    format: Format, total: dict[int, float], decided: list[Meeting]
) -> tuple[dict[int, float], dict[int, float]]:
    buchholz: dict[int, float] = defaultdict(float)
    berger: dict[int, float] = defaultdict(float)
    for pairing in decided:
        for player in (pairing.white, pairing.black):
            assert player is not None
            opponent = pairing.opponent_of(player)
            assert opponent is not None
            buchholz[player] += total[opponent]
            berger[player] += (pairing.score_of(player) or 0.0) * total[opponent]
    if format == "swiss":
        return buchholz, berger
    return berger, _head_to_head(total, decided)


def _head_to_head(total: dict[int, float], decided: list[Meeting]) -> dict[int, float]:
    """The points each player scored against the players with as many points."""
    among: dict[int, float] = defaultdict(float)
    for pairing in decided:
        white, black = pairing.white, pairing.black
        if black is not None and total[white] == total[black]:
            among[white] += pairing.score_of(white) or 0.0
            among[black] += pairing.score_of(black) or 0.0
    return among


def entrants(
    seeds: Sequence[tuple[int, float]], pairings: Sequence[Meeting], playing: Iterable[int]
) -> list[Entrant]:
    """The Swiss pairing's view of the players still ``playing``: their points, opponents,
    colours (of the games played) and byes so far (``seeds``: ``(id, rating)``)."""
    total = points(pairings)
    opponents: dict[int, set[int]] = defaultdict(set)
    colours: dict[int, str] = defaultdict(str)
    byes: set[int] = set()
    for pairing in sorted(pairings, key=lambda p: p.round):
        if pairing.black is None:
            byes.add(pairing.white)
            continue
        opponents[pairing.white].add(pairing.black)
        opponents[pairing.black].add(pairing.white)
        if pairing.played:  # a forfeit gave no one a colour
            colours[pairing.white] += WHITE
            colours[pairing.black] += BLACK
    rating = dict(seeds)
    return [
        Entrant(
            player,
            rating.get(player, 0.0),
            total[player],
            frozenset(opponents[player]),
            colours[player],
            player in byes,
        )
        for player in playing
    ]
