"""Hints without Discord: one good turn for the player to move in a game against the AI that
allows hints — unless fair play refuses its position (:mod:`bot.fair_play`) —, searched in the
adviser's worker process and counted in the game."""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.game import Game
from bot.base.people import Caller
from bot.base.refusals import Refusal
from bot.fair_play.guard import FairPlay
from bot.features.play import OutdatedBoardError, playable
from bot.storage.games.store import GameStore
from bot.words.phrases import command
from bot.workers.ai import Adviser
from engine.hints import Hint
from engine.vocabulary import N_

NO_HINTS = N_(
    "This game has no hints: they are for games against the AI started with them on — "
    "{ai} with `hints: True`, or the first game after {learn}."
)
NOT_YOUR_TURN = N_("A hint is for your own turn: wait until it is your move.")


@dataclass(frozen=True, slots=True)
class GameHint:
    """A hint given in a game: the game as it was, the hint, how many it has had now."""

    game: Game
    hint: Hint
    used: int


class HintService:
    """Gives hints in the games that allow them."""

    def __init__(self, games: GameStore, adviser: Adviser) -> None:
        self.games = games
        self.adviser = adviser
        self.fair_play = FairPlay(games.database)

    async def hint(self, game_id: int, version: int, caller: Caller) -> GameHint:
        """A good turn for ``caller``, the player to move in ``game_id`` (at ``version``, the
        board they pressed); raises :class:`Refusal` where no hint may be given."""
        game = playable(await self.games.game(game_id), caller)
        if not game.hints:
            raise Refusal(NO_HINTS, ai=command("tholos-ai"), learn=command("tholos learn"))
        if game.version != version:
            raise OutdatedBoardError(game)
        if game.to_move != caller.user_id:
            raise Refusal(NOT_YOUR_TURN)
        await self.fair_play.check(game.position, caller.user_id, game_id=game.id)
        found = await self.adviser.hint(
            game.position, game.seed + game.plies, member=caller.user_id
        )
        used = await self.games.count_hint(game.id)
        return GameHint(game, found, used)
