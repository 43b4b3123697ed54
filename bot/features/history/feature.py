"""After the game: ``/tholos history`` (a member's finished games, paged), and the final
board's Replay, Record and Analyse (``/tholos replay``, ``/tholos record``, ``/tholos
analyse``): only the one who asks sees them, so that nobody's request fills the channel — and
one's own history too (it lists one's games in DMs). They work wherever the app is installed:
outside the servers with the bot (a DM, a group DM, a server without the bot) a game is one of
the channel it was played in, stored with no server."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.game import Game, TurnRecord
from bot.base.paces import clock_text
from bot.base.refusals import Refusal
from bot.base.shards import DIRECT_MESSAGES
from bot.discord import layout
from bot.discord.answers import Interaction, answers, launch_live_board
from bot.discord.app import App
from bot.discord.commands import Command, Tholos, game_choices
from bot.discord.controls import (
    FLOAT,
    PAGE,
    ROW_ID,
    SNOWFLAKE,
    WAY,
    CustomId,
    Router,
    pager,
)
from bot.discord.feature import Feature
from bot.discord.venues import venue_of
from bot.discord.visibility import Questions, Visibility, verdicts
from bot.features.analysis import PageRequestStore
from bot.features.tournaments import PairingStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.storage.db import DatabaseUnavailable
from bot.storage.leases import answer_lease
from bot.storage.listings import Finish
from bot.words.board import board_note
from bot.words.names import escaped_name, mention
from bot.words.phrases import (
    SANDSTONE,
    WIN_LOSS_DRAW_MARK,
    ai_opponent,
    board_url,
    colour_name,
    reason_text,
)
from engine import BLACK, WHITE, parse_turn
from engine.record import RESULT_NOTATION, GameRecord, write_record
from engine.vocabulary import N_, points
from rendering import BoardView
from rendering.replay import render_replay
from rendering.translator import Translator

RECENT_GAMES = 25
"""How many of the caller's recent games the ``game`` option suggests."""
PROGRESS_AFTER_SECONDS = 1.0
"""A replay taking longer than this shows a note while it is drawn."""
ON_ITS_WAY = N_("That is on its way already: one press is enough.")
"""The answer to a second press of Replay, Record or Analyse while the first is answered."""


HISTORY = CustomId("hist", (("member", SNOWFLAKE, int), ("page", PAGE, int), ("way", WAY, str)))
"""Show that page of a member's finished games (Previous / Next; posted before keyset paging)."""
HISTORY_SEEK = CustomId(
    "hs",
    (
        ("member", SNOWFLAKE, int),
        ("page", PAGE, int),
        ("way", WAY, str),
        ("at", FLOAT, float),
        ("game", ROW_ID, int),
    ),
)
"""Previous / Next of a member's finished games: the page to show, and the first (Previous) or
last (Next) game the page read — its exact finishing time and id — to seek from."""


