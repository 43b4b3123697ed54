"""Tournament pairings, as pure functions: a round robin's schedule (the circle method) and one
Swiss round (players with equal scores together, no one meeting the same opponent twice,
colours alternating as far as possible, one bye a round for an odd number, never twice to the
same player). No I/O.

A Swiss round is paired in rank order — score, then rating, then id —: the best-ranked unpaired
player takes the opponent nearest in score (in the first round, the one half the field below,
as the Dutch system seeds it) with whom the rest can still be paired; so no pairing crosses
score groups that a pairing keeping them together could avoid, best-ranked players first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.features.tournaments.matching import augment, augmenting_path, maximum_matching

WHITE, BLACK = "w", "b"


class NoPairingError(ValueError):
    """No round can be paired without someone meeting an opponent again (or getting a second
    bye): the tournament has run out of rounds."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player as the pairing sees them: their standing and what they played so far."""

    id: int
    rating: float
    score: float = 0.0
    opponents: frozenset[int] = frozenset()
    colours: str = ""
    """The colours they played, in order (``"wbw"``; a bye adds nothing)."""
    had_bye: bool = False

    def prefers(self) -> str | None:
        """The colour they should have next: the one they played less, or else the other of
        their last; ``None`` when they have no preference (no game yet)."""
        whites, blacks = self.colours.count(WHITE), self.colours.count(BLACK)
        if whites != blacks:
            return WHITE if whites < blacks else BLACK
        if not self.colours:
            return None
        return BLACK if self.colours[-1] == WHITE else WHITE


@dataclass(frozen=True, slots=True)
class Round:
    """One round: its games as ``(white, black)`` ids, and who has the bye (``None``: nobody)."""

    games: tuple[tuple[int, int], ...]
    bye: int | None = None


