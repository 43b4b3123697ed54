"""Tournament pairings as properties, for any results: Swiss rounds of 2 to 64 players and
round robins."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

import bot.features.tournaments.pairing as pairing
from bot.features.tournaments.matching import maximum_matching
from bot.features.tournaments.pairing import Entrant, Round, round_robin, swiss_round


def play(entrants: dict[int, Entrant], paired: Round, results: list[float]) -> None:
    """Record ``paired``'s games with White's ``results`` (1, ½ or 0) and its bye (a point)."""
    for (white, black), result in zip(paired.games, results, strict=False):
        w, b = entrants[white], entrants[black]
        entrants[white] = Entrant(
            w.id, w.rating, w.score + result, w.opponents | {black}, w.colours + "w", w.had_bye
        )
        entrants[black] = Entrant(
            b.id, b.rating, b.score + 1 - result, b.opponents | {white}, b.colours + "b", b.had_bye
        )
    if paired.bye is not None:
        e = entrants[paired.bye]
        entrants[paired.bye] = Entrant(e.id, e.rating, e.score + 1, e.opponents, e.colours, True)


def pairings(field: list[Entrant]) -> Iterator[list[tuple[int, int]]]:
    """Every pairing of ``field`` with no repeated game (brute force, for small fields)."""
    if not field:
        yield []
        return
    first, rest = field[0], field[1:]
    for index, other in enumerate(rest):
        if other.id not in first.opponents:
            for more in pairings(rest[:index] + rest[index + 1 :]):
                yield [(first.id, other.id), *more]


@settings(max_examples=150, deadline=None)
@given(
    size=st.integers(2, 64),
    data=st.data(),
)
def test_swiss_rounds_never_repeat_a_game_and_give_each_at_most_one_bye(size, data):
    ratings = data.draw(st.lists(st.integers(800, 2400), min_size=size, max_size=size))
    entrants = {i: Entrant(i, float(r)) for i, r in enumerate(ratings)}
    rounds = data.draw(st.integers(1, max(1, size // 2)))
    byes: list[int] = []
    for _ in range(rounds):
        paired = swiss_round(list(entrants.values()))
        players = [p for game in paired.games for p in game]
        assert sorted(players + ([paired.bye] if paired.bye is not None else [])) == sorted(
            entrants
        ), "everyone plays once, or has the bye"
        assert (paired.bye is not None) == (size % 2 == 1)
        for white, black in paired.games:
            assert black not in entrants[white].opponents, "no game is played twice"
            wants = entrants[white].prefers(), entrants[black].prefers()
            if None not in wants and wants[0] != wants[1]:
                assert wants == ("w", "b"), "when their wishes differ, both get them"
        if paired.bye is not None:
            assert not entrants[paired.bye].had_bye, "a second bye"
            byes.append(paired.bye)
        results = data.draw(
            st.lists(
                st.sampled_from([0.0, 0.5, 1.0]),
                min_size=len(paired.games),
                max_size=len(paired.games),
            )
        )
        play(entrants, paired, results)
    assert len(byes) == len(set(byes))


@settings(max_examples=150, deadline=None)
@given(size=st.integers(2, 8), data=st.data())
def test_the_best_ranked_player_meets_the_nearest_score_a_pairing_allows(size, data):
    """Against every possible pairing of the field (brute force): the best-ranked player's
    opponent is as near in score as any pairing could give them, and the first round pairs the
    top half against the bottom half."""
    ratings = data.draw(st.lists(st.integers(800, 2400), min_size=size, max_size=size, unique=True))
    entrants = {i: Entrant(i, float(r)) for i, r in enumerate(ratings)}
    first = swiss_round(list(entrants.values()))
    ranked = sorted(entrants.values(), key=lambda e: -e.rating)
    half = size // 2
    top = [e.id for e in ranked if e.id != first.bye][:half]
    for white, black in first.games:
        assert (white in top) != (black in top), "top half against bottom half"
    for _ in range(data.draw(st.integers(0, max(0, size // 2 - 1)))):
        paired = swiss_round(list(entrants.values()))
        play(
            entrants,
            paired,
            data.draw(
                st.lists(
                    st.sampled_from([0.0, 0.5, 1.0]),
                    min_size=len(paired.games),
                    max_size=len(paired.games),
                )
            ),
        )
    paired = swiss_round(list(entrants.values()))
    field = sorted(
        (e for e in entrants.values() if e.id != paired.bye),
        key=lambda e: (-e.score, -e.rating, e.id),
    )
    best = field[0]
    partner = next(b if a == best.id else a for a, b in paired.games if best.id in (a, b))
    nearest = min(
        abs(best.score - entrants[b if a == best.id else a].score)
        for option in pairings(field)
        for a, b in option
        if best.id in (a, b)
    )
    assert abs(best.score - entrants[partner].score) == nearest


@given(size=st.integers(2, 16), twice=st.booleans())
def test_a_round_robin_pairs_everyone_with_everyone_once_a_cycle(size, twice):
    rounds = round_robin(list(range(size)), twice=twice)
    cycles = 2 if twice else 1
    assert len(rounds) == cycles * (size - 1 + size % 2)
    met = [frozenset(game) for r in rounds for game in r.games]
    assert sorted(met, key=sorted) == sorted(
        [frozenset(pair) for pair in itertools.combinations(range(size), 2)] * cycles, key=sorted
    )
    for r in rounds:
        seen = [p for game in r.games for p in game] + ([r.bye] if r.bye is not None else [])
        assert sorted(seen) == list(range(size))
    byes = [r.bye for r in rounds if r.bye is not None]
    assert sorted(byes) == sorted(list(range(size)) * cycles) if size % 2 else byes == []
    for player in range(size):
        whites = sum(1 for r in rounds for w, _ in r.games if w == player)
        blacks = sum(1 for r in rounds for _, b in r.games if b == player)
        assert abs(whites - blacks) <= (1 if not twice else 0), (player, whites, blacks)
    if twice:
        half = len(rounds) // 2
        for one, two in zip(rounds[:half], rounds[half:], strict=True):
            assert two.games == tuple((b, w) for w, b in one.games)


def brute_force_pairs(adjacent: dict[int, set[int]]) -> int:
    """The most pairs any matching of ``adjacent`` has (by trying them all)."""
    vertices = list(adjacent)

    def most(left: list[int]) -> int:
        if not left:
            return 0
        first, rest = left[0], left[1:]
        best = most(rest)
        for index, other in enumerate(rest):
            if other in adjacent[first]:
                best = max(best, 1 + most(rest[:index] + rest[index + 1 :]))
        return best

    return most(vertices)


@settings(max_examples=300, deadline=None)
@given(size=st.integers(0, 11), data=st.data())
def test_the_matching_is_maximum(size, data):
    edges = data.draw(
        st.sets(st.tuples(st.integers(0, max(0, size - 1)), st.integers(0, max(0, size - 1))))
    )
    adjacent: dict[int, set[int]] = {v: set() for v in range(size)}
    for a, b in edges:
        if a != b and a < size and b < size:
            adjacent[a].add(b)
            adjacent[b].add(a)
    match = maximum_matching(adjacent)
    for vertex, partner in match.items():
        assert partner is None or (match[partner] == vertex and partner in adjacent[vertex])
    assert sum(p is not None for p in match.values()) // 2 == brute_force_pairs(adjacent)


@settings(max_examples=100, deadline=None)
@given(size=st.integers(2, 40), data=st.data())
def test_the_exact_search_pairs_as_the_quick_one(size, data):
    """Without its quick search (no steps allowed), a round is paired the same way."""
    ratings = data.draw(st.lists(st.integers(800, 2400), min_size=size, max_size=size))
    entrants = {i: Entrant(i, float(r)) for i, r in enumerate(ratings)}
    for _ in range(data.draw(st.integers(0, max(0, size // 2 - 1)))):
        paired = swiss_round(list(entrants.values()))
        play(
            entrants,
            paired,
            data.draw(
                st.lists(
                    st.sampled_from([0.0, 0.5, 1.0]),
                    min_size=len(paired.games),
                    max_size=len(paired.games),
                )
            ),
        )
    quick = swiss_round(list(entrants.values()))
    budget = pairing.QUICK_BUDGET
    pairing.QUICK_BUDGET = 0
    try:
        exact = swiss_round(list(entrants.values()))
    finally:
        pairing.QUICK_BUDGET = budget
    assert exact == quick
