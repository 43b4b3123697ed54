"""Whole games in Spanish and in German: every user and the server in ``es-ES`` (or ``de``),
every message, embed, button, alt text and thread name read along the way, and no common
English word left in any of them. The slash commands are registered with their localizations.
"""

from __future__ import annotations

import random
import re

import pytest

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, Member, Message
from tests.e2e.table import FOOTER, Table, path_of, press_paths

WORDS = """the your turn stone stones take place game games wins won board challenge challenges
    accept decline withdraw white black gray quarry workshop column columns skip back cancel
    claim rematch points draw resign resigned you and of to with from which where how many
    played over expires opponent challenger random first mode basic advanced result scoring
    last ended now move moves top steal remove removed took placed drew put onto
    nobody tied empty this that here there is are was has have yes rated rating
    leaderboard page previous next rules bonuses ply player players only can't don't
    it's isn't"""
ENGLISH = frozenset(WORDS.split())
"""Common English words of the bot's texts (words that are also German or Spanish left out)."""
NOT_WORDS = re.compile(
    r"<[@#][!&]?\d+>|<t:\d+(:\w)?>|https?://\S+|`[^`]*`|/[\w-]+(?: [a-z]+)?|Perro Loko Games"
)
"""Mentions, timestamps, links, code, slash-command paths and the publisher: not prose."""


def english_in(text: str) -> set[str]:
    words = re.findall(r"[^\W\d_]+(?:'[a-z]+)?", NOT_WORDS.sub(" ", text).lower())
    return {word for word in words if word in ENGLISH}


def texts_of(message: Message) -> list[str]:
    """Everything a member reads on a message (the board's position string aside)."""
    texts = [message.content]
    for embed in message.embeds:
        texts += [embed.get("title", ""), embed.get("description", "")]
        texts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
        footer = embed.get("footer", {}).get("text", "")
        texts.append(footer.rsplit(" · ", 1)[0])  # the position string is not a text
    for component in message.all_components():
        if component.get("type") == 10 and component.get("id") == FOOTER:  # a board's small
            texts.append(component["content"].rsplit(" · ", 1)[0])  # print: the position
        elif component.get("type") == 10:  # is not a text
            texts.append(component["content"])
        for item in component.get("items") or []:  # a media gallery: the images' alt texts
            texts.append(item.get("description") or "")
    texts += [button.get("label") or "" for button in message.buttons]
    texts += [attachment.description or "" for attachment in message.attachments]
    return texts


class Reader:
    """Reads everything and remembers the English it found, and where."""

    def __init__(self) -> None:
        self.found: dict[str, str] = {}
        self.read = 0

    def message(self, message: Message) -> None:
        for text in texts_of(message):
            self.text(text)

    def text(self, text: str) -> None:
        self.read += 1
        for word in english_in(text):
            self.found.setdefault(word, text)

    def everything(self, emulator: Emulator, table: Table, members: list[Member]) -> None:
        for channel in [table.channel, *emulator.threads(table.channel)]:
            for member in members:
                for message in emulator.messages(channel, member):
                    self.message(message)
            self.text(channel.name or "")


async def play_to_the_end(table: Table, reader: Reader, seed: int) -> None:
    """Random legal turns, step by step, reading the board after every press."""
    rng = random.Random(seed)
    while any(button["custom_id"].startswith("tholos:s:") for button in table.board.buttons):
        board = table.board
        reader.message(board)
        position = table.position(board)
        path = path_of(position, rng.choice(position.legal_turns()))
        count = len(table.boards())
        mover = table.mover(board)
        for press in press_paths(position, path):
            await table.click(mover, board, table.custom_id(board, f":{press}:n"))
            reader.message(board)
        await table.emu.wait_for(
            lambda count=count: len(table.boards()) > count, what="the next board"
        )


@pytest.mark.parametrize("locale", ["es-ES", "de"])
async def test_a_whole_game_in_the_servers_language(
    emulator: Emulator, spawn_bot: SpawnBot, locale: str, seed: int
):
    """Challenge, accept, a whole game in a thread, rules, board, stats, the leaderboard, a
    wrong press, the result, history, replay, record and the AI's review: not one common
    English word anywhere."""
    emulator.set_locale(emulator.guild, locale)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    for member in (alice, bob, carol):
        emulator.set_locale(member, locale)
    bot = spawn_bot(emulator, env={"THOLOS_THREADS": "on"})
    await bot.start(sync=True)
    schema = emulator.state.commands.find("tholos", emulator.guild.id)
    assert schema is not None
    assert {"es-ES", "es-419", "de"} <= set(schema["name_localizations"] or {})
    reader = Reader()
    made = await table.slash(alice, "tholos challenge", opponent=bob, colour="white", first="me")
    assert made.original is not None
    reader.message(made.original)
    await table.click(bob, made.original, table.custom_id(made.original, ":accept"))
    await emulator.wait_for(lambda: emulator.thread_of(made.original), what="the game's thread")
    game = table.in_thread(emulator.thread_of(made.original))
    await emulator.wait_for(lambda: game.boards(), what="the first board")
    await game.click(carol, game.board, game.custom_id(game.board, ":Tw1:n"))  # not carol's game
    await game.slash(bob, "tholos rules")
    await game.slash(alice, "tholos claim")  # her turn: refused
    await play_to_the_end(game, reader, seed)
    assert len(game.boards()) > 20 and table.position(game.board).is_over()
    assert game.board.buttons, "the final board offers a rematch, a replay, a record, a review"
    await table.slash(alice, "tholos stats")
    await table.slash(bob, "leaderboard")
    await table.slash(carol, "tholos games")
    await table.slash(carol, "tholos history")
    final = game.board
    _, replay, record, review = (button["custom_id"] for button in final.buttons)
    assert (replay.split(":")[1], record.split(":")[1], review.split(":")[1]) == (
        "replay",
        "record",
        "review",
    )
    await game.click(alice, final, replay)
    await game.click(bob, final, record)
    await game.click(carol, final, review)
    await emulator.wait_for(
        lambda: any(
            m.embeds
            and m.attachments
            and m.embeds[0].get("image")
            and "review" in m.attachments[0].filename
            for m in emulator.messages(game.channel)
        ),
        timeout=300,
        what="the AI's review",  # a whole game, at low priority
    )
    reader.everything(emulator, game, [alice, bob, carol])
    reader.everything(emulator, table, [alice, bob, carol])
    assert reader.read > 500
    assert reader.found == {}, "\n".join(f"{w}: {text}" for w, text in reader.found.items())
    table.assert_clean()
    assert await bot.stop() == 0
