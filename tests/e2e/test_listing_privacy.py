"""Privacy of the listings, end to end (the bot's own process, the emulator as Discord):
``/tholos history member:`` and ``/tholos games`` list a game — or an open challenge — in a
channel or a private thread only to its players and to the members who can see it (View
Channel there; in a private thread being one of its members or having Manage Threads), and say
nothing of the others: another member's history is not counted."""

from __future__ import annotations

import random
import re

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.emulator.model import MANAGE_THREADS
from tests.e2e.table import Table
from tests.e2e.test_privacy import THREADS_AND_PAGE, finished_in_thread
from tests.features.analysis.test_e2e_from_discord import game_of

MANAGE_GUILD = 1 << 5
"""Manage Server: the permission of ``/tholos-admin``."""
LINK = re.compile(r"\[(final board|board|challenge)\]\(https://discord\.com/channels/\d+/(\d+)[/)]")
"""A link to a board or a challenge (to its channel while its message is not yet known)."""


async def threads_bot(emulator: Emulator, spawn_bot: SpawnBot) -> BotProcess:
    """A bot that gives each game a thread of its own, started."""
    bot = spawn_bot(emulator, env={"THOLOS_THREADS": THREADS_AND_PAGE["THOLOS_THREADS"]})
    await bot.start(sync=True)
    return bot


def listed(text: str) -> set[tuple[str, int]]:
    """The boards and challenges a listing links to: (what, the channel or thread it is in)."""
    return {(kind, int(channel)) for kind, channel in LINK.findall(text)}


def private_table(emulator: Emulator, general: Table, owner: Member, *others: Member) -> Table:
    """A private thread of ``general``'s channel that ``owner`` starts with ``others`` and the
    bot in it."""
    the_bot = emulator.guild.members[emulator.bot_user.id]
    thread = emulator.private_thread(
        general.channel, owner, "quiet game", members=(*others, the_bot)
    )
    return Table(emulator, thread)


async def resign(table: Table, member: Member) -> None:
    """``member`` resigns the game of ``table``'s channel; once its final board is there."""
    ask = await table.slash(member, "tholos resign")
    assert ask.original is not None
    await table.click(member, ask.original, table.labelled(ask.original, "Yes, resign"))
    await table.emu.wait_for(lambda: table.status().startswith("Game over."), what="the end")


def assert_asked_once(
    emulator: Emulator,
    tables: tuple[Table, ...],
    quiet: Table,
    dave: Member,
    more: set[str] | None = None,
) -> None:
    """No interaction failed, and Discord said once, as asked, that Dave is not in the
    private thread of ``quiet`` (remembered since) — and once each of the ``more`` asked."""
    assert all(table.failed() == [] for table in tables)
    lookup = f"GET /api/v10/channels/{quiet.channel.id}/thread-members/{dave.id}"
    asked = sorted(v.request for v in emulator.violations if v.code == 10007)
    assert asked == sorted({lookup} | (more or set())), emulator.violations
    assert all(v.code == 10007 for v in emulator.violations), emulator.violations


def people(emulator: Emulator) -> tuple[Member, ...]:
    """Alice (the owner), Bob, Carol, Dave (a plain member) and Erin (Manage Threads)."""
    dave, erin = emulator.add_person("dave"), emulator.add_person("erin")
    emulator.give_role(erin, "moderators", MANAGE_THREADS)
    return (*(emulator.member(name) for name in ("alice", "bob", "carol")), dave, erin)


