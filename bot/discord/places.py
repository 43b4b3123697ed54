"""Where a game lives in a server with the bot: in a thread of its own (opened on the message
that started it, with both players added) or in the channel itself; the line that stands for
it in the channel; moving a game whose thread a moderator deleted or locked; showing its result
there once it is over. (Its venue: :mod:`bot.discord.venues`.)"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import discord

from bot.base.game import Game
from bot.discord.answers import USERS_ONLY, Interaction
from bot.discord.venues import venue_of
from bot.i18n.catalogues import translator
from bot.loops.background import discord_call, nonce
from bot.storage.games.store import GameStore
from bot.words.names import called_here, plain_name
from bot.words.phrases import result_text
from engine.vocabulary import N_
from rendering.translator import Translator

log = logging.getLogger(__name__)

AUTO_ARCHIVE_MINUTES = 1440
"""A game's thread is archived after a day without messages (a board posted unarchives it)."""
ENDED_ARCHIVE_MINUTES = 60
"""A finished game's thread is archived this long after its last message."""
THREAD_NAME_LIMIT = 100
"""Discord's limit on a thread's name."""
THREAD_EXISTS = 160004
"""Discord's code for a message that has a thread already."""
GONE_THREAD = (10003, 50083)
"""Discord's codes for a channel that is gone (Unknown Channel) and a thread that is archived
and locked."""
NO_PINGS = discord.AllowedMentions.none()
NO_THREADS = N_(
    "I'll play games started here in the channel itself. To give each game a thread of its "
    "own, a server admin can grant me **Create Public Threads** and **Send Messages in "
    "Threads** in this channel."
)
THREAD_FAILED = N_(
    "I couldn't open a thread for this game (the server may have reached Discord's limit of "
    "active threads), so it is played right here."
)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a game started from an interaction is played."""

    thread: bool
    """In a thread of its own (else in the interaction's channel)."""
    note: str | None = None
    """What the challenger should know about it (what to grant for threads)."""


def place_for(interaction: Interaction, threads_wanted: bool) -> Placement:
    """A thread when the server wants threads, the channel is a text channel and the bot may
    open threads and post in them there; else the channel itself, with a note when only a
    permission is missing."""
    channel = interaction.channel
    if not threads_wanted or not isinstance(channel, discord.TextChannel):
        return Placement(thread=False)
    if venue_of(interaction) != "server":  # the bot cannot open threads where it is not
        return Placement(thread=False)
    permissions = interaction.app_permissions
    if not (permissions.create_public_threads and permissions.send_messages_in_threads):
        return Placement(thread=False, note=NO_THREADS)
    return Placement(thread=True)


def thread_name(t: Translator, first: str, second: str) -> str:
    """A game's thread name, e.g. ``Ariadne vs Theseus · Tholos``, within Discord's 100
    characters whatever the names (each made one plain line, cut with an ellipsis when
    needed: a thread's name renders no markdown, and pings no one).

    >>> from rendering.translator import ENGLISH
    >>> thread_name(ENGLISH, "Ariadne", "Theseus")
    'Ariadne vs Theseus · Tholos'
    >>> name = thread_name(ENGLISH, "A" * 90, "B" * 90)
    >>> len(name) <= 100, name.count("…")
    (True, 2)
    """
    template = t("{white} vs {black} · Tholos", white="{white}", black="{black}")
    names = [plain_name(name) for name in (first, second)]
    room = (THREAD_NAME_LIMIT - len(template.format(white="", black=""))) // 2
    cut = [name if len(name) <= room else name[: room - 1] + "…" for name in names]
    return template.format(white=cut[0], black=cut[1])


def game_line(t: Translator, game: Game) -> str:
    """The line a game played in a thread keeps in its channel: who, where, and the result
    once it is over."""
    called = called_here(game)
    white, black = called(game.white_id), called(game.black_id)
    where = f"<#{game.channel_id}>"
    if game.is_active:
        return t(
            "⚔️ {white} vs {black} — the game is on in {thread}.",
            white=white,
            black=black,
            thread=where,
        )
    return t(
        "🏁 {white} vs {black} — {result} ({thread})",
        white=white,
        black=black,
        result=result_text(t, game),
        thread=where,
    )


@dataclass(frozen=True, slots=True)
class Opened:
    """A game's thread, opened on a message."""

    thread: discord.Thread
    new: bool
    """Opened now (``False``: it was there already, opened by a process that died before
    recording it); only a new thread is deleted when its game cannot start."""

    async def delete(self) -> None:
        """Delete the thread if this opened it and its game could not start (best effort)."""
        if not self.new:
            return
        try:
            await discord_call(self.thread.delete())
        except (discord.HTTPException, TimeoutError) as error:
            log.info("could not delete thread %s: %s", self.thread.id, error)


async def open_thread(
    client: discord.Client,
    message: discord.Message | discord.PartialMessage,
    name: str,
    players: list[int],
) -> Opened | None:
    """A public thread named ``name`` on ``message``, with ``players`` added; ``None`` when
    Discord refuses one (the server's thread limit, a permission changed meanwhile): the game
    is then played in the channel.

    Discord allows one thread per message (a second is refused): when the message has one
    already (a process opened it and was killed before recording its game: the message says
    so, or Discord's refusal does), that thread — its id is the message's — is named and
    used. Every request is under the background calls' timeout
    (:func:`~bot.loops.background.discord_call`)."""
    if isinstance(message, discord.Message) and message.flags.has_thread:
        opened = await _existing_thread(client, message.id, name)
    else:
        opened = await _new_thread(client, message, name)
    if opened is None:
        return None
    for user_id in players:
        try:
            await discord_call(opened.thread.add_user(discord.Object(user_id)))
        except (discord.HTTPException, TimeoutError) as error:  # they still see it listed
            log.info("could not add %s to thread %s: %s", user_id, opened.thread.id, error)
    return opened


async def _new_thread(
    client: discord.Client, message: discord.Message | discord.PartialMessage, name: str
) -> Opened | None:
    try:
        thread = await discord_call(
            message.create_thread(name=name, auto_archive_duration=AUTO_ARCHIVE_MINUTES)
        )
    except discord.HTTPException as error:
        if error.code == THREAD_EXISTS:  # the message we had was older than its thread
            return await _existing_thread(client, message.id, name)
        log.info("no thread for a game on message %s: %s", message.id, error)
        return None
    except TimeoutError:  # it may exist: the next try finds it
        log.info("no thread for a game on message %s: Discord did not answer", message.id)
        return None
    return Opened(thread, new=True)


async def _existing_thread(client: discord.Client, message_id: int, name: str) -> Opened | None:
    """The thread already opened on a message (its id is the message's), named ``name`` (an
    open challenge's taker may differ from the one its first thread was named after)."""
    try:
        found = await discord_call(client.fetch_channel(message_id))
        if not isinstance(found, discord.Thread):
            return None
        log.info("thread %s was opened before a restart; using it", found.id)
        if found.name != name or found.archived:
            found = await discord_call(found.edit(name=name, archived=False))
        return Opened(found, new=False)
    except (discord.HTTPException, TimeoutError) as error:
        log.info("could not use the thread already on message %s: %s", message_id, error)
        return None


async def post_pool_line(client: discord.Client, game: Game) -> int | None:
    """The line of the place a pool game is seen from, in a server that wants a thread per
    game (its caller asked its rules), before its first board there: posted in the channel
    (its nonce answers a repeat within minutes with the first), the thread to open on it; its
    id, or ``None`` where no thread can be opened (not a text channel, no permission)."""
    channel = client.get_channel(game.channel_id)
    if not isinstance(channel, discord.TextChannel):
        return None
    permissions = channel.permissions_for(channel.guild.me)
    if not (permissions.create_public_threads and permissions.send_messages_in_threads):
        return None
    line = await discord_call(
        channel.send(
            content=game_line(translator(game.language), game),
            allowed_mentions=NO_PINGS,
            nonce=nonce("gl", game.id, game.away or 0),
        )
    )
    return line.id


async def open_pool_thread(
    client: discord.Client, game: Game, line_id: int
) -> tuple[int, int] | None:
    """The thread of the place a pool game is seen from, opened on its line ``line_id`` (one
    it had already — its id is the line's — after a restart), with the player who asked there;
    ``(thread, line)``, or ``None`` when Discord refuses one (the game is shown in the
    channel)."""
    channel = client.get_channel(game.channel_id)
    if not isinstance(channel, discord.TextChannel):  # (its line was posted there)
        return None
    t = translator(game.language)
    line = channel.get_partial_message(line_id)
    here = game.white_id if game.away is None else game.away
    name = thread_name(t, game.white_name, game.black_name)
    opened = await open_thread(client, line, name, [here])
    if opened is None:
        return None
    moved = replace(game, channel_id=opened.thread.id, parent_id=game.channel_id)
    try:
        await discord_call(line.edit(content=game_line(t, moved), allowed_mentions=NO_PINGS))
    except (discord.HTTPException, TimeoutError) as error:  # it names the channel: no harm
        log.info("could not name game %s's thread on its line: %s", game.id, error)
    return opened.thread.id, line_id


class Places:
    """Moves games whose thread is gone, and shows results in the channel."""

    def __init__(self, client: discord.Client, games: GameStore) -> None:
        self.client = client
        self.games = games

    async def relocate(self, game: Game) -> Game:
        """Move a game whose thread is gone (deleted, or archived and locked) to a new thread
        on a new line in its channel, or to the channel itself when no thread can be opened."""
        assert game.parent_id is not None
        log.info("game %s lost its thread %s; moving it", game.id, game.channel_id)
        parent = self.client.get_channel(game.parent_id)
        if not isinstance(parent, discord.TextChannel):  # not cached: ask Discord
            parent = await self.client.fetch_channel(game.parent_id)
        assert isinstance(parent, discord.TextChannel)  # only text channels get game threads
        t = translator(game.language)
        line = await parent.send(content=game_line(t, game), allowed_mentions=NO_PINGS)
        players = [game.white_id, game.black_id]
        name = thread_name(t, game.white_name, game.black_name)
        opened = await open_thread(self.client, line, name, players)
        if opened is None:
            await line.delete()
            return await self.games.move(
                game, channel_id=game.parent_id, parent_id=None, parent_message_id=None
            )
        moved = await self.games.move(
            game, channel_id=opened.thread.id, parent_id=game.parent_id, parent_message_id=line.id
        )
        await line.edit(content=game_line(t, moved), allowed_mentions=NO_PINGS)
        return moved

    async def show_result(self, game: Game) -> None:
        """A game played in a thread ended: its line in the parent channel shows the result,
        and the thread is archived an hour after its last message (a rematch there, or any
        message, brings it back)."""
        if game.parent_id is None:
            return
        try:
            thread = self.client.get_channel(game.channel_id) or await self.client.fetch_channel(
                game.channel_id
            )
            if isinstance(thread, discord.Thread):
                await thread.edit(auto_archive_duration=ENDED_ARCHIVE_MINUTES)
        except discord.HTTPException as error:
            log.info("could not shorten thread %s's archiving: %s", game.channel_id, error)
        if game.parent_message_id is None:
            return
        try:
            await (
                self.client.get_partial_messageable(game.parent_id)
                .get_partial_message(game.parent_message_id)
                .edit(
                    content=game_line(translator(game.language), game),
                    view=None,
                    allowed_mentions=USERS_ONLY,
                )
            )
        except discord.HTTPException as error:
            log.info("could not show game %s's result in its channel: %s", game.id, error)
