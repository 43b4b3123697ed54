"""Which servers are one process's: the shards it runs, and Discord's formula that puts a server
on a shard. Defined once, as a test of one server (:meth:`Shards.owns`) and as the SQL condition
the background sweeps select with (:meth:`Shards.sql`), so that a process reads only its own
servers' rows.

>>> shards = Shards(4, (1, 3))
>>> shards.owns(1 << 22), shards.owns(2 << 22), shards.owns(0)
(True, False, False)
>>> shards.sql()
('((guild_id >> 22) % ?) IN (?, ?)', (4, 1, 3))
>>> Shards().sql()
('TRUE', ())
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Shards:
    """The shards ``ids`` (of ``count``) one process runs; by default the only one, so every
    server. A server's shard is ``(guild_id >> 22) % count`` (Discord's formula); direct
    messages (``guild_id`` 0) are shard 0's whatever the count, as Discord sends them there."""

    count: int = 1
    ids: tuple[int, ...] = (0,)

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or not all(0 <= shard < self.count for shard in self.ids):
            raise ValueError(f"shards {self.ids} of {self.count}: need 0 <= id < count")
        if list(self.ids) != sorted(set(self.ids)):
            raise ValueError(f"shard ids {self.ids} must be in order, each once")

    @classmethod
    def of(cls, count: int | None, ids: tuple[int, ...] | None) -> Shards:
        """The shards of ``THOLOS_SHARD_COUNT`` and ``THOLOS_SHARD_IDS``: no count, one process
        for every server; no ids, all of the count's."""
        if count is None:
            return cls()
        return cls(count, tuple(range(count)) if ids is None else ids)

    @property
    def every(self) -> bool:
        """Whether this process runs every shard (every server is its own)."""
        return len(self.ids) == self.count

    def shard_of(self, guild_id: int) -> int:
        """The shard a server's events go to."""
        return (guild_id >> 22) % self.count

    def owns(self, guild_id: int) -> bool:
        """Whether a server (0: direct messages) is this process's."""
        return self.shard_of(guild_id) in self.ids

    def sql(self, column: str = "guild_id") -> tuple[str, tuple[int, ...]]:
        """A condition, with its parameters, that holds for exactly the rows whose server
        (``column``) this process owns: :meth:`owns` in SQL, for SQLite and PostgreSQL alike
        (their ``>>`` and ``%`` agree on the non-negative 64-bit ids). ``TRUE`` when every
        server is its own."""
        if self.every:
            return "TRUE", ()
        marks = ", ".join("?" for _ in self.ids)
        return f"(({column} >> 22) % ?) IN ({marks})", (self.count, *self.ids)


DIRECT_MESSAGES = 0
"""The ``guild_id`` of games played in a direct message with the bot (Discord sends those
events to shard 0, and ``0 >> 22`` is on shard 0 whatever the count)."""


EVERY_SERVER = Shards()
"""One process for every server: no sharding (the stores' default, for tools and tests)."""
