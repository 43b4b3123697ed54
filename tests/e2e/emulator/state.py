"""The emulator's shared state: configuration, world, messages, commands and interactions."""

from __future__ import annotations

import base64
import copy
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .activities import EMBEDDED, Activities
from .commands import CommandRegistry
from .journal import Journal
from .messages import Attachment, Message
from .model import JSON, Channel, World

if TYPE_CHECKING:
    from .interactions import Interaction

GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12

# (event, data, intents, guild id): a session gets the event if it has every intent bit (None:
# every session); the guild decides the shard; no guild (DMs) means shard 0.
Dispatch = Callable[[str, JSON, int | None, int | None], None]


def make_token(bot_id: int) -> str:
    """A bot token shaped like Discord's: base64 of the bot's id, a timestamp, an HMAC."""
    head = base64.urlsafe_b64encode(str(bot_id).encode()).decode().rstrip("=")
    return f"{head}.{secrets.token_urlsafe(4)}.{secrets.token_urlsafe(27)}"


@dataclass
class Config:
    """Tunable behaviour; ``ack_deadline`` is Discord's 3-second acknowledgement window;
    ``recommended_shards`` and ``max_concurrency`` are what ``GET /gateway/bot`` answers;
    ``max_active_threads`` is the number of active (not archived) threads a guild may have;
    ``nonce_window`` how long ``enforce_nonce`` finds an earlier message by its nonce ("the past
    few minutes")."""

    ack_deadline: float = 3.0
    heartbeat_interval_ms: int = 41_250
    attachment_size_limit: int = 10 * 1024 * 1024
    token: str = field(default="", repr=False)
    recommended_shards: int = 1
    max_concurrency: int = 1
    max_active_threads: int = 1000
    nonce_window: float = 300.0
    """Seconds during which a message's ``nonce`` is remembered for ``enforce_nonce``."""
    client_secret: str = field(default="", repr=False)
    """The application's OAuth2 client secret (``POST /oauth2/token``); random by default."""


@dataclass
class Application:
    """The bot's application: how it may be installed (``integration_types_config``: ``"0"``
    guild install, ``"1"`` user install, as ``PATCH /applications/@me`` set it) and the users
    who installed it to their account."""

    id: int
    integration_types_config: dict[str, JSON | None] = field(default_factory=lambda: {"0": {}})
    user_installs: set[int] = field(default_factory=set)
    activities: bool = False
    """Activities are enabled (``Emulator.enable_activities``): the app may launch them."""

    @property
    def integration_types(self) -> list[int]:
        """The install types the app supports (the default ``integration_types`` of commands)."""
        return sorted(int(key) for key in self.integration_types_config)

    def installed_by(self, user_id: int) -> bool:
        return user_id in self.user_installs


class State:
    """Everything the REST API, the gateway and the test API share."""

    def __init__(self, config: Config, world: World) -> None:
        self.config = config
        self.world = world
        if not config.token:
            config.token = make_token(world.bot.id)
        if not config.client_secret:
            config.client_secret = secrets.token_urlsafe(24)
        self.journal = Journal()
        self.application = Application(world.bot.id)
        self.commands = CommandRegistry(world.bot.id, self.application)
        self.activities = Activities(world.bot.id)
        self.interactions: dict[str, Interaction] = {}
        self.messages: dict[int, Message] = {}
        self.loose_attachments: dict[int, Attachment] = {}
        self.nonces: dict[tuple[int, int, str], tuple[Message, float]] = {}
        self.base_url = ""
        self.requests_in_flight = 0
        self.session_starts = 0
        self.dispatch: Dispatch = lambda event, data, intent, guild_id: None

    @property
    def application_id(self) -> int:
        return self.world.bot.id

    def application_json(self) -> JSON:
        """The application object, as ``GET /applications/@me`` answers it."""
        world = self.world
        owner = world.guild.members[world.guild.owner_id].user
        return {
            "id": str(self.application_id),
            "name": world.bot.username,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": EMBEDDED if self.application.activities else 0,
            "owner": owner.to_json(),
            "team": None,
            "bot": world.bot.to_json(),
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
            "approximate_guild_count": len(world.guilds),
            "integration_types_config": copy.deepcopy(self.application.integration_types_config),
        }

    def channel_messages(self, channel: Channel) -> list[Message]:
        return [m for m in self.messages.values() if m.channel_id == channel.id]

    def _event(self, message: Message) -> tuple[JSON, int, int | None]:
        """A message event's data, intent and guild id (that of the message's channel)."""
        data = message.to_json(self.base_url)
        channel = self.world.find_channel(message.channel_id)
        guild = self.world.guild_of(channel) if channel is not None else None
        if guild is None:
            return data, DIRECT_MESSAGES, None
        data["guild_id"] = str(guild.id)
        member = guild.members.get(message.author.id)
        if member is not None:
            data["member"] = member.to_json(with_user=False)
        return data, GUILD_MESSAGES, guild.id

    def by_nonce(
        self, channel_id: int, author_id: int, nonce: int | str, now: float
    ) -> Message | None:
        """The message posted in the channel by the author with this ``nonce`` within
        ``config.nonce_window`` seconds before ``now``, if it still exists."""
        found = self.nonces.get((channel_id, author_id, str(nonce)))
        if found is None or now - found[1] > self.config.nonce_window or found[0].deleted:
            return None
        return found[0]

    def remember_nonce(self, message: Message, now: float) -> None:
        assert message.nonce is not None
        self.nonces[(message.channel_id, message.author.id, str(message.nonce))] = (message, now)

    def post(self, message: Message) -> None:
        """Store a new message; everyone but ephemeral readers hears MESSAGE_CREATE (the bot
        only where it is: ``World.bot_in``)."""
        message.base_url = self.base_url
        self.messages[message.id] = message
        channel = self.world.find_channel(message.channel_id)
        if channel is not None and not message.ephemeral:
            channel.last_message_id = message.id
            if channel.is_thread:
                channel.message_count += 1
                channel.total_message_sent += 1
            if self.world.bot_in(channel):
                self.dispatch("MESSAGE_CREATE", *self._event(message))
        self.journal.changed()

    def _bot_hears(self, message: Message) -> bool:
        """Whether the bot gets gateway events of ``message``'s channel."""
        channel = self.world.find_channel(message.channel_id)
        return channel is None or self.world.bot_in(channel)

    def edited(self, message: Message) -> None:
        message.base_url = self.base_url
        if not message.ephemeral and self._bot_hears(message):
            self.dispatch("MESSAGE_UPDATE", *self._event(message))
        self.journal.changed()

    def delete(self, message: Message) -> None:
        message.deleted = True
        channel = self.world.find_channel(message.channel_id)
        if channel is not None and channel.is_thread and not message.ephemeral:
            channel.message_count = max(0, channel.message_count - 1)
        if not message.ephemeral and self._bot_hears(message):
            data, intent, guild_id = self._event(message)
            event = {k: data[k] for k in ("channel_id", "guild_id") if k in data}
            self.dispatch("MESSAGE_DELETE", {"id": str(message.id), **event}, intent, guild_id)
        self.journal.changed()
