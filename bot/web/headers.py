"""The live board's HTTP headers: what the browser may load and from where (the page runs in
Discord's frame, on Discord's proxy of this server)."""

from __future__ import annotations

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' wss: ws:; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; frame-ancestors https://discord.com "
        "https://*.discord.com https://*.discordsays.com 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
