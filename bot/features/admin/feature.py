"""``/tholos-admin``: a server's own settings (threads, the idle-claim and challenge timeouts,
the default mode, the turn reminders' time) and ending a stuck game, for members with Manage
Server — checked by Discord's default permissions and again here."""

from __future__ import annotations

import dataclasses
import time
from typing import Literal

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.paces import CLOCKS, Pace, offered_clocks, offers
from bot.base.refusals import Refusal
from bot.base.server_rules import ServerRules
from bot.discord.answers import Interaction, answers, missing_permissions
from bot.discord.app import App
from bot.discord.commands import CHOICES_SHOWN, GUILD_INSTALL, SERVERS_ONLY, Command, game_choices
from bot.discord.feature import Feature
from bot.discord.visibility import Questions, visible
from bot.features.play import PlayService
from bot.features.reminders import ReminderStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.storage.servers import ServerSettings
from bot.words.names import escaped_name
from bot.words.phrases import MODE_NAMES, SANDSTONE, command, minutes_text, pace_name
from engine.core import Mode
from engine.vocabulary import N_
from rendering.translator import Translator

ADMINS_ONLY = N_("Only members with the **Manage Server** permission can use {admin}.")
OPTION_NAMES = (
    NC_("command", "reminder_minutes"),
    NC_("command", "puzzle_channel"),
    NC_("command", "daily_puzzle"),
    NC_("command", "pool"),
    NC_("command", "pool_shows_server"),
)
"""The option names this module adds (their Python parameters), for the catalogue."""


class Admin(Feature):
    """The handlers of a server's settings."""

    def __init__(self, app: App, play: PlayService, reminders: ReminderStore) -> None:
        """``play``: ends a game; ``reminders``: follow a change of the server's times."""
        super().__init__(app)
        self.play = play
        self.reminders = reminders
        self.visibility = app.visibility
        """Which games an admin may see offered (those of channels they can see)."""

    def commands(self) -> list[Command]:
        return AdminCommands(self).get_app_commands()

    @answers(server_only=True)
    async def end_game(self, interaction: Interaction, game_id: int) -> None:
        """End one of the server's games without a result; its board says who ended it."""
        if not interaction.permissions.manage_guild:
            raise Refusal(ADMINS_ONLY, admin=command("tholos-admin"))
        game = await self.play.abort(game_id, interaction.guild_id or 0, interaction.user.id)
        t = reader(interaction)
        await interaction.response.send_message(
            t(
                "Game #{id} ({white} vs {black}) ended: no result, not rated.",
                id=game.id,
                white=escaped_name(game.white_name),
                black=escaped_name(game.black_name),
            ),
            ephemeral=True,
        )
        last = await self.app.poster.last_turn(game)
        await self.app.poster.post_after_change(interaction, game, last, leased=True)

    async def game_choices(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[int]]:
        """Autocomplete of ``/tholos-admin end``: the server's games in channels the admin can
        see (none for non-admins)."""
        if not interaction.permissions.manage_guild or interaction.guild_id is None:
            return []
        games = await self.app.stores.listings.playing_named(
            interaction.guild_id, typed, CHOICES_SHOWN
        )
        user, here = interaction.user, interaction.channel_id
        questions = Questions()
        shown = await visible(
            self.visibility, games, user.id, user, seen_in=here, questions=questions
        )
        return game_choices(reader(interaction), shown, typed)

    @answers(server_only=True)
    async def settings(self, interaction: Interaction, changes: dict[str, object]) -> None:
        """Show the server's settings; with ``changes``, store them first."""
        if not interaction.permissions.manage_guild:
            raise Refusal(ADMINS_ONLY, admin=command("tholos-admin"))
        guild_id = interaction.guild_id or 0
        servers = self.app.stores.servers
        if changes:
            chosen = await servers.get(guild_id)
            wanted = dataclasses.replace(chosen, **changes)
            _check_paces(wanted, self.app.settings.clocks)
            if changes.get("puzzle_channel") is not None:
                _check_puzzle_channel(interaction, wanted.puzzle_channel or 0)
            await servers.set(guild_id, wanted, interaction.user.id, time.time())
            if {"reminder_after", "inactivity_timeout"} & changes.keys():
                await self._reschedule_reminders(guild_id)
        rules = await self.app.rules(guild_id)
        await interaction.response.send_message(
            embed=settings_embed(reader(interaction), rules, changed=bool(changes)), ephemeral=True
        )

    async def _reschedule_reminders(self, guild_id: int) -> None:
        """The server's reminder or idle-claim time changed: its pending reminders follow (and
        the housekeeping loop wakes for the first)."""
        reminders = self.reminders
        first = await reminders.reschedule_server(guild_id, self.app.reminder_defaults)
        if first is not None:
            self.app.reminder_alarm.ring(first)


