"""The loop that runs tournaments, on the process that owns each server's shard: it starts a
tournament at its time, pairs each round when the last one is over (or its deadline passed:
the games left are decided by the idle rule), opens each game in a thread of its own, posts the
standings after each round and the podium at the end.

Every step is stored by a compare-and-set (see :mod:`bot.features.tournaments.store`), so that a
restart or a second process never repeats one; every message it posts carries a nonce of its
step, so that a send repeated after a kill -9 within Discord's nonce window (a few minutes) is
answered with the first message instead of a second one.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace

import discord

from bot.base.game import Game
from bot.base.paces import rating_pool
from bot.discord.answers import pinging
from bot.discord.app import App
from bot.discord.places import open_thread, thread_name
from bot.features.tournaments.announcement import drop_event
from bot.features.tournaments.service import Plan, TournamentService, standings_of
from bot.features.tournaments.standings import Standing
from bot.features.tournaments.store import Entry, Pairing, Tournament
from bot.i18n.catalogues import translator
from bot.loops import work
from bot.loops.background import Backoff, Retries, discord_call, nonce
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.games.changes import GAMES_TOPIC, ChannelBusyError
from bot.words.names import escaped_name, plain_name
from bot.words.phrases import rating_change
from engine.vocabulary import N_
from rendering.standings import render_standings
from rendering.translator import Translator

log = logging.getLogger(__name__)

START_INTERVAL = 0.15
"""The loop opens at most one game of a round every 0.15 s: a round of 100 games opens in
15 s without slowing the presses of the games being played (benchmarks/tournament_start.py)
— and Discord would slow a faster burst of messages in one channel anyway."""
LOOK_AGAIN_SECONDS = 5.0
"""The longest the loop sleeps: start times and deadlines are seen within it (a game of a
tournament that changes wakes it at once)."""
MEDALS = ("🥇", "🥈", "🥉")
Refresh = Callable[[int], Awaitable[None]]
"""Shows a tournament's state on its announcement."""


def points_text(points: float) -> str:
    """``2½``, ``3``, ``½``."""
    whole, half = int(points), points - int(points) >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


class Rounds:
    """Runs the tournaments of this process's servers."""

    def __init__(self, app: App, service: TournamentService, refresh: Refresh) -> None:
        self.app = app
        self.service = service
        self.store = service.store
        self.refresh = refresh
        self._wakeup = work.Wakeup()
        self._watched: set[int] = set()
        """The games of rounds under way: a change to one wakes the loop."""
        self.pairings = Pairings(app, service, refresh)
        self.openings = GameOpenings(app, service)

    def wake(self) -> None:
        self._wakeup.set()

    def _heard(self, payload: str | None) -> None:
        if payload is None or (payload.isdigit() and int(payload) in self._watched):
            self._wakeup.set()

    def loop(self) -> Loop:
        """Advances every tournament under way, then sleeps until a game of a round under way
        changes (:meth:`listen`) or :data:`LOOK_AGAIN_SECONDS` passed."""
        return Loop("tournaments", self.sweep, LOOK_AGAIN_SECONDS, self._wakeup)

    async def listen(self) -> Callable[[], None]:
        """Wake the loop when a game it waits for changes, on any process; stop listening."""
        return await self.app.database.listen(GAMES_TOPIC, self._heard)

    async def sweep(self) -> None:
        """One step for each tournament under way (a failure stops only its own); then show
        again the announcements a crash left stale. (The next sweep: after the longest
        pause, or when woken.)"""
        watched: set[int] = set()
        for tournament in await self.store.under_way():
            try:
                watched |= await self._advance(tournament)
            except (DatabaseUnavailable, asyncio.CancelledError):
                raise
            except Exception:
                log.exception("tournament %s: a step failed", tournament.id)
        self._watched = watched
        for stale in await self.store.stale_announcements():
            await self.refresh(stale.id)

    async def _advance(self, tournament: Tournament) -> set[int]:
        """Take ``tournament`` as far as it can go now; the games it waits for."""
        if tournament.status == "signup":
            if time.time() < tournament.starts_at:
                return set()
            started = await self.service.start(tournament)
            if started is not None:
                log.info("tournament %s: %s", tournament.id, started.status)
            await self.refresh(tournament.id)
            if started is not None and started.status == "cancelled":
                await drop_event(self.app, started)
            if started is None or started.status != "running":
                return set()
            tournament = started
        while True:
            if tournament.announced_pairings < tournament.round:  # stored, never said
                tournament = await self.pairings.announce(tournament)
            if tournament.round == 0:
                plan = await self.service.rounds.plan(tournament)
                if plan is None:  # all but one withdrew before the first round
                    cancelled = await self.store.change(tournament, status="cancelled")
                    if cancelled is not None:
                        await drop_event(self.app, cancelled)
                    await self.refresh(tournament.id)
                    return set()
                paired = await self.pairings.pair(tournament, plan)
                if paired is None:
                    return set()
                tournament = paired
            boards = await self.store.pairings.boards(tournament.id, tournament.round)
            deadline = tournament.round_deadline or 0.0
            if time.time() < deadline and any(board.waiting for board in boards):
                await self.openings.open(tournament, [b for b in boards if b.waiting])
            elif time.time() >= deadline:
                ended = await self.service.rounds.decide_at_deadline(tournament, boards)
                for game in ended:
                    await self.app.poster.background.post_stored(game)
            boards = await self.store.pairings.boards(tournament.id, tournament.round)
            if not all(board.settled for board in boards):
                return {board.game_id for board in boards if board.game_id is not None}
            closed = await self.pairings.close_round(tournament, boards)
            if closed is None or closed.status != "running":
                return set()
            tournament = closed


