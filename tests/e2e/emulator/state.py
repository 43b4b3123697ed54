"""The emulator's shared state: configuration, world, messages, commands and interactions."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
    ``max_active_threads`` is the number of active (not archived) threads a guild may have."""

    ack_deadline: float = 3.0
    heartbeat_interval_ms: int = 41_250
    attachment_size_limit: int = 10 * 1024 * 1024
    token: str = field(default="", repr=False)
    recommended_shards: int = 1
    max_concurrency: int = 1
    max_active_threads: int = 1000


class State:
    """Everything the REST API, the gateway and the test API share."""

    def __init__(self, config: Config, world: World) -> None:
        self.config = config
        self.world = world
        if not config.token:
            config.token = make_token(world.bot.id)
        self.journal = Journal()
        self.commands = CommandRegistry(world.bot.id)
        self.interactions: dict[str, Interaction] = {}
        self.messages: dict[int, Message] = {}
        self.loose_attachments: dict[int, Attachment] = {}
        self.base_url = ""
        self.requests_in_flight = 0
        self.last_request_end = 0.0
        self.session_starts = 0
        self.dispatch: Dispatch = lambda event, data, intent, guild_id: None

    @property
    def application_id(self) -> int:
        return self.world.bot.id

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

    def post(self, message: Message) -> None:
        """Store a new message; everyone but ephemeral readers hears MESSAGE_CREATE."""
        self.messages[message.id] = message
        channel = self.world.find_channel(message.channel_id)
        if channel is not None and not message.ephemeral:
            channel.last_message_id = message.id
            if channel.is_thread:
                channel.message_count += 1
                channel.total_message_sent += 1
            self.dispatch("MESSAGE_CREATE", *self._event(message))
        self.journal.changed()

    def edited(self, message: Message) -> None:
        if not message.ephemeral:
            self.dispatch("MESSAGE_UPDATE", *self._event(message))
        self.journal.changed()

    def delete(self, message: Message) -> None:
        message.deleted = True
        channel = self.world.find_channel(message.channel_id)
        if channel is not None and channel.is_thread and not message.ephemeral:
            channel.message_count = max(0, channel.message_count - 1)
        if not message.ephemeral:
            data, intent, guild_id = self._event(message)
            event = {k: data[k] for k in ("channel_id", "guild_id") if k in data}
            self.dispatch("MESSAGE_DELETE", {"id": str(message.id), **event}, intent, guild_id)
        self.journal.changed()
