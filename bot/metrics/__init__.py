"""The process's counters (no Discord; served by :mod:`bot.face.health`)."""
