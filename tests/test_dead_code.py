"""No dead code in the bot: vulture finds nothing unused in ``bot/``, ``engine/`` or
``rendering/`` (at 60% confidence: functions, methods, classes, attributes, variables), counting
the uses in the tests and benchmarks — a hook a test observes real behaviour through is not dead;
code that only its own test calls is, and goes with its test."""

from __future__ import annotations

from pathlib import Path

from vulture import Vulture

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("bot", "engine", "rendering")
USERS = ("tests", "benchmarks")
MIN_CONFIDENCE = 60

CALLED_BY_NAME = [
    # discord.py: the client's hooks and events, the command tree's, a control's, the
    # translator's; class attributes it reads
    "setup_hook",
    "on_ready",
    "on_interaction",
    "on_error",
    "interaction_check",
    "is_dispatchable",
    "translate",
    "warn_nacl",
    "warn_dave",
    "DEFAULT_GATEWAY",
    # prometheus_client's collector, sqlite3's connection, logging's record, Python's call
    "collect",
    "row_factory",
    "msg",
    "__call__",
    # tuples of N_()/NC_() that exist for the translation catalogue only
    "OPTION_NAMES",
    "CHOICE_NAMES",
    "MARKED",
]
"""Names a library (or the catalogue's extraction) uses without the code saying so."""
REGISTERED = ["@*.command", "@*.autocomplete"]
"""Decorators that register a slash command or its autocomplete with discord.py."""


def test_nothing_is_unused():
    vulture = Vulture(ignore_names=CALLED_BY_NAME, ignore_decorators=REGISTERED)
    vulture.scavenge([str(ROOT / folder) for folder in (*CHECKED, *USERS)])
    unused = [
        f"{path}:{item.first_lineno}: {item.message}"
        for item in vulture.get_unused_code(min_confidence=MIN_CONFIDENCE)
        if (path := Path(item.filename).relative_to(ROOT)).parts[0] in CHECKED
    ]
    assert not unused, "dead code (delete it, or say here who uses it):\n" + "\n".join(unused)
