"""Open challenges through the real bot: anyone may accept, the first to press has the game,
a rating range keeps others out; the list of games shows them first.

Every test ends with no failed interaction and no rule violation recorded by the emulator.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3

from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table

BEING_TAKEN = "Someone is accepting this challenge right now."


def said(interaction, text: str) -> bool:
    """Whether one of the interaction's answers says ``text``."""
    return any(text in message.text for message in interaction.messages)


async def test_two_members_race_to_accept_an_open_challenge(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    posted = await table.slash(alice, "tholos challenge", colour="white", first="me")
    challenge = posted.original
    assert challenge is not None and "anyone here may accept" in challenge.text
    assert [b["label"] for b in challenge.buttons] == ["Accept", "Withdraw"]
    accept = table.custom_id(challenge, ":accept")

    listed = await table.slash(carol, "tholos games")
    assert "Open challenges" in listed.original.embeds[0]["description"]
    assert f"<@{alice.id}>" in listed.original.embeds[0]["description"]

    own = await table.click(alice, challenge, accept)
    assert said(own, "your own challenge") and not table.boards()

    racers = [bob, carol]
    random.Random(seed).shuffle(racers)
    presses = await asyncio.gather(*(table.click(m, challenge, accept) for m in racers))
    await emulator.wait_for(lambda: bool(table.boards()), what="the game's first board")
    # the other press is told the truth: someone is accepting it (the game is being started),
    # or, once it has started, that someone was faster
    lost = [ix for ix in presses if said(ix, "Someone was faster") or said(ix, BEING_TAKEN)]
    assert len(lost) == 1, [m.text for ix in presses for m in ix.messages]
    loser = lost[0].member
    winner = next(m for m in racers if m is not loser)
    header = table.header()
    assert f"<@{alice.id}>" in header and f"<@{winner.id}>" in header
    assert f"<@{loser.id}>" not in header
    assert f"Accepted by <@{winner.id}>" in challenge.text and not any(
        button.get("disabled") is not True for button in challenge.buttons
    )
    late = await table.click(loser, challenge, accept, stale=True)
    assert said(late, "Someone was faster")
    listed = await table.slash(carol, "tholos games")
    assert "Open challenges" not in (listed.original.embeds[0]["description"] or "")
    table.assert_clean()
    with sqlite3.connect(tholos_bot.db_path) as db:
        games = db.execute("SELECT white_id, black_id FROM games").fetchall()
    assert games == [(alice.id, winner.id)]


async def test_a_rating_range_turns_away_members_outside_it(
    emulator: Emulator, tholos_bot: BotProcess
):
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    with sqlite3.connect(tholos_bot.db_path) as db:
        db.executemany(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) "
            "VALUES ('correspondence', ?, ?, 80, 0.06, 30, 15, 15, 0, 0)",
            [(alice.id, 1620.0), (bob.id, 1900.0)],
        )
    posted = await table.slash(alice, "tholos challenge", rating_range=150)
    challenge = posted.original
    assert challenge is not None and "within 150 points" in challenge.text
    accept = table.custom_id(challenge, ":accept")
    refused = await table.click(bob, challenge, accept)
    assert said(refused, "from 1470 to 1770") and said(refused, "yours is 1900")
    assert not table.boards() and challenge.buttons[0].get("disabled") is not True
    named = await table.slash(bob, "tholos challenge", opponent=carol, rating_range=100)
    assert said(named, "rating range is for open challenges")
    await table.click(carol, challenge, accept)  # unrated: 1500, within 150 of 1620
    await emulator.wait_for(lambda: bool(table.boards()), what="the game's first board")
    assert f"<@{carol.id}>" in table.header()
    table.assert_clean()
