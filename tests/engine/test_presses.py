"""A turn in fewer presses: the choices of the presses are a partition of the legal turns — from
random positions of random games, every legal turn is reached by exactly one sequence of
presses, and every sequence of presses ends in a legal turn (the step trie walked press by
press, checked against ``Position.legal_turns``)."""

from __future__ import annotations

import random

from engine import Position
from engine.builder import SKIP, TurnBuilder, turn_path
from engine.newgame import new_game
from engine.play import random_game
from engine.presses import MOST_CHOICES, choices, presses


def positions(rng: random.Random, games: int) -> list[Position]:
    """Every position (not over) of ``games`` random games, basic and advanced."""
    found = []
    for _ in range(games):
        mode = rng.choice(("basic", "advanced"))
        ornaments = rng.randint(1, 5) if mode == "advanced" else 0
        start = new_game(mode, ornaments=ornaments, seed=rng.randrange(2**31))
        position = start
        for turn in random_game(start, rng).turns:
            found.append(position)
            position = position.apply(turn)
    return found


def every_sequence(position: Position) -> list[tuple[tuple[str, ...], ...]]:
    """Every sequence of presses from the start to a whole turn."""
    done, waiting = [], [((), ())]
    while waiting:
        path, sequence = waiting.pop()
        for choice in choices(position, path):
            assert choice[: len(path)] == path and len(choice) > len(path)
            if TurnBuilder(position, choice).turn is not None:
                done.append((*sequence, choice))
            else:
                waiting.append((choice, (*sequence, choice)))
    return done


def test_every_legal_turn_is_reached_by_exactly_one_sequence_of_presses(seed: int):
    rng = random.Random(seed)
    for position in rng.sample(positions(rng, 6), 60):
        sequences = every_sequence(position)
        reached = [TurnBuilder(position, sequence[-1]).turn for sequence in sequences]
        legal = position.legal_turns()
        assert sorted(map(str, reached)) == sorted(map(str, legal)), position
        for sequence in sequences:
            assert presses(position, sequence[-1]) == sequence, "found again from its end"
            for before in ((), *sequence[:-1]):
                assert len(choices(position, before)) <= MOST_CHOICES


def test_fewer_presses_than_steps_on_average(seed: int):
    """Over random games' turns, the presses a turn takes, against one step a token."""
    rng = random.Random(seed)
    steps = pressed = 0
    for position in positions(rng, 4):
        turn = rng.choice(position.legal_turns())
        path = turn_path(position, turn)
        if TurnBuilder(position, path).turn is None:
            path = (*path, SKIP)
        steps += len(path)
        pressed += len(presses(position, path))
    assert pressed <= 0.6 * steps, (pressed, steps)
