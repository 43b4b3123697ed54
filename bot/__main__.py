"""Start the bot: ``python -m bot`` (or ``tholos-bot``). Exit status 2 on a settings problem.

``python -m bot rebuild-ratings`` recomputes every rating from the stored games instead.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sqlite3
import sys

import discord

from .client import TholosBot
from .discord_api import use_api_base
from .settings import Settings, SettingsError, database_path
from .storage import Database, DatabaseTooNewError, RatingStore

log = logging.getLogger("bot")


async def _run(bot: TholosBot, token: str) -> None:
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: closing.append(loop.create_task(bot.close())))
    async with bot:
        await bot.start(token)
    await asyncio.gather(*closing)


async def _rebuild_ratings() -> int:
    database = await Database.open(database_path())
    try:
        return await RatingStore(database).rebuild()
    finally:
        await database.close()


def main() -> int:
    """Read the settings, start the bot, run until SIGTERM/SIGINT; return the exit status."""
    arguments = sys.argv[1:]
    if arguments == ["rebuild-ratings"]:
        try:
            games = asyncio.run(_rebuild_ratings())
        except (DatabaseTooNewError, sqlite3.Error) as error:
            print(f"tholos-bot: {error}", file=sys.stderr)
            return 2
        print(f"Rebuilt the ratings from {games} rated games in {database_path()}.")
        return 0
    if arguments:
        print("usage: tholos-bot [rebuild-ratings]", file=sys.stderr)
        return 2
    try:
        settings = Settings.load()
    except SettingsError as error:
        print(f"tholos-bot: {error}", file=sys.stderr)
        return 2
    discord.utils.setup_logging(
        level=settings.logging_level,
        formatter=logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s"),
        root=True,
    )
    try:
        if settings.api_base:
            use_api_base(settings.api_base)
        asyncio.run(_run(TholosBot(settings), settings.token))
    except discord.LoginFailure:
        print(
            "tholos-bot: Discord rejected DISCORD_TOKEN — copy the bot token again from the "
            "Developer Portal (Bot → Reset Token) into .env",
            file=sys.stderr,
        )
        return 2
    except (ValueError, OSError, DatabaseTooNewError, sqlite3.Error) as error:
        print(f"tholos-bot: {error}", file=sys.stderr)
        return 2
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
