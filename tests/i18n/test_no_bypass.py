"""No user-facing text in bot/ or rendering/ bypasses the catalogue.

Every string literal that reads like prose (two words or more) must be a message marked for
translation (``t(…)``, ``t.plural(…)``, ``N_(…)``, ``NC_(…)``, ``tell(…, "…")``,
``Refusal("…")``), or be one of the kinds of text no user reads: docstrings, log lines,
exceptions for programmers, SQL, and the few strings listed in ``NOT_FOR_READERS`` with why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine import Position

ROOT = Path(__file__).parent.parent.parent
PACKAGES = ("bot", "rendering")
MARKERS = {"t", "plural", "N_", "NC_", "tell", "Refusal", "_"}
"""Calls whose string arguments are messages (or translations of them)."""
QUIET_CALLS = {
    # logging
    "debug",
    "info",
    "warning",
    "error",
    "exception",
    "critical",
    "log",
    "getLogger",
    # errors for programmers and operators
    "ValueError",
    "TypeError",
    "RuntimeError",
    "AssertionError",
    "KeyError",
    "SystemExit",
    "DatabaseTooNewError",
    "DatabaseUnavailable",
    "ChannelBusyError",
    "StaleGameError",
    # SQL
    "execute",
    "fetchone",
    "fetchall",
    "fetchval",
    "scalar",
    # a command's name: Discord shows the mention in the reader's language
    "command",
    # what background work is about, and why it failed: for the log and the database
    "Retries",
    "fail",
    "failed",
    "Loop",
    # what a request to Discord was, for the log when Discord refuses it
    "NotVouched",
    "_discord_json",
    # plumbing
    "ContextVar",
    "Lock",
    "ThreadPoolExecutor",
    "create_task",
    "getenv",
}
"""Calls whose strings no member reads: logs, errors for programmers and operators, SQL,
the command line of the bot's operator."""
PROSE = re.compile(r"[A-Za-z]{2,}[^\n]*\s[^\n]*[A-Za-z]{2,}")
SQL = re.compile(
    r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|WITH|PRAGMA|BEGIN|"
    r"COMMIT|ROLLBACK|SET|FROM|WHERE|ORDER|AND|OR|VALUES|RETURNING|ON|LIMIT)\b|"
    r"\b(WHERE|SELECT|INSERT INTO|UPDATE|VALUES|ORDER BY|RETURNING)\b"
)
NOT_FOR_READERS = (
    "bot/__main__.py",  # the operator's command line
    "bot/base/settings.py",  # the operator's configuration errors
    "bot/i18n/catalogues.py",  # the catalogue's own header and command line
    "bot/storage/",  # SQL; the database layer says nothing to members
    "bot/base/logs.py",  # the log's format, for the operator
    "bot/health/",  # the metrics' help texts and the health answers, for the operator's tools
    "bot/features/admin/backup.py",  # the backup's report, for the operator's command line
    "bot/features/admin/copy.py",  # the copy's report, for the operator's command line
    "rendering/__main__.py",  # the command line that draws a board to a file
    "bot/web/headers.py",  # the live board's HTTP headers, for browsers
    "bot/web/strangers.py",  # the live board's log lines about strangers, for the operator
)
"""Modules (or packages) whose text only the bot's operator reads."""


def call_name(call: ast.Call) -> str:
    """The name a call is made by: ``t`` in ``t("…")``, ``info`` in ``log.info(…)``."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return getattr(call.func, "id", "")


def literal_strings(path: Path) -> list[tuple[int, str]]:
    """The prose-like string literals of a module that are not marked, logged or documented."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                skipped.add(id(value))  # a docstring
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))  # an attribute's docstring
        if isinstance(node, ast.Call):
            name = call_name(node)
            if name in MARKERS or name in QUIET_CALLS:
                for inner in ast.walk(node):
                    skipped.add(id(inner))
        if isinstance(node, ast.Raise | ast.Assert):
            for inner in ast.walk(node):
                if not (isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "Refusal"):
                    skipped.add(id(inner))
        if isinstance(node, ast.Compare | ast.Subscript):  # == "x", mapping["x"]
            for inner in ast.walk(node):
                skipped.add(id(inner))
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, ast.Constant):
            continue
        text = node.value
        prose = isinstance(text, str) and PROSE.search(text) and not SQL.search(text)
        if prose and not is_position(text):
            found.append((node.lineno, text))
    return found


def is_position(text: str) -> bool:
    """Whether ``text`` is a position string (what players paste into ``python -m engine``)."""
    try:
        Position.parse(text)
    except ValueError:
        return False
    return True


def is_a_features_store(path: Path) -> bool:
    """A feature's store (``bot/features/<feature>/store.py``): SQL, which says nothing to
    members, as the shared ``bot/storage/``."""
    return path.name == "store.py" and path.parent.parent.name == "features"


MODULES = sorted(
    path.relative_to(ROOT).as_posix()
    for package in PACKAGES
    for path in (ROOT / package).rglob("*.py")
    if not path.relative_to(ROOT).as_posix().startswith(NOT_FOR_READERS)
    and not is_a_features_store(path)
)


@pytest.mark.parametrize("module", MODULES)
def test_every_sentence_goes_through_the_catalogue(module: str):
    """A string a member could read is a marked message."""
    assert literal_strings(ROOT / module) == []


def test_the_scanner_finds_an_unmarked_sentence(tmp_path: Path):
    """The check itself: an unmarked reply is found; marked, logged and SQL ones are not."""
    source = tmp_path / "sample.py"
    source.write_text(
        '"""A docstring is fine."""\n'
        "async def reply(interaction, t, log, db):\n"
        '    log.info("a log line is fine %s", 1)\n'
        '    await db.execute("SELECT id FROM games WHERE x = ?")\n'
        '    await interaction.response.send_message(t("Marked, so fine."))\n'
        '    await interaction.response.send_message("Not marked at all.")\n'
        '    raise ValueError("for programmers only")\n'
    )
    assert literal_strings(source) == [(6, "Not marked at all.")]


def marked_inside_f_strings(path: Path) -> list[int]:
    """The lines where a message is marked inside an f-string: Babel's extractor does not read
    f-strings, so such a message never reaches the catalogue and is never translated."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and call_name(inner) in MARKERS
                    and any(
                        isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                        for argument in inner.args
                    )
                ):
                    found.append(inner.lineno)
    return found


@pytest.mark.parametrize("module", MODULES)
def test_no_message_is_marked_inside_an_f_string(module: str):
    """Every marked message is where the extractor sees it (not inside an f-string)."""
    assert marked_inside_f_strings(ROOT / module) == []


def test_the_scanner_finds_a_message_marked_inside_an_f_string(tmp_path: Path):
    source = tmp_path / "sample.py"
    source.write_text(
        "def label(t, n):\n"
        '    heading = t("Fine")\n'
        '    return f"**{heading}** {n}" + f"**{t(\'Never extracted\')}**"\n'
    )
    assert marked_inside_f_strings(source) == [3]
