"""What every feature of one bot process shares: settings, storage, services, boards, and the
interactions under way; and how a handler finds its feature."""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from typing import Any, TypeVar

import discord

from bot.base.domain import (
    CORRESPONDENCE,
    PYTHON,
    ReminderDefaults,
    ServerRules,
    offered_clocks,
    offers,
    time_in_force,
)
from bot.base.settings import Settings
from bot.face.answers import Interactions
from bot.face.controls import Router
from bot.face.places import Places
from bot.face.poster import BoardPoster
from bot.services import ChallengeService, PlayService
from bot.services.reminders import Alarm
from bot.services.renderer import Renderer
from bot.storage import ChallengeStore, Database, GameListings, GameStore, RatingStore, Sweeps
from bot.storage.leases import LeaseStore
from bot.storage.servers import ServerSettings, ServerSettingsStore

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class App:
    """The shared parts of one bot process (built once by the client's ``setup_hook``)."""

    client: discord.Client
    settings: Settings
    database: Database
    games: GameStore
    listings: GameListings
    """Pages and choices of games for members to browse."""
    challenges: ChallengeStore
    sweeps: Sweeps
    """What this process's background loops look for, on its own servers."""
    ratings: RatingStore
    play: PlayService
    lobby: ChallengeService
    """How games start: challenges, rematches, games against the AI."""
    renderer: Renderer
    """Draws boards, replays and charts off the event loop."""
    places: Places
    """Where games live: threads, the channel's line, moving a game whose thread is gone."""
    poster: BoardPoster
    """Posts and records board messages."""
    leases: LeaseStore
    servers: ServerSettingsStore
    interactions: Interactions
    alarm: Alarm
    """Rung with the due time of every reminder a change stores (the housekeeping loop
    sleeps on it)."""
    flag_alarm: Alarm
    """Rung when a live clock starts, with when it runs out (the clocks' loop sleeps on
    it)."""

    @property
    def bot_id(self) -> int | None:
        """The bot's own user id (the AI plays under it), once connected."""
        return self.client.user.id if self.client.user else None

    @property
    def reminder_defaults(self) -> ReminderDefaults:
        """The bot's turn-reminder defaults (``THOLOS_REMINDER_AFTER``, the idle-claim time)."""
        return ReminderDefaults(self.settings.reminder_after, self.settings.inactivity_timeout)

    async def rules(self, guild_id: int) -> ServerRules:
        """The settings in force on a server: its admins' choices over the environment's."""
        chosen = await self.servers.get(guild_id)
        settings = self.settings
        return ServerRules(
            threads=settings.threads if chosen.threads is None else chosen.threads,
            inactivity_timeout=time_in_force(
                PYTHON, chosen.inactivity_timeout, settings.inactivity_timeout
            ),
            challenge_timeout=time_in_force(
                PYTHON, chosen.challenge_timeout, settings.challenge_timeout
            ),
            default_mode=chosen.default_mode or "basic",
            reminder_after=self.reminder_defaults.resolve(
                chosen.reminder_after, chosen.inactivity_timeout
            ),
            **paces_in_force(chosen, settings),
            puzzle_channel=chosen.puzzle_channel,
        )

    @classmethod
    def build(cls, client: discord.Client, settings: Settings, database: Database) -> App:
        """Wire the stores and services over ``database``."""
        games, challenges = GameStore(database), ChallengeStore(database)
        sweeps = Sweeps(database, settings.shards)
        holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        leases = LeaseStore(database, holder)
        alarm, flag_alarm = Alarm(), Alarm()
        reminders = ReminderDefaults(settings.reminder_after, settings.inactivity_timeout)
        renderer, places = Renderer(), Places(client, games)
        ratings = RatingStore(database)
        return cls(
            client=client,
            settings=settings,
            database=database,
            games=games,
            listings=GameListings(database),
            sweeps=sweeps,
            challenges=challenges,
            ratings=ratings,
            play=PlayService(
                games,
                inactivity_timeout=settings.inactivity_timeout,
                leases=leases,
                reminders=reminders,
                alarm=alarm.ring,
            ),
            lobby=ChallengeService(
                challenges,
                games,
                challenge_timeout=settings.challenge_timeout,
                reminders=reminders,
                alarm=alarm.ring,
                rating=ratings.rating,
                sweeps=sweeps,
            ),
            renderer=renderer,
            places=places,
            poster=BoardPoster(
                client,
                games,
                leases,
                renderer,
                places,
                live=settings.web_port is not None,
                alarm=flag_alarm.ring,
            ),
            leases=leases,
            servers=ServerSettingsStore(database),
            interactions=Interactions(),
            alarm=alarm,
            flag_alarm=flag_alarm,
        )


class Feature:
    """One feature of the bot: its handlers and flows, over the shared :class:`App`."""

    def __init__(self, app: App) -> None:
        self.app = app

    def register(self, router: Router) -> None:
        """Route this feature's buttons to its handlers (it has none unless it says so)."""

    @property
    def interactions(self) -> Interactions:
        """The interactions under way (see :func:`bot.face.answers.answers`)."""
        return self.app.interactions


def feature_of(source: discord.Interaction[Any] | discord.Client, kind: type[T]) -> T:
    """The running bot's feature of class ``kind`` (slash-command handlers find theirs from
    the interaction)."""
    client = source.client if isinstance(source, discord.Interaction) else source
    features = getattr(client, "features", {})
    feature = features.get(kind)
    assert isinstance(feature, kind), f"the client has no {kind.__name__} feature"
    return feature


def paces_in_force(chosen: ServerSettings, settings: Settings) -> dict[str, Any]:
    """The clocks a server offers and its default pace: its admins' choices over the bot's. A
    default the offered clocks no longer include falls back to correspondence."""
    clocks = settings.clocks if chosen.clocks is None else offered_clocks(chosen.clocks)
    pace = chosen.default_pace or settings.default_pace
    if not offers(pace, clocks):
        pace = CORRESPONDENCE
    return {"clocks": clocks, "default_pace": pace}
