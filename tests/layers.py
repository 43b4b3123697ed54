"""The bot's layers, and its real import graph drawn by them.

``python -m tests.layers`` prints the diagram; ``python -m tests.layers --write`` puts it into
``docs/imports.md`` between its markers. ``tests/test_layering.py`` fails when an import goes
against the layers, or when the committed diagram is not what this draws.

A module belongs to the layer of its folder (:data:`LAYERS`; a module outside them is an error).
A module may import modules of its own layer and of the layers below it (:data:`ORDER`), except
that a feature imports of another feature only what its package (its ``__init__``) offers, and
the layers below Discord — and a feature's store, service, words and rules — import no Discord
library.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTING = ROOT / "docs" / "imports.md"
"""The doc that shows the diagram, between :data:`BEGIN` and :data:`END`."""
BEGIN = "<!-- layers: drawn by `python -m tests.layers --write`; a test checks it -->"
END = "<!-- /layers -->"

ORDER = (
    "base",
    "storage",
    "loops",
    "health",
    "fair_play",
    "i18n",
    "words",
    "workers",
    "discord",
    "web",
    "features",
    "client",
)
"""The layers, bottom up: every layer below ``features`` is shared, and knows no feature."""
ABOUT = {
    "base": "settings, logging, shards, the values every layer uses: no database, no Discord",
    "storage": "the database interface, its backends and migrations, and the shared stores",
    "loops": "the background loops' runner, alarm and work in flight",
    "health": "the process's counters, its /metrics and /healthz",
    "fair_play": "the engine never helps in a game in progress; its worker shared fairly",
    "i18n": "translation: the catalogues, and the languages of Discord's side",
    "words": "what the bot says, for every feature: shared phrases, the board as one value",
    "workers": "the worker processes: the AI's search and the boards' drawing",
    "discord": "the shared Discord layer: answers, controls, posting boards, the App",
    "web": "the live board's web server, which features plug their page messages into",
    "features": "one package per feature; another feature only through its __init__",
    "client": "the composition root (the features wired together) and the command line",
}
LAYERS: dict[str, str] = {
    "bot.client": "client",
    "bot.__main__": "client",
    "bot.features.installed": "client",
    "bot.features": "features",
    "bot.web": "web",
    "bot.discord": "discord",
    "bot.workers": "workers",
    "bot.words": "words",
    "bot.i18n": "i18n",
    "bot.fair_play": "fair_play",
    "bot.health": "health",
    "bot.loops": "loops",
    "bot.storage": "storage",
    "bot.base": "base",
}
"""Folder → layer: a module is in the layer of the folder it is in (the package ``bot`` itself
is base). A module in no folder of the table is in no layer, and the test fails."""
NO_DISCORD = frozenset({"base", "storage", "loops", "fair_play", "words", "workers"})
"""Layers that import no Discord library (``discord``, ``aiohttp``), not even through the
modules they import."""
PURE_PARTS = frozenset(
    {"store", "service", "words", "course", "stats", "matching", "pairing", "standings"}
)
"""A feature's modules that import no Discord library either (its store, its service, its
words, its own rules): a feature's flow is tested against a real database alone."""
DISCORD = frozenset({"discord", "aiohttp"})


def layer_of(module: str) -> str:
    """The layer of a module of ``bot``: its folder's."""
    if module == "bot":
        return "base"
    for folder, layer in LAYERS.items():
        if module == folder or module.startswith(f"{folder}."):
            return layer
    raise ValueError(f"{module} is in no layer: put it in a folder of LAYERS")


def feature_package(module: str) -> str | None:
    """The feature package ``module`` is part of (``bot.features.lessons``), or ``None``."""
    parts = module.split(".")
    if len(parts) < 3 or parts[:2] != ["bot", "features"] or layer_of(module) != "features":
        return None
    return ".".join(parts[:3])


def no_discord(module: str) -> bool:
    """Whether ``module`` may not import a Discord library: a lower layer's, or a feature's
    store, service, words or rules."""
    if layer_of(module) in NO_DISCORD:
        return True
    return feature_package(module) is not None and module.rpartition(".")[2] in PURE_PARTS


