"""Tournaments: ``/tholos-tournament`` (create, start, pause, resume, remove, end: Manage
Events, checked by Discord and again here), the announcement's Join / Leave, and
``/tholos tournament standings`` / ``withdraw``. The rounds are run by :class:`Rounds`, a loop
on the process that owns the server's shard."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Literal

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.game_options import GameOptions
from bot.base.paces import Pace, RatingPool
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.discord.answers import Interaction, answers, caller
from bot.discord.app import App
from bot.discord.commands import (
    GAME_OPTIONS,
    GUILD_INSTALL,
    SERVERS_ONLY,
    Command,
    Tholos,
    choices,
)
from bot.discord.controls import Router
from bot.discord.feature import Feature
from bot.discord.places import place_for
from bot.features.play import PlayService
from bot.features.tournaments.announcement import (
    NO_PINGS,
    TOURNAMENT,
    Announcements,
    drop_event,
)
from bot.features.tournaments.rounds import Rounds, standings_file
from bot.features.tournaments.service import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    Setup,
    TournamentService,
    check_organiser,
    largest_round_robin,
)
from bot.features.tournaments.store import Tournament, TournamentStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader, server_language
from bot.loops.loop import Loop
from bot.words.names import escaped_name, plain_name
from engine.core import Mode
from engine.vocabulary import N_

log = logging.getLogger(__name__)

Format = Literal["swiss", "round_robin"]
Action = Literal["start", "pause", "resume", "end"]
ORGANISERS_ONLY = N_("Only members with the **Manage Events** permission can create tournaments.")
NEEDS_THREADS = N_(
    "A tournament plays each game in a thread of its own: I need **Create Public Threads** and "
    "**Send Messages in Threads** in this channel (and the server's threads setting on)."
)
OPTION_NAMES = (
    NC_("command", "name"),
    NC_("command", "format"),
    NC_("command", "rounds"),
    NC_("command", "twice"),
    NC_("command", "deadline_hours"),
    NC_("command", "starts_in"),
    NC_("command", "max_players"),
    NC_("command", "rated"),
    NC_("command", "tournament"),
    NC_("command", "player"),
    N_("swiss"),
    N_("round_robin"),
)
"""The option and choice names this module adds, for the catalogue."""


class Tournaments(Feature):
    """The handlers of tournaments; the loop that runs their rounds."""

    def __init__(
        self, app: App, play: PlayService, rating: Callable[[RatingPool, int], Awaitable[float]]
    ) -> None:
        """``play``: the rounds' games; ``rating``: a member's rating in a pool."""
        super().__init__(app)
        self.store = TournamentStore(app.database, app.settings.shards)
        self.service = TournamentService(
            self.store, app.stores.games, play, reminders=app.reminder_defaults, rating=rating
        )
        self.announcements = Announcements(app, self.store)
        self.rounds = Rounds(app, self.service, self.announcements.refresh)
        self.lookup = TournamentLookup(self.service)
        self.controls = Controls(app, self.service, self.announcements, self.rounds)
        self._stop_listening: Callable[[], None] = lambda: None

    def commands(self) -> list[Command]:
        return [
            *OrganiserCommands(self).get_app_commands(),
            *PlayerCommands(self).get_app_commands(),
        ]

    def register(self, router: Router) -> None:
        router.add(TOURNAMENT, self.press)

    def loops(self) -> list[Loop]:
        return [self.rounds.loop()]

    async def start(self) -> None:
        """Listen to the games' changes (a round's end wakes the loop at once)."""
        self._stop_listening = await self.rounds.listen()

    async def stop(self) -> None:
        self._stop_listening()

    @answers(server_only=True)
    async def create(self, interaction: Interaction, asked: Setup, options: GameOptions) -> None:
        """Post the announcement of a new tournament (``asked``, in the mode and with the
        ornaments of ``options``), with Join / Leave."""
        if not interaction.permissions.manage_events:
            raise Refusal(ORGANISERS_ONLY)
        ornaments = options.ornament_count()  # refuses ornaments in the basic mode
        setup = replace(asked, mode=options.game_mode, ornaments=ornaments)
        rules = await self.app.rules(interaction.guild_id or 0)
        if not place_for(interaction, rules.threads).thread:
            raise Refusal(NEEDS_THREADS)
        if setup.pace is not None and setup.pace not in rules.clocks:
            raise Refusal("This server doesn't offer the live clock {pace}.", pace=setup.pace)
        tournament = await self.service.create(
            setup,
            guild_id=interaction.guild_id or 0,
            channel_id=interaction.channel_id or 0,
            organiser=interaction.user.id,
            language=server_language(interaction),
        )
        await self.announcements.post(interaction, tournament)

    @answers(server_only=True)
    async def press(self, interaction: Interaction, tournament: int, answer: str) -> None:
        """Join or Leave on the announcement."""
        found = await self.service.get(tournament, interaction.guild_id or 0)
        t = reader(interaction)
        if answer == "join":
            me = Person(
                interaction.user.id, plain_name(interaction.user.display_name), interaction.user.bot
            )
            count = await self.service.join(found, me)
            when = f"<t:{int(found.starts_at)}:R>"
            text = t(
                "You're in **{name}** ({count} players so far). It starts {when}.",
                name=escaped_name(found.name),
                count=count,
                when=when,
            )
        else:
            await self.service.leave(found, interaction.user.id)
            text = t("You've left **{name}**.", name=escaped_name(found.name))
        await interaction.response.send_message(text, ephemeral=True)
        await self.announcements.refresh(found.id)

    @answers(server_only=True)
    async def control(self, interaction: Interaction, tournament_id: int, action: Action) -> None:
        """Start, pause, resume or end a tournament (its organiser)."""
        tournament = await self.lookup.organised(interaction, tournament_id)
        await self.controls.control(interaction, tournament, action)

    @answers(server_only=True)
    async def remove(self, interaction: Interaction, tournament_id: int, player: int) -> None:
        """The organiser takes a player out: their remaining games are lost."""
        tournament = await self.lookup.organised(interaction, tournament_id)
        await self.controls.withdraw(interaction, tournament, player, "removed")

    @answers(server_only=True)
    async def withdraw(self, interaction: Interaction, tournament_id: int | None) -> None:
        """A player leaves a tournament under way: their remaining games are lost."""
        tournament = await self.lookup.chosen(interaction, tournament_id)
        await self.controls.withdraw(interaction, tournament, interaction.user.id, "withdrew")

    @answers(server_only=True)
    async def standings(self, interaction: Interaction, tournament_id: int | None) -> None:
        """The standings now, as an image only the caller sees."""
        tournament = await self.lookup.chosen(interaction, tournament_id)
        if tournament.status in ("signup", "cancelled"):
            raise Refusal(
                "**{name}** hasn't started: there are no standings yet.",
                name=escaped_name(tournament.name),
            )
        await interaction.response.defer(ephemeral=True, thinking=True)
        file, text, _ = await standings_file(
            self.app, self.service, tournament, reader(interaction)
        )
        await interaction.followup.send(text, file=file, ephemeral=True, allowed_mentions=NO_PINGS)


class TournamentLookup:
    """The tournament a command means."""

    def __init__(self, service: TournamentService) -> None:
        self.service = service
        self.store = service.store

    async def organised(self, interaction: Interaction, tournament_id: int) -> Tournament:
        """The tournament named, which the caller may control: its organiser's, or any to a
        server manager."""
        tournament = await self.service.get(tournament_id, interaction.guild_id or 0)
        permissions = interaction.permissions
        if not (permissions.manage_events or permissions.manage_guild):
            raise Refusal(ORGANISERS_ONLY)
        check_organiser(tournament, caller(interaction), permissions.manage_guild)
        return tournament

    async def chosen(self, interaction: Interaction, tournament_id: int | None) -> Tournament:
        """The tournament named, or the newest of this channel."""
        if tournament_id is not None:
            return await self.service.get(tournament_id, interaction.guild_id or 0)
        here = await self.store.in_channel(interaction.channel_id or 0)
        if not here:
            raise Refusal("There's no tournament in this channel: name one with `tournament`.")
        return here[0]

    async def choices(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[int]]:
        """The server's tournaments whose name holds what was typed."""
        found = await self.store.in_guild(interaction.guild_id or 0)
        return choices(((f"#{t.id} {plain_name(t.name)}", t.id) for t in found), typed)


