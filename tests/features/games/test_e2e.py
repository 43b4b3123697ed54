"""``/tholos games``: the server's games being played, the caller's first."""

from __future__ import annotations

from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table


async def test_the_games_list_shows_every_game_the_callers_first(
    emulator: Emulator, tholos_bot: BotProcess
):
    """Two games in two channels: the list shows both, privately, with links to their boards;
    the one the caller plays in comes first, starred; a finished game leaves the list."""
    general, games = Table(emulator, "general"), Table(emulator, "games")
    alice, bob, carol = general.people_named("alice", "bob", "carol")
    await general.start_game(alice, bob)
    await games.start_game(carol, alice)
    listed = (await general.slash(bob, "tholos games")).original
    assert listed is not None and listed.ephemeral
    lines = listed.embeds[0]["description"].splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"★ <@{alice.id}> vs <@{bob.id}>")
    assert not lines[1].startswith("★") and f"<@{carol.id}> vs <@{alice.id}>" in lines[1]
    assert f"/{games.channel.id}/{games.board.id})" in lines[1]
    assert "Page 1 of 1 · 2 games" in listed.embeds[0]["footer"]["text"]
    ask = await general.slash(bob, "tholos resign")
    assert ask.original is not None
    await general.click(bob, ask.original, general.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: general.status().startswith("Game over."), what="end")
    listed = (await general.slash(bob, "tholos games")).original
    assert listed is not None
    assert len(listed.embeds[0]["description"].splitlines()) == 1
    general.assert_clean()
