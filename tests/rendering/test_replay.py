"""The animated replay: one frame for the start, one per turn, one for the final scoring (shown
longest), in any language, small enough for Discord whatever the game."""

from __future__ import annotations

import gettext
import io
import itertools
import random

from PIL import Image, ImageChops

from engine.newgame import new_game
from engine.play import random_game
from rendering import BoardView
from rendering.replay import FINAL_MS, render_replay
from rendering.translator import Translator

DISCORD_UPLOAD_LIMIT = 10 * 1024 * 1024


def frames(data: bytes) -> list[tuple[Image.Image, int]]:
    image = Image.open(io.BytesIO(data))
    found = []
    for index in range(image.n_frames):
        image.seek(index)
        found.append((image.convert("RGB"), image.info["duration"]))
    return found


def test_a_frame_per_turn_plus_the_start_and_the_final_scoring():
    start = new_game("advanced", ornaments=5, seed=2)
    turns = random_game(start, random.Random(2)).turns[:12]
    replay = render_replay(start, turns, BoardView("Ana", "Bob"), note="Bob resigned: Ana wins")
    shown = frames(replay.data)
    assert replay.format == "gif" and replay.frames == len(shown) == len(turns) + 2
    durations = [duration for _, duration in shown]
    assert durations[-1] == FINAL_MS == max(durations) and replay.duration_ms == sum(durations)
    for (before, _), (after, _) in itertools.pairwise(shown[:-1]):
        assert ImageChops.difference(before, after).getbbox() is not None, "every turn shows"


def test_the_longest_random_game_stays_under_discords_limit():
    games = [
        random_game(new_game("advanced", ornaments=5, seed=s), random.Random(s)) for s in range(30)
    ]
    longest = max(games, key=lambda game: len(game.turns))
    start = new_game("advanced", ornaments=5, seed=games.index(longest))
    replay = render_replay(start, longest.turns, BoardView("Ana", "Bob"))
    assert replay.frames == len(longest.turns) + 2
    assert len(replay.data) < DISCORD_UPLOAD_LIMIT


class Numbered(gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return "№ {number}/{total}" if message == "Turn {number} of {total}" else message


def test_the_captions_are_in_the_replays_language():
    start = new_game()
    turns = random_game(start, random.Random(1)).turns[:2]
    plain = frames(render_replay(start, turns, BoardView("Ana", "Bob")).data)
    loud = frames(
        render_replay(
            start, turns, BoardView("Ana", "Bob", translator=Translator("xx", Numbered()))
        ).data
    )
    assert ImageChops.difference(plain[1][0], loud[1][0]).getbbox() is not None
