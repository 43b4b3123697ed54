"""Turn reminders under load: ``--idle`` idle games' reminders (1,000) fall due at once while
``--games`` live games (20) are played; do the presses of the live games slow down while the
bot finds and sends the reminders?

    .venv/bin/python -m benchmarks.reminders                 # 1,000 idle games, 20 live ones
    .venv/bin/python -m benchmarks.reminders --idle 200 --games 5

The database is pre-filled (as ``bot_latency`` does) with a few finished games and, each in a
channel of its own, ``--idle`` active games whose player to move has not moved for an hour and
whose reminder falls due ``--due-after`` seconds after the bot starts. The live games' players
(``bot_latency``'s players: random legal turns, ``--think`` seconds between presses) play from
the start until every reminder is sent and ``--after`` seconds more. The report compares "last
step press → new board" of the presses made before the reminders fell due with those made
while they were being sent (from the first reminder posted to the last); target: p95 during the
sweep ≤ 1.2× p95 before it. Checks: every idle game reminded exactly once, pinging its player
to move alone, no emulator violation, a clean bot log.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
import tempfile
import time
from pathlib import Path

from bot.storage import open_database
from engine.newgame import new_game
from tests.e2e.emulator import BotProcess, Channel, Emulator, Message
from tests.e2e.emulator.model import snowflake

from .bot_latency import (
    LiveGames,
    Table,
    add_tables,
    latency_row,
    lighten_emulator,
    percentile,
    prefill,
    verdict,
)

TARGET_RATIO = 1.2


def add_idle_channels(emu: Emulator, count: int) -> list[Channel]:
    """``count`` text channels, one for each idle game (before the bot starts: its GUILD_CREATE
    lists them)."""
    guild = emu.guild
    channels = []
    for number in range(count):
        channel = Channel(
            id=snowflake(),
            name=f"idle-{number:04d}",
            guild_id=guild.id,
            position=len(guild.channels),
        )
        guild.channels[channel.id] = channel
        channels.append(channel)
    return channels


async def add_idle_games(
    url: str, channels: list[Channel], tables: list[Table], due_at: float
) -> None:
    """An active game in each channel, White to move for an hour, its board posted, its
    reminder due at ``due_at``."""
    start = new_game()
    idle_since = time.time() - 3600.0
    rows = []
    for number, channel in enumerate(channels):
        table = tables[number % len(tables)]
        rows.append(
            (
                channel.guild_id,
                channel.id,
                table.white.id,
                table.black.id,
                table.white.user.global_name,
                table.black.user.global_name,
                "basic",
                number,
                str(start),
                str(start),
                snowflake(),
                idle_since,
                idle_since,
                idle_since,
                due_at + number * 0.001,
            )
        )
    database = await open_database(url)
    try:
        async with database.transaction() as connection:
            await connection.executemany(
                "INSERT INTO games (guild_id, channel_id, white_id, black_id, white_name, "
                "black_name, mode, seed, start_position, position, board_message_id, "
                "board_version, created_at, updated_at, last_move_at, reminder_due_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
                rows,
            )
    finally:
        await database.close()


def reminders_in(emu: Emulator, channels: list[Channel]) -> list[Message]:
    """The reminders posted in the idle games' channels (one pass over the emulator's messages:
    asking per channel would cost the emulator, and so the players, as much as the bot's work)."""
    idle = {channel.id for channel in channels}
    return [
        m
        for m in list(emu.state.messages.values())
        if m.channel_id in idle and not m.deleted and m.content.startswith("⏰")
    ]


def posted_at(message: Message) -> float:
    return datetime.datetime.fromisoformat(message.timestamp).timestamp()


async def run(args: argparse.Namespace) -> bool:
    lighten_emulator()
    async with Emulator() as emu:
        tables = add_tables(emu, args.games)
        idle = add_idle_channels(emu, args.idle)
        with tempfile.TemporaryDirectory(prefix="tholos-reminders-") as tmp:
            db_path = Path(tmp) / "reminders.db"
            await prefill(str(db_path), 10, tables, args.seed)
            due_at = time.time() + args.due_after
            await add_idle_games(str(db_path), idle, tables, due_at)
            bot = BotProcess(
                "bot",
                emu,
                db_path,
                Path(tmp) / "bot.log",
                env={"THOLOS_THREADS": "off", "THOLOS_REMINDER_AFTER": "3600"},
            )
            await bot.start(sync=True)
            live = LiveGames(emu, tables, args.seed, args.think)
            live.start()
            began = time.perf_counter()
            deadline = time.monotonic() + args.due_after + 600
            while len(reminders_in(emu, idle)) < args.idle:  # looked at twice a second, not
                if time.monotonic() > deadline:  # at every event: the players' CPU is the
                    raise SystemExit("the reminders were not all sent in 10 minutes")  # bot's
                await asyncio.sleep(0.5)
            swept = time.perf_counter() - began
            await asyncio.sleep(args.after)  # the load goes on a while after the sweep
            await live.stop()
            await bot.settle(0.3)
            sent = reminders_in(emu, idle)
            exit_code = await bot.stop()
            log_clean = True
            try:
                bot.assert_clean_log()
            except AssertionError:
                log_clean = False
    first, last = min(map(posted_at, sent)), max(map(posted_at, sent))
    pressed = list(zip(live.samples.new_board_at, live.samples.new_board, strict=True))
    before = [latency for at, latency in pressed if at < due_at]
    during = [latency for at, latency in pressed if first <= at <= last]
    once = sorted(m.channel_id for m in sent) == sorted(c.id for c in idle)
    pinged = all(len(m.pinged) == 1 and m.content.startswith(f"⏰ <@{m.pinged[0]}>") for m in sent)
    print(
        f"Tholos reminders benchmark: {args.idle} idle games' reminders due at once, "
        f"{args.games} live games, --think {args.think:g} s"
    )
    print(
        f"    reminders sent: {len(sent)} in {last - first:.1f} s (first one "
        f"{first - due_at:+.2f} s from the due time; all found {swept:.1f} s after start)"
    )
    print(f"    {'last step press → new board (ms)':<40}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    print(latency_row("before the reminders fell due", before))
    print(latency_row("while they were being sent", during))
    problems = live.problems()
    checks = [
        (once, "every idle game reminded exactly once"),
        (pinged, "each reminder pings its player to move alone"),
        (not emu.violations, f"no emulator violation ({len(emu.violations)})"),
        (not problems, f"the players had no problem {problems[:2]}"),
        (exit_code == 0 and log_clean, "the bot stopped with 0 and a clean log"),
        (len(during) >= 10, f"enough presses during the sweep to judge ({len(during)})"),
    ]
    if before and len(during) >= 10:
        ratio = percentile(during, 95) / percentile(before, 95)
        checks.append(
            (ratio <= TARGET_RATIO, f"p95 during the sweep {ratio:.2f}× before (≤ {TARGET_RATIO}×)")
        )
    return verdict(checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reminders", description=__doc__)
    parser.add_argument("--idle", type=int, default=1000, help="idle games (1000)")
    parser.add_argument("--games", type=int, default=20, help="live games (20)")
    parser.add_argument("--think", type=float, default=0.5, help="mean pause per press (0.5 s)")
    parser.add_argument(
        "--due-after",
        type=float,
        default=40.0,
        help="seconds after the start when the reminders fall due (40)",
    )
    parser.add_argument(
        "--after", type=float, default=5.0, help="seconds of play after the last reminder (5)"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    return 0 if asyncio.run(run(args)) else 1


if __name__ == "__main__":
    sys.exit(main())
