"""The bot's count of its work in flight (``bot/loops/work.py``): counted without a gap, read as the
gauge ``tholos_work_in_flight``."""

from __future__ import annotations

import asyncio

from prometheus_client.parser import text_string_to_metric_families

from bot.health.metrics import Metrics
from bot.loops import work


def gauge(metrics: Metrics) -> float:
    """``tholos_work_in_flight`` as a scrape of only that metric shows it."""
    text = metrics.exposition(["tholos_work_in_flight"]).decode()
    (family,) = text_string_to_metric_families(text)
    (sample,) = family.samples
    return sample.value


async def test_a_block_counts_while_it_runs_even_if_it_raises():
    before = work.in_flight()
    try:
        with work.busy():
            assert work.in_flight() == before + 1
            with work.busy():
                assert work.in_flight() == before + 2
            raise LookupError
    except LookupError:
        pass
    assert work.in_flight() == before


async def test_a_task_counts_from_its_creation_to_its_end():
    """Counted before it first runs (no moment of "idle" between the code that starts it and
    the task), until it is done, failed or cancelled."""
    before = work.in_flight()
    release = asyncio.Event()

    async def job(fail: bool) -> None:
        await release.wait()
        if fail:
            raise LookupError

    tasks = [work.start(job(False)), work.start(job(True)), work.start(job(False))]
    assert work.in_flight() == before + 3
    tasks[2].cancel()
    release.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert work.in_flight() == before


async def test_a_wakeup_counts_while_set_until_the_loop_clears_it():
    before = work.in_flight()
    wakeup = work.Wakeup()
    wakeup.clear()
    assert work.in_flight() == before
    wakeup.set()
    wakeup.set()
    assert work.in_flight() == before + 1
    assert await wakeup.wait()
    assert work.in_flight() == before + 1, "woken is not done: the loop has not taken it yet"
    wakeup.clear()
    wakeup.clear()
    assert work.in_flight() == before


async def test_the_gauge_reads_the_count_at_each_scrape():
    metrics = Metrics()
    idle = gauge(metrics)
    assert idle == work.in_flight()
    with work.busy():
        assert gauge(metrics) == idle + 1
    assert gauge(metrics) == idle
