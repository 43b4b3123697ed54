"""The emulated world: users, guilds with roles, text channels, public threads and members, and
permissions.

Everything serialises to the JSON shapes Discord sends (``to_json``), so discord.py parses it.
"""

from __future__ import annotations

import datetime
import itertools
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000

# Permission bits (https://discord.com/developers/docs/topics/permissions).
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
SEND_TTS_MESSAGES = 1 << 12
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_EVENTS = 1 << 33
CREATE_EVENTS = 1 << 44
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1
EVERYONE_DEFAULT = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
)
_NEED_SEND = MENTION_EVERYONE | SEND_TTS_MESSAGES | ATTACH_FILES | EMBED_LINKS

GUILD_TEXT = 0
DM = 1
GROUP_DM = 3
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12

PEOPLE = ("alice", "bob", "carol")

LOCALES = (
    "id",
    "da",
    "de",
    "en-GB",
    "en-US",
    "es-ES",
    "es-419",
    "fr",
    "hr",
    "it",
    "lt",
    "hu",
    "nl",
    "no",
    "pl",
    "pt-BR",
    "ro",
    "fi",
    "sv-SE",
    "vi",
    "tr",
    "cs",
    "el",
    "bg",
    "ru",
    "uk",
    "hi",
    "th",
    "zh-CN",
    "ja",
    "zh-TW",
    "ko",
)
"""Discord's locales (https://discord.com/developers/docs/reference#locales): a user's client
language, a guild's preferred locale, the keys of command localizations."""

_counter = itertools.count()
_counter_lock = threading.Lock()
_clock_offset = 0.0
"""Seconds Discord's clock, as the emulator keeps it, runs ahead of the machine's (negative:
behind): the time in every new snowflake (so in every message's and interaction's creation
time) and timestamp. Tests move it to play against time without waiting."""


def set_clock_offset(seconds: float) -> None:
    """Run Discord's clock ``seconds`` ahead of the machine's (0: in step)."""
    global _clock_offset
    _clock_offset = seconds


def discord_time() -> float:
    """Discord's current time (Unix seconds)."""
    return time.time() + _clock_offset


def snowflake(shard: tuple[int, int] | None = None) -> int:
    """A new, unique Discord snowflake for the current time.

    With ``shard=(shard_id, shard_count)``, the time is moved back (by less than
    ``shard_count`` ms) so that Discord's shard formula ``(id >> 22) % shard_count`` gives
    ``shard_id``.
    """
    with _counter_lock:
        increment = next(_counter) & 0xFFF
    ms = int(discord_time() * 1000) - DISCORD_EPOCH_MS
    if shard is not None:
        shard_id, count = check_shard(shard)
        ms -= (ms - shard_id) % count
    return (ms << 22) | (1 << 17) | (1 << 12) | increment


def check_shard(shard: object) -> tuple[int, int]:
    """``(shard_id, shard_count)`` from a shard pair; ValueError when it is malformed."""
    if (
        not isinstance(shard, (list, tuple))
        or len(shard) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
    ):
        raise ValueError(f"a shard is [shard_id, shard_count], not {shard!r}")
    shard_id, count = shard
    if count < 1 or not 0 <= shard_id < count:
        raise ValueError(f"shard {shard_id} of {count} does not exist")
    return shard_id, count


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a guild's events (Discord's formula)."""
    return (guild_id >> 22) % shard_count


def check_locale(locale: object) -> str:
    """``locale`` if it is one of Discord's ``LOCALES``; ValueError otherwise."""
    if not isinstance(locale, str) or locale not in LOCALES:
        raise ValueError(f"{locale!r} is not a Discord locale; they are {', '.join(LOCALES)}")
    return locale


def iso_now() -> str:
    """The current time as Discord's ISO-8601 timestamps."""
    return datetime.datetime.fromtimestamp(discord_time(), datetime.UTC).isoformat()


