"""The rendered image: its size, the colour at every stone's centre, the last turn's marks."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from engine import COLOUR_LETTERS, ORNAMENTS, Position, parse_turn
from rendering import BoardView, fonts, render_board
from rendering import board as board_module
from rendering.board import LEFT_TO_RIGHT, board_image, encode
from rendering.fonts import Face, font
from rendering.layout import HEIGHT, WIDTH, board_layout
from rendering.style import HIGHLIGHT, INK, KEY_COLOURS, STONES
from rendering.view import workshop_stones
from tests.rendering.cases import START, case, pixels

ROOT = Path(__file__).resolve().parents[2]


def test_png_is_about_1000_wide_and_not_tall(known):
    image = Image.open(io.BytesIO(render_board(*known)))
    assert image.format == "PNG"
    assert image.size == (WIDTH, HEIGHT) == (1000, 740)
    assert 1.2 <= image.width / image.height <= 1.6


def test_every_stone_shows_its_colour_at_its_centre(known):
    position, view = known
    image = pixels(position, view)
    layout = board_layout(position.capacities)
    checked = 0
    for site, column in zip(layout.sites, position.columns, strict=True):
        for index, letter in enumerate(column):
            colour = COLOUR_LETTERS.index(letter)
            assert image.getpixel(site.centres[index]) == STONES[colour].side, (
                site.location,
                index,
            )
            checked += 1
        for index in range(len(column), len(site.stones)):
            pixel = image.getpixel(site.centres[index])
            assert pixel not in {look.side for look in STONES}, "an empty place shows no stone"
    assert checked == sum(map(len, position.columns))


def test_workshops_and_quarry_show_their_stones(known):
    position, view = known
    image = pixels(position, view)
    layout = board_layout(position.capacities)
    sides = {look.side for look in STONES}
    for player, card in enumerate(layout.cards):
        stones = workshop_stones(position.workshops[player])
        for index, centre in enumerate(card.workshop_centres):
            if index < len(stones):
                assert image.getpixel(centre) == STONES[COLOUR_LETTERS.index(stones[index])].side
            else:
                assert image.getpixel(centre) not in sides
    for colour, centre in enumerate(layout.quarry.centres):
        shown = image.getpixel(centre)
        assert (shown == STONES[colour].side) == (position.quarry[colour] > 0)


def test_a_seven_high_column_shows_all_seven_stones():
    position, view = case("full advanced")
    assert position.capacities[2] == 7 and len(position.columns[2]) == 7
    image = pixels(position, view)
    site = board_layout(position.capacities).sites[2]
    shown = "".join(
        COLOUR_LETTERS[[look.side for look in STONES].index(image.getpixel(centre))]
        for centre in site.centres
    )
    assert shown == position.columns[2]


@pytest.mark.parametrize("colour", "wbg")
def test_the_placed_stone_is_ringed_whatever_its_colour(colour):
    other = {"w": "b", "b": "w", "g": "w"}[colour]
    position = Position.parse(f"{other}/-/-/-/{colour}/-/- - - w -")
    image = pixels(position, BoardView(last_turn=parse_turn(f"{colour}@E")))
    box = board_layout(position.capacities).sites[4].stones[0]
    middle = (box[1] + box[3]) // 2
    assert image.getpixel((box[0] - 2, middle)) == HIGHLIGHT
    assert image.getpixel((box[2] + 1, middle)) == HIGHLIGHT
    unmarked = board_layout(position.capacities).sites[0].stones[0]
    assert image.getpixel((unmarked[0] - 2, (unmarked[1] + unmarked[3]) // 2)) != HIGHLIGHT


def test_a_move_marks_where_the_stone_left_and_where_it_went():
    position, view = case("mid basic")  # b@A/G>B: a black stone went from G to B
    image = pixels(position, view)
    sites = board_layout(position.capacities).sites
    left = sites[6].stones[len(position.columns[6])]
    assert image.getpixel(((left[0] + left[2]) // 2, (left[1] + left[3]) // 2)) == INK
    for location in (0, 1):  # the placed stone on A, the moved one on B
        top = sites[location].stones[len(position.columns[location]) - 1]
        assert image.getpixel((top[0] - 2, (top[1] + top[3]) // 2)) == HIGHLIGHT


def test_stones_taken_into_the_workshop_are_ringed():
    position = Position.parse("-/-/-/-/-/-/- wgg bb b -")
    image = pixels(position, BoardView(last_turn=parse_turn("+g2")))
    card = board_layout(position.capacities).cards[0]
    marked = [
        image.getpixel((box[0] - 2, (box[1] + box[3]) // 2)) == HIGHLIGHT for box in card.workshop
    ]
    assert marked == [False, True, True]


@pytest.mark.parametrize("ornament", ORNAMENTS)
@pytest.mark.parametrize("location", range(7))
def test_each_ornament_tag_stays_in_its_box(ornament, location):
    """Adding an ornament to an empty board changes only its tag (and the tall column's shaft)."""
    letter = "ABCDEFG"[location]
    plain = board_image(Position.parse(START), BoardView())
    position = Position.parse(f"{START[:-1]}{letter}={ornament}")
    adorned = board_image(position, BoardView())
    site = board_layout(position.capacities).sites[location]
    allowed = [site.tag] + ([site.column] if ornament == "tall" else [])
    title = board_layout(position.capacities).title  # "basic game" becomes "advanced game"
    difference = ImageChops.difference(plain, adorned)
    for region in [*allowed, title]:
        difference.paste((0, 0, 0), region)
    assert difference.getbbox() is None, f"{ornament} on {letter} draws outside its tag"


def test_same_input_gives_the_same_bytes(known):
    assert render_board(*known) == render_board(*known)


def test_a_board_drawn_from_the_caches_is_the_board_drawn_afresh():
    """The fitted texts, the texts' coverage and the move's arrow are kept from board to board:
    taken from there, they draw exactly what they drew the first time."""
    position, view = case("mid basic")  # a move: the arrow is drawn
    caches = (board_module._arrow_masks, board_module._coverage, fonts._fit_size)
    for cache in (*caches, fonts._fit):
        cache.cache_clear()
    fresh = render_board(position, view)
    hits = [cache.cache_info().hits for cache in caches]
    assert render_board(position, view) == fresh
    assert all(cache.cache_info().hits > before for cache, before in zip(caches, hits, strict=True))


@pytest.mark.parametrize("anchor", ["lm", "mm", "rm", "mt"])
def test_a_line_is_painted_exactly_as_pillow_draws_it(anchor):
    """A line painted through its kept coverage has Pillow's own pixels for that text, at whole
    and fractional positions (multiples of 1/64, as the board's are), in every face."""
    texts = ["Ana to move", "محمد · 3 points", "Maximilian von Hohenzollern-Sigmaringen"]
    for face, text in zip(Face, texts, strict=True):
        for x, y in ((200, 60), (200.5, 60.5), (200.015625, 61.984375), (123.4375, 59.25)):
            expected = Image.new("RGB", (460, 120), (214, 196, 160))
            ImageDraw.Draw(expected).text(
                (x, y), LEFT_TO_RIGHT + text, font=font(face, 22), fill=INK, anchor=anchor
            )
            painted = Image.new("RGB", (460, 120), (214, 196, 160))
            board_module._line(painted, (x, y), text, face, 22, INK, anchor)
            blank = Image.new("RGB", (460, 120), (214, 196, 160))
            assert ImageChops.difference(expected, blank).getbbox() is not None  # text drawn
            assert ImageChops.difference(expected, painted).getbbox() is None, (face, x, y)


def test_threads_rendering_at_once_give_the_same_bytes():
    cases = [case(name) for name in ("mid basic", "full advanced", "finished advanced")]
    expected = [render_board(*pair) for pair in cases]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda pair: render_board(*pair), cases * 8))
    assert results == expected * 8


