"""Blocks and challenges (on both backends): a member never challenges one who blocked them,
nor one they blocked (refused without saying why), and never takes the open challenge of one
they blocked or who blocked them; others still may."""

from __future__ import annotations

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.features.pool import BlockStore
from bot.storage.db import Database
from tests.databases import Services
from tests.features.play.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD, NAMES, by


async def challenge(service: Services, challenger: int, opponent: int | None):
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=Person(challenger, NAMES[challenger]),
        opponent=None if opponent is None else Person(opponent, NAMES[opponent]),
        options=GameOptions(),
    )


async def test_a_blocked_pair_never_challenges_each_other(service: Services, database: Database):
    await BlockStore(database).block(BOB, ALICE, 0.0)
    for challenger, opponent in ((ALICE, BOB), (BOB, ALICE)):
        with pytest.raises(Refusal) as refused:
            await challenge(service, challenger, opponent)
        assert refused.value.message == "You can't challenge {opponent} right now."
        assert "block" not in refused.value.message
    made = await challenge(service, ALICE, CAROL)
    assert made.opponent_id == CAROL


async def test_an_open_challenge_is_not_open_to_a_blocked_pair(
    service: Services, database: Database
):
    await BlockStore(database).block(BOB, ALICE, 0.0)
    made = await challenge(service, ALICE, None)
    with pytest.raises(Refusal, match="isn't open to you"):
        await service.challenges.answer(made.id, by(BOB), "accept", name="Bob")
    taken = await service.challenges.answer(made.id, by(CAROL), "accept", name="Carol")
    assert taken.game is not None and {taken.game.white_id, taken.game.black_id} == {ALICE, CAROL}
