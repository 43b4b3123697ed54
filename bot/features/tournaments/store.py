"""The tournament repository: tournaments, their entrants and their pairings.

Every step that must happen once is a compare-and-set: joining (under the tournament's lock,
so that its limit holds), starting (``signup`` → ``running``), pairing a round (``round`` r →
r + 1, with the round's pairings, in one transaction), starting a pairing's game (its
``game_id`` set from ``NULL`` in the transaction that stores the game), posting a round's
standings (``announced_round``) and finishing. So a restart, or a second process, never pairs
a round twice nor starts a game twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from bot.base.game import Game, NewGame
from bot.base.languages import Language
from bot.base.paces import TimeControl, rating_pool
from bot.base.people import Person
from bot.base.server_rules import ReminderDefaults
from bot.base.shards import EVERY_SERVER, Shards
from bot.features.tournaments.standings import Format, Meeting
from bot.storage.db import Database, Row, Transaction, insert, scalar
from bot.storage.games.changes import insert_game
from engine.core import Mode
from engine.scoring import Result

Status = Literal["signup", "running", "paused", "finished", "cancelled"]
Why = Literal["withdrew", "removed", "absent"]
Said = Literal["pairings", "standings"]
"""What a tournament says after each pairing, in its channel."""

VOID: Final = "void"
"""The result of a pairing whose game could not be opened before the round's deadline."""
NOT_OPEN, FULL, JOINED = "not-open", "full", "joined"
"""Why a member cannot join (:class:`JoinRefused`)."""


class _StartedAlready(Exception):
    """A pairing's game was started by someone else first."""


class JoinRefused(Exception):
    """A join that cannot be: the sign-up is over (``NOT_OPEN``), the tournament is ``FULL``,
    or the member ``JOINED`` already."""


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as stored."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    organiser_id: int
    name: str
    format: Format
    rounds: int
    """Swiss: the rounds; a round robin: its cycles (1 or 2) until it starts, then its rounds."""
    time_control: str | None
    round_hours: float
    mode: Mode
    ornaments: int
    language: Language
    starts_at: float
    max_players: int
    rated: bool
    status: Status
    round: int
    """The round under way (0: not started)."""
    round_deadline: float | None
    announced_round: int
    """The last round whose standings were posted."""
    created_at: float
    ended_by: int | None
    event_id: int | None
    """The server's scheduled event for its start (``None``: none was made)."""
    announced_pairings: int = 0
    """The last round whose pairings were posted."""
    version: int = 0
    """Bumped by every change its announcement shows (status, round, entrants)."""

    @property
    def clock(self) -> TimeControl | None:
        """The games' live clock (``None``: correspondence)."""
        return TimeControl.of(self.time_control)

    @property
    def is_last_round(self) -> bool:
        return self.round >= self.rounds


@dataclass(frozen=True, slots=True)
class Entry:
    """An entrant."""

    user_id: int
    name: str
    joined_at: float
    rating: float | None
    """Their rating when the tournament started (``None`` before)."""
    withdrawn_round: int | None
    withdrawn_why: Why | None

    @property
    def playing(self) -> bool:
        return self.withdrawn_round is None


@dataclass(frozen=True, slots=True)
class Pairing:
    """A pairing as stored, with its game's state."""

    round: int
    board: int
    white_id: int
    black_id: int | None
    game_id: int | None
    result: Result | Literal["void"] | None
    """A result without a game (a forfeit, or :data:`VOID`), or the game's once it ended."""
    game_status: str | None
    """``active``, ``finished``, ``aborted``; ``None``: no game (yet)."""

    @property
    def settled(self) -> bool:
        """Decided: a bye, a forfeit, a void pairing, or a game that is over."""
        return self.black_id is None or self.result is not None or self.game_status == "aborted"

    @property
    def waiting(self) -> bool:
        """A game still to be opened."""
        return self.black_id is not None and self.game_id is None and self.result is None

    @property
    def meeting(self) -> Meeting:
        """As the standings count it (a void pairing counts nothing)."""
        result = None if self.result == VOID else self.result
        return Meeting(
            self.round,
            self.white_id,
            self.black_id,
            result,
            played=self.game_id is not None,
        )


COLUMNS = (
    "id, guild_id, channel_id, message_id, organiser_id, name, format, rounds, time_control, "
    "round_hours, mode, ornaments, language, starts_at, max_players, rated, status, round, "
    "round_deadline, announced_round, created_at, ended_by, event_id, announced_pairings, "
    "version"
)
ENTRY_COLUMNS = "user_id, name, joined_at, rating, withdrawn_round, withdrawn_why"
BOARD_COLUMNS = (
    "p.round, p.board, p.white_id, p.black_id, p.game_id, COALESCE(p.result, g.result), g.status"
)


