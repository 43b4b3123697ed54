"""Start the bot: ``python -m bot`` (or ``tholos-bot``). Exit status 2 on a settings problem.

Maintenance instead (no token needed): ``python -m bot rebuild-ratings`` recomputes every rating
from the stored games of ``THOLOS_DB``; ``python -m bot copy-db SQLITE_PATH POSTGRES_URL`` copies
a whole history into an empty database; ``python -m bot rotate-web-key`` replaces the key that
signs the live board's sessions (``--help`` lists them all).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import discord

from bot.base import logs
from bot.base.database_url import is_postgres_url, redact, url_passwords
from bot.base.settings import Settings, SettingsError, database_url
from bot.client import TholosBot, make_bot
from bot.discord.api import use_api_base
from bot.features.admin.backup import BackupError, backup, restore
from bot.features.admin.copy import TargetNotEmptyError, copy_database
from bot.features.ratings.rebuild import rebuild_ratings
from bot.storage import open_database
from bot.storage.db import DatabaseTooNewError, DatabaseUnavailable
from bot.web.sessions import KEY_CHECK_SECONDS, rotate_session_key

USAGE = (
    "usage: tholos-bot [--help | rebuild-ratings | copy-db SQLITE_PATH POSTGRES_URL"
    " | backup PATH [--force] | restore BACKUP | rotate-web-key]"
)
HELP = f"""{USAGE}

Play Tholos in Discord. Without a command: start the bot (its settings from the environment
and ./.env — DISCORD_TOKEN is required; see .env.example); it runs until SIGTERM or Ctrl-C.

commands (no token needed; THOLOS_DB names the database):
  rebuild-ratings              recompute every rating from the stored games
  copy-db SQLITE_PATH POSTGRES_URL
                               copy a whole history into an empty PostgreSQL database
  backup PATH [--force]        a consistent copy of the SQLite database, while it plays
  restore BACKUP               put a backup in place of the database (the bot stopped)
  rotate-web-key               replace the key that signs the live board's sessions: every
                               session signed before is refused (running bots follow within
                               seconds; their pages ask Discord again)

Exit status: 0, or 2 with one line on stderr."""
HELP_OPTIONS = ("-h", "--help", "help")
STORAGE_ERRORS = (
    DatabaseTooNewError,
    DatabaseUnavailable,
    TargetNotEmptyError,
    BackupError,
    sqlite3.Error,
)
MAINTENANCE_NICENESS = 10
"""How much lower a maintenance command's CPU priority is than a bot's on the same machine:
the live presses come first (as for the AI's reviews)."""
log = logging.getLogger("bot")


async def _run(bot: TholosBot, token: str) -> None:
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: closing.append(loop.create_task(bot.close())))
    async with bot:
        await bot.start(token)
    await asyncio.gather(*closing)


async def _rebuild_ratings(url: str) -> str:
    database = await open_database(url)
    try:
        rebuilt = await rebuild_ratings(database)
    finally:
        await database.close()
    return (
        f"Rebuilt the ratings from {rebuilt.games} rated games in {redact(url)} "
        f"({rebuilt.during} finished during the rebuild); {rebuilt.written} rows changed, "
        f"the longest write took {rebuilt.longest_write * 1000:.0f} ms."
    )


async def _copy_db(source_url: str, target_url: str) -> str:
    source = await open_database(source_url)
    try:
        target = await open_database(target_url)
        try:
            copied = await copy_database(source, target)
        finally:
            await target.close()
    finally:
        await source.close()
    counts = ", ".join(f"{rows} {table}" for table, rows in copied.items())
    return f"Copied {redact(source_url)} into {redact(target_url)}: {counts}."


async def _backup(url: str, target: Path, *, force: bool) -> str:
    if is_postgres_url(url):
        raise BackupError(
            "THOLOS_DB is a PostgreSQL database: back it up with pg_dump -Fc "
            "(docs/hosting.md, Backups)"
        )
    try:
        copied = await asyncio.to_thread(backup, Path(url), target, force=force)
    except OSError as error:  # permissions, a full disk
        raise BackupError(f"backing up {url} to {target} failed: {error}") from None
    return f"Backed up {url} to {copied.path}: {copied.summary()}, in {copied.seconds:.2f} s."


async def _restore(url: str, backup_file: Path) -> str:
    if is_postgres_url(url):
        raise BackupError(
            "THOLOS_DB is a PostgreSQL database: restore it with pg_restore, the bot stopped "
            "(docs/hosting.md, Backups)"
        )
    try:
        copied = await asyncio.to_thread(restore, backup_file, Path(url))
    except OSError as error:  # permissions, a full disk
        raise BackupError(f"restoring {backup_file} into {url} failed: {error}") from None
    kept = f"; the database it replaced is kept as {copied.kept}" if copied.kept else ""
    return f"Restored {backup_file} into {url}: {copied.summary()}{kept}."


async def _rotate_web_key(url: str) -> str:
    database = await open_database(url)
    try:
        await rotate_session_key(database)
    finally:
        await database.close()
    return (
        f"Replaced the live board's session key in {redact(url)}: running bots use the new one "
        f"within {KEY_CHECK_SECONDS:g} s and close the pages opened before (their members open "
        "the Activity again)."
    )


def _maintenance(arguments: list[str]) -> Coroutine[Any, Any, str] | None:
    """The maintenance command ``arguments`` name (no token needed), or ``None``."""
    match arguments:
        case ["rebuild-ratings"]:
            return _rebuild_ratings(database_url())
        case ["copy-db", source, target]:
            return _copy_db(source, target)
        case ["backup", path] | ["backup", path, "--force"] | ["backup", "--force", path] if (
            not path.startswith("-")
        ):
            return _backup(database_url(), Path(path), force="--force" in arguments)
        case ["restore", path] if not path.startswith("-"):
            return _restore(database_url(), Path(path))
        case ["rotate-web-key"]:
            return _rotate_web_key(database_url())
    return None


def main() -> int:
    """Read the settings, start the bot, run until SIGTERM/SIGINT; return the exit status."""
    arguments = sys.argv[1:]
    if arguments and arguments[0] in HELP_OPTIONS:
        print(HELP)
        return 0
    if arguments:
        command = _maintenance(arguments)
        if command is None:
            print(USAGE, file=sys.stderr)
            return 2
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice
            os.nice(MAINTENANCE_NICENESS)
        try:
            print(asyncio.run(command))
        except STORAGE_ERRORS as error:
            print(f"tholos-bot: {error}", file=sys.stderr)
            return 2
        return 0
    try:
        settings = Settings.load()
    except SettingsError as error:
        print(f"tholos-bot: {error}", file=sys.stderr)
        return 2
    logs.set_up(
        settings.logging_level,
        settings.log_format,
        secrets=(settings.token, settings.client_secret or "", *url_passwords(settings.database)),
    )
    try:
        if settings.api_base:
            use_api_base(settings.api_base)
        asyncio.run(_run(make_bot(settings), settings.token))
    except discord.LoginFailure:
        print(
            "tholos-bot: Discord rejected DISCORD_TOKEN — copy the bot token again from the "
            "Developer Portal (Bot → Reset Token) into .env",
            file=sys.stderr,
        )
        return 2
    except (ValueError, OSError, *STORAGE_ERRORS) as error:
        print(f"tholos-bot: {error}", file=sys.stderr)
        return 2
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
