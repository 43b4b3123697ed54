"""The puzzle of the day: a loop on the process that owns each server's shard. Each day (UTC)
it claims the day's puzzle for every server that chose a channel for it — the claim is the
row's primary key (server, day), so two processes never choose two —, posts it there with a
nonce of the server and day (a send repeated after a kill -9 is answered with the first
message), records the message once, and shows the answer of the days before. Each first
answer updates the day's tally on the message (how many solved it, and who first)."""

from __future__ import annotations

import asyncio
import datetime
import io
import logging
import time
from collections.abc import Callable

import discord

from bot.base.languages import Language
from bot.discord import layout
from bot.discord.answers import missing_permissions
from bot.discord.app import App
from bot.features.puzzles import views
from bot.features.puzzles.store import DailyPuzzle, PuzzleStore
from bot.features.puzzles.words import DAILY_INTRO, daily_status, image_view, puzzle_title
from bot.i18n.catalogues import language_of, translator
from bot.loops import work
from bot.loops.background import discord_call, nonce, stop_tasks
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.servers import SETTINGS_TOPIC

log = logging.getLogger(__name__)

LOOK_AGAIN_SECONDS = 60.0
"""The longest the loop sleeps (a settings change, or midnight, wakes it sooner)."""
NO_PINGS = discord.AllowedMentions.none()


def day_of(now: float) -> str:
    """The UTC day of ``now``, ``YYYY-MM-DD``."""
    return datetime.datetime.fromtimestamp(now, datetime.UTC).date().isoformat()


def seconds_to_next_day(now: float) -> float:
    """Seconds from ``now`` to the next UTC midnight."""
    return 86400.0 - now % 86400.0


class Daily:
    """Posts each server's puzzle of the day and keeps its message up to date."""

    def __init__(self, app: App, store: PuzzleStore, clock: Callable[[], float] = time.time):
        self.app = app
        self.store = store
        self.clock = clock
        self._wakeup = work.Wakeup()
        self.tally = DailyTally(app, store)
        self._warned: set[tuple[int, str]] = set()
        """Today's servers whose channel was found unusable (said once in the log; the days
        before are forgotten at each sweep)."""
        self._stop_listening: Callable[[], None] = lambda: None

    def loop(self) -> Loop:
        """Posts what is due, then sleeps until woken (a server's settings changed), UTC
        midnight or :data:`LOOK_AGAIN_SECONDS`."""
        return Loop("puzzle of the day", self.sweep, LOOK_AGAIN_SECONDS, self._wakeup)

    async def listen(self) -> None:
        """Wake the loop when a server's settings change, on any process."""
        self._stop_listening = await self.app.database.listen(
            SETTINGS_TOPIC, lambda payload: self._wakeup.set()
        )

    async def close(self) -> None:
        """Stop listening and the message edits under way."""
        self._stop_listening()
        await self.tally.close()

    async def sweep(self) -> float:
        """Claim and post today's puzzle where it is wanted and not out yet; reveal the
        answers of the days before (a failure stops only its own server); the next sweep is
        due just after UTC midnight (or sooner: :data:`LOOK_AGAIN_SECONDS`)."""
        now = self.clock()
        day = day_of(now)
        self._warned = {warned for warned in self._warned if warned[1] == day}  # bounded
        for guild_id, channel_id in await self.store.dailies.wanted():
            try:
                daily = await self.store.dailies.get(guild_id, day)
                if daily is None:
                    daily = await self.store.dailies.claim(
                        guild_id, day, channel_id, self._language(guild_id)
                    )
                if daily is not None and daily.message_id is None:
                    await self._post(daily)
            except (DatabaseUnavailable, asyncio.CancelledError):
                raise
            except Exception:
                log.exception("puzzle of the day of server %s failed", guild_id)
        for done in await self.store.dailies.unrevealed(day):
            await self.store.dailies.reveal(done.guild_id, done.day)
            self.tally.refresh(done.guild_id, done.day)
        return time.time() + seconds_to_next_day(now) + 1.0

    def _language(self, guild_id: int) -> Language:
        guild = self.app.client.get_guild(guild_id)
        return language_of(guild.preferred_locale if guild is not None else None)

    def _may_post(self, daily: DailyPuzzle) -> bool:
        """Whether the bot may post in the day's channel (as far as its cache of the server
        knows: a channel gone, or a permission taken away since it was chosen, is said once a
        day in the log instead of being refused by Discord every minute)."""
        guild = self.app.client.get_guild(daily.guild_id)
        channel = guild.get_channel(daily.channel_id) if guild is not None else None
        allowed = discord.Permissions.none()  # the channel is gone
        if guild is not None and channel is not None:
            allowed = channel.permissions_for(guild.me)
        missing = missing_permissions(allowed)
        if missing and (daily.guild_id, daily.day) not in self._warned:
            self._warned.add((daily.guild_id, daily.day))
            log.warning(
                "cannot post server %s's puzzle of %s in channel %s: missing %s",
                daily.guild_id,
                daily.day,
                daily.channel_id,
                ", ".join(missing),
            )
        return not missing

    async def _post(self, daily: DailyPuzzle) -> None:
        """Post the day's puzzle and record its message (Discord refusing: tried again at the
        next sweep, with the same nonce)."""
        if not self._may_post(daily):
            return
        stored = await self.store.puzzle(daily.puzzle_id)
        assert stored is not None  # a daily puzzle references a stored one
        t = translator(daily.language)
        puzzle = stored.puzzle
        png, alt = await self.app.renderer.image(puzzle.position, image_view(t, puzzle))
        title = puzzle_title(t, stored, daily.day)
        look = views.look(t, stored, title, t(DAILY_INTRO), alt)
        view = look.layout(views.daily_row(t, daily), status=daily_status(t, daily, puzzle))
        file = discord.File(io.BytesIO(png), filename=layout.IMAGE_NAME, description=alt)
        channel = self.app.client.get_partial_messageable(daily.channel_id)
        try:
            message = await discord_call(
                channel.send(
                    view=view,
                    file=file,
                    allowed_mentions=NO_PINGS,
                    nonce=nonce("pd", daily.guild_id, daily.day, daily.puzzle_id),
                )
            )
        except (discord.HTTPException, TimeoutError) as error:
            log.warning(
                "could not post server %s's puzzle of %s: %s", daily.guild_id, daily.day, error
            )
            return
        if await self.store.dailies.posted(daily.guild_id, daily.day, message.id):
            log.info("posted server %s's puzzle of %s", daily.guild_id, daily.day)


