"""A stand-in for the few parts of ``discord.Client`` the background loops call (posting,
reading back and editing messages), recording what they did; a channel can be made to hang
(Discord never answers its requests). And :func:`eventually`, to wait for a condition instead
of a time."""

from __future__ import annotations

import asyncio
import datetime
import inspect
import itertools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, TypeVar

import discord
from discord.components import _component_factory

from bot.base.settings import Settings
from bot.discord.app import App, build
from bot.discord.feature import Feature
from bot.features.challenges.feature import Challenges
from bot.features.installed import features
from bot.features.play import PlayService
from bot.features.play.feature import Play
from bot.features.play.opponent import Opponent
from bot.storage.db import Database
from bot.workers.renderer import Renderer
from tests.databases import Services

BOT_ID = 999_000
PATIENCE = 120.0
"""How long :func:`eventually` waits before it fails (a hang guard, not a speed check)."""


@dataclass
class FakeMessage:
    """A message: what was sent, then each edit."""

    discord: FakeDiscord
    channel_id: int
    id: int
    sent: dict[str, Any] = field(default_factory=dict)
    edits: list[dict[str, Any]] = field(default_factory=list)

    async def edit(self, **changes: Any) -> FakeMessage:
        await self.discord.answer(self.channel_id)
        self.edits.append(changes)
        return self

    @property
    def author(self) -> FakeUser:
        """The bot: it posts every message here."""
        return self.discord.user

    @property
    def created_at(self) -> datetime.datetime:
        return datetime.datetime.now(datetime.UTC)

    @property
    def components(self) -> list[discord.components.Component]:
        """The components as Discord gives them back (parsed by discord.py from the payload of
        the newest view sent or edited in)."""
        views = [self.sent.get("view")] + [edit["view"] for edit in self.edits if "view" in edit]
        view = views[-1]
        if view is None:
            return []
        parsed = (_component_factory(component) for component in view.to_components())
        return [component for component in parsed if component is not None]

    @property
    def attachments(self) -> list[SimpleNamespace]:
        file = self.sent.get("file")
        return [] if file is None else [SimpleNamespace(filename=file.filename)]


@dataclass
class FakeChannel:
    """A channel (or thread, or DM) by id."""

    discord: FakeDiscord
    id: int

    async def send(self, content: str | None = None, **options: Any) -> FakeMessage:
        await self.discord.answer(self.id)
        message = FakeMessage(
            self.discord, self.id, next(self.discord.ids), {"content": content, **options}
        )
        self.discord.messages[message.id] = message
        return message

    async def fetch_message(self, message_id: int) -> FakeMessage:
        await self.discord.answer(self.id)
        return self.discord.messages[message_id]

    async def history(self, limit: int) -> AsyncIterator[FakeMessage]:
        """The channel's newest messages first, at most ``limit``."""
        await self.discord.answer(self.id)
        for message in self.discord.in_channel(self.id)[::-1][:limit]:
            yield message

    def get_partial_message(self, message_id: int) -> FakeMessage:
        return self.discord.messages.setdefault(
            message_id, FakeMessage(self.discord, self.id, message_id)
        )


@dataclass(frozen=True)
class FakeUser:
    id: int


class FakeDiscord:
    """Discord as the bot's client sees it in background work; requests to a channel in
    :attr:`hanging` never get an answer (the caller's timeout must end them)."""

    def __init__(self) -> None:
        self.user = FakeUser(BOT_ID)
        self.ids = itertools.count(5_000_000)
        self.messages: dict[int, FakeMessage] = {}
        self.hanging: set[int] = set()
        self.hung: list[int] = []
        """The channels whose requests were left hanging, in order."""
        self.closed = False

    async def answer(self, channel_id: int) -> None:
        """Answer a request to ``channel_id`` (never, if it hangs)."""
        if channel_id in self.hanging:
            self.hung.append(channel_id)
            await asyncio.get_running_loop().create_future()  # never done
        await asyncio.sleep(0)  # a request yields to the loop, as a real one does

    def in_channel(self, channel_id: int) -> list[FakeMessage]:
        """The messages posted in a channel, oldest first."""
        return [m for m in self.messages.values() if m.channel_id == channel_id and m.sent]

    def get_partial_messageable(self, channel_id: int) -> FakeChannel:
        return FakeChannel(self, channel_id)

    async def create_dm(self, user: Any) -> FakeChannel:
        return FakeChannel(self, -user.id)

    def get_guild(self, guild_id: int) -> None:
        return None

    def is_closed(self) -> bool:
        return self.closed

    async def wait_until_ready(self) -> None:
        return None


def fake_app(database: Database, discord: FakeDiscord | None = None) -> App:
    """The shared parts of a bot process over ``database``, talking to a fake Discord. Its
    boards are drawn on a thread, the same drawing as the worker process's (tested in
    ``test_renderer`` and by every end-to-end bot), without a process started for each test."""
    client = discord or FakeDiscord()
    renderer = Renderer(in_worker=False)
    return build(client, Settings(token="test"), database, renderer)  # type: ignore[arg-type]


F = TypeVar("F", bound=Feature)


class Wired:
    """Every feature over an app, wired as the client wires them (the AI searching with
    ``ai``, a fake search, if given), found by class."""

    def __init__(self, app: App, ai: Any = None) -> None:
        self.features = features(app, ai)

    def __getitem__(self, kind: type[F]) -> F:
        [found] = [feature for feature in self.features if isinstance(feature, kind)]
        return found


def services_of(app: App) -> Services:
    """How games start and are played, wired over ``app`` as the client wires them."""
    wired = Wired(app)
    return Services(wired[Challenges].service, wired[Play].service)


def opponent_of(app: App, play: PlayService, ai: Any, **options: Any) -> Opponent:
    """The AI opponent over ``app``'s parts and ``play``, searching with ``ai`` (a fake
    search)."""
    stores = app.stores
    return Opponent(app.client, stores.sweeps, stores.leases, play, app.poster, ai=ai, **options)


async def eventually(
    condition: Callable[[], object], what: str, patience: float = PATIENCE
) -> None:
    """Wait until ``condition()`` (or the awaitable it returns) is true, looking again every
    hundredth of a second; fail, saying ``what`` was awaited, if it never is."""
    try:
        async with asyncio.timeout(patience):
            while True:
                held = condition()
                if inspect.isawaitable(held):
                    held = await held
                if held:
                    return
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None