def _tournament(row: Row) -> Tournament:
    values = dict(zip(COLUMNS.split(", "), row, strict=True))
    values["rated"] = bool(values["rated"])
    return Tournament(**values)


class TournamentStore:
    """Tournaments in the database (the sweeps over ``shards``: this process's servers)."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards
        self.pairings = PairingStore(database)
        self.entrants = EntrantStore(database)

    async def create(self, **fields: object) -> Tournament:
        """Store a new tournament (every column of :class:`Tournament` but its id, status,
        round, deadline, announced round and ``ended_by``)."""
        async with self.database.transaction() as transaction:
            return _tournament(await insert(transaction, "tournaments", fields, COLUMNS))

    async def tournament(self, tournament_id: int) -> Tournament | None:
        found = await self._where("id = ?", (tournament_id,))
        return found[0] if found else None

    async def in_channel(self, channel_id: int) -> list[Tournament]:
        """The channel's tournaments, the newest first (at most 25)."""
        return await self._where("channel_id = ? ORDER BY id DESC LIMIT 25", (channel_id,))

    async def in_guild(self, guild_id: int) -> list[Tournament]:
        """The server's tournaments not over yet, the newest first (at most 25)."""
        return await self._where(
            "guild_id = ? AND status IN ('signup', 'running', 'paused') ORDER BY id DESC LIMIT 25",
            (guild_id,),
        )

    async def under_way(self) -> list[Tournament]:
        """The tournaments signing up or running on this process's servers."""
        mine, shards = self.shards.sql()
        return await self._where(f"status IN ('signup', 'running') AND {mine} ORDER BY id", shards)

    async def stale_announcements(self) -> list[Tournament]:
        """This process's tournaments, in any status, whose announcement does not show what is
        stored (a crash between a change and its edit)."""
        mine, shards = self.shards.sql()
        return await self._where(
            f"shown_version < version AND message_id IS NOT NULL AND {mine} ORDER BY id", shards
        )

    async def _where(self, condition: str, values: Sequence[object]) -> list[Tournament]:
        """The tournaments that meet ``condition`` (its parameters ``values``)."""
        rows = await self.database.fetchall(
            f"SELECT {COLUMNS} FROM tournaments WHERE {condition}", values
        )
        return [_tournament(row) for row in rows]

    async def set_message(
        self, tournament_id: int, message_id: int, event_id: int | None = None
    ) -> None:
        """Remember its announcement (and the scheduled event of its start)."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE tournaments SET message_id = ?, event_id = ? WHERE id = ?",
                (message_id, event_id, tournament_id),
            )

    async def start(
        self, tournament_id: int, rounds_for: Callable[[int], int | None], newcomer: float
    ) -> Tournament | None:
        """Close the sign-up and start with the entrants signed up now: ``rounds_for(count)``
        gives its rounds (``None``: too few, it is cancelled), each entrant is seeded with
        their rating on the server (``newcomer`` if they have none). ``None`` if it was
        started (or ended) meanwhile."""
        async with self.database.transaction() as transaction:
            await transaction.lock("tournament", tournament_id)
            count = await scalar(
                transaction,
                "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ?",
                (tournament_id,),
            )
            rounds = rounds_for(count)
            status = "cancelled" if rounds is None else "running"
            row = await transaction.fetchone(
                f"UPDATE tournaments SET status = ?, rounds = COALESCE(?, rounds), "
                f"version = version + 1 WHERE id = ? AND status = 'signup' RETURNING {COLUMNS}",
                (status, rounds, tournament_id),
            )
            if row is None:
                return None
            tournament = _tournament(row)
            await _seed(transaction, tournament, newcomer)
            return tournament

    async def change(
        self, tournament: Tournament, *, status: Status | None = None, **fields: object
    ) -> Tournament | None:
        """Set ``status`` and ``fields`` if the tournament is still at the same round and
        status as ``tournament`` says; ``None`` if not."""
        if status is not None:
            fields["status"] = status
        sets = ", ".join([*(f"{name} = ?" for name in fields), "version = version + 1"])
        async with self.database.transaction() as transaction:
            row = await transaction.fetchone(
                f"UPDATE tournaments SET {sets} WHERE id = ? AND round = ? AND status = ? "
                f"RETURNING {COLUMNS}",
                (*fields.values(), tournament.id, tournament.round, tournament.status),
            )
        return None if row is None else _tournament(row)

    async def said(self, tournament: Tournament, what: Said) -> bool:
        """Record that its round's pairings (or its standings) are posted, whatever its status
        now (a pause may come while they are posted); ``False`` if that was recorded already
        or the round moved on."""
        column = {"pairings": "announced_pairings", "standings": "announced_round"}[what]
        async with self.database.transaction() as transaction:
            return bool(
                await transaction.execute(
                    f"UPDATE tournaments SET {column} = round, version = version + 1 "
                    f"WHERE id = ? AND round = ? AND {column} < round",
                    (tournament.id, tournament.round),
                )
            )

    async def shown(self, tournament: Tournament) -> None:
        """Record that its announcement shows ``tournament`` (its version, or a later one)."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE tournaments SET shown_version = ? WHERE id = ? AND shown_version < ?",
                (tournament.version, tournament.id, tournament.version),
            )


