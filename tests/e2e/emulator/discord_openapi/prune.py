"""Prune Discord's OpenAPI schema to the request bodies the emulator validates (and the answers
its tests check).

Usage (from the repository root, with a checkout of github.com/discord/discord-api-spec)::

    python tests/e2e/emulator/discord_openapi/prune.py PATH/TO/specs/openapi.json

It writes ``openapi.json`` next to this script: the ``requestBody`` of each operation in
``OPERATIONS``, the 200 answer of each in ``RESPONSES``, and every component schema they
reference (transitively), nothing else. The
schemas themselves are copied unchanged; the emulator's own adjustments (snowflakes as strings or
integers...) are made when it loads the file (``emulator/openapi.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

OPERATIONS: dict[str, tuple[str, ...]] = {
    "/users/@me/channels": ("post",),
    "/applications/@me": ("patch",),
    "/applications/{application_id}/commands": ("put", "post"),
    "/applications/{application_id}/commands/{command_id}": ("patch",),
    "/applications/{application_id}/guilds/{guild_id}/commands": ("put", "post"),
    "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}": ("patch",),
    "/interactions/{interaction_id}/{interaction_token}/callback": ("post",),
    "/webhooks/{webhook_id}/{webhook_token}": ("post",),
    "/webhooks/{webhook_id}/{webhook_token}/messages/@original": ("patch",),
    "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}": ("patch",),
    "/channels/{channel_id}": ("patch",),
    "/channels/{channel_id}/messages": ("post",),
    "/channels/{channel_id}/messages/{message_id}": ("patch",),
    "/channels/{channel_id}/messages/{message_id}/threads": ("post",),
    "/channels/{channel_id}/threads": ("post",),
    "/guilds/{guild_id}/scheduled-events": ("post",),
}
"""The spec's operations whose request bodies the emulator checks (every write route it serves
that takes a body)."""

RESPONSES: dict[str, tuple[str, ...]] = {
    "/users/@me": ("get",),
    "/applications/{application_id}/activity-instances/{instance_id}": ("get",),
}
"""The spec's operations whose 200 answers the emulator's tests check its answers against."""

_REF = "#/components/schemas/"


def _refs(node: Any) -> set[str]:
    """The names of the component schemas ``node`` references directly."""
    if isinstance(node, dict):
        found = {node["$ref"][len(_REF) :]} if str(node.get("$ref", "")).startswith(_REF) else set()
        for value in node.values():
            found |= _refs(value)
        return found
    if isinstance(node, list):
        return set().union(*map(_refs, node)) if node else set()
    return set()


def prune(spec: dict[str, Any]) -> dict[str, Any]:
    """The pruned document: ``openapi``, ``info``, the kept operations' request bodies and 200
    answers and the component schemas they need."""
    paths: dict[str, Any] = {}
    for path, methods in OPERATIONS.items():
        item = spec["paths"][path]
        paths[path] = {
            method: {key: item[method][key] for key in ("operationId", "requestBody")}
            for method in methods
        }
    for path, methods in RESPONSES.items():
        item = spec["paths"][path]
        for method in methods:
            operation = {"operationId": item[method]["operationId"]}
            kept = paths.setdefault(path, {}).setdefault(method, operation)
            kept["responses"] = {"200": {"content": item[method]["responses"]["200"]["content"]}}
    schemas = spec["components"]["schemas"]
    needed: set[str] = set()
    todo = _refs(paths)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo |= _refs(schemas[name]) - needed
    return {
        "openapi": spec["openapi"],
        "info": spec["info"],
        "paths": paths,
        "components": {"schemas": {name: schemas[name] for name in sorted(needed)}},
    }


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    pruned = prune(spec)
    text = json.dumps(pruned, indent=1, ensure_ascii=False) + "\n"
    (HERE / "openapi.json").write_text(text, encoding="utf-8")
    print(f"{len(pruned['paths'])} paths, {len(pruned['components']['schemas'])} schemas")


if __name__ == "__main__":
    main(sys.argv)
