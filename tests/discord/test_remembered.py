"""What the game-visibility rule remembers of Discord's answers: each asked once within its
window, asked again after it, and at most so many kept (the oldest forgotten first)."""

from __future__ import annotations

import asyncio

import pytest

from bot.discord.remembered import Remembered


async def test_an_answer_is_asked_once_within_its_window_and_again_after() -> None:
    asked: list[str] = []

    def asking(key: str, answer: bool):
        async def ask() -> bool:
            asked.append(key)
            return answer

        return ask

    lasting = Remembered[str, bool](seconds=3600.0, most=2)
    assert await lasting.get("a", asking("a", True)) is True
    assert await lasting.get("a", asking("a", False)) is True, "remembered"
    assert await lasting.get("b", asking("b", False)) is False
    assert await lasting.get("c", asking("c", True)) is True  # "a" is forgotten: two at most
    assert await lasting.get("a", asking("a", False)) is False
    assert asked == ["a", "b", "c", "a"]

    fleeting = Remembered[str, bool](seconds=0.0)
    await fleeting.get("a", asking("a", True))
    await fleeting.get("a", asking("a", True))
    assert asked[-2:] == ["a", "a"], "a window of no time remembers nothing"


async def test_askers_of_one_key_at_once_share_one_question_and_a_failure_is_not_kept() -> None:
    """Many asking for the same key at the same moment wait for one answer; an ask that fails
    fails them all and is asked again next time (an outage is not remembered as an answer)."""
    asked: list[str] = []
    release = asyncio.Event()

    async def slow() -> bool:
        asked.append("slow")
        await release.wait()
        return True

    remembered = Remembered[str, bool](seconds=3600.0)
    waiting = [asyncio.ensure_future(remembered.get("a", slow)) for _ in range(5)]
    await asyncio.sleep(0)
    release.set()
    assert await asyncio.gather(*waiting) == [True] * 5
    assert asked == ["slow"]

    async def failing() -> bool:
        asked.append("failing")
        raise TimeoutError

    for _ in range(2):
        with pytest.raises(TimeoutError):
            await remembered.get("b", failing)
    assert asked == ["slow", "failing", "failing"]
    remembered.put("b", False)
    assert await remembered.get("b", failing) is False, "told"
