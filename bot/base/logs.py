"""Logging: text lines or JSON lines (``THOLOS_LOG_FORMAT``), with the game and interaction a
line is about, and never a secret.

The ``answers`` decorator sets :data:`INTERACTION_ID` for the interaction it handles, and the
play and AI paths set :data:`GAME_ID`; :class:`Context` copies them onto every record (as
``interaction_id`` and ``game_id``), and :class:`Secrets` masks the token and the database
password wherever they would appear in a message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from contextvars import ContextVar
from datetime import UTC, datetime

INTERACTION_ID: ContextVar[int | None] = ContextVar("interaction_id", default=None)
"""The interaction being answered in this task."""
GAME_ID: ContextVar[int | None] = ContextVar("game_id", default=None)
"""The game a turn is being played, stored or posted in, in this task."""
MASK = "***"
TEXT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"


class Context(logging.Filter):
    """Copy the task's game and interaction ids onto each record (unless it has its own)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, variable in (("interaction_id", INTERACTION_ID), ("game_id", GAME_ID)):
            if getattr(record, name, None) is None:
                setattr(record, name, variable.get())
        return True


class Secrets(logging.Filter):
    """Mask each of ``secrets`` (the token, the database password) in a record's message and
    traceback: formatted once here, so no handler can print them."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        masked, text = self.mask(message), self.mask(record.exc_text)
        if masked != message or text != record.exc_text:
            record.msg, record.args, record.exc_text = masked, None, text
        return True

    def mask(self, text: str | None) -> str | None:
        """``text`` with every secret replaced by ``***``."""
        if text:
            for secret in self.secrets:
                text = text.replace(secret, MASK)
        return text


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the game and
    interaction ids when known, and the traceback of an error."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in ("game_id", "interaction_id"):
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False)


def set_up(level: int, fmt: str, secrets: Iterable[str]) -> None:
    """Log to stderr at ``level`` as ``fmt`` (``text`` or ``json``), secrets masked."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(Context())
    handler.addFilter(Secrets(secrets))
    root = logging.getLogger()
    root.setLevel(level)
    root.addHandler(handler)
