"""Server settings chosen by a server's admins (``/tholos-admin settings``); unset ones fall back
to the bot's environment."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Database
from engine.core import Mode

SETTINGS_TOPIC = "settings"
"""Announced with the server's id when its admins change its settings."""


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """What a server's admins chose; ``None`` means "the bot's default"."""

    threads: bool | None = None
    inactivity_timeout: float | None = None
    """Seconds without a move before the opponent may claim the win."""
    challenge_timeout: float | None = None
    """Seconds before an unanswered challenge expires."""
    default_mode: Mode | None = None
    reminder_after: float | None = None
    """Seconds without a move before the player to move is reminded (0: never)."""
    default_pace: str | None = None
    """``correspondence`` or a clock (``"5+5"``)."""
    clocks: str | None = None
    """The clocks offered, comma-separated (``""``: none)."""
    puzzle_channel: int | None = None
    """Where the puzzle of the day is posted (``None``: no puzzle of the day)."""
    pool: bool = False
    """The server's members may queue in the pool (across servers) from its channels."""
    pool_shows_server: bool = False
    """Opponents from other servers see the server's name (else only the member's)."""


class ServerSettingsStore:
    """Server settings in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def get(self, guild_id: int) -> ServerSettings:
        """The server's settings (all ``None`` when its admins chose nothing)."""
        row = await self.database.fetchone(
            "SELECT threads, inactivity_timeout, challenge_timeout, default_mode, "
            "reminder_after, default_pace, clocks, puzzle_channel, pool, pool_shows_server "
            "FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        )
        if row is None:
            return ServerSettings()
        threads = None if row[0] is None else bool(row[0])
        return ServerSettings(threads, *row[1:8], pool=bool(row[8]), pool_shows_server=bool(row[9]))

    async def set(self, guild_id: int, settings: ServerSettings, by: int, now: float) -> None:
        """Store the server's settings, chosen by the admin ``by``."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "INSERT INTO guild_settings (guild_id, threads, inactivity_timeout, "
                "challenge_timeout, default_mode, reminder_after, default_pace, clocks, "
                "puzzle_channel, pool, pool_shows_server, updated_by, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET "
                "threads = excluded.threads, inactivity_timeout = excluded.inactivity_timeout, "
                "challenge_timeout = excluded.challenge_timeout, "
                "default_mode = excluded.default_mode, reminder_after = excluded.reminder_after, "
                "default_pace = excluded.default_pace, clocks = excluded.clocks, "
                "puzzle_channel = excluded.puzzle_channel, pool = excluded.pool, "
                "pool_shows_server = excluded.pool_shows_server, "
                "updated_by = excluded.updated_by, updated_at = excluded.updated_at",
                (
                    guild_id,
                    settings.threads,
                    settings.inactivity_timeout,
                    settings.challenge_timeout,
                    settings.default_mode,
                    settings.reminder_after,
                    settings.default_pace,
                    settings.clocks,
                    settings.puzzle_channel,
                    settings.pool,
                    settings.pool_shows_server,
                    by,
                    now,
                ),
            )
            await transaction.announce(SETTINGS_TOPIC, str(guild_id))
