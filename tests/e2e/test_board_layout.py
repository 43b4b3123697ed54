"""The board as a Components V2 layout, end to end: one container in the colour of the player
to move, the texts, the image in a media gallery (at message width) with its alt text, the
controls nested in the container, the position in small print; old boards keep their layout
when their controls are stripped, and the nested controls keep working across a kill -9.

Every test ends with no failed interaction and no rule violation recorded by the emulator
(which checks every payload against Discord's published API schema).
"""

from __future__ import annotations

import random
import sqlite3

from engine import BLACK, WHITE, Position
from engine.newgame import new_game
from engine.play import random_game
from tests.e2e.emulator import BotProcess, Emulator, Message
from tests.e2e.table import (
    FOOTER,
    HEADER,
    IMAGE,
    STATUS,
    Table,
    a_step_press,
    board_part,
    is_board,
    path_of,
    press_paths,
)

ACCENT = {WHITE: 0xECE6D6, BLACK: 0x2E2B28}
"""The accent of the board of a game being played: the colour of the player to move."""
SANDSTONE = 0xC8A464
"""The accent of a finished game's board."""
V2 = 1 << 15
MOST_TURNS_FOR_A_STEP = 20


def container(board: Message) -> dict:
    """The board's one top-level component."""
    assert len(board.components) == 1
    return board.components[0]


def check_layout(board: Message, position: Position, *, live: bool) -> None:
    """What every board shows: a V2 message without content or embeds, one container whose
    parts are the header, the image (the uploaded attachment, with its alt text), the status,
    the controls (nested action rows) and the position in small print."""
    assert board.flags & V2 and not board.content and not board.embeds
    box = container(board)
    assert box["type"] == 17
    kinds = [(part["type"], part.get("id")) for part in box["components"]]
    assert kinds[:3] == [(10, HEADER), (12, IMAGE), (10, STATUS)] and kinds[-1] == (10, FOOTER)
    rows = kinds[3:-1]
    assert all(kind == 1 for kind, _ in rows) and bool(rows) == bool(board.buttons)
    (attachment,) = board.attachments
    (item,) = box["components"][1]["items"]
    assert item["description"] and item["description"] == attachment.description
    assert attachment.filename in item["media"]["url"], "the gallery shows the uploaded image"
    assert attachment.image().size[0] >= 900
    footer = board_part(board, FOOTER)
    assert footer.startswith("-# ") and footer.endswith(str(position))
    if live and not position.is_over():
        assert box["accent_color"] == ACCENT[position.turn]


async def test_a_whole_game_in_the_layout_across_a_kill(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    """A whole game played with the controls inside the layout; a kill -9 halfway through a
    turn (its first press made); the restarted bot answers the next press on the same board's
    nested buttons; every board is a layout, and every replaced one keeps its layout, image
    and texts without controls."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    check_layout(board, new_game(), live=True)
    assert container(board)["accent_color"] == ACCENT[WHITE]
    game = random_game(new_game(), random.Random(seed))
    positions = [new_game()]
    for turn in game.turns:
        positions.append(positions[-1].apply(turn))
    presses = [
        press_paths(positions[n], path_of(positions[n], turn)) for n, turn in enumerate(game.turns)
    ]
    cut = next((n for n in range(9, len(presses)) if len(presses[n]) > 1), 9)  # two presses
    for turn in game.turns[:cut]:
        await table.play(turn)
    assert container(table.board)["accent_color"] == ACCENT[table.position().turn]

    halfway = table.board
    mover = table.mover(halfway)
    first, *rest = presses[cut]
    await table.click(mover, halfway, table.custom_id(halfway, f":{first}:n"))
    check_layout(halfway, table.position(halfway), live=True)
    assert await tholos_bot.kill() == -9
    await tholos_bot.start()
    count = len(table.boards())
    for press in rest:
        await table.click(mover, halfway, table.custom_id(halfway, f":{press}:n"))
    await emulator.wait_for(lambda: len(table.boards()) > count, what="the board after the kill")
    for turn in game.turns[cut + 1 :]:
        await table.play(turn)
    assert table.position() == game.final and table.status().startswith("Game over.")

    boards = table.boards()
    assert all(is_board(message) for message in boards)
    for message in boards[:-1]:
        shown = table.position(message)
        check_layout(message, shown, live=False)
        assert not message.buttons, "a replaced board loses its controls, not its layout"
        assert message.pinged == [(alice, bob)[shown.turn].id], "it pinged the mover alone"
    final = boards[-1]
    check_layout(final, game.final, live=False)
    assert container(final)["accent_color"] == SANDSTONE
    assert sorted(final.pinged) == sorted([alice.id, bob.id]), "the end concerns both"
    assert [b["label"] for b in final.buttons] == ["Rematch", "Replay", "Record", "Review"]
    every = [m for m in emulator.messages(table.channel) if m.author is emulator.bot_user]
    assert not [m for m in every if m.attachments and not is_board(m)], "no embed board"
    table.assert_clean()
    assert await tholos_bot.stop() == 0
    with sqlite3.connect(tholos_bot.db_path) as db:
        (stored,) = db.execute("SELECT position FROM games").fetchone()
    assert stored == board_part(final, FOOTER).rsplit(" · ", 1)[1]


async def test_how_to_play_and_the_status_of_a_step(emulator: Emulator, tholos_bot: BotProcess):
    """A step edits only the status and the controls of the layout (header, image and small
    print stay); How to play answers privately with the game's ornaments."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob, mode="advanced", ornaments=3)
    for _ in range(MOST_TURNS_FOR_A_STEP):  # until a turn's first press may be a step
        if a_step_press(table.position()) is not None:
            break
        await table.play(table.position().legal_turns()[0])
    board, press = table.board, a_step_press(table.position())
    assert press is not None, "a step press within the game's first turns"
    header, footer = table.header(board), board_part(board, FOOTER)
    image = container(board)["components"][1]["items"][0]["media"]["url"]
    mover = table.mover(board)
    await table.click(mover, board, table.custom_id(board, f":{press}:n"))
    assert table.status(board).startswith(f"<@{mover.id}>") and "your turn" in table.status(board)
    assert table.header(board) == header and board_part(board, FOOTER) == footer
    assert container(board)["components"][1]["items"][0]["media"]["url"] == image
    assert any(b["custom_id"].endswith(":b") for b in board.buttons), "Back after a step"
    rules = await table.click(bob, board, table.labelled(board, "How to play"))
    assert rules.ack_type == 4 and rules.original is not None and rules.original.ephemeral
    assert "ornament" in rules.original.text.lower()
    assert not rules.original.flags & V2
    table.assert_clean()
