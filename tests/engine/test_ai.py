"""Computer players and the arena: legal turns, decisive turns, reproducibility, statistics."""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import subprocess
import sys

import pytest

from engine import Position
from engine.__main__ import main
from engine.ai import (
    LEVEL_RATINGS,
    LEVELS,
    PLAYERS,
    Budget,
    GreedyPlayer,
    SearchPlayer,
    Settings,
    _gain,
    _Solver,
    choose_turn,
    level_for_rating,
    make_player,
)
from engine.arena import elo_of, elo_text, play_game, run_arena, summarise, wilson
from engine.scoring import score
from tests.engine.helpers import random_endgame, random_reachable

SMALL = Budget(iterations=40)
"""A budget small enough for fast tests, big enough to exercise the tree."""


def small_player(name: str):
    """The player ``name``, with a small iteration budget for the search levels."""
    return make_player(name, SMALL if name in LEVELS else None)


# -- legal turns --------------------------------------------------------------------------------

POSITIONS = [random_reachable(seed, plies, seed % 6) for seed, plies in enumerate(range(0, 60, 3))]


@pytest.mark.parametrize("name", PLAYERS)
def test_every_player_chooses_a_legal_turn(name):
    """In basic and advanced positions of every stage, each player's turn is legal."""
    player = small_player(name)
    for seed, position in enumerate(POSITIONS):
        if position.is_over():
            continue
        assert player.choose(position, seed) in position.legal_turns(), str(position)


@pytest.mark.parametrize("ornaments", [0, 5])
def test_whole_games_are_legal_to_the_end(ornaments):
    """Search against greedy plays checked turns (``apply``) until the temple is full."""
    for index in range(2):
        record = play_game(
            small_player("easy"), GreedyPlayer(), seed=3, index=index, ornaments=ornaments
        )
        assert record.final.is_over()
        assert record.final.mode == ("advanced" if ornaments else "basic")
        assert record.a_times and record.b_times


def test_a_finished_game_has_no_turn_to_choose():
    """Asking for a turn after the end is an error, for every player."""
    final = Position.parse("bbbwg/bbwwg/wbgbg/bwbwg/wwbgg/wwbgg/wwbbw g b b -")
    for name in PLAYERS:
        with pytest.raises(ValueError, match="game is over"):
            small_player(name).choose(final, 1)


# -- decisive turns -----------------------------------------------------------------------------

DECISIVE = [
    # White's last placement wins G (+9) and the game; gray ties G and loses 2 to 5.
    ("bbbwg/bbwwg/wbgbg/bwbwg/wwbgg/wwbgg/wwbb wg b w -", "w@G"),
    # The same temple with minority on G: White must place Black's stone to win G.
    ("bbbwg/bbwwg/wbgbg/bwbwg/wwbgg/wwbgg/wwbb wb b w G=minority", "b@G"),
    # Two places left: only F's extra placement fills both in one turn and wins.
    ("bbbwg/bbwwg/wbgbg/bwbwg/wwbgg/wwbg/wwbb ww bg w -", "w@F/w@G"),
    # Black to move, colours swapped.
    ("wwwbg/wwbbg/bwgwg/bwbwg/bbwgg/bbwgg/bbww b bg b -", "b@G"),
]


def _winning_turns(position: Position) -> set[str]:
    """The turns that end the game with a win for the side to move."""
    winner = "white" if position.turn == 0 else "black"
    return {
        str(turn)
        for turn in position.legal_turns()
        if (child := position.apply(turn)).is_over() and score(child).outcome.result == winner
    }


@pytest.mark.parametrize(("text", "winning"), DECISIVE)
def test_every_level_finds_the_one_winning_turn(text, winning):
    """Where exactly one turn wins at once, every level (and greedy) plays it."""
    position = Position.parse(text)
    assert _winning_turns(position) == {winning}
    assert len(position.legal_turns()) > 2
    for name in (*LEVELS, "greedy"):
        for seed in range(3):
            assert str(choose_turn(position, name, seed=seed)) == winning