class EntrantStore:
    """A tournament's entrants: joining, leaving, withdrawing (each a change its announcement
    shows)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def entries(self, tournament_id: int) -> list[Entry]:
        """Its entrants, in the order they joined."""
        rows = await self.database.fetchall(
            f"SELECT {ENTRY_COLUMNS} FROM tournament_players WHERE tournament_id = ? "
            "ORDER BY joined_at, user_id",
            (tournament_id,),
        )
        return [Entry(*row) for row in rows]

    async def join(self, tournament_id: int, person: Person, now: float) -> int:
        """Enter a member; the number of entrants after. Raises :class:`JoinRefused`."""
        user_id, name = person.id, person.name
        async with self.database.transaction() as transaction:
            await transaction.lock("tournament", tournament_id)
            row = await transaction.fetchone(
                "SELECT status, max_players, (SELECT COUNT(*) FROM tournament_players e "
                "WHERE e.tournament_id = t.id), (SELECT COUNT(*) FROM tournament_players e "
                "WHERE e.tournament_id = t.id AND e.user_id = ?) FROM tournaments t WHERE id = ?",
                (user_id, tournament_id),
            )
            if row is None or row[0] != "signup":
                raise JoinRefused(NOT_OPEN)
            if row[3]:
                raise JoinRefused(JOINED)
            if row[2] >= row[1]:
                raise JoinRefused(FULL)
            await transaction.execute(
                "INSERT INTO tournament_players (tournament_id, user_id, name, joined_at) "
                "VALUES (?, ?, ?, ?)",
                (tournament_id, user_id, name, now),
            )
            await _changed(transaction, tournament_id)
            return row[2] + 1

    async def leave(self, tournament_id: int, user_id: int) -> bool:
        """Take a member off a tournament still signing up; ``False``: they were not on it,
        or it started."""
        async with self.database.transaction() as transaction:
            await transaction.lock("tournament", tournament_id)
            left = await transaction.execute(
                "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ? AND "
                "EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND status = 'signup')",
                (tournament_id, user_id, tournament_id),
            )
            if left:
                await _changed(transaction, tournament_id)
            return bool(left)

    async def withdraw(self, tournament_id: int, user_id: int, round: int, why: Why) -> bool:
        """Withdraw an entrant after ``round``; ``False`` if they were not playing."""
        async with self.database.transaction() as transaction:
            await transaction.lock("tournament", tournament_id)  # a pairing waits for it
            withdrawn = await transaction.execute(
                "UPDATE tournament_players SET withdrawn_round = ?, withdrawn_why = ? "
                "WHERE tournament_id = ? AND user_id = ? AND withdrawn_round IS NULL",
                (round, why, tournament_id, user_id),
            )
            if withdrawn:
                await _changed(transaction, tournament_id)
            return bool(withdrawn)


async def _seed(transaction: Transaction, tournament: Tournament, newcomer: float) -> None:
    """Give each entrant their rating in the pool of the tournament's pace (``newcomer`` if
    they have none): their seeding, and what their rating change is measured from at the end."""
    await transaction.execute(
        "UPDATE tournament_players SET rating = COALESCE((SELECT r.rating FROM member_ratings r "
        "WHERE r.pool = ? AND r.user_id = tournament_players.user_id), ?) "
        "WHERE tournament_id = ?",
        (rating_pool(tournament.time_control), newcomer, tournament.id),
    )


async def _changed(transaction: Transaction, tournament_id: int) -> None:
    """Bump a tournament's version: its announcement must show the change."""
    await transaction.execute(
        "UPDATE tournaments SET version = version + 1 WHERE id = ?", (tournament_id,)
    )


