"""Point the unmodified discord.py library at another Discord API base URL.

This exists for the end-to-end tests (a Discord emulator on 127.0.0.1, see tests/e2e/README.md)
and for HTTP proxies placed in front of Discord's API. Production runs leave it unused and
discord.py talks to https://discord.com/api/v10 and wss://gateway.discord.gg as usual.
"""

from __future__ import annotations

import json
import logging
import urllib.parse
import urllib.request

import discord.gateway
import discord.http
import yarl

__all__ = ["use_api_base"]

_log = logging.getLogger(__name__)

_DISCOVERY_TIMEOUT = 10.0


def use_api_base(base_url: str) -> None:
    """Send every REST and gateway connection discord.py makes to ``base_url`` instead of Discord.

    ``base_url`` is an API base such as ``http://127.0.0.1:8080/api/v10``. discord.py builds each
    REST URL, interaction callbacks and webhook follow-ups included, from ``Route.BASE``, so that is
    replaced. A non-sharded client never asks for the gateway URL and connects to the hard-coded
    ``DiscordWebSocket.DEFAULT_GATEWAY``, so the gateway URL is discovered once, here, with
    Discord's unauthenticated ``GET {base_url}/gateway`` and installed there; the resume URL then
    comes from READY's ``resume_gateway_url`` as usual. CDN assets (avatars, icons) are untouched.

    Call it once at start, before the client connects: the discovery is one blocking request.
    Raises ValueError if ``base_url`` is not an http(s) URL, and OSError if discovery fails.
    """
    parsed = urllib.parse.urlsplit(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(
            f"DISCORD_API_BASE must be an http:// or https:// URL such as "
            f"http://127.0.0.1:8080/api/v10, got {base_url!r}"
        )
    if parsed.query or parsed.fragment:
        raise ValueError(f"DISCORD_API_BASE must not have a query or fragment, got {base_url!r}")
    base = base_url.rstrip("/")

    # Like aiohttp in discord.py, ignore *_proxy environment variables.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{base}/gateway", timeout=_DISCOVERY_TIMEOUT) as response:
        gateway = json.loads(response.read().decode("utf-8"))["url"]
    if urllib.parse.urlsplit(gateway).scheme not in ("ws", "wss"):
        raise OSError(f"{base}/gateway answered a gateway URL that is not ws(s): {gateway!r}")

    discord.http.Route.BASE = base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    _log.info("Discord API base set to %s, gateway %s", base, gateway)
