"""Board messages: the image rendered off the event loop, the Components V2 layout around it,
the controls; posting a board, recording it, and stripping the controls of the one it replaces."""

from __future__ import annotations

import asyncio
import io
import logging
import math
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import discord

from engine import BLACK, WHITE, Position, Turn, parse_turn
from engine.builder import TurnBuilder
from engine.newgame import new_game
from engine.vocabulary import N_
from rendering.board import render_board
from rendering.describe import describe_board
from rendering.view import BoardView
from rendering.words import Words

from .answers import USERS_ONLY, Interaction, tell
from .controls import BoardLook, board_rows, final_rows, has_controls
from .i18n import words
from .logs import GAME_ID
from .metrics import METRICS
from .presenter import (
    board_accent,
    board_footer,
    board_header,
    board_status,
    describe_turn,
    game_line,
    step_prompt,
    thread_name,
)
from .storage import DatabaseUnavailable, Game, GameStore
from .storage.leases import LeaseStore, board_lease
from .threads import open_thread

log = logging.getLogger(__name__)
T = TypeVar("T")

IMAGE_NAME = "board.png"
ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description (alt text)."""
RENDER_THREADS = 2
"""Boards are rendered on this many threads: enough for 2 cores, and each thread's image
buffers are reused instead of spread over many threads."""
SAVED_BUT_NOT_SHOWN = N_(
    "That was saved, but I couldn't post the new board. `/tholos board` shows it (I'll also "
    "post it myself shortly)."
)

BEING_POSTED = N_("Saved — the new board is on its way.")
GONE_THREAD = (10003, 50083)
"""Discord's codes for a channel that is gone (Unknown Channel) and a thread that is archived
and locked."""
NO_PINGS = discord.AllowedMentions.none()
ENDED_ARCHIVE_MINUTES = 60
"""A finished game's thread is archived this long after its last message."""

Send = Callable[..., Awaitable[discord.Message]]


@dataclass(frozen=True, slots=True)
class LastTurn:
    """A turn to show on a board, and who played it."""

    turn: Turn
    player_id: int

    def words(self, t: Words) -> str:
        """``<@id> placed white on γ C, …``."""
        return describe_turn(t, self.turn, self.player_id)


def board_note(t: Words, game: Game) -> str | None:
    """The image's headline for a game that ended without a full temple."""
    if game.status == "aborted":
        return t("Ended by an admin: no result")
    outcome = game.outcome
    if outcome is None or outcome.reason not in ("resignation", "timeout"):
        return None
    winner = WHITE if outcome.result == "white" else BLACK
    if outcome.reason == "resignation":
        return t("{loser} resigned: {winner} wins", loser=game.name(1 - winner),
                 winner=game.name(winner))  # fmt: skip
    return t("{winner} wins on time", winner=game.name(winner))