class PairingStore:
    """Tournaments' pairings and their games."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def labels(self, game_ids: list[int]) -> dict[int, tuple[str, int]]:
        """The tournament's name and the round of each of these games played in one."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        rows = await self.database.fetchall(
            "SELECT p.game_id, t.name, p.round FROM tournament_games p "
            f"JOIN tournaments t ON t.id = p.tournament_id WHERE p.game_id IN ({marks})",
            game_ids,
        )
        return {row[0]: (row[1], row[2]) for row in rows}

    async def boards(self, tournament_id: int, round: int | None = None) -> list[Pairing]:
        """Its pairings (of one ``round``, or all), with their games' results."""
        where, values = "p.tournament_id = ?", [tournament_id]
        if round is not None:
            where += " AND p.round = ?"
            values.append(round)
        rows = await self.database.fetchall(
            f"SELECT {BOARD_COLUMNS} FROM tournament_games p "
            f"LEFT JOIN games g ON g.id = p.game_id WHERE {where} ORDER BY p.round, p.board",
            values,
        )
        return [Pairing(*row) for row in rows]

    async def pair(
        self,
        tournament: Tournament,
        pairings: Sequence[tuple[int, int | None, str | None]],
        deadline: float,
        playing: frozenset[int],
    ) -> Tournament | None:
        """Store the next round's pairings (``(white, black, result)``: ``black`` ``None`` a
        bye, ``result`` a forfeit), planned for the players ``playing``, if nobody paired it
        yet, it is still to be played (not after an end), and nobody withdrew since the plan;
        ``None`` otherwise (plan again)."""
        next_round = tournament.round + 1
        async with self.database.transaction() as transaction:
            await transaction.lock("tournament", tournament.id)
            rows = await transaction.fetchall(
                "SELECT user_id FROM tournament_players WHERE tournament_id = ? "
                "AND withdrawn_round IS NULL",
                (tournament.id,),
            )
            if {row[0] for row in rows} != playing:
                return None
            row = await transaction.fetchone(
                f"UPDATE tournaments SET round = ?, round_deadline = ?, version = version + 1 "
                f"WHERE id = ? AND round = ? AND status = 'running' AND round < rounds "
                f"RETURNING {COLUMNS}",
                (next_round, deadline, tournament.id, tournament.round),
            )
            if row is None:
                return None
            await transaction.executemany(
                "INSERT INTO tournament_games (tournament_id, round, board, white_id, black_id, "
                "result) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (tournament.id, next_round, board, *pairing)
                    for board, pairing in enumerate(pairings, start=1)
                ],
            )
        return _tournament(row)

    async def start_game(
        self,
        tournament: Tournament,
        board: Pairing,
        new: NewGame,
        *,
        now: float,
        reminders: ReminderDefaults | None,
    ) -> Game | None:
        """Store ``new``, the game of ``tournament``'s pairing ``board``; ``None`` if it was
        started already (by another process, or before a restart)."""
        try:
            async with self.database.transaction() as transaction:
                await transaction.lock("channel", new.place.home_id)
                game = await insert_game(transaction, new, now=now, reminders=reminders)
                attached = await transaction.execute(
                    "UPDATE tournament_games SET game_id = ? WHERE tournament_id = ? AND round = ? "
                    "AND board = ? AND game_id IS NULL AND result IS NULL",
                    (game.id, tournament.id, board.round, board.board),
                )
                if not attached:  # started already: roll this one back
                    raise _StartedAlready
        except _StartedAlready:
            return None
        return game

    async def decide(self, tournament_id: int, round: int, board: int, result: str) -> bool:
        """Decide a pairing whose game has not started: a forfeit (a player withdrew) or
        :data:`VOID`; ``False`` if its game started (or it was decided) first."""
        async with self.database.transaction() as transaction:
            return bool(
                await transaction.execute(
                    "UPDATE tournament_games SET result = ? WHERE tournament_id = ? AND round = ? "
                    "AND board = ? AND game_id IS NULL AND result IS NULL",
                    (result, tournament_id, round, board),
                )
            )

    async def turns_by(self, game_id: int, user_id: int) -> int:
        """How many turns ``user_id`` made in a game."""
        return (
            await scalar(
                self.database,
                "SELECT COUNT(*) FROM turns WHERE game_id = ? AND player_id = ?",
                (game_id, user_id),
            )
            or 0
        )
