"""The real bot (``python -m bot``) against the emulator: the contract the other end-to-end tests
rely on, and a random player using every registered command, button and select, across a
restart."""

from __future__ import annotations

import random

import pytest

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Interaction, RandomPlayer
from tests.e2e.table import Table


def no_failures(emulator: Emulator, made: list[Interaction], player: RandomPlayer) -> None:
    failed = [str(ix) for ix in made if ix.failed]
    recent = "\n  ".join(player.history[-15:])
    assert not failed and emulator.violations == [], f"{failed}; last steps:\n  {recent}"


async def test_starts_registers_and_stops(emulator: Emulator, tholos_bot: BotProcess) -> None:
    """The bot registers its commands on the test server and stops cleanly, without a warning
    its host could not act on (this bot has no voice, so nothing about voice libraries)."""
    assert emulator.commands(), "commands registered on THOLOS_GUILD_ID"
    assert emulator.commands(guild=False) == []
    assert await tholos_bot.stop() == 0
    tholos_bot.assert_clean_log()
    assert " WARNING " not in tholos_bot.log(), tholos_bot.log()
    assert emulator.violations == []


async def a_turn_in_a_thread(emulator: Emulator, rng: random.Random) -> None:
    """Arranged: a game between two new members (the random player never acts as them) in its
    thread of #general, and a turn played there by its buttons."""
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    # as the test wants them, whatever the random player set: threads, and time to accept
    await table.slash(alice, "tholos-admin settings", threads="on", challenge_minutes=60)
    white, black = (emulator.add_person(f"player{len(emulator.guild.members)}") for _ in "wb")
    game = await table.start_game_in_thread(white, black)
    assert game.channel.parent_id == table.channel.id
    await game.play(rng.choice(game.position().legal_turns()))
    assert len(game.boards()) == 2
    game.assert_clean()
    table.assert_clean()


@pytest.mark.parametrize(
    ("backend", "threads"), [("sqlite", "off"), ("postgresql", "off"), ("sqlite", "on")]
)
async def test_random_play_across_a_restart(
    emulator: Emulator,
    spawn_bot: SpawnBot,
    backend: str,
    threads: str,
    seed: int,
    request: pytest.FixtureRequest,
) -> None:
    """A random player using every command and button, across a kill -9, on each backend, with
    and without a thread per game (then a game is played in a thread before the random play
    and after the restart)."""
    env = {"THOLOS_THREADS": threads}
    if backend == "postgresql":
        env["THOLOS_DB"] = await request.getfixturevalue("postgres_server").create_database()
    bot = spawn_bot(emulator, "bot", env=env)
    await bot.start(sync=True)
    people = [emulator.member(name) for name in ("alice", "bob", "carol")]
    general = emulator.channel("general")
    rng = random.Random(seed)
    if threads == "on":
        await a_turn_in_a_thread(emulator, rng)
    player = RandomPlayer(emulator, people, general, seed=seed, command_rate=0.2, settle=bot.settle)
    made = await player.play(30)
    no_failures(emulator, made, player)
    await bot.settle()
    assert await bot.kill() == -9
    await bot.start()
    made = await player.play(20)
    no_failures(emulator, made, player)
    if threads == "on":
        await a_turn_in_a_thread(emulator, rng)
    assert await bot.stop() == 0
    bot.assert_clean_log()
