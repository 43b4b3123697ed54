"""The live board's log lines about what strangers make happen — requests aiohttp cannot read,
connections gone mid-answer, accepts refused for want of file descriptors —: for the operator,
one line a minute saying how many, never a traceback each (a flood makes thousands a second)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from aiohttp.http_exceptions import HttpProcessingError

log = logging.getLogger(__name__)

QUIET_EVERY = 60.0
"""Seconds between two log lines about a stranger's doing (requests aiohttp cannot read, accepts
refused for want of file descriptors): one line a minute says how many, not one line each."""
ACCEPT_REFUSED = "socket.accept() out of system resource"
"""How asyncio's selector loop names an accept that failed for want of descriptors or memory
(it stops accepting for a second, then tries again)."""
REQUEST_LOG = logging.getLogger("bot.web.requests")
"""aiohttp's word about the requests it reads for this server (given to it as its logger)."""


def refused_accepts() -> Quiet:
    """The line a minute about the connections not accepted for want of file descriptors."""
    return Quiet(log, "live board: out of file descriptors, %d connections not accepted")


def quiet_accepts(port: int, accepts: Quiet) -> Callable[[], None]:
    """Make asyncio's word on an accept of the server on ``port`` that failed for want of file
    descriptors one warning a minute (``accepts``; asyncio logs a traceback for each, thousands a
    second while a flood lasts); the server accepts again by itself as soon as descriptors free
    up. Every other exception goes to the handler there was. Returns what puts it back."""
    loop = asyncio.get_running_loop()
    before = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == ACCEPT_REFUSED and _port_of(context) == port:
            accepts.note()
        elif before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)

    def put_back() -> None:
        if loop.get_exception_handler() is handler:
            loop.set_exception_handler(before)

    return put_back


def _port_of(context: dict[str, Any]) -> int | None:
    """The port of the listening socket an event loop's exception ``context`` names."""
    try:
        return int(context["socket"].getsockname()[1])
    except (KeyError, AttributeError, IndexError, TypeError, ValueError, OSError):
        return None


class Quiet:
    """One log line a minute (:data:`QUIET_EVERY`) about something a stranger can make happen
    thousands of times a second, saying how many times it did."""

    def __init__(
        self,
        logger: logging.Logger,
        message: str,
        level: int = logging.WARNING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.message = message
        self.level = level
        self.clock = clock
        self.count = 0
        """Times noted since the last line."""
        self._last: float | None = None

    def note(self, *args: object) -> None:
        """It happened once more: a line if none was written within the minute."""
        self.count += 1
        now = self.clock()
        if self._last is None or now - self._last >= QUIET_EVERY:
            self.logger.log(self.level, self.message, self.count, *args)
            self.count, self._last = 0, now


class StrangersRequests(logging.Filter):
    """aiohttp's word on a request it could not read — a raw byte in its path, a header over
    8 KiB — or could not answer because its client went (a reset connection) is an ERROR with
    a traceback; it is a stranger's doing, not an error of ours: it becomes a quiet line a
    minute (:class:`Quiet`). Errors of our handlers stay as they are."""

    def __init__(self) -> None:
        super().__init__()
        self.quiet = Quiet(
            log,
            "live board: %d requests that could not be read or answered (the last: %s)",
            logging.INFO,
        )

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            said = str(error.message).splitlines()[0] if error.message else ""
        elif isinstance(error, ConnectionError):
            said = "the client went"
        else:
            return True
        self.quiet.note(f"{type(error).__name__}: {said}"[:200])
        return False


REQUEST_LOG.addFilter(StrangersRequests())
