"""One wave of the pool for one pace, paired as a pure function: who plays whom among those
waiting, and who waits on. No I/O, no clock: the wave's time is given.

The rules follow Lichess's pool (lichess-org/lila, ``modules/pool/src/main/MatchMaking.scala``
and ``PoolActor.scala``): a wave pairs by a maximum weighted matching whose weight is the rating
difference, a pairing is refused when either player's rating range does not hold the other or
either blocks the other, and the allowed difference grows with the waves a member has missed
(there 12 points a wave, capped). Here:

* **Windows**: a member accepts an opponent within :data:`WINDOW_AT_ONCE` (100) points at once,
  :data:`WINDOW_PER_SECOND` (5) more each second waited, at most :data:`WINDOW_CAP` (500, after
  80 s). A pair is allowed only if each is within the other's window: the difference is at
  most the smaller of the two. Ratings are compared in whole points (rounded).
* **Blocks**: a blocked pair (either way) is never paired.
* **No rematch while others wait**: a pair where either one's last opponent is the other is
  allowed only if neither of them has another possible opponent in this wave (one within both
  windows, not blocked, and no rematch itself).
* **The best pairing**: the most pairs; then the least total difference; then the most seconds
  waited by those paired (the longest waiting first).

**How**: sorted by rating (then by the time they began waiting, then id), a dynamic program
runs along the order; its state is which of the next :data:`REACH` members are already taken,
and each member still free either waits on or takes one of the next :data:`REACH` allowed for
it. It is exact — the most pairs, then the least difference, then the most waited — among the
pairings whose partners are at most :data:`REACH` places apart in that order; O(n·2^REACH·REACH).

**Why that neighbourhood loses nothing in the usual case**: when a span's pairs are all allowed
(as when its members' windows are equal and nobody blocks anybody), an optimal pairing pairs
neighbours only. Two crossing or nested pairs ``a<b<c<d`` can be redrawn as ``a-b`` and ``c-d``
— the same members, a total difference no greater — and a member ``b`` left waiting between
the partners ``a-c`` could take ``c``'s place at no greater difference (and, in the order, has
waited at least as long when equally rated). So a partner further than the neighbour is needed
only when those between are out of a window, blocked or a rematch: :data:`REACH` of 4 lets three
such members sit between partners.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

WINDOW_AT_ONCE = 100.0
"""Points of difference a member accepts as soon as they wait."""
WINDOW_PER_SECOND = 5.0
"""Points more accepted for each second waited."""
WINDOW_CAP = 500.0
"""The widest a window grows (after 80 s)."""
REACH = 4
"""How many places ahead in rating order a member may find their partner."""
STEP = REACH + 1
"""A step of the program notes the state before and the offset taken as ``state * STEP +
offset``."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """A member waiting in the pool for one pace: their rating and since when they wait
    (seconds, the same clock as the wave's time)."""

    id: int
    rating: float
    since: float

    def window(self, now: float) -> float:
        """The most points of difference this member accepts at ``now``."""
        waited = max(0.0, now - self.since)
        return min(WINDOW_CAP, WINDOW_AT_ONCE + WINDOW_PER_SECOND * waited)


@dataclass(frozen=True, slots=True)
class WavePairing:
    """What one wave decided: the pairs (lower rated first) and who waits on (ids in the order
    given)."""

    pairs: tuple[tuple[int, int], ...]
    waiting: tuple[int, ...]


def pair_wave(
    members: Sequence[Waiting],
    now: float,
    blocks: Iterable[tuple[int, int]] = (),
    last_opponents: Mapping[int, int] | None = None,
) -> WavePairing:
    """Pair one wave of ``members`` at ``now`` by the rules of this module; ``blocks`` are
    pairs of ids never to be paired (either way), ``last_opponents`` each member's last
    opponent (if any)."""
    wave = _Wave(members, now, blocks, last_opponents or {})
    partner = _best_matching(wave.gains())
    ids = wave.ids
    pairs = tuple((ids[i], ids[j]) for i, j in enumerate(partner) if j is not None and i < j)
    paired = {member for pair in pairs for member in pair}
    return WavePairing(pairs, tuple(m.id for m in members if m.id not in paired))


class _Wave:
    """The members in rating order, and which of them may be paired."""

    def __init__(
        self,
        members: Sequence[Waiting],
        now: float,
        blocks: Iterable[tuple[int, int]],
        last_opponents: Mapping[int, int],
    ) -> None:
        if len({member.id for member in members}) != len(members):
            raise ValueError("a member waits twice in one wave")
        ordered = sorted(members, key=lambda m: (round(m.rating), m.since, m.id))
        self.ids = [m.id for m in ordered]
        self.points = [round(m.rating) for m in ordered]
        self.windows = [m.window(now) for m in ordered]
        self.waited = [int(max(0.0, now - m.since)) for m in ordered]
        self.blocks = {pair for a, b in blocks for pair in ((a, b), (b, a))}
        self.last = last_opponents
        self.alone: dict[int, bool] = {}

    def within(self, i: int, j: int) -> bool:
        """Whether the members at ``i`` and ``j`` are within each other's windows, unblocked."""
        difference = abs(self.points[i] - self.points[j])
        return (
            difference <= self.windows[i]
            and difference <= self.windows[j]
            and (self.ids[i], self.ids[j]) not in self.blocks
        )

    def rematch(self, i: int, j: int) -> bool:
        """Whether either's last opponent is the other."""
        a, b = self.ids[i], self.ids[j]
        return self.last.get(a) == b or self.last.get(b) == a

    def allowed(self, i: int, j: int) -> bool:
        """Whether ``i`` and ``j`` may be paired in this wave."""
        if not self.within(i, j):
            return False
        return not self.rematch(i, j) or (self.has_no_other(i) and self.has_no_other(j))

    def has_no_other(self, i: int) -> bool:
        """Whether the member at ``i`` has no possible opponent but a rematch: nobody within
        both windows, unblocked, who is not their last opponent nor had them last."""
        if i not in self.alone:
            low = bisect.bisect_left(self.points, self.points[i] - self.windows[i])
            high = bisect.bisect_right(self.points, self.points[i] + self.windows[i])
            self.alone[i] = not any(
                j != i and self.within(i, j) and not self.rematch(i, j) for j in range(low, high)
            )
        return self.alone[i]

    def gains(self) -> list[list[tuple[int, int]]]:
        """For each place, the places ahead (as offsets, up to :data:`REACH`) it may be paired
        with, each with what the pair is worth: one pair outweighs any difference, one point of
        difference outweighs any seconds waited."""
        size = len(self.ids)
        per_point = sum(self.waited) + 1
        per_pair = ((size // 2 + 1) * (int(WINDOW_CAP) + 1) + 1) * per_point
        points, waited = self.points, self.waited
        return [
            [
                (offset, per_pair - (points[j] - points[i]) * per_point + waited[i] + waited[j])
                for offset in range(1, REACH + 1)
                if (j := i + offset) < size and self.allowed(i, j)
            ]
            for i in range(size)
        ]


def _best_matching(gains: list[list[tuple[int, int]]]) -> list[int | None]:
    """The matching of greatest total worth where each place ``i`` pairs with ``i + offset``
    for one of its ``gains``: each place's partner (``None``: waits on). A state is the set of
    the next places already taken (bit ``k``: place ``i + k``), kept in a list by its bits (-1:
    not reached); each step notes, for each state reached, the state before and the offset
    taken (0: none). Ties keep the first found."""
    size = 1 << REACH
    states = [0] + [-1] * (size - 1)
    steps: list[list[int]] = []
    for options in gains:
        best, step = [-1] * size, [0] * size
        moves = [(1 << offset, offset, gain) for offset, gain in options]
        for taken, worth in enumerate(states):
            if worth < 0:
                continue
            if worth > best[taken >> 1]:
                best[taken >> 1], step[taken >> 1] = worth, taken * STEP
            if taken & 1:
                continue
            for bit, offset, gain in moves:
                after = (taken | bit) >> 1
                if not taken & bit and worth + gain > best[after]:
                    best[after], step[after] = worth + gain, taken * STEP + offset
        steps.append(step)
        states = best
    return _partners(steps)


def _partners(steps: list[list[int]]) -> list[int | None]:
    """Each place's partner, read back from the program's ``steps`` (it ends with no place
    taken)."""
    partner: list[int | None] = [None] * len(steps)
    taken = 0
    for i in range(len(steps) - 1, -1, -1):
        taken, offset = divmod(steps[i][taken], STEP)
        if offset:
            partner[i], partner[i + offset] = i + offset, i
    return partner
