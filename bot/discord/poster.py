"""Posting boards: the board message built from the game (its value, image and layout),
posted once per game version under that version's lease, recorded, and the controls of the
board it replaces stripped; from an interaction, or from the background — but where the bot is
not (a game's ``answers_only``), only as an interaction's answer, while its token lives."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.base.game import Game
from bot.base.logs import GAME_ID
from bot.discord import layout
from bot.discord.answers import Interaction, tell
from bot.discord.controls import has_controls
from bot.discord.places import GONE_THREAD, Places
from bot.health.metrics import METRICS
from bot.i18n.catalogues import translator
from bot.loops import work
from bot.loops.background import discord_call, nonce
from bot.storage.db import DatabaseUnavailable
from bot.storage.games.store import GameStore
from bot.storage.leases import LeaseStore, board_lease
from bot.words.board import LastTurn, board_of
from bot.words.phrases import command
from bot.workers.renderer import Renderer
from engine import parse_turn
from engine.vocabulary import N_

log = logging.getLogger(__name__)

SAVED_BUT_NOT_SHOWN = N_(
    "That was saved, but I couldn't post the new board. {board} shows it (I'll also post it "
    "myself shortly)."
)
SAVED_NOT_SHOWN_HERE = N_(
    "That was saved, but I couldn't show the new board. Press a button of the game, or use "
    "{board}, to see it."
)
BEING_POSTED = N_("Saved — the new board is on its way.")

Send = Callable[..., Awaitable[discord.Message]]


class AsStored:
    """The last turn of a board posted from the background: the game's, as stored."""


AS_STORED = AsStored()
FIND_POSTED_LIMIT = 20
"""How many of a channel's newest messages are searched for a board posted but not recorded
(it is the newest, unless the players wrote since)."""
TOKEN_SECONDS = 15 * 60
"""How long Discord accepts an interaction's token for its follow-ups and edits."""
TOKEN_MARGIN_SECONDS = 60
"""A board answering an interaction older than its token's life less this is left to the next
press (rendering and sending it must end before the token does)."""


class BoardPoster:
    """Posts the board messages of games, once per version, and answers the interaction that
    changed one; :attr:`posted` records them, :attr:`background` posts from the loops."""

    def __init__(
        self,
        client: discord.Client,
        games: GameStore,
        leases: LeaseStore,
        renderer: Renderer,
        places: Places,
        live: bool = False,
        alarm: Callable[[float], None] | None = None,
    ) -> None:
        self.client = client
        self.games = games
        self.leases = leases
        self.places = places
        self.messages = BoardMessages(client, renderer, games, live)
        self.posted = PostedBoards(client, games, places, alarm)
        self.background = BackgroundPosts(self)

    async def last_turn(self, game: Game) -> LastTurn | None:
        """The game's newest turn and who played it, for the board's caption and highlight."""
        records = await self.games.turns(game.id, last=1)
        if not records:
            return None
        return LastTurn(parse_turn(records[-1].turn), records[-1].player_id)

    async def post(
        self,
        send: Send,
        game: Game,
        last: LastTurn | None,
        *,
        stripped: int | None = None,
        again: bool = False,
        leased: bool = False,
        now: float | None = None,
    ) -> discord.Message | None:
        """Post the board with ``send``, record it, and strip the controls of the previous one
        (unless it is ``stripped`` already).

        The first board of a game version is posted once: whoever posts it holds the version's
        lease until the board is recorded (``leased``: the transaction that stored the change
        took it), and nothing is posted (``None``) while someone else holds it. ``again`` posts
        the current board once more (``/tholos board``). ``now``: Discord's time, if known
        (see :meth:`BoardMessages.message`).
        """
        if again:
            return await self.post_now(send, game, last, stripped, now)
        lease = board_lease(game.id, game.version, game.away)
        if not leased and not await self.leases.acquire(lease, time.time()):
            log.info("board of game %s v%s is being posted elsewhere", game.id, game.version)
            return None
        try:
            return await self.post_now(send, game, last, stripped, now)  # recording ends the lease
        except BaseException:
            await self.leases.release(lease)
            raise

    async def post_now(
        self,
        send: Send,
        game: Game,
        last: LastTurn | None,
        stripped: int | None = None,
        now: float | None = None,
    ) -> discord.Message:
        """Post and record the board (the caller holds its lease, or needs none)."""
        try:
            message = await send(**await self.messages.message(game, last, now))
        except discord.HTTPException as error:
            if game.parent_id is None or error.code not in GONE_THREAD:
                raise
            game = await self.places.relocate(game)  # a moderator deleted or locked its thread
            channel = self.client.get_partial_messageable(game.channel_id)
            message = await channel.send(**await self.messages.message(game, last, now))
        await self.posted.record(game, message, stripped)
        return message

    async def post_after_change(
        self,
        interaction: Interaction,
        game: Game,
        last: LastTurn | None,
        *,
        stripped: int | None = None,
        leased: bool = False,
    ) -> bool:
        """Post the board of a change already stored (in the game's thread when the interaction
        came from its channel); if that fails, say what happened. Whether it was posted (by
        this press)."""
        GAME_ID.set(game.id)  # the rest of this interaction's task is about this game
        if game.answers_only and not token_lives(interaction):  # the next press shows it
            log.info("game %s: the press's token is too old to answer with its board", game.id)
            return False
        elsewhere = interaction.channel_id != game.channel_id and not game.answers_only
        send = (
            self.client.get_partial_messageable(game.channel_id).send
            if elsewhere
            else interaction.followup.send
        )
        try:
            posted = await self.post(
                send, game, last, stripped=stripped, leased=leased, now=discord_now(interaction)
            )
        except Exception as error:  # the change is stored: say so, whatever failed
            if isinstance(error, discord.HTTPException | DatabaseUnavailable):  # expected: no trace
                log.warning("could not post the board of game %s: %s", game.id, error)
            else:
                log.exception("could not post the board of game %s", game.id)
            unshown = SAVED_NOT_SHOWN_HERE if game.answers_only else SAVED_BUT_NOT_SHOWN
            await tell(interaction, unshown, board=command("tholos board"))
            return False
        if posted is None:  # another process is posting this version's board
            await tell(interaction, BEING_POSTED)
            return False
        METRICS.board_latency.observe(time.time() - interaction.created_at.timestamp())
        if elsewhere:
            where = f"<#{game.channel_id}>"
            await tell(interaction, "Done — the board is in {thread}.", thread=where)
        return True


