"""``/tholos puzzle`` press→board beside a turn's, with the real bot through the emulator.

    .venv/bin/python -m benchmarks.puzzle_latency [--games 10] [--solvers 10] [--rounds 6]
                                                  [--turns 30] [--seed S] [--think SEC]

One bot process (SQLite), ``--games`` games played at once as ``benchmarks.bot_latency`` plays
them (random turns clicked step by step), and meanwhile ``--solvers`` members who each, for
``--rounds`` rounds: run ``/tholos puzzle`` (or press Next), click a random legal answer's steps
and read the verdict. Prints press→board of a puzzle (the command or Next until its private
board is posted, by the message's own timestamp) next to a turn's press→new-board, and the
acknowledgement of a puzzle's steps and of its answer judged; exits with 1 if a puzzle's
press→board p95 is above the turn's by more than :data:`SLACK_MS`, or a check fails (emulator
violations, failed interactions, a puzzle whose served answer is not the only best turn, an
unclean bot log or exit code). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from engine import Position
from engine.builder import chosen_path
from engine.presses import presses
from engine.puzzles import puzzle_in
from tests.e2e.emulator import BotProcess, Channel, Emulator, Member, Message
from tests.e2e.emulator.model import User, snowflake

from .bot_latency import (
    UPDATE_MESSAGE,
    WAIT_TIMEOUT,
    BenchmarkError,
    Player,
    Samples,
    add_tables,
    expect,
    latency_row,
    lighten_emulator,
    percentile,
    run_benchmark,
    stop_cleanly,
)

SLACK_MS = 50.0
"""How much slower than a turn's a puzzle's press→board p95 may be."""
FOOTER_ID = 5


class Solver:
    """A member solving puzzles in a channel of their own."""

    def __init__(self, emu: Emulator, member: Member, channel: Channel, seed: int, think: float):
        self.emu, self.member, self.channel, self.think = emu, member, channel, think
        self.rng = random.Random(seed)
        self.boards: list[float] = []
        self.steps: list[float] = []
        self.verdicts: list[float] = []
        self.served: list[Position] = []
        """The positions served, each proven again after the run (the search would block the
        emulator, which shares this process's loop)."""
        self.problem: str | None = None

    async def solve(self, rounds: int) -> None:
        try:
            board = await self._board(
                lambda: self.emu.slash(
                    self.member, "tholos puzzle", channel=self.channel, wait=False
                )
            )
            for number in range(rounds):
                board = await self._answer(board, last=number == rounds - 1)
        except (BenchmarkError, AssertionError, ValueError) as error:
            self.problem = f"{self.member.user.username}: {error}"

    async def _board(self, press: Callable[[], Awaitable[object]]) -> Message:
        """Press; wait for the puzzle's private board; record press→board."""
        seen = len(self._puzzles())
        pressed = time.time()
        await press()
        await self.emu.wait_for(lambda: len(self._puzzles()) > seen, WAIT_TIMEOUT, "a puzzle")
        message = self._puzzles()[-1]
        created = datetime.datetime.fromisoformat(message.timestamp).timestamp()
        self.boards.append(created - pressed)
        return message

    def _puzzles(self) -> list[Message]:
        return [
            m for m in self.emu.messages(self.channel, self.member) if m.ephemeral and m.attachments
        ]

    async def _answer(self, board: Message, *, last: bool) -> Message:
        footer = next(c["content"] for c in board.all_components() if c.get("id") == FOOTER_ID)
        position = Position.parse(footer.rpartition(" · ")[2])
        self.served.append(position)
        turn = self.rng.choice(position.legal_turns())
        made = presses(position, chosen_path(position, turn))
        prefix = next(
            b["custom_id"] for b in board.buttons if b["custom_id"].startswith("tholos:pz:")
        ).split(":")[2]
        for number, press in enumerate(made, start=1):
            await self._pause()
            custom_id = f"tholos:pz:{prefix}:{''.join(press)}:n"
            ix = await self.emu.click(self.member, board, custom_id)
            expect(ix, UPDATE_MESSAGE)
            (self.verdicts if number == len(made) else self.steps).append(ix.latency or 0.0)
        if last:
            return board
        await self._pause()
        following = next(b["custom_id"] for b in board.buttons if b.get("label") == "Next puzzle")
        return await self._board(lambda: self.emu.click(self.member, board, following, wait=False))

    async def _pause(self) -> None:
        if self.think > 0:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)


