"""Maximum cardinality matching in a general graph (Edmonds' blossom algorithm), for Swiss pairings.

Swiss pairing asks one question again and again: can these players still all be paired without a rematch?
That is whether the graph of pairs who have not met has a perfect matching, which Edmonds' algorithm answers
in O(V^3) (a blossom is an odd cycle, shrunk to its base while searching for an augmenting path).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

__all__ = ["max_matching", "has_perfect_matching"]


def max_matching(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of the undirected graph ``adjacency`` (vertex -> neighbours, vertices 0..n-1):
    ``mate[v]`` is v's partner, or -1."""
    n = len(adjacency)
    mate = [-1] * n
    # A greedy start leaves few augmenting paths to find.
    for v in range(n):
        if mate[v] == -1:
            for w in adjacency[v]:
                if mate[w] == -1 and w != v:
                    mate[v], mate[w] = w, v
                    break
    for root in range(n):
        if mate[root] == -1:
            end, parent = _augmenting_path(adjacency, mate, root)
            while end != -1:  # flip the path root ... end: its unmatched edges become the matched ones
                p = parent[end]
                after = mate[p]
                mate[end], mate[p] = p, end
                end = after
    return mate


def has_perfect_matching(adjacency: Sequence[Sequence[int]]) -> bool:
    """Whether every vertex of the graph can be matched."""
    n = len(adjacency)
    if n % 2:
        return False
    if any(not adjacency[v] for v in range(n)):
        return False
    return all(m != -1 for m in max_matching(adjacency))


# The search keeps, for the tree grown from the root: parent[v] (the even vertex that reached odd vertex v)
# and base[v] (the base of the blossom v has been shrunk into).


def _augmenting_path(adjacency: Sequence[Sequence[int]], mate: list[int], root: int) -> tuple[int, list[int]]:
    n = len(adjacency)
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue = deque([root])

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for to in adjacency[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                b = lca(v, to)
                blossom = [False] * n
                mark(v, b, to, blossom)
                mark(to, b, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent
