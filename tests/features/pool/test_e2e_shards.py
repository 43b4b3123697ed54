"""The pool across two shard processes on one PostgreSQL: members of two servers (one on each
shard) and of the bot's DMs queue at once for three paces with their ratings, a block and an
opt-out; the waves (one process at a time) pair exactly the pairs the rules allow — within both
windows, never blocked, never one who left —, each waiting message (held by the process that
answered it) hears its pairing; then the process holding the waves' lease is killed (kill -9)
and the waves go on (a process restarted, or the other, takes the lease over)."""

from __future__ import annotations

import asyncpg

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, Member, Message
from tests.e2e.table import Table
from tests.e2e.test_shards import SHARDS, shard_bots, shard_env
from tests.features.pool.test_e2e import WAITING, join, open_pool
from tests.postgres import PostgresServer


async def rate(url: str, ratings: dict[Member, tuple[str, float]]) -> None:
    """Give members a settled rating in a pool."""
    connection = await asyncpg.connect(url)
    try:
        await connection.executemany(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "updated_at) VALUES ($1, $2, $3, 60, 0.06, 30, extract(epoch from now()))",
            [(pool, member.id, rating) for member, (pool, rating) in ratings.items()],
        )
    finally:
        await connection.close()


async def pairs(url: str) -> set[frozenset[int]]:
    """Who plays whom in the pool's games."""
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("SELECT white_id, black_id FROM games WHERE pool")
    finally:
        await connection.close()
    return {frozenset(row) for row in rows}


async def lease_holder(url: str) -> str | None:
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval("SELECT holder FROM leases WHERE name = 'pool:wave'")
    finally:
        await connection.close()


async def test_the_pool_across_two_shard_processes(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    bots = await shard_bots(emulator, spawn_bot, url)
    here, there = (Table(emulator, "general", guild) for guild in guilds)
    alice, bob, carol = here.people_named("alice", "bob", "carol")
    dave, erin, frank, gina, henry = (
        emulator.add_user(name) for name in ("dave", "erin", "frank", "gina", "henry")
    )
    for member in (dave, erin, frank, gina, henry):
        emulator.install_for_user(member)
    dm = {m: Table(emulator, emulator.dm_channel(m)) for m in (dave, erin, frank, gina, henry)}
    await open_pool(here, alice)
    await open_pool(there, alice)
    await rate(
        url,
        {
            alice: ("live", 1500),
            gina: ("live", 1560),
            frank: ("live", 2100),  # 600 from everyone at 5+5: beyond the widest window (500)
            carol: ("correspondence", 1400),
            dave: ("correspondence", 1450),
        },
    )
    blocked = await dm[erin].slash(erin, "tholos pool block", options={"member": bob})
    assert blocked.original is not None and "You blocked" in blocked.original.text

    # Henry waits alone for 3+2 and leaves before anyone could be paired with him (a join
    # starts a wave at once, so nobody else of his pace may wait meanwhile).
    waiting: dict[Member, Message] = {henry: await join(dm[henry], henry, "3+2")}
    left = await dm[henry].slash(henry, "tholos pool leave")
    assert left.original is not None and "You left the pool" in left.original.text
    waiting |= {
        alice: await join(here, alice, "5+5"),
        frank: await join(dm[frank], frank, "5+5"),
        carol: await join(there, carol, "correspondence"),
        dave: await join(dm[dave], dave, "correspondence"),
        bob: await join(there, bob, "3+2"),
        erin: await join(dm[erin], erin, "3+2"),
        gina: await join(dm[gina], gina, "5+5"),
    }

    def paired(member: Member) -> bool:
        return "Paired with" in waiting[member].text

    for member in (alice, gina, carol, dave):
        await emulator.wait_for(
            lambda member=member: paired(member), what=f"{member.user.username} paired"
        )
    await emulator.wait_for(lambda: here.boards() and there.boards(), what="the boards")
    for bot in bots:
        await bot.settle()
    assert await pairs(url) == {frozenset({alice.id, gina.id}), frozenset({carol.id, dave.id})}
    for member in (bob, erin, frank):
        assert WAITING in waiting[member].text, member.user.username
    assert "Paired with" not in waiting[henry].text

    holder = await lease_holder(url)
    assert holder is not None
    pids = [bot.process.pid if bot.process is not None else 0 for bot in bots]
    victim = next(i for i, pid in enumerate(pids) if f":{pid}:" in holder)
    assert await bots[victim].kill() == -9
    bots[victim] = spawn_bot(emulator, env=shard_env(url, victim), guild_commands=False)
    await bots[victim].start()
    await dm[erin].slash(erin, "tholos pool unblock", options={"member": bob})
    await emulator.wait_for(
        lambda: len(there.boards()) == 2 and dm[erin].boards(), what="Bob and Erin's game"
    )
    assert frozenset({bob.id, erin.id}) in await pairs(url)
    unexpected = [v for v in emulator.violations if v.rule != "interaction.not-acknowledged"]
    assert unexpected == []
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()