@dataclass(eq=False)
class User:
    """A Discord user (a person or the bot)."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    locale: str = "en-US"
    """The language of the user's Discord client, sent as ``locale`` in their interactions (not
    part of the user object others see)."""
    dms_closed: bool = False
    """The user does not accept direct messages from the bot (their privacy settings): posting
    in their DM channel answers 403, 50007."""

    def to_json(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class Role:
    """A guild role; the @everyone role has the guild's id."""

    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: int | None = None

    def to_json(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass(eq=False)
class Member:
    """A user's membership of the guild."""

    user: User
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def id(self) -> int:
        return self.user.id

    def to_json(self, *, with_user: bool = True, permissions: int | None = None) -> JSON:
        data: JSON = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_json()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class Overwrite:
    """A channel permission overwrite for a role (type 0) or a member (type 1)."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def to_json(self) -> JSON:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class Channel:
    """A guild text channel, a DM channel with ``recipient``, or a public (type 11) or private
    (type 12) thread of the text channel ``parent_id``, owned by ``owner_id``, with its members
    (``thread_members``: user id to join timestamp). ``deleted`` is set once the channel is
    gone."""

    id: int
    name: str
    type: int = GUILD_TEXT
    guild_id: int | None = None
    position: int = 0
    overwrites: list[Overwrite] = field(default_factory=list)
    recipient: User | None = None
    recipients: list[User] = field(default_factory=list)
    """The users of a DM or group DM between users (the bot is not one of them; ``recipient``
    is then None): see ``World.private_channel``."""
    last_message_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archive_timestamp: str | None = None
    create_timestamp: str | None = None
    rate_limit_per_user: int = 0
    thread_members: dict[int, str] = field(default_factory=dict)
    message_count: int = 0
    total_message_sent: int = 0
    deleted: bool = False

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD)

    @property
    def is_private_thread(self) -> bool:
        """A private thread: seen only by its members and those with Manage Threads."""
        return self.type == PRIVATE_THREAD

    @property
    def between_users(self) -> bool:
        """A DM between two users or a group DM: a private channel the bot is not in."""
        return self.type in (DM, GROUP_DM) and self.recipient is None

    def has_recipient(self, user: User) -> bool:
        """Whether ``user`` is in this DM or group DM (the bot's DM: its one recipient)."""
        return user is self.recipient or user in self.recipients

    def thread_member_json(self, user_id: int) -> JSON:
        """The thread member object of ``user_id`` (a member of this thread)."""
        return {
            "id": str(self.id),
            "user_id": str(user_id),
            "join_timestamp": self.thread_members[user_id],
            "flags": 0,
        }

    def to_json(self, *, me: int | None = None) -> JSON:
        """The channel object; for a thread, with ``member`` when ``me`` (the bot) is one."""
        last = str(self.last_message_id) if self.last_message_id else None
        if self.type in (DM, GROUP_DM):
            users = [self.recipient] if self.recipient is not None else self.recipients
            data: JSON = {
                "id": str(self.id),
                "type": self.type,
                "recipients": [user.to_json() for user in users],
                "last_message_id": last,
                "flags": 0,
            }
            if self.type == GROUP_DM:
                data.update(name=self.name or None, owner_id=str(self.owner_id), icon=None)
            return data
        if self.is_thread:
            data = {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild_id),
                "parent_id": str(self.parent_id),
                "owner_id": str(self.owner_id),
                "name": self.name,
                "last_message_id": last,
                "last_pin_timestamp": None,
                "rate_limit_per_user": self.rate_limit_per_user,
                "flags": 0,
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.archive_timestamp,
                    "locked": self.locked,
                    "create_timestamp": self.create_timestamp,
                    **({"invitable": True} if self.is_private_thread else {}),
                },
                "message_count": self.message_count,
                "member_count": min(len(self.thread_members), 50),
                "total_message_sent": self.total_message_sent,
            }
            if me is not None and me in self.thread_members:
                data["member"] = self.thread_member_json(me)
            return data
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [o.to_json() for o in self.overwrites],
            "topic": None,
            "nsfw": False,
            "last_message_id": last,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }


