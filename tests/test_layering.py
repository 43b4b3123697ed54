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


def module_name(path: Path) -> str:
    """``bot/features/play.py`` → ``bot.features.play`` (a package is its ``__init__``)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def internal_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that a source file imports, relative imports resolved (also
    those under ``TYPE_CHECKING``: a cycle there is still a cycle to a reader)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            candidates = [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in modules:  # a name inside a module
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                found.add(candidate)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (module → modules it imports), or ``None``."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for target in sorted(graph[node]):
            if cycle := visit(target, [*path, node]):
                return cycle
        done.add(node)
        return None

    for start in sorted(graph):
        if cycle := visit(start, []):
            return cycle
    return None


def test_find_cycle_finds_a_cycle():
    """The cycle finder itself: a cycle through three modules is found, a tree is not."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_among_bot_modules():
    """No bot module imports, directly or not, a module that imports it back (a package
    counts as its ``__init__``; relative imports included)."""
    sources = sorted((ROOT / "bot").rglob("*.py"))
    modules = {module_name(source) for source in sources}
    graph = {module_name(source): internal_imports(source, modules) for source in sources}
    assert graph["bot.features.play"] >= {"bot.answers", "bot.features.opponent"}
    assert graph["bot.layout"] >= {"bot.custom_ids", "bot.board"}
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph) or [])