class History(Feature):
    """The handlers of finished games."""

    def __init__(self, app: App, pairings: PairingStore, page_requests: PageRequestStore) -> None:
        super().__init__(app)
        self.pairings, self.page_requests = pairings, page_requests
        self.finished = FinishedGames(app)
        self.histories = Histories(app, self.finished.visibility)

    def commands(self) -> list[Command]:
        return HistoryCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        """Route Previous / Next of the history, Replay, Record and Analyse here."""
        router.add(
            HISTORY,
            lambda interaction, member, page, way: self.history(
                interaction, member, page, edit=True
            ),
        )
        router.add(
            HISTORY_SEEK,
            lambda interaction, member, page, way, at, game: self.history(
                interaction, member, page, edit=True, seek=(way, Finish(at, game))
            ),
        )
        router.add(layout.REPLAY, lambda interaction, game: self.replay(interaction, game))
        router.add(layout.RECORD, lambda interaction, game: self.record(interaction, game))
        router.add(layout.ANALYSE, lambda interaction, game: self.analyse(interaction, game))

    @answers()
    async def history(
        self,
        interaction: Interaction,
        member_id: int,
        page: int = 0,
        *,
        edit: bool = False,
        seek: tuple[str, Finish] | None = None,
    ) -> None:
        """``/tholos history [member]`` (a new message: one's own, or any outside servers
        with the bot, to the caller alone) or its Previous / Next (the same one)."""
        shown = await self.histories.read(interaction, member_id, page, seek)
        t = reader(interaction)
        games = shown.found.games
        events = await self.pairings.labels([game.id for game in games])
        embed = history_embed(t, member_id, games, shown.page, shown.pages, shown.total, events)
        marks = {"p": shown.found.first, "n": shown.found.last}
        view = pager(
            t,
            HISTORY_SEEK,
            shown.page,
            shown.pages,
            member=member_id,
            at=lambda way: marks[way].at,
            game=lambda way: marks[way].game_id,
        )
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            alone = member_id == interaction.user.id or server_of(interaction) is None
            await interaction.response.send_message(embed=embed, view=view, ephemeral=alone)

    @answers()
    async def replay(self, interaction: Interaction, game_id: int | None = None) -> None:
        """The animated replay of a finished game (default: the caller's last one here)."""
        game = await self.finished.find(interaction, game_id)
        async with self.finished.once("replay", interaction, game):
            await self._replay(interaction, game)

    async def _replay(self, interaction: Interaction, game: Game) -> None:
        """Draw the replay of ``game`` and send it to the one who asked."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        t = reader(interaction)
        records = await self.app.stores.games.turns(game.id)
        turns = [parse_turn(record.turn) for record in records]
        view = BoardView(game.white_name, game.black_name, translator=t)
        clocks = replay_clocks(t, game, records)
        drawing = asyncio.ensure_future(
            self.app.renderer.slow(
                functools.partial(render_replay, note=board_note(t, game), clocks=clocks),
                game.start_position,
                turns,
                view,
            )
        )
        note = None
        try:
            replay = await asyncio.wait_for(asyncio.shield(drawing), PROGRESS_AFTER_SECONDS)
        except TimeoutError:
            note = await interaction.followup.send(
                t("🎞️ Drawing the replay of {turns} turns…", turns=len(turns)),
                ephemeral=True,
                wait=True,
            )
            replay = await drawing
        name = f"tholos-{game.id}.{replay.format}"
        await interaction.followup.send(
            t(
                "🎞️ {white} vs {black}: the whole game, turn by turn.",
                white=escaped_name(game.white_name),
                black=escaped_name(game.black_name),
            ),
            file=discord.File(io.BytesIO(replay.data), filename=name),
            ephemeral=True,
        )
        if note is not None:
            await note.delete()

    @answers()
    async def record(self, interaction: Interaction, game_id: int | None = None) -> None:
        """The record file of a finished game (default: the caller's last one here)."""
        game = await self.finished.find(interaction, game_id)
        async with self.finished.once("record", interaction, game):
            event = (await self.pairings.labels([game.id])).get(game.id)
            record = game_record(game, await self.app.stores.games.turns(game.id), event)
            t = reader(interaction)
            await interaction.response.send_message(
                t(
                    "📜 The record of game #{id}: check it with `python -m engine replay FILE`.",
                    id=game.id,
                ),
                file=discord.File(
                    io.BytesIO(write_record(record).encode()), filename=f"tholos-{game.id}.txt"
                ),
                ephemeral=True,
            )

    @answers()
    async def analyse(self, interaction: Interaction, game_id: int | None = None) -> None:
        """A finished game (default: the caller's last one here) on the analysis board: the
        ask is stored for the page opened next here, then launched (a kill between: stale)."""
        live = self.app.poster.messages.live
        if not live:
            await launch_live_board(interaction, live)
            return
        game = await self.finished.find(interaction, game_id)
        async with self.finished.once("analyse", interaction, game):
            here = interaction.channel_id or 0
            await self.page_requests.ask(interaction.user.id, here, game.id, time.time())
            await launch_live_board(interaction, live)

    async def game_choices(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[int]]:
        """Autocomplete of the ``game`` option: the caller's recent finished games here."""
        t = reader(interaction)
        here, user = interaction.channel_id or 0, interaction.user.id
        games = await self.app.stores.listings.recent_finished(here, user, RECENT_GAMES)
        return game_choices(t, games, typed)


class HistoryShown(NamedTuple):
    """A page of a history to show: its games, its number, how many pages (another member's:
    one more while more games may follow), and how many games in all (another member's:
    ``None``, uncounted)."""

    found: HistoryPage
    page: int
    pages: int
    total: int | None


class Histories:
    """The pages of a member's finished games as the one asking may see them: their own all
    (their games against the AI in our direct messages too), counted; another member's only
    the games they may open (:mod:`bot.discord.visibility`), uncounted — a count would tell of the
    others."""

    def __init__(self, app: App, visibility: Visibility) -> None:
        self.app = app
        self.visibility = visibility

    async def read(
        self, interaction: Interaction, member_id: int, page: int, seek: tuple[str, Finish] | None
    ) -> HistoryShown:
        """Page ``page`` of ``member_id``'s history: the games right after the ``seek``'s mark
        (its way: ``p`` Previous, ``n`` Next), or, when that is the newest reached, past the
        end or not given, read from the newest by number."""
        guild_id = server_of(interaction) or DIRECT_MESSAGES
        caller = interaction.user
        own = member_id == caller.id
        questions = Questions()

        async def read(mark: Finish | None, way: str, limit: int, skip: int) -> list[Game]:
            return await self.app.stores.listings.finished_seek(
                guild_id, member_id, mark, way, limit, direct=own, skip=skip
            )

        async def keep(games: list[Game]) -> list[bool | None]:
            if own:
                return [True] * len(games)
            here = interaction.channel_id
            return await verdicts(
                self.visibility, games, caller.id, caller, seen_in=here, questions=questions
            )

        total = pages = None
        if own:
            total = await self.app.stores.listings.finished_count(guild_id, member_id, direct=True)
            pages = max(1, -(-total // HISTORY_PAGE))
            page = min(page, pages - 1)
        found = None
        if seek is not None:
            way, mark = seek
            found = await read_history_page(read, keep, mark, way)
            if (page == 0 or not found.newer) if way == "p" else not (found.games or found.older):
                found, page = None, 0  # the newest reached, or past the end: the first page
        if found is None:
            found = await read_history_page(read, keep, None, "n", skip=page * HISTORY_PAGE)
        if pages is not None:
            return HistoryShown(found, page, pages, total)
        return HistoryShown(found, page, page + (2 if found.older else 1), None)


class FinishedGames:
    """The finished game a press or command means, and its answer given once at a time."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.visibility = app.visibility
        """Who may open a game."""

    async def find(self, interaction: Interaction, game_id: int | None) -> Game:
        """The finished game a press or command means: ``game_id`` (a game of this server, or
        of this direct message, that the caller may open: see :mod:`bot.discord.visibility`),
        else the caller's last finished game in this channel or its threads."""
        user = interaction.user
        if game_id is None:
            here = interaction.channel_id or 0
            recent = await self.app.stores.listings.recent_finished(here, user.id, 1)
            if not recent:
                raise Refusal("You have no finished game in this channel yet.")
            return recent[0]
        here = interaction.channel_id or 0
        server = server_of(interaction)
        game = await self.app.stores.games.places.game_in(game_id, here, server)
        return await self.visibility.finished_game(game, server, here, user.id, user)

    @contextlib.asynccontextmanager
    async def once(self, kind: str, interaction: Interaction, game: Game) -> AsyncIterator[None]:
        """Answer a press of ``kind`` (Replay, Record, Analyse) once: a second press of the same
        member for the same game while the first is answered is told so (the lease runs out if
        this process dies meanwhile)."""
        lease = answer_lease(kind, game.id, interaction.user.id)
        if not await self.app.stores.leases.acquire(lease, time.time()):
            raise Refusal(ON_ITS_WAY)
        try:
            yield
        finally:
            with contextlib.suppress(DatabaseUnavailable):  # it runs out by itself
                await self.app.stores.leases.release(lease)


def server_of(interaction: Interaction) -> int | None:
    """The server with the bot ``interaction`` comes from; ``None`` elsewhere (its games are
    stored with no server: a DM, a group DM, a server without the bot)."""
    return interaction.guild_id if venue_of(interaction) == "server" else None


def game_record(
    game: Game, records: list[TurnRecord], event: tuple[str, int] | None = None
) -> GameRecord:
    """The record of a stored game: its players, setup, turns (with the clocks of a live game)
    and how it ended; ``event``: the tournament and round it was played in."""
    when = datetime.fromtimestamp(game.finished_at or game.created_at, UTC)
    outcome = game.outcome
    if outcome is not None:
        termination, result = outcome.reason, RESULT_NOTATION[outcome.result]
    else:
        termination = "aborted" if game.status == "aborted" else "unfinished"
        result = "*"
    return GameRecord(
        white=game.white_name,
        black=game.black_name,
        date=when.isoformat(timespec="seconds"),
        mode=game.mode,
        seed=game.seed,
        start=game.start_position,
        turns=tuple(parse_turn(record.turn) for record in records),
        termination=termination,
        result=result,
        time_control=None if game.clock is None else game.clock.pgn,
        clocks=tuple(None if r.clock is None else int(r.clock) for r in records)
        if game.clock is not None
        else (),
        event=event[0] if event else None,
        round=event[1] if event else None,
        hints=game.hints_used if game.hints else None,
    )


def replay_clocks(t: Translator, game: Game, records: list[TurnRecord]) -> list[str] | None:
    """A live game's clocks in words at the start and after each turn (``None``: no clock)."""
    clock = game.clock
    if clock is None:
        return None
    left: list[float | None] = [
        None if game.white_clock is None else clock.seconds,
        None if game.black_clock is None else clock.seconds,
    ]
    shown = []
    position = game.start_position
    for record in [None, *records]:
        if record is not None:
            left[position.turn] = record.clock
            position = position.apply(parse_turn(record.turn))
        shown.append(
            " · ".join(
                f"{colour_name(t, colour).capitalize()} {clock_text(seconds)}"
                for colour, seconds in enumerate(left)
                if seconds is not None
            )
        )
    return shown


GAME_OPTION = N_("Which of your finished games (default: your last one here)")


class HistoryCommands(Cog):
    """``/tholos replay|record|analyse|history``."""

    tholos = Tholos()

    def __init__(self, history: History) -> None:
        self.history = history

    async def recent_games(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[int]]:
        """Autocomplete of the ``game`` option of ``/tholos replay``, ``record`` and
        ``analyse``."""
        return await self.history.game_choices(interaction, typed)

    @tholos.command(
        name=NC_("command", "replay"),
        description=N_("An animated replay of a finished game (only you see it)"),
    )
    @app_commands.describe(game=GAME_OPTION)
    @app_commands.autocomplete(game=recent_games)
    async def replay(self, interaction: Interaction, game: int | None = None) -> None:
        """``/tholos replay [game]``."""
        await self.history.replay(interaction, game)

    @tholos.command(
        name=NC_("command", "record"),
        description=N_("The record file of a finished game: players, turns, result"),
    )
    @app_commands.describe(game=GAME_OPTION)
    @app_commands.autocomplete(game=recent_games)
    async def record(self, interaction: Interaction, game: int | None = None) -> None:
        """``/tholos record [game]``."""
        await self.history.record(interaction, game)

    @tholos.command(
        name=NC_("command", "analyse"),
        description=N_("Analyse a finished game on the live board, turn by turn (only you see it)"),
    )
    @app_commands.describe(game=GAME_OPTION)
    @app_commands.autocomplete(game=recent_games)
    async def analyse(self, interaction: Interaction, game: int | None = None) -> None:
        """``/tholos analyse [game]``."""
        await self.history.analyse(interaction, game)

    @tholos.command(
        name=NC_("command", "history"),
        description=N_("A player's finished games on this server, newest first"),
    )
    @app_commands.describe(member=N_("Whose games (default: yours)"))
    async def history_of(
        self, interaction: Interaction, member: discord.User | None = None
    ) -> None:
        """``/tholos history [member]``."""
        chosen = member or interaction.user
        await self.history.history(interaction, chosen.id)


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of a history as read: its games, newest first, and where to seek from."""

    games: list[Game]
    first: Finish
    """Previous seeks the games newer than this."""
    last: Finish
    """Next seeks the games older than this."""
    newer: bool
    """Newer games may come before the page."""
    older: bool
    """Older games may come after the page."""


HISTORY_READ_MOST = 60
"""The most finished games read for one page of another member's history (those the caller may
not open are skipped): past it the page is shown short, and Next goes on from the last read."""

Read = Callable[[Finish | None, str, int, int], Awaitable[list[Game]]]
"""A history's games from a mark: ``(mark, way, limit, skip)`` (see
:meth:`bot.storage.listings.GameListings.finished_seek`)."""


async def read_history_page(
    read: Read,
    keep: Callable[[list[Game]], Awaitable[list[bool | None]]],
    mark: Finish | None,
    way: str,
    *,
    skip: int = 0,
) -> HistoryPage:
    """The page of :data:`HISTORY_PAGE` games ``keep`` keeps right after ``mark`` (``way``
    ``n``: older, ``p``: newer; ``None``: from the newest, ``skip`` skipped): read in batches
    until the page and one more game are kept, the history ends, :data:`HISTORY_READ_MOST`
    games were read, or ``keep`` leaves one undecided (``None``: Discord not asked, or not in
    time) — the page ends before it, for the next to start there: no game is skipped unseen.
    The seek marks are the page's first and last games kept — else the first read (so that
    Previous, or Next, includes it), else ``mark``."""
    kept: list[Game] = []
    first_read: Finish | None = None
    last_read = mark
    count, ended, undecided = 0, False, False
    while len(kept) <= HISTORY_PAGE and count < HISTORY_READ_MOST and not ended:
        wanted = min(
            HISTORY_READ_MOST - count, HISTORY_PAGE + 1 if count == 0 else 2 * HISTORY_PAGE
        )
        batch = await read(last_read, way, wanted, skip if count == 0 else 0)
        count += len(batch)
        ended = len(batch) < wanted
        first_read = first_read or (Finish.of(batch[0]) if batch else None)
        for game, kept_it in zip(batch, await keep(batch), strict=True):
            if kept_it is None:
                ended, undecided = True, True
                break
            kept += [game] if kept_it else []
            last_read = Finish.of(game)
    beyond = len(kept) > HISTORY_PAGE or not ended or undecided
    kept = kept[:HISTORY_PAGE]
    near = Finish.of(kept[0]) if kept else first_read or mark or NOWHERE
    far = Finish.of(kept[-1]) if len(kept) == HISTORY_PAGE and beyond else last_read or NOWHERE
    if way == "p":
        return HistoryPage(kept[::-1], far, near, newer=beyond, older=True)
    return HistoryPage(kept, near, far, newer=mark is not None or skip > 0, older=beyond)


NOWHERE = Finish(0.0, 0)
"""The mark of an empty history (its buttons are off)."""


# -- what it says -------------------------------------------------------------------------------


HISTORY_PAGE = 10


def history_line(
    t: Translator, game: Game, member_id: int, event: tuple[str, int] | None = None
) -> str:
    """One finished game as ``member_id`` played it: outcome, opponent, score, how, when (and
    the tournament and round it was played in, ``event``)."""
    outcome = game.outcome
    assert outcome is not None and game.finished_at is not None
    colour = game.colour_of(member_id)
    mine, theirs = outcome.points
    if colour == BLACK:
        mine, theirs = theirs, mine
    if outcome.result == "draw":
        mark = WIN_LOSS_DRAW_MARK["draw"]
    else:
        won = (outcome.result == "white") == (colour == WHITE)
        mark = WIN_LOSS_DRAW_MARK["win" if won else "loss"]
    opponent_id = game.black_id if colour == WHITE else game.white_id
    if game.ai_level is not None:
        opponent = "🤖 " + ai_opponent(t, game.ai_level, game.rated)
        if game.hints_used:
            opponent += " · " + t.plural("💡 {count} hint", "💡 {count} hints", game.hints_used)
    else:
        opponent = mention(opponent_id)
    line = t(
        "{mark} vs {opponent} {scored}–{conceded} {reason} {date} · [final board]({link})",
        mark=t(mark),
        opponent=opponent,
        scored=points(mine),
        conceded=points(theirs),
        reason=reason_text(t, outcome.reason, game.time_control),
        date=f"<t:{int(game.finished_at)}:d>",
        link=board_url(game),
    )
    if event is not None:
        line = (
            t("🏆 {name}, round {round}", name=escaped_name(event[0]), round=event[1])
            + f" · {line}"
        )
    return line if game.time_control is None else f"⏱️ {game.time_control} · {line}"


def history_embed(
    t: Translator,
    member_id: int,
    games: list[Game],
    page: int,
    pages: int,
    total: int | None,
    events: dict[int, tuple[str, int]] | None = None,
) -> discord.Embed:
    """One page of a member's finished games, newest first (``total``: how many in all,
    ``None`` for a history that lists only the games its reader may open; ``events``: the
    tournament and round of those played in one, by game id)."""
    lines = [history_line(t, game, member_id, (events or {}).get(game.id)) for game in games]
    heading = mention(member_id)
    footer = t("Page {page}", page=page + 1)
    if total is not None:
        heading += " · " + t.plural("{count} finished game", "{count} finished games", total)
        footer = t("Page {page} of {pages}", page=page + 1, pages=pages)
    embed = discord.Embed(
        title=t("Tholos history"),
        colour=SANDSTONE,
        description="\n".join([heading, ""] + (lines or [t("No finished games here yet.")])),
    )
    embed.set_footer(text=footer)
    return embed
