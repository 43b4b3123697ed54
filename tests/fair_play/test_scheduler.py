"""The engine shared fairly (:mod:`bot.fair_play.scheduler`): one request running per member, a
few waiting per member (the oldest pushed out, and told), the members in turn; a request
abandoned frees its place; a worker that dies wedges nothing. Then the real hints worker."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from bot.base.refusals import Refusal
from bot.fair_play.scheduler import REPLACED, FairScheduler, Replaced
from bot.workers.ai import Adviser
from engine import Position
from engine.newgame import new_game
from engine.play import random_game
from tests.discord_fakes import eventually

ANA, BOB, CLEO = 1, 2, 3


class Requests:
    """Requests through a scheduler whose work the test ends by hand: each records that it
    started, then waits for :meth:`finish` (or fails, if told to)."""

    def __init__(self, scheduler: FairScheduler) -> None:
        self.scheduler = scheduler
        self.started: list[str] = []
        self.tasks: dict[str, asyncio.Task[str]] = {}
        self._ends: dict[str, asyncio.Future[None]] = {}

    def ask(self, member: int, name: str) -> asyncio.Task[str]:
        """``member`` asks; the request is called ``name``."""
        end = self._ends[name] = asyncio.get_running_loop().create_future()

        async def work() -> str:
            self.started.append(name)
            await end
            return name

        task = self.tasks[name] = asyncio.create_task(self.scheduler.run(member, work))
        return task

    async def finish(self, name: str, error: BaseException | None = None) -> None:
        """End ``name``'s work (with ``error``, if given) and wait until its caller has it."""
        if error is None:
            self._ends[name].set_result(None)
        else:
            self._ends[name].set_exception(error)
        await asyncio.wait([self.tasks[name]])

    async def started_are(self, *names: str) -> None:
        """Wait until exactly ``names`` have started, in this order."""
        await eventually(lambda: len(self.started) >= len(names), f"{names} started")
        assert self.started == list(names)


async def test_the_members_waiting_take_turns_the_one_served_longest_ago_first():
    """Ana floods; Bob and Cleo ask once each while her first runs: they go before her next
    ones, in the order they asked, then Ana's in hers."""
    requests = Requests(FairScheduler())
    for member, name in ((ANA, "a1"), (ANA, "a2"), (ANA, "a3"), (BOB, "b1"), (CLEO, "c1")):
        requests.ask(member, name)
    await requests.started_are("a1")
    expected = ["a1"]
    for running, following in (("a1", "b1"), ("b1", "c1"), ("c1", "a2"), ("a2", "a3")):
        await requests.finish(running)
        expected.append(following)
        await requests.started_are(*expected)
    await requests.finish("a3")
    assert [requests.tasks[name].result() for name in expected] == expected


async def test_a_member_flooding_meets_a_member_served_before_on_equal_terms():
    """Bob, served once before Ana's flood and now asking again, waits only for what runs."""
    requests = Requests(FairScheduler())
    requests.ask(BOB, "b1")
    await requests.finish("b1")
    for name in ("a1", "a2", "a3"):
        requests.ask(ANA, name)
    await requests.started_are("b1", "a1")
    requests.ask(BOB, "b2")
    await requests.finish("a1")
    await requests.started_are("b1", "a1", "b2")


async def test_a_full_queue_pushes_out_the_members_oldest_waiting_request_with_a_word():
    """Beside the one running, two wait; a third pushes out the oldest waiting, whose asker
    gets a refusal saying so. Another member's requests are not touched."""
    requests = Requests(FairScheduler(waiting_per_member=2))
    requests.ask(ANA, "a1")
    requests.ask(BOB, "b1")
    for name in ("a2", "a3", "a4"):
        requests.ask(ANA, name)
    pushed_out = requests.tasks["a2"]
    await asyncio.wait([pushed_out])
    refusal = pushed_out.exception()
    assert isinstance(refusal, Replaced) and isinstance(refusal, Refusal)
    assert refusal.message == REPLACED
    assert requests.scheduler.waiting(ANA) == 2 and requests.scheduler.waiting(BOB) == 1
    for running in ("a1", "b1", "a3"):
        await requests.finish(running)
    await requests.started_are("a1", "b1", "a3", "a4")