class Controls:
    """The changes of a tournament under way: the organiser's start, pause, resume and end, and
    a player out of it (withdrawn, or removed by the organiser)."""

    def __init__(
        self, app: App, service: TournamentService, announcements: Announcements, rounds: Rounds
    ) -> None:
        self.app = app
        self.service = service
        self.store = service.store
        self.announcements = announcements
        self.rounds = rounds

    async def control(
        self, interaction: Interaction, tournament: Tournament, action: Action
    ) -> None:
        """Start, pause, resume or end ``tournament``, and tell the organiser."""
        store, t = self.store, reader(interaction)
        if action == "start":
            if tournament.status != "signup":
                raise Refusal("This tournament has started already.")
            changed = await store.change(tournament, starts_at=time.time())
            if changed is not None:
                await drop_event(self.app, changed)  # it was for the time it would have begun
        elif action == "pause":
            if tournament.status != "running":
                raise Refusal("Only a tournament under way can be paused.")
            changed = await store.change(tournament, status="paused")
        elif action == "resume":
            if tournament.status != "paused":
                raise Refusal("This tournament isn't paused.")
            deadline = self.service.deadline(tournament)
            changed = await store.change(tournament, status="running", round_deadline=deadline)
        else:
            changed = await self.service.end(tournament, interaction.user.id)
        if changed is None:
            raise Refusal("This tournament just changed — try again.")
        cancelled = changed.status == "cancelled"
        if cancelled:
            await drop_event(self.app, changed)
        done = _DONE["cancel" if cancelled else action]
        await interaction.response.send_message(
            t(
                done,
                name=escaped_name(tournament.name),
                when=f"<t:{int(changed.round_deadline or 0)}:R>",
            ),
            ephemeral=True,
        )
        await self.announcements.refresh(tournament.id)
        self.rounds.wake()  # (after an end, it decides the round's unfinished games)

    async def withdraw(
        self,
        interaction: Interaction,
        tournament: Tournament,
        player: int,
        why: Literal["withdrew", "removed"],
    ) -> None:
        """Take ``player`` out of ``tournament`` (their game of this round is lost), and say
        so."""
        done, ended = await self.service.withdraw(tournament, player, why)
        if not done:
            raise Refusal(
                "{player} isn't playing in **{name}**.",
                player=f"<@{player}>",
                name=escaped_name(tournament.name),
            )
        t = reader(interaction)
        await interaction.response.send_message(
            t(
                "{player} is out of **{name}**: they play no more rounds, and their game of this "
                "round is lost.",
                player=f"<@{player}>",
                name=escaped_name(tournament.name),
            ),
            ephemeral=True,
        )
        for game in ended:
            await self.app.poster.background.post_stored(game)
        await self.announcements.refresh(tournament.id)
        self.rounds.wake()