@dataclass(eq=False)
class Guild:
    """A guild, with its roles, channels, threads and members, and Discord's permission
    arithmetic."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    locale: str = "en-US"
    threads: dict[int, Channel] = field(default_factory=dict)
    scheduled_events: dict[int, JSON] = field(default_factory=dict)
    """The guild's scheduled events, as Discord answers them, by id."""

    def base_permissions(self, user_id: int) -> int:
        """Guild-wide permissions of a member: @everyone plus their roles."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        perms = self.roles[self.id].permissions
        for role_id in self.members[user_id].roles:
            perms |= self.roles[role_id].permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def permissions_in(self, channel: Channel, user_id: int) -> int:
        """A member's permissions in a channel, with its overwrites applied.

        In a thread they are those of its parent channel, except that sending (and what needs
        sending: embeds, files...) depends on Send Messages in Threads, not Send Messages; a
        private thread is seen (View Channel) only by its members and by those with Manage
        Threads.
        """
        private = channel if channel.is_private_thread else None
        thread = channel.is_thread
        if thread:
            parent = self.channels.get(channel.parent_id or 0)
            if parent is None:
                return 0
            channel = parent
        perms = self.base_permissions(user_id)
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        by_id = {o.id: o for o in channel.overwrites}
        everyone = by_id.get(self.id)
        if everyone is not None:
            perms = (perms & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for role_id in self.members[user_id].roles:
            o = by_id.get(role_id)
            if o is not None and o.type == 0:
                allow |= o.allow
                deny |= o.deny
        perms = (perms & ~deny) | allow
        own = by_id.get(user_id)
        if own is not None and own.type == 1:
            perms = (perms & ~own.deny) | own.allow
        if not perms & VIEW_CHANNEL:
            return 0
        if (
            private is not None
            and user_id not in private.thread_members
            and not perms & MANAGE_THREADS
        ):
            return 0
        if not perms & (SEND_MESSAGES_IN_THREADS if thread else SEND_MESSAGES):
            perms &= ~_NEED_SEND
        return perms

    def active_threads(self, *, seen_by: int | None = None) -> list[Channel]:
        """The threads that are not archived, oldest first (those the user ``seen_by`` can
        see, if given)."""
        return sorted(
            (
                t
                for t in self.threads.values()
                if not t.archived and (seen_by is None or self.sees(t, seen_by))
            ),
            key=lambda t: t.id,
        )

    def sees(self, channel: Channel, user_id: int) -> bool:
        """Whether ``user_id`` can see ``channel`` (View Channel there)."""
        return bool(self.permissions_in(channel, user_id) & VIEW_CHANNEL)

    def to_object_json(self) -> JSON:
        """The guild object (as in GUILD_UPDATE): GUILD_CREATE without its extra fields
        (members, channels, threads, counts...)."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.locale,
            "features": [],
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "max_members": 500000,
            "roles": [r.to_json() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
        }

    def to_json(self, *, members: list[Member], me: int | None = None) -> JSON:
        """The GUILD_CREATE payload, listing ``members`` and the active threads (with their
        ``member`` object where ``me``, the bot, joined)."""
        return {
            **self.to_object_json(),
            "joined_at": iso_now(),
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "members": [m.to_json() for m in members],
            "channels": [c.to_json() for c in self.channels.values()],
            "threads": [t.to_json(me=me) for t in self.active_threads(seen_by=me)],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": list(self.scheduled_events.values()),
            "soundboard_sounds": [],
        }


