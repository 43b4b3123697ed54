"""Who may open a game (its record, replay, analysis, review, on the page): its players, and the
members who can see its channel or thread — View Channel there, and for a private thread being
one of its members or having Manage Threads. A channel or thread the bot cannot find (deleted,
or hidden from the bot) is its players' alone.

Discord is asked, never the asker: the channel's overwrites and the server's roles from the
client's cache, a member's roles from the interaction or, for the live page, from Discord
(``guild.fetch_member``), a private thread's members from Discord; each answer Discord gives is
remembered :data:`REMEMBERED_SECONDS`, so a page stepping through a game costs no request per step.
A listing (``/tholos history``, ``/tholos games``) asks about all its rows at once, within its
:class:`Questions`: a row it would have to ask more about is left out, unsaid.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import discord

from bot.base.game import Game
from bot.base.refusals import Refusal
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.remembered import Remembered
from bot.loops.background import discord_call
from engine.vocabulary import N_

log = logging.getLogger(__name__)

REMEMBERED_SECONDS = 60.0
"""How long an answer of Discord's (a member's roles, a channel out of the cache, a private
thread's membership) is trusted: a member removed from a channel loses its games this long
after, at most."""
ASK_SECONDS = 2.0
"""The longest one question to Discord may take (an interaction is answered within 3 s); one
unanswered in time counts as "no" (only the players then)."""

LISTING_QUESTIONS = 8
"""The most questions to Discord one listing page may ask (an archived thread, a private
thread's members): what it would still have to ask about is left out of the page, unsaid."""
LISTING_SECONDS = 1.2
"""The longest a listing page waits for Discord's answers (it is answered within 3 s, with
its reads of the database): what is still undecided then is left out, unsaid."""

NO_SUCH_GAME = N_("That isn't a finished game of this server.")
"""The one answer for a game id that is not a finished game the asker may open, whatever the
reason (none, another server's, still playing, in a channel they cannot see): they read alike."""
NOT_PLAYED_HERE = N_("That isn't a finished game played here.")
"""The same answer outside the servers with the bot (a DM, a group DM, a server without the
bot), whose games are those of the channel they were played in."""


class Invitation(Protocol):
    """A challenge, as the rule sees it: where it was made, its challenger and opponent (none
    yet: an open one)."""

    @property
    def guild_id(self) -> int: ...
    @property
    def channel_id(self) -> int: ...
    @property
    def challenger_id(self) -> int: ...
    @property
    def opponent_id(self) -> int | None: ...


ChannelOrThread = discord.abc.GuildChannel | discord.Thread
Listed = TypeVar("Listed", bound=Game | Invitation)


class Unasked(Exception):
    """A question to Discord a listing has no more :class:`Questions` for."""


class Questions:
    """What one listing page may still ask of Discord: at most so many questions, until a
    moment (answers remembered cost none)."""

    def __init__(self, most: int = LISTING_QUESTIONS, seconds: float = LISTING_SECONDS) -> None:
        self.left = most
        self.until = time.monotonic() + seconds

    def seconds_left(self) -> float:
        """How long the page may still wait for Discord."""
        return max(0.0, self.until - time.monotonic())

    def take(self) -> None:
        """Spend one question; raises :class:`Unasked` when none is left, or no time."""
        if self.left <= 0 or self.seconds_left() <= 0:
            raise Unasked
        self.left -= 1


class Visibility:
    """The one rule of who may open a game, asked of Discord."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._members: Remembered[tuple[int, int], discord.Member | None] = Remembered(
            REMEMBERED_SECONDS
        )
        self._places: Remembered[int, ChannelOrThread | None] = Remembered(REMEMBERED_SECONDS)
        self._in_thread: Remembered[tuple[int, int], bool] = Remembered(REMEMBERED_SECONDS)

    async def finished_game(
        self,
        game: Game | None,
        guild_id: int | None,
        channel_id: int,
        user_id: int,
        member: discord.abc.User | None = None,
    ) -> Game:
        """``game`` if it is a finished game of the server ``guild_id`` (or of the direct
        message ``channel_id``) that ``user_id`` may open (``member``: them, as an interaction
        from ``channel_id`` told it); raises :class:`Refusal` — the same words as for a game
        that does not exist — for any other."""
        game = finished_here(game, guild_id, channel_id)
        seen_in = channel_id if member is not None else None
        if not await self.can_see(game, user_id, member, seen_in=seen_in):
            raise Refusal(NO_SUCH_GAME if guild_id else NOT_PLAYED_HERE)
        return game

    async def can_see(
        self,
        game: Game | Invitation,
        user_id: int,
        member: discord.abc.User | None = None,
        *,
        seen_in: int | None = None,
        questions: Questions | None = None,
    ) -> bool:
        """Whether ``user_id`` may open ``game``: a player, or a member who can see its channel
        or thread (``member``: them as an interaction told it, with their roles; otherwise
        asked of Discord). ``seen_in``: the channel an interaction of theirs came from — Discord
        sends none from a channel one cannot see (a page's channel is no such proof: a session
        outlives a member's access). ``questions``: what a listing may still ask of Discord
        (raises :class:`Unasked` for a question beyond them). A challenge is seen as a game,
        its challenger and opponent as its players."""
        if user_id in _players(game) or seen_in == game.channel_id:
            return True
        return await self.sees_place(game.guild_id, game.channel_id, user_id, member, questions)

    async def sees_place(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        member: discord.abc.User | None = None,
        questions: Questions | None = None,
    ) -> bool:
        """Whether ``user_id`` can see the channel or thread ``channel_id`` of the server
        ``guild_id`` (see :meth:`can_see`)."""
        if guild_id == DIRECT_MESSAGES:
            return False  # a direct message is its player's
        guild = self.client.get_guild(guild_id)
        if guild is None:
            return False
        place = await self._place(guild, channel_id, questions)
        if place is None:
            return False
        if not isinstance(member, discord.Member) or member.guild.id != guild.id:
            member = await self._member(guild, user_id, questions)
        if member is None:
            return False
        try:
            permissions = place.permissions_for(member)
        except discord.ClientException:  # a thread whose channel is gone
            return False
        if not permissions.view_channel:
            return False
        if isinstance(place, discord.Thread) and place.is_private():
            return permissions.manage_threads or await self._member_of(place, user_id, questions)
        return True

    async def _place(
        self, guild: discord.Guild, channel_id: int, questions: Questions | None = None
    ) -> ChannelOrThread | None:
        """The channel or thread ``channel_id`` (an archived thread is not in the cache: asked of
        Discord); ``None`` when it is gone or hidden from the bot."""
        cached = guild.get_channel_or_thread(channel_id)
        if cached is not None:
            return cached
        return await self._places.get(
            channel_id, lambda: self._fetch_place(guild, channel_id), _spending(questions)
        )

    async def _fetch_place(self, guild: discord.Guild, channel_id: int) -> ChannelOrThread | None:
        try:
            found = await discord_call(self.client.fetch_channel(channel_id), ASK_SECONDS)
        except (discord.HTTPException, TimeoutError) as error:
            log.info("channel %s not found for a game's visibility: %s", channel_id, error)
            return None
        if isinstance(found, discord.Thread | discord.abc.GuildChannel) and (
            found.guild.id == guild.id
        ):
            return found
        return None

    async def _member(
        self, guild: discord.Guild, user_id: int, questions: Questions | None = None
    ) -> discord.Member | None:
        """``user_id`` as a member of ``guild`` with their roles (``None``: not a member)."""
        cached = guild.get_member(user_id)
        if cached is not None:
            return cached
        return await self._members.get(
            (guild.id, user_id), lambda: self._fetch_member(guild, user_id), _spending(questions)
        )

    @staticmethod
    async def _fetch_member(guild: discord.Guild, user_id: int) -> discord.Member | None:
        try:
            return await discord_call(guild.fetch_member(user_id), ASK_SECONDS)
        except discord.NotFound:
            return None
        except (discord.HTTPException, TimeoutError) as error:
            log.info("member %s of server %s not found: %s", user_id, guild.id, error)
            return None

    async def _member_of(
        self, thread: discord.Thread, user_id: int, questions: Questions | None = None
    ) -> bool:
        """Whether ``user_id`` is a member of the private ``thread``."""
        if any(member.id == user_id for member in thread.members):  # as Discord told it
            return True
        return await self._in_thread.get(
            (thread.id, user_id),
            lambda: self._fetch_thread_member(thread, user_id),
            _spending(questions),
        )

    @staticmethod
    async def _fetch_thread_member(thread: discord.Thread, user_id: int) -> bool:
        try:
            await discord_call(thread.fetch_member(user_id), ASK_SECONDS)
        except discord.NotFound:
            return False
        except (discord.HTTPException, TimeoutError) as error:
            log.info("member %s of thread %s not found: %s", user_id, thread.id, error)
            return False
        return True


async def visible(
    visibility: Visibility,
    listed: Sequence[Listed],
    user_id: int,
    member: discord.abc.User | None = None,
    *,
    seen_in: int | None = None,
    questions: Questions,
) -> list[Listed]:
    """Those of ``listed`` that ``user_id`` may see, in order (see :func:`verdicts`; one left
    undecided is left out)."""
    seen = await verdicts(visibility, listed, user_id, member, seen_in=seen_in, questions=questions)
    return [thing for thing, sees in zip(listed, seen, strict=True) if sees]


async def verdicts(
    visibility: Visibility,
    listed: Sequence[Game | Invitation],
    user_id: int,
    member: discord.abc.User | None = None,
    *,
    seen_in: int | None = None,
    questions: Questions,
) -> list[bool | None]:
    """Whether ``user_id`` may see each of ``listed`` (games, or challenges: their challenger
    and opponent as players), all asked at once within ``questions``: ``None`` for one still
    undecided when their time is up, or needing a question beyond them."""

    async def sees(thing: Game | Invitation) -> bool | None:
        try:
            return await visibility.can_see(
                thing, user_id, member, seen_in=seen_in, questions=questions
            )
        except Unasked:
            return None

    if not listed:
        return []
    checks = [asyncio.ensure_future(sees(thing)) for thing in listed]
    # A check that asks nothing ends at its first step, before even a timeout of 0 s.
    done, pending = await asyncio.wait(checks, timeout=questions.seconds_left())
    for check in pending:
        check.cancel()
    return [check.result() if check in done else None for check in checks]


def finished_here(game: Game | None, guild_id: int | None, channel_id: int) -> Game:
    """``game``, if it is a finished game of the server ``guild_id`` — or, with no server, of
    the direct message ``channel_id``; raises :class:`Refusal` (:data:`NO_SUCH_GAME`, without
    a server :data:`NOT_PLAYED_HERE`) for any other (or none). Who on the server may open it
    is :meth:`Visibility.finished_game`'s question."""
    if game is not None and guild_id is None and game.channel_id != channel_id:
        game = None  # another direct message's game
    if game is None or game.guild_id != (guild_id or DIRECT_MESSAGES) or game.is_active:
        raise Refusal(NO_SUCH_GAME if guild_id else NOT_PLAYED_HERE)
    return game


def _players(thing: Game | Invitation) -> tuple[int | None, ...]:
    """A game's players, or a challenge's challenger and opponent (none yet: an open one)."""
    if isinstance(thing, Game):
        return (thing.white_id, thing.black_id)
    return (thing.challenger_id, thing.opponent_id)


def _spending(questions: Questions | None) -> Callable[[], None] | None:
    """What asking Discord costs a listing: one of its ``questions`` (none: nothing)."""
    return None if questions is None else questions.take
