"""A game in several places: a game the pool paired is shown where each player asked for it (a
server's channel, or their DM with the bot). The game's row holds its home (the first seat's
place) and that place's boards, as every game's; ``game_places`` holds every seat's place, and
the boards of each place besides the home (each recorded on its own, once per version)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import cast

from bot.base.game import Game, GamePlace, NewGame, Venue
from bot.base.languages import Language
from bot.base.paces import TimeControl
from bot.base.people import Person
from bot.base.seats import Seat
from bot.base.server_rules import ReminderDefaults
from bot.base.shards import Shards
from bot.storage.db import Database, Row, Sql, Transaction, insert
from bot.storage.games.changes import GAMES_TOPIC, PLACES_TOPIC, _new_game_row
from bot.storage.games.rows import GAME_COLUMNS, NEEDS_A_BOARD, game_from_row, read_game
from bot.storage.games.sql_rules import reminder_due
from bot.storage.watched import watch
from engine import WHITE
from engine.newgame import new_game

PLACE_COLUMNS = (
    "game_id, user_id, home, guild_id, channel_id, parent_id, parent_message_id, venue, "
    "language, server_name, placed, version, board_message_id, board_version"
)


@dataclass(frozen=True, slots=True)
class Place:
    """Where one player of a pool game sees it: the channel its boards are posted in (a thread
    of ``parent_id``, or the channel itself), and which board of the game it shows there."""

    game_id: int
    user_id: int
    """The player who asked for the game here."""
    home: bool
    """The game's home (the place the game's row names; its boards are recorded there)."""
    guild_id: int
    channel_id: int
    parent_id: int | None
    parent_message_id: int | None
    venue: Venue
    language: Language
    server_name: str | None
    """This place's server's name, shown to the other player only if its admin allowed it."""
    placed: bool
    """Whether its thread question is settled (a thread opened, or the channel itself)."""
    version: int
    board_message_id: int | None
    board_version: int | None

    @property
    def home_id(self) -> int:
        """The channel the game belongs to here: its thread's parent, or its own channel."""
        return self.parent_id or self.channel_id

    def shown(self, game: Game) -> Game:
        """``game`` as this place shows it: its channel, thread, language and board here."""
        if self.home:
            return game
        return replace(game, **_where(self), away=self.user_id)


def seen_as(changed: Game, seen: Game) -> Game:
    """``changed`` (a change of ``seen``'s game, as its row has it) seen from where ``seen``
    was: the same place, its board there unchanged by the change."""
    if seen.away is None:
        return changed
    return replace(changed, **_where(seen), away=seen.away)


_WHERE = (
    "guild_id",
    "channel_id",
    "parent_id",
    "parent_message_id",
    "venue",
    "language",
    "board_message_id",
    "board_version",
)
"""What a place decides of the game it shows: where it is, in which language, its board."""


def _where(place: Place | Game) -> dict[str, object]:
    """The fields of :data:`_WHERE`, as ``place`` has them."""
    return {field: getattr(place, field) for field in _WHERE}


def place_from_row(row: Row) -> Place:
    """The :class:`Place` of a row selected with :data:`PLACE_COLUMNS`."""
    return Place(
        game_id=row["game_id"],
        user_id=row["user_id"],
        home=bool(row["home"]),
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        parent_id=row["parent_id"],
        parent_message_id=row["parent_message_id"],
        venue=row["venue"],
        language=row["language"],
        server_name=row["server_name"],
        placed=bool(row["placed"]),
        version=row["version"],
        board_message_id=row["board_message_id"],
        board_version=row["board_version"],
    )


