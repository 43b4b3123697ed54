"""A wave of the pool paired: windows that widen with the wait, blocks, no rematch while others
wait, and the best pairing — the most pairs, then the least difference, then the longest
waiting — checked against every pairing of small random waves."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from bot.features.pool.matching import REACH, Waiting, WavePairing, pair_wave

NOW = 10_000.0

Score = tuple[int, int, int]


def member(id: int, rating: float, waited: float = 0.0) -> Waiting:
    return Waiting(id, rating, NOW - waited)


def pairs_of(result: WavePairing) -> set[frozenset[int]]:
    return {frozenset(pair) for pair in result.pairs}


def test_a_window_widens_with_the_wait_up_to_its_cap():
    assert member(1, 1500).window(NOW) == 100
    assert member(1, 1500, waited=10).window(NOW) == 150
    assert member(1, 1500, waited=80).window(NOW) == 500
    assert member(1, 1500, waited=3600).window(NOW) == 500


def test_a_pair_needs_each_within_the_others_window():
    """300 points apart: not at once, nor when only one has waited; once both have waited 40 s
    (a window of 300), yes."""
    assert pair_wave([member(1, 1500), member(2, 1800)], NOW).pairs == ()
    assert pair_wave([member(1, 1500, 40), member(2, 1800)], NOW).pairs == ()
    assert pair_wave([member(1, 1500, 40), member(2, 1800, 39)], NOW).pairs == ()
    assert pair_wave([member(1, 1500, 40), member(2, 1800, 40)], NOW).pairs == ((1, 2),)


def test_blocked_pairs_are_never_paired_either_way():
    wave = [member(1, 1500), member(2, 1500), member(3, 1590)]
    assert pairs_of(pair_wave(wave, NOW)) == {frozenset({1, 2})}
    for block in ((1, 2), (2, 1)):
        result = pair_wave(wave, NOW, blocks=[block])
        assert frozenset({1, 2}) not in pairs_of(result)
        assert len(result.pairs) == 1
    assert pair_wave(wave[:2], NOW, blocks=iter([(2, 1)])) == WavePairing((), (1, 2))


def test_no_rematch_while_another_opponent_is_possible():
    """1 and 2 played each other last: they are paired with the others, at a greater
    difference; alone (or with the others out of reach) they may play again."""
    wave = [member(1, 1500), member(2, 1500), member(3, 1520), member(4, 1520)]
    for last in ({1: 2}, {2: 1}, {1: 2, 2: 1}):
        result = pair_wave(wave, NOW, last_opponents=last)
        assert len(result.pairs) == 2 and frozenset({1, 2}) not in pairs_of(result)
    assert pair_wave(wave[:2], NOW, last_opponents={1: 2}).pairs == ((1, 2),)
    far = [*wave[:2], member(3, 1700), member(4, 1700)]
    assert frozenset({1, 2}) in pairs_of(pair_wave(far, NOW, last_opponents={1: 2}))
    blocked = pair_wave(wave[:3], NOW, blocks=[(1, 3), (3, 2)], last_opponents={1: 2})
    assert blocked.pairs == ((1, 2),)


def test_a_rematch_is_refused_even_if_the_other_opponent_is_taken():
    """3 is possible for 1, so 1 and 2 do not play again this wave, though 3 plays 4: 2 and 1
    wait for the next wave rather than replay."""
    wave = [member(1, 1500), member(2, 1500), member(3, 1560), member(4, 1560)]
    result = pair_wave(wave, NOW, blocks=[(2, 3), (2, 4)], last_opponents={1: 2})
    assert frozenset({1, 2}) not in pairs_of(result)


class Rules:
    """The rules of the module's docstring, written again from it for the brute force."""

    def __init__(self, wave: Sequence[Waiting], blocks: set[tuple[int, int]], last: Mapping):
        self.wave, self.blocks, self.last = wave, blocks, last

    def possible(self, a: Waiting, b: Waiting) -> bool:
        difference = abs(round(a.rating) - round(b.rating))
        return (
            a.id != b.id
            and difference <= min(a.window(NOW), b.window(NOW))
            and (a.id, b.id) not in self.blocks
            and (b.id, a.id) not in self.blocks
        )

    def rematch(self, a: Waiting, b: Waiting) -> bool:
        return self.last.get(a.id) == b.id or self.last.get(b.id) == a.id

    def alone(self, a: Waiting) -> bool:
        return not any(self.possible(a, c) and not self.rematch(a, c) for c in self.wave)

    def allowed(self, a: Waiting, b: Waiting) -> bool:
        if not self.possible(a, b):
            return False
        return not self.rematch(a, b) or (self.alone(a) and self.alone(b))