@dataclass(eq=False)
class World:
    """Everything the emulator knows besides messages: the bot, the people, the guilds, DMs.

    ``guild`` is the first guild (``guilds[0]``) and ``people`` are its members; every other
    guild has its own Member objects for the same users.
    """

    bot: User
    guild: Guild
    people: dict[str, Member]
    dms: dict[int, Channel] = field(default_factory=dict)
    guilds: list[Guild] = field(default_factory=list)
    strangers: dict[str, Member] = field(default_factory=dict)
    """Users who share no guild with the bot (e.g. who only installed the app), by name; their
    ``Member`` belongs to no guild."""
    private_channels: dict[int, Channel] = field(default_factory=dict)
    """DMs between users and group DMs: the bot is not in them (``private_channel``)."""
    guilds_without_bot: list[Guild] = field(default_factory=list)
    """Guilds the bot is not a member of (``add_guild_without_bot``): members who installed
    the app use its commands there; the bot hears nothing of them and may not call them."""

    def __post_init__(self) -> None:
        if self.guild not in self.guilds:
            self.guilds.insert(0, self.guild)

    @property
    def bot_member(self) -> Member:
        return self.guild.members[self.bot.id]

    def channel_named(self, name: str, guild: Guild | None = None) -> Channel:
        """The text channel ``name`` of ``guild`` (default: the first guild)."""
        guild = guild or self.guild
        for channel in guild.channels.values():
            if channel.name == name:
                return channel
        raise KeyError(f"no channel named {name!r} in {guild.name!r}")

    def find_guild(self, guild_id: int | None) -> Guild | None:
        return next((g for g in self.guilds if g.id == guild_id), None)

    def guild_of(self, channel: Channel) -> Guild | None:
        """The guild a channel belongs to, with the bot or not (``None`` for a DM)."""
        if channel.guild_id is None:
            return None
        everywhere = self.guilds + self.guilds_without_bot
        return next((g for g in everywhere if g.id == channel.guild_id), None)

    def find_channel(self, channel_id: int) -> Channel | None:
        """A text channel, thread, DM or group DM by id, the bot in it or not (``None``: unknown
        or deleted): ``bot_in`` tells."""
        for guild in self.guilds + self.guilds_without_bot:
            found = guild.channels.get(channel_id) or guild.threads.get(channel_id)
            if found is not None:
                return found
        return self.dms.get(channel_id) or self.private_channels.get(channel_id)

    def bot_in(self, channel: Channel) -> bool:
        """Whether the bot is in ``channel``: its DMs and its guilds' channels, not DMs
        between users, group DMs, nor guilds without it. Discord sends it no gateway event
        from the others, and its REST calls there answer 403, 50001 Missing Access."""
        if channel.guild_id is None:
            return channel.id in self.dms
        return any(guild.id == channel.guild_id for guild in self.guilds)

    def private_channel(self, users: list[User], *, name: str = "") -> Channel:
        """A DM between two users (type 1, ``users`` two) or a group DM (type 3, owned by the
        first of ``users``, up to 10): the bot is not a recipient."""
        if len(users) < 2 or len(set(map(id, users))) != len(users) or len(users) > 10:
            raise ValueError("a DM needs two users, a group DM 2 to 10 different users")
        if self.bot in users:
            raise ValueError("the bot's own DMs are dm_with's")
        kind = DM if len(users) == 2 and not name else GROUP_DM
        if kind == DM:
            for channel in self.private_channels.values():
                if channel.type == DM and set(map(id, channel.recipients)) == set(map(id, users)):
                    return channel
        channel = Channel(
            id=snowflake(), name=name, type=kind, recipients=list(users), owner_id=users[0].id
        )
        self.private_channels[channel.id] = channel
        return channel

    def add_guild_without_bot(self, name: str, users: list[User]) -> Guild:
        """A guild of ``users`` (the first owns it) with ``general`` and ``games``, which never
        added the bot: not in ``guilds``, so the gateway never announces it."""
        guild = build_guild(name, snowflake(), self.bot, users, {"general": 0, "games": 0})
        del guild.members[self.bot.id]
        guild.roles = {guild.id: guild.roles[guild.id]}
        self.guilds_without_bot.append(guild)
        return guild

    def threads_of(self, parent: Channel) -> list[Channel]:
        """The threads of a text channel, oldest first."""
        guild = self.guild_of(parent)
        if guild is None:
            return []
        return sorted(
            (t for t in guild.threads.values() if t.parent_id == parent.id), key=lambda t: t.id
        )

    def bot_role(self, guild: Guild) -> Role:
        """The bot's managed role in ``guild``."""
        return next(r for r in guild.roles.values() if r.managed and r.bot_id == self.bot.id)

    def find_user(self, user_id: int) -> User | None:
        for guild in self.guilds:
            member = guild.members.get(user_id)
            if member is not None:
                return member.user
        return next((m.user for m in self.strangers.values() if m.id == user_id), None)

    def shares_guild(self, user_id: int) -> bool:
        """Whether the user is a member of a guild of the bot (every guild here has the bot)."""
        return any(user_id in guild.members for guild in self.guilds)

    def dm_with(self, user: User) -> Channel:
        """The bot's DM channel with ``user``, created on first use."""
        for channel in self.dms.values():
            if channel.recipient is user:
                return channel
        channel = Channel(id=snowflake(), name="", type=DM, recipient=user)
        self.dms[channel.id] = channel
        return channel

    def add_guild(self, name: str, *, shard: tuple[int, int] | None = None) -> Guild:
        """A new guild with the bot, the same ``alice`` (the owner), ``bob`` and ``carol`` (the
        same User objects) and the text channels ``general`` and ``games``; its id falls on
        ``shard`` if given."""
        users = [self.people[name].user for name in PEOPLE if name in self.people]
        users = users or [member.user for member in self.people.values()]
        guild = build_guild(name, snowflake(shard), self.bot, users, {"general": 0, "games": 0})
        self.guilds.append(guild)
        return guild


