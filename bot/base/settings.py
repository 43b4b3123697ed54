"""Settings: read once at start from the environment and an optional ``.env`` file."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.base.paces import CLOCKS, CORRESPONDENCE, offered_clocks, offers
from bot.base.shards import Shards

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LOG_FORMATS = ("text", "json")
CHALLENGE_TIMEOUT = 600.0
INACTIVITY_TIMEOUT = 86400.0
ENV_FILE = Path(".env")
"""The settings file read by default: ``.env`` in the working directory."""


class SettingsError(ValueError):
    """A missing or malformed setting; the message says which and how to fix it."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment."""

    token: str = field(repr=False)
    """``DISCORD_TOKEN``: never printed (``repr`` hides it)."""
    database: str = field(default="tholos.db", repr=False)
    """``THOLOS_DB``: a SQLite file's path, or a ``postgresql://`` URL (hidden from ``repr``:
    it may hold a password)."""
    guild_id: int | None = None
    """``THOLOS_GUILD_ID``: register the slash commands on this server only (instantly)."""
    log_level: str = "INFO"
    """``LOG_LEVEL``."""
    api_base: str | None = None
    """``DISCORD_API_BASE``: another Discord API base, for tests and HTTP proxies."""
    challenge_timeout: float = CHALLENGE_TIMEOUT
    """``THOLOS_CHALLENGE_TIMEOUT``: seconds before a challenge expires."""
    inactivity_timeout: float = INACTIVITY_TIMEOUT
    """``THOLOS_INACTIVITY_TIMEOUT``: seconds without a move before the opponent may claim."""
    reminder_after: float | None = None
    """``THOLOS_REMINDER_AFTER``: seconds without a move before the player to move is reminded
    (0: never); unset (``None``): half the idle-claim time in force on the server."""
    threads: bool = True
    """``THOLOS_THREADS``: play each game in a thread of its own (``on``, the default) or in the
    channel (``off``)."""
    puzzles_from_games: bool = True
    """``THOLOS_PUZZLES_FROM_GAMES``: search each finished game for a puzzle (``on``, the
    default; a worker process at low priority) or not (``off``)."""
    default_pace: str = CORRESPONDENCE
    """``THOLOS_DEFAULT_PACE``: ``correspondence`` (the default) or a clock such as ``5+5``."""
    clocks: tuple[str, ...] = CLOCKS
    """``THOLOS_CLOCKS``: the live clocks offered, e.g. ``5+5,10+5`` (``none``: none; default:
    all of :data:`~bot.base.paces.CLOCKS`)."""
    shard_count: int | None = None
    """``THOLOS_SHARD_COUNT``: how many shards the whole bot runs (unset: one process, and
    discord.py connects as usual)."""
    shard_ids: tuple[int, ...] | None = None
    """``THOLOS_SHARD_IDS``: the shards this process runs, e.g. ``0-3`` or ``0,2`` (default:
    all of them)."""

    log_format: str = "text"
    """``THOLOS_LOG_FORMAT``: ``text`` lines, or ``json`` (one object a line)."""
    metrics_port: int | None = None
    """``THOLOS_METRICS_PORT``: serve ``/metrics`` and ``/healthz`` on this port (unset: off; 0:
    a free port the system chooses, named in the log)."""
    metrics_host: str = "127.0.0.1"
    """``THOLOS_METRICS_HOST``: the address the metrics server listens on."""
    web_port: int | None = None
    """``THOLOS_WEB_PORT``: serve the live board (the Discord Activity) on this port (unset:
    off; 0: a free port the system chooses, named in the log)."""
    web_host: str = "127.0.0.1"
    """``THOLOS_WEB_HOST``: the address the live board's server listens on."""
    client_secret: str | None = field(default=None, repr=False)
    """``DISCORD_CLIENT_SECRET``: the application's OAuth2 secret, to exchange the live board's
    authorization codes (needed with ``THOLOS_WEB_PORT``; never printed)."""

    @property
    def sharded(self) -> bool:
        """Whether this process runs a given set of shards (``THOLOS_SHARD_COUNT`` is set)."""
        return self.shard_count is not None

    @property
    def shards(self) -> Shards:
        """The shards this process runs: which servers' events come to it, and whose
        background work (expiries, reposts, the AI, reviews, reminders) is its own."""
        return Shards.of(self.shard_count, self.shard_ids)

    @property
    def registers_commands(self) -> bool:
        """Whether this process registers the slash commands: exactly one process does, the
        one that runs shard 0."""
        return 0 in self.shards.ids

    @classmethod
    def load(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = ENV_FILE
    ) -> Settings:
        """Read the settings; the environment (``environ``, default ``os.environ``) wins over
        ``env_file`` (default ``./.env``; ``None``: no file).

        Raises :class:`SettingsError` naming the setting that is missing or malformed.
        """
        values = _values(environ, env_file)
        token = values.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise SettingsError(
                "DISCORD_TOKEN is not set: put the bot token in .env (see .env.example) "
                "or in the environment"
            )
        log_level = values.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if log_level not in LOG_LEVELS:
            raise SettingsError(
                f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}"
            )
        return cls(
            token=token,
            database=_database(values),
            guild_id=_snowflake(values.get("THOLOS_GUILD_ID", ""), "THOLOS_GUILD_ID"),
            log_level=log_level,
            api_base=values.get("DISCORD_API_BASE", "").strip() or None,
            challenge_timeout=_seconds(values, "THOLOS_CHALLENGE_TIMEOUT", CHALLENGE_TIMEOUT),
            inactivity_timeout=_seconds(values, "THOLOS_INACTIVITY_TIMEOUT", INACTIVITY_TIMEOUT),
            reminder_after=_optional_seconds(values, "THOLOS_REMINDER_AFTER"),
            threads=_switch(values, "THOLOS_THREADS", default=True),
            puzzles_from_games=_switch(values, "THOLOS_PUZZLES_FROM_GAMES", default=True),
            **_paces(values),
            log_format=_log_format(values),
            metrics_port=_port(values, "THOLOS_METRICS_PORT"),
            metrics_host=values.get("THOLOS_METRICS_HOST", "").strip() or "127.0.0.1",
            **_web(values),
            **_shards(values),
        )

    @property
    def logging_level(self) -> int:
        """The ``logging`` module's level number."""
        return logging.getLevelNamesMapping()[self.log_level]


