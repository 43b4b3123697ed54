"""Every label of the board image fits its box in every language: boards of whole games (all
seven ornaments, every kind of turn, the end) are drawn with short names, and not one label may
have been shortened to fit. The text version (alt text) stays within Discord's 1024 characters."""

from __future__ import annotations

import gettext
import random

import pytest

from bot.i18n.catalogues import LANGUAGES, translator
from engine import Position
from engine.newgame import new_game
from rendering import BoardView, board, describe_board
from rendering.board import board_image
from rendering.chart import render_chart
from rendering.fonts import recording_cuts
from rendering.translator import Translator

ALT_TEXT_LIMIT = 1024


def games(seeds: range) -> list[list[tuple[Position, object]]]:
    """Random whole games (advanced, 5 ornaments): each position with the turn that led to it."""
    played = []
    for seed in seeds:
        rng = random.Random(seed)
        position = new_game("advanced", ornaments=5, seed=seed)
        game = [(position, None)]
        while not position.is_over():
            turn = rng.choice(position.legal_turns())
            position = position.apply(turn)
            game.append((position, turn))
        played.append(game)
    return played


GAMES = games(range(6))


def test_the_games_show_every_ornament_and_kind_of_turn():
    """The sample covers what the labels are about."""
    ornaments = {o for game in GAMES for o in game[0][0].ornaments if o}
    assert len(ornaments) == 7
    kinds = {type(turn).__name__ for game in GAMES for _, turn in game[1:]}
    kinds |= {
        type(turn.bonus).__name__
        for game in GAMES
        for _, turn in game[1:]
        if getattr(turn, "bonus", None) is not None
    }
    assert {"Take", "Place", "Remove", "Draw", "Steal", "Extra", "Move", "GrayFromQuarry"} <= kinds


def labels_cut(t: Translator) -> list[str]:
    """The labels shortened to fit when drawing the sample games in ``t``'s language."""
    board._background.cache_clear()  # draw the plaques and headings again, in this language
    cut: list[str] = []
    for game in GAMES:
        for index, (position, turn) in enumerate(game):
            if index % 7 and index != len(game) - 1:
                continue  # every 7th position, and the end
            notes = (
                (False, None),
                (True, None),
                (True, t("{loser} resigned: {winner} wins", loser="Ana", winner="Bob")),
                (True, t("{winner} wins on time", winner="Bob")),
                (True, t("Ended by an admin: no result")),
            )
            for final, note in notes:
                view = BoardView("Ana", "Bob", last_turn=turn, final=final, note=note, translator=t)
                with recording_cuts() as cuts:
                    board_image(position, view)
                cut += cuts
                assert len(describe_board(position, view)) <= ALT_TEXT_LIMIT
    return sorted(set(cut))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_label_fits_in_every_language(language: str):
    assert labels_cut(translator(language)) == []


class Verbose(gettext.NullTranslations):
    """A language whose word for the quarry is far too long."""

    def gettext(self, message: str) -> str:
        return "THE QUARRY OF THE TEMPLE OF DELPHI" if message == "QUARRY" else message


def test_a_label_too_long_for_its_box_is_caught():
    assert labels_cut(Translator("xx", Verbose())) == ["THE QUARRY OF THE TEMPLE OF DELPHI"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_review_chart_labels_fit_in_every_language(language: str):
    with recording_cuts() as cuts:
        render_chart([0.5, 0.7, 0.2, 0.5], [1, 2], translator(language))
    assert cuts == []