_DONE = {
    "start": N_("**{name}** starts now."),
    "pause": N_(
        "**{name}** is paused: no new round is paired until you resume it. Games under way go on."
    ),
    "resume": N_("**{name}** is under way again: this round's deadline is {when}."),
    "end": N_(
        "**{name}** ends with this round: its unfinished games are decided as at a deadline."
    ),
    "cancel": N_("**{name}** is cancelled."),
}
"""What the organiser hears after each control."""


# -- commands -----------------------------------------------------------------------------------


TOURNAMENT_OPTION = N_("The tournament (type to search this server's)")


class TournamentCommands(Cog):
    """What the tournaments' commands share: the feature, and the ``tournament`` option's
    choices."""

    def __init__(self, tournaments: Tournaments) -> None:
        self.tournaments = tournaments

    async def named(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[int]]:
        """Autocomplete of the ``tournament`` option: the server's tournaments."""
        return await self.tournaments.lookup.choices(interaction, typed)


class OrganiserCommands(TournamentCommands):
    """``/tholos-tournament create|start|pause|resume|end|remove``."""

    tholos_tournament = app_commands.Group(
        name=NC_("command", "tholos-tournament"),
        description=N_("Run a Tholos tournament on this server (Manage Events)"),
        guild_only=True,
        allowed_contexts=SERVERS_ONLY,
        allowed_installs=GUILD_INSTALL,
        default_permissions=discord.Permissions(manage_events=True),
    )
    """``/tholos-tournament …``: only members with Manage Events see it (the bot checks
    again)."""

    @tholos_tournament.command(
        name=NC_("command", "create"), description=N_("Create a tournament here")
    )
    @app_commands.describe(
        name=N_("The tournament's name"),
        format=N_("Swiss (a number of rounds) or round robin (everyone plays everyone)"),
        rounds=N_("Swiss: how many rounds (default 5)"),
        twice=N_("Round robin: play everyone twice, colours swapped"),
        pace=N_("Correspondence (a deadline each round), or a live clock"),
        deadline_hours=N_("Correspondence: hours each round may last (default 72)"),
        starts_in=N_("Minutes until it starts (default 60)"),
        max_players=N_(
            "The most players who may join (default 16; a round robin: all it can take)"
        ),
        rated=N_("Whether its games count for ratings (default yes)"),
        mode=GAME_OPTIONS["mode"],
        ornaments=GAME_OPTIONS["ornaments"],
    )
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 80],
        format: Format = "swiss",
        rounds: app_commands.Range[int, 1, MAX_ROUNDS] = 5,
        twice: bool = False,
        pace: Pace = "correspondence",
        deadline_hours: app_commands.Range[int, 1, 336] = 72,
        starts_in: app_commands.Range[int, 1, 10080] = 60,
        max_players: app_commands.Range[int, 2, MAX_PLAYERS] | None = None,
        rated: bool = True,
        mode: Mode | None = None,
        ornaments: app_commands.Range[int, 1, 5] | None = None,
    ) -> None:
        """``/tholos-tournament create``."""
        cycles = 2 if twice else 1
        if max_players is None:
            max_players = 16 if format == "swiss" else largest_round_robin(cycles)
        asked = Setup(
            name=plain_name(name, 80),
            format=format,
            rounds=rounds if format == "swiss" else cycles,
            pace=None if pace == "correspondence" else pace,
            round_hours=float(deadline_hours),
            starts_at=time.time() + 60 * starts_in,
            max_players=max_players,
            rated=rated,
        )
        options = GameOptions(mode=mode, ornaments=ornaments)
        await self.tournaments.create(interaction, asked, options)

    @tholos_tournament.command(
        name=NC_("command", "start"), description=N_("Start a tournament now, without waiting")
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION)
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def start(self, interaction: Interaction, tournament: int) -> None:
        await self.tournaments.control(interaction, tournament, "start")

    @tholos_tournament.command(
        name=NC_("command", "pause"),
        description=N_("Pause a tournament: no new round until you resume it"),
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION)
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def pause(self, interaction: Interaction, tournament: int) -> None:
        await self.tournaments.control(interaction, tournament, "pause")

    @tholos_tournament.command(
        name=NC_("command", "resume"), description=N_("Resume a paused tournament")
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION)
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def resume(self, interaction: Interaction, tournament: int) -> None:
        await self.tournaments.control(interaction, tournament, "resume")

    @tholos_tournament.command(
        name=NC_("command", "end"),
        description=N_("End a tournament with this round (its games decided now)"),
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION)
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def end(self, interaction: Interaction, tournament: int) -> None:
        await self.tournaments.control(interaction, tournament, "end")

    @tholos_tournament.command(
        name=NC_("command", "remove"),
        description=N_("Take a player out of a tournament"),
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION, player=N_("The player to take out"))
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def remove(self, interaction: Interaction, tournament: int, player: discord.User) -> None:
        """``/tholos-tournament remove``."""
        await self.tournaments.remove(interaction, tournament, player.id)


class PlayerCommands(TournamentCommands):
    """``/tholos tournament standings|withdraw``: what every member may do."""

    tholos = Tholos()
    tournament = app_commands.Group(
        name=NC_("command", "tournament"), description=N_("Tholos tournaments"), parent=tholos
    )

    @tournament.command(
        name=NC_("command", "standings"),
        description=N_("A tournament's standings (default: this channel's)"),
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION)
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def standings(self, interaction: Interaction, tournament: int | None = None) -> None:
        """``/tholos tournament standings``."""
        await self.tournaments.standings(interaction, tournament)

    @tournament.command(
        name=NC_("command", "withdraw"),
        description=N_("Stop playing in a tournament (your games left are lost)"),
    )
    @app_commands.describe(tournament=TOURNAMENT_OPTION)
    @app_commands.autocomplete(tournament=TournamentCommands.named)
    async def withdraw(self, interaction: Interaction, tournament: int | None = None) -> None:
        """``/tholos tournament withdraw``."""
        await self.tournaments.withdraw(interaction, tournament)