class Pairings:
    """Closes a round that is over and pairs the next (or finishes the tournament), saying so in
    the channel."""

    def __init__(self, app: App, service: TournamentService, refresh: Refresh) -> None:
        self.app = app
        self.service = service
        self.store = service.store
        self.refresh = refresh

    async def close_round(self, tournament: Tournament, boards: list[Pairing]) -> Tournament | None:
        """The round is over: withdraw the absent, post the standings, pair the next round
        (or finish). ``None`` if another process took a step first, or the tournament was
        paused or ended since it was read (the next sweep sees it as it is)."""
        current = await self.store.tournament(tournament.id)
        if current is None or (current.status, current.round) != ("running", tournament.round):
            return None
        tournament = current
        await self.service.rounds.withdraw_absent(tournament, boards)
        plan = await self.service.rounds.plan(tournament)
        if plan is None and not tournament.is_last_round:  # no next round after all
            changed = await self.store.change(tournament, rounds=tournament.round)
            if changed is None:
                return None
            tournament = changed
        if tournament.announced_round < tournament.round:
            if not await post_standings(self.app, self.service, tournament, final=plan is None):
                return None  # tried again on the next round of the loop
            if not await self.store.said(tournament, "standings"):
                return None
            changed = await self.store.tournament(tournament.id)
            if changed is None or changed.status != "running":
                return None
            tournament = changed
        if plan is None:
            finished = await self.store.change(tournament, status="finished")
            if finished is not None:
                log.info("tournament %s finished after %s rounds", tournament.id, tournament.round)
            await self.refresh(tournament.id)
            return finished
        return await self.pair(tournament, plan)

    async def pair(self, tournament: Tournament, plan: Plan) -> Tournament | None:
        """Pair the next round as ``plan`` says and say so in the channel (``None``: another
        process paired it first, or someone withdrew since the plan)."""
        deadline = self.service.deadline(tournament)
        paired = await self.store.pairings.pair(tournament, plan.pairings, deadline, plan.playing)
        if paired is None:
            return None
        log.info(
            "tournament %s: round %s paired (%s pairings)",
            paired.id,
            paired.round,
            len(plan.pairings),
        )
        announced = await self.announce(paired)
        await self.refresh(paired.id)
        return announced

    async def announce(self, tournament: Tournament) -> Tournament:
        """Say in the channel that its round is paired, with the round's byes and forfeits
        as stored, and record it; a round stored by a process killed before this is said by
        the next (the nonce keeps a send repeated within minutes from showing twice). Not
        recorded when Discord did not take it: said again at the next step. The tournament as
        it now is."""
        boards = await self.store.pairings.boards(tournament.id, tournament.round)
        text, pinged = pairings_text(translator(tournament.language), tournament, boards)
        once = nonce("tr", tournament.id, tournament.round)
        if await send(self.app, tournament, text, once, pings=pinged) and await self.store.said(
            tournament, "pairings"
        ):
            return replace(tournament, announced_pairings=tournament.round)
        return tournament


