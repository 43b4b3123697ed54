"""Members with hostile names through the real bot: nicknames and global names that read as a
mention of a bystander, ``@everyone``, a masked link, markdown, a heading, a quote, a spoiler, a
newline and HTML play a challenge in a thread and a rated round robin to its podium, then ask
for their history, a record, a replay and the leaderboard. No text the bot sent (content,
embeds, text displays) holds a name's markup live, no thread name or alt text holds a line
break, the bystander is never mentioned, and no message ever allows ``@everyone`` or roles."""

from __future__ import annotations

import random
import re
import sqlite3
import time
from collections.abc import Iterator

from bot.discord.places import thread_name
from bot.words.names import escaped_name, plain_name
from engine.record import read_record
from rendering.translator import ENGLISH
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, Message
from tests.e2e.emulator.rules import walk_components
from tests.e2e.table import Table
from tests.features.tournaments.test_e2e import THREADS, Event, stored

ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
"""A backslash and an ASCII punctuation character: Discord shows the character as it is."""


def markdown_texts(message: Message) -> Iterator[str]:
    """The texts of ``message`` that Discord renders as markdown, each with its escaped
    characters set aside (what is left is what markdown acts on)."""
    yield message.content
    for embed in message.embeds:
        yield embed.get("title") or ""
        yield embed.get("description") or ""
        for embed_field in embed.get("fields") or []:
            yield embed_field.get("name") or ""
            yield embed_field.get("value") or ""
        yield (embed.get("footer") or {}).get("text") or ""
        yield (embed.get("author") or {}).get("name") or ""
    for _, component in walk_components(message.components):
        if component.get("type") == 10:
            yield component.get("content") or ""


def plain_texts(message: Message) -> Iterator[str]:
    """The texts of ``message`` shown as they are: alt texts, labels and options."""
    for attachment in message.attachments:
        yield attachment.description or ""
    for _, component in walk_components(message.components):
        yield component.get("label") or ""
        yield component.get("description") or ""
        for item in component.get("items") or []:
            yield item.get("description") or ""
        for option in component.get("options") or []:
            yield option.get("label") or ""