def _solve(position: Position, memo: dict[Position, float]) -> float:
    """The exact result for the side to move (1 win, 0.5 draw, 0 loss), by full search."""
    if position not in memo:
        if position.is_over():
            winner = score(position).outcome.winner
            memo[position] = 0.5 if winner is None else float(winner == position.turn)
        else:
            memo[position] = max(
                1.0 - _solve(position.apply(turn), memo) for turn in position.legal_turns()
            )
    return memo[position]


def test_every_level_finds_a_win_two_turns_deep():
    """Three places left: only w@G (with or without its move) wins against every defence."""
    position = Position.parse("bbbwg/bbwwg/wbgbg/bwbwg/wwbg/wbgb/wwbb wg b w -")
    memo: dict[Position, float] = {}
    winning = {
        str(turn) for turn in position.legal_turns() if _solve(position.apply(turn), memo) == 0.0
    }
    assert winning == {"w@G", "w@G/F>E"} and len(position.legal_turns()) == 12
    for name in LEVELS:
        for seed in range(3):
            assert str(choose_turn(position, name, seed=seed, budget=SMALL)) in winning


def test_the_tree_search_alone_finds_the_decisive_turns():
    """Without the endgame solver, the tree search still finds every decisive turn above."""
    tree_only = Settings(solve_places=0)
    for text, winning in DECISIVE:
        position = Position.parse(text)
        for seed in range(3):
            assert str(SearchPlayer("tree", SMALL, tree_only).choose(position, seed)) == winning


def test_the_solver_agrees_with_a_full_search():
    """On random endgames with three places left, the solver's result is exact and its turn
    achieves it."""
    solved = 0
    for seed in range(30):
        position = random_endgame(seed, 3, seed % 4)
        if position.is_over():
            continue
        memo: dict[Position, float] = {}
        exact = _solve(position, memo)
        found = _Solver(limit=100_000, deadline=None).best(position)
        assert found is not None, str(position)
        value, turn = found
        assert value == exact, str(position)
        assert 1.0 - _solve(position.apply(turn), memo) == exact, str(position)
        solved += 1
    assert solved >= 25


def test_the_solver_gives_up_at_its_limits():
    """Out of nodes or time, the solver answers ``None`` and the search still plays legally."""
    position = random_endgame(8, 5, 0)  # solved in about 12,000 nodes
    assert _Solver(limit=10_000, deadline=None).best(position) is None
    assert _Solver(limit=10**6, deadline=0.0).best(position) is None
    for name in LEVELS:
        turn = choose_turn(position, name, seed=1, budget=Budget(iterations=50, seconds=1e-9))
        assert turn in position.legal_turns()


def test_every_level_finds_the_win_that_greedy_misses():
    """Black wins only with +b1, b@E or w@C; greedy's b@C/xB scores at once but loses. Every
    level finds a win, and so does its tree search without the endgame solver."""
    position = Position.parse("gbgbb/wwbbw/bgg/wbbgb/gwwb/wwggg/wgbbb - wb b -")
    memo: dict[Position, float] = {}
    winning = {
        str(turn) for turn in position.legal_turns() if _solve(position.apply(turn), memo) == 0.0
    }
    assert winning == {"+b1", "b@E", "w@C"} and len(position.legal_turns()) == 12
    assert str(GreedyPlayer().choose(position, 1)) not in winning
    tree_only = Settings(solve_places=0)
    for name, budget in LEVELS.items():
        uncapped = dataclasses.replace(budget, seconds=None)
        for seed in range(3):
            assert str(choose_turn(position, name, seed=seed, budget=uncapped)) in winning
            assert str(SearchPlayer(name, uncapped, tree_only).choose(position, seed)) in winning


# -- reproducibility ----------------------------------------------------------------------------