class GameOpenings:
    """Opens the games of a round, each in a thread of its own; a game Discord would not open is
    tried again."""

    def __init__(self, app: App, service: TournamentService) -> None:
        self.app = app
        self.service = service
        self.store = service.store
        self._retries: Retries[tuple[int, int, int]] = Retries(
            "game of tournament (id, round, board)", Backoff(30, tries=10_000, longest=600)
        )
        """Pairings whose game Discord would not open (a thread refused): tried again, at
        least every 10 minutes, never given up (the round waits for them)."""

    async def open(self, tournament: Tournament, waiting: list[Pairing]) -> None:
        """Open the games still to be opened, one every :data:`START_INTERVAL` (none after
        the deadline, and none of a player who withdrew since the pairing)."""
        entries = await self.store.entrants.entries(tournament.id)
        names = {entry.user_id: entry.name for entry in entries}
        out = {entry.user_id for entry in entries if not entry.playing}
        for board in waiting:
            if time.time() >= (tournament.round_deadline or 0.0):
                return
            if out & {board.white_id, board.black_id}:
                continue  # their withdrawal decides it
            await self._start(tournament, board, names)
            await asyncio.sleep(START_INTERVAL)

    async def _start(self, tournament: Tournament, board: Pairing, names: dict[int, str]) -> None:
        """Open a pairing's thread and start its game there (once: the game is stored with the
        pairing by a compare-and-set)."""
        key = (tournament.id, board.round, board.board)
        if not self._retries.ready(key, time.time()):
            return
        try:
            game = await open_game(self.app, self.service, tournament, board, names)
        except (
            discord.HTTPException,
            discord.ClientException,
            TimeoutError,
            ChannelBusyError,
        ) as error:
            self._retries.failed(key, time.time(), error)  # (logged)
            return
        self._retries.succeeded(key)
        if game is not None:  # its insert took no lease: the first poster takes it
            await self.app.poster.background.post_stored(game, None, leased=False)


async def post_standings(
    app: App, service: TournamentService, tournament: Tournament, *, final: bool
) -> bool:
    """Post the standings after the round, as an image; ``final``: the podium and each
    player's rating change. Whether Discord took it."""
    t = translator(tournament.language)
    file, text, podium = await standings_file(app, service, tournament, t, final=final, over=True)
    once = nonce("ts", tournament.id, tournament.round)
    if not await send(app, tournament, text, once, file, pings=podium):
        return False
    log.info("tournament %s: standings of round %s posted", tournament.id, tournament.round)
    return True


def pairings_text(
    t: Translator, tournament: Tournament, boards: list[Pairing]
) -> tuple[str, list[int]]:
    """What the channel is told of a round just paired: its deadline, and its byes and
    forfeits as stored; and the players it names (to ping)."""
    named: list[int] = []
    deadline = f"<t:{int(tournament.round_deadline or 0)}:R>"
    lines = [
        t(
            "⚔️ **{name}** — round {round} of {rounds}. Deadline: {when}.",
            name=escaped_name(tournament.name),
            round=tournament.round,
            rounds=tournament.rounds,
            when=deadline,
        )
    ]
    for board in boards:
        if board.black_id is None:
            named.append(board.white_id)
            lines.append(t("{player} has the bye (a point).", player=f"<@{board.white_id}>"))
        elif board.game_id is None and board.result in ("white", "black"):
            winner = board.white_id if board.result == "white" else board.black_id
            named.append(winner)
            lines.append(
                t(
                    "{player} wins by forfeit (their opponent withdrew).",
                    player=f"<@{winner}>",
                )
            )
    return "\n".join(lines), named


async def send(
    app: App,
    tournament: Tournament,
    text: str,
    once: str,
    file: discord.File | None = None,
    *,
    pings: Iterable[int] = (),
) -> bool:
    """Post in the tournament's channel, pinging ``pings`` only; whether Discord took it (a
    failure is logged)."""
    channel = app.client.get_partial_messageable(tournament.channel_id)
    try:
        await discord_call(
            channel.send(
                text,
                file=file or discord.utils.MISSING,
                allowed_mentions=pinging(pings),
                nonce=once,
            )
        )
    except (discord.HTTPException, TimeoutError) as error:
        log.warning("tournament %s: could not post %s: %s", tournament.id, once, error)
        return False
    return True


async def open_game(
    app: App,
    service: TournamentService,
    tournament: Tournament,
    board: Pairing,
    names: dict[int, str],
) -> Game | None:
    """Post a pairing's line in the channel (pinging both players; Discord shows its thread
    under it), open its thread and store its game there; ``None`` if it was started already.
    The line's nonce and the thread's id (the line's) find both again after a restart."""
    assert board.black_id is not None
    t = translator(tournament.language)
    client = app.client
    channel = client.get_channel(tournament.channel_id)
    if not isinstance(channel, discord.TextChannel):  # not cached: ask Discord
        channel = await discord_call(client.fetch_channel(tournament.channel_id))
    assert isinstance(channel, discord.TextChannel)  # tournaments are made in text channels
    line = await discord_call(
        channel.send(
            t(
                "🏆 **{name}**, round {round}: {white} vs {black}.",
                name=escaped_name(tournament.name),
                round=board.round,
                white=f"<@{board.white_id}>",
                black=f"<@{board.black_id}>",
            ),
            allowed_mentions=pinging((board.white_id, board.black_id)),
            nonce=nonce("tg", tournament.id, board.round, board.board),
        )
    )
    name = thread_name(t, names.get(board.white_id, "?"), names.get(board.black_id, "?"))
    opened = await open_thread(client, line, name, [board.white_id, board.black_id])
    if opened is None:  # refused: tried again later
        raise discord.ClientException("no thread for the game")
    return await service.rounds.start_game(
        tournament,
        board,
        names,
        channel_id=opened.thread.id,
        parent_id=tournament.channel_id,
        parent_message_id=line.id,
    )


