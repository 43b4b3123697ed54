"""The listings' paging when some games are left out (those the reader may not open), on both
backends: a history read through a filter, Next after Next and Previous after Previous, shows
every kept game once, in order, the pages full but the last, also across games finished at the
same moment and across a stretch of left-out games longer than one page may read; and what a
listing may ask of Discord is bounded."""

from __future__ import annotations

import pytest

from bot.base.game import Game
from bot.discord.controls import Button, Router
from bot.discord.remembered import Remembered
from bot.discord.visibility import Questions, Unasked
from bot.features.history.feature import (
    HISTORY_PAGE,
    HISTORY_READ_MOST,
    HISTORY_SEEK,
    HistoryPage,
    read_history_page,
)
from bot.storage.listings import Finish, GameListings
from tests.features.play.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD
from tests.features.reviews.test_store import finished

HIDDEN = CHANNEL + 1
"""A channel whose games the reader may not open."""
QUIET = CHANNEL + 2
"""A thread whose games the reader may open, once Discord says so."""


def history_of(listings: GameListings):
    """Alice's history read through the filter that leaves out the games of :data:`HIDDEN`."""

    async def read(mark: Finish | None, way: str, limit: int, skip: int) -> list[Game]:
        return await listings.finished_seek(GUILD, ALICE, mark, way, limit, skip=skip)

    async def keep(games: list[Game]) -> list[bool | None]:
        return [game.channel_id != HIDDEN for game in games]

    async def page(mark: Finish | None, way: str) -> HistoryPage:
        return await read_history_page(read, keep, mark, way)

    return page


def ids(games: list[Game]) -> list[int]:
    return [game.id for game in games]


async def test_a_filtered_history_pages_every_kept_game_once_both_ways(service, clock):
    """34 games, every third in a hidden channel, every fourth finished at the same moment as
    the one before: Next shows the 23 others newest first, ten a page, each once; Previous
    from the last page shows the same pages back to the newest."""
    made = [
        await finished(
            service,
            clock,
            BOB if number % 2 else CAROL,
            HIDDEN if number % 3 == 0 else CHANNEL,
            later=0.0 if number % 4 == 0 else 10.0,
        )
        for number in range(34)
    ]
    kept = [game for game in reversed(made) if game.channel_id != HIDDEN]
    assert len(kept) == 22
    page = history_of(GameListings(service.play.games.database))

    forward = [await page(None, "n")]
    assert not forward[0].newer
    while forward[-1].older:
        forward.append(await page(forward[-1].last, "n"))
    assert [ids(shown.games) for shown in forward] == [
        ids(kept[start : start + HISTORY_PAGE]) for start in range(0, len(kept), HISTORY_PAGE)
    ]
    backward = [forward[-1]]
    while backward[-1].newer:
        backward.append(await page(backward[-1].first, "p"))
    assert [ids(shown.games) for shown in reversed(backward)] == [
        ids(shown.games) for shown in forward
    ]


async def test_a_stretch_of_left_out_games_longer_than_a_read_makes_a_short_page(service, clock):
    """Five games Alice may show, then more hidden ones than one page reads: the first page
    comes out empty with Next on, and Next finds the five beyond the stretch; Previous goes
    back through the stretch, a read at a time."""
    shown = [await finished(service, clock, BOB, CHANNEL) for _ in range(5)]
    for _ in range(HISTORY_READ_MOST + 3):
        await finished(service, clock, BOB, HIDDEN)
    page = history_of(GameListings(service.play.games.database))
    first = await page(None, "n")
    assert first.games == [] and first.older
    after = await page(first.last, "n")
    assert ids(after.games) == ids(shown[::-1]) and not after.older
    before = await page(after.first, "p")
    assert before.games == [] and before.newer, "one read's worth of hidden games, and more"
    newest = await page(before.first, "p")
    assert newest.games == [] and not newest.newer


async def test_a_page_ends_before_a_game_left_undecided_and_the_next_starts_there(service, clock):
    """Games in a quiet thread need a question to Discord each, and a page may ask three: the
    pages come out short, but Next after Next shows every game Alice may show, each once, in
    order — none is skipped for want of an answer."""
    made = [
        await finished(service, clock, BOB, (CHANNEL, HIDDEN, QUIET)[number % 3])
        for number in range(30)
    ]
    listings = GameListings(service.play.games.database)
    answered: set[int] = set()

    async def read(mark: Finish | None, way: str, limit: int, skip: int) -> list[Game]:
        return await listings.finished_seek(GUILD, ALICE, mark, way, limit, skip=skip)

    def keep_within(questions: int):
        async def keep(games: list[Game]) -> list[bool | None]:
            nonlocal questions
            seen: list[bool | None] = []
            for game in games:
                if game.channel_id == QUIET and game.id not in answered:
                    if questions == 0:
                        seen.append(None)
                        continue
                    questions -= 1
                    answered.add(game.id)
                seen.append(game.channel_id != HIDDEN)
            return seen

        return keep

    pages = [await read_history_page(read, keep_within(3), None, "n")]
    while pages[-1].older:
        pages.append(await read_history_page(read, keep_within(3), pages[-1].last, "n"))
        assert len(pages) < 30, "each page goes on"
    shown = [game.id for page in pages for game in page.games]
    assert shown == [game.id for game in reversed(made) if game.channel_id != HIDDEN]
    assert any(0 < len(page.games) < HISTORY_PAGE for page in pages[:-1]), "short pages"


async def test_a_history_page_button_carries_its_mark_exactly():
    """Previous / Next of a history carry the member, the page and the exact mark."""
    fields = {"member": 10**20 - 1, "page": 999_999, "way": "p", "at": 1795912345.1234567}
    item = Button.of(HISTORY_SEEK, label="x", game=10**18 - 1, **fields)
    assert item.custom_id is not None and len(item.custom_id) <= 100
    router, received = Router(), []

    async def handler(interaction, **parsed):
        received.append(parsed)

    router.add(HISTORY_SEEK, handler)
    await router.route(None, item.custom_id)
    assert received == [{**fields, "game": 10**18 - 1}]


async def test_a_listing_asks_discord_no_more_than_its_questions():
    """A listing's questions run out: the next miss is not asked, and nothing is remembered for
    it; an answer remembered costs none."""
    asked: list[str] = []

    async def ask() -> bool:
        asked.append("a")
        return True

    remembered = Remembered[str, bool](60.0)
    questions = Questions(most=1)
    assert await remembered.get("a", ask, questions.take) is True
    assert await remembered.get("a", ask, questions.take) is True, "remembered: no question"
    with pytest.raises(Unasked):
        await remembered.get("b", ask, questions.take)
    assert asked == ["a"]
    assert await remembered.get("b", ask) is True, "nothing was remembered for b"
    with pytest.raises(Unasked):
        await Remembered[str, bool](60.0).get("c", ask, Questions(seconds=0.0).take)
