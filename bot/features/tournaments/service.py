"""Tournaments without Discord: their rules (who may do what, how large), and the steps of a
round — starting, pairing, deciding the games left at the deadline, withdrawing the absent,
closing — each stored by a compare-and-set, so that any process may try any step again."""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from functools import partial

from bot.base.game import Game, GamePlace, NewGame
from bot.base.glicko2 import Rating
from bot.base.paces import RatingPool, TimeControl
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.base.server_rules import ReminderDefaults
from bot.features.play import OutdatedBoardError, PlayService
from bot.features.tournaments.pairing import NoPairingError, round_robin, swiss_round
from bot.features.tournaments.standings import Format, Standing, entrants, standings
from bot.features.tournaments.store import (
    FULL,
    JOINED,
    VOID,
    Entry,
    JoinRefused,
    Pairing,
    Tournament,
    TournamentStore,
    Why,
)
from bot.storage.games.store import GameStore
from engine import WHITE
from engine.core import Mode
from engine.newgame import new_game
from engine.vocabulary import N_

MAX_ROUNDS = 15
"""The most rounds a tournament may have: each round waits for its slowest game (in
correspondence up to its deadline), so more would not finish while players still care."""
MAX_PLAYERS = 256
"""The most players a tournament may take: a Swiss round of 256 is paired in a few
milliseconds, and its 128 games are opened in about 20 s (see ``Rounds``)."""
MIN_PLAYERS = 2
LIVE_ROUND_MARGIN = 15 * 60
"""A live round's deadline, past what both clocks could last over a long game: a game whose
board never got out (its clock never started) is decided then."""

_NOT_ORGANISER = N_(
    "Only the organiser of this tournament ({organiser}), or a member with Manage Server, can "
    "do that."
)
_TOO_LARGE = N_(
    "A round robin of {players} players takes {rounds} rounds; a tournament may have at most "
    "{limit}, since each round waits for its slowest game. Lower the player limit to {most} "
    "(or {twice} playing twice), or run a Swiss."
)
_JOIN = {
    JOINED: N_("You're already in this tournament."),
    FULL: N_("This tournament is full ({limit} players)."),
}
_NOT_OPEN = N_("The sign-up of this tournament is over.")


def round_robin_rounds(players: int, cycles: int) -> int:
    """How many rounds a round robin of ``players`` takes (an odd number: one rests each
    round)."""
    return (players - 1 + players % 2) * cycles


def largest_round_robin(cycles: int) -> int:
    """The most players a round robin of ``cycles`` may have within :data:`MAX_ROUNDS`."""
    return max(n for n in range(2, MAX_PLAYERS) if round_robin_rounds(n, cycles) <= MAX_ROUNDS)


def expected_length(tournament: Tournament) -> float:
    """The longest a tournament may last from its start: its rounds (a round robin's with as
    many players as may join), each up to its deadline."""
    rounds = tournament.rounds
    if tournament.format == "round_robin" and tournament.status == "signup":
        rounds = round_robin_rounds(tournament.max_players, tournament.rounds)
    clock = tournament.clock
    return rounds * (tournament.round_hours * 3600 if clock is None else live_round_seconds(clock))


def live_round_seconds(clock: TimeControl) -> float:
    """A live round's deadline from its start: both clocks over a long game, and a margin."""
    return 2 * (clock.seconds + 60 * clock.increment) + LIVE_ROUND_MARGIN


@dataclass(frozen=True, slots=True)
class Plan:
    """A round's pairings as planned: ``(white, black, forfeit result)`` (``black`` ``None``: a
    bye), and the players still playing they were planned for."""

    pairings: list[tuple[int, int | None, str | None]]
    playing: frozenset[int]


@dataclass(frozen=True, slots=True)
class Setup:
    """A new tournament, as its organiser asks for it."""

    name: str
    format: Format
    rounds: int
    """Swiss: the rounds; round robin: the cycles (1, or 2 with colours swapped)."""
    pace: str | None
    round_hours: float
    starts_at: float
    max_players: int
    rated: bool
    mode: Mode = "basic"
    ornaments: int = 0