def _check_puzzle_channel(interaction: Interaction, channel_id: int) -> None:
    """Refuse a puzzle of the day's channel where the bot could not post it, naming what it
    lacks there."""
    guild = interaction.guild
    channel = guild.get_channel(channel_id) if guild is not None else None
    if guild is None or channel is None:
        raise Refusal("I can't see that channel.")
    t = reader(interaction)
    missing = [t(name) for name in missing_permissions(channel.permissions_for(guild.me))]
    if missing:
        raise Refusal(
            "I can't post the puzzle of the day in {channel}: I need **{permissions}** there.",
            channel=channel.mention,
            permissions=", ".join(missing),
        )


def _check_paces(wanted: ServerSettings, bot_clocks: tuple[str, ...]) -> None:
    """Refuse clocks the bot doesn't have, and a default pace among the clocks not offered."""
    clocks = bot_clocks
    if wanted.clocks is not None:
        try:
            clocks = offered_clocks(wanted.clocks)
        except ValueError as error:
            raise Refusal(
                "I don't have these clocks: {unknown}. Choose among {clocks}, "
                "comma-separated, or none.",
                unknown=str(error),
                clocks=", ".join(CLOCKS),
            ) from None
    pace = wanted.default_pace
    if pace is not None and not offers(pace, clocks):
        raise Refusal(
            "The default pace must be correspondence or an offered clock ({clocks}).",
            clocks=", ".join(clocks) or "—",
        )


