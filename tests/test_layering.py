"""Dependencies point one way: engine <- rendering <- bot."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "engine": {"discord", "aiosqlite", "PIL", "rendering", "bot", "aiohttp", "sqlite3"},
    "rendering": {"discord", "aiosqlite", "bot", "aiohttp", "sqlite3"},
}


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module a source file imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_downstream(package):
    """A package never imports the layers above it (nor I/O libraries, for the engine)."""
    sources = sorted((ROOT / package).rglob("*.py"))
    assert sources, f"{package}/ has no sources"
    for source in sources:
        bad = imported_modules(source) & FORBIDDEN[package]
        assert not bad, f"{source.relative_to(ROOT)} imports {sorted(bad)}"