async def test_another_members_history_lists_only_the_games_its_reader_may_open(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Alice and Bob finished three games: in a thread of #games, hidden since from all but
    Carol; in a private thread of #general (Bob's, with Alice and Carol), archived since; in a
    public thread of #general. Alice's history, read by Dave, lists the public one only and
    counts none; by Erin (Manage Threads) the private thread's too; by Carol, who sees #games
    and is in the private thread, and by Bob, who played them all, all three."""
    rng = random.Random(seed)
    bot = await threads_bot(emulator, spawn_bot)
    alice, bob, carol, dave, erin = people(emulator)
    lobby, general = Table(emulator, "games"), Table(emulator, "general")
    hidden, _ = await finished_in_thread(lobby, alice, bob, rng)
    emulator.hide(lobby.channel, seen_by=(carol,))
    quiet = private_table(emulator, general, bob, alice, carol)
    await quiet.start_game(alice, bob)
    await quiet.play(rng.choice(quiet.position().legal_turns()))
    await resign(quiet, bob)
    await bot.settle()
    emulator.archive(quiet.channel)
    public, _ = await finished_in_thread(general, alice, bob, rng)
    everywhere = {("final board", table.channel.id) for table in (hidden, quiet, public)}

    async def history(reader: Member, **options: Member) -> tuple[str, set[tuple[str, int]], str]:
        """``reader``'s ``/tholos history``: its heading, what it links to, its footer."""
        asked = await emulator.slash(
            reader, "tholos history", channel=general.channel, options=options
        )
        general.made.append(asked)
        message = asked.original
        assert message is not None, reader.user.username
        embed = message.embeds[0]
        text = embed["description"]
        return text.splitlines()[0], listed(text), embed["footer"]["text"]

    async def last_games(reader: Member, member: Member) -> int:
        """How many games ``reader``'s ``/tholos stats`` of ``member`` names: the last games
        (and the biggest win, if one is named) those ``reader`` may open."""
        asked = await emulator.slash(
            reader, "tholos stats", channel=general.channel, options={"member": member}
        )
        general.made.append(asked)
        assert asked.original is not None
        fields = {field["name"]: field["value"] for field in asked.original.embeds[0]["fields"]}
        assert "Record" in fields, fields  # the counts stay whole
        return len(fields.get("Last games", "").splitlines())

    for reader, expected in (
        (dave, {("final board", public.channel.id)}),
        (erin, {("final board", quiet.channel.id), ("final board", public.channel.id)}),
        (carol, everywhere),
        (bob, everywhere),
    ):
        head, games, footer = await history(reader, member=alice)
        assert games == expected, reader.user.username
        assert (head, footer) == (f"<@{alice.id}>", "Page 1"), "uncounted"
        assert await last_games(reader, alice) == len(expected), reader.user.username
    head, games, footer = await history(alice)
    assert games == everywhere
    assert await last_games(alice, alice) == 3
    assert (head, footer) == (f"<@{alice.id}> · 3 finished games", "Page 1 of 1")
    assert_asked_once(emulator, (general, lobby, hidden, quiet, public), quiet, dave)
    fetched = [r for r in emulator.requests if r.path == f"/api/v10/channels/{quiet.channel.id}"]
    assert [(r.method, r.status) for r in fetched] == [("GET", 200)], "archived: asked once"
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_the_games_list_shows_only_the_games_and_challenges_its_reader_may_see(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """Being played: Alice and Bob in a thread of #games (hidden since from all but Carol), and
    in a private thread of #general (Bob's, with Alice and Carol); Alice and Carol in a public
    thread of #general. Open: Carol's challenge in #games, Erin's in #general. Dave sees the
    public game and Erin's challenge; Erin (Manage Threads) the private thread's game too;
    Bob, who no longer sees #games, his two games and the public one, not Carol's challenge;
    Carol everything. Frank, who may manage the server but sees neither, is offered the public
    game only to end."""
    bot = await threads_bot(emulator, spawn_bot)
    alice, bob, carol, dave, erin = people(emulator)
    lobby, general = Table(emulator, "games"), Table(emulator, "general")
    hidden = await lobby.start_game_in_thread(alice, bob)
    emulator.hide(lobby.channel, seen_by=(carol,))
    quiet = private_table(emulator, general, bob, alice, carol)
    await quiet.start_game(alice, bob)
    public = await general.start_game_in_thread(alice, carol)
    for table, member in ((lobby, carol), (general, erin)):
        posted = await table.slash(member, "tholos challenge", colour="white", first="me")
        assert posted.original is not None
    boards = {("board", table.channel.id): table for table in (hidden, quiet, public)}
    games = {key: game_of(table.board) for key, table in boards.items()}
    assert len(set(games.values())) == 3
    challenges = {("challenge", lobby.channel.id), ("challenge", general.channel.id)}

    for reader, expected in (
        (dave, {("board", public.channel.id), ("challenge", general.channel.id)}),
        (
            erin,
            {
                ("board", quiet.channel.id),
                ("board", public.channel.id),
                ("challenge", general.channel.id),
            },
        ),
        (bob, set(boards) | {("challenge", general.channel.id)}),
        (carol, set(boards) | challenges),
    ):
        answer = (await general.slash(reader, "tholos games")).original
        assert answer is not None and answer.ephemeral, reader.user.username
        embed = answer.embeds[0]
        assert listed(embed["description"]) == expected, (reader.user.username, embed)
        count = len([key for key in expected if key[0] == "board"])
        assert f"· {count} game" in embed["footer"]["text"], (reader.user.username, embed)
    frank = emulator.add_person("frank")
    emulator.give_role(frank, "stewards", MANAGE_GUILD)
    offered = (await general.autocomplete(frank, "tholos-admin end", "game")).choices
    assert offered is not None
    assert [choice["value"] for choice in offered] == [games[("board", public.channel.id)]]
    lookups = {f"GET /api/v10/channels/{quiet.channel.id}/thread-members/{frank.id}"}
    assert_asked_once(emulator, (general, lobby, hidden, quiet, public), quiet, dave, lookups)
    assert await bot.stop() == 0
    bot.assert_clean_log()