async def test_one_request_per_member_runs_at_once_even_with_room_for_more():
    """With room for two, Ana's second waits while her first runs; Bob's starts at once."""
    requests = Requests(FairScheduler(running=2))
    requests.ask(ANA, "a1")
    requests.ask(ANA, "a2")
    requests.ask(BOB, "b1")
    await requests.started_are("a1", "b1")  # not a2
    await requests.finish("a1")
    await requests.started_are("a1", "b1", "a2")


async def test_a_request_abandoned_while_running_frees_its_place():
    requests = Requests(FairScheduler())
    requests.ask(ANA, "a1")
    requests.ask(BOB, "b1")
    await requests.started_are("a1")
    requests.tasks["a1"].cancel()
    await requests.started_are("a1", "b1")
    assert requests.tasks["a1"].cancelled()


async def test_a_request_abandoned_while_waiting_leaves_the_queue():
    """Ana's waiting request, cancelled, is not run, and no longer counts against her."""
    requests = Requests(FairScheduler(waiting_per_member=2))
    requests.ask(BOB, "b1")
    requests.ask(ANA, "a1")
    requests.ask(ANA, "a2")
    await eventually(lambda: requests.scheduler.waiting(ANA) == 2, "Ana's two waiting")
    requests.tasks["a1"].cancel()
    await asyncio.wait([requests.tasks["a1"]])
    assert requests.scheduler.waiting(ANA) == 1
    requests.ask(ANA, "a3")
    await eventually(lambda: requests.scheduler.waiting(ANA) == 2, "a3 waiting")
    assert not requests.tasks["a2"].done()  # still in her two: nothing pushed out
    await requests.finish("b1")
    await requests.finish("a2")
    await requests.started_are("b1", "a2", "a3")


async def test_a_request_abandoned_as_it_is_let_in_frees_its_place():
    """Bob gives up in the very loop turn his place comes (let in, not yet started): the place
    goes to the next, Cleo."""
    scheduler, loop = FairScheduler(), asyncio.get_running_loop()
    ana_may_end = loop.create_future()
    started: list[str] = []

    async def ana() -> None:
        await ana_may_end
        loop.call_soon(bob.cancel)  # runs after Ana's place is given, before Bob's next step

    async def work_of(name: str) -> None:
        started.append(name)

    asked = asyncio.create_task(scheduler.run(ANA, ana))
    bob = asyncio.create_task(scheduler.run(BOB, lambda: work_of("b1")))
    await eventually(lambda: scheduler.waiting(BOB) == 1, "Bob waiting")
    ana_may_end.set_result(None)
    await asyncio.wait([asked, bob])
    assert bob.cancelled() and started == []
    await asyncio.wait_for(scheduler.run(CLEO, lambda: work_of("c1")), 5)
    assert started == ["c1"]


async def test_a_worker_that_dies_does_not_wedge_the_queue():
    """A request whose worker died (and its replacement) fails alone; the next one runs."""
    requests = Requests(FairScheduler())
    requests.ask(ANA, "a1")
    requests.ask(BOB, "b1")
    await requests.finish("a1", BrokenProcessPool("the hints worker died"))
    assert isinstance(requests.tasks["a1"].exception(), BrokenProcessPool)
    await requests.started_are("a1", "b1")
    await requests.finish("b1")
    assert requests.tasks["b1"].result() == "b1"


class StandInWorker:
    """Stands in for the hints' worker process: records whether each search was hurried and
    answers (a legal turn of :data:`START`) when the test ends it."""

    def __init__(self) -> None:
        self.hurried: list[bool] = []
        self.ends: list[asyncio.Future[None]] = []

    async def run(self, function: object, *arguments: object) -> tuple[str, float, bool, int]:
        self.hurried.append(bool(arguments[-1]))
        end = asyncio.get_running_loop().create_future()
        self.ends.append(end)
        await end
        return str(min(START.legal_turns(), key=str)), 0.5, False, 0

    def close(self) -> None:
        """Nothing to stop."""