def test_same_seed_and_iterations_give_the_same_turn():
    """The iteration budget and the seed fix the turn, in every stage of the game."""
    budget = Budget(iterations=150)
    for seed, position in enumerate(POSITIONS[:12]):
        if position.is_over():
            continue
        first = choose_turn(position, "hard", seed=seed, budget=budget)
        assert choose_turn(position, "hard", seed=seed, budget=budget) == first
        assert SearchPlayer("again", budget).choose(position, seed) == first


def test_the_turn_does_not_depend_on_hash_randomisation():
    """Two interpreters with different hash seeds choose the same turn."""
    code = (
        "from engine.ai import Budget, choose_turn; "
        "from tests.engine.helpers import random_reachable; "
        "print(choose_turn(random_reachable(5, 24, 3), 'medium', seed=9, "
        "budget=Budget(iterations=200)))"
    )
    answers = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        answers.add(run.stdout.strip())
    assert len(answers) == 1 and answers.pop()


def test_budgets_and_names_are_checked():
    """Bad budgets and unknown players are ValueErrors."""
    with pytest.raises(ValueError, match="iterations"):
        Budget(iterations=0)
    with pytest.raises(ValueError, match="solver_nodes"):
        Budget(iterations=10, solver_nodes=0)
    with pytest.raises(ValueError, match="time cap"):
        Budget(iterations=10, seconds=0)
    with pytest.raises(ValueError, match="unknown player"):
        make_player("grandmaster")
    with pytest.raises(ValueError, match="no budget"):
        make_player("greedy", SMALL)


# -- the prior's arithmetic ---------------------------------------------------------------------


def test_gain_is_the_change_of_the_score_difference():
    """A turn's gain equals the change of White's lead that full scoring reports."""

    def lead(position: Position) -> int:
        white, black = score(position).totals
        return white - black

    for seed in range(40):
        position = random_reachable(seed, seed * 7 % 70, seed % 6)
        for turn in position.legal_turns():
            after = position.apply(turn)
            assert _gain(position, turn) == lead(after) - lead(position), (str(position), turn)


# -- strength -----------------------------------------------------------------------------------


LOSS_RATE = {"greedy": 0.0133, "easy": 0.012}
"""Upper 95% bounds of each player's rate of losing to random play: greedy lost 39 of 4,000
games (Wilson interval), the small-budget search 0 of 300 (rule of three): measured with
``play_game`` over seeds 5000… and 1000…"""
MATCH = {"greedy": 40, "easy": 16}
"""Games per match: greedy plays in 2 ms a game, the search in about 150 ms."""
RISK = 1e-6
"""The chance that a player as strong as measured fails the test."""


def least_wins(games: int, loss_rate: float, risk: float = RISK) -> int:
    """The most wins of ``games`` that a player losing at ``loss_rate`` falls short of only with
    a chance below ``risk``."""
    for wins in range(games, -1, -1):
        shortfall = sum(  # the chance of more than games - wins losses
            math.comb(games, losses) * loss_rate**losses * (1 - loss_rate) ** (games - losses)
            for losses in range(games - wins + 1, games + 1)
        )
        if shortfall < risk:
            return wins
    return 0


@pytest.mark.parametrize("name", ["greedy", "easy"])
def test_search_and_greedy_beat_random_play(name, seed):
    """Greedy and even a small search budget beat random play: in a match from any seed they
    win at least what their measured strength guarantees but for a one-in-a-million chance —
    34 of 40 for greedy, 12 of 16 for the search, which a coin flip would reach with a chance
    of 1 in 240,000 and 1 in 26."""
    games, needed = MATCH[name], least_wins(MATCH[name], LOSS_RATE[name])
    records = [
        play_game(small_player(name), make_player("random"), seed=seed, index=index)
        for index in range(games)
    ]
    wins = sum(record.result == 1.0 for record in records)
    assert wins >= needed, f"{name} won {wins} of {games} against random play"


# -- the arena ----------------------------------------------------------------------------------