async def insert_pool_game(
    transaction: Transaction,
    white: Seat,
    black: Seat,
    pace: str,
    now: float,
    *,
    seed: int | None = None,
    reminders: ReminderDefaults | None = None,
) -> int:
    """Start a rated game the pool paired in the caller's transaction: ``white`` moves first, a
    basic game at ``pace`` (``correspondence`` or a clock), at home in ``white``'s place and
    shown in ``black``'s too; its id. Its boards are posted after the commit, in each place by
    the process that owns it (the ``games`` topic announced here wakes them). ``reminders``:
    the bot's defaults, for the first player's turn reminder in a correspondence game."""
    seed = random.randrange(2**31) if seed is None else seed
    clock = TimeControl.of(pace)
    home = GamePlace(white.guild_id, white.channel_id, venue=white.venue)
    new = NewGame(
        place=home,
        white=Person(white.user_id, white.name),
        black=Person(black.user_id, black.name),
        seed=seed,
        start=new_game("basic", seed=seed, first=WHITE),
        language=cast(Language, white.language),
        clock=clock,
        rated=True,
    )
    row = _new_game_row(new, now) | {"rated": True, "pool": True}
    due = reminder_due(reminders if clock is None else None, now, white.guild_id)
    row["reminder_due_at"] = Sql(*due)
    game = game_from_row(await insert(transaction, "games", row, GAME_COLUMNS))
    for seat in (white, black):
        await _insert_place(transaction, game, seat, home=seat is white)
    await watch(transaction, game)
    await transaction.announce(PLACES_TOPIC, str(game.id))
    await transaction.announce(GAMES_TOPIC, str(game.id))
    return game.id


async def _insert_place(transaction: Transaction, game: Game, seat: Seat, *, home: bool) -> None:
    """A seat's place; a seat asking in the home's channel itself shows the home's boards."""
    same = seat.channel_id == game.channel_id
    await transaction.execute(
        "INSERT INTO game_places (game_id, user_id, home, guild_id, channel_id, venue, "
        "language, server_name, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            game.id,
            seat.user_id,
            home or same,
            seat.guild_id,
            seat.channel_id,
            seat.venue,
            seat.language,
            seat.server_name,
            game.version,
        ),
    )


async def places_of(database: Database | Transaction, game_id: int) -> list[Place]:
    """Every place ``game_id`` is shown in (none: a game of one place), the home first."""
    rows = await database.fetchall(
        f"SELECT {PLACE_COLUMNS} FROM game_places WHERE game_id = ? ORDER BY home DESC, user_id",
        (game_id,),
    )
    return [place_from_row(row) for row in rows]


async def place_of(database: Database, game_id: int, user_id: int) -> Place | None:
    """The place ``user_id`` asked for ``game_id`` in."""
    row = await database.fetchone(
        f"SELECT {PLACE_COLUMNS} FROM game_places WHERE game_id = ? AND user_id = ?",
        (game_id, user_id),
    )
    return None if row is None else place_from_row(row)


async def boards_behind(database: Database, shards: Shards) -> list[Game]:
    """The pool games whose newest change has no board yet in one of their places on the
    servers of ``shards``, each as that place shows it: at home (as any game's) or in another
    place (``game_places``); the oldest change first."""
    mine, values = shards.sql()
    rows = await database.fetchall(
        f"SELECT {GAME_COLUMNS} FROM games WHERE {NEEDS_A_BOARD} AND pool AND {mine}", values
    )
    behind = [game_from_row(row) for row in rows]
    mine, values = shards.sql()
    rows = await database.fetchall(
        f"SELECT {PLACE_COLUMNS} FROM game_places WHERE NOT home "
        f"AND (board_version IS NULL OR board_version < version) AND {mine}",
        values,
    )
    for place in map(place_from_row, rows):
        game = await read_game(database, place.game_id)
        if game is not None:
            behind.append(place.shown(game))
    return sorted(behind, key=lambda game: game.last_move_at)


def _the_place(game: Game) -> tuple[str, tuple[int, ...]]:
    """SQL: the rows of ``game_places`` of the place ``game`` is seen from (its home's: every
    home row), and its parameters."""
    return ("home", ()) if game.away is None else ("user_id = ?", (game.away,))


