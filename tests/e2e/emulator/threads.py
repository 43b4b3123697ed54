"""Threads: creating, archiving, deleting, joining, and the gateway events they cause.

A thread (type 11) belongs to the guild of its parent text channel; permissions in it are the
parent's (``Guild.permissions_in``). Creating one dispatches THREAD_CREATE (``newly_created``);
from a message, the thread takes the message's id and the message shows it (``thread``, flag
HAS_THREAD); without one, a THREAD_CREATED notice (type 18) is posted in the parent, as Discord
does. A message or an interaction answer in an archived thread unarchives it, unless it is
locked. Threads are never archived by the clock: ``Emulator.archive`` does it.

A private thread (type 12) starts from no message and posts no notice; only its members and
those with Manage Threads see it (``Guild.permissions_in``), so the bot hears of it
(THREAD_CREATE) when it can see it: when it is created, if the bot may manage threads there, else
when the bot is added to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .messages import HAS_THREAD, Message
from .model import (
    GUILD_TEXT,
    JSON,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    Channel,
    Guild,
    User,
    iso_now,
    snowflake,
)
from .rules import Rejection
from .state import GUILD_MEMBERS, GUILDS

if TYPE_CHECKING:
    from .state import State

THREAD_CREATED = 18


def unknown_channel() -> Rejection:
    """Discord's answer for a channel that does not exist (or no longer does)."""
    return Rejection(404, 10003, "Unknown Channel", "http.unknown-resource")


def archived(thread: Channel) -> Rejection:
    """Discord's answer for an action an archived thread refuses."""
    state = "archived and locked" if thread.locked else "archived"
    detail = f"thread {thread.name!r} is {state}"
    return Rejection(400, 50083, "Thread is archived", "threads.archived", detail=detail)


def check_parent(parent: Channel) -> None:
    """Threads start in text channels only: not in a thread or a DM (50024)."""
    if parent.type != GUILD_TEXT:
        kind = "a thread" if parent.is_thread else "a DM" if parent.guild_id is None else "there"
        raise Rejection(
            400,
            50024,
            "Cannot execute action on this channel type",
            "threads.channel-type",
            detail=f"a thread cannot be started in {kind} (channel type {parent.type})",
        )


def check_limit(state: State, guild: Guild) -> None:
    """Refuse a new thread when the guild has ``config.max_active_threads`` active ones."""
    active, limit = len(guild.active_threads()), state.config.max_active_threads
    if active >= limit:
        raise Rejection(
            400,
            160006,
            "Maximum number of active threads reached",
            "threads.active-limit",
            detail=f"{guild.name!r} has {active} active threads (limit {limit})",
        )


def create(
    state: State,
    parent: Channel,
    *,
    name: str,
    owner: User,
    auto_archive_duration: int | None = None,
    rate_limit_per_user: int | None = None,
    message: Message | None = None,
    private: bool = False,
) -> Channel:
    """A new public thread of ``parent`` owned (and joined) by ``owner``, from ``message`` if
    given — or a ``private`` one, from no message —; its events are dispatched. The caller
    checked the rules."""
    assert not (private and message is not None), "a private thread starts from no message"
    guild = state.world.guild_of(parent)
    assert guild is not None
    now = iso_now()
    thread = Channel(
        id=message.id if message is not None else snowflake(),
        name=name,
        type=PRIVATE_THREAD if private else PUBLIC_THREAD,
        guild_id=guild.id,
        parent_id=parent.id,
        owner_id=owner.id,
        auto_archive_duration=auto_archive_duration or 1440,
        archive_timestamp=now,
        create_timestamp=now,
        rate_limit_per_user=rate_limit_per_user or 0,
        thread_members={owner.id: now},
    )
    guild.threads[thread.id] = thread
    if guild.sees(thread, state.world.bot.id):
        created = {**thread.to_json(me=state.world.bot.id), "newly_created": True}
        state.dispatch("THREAD_CREATE", created, GUILDS, guild.id)
    if message is not None:
        message.thread = thread
        message.flags |= HAS_THREAD
        state.edited(message)
    elif not private:  # a private thread posts no notice
        notice = Message(
            id=snowflake(),
            channel_id=parent.id,
            author=owner,
            content=name,
            type=THREAD_CREATED,
            reference={"channel_id": str(thread.id), "guild_id": str(guild.id)},
        )
        state.post(notice)
    state.journal.changed()
    return thread


