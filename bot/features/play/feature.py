"""The turn: a press on a board's buttons builds it one choice at a time; ``/tholos board``,
``resign``, ``claim`` and ``rules``."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.game import Game
from bot.base.refusals import Refusal
from bot.discord import layout
from bot.discord.answers import Interaction, answers, caller, launch_live_board, tell
from bot.discord.app import App
from bot.discord.commands import Command, Tholos, game_choices
from bot.discord.controls import ROW_ID, VERSION, Button, CustomId, Router, view_of
from bot.discord.feature import Feature
from bot.features.play.opponent import Opponent
from bot.features.play.presses import Presses
from bot.features.play.service import PlayService
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.loops.loop import Loop
from bot.storage.games.store import GameStore
from bot.words.names import mention
from bot.words.phrases import SANDSTONE, command, ornaments_text
from bot.workers.ai import AiPlayer
from engine import LOCATIONS, Position
from engine.vocabulary import N_, ORNAMENT_EFFECTS, ORNAMENT_NAMES, bonus_description, location_name
from rendering.translator import Translator

BOARD_COOLDOWN_SECONDS = 10.0
"""``/tholos board`` renders an image: once per member and channel in this many seconds."""


RESIGN = CustomId("resign", (("game", ROW_ID, int), ("version", VERSION, int)))
"""Confirm a resignation (the button ``/tholos resign`` and a board's Resign answer with)."""


class Play(Feature):
    """The handlers of a game being played, its service, and the AI that plays its turns."""

    def __init__(self, app: App, ai: AiPlayer | None = None) -> None:
        super().__init__(app)
        stores = app.stores
        self.service = PlayService(
            stores.games,
            inactivity_timeout=app.settings.inactivity_timeout,
            leases=stores.leases,
            reminders=app.reminder_defaults,
            alarm=app.reminder_alarm.ring,
        )
        self.opponent = Opponent(
            app.client, stores.sweeps, stores.leases, self.service, app.poster, ai=ai
        )
        """The AI: plays its turns (``ai``: its search, by default in a worker process)."""
        self.games = ChannelGames(stores.games)
        self.presses = Presses(app, self.service, self.opponent)

    def loops(self) -> list[Loop]:
        """The AI opponent's picker."""
        return [self.opponent.loop()]

    async def stop(self) -> None:
        """Stop the AI's turns under way and its worker process."""
        await self.opponent.close()

    def commands(self) -> list[Command]:
        return PlayCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        """Route the board's buttons and the resignation's confirmation here."""
        router.add(layout.STEP, self.step)
        router.add(layout.CLAIM, lambda interaction, game: self.claim(interaction, game))
        router.add(RESIGN, self.resign)
        router.add(layout.GIVE_UP, lambda interaction, game: self.ask_resign(interaction, game))
        router.add(layout.RULES, lambda interaction, game: self.rules(interaction, game))
        router.add(layout.LIVE, lambda interaction, game: self.open_live(interaction))

    @answers(posts_boards=True)
    async def step(
        self, interaction: Interaction, game: int, version: int, path: str, kind: str
    ) -> None:
        """A press on a board's step button (see :meth:`Presses.step`)."""
        await self.presses.step(interaction, game, version, path)

    @answers()
    async def open_live(self, interaction: Interaction) -> None:
        """Open the live board: Discord launches the Activity in this channel."""
        await launch_live_board(interaction, self.app.poster.messages.live)

    @answers(posts_boards=True)
    async def claim(self, interaction: Interaction, game_id: int | None = None) -> None:
        """The Claim button on a board, or ``/tholos claim [game]`` (the channel's game)."""
        if game_id is None:
            game_id = (await self.games.game_for(interaction, players_only=True)).id
        rules = await self.app.rules(interaction.guild_id or 0)
        game = await self.service.claim(game_id, caller(interaction), rules.inactivity_timeout)
        await interaction.response.defer()
        last = await self.app.poster.last_turn(game)
        await self.app.poster.post_after_change(interaction, game, last, leased=True)

    @answers(posts_boards=True)
    async def resign(self, interaction: Interaction, game: int, version: int) -> None:
        """The confirmation button of ``/tholos resign``."""
        ended = await self.service.resign(game, version, caller(interaction))
        t = reader(interaction)
        await interaction.response.edit_message(content=t("You resigned."), view=None)
        last = await self.app.poster.last_turn(ended)
        await self.app.poster.post_after_change(interaction, ended, last, leased=True)

    @answers()
    async def ask_resign(self, interaction: Interaction, game_id: int | None = None) -> None:
        """``/tholos resign [game]``, or a board's Resign: ask to confirm with a button."""
        game = await self.games.game_for(interaction, players_only=True, game_id=game_id)
        t = reader(interaction)
        confirm = Button.of(
            RESIGN,
            game=game.id,
            version=game.version,
            label=t("Yes, resign"),
            emphasis="danger",
        )
        await interaction.response.send_message(
            t("Resign this game? Your opponent wins."), view=view_of([confirm]), ephemeral=True
        )

    @answers(posts_boards=True)
    async def show_board(self, interaction: Interaction, game_id: int | None = None) -> None:
        """``/tholos board [game]``: post the current board again (its controls move with it),
        in the game's thread when asked from its channel; where the bot is not, as this
        command's answer (and the AI's turn, if it waits for it)."""
        game = await self.games.game_for(interaction, players_only=False, game_id=game_id)
        last = await self.app.poster.last_turn(game)
        if game.answers_only:
            await interaction.response.defer()
            if game.needs_a_board:
                await self.app.poster.post_after_change(interaction, game, last)
            else:
                await self.app.poster.post(interaction.followup.send, game, last, again=True)
            await self.opponent.answer(interaction, game)
            return
        if game.channel_id == interaction.channel_id:
            await interaction.response.defer()
            await self.app.poster.post(interaction.followup.send, game, last, again=True)
            return
        await interaction.response.defer(ephemeral=True)
        thread = self.app.client.get_partial_messageable(game.channel_id)
        posted = await self.app.poster.post(thread.send, game, last, again=True)
        where = posted.channel.id if posted is not None else game.channel_id  # it may have moved
        await tell(interaction, "The board is in {thread}.", thread=f"<#{where}>")

    @answers()
    async def rules(self, interaction: Interaction, game_id: int | None = None) -> None:
        """``/tholos rules`` or a board's How to play: ephemeral, with the ornaments of the game
        (the button's, or the one played in this channel)."""
        if game_id is None:
            game = await self.app.stores.games.active_game(interaction.channel_id or 0)
        else:
            game = await self.app.stores.games.game(game_id)
        await interaction.response.send_message(
            embed=rules_embed(reader(interaction), game.position if game else None),
            ephemeral=True,
        )


class ChannelGames:
    """The game a command means, among the games of its channel and the channel's threads."""

    def __init__(self, games: GameStore) -> None:
        self.games = games

    async def choices(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[int]]:
        """The caller's games in this channel and its threads, for the ``game`` option."""
        here, user = interaction.channel_id or 0, interaction.user.id
        games = await self.games.active_games(here, user)
        return game_choices(reader(interaction), games, typed)

    async def game_for(
        self, interaction: Interaction, *, players_only: bool, game_id: int | None = None
    ) -> Game:
        """The game a command means: ``game_id`` (one of this channel's), else the one played
        in this channel or thread, else the caller's only game in this channel's threads;
        raises :class:`Refusal` otherwise."""
        here, user = interaction.channel_id or 0, interaction.user.id
        if game_id is not None:
            chosen = await self.games.places.game_in(game_id, here)
            if (
                chosen is None
                or not chosen.is_active
                or here not in (chosen.channel_id, chosen.parent_id)
            ):
                raise Refusal("That game isn't being played in this channel.")
            if players_only and chosen.colour_of(user) is None:
                raise Refusal("That isn't one of your games.")
            return chosen
        game = await self.games.active_game(here)
        if game is not None:
            if players_only and game.colour_of(user) is None:
                raise Refusal(
                    "The game here is between {white} and {black}.",
                    white=mention(game.white_id),
                    black=mention(game.black_id),
                )
            return game
        mine = await self.games.active_games(here, user)
        if len(mine) == 1:
            return mine[0]
        if not mine:
            raise Refusal("There is no game of yours being played in this channel.")
        threads = ", ".join(f"<#{game.channel_id}>" for game in mine[:10])
        raise Refusal(
            "You have {count} games going here — pick one with the command's `game` option, or "
            "use the command in the game's thread: {threads}.",
            count=len(mine),
            threads=threads,
        )


RULES_TURN = N_(
    "On your turn, do one thing:\n"
    "• **Take** stones of one colour from the quarry into your workshop (3 slots): up to 3 of "
    "your colour, 2 gray, or 1 of your rival's.\n"
    "• **Place** a stone from your workshop on a column that isn't full. A stone of *your* "
    "colour lets you use that location's bonus once (you may skip it). Stones moved or added "
    "by a bonus never trigger another bonus."
)
RULES_SCORING = N_(
    "The game ends the moment every column is full (5 stones; no bonus after the stone that "
    "fills the last place). Each column goes to whoever has more stones of their colour in it "
    "(gray doesn't count; a tie goes to nobody). Its winner scores +1 per own stone, +3 per "
    "rival stone and −2 per gray stone. Most points wins; if tied, most columns won; else a draw."
)


def rules_embed(t: Translator, position: Position | None) -> discord.Embed:
    """``/tholos rules``: a turn, each location's bonus, this game's ornaments, scoring."""
    embed = discord.Embed(
        title=t("How to play Tholos"), colour=SANDSTONE, description=t(RULES_TURN)
    )
    bonuses = "\n".join(
        f"{location_name(location)} — {bonus_description(location, t)}" for location in LOCATIONS
    )
    embed.add_field(name=t("Bonuses"), value=bonuses, inline=False)
    embed.add_field(name=t("End and scoring"), value=t(RULES_SCORING), inline=False)
    if position is not None and position.mode == "advanced":
        embed.add_field(
            name=t("Ornaments in this game"), value=ornaments_text(t, position), inline=False
        )
    else:
        ornaments = ", ".join(
            f"**{t(ORNAMENT_NAMES[ornament])}** ({t(effect)})"
            for ornament, effect in ORNAMENT_EFFECTS.items()
        )
        embed.add_field(
            name=t("Advanced mode"),
            value=t(
                "Adds 1–5 ornaments that change their column's rules: {ornaments}",
                ornaments=ornaments,
            ),
            inline=False,
        )
    embed.add_field(
        name=t("Start a game"),
        value=t(
            "Board game by Perro Loko Games (2021). Start with {challenge}: name a member, "
            "or name me to play my AI (six levels, from easy to master).",
            challenge=command("tholos challenge"),
        ),
        inline=False,
    )
    return embed


GAME_OPTION = N_("Which of your games here (when you play several)")


class PlayCommands(Cog):
    """``/tholos resign|board|claim|rules``."""

    tholos = Tholos()

    def __init__(self, play: Play) -> None:
        self.play = play

    async def your_games(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[int]]:
        """Autocomplete of the ``game`` option: the caller's games in this channel."""
        return await self.play.games.choices(interaction, typed)

    @tholos.command(
        name=NC_("command", "resign"),
        description=N_("Resign the game you are playing in this channel"),
    )
    @app_commands.describe(game=GAME_OPTION)
    @app_commands.autocomplete(game=your_games)
    async def resign(self, interaction: Interaction, game: int | None = None) -> None:
        """``/tholos resign [game]`` (asks to confirm)."""
        await self.play.ask_resign(interaction, game)

    @tholos.command(
        name=NC_("command", "board"),
        description=N_("Show this channel's game board again, with its buttons"),
    )
    @app_commands.describe(game=GAME_OPTION)
    @app_commands.autocomplete(game=your_games)
    @app_commands.checks.cooldown(
        1,
        BOARD_COOLDOWN_SECONDS,
        key=lambda interaction: (interaction.channel_id, interaction.user.id),
    )
    async def board(self, interaction: Interaction, game: int | None = None) -> None:
        """``/tholos board [game]``."""
        await self.play.show_board(interaction, game)

    @tholos.command(
        name=NC_("command", "claim"),
        description=N_("Claim the win when your opponent has stopped playing"),
    )
    @app_commands.describe(game=GAME_OPTION)
    @app_commands.autocomplete(game=your_games)
    async def claim(self, interaction: Interaction, game: int | None = None) -> None:
        """``/tholos claim [game]``."""
        await self.play.claim(interaction, game)

    @tholos.command(
        name=NC_("command", "rules"),
        description=N_("How to play Tholos (only you see it)"),
    )
    async def rules(self, interaction: Interaction) -> None:
        """``/tholos rules``: ephemeral, with this channel's ornaments when a game is on."""
        await self.play.rules(interaction)
