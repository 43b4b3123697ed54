"""Fixtures for end-to-end tests: the Discord emulator and bots run as their own processes.

- ``emulator``: a fresh emulator per test.
- ``spawn_bot(emulator, module="bot", ...)``: a BotProcess factory; every process it made is
  killed when the test ends, whatever happened.
- ``tholos_bot``: the real bot (``python -m bot``) started against ``emulator`` and its commands
  registered; on teardown it must settle, stop on SIGTERM with exit code 0, and leave a clean
  log.
- ``shared_emulator``/``shared_tinybot``: one emulator and one tiny self-test bot per test module
  (mark such modules ``pytestmark = pytest.mark.asyncio(loop_scope="module")``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path

import pytest
import pytest_asyncio

from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.emulator.tests.raw import RawApi

SpawnBot = Callable[..., BotProcess]
IN_CHANNEL = {"THOLOS_THREADS": "off"}
"""Most tests play in the channel itself (the mode without threads); tests of threads say
``THOLOS_THREADS=on``."""
TINYBOT = "tests.e2e.emulator.tests.tinybot"


@pytest_asyncio.fixture
async def emulator() -> AsyncIterator[Emulator]:
    async with Emulator() as emu:
        yield emu


@pytest.fixture
def spawn_bot(tmp_path: Path) -> Iterator[SpawnBot]:
    started: list[BotProcess] = []

    def spawn(
        emulator: Emulator,
        module: str = "bot",
        *,
        db_path: Path | None = None,
        env: Mapping[str, str] | None = None,
        guild_commands: bool = True,
    ) -> BotProcess:
        """A BotProcess for ``python -m module`` against ``emulator`` (not started yet)."""
        name = f"{module}-{len(started)}"
        process = BotProcess(
            module,
            emulator,
            db_path or tmp_path / "tholos.db",
            tmp_path / f"{name}.log",
            env={**IN_CHANNEL, **(env or {})},
            guild_commands=guild_commands,
        )
        started.append(process)
        return process

    yield spawn
    for process in started:
        process.close()


@pytest_asyncio.fixture
async def tholos_bot(emulator: Emulator, spawn_bot: SpawnBot) -> AsyncIterator[BotProcess]:
    bot = spawn_bot(emulator, "bot")
    await bot.start(sync=True)
    yield bot
    if bot.running:
        assert await bot.stop() == 0
    bot.assert_clean_log()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_emulator() -> AsyncIterator[Emulator]:
    async with Emulator() as emu:
        yield emu


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_tinybot(
    shared_emulator: Emulator, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[BotProcess]:
    directory = tmp_path_factory.mktemp("tinybot")
    bot = BotProcess(TINYBOT, shared_emulator, directory / "tiny.db", directory / "tiny.log")
    try:
        await bot.start(sync=True)
        yield bot
        assert await bot.stop() == 0
        bot.assert_clean_log()
    finally:
        bot.close()


@pytest_asyncio.fixture
async def raw_api(emulator: Emulator) -> AsyncIterator[RawApi]:
    """Raw REST calls to ``emulator`` with the bot's token (the emulator's own tests)."""
    async with RawApi(emulator) as client:
        yield client
