"""The challenge repository: a challenge from one member to another (or, open, to anyone),
until it is answered.

Accepting a challenge starts its game in the same transaction. An open challenge is stored with
``opponent_id`` 0 until a member accepts it (see migration 11); outside this module its
opponent is ``None`` until then.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

from bot.base.game import ANSWERS_ONLY, Game, GamePlace, NewGame, Venue
from bot.base.game_options import ColourChoice, FirstChoice, GameOptions
from bot.base.languages import Language
from bot.base.paces import TimeControl
from bot.base.people import Person
from bot.base.server_rules import ReminderDefaults
from bot.base.shards import EVERY_SERVER, Shards
from bot.storage.db import Database, Row, Transaction, UniqueViolation, insert, scalar
from bot.storage.games.changes import (
    ChannelBusyError,
    StaleGameError,
    ensure_no_active_game,
    ensure_pair_free,
    insert_game,
)
from engine import Position
from engine.core import Mode

ChallengeStatus = Literal["pending", "accepted", "declined", "withdrawn", "expired"]
PENDING_PAIR = "pending-pair"
"""Why a challenge can't be made: one between the two is waiting in the channel."""
PENDING_OPEN = "pending-open"
"""Why an open challenge can't be made: the member's open challenge is waiting in the channel."""
TOO_MANY_OPEN = "too-many-open"
"""Why an open challenge can't be made: the member has :data:`MAX_OPEN_CHALLENGES` waiting."""
MAX_OPEN_CHALLENGES = 3
"""Open challenges a member may have waiting on a server at once."""
ANYONE = 0
"""The stored opponent of an open challenge."""
UNSHOWN_CHALLENGE_SECONDS = 60.0
"""A pending challenge whose message was not recorded by then was never shown."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge from one member to another (``opponent_id`` ``None``: to anyone, until
    someone accepts) in a channel."""

    id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int | None
    challenger_name: str
    opponent_name: str | None
    mode: Mode
    ornaments: int
    colour: ColourChoice
    """The challenger's colour."""
    first: FirstChoice
    """Who moves first, from the challenger's point of view."""
    message_id: int | None
    status: ChallengeStatus
    created_at: float
    expires_at: float
    game_id: int | None
    language: Language = "en"
    """The language of its message and of its game (the server's, when it was made)."""
    open_to_all: bool = False
    """Made open: anyone may accept it (its opponent, once set, is whoever did)."""
    rating_range: int | None = None
    """An open challenge: only members rated within this many points of the challenger may
    accept it (``None``: anyone)."""
    time_control: str | None = None
    """The game's live clock (``"5+3"``); ``None``: correspondence."""
    venue: Venue = "server"
    """Where it was made (see :class:`~bot.base.game.Game`'s ``venue``)."""

    @property
    def clock(self) -> TimeControl | None:
        """The game's live clock (``None``: correspondence)."""
        return TimeControl.of(self.time_control)

    @property
    def answers_only(self) -> bool:
        """Made where the bot is not: its message changes only as an answer to a press."""
        return self.venue in ANSWERS_ONLY

    @property
    def is_open(self) -> bool:
        """Waiting for anyone to accept it."""
        return self.opponent_id is None

    @property
    def options(self) -> GameOptions:
        """What it asks for."""
        return GameOptions(
            self.mode, self.ornaments, self.colour, self.first, self.language, self.clock
        )


@dataclass(frozen=True, slots=True)
class NewChallenge:
    """A challenge about to be made: where, by whom, to whom (``opponent`` ``None``: anyone —
    only those rated within ``rating_range`` of the challenger, if given), the game it asks for
    (``options``, settled: :meth:`~bot.base.game_options.GameOptions.settled`), and when it
    expires."""

    guild_id: int
    channel_id: int
    challenger: Person
    opponent: Person | None
    options: GameOptions
    expires_at: float
    rating_range: int | None = None
    in_channel: bool = False
    """Its game would be played in the channel itself, not in a thread: the channel must have
    no game."""
    venue: Venue = "server"
    """Where it is made (see :class:`~bot.base.game.Game`'s ``venue``)."""

    @property
    def busy(self) -> str:
        """Why it can't be made if one like it is waiting in the channel."""
        return PENDING_PAIR if self.opponent is not None else PENDING_OPEN


@dataclass(frozen=True, slots=True)
class Acceptance:
    """How an accepted challenge's game begins: who plays White and who Black (by id), its
    seed and start position, where (``thread_id``: a thread of the challenge's channel;
    ``None``: the channel itself), and who takes it if it is open (``None``: a named one)."""

    white_id: int
    black_id: int
    seed: int
    start: Position
    thread_id: int | None = None
    accepter: Person | None = None

    def game(self, challenge: Challenge) -> NewGame:
        """The game of ``challenge``, accepted (by someone: its opponent is set)."""
        assert challenge.opponent_id is not None and challenge.opponent_name is not None
        names = {
            challenge.challenger_id: challenge.challenger_name,
            challenge.opponent_id: challenge.opponent_name,
        }
        place = GamePlace(challenge.guild_id, challenge.channel_id, venue=challenge.venue)
        if self.thread_id is not None:
            place = GamePlace(
                challenge.guild_id, self.thread_id, challenge.channel_id, challenge.message_id
            )
        return NewGame(
            place,
            Person(self.white_id, names[self.white_id]),
            Person(self.black_id, names[self.black_id]),
            self.seed,
            self.start,
            language=challenge.language,
            clock=challenge.clock,
        )