class BoardMessages:
    """Builds the board message of a game: its value in the game's language, its image and
    its layout."""

    def __init__(
        self, client: discord.Client, renderer: Renderer, games: GameStore, live: bool = False
    ) -> None:
        self.client = client
        self.renderer = renderer
        self.games = games
        self.live = live
        """Whether the bot serves the live board: the boards offer to open it."""

    async def message(
        self, game: Game, last: LastTurn | None, now: float | None = None
    ) -> dict[str, Any]:
        """The keyword arguments of a board message, in the game's language, to be posted at
        ``now`` by Discord's clock (default: this machine's): a live clock starts then."""
        bot_id = bot_id_of(self.client)
        game = await self.games.places.named(game)  # (a pool game's other server, if allowed)
        board = board_of(
            game,
            translator(game.language),
            last=last,
            bot_id=bot_id,
            live=self.live,
            now=time.time() if now is None else now,
        )
        png, alt = await self.renderer.board(board)
        return layout.message(board, png, alt, bot_id)


class PostedBoards:
    """The boards once posted: recorded (the previous board's controls stripped), and found
    again when their poster was killed before recording them."""

    def __init__(
        self,
        client: discord.Client,
        games: GameStore,
        places: Places,
        alarm: Callable[[float], None] | None = None,
    ) -> None:
        self.client = client
        self.games = games
        self.places = places
        self.alarm = alarm
        """Told when a live clock a board started runs out (the clocks' loop wakes then)."""

    async def record(
        self, game: Game, message: discord.Message, stripped: int | None = None
    ) -> None:
        """Record a posted board of ``game``'s version; strip the previous board's controls and,
        once the game is over, show its result in the channel first (a crash before the record
        posts, and shows, it all again)."""
        clock = _clock_start(game, message)
        if not game.is_active:
            await self.places.show_result(game)
        recorded = await self.games.set_board_message(
            game.id, message.id, game.version, clock, game.away
        )
        if not recorded:
            await self.strip_controls(game.channel_id, message)  # a newer board is out already
            return
        if clock is not None and self.alarm is not None:
            self.alarm(clock[1])
        previous = game.board_message_id
        reachable = not game.answers_only  # (else an old board's press is refused as outdated)
        if reachable and previous is not None and previous not in (message.id, stripped):
            await self.strip_controls(game.channel_id, previous)

    async def find(self, game: Game) -> discord.Message | None:
        """The board of ``game``'s version if it was posted but never recorded (its poster was
        killed in between): among the newest messages of its channel, the bot's one whose image
        is named after this version (``None``: none, or the history could not be read, or the
        bot may not read it: a game whose boards are answers)."""
        if game.answers_only:
            return None
        name = layout.image_name(game.id, game.version)
        channel = self.client.get_partial_messageable(game.channel_id)
        try:
            async for message in channel.history(limit=FIND_POSTED_LIMIT):
                if message.author.id == bot_id_of(self.client) and any(
                    attachment.filename == name for attachment in message.attachments
                ):
                    return message
        except discord.HTTPException as error:
            log.info("could not look for game %s's board: %s", game.id, error)
        return None

    async def strip_controls(self, channel_id: int, message: int | discord.Message) -> None:
        """Remove the controls of an old board (best effort: it may be gone): its layout again
        without them (a V2 message keeps its layout on every edit)."""
        try:
            if isinstance(message, int):
                channel = self.client.get_partial_messageable(channel_id)
                message = await channel.fetch_message(message)
            look = layout.BoardLook.of(message)
            if look is None:  # an embed board from before the layout
                await message.edit(view=None)
            elif has_controls(message):
                await message.edit(view=look.layout())
        except discord.HTTPException as error:
            log.info("could not strip the controls of message %s: %s", message, error)


