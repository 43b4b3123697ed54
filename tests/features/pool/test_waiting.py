"""The waiting messages (on both backends): a pairing heard while the answer to ``/tholos play``
is still on its way is still told on that message; one heard later too; the count follows a
join; a message answered anew is the one followed. Discord is a recording stand-in here (the
e2e tests run the real thing)."""

from __future__ import annotations

import asyncio
import datetime
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot.base.seats import Seat
from bot.discord.app import App
from bot.features.pool.service import PoolService
from bot.features.pool.store import PoolStore
from bot.features.pool.waiting import Waiters
from bot.loops import work
from bot.storage.db import Database
from bot.storage.games.places import insert_pool_game
from bot.storage.games.store import GameStore
from tests.databases import Clock


class Shown:
    """A member's ephemeral message as Discord would show it, and the interactions that
    answered and edited it."""

    def __init__(self, user_id: int, during_answer: Any = None) -> None:
        self.text = ""
        self.user_id = user_id
        self.during_answer = during_answer
        """Called while the answer is being sent (what happens meanwhile)."""

    def interaction(self) -> Any:
        async def send_message(text: str, **_: object) -> None:
            if self.during_answer is not None:
                self.during_answer()
            self.text = text

        async def edit_original_response(*, content: str, **_: object) -> None:
            self.text = content

        return SimpleNamespace(
            user=SimpleNamespace(id=self.user_id),
            locale="en-US",
            guild_id=None,
            context=SimpleNamespace(private_channel=False),
            channel=None,
            created_at=datetime.datetime.now(datetime.UTC),
            response=SimpleNamespace(send_message=send_message),
            edit_original_response=edit_original_response,
        )


def seat(user_id: int) -> Seat:
    return Seat(user_id, f"member {user_id}", 0, 100 + user_id, "bot_dm", "en")


async def started_game(database: Database) -> int:
    async with database.transaction() as transaction:
        return await insert_pool_game(transaction, seat(1), seat(2), "5+5", 1000.0)


@pytest.fixture(autouse=True)
def _idle() -> None:
    """The work counted before the test: what another test in this process may have left
    counted (a task its closed event loop never finished) is not this test's."""
    global _BEFORE
    _BEFORE = work.in_flight()


_BEFORE = 0


async def until_done() -> None:
    """Let the edits started in the background finish (at most 10 s: then the test fails)."""

    async def settled() -> None:
        while work.in_flight() > _BEFORE:
            await asyncio.sleep(0)

    await asyncio.wait_for(settled(), 10)


async def test_a_pairing_heard_before_the_answer_is_still_told(database: Database, clock: Clock):
    pool = PoolService(PoolStore(database), clock=clock)
    app = cast(
        App, SimpleNamespace(stores=SimpleNamespace(games=GameStore(database)), database=database)
    )
    waiters = Waiters(app, pool)
    game_id = await started_game(database)
    await pool.opt_in(1, "member 1")
    shown = Shown(1, during_answer=lambda: waiters.heard(f"paired:{game_id}:1:2"))
    waiters.expect(1)
    state = await pool.join(seat(1), "5+5", clock.now)
    await waiters.answer(shown.interaction(), state, edit=False)
    await until_done()
    assert "Paired with **member 2**" in shown.text and "our direct messages" in shown.text


async def test_the_message_follows_the_queue_then_says_who(database: Database, clock: Clock):
    pool = PoolService(PoolStore(database), clock=clock)
    app = cast(
        App, SimpleNamespace(stores=SimpleNamespace(games=GameStore(database)), database=database)
    )
    waiters = Waiters(app, pool)
    for user in (1, 3):
        await pool.opt_in(user, f"member {user}")
    shown = Shown(1)
    waiters.expect(1)
    await waiters.answer(
        shown.interaction(), await pool.join(seat(1), "5+5", clock.now), edit=False
    )
    assert "1 member waits for this pace" in shown.text
    await pool.join(seat(3), "5+5", clock.now)
    waiters.heard("joined:5+5")
    await until_done()
    assert "2 members wait for this pace" in shown.text
    game_id = await started_game(database)
    waiters.heard(f"paired:{game_id}:1:2")
    await until_done()
    assert "Paired with **member 2**! Your game #" in shown.text
    waiters.heard("joined:5+5")
    await until_done()
    assert "Paired with" in shown.text, "no longer followed"