def database_url(environ: Mapping[str, str] | None = None, env_file: Path | None = ENV_FILE) -> str:
    """``THOLOS_DB`` alone (for maintenance commands that need no token)."""
    return _database(_values(environ, env_file))


def _values(environ: Mapping[str, str] | None, env_file: Path | None) -> dict[str, str]:
    values = {} if env_file is None else dict(read_env_file(env_file))
    values.update(os.environ if environ is None else environ)
    return values


def _database(values: Mapping[str, str]) -> str:
    return values.get("THOLOS_DB", "").strip() or "tholos.db"


def read_env_file(path: Path) -> dict[str, str]:
    """Parse a ``.env`` file (``KEY=value`` lines, ``#`` comments, optional quotes, ``export``).

    A missing file is an empty mapping.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.removeprefix("export ").partition("=")
        if not equals:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def _snowflake(text: str, name: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit():
        raise SettingsError(f"{name} must be a numeric Discord id, not {text!r}")
    return int(text)


def _seconds(values: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds, more than 0; ``default`` when unset."""
    seconds = _optional_seconds(values, name, off=False)
    return default if seconds is None else seconds


def _optional_seconds(values: Mapping[str, str], name: str, *, off: bool = True) -> float | None:
    """A number of seconds (``off``: 0 too, which turns the thing off); ``None`` when unset."""
    text = values.get(name, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        raise SettingsError(f"{name} must be a number of seconds, not {text!r}") from None
    allowed = seconds >= 0 if off else seconds > 0
    if not allowed or seconds == math.inf:
        least = "0 (off) or more" if off else "more than 0"
        raise SettingsError(f"{name} must be {least} seconds, not {text!r}")
    return seconds


def _shards(values: Mapping[str, str]) -> dict[str, Any]:
    """``shard_count`` and ``shard_ids`` from ``THOLOS_SHARD_COUNT`` and ``THOLOS_SHARD_IDS``."""
    count_text = values.get("THOLOS_SHARD_COUNT", "").strip()
    ids_text = values.get("THOLOS_SHARD_IDS", "").strip()
    if not count_text:
        if ids_text:
            raise SettingsError("THOLOS_SHARD_IDS needs THOLOS_SHARD_COUNT (the total) as well")
        return {}
    if not count_text.isdigit() or int(count_text) < 1:
        raise SettingsError(f"THOLOS_SHARD_COUNT must be a whole number ≥ 1, not {count_text!r}")
    count = int(count_text)
    if not ids_text:
        return {"shard_count": count}
    ids: set[int] = set()
    for part in ids_text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise SettingsError(
                f"THOLOS_SHARD_IDS must look like 0-3 or 0,2 (shard numbers), not {ids_text!r}"
            )
        ids.update(range(int(first), int(last if dash else first) + 1))
    if not ids or max(ids) >= count:
        raise SettingsError(
            f"THOLOS_SHARD_IDS {ids_text!r} names a shard outside 0-{count - 1} "
            f"(THOLOS_SHARD_COUNT is {count})"
        )
    return {"shard_count": count, "shard_ids": tuple(sorted(ids))}


def _switch(values: Mapping[str, str], name: str, *, default: bool) -> bool:
    text = values.get(name, "").strip().lower()
    if not text:
        return default
    if text in ("on", "1", "true", "yes"):
        return True
    if text in ("off", "0", "false", "no"):
        return False
    raise SettingsError(f"{name} must be on or off, not {text!r}")


def _paces(values: Mapping[str, str]) -> dict[str, Any]:
    """The clocks offered and the default pace (which must be offered)."""
    text = values.get("THOLOS_CLOCKS", "").strip()
    try:
        clocks = offered_clocks(text) if text else CLOCKS
    except ValueError as error:
        raise SettingsError(
            f"THOLOS_CLOCKS lists clocks the bot doesn't have ({error}): choose among "
            f"{', '.join(CLOCKS)}, comma-separated, or none"
        ) from None
    pace = values.get("THOLOS_DEFAULT_PACE", "").strip() or CORRESPONDENCE
    if not offers(pace, clocks):
        raise SettingsError(
            f"THOLOS_DEFAULT_PACE must be {CORRESPONDENCE} or a clock THOLOS_CLOCKS offers "
            f"({', '.join(clocks) or 'none'}), not {pace!r}"
        )
    return {"default_pace": pace, "clocks": clocks}


def _log_format(values: Mapping[str, str]) -> str:
    text = values.get("THOLOS_LOG_FORMAT", "").strip().lower() or "text"
    if text not in LOG_FORMATS:
        raise SettingsError(f"THOLOS_LOG_FORMAT must be text or json, not {text!r}")
    return text


def _web(values: Mapping[str, str]) -> dict[str, Any]:
    """The live board's settings: its port, address and the client secret it needs."""
    port = _port(values, "THOLOS_WEB_PORT")
    secret = values.get("DISCORD_CLIENT_SECRET", "").strip() or None
    if port is not None and secret is None:
        raise SettingsError(
            "THOLOS_WEB_PORT is set but DISCORD_CLIENT_SECRET is not: the live board needs the "
            "application's client secret (Developer Portal → OAuth2) to know who opens it"
        )
    host = values.get("THOLOS_WEB_HOST", "").strip() or "127.0.0.1"
    return {"web_port": port, "web_host": host, "client_secret": secret}


def _port(values: Mapping[str, str], name: str) -> int | None:
    text = values.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise SettingsError(f"{name} must be a TCP port (1-65535, or 0: any), not {text!r}")
    return int(text)