class BackgroundPosts:
    """Boards posted from the background (no interaction to answer), in the game's channel,
    under the background calls' timeout; those posted beside their callers are drained at
    shutdown."""

    def __init__(self, poster: BoardPoster) -> None:
        self.poster = poster
        self._soon: set[asyncio.Task[None]] = set()

    async def post_in_channel(
        self, game: Game, last: LastTurn | None, *, leased: bool = False, bare: bool = False
    ) -> discord.Message | None:
        """Post the board in the game's channel; ``bare``: the board it replaces has no
        controls to strip (it waited for the AI). Not where the bot is not (``None``): the
        next press there shows it."""
        if game.answers_only:
            if leased:
                await self.leave_to_next_press(game)
            return None
        channel = self.poster.client.get_partial_messageable(game.channel_id)
        stripped = game.board_message_id if bare else None
        send = functools.partial(channel.send, nonce=board_nonce(game))
        return await self.poster.post(send, game, last, leased=leased, stripped=stripped)

    async def leave_to_next_press(self, game: Game) -> None:
        """A change where the bot is not (a page's turn, the AI's, a clock's): no board follows
        from the background. Free the board's lease the change took, so that the next press
        there shows it at once (not once the lease ran out)."""
        log.info("game %s: its board waits for the next press where it is played", game.id)
        try:
            await self.poster.leases.release(board_lease(game.id, game.version, game.away))
        except DatabaseUnavailable as error:  # it runs out by itself in a few seconds
            log.warning("game %s: the board's lease was not given back: %s", game.id, error)

    async def post_stored(
        self,
        game: Game,
        last: LastTurn | AsStored | None = AS_STORED,
        *,
        leased: bool = True,
        bare: bool = False,
        seconds: float | None = None,
    ) -> discord.Message | None:
        """Post the board of a change already stored (its transaction took the board's lease
        unless ``leased`` is false), under the background calls' timeout (``seconds``, else
        :func:`~bot.loops.background.discord_call`'s); a failure is logged and the board left to
        the repost (``None``). ``last``: the turn the board shows as the last (by default the
        game's last turn as stored)."""
        try:
            if isinstance(last, AsStored):
                last = await self.poster.last_turn(game)
            return await discord_call(
                self.post_in_channel(game, last, leased=leased, bare=bare), seconds
            )
        except (DatabaseUnavailable, TimeoutError, discord.HTTPException) as error:
            log.warning("the board of game %s is left to the repost: %r", game.id, error)
        except Exception:
            log.exception("could not post the board of game %s", game.id)
        return None

    def post_soon(
        self,
        game: Game,
        last: LastTurn | AsStored | None = AS_STORED,
        *,
        leased: bool = True,
        then: Callable[[], None] | None = None,
    ) -> asyncio.Task[None]:
        """:meth:`post_stored` beside the caller, in a task counted as work (the shutdown
        waits for it: :meth:`drain`); ``then`` runs once it is done, whatever became of it."""

        async def post() -> None:
            try:
                await self.post_stored(game, last, leased=leased)
            finally:
                if then is not None:
                    then()

        task = work.start(post())
        self._soon.add(task)
        task.add_done_callback(self._soon.discard)
        return task

    async def drain(self, seconds: float) -> None:
        """Wait (at most ``seconds``) for the boards being posted beside their callers."""
        if self._soon:
            await asyncio.wait(list(self._soon), timeout=seconds)


def board_nonce(game: Game) -> str:
    """The nonce of a board posted from the background: one per game, version and place, so
    that a post repeated after a kill -9 (within Discord's nonce window) is answered with the
    first message rather than shown twice."""
    return nonce("b", game.id, game.version, game.away or 0)


def bot_id_of(client: discord.Client) -> int | None:
    """The bot's user id (the AI's), once connected."""
    return client.user.id if client.user else None


def _clock_start(game: Game, board: discord.Message) -> tuple[float, float] | None:
    """When the clock of the player to move starts and runs out, if their ``board`` starts it
    (a live game, a human to move, no clock running yet): when it was posted, by Discord's
    clock."""
    left = game.clock_of(game.position.turn) if game.is_active else None
    if left is None or game.clock_started_at is not None:
        return None
    posted_at = board.created_at.timestamp()
    return posted_at, posted_at + left


def token_lives(interaction: Interaction, now: float | None = None) -> bool:
    """Whether ``interaction``'s token still has time to carry a board (Discord accepts it for
    :data:`TOKEN_SECONDS` after the interaction was made; :data:`TOKEN_MARGIN_SECONDS` are kept
    for the rendering and the request)."""
    age = (time.time() if now is None else now) - interaction.created_at.timestamp()
    return age < TOKEN_SECONDS - TOKEN_MARGIN_SECONDS


def discord_now(interaction: Interaction) -> float:
    """Discord's time, as near as the bot knows it, when the board answering ``interaction`` is
    posted: the press's creation by Discord's clock (the board follows it within a moment, so
    the end of a clock it starts shows that moment early at most)."""
    return interaction.created_at.timestamp()