CHALLENGE_COLUMNS = ", ".join(field.name for field in fields(Challenge))
WAITING_OPEN = f"status = 'pending' AND opponent_id = {ANYONE} AND expires_at > ?"
"""The open challenges still waiting at a time (its one parameter)."""
_OPEN_RULE = (
    f"SELECT COUNT(*) FROM challenges WHERE guild_id = ? AND challenger_id = ? AND {WAITING_OPEN}"
)


def challenge_from_row(row: Row) -> Challenge:
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 (Row is not a dict)
    if values["opponent_id"] == ANYONE:
        values["opponent_id"] = values["opponent_name"] = None
    values["open_to_all"] = bool(values["open_to_all"])
    return Challenge(**values)


class ChallengeStore:
    """Challenges in the database (those to expire: on the servers of ``shards``, this
    process's)."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards

    async def open_challenges(
        self, guild_id: int, now: float, limit: int, channel_id: int | None = None
    ) -> tuple[int, list[Challenge]]:
        """How many open challenges wait on the server at ``now`` (or, ``channel_id`` given,
        in that channel of it), and the ``limit`` that expire first."""
        place = (guild_id,) if channel_id is None else (guild_id, channel_id)
        mine = "guild_id = ?" + ("" if channel_id is None else " AND channel_id = ?")
        mine += f" AND {WAITING_OPEN}"
        count = await scalar(
            self.database, f"SELECT COUNT(*) FROM challenges WHERE {mine}", (*place, now)
        )
        rows = await self.database.fetchall(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE {mine} "
            "ORDER BY expires_at, id LIMIT ?",
            (*place, now, limit),
        )
        return count, [challenge_from_row(row) for row in rows]

    async def expired(self, now: float) -> list[Challenge]:
        """Pending challenges whose time is up."""
        mine, shards = self.shards.sql()
        rows = await self.database.fetchall(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges "
            f"WHERE status = 'pending' AND expires_at <= ? AND {mine} ORDER BY expires_at",
            (now, *shards),
        )
        return [challenge_from_row(row) for row in rows]

    async def next_expiry(self) -> float | None:
        """When the next pending challenge expires."""
        mine, shards = self.shards.sql()
        return await scalar(
            self.database,
            f"SELECT MIN(expires_at) FROM challenges WHERE status = 'pending' AND {mine}",
            shards,
        )

    async def create(self, new: NewChallenge, *, now: float) -> Challenge:
        """Store ``new``, pending from ``now``; raises :class:`ChannelBusyError` if the two
        already have a game or a challenge going in the channel, if the challenger's open
        challenge is waiting in the channel or they have :data:`MAX_OPEN_CHALLENGES` open ones
        waiting on the server, or (``in_channel``) a game is played in the channel.

        A pending challenge of the channel that was never shown (its message was not recorded
        within :data:`UNSHOWN_CHALLENGE_SECONDS`: the bot died while posting it) is expired first.
        """
        try:
            async with self.database.transaction() as transaction:
                await transaction.lock("channel", new.channel_id)
                await _make_room(transaction, new, now)
                row = await insert(
                    transaction, "challenges", _new_challenge_row(new, now), CHALLENGE_COLUMNS
                )
                return challenge_from_row(row)
        except UniqueViolation as error:  # the same challenge, made twice at once
            raise ChannelBusyError(new.busy) from error

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the message that shows the challenge."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def challenge(self, challenge_id: int) -> Challenge | None:
        """The challenge with this id."""
        row = await self.database.fetchone(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else challenge_from_row(row)

    async def pending(self, channel_id: int, challenger_id: int) -> Challenge | None:
        """The newest challenge ``challenger_id`` made in the channel that is still pending."""
        row = await self.database.fetchone(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE channel_id = ? "
            "AND challenger_id = ? AND status = 'pending' ORDER BY id DESC LIMIT 1",
            (channel_id, challenger_id),
        )
        return None if row is None else challenge_from_row(row)

    async def close(self, challenge_id: int, status: ChallengeStatus) -> Challenge | None:
        """Mark a pending challenge declined, withdrawn or expired.

        Returns the updated challenge, or ``None`` if it was no longer pending (someone else
        already answered it).
        """
        async with self.database.transaction() as transaction:
            row = await transaction.fetchone(
                f"UPDATE challenges SET status = ? WHERE id = ? AND status = 'pending' "
                f"RETURNING {CHALLENGE_COLUMNS}",
                (status, challenge_id),
            )
        return None if row is None else challenge_from_row(row)

    async def accept(
        self,
        challenge_id: int,
        acceptance: Acceptance,
        *,
        now: float,
        reminders: ReminderDefaults | None = None,
    ) -> Game:
        """Accept a pending challenge and start its game as ``acceptance`` says, in one
        transaction; with ``reminders``, the first player is reminded of their turn (see
        :func:`~bot.storage.games.sql_rules.reminder_due`). An open challenge is the accepter's:
        the first to accept it has it.

        Raises :class:`StaleGameError` if the challenge is no longer pending (or no longer
        open), and :class:`ChannelBusyError` if the place is taken or the two play each other
        there.
        """
        async with self.database.transaction() as transaction:
            challenge = await _claim(transaction, challenge_id, acceptance.accepter)
            await transaction.lock("channel", challenge.channel_id)
            opponent_id = challenge.opponent_id
            assert opponent_id is not None  # accepted: someone's
            await ensure_pair_free(
                transaction, challenge.channel_id, challenge.challenger_id, opponent_id
            )
            game = await insert_game(
                transaction, acceptance.game(challenge), now=now, reminders=reminders
            )
            await transaction.execute(
                "UPDATE challenges SET game_id = ? WHERE id = ?", (game.id, challenge_id)
            )
        return game


async def _make_room(transaction: Transaction, new: NewChallenge, now: float) -> None:
    """Raise :class:`ChannelBusyError` if ``new`` can't be made now (see
    :meth:`ChallengeStore.create`), once the channel's challenges never shown are expired."""
    channel_id, challenger_id = new.channel_id, new.challenger.id
    if new.in_channel:
        await ensure_no_active_game(transaction, channel_id)
    if new.opponent is not None:
        await ensure_pair_free(transaction, channel_id, challenger_id, new.opponent.id)
    await transaction.execute(
        "UPDATE challenges SET status = 'expired' WHERE channel_id = ? "
        "AND status = 'pending' AND message_id IS NULL AND created_at <= ?",
        (channel_id, now - UNSHOWN_CHALLENGE_SECONDS),
    )
    other = ANYONE if new.opponent is None else new.opponent.id
    pending = await transaction.fetchone(
        "SELECT 1 FROM challenges WHERE channel_id = ? AND status = 'pending' AND "
        "((challenger_id = ? AND opponent_id = ?) OR "
        "(challenger_id = ? AND opponent_id = ?))",
        (channel_id, challenger_id, other, other, challenger_id),
    )
    if pending is not None:
        raise ChannelBusyError(new.busy)
    if new.opponent is None:
        await transaction.lock("open-challenges", challenger_id)
        waiting = await scalar(transaction, _OPEN_RULE, (new.guild_id, challenger_id, now))
        if waiting >= MAX_OPEN_CHALLENGES:
            raise ChannelBusyError(TOO_MANY_OPEN)


