"""Where the bot's CPU goes: py-spy samples of the bot process, sorted into what they are doing.

Used by ``bot_latency --breakdown``: py-spy (``pip install py-spy``; it reads the process from
outside, without pausing it: ``--nonblocking``) samples every thread of the bot; samples of
threads that wait (the loop in ``select``, idle worker threads) are left out, so the rest
adds up to the CPU the bot used (compare with the CPU the benchmark measures itself).
"""

from __future__ import annotations

import asyncio
import collections
import shutil
import signal
import subprocess
import sys
from pathlib import Path

RATE = 100
"""Samples a second."""
IDLE = frozenset(
    {
        "_worker",
        "EpollSelector.select",
        "select",
        "Condition.wait",
        "Event.wait",
        "wait",
        "Runner.run",
    }
)
"""Innermost frames of a thread that waits for work (``Runner.run``: uvloop's loop, which waits
in native code)."""
KINDS = (
    ("render: PNG encode", ("encode (rendering/board.py",)),
    ("render: draw", ("rendering/",)),
    ("database", ("bot/storage/", "sqlite3", "asyncpg")),
    ("discord.py: gateway events", ("discord/gateway.py", "discord/state.py")),
    ("discord.py: HTTP requests", ("discord/http.py", "discord/webhook/")),
    ("discord.py: components and the rest", ("discord/",)),
    ("aiohttp", ("aiohttp/",)),
    ("worker processes: tasks and results", ("concurrent/futures/", "multiprocessing/")),
    ("the bot's own code", ("bot/",)),
)
"""The first kind whose markers appear in a sample's stack is the sample's kind (else "asyncio
and the rest")."""


def kind_of(stack: str) -> str:
    for kind, markers in KINDS:
        if any(marker in stack for marker in markers):
            return kind
    return "asyncio and the rest"


def breakdown(raw: str) -> collections.Counter[str]:
    """Busy samples by kind, from py-spy's ``--format raw`` output."""
    kinds: collections.Counter[str] = collections.Counter()
    for line in raw.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        frames = stack.split(";")
        if not count.isdigit() or frames[-1].split(" (")[0] in IDLE:
            continue
        kinds[kind_of(stack)] += int(count)
    return kinds


class Sampler:
    """py-spy recording one process until stopped."""

    def __init__(self, pid: int, output: Path) -> None:
        self.pid, self.output = pid, output
        self._process: subprocess.Popen[bytes] | None = None

    @staticmethod
    def executable() -> str | None:
        """py-spy beside this Python (the virtual environment's), or on the ``PATH``."""
        beside = Path(sys.executable).with_name("py-spy")
        return str(beside) if beside.exists() else shutil.which("py-spy")

    @classmethod
    def available(cls) -> bool:
        return cls.executable() is not None

    def start(self) -> None:
        executable = self.executable()
        assert executable is not None
        self._process = subprocess.Popen(
            [
                executable,
                "record",
                "--pid",
                str(self.pid),
                "--rate",
                str(RATE),
                "--nonblocking",
                "--format",
                "raw",
                "--output",
                str(self.output),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    async def stop(self) -> collections.Counter[str]:
        """Stop sampling; the busy samples by kind."""
        assert self._process is not None
        self._process.send_signal(signal.SIGINT)
        await asyncio.to_thread(self._process.wait, 30)
        return breakdown(self.output.read_text() if self.output.exists() else "")


def report(kinds: collections.Counter[str], turns: int, cpu_seconds: float) -> list[str]:
    """Lines of the breakdown: the bot's measured CPU (``cpu_seconds``) a turn shared out by
    the kinds' shares of the samples. A thread waiting for the GIL looks busy to py-spy, so the
    samples add up to more than the CPU used: their shares are what they tell."""
    total = sum(kinds.values())
    if not total or not turns:
        return ["    CPU breakdown: no samples"]
    per_turn = 1000 * cpu_seconds / turns
    lines = [
        f"    CPU breakdown (py-spy, {total} busy samples at {RATE} Hz, "
        f"{1000 * total / RATE / turns:.1f} ms a turn; shares of the {per_turn:.1f} ms "
        "measured):"
    ]
    for kind, count in kinds.most_common():
        lines.append(
            f"      {kind:<40}{per_turn * count / total:6.2f} ms a turn {100 * count / total:5.1f}%"
        )
    return lines
