"""A tournament's announcement in its channel: what, how, when and who, with Join / Leave
while the sign-up is open, kept up to date as the tournament goes; and the scheduled event of
the server for its start."""

from __future__ import annotations

import datetime
import logging

import discord

from bot.discord.answers import Interaction
from bot.discord.app import App
from bot.discord.controls import ROW_ID, Button, CustomId, view_of
from bot.features.tournaments.service import expected_length
from bot.features.tournaments.store import Tournament, TournamentStore
from bot.i18n.catalogues import translator
from bot.loops.background import discord_call
from bot.words.names import escaped_name, plain_name
from bot.words.phrases import MODE_NAMES, pace_name
from engine.vocabulary import N_
from rendering.translator import Translator

log = logging.getLogger(__name__)

NO_PINGS = discord.AllowedMentions.none()


TOURNAMENT = CustomId("tn", (("tournament", ROW_ID, int), ("answer", "join|leave", str)))
"""Join or Leave on a tournament's announcement (answered by the feature's ``press``)."""


class Announcements:
    """Posts a tournament's announcement and shows on it where the tournament stands."""

    def __init__(self, app: App, store: TournamentStore) -> None:
        self.app = app
        self.store = store

    async def post(self, interaction: Interaction, tournament: Tournament) -> None:
        """Answer ``interaction`` with a new tournament's announcement, and schedule an event of
        the server for its start (where the bot may)."""
        t = translator(tournament.language)
        await interaction.response.send_message(
            announcement(t, tournament, []),
            view=signup_view(t, tournament),
            allowed_mentions=NO_PINGS,
        )
        message = await interaction.original_response()
        await self.store.set_message(tournament.id, message.id)
        if interaction.guild is not None and isinstance(interaction.channel, discord.TextChannel):
            event = await schedule_event(
                interaction.guild, interaction.channel, tournament, interaction.app_permissions
            )
            await self.store.set_message(tournament.id, message.id, event)
        if await self.store.entrants.entries(tournament.id):  # joined before it was known
            await self.refresh(tournament.id)

    async def refresh(self, tournament_id: int) -> None:
        """Show a tournament's state on its announcement."""
        tournament = await self.store.tournament(tournament_id)
        if tournament is None or tournament.message_id is None:
            return
        entries = await self.store.entrants.entries(tournament.id)
        t = translator(tournament.language)
        channel = self.app.client.get_partial_messageable(tournament.channel_id)
        message = channel.get_partial_message(tournament.message_id)
        text = announcement(t, tournament, [entry.user_id for entry in entries])
        try:
            await discord_call(
                message.edit(
                    content=text, view=signup_view(t, tournament), allowed_mentions=NO_PINGS
                )
            )
        except (discord.HTTPException, TimeoutError) as error:
            log.info("could not update tournament %s's announcement: %s", tournament.id, error)
            if not isinstance(error, discord.NotFound):  # shown later (deleted: never)
                return
        await self.store.shown(tournament)


def announcement(t: Translator, tournament: Tournament, players: list[int]) -> str:
    """The tournament's public message: what, how, when, who, and where it stands."""
    pace = pace_name(t, tournament.time_control)
    if tournament.clock is None:
        pace += " · " + t.plural(
            "{count} hour a round", "{count} hours a round", round(tournament.round_hours)
        )
    mode = t(MODE_NAMES[tournament.mode])
    if tournament.mode == "advanced":
        mode += " · " + t.plural("{count} ornament", "{count} ornaments", tournament.ornaments)
    rated = t("rated") if tournament.rated else t("unrated")
    lines = [
        t(
            "🏆 **{name}** — {format}, organised by {organiser}.",
            name=escaped_name(tournament.name),
            format=format_text(t, tournament),
            organiser=f"<@{tournament.organiser_id}>",
        ),
        f"{pace} · {mode} · {rated}",
        t(
            "Players ({count}/{limit}): {players}",
            count=len(players),
            limit=tournament.max_players,
            players=", ".join(f"<@{p}>" for p in players) or "—",
        ),
    ]
    when = f"<t:{int(tournament.starts_at)}:R>"
    status = {
        "signup": N_("Sign-up open: press **Join**. It starts {when}."),
        "running": N_("Under way: round {round} of {rounds}."),
        "paused": N_("⏸️ Paused in round {round} of {rounds}."),
        "finished": N_("🏁 Finished after {round} rounds."),
        "cancelled": N_("Cancelled (fewer than two players, or by its organiser)."),
    }[tournament.status]
    lines.append(t(status, when=when, round=tournament.round, rounds=tournament.rounds))
    return "\n".join(lines)


def signup_view(t: Translator, tournament: Tournament) -> discord.ui.View:
    """Join / Leave, enabled while the sign-up is open."""
    open_ = tournament.status == "signup"
    return view_of(
        [
            Button.of(
                TOURNAMENT,
                tournament=tournament.id,
                answer="join",
                label=t("Join"),
                emphasis="success",
                enabled=open_,
            ),
            Button.of(
                TOURNAMENT,
                tournament=tournament.id,
                answer="leave",
                label=t("Leave"),
                enabled=open_,
            ),
        ]
    )


async def schedule_event(
    guild: discord.Guild,
    channel: discord.abc.GuildChannel,
    tournament: Tournament,
    permissions: discord.Permissions,
) -> int | None:
    """A scheduled event of the server for the tournament's start, where the bot may make one
    (its ``permissions``: Create Events or Manage Events); its id, or ``None``."""
    if not (permissions.create_events or permissions.manage_events):
        return None
    t = translator(tournament.language)
    start = datetime.datetime.fromtimestamp(tournament.starts_at, datetime.UTC)
    end = start + datetime.timedelta(seconds=expected_length(tournament))
    try:
        event = await discord_call(
            guild.create_scheduled_event(
                name=plain_name(tournament.name),
                start_time=start,
                end_time=end,
                entity_type=discord.EntityType.external,
                location=f"#{channel.name}"[:100],
                privacy_level=discord.PrivacyLevel.guild_only,
                description=t(
                    "A Tholos tournament: {format}. Join it in #{channel}.",
                    format=format_text(t, tournament),
                    channel=channel.name,
                )[:1000],
            )
        )
    except (discord.HTTPException, TimeoutError) as error:
        log.info("no scheduled event for tournament %s: %s", tournament.id, error)
        return None
    return event.id


async def drop_event(app: App, tournament: Tournament) -> None:
    """Delete the scheduled event of a tournament that was cancelled (best effort)."""
    if tournament.event_id is None:
        return
    try:
        await discord_call(
            app.client.http.delete_scheduled_event(tournament.guild_id, tournament.event_id)
        )
    except (discord.HTTPException, TimeoutError) as error:
        log.info("could not delete tournament %s's event: %s", tournament.id, error)


def format_text(t: Translator, tournament: Tournament) -> str:
    """``a Swiss of 5 rounds`` / ``a round robin`` / ``a double round robin``."""
    if tournament.format == "swiss":
        return t.plural("a Swiss of {count} round", "a Swiss of {count} rounds", tournament.rounds)
    if tournament.status == "signup" and tournament.rounds == 2:
        return t("a double round robin (everyone plays everyone twice)")
    return t("a round robin (everyone plays everyone)")
