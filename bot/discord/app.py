"""What every feature of one bot process shares: settings, the stores, the services, boards,
the AI opponent and the interactions under way — built once, by :func:`build`."""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from typing import Any

import discord

from bot.base.paces import CORRESPONDENCE, offered_clocks, offers
from bot.base.server_rules import PYTHON, ReminderDefaults, ServerRules, time_in_force
from bot.base.settings import Settings
from bot.discord.answers import Interactions
from bot.discord.opponent import Opponent
from bot.discord.places import Places
from bot.discord.poster import BoardPoster, bot_id_of
from bot.discord.visibility import Visibility
from bot.features.analysis.store import PageRequestStore
from bot.features.challenges.service import ChallengeService
from bot.features.challenges.store import ChallengeStore
from bot.features.lessons.store import LessonStore
from bot.features.play.service import PlayService
from bot.features.puzzles.store import PuzzleStore
from bot.features.ratings.store import RatingStore
from bot.features.reminders.store import ReminderStore
from bot.features.reviews.store import ReviewStore
from bot.features.tournaments.store import TournamentStore
from bot.loops.alarm import Alarm
from bot.loops.loop import Loop
from bot.storage.db import Database
from bot.storage.games import GameStore
from bot.storage.leases import LeaseStore
from bot.storage.listings import GameListings
from bot.storage.servers import ServerSettings, ServerSettingsStore
from bot.storage.sweeps import Sweeps
from bot.workers.ai import Adviser, AiPlayer
from bot.workers.renderer import Renderer


@dataclass(frozen=True, slots=True)
class Stores:
    """The database's repositories, each built once (the sweeps over this process's
    servers)."""

    games: GameStore
    listings: GameListings
    """Pages and choices of games for members to browse."""
    challenges: ChallengeStore
    sweeps: Sweeps
    """What this process's background loops look for, on its own servers."""
    ratings: RatingStore
    leases: LeaseStore
    servers: ServerSettingsStore
    puzzles: PuzzleStore
    lessons: LessonStore
    tournaments: TournamentStore
    reviews: ReviewStore
    reminders: ReminderStore
    page_requests: PageRequestStore
    """The games members asked to analyse, for the live page they open next."""

    @classmethod
    def over(cls, database: Database, settings: Settings) -> Stores:
        shards = settings.shards
        holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        return cls(
            games=GameStore(database),
            listings=GameListings(database),
            challenges=ChallengeStore(database),
            sweeps=Sweeps(database, shards),
            ratings=RatingStore(database),
            leases=LeaseStore(database, holder),
            servers=ServerSettingsStore(database),
            puzzles=PuzzleStore(database, shards),
            lessons=LessonStore(database),
            tournaments=TournamentStore(database, shards),
            reviews=ReviewStore(database, shards),
            reminders=ReminderStore(database, shards),
            page_requests=PageRequestStore(database),
        )


@dataclass(frozen=True, slots=True)
class App:
    """The shared parts of one bot process (built once by the client's ``setup_hook``)."""

    client: discord.Client
    settings: Settings
    database: Database
    stores: Stores
    play: PlayService
    matchmaking: ChallengeService
    """How games start: challenges, open challenges, rematches, games against the AI."""
    renderer: Renderer
    """Draws boards, replays and charts off the event loop."""
    places: Places
    """Where games live: threads, the channel's line, moving a game whose thread is gone."""
    poster: BoardPoster
    """Posts and records board messages."""
    opponent: Opponent
    """The AI: starts games against it and plays its turns."""
    interactions: Interactions
    alarm: Alarm
    """Rung with the due time of every reminder a change stores (the reminders' loop sleeps
    on it)."""
    flag_alarm: Alarm
    """Rung when a live clock starts, with when it runs out (the clocks' loop sleeps on
    it)."""
    adviser: Adviser
    """Finds hints and the analysis board's best turns, in a worker process."""
    visibility: Visibility
    """Who may see a game or a challenge (its players, the members who see its channel): one
    memory of Discord's answers for every feature."""

    @property
    def bot_id(self) -> int | None:
        """The bot's own user id (the AI plays under it), once connected."""
        return bot_id_of(self.client)

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

    def loops(self) -> list[Loop]:
        """The loops of the shared parts: the AI opponent's picker."""
        return [self.opponent.loop()]

    async def close(self) -> None:
        """Stop what the shared parts run: the boards being posted, the AI, the renderer."""
        await self.poster.background.drain(CLOSE_SECONDS)
        await self.opponent.close()
        self.adviser.close()
        self.renderer.close()

    # The stores, by their names (every feature reads them from the App).
    games = property(lambda self: self.stores.games)
    listings = property(lambda self: self.stores.listings)
    challenges = property(lambda self: self.stores.challenges)
    sweeps = property(lambda self: self.stores.sweeps)
    ratings = property(lambda self: self.stores.ratings)
    leases = property(lambda self: self.stores.leases)
    servers = property(lambda self: self.stores.servers)
    puzzles = property(lambda self: self.stores.puzzles)
    lessons = property(lambda self: self.stores.lessons)
    tournaments = property(lambda self: self.stores.tournaments)
    reviews = property(lambda self: self.stores.reviews)
    reminders = property(lambda self: self.stores.reminders)
    page_requests = property(lambda self: self.stores.page_requests)


CLOSE_SECONDS = 10.0
"""How long a shutdown waits for the boards being posted from the background."""


def build(
    client: discord.Client,
    settings: Settings,
    database: Database,
    ai: AiPlayer | None = None,
    renderer: Renderer | None = None,
) -> App:
    """Wire the stores, services and shared parts of one process over ``database`` (``ai``:
    the AI's search, and ``renderer``: the boards' drawing, by default each in a worker
    process of its own)."""
    stores = Stores.over(database, settings)
    alarm, flag_alarm = Alarm(), Alarm()
    reminders = ReminderDefaults(settings.reminder_after, settings.inactivity_timeout)
    renderer, places = renderer or Renderer(), Places(client, stores.games)
    play = PlayService(
        stores.games,
        inactivity_timeout=settings.inactivity_timeout,
        leases=stores.leases,
        reminders=reminders,
        alarm=alarm.ring,
    )
    live = settings.web_port is not None
    poster = BoardPoster(
        client, stores.games, stores.leases, renderer, places, live=live, alarm=flag_alarm.ring
    )
    return App(
        client=client,
        settings=settings,
        database=database,
        stores=stores,
        play=play,
        matchmaking=ChallengeService(
            stores.challenges,
            stores.games,
            challenge_timeout=settings.challenge_timeout,
            reminders=reminders,
            alarm=alarm.ring,
            rating=stores.ratings.rating,
            sweeps=stores.sweeps,
        ),
        renderer=renderer,
        places=places,
        poster=poster,
        opponent=Opponent(client, stores.sweeps, stores.leases, play, poster, ai=ai),
        interactions=Interactions(),
        alarm=alarm,
        flag_alarm=flag_alarm,
        adviser=Adviser(),
        visibility=Visibility(client),
    )


def paces_in_force(chosen: ServerSettings, settings: Settings) -> dict[str, Any]:
    """The clocks a server offers and its default pace: its admins' choices over the bot's. A
    default the offered clocks no longer include falls back to correspondence."""
    clocks = settings.clocks if chosen.clocks is None else offered_clocks(chosen.clocks)
    pace = chosen.default_pace or settings.default_pace
    if not offers(pace, clocks):
        pace = CORRESPONDENCE
    return {"clocks": clocks, "default_pace": pace}
