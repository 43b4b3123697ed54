"""The turn: a press on a board's buttons builds it one choice at a time; ``/tholos board``,
``resign``, ``claim`` and ``rules``."""

from __future__ import annotations

from discord import app_commands

from engine.vocabulary import N_

from ..answers import USERS_ONLY, Interaction, answers, tell
from ..app import App, Feature, feature_of
from ..boards import LastTurn
from ..commands import tholos
from ..controls import (
    BoardLook,
    ClaimButton,
    GiveUpButton,
    ResignButton,
    Router,
    Row,
    RulesButton,
    StepButton,
    board_rows,
    resign_view,
    rows_view,
)
from ..domain import Caller, Refusal, mention
from ..i18n import NC_, reader
from ..presenter import board_status, game_label, rules_embed, step_prompt
from ..services import StepShown
from ..storage import Game
from .opponent import Opponent

BOARD_COOLDOWN_SECONDS = 10.0
"""``/tholos board`` renders an image: once per member and channel in this many seconds."""


def caller(interaction: Interaction) -> Caller:
    """Who acts, and where."""
    return Caller(interaction.user.id, interaction.channel_id or 0)


class Play(Feature):
    """The handlers of a game being played."""

    def __init__(self, app: App, opponent: Opponent) -> None:
        super().__init__(app)
        self.opponent = opponent

    def register(self, router: Router) -> None:
        """Route the board's buttons and the resignation's confirmation here."""
        router.add(StepButton, self.step)
        router.add(ClaimButton, lambda interaction, claim: self.claim(interaction, claim.game_id))
        router.add(ResignButton, self.resign)
        router.add(GiveUpButton, lambda interaction, button: self.ask_resign(
            interaction, button.game_id))  # fmt: skip
        router.add(RulesButton, lambda interaction, button: self.rules(interaction, button.game_id))

    @answers(posts_boards=True)
    async def step(self, interaction: Interaction, button: StepButton) -> None:
        """A press on a board's step button: show the next choice, or store the turn."""
        result = await self.app.play.choose(
            button.game_id, button.version, button.path, caller(interaction)
        )
        t = reader(interaction)  # the one pressing is the one playing: their language
        if isinstance(result, StepShown):
            step = result.builder.step()
            assert step is not None
            status = board_status(t, result.game, step_prompt(t, result.builder, step))
            rows = board_rows(t, result.game, result.builder, step)
            await self._edit_board(interaction, status, rows)
            return
        last = LastTurn(result.turn, interaction.user.id)
        await self._edit_board(interaction, t("Played: {turn}", turn=last.words(t)), [])
        pressed = interaction.message.id if interaction.message else None
        await self.app.boards.post_after_change(
            interaction, result.game, last, stripped=pressed, leased=True
        )
        self.opponent.schedule(result.game)

    @staticmethod
    async def _edit_board(interaction: Interaction, status: str, rows: list[Row]) -> None:
        """Answer a press by showing ``status`` and ``rows`` on the pressed board (its layout
        kept; a board posted before layouts keeps its embed)."""
        assert interaction.message is not None  # a press comes from a message
        look = BoardLook.of(interaction.message)
        if look is None:
            await interaction.response.edit_message(
                content=status, view=rows_view(rows), allowed_mentions=USERS_ONLY
            )
        else:
            await interaction.response.edit_message(
                view=look.layout(rows, status=status), allowed_mentions=USERS_ONLY
            )

    @answers(server_only=True, posts_boards=True)
    async def claim(self, interaction: Interaction, game_id: int | None = None) -> None:
        """The Claim button on a board, or ``/tholos claim [game]`` (the channel's game)."""
        if game_id is None:
            game_id = (await self._channel_game(interaction, players_only=True)).id
        rules = await self.app.rules(interaction.guild_id or 0)
        game = await self.app.play.claim(game_id, caller(interaction), rules.inactivity_timeout)
        await interaction.response.defer()
        last = await self._last(game)
        await self.app.boards.post_after_change(interaction, game, last, leased=True)

    @answers(posts_boards=True)
    async def resign(self, interaction: Interaction, button: ResignButton) -> None:
        """The confirmation button of ``/tholos resign``."""
        game = await self.app.play.resign(button.game_id, button.version, caller(interaction))
        t = reader(interaction)
        await interaction.response.edit_message(content=t("You resigned."), view=None)
        last = await self._last(game)
        await self.app.boards.post_after_change(interaction, game, last, leased=True)

    @answers()
    async def ask_resign(self, interaction: Interaction, game_id: int | None = None) -> None:
        """``/tholos resign [game]``, or a board's Resign: ask to confirm with a button."""
        game = await self._channel_game(interaction, players_only=True, game_id=game_id)
        t = reader(interaction)
        await interaction.response.send_message(
            t("Resign this game? Your opponent wins."), view=resign_view(t, game), ephemeral=True
        )

    @answers(server_only=True, posts_boards=True)
    async def show_board(self, interaction: Interaction, game_id: int | None = None) -> None:
        """``/tholos board [game]``: post the current board again (its controls move with it),
        in the game's thread when asked from its channel."""
        game = await self._channel_game(interaction, players_only=False, game_id=game_id)
        last = await self._last(game)
        if game.channel_id == interaction.channel_id:
            await interaction.response.defer()
            await self.app.boards.post(interaction.followup.send, game, last, again=True)
            return
        await interaction.response.defer(ephemeral=True)
        thread = self.app.client.get_partial_messageable(game.channel_id)
        posted = await self.app.boards.post(thread.send, game, last, again=True)
        where = posted.channel.id if posted is not None else game.channel_id  # it may have moved
        await tell(interaction, "The board is in {thread}.", thread=f"<#{where}>")

    @answers()
    async def rules(self, interaction: Interaction, game_id: int | None = None) -> None:
        """``/tholos rules`` or a board's How to play: ephemeral, with the ornaments of the game
        (the button's, or the one played in this channel)."""
        if game_id is None:
            game = await self.app.games.active_game(interaction.channel_id or 0)
        else:
            game = await self.app.games.game(game_id)
        await interaction.response.send_message(
            embed=rules_embed(reader(interaction), game.position if game else None),
            ephemeral=True,
        )

    async def _last(self, game: Game) -> LastTurn | None:
        return await self.app.boards.last_turn(game)

    async def game_choices(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[int]]:
        """The caller's games in this channel and its threads, for the ``game`` option."""
        here, user = interaction.channel_id or 0, interaction.user.id
        choices = []
        t = reader(interaction)
        for game in await self.app.games.active_games(here, user):
            label = game_label(t, game)
            if typed.lower() in label.lower():
                choices.append(app_commands.Choice(name=label, value=game.id))
        return choices[:25]

    async def _channel_game(
        self, interaction: Interaction, *, players_only: bool, game_id: int | None = None
    ) -> Game:
        """The game a command means: ``game_id`` (one of this channel's), else the one played
        in this channel or thread, else the caller's only game in this channel's threads;
        raises :class:`Refusal` otherwise."""
        here, user = interaction.channel_id or 0, interaction.user.id
        if game_id is not None:
            chosen = await self.app.games.game(game_id)
            if chosen is None or not chosen.is_active or here not in (
                chosen.channel_id, chosen.parent_id
            ):
                raise Refusal("That game isn't being played in this channel.")
            if players_only and chosen.colour_of(user) is None:
                raise Refusal("That isn't one of your games.")
            return chosen
        game = await self.app.games.active_game(here)
        if game is not None:
            if players_only and game.colour_of(user) is None:
                raise Refusal(
                    "The game here is between {white} and {black}.",
                    white=mention(game.white_id), black=mention(game.black_id),
                )
            return game
        mine = await self.app.games.active_games(here, user)
        if len(mine) == 1:
            return mine[0]
        if not mine:
            raise Refusal("There is no game of yours being played in this channel.")
        threads = ", ".join(f"<#{game.channel_id}>" for game in mine[:10])
        raise Refusal(
            "You have {count} games going here — pick one with the command's `game` option, or "
            "use the command in the game's thread: {threads}.",
            count=len(mine), threads=threads,
        )


