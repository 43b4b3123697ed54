"""A rated game against the AI through the real bot: the levels offered with their ratings (in
English and German), rated with hints refused, a rated game without a Hint button under the
AI's name with its rating (the board's image and alt text show it), stored rated, listed as
rated in the history."""

from __future__ import annotations

from bot.features.challenges.service import RATED_WITHOUT_HINTS
from engine.ai import LEVEL_RATINGS
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table
from tests.features.hints.test_e2e import play_the_ai
from tests.features.lessons.test_e2e import stored


async def test_a_rated_game_against_the_ai(emulator: Emulator, tholos_bot: BotProcess):
    commands = {command["name"]: command for command in emulator.commands()}
    level = next(o for o in commands["tholos-ai"]["options"] if o["name"] == "level")
    assert [(c["name"], c["value"]) for c in level["choices"]] == [
        (f"{name} · {LEVEL_RATINGS[name]}", name)
        for name in ("easy", "medium", "challenging", "hard", "expert", "master")
    ]
    german = [c["name_localizations"]["de"] for c in level["choices"]]
    assert german[0] == f"leicht · {LEVEL_RATINGS['easy']}", german
    assert german[-1] == f"Meister · {LEVEL_RATINGS['master']}", german
    assert "rated" in [o["name"] for o in commands["tholos-ai"]["options"]]

    table = Table(emulator)
    (alice,) = table.people_named("alice")
    refused = await table.slash(alice, "tholos-ai", level="easy", rated=True, hints=True)
    assert refused.original is not None and refused.original.ephemeral
    assert RATED_WITHOUT_HINTS.replace("`", "") in refused.original.text.replace("`", "")
    assert not table.boards()

    await play_the_ai(table, alice, rated=True)
    assert "Hint" not in [b.get("label") for b in table.board.buttons]
    assert stored(tholos_bot, "SELECT rated, hints, ai_level, black_name FROM games") == [
        (1, 0, "easy", f"Tholos AI (easy · {LEVEL_RATINGS['easy']})")  # the image's name
    ]

    ask = await table.slash(alice, "tholos resign")
    assert ask.original is not None
    count = len(table.boards())
    await table.click(alice, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: len(table.boards()) > count, what="the final board")
    history = (await table.slash(alice, "tholos history")).original
    assert history is not None
    assert f"the AI (easy · {LEVEL_RATINGS['easy']}, rated)" in history.embeds[0]["description"]
    table.assert_clean()
