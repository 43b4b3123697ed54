"""Puzzles: the generator checked against a plain minimax of its own (no pruning, no table) on
small endgames from random games, the file format, and a self-play puzzle re-proven."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache

from engine.__main__ import main
from engine.newgame import new_game
from engine.play import random_game
from engine.position import Position
from engine.puzzles import (
    DRAW,
    LOSS,
    MIN_CHOICES,
    WIN,
    Puzzle,
    puzzle_in,
    self_play_puzzles,
    verify,
)


@cache
def plain_value(position: Position) -> float:
    """The result for the side to move by plain minimax over every turn to the end."""
    outcome = position.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return DRAW
        return WIN if outcome.winner == position.turn else LOSS
    return max(1.0 - plain_value(position.apply(turn)) for turn in position.legal_turns())


def endgames(rng: random.Random, places: int) -> Iterator[Position]:
    """Positions with at most ``places`` places left and a choice, from random games."""
    while True:
        mode = rng.choice(("basic", "advanced"))
        start = new_game(
            mode,
            ornaments=rng.randint(1, 5) if mode == "advanced" else 0,
            seed=rng.randrange(2**31),
        )
        position = start
        for turn in random_game(start, rng).turns:
            if 1 <= position.places_left() <= places and len(position.legal_turns()) > 1:
                yield position
                break
            position = position.apply(turn)


def found_puzzles(seed: int) -> list[Puzzle]:
    """Three puzzles of random endgames (the generator's own word)."""
    found = []
    for position in endgames(random.Random(seed), places=3):
        puzzle = puzzle_in(position, "endgame")
        found += [puzzle] if puzzle is not None else []
        if len(found) == 3:
            return found
    raise AssertionError("unreachable: endgames() never ends")


def test_a_puzzle_is_exactly_a_unique_best_turn_by_plain_minimax(seed: int):
    """Endgames with at most 2 places left (plain minimax finishes there), until three are
    puzzles: each is a puzzle exactly when one turn alone keeps the best result, and then the
    generator names that turn, both results and the choices; its file line round-trips, and
    another answer fails verification."""
    found: list[Puzzle] = []
    for checked, position in enumerate(endgames(random.Random(seed), places=2), start=1):
        assert checked <= 1000, "fewer than 3 puzzles in 1,000 endgames"
        values = {turn: 1.0 - plain_value(position.apply(turn)) for turn in position.legal_turns()}
        best = max(values.values())
        unique = [turn for turn, value in values.items() if value == best]
        puzzle = puzzle_in(position, f"endgame {checked}")
        if best > LOSS and len(unique) == 1 and len(values) >= MIN_CHOICES:
            assert puzzle is not None, position
            assert (puzzle.answer, puzzle.best) == (unique[0], best)
            assert puzzle.alternative == max(v for t, v in values.items() if t != unique[0])
            assert puzzle.difficulty == len(values) and verify(puzzle)
            found.append(puzzle)
        else:
            assert puzzle is None, f"{position}: {values}"
        if len(found) == 3:
            break
    print(f"3 puzzles in {checked} endgames")
    for puzzle in found:
        again = Puzzle.from_json(puzzle.to_json())
        assert again == puzzle and verify(again)
        other = next(turn for turn in puzzle.position.legal_turns() if turn != puzzle.answer)
        assert not verify(
            Puzzle(
                puzzle.position,
                other,
                puzzle.best,
                puzzle.alternative,
                puzzle.source,
                puzzle.difficulty,
            )
        )


def test_self_play_yields_at_most_one_proven_puzzle_a_game(seed: int):
    rng = random.Random(seed)
    for game in (rng.randrange(10**6) for _ in range(3)):
        puzzles = list(self_play_puzzles(game, late=3))
        assert len(puzzles) <= 1
        for puzzle in puzzles:
            assert puzzle.source.startswith(f"self-play {game}, ply ")
            assert puzzle.position.places_left() <= 3 and verify(puzzle)


def test_the_command_line_appends_goes_on_and_verifies(tmp_path, capsys, seed: int):
    path = tmp_path / "puzzles.jsonl"
    first = random.Random(seed).randrange(10**6)
    capsys.readouterr()  # (the seed's line)
    assert (
        main(["puzzles", str(path), "--games", "4", "--first-seed", str(first), "--late", "3"]) == 0
    )
    made = path.read_text().splitlines() if path.exists() else []
    assert capsys.readouterr().out.startswith(f"{len(made)} new puzzles in 4 games")
    assert main(["puzzles", str(path), "--verify"]) == 0
    assert capsys.readouterr().out == f"{len(made)} of {len(made)} puzzles proven; wrong: none\n"
    for line in made:
        assert int(Puzzle.from_json(line).source.split()[1].rstrip(",")) in range(first, first + 4)
    (puzzle,) = [p for p in found_puzzles(seed)][:1]
    other = next(turn for turn in puzzle.position.legal_turns() if turn != puzzle.answer)
    wrong = Puzzle(
        puzzle.position,
        other,
        puzzle.best,
        puzzle.alternative,
        "self-play 1, ply 1",
        puzzle.difficulty,
    )
    path.write_text("\n".join([*made, wrong.to_json()]) + "\n")
    assert main(["puzzles", str(path), "--verify"]) == 2
    assert f"wrong: {len(made) + 1}" in capsys.readouterr().out