GAME_OPTION = N_("Which of your games here (when you play several)")


async def your_games(interaction: Interaction, typed: str) -> list[app_commands.Choice[int]]:
    """Autocomplete of the ``game`` option: the caller's games in this channel."""
    return await feature_of(interaction, Play).game_choices(interaction, typed)


@tholos.command(
    name=NC_("command", "resign"),
    description=N_("Resign the game you are playing in this channel"),
)
@app_commands.describe(game=GAME_OPTION)
@app_commands.autocomplete(game=your_games)
async def resign_command(interaction: Interaction, game: int | None = None) -> None:
    """``/tholos resign [game]`` (asks to confirm)."""
    await feature_of(interaction, Play).ask_resign(interaction, game)


@tholos.command(
    name=NC_("command", "board"),
    description=N_("Show this channel's game board again, with its buttons"),
)
@app_commands.describe(game=GAME_OPTION)
@app_commands.autocomplete(game=your_games)
@app_commands.checks.cooldown(
    1, BOARD_COOLDOWN_SECONDS, key=lambda interaction: (interaction.channel_id, interaction.user.id)
)
async def board_command(interaction: Interaction, game: int | None = None) -> None:
    """``/tholos board [game]``."""
    await feature_of(interaction, Play).show_board(interaction, game)


@tholos.command(
    name=NC_("command", "claim"),
    description=N_("Claim the win when your opponent has stopped playing"),
)
@app_commands.describe(game=GAME_OPTION)
@app_commands.autocomplete(game=your_games)
async def claim_command(interaction: Interaction, game: int | None = None) -> None:
    """``/tholos claim [game]``."""
    await feature_of(interaction, Play).claim(interaction, game)


@tholos.command(
    name=NC_("command", "rules"),
    description=N_("How to play Tholos (only you see it)"),
)
async def rules_command(interaction: Interaction) -> None:
    """``/tholos rules``: ephemeral, with this channel's ornaments when a game is on."""
    await feature_of(interaction, Play).rules(interaction)
