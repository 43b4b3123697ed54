"""A game the pool paired between members of two servers, served by two shard processes on one
PostgreSQL: one game in two places. Each player presses on the board in their own server; the
board reaches both places after every turn (the pressed place by the press, the other by the
process owning it, woken by the store's announcement); the processes are killed with ``kill -9``
at random moments and restarted, and nothing is lost or posted twice."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter

import asyncpg

from bot.base.seats import Seat
from bot.base.server_rules import ReminderDefaults
from bot.storage import open_database
from bot.storage.games.places import insert_pool_game
from bot.storage.games.store import GameStore
from engine import WHITE, Position
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.emulator.tests.raw import RawApi
from tests.e2e.table import FOOTER, Table, board_part, path_of, press_paths
from tests.e2e.test_shards import SHARDS, shard_bots, shard_env
from tests.postgres import PostgresServer

KILLS = 6
"""How many times a process is killed during the game (CI's time: each restart costs seconds)."""
MOMENTS = ("at once", "once stored", "once shown where pressed")
"""When a process is killed after a press: at once (the press may be lost, or stored and not
answered), once it is acknowledged (stored), or once its board is out where it was pressed
(the other place's board being posted, or about to be)."""


def seat(member: Member, table: Table) -> Seat:
    """``member`` asking for a game at ``table`` (a server's channel)."""
    assert table.guild is not None
    name = member.user.global_name or member.user.username
    return Seat(member.id, name, table.guild.id, table.channel.id, "server", "en")


async def start_pool_game(
    url: str, white: Seat, black: Seat, pace: str, reminders: ReminderDefaults | None = None
) -> int:
    """The game the pool would start for ``white`` and ``black`` (its wave's transaction)."""
    database = await open_database(url)
    try:
        async with database.transaction() as transaction:
            return await insert_pool_game(
                transaction, white, black, pace, time.time(), reminders=reminders
            )
    finally:
        await database.close()


def one_board_per_ply(table: Table) -> None:
    """No board was posted twice in ``table`` for the same state of its game (its ply, and
    whether it is over: a resignation changes no position)."""
    shown = Counter(
        (board_part(board, FOOTER), table.status(board).startswith("Game over."))
        for board in table.boards()
    )
    assert [ply for ply, count in shown.items() if count > 1] == [], shown


def same_boards(tables: list[Table], plies: int) -> bool:
    """Both places show the board of ``plies`` turns as their newest, and the same position."""
    if not all(len(table.boards()) == plies + 1 for table in tables):
        return False
    return len({str(table.position()) for table in tables}) == 1


async def test_a_game_between_two_servers_is_played_in_both_with_kills(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer, seed: int
):
    """Alice (shard 0's server) and Bob (shard 1's) play a pool game (correspondence or live, by
    the seed) to its end by random turns through the buttons of their own server's board; after
    every turn both boards show the same position; :data:`KILLS` times a process — the
    presser's or the other — is killed after a press (at one of :data:`MOMENTS`) and restarted;
    every board is posted once."""
    rng = random.Random(seed)
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    bots = await shard_bots(emulator, spawn_bot, url)
    tables = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = tables[0].people_named("alice", "bob")
    place_of = {alice.id: 0, bob.id: 1}
    pace = rng.choice(("correspondence", "10+5"))  # a live clock starts with either place's board
    print(f"pace {pace}")
    await start_pool_game(url, seat(alice, tables[0]), seat(bob, tables[1]), pace)
    await emulator.wait_for(lambda: same_boards(tables, 0), what="the first board in both places")
    assert "Alice" in tables[1].header() and "Bob" in tables[0].header()

    plies, kills, lost = 0, sorted(rng.sample(range(2, 40), KILLS)), []
    while not tables[0].status().startswith("Game over."):
        position = tables[0].position()
        mover = alice if position.turn == WHITE else bob  # named by a mention in their place
        table = tables[place_of[mover.id]]
        assert table.mover() == mover
        turn = rng.choice(position.legal_turns())
        path = path_of(position, turn)
        press = await table.click_path(mover, table.board, path, wait=False)
        if kills and plies == kills[0]:
            kills.pop(0)
            moment, victim = rng.choice(MOMENTS), rng.choice((0, 1))
            if moment == "once stored":
                await emulator.wait_for(
                    lambda press=press: press.acknowledged, what="the press acknowledged"
                )
            elif moment == "once shown where pressed":  # the other place's post under way
                await emulator.wait_for(
                    lambda table=table, shown=plies + 2: len(table.boards()) == shown,
                    what="the pressed place's board",
                )
                victim = 1 - place_of[mover.id]
            print(f"ply {plies + 1}: kill -9 of shard {victim}'s process {moment}")
            bots[victim] = await kill_and_restart(emulator, spawn_bot, bots[victim], url, victim)
            await settle(bots)
            if not press.acknowledged:
                lost.append(press.id)
                if await stored_plies(url) == plies:  # lost before it was stored: again
                    last = press_paths(position, path)[-1]
                    await table.click(
                        mover, table.board, table.custom_id(table.board, f":{last}:n")
                    )
        plies += 1
        print(f"ply {plies}: {turn} pressed in server {place_of[mover.id]}")
        await emulator.wait_for(
            lambda plies=plies: same_boards(tables, plies), what=f"both boards of {turn}"
        )
        assert tables[0].position() == position.apply(turn)

    await settle(bots)
    for table in tables:
        assert table.status().startswith("Game over.")
        one_board_per_ply(table)
    unexpected = [v for v in emulator.violations if v.interaction_id not in lost]
    assert unexpected == [] and {v.rule for v in emulator.violations} <= {
        "interaction.not-acknowledged"
    }
    await check_game(url, tables[0].position(), plies)
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()


async def kill_and_restart(
    emulator: Emulator, spawn_bot: SpawnBot, bot: BotProcess, url: str, shard: int
) -> BotProcess:
    """``kill -9`` the process of ``shard`` and start a new one in its place."""
    assert await bot.kill() == -9
    new = spawn_bot(emulator, env=shard_env(url, shard), guild_commands=False)
    await new.start()
    return new


async def settle(bots: list[BotProcess]) -> None:
    """Every process idle (its changes' boards out, in both places)."""
    await asyncio.gather(*(bot.settle() for bot in bots))


async def stored_plies(url: str) -> int:
    """How many turns the game has stored."""
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval("SELECT plies FROM games")
    finally:
        await connection.close()


async def last_move_at(url: str) -> float:
    """When the game's last turn was stored (by the database's clock: the same machine's)."""
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval("SELECT last_move_at FROM games")
    finally:
        await connection.close()


async def check_game(url: str, shown: Position, plies: int) -> None:
    """The stored game ended where both boards show it after ``plies`` turns, its turns
    numbered without a gap replay from its start to it, and each place recorded the final
    board."""
    connection = await asyncpg.connect(url)
    try:
        game = await connection.fetchrow(
            "SELECT id, status, start_position, position, version, board_version, rated, pool "
            "FROM games"
        )
        turns = await connection.fetch(
            "SELECT ply, turn FROM turns WHERE game_id = $1 ORDER BY ply", game["id"]
        )
        places = await connection.fetch(
            "SELECT home, version, board_version FROM game_places WHERE game_id = $1", game["id"]
        )
    finally:
        await connection.close()
    assert (game["status"], game["rated"], game["pool"]) == ("finished", True, True)
    assert game["position"] == str(shown) and game["board_version"] == game["version"]
    assert [turn["ply"] for turn in turns] == list(range(1, plies + 1))
    position = Position.parse(game["start_position"])
    for turn in turns:
        position = position.apply(turn["turn"])
    assert position == shown
    away = [place for place in places if not place["home"]]
    assert [(p["version"], p["board_version"]) for p in away] == [(game["version"],) * 2]


async def test_a_server_that_wants_threads_gets_one_for_its_place(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """With a thread per game, each server's place is a thread of the channel the member asked
    in, opened on a line naming the game's thread (the other server's player by name, unpinged),
    the asking player added — also by a process started after the game (its restart's repair
    waits to be connected); the game is played in both threads to a resignation, and reviewed
    where it was asked."""
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    env = {"THOLOS_THREADS": "on"}
    bots = await shard_bots(emulator, spawn_bot, url, env)
    channels = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = channels[0].people_named("alice", "bob")
    assert await bots[1].kill() == -9  # Bob's server's process is down when the game starts:
    await start_pool_game(url, seat(alice, channels[0]), seat(bob, channels[1]), "correspondence")
    bots[1] = spawn_bot(emulator, env=shard_env(url, 1) | env, guild_commands=False)
    await bots[1].start()  # its thread is opened once the new process is connected

    def threads_with_boards() -> bool:
        found = [emulator.threads(table.channel) for table in channels]
        return all(len(threads) == 1 and Table(emulator, threads[0]).boards() for threads in found)

    await emulator.wait_for(threads_with_boards, what="a thread with a board in each server")
    tables = [Table(emulator, emulator.threads(table.channel)[0]) for table in channels]
    names = ("Bob", "Alice")
    for table, channel, player, other in zip(tables, channels, (alice, bob), names, strict=True):
        (line,) = channel.boards() or [emulator.last_message(channel.channel)]
        assert f"<#{table.channel.id}>" in line.text and other in line.text
        assert player.id in emulator.thread_members(table.channel)
        assert not channel.boards(), "the boards are in the thread"
    await tables[0].play(tables[0].position().legal_turns()[0])
    await emulator.wait_for(lambda: same_boards(tables, 1), what="both boards of the first turn")
    await tables[1].play(tables[1].position().legal_turns()[0])
    await emulator.wait_for(lambda: same_boards(tables, 2), what="both boards of the second turn")
    ask = await tables[1].slash(bob, "tholos resign")  # in his server's thread
    assert ask.original is not None
    await tables[1].click(bob, ask.original, tables[1].labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: same_boards(tables, 3), what="both final boards")
    await settle(bots)
    for table, channel in zip(tables, channels, strict=True):
        assert table.status().startswith("Game over.")
        assert emulator.last_message(channel.channel).text.startswith("🏁")
    away = tables[1]  # the Review pressed in Bob's place: the review is shown there
    await away.click(bob, away.board, away.labelled(away.board, "Review"))

    def review() -> bool:
        found = [m for m in emulator.messages(away.channel) if m.embeds and not m.ephemeral]
        return any(m.embeds[0].get("title", "").startswith("AI review") for m in found)

    await emulator.wait_for(review, timeout=120, what="the review in Bob's place")
    assert not any(m.embeds for m in emulator.messages(tables[0].channel))
    for table in tables:
        one_board_per_ply(table)
        table.assert_clean()
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()


async def test_a_member_who_asked_in_the_dm_with_the_bot_plays_there(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """Bob asked where the bot cannot post (his own install): the game is shown in his DM with
    the bot, which shard 0's process serves, while Alice plays in shard 1's server; Bob's turn
    in the DM reaches Alice's board, hers his; once she is idle (1 s here), Bob claims the win
    from the DM; both places show it, and its Record and Replay work from either."""
    url = await postgres_server.create_database()
    guild = emulator.add_guild("Server 1", shard=(1, SHARDS))
    env = {"THOLOS_INACTIVITY_TIMEOUT": "1"}
    bots = await shard_bots(emulator, spawn_bot, url, env)
    server = Table(emulator, "games", guild=guild)
    alice, bob = server.people_named("alice", "bob")
    dm = Table(emulator, emulator.dm_channel(bob))
    in_dm = Seat(bob.id, "Bob", 0, dm.channel.id, "bot_dm", "en")
    await start_pool_game(url, seat(alice, server), in_dm, "correspondence")
    tables = [server, dm]
    await emulator.wait_for(lambda: same_boards(tables, 0), what="the first board in both places")
    for plies in (1, 2):
        table = tables[plies - 1]
        await table.play(table.position().legal_turns()[0])
        await emulator.wait_for(lambda plies=plies: same_boards(tables, plies), what="both boards")
    idle_since = await last_move_at(url)
    await emulator.wait_for(lambda: time.time() > idle_since + 1, what="Alice idle for 1 s")
    await dm.click(bob, dm.board, dm.labelled(dm.board, "Claim win (opponent idle)"))
    await emulator.wait_for(lambda: same_boards(tables, 3), what="both final boards")
    assert f"<@{bob.id}> wins" in dm.status() and "**Bob** wins" in server.status()
    labels = [[button.get("label") for button in table.board.buttons] for table in tables]
    assert labels == [["Replay", "Record", "Review"]] * 2, "no rematch across places"
    pressed = await dm.click(bob, dm.board, dm.labelled(dm.board, "Record"))
    assert pressed.original is not None and pressed.original.ephemeral
    assert "timeout" in pressed.original.attachments[0].data.decode()
    await server.click(alice, server.board, server.labelled(server.board, "Replay"))
    await server.private_file(alice)
    await settle(bots)
    for table in tables:
        assert table.status().startswith("Game over.")
        one_board_per_ply(table)
        table.assert_clean()
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()


async def test_each_player_is_reminded_in_their_own_place(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """Turn reminders of a correspondence pool game (after 2 s): the player to move is
    reminded where they asked for the game, the link to their own board, never in the other
    server; the home's process sends both."""
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    env = {"THOLOS_REMINDER_AFTER": "2"}
    bots = await shard_bots(emulator, spawn_bot, url, env)
    tables = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = tables[0].people_named("alice", "bob")
    alice_seat, bob_seat = seat(alice, tables[0]), seat(bob, tables[1])
    await start_pool_game(url, alice_seat, bob_seat, "correspondence", ReminderDefaults(2, 86400))

    def reminders(table: Table) -> list[str]:
        return [m.text for m in emulator.messages(table.channel) if m.text.startswith("⏰")]

    await emulator.wait_for(lambda: len(reminders(tables[0])) == 1, what="Alice reminded")
    assert f"<@{alice.id}>" in reminders(tables[0])[0] and "Bob" in reminders(tables[0])[0]
    await tables[0].play(tables[0].position().legal_turns()[0])
    await emulator.wait_for(lambda: len(reminders(tables[1])) == 1, what="Bob reminded")
    (to_bob,) = reminders(tables[1])
    assert f"<@{bob.id}>" in to_bob and "Alice" in to_bob
    assert f"/{guilds[1].id}/{tables[1].channel.id}/{tables[1].board.id}" in to_bob
    assert len(reminders(tables[0])) == 1, "Alice's place hears nothing of Bob's turn"
    await settle(bots)
    for table in tables:
        table.assert_clean()
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()


async def test_a_thread_is_opened_on_the_line_a_killed_process_posted(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer, raw_api: RawApi
):
    """A process posted the line of Bob's place and was killed before opening its thread (the
    line remembered, the place not settled): the next process opens the thread on that line,
    long after Discord's nonce window too — never a second line."""
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    channels = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = channels[0].people_named("alice", "bob")
    game_id = await start_pool_game(
        url, seat(alice, channels[0]), seat(bob, channels[1]), "correspondence"
    )
    path = f"/channels/{channels[1].channel.id}/messages"
    status, line = await raw_api.call("POST", path, json={"content": "⚔️ the killed one's line"})
    assert status == 200
    database = await open_database(url)
    try:
        store = GameStore(database)
        away = await store.places.seen_from(game_id, bob.id)
        assert away is not None
        await store.place_threads.note_line(away, int(line["id"]))
    finally:
        await database.close()
    env = {"THOLOS_THREADS": "on"}
    bots = await shard_bots(emulator, spawn_bot, url, env)

    def boards_in_threads() -> bool:
        found = [emulator.threads(table.channel) for table in channels]
        return all(len(threads) == 1 and Table(emulator, threads[0]).boards() for threads in found)

    await emulator.wait_for(boards_in_threads, what="a thread with a board in each server")
    (only,) = emulator.messages(channels[1].channel)
    assert only.id == int(line["id"]) and emulator.thread_of(only) is not None
    assert f"<#{emulator.threads(channels[1].channel)[0].id}>" in only.text
    await settle(bots)
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()