def round_robin(players: Sequence[int], *, twice: bool = False) -> list[Round]:
    """Every round of a round robin of ``players`` (twice: the second cycle with colours
    swapped), by the circle method: one player stays, the others turn around them; with an odd
    number, whoever faces the empty seat has the bye. Everyone meets everyone once a cycle and
    colours alternate as evenly as the schedule allows."""
    seats: list[int | None] = list(players)
    if len(seats) < 2:
        raise ValueError("a round robin needs at least two players")
    if len(seats) % 2:
        seats.append(None)
    count = len(seats)
    rounds = []
    for number in range(count - 1):
        games, bye = [], None
        for board in range(count // 2):
            first, second = seats[board], seats[count - 1 - board]
            if first is None or second is None:
                bye = second if first is None else first
                continue
            swap = board == 0 and number % 2 == 1  # the one who stays alternates colours
            games.append((second, first) if swap else (first, second))
        rounds.append(Round(tuple(games), bye))
        seats = [seats[0], seats[-1], *seats[1:-1]]  # the circle turns; the first stays
    if twice:
        rounds += [Round(tuple((black, white) for white, black in r.games), r.bye) for r in rounds]
    return rounds


def swiss_round(entrants: Sequence[Entrant]) -> Round:
    """Pair one Swiss round of ``entrants`` (see the module's docstring); raises
    :class:`NoPairingError` when every pairing left would repeat a game or give a second bye."""
    ranked = sorted(entrants, key=lambda e: (-e.score, -e.rating, e.id))
    first_round = all(not e.opponents and not e.had_bye for e in ranked)
    for bye in _bye_candidates(ranked):
        field = [e for e in ranked if bye is None or e.id != bye.id]
        try:
            games = _pair(field, first_round, [0])
        except _OutOfBudget:  # a field the quick search loses itself in: search exactly
            games = _pair_exactly(field, first_round)
        if games is None:
            continue
        coloured = [_coloured(a, b) for a, b in games]
        if first_round:  # no preferences yet: the better ranked has White on every other board
            coloured = [(b, w) if board % 2 else (w, b) for board, (w, b) in enumerate(coloured)]
        return Round(tuple(coloured), bye.id if bye else None)
    raise NoPairingError("every pairing left would repeat a game or give a second bye")


QUICK_BUDGET = 2_000
"""Steps the quick search may take before the exact one takes over."""


class _OutOfBudget(Exception):
    """The quick search took too many steps."""


def _bye_candidates(ranked: list[Entrant]) -> list[Entrant | None]:
    """Who may have the bye, from the lowest ranked up ([None] for an even number)."""
    if len(ranked) % 2 == 0:
        return [None]
    return [e for e in reversed(ranked) if not e.had_bye]


def _pair(
    field: list[Entrant], first_round: bool, steps: list[int]
) -> list[tuple[Entrant, Entrant]] | None:
    """The quick search: depth first, each best-ranked unpaired player taking the first of
    its candidates that leaves the rest pairable; ``None`` if none does."""
    if not field:
        return []
    steps[0] += 1
    if steps[0] > QUICK_BUDGET:
        raise _OutOfBudget
    player, rest = field[0], field[1:]
    for opponent in _candidates(player, rest, first_round, len(field)):
        paired = _pair([e for e in rest if e.id != opponent.id], first_round, steps)
        if paired is not None:
            return [(player, opponent), *paired]
    return None


def _pair_exactly(field: list[Entrant], first_round: bool) -> list[tuple[Entrant, Entrant]] | None:
    """The same pairing as :func:`_pair`, found without search: a maximum matching of who may
    still meet whom (Edmonds) tells at once whether the rest can be paired once a pair is
    fixed — it must stay perfect, found again by one augmenting path."""
    adjacent = {
        e.id: {o.id for o in field if o.id != e.id and o.id not in e.opponents} for e in field
    }
    match = maximum_matching(adjacent)
    if any(partner is None for partner in match.values()):
        return None
    pairs, remaining = [], list(field)
    while remaining:
        player, rest = remaining[0], remaining[1:]
        for opponent in _candidates(player, rest, first_round, len(remaining)):
            if _fix(adjacent, match, player.id, opponent.id):
                break
        else:  # unreachable: the matching is perfect, so its own partner fits
            raise AssertionError("no partner left for a player of a perfectly matchable field")
        pairs.append((player, opponent))
        remaining = [e for e in rest if e.id != opponent.id]
    return pairs


def _fix(adjacent: dict[int, set[int]], match: dict[int, int | None], a: int, b: int) -> bool:
    """Pair ``a`` with ``b`` for good if the others can still all be paired (the perfect
    ``match`` of them is repaired by one augmenting path); else change nothing."""
    partner_a, partner_b = match[a], match[b]
    assert partner_a is not None and partner_b is not None  # the matching is perfect
    removed = {v: adjacent.pop(v) for v in (a, b)}
    for v, neighbours in removed.items():
        for other in neighbours:
            if other in adjacent:
                adjacent[other].discard(v)
    if (partner_a, partner_b) == (b, a):
        return True
    saved = dict(match)
    for v in (a, b):
        del match[v]
    for partner in (partner_a, partner_b):
        match[partner] = None
    path = augmenting_path(adjacent, match, partner_a)
    if path is not None:
        augment(match, path)
        return True
    match.clear()
    match.update(saved)
    for v, neighbours in removed.items():
        adjacent[v] = neighbours
        for other in neighbours:
            if other in adjacent:
                adjacent[other].add(v)
    return False


def _candidates(
    player: Entrant, rest: list[Entrant], first_round: bool, size: int
) -> list[Entrant]:
    """Whom ``player`` may meet, most fitting first: nearest in score; in the first round the
    one half the field below first (top half against bottom half); then whoever makes both
    colours fit; then rank order."""
    allowed = [(index, e) for index, e in enumerate(rest) if e.id not in player.opponents]
    half = size // 2 - 1  # the index, in ``rest``, of the one half the field below
    wants = player.prefers()

    def fit(item: tuple[int, Entrant]) -> tuple[float, int, int, int]:
        index, opponent = item
        seeding = abs(index - half) if first_round else 0
        clash = int(wants is not None and wants == opponent.prefers())
        return (abs(player.score - opponent.score), seeding, clash, index)

    return [e for _, e in sorted(allowed, key=fit)]


def _coloured(first: Entrant, second: Entrant) -> tuple[int, int]:
    """``(white, black)``: the colours each should have, the better ranked's preference first
    (with none, the better ranked takes White)."""
    wants, other = first.prefers(), second.prefers()
    if wants == BLACK or (wants is None and other == WHITE):
        return second.id, first.id
    return first.id, second.id
