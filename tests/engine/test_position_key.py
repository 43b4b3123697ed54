"""The position's key (fair play's index): one key however a position is written, distinct keys
for distinct positions, and the successors of a position."""

from __future__ import annotations

import random

from engine import Position, position_key, successors
from engine.newgame import new_game
from engine.play import random_game


def scrambled(position: Position, rng: random.Random) -> str:
    """``position`` written another way: its workshop stones and ornaments in a random order."""
    columns, white, black, side, ornaments = str(position).split(" ")
    white, black = ("".join(rng.sample(field, len(field))) for field in (white, black))
    if ornaments != "-":
        ornaments = ",".join(rng.sample(ornaments.split(","), ornaments.count(",") + 1))
    return " ".join((columns, white, black, side, ornaments))


def test_the_key_is_the_same_however_a_position_is_written(seed: int):
    rng = random.Random(seed)
    for _ in range(20):
        game = random_game(new_game("advanced", ornaments=rng.randint(1, 5), seed=seed), rng)
        position = game.start
        for turn in game.turns:
            position = position.apply(turn)
            written = scrambled(position, rng)
            assert position_key(Position.parse(written)) == position_key(position), written


def test_a_known_position_written_two_ways():
    one = Position.parse("-/w/-/-/-/-/- wbg bb b A=tall,C=minority")
    other = Position.parse("-/w/-/-/-/-/- gwb bb b C=minority,A=tall")
    assert position_key(one) == position_key(other)
    assert str(one) == str(other)
    assert position_key(one) != position_key(Position.parse("-/w/-/-/-/-/- wbg bb w A=tall"))


def test_keys_are_64_bit_and_distinct_over_many_positions(seed: int):
    rng = random.Random(seed)
    keys: dict[int, str] = {}
    for _ in range(30):
        game = random_game(new_game("basic", seed=seed), rng)
        position = game.start
        for turn in game.turns:
            position = position.apply(turn)
            key = position_key(position)
            assert -(2**63) <= key < 2**63
            assert keys.setdefault(key, str(position)) == str(position)


def test_successors_are_the_positions_after_each_legal_turn(seed: int):
    rng = random.Random(seed)
    game = random_game(new_game("advanced", ornaments=3, seed=seed), rng)
    position = game.start
    for turn in game.turns:
        assert successors(position) == {position.apply(legal) for legal in position.legal_turns()}
        position = position.apply(turn)
    assert successors(position) == set()
