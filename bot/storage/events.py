"""What the backends report as it happens, to whoever observes them (the metrics count them):
the storage layer reports, and knows nothing of who observes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from bot.storage.db import Dialect

Event = Literal["failed", "retried"]
"""An operation ``failed`` (the database busy with another writer for too long, or
unavailable), or a write found the database busy and ``retried``."""
Observer = Callable[[Event, Dialect], None]

_observers: list[Observer] = []


def observe(observer: Observer) -> Callable[[], None]:
    """Call ``observer`` with every event of every backend; return what stops it."""
    _observers.append(observer)
    return lambda: _observers.remove(observer)


def report(event: Event, dialect: Dialect) -> None:
    """Tell the observers that ``event`` happened on a ``dialect`` database."""
    for observer in _observers:
        observer(event, dialect)
