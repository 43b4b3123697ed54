"""A turn's press → new board in games between members in DMs (the bot not in them) against
games in a server's channels, under the same load; requests to channels the bot is not in.

    .venv/bin/python -m benchmarks.anywhere [--games 10] [--seconds 60] [--seed 1] [--think 0.5]

Starts the Discord emulator (127.0.0.1 only) and ``python -m bot`` with its commands registered
globally (as in production: a user install sees no guild commands). ``--games`` DMs between two
members (the challenger installed the app to their account) and ``--games`` channels of the
server with the bot, each with two players, are played **concurrently** by one bot process for
``--seconds``: challenge, Accept, then the player to move picks a random legal turn and clicks
through its step buttons (``bot_latency``'s players; a game that ends is followed by the next).
Both kinds play the same games (the same seeds), so they put the same load on the bot at the
same moments. In a DM every board is an answer to the press (a follow-up); in a server it is
the same follow-up, as the bot posts there without threads.

Prints press → new board p50/p95/max for each kind and counts the requests the bot made to
channels it is not in (the emulator refuses them, 403/50001, as violations
``permissions.not-in-channel``): that must be 0. Exits with 1 if a check fails (that count, any
emulator violation, failed or refused interactions, wrong boards, games stored at the wrong
place, an unclean bot log or exit code). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sqlite3
import tempfile
import time
from pathlib import Path

from tests.e2e.emulator import BotProcess, Emulator

from .bot_latency import (
    DEFAULT_THINK,
    Check,
    LiveGames,
    ProcessWatch,
    Table,
    add_tables,
    code_under_test,
    latency_row,
    lighten_emulator,
    machine_cpu,
    machine_line,
    own_cpu,
    run_benchmark,
    running,
    stop_cleanly,
    stop_on_signals,
)

CHANNEL_PATH = re.compile(r"/channels/(\d+)")
NOT_IN_CHANNEL = "permissions.not-in-channel"
WIDTH = 50
"""Of the latency table's labels."""


def both_kinds(emu: Emulator, count: int) -> dict[str, list[Table]]:
    """``count`` DMs between two members (who share the server with the bot) and ``count``
    channels of the server, each with two players of its own; must run before the bot starts
    (its GUILD_CREATE lists the channels)."""
    tables = add_tables(emu, 2 * count)
    dms = []
    for table in tables[:count]:
        del emu.guild.channels[table.channel.id]  # only its players are wanted
        dms.append(Table(emu.dm_between(table.white, table.black), table.white, table.black))
    return {"dm": dms, "server": tables[count:]}


def requests_where_the_bot_is_not(emu: Emulator) -> int:
    """REST requests the bot made to a channel it is not in (whatever they were answered)."""
    count = 0
    for request in emu.requests:
        match = CHANNEL_PATH.search(request.path)
        channel = match and emu.world.find_channel(int(match[1]))
        count += bool(channel and not emu.world.bot_in(channel))
    return count


def stored_venues(db_path: Path) -> dict[tuple[int, str], int]:
    """Games stored by channel and venue."""
    with sqlite3.connect(db_path) as db:
        rows = db.execute("SELECT channel_id, venue, COUNT(*) FROM games GROUP BY 1, 2")
        return {(channel, venue): count for channel, venue, count in rows}


def venue_checks(db_path: Path, kinds: dict[str, list[Table]]) -> list[Check]:
    """Every game of a kind stored in its channel with that venue, none elsewhere."""
    stored = stored_venues(db_path)
    found: list[Check] = []
    for venue, tables in kinds.items():
        channels = {t.channel.id for t in tables}
        right = sum(n for (channel, where), n in stored.items() if where == venue)
        wrong = [key for key in stored if (key[0] in channels) != (key[1] == venue)]
        found.append((not wrong, f"games stored with venue {venue!r}: {right}, misplaced {wrong}"))
    return found


