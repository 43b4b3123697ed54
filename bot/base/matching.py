"""Matchings in a general graph by Edmonds' blossom algorithm: augmenting paths, shrinking odd
cycles as they are met; a maximum matching in O(V³). Pure: no I/O. The Swiss pairing uses it
to know, without a search, whether the players left can all still be paired."""

from __future__ import annotations

from collections import deque


def augmenting_path(
    adj: dict[int, set[int]], match: dict[int, int | None], root: int
) -> list[int] | None:
    """An augmenting path from the exposed vertex ``root`` in the graph ``adj`` under the
    matching ``match`` (each vertex's partner, ``None`` if exposed): its vertices from ``root``
    to another exposed vertex, alternately joined by unmatched and matched edges; ``None`` if
    there is none. Odd cycles (blossoms) are shrunk as they are met."""
    vertices = list(adj)
    base = {v: v for v in vertices}
    parent: dict[int, int | None] = {v: None for v in vertices}
    used = {v: False for v in vertices}
    used[root] = True
    queue = deque([root])

    def lca(a: int, b: int) -> int:
        seen = set()
        while True:
            a = base[a]
            seen.add(a)
            if match[a] is None:
                break
            a = parent[match[a]]  # type: ignore[index]
        while True:
            b = base[b]
            if b in seen:
                return b
            b = parent[match[b]]  # type: ignore[index]

    def mark(v: int, b: int, child: int, blossom: set[int]) -> None:
        while base[v] != b:
            blossom.add(base[v])
            blossom.add(base[match[v]])  # type: ignore[index]
            parent[v] = child
            child = match[v]  # type: ignore[assignment]
            v = parent[match[v]]  # type: ignore[index,assignment]

    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] is not None and parent[match[to]] is not None):
                current = lca(v, to)
                blossom: set[int] = set()
                mark(v, current, to, blossom)
                mark(to, current, v, blossom)
                for u in vertices:
                    if base[u] in blossom:
                        base[u] = current
                        if not used[u]:
                            used[u] = True
                            queue.append(u)
            elif parent[to] is None:
                parent[to] = v
                if match[to] is None:
                    path = [to]
                    while True:
                        p = parent[path[-1]]
                        path.append(p)  # type: ignore[arg-type]
                        nxt = match[p]  # type: ignore[index]
                        if nxt is None:
                            return path
                        path.append(nxt)
                nxt = match[to]
                used[nxt] = True  # type: ignore[index]
                queue.append(nxt)  # type: ignore[arg-type]
    return None


def augment(match: dict[int, int | None], path: list[int]) -> None:
    """Flip ``path`` (from :func:`augmenting_path`): one more matched pair."""
    for index in range(0, len(path) - 1, 2):
        a, b = path[index], path[index + 1]
        match[a], match[b] = b, a


def maximum_matching(adj: dict[int, set[int]]) -> dict[int, int | None]:
    """A matching of ``adj`` with as many pairs as any (each vertex's partner, ``None`` if it
    has none): augmenting paths from every exposed vertex in turn."""
    match: dict[int, int | None] = {v: None for v in adj}
    for v in adj:
        if match[v] is None:
            path = augmenting_path(adj, match, v)
            if path is not None:
                augment(match, path)
    return match
