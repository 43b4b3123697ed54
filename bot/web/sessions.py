"""The live board's own sessions: who a page's member is and where the page is open, as Discord
told the server when the page was opened, signed so that the page cannot change a word of it.

A session is a token the page keeps and sends when it connects: a version, the fields in JSON
and an HMAC-SHA256 of both, under a key kept in the database (every process of the bot shares it,
and it survives restarts, so a page reconnects without asking Discord again until the session
expires).

The key can be replaced (``tholos-bot rotate-web-key``, :func:`rotate_session_key`): every
process reads it again each :data:`KEY_CHECK_SECONDS` (:func:`follow_session_key`) and, when it
changed, signs and reads with the new one and closes its open pages; a session signed with the
old key is refused from then on, and its page asks Discord again (the member opens the Activity
again). A session is refused too when its member is no longer in its Activity's instance
(:meth:`Sessions.admit`, asked at each hello)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass

from bot.storage.db import Database, DatabaseUnavailable, UniqueViolation, get_meta, set_meta

log = logging.getLogger(__name__)

SESSION_LIFETIME = 4 * 3600.0
"""Seconds a session lasts from when Discord vouched for it (a long game's evening)."""
KEY_NAME = "web-session-key"
VERSION = "s1"
KEY_CHECK_SECONDS = 10.0
"""How often each process reads the session key again: a key replaced by
``tholos-bot rotate-web-key`` is used (and the pages of the old one closed) within this."""


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


Presence = Callable[[Session], Awaitable[bool]]
"""Whether a session's member is still in its Activity's instance."""


class Sessions:
    """Issues and reads session tokens; ``presence``: whether a session's member is still where
    it was opened (:meth:`admit`; none: not asked)."""

    def __init__(self, key: bytes, presence: Presence | None = None) -> None:
        self._key = key
        self._presence = presence

    def rekey(self, key: bytes) -> bool:
        """Sign and read with ``key`` from now on; whether it is a new one."""
        changed = not hmac.compare_digest(key, self._key)
        self._key = key
        return changed

    async def admit(self, token: object, now: float) -> Session | None:
        """The session of ``token`` (:meth:`read`) if its member is still in its Activity's
        instance (asked of ``presence``); ``None`` otherwise."""
        session = self.read(token, now)
        if session is None or self._presence is None or await self._presence(session):
            return session
        return None

    def issue(self, session: Session) -> str:
        """The token of ``session``."""
        body = base64.urlsafe_b64encode(
            json.dumps(asdict(session), separators=(",", ":"), sort_keys=True).encode()
        ).decode()
        return f"{VERSION}.{body}.{self._signature(body)}"

    def read(self, token: object, now: float) -> Session | None:
        """The session of ``token``; ``None`` if it is not a token of ours (forged, changed,
        malformed) or has expired."""
        if not isinstance(token, str) or len(token) > 4096 or not token.isascii():
            return None
        version, _, rest = token.partition(".")
        body, _, signature = rest.partition(".")
        if version != VERSION or not hmac.compare_digest(signature, self._signature(body)):
            return None
        try:
            fields = json.loads(base64.urlsafe_b64decode(body.encode()))
            session = Session(**fields)
        except (ValueError, TypeError, binascii.Error, RecursionError):
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


async def rotate_session_key(database: Database) -> None:
    """Replace the key that signs sessions with a new random one: every session signed before
    stops working once each process has read it (:data:`KEY_CHECK_SECONDS`)."""
    await set_meta(database, KEY_NAME, secrets.token_hex(32))


async def follow_session_key(
    database: Database, sessions: Sessions, replaced: Callable[[], Awaitable[None]]
) -> None:
    """Read the key again every :data:`KEY_CHECK_SECONDS` until cancelled; when it was
    replaced, sign and read with the new one and call ``replaced`` (the open pages are closed).
    A database that cannot be read meanwhile: the key in use stays."""
    while True:
        await asyncio.sleep(KEY_CHECK_SECONDS)
        try:
            key = await session_key(database)
        except DatabaseUnavailable as error:
            log.warning("could not read the live board's session key again: %s", error)
            continue
        if sessions.rekey(key):
            log.warning("the live board's session key was replaced: old sessions are refused")
            await replaced()
