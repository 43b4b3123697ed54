"""The one loop runner every background loop runs on: a round, then a sleep until the round's
due time, a wake-up, the alarm, or the longest pause; an outage backs off; an error is logged
and the loop goes on; it stops when closed."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from bot.loops import loop as loops
from bot.loops import work
from bot.loops.alarm import Alarm
from bot.loops.background import Backoff, stop_tasks
from bot.loops.loop import Loop, Loops
from bot.storage.db import DatabaseUnavailable
from tests.discord_fakes import eventually


class Rounds:
    """A round that records when it ran, and raises what the test asks for."""

    def __init__(self, due: float | None = None) -> None:
        self.at: list[float] = []
        self.raising: list[Exception] = []
        self.due = due

    async def __call__(self) -> float | None:
        self.at.append(time.monotonic())
        assert work.in_flight() >= 1, "a round counts as work in flight"
        if self.raising:
            raise self.raising.pop(0)
        return self.due


async def running(loop: Loop, closed: list[bool]) -> asyncio.Task[None]:
    task = asyncio.create_task(loop.run(lambda: bool(closed)))
    return task


async def test_a_round_then_a_wakeup_then_closed():
    rounds, closed = Rounds(), []
    loop = Loop("test", rounds, longest=3600.0)
    task = await running(loop, closed)
    try:
        await eventually(lambda: len(rounds.at) == 1, "the first round")
        loop.wakeup.set()
        await eventually(lambda: len(rounds.at) == 2, "the round the wake-up asked for")
        closed.append(True)
        loop.wakeup.set()
        await asyncio.wait_for(task, 30)  # the loop ends once closed
    finally:
        await stop_tasks([task])


async def test_a_round_due_soon_comes_without_a_wakeup():
    rounds = Rounds(due=time.time() + 0.05)
    loop = Loop("test", rounds, longest=3600.0)
    task = await running(loop, [])
    try:
        await eventually(lambda: len(rounds.at) >= 2, "the round that was due")
    finally:
        await stop_tasks([task])


async def test_the_alarm_wakes_a_loop_for_something_due_sooner():
    rounds, alarm = Rounds(), Alarm()
    loop = Loop("test", rounds, longest=3600.0, alarm=alarm)
    task = await running(loop, [])
    try:
        await eventually(lambda: len(rounds.at) == 1, "the first round")
        alarm.ring(time.time() + 3000)  # not sooner than the loop wakes anyway: nothing
        alarm.ring(time.time() - 1)
        await eventually(lambda: len(rounds.at) == 2, "the round the alarm rang for")
    finally:
        await stop_tasks([task])


async def test_an_outage_backs_off_and_an_error_is_logged_and_the_loop_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    monkeypatch.setattr(loops, "OUTAGE_BACKOFF", Backoff(first=0.01, tries=1000))
    rounds = Rounds()
    rounds.raising = [DatabaseUnavailable("down"), DatabaseUnavailable("down"), RuntimeError("bug")]
    caplog.set_level(logging.INFO)
    loop = Loop("test", rounds, longest=3600.0)
    task = await running(loop, [])
    try:
        await eventually(lambda: len(rounds.at) == 3, "the rounds after the outage")
        loop.wakeup.set()  # after the error, as after any round: it sleeps until asked
        await eventually(lambda: len(rounds.at) == 4, "the round after the error")
        assert caplog.text.count("test: database unavailable: down") == 2
        assert "test: a round failed" in caplog.text and "RuntimeError: bug" in caplog.text
    finally:
        await stop_tasks([task])


async def test_the_runner_starts_loops_once_ready_and_stops_them():
    ready, rounds = asyncio.Event(), Rounds()
    runner = Loops(ready.wait, lambda: False)
    runner.start([Loop("test", rounds, longest=3600.0)])
    await asyncio.sleep(0)  # the loop's task has had a turn: it waits for ready
    assert rounds.at == []
    ready.set()
    await eventually(lambda: len(rounds.at) == 1, "the first round once ready")
    await runner.stop(5.0)
    assert rounds.at and len(rounds.at) == 1


def test_the_sleep_after_an_outage_doubles_up_to_the_longest():
    assert [loops.OUTAGE_BACKOFF.delay(n) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    loop = Loop("test", Rounds(), longest=10.0)
    assert loop._delay(None) == 10.0
    assert loop._delay(time.time() + 3600) == 10.0
    assert loop._delay(time.time() - 5) == loops.SHORTEST_SLEEP
