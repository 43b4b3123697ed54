"""The pieces background loops share: backoff, retries in bounded memory, the timeout on a
Discord call, stopping tasks; and a database that stays usable when a task is cancelled in the
middle of a write (shutdown and a lost lease cancel tasks wherever they are)."""

from __future__ import annotations

import asyncio
import logging
import math

import pytest

from bot.loops.background import Backoff, Retries, discord_call, stop_tasks, wait_for_event
from bot.storage.db import get_meta, scalar, set_meta


def test_backoff_doubles_up_to_its_longest_and_gives_up_after_its_tries():
    backoff = Backoff(first=2.0, tries=4, longest=5.0)
    assert [backoff.delay(n) for n in (1, 2, 3, 4)] == [2.0, 4.0, 5.0, 5.0]
    assert [backoff.gives_up(n) for n in (1, 3, 4, 5)] == [False, False, True, True]


def test_retries_back_off_give_up_with_a_log_line_and_forget_on_success(caplog):
    retries: Retries[int] = Retries("board of game", Backoff(first=10.0, tries=3))
    assert retries.ready(7, 0.0) and retries.retry_at(7) is None
    assert retries.failed(7, 100.0, "HTTP 503") == 110.0
    assert not retries.ready(7, 109.9) and retries.ready(7, 110.0)
    assert retries.retry_at(7) == 110.0
    assert retries.failed(7, 110.0, "HTTP 503") == 130.0
    with caplog.at_level(logging.WARNING):
        assert retries.failed(7, 130.0, "HTTP 503") is None
    assert "gave up on the board of game 7 after 3 tries: HTTP 503" in caplog.text
    assert not retries.ready(7, 1e12) and retries.retry_at(7) == math.inf
    retries.succeeded(7)
    assert retries.ready(7, 0.0) and len(retries) == 0


def test_retries_keep_at_most_their_capacity_forgetting_the_oldest():
    retries: Retries[int] = Retries("thing", Backoff(first=1.0, tries=5), capacity=3)
    for key in range(10):
        retries.failed(key, float(key), "no")
    assert len(retries) == 3
    assert [retries.ready(key, 5.0) for key in (6, 7, 8, 9)] == [True, False, False, False]
    retries.failed(7, 20.0, "no")  # touched: the newest now
    retries.failed(10, 20.0, "no")
    assert not retries.ready(7, 20.5) and retries.ready(8, 9.0)


async def test_a_discord_call_that_hangs_times_out_and_one_that_answers_returns():
    never = asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError):
        await discord_call(never, seconds=0.01)
    assert never.cancelled()

    async def answered() -> str:
        return "message"

    assert await discord_call(answered(), seconds=60) == "message"


async def test_a_loop_waiting_for_its_event_stops_when_cancelled_as_the_event_is_set():
    """A shutdown's cancellation that comes as the loop is woken still stops the loop
    (``asyncio.wait_for`` in Python 3.11 would return as if woken, and the loop would go on)."""
    event = asyncio.Event()
    waiting = asyncio.create_task(wait_for_event(event, 60))
    await asyncio.sleep(0)  # it waits
    event.set()
    waiting.cancel()
    await asyncio.wait([waiting])
    assert waiting.cancelled()
    timed_out = asyncio.create_task(wait_for_event(asyncio.Event(), 0.001))
    await asyncio.wait([timed_out])
    assert timed_out.result() is None


async def test_stopping_tasks_waits_until_they_have_cleaned_up(caplog):
    cleaned: list[str] = []
    started = asyncio.Event()

    async def loop(name: str) -> None:
        try:
            started.set()
            await asyncio.get_running_loop().create_future()
        finally:
            await asyncio.sleep(0)  # cleaning up takes a turn of the loop
            cleaned.append(name)

    async def broken() -> None:
        raise RuntimeError("a bug")

    tasks = [asyncio.create_task(loop(name)) for name in ("housekeeping", "reviews")]
    failed = asyncio.create_task(broken(), name="broken")
    await started.wait()
    with caplog.at_level(logging.ERROR):
        await stop_tasks([*tasks, failed])
    assert sorted(cleaned) == ["housekeeping", "reviews"]
    assert all(task.done() for task in tasks)
    assert "background task broken failed" in caplog.text


async def test_a_write_cancelled_anywhere_leaves_the_database_usable(database):
    """A write cancelled at any point (before, during or after its BEGIN, a statement or the
    COMMIT) is stored whole or not at all, and the next writes and reads work."""
    for step in range(40):

        async def write(value: str) -> None:
            async with database.transaction() as transaction:
                await transaction.execute(
                    "INSERT INTO meta (key, value) VALUES ('a', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (value,),
                )
                await transaction.execute(
                    "INSERT INTO meta (key, value) VALUES ('b', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (value,),
                )

        task = asyncio.create_task(write(f"cancelled {step}"))
        for _ in range(step % 10):
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.wait([task])
        a, b = await get_meta(database, "a"), await get_meta(database, "b")
        assert a == b  # whole or not at all
        await set_meta(database, "after", str(step))
        assert await get_meta(database, "after") == str(step)
        assert await scalar(database, "SELECT COUNT(*) FROM meta WHERE key = 'after'") == 1