def test_other_processes_give_the_same_bytes():
    """No hash seed, cache state or timestamp leaks into the PNG."""
    position, view = case("full advanced")
    script = (
        "import hashlib, sys\n"
        "from engine import Position, parse_turn\n"
        "from rendering import BoardView, render_board\n"
        "png = render_board(Position.parse(sys.argv[1]), "
        "BoardView('Ana', 'Bob', last_turn=parse_turn(sys.argv[2])))\n"
        "print(hashlib.sha256(png).hexdigest())\n"
    )
    digests = set()
    for seed in ("1", "2"):
        result = subprocess.run(
            [sys.executable, "-c", script, str(position), str(view.last_turn)],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
        )
        digests.add(result.stdout.strip())
    assert digests == {hashlib.sha256(render_board(position, view)).hexdigest()}


def test_the_palette_holds_every_style_colour_exactly():
    swatch = Image.new("RGB", (len(KEY_COLOURS), 1))
    swatch.putdata(list(KEY_COLOURS))
    decoded = Image.open(io.BytesIO(encode(swatch))).convert("RGB")
    assert [decoded.getpixel((x, 0)) for x in range(decoded.width)] == list(KEY_COLOURS)


def test_no_metadata_in_the_png():
    png = render_board(*case("start"))
    assert b"tEXt" not in png and b"tIME" not in png and b"iTXt" not in png


names = st.text(max_size=80) | st.sampled_from(
    [
        "",
        " ",
        "🙂🙂🙂",
        "שלום עולם",
        "مرحبا بالعالم",
        "\u202eevil",
        "a\nb\tc",
        "\ud800",
        "W" * 2_000_000,
        "漢字かな",
    ]
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(white=names, black=names, note=st.none() | names)
def test_any_names_render(white, black, note):
    position, view = case("finished advanced")
    png = render_board(position, BoardView(white, black, view.last_turn, note=note))
    assert Image.open(io.BytesIO(png)).size == (WIDTH, HEIGHT)


def test_a_long_name_is_shortened_not_spilled():
    position, _ = case("mid basic")
    long = pixels(position, BoardView("Ana " + "Magnificent " * 20, "Bob"))
    short = pixels(position, BoardView("Ana", "Bob"))
    card = board_layout(position.capacities).cards[0]
    difference = ImageChops.difference(long, short)
    assert difference.getbbox() is not None
    for region in (card.name, board_layout(position.capacities).status):
        difference.paste((0, 0, 0), region)
    assert difference.getbbox() is None, "the long name spilled out of its place"


def test_the_image_writes_negative_scores_with_a_minus_sign(monkeypatch):
    """Every text drawn on a finished board whose loser has −2: the total and the columns
    worth less than nothing with U+2212, and no hyphen before a digit anywhere."""
    drawn: list[str] = []
    real_text = board_module._text

    def record(draw, box, text, *rest):
        drawn.append(text)
        real_text(draw, box, text, *rest)

    monkeypatch.setattr(board_module, "_text", record)
    position = Position.parse("wgwbb/bbbww/wwgwg/wgbwb/bbbww/wwggw/gbbgw - - w -")
    render_board(position, BoardView("Ana", "Bob", final=True))
    assert "\u22122" in drawn and "19" in drawn, drawn  # the players' totals
    assert not any(f"-{digit}" in text for text in drawn for digit in "0123456789"), drawn
