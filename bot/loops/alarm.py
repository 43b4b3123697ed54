"""An alarm clock for a background loop: a change that stores something due rings it with the
due time, and the loop sleeps on it, so that what falls due sooner than the loop's sleep is
still done on time (the reminders' loop, and the clocks' loop for a live clock running out)."""

from __future__ import annotations

import math

from bot.loops.work import Wakeup


class Alarm:
    """Wakes a sleeper when something is due before it would wake by itself."""

    def __init__(self) -> None:
        self.rung = Wakeup()
        """Set when a due time earlier than the sleeper's wake-up time was rung."""
        self._wake_at = -math.inf
        """When the sleeper wakes by itself (``-inf`` while it is awake: any ring counts, so
        the next sleep ends at once and nothing rung meanwhile is missed)."""

    def ring(self, due_at: float) -> None:
        """Something is due at ``due_at``: wake the sleeper if it would sleep past it."""
        if due_at < self._wake_at or self._wake_at == -math.inf:
            self.rung.set()

    def sleeping_until(self, wake_at: float) -> None:
        """The sleeper sleeps until ``wake_at`` (unless rung)."""
        self._wake_at = wake_at

    def awake(self) -> None:
        """The sleeper woke: clear the ring; every ring counts until it sleeps again."""
        self._wake_at = -math.inf
        self.rung.clear()
