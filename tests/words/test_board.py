"""The board as one value: what every face shows, checked on the value itself for the key
states — a turn's steps (every bonus), the end, the AI to move, a game in a direct message."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bot.base.game import Game
from bot.i18n.catalogues import translator
from bot.words.board import Board, LastTurn, board_of
from bot.words.steps import step_choices, turn_steps
from engine import Position
from engine.builder import TurnBuilder
from engine.newgame import new_game
from engine.presses import choices
from engine.scoring import score
from rendering.translator import ENGLISH

ANA, BOB, BOT = 11, 22, 99


def game(position: Position, **changes: object) -> Game:
    """Ana (White) against Bob, at ``position``."""
    values: dict[str, object] = dict(id=7, channel_id=6, seed=1, plies=2, rated=True)
    values.update(changes)
    ana_and_bob = Game(
        white_id=ANA,
        black_id=BOB,
        white_name="Ana",
        black_name="Bob",
        mode=position.mode,
        start_position=position,
        position=position,
        version=3,
        guild_id=5,
    )
    return dataclasses.replace(ana_and_bob, **values)  # type: ignore[arg-type]


def actions(board: Board) -> list[str]:
    return [choice.action for choice in board.commands]


def test_a_fresh_game_asks_the_first_choice_of_the_player_to_move():
    """The first press: every turn it may make at once (take a colour and a count, place a
    stone on a column), all enabled; Claim and How to play under them; the player to move is
    pinged and named in the status; the small print is the position."""
    start = new_game()
    board = board_of(game(start), ENGLISH)
    assert board.phase == "turn"
    assert [c.path for c in board.options] == ["".join(path) for path in choices(start)]
    assert all(c.enabled for c in board.options)
    assert [c.label for c in board.options[:2]] == ["Take ⚪ ×1", "Take ⚫ ×1"]
    assert "Place ⚪ α A" in [c.label for c in board.options]
    assert actions(board) == ["claim", "rules"]
    assert board.pings == (ANA,)
    assert board.status.startswith(f"<@{ANA}>, your turn.") and board.prompt in board.status
    assert board.position == str(start) and board.small_print.endswith(str(start))
    assert Position.parse(board.position) == start
    assert [side.called for side in board.sides] == [f"<@{ANA}>", f"<@{BOB}>"]
    assert board.projection == "White 0 · Black 0"


def test_a_face_names_the_players_its_own_way():
    """The web names players by name: no mention anywhere in its board."""
    start = new_game()
    turn = start.legal_turns()[0]
    last = LastTurn(turn, ANA)
    named = board_of(
        game(start.apply(turn)), ENGLISH, last=last, who={ANA: "Ana", BOB: "Bob"}.__getitem__
    )
    assert named.status.startswith("Bob, your turn.")
    assert named.last_turn is not None and named.last_turn.startswith("Ana ")
    assert "<@" not in named.status + named.last_turn + "".join(s.called for s in named.sides)


def mid_game(seed: int, mode: str = "advanced") -> Position:
    """A position some random turns into a game (any seed will do)."""
    rng = random.Random(seed)
    position = new_game(mode, ornaments=5 if mode == "advanced" else 0, seed=seed)
    for _ in range(rng.randrange(4, 30)):
        turns = position.legal_turns()
        if not turns:
            break
        position = position.apply_unchecked(rng.choice(turns))
    return position


@pytest.mark.parametrize("run", range(3))
def test_every_press_of_every_turn_offers_exactly_the_legal_choices(run, seed):
    """Press after press through every legal turn of a random mid-game position (all bonuses
    and ornaments): each press offers what :func:`engine.presses.choices` allows (a press of
    one step, the step's whole domain with the impossible disabled and why, Skip where the
    bonus may be skipped), Back leads to the press before and Cancel to the start; the turns
    the presses complete are exactly the legal turns, each reached once."""
    position = mid_game(seed + run)
    assert not position.is_over()
    reached: list[str] = []
    waiting: list[tuple[str, str | None]] = [("", None)]  # a press's path, the press before
    while waiting:
        path, before = waiting.pop()
        builder = TurnBuilder(position, tuple(path))
        if builder.turn is not None:
            reached.append(str(builder.turn))
            continue
        board = board_of(game(position), ENGLISH, builder=builder)
        offered = [c for c in board.options if c.enabled]
        offered += [c for c in board.commands if c.action == "choose"]
        allowed = ["".join(choice) for choice in choices(position, tuple(path))]
        assert sorted(c.path for c in offered) == sorted(allowed)
        for choice in board.options:
            assert choice.path.startswith(path) and len(choice.path) > len(path)
            assert (choice.why_not is None) == choice.enabled
            assert choice.emphasis == ("primary" if choice.enabled else "secondary")
        back = [c.path for c in board.commands if c.action == "back"]
        assert back == ([] if before is None else [before])
        assert ("cancel" in actions(board)) == bool(path)
        assert board.prompt is not None and board.prompt in board.status
        waiting += [(choice.path, path) for choice in offered]
    assert sorted(reached) == sorted(str(turn) for turn in position.legal_turns())


def test_each_bonus_step_has_its_own_prompt():
    """Placing a stone of one's colour on each location asks that location's bonus."""
    position = Position.parse("w/b/w/b/w/b/g www bbb w -")
    prompts = {}
    for location in "ABCDEFG":
        builder = TurnBuilder(position, ("P", "w", location))
        if builder.step() is not None:
            prompts[location] = board_of(game(position), ENGLISH, builder=builder).prompt
    assert len(set(prompts.values())) == len(prompts) >= 5, prompts


def test_a_full_column_says_why_it_cannot_be_chosen():
    """A full column is disabled with the reason, where a step shows its whole domain."""
    position = Position.parse("wbwbw/-/-/-/-/-/- ww bb w -")
    builder = TurnBuilder(position, ("P", "w"))
    step = builder.step()
    assert step is not None
    options, _ = step_choices(ENGLISH, builder, step)
    full = next(choice for choice in options if choice.path == "PwA")
    assert not full.enabled and full.why_not == "That column is full."


def test_the_ai_to_move_shows_it_thinking_without_controls_or_pings():
    position = new_game()
    board = board_of(
        game(position, white_id=BOT, white_name="Tholos AI (hard)", ai_level="hard", rated=False),
        ENGLISH,
        bot_id=BOT,
    )
    assert board.phase == "ai"
    assert board.options == () and board.commands == () and board.pings == ()
    assert "thinking" in board.status
    assert actions(
        board_of(game(position, black_id=BOT, ai_level="easy"), ENGLISH, bot_id=BOT)
    ) == ["resign", "rules"]


def test_the_end_shows_the_result_the_scoring_and_the_after_game_controls(seed):
    """A game played out: the result in words, each column's scoring, Rematch/Replay/Record/
    Review, both players pinged, the final points on the sides."""
    rng = random.Random(seed)
    position = new_game()
    while turns := position.legal_turns():
        position = position.apply_unchecked(rng.choice(turns))
    white, black = score(position).totals
    over = game(position, status="finished", plies=40, outcome=score(position).outcome)
    board = board_of(over, ENGLISH)
    assert board.phase == "over" and board.options == () and board.projection is None
    assert actions(board) == ["rematch", "replay", "record", "review"]
    assert board.pings == (ANA, BOB)
    assert board.status.startswith("Game over.")
    assert board.scoring is not None and len(board.scoring.split("\n")) == 7
    assert [column.line for column in board.columns] == board.scoring.split("\n")
    assert (board.sides[0].points, board.sides[1].points) == (white, black)
    assert board.image.final


def test_an_aborted_game_without_turns_has_no_review_and_a_note():
    board = board_of(game(new_game(), status="aborted", plies=0, ended_by=1), ENGLISH)
    assert actions(board) == ["rematch", "replay", "record"]
    assert board.image.note == "Ended by an admin: no result" and board.scoring is None


def test_a_game_in_a_direct_message_speaks_the_players_language():
    """A DM game (server 0) against the AI in Spanish: Resign instead of Claim, the words in
    Spanish."""
    board = board_of(
        game(new_game(), guild_id=0, black_id=BOT, ai_level="medium", language="es"),
        translator("es"),
        bot_id=BOT,
    )
    assert actions(board) == ["resign", "rules"]
    assert board.sides[0].colour_name == "Blanco"
    assert board.title == "Tholos · Básico"
    labels = [choice.label for choice in board.options]
    assert labels[0] == "Tomar ⚪ ×1" and "Colocar ⚪ α A" in labels


def test_the_last_turn_is_told_and_highlighted():
    start = new_game()
    turn = start.legal_turns()[0]
    board = board_of(game(start.apply(turn)), ENGLISH, last=LastTurn(turn, ANA))
    assert board.last_turn is not None and board.last_turn.startswith(f"<@{ANA}>")
    assert board.image.last_turn == turn


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_the_turn_steps_lead_to_exactly_the_legal_turns(seed, mode):
    """The live board's steps: every enabled option leads to another step or completes a turn,
    the completed turns are exactly the legal turns, and every disabled option says why."""
    position = mid_game(seed, mode)
    steps = turn_steps(game(position), ENGLISH)
    if position.is_over():  # the walk ended the game: no turn, no step
        assert steps == ()
        return
    assert steps[0].path == "" and steps[0].kind == "action"
    by_path = {step.path: step for step in steps}
    assert len(by_path) == len(steps)
    completed = set()
    for step in steps:
        assert step.prompt
        for option in step.options:
            if not option.enabled:
                assert option.why_not and option.path not in by_path
            elif option.path not in by_path:
                turn = TurnBuilder(position, tuple(option.path)).turn
                assert turn is not None, option.path
                completed.add(str(turn))
    assert completed == {str(turn) for turn in position.legal_turns()}