def test_wilson_interval():
    """Known values of the Wilson interval; it stays inside [0, 1]."""
    low, high = wilson(0.9, 200)
    assert (round(low, 4), round(high, 4)) == (0.8506, 0.9343)
    assert wilson(1.0, 10)[1] == 1.0 and wilson(0.0, 10)[0] == 0.0


def test_arena_alternates_colours_and_summarises(seed):
    """A's colour alternates; paired games share the ornaments; the summary adds up."""
    records = run_arena("greedy", "random", games=4, seed=seed, ornaments=3)
    assert [record.a_white for record in records] == [True, False, True, False]
    assert records[0].final.ornaments == records[1].final.ornaments
    assert records[0].final.ornaments != records[2].final.ornaments
    summary = summarise(records)
    results = [record.result for record in records]
    assert (summary.wins, summary.losses, summary.draws) == (
        results.count(1.0),
        results.count(0.0),
        results.count(0.5),
    )
    assert summary.rate == sum(results) / 4
    assert (summary.low, summary.high) == wilson(summary.rate, 4)
    a_times = sorted(time for record in records for time in record.a_times)
    assert summary.a_mean == pytest.approx(sum(a_times) / len(a_times))
    assert summary.a_p95 == a_times[math.ceil(0.95 * len(a_times)) - 1]


def test_arena_command_prints_the_results(capsys, seed):
    """The CLI's arena prints the wins, the score rate with its interval and the move times of
    the same games as ``run_arena`` with that seed."""
    status = main(["arena", "--a", "random", "--b", "greedy", "--games", "2", "--seed", str(seed)])
    out, err = capsys.readouterr()
    expected = summarise(run_arena("random", "greedy", games=2, seed=seed))
    assert status == 0
    assert f"A: {expected.wins} wins, {expected.losses} losses, {expected.draws} draws" in out
    assert (
        f"score rate: {expected.rate:.1%} (95% CI {expected.low:.1%} to {expected.high:.1%}, "
        "Wilson)"
    ) in out
    assert f"A's Elo difference: {elo_text(elo_of(expected))}" in out
    assert "time per move, A (random): mean" in out and "p95" in out
    assert err.startswith("arena: 2/2 games")


@pytest.mark.parametrize(
    "argv",
    [
        ["--a", "hard", "--b", "nobody", "--games", "2", "--seed", "1"],
        ["--a", "hard", "--b", "easy", "--games", "0", "--seed", "1"],
        ["--a", "hard", "--b", "easy", "--games", "2"],
        ["--a", "hard", "--b", "easy", "--games", "2", "--seed", "1", "--ornaments", "6"],
    ],
)
def test_arena_rejects_bad_arguments(capsys, argv):
    """Bad arguments exit with status 2 and one line on stderr."""
    with pytest.raises(SystemExit) as exit_:
        main(["arena", *argv])
    _, err = capsys.readouterr()
    assert exit_.value.code == 2 and err.count("\n") == 1


# -- the levels' ratings ------------------------------------------------------------------------


def test_every_level_has_a_rating_that_grows_with_its_budget():
    """The levels on the members' scale (measured by benchmarks/ai_levels.py): one rating per
    search level, a bigger budget a higher rating."""
    assert list(LEVEL_RATINGS) == list(LEVELS)
    by_budget = sorted(LEVELS, key=lambda level: LEVELS[level].iterations)
    assert [LEVEL_RATINGS[level] for level in by_budget] == sorted(LEVEL_RATINGS.values())


def test_level_for_rating_is_the_nearest_level_and_the_weaker_on_a_tie():
    ratings = sorted(LEVEL_RATINGS.items(), key=lambda item: item[1])
    for level, rating in ratings:
        assert level_for_rating(rating) == level
    assert level_for_rating(0) == ratings[0][0]
    assert level_for_rating(5000) == ratings[-1][0]
    for (weaker, low), (stronger, high) in itertools.pairwise(ratings):
        assert level_for_rating((low + high) / 2) == weaker
        assert level_for_rating((low + high) / 2 + 1) == stronger