async def measure(emu: Emulator, args: argparse.Namespace, workdir: Path) -> bool:
    """Start the bot, play both kinds together for ``--seconds``, report; whether all held."""
    kinds = both_kinds(emu, args.games)
    db_path = workdir / "tholos.db"
    env = {"LOG_LEVEL": "INFO", "THOLOS_THREADS": "off"}
    bot = BotProcess("bot", emu, db_path, workdir / "bot.log", env=env, guild_commands=False)
    problems: list[str] = []
    with running(bot, "anywhere"):
        await bot.start(sync=True)
        assert bot.process is not None
        for table in kinds["dm"]:  # the challenger's install, once the app offers it
            emu.install_for_user(table.white)
        watch = ProcessWatch(bot.process.pid)
        cpu = watch.cpu() + watch.workers_cpu(), own_cpu(), machine_cpu()
        games = {
            kind: LiveGames(emu, tables, args.seed, args.think) for kind, tables in kinds.items()
        }
        began = time.perf_counter()
        for live in games.values():
            live.start()
        await asyncio.sleep(args.seconds)
        await asyncio.gather(*(live.stop() for live in games.values()))
        seconds = time.perf_counter() - began
        await bot.settle()
        bot_cpu = watch.cpu() + watch.workers_cpu() - cpu[0]
        driver_cpu, busy = own_cpu() - cpu[1], machine_cpu() - cpu[2]
        for live in games.values():
            problems += live.problems()
        exit_code = await stop_cleanly(bot, problems)
    print(
        f"Tholos anywhere benchmark: {args.games} DM games and {args.games} server games at "
        f"once, {args.seconds:g} s, --think {args.think:g} s, --seed {args.seed}"
    )
    print(machine_line())
    print(f"code: {code_under_test()}")
    print("emulator: PNGs not decoded on serialising, no schema check of request bodies")
    print(f"\n    {'latency (ms)':<{WIDTH}}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    for kind, live in games.items():
        where = "DM between members" if kind == "dm" else "server channel"
        samples = live.samples
        for label, values in (
            ("last step press → ack", samples.final_ack),
            ("last step press → new board", samples.new_board),
            ("Accept → first board", samples.first_board),
        ):
            print(latency_row(f"{where}: {label}", values, WIDTH))
    turns = sum(len(live.samples.new_board) for live in games.values())
    print(
        f"\n    {turns} turns in {seconds:.0f} s; CPU: bot {bot_cpu:.1f} s "
        f"({100 * bot_cpu / seconds:.0f}% of a core), emulator and players {driver_cpu:.1f} s "
        f"({100 * driver_cpu / seconds:.0f}%), other processes "
        f"{100 * max(0.0, busy - bot_cpu - driver_cpu) / seconds:.0f}%"
    )
    return verdict(emu, kinds, db_path, problems, exit_code)


def verdict(
    emu: Emulator,
    kinds: dict[str, list[Table]],
    db_path: Path,
    problems: list[str],
    exit_code: int | None,
) -> bool:
    """Print the checks; whether every one held."""
    not_in = requests_where_the_bot_is_not(emu)
    refused = [v for v in emu.violations if v.rule == NOT_IN_CHANNEL]
    failed = [ix for ix in emu.interactions if ix.failed or not ix.acknowledged]
    found: list[Check] = [
        (not not_in, f"requests to channels the bot is not in: {not_in}"),
        (not refused, f"violations {NOT_IN_CHANNEL}: {len(refused)}"),
        (not emu.violations, f"emulator violations: {len(emu.violations)}"),
        (
            not failed,
            f"failed or unanswered interactions: {len(failed)} of {len(emu.interactions)}",
        ),
        (not problems, f"refused presses, wrong boards, unclean bot log: {len(problems)}"),
        (exit_code == 0, f"bot exit code on SIGTERM: {exit_code}"),
        *venue_checks(db_path, kinds),
    ]
    found += [(False, f"violation: {v}") for v in emu.violations]
    found += [(False, f"failed: {ix}") for ix in failed]
    found += [(False, f"problem: {problem}") for problem in problems]
    print("\nChecks")
    for ok, text in found:
        print(f"  [{'INFO' if ok is None else 'PASS' if ok else 'FAIL'}] {text}")
    return all(ok is not False for ok, _ in found)


async def main_async(args: argparse.Namespace) -> bool:
    stop_on_signals()
    lighten_emulator()
    with tempfile.TemporaryDirectory(prefix="tholos-anywhere-") as tmp:
        async with Emulator() as emu:
            return await measure(emu, args, Path(tmp))


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.anywhere",
        description="Press → new board in DM games between members against server games.",
    )
    add = parser.add_argument
    add("--games", type=int, default=10, help="games of each kind, all at once (10)")
    add("--seconds", type=float, default=60.0, help="how long they are played (60)")
    add("--seed", type=int, default=1, help="seed of the players' choices and pauses (1)")
    add(
        "--think",
        type=float,
        default=DEFAULT_THINK,
        help=f"mean pause before each press, seconds ({DEFAULT_THINK:g}; 0: saturation)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.seconds <= 0 or args.think < 0:
        parser.error("need --games ≥ 1, --seconds > 0, --think ≥ 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Exit status 0 when every check holds, 1 otherwise, 130 when interrupted."""
    return run_benchmark(main_async, arguments(argv))


if __name__ == "__main__":
    raise SystemExit(main())
