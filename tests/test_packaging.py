"""The installed package is complete: every file the code reads at run time (fonts, catalogues,
the live page and its SDK) is named by ``pyproject.toml``'s package data, so that a plain
``pip install .`` (not only an editable install) ships it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _data_files(package: Path) -> set[Path]:
    return {
        path
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    }


def test_every_data_file_is_package_data() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = project["tool"]["setuptools"]["package-data"]
    packages = ["engine", "rendering", "bot"]
    found = {
        path
        for name in packages
        for pattern in globs.get(name, [])
        for path in (ROOT / name).glob(pattern)
        if path.is_file()
    }
    needed = set().union(*(_data_files(ROOT / name) for name in packages))
    assert needed, "no data files found: the test looks in the wrong place"
    missing = sorted(str(path.relative_to(ROOT)) for path in needed - found)
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"
