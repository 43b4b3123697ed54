"""The bundled fonts: Greek coverage, untrusted text reduced to what they draw, fitting."""

from __future__ import annotations

from importlib.resources import files

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rendering.fonts import ELLIPSIS, Face, coverage, fit, fit_size, font, printable


@pytest.mark.parametrize("face", list(Face))
def test_fonts_ship_in_the_package_and_cover_greek(face):
    assert files("rendering").joinpath("assets", face.value).is_file()
    covered = coverage(face)
    assert all(ord(char) in covered for char in "αβγδπΣΩΘΟΛ" + "ABCabc0123−–…→")
    assert 0x1F642 not in covered  # no emoji: those are dropped from names


def test_the_licence_ships_with_the_fonts():
    licence = files("rendering").joinpath("assets", "LICENSE-DejaVu.txt").read_text("utf-8")
    assert "Bitstream Vera" in licence and "Arev" in licence
    for face in Face:
        assert face.value in licence


def test_printable_keeps_what_the_font_draws_on_one_line():
    assert printable("  Ana\t🙂\u200d🙂  de\nDelfos\u202e ", Face.BOLD) == "Ana de Delfos"
    assert printable("Ἀλέξανδρος", Face.BOLD) == "Ἀλέξανδρος"
    assert printable("שלום", Face.BOLD) == "שלום"
    assert printable("🙂🙂", Face.BOLD) == ""


@given(st.text(max_size=60), st.integers(min_value=10, max_value=400))
def test_fit_stays_within_the_width(text, width):
    text = printable(text, Face.TEXT)
    fitted = fit(text, Face.TEXT, 20, width)
    assert fitted == text or fitted.endswith(ELLIPSIS)
    if fitted != ELLIPSIS:
        assert font(Face.TEXT, 20).getlength(fitted) <= width


def test_fit_size_shrinks_before_it_cuts():
    width = int(font(Face.BOLD, 30).getlength("Alexandros")) - 1
    assert fit_size("Alexandros", Face.BOLD, range(30, 19, -2), width) == ("Alexandros", 28)
    text, size = fit_size("Alexandros " * 5, Face.BOLD, range(30, 19, -2), width)
    assert size == 20 and text.endswith(ELLIPSIS)