def module_name(path: Path) -> str:
    """``bot/web/live.py`` → ``bot.web.live`` (a package is its ``__init__``)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> tuple[set[str], set[str]]:
    """What a source file imports: the modules of ``modules`` (relative imports resolved; also
    those under ``TYPE_CHECKING``: a cycle there is still a cycle to a reader), and the top-level
    names of the others."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    internal, external = set(), set()
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
            found = candidate
            while found and found not in modules:  # a name inside a module
                found = found.rpartition(".")[0]
            if found and found != name:
                internal.add(found)
            elif not found:
                external.add(candidate.split(".")[0])
    return internal, external


def import_graph(package: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each module of ``package`` → the package's modules it imports, and → the top-level
    names of the other modules it imports."""
    sources = sorted((ROOT / package).rglob("*.py"))
    modules = {module_name(source) for source in sources}
    found = {module_name(source): imports_of(source, modules) for source in sources}
    return (
        {module: internal for module, (internal, _) in found.items()},
        {module: external for module, (_, external) in found.items()},
    )


def violation(importer: str, imported: str) -> str | None:
    """Why ``importer`` may not import ``imported`` (two ``bot`` modules), or ``None``."""
    above, below = layer_of(importer), layer_of(imported)
    if ORDER.index(below) > ORDER.index(above):
        return f"{above} imports {below}, a layer above it"
    home, other = feature_package(importer), feature_package(imported)
    if home is not None and other is not None and home != other and imported != other:
        return f"a feature reaches into another's insides ({other.rpartition('.')[2]})"
    return None


def violations(graph: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    """Every import of ``graph`` against the layers, with why."""
    found = {}
    for importer, imported in sorted(graph.items()):
        for target in sorted(imported):
            if (reason := violation(importer, target)) is not None:
                found[importer, target] = reason
    return found


def discord_imports(
    graph: dict[str, set[str]], external: dict[str, set[str]]
) -> dict[str, set[str]]:
    """The modules of the layers below Discord that import a Discord library, themselves or
    through any module they import (transitively), and which."""
    reached: dict[str, set[str]] = {}

    def libraries(module: str, seen: set[str]) -> set[str]:
        if module in reached:
            return reached[module]
        seen.add(module)
        found = external.get(module, set()) & DISCORD
        for target in graph.get(module, ()):
            if target not in seen:
                found |= libraries(target, seen)
        reached[module] = found
        return found

    return {
        module: found
        for module in sorted(graph)
        if no_discord(module) and (found := libraries(module, set()))
    }


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


def diagram(graph: dict[str, set[str]]) -> str:
    """The bot's modules by layer, top down, each with the modules it imports (``bot.``
    left out); an import against the layers is marked ``!``."""

    def short(module: str) -> str:
        return module.removeprefix("bot.")

    def wrong(module: str, target: str) -> bool:
        return violation(module, target) is not None

    lines = []
    for layer in reversed(ORDER):
        lines.append(f"{layer} — {ABOUT[layer]}")
        members = sorted(module for module in graph if layer_of(module) == layer)
        width = max(len(short(module)) for module in members) + 2
        for module in members:
            targets = sorted(graph[module], key=lambda target: (wrong(module, target), target))
            imports = " ".join(("!" * wrong(module, t)) + short(t) for t in targets) or "-"
            wrapped = textwrap.wrap(imports, 96 - width, break_on_hyphens=False) or [imports]
            lines.append(f"  {short(module):<{width}}{wrapped[0]}")
            lines += [f"  {'':<{width}}{more}" for more in wrapped[1:]]
    return "\n".join(lines)


def drawn() -> str:
    """What goes between the markers of ``docs/imports.md``."""
    return f"```\n{diagram(import_graph('bot')[0])}\n```"


def _markers(text: str) -> tuple[int, int]:
    """Where what is between the markers of ``text`` begins and ends."""
    return text.index(BEGIN) + len(BEGIN), text.index(END)


def committed(text: str) -> str:
    """What is between the markers of ``text``."""
    start, end = _markers(text)
    return text[start:end].strip("\n")


def main(argv: list[str]) -> int:
    """Print the diagram, or (``--write``) put it into ``docs/imports.md``."""
    if argv == ["--write"]:
        text = LISTING.read_text(encoding="utf-8")
        start, end = _markers(text)
        new = f"{text[:start]}\n{drawn()}\n{text[end:]}"
        LISTING.write_text(new, encoding="utf-8")
        print(f"{LISTING.relative_to(ROOT)}: {'unchanged' if new == text else 'redrawn'}")
    elif not argv:
        print(drawn())
    else:
        print("usage: python -m tests.layers [--write]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
