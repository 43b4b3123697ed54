"""Hints without Discord (``bot.features.hints.service``): a good turn for the player to move
in a game against the AI that allows hints, asked of the adviser with the game's seed and
counted; refused, with nothing counted, in a game without hints, on an old board, or on the
opponent's turn."""

from __future__ import annotations

import pytest

from bot.base.game import Game, GamePlace, NewGame
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.features.hints.service import NO_HINTS, NOT_YOUR_TURN, HintService
from bot.features.play import OutdatedBoardError
from bot.storage.db import Database
from bot.storage.games.store import GameStore
from engine import Position
from engine.hints import Hint
from engine.newgame import new_game

CAROL, AI, GUILD, CHANNEL, NOW = 3, 9, 1, 40, 1_000_000.0


class Adviser:
    """Stands in for the hints' worker process: the first legal turn, and who asked what."""

    def __init__(self) -> None:
        self.asked: list[tuple[Position, int, int]] = []

    async def hint(self, position: Position, seed: int, *, member: int) -> Hint:
        self.asked.append((position, seed, member))
        return Hint(position.legal_turns()[0], 0.5, exact=False, gain=0)


async def ai_game(
    database: Database, *, hints: bool, carol_first: bool = True, channel: int = CHANNEL
) -> Game:
    """Carol's game against the AI in ``channel``, hints allowed or not; she moves first unless
    not."""
    carol, ai = Person(CAROL, "Carol"), Person(AI, "AI")
    white, black = (carol, ai) if carol_first else (ai, carol)
    new = NewGame(
        GamePlace(GUILD, channel),
        white,
        black,
        7,
        new_game(),
        ai_level="easy",
        ai_id=AI,
        hints=hints,
    )
    return await GameStore(database).create_ai_game(new, now=NOW)


def hints_over(database: Database) -> tuple[HintService, Adviser]:
    adviser = Adviser()
    return HintService(GameStore(database), adviser), adviser  # type: ignore[arg-type]


async def test_a_hint_is_the_adviser_s_turn_for_the_player_to_move_and_is_counted(database):
    game = await ai_game(database, hints=True)
    service, adviser = hints_over(database)
    for asked in (1, 2):
        given = await service.hint(game.id, game.version, Caller(CAROL, CHANNEL))
        assert given.game.id == game.id and given.used == asked
        assert given.hint.turn == game.position.legal_turns()[0]
    assert adviser.asked == [(game.position, game.seed + game.plies, CAROL)] * 2
    stored = await GameStore(database).game(game.id)
    assert stored is not None and stored.hints_used == 2


async def test_a_game_without_hints_gives_none(database):
    game = await ai_game(database, hints=False)
    service, adviser = hints_over(database)
    with pytest.raises(Refusal) as refusal:
        await service.hint(game.id, game.version, Caller(CAROL, CHANNEL))
    assert refusal.value.message == NO_HINTS
    assert adviser.asked == []


async def test_an_old_board_and_the_opponent_s_turn_are_refused_and_nothing_counted(database):
    service, adviser = hints_over(database)
    game = await ai_game(database, hints=True)
    with pytest.raises(OutdatedBoardError):
        await service.hint(game.id, game.version - 1, Caller(CAROL, CHANNEL))
    ai_first = await ai_game(database, hints=True, carol_first=False, channel=CHANNEL + 1)
    with pytest.raises(Refusal) as refusal:
        await service.hint(ai_first.id, ai_first.version, Caller(CAROL, CHANNEL + 1))
    assert refusal.value.message == NOT_YOUR_TURN
    assert adviser.asked == []
    for stored in (game, ai_first):
        now = await GameStore(database).game(stored.id)
        assert now is not None and now.hints_used == 0
