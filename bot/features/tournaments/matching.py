"""Matchings in a general graph by Edmonds' blossom algorithm: augmenting paths, shrinking odd
cycles as they are met; a maximum matching in O(V³). Pure: no I/O. The Swiss pairing uses it
to know, without a search, whether the players left can all still be paired."""

from __future__ import annotations

from collections import deque


def augmenting_path(
    adj: dict[int, set[int]], match: dict[int, int | None], root: int
) -> list[int] | None:
    """An augmenting path from the exposed vertex ``root`` in the graph ``adj`` under the
    matching ``match`` (each vertex's partner, ``None`` if exposed): its vertices from another
    exposed vertex back to ``root``, alternately joined by unmatched and matched edges; ``None`` if
    there is none. Odd cycles (blossoms) are shrunk as they are met."""
    return _Search(adj, match, root).path()


class _Search:
    """One search for an augmenting path from ``root``: the tree grown from it (each vertex's
    ``parent``), the ``base`` of the blossom each vertex was shrunk into, the vertices reached
    (``used``) and those still to grow the tree from (``queue``)."""

    def __init__(self, adj: dict[int, set[int]], match: dict[int, int | None], root: int) -> None:
        self.adj, self.match, self.root = adj, match, root
        self.vertices = list(adj)
        self.base = {v: v for v in self.vertices}
        self.parent: dict[int, int | None] = {v: None for v in self.vertices}
        self.used = {v: False for v in self.vertices}
        self.used[root] = True
        self.queue = deque([root])

    def path(self) -> list[int] | None:
        """Grow the tree breadth first until an edge reaches an exposed vertex."""
        base, match, parent = self.base, self.match, self.parent
        while self.queue:
            v = self.queue.popleft()
            for to in self.adj[v]:
                if base[v] == base[to] or match[v] == to:
                    continue
                partner = match[to]
                if to == self.root or (partner is not None and parent[partner] is not None):
                    self.shrink(v, to)
                elif parent[to] is None:
                    parent[to] = v
                    if partner is None:
                        return self.back_to_root(to)
                    self.used[partner] = True
                    self.queue.append(partner)
        return None

    def back_to_root(self, exposed: int) -> list[int]:
        """The path from the exposed vertex just reached back to the root."""
        path = [exposed]
        while True:
            p = self.parent[path[-1]]
            assert p is not None  # the path runs down the tree, whose vertices have parents
            path.append(p)
            nxt = self.match[p]
            if nxt is None:
                return path
            path.append(nxt)

    def shrink(self, v: int, to: int) -> None:
        """The edge ``v``–``to`` closes an odd cycle: shrink it into its base, and grow the
        tree from the vertices it adds."""
        current = self.lca(v, to)
        blossom: set[int] = set()
        self.mark(v, current, to, blossom)
        self.mark(to, current, v, blossom)
        for u in self.vertices:
            if self.base[u] in blossom:
                self.base[u] = current
                if not self.used[u]:
                    self.used[u] = True
                    self.queue.append(u)

    def lca(self, a: int, b: int) -> int:
        """The nearest common ancestor of ``a`` and ``b``'s blossoms in the tree."""
        base, match = self.base, self.match
        seen = set()
        while True:
            a = base[a]
            seen.add(a)
            if match[a] is None:
                break
            a = self.up(a)
        while True:
            b = base[b]
            if b in seen:
                return b
            b = self.up(b)

    def mark(self, v: int, b: int, child: int, blossom: set[int]) -> None:
        """Walk from ``v`` up to the base ``b``, adding each blossom met to ``blossom`` and
        pointing the tree's parents around the cycle."""
        base, parent = self.base, self.parent
        while base[v] != b:
            partner = self.partner(v)
            blossom.add(base[v])
            blossom.add(base[partner])
            parent[v] = child
            child = partner
            v = self.up(v)

    def partner(self, v: int) -> int:
        """``v``'s partner: the search asks it only of matched vertices."""
        partner = self.match[v]
        assert partner is not None
        return partner

    def up(self, v: int) -> int:
        """One step up the tree from the matched ``v``: the parent of its partner."""
        parent = self.parent[self.partner(v)]
        assert parent is not None
        return parent


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
