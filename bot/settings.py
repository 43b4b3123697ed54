"""Settings: read once at start from the environment and an optional ``.env`` file."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
CHALLENGE_TIMEOUT = 600.0
INACTIVITY_TIMEOUT = 86400.0


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

    @classmethod
    def load(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = None
    ) -> Settings:
        """Read the settings; the environment wins over ``env_file`` (default ``./.env``).

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
        )

    @property
    def logging_level(self) -> int:
        """The ``logging`` module's level number."""
        return logging.getLevelNamesMapping()[self.log_level]


def database_url(environ: Mapping[str, str] | None = None, env_file: Path | None = None) -> str:
    """``THOLOS_DB`` alone (for maintenance commands that need no token)."""
    return _database(_values(environ, env_file))


def _values(environ: Mapping[str, str] | None, env_file: Path | None) -> dict[str, str]:
    values = dict(read_env_file(env_file or Path(".env")))
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
    text = values.get(name, "").strip()
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        raise SettingsError(f"{name} must be a number of seconds, not {text!r}") from None
    if not seconds > 0:
        raise SettingsError(f"{name} must be more than 0 seconds, not {text!r}")
    return seconds
