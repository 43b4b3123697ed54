"""The live board's own sessions: who a page's member is and where the page is open, as Discord
told the server when the page was opened, signed so that the page cannot change a word of it.

A session is a token the page keeps and sends when it connects: a version, the fields in JSON
and an HMAC-SHA256 of both, under a key kept in the database (every process of the bot shares it,
and it survives restarts, so a page reconnects without asking Discord again until the session
expires)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass

from bot.storage import Database, UniqueViolation, get_meta

SESSION_LIFETIME = 4 * 3600.0
"""Seconds a session lasts from when Discord vouched for it (a long game's evening)."""
KEY_NAME = "web-session-key"
VERSION = "s1"


@dataclass(frozen=True, slots=True)
class Session:
    """A member with a page open, as Discord told it."""

    user_id: int
    name: str
    locale: str | None
    """The member's Discord language (``es-ES``, ``de``, ``en-US`` …), if told."""
    channel_id: int
    """The channel (or thread) the Activity runs in."""
    guild_id: int | None
    instance_id: str
    expires_at: float


class Sessions:
    """Issues and reads session tokens."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def issue(self, session: Session) -> str:
        """The token of ``session``."""
        body = base64.urlsafe_b64encode(
            json.dumps(asdict(session), separators=(",", ":"), sort_keys=True).encode()
        ).decode()
        return f"{VERSION}.{body}.{self._signature(body)}"

    def read(self, token: object, now: float) -> Session | None:
        """The session of ``token``; ``None`` if it is not a token of ours (forged, changed,
        malformed) or has expired."""
        if not isinstance(token, str) or len(token) > 4096:
            return None
        version, _, rest = token.partition(".")
        body, _, signature = rest.partition(".")
        if version != VERSION or not hmac.compare_digest(signature, self._signature(body)):
            return None
        try:
            fields = json.loads(base64.urlsafe_b64decode(body.encode()))
            session = Session(**fields)
        except (ValueError, TypeError, binascii.Error):
            return None
        return session if session.expires_at > now else None

    def _signature(self, body: str) -> str:
        digest = hmac.new(self._key, f"{VERSION}.{body}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def session_key(database: Database) -> bytes:
    """The key that signs sessions: made by the first process that needs it, then shared."""
    found = await get_meta(database, KEY_NAME)
    if found is None:
        try:
            async with database.transaction() as transaction:
                await transaction.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", (KEY_NAME, secrets.token_hex(32))
                )
        except UniqueViolation:  # another process made it first
            pass
        found = await get_meta(database, KEY_NAME)
        assert found is not None
    return bytes.fromhex(found)