class AdminCommands(Cog):
    """``/tholos-admin settings|end``."""

    tholos_admin = app_commands.Group(
        name=NC_("command", "tholos-admin"),
        description=N_("Tholos settings for this server (Manage Server)"),
        guild_only=True,
        allowed_contexts=SERVERS_ONLY,
        allowed_installs=GUILD_INSTALL,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    """``/tholos-admin …``: only members with Manage Server see it (and the bot checks again)."""

    def __init__(self, admin: Admin) -> None:
        self.admin = admin

    async def server_games(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[int]]:
        """Autocomplete of the ``game`` option of ``/tholos-admin end``."""
        return await self.admin.game_choices(interaction, typed)

    @tholos_admin.command(
        name=NC_("command", "settings"),
        description=N_("Show or change Tholos's settings here"),
    )
    @app_commands.describe(
        threads=N_("Play each game in a thread of its own (on) or in the channel (off)"),
        idle_claim_minutes=N_("Minutes without a move before the opponent may claim the win"),
        challenge_minutes=N_("Minutes before an unanswered challenge expires"),
        default_mode=N_("The mode of a challenge that names neither a mode nor ornaments"),
        reminder_minutes=N_(
            "Minutes without a move before the player to move is reminded (0: off)"
        ),
        default_pace=N_("The pace of a challenge that names none: correspondence or a live clock"),
        clocks=N_("The live clocks offered, comma-separated (e.g. 5+5,10+5), or none"),
        puzzle_channel=N_("Post a puzzle of the day in this channel"),
        daily_puzzle=N_("The puzzle of the day: on (in this channel, unless you name one) or off"),
        pool=N_("Quick pairing: members here may be paired with members of other servers (on/off)"),
        pool_shows_server=N_("Show this server's name to pool opponents from other servers"),
    )
    async def settings(
        self,
        interaction: Interaction,
        threads: Literal["on", "off"] | None = None,
        idle_claim_minutes: app_commands.Range[float, 0.01, 43200.0] | None = None,
        challenge_minutes: app_commands.Range[float, 0.01, 1440.0] | None = None,
        default_mode: Mode | None = None,
        reminder_minutes: app_commands.Range[float, 0.0, 43200.0] | None = None,
        default_pace: Pace | None = None,
        clocks: app_commands.Range[str, 1, 60] | None = None,
        puzzle_channel: discord.TextChannel | None = None,
        daily_puzzle: Literal["on", "off"] | None = None,
        pool: Literal["on", "off"] | None = None,
        pool_shows_server: Literal["on", "off"] | None = None,
    ) -> None:
        """``/tholos-admin settings``."""
        changes: dict[str, object] = {}
        if pool is not None:
            changes["pool"] = pool == "on"
        if pool_shows_server is not None:
            changes["pool_shows_server"] = pool_shows_server == "on"
        if threads is not None:
            changes["threads"] = threads == "on"
        if idle_claim_minutes is not None:
            changes["inactivity_timeout"] = idle_claim_minutes * 60
        if challenge_minutes is not None:
            changes["challenge_timeout"] = challenge_minutes * 60
        if default_mode is not None:
            changes["default_mode"] = default_mode
        if reminder_minutes is not None:
            changes["reminder_after"] = reminder_minutes * 60
        if default_pace is not None:
            changes["default_pace"] = default_pace
        if clocks is not None:
            changes["clocks"] = clocks.replace(" ", "").lower()
        if daily_puzzle == "off":
            changes["puzzle_channel"] = None
        elif puzzle_channel is not None or daily_puzzle == "on":
            changes["puzzle_channel"] = (
                puzzle_channel.id if puzzle_channel else interaction.channel_id
            )
        await self.admin.settings(interaction, changes)

    @tholos_admin.command(
        name=NC_("command", "end"),
        description=N_("End a stuck game: no result, not rated"),
    )
    @app_commands.describe(game=N_("The game to end (type a player's name)"))
    @app_commands.autocomplete(game=server_games)
    async def end(self, interaction: Interaction, game: int) -> None:
        """``/tholos-admin end game``."""
        await self.admin.end_game(interaction, game)


# -- what it says -------------------------------------------------------------------------------


def settings_embed(t: Translator, rules: ServerRules, *, changed: bool) -> discord.Embed:
    """A server's settings in force (``changed``: just saved)."""
    embed = discord.Embed(
        title=t("Tholos settings saved") if changed else t("Tholos settings"),
        colour=SANDSTONE,
    )
    threads = t("on") if rules.threads else t("off")
    embed.add_field(name=t("Threads"), value=threads, inline=True)
    embed.add_field(
        name=t("Idle claim"), value=minutes_text(t, rules.inactivity_timeout), inline=True
    )
    embed.add_field(
        name=t("Challenges expire"), value=minutes_text(t, rules.challenge_timeout), inline=True
    )
    embed.add_field(name=t("Default mode"), value=t(MODE_NAMES[rules.default_mode]), inline=True)
    reminders = minutes_text(t, rules.reminder_after) if rules.reminder_after > 0 else t("off")
    embed.add_field(name=t("Turn reminders after"), value=reminders, inline=True)
    embed.add_field(name=t("Default pace"), value=pace_name(t, rules.default_pace), inline=True)
    embed.add_field(
        name=t("Live clocks offered"), value=", ".join(rules.clocks) or t("none"), inline=True
    )
    daily = f"<#{rules.puzzle_channel}>" if rules.puzzle_channel is not None else t("off")
    embed.add_field(name=t("Puzzle of the day"), value=daily, inline=True)
    embed.add_field(name=t("Pool"), value=t("on") if rules.pool else t("off"), inline=True)
    shown = t("on") if rules.pool_shows_server else t("off")
    embed.add_field(name=t("Server's name shown to the pool"), value=shown, inline=True)
    embed.description = t(
        "Change them with {command} (Manage Server).", command=command("tholos-admin settings")
    )
    return embed
