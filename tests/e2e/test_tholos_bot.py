"""The real bot (``python -m bot``) against the emulator: the contract the other end-to-end tests
rely on, and a random player using every registered command, button and select, across a
restart."""

from __future__ import annotations

import pytest

from .conftest import SpawnBot
from .emulator import BotProcess, Emulator, Interaction, RandomPlayer


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


@pytest.mark.parametrize(
    ("backend", "threads"), [("sqlite", "off"), ("postgresql", "off"), ("sqlite", "on")]
)
async def test_random_play_across_a_restart(
    emulator: Emulator,
    spawn_bot: SpawnBot,
    backend: str,
    threads: str,
    request: pytest.FixtureRequest,
) -> None:
    """A random player using every command and button (in the games' threads too), across a
    kill -9, on each backend, with and without a thread per game."""
    env = {"THOLOS_THREADS": threads}
    if backend == "postgresql":
        env["THOLOS_DB"] = await request.getfixturevalue("postgres_server").create_database()
    bot = spawn_bot(emulator, "bot", env=env)
    await bot.start(sync=True)
    people = [emulator.member(name) for name in ("alice", "bob", "carol")]
    general = emulator.channel("general")
    player = RandomPlayer(
        emulator, people, general, seed=2, command_rate=0.2, settle=lambda: bot.settle(0.05)
    )
    made = await player.play(30)
    no_failures(emulator, made, player)
    everything = list(made)
    await emulator.settle()
    assert await bot.kill() == -9
    await bot.start()
    made = await player.play(20)
    no_failures(emulator, made, player)
    everything += made
    if threads == "on":  # the games were played in threads, and the player followed them
        thread_presses = [ix for ix in everything if ix.channel.is_thread]
        assert emulator.threads(general) and thread_presses
    assert await bot.stop() == 0
    bot.assert_clean_log()
