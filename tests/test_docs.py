"""The docs say what the bot does: the commands tables of ``docs/playing.md`` list every slash
command the bot registers — with its options, optional ones in brackets, in order — and no
other; the README stays short and points at the docs; no doc links to a file that is not
there."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from discord import app_commands

from bot.discord.commands import slash_commands
from bot.features.installed import features
from tests.discord_fakes import fake_app

ROOT = Path(__file__).resolve().parent.parent
PLAYING = ROOT / "docs" / "playing.md"
README_LINES = 150
"""A README a newcomer reads in two minutes."""
ROW = re.compile(r"^\| `(/[^`]+)` \|", re.M)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def signatures(command: Any, prefix: str = "") -> Iterator[str]:
    """``/tholos challenge [opponent] …`` for a command and every subcommand of a group."""
    name = f"{prefix} {command.name}".strip()
    if isinstance(command, app_commands.Group):
        for sub in command.commands:
            yield from signatures(sub, name)
        return
    options = [p.name if p.required else f"[{p.name}]" for p in command.parameters]
    yield " ".join([f"/{name}", *options])


def registered() -> list[str]:
    """Every command the client registers: ``/tholos`` and each feature's own."""
    built = features(fake_app(None))  # type: ignore[arg-type]  # building reads nothing
    commands = slash_commands(command for feature in built for command in feature.commands())
    return sorted(signature for command in commands for signature in signatures(command))


def test_the_commands_tables_list_every_registered_command():
    listed = ROW.findall(PLAYING.read_text(encoding="utf-8"))
    assert len(listed) == len(set(listed)), "a command listed twice"
    assert sorted(listed) == registered()


def test_the_readme_is_short_and_points_at_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LINES
    for doc in ("docs/playing.md", "docs/hosting.md", "docs/architecture.md"):
        assert f"]({doc})" in readme


def test_every_link_of_the_docs_leads_to_a_file():
    broken = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(ROOT)} → {target}")
    assert broken == []


ARCHITECTURE = ROOT / "docs" / "architecture.md"
ARCHITECTURE_LINES = 300
"""An architecture a newcomer reads in ten minutes: the layers, the features, one press."""
CODE = re.compile(r"`([^`]+)`")
PATH = re.compile(r"^(?:bot|engine|rendering|tests|benchmarks|docs)/[\w./-]*$")
MODULE = re.compile(r"\b(?:bot|engine|rendering)(?:\.\w+)+")
MEMBER = re.compile(r"^([A-Z]\w*[a-z]\w*)(?:\.(\w+))?(?:\(.*\))?$")
CALL = re.compile(r"^([a-z_][a-z0-9_]+)\(")


def code_spans(doc: Path) -> list[str]:
    """What ``doc`` writes as code (between backticks)."""
    return CODE.findall(doc.read_text(encoding="utf-8"))


def sources() -> Iterator[Path]:
    """The bot's, the engine's and the renderer's source files."""
    for package in ("bot", "engine", "rendering"):
        yield from sorted((ROOT / package).rglob("*.py"))


def defined_names() -> tuple[dict[str, set[str]], set[str]]:
    """Every class of the sources → the names defined in its body, and every other name
    defined anywhere in them (functions, module-level names)."""
    classes: dict[str, set[str]] = {}
    names: set[str] = set()
    for source in sources():
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                members = classes.setdefault(node.name, set())
                for child in node.body:
                    members |= set(assigned(child))
            else:
                names |= set(assigned(node))
    return classes, names


def assigned(node: ast.AST) -> Iterator[str]:
    """The names a statement defines (a function, a class, an assignment's targets)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        yield from (target.id for target in targets if isinstance(target, ast.Name))


def module_exists(dotted: str) -> bool:
    """Whether ``bot.web.live`` (or a name in it: ``engine.position_key``) is in the sources."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        path = ROOT.joinpath(*parts[:end])
        module = path.with_suffix(".py") if not path.is_dir() else path / "__init__.py"
        if module.exists():
            rest = parts[end:]
            if not rest:
                return True
            tree = ast.parse(module.read_text(encoding="utf-8"))
            defined = {name for node in tree.body for name in assigned(node)}
            defined |= {
                alias.asname or alias.name
                for node in tree.body
                if isinstance(node, ast.ImportFrom)
                for alias in node.names
            }
            return len(rest) == 1 and rest[0] in defined
    return False


def test_the_architecture_is_short():
    assert len(ARCHITECTURE.read_text(encoding="utf-8").splitlines()) <= ARCHITECTURE_LINES


@pytest.mark.parametrize("doc", ["architecture.md", "data.md", "imports.md"])
def test_every_path_and_module_a_doc_names_is_there(doc):
    """Every file or folder the doc names (``bot/features/play/service.py``) and every module
    (``bot.i18n.catalogues``) exists: a move that forgets the docs fails here."""
    missing = []
    for span in code_spans(ROOT / "docs" / doc):
        if PATH.match(span) and not (ROOT / span).exists():
            missing.append(span)
        missing += [name for name in MODULE.findall(span) if not module_exists(name)]
    assert missing == []


@pytest.mark.parametrize("doc", ["architecture.md", "data.md"])
def test_every_class_method_and_function_a_doc_names_is_there(doc):
    """A class (``PlayService``), a method (``PlayService.choose``) or a function called
    (``board_of(…)``) that the architecture or the data model names is defined in ``bot/``,
    ``engine/`` or ``rendering/``: the press it walks through is the press the code makes."""
    classes, names = defined_names()
    missing = []
    for span in code_spans(ROOT / "docs" / doc):
        if span in ("None", "True", "False"):
            continue
        if member := MEMBER.match(span):
            kind, attribute = member.groups()
            known = classes.get(kind)
            if known is None or (attribute is not None and attribute not in known):
                missing.append(span)
        elif (call := CALL.match(span)) and call.group(1) not in names:
            missing.append(span)
    assert missing == []
