"""The live board's HTTP headers: what the browser may load and from where (the page runs in
Discord's frame, on Discord's proxy of this server).

No ``frame-ancestors``: the parents Discord frames the page in cannot all be named — the web
client's ``discord.com``, the desktop client's ``discordapp.com``, and the opaque ``null``
origin of some mobile clients, which no source matches — and the page is public anyway (it
shows nothing without a session Discord vouched for).

``connect-src 'self'``: the page talks only to its own origin — ``/api/session`` and the
WebSocket ``/api/live`` (CSP Level 3 lets ``'self'`` match ``ws:``/``wss:`` on the page's own
host), never to any other host."""

from __future__ import annotations

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
FOREVER = "public, max-age=31536000, immutable"
"""The cache header of a page's file under its own version: it never changes."""