class TournamentService:
    """Tournaments: their sign-up and control; the steps of their rounds are ``rounds``
    (:class:`RoundSteps`)."""

    def __init__(
        self,
        store: TournamentStore,
        games: GameStore,
        play: PlayService,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        reminders: ReminderDefaults | None = None,
        rating: Callable[[RatingPool, int], Awaitable[float]] | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.rating = rating
        """A member's rating in a pool (a rated tournament's rating changes)."""
        self.rounds = RoundSteps(store, games, play, clock, rng, reminders)
        self._clock = clock

    async def create(
        self, setup: Setup, *, guild_id: int, channel_id: int, organiser: int, language: str
    ) -> Tournament:
        """Store a tournament whose sign-up opens now; raises :class:`Refusal` for one too
        large to finish."""
        _check_length(setup)
        columns = asdict(setup)
        columns["time_control"] = columns.pop("pace")
        return await self.store.create(
            **columns,
            guild_id=guild_id,
            channel_id=channel_id,
            organiser_id=organiser,
            language=language,
            created_at=self._clock(),
        )

    async def get(self, tournament_id: int, guild_id: int) -> Tournament:
        """The server's tournament; raises :class:`Refusal`."""
        tournament = await self.store.tournament(tournament_id)
        if tournament is None or tournament.guild_id != guild_id:
            raise Refusal("That tournament doesn't exist on this server.")
        return tournament

    async def join(self, tournament: Tournament, person: Person) -> int:
        """Enter ``person``; the number of entrants. Raises :class:`Refusal`."""
        if person.bot:
            raise Refusal("Bots can't play in tournaments.")
        try:
            return await self.store.entrants.join(tournament.id, person, self._clock())
        except JoinRefused as refused:
            why = str(refused)
            raise Refusal(_JOIN.get(why, _NOT_OPEN), limit=tournament.max_players) from None

    async def leave(self, tournament: Tournament, user_id: int) -> None:
        """Take a member off the sign-up; raises :class:`Refusal`."""
        if tournament.status != "signup":
            raise Refusal(
                "This tournament has started: use {withdraw} to stop playing in it.",
                withdraw="`/tholos tournament withdraw`",
            )
        if not await self.store.entrants.leave(tournament.id, user_id):
            raise Refusal("You aren't in this tournament.")

    async def start(self, tournament: Tournament) -> Tournament | None:
        """Close the sign-up and start with the entrants signed up then, seeded by their
        ratings (a Swiss has at most one round fewer than its players); cancelled with fewer
        than two players. ``None`` if someone else started it meanwhile."""
        rounds_for = partial(_rounds_for, tournament)
        return await self.store.start(tournament.id, rounds_for, Rating().rating)

    def deadline(self, tournament: Tournament) -> float:
        """When a round starting now must be over."""
        clock = tournament.clock
        length = tournament.round_hours * 3600 if clock is None else live_round_seconds(clock)
        return self._clock() + length

    async def withdraw(
        self, tournament: Tournament, user_id: int, why: Why
    ) -> tuple[bool, list[Game]]:
        """Withdraw a player: they play no more rounds, and their game of this round is lost
        (a resignation; a game not started yet, a forfeit). ``(False, [])`` if they were not
        playing; else the games it ended."""
        if tournament.status == "signup":
            raise Refusal("This tournament hasn't started: press **Leave** on its announcement.")
        if tournament.status not in ("running", "paused"):
            raise Refusal("This tournament isn't under way.")
        if not await self.store.entrants.withdraw(tournament.id, user_id, tournament.round, why):
            return False, []
        return True, await self.rounds.forfeit(tournament, user_id)

    async def end(self, tournament: Tournament, by: int) -> Tournament:
        """End a tournament now: one that has not paired a round yet is cancelled; one under
        way ends with this round, its deadline now (the loop decides its unfinished games by
        the idle rule, then posts the final standings)."""
        if tournament.round == 0 and tournament.status in ("signup", "running", "paused"):
            changed = await self.store.change(tournament, status="cancelled", ended_by=by)
        elif tournament.status not in ("running", "paused"):
            raise Refusal("This tournament is over already.")
        else:
            changed = await self.store.change(
                tournament,
                status="running",
                rounds=tournament.round,
                ended_by=by,
                round_deadline=self._clock(),
            )
        if changed is None:
            raise Refusal("This tournament just changed — try again.")
        return changed


class RoundSteps:
    """The steps of a tournament's rounds: planning the next one, opening a pairing's game,
    deciding the games left at the deadline, withdrawing the absent, and forfeiting the game of
    a player who withdrew."""

    def __init__(
        self,
        store: TournamentStore,
        games: GameStore,
        play: PlayService,
        clock: Callable[[], float],
        rng: random.Random | None,
        reminders: ReminderDefaults | None,
    ) -> None:
        self.store = store
        self.games = games
        self.play = play
        self.reminders = reminders
        self._clock = clock
        self._rng = rng or random.SystemRandom()

    async def plan(self, tournament: Tournament) -> Plan | None:
        """The next round's pairings, or ``None`` when there is no next round: the last was
        played, fewer than two players are left, or (a Swiss) everyone left has met
        everyone."""
        if tournament.is_last_round:
            return None
        entries = await self.store.entrants.entries(tournament.id)
        playing = frozenset(entry.user_id for entry in entries if entry.playing)
        if len(playing) < MIN_PLAYERS:
            return None
        seeds = _seeds(entries)
        if tournament.format == "round_robin":
            return Plan(_round_robin_round(tournament, seeds, playing), playing)
        boards = await self.store.pairings.boards(tournament.id)
        ranked = [player for player, _ in seeds if player in playing]
        try:
            paired = swiss_round(entrants(seeds, [b.meeting for b in boards], ranked))
        except NoPairingError:
            return None
        pairings: list[tuple[int, int | None, str | None]] = [
            (white, black, None) for white, black in paired.games
        ]
        if paired.bye is not None:
            pairings.append((paired.bye, None, None))
        return Plan(pairings, playing)

    async def start_game(
        self,
        tournament: Tournament,
        board: Pairing,
        names: dict[int, str],
        *,
        channel_id: int,
        parent_id: int | None,
        parent_message_id: int | None,
    ) -> Game | None:
        """Store a pairing's game (:func:`pairing_game`; ``names``: the entrants' by id) in
        ``channel_id`` (a thread of ``parent_id``); ``None`` if it was started already."""
        place = GamePlace(tournament.guild_id, channel_id, parent_id, parent_message_id)
        seed = self._rng.randrange(2**31)
        new = pairing_game(tournament, board, names, place, seed)
        return await self.store.pairings.start_game(
            tournament, board, new, now=self._clock(), reminders=self.reminders
        )

    async def decide_at_deadline(self, tournament: Tournament, boards: list[Pairing]) -> list[Game]:
        """The round's deadline passed: its games still being played end by the idle rule
        (the player to move loses, as on a claim; a turn may come first: then it goes on), and
        a pairing whose game could not be opened is void. The games ended."""
        ended = []
        for board in boards:
            if board.waiting:
                await self.store.pairings.decide(tournament.id, board.round, board.board, VOID)
            if board.game_status != "active" or board.game_id is None:
                continue
            game = await self.games.game(board.game_id)
            if game is None or not game.is_active:
                continue
            try:
                ended.append(await self.play.flag(game))
            except OutdatedBoardError:
                continue
        return ended

    async def withdraw_absent(self, tournament: Tournament, boards: list[Pairing]) -> list[int]:
        """Withdraw whoever lost a game of the round by the clock or the deadline without a
        single turn in it (not when the organiser ended the tournament: the deadline was
        theirs); the players withdrawn."""
        absent: list[int] = []
        if tournament.ended_by is not None:
            return absent
        for board in boards:
            if board.game_id is None:
                continue
            game = await self.games.game(board.game_id)
            if game is None or game.outcome is None or game.outcome.reason != "timeout":
                continue
            loser = game.black_id if game.outcome.result == "white" else game.white_id
            if await self.store.pairings.turns_by(game.id, loser):
                continue
            if await self.store.entrants.withdraw(tournament.id, loser, tournament.round, "absent"):
                absent.append(loser)
        return absent

    async def forfeit(self, tournament: Tournament, user_id: int) -> list[Game]:
        """Lose the game of this round of ``user_id``, who withdrew (a game not started yet is
        a forfeit, one under way a resignation); the games it ended."""
        ended = []
        for board in await self.store.pairings.boards(tournament.id, tournament.round):
            if user_id not in (board.white_id, board.black_id) or board.black_id is None:
                continue
            winner = "black" if user_id == board.white_id else "white"
            if board.waiting and await self.store.pairings.decide(
                tournament.id, board.round, board.board, winner
            ):
                continue
            (now,) = [
                b
                for b in await self.store.pairings.boards(tournament.id, board.round)
                if b.board == board.board
            ]  # its game may have started meanwhile
            if now.game_status == "active" and now.game_id is not None:
                lost = await _lose(self.play, self.games, now.game_id, user_id)
                ended += [lost] if lost is not None else []
        return ended


def pairing_game(
    tournament: Tournament, board: Pairing, names: dict[int, str], place: GamePlace, seed: int
) -> NewGame:
    """The game of a pairing, played in ``place``: White moves first, in the tournament's mode,
    with its ornaments (drawn from ``seed``), language and clock; rated as it is."""
    assert board.black_id is not None  # a bye has no game
    start = new_game(tournament.mode, ornaments=tournament.ornaments, seed=seed, first=WHITE)
    return NewGame(
        place,
        Person(board.white_id, names[board.white_id]),
        Person(board.black_id, names[board.black_id]),
        seed,
        start,
        language=tournament.language,
        clock=tournament.clock,
        rated=tournament.rated,
    )


def _check_length(setup: Setup) -> None:
    """Refuse a round robin with more rounds than :data:`MAX_ROUNDS`."""
    if setup.format != "round_robin":
        return
    rounds = round_robin_rounds(setup.max_players, setup.rounds)
    if rounds > MAX_ROUNDS:
        most, twice = (largest_round_robin(cycles) for cycles in (1, 2))
        raise Refusal(
            _TOO_LARGE,
            players=setup.max_players,
            rounds=rounds,
            limit=MAX_ROUNDS,
            most=most,
            twice=twice,
        )


def _rounds_for(tournament: Tournament, players: int) -> int | None:
    """The rounds of ``tournament`` starting with ``players`` (``None``: too few to start)."""
    if players < MIN_PLAYERS:
        return None
    if tournament.format == "swiss":
        return min(tournament.rounds, players - 1)
    return round_robin_rounds(players, tournament.rounds)


async def _lose(play: PlayService, games: GameStore, game_id: int, user_id: int) -> Game | None:
    """End a game lost by a player who withdrew (as a resignation; a turn stored at the
    same moment is read again); ``None`` if it was over."""
    while (game := await games.game(game_id)) is not None and game.is_active:
        try:
            return await play.flag(game, user_id, "resignation")
        except OutdatedBoardError:
            continue
    return None


def check_organiser(tournament: Tournament, caller: Caller, manages_server: bool) -> None:
    """Refuse a control by anyone but the organiser (or a server manager)."""
    if caller.user_id != tournament.organiser_id and not manages_server:
        raise Refusal(_NOT_ORGANISER, organiser=f"<@{tournament.organiser_id}>")


async def standings_of(
    store: TournamentStore, tournament: Tournament
) -> tuple[list[Entry], list[Standing]]:
    """Its entrants and standings now."""
    entries = await store.entrants.entries(tournament.id)
    boards = await store.pairings.boards(tournament.id)
    pairings = [board.meeting for board in boards if board.round <= tournament.round]
    return entries, standings(tournament.format, _seeds(entries), pairings)


def _seeds(entries: list[Entry]) -> list[tuple[int, float]]:
    """``(id, rating)`` of each entrant (1500 before the start: unrated)."""
    return [
        (entry.user_id, entry.rating if entry.rating is not None else 1500.0) for entry in entries
    ]


def _round_robin_round(
    tournament: Tournament, seeds: list[tuple[int, float]], playing: frozenset[int]
) -> list[tuple[int, int | None, str | None]]:
    """The round robin's next round, from the schedule of every entrant in seed order: a game
    with a withdrawn player is a forfeit win for the other (none if both withdrew); the player
    who rests has no pairing."""
    order = [player for player, _ in sorted(seeds, key=lambda seed: (-seed[1], seed[0]))]
    cycles = tournament.rounds // round_robin_rounds(len(order), 1)
    schedule = round_robin(order, twice=cycles == 2)
    pairings: list[tuple[int, int | None, str | None]] = []
    for white, black in schedule[tournament.round].games:
        if white in playing and black in playing:
            pairings.append((white, black, None))
        elif white in playing or black in playing:
            pairings.append((white, black, "white" if white in playing else "black"))
    return pairings