async def standings_file(
    app: App,
    service: TournamentService,
    tournament: Tournament,
    t: Translator,
    *,
    final: bool = False,
    over: bool = False,
) -> tuple[discord.File, str, list[int]]:
    """The standings image (drawn off the loop), the words that go with it and the players
    they mention (to ping); ``final`` (or a finished tournament): the podium and each
    player's rating change. Before the loop posts a round's standings, the round counts as
    under way."""
    entries, lines = await standings_of(service.store, tournament)
    by_id = {entry.user_id: entry for entry in entries}
    final = final or tournament.status == "finished"
    swiss = tournament.format == "swiss"
    headers = [
        t("#"),
        t("Player"),
        t("Points"),
        t("Buchholz") if swiss else t("S-B"),
        t("S-B") if swiss else t("Head-to-head"),
        t("Games"),
    ]
    rows = [
        [
            str(line.rank),
            _name(t, by_id[line.player]),
            points_text(line.points),
            f"{line.tiebreaks[0]:g}",
            f"{line.tiebreaks[1]:g}",
            str(line.played),
        ]
        for line in lines
    ]
    subtitle = _subtitle(t, tournament, final=final, over=over)
    png = await app.renderer.slow(
        render_standings,
        plain_name(tournament.name),
        subtitle,
        headers,
        rows,
        [line.rank for line in lines],
    )
    alt = "; ".join(
        f"{line.rank}. {_name(t, by_id[line.player])} {points_text(line.points)}" for line in lines
    )[:1000]
    file = discord.File(io.BytesIO(png), filename="standings.png", description=alt)
    text = t("📊 **{name}** — {what}.", name=escaped_name(tournament.name), what=subtitle)
    if final:
        return file, await _podium(service, tournament, t, lines, by_id), _medallists(lines)
    return file, text, []


def _subtitle(t: Translator, tournament: Tournament, *, final: bool, over: bool) -> str:
    """What the standings are: final, after a round, or with a round under way."""
    if final:
        return t("Final standings after {round} rounds", round=tournament.round)
    if over or tournament.announced_round >= tournament.round:
        return t(
            "Standings after round {round} of {rounds}",
            round=tournament.round,
            rounds=tournament.rounds,
        )
    return t(
        "Standings so far, with round {round} of {rounds} under way",
        round=tournament.round,
        rounds=tournament.rounds,
    )


async def _podium(
    service: TournamentService,
    tournament: Tournament,
    t: Translator,
    lines: list[Standing],
    by_id: dict[int, Entry],
) -> str:
    """The final words: the podium, and each player's rating change (a rated tournament)."""
    text = [t("🏁 **{name}** is over!", name=escaped_name(tournament.name))]
    podium = [
        f"{MEDALS[line.rank - 1]} <@{line.player}> ({points_text(line.points)})"
        for line in lines
        if line.rank <= len(MEDALS)
    ]
    text.append(" · ".join(podium))
    if tournament.rated and service.rating is not None:
        changes = []
        for line in lines[:20]:
            entry = by_id[line.player]
            before = entry.rating if entry.rating is not None else 1500.0
            after = await service.rating(rating_pool(tournament.time_control), line.player)
            changes.append(f"{escaped_name(entry.name)} {rating_change(before, after)}")
        text.append(t("Rating changes: {changes}", changes=", ".join(changes)))
    return "\n".join(text)[:2000]


def _medallists(lines: list[Standing]) -> list[int]:
    """The players on the podium (ranked within the medals)."""
    return [line.player for line in lines if line.rank <= len(MEDALS)]


def _name(t: Translator, entry: Entry) -> str:
    """A player's name in the standings' image and alt text (plain: neither renders
    markdown), marked if they withdrew."""
    if entry.playing:
        return plain_name(entry.name)
    return t(WITHDRAWN, name=plain_name(entry.name))


WITHDRAWN = N_("{name} (withdrawn)")