class DailyTally:
    """The day's message kept up to date: its tally of solvers and, once revealed, its
    answer."""

    def __init__(self, app: App, store: PuzzleStore) -> None:
        self.app = app
        self.store = store
        self._dirty: set[tuple[int, str]] = set()
        self._refreshing: dict[tuple[int, str], asyncio.Task[None]] = {}

    async def close(self) -> None:
        """Stop the message edits under way."""
        await stop_tasks(list(self._refreshing.values()))

    def refresh(self, guild_id: int, day: str) -> None:
        """Show the day's tally (and, once revealed, its answer) on its message, soon: one
        edit at a time per message, the answers that came meanwhile in the next (so a burst of
        solvers costs a few edits, not one each)."""
        key = (guild_id, day)
        self._dirty.add(key)
        if key not in self._refreshing:
            self._refreshing[key] = work.start(self._refresh(key))

    async def _refresh(self, key: tuple[int, str]) -> None:
        try:
            while key in self._dirty:
                self._dirty.discard(key)
                await self._edit(*key)
        except DatabaseUnavailable as error:
            log.warning("puzzle of the day not updated: %s", error)
        finally:
            del self._refreshing[key]

    async def _edit(self, guild_id: int, day: str) -> None:
        daily = await self.store.dailies.get(guild_id, day)
        if daily is None or daily.message_id is None:
            return
        stored = await self.store.puzzle(daily.puzzle_id)
        assert stored is not None
        t = translator(daily.language)
        channel = self.app.client.get_partial_messageable(daily.channel_id)
        try:
            message = await discord_call(channel.fetch_message(daily.message_id))
            look = layout.BoardLook.of(message)
            if look is None:
                return
            status = daily_status(t, daily, stored.puzzle)
            await discord_call(
                message.edit(
                    view=look.layout(views.daily_row(t, daily), status=status),
                    allowed_mentions=NO_PINGS,
                )
            )
        except (discord.HTTPException, TimeoutError) as error:
            log.warning("could not update server %s's puzzle of %s: %s", guild_id, day, error)