def score(wave: Sequence[Waiting], pairs: Sequence[tuple[int, int]]) -> Score:
    """(pairs, minus the total difference in whole points, seconds waited by those paired)."""
    by_id = {m.id: m for m in wave}
    difference = sum(abs(round(by_id[a].rating) - round(by_id[b].rating)) for a, b in pairs)
    waited = sum(int(NOW - by_id[id].since) for pair in pairs for id in pair)
    return len(pairs), -difference, waited


def best_by_brute_force(wave: Sequence[Waiting], rules: Rules, reach: int | None) -> Score:
    """The best score over every pairing by ``rules`` (partners at most ``reach`` places apart
    in rating order, then since, then id; ``None``: anywhere)."""
    order = sorted(wave, key=lambda m: (round(m.rating), m.since, m.id))

    def best(free: tuple[int, ...]) -> list[Score]:
        if not free:
            return [(0, 0, 0)]
        first, rest = free[0], free[1:]
        found = best(rest)
        for j in rest:
            if (reach is None or j - first <= reach) and rules.allowed(order[first], order[j]):
                pair = [(order[first].id, order[j].id)]
                (pairs, difference, waited) = score(wave, pair)
                found += [
                    (pairs + more, difference + further, waited + longer)
                    for more, further, longer in best(tuple(k for k in rest if k != j))
                ]
        return [max(found)]

    return best(tuple(range(len(order))))[0]


def random_wave(rng: random.Random, size: int, spread: float) -> list[Waiting]:
    return [member(i, rng.gauss(1500, spread), rng.uniform(0, 60)) for i in range(size)]


def random_pairs(rng: random.Random, ids: Sequence[int], count: int) -> list[tuple[int, int]]:
    """``count`` pairs of two of ``ids`` (none if there are fewer than two)."""
    return [(a, b) for a, b in (rng.sample(ids, 2) for _ in range(count if len(ids) > 1 else 0))]


def check_each_once(wave: Sequence[Waiting], result: WavePairing) -> None:
    seen = [id for pair in result.pairs for id in pair] + list(result.waiting)
    assert sorted(seen) == sorted(m.id for m in wave)


def test_the_best_pairing_within_reach_against_every_pairing(seed):
    """Random small waves, blocks and last opponents: every pair the wave makes is allowed, and
    its score is the best of every pairing whose partners are at most REACH places apart."""
    rng = random.Random(seed)
    for _ in range(150):
        wave = random_wave(rng, rng.randint(0, 9), spread=rng.choice((50, 150, 400)))
        ids = [m.id for m in wave]
        blocks = set(random_pairs(rng, ids, rng.randint(0, 3)))
        last = dict(random_pairs(rng, ids, len(ids) // 2))
        rules = Rules(wave, blocks, last)
        result = pair_wave(wave, NOW, blocks=blocks, last_opponents=last)
        check_each_once(wave, result)
        by_id = {m.id: m for m in wave}
        assert all(rules.allowed(by_id[a], by_id[b]) for a, b in result.pairs)
        assert score(wave, result.pairs) == best_by_brute_force(wave, rules, REACH)


def test_with_equal_windows_the_best_pairing_of_all(seed):
    """Everyone waiting as long, nobody blocked, no last games: the wave's pairing is the best
    of every pairing, partners anywhere (neighbours suffice, as the module argues)."""
    rng = random.Random(seed)
    for _ in range(100):
        waited = rng.uniform(0, 100)
        wave = [member(i, rng.gauss(1500, 200), waited) for i in range(rng.randint(0, 10))]
        result = pair_wave(wave, NOW)
        assert score(wave, result.pairs) == best_by_brute_force(wave, Rules(wave, set(), {}), None)


def test_a_big_wave_pairs_each_at_most_once_and_the_same_whatever_the_order(seed):
    rng = random.Random(seed)
    wave = random_wave(rng, 2000, spread=300)
    ids = [m.id for m in wave]
    blocks = set(random_pairs(rng, ids, 200))
    last = dict(random_pairs(rng, ids, 500))
    result = pair_wave(wave, NOW, blocks=blocks, last_opponents=last)
    check_each_once(wave, result)
    assert len(result.pairs) >= 990
    assert pair_wave(wave, NOW, blocks=blocks, last_opponents=last) == result
    shuffled = rng.sample(wave, len(wave))
    again = pair_wave(shuffled, NOW, blocks=list(blocks), last_opponents=dict(last))
    assert again.pairs == result.pairs and set(again.waiting) == set(result.waiting)


def test_the_longest_waiting_are_paired_first():
    """Three at the same rating: the two who waited longest play."""
    wave = [member(1, 1500, 5), member(2, 1500, 30), member(3, 1500, 20)]
    assert pair_wave(wave, NOW) == WavePairing(((2, 3),), (1,))


def test_a_member_waits_once_per_wave():
    with pytest.raises(ValueError, match="twice"):
        pair_wave([member(1, 1500), member(1, 1600)], NOW)