async def test_hostile_names_through_a_game_a_tournament_and_the_history(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    rng = random.Random(seed)
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    dave, erin = emulator.add_person("dave"), emulator.add_person("erin")
    bystander = carol  # never plays: a name that mentions her must not ping her
    alice.nick = f"<@{bystander.id}> **Ali** [x](https://evil.example)"
    bob.nick = '@everyone # Bob\n> q ||s|| "] [Result "1-0'
    dave.nick = "`Dave` </script><b>x</b> @here <@&1>"
    erin.user.global_name = "_Erin_ :skull: https://evil.example <#1> ~~e~~"
    names = {
        member.id: member.nick or member.user.global_name for member in (alice, bob, dave, erin)
    }
    live = [
        f"<@{bystander.id}>",
        "**Ali**",
        "[x](https://evil.example)",
        "https://evil.example",
        "@everyone",
        "@here",
        "<@&1>",
        "# Bob",
        "> q",
        "||s||",
        "`Dave`",
        "</script>",
        "_Erin_",
        ":skull:",
        "<#1>",
        "~~e~~",
    ]
    """What would ping, link, format or break out were a name put raw into markdown."""
    table = Table(emulator, emulator.channel("general"))

    # a challenge in a thread, played to a resignation
    game = await table.start_game_in_thread(alice, bob)
    assert game.channel.name == thread_name(ENGLISH, names[alice.id], names[bob.id])
    assert "\n" not in game.channel.name
    await game.play(rng.choice(game.position().legal_turns()))
    ask = await game.slash(bob, "tholos resign")
    assert ask.original is not None
    await game.click(bob, ask.original, game.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: game.status().startswith("Game over."), what="the end")
    await game.click(alice, game.board, game.labelled(game.board, "Review"))

    def review() -> Message | None:
        return next(
            (
                m
                for m in emulator.messages(game.channel)
                if m.embeds and (m.embeds[0].get("title") or "").startswith("AI review")
            ),
            None,
        )

    await emulator.wait_for(lambda: review() is not None, what="the AI's review")
    reviewed = review()
    assert reviewed is not None and escaped_name(names[alice.id]) in reviewed.embeds[0]["title"]

    # an admin ends a game between two others, picked by its players' names
    stuck = await table.start_game_in_thread(dave, erin)
    await stuck.play(rng.choice(stuck.position().legal_turns()))
    suggested = await table.autocomplete(alice, "tholos-admin end", "game", "Dave")
    assert suggested.choices is not None and len(suggested.choices) == 1
    assert "\n" not in suggested.choices[0]["name"] and "`Dave`" in suggested.choices[0]["name"]
    ended = await table.slash(alice, "tholos-admin end", game=suggested.choices[0]["value"])
    assert ended.original is not None and escaped_name(names[dave.id]) in ended.original.content

    # a rated round robin of four, its organiser's tournament named as badly
    players = [alice, bob, dave, erin]
    event = Event(emulator, bot, players, table)
    hostile_cup = "[Cup](https://evil.example) @everyone **x**"
    announcement = await event.create(alice, name=hostile_cup, format="round_robin")
    ((tournament,),) = stored(bot, "SELECT id FROM tournaments")
    await table.slash(alice, "tholos-tournament start", tournament=tournament)
    for round in (1, 2, 3):
        for board in await event.round_started(round, 2):
            await event.decide(board, rng)
        await bot.settle()
    await emulator.wait_for(
        lambda: "Finished after 3 rounds" in announcement.content, what="the tournament's end"
    )
    final = event.standings_messages()[-1]
    assert final.content.startswith(f"🏁 **{escaped_name(hostile_cup)}** is over!")
    assert "Rating changes:" in final.content
    for member in players:
        assert escaped_name(names[member.id]) in final.content, "each name shown, escaped"
        assert plain_name(names[member.id]) in (final.attachments[0].description or "")
    medallists = {int(found) for found in re.findall(r"<@(\d+)>", final.content)}
    assert final.pinged and set(final.pinged) <= medallists, "the podium pings its medallists"

    # what the players ask for afterwards
    await game.slash(alice, "tholos record")
    record = read_record((await game.private_file(alice)).attachments[0].data.decode())
    assert (record.white, record.black) == (plain_name(names[alice.id]), plain_name(names[bob.id]))
    await game.slash(bob, "tholos replay")
    await emulator.wait_for(
        lambda: any(
            m.ephemeral and m.attachments and "whole game" in m.content
            for m in emulator.messages(game.channel, bob)
        ),
        what="the replay",
    )
    shown = (await table.slash(dave, "tholos history")).original
    assert shown is not None and escaped_name(hostile_cup) in shown.text
    with sqlite3.connect(bot.db_path) as db:  # settled, and in the pool under their names
        db.execute("UPDATE member_ratings SET deviation = 60, updated_at = ?", (time.time(),))
        db.executemany(
            "INSERT INTO pool_members (user_id, name, joined_at) VALUES (?, ?, 0)",
            [(member.id, member.user.global_name) for member in players],
        )
    board = (await table.slash(erin, "leaderboard")).original
    assert board is not None and board.embeds and board.embeds[0]["description"].count("\n") == 3
    everyone = await table.slash(erin, "leaderboard", options={"scope": "global"})
    assert everyone.original is not None
    assert escaped_name(erin.user.global_name) in everyone.original.embeds[0]["description"]
    await bot.settle()

    # nothing the bot sent carries a name's markup live, or pings beyond its players
    sent = [m for m in emulator.state.messages.values() if m.author.id == emulator.bot_user.id]
    assert len(sent) > 40
    for message in sent:
        for text in (ESCAPED.sub("\x00", text) for text in markdown_texts(message)):
            for markup in live:
                assert markup not in text, (markup, text)
            assert "Bob\n" not in text, text
        for text in plain_texts(message):
            assert "Bob\n" not in text and "\u2028" not in text, text
        assert bystander.id not in message.mentions and bystander.id not in message.pinged
        for allowed in message.allowed_mentions:  # (an edit may send none: it pings nobody)
            parsed = set((allowed or {}).get("parse") or [])
            assert not {"everyone", "roles"} & parsed, allowed
    for thread in emulator.threads():
        assert "\n" not in thread.name and len(thread.name) <= 100, thread.name
        assert " vs " in thread.name
    table.assert_clean()
    event.table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