def _new_challenge_row(new: NewChallenge, now: float) -> dict[str, object]:
    """The columns of ``new``'s row, made at ``now``."""
    opponent, options = new.opponent, new.options
    return {
        "guild_id": new.guild_id,
        "channel_id": new.channel_id,
        "challenger_id": new.challenger.id,
        "opponent_id": ANYONE if opponent is None else opponent.id,
        "challenger_name": new.challenger.name,
        "opponent_name": "" if opponent is None else opponent.name,
        "mode": options.game_mode,
        "ornaments": options.ornament_count(),
        "colour": options.colour,
        "first": options.first,
        "created_at": now,
        "expires_at": new.expires_at,
        "language": options.language,
        "open_to_all": opponent is None,
        "rating_range": new.rating_range,
        "time_control": None if options.clock is None else str(options.clock),
        "venue": new.venue,
    }


async def _claim(transaction: Transaction, challenge_id: int, accepter: Person | None) -> Challenge:
    """Mark a pending challenge accepted — an open one by ``accepter``, who becomes its
    opponent; a named one (``accepter`` ``None``) by its opponent. Raises
    :class:`StaleGameError` if it is no longer pending (or no longer open)."""
    if accepter is None:
        row = await transaction.fetchone(
            "UPDATE challenges SET status = 'accepted' WHERE id = ? "
            f"AND status = 'pending' AND opponent_id != {ANYONE} "
            f"RETURNING {CHALLENGE_COLUMNS}",
            (challenge_id,),
        )
    else:
        row = await transaction.fetchone(
            "UPDATE challenges SET status = 'accepted', opponent_id = ?, "
            f"opponent_name = ? WHERE id = ? AND status = 'pending' "
            f"AND opponent_id = {ANYONE} RETURNING {CHALLENGE_COLUMNS}",
            (accepter.id, accepter.name, challenge_id),
        )
    if row is None:
        raise StaleGameError("the challenge is no longer open")
    return challenge_from_row(row)
