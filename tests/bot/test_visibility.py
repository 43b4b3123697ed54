"""What the game-visibility rule remembers of Discord's answers: each asked once within its
window, asked again after it, and at most so many kept (the oldest forgotten first)."""

from __future__ import annotations

from bot.face.visibility import Remembered


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
