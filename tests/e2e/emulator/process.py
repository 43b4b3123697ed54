"""A bot run as its own process (``python -m <module>``) against the emulator."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import aiohttp

from .api import PATIENCE, Emulator

REPO_ROOT = Path(__file__).resolve().parents[3]
_PR_SET_PDEATHSIG = 1
WORK_GAUGE = "tholos_work_in_flight"
ORPHAN_PATIENCE = 5.0
"""How long the processes a killed bot started may outlive it."""
POLL_SECONDS = 0.02
"""How often a wait on the bot's own word (its work in flight, its log) asks again."""
_METRICS_LINE = re.compile(r"metrics and health on (http://[^/\s]+/metrics)")
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def shards_of(env: Mapping[str, str]) -> tuple[int, list[int]] | None:
    """``(shard_count, shard_ids)`` a bot runs by THOLOS_SHARD_COUNT and THOLOS_SHARD_IDS
    (``0-3``, ``0,2`` or both, e.g. ``0-1,3``; default: every shard); ``None`` if not sharded."""
    count = env.get("THOLOS_SHARD_COUNT", "").strip()
    if not count:
        return None
    ids: list[int] = []
    for part in env.get("THOLOS_SHARD_IDS", "").replace(" ", "").split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        ids += range(int(low), int(high) + 1) if dash else [int(low)]
    return int(count), sorted(set(ids)) if ids else list(range(int(count)))


