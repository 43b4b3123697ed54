"""The command line: every command, and bad input answered with status 2 and one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.__main__ import main

START = "-/-/-/-/-/-/- ww bb w -"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return the status, stdout and stderr."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:  # argparse exits for usage errors
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_perft(capsys):
    """perft prints the leaf count."""
    assert run(capsys, "perft", START, "2") == (0, "521\n", "")


def test_moves_are_sorted_canonical_turns(capsys):
    """moves prints one canonical turn a line, sorted."""
    status, out, _ = run(capsys, "moves", START)
    lines = out.splitlines()
    assert status == 0 and len(lines) == 20 and lines == sorted(lines)
    assert "w@F/w@A" in lines and "+g1" in lines


def test_apply_prints_the_new_position(capsys):
    """apply prints the position after the turn."""
    assert run(capsys, "apply", START, "w@D/+g") == (0, "-/-/-/w/-/-/- wg bb b -\n", "")


def test_score_prints_one_json_object(capsys):
    """score prints the documented JSON keys."""
    status, out, _ = run(capsys, "score", "wwb/bb/-/-/-/-/- w b w -")
    data = json.loads(out)
    assert status == 0
    assert data["columns"]["A"] == {**data["columns"]["A"], "winner": "w", "points": 5}
    assert data["totals"] == {"w": 5, "b": 2} and data["columns_won"] == {"w": 1, "b": 1}
    assert data["result"] == "white" and data["over"] is False


def test_random_game_is_reproducible_and_ends(capsys):
    """random-game with a seed replays the same game, ending with a result line."""
    first = run(capsys, "random-game", "--seed", "5", "--ornaments", "3")
    second = run(capsys, "random-game", "--seed", "5", "--ornaments", "3")
    assert first == second and first[0] == 0
    lines = first[1].splitlines()
    assert lines[0].startswith("start ") and lines[-2].startswith("final ")
    assert lines[-1].split()[1] in ("white", "black", "draw")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["perft", "nonsense", "2"], "5 fields"),
        (["moves", "-/-/-/-/-/-/-"], "5 fields"),
        (["perft", START, "two"], "whole number"),
        (["apply", START, "w@C/xE"], "illegal turn w@C/xE: location E is empty"),
        (["apply", START, "w@Z"], "bad turn"),
        (["score", "wwwwww/-/-/-/-/-/- - - w -"], "capacity is 5"),
        (["random-game"], "--seed"),
        (["random-game", "--seed", "1", "--ornaments", "9"], "--ornaments"),
        (["fly"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    """Bad input: status 2, nothing on stdout, a single line on stderr naming the problem."""
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_module_entry_point_runs_as_a_program():
    """``python -m engine`` works as a real process, with status 2 on bad input."""
    ok = subprocess.run(
        [sys.executable, "-m", "engine", "perft", START, "1"], capture_output=True, text=True
    )
    assert (ok.returncode, ok.stdout) == (0, "20\n")
    bad = subprocess.run(
        [sys.executable, "-m", "engine", "moves", "x"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