def _shown_in(channel_id: int | None, shown: int, parent_id: int | None) -> bool:
    """Whether ``channel_id`` is where a place shows its game: its channel or thread, or the
    thread's channel."""
    return channel_id is not None and channel_id in (shown, parent_id)


def shown_in_servers(count: int) -> str:
    """SQL: a game shown on one of ``count`` servers — its home there, or (a pool game) another
    of its places; the servers' ids are its parameters, twice."""
    marks = ", ".join("?" for _ in range(count))
    return (
        f"(guild_id IN ({marks}) OR (pool AND id IN (SELECT game_id FROM game_places "
        f"WHERE NOT home AND guild_id IN ({marks}))))"
    )


class PlacedGames:
    """Pool games seen from each of their places: where a press, a command or a listing comes
    from decides which place's board, channel and language it sees."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def game_in(
        self, game_id: int, channel_id: int | None, guild_id: int | None = None
    ) -> Game | None:
        """The game with this id as it is shown in ``channel_id`` (its thread or its channel),
        else in the server ``guild_id``: a pool game asked for there is seen from that place
        (:attr:`Game.away`); any other game, or any other channel, at its home."""
        game = await read_game(self.database, game_id)
        if game is None or not game.pool or _shown_in(channel_id, game.channel_id, game.parent_id):
            return game
        places = await places_of(self.database, game_id)
        here = [p for p in places if _shown_in(channel_id, p.channel_id, p.parent_id)]
        in_server = [place for place in places if guild_id and place.guild_id == guild_id]
        for place in here or in_server:
            return place.shown(game)
        return game

    async def seen_from(self, game_id: int, away: int | None) -> Game | None:
        """The game with this id as its place ``away`` shows it (``None``: at its home)."""
        game = await read_game(self.database, game_id)
        if game is None or away is None:
            return game
        place = await place_of(self.database, game_id, away)
        return None if place is None else place.shown(game)

    async def move(
        self, game: Game, channel_id: int, parent_id: int | None, parent_message_id: int | None
    ) -> Game:
        """Show ``game`` elsewhere in the place it is seen from (its thread there was deleted):
        a new thread of ``parent_id``, or the channel itself; its board there still to post."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE game_places SET channel_id = ?, parent_id = ?, parent_message_id = ?, "
                "board_message_id = NULL, board_version = NULL WHERE game_id = ? AND user_id = ?",
                (channel_id, parent_id, parent_message_id, game.id, game.away),
            )
        return await self.seen_from(game.id, game.away) or game

    async def named(self, game: Game) -> Game:
        """``game`` with each player who asked for it in another server than the one it is seen
        in named with that server, where its admin allowed it (the pool stored its name then):
        ``Alice (Delphi)``."""
        if not game.pool:
            return game
        servers = {
            place.user_id: place.server_name
            for place in await places_of(self.database, game.id)
            if place.server_name and place.guild_id != game.guild_id
        }
        if not servers:
            return game
        white, black = (
            name if server is None else f"{name} ({server})"
            for name, server in (
                (game.white_name, servers.get(game.white_id)),
                (game.black_name, servers.get(game.black_id)),
            )
        )
        return replace(game, white_name=white, black_name=black)

    async def seen_in_server(self, games: Iterable[Game], guild_id: int) -> list[Game]:
        """``games`` (as their rows have them) each seen from its place on the server
        ``guild_id``: a pool game at home elsewhere, from its other place there."""
        seen = []
        for game in games:
            if game.pool and game.guild_id != guild_id:
                game = await self.game_in(game.id, None, guild_id) or game
            seen.append(game)
        return seen

    async def seen_by(self, game: Game, user_id: int) -> Game:
        """``game`` (as its row has it) seen from the place ``user_id`` asked for it in: a
        pool game's other place, or else its home."""
        if not game.pool:
            return game
        place = await place_of(self.database, game.id, user_id)
        return game if place is None else place.shown(game)

    async def active_in(
        self, channel_id: int, user_id: int | None, *, threads: bool = True
    ) -> list[Game]:
        """The active pool games shown in a channel (and its threads) besides their home, seen
        from there; only those ``user_id`` plays in, if given."""
        columns = ", ".join(f"p.{column}" for column in PLACE_COLUMNS.split(", "))
        where, values = "p.channel_id = ?", [channel_id]
        if threads:
            where, values = "(p.channel_id = ? OR p.parent_id = ?)", [channel_id, channel_id]
        if user_id is not None:
            where += " AND (g.white_id = ? OR g.black_id = ?)"
            values += [user_id, user_id]
        rows = await self.database.fetchall(
            f"SELECT {columns} FROM game_places p JOIN games g ON g.id = p.game_id "
            f"WHERE NOT p.home AND {where} AND g.status = 'active'",
            values,
        )
        shown = []
        for place in map(place_from_row, rows):
            game = await read_game(self.database, place.game_id)
            if game is not None:
                shown.append(place.shown(game))
        return shown