START = Position.parse("-/-/-/-/-/-/- ww bb w -")


async def test_a_member_asking_faster_than_the_answers_come_gets_a_hurried_search():
    """Ana's search is hurried (a shorter budget) when more of hers wait as it starts; her
    first (nothing else waiting), her last, and Bob's are not."""
    adviser = Adviser()
    adviser.worker = worker = StandInWorker()  # type: ignore[assignment]
    asked = [
        asyncio.create_task(adviser.hint(START, 1, member=member))
        for member in (ANA, ANA, ANA, BOB)
    ]
    for started in range(1, 5):
        await eventually(lambda n=started: len(worker.ends) == n, f"search {started} started")
        worker.ends[-1].set_result(None)
    await asyncio.wait(asked)
    assert all(task.result().turn in START.legal_turns() for task in asked)
    assert worker.hurried == [False, False, True, False]  # Ana's 1st, Bob's, Ana's 2nd, 3rd


async def test_a_hint_abandoned_while_waiting_leaves_the_worker_alone():
    """Bob gives up waiting: the worker is not stopped (as it was when his request sat in the
    worker's own queue), Ana's search under way ends with her hint, from the same process."""
    adviser = Adviser()
    ana, bob = mid_game_positions(seed=46, count=2)
    try:
        asked = asyncio.create_task(adviser.hint(ana, 1, member=ANA))
        waiting = asyncio.create_task(adviser.hint(bob, 1, member=BOB))
        await eventually(adviser.worker.pids, "the hints worker started")
        [worker] = adviser.worker.pids()
        waiting.cancel()
        assert (await asked).turn in ana.legal_turns()
        assert waiting.cancelled() and adviser.worker.pids() == [worker]
    finally:
        adviser.close()


def mid_game_positions(seed: int, count: int) -> list[Position]:
    """``count`` positions from the middle of a random game (``seed`` printed)."""
    print(f"positions from seed {seed}")
    game = random_game(new_game(), random.Random(seed))
    positions = [game.start]
    for turn in game.turns:
        positions.append(positions[-1].apply(turn))
    middle = len(positions) // 3
    return positions[middle : middle + count]


async def test_the_real_hints_worker_serves_the_members_in_turn():
    """On the bot's own worker: Ana asks four times at once and Bob once; her second is
    pushed out, Bob's hint comes right after her first, every hint is a legal turn."""
    adviser = Adviser()
    positions = mid_game_positions(seed=44, count=5)
    answered: list[str] = []

    async def ask(member: int, name: str, position: Position) -> None:
        found = await adviser.hint(position, 1, member=member)
        assert found.turn in position.legal_turns()
        answered.append(name)

    try:
        names = [(ANA, "a1"), (ANA, "a2"), (ANA, "a3"), (ANA, "a4"), (BOB, "b1")]
        asked = [
            asyncio.create_task(ask(member, name, position))
            for (member, name), position in zip(names, positions, strict=True)
        ]
        await asyncio.wait(asked)
        with pytest.raises(Replaced):
            asked[1].result()
        assert answered == ["a1", "b1", "a3", "a4"]
    finally:
        adviser.close()


async def test_a_killed_hints_worker_is_replaced_and_the_queue_goes_on():
    """The worker killed during Ana's hint: a new one gives it, then Bob's."""
    adviser = Adviser()
    ana, bob = mid_game_positions(seed=45, count=2)
    try:
        asked = asyncio.create_task(adviser.hint(ana, 1, member=ANA))
        waiting = asyncio.create_task(adviser.hint(bob, 1, member=BOB))
        await eventually(adviser.worker.pids, "the hints worker started")
        [worker] = adviser.worker.pids()
        os.kill(worker, signal.SIGKILL)
        assert (await asked).turn in ana.legal_turns()
        assert (await waiting).turn in bob.legal_turns()
        assert adviser.worker.pids() != [worker]
    finally:
        adviser.close()