class Boards:
    """Renders and posts the boards of games."""

    def __init__(
        self,
        client: discord.Client,
        games: GameStore,
        leases: LeaseStore,
        owns_guild: Callable[[int], bool],
    ) -> None:
        self.client = client
        self.games = games
        self.leases = leases
        self.owns_guild = owns_guild
        """Whether a server's shard runs in this process (only those boards are reposted)."""
        self._renderer = ThreadPoolExecutor(RENDER_THREADS, thread_name_prefix="render")
        self._unpostable: set[int] = set()

    async def warm_up(self) -> None:
        """Render one board before the first player waits for one (fonts, palette, caches)."""
        await self.draw(_render, new_game(), BoardView())

    async def draw(self, function: Callable[..., T], *arguments: object) -> T:
        """Run ``function(*arguments)`` (drawing with Pillow) on the render threads, off the
        event loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._renderer, function, *arguments)

    def close(self) -> None:
        """Stop the render threads."""
        self._renderer.shutdown(wait=False, cancel_futures=True)

    def is_ai_turn(self, game: Game) -> bool:
        """Whether ``game`` waits for the AI (a player whose user id is the bot's own)."""
        user = self.client.user
        return game.is_ai_turn(user.id if user is not None else None)

    async def last_turn(self, game: Game) -> LastTurn | None:
        """The game's newest turn, for the board's caption and highlight."""
        records = await self.games.turns(game.id, last=1)
        if not records:
            return None
        return LastTurn(parse_turn(records[-1].turn), records[-1].player_id)

    async def message(self, game: Game, last: LastTurn | None) -> dict[str, Any]:
        """The keyword arguments of a board message (in the game's language): one Components
        V2 container with the texts, the image at message width, the controls."""
        t = words(game.language)
        view = BoardView(
            white_name=game.white_name,
            black_name=game.black_name,
            last_turn=last.turn if last else None,
            final=not game.is_active,
            note=board_note(t, game),
            words=t,
        )
        png, alt = await self.draw(_render, game.position, view)
        alt = alt[:ALT_TEXT_LIMIT]
        file = discord.File(io.BytesIO(png), filename=IMAGE_NAME, description=alt)
        prompt, rows, pinged = None, final_rows(t, game), [game.white_id, game.black_id]
        if game.is_active and self.is_ai_turn(game):
            rows, pinged = [], []
        elif game.is_active:
            builder = TurnBuilder(game.position)
            step = builder.step()
            assert step is not None  # an active game always has a turn to play
            prompt = step_prompt(t, builder, step)
            rows, pinged = board_rows(t, game, builder, step), [game.to_move]
        look = BoardLook(
            accent=board_accent(game),
            header=board_header(t, game, last.words(t) if last else None),
            image=IMAGE_NAME,
            alt=alt,
            status=board_status(t, game, prompt),
            footer=board_footer(t, game),
        )
        bot = self.client.user.id if self.client.user else None
        mentions = discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(u) for u in pinged if u != bot]
        )
        return {"view": look.layout(rows), "file": file, "allowed_mentions": mentions}

    async def post(
        self,
        send: Send,
        game: Game,
        last: LastTurn | None,
        *,
        stripped: int | None = None,
        again: bool = False,
        leased: bool = False,
    ) -> discord.Message | None:
        """Post the board with ``send``, record it, and strip the controls of the previous one
        (unless it is ``stripped`` already).

        The first board of a game version is posted once: whoever posts it holds the version's
        lease until the board is recorded (``leased``: the transaction that stored the change
        took it), and nothing is posted (``None``) while someone else holds it. ``again`` posts
        the current board once more (``/tholos board``).
        """
        if again:
            return await self._post(send, game, last, stripped)
        lease = board_lease(game.id, game.version)
        if not leased and not await self.leases.acquire(lease, time.time()):
            log.info("board of game %s v%s is being posted elsewhere", game.id, game.version)
            return None
        try:
            return await self._post(send, game, last, stripped)  # recording ends the lease
        except BaseException:
            await self.leases.release(lease)
            raise

    async def _post(
        self, send: Send, game: Game, last: LastTurn | None, stripped: int | None
    ) -> discord.Message:
        try:
            message = await send(**await self.message(game, last))
        except discord.HTTPException as error:
            if game.parent_id is None or error.code not in GONE_THREAD:
                raise
            game = await self.relocate(game)  # a moderator deleted or locked its thread
            channel = self.client.get_partial_messageable(game.channel_id)
            message = await channel.send(**await self.message(game, last))
        if not await self.games.set_board_message(game.id, message.id, game.version):
            await self.strip_controls(game.channel_id, message)  # a newer board is out already
            return message
        previous = game.board_message_id
        if previous is not None and previous not in (message.id, stripped):
            await self.strip_controls(game.channel_id, previous)
        if not game.is_active:
            await self.show_result_in_parent(game)
        return message

    async def relocate(self, game: Game) -> Game:
        """Move a game whose thread is gone (deleted, or archived and locked) to a new thread
        on a new line in its channel, or to the channel itself when no thread can be opened."""
        assert game.parent_id is not None
        log.info("game %s lost its thread %s; moving it", game.id, game.channel_id)
        parent = self.client.get_channel(game.parent_id)
        if not isinstance(parent, discord.TextChannel):  # not cached: ask Discord
            parent = await self.client.fetch_channel(game.parent_id)
        assert isinstance(parent, discord.TextChannel)  # only text channels get game threads
        t = words(game.language)
        line = await parent.send(content=game_line(t, game), allowed_mentions=NO_PINGS)
        players = [game.white_id, game.black_id]
        name = thread_name(t, game.white_name, game.black_name)
        thread = await open_thread(line, name, players)
        if thread is None:
            await line.delete()
            return await self.games.move(
                game, channel_id=game.parent_id, parent_id=None, parent_message_id=None
            )
        moved = await self.games.move(
            game, channel_id=thread.id, parent_id=game.parent_id, parent_message_id=line.id
        )
        await line.edit(content=game_line(t, moved), allowed_mentions=NO_PINGS)
        return moved

    async def show_result_in_parent(self, game: Game) -> None:
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
                    content=game_line(words(game.language), game),
                    view=None,
                    allowed_mentions=USERS_ONLY,
                )
            )
        except discord.HTTPException as error:
            log.info("could not show game %s's result in its channel: %s", game.id, error)

    async def post_in_channel(
        self, game: Game, last: LastTurn | None, *, leased: bool = False, bare: bool = False
    ) -> discord.Message | None:
        """Post the board in the game's channel (no interaction to answer); ``bare``: the board
        it replaces has no controls to strip (it waited for the AI)."""
        channel = self.client.get_partial_messageable(game.channel_id)
        stripped = game.board_message_id if bare else None
        return await self.post(channel.send, game, last, leased=leased, stripped=stripped)

    async def post_after_change(
        self,
        interaction: Interaction,
        game: Game,
        last: LastTurn | None,
        *,
        stripped: int | None = None,
        leased: bool = False,
    ) -> None:
        """Post the board of a change already stored (in the game's thread when the interaction
        came from its channel); if that fails, say what happened."""
        GAME_ID.set(game.id)  # the rest of this interaction's task is about this game
        elsewhere = interaction.channel_id != game.channel_id
        send = (
            self.client.get_partial_messageable(game.channel_id).send
            if elsewhere
            else interaction.followup.send
        )
        try:
            posted = await self.post(send, game, last, stripped=stripped, leased=leased)
        except Exception as error:  # the change is stored: say so, whatever failed
            if isinstance(error, discord.HTTPException | DatabaseUnavailable):  # expected: no trace
                log.warning("could not post the board of game %s: %s", game.id, error)
            else:
                log.exception("could not post the board of game %s", game.id)
            await tell(interaction, SAVED_BUT_NOT_SHOWN)
            return
        if posted is None:  # another process is posting this version's board
            await tell(interaction, BEING_POSTED)
            return
        METRICS.board_latency.observe(time.time() - interaction.created_at.timestamp())
        if elsewhere:
            where = f"<#{game.channel_id}>"
            await tell(interaction, "Done — the board is in {thread}.", thread=where)

    async def strip_controls(
        self, channel_id: int, message: int | discord.Message
    ) -> None:
        """Remove the controls of an old board (best effort: it may be gone): its layout again
        without them (a V2 message keeps its layout on every edit)."""
        try:
            if isinstance(message, int):
                channel = self.client.get_partial_messageable(channel_id)
                message = await channel.fetch_message(message)
            look = BoardLook.of(message)
            if look is None:  # an embed board from before the layout
                await message.edit(view=None)
            elif has_controls(message):
                await message.edit(view=look.layout())
        except discord.HTTPException as error:
            log.info("could not strip the controls of message %s: %s", message, error)

    async def repost_missing(self, grace: float) -> float | None:
        """Post the boards of changes stored more than ``grace`` seconds ago but never shown
        (the bot died, or Discord failed, between storing and posting) on this process's
        servers; return when to look again for a board whose lease another poster holds
        (``None``: none is held)."""
        retry: float | None = None
        cutoff = time.time() - grace
        for stale in await self.games.games_needing_a_board(changed_before=cutoff):
            if stale.id in self._unpostable or not self.owns_guild(stale.guild_id):
                continue
            lease = board_lease(stale.id, stale.version)
            if not await self.leases.acquire(lease, time.time()):  # being posted, or its
                expiry = await self.leases.expires_at(lease)  # poster died: look again then
                retry = min(retry or math.inf, expiry or time.time())
                continue
            try:
                game = await self.games.game(stale.id)
                if game is None or not game.needs_a_board or game.version != stale.version:
                    await self.leases.release(lease)  # posted meanwhile, or changed again
                    continue
                channel = self.client.get_partial_messageable(game.channel_id)
                await self._post(channel.send, game, await self.last_turn(game), None)
            except DatabaseUnavailable:
                raise  # an outage, not this game's fault: the next round tries again
            except Exception:
                log.exception(
                    "could not post the board of game %s; retrying at next start", stale.id
                )
                self._unpostable.add(stale.id)
                await self.leases.release(lease)
        return retry


def _render(position: Position, view: BoardView) -> tuple[bytes, str]:
    """The board image and its text description (runs in a worker thread)."""
    return render_board(position, view), describe_board(position, view)
