"""The refusal every feature answers with a polite ephemeral message. No I/O."""

from __future__ import annotations


class Refusal(Exception):
    """A request refused for a reason the user should read: ``message`` (English, marked for
    translation, with ``{placeholders}``) and the ``values`` to fill in, translated into the
    reader's language where it is answered."""

    def __init__(self, message: str, /, **values: object) -> None:
        super().__init__(message.format(**values) if values else message)
        self.message = message
        self.values = values