def build_guild(
    name: str, guild_id: int, bot: User, users: Iterable[User], denials: Mapping[str, int]
) -> Guild:
    """A guild owned by the first of ``users``, with the bot (its managed role has @everyone's
    default permissions) and a text channel per name in ``denials``, where the bot's role is
    denied those permissions."""
    people = [Member(user) for user in users]
    bot_role = Role(
        id=snowflake(),
        name=bot.username,
        permissions=EVERYONE_DEFAULT,
        position=1,
        managed=True,
        bot_id=bot.id,
    )
    guild = Guild(id=guild_id, name=name, owner_id=people[0].id)
    guild.roles = {
        guild_id: Role(id=guild_id, name="@everyone", permissions=EVERYONE_DEFAULT),
        bot_role.id: bot_role,
    }
    guild.members = {m.id: m for m in people}
    guild.members[bot.id] = Member(bot, roles=[bot_role.id])
    for position, (channel_name, deny) in enumerate(denials.items()):
        overwrites = [Overwrite(id=bot_role.id, type=0, deny=deny)] if deny else []
        channel = Channel(
            id=snowflake(),
            name=channel_name,
            guild_id=guild_id,
            position=position,
            overwrites=overwrites,
        )
        guild.channels[channel.id] = channel
    return guild


def default_world(bot_name: str = "Tholos", *, shard: tuple[int, int] | None = None) -> World:
    """A guild "Tholos Test" with the bot, three people and four text channels.

    Channels: ``general`` and ``games`` (the bot may do anything a member may), ``no-embeds``
    (the bot's role is denied Embed Links and Attach Files) and ``read-only`` (the bot's role is
    denied Send Messages). ``alice`` owns the guild; ``bob`` and ``carol`` are plain members.
    With ``shard``, the guild's id falls on that ``(shard_id, shard_count)``.
    """
    bot = User(id=snowflake(), username=bot_name, bot=True)
    users = [User(id=snowflake(), username=name, global_name=name.capitalize()) for name in PEOPLE]
    denials = {
        "general": 0,
        "games": 0,
        "no-embeds": EMBED_LINKS | ATTACH_FILES,
        "read-only": SEND_MESSAGES,
    }
    guild = build_guild("Tholos Test", snowflake(shard), bot, users, denials)
    people = {user.username: guild.members[user.id] for user in users}
    return World(bot=bot, guild=guild, people=people)