class PlaceThreads:
    """A pool game's thread in each place: whether it is settled, the line it hangs on, and
    the place moved into it."""

    def __init__(self, database: Database, places: PlacedGames) -> None:
        self.database = database
        self.places = places

    async def placed(self, game: Game) -> bool:
        """Whether the place ``game`` is seen from has its thread question settled (a pool
        game's place, before its first board: a thread may be opened for it)."""
        where, values = _the_place(game)
        placed = await self.database.fetchone(
            f"SELECT placed FROM game_places WHERE game_id = ? AND {where}", (game.id, *values)
        )
        return placed is None or bool(placed[0])

    async def pending_line(self, game: Game) -> int | None:
        """The line posted for the thread of the place ``game`` is seen from, before that
        place was settled (``None``: none yet)."""
        where, values = _the_place(game)
        row = await self.database.fetchone(
            f"SELECT parent_message_id FROM game_places WHERE game_id = ? AND {where} "
            "AND NOT placed",
            (game.id, *values),
        )
        return None if row is None else row[0]

    async def note_line(self, game: Game, line_id: int) -> None:
        """Remember the line just posted for the thread of the place ``game`` is seen from:
        a restart before the place is settled opens its thread on it (never a second line)."""
        where, values = _the_place(game)
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE game_places SET parent_message_id = ? "
                f"WHERE game_id = ? AND {where} AND NOT placed",
                (line_id, game.id, *values),
            )

    async def settle(self, game: Game, thread: tuple[int, int] | None) -> Game:
        """Settle the thread question of the place ``game`` is seen from: played in the thread
        ``thread[0]`` opened on the line ``thread[1]`` of its channel, or (``None``) in the
        channel itself; the game seen from there now (as it was, if settled meanwhile)."""
        where, values = _the_place(game)
        moved = thread is not None and game.parent_id is None
        async with self.database.transaction() as transaction:
            forget = "" if thread else ", parent_message_id = NULL"  # a line without thread
            changed = await transaction.execute(
                f"UPDATE game_places SET placed = TRUE{forget} "
                f"WHERE game_id = ? AND {where} AND NOT placed",
                (game.id, *values),
            )
            if changed and moved:
                assert thread is not None
                into = (thread[0], game.channel_id, thread[1])
                await transaction.execute(
                    "UPDATE game_places SET channel_id = ?, parent_id = ?, parent_message_id = ? "
                    f"WHERE game_id = ? AND {where}",
                    (*into, game.id, *values),
                )
                if game.away is None:
                    await transaction.execute(
                        "UPDATE games SET channel_id = ?, parent_id = ?, parent_message_id = ? "
                        "WHERE id = ?",
                        (*into, game.id),
                    )
        if game.away is None:
            return await read_game(self.database, game.id) or game
        return await self.places.seen_from(game.id, game.away) or game
