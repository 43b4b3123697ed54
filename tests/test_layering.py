"""Dependencies point one way: engine <- rendering <- bot, and inside bot down its layers
(``tests/layers.py``); no package has an import cycle; the diagram of ``docs/imports.md`` is the
real import graph."""

from __future__ import annotations

import ast

import pytest

from tests.layers import (
    LISTING,
    ROOT,
    committed,
    discord_imports,
    drawn,
    find_cycle,
    import_graph,
    layer_of,
    no_discord,
    violation,
    violations,
)

FORBIDDEN = {
    "engine": {"discord", "PIL", "rendering", "bot", "aiohttp", "sqlite3"},
    "rendering": {"discord", "bot", "aiohttp", "sqlite3"},
}
KNOWN_VIOLATIONS: set[tuple[str, str]] = set()
"""Imports against the layers that are still there, to be removed one by one (the test fails
when one is gone and still listed, so this list only shrinks)."""


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_downstream(package):
    """A package never imports the layers above it (nor I/O libraries, for the engine)."""
    graph, external = import_graph(package)
    assert graph, f"{package}/ has no sources"
    for module, names in external.items():
        bad = names & FORBIDDEN[package]
        assert not bad, f"{module} imports {sorted(bad)}"


def test_find_cycle_finds_a_cycle():
    """The cycle finder itself: a cycle through three modules is found, a tree is not."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("package", ["engine", "rendering", "bot"])
def test_no_import_cycle(package):
    """No module imports, directly or not, a module that imports it back (a package counts
    as its ``__init__``; relative imports and ``TYPE_CHECKING`` imports included)."""
    graph, _ = import_graph(package)
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph) or [])


def test_the_import_graph_resolves_relative_imports():
    """``from .db import …`` and ``from ..server_rules import …`` are edges of the graph."""
    graph, external = import_graph("bot")
    sweeps = graph["bot.storage.sweeps"]
    assert sweeps >= {"bot.storage.db", "bot.storage.games.rows", "bot.base.shards"}
    assert "bot.base.server_rules" in graph["bot.storage.games.sql_rules"]
    assert "engine.core" in import_graph("engine")[0]["engine.position"]
    assert "discord" in external["bot.discord.answers"]


def test_the_layer_rules_themselves():
    """Down is allowed, up is not; a feature uses another only through what its package offers;
    a module's folder is its layer and a module outside the layers' folders is an error."""
    assert violation("bot.storage.games", "bot.base.server_rules") is None
    assert violation("bot.features.play.feature", "bot.discord.answers") is None
    assert violation("bot.storage.sqlite", "bot.health.metrics") is not None
    assert violation("bot.discord.app", "bot.features.play.service") is not None
    assert violation("bot.web.talk", "bot.features.lessons.web") is not None
    assert violation("bot.features.lessons.feature", "bot.features.lessons.views") is None
    assert violation("bot.features.tournaments.service", "bot.features.play") is None
    assert violation("bot.features.tournaments.service", "bot.features.play.service") is not None
    assert violation("bot.client", "bot.features.play.feature") is None
    assert violation("bot.features.installed", "bot.features.live.feature") is None
    assert layer_of("bot.words.board") == "words" and layer_of("bot.storage.new") == "storage"
    assert layer_of("bot.discord.new") == "discord" and layer_of("bot") == "base"
    assert no_discord("bot.features.lessons.store") and no_discord("bot.storage.games")
    assert not no_discord("bot.features.lessons.feature")
    with pytest.raises(ValueError, match="in no layer"):
        layer_of("bot.new")


def test_every_module_of_bot_is_in_a_layer():
    """Every module lives in a layer's folder (``bot/`` itself holds only the entry points)."""
    graph, _ = import_graph("bot")
    homeless = []
    for module in graph:
        try:
            layer_of(module)
        except ValueError:
            homeless.append(module)
    assert homeless == []


def test_imports_follow_the_layers():
    """Every import between bot modules points down the layers (or stays in its layer), and
    no feature imports another — but for the known violations, which are all still there."""
    found = violations(import_graph("bot")[0])
    new = {pair: why for pair, why in found.items() if pair not in KNOWN_VIOLATIONS}
    assert not new, "\n".join(f"{a} → {b}: {why}" for (a, b), why in sorted(new.items()))
    gone = KNOWN_VIOLATIONS - found.keys()
    assert not gone, f"fixed, so take them off KNOWN_VIOLATIONS: {sorted(gone)}"


def test_the_layers_below_discord_do_not_import_it():
    """The lower layers (values, storage, loops, fair play, words, workers) and each feature's
    store, service, words and rules import neither discord nor aiohttp — nor any module that
    does, however far down the imports."""
    assert discord_imports(*import_graph("bot")) == {}


def test_a_discord_import_is_found_however_far_down():
    """The transitive check itself: a service importing a module that imports discord."""
    a_service = "bot.features.play.service"
    graph = {a_service: {"bot.words.b"}, "bot.words.b": {"bot.base.c"}, "bot.base.c": set()}
    external = {"bot.base.c": {"discord"}}
    assert discord_imports(graph, external) == {
        "bot.base.c": {"discord"},
        a_service: {"discord"},
        "bot.words.b": {"discord"},
    }


def test_the_imports_diagram_is_the_import_graph():
    """docs/imports.md shows the imports as they are: redraw it with
    ``python -m tests.layers --write`` after changing them."""
    shown = committed(LISTING.read_text(encoding="utf-8"))
    redraw = "python -m tests.layers --write"
    assert shown == drawn(), f"{LISTING.relative_to(ROOT)} is out of date: {redraw}"


CLASS_LINES = 150
"""The longest a class of ``bot/`` may be, on the formatted code: one that grows past it does
more than one job."""
FUNCTION_LINES = 60
"""The longest a function of ``bot/`` may be, on the formatted code."""


def test_no_class_in_bot_is_longer_than_it_should_be():
    """Every class of ``bot/`` fits in :data:`CLASS_LINES` lines (docstrings included)."""
    long = [
        f"{source.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)"
        for source in sorted((ROOT / "bot").rglob("*.py"))
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > CLASS_LINES
    ]
    assert long == [], "split these by job: " + ", ".join(long)


def test_no_function_in_bot_is_longer_than_it_should_be():
    """Every function of ``bot/`` fits in :data:`FUNCTION_LINES` lines (docstrings included)."""
    long = [
        f"{source.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)"
        for source in sorted((ROOT / "bot").rglob("*.py"))
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > FUNCTION_LINES
    ]
    assert long == [], "split these: " + ", ".join(long)


SOURCES = ("bot", "engine", "rendering", "tests", "benchmarks")


def test_the_formatter_owns_the_layout():
    """No source turns the formatter off (``ruff format --check`` runs in CI): a size rule is
    met by splitting by job, never by packing lines."""
    skipped = [
        f"{source.relative_to(ROOT)}:{number}"
        for folder in SOURCES
        for source in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1)
        if "fmt: " + "skip" in line or "fmt: " + "off" in line
    ]
    assert skipped == []