def process_group(group: int) -> dict[int, str]:
    """The live processes (not zombies) of a process group, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, _, pgid = (entry / "stat").read_text().rpartition(")")[2].split()[:3]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except (OSError, ValueError):  # gone meanwhile
            continue
        if int(pgid) == group and state != "Z":
            found[int(entry.name)] = command
    return found


def _die_with_parent() -> None:
    """In the child, before exec: get SIGKILL when the parent dies, even by SIGKILL (Linux).

    Only a resolved C call runs here, nothing that could wait on a lock held by another thread.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class BotProcess:
    """``python -m module`` with DISCORD_TOKEN, DISCORD_API_BASE, THOLOS_GUILD_ID, THOLOS_DB and
    LOG_LEVEL pointing at ``emulator`` and ``db_path``; stdout and stderr go to ``log_path``.

    ``start()`` can be called again after ``stop()`` or ``kill()``: same database, same log.
    """

    def __init__(
        self,
        module: str,
        emulator: Emulator,
        db_path: Path,
        log_path: Path,
        *,
        env: Mapping[str, str] | None = None,
        guild_commands: bool = True,
    ) -> None:
        self.module = module
        self.emulator = emulator
        self.db_path = db_path
        self.log_path = log_path
        inherited = {
            k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "THOLOS_"))
        }
        self.env = {
            **inherited,
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(REPO_ROOT),  # the tests' own modules (the tiny bot)
            "LOG_LEVEL": os.environ.get("LOG_LEVEL", "INFO"),
            **emulator.env(guild_commands=guild_commands),
            "THOLOS_DB": str(db_path),
            "THOLOS_METRICS_PORT": "0",  # any free port: the log names it, settle() reads it
            # Seconds of CPU per finished game, beside what a test or benchmark measures: on
            # where asked (tests/features/puzzles/test_e2e.py).
            "THOLOS_PUZZLES_FROM_GAMES": "off",
            **(env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._metrics: str | None = None
        self.starts = 0

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def shards(self) -> tuple[int, list[int]] | None:
        """``(shard_count, shard_ids)`` from the environment, ``None`` for an unsharded bot."""
        return shards_of(self.env)

    async def start(
        self, *, wait: bool = True, sync: bool = False, timeout: float = PATIENCE
    ) -> None:
        """Start the process; with ``wait``, return once it identified on the gateway (a sharded
        bot: once a session it started is live for every shard it runs) and, with ``sync``,
        registered its commands. Fails fast, with the log, if it exits first."""
        if self.running:
            raise RuntimeError(f"{self.module} is already running")
        identifies, syncs = self.emulator.gateway.identifies, self.emulator.command_syncs
        self.starts += 1
        self._metrics = None
        self._log = self._log or self.log_path.open("ab")
        self._log.write(f"--- start {self.starts} of python -m {self.module}\n".encode())
        self._log.flush()
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module],
            cwd=self.log_path.parent,  # not the checkout: its .env is no test's business
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        if not wait:
            return

        gateway, shards = self.emulator.gateway, self.shards

        def connected() -> bool:
            if shards is None:
                return gateway.identifies > identifies and bool(gateway.live)
            count, ids = shards
            new = [s for s in gateway.sessions.values() if s.number > identifies and s.live]
            return all(any(s.shard == [i, count] for s in new) for i in ids)

        def ready() -> bool:
            if not self.running:
                return True
            return connected() and (not sync or self.emulator.command_syncs > syncs)

        await self.emulator.wait_for(ready, timeout, f"python -m {self.module} to connect")
        if not self.running:
            raise AssertionError(
                f"python -m {self.module} exited with {self.process.returncode}:\n{self.log()}"
            )

    async def stop(self, timeout: float = PATIENCE, *, settle: bool = True) -> int:
        """SIGTERM, wait for the exit, return the exit code (SIGKILL and fail after ``timeout``).

        With ``settle``, first wait for the bot to finish what it is doing (``settle()``).
        """
        process = self._require()
        if settle:
            await self.settle()
        process.send_signal(signal.SIGTERM)
        code = await self._wait(timeout)
        if code is None:
            self.close()
            raise AssertionError(f"python -m {self.module} ignored SIGTERM for {timeout} s")
        return code

    async def settle(self, timeout: float = PATIENCE) -> None:
        """Wait until the bot is idle: it says it has no work in flight (``work_in_flight()``),
        and the emulator has nothing pending (every interaction answered, none "thinking", no
        REST request in flight) before that answer and after it, with no interaction made in
        between (a timer may start new work at any moment: that is not the test's doing). A
        process that is not running has no work; only the emulator is waited for then.

        A test that keeps making interactions meanwhile (another task clicking) may never let
        the bot be idle: a random player beside it does not settle."""
        emulator = self.emulator
        deadline = time.monotonic() + timeout

        def mark() -> int | None:
            return len(emulator.interactions) if emulator.is_settled() else None

        while True:
            left = max(0.1, deadline - time.monotonic())
            await emulator.wait_for(lambda: mark() is not None, left, "the emulator to settle")
            before = mark()
            busy = await self.work_in_flight() if self.running else 0
            if busy == 0 and before is not None and mark() == before:
                return
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"python -m {self.module} kept working for {timeout} s ({busy} in flight)"
                )
            await asyncio.sleep(POLL_SECONDS)

    async def wait_for_work(self, count: int, timeout: float = PATIENCE) -> None:
        """Wait until the bot says exactly ``count`` pieces of work are in flight (e.g. 1: only
        a press whose request the test holds)."""
        deadline = time.monotonic() + timeout
        while (busy := await self.work_in_flight()) != count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{busy} pieces of work in flight after {timeout} s")
            await asyncio.sleep(POLL_SECONDS)

    async def work_in_flight(self) -> int:
        """What the bot says it is doing: ``tholos_work_in_flight`` on its metrics server
        (``bot/loops/work.py``; the tiny bot serves its own)."""
        url = f"{await self.metrics_url()}?name[]={WORK_GAUGE}"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            assert response.status == 200, f"{url}: {response.status}"
            text = await response.text()
        found = re.search(rf"^{WORK_GAUGE} (\S+)$", text, re.MULTILINE)
        assert found, f"no {WORK_GAUGE} in {url}:\n{text}"
        return int(float(found[1]))

    async def metrics_url(self, timeout: float = PATIENCE) -> str:
        """The ``/metrics`` URL of the running process, from the line its metrics server logs
        when it starts (``THOLOS_METRICS_PORT``, 0 by default: a free port)."""
        deadline = time.monotonic() + timeout
        while self._metrics is None:
            self._require()
            found = _METRICS_LINE.findall(self.log().rpartition(f"--- start {self.starts} ")[2])
            if found:
                self._metrics = found[-1]
            elif time.monotonic() > deadline:
                raise AssertionError(
                    f"python -m {self.module} logged no metrics URL in {timeout} s (LOG_LEVEL "
                    f"must be INFO or lower):\n{self.log()}"
                )
            else:
                await asyncio.sleep(POLL_SECONDS)
        return self._metrics

    async def kill(self) -> int:
        """SIGKILL the bot's process alone, as a host's ``kill -9`` would, and return its exit
        code (-9). Whatever it started (its worker processes, multiprocessing's resource
        tracker) must end by itself: fails, naming them, if any is alive
        :data:`ORPHAN_PATIENCE` seconds later."""
        process = self._require()
        process.kill()
        code = await self._wait(PATIENCE)
        assert code is not None
        deadline = time.monotonic() + ORPHAN_PATIENCE
        while (left := self.left_behind()) and time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS)
        if left:
            described = "\n  ".join(f"{pid}: {command}" for pid, command in left.items())
            self.close()
            raise AssertionError(f"the killed bot left processes behind:\n  {described}")
        return code

    def left_behind(self) -> dict[int, str]:
        """The live processes of the bot's process group (it starts a session of its own):
        everything it started, with their command lines."""
        assert self.process is not None
        return process_group(self.process.pid)

    async def restart(self, *, sync: bool = False) -> int:
        """``stop()`` then ``start()``; returns the exit code of the stop."""
        code = await self.stop()
        await self.start(sync=sync)
        return code

    def close(self) -> None:
        """Kill whatever still runs and close the log (for fixture finalizers; idempotent)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):  # nothing left in the group
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self._log is not None and not self.running:
            self._log.close()
            self._log = None

    def log(self) -> str:
        """Everything the process printed, over all its starts."""
        if self._log is not None:
            self._log.flush()
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def assert_clean_log(self) -> None:
        """No traceback in the output, and neither the bot token nor the client secret in it."""
        text = self.log()
        assert self.emulator.token not in text, "the bot token appears in the bot's output"
        secret = self.emulator.client_secret
        assert secret not in text, "the OAuth2 client secret appears in the bot's output"
        assert "Traceback" not in text, f"the bot printed a traceback:\n{text}"

    def _require(self) -> subprocess.Popen[bytes]:
        if self.process is None or not self.running:
            raise RuntimeError(f"{self.module} is not running")
        return self.process

    async def _wait(self, timeout: float) -> int | None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            if time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.02)
        return self.process.returncode
