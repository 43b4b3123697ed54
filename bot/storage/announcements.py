"""Changes announced to whoever listens.

A write transaction announces a topic and a payload (``"games"`` and a game's id, after that
game's row changed). Listeners hear it once the transaction commits, never before and never for
a transaction rolled back: with SQLite, the listeners of this process (SQLite serves one
process); with PostgreSQL, the listeners of every process connected to the database (``NOTIFY``
inside the transaction, ``LISTEN`` on one connection of each process)."""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

ChangeListener = Callable[[str | None], None]
"""Told each payload announced on its topic; ``None``: announcements may have been missed (the
listening connection was lost and is back), so read again whatever is watched."""

CHANNEL_PREFIX = "tholos_"
"""PostgreSQL channels are named ``tholos_<topic>``."""


class Listeners:
    """This process's listeners, by topic."""

    def __init__(self) -> None:
        self._by_topic: dict[str, list[ChangeListener]] = {}

    def add(self, topic: str, listener: ChangeListener) -> Callable[[], None]:
        """Listen to ``topic``; the function returned stops it."""
        self._by_topic.setdefault(topic, []).append(listener)
        return lambda: self._by_topic[topic].remove(listener)

    @property
    def topics(self) -> list[str]:
        return [topic for topic, listeners in self._by_topic.items() if listeners]

    def tell(self, topic: str, payload: str | None) -> None:
        """Tell every listener of ``topic`` (one that raises is logged; the others are told)."""
        for listener in list(self._by_topic.get(topic, ())):
            try:
                listener(payload)
            except Exception:
                log.exception("a listener of %r failed", topic)

    def tell_all_missed(self) -> None:
        """Tell every listener that announcements may have been missed."""
        for topic in self.topics:
            self.tell(topic, None)
