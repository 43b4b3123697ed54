"""The docs say what the bot does: the commands tables of ``docs/playing.md`` list every slash
command the bot registers — with its options, optional ones in brackets, in order — and no
other; the README stays short and points at the docs; no doc links to a file that is not
there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from discord import app_commands

from bot.discord.commands import tholos
from bot.features.installed import FEATURES

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
    """Every command the client registers: the ``/tholos`` group and each feature's own."""
    commands = [tholos]
    for kind in FEATURES:
        commands += kind.commands(object.__new__(kind))  # what a feature adds needs no state
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
