"""A press on a board's step button: the next choice shown on the pressed board, or the turn
stored and its new board posted — where the bot is not, every board an answer to a press."""

from __future__ import annotations

from typing import Any

from bot.base.game import Game
from bot.discord import layout
from bot.discord.answers import USERS_ONLY, Interaction, caller
from bot.discord.app import App
from bot.discord.controls import rows_view
from bot.features.play.opponent import Opponent
from bot.features.play.service import OutdatedBoardError, PlayService, StepShown, TimeUp
from bot.i18n.locales import reader
from bot.words.board import LastTurn, board_of
from bot.words.names import mention
from rendering.describe import turn_text


class Presses:
    """The presses on boards' step buttons, and what they show."""

    def __init__(self, app: App, service: PlayService, opponent: Opponent) -> None:
        self.app = app
        self.service = service
        self.opponent = opponent

    async def step(self, interaction: Interaction, game: int, version: int, path: str) -> None:
        """A press on a board's step button: show the next choice, or store the turn; after
        the player's clock ran out, the game ends on time instead; on an old board where the
        bot is not, show what it missed (:meth:`catch_up`)."""
        t = reader(interaction)  # the one pressing is the one playing: their language
        try:
            result = await self.service.choose(game, version, path, caller(interaction))
        except OutdatedBoardError as outdated:
            if not outdated.game.answers_only:
                raise
            await self.catch_up(interaction, outdated)
            return
        except TimeUp as up:
            last = await self.app.poster.last_turn(up.game)
            await self.show_change(interaction, up.game, last, t(up.message, **up.values))
            return
        if isinstance(result, StepShown):
            board = board_of(
                result.game,
                t,
                builder=result.builder,
                bot_id=self.app.bot_id,
                live=self.app.poster.messages.live,
            )
            await edit_pressed_board(interaction, layout.status_text(board), layout.rows(board))
            return
        last = LastTurn(result.turn, interaction.user.id)
        played = turn_text(last.turn, mention(last.player_id), t)
        await self.show_change(interaction, result.game, last, t("Played: {turn}", turn=played))

    async def show_change(
        self,
        interaction: Interaction,
        game: Game,
        last: LastTurn | None,
        status: str,
        *,
        leased: bool = True,
    ) -> None:
        """Answer a press that changed ``game`` (its board's lease taken with the change,
        unless not ``leased``): the pressed board shows ``status`` without its controls, the
        new board follows, and the AI moves if it is to. Where the bot is not, the pressed
        board keeps its controls until the new boards — the AI's turn too — are out: a crash
        meanwhile leaves a board whose press shows what is missing (:meth:`catch_up`)."""
        pressed = interaction.message.id if interaction.message else None
        poster = self.app.poster
        if not game.answers_only:
            await edit_pressed_board(interaction, status, [])
            await poster.post_after_change(interaction, game, last, stripped=pressed, leased=leased)
            self.opponent.schedule(game)
            return
        await interaction.response.defer()
        shown = not game.needs_a_board or await poster.post_after_change(
            interaction, game, last, stripped=pressed, leased=leased
        )
        if shown and await self.opponent.answer(interaction, game):
            await edit_pressed_board(interaction, status, [])

    async def catch_up(self, interaction: Interaction, outdated: OutdatedBoardError) -> None:
        """A press on an old board of a game whose boards are answers (the bot is not where it
        is played): when the game moved on without a board there — a restart, a turn on the
        live board, a clock — or waits for the AI, this press shows it (the old board's
        controls removed, the current board its answer); else it is refused as outdated."""
        game = outdated.game
        if not (game.needs_a_board or game.is_ai_turn(self.app.bot_id)):
            raise outdated
        last = await self.app.poster.last_turn(game)
        t = reader(interaction)
        status = t("The game went on — here it is now.")
        await self.show_change(interaction, game, last, status, leased=False)


async def edit_pressed_board(interaction: Interaction, status: str, rows: list[layout.Row]) -> None:
    """Answer a press by showing ``status`` and ``rows`` on the pressed board (its layout
    kept; a board posted before layouts keeps its embed), as the response or, once deferred,
    with the press's token."""
    assert interaction.message is not None  # a press comes from a message
    look = layout.BoardLook.of(interaction.message)
    if look is None:
        changes: dict[str, Any] = {"content": status, "view": rows_view(rows)}
    else:
        changes = {"view": look.layout(rows, status=status)}
    if interaction.response.is_done():  # deferred: the pressed message is the original
        await interaction.edit_original_response(**changes, allowed_mentions=USERS_ONLY)
    else:
        await interaction.response.edit_message(**changes, allowed_mentions=USERS_ONLY)
