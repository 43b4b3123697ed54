"""``python -m rendering``: draws and describes boards, times the renderer, rejects bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from rendering.__main__ import main
from tests.rendering.cases import FULL_ADVANCED, MID_BASIC

ROOT = Path(__file__).resolve().parents[2]


def test_board_writes_the_png(tmp_path, capsys):
    out = tmp_path / "board.png"
    status = main(
        ["board", MID_BASIC[0], "--out", str(out), "--last", MID_BASIC[1], "--names", "Ana,Bob"]
    )
    assert status == 0
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (1000, 740)
    assert capsys.readouterr().err == ""


def test_describe_prints_the_text(capsys):
    assert main(["describe", FULL_ADVANCED[0], "--names", "Ana,Bob", "--final"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(("Ana wins", "Bob wins", "Draw")) and "Final points: White, Ana" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["board", "not a position", "--out", "x.png"],
        ["board", "-/-/-/-/-/-/- ww bb w -", "--out", "x.png", "--last", "w@Z"],
        ["board", "-/-/-/-/-/-/- ww bb w -", "--out", "x.png", "--names", "OnlyOne"],
        ["board", "wwwwwwww/-/-/-/-/-/- - - w -", "--out", "x.png"],
        ["board", "-/-/-/-/-/-/- ww bb w -", "--out", "/nonexistent/dir/x.png"],
        ["board", "-/-/-/-/-/-/- ww bb w -"],
        ["bench", "--runs", "0"],
        ["frobnicate"],
    ],
)
def test_bad_input_exits_2_with_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m rendering")
    assert "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


def test_the_module_runs_and_benches():
    result = subprocess.run(
        [sys.executable, "-m", "rendering", "bench", "--runs", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines] == [
        "mid-game basic board",
        "full advanced board",
    ]
    assert all(" ms " in line and line.rstrip().endswith("KB  (2 runs)") for line in lines)