def add_solvers(emu: Emulator, count: int) -> list[tuple[Member, Channel]]:
    """A channel and a member for each solver (before the bot starts)."""
    guild, added = emu.guild, []
    for number in range(1, count + 1):
        channel = Channel(
            id=snowflake(),
            name=f"puzzles-{number:02d}",
            guild_id=guild.id,
            position=len(guild.channels),
        )
        guild.channels[channel.id] = channel
        name = f"solver-{number:02d}"
        member = Member(User(id=snowflake(), username=name, global_name=name.title()))
        guild.members[member.id] = member
        emu.world.people[name] = member
        added.append((member, channel))
    return added


async def main_async(args: argparse.Namespace) -> bool:
    lighten_emulator()
    with tempfile.TemporaryDirectory(prefix="tholos-puzzles-") as tmp:
        async with Emulator() as emu:
            tables = add_tables(emu, args.games)
            solvers = [
                Solver(emu, member, channel, args.seed * 100 + number, args.think)
                for number, (member, channel) in enumerate(add_solvers(emu, args.solvers))
            ]
            db = Path(tmp) / "bot.db"
            bot = BotProcess(
                "bot",
                emu,
                db,
                Path(tmp) / "bot.log",
                env={"THOLOS_DB": str(db), "THOLOS_THREADS": "off"},
            )
            samples, problems = Samples(), []
            await bot.start(sync=True)
            try:
                await bot.settle(0.3)
                players = [
                    Player(emu, table, args.seed * 1000 + n, args.think, samples)
                    for n, table in enumerate(tables)
                ]
                await asyncio.gather(*(p.start() for p in players))
                await asyncio.gather(
                    *(p.play(args.turns) for p in players), *(s.solve(args.rounds) for s in solvers)
                )
                problems += [p.problem for p in (*players, *solvers) if p.problem]
            finally:
                code = await stop_cleanly(bot, problems)
            return report(samples, solvers, emu, problems, code, args)


def report(
    samples: Samples,
    solvers: list[Solver],
    emu: Emulator,
    problems: list[str],
    code: int | None,
    args: argparse.Namespace,
) -> bool:
    boards = [value for s in solvers for value in s.boards]
    steps = [value for s in solvers for value in s.steps]
    verdicts = [value for s in solvers for value in s.verdicts]
    print(
        f"{args.games} games and {args.solvers} members solving puzzles at once "
        f"(think {args.think} s, seed {args.seed})"
    )
    print(latency_row("turn: last step press → new board", samples.new_board))
    print(latency_row("puzzle: command or Next → its board", boards))
    print(latency_row("puzzle: step press → acknowledged", steps))
    print(latency_row("puzzle: answer press → verdict", verdicts))
    served = [position for s in solvers for position in s.served]
    unproven = [str(position) for position in served if puzzle_in(position, "served") is None]
    turn_p95 = percentile(samples.new_board, 95) * 1000
    puzzle_p95 = percentile(boards, 95) * 1000
    checks = [
        (
            puzzle_p95 <= turn_p95 + SLACK_MS,
            f"puzzle press→board p95 {puzzle_p95:.0f} ms ≤ turn's {turn_p95:.0f} ms "
            f"+ {SLACK_MS:.0f}",
        ),
        (
            not unproven and len(served) == len(boards),
            f"every puzzle served ({len(served)}) proven again: not {unproven[:3]}",
        ),
        (not emu.violations, f"emulator violations: {len(emu.violations)}"),
        (not problems, f"problems: {problems[:3]}"),
        (code == 0, f"bot exit code {code}"),
    ]
    for ok, text in checks:
        print(("✓ " if ok else "✗ ") + text)
    return all(ok for ok, _ in checks)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--solvers", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--think", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=random.randrange(2**31))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run_benchmark(main_async, arguments(argv))


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