def updated(state: State, thread: Channel) -> None:
    """Dispatch THREAD_UPDATE with the thread as it is now."""
    state.dispatch("THREAD_UPDATE", thread.to_json(), GUILDS, thread.guild_id)
    state.journal.changed()


def set_archived(state: State, thread: Channel, value: bool, *, locked: bool | None = None) -> None:
    """Archive or unarchive ``thread`` (and lock or unlock it), then THREAD_UPDATE."""
    if thread.archived != value:
        thread.archive_timestamp = iso_now()
    thread.archived = value
    if locked is not None:
        thread.locked = locked
    updated(state, thread)


def check_writable(channel: Channel) -> None:
    """Refuse a new message where Discord would: a deleted channel (404, 10003), an archived
    and locked thread (400, 50083)."""
    if channel.deleted:
        raise unknown_channel()
    if channel.is_thread and channel.archived and channel.locked:
        raise archived(channel)


def touch(state: State, channel: Channel) -> None:
    """A message went into ``channel``: an archived (unlocked) thread is unarchived."""
    if channel.is_thread and channel.archived and not channel.locked:
        set_archived(state, channel, False)


def check_not_archived(channel: Channel) -> None:
    """Refuse what an archived thread does not allow (editing or deleting messages, changing
    members): 400, 50083."""
    if channel.is_thread and channel.archived:
        raise archived(channel)


def add_member(state: State, thread: Channel, user_id: int) -> bool:
    """Add ``user_id`` to the thread (THREAD_MEMBERS_UPDATE); False if already a member."""
    if user_id in thread.thread_members:
        return False
    guild = state.world.guild_of(thread)
    bot = state.world.bot.id
    unseen = guild is not None and user_id == bot and not guild.sees(thread, bot)
    thread.thread_members[user_id] = iso_now()
    if unseen:  # the bot hears of a private thread it is added to
        state.dispatch("THREAD_CREATE", thread.to_json(me=bot), GUILDS, thread.guild_id)
    added = thread.thread_member_json(user_id)
    if guild is not None and user_id in guild.members:
        added["member"] = guild.members[user_id].to_json()
        added["presence"] = None
    _members_update(state, thread, user_id, {"added_members": [added]})
    return True


def remove_member(state: State, thread: Channel, user_id: int) -> bool:
    """Remove ``user_id`` from the thread (THREAD_MEMBERS_UPDATE); False if not a member."""
    if thread.thread_members.pop(user_id, None) is None:
        return False
    _members_update(state, thread, user_id, {"removed_member_ids": [str(user_id)]})
    return True


def _members_update(state: State, thread: Channel, user_id: int, change: JSON) -> None:
    """THREAD_MEMBERS_UPDATE: about the bot itself with GUILDS, about anyone else only with
    GUILD_MEMBERS too, as Discord sends it."""
    data: JSON = {
        "id": str(thread.id),
        "guild_id": str(thread.guild_id),
        "member_count": min(len(thread.thread_members), 50),
        **change,
    }
    intents = GUILDS if user_id == state.world.bot.id else GUILDS | GUILD_MEMBERS
    state.dispatch("THREAD_MEMBERS_UPDATE", data, intents, thread.guild_id)
    state.journal.changed()


def delete(state: State, channel: Channel) -> None:
    """Delete a thread (THREAD_DELETE) or a text channel with its threads (CHANNEL_DELETE):
    their messages are gone, without MESSAGE_DELETE events, as on Discord."""
    guild = state.world.guild_of(channel)
    assert guild is not None and not channel.deleted
    if channel.is_thread:
        del guild.threads[channel.id]
        _forget(state, channel)
        gone = {
            "id": str(channel.id),
            "guild_id": str(guild.id),
            "parent_id": str(channel.parent_id),
            "type": channel.type,
        }
        state.dispatch("THREAD_DELETE", gone, GUILDS, guild.id)
    else:
        del guild.channels[channel.id]
        for thread in [t for t in guild.threads.values() if t.parent_id == channel.id]:
            del guild.threads[thread.id]
            _forget(state, thread)
        _forget(state, channel)
        state.dispatch("CHANNEL_DELETE", channel.to_json(), GUILDS, guild.id)
    state.journal.changed()


def _forget(state: State, channel: Channel) -> None:
    channel.deleted = True
    for message in state.messages.values():
        if message.channel_id == channel.id:
            message.deleted = True
        if message.thread is channel:
            message.thread = None
            message.flags &= ~HAS_THREAD
