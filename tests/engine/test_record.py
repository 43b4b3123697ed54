"""The game record: written, read back and checked turn by turn; ``python -m engine replay``."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys

import pytest

from engine.newgame import new_game
from engine.play import random_game
from engine.record import TAG_LENGTH, GameRecord, RecordError, read_record, write_record
from engine.scoring import score


def finished(seed: int, mode: str = "basic") -> GameRecord:
    """A complete random game as a record, its result from the final score."""
    start = new_game(mode, ornaments=3 if mode == "advanced" else 0, seed=seed)
    game = random_game(start, random.Random(seed))
    outcome = score(game.final).outcome
    assert outcome is not None
    result = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[outcome.winner]
    return GameRecord(
        'Ana "the Bold"',
        "Bob",
        "2026-11-24T10:00:00+00:00",
        mode,
        seed,
        start,
        tuple(game.turns),
        outcome.reason,
        result,
    )


@pytest.mark.parametrize("seed", range(12))
def test_complete_games_round_trip(seed: int):
    record = finished(seed, "advanced" if seed % 2 else "basic")
    assert read_record(write_record(record)) == record


def test_unfinished_resigned_and_aborted_games_round_trip():
    start = new_game()
    turns = tuple(random_game(start, random.Random(3)).turns[:9])
    for termination, result in (("resignation", "0-1"), ("aborted", "*"), ("unfinished", "*")):
        record = GameRecord(
            "Ana", "Bob", "2026-11-24", "basic", None, start, turns, termination, result
        )
        assert read_record(write_record(record)) == record


def test_a_tournament_game_names_its_event_and_round():
    record = dataclasses.replace(finished(5), event='Delphi "Open"', round=3)
    text = write_record(record)
    assert '[Event "Delphi \\"Open\\""]' in text and '[Round "3"]' in text
    assert read_record(text) == record
    assert read_record(write_record(finished(5))).event is None


def test_comments_and_windows_line_endings_are_fine():
    text = "# kept by a player\r\n" + write_record(finished(5)).replace("\n", "\r\n")
    assert read_record(text) == finished(5)


def broken(replace: tuple[str, str], seed: int = 4) -> tuple[str, int]:
    """A valid record with one replacement, and the 1-based line where it happened."""
    text = write_record(finished(seed))
    old, new = replace
    index = text.index(old)
    return text[:index] + new + text[index + len(old) :], text[:index].count("\n") + 1


def turn_line(seed: int, ply: int) -> str:
    return next(
        line for line in write_record(finished(seed)).splitlines() if line.startswith(f"{ply}. ")
    )


@pytest.mark.parametrize(
    "why",
    ["an illegal turn", "a wrong position after a turn", "a missing tag", "a wrong result"],
)
def test_an_invalid_record_names_its_first_bad_line(why: str):
    line = turn_line(4, 3)
    if why == "an illegal turn":
        text, number = broken((line, "3. +g9" + line[line.index("  ") :]))
    elif why == "a wrong position after a turn":
        text, number = broken((line, line[: line.index("  ")] + "  -/-/-/-/-/-/- ww bb w -"))
    elif why == "a missing tag":
        text, _ = broken(('[Start "', '[Begin "'))
        number = text.splitlines().index("1. " + turn_line(4, 1)[3:]) + 1
    else:
        record = finished(4)
        wrong = {"1-0": "0-1"}.get(record.result, "1-0")
        text, number = broken((f'[Result "{record.result}"]', f'[Result "{wrong}"]'))
        text = text.replace(f"\n{record.result} (", f"\n{wrong} (")  # the last line agrees
    with pytest.raises(RecordError) as caught:
        read_record(text)
    assert caught.value.line == number
    assert str(caught.value).startswith(f"line {number}: ")


def replay(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_replay_command_prints_the_final_position_and_score():
    record = finished(7, "advanced")
    done = replay(write_record(record))
    assert done.returncode == 0, done.stderr
    final = record.positions()[-1]
    assert done.stdout.splitlines()[0] == str(final)
    assert '"points"' in done.stdout.splitlines()[1] or "{" in done.stdout.splitlines()[1]


def test_the_replay_command_exits_2_with_the_bad_line():
    line = turn_line(4, 2)
    text, number = broken((line, "2. +g9" + line[line.index("  ") :]))
    done = replay(text)
    assert done.returncode == 2 and done.stdout == ""
    assert f'line {number}: "2. +g9' in done.stderr


def test_a_missing_file_exits_2():
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "/nonexistent/game.txt"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_runs_of_white_space_read_as_single_spaces():
    """A record whose turn lines are padded with long runs of spaces (and tabs) reads as the
    same game: the reader splits on white space in one pass (a regex with a lazy group and a
    trailing ``\\s*`` took time quadratic in such a run)."""
    record = finished(4)
    lines = write_record(record).splitlines()
    padded = [
        line.replace("  ", " \t" + " " * 5000, 1) + " " * 5000 if line[:1].isdigit() else line
        for line in lines
    ]
    assert read_record("\n".join(padded)) == record


def test_a_clock_comment_after_a_run_of_spaces_is_read():
    record = dataclasses.replace(
        finished(2), time_control="180+2", clocks=tuple(range(100, 100 + len(finished(2).turns)))
    )
    text = write_record(record).replace("  {[%clk", " " * 3000 + "{[%clk")
    assert read_record(text) == record


def test_a_tag_longer_than_the_bound_is_refused_with_its_line():
    text = write_record(finished(1)).replace('[White "Ana', '[White "' + "A" * TAG_LENGTH, 1)
    with pytest.raises(RecordError, match=f"at most {TAG_LENGTH} characters") as refused:
        read_record(text)
    assert refused.value.line == 2
    assert len(str(refused.value)) < 200  # the message names the line, not all of it


@pytest.mark.parametrize("ply", ["9" * 7, "1" * 5000])
def test_a_ply_of_too_many_digits_is_not_a_turn(ply: str):
    """A ply is a small number: thousands of digits are refused as a line that is no turn
    (not by Python's limit on converting long digit strings)."""
    lines = write_record(finished(1)).splitlines()
    first_turn = next(i for i, line in enumerate(lines) if line.startswith("1. "))
    lines[first_turn] = ply + lines[first_turn][1:]
    with pytest.raises(RecordError, match="expected a turn") as refused:
        read_record("\n".join(lines))
    assert refused.value.line == first_turn + 1


@pytest.mark.parametrize("brk", ["\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_a_name_with_any_line_break_stays_on_its_tag_line(brk: str):
    """Every character that ends a line for ``str.splitlines`` is written as a space."""
    record = dataclasses.replace(finished(3), white=f'Ana{brk}[Result "0-1"]{brk}')
    read = read_record(write_record(record))
    assert read.white == 'Ana [Result "0-1"] '
    assert read.result == record.result
