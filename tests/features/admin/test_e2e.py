"""``/tholos-admin settings``: a server's own settings, for Manage Server only (Discord hides the
command from others, and the bot checks again), and what they change."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table
from tests.e2e.test_game_flow import idle_for


async def test_admins_change_the_servers_settings_and_they_apply(
    emulator: Emulator, tholos_bot: BotProcess
):
    """The owner sets the idle claim to 1.2 s, challenges to 5 minutes and the default mode
    to advanced: the answer shows them privately; a challenge without a mode is advanced and
    expires in 5 minutes; the idle claim works after 1.2 s."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    shown = (await table.slash(alice, "tholos-admin settings")).original
    assert shown is not None and shown.ephemeral
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["Default mode"] == "basic" and fields["Threads"] == "off"
    saved = (
        await table.slash(
            alice,
            "tholos-admin settings",
            idle_claim_minutes=0.02,
            challenge_minutes=5,
            default_mode="advanced",
        )
    ).original
    assert saved is not None and saved.ephemeral
    assert saved.embeds[0]["title"] == "Tholos settings saved"
    fields = {f["name"]: f["value"] for f in saved.embeds[0]["fields"]}
    assert fields == {
        "Threads": "off",
        "Idle claim": "0.02 minutes",
        "Challenges expire": "5 minutes",
        "Default mode": "advanced",
        "Turn reminders after": "0.01 minutes",  # half the idle claim
        "Default pace": "correspondence",
        "Live clocks offered": "3+2, 5+5, 10+5, 15+10",
        "Puzzle of the day": "off",
        "Pool": "off",
        "Server's name shown to the pool": "off",
    }
    before = time.time()
    made = (await table.slash(alice, "tholos challenge", opponent=bob)).original
    after = time.time()
    assert made is not None and "an advanced game with 2 ornaments" in made.content
    expires = int(re.search(r"<t:(\d+):R>", made.content)[1])
    assert int(before + 300) <= expires <= after + 300, "5 minutes after it was made"
    await table.click(bob, made, table.labelled(made, "Accept"))
    await emulator.wait_for(lambda: table.boards(), what="the first board")
    board = table.board
    claimer = alice if table.mover().id == bob.id else bob
    await emulator.wait_for(lambda: idle_for(tholos_bot) >= 1.2, what="the idle time (1.2 s)")
    await table.click(claimer, board, table.labelled(board, "Claim win (opponent idle)"))
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="end")
    assert "on time" in table.status()
    table.assert_clean()


async def test_only_admins_change_settings(emulator: Emulator, tholos_bot: BotProcess):
    """Discord hides /tholos-admin from members without Manage Server; where a server's
    admins made it visible to them anyway, the bot refuses them and changes nothing."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    with pytest.raises(ValueError, match="not available to bob"):
        await table.slash(bob, "tholos-admin settings", threads="on")
    schema = emulator.state.commands.find("tholos-admin", emulator.guild.id)
    assert schema is not None and schema["default_member_permissions"] == str(1 << 5)
    schema["default_member_permissions"] = None  # the server's admins let everyone see it
    refused = await table.slash(bob, "tholos-admin settings", default_mode="advanced")
    assert any("Manage Server" in text for text in table.ephemeral(bob)), refused
    shown = (await table.slash(alice, "tholos-admin settings")).original
    assert shown is not None
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["Default mode"] == "basic"
    table.assert_clean()


async def test_an_admin_ends_a_stuck_game(emulator: Emulator, tholos_bot: BotProcess):
    """The owner picks bob and carol's game from the autocomplete of ``/tholos-admin end``: the
    game ends without a result, its board says who ended it (a Rematch button only), the
    commands no longer find it, and nobody is rated. Bob, no admin, is refused even where
    the command shows, and gets no suggestions."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    board = await table.start_game(bob, carol)
    await table.play(next(iter(table.position(board).legal_turns())))
    playing = table.board
    suggested = await table.autocomplete(alice, "tholos-admin end", "game", "CAR")
    assert suggested.choices is not None and len(suggested.choices) == 1
    choice = suggested.choices[0]
    assert "bob vs carol" in choice["name"].lower() or "carol vs bob" in choice["name"].lower()
    schema = emulator.state.commands.find("tholos-admin", emulator.guild.id)
    assert schema is not None
    schema["default_member_permissions"] = None  # the server's admins let everyone see it
    assert (await table.autocomplete(bob, "tholos-admin end", "game")).choices == []
    await table.slash(bob, "tholos-admin end", game=choice["value"])
    assert any("Manage Server" in text for text in table.ephemeral(bob))
    assert table.board.id == playing.id
    ended = await table.slash(alice, "tholos-admin end", game=choice["value"])
    assert ended.original is not None and ended.original.ephemeral
    assert "no result, not rated" in ended.original.content
    await emulator.wait_for(lambda: table.board.id != playing.id, what="the final board")
    final = table.board
    status = table.status(final)
    assert status.startswith(f"Game over. Ended by <@{alice.id}> (an admin)")
    assert "no result" in status and "Scoring" not in status
    labels = [button["label"] for button in final.buttons]
    assert labels == ["Rematch", "Replay", "Record", "Review"]
    await table.slash(bob, "tholos claim")
    assert any("no game of yours" in text for text in table.ephemeral(bob))
    again = await table.slash(alice, "tholos-admin end", game=choice["value"])
    assert any("any more" in text for text in table.ephemeral(alice)), again
    await table.slash(bob, "leaderboard")
    assert any("Nobody is on this leaderboard yet" in text for text in table.ephemeral(bob))
    table.assert_clean()
