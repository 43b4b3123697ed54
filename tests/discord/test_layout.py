"""The board's Discord face (``bot.discord.layout``): a board becomes one Components V2
container — header, the image and its alt text, status, the controls carrying their custom
ids, the small print with the game's position — and the same look is read back from the
message as posted, so that an edit keeps it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from bot.discord.layout import (
    ANALYSE,
    CLAIM,
    RULES,
    STEP,
    BoardLook,
    BoardPart,
    image_name,
    message,
    rows,
    status_text,
)
from bot.i18n.catalogues import translator
from bot.words.board import board_of
from engine import WHITE
from engine.newgame import new_game
from engine.scoring import Outcome
from rendering.translator import ENGLISH
from tests.discord_fakes import FakeDiscord
from tests.words.test_board import ANA, BOB, BOT, actions, game
from tests.words.test_phrases import assert_minus, finished

PNG = b"\x89PNG not really"


def parts(view: discord.ui.LayoutView) -> dict[int, dict[str, Any]]:
    """The container's parts of a layout's payload, by id (controls' rows left out)."""
    [container] = view.to_components()
    return {child["id"]: child for child in container["components"] if "id" in child}


def test_a_board_is_one_container_whose_buttons_carry_the_custom_ids():
    """Header, the image named after the game's version with the alt text as its
    description, status, the press's options then Claim and How to play, and the small
    print holding the position; the player to move pinged, never the bot."""
    position = new_game()
    board = board_of(game(position, black_id=BOT), ENGLISH, bot_id=BOT)
    sent = message(board, PNG, "the alt text", BOT)
    assert sent["file"].filename == image_name(7, 3) == "tholos-7-3.png"
    assert sent["file"].description == "the alt text"
    mentioned = sent["allowed_mentions"].to_dict()
    assert (mentioned["parse"], mentioned["users"]) == ([], [ANA])

    view = sent["view"]
    [container] = view.children
    assert isinstance(container, discord.ui.Container)
    assert container.accent_colour == board.accent
    shown = parts(view)
    assert shown[BoardPart.HEADER]["content"].startswith(f"### {board.title}\n")
    gallery = shown[BoardPart.IMAGE]["items"][0]
    assert gallery["media"]["url"] == "attachment://tholos-7-3.png"
    assert gallery["description"] == "the alt text"
    assert shown[BoardPart.STATUS]["content"] == status_text(board)
    assert shown[BoardPart.FOOTER]["content"] == f"-# {board.small_print}"
    assert shown[BoardPart.FOOTER]["content"].endswith(f" · {position}")

    buttons = [button for row in rows(board) for button in row]
    first = board.options[0]
    assert buttons[0].custom_id == STEP.build(game=7, version=3, path=first.path, kind="n")
    assert [button.custom_id for button in buttons[-2:]] == [
        CLAIM.build(game=7),
        RULES.build(game=7),
    ]
    assert len(buttons) == len(board.options) + len(board.commands)
    [laid_out] = view.to_components()
    in_rows = [
        button["custom_id"]
        for row in laid_out["components"]
        if row["type"] == discord.ComponentType.action_row.value
        for button in row["components"]
    ]
    assert in_rows == [button.custom_id for button in buttons]


async def test_a_posted_board_s_look_is_read_back_and_laid_out_again():
    """The look read from the message as posted is the one sent; laid out again without
    controls (an old board's stripped), it keeps every part, the status replaced if asked."""
    board = board_of(game(new_game()), ENGLISH)
    sent = message(board, PNG, "alt", None)
    posted = await FakeDiscord().get_partial_messageable(6).send(**sent)
    look = BoardLook.of(posted)  # type: ignore[arg-type]  # a fake message
    assert look == BoardLook(
        board.accent,
        parts(sent["view"])[BoardPart.HEADER]["content"],
        "tholos-7-3.png",
        "alt",
        status_text(board),
        f"-# {board.small_print}",
    )
    stripped = look.layout()
    assert parts(stripped) == parts(sent["view"])
    assert all(
        child["type"] != discord.ComponentType.action_row.value
        for child in stripped.to_components()[0]["components"]
    )
    assert parts(look.layout(status="Over."))[BoardPart.STATUS]["content"] == "Over."


def test_a_message_that_is_not_a_v2_board_has_no_look():
    embed_board = SimpleNamespace(components=[], attachments=[])
    assert BoardLook.of(embed_board) is None  # type: ignore[arg-type]


def test_where_the_live_board_is_served_a_finished_game_offers_to_analyse_it():
    """Analyse joins the after-game controls only where the bot serves the live board, whose
    own button keeps its row: no row holds more than Discord's five buttons."""
    over = game(new_game(), status="finished", outcome=Outcome(WHITE, "resignation", (0, 0)))
    assert "analyse" not in actions(board_of(over, ENGLISH))
    board = board_of(over, ENGLISH, live=True)
    assert actions(board) == ["rematch", "replay", "record", "review", "analyse", "live"]
    analyse = board.commands[4]
    assert (analyse.label, analyse.emoji, analyse.enabled) == ("Analyse", "🔬", True)
    shown = [[button.custom_id for button in row] for row in rows(board)]
    assert [len(row) for row in shown] == [5, 1]
    assert shown[0][4] == ANALYSE.build(game=over.id)
    assert board_of(over, translator("es"), live=True).commands[4].label == "Analizar"


def test_a_finished_board_s_status_shows_a_minus_sign():
    """White loses −2 to 19: the status reads ``−2–19`` (U+2212), never ``-2``."""
    assert_minus(status_text(board_of(finished(), ENGLISH)), "\u22122–19")


def test_both_players_are_pinged_when_the_game_is_over_never_the_bot():
    over = game(new_game(), status="finished", outcome=Outcome(WHITE, "resignation", (0, 0)))
    sent = message(board_of(over, ENGLISH), PNG, "alt", None)
    assert sent["allowed_mentions"].to_dict()["users"] == [ANA, BOB]
    against_the_ai = game(
        new_game(),
        black_id=BOT,
        status="finished",
        outcome=Outcome(WHITE, "resignation", (0, 0)),
    )
    sent = message(board_of(against_the_ai, ENGLISH, bot_id=BOT), PNG, "alt", BOT)
    assert sent["allowed_mentions"].to_dict()["users"] == [ANA]
