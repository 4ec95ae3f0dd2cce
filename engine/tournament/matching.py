"""Matchings in a general graph (Edmonds' blossom algorithm), for Swiss pairings.

- :func:`max_matching`: a maximum cardinality matching (is there a pairing at all?), in O(V^3).
- :func:`max_weight_matching`: among the matchings of maximum cardinality, one of maximum total weight (integer
  weights), by the primal-dual blossom algorithm in the form Galil describes ("Efficient algorithms for finding
  maximum matching in graphs", 1986) and Van Rantwijk implemented: O(V^3). Swiss pairing asks it for the pairing
  of least cost, its priorities folded into one integer weight per pair.
- :func:`min_cost_perfect_matching`: a perfect matching of least cost on a complete graph, solved first on the
  cheapest few partners of each vertex and proved optimal for the whole graph by the linear programme's duals (a
  pair left out whose reduced cost is negative is added, and the search runs again).

Duals are kept doubled (``dual[v] = 2 u(v)``), so integer weights keep every computation in integers.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

__all__ = ["has_perfect_matching", "max_matching", "max_weight_matching", "min_cost_perfect_matching"]


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


# --- weighted ------------------------------------------------------------------------------------------------
class WeightedMatching:
    """The outcome of :func:`max_weight_matching`: ``mate[v]`` (v's partner, or -1), and the optimal duals that
    prove it (``dual[v]``: twice vertex v's dual variable; ``blossoms``: (the vertices of a blossom, twice its dual)
    for every blossom with a dual above zero)."""

    __slots__ = ("blossoms", "dual", "mate")

    def __init__(self, mate: list[int], dual: list[int], blossoms: list[tuple[frozenset[int], int]]) -> None:
        self.mate = mate
        self.dual = dual
        self.blossoms = blossoms

    def reduced(self, i: int, j: int, weight: int) -> int:
        """The slack of edge (i, j) of ``weight`` under the duals (twice it): never below zero for an edge of the
        graph, zero for a matched one."""
        z = sum(d for members, d in self.blossoms if i in members and j in members)
        return self.dual[i] + self.dual[j] - 2 * weight + 2 * z


def max_weight_matching(
    n: int, edges: Sequence[tuple[int, int, int]], *, max_cardinality: bool = True
) -> WeightedMatching:
    """A matching of greatest total weight on vertices 0..n-1 with ``edges`` (i, j, integer weight), among those of
    greatest cardinality when ``max_cardinality`` (the default)."""
    nedge = len(edges)
    mate = [-1] * n  # the remote endpoint (an index into endpoint) of v's matched edge
    if nedge == 0 or n == 0:
        return WeightedMatching([-1] * n, [0] * n, [])
    maxweight = max(0, max(w for _i, _j, w in edges))
    endpoint = [edges[p >> 1][p & 1] for p in range(2 * nedge)]
    weight = [w for _i, _j, w in edges]
    neighbend: list[list[int]] = [[] for _ in range(n)]
    for k, (i, j, _w) in enumerate(edges):
        neighbend[i].append(2 * k + 1)
        neighbend[j].append(2 * k)
    # label: 0 free, 1 S (outer), 2 T (inner), 5 (S, marked while scanning); of vertices and top-level blossoms
    label = [0] * (2 * n)
    labelend = [-1] * (2 * n)
    inblossom = list(range(n))
    blossomparent = [-1] * (2 * n)
    blossomchilds: list[list[int]] = [[] for _ in range(2 * n)]
    blossombase = list(range(n)) + [-1] * n
    blossomendps: list[list[int]] = [[] for _ in range(2 * n)]
    bestedge = [-1] * (2 * n)
    blossombestedges: list[list[int] | None] = [None] * (2 * n)
    unused = list(range(n, 2 * n))
    dual = [maxweight] * n + [0] * n
    allowedge = [False] * nedge
    queue: list[int] = []

    def slack(k: int) -> int:
        i, j, w = edges[k]
        return dual[i] + dual[j] - 2 * w

    def leaves(b: int) -> Iterator[int]:
        if b < n:
            yield b
        else:
            for t in blossomchilds[b]:
                if t < n:
                    yield t
                else:
                    yield from leaves(t)

    def assign_label(w: int, t: int, p: int) -> None:
        while True:
            b = inblossom[w]
            label[w] = label[b] = t
            labelend[w] = labelend[b] = p
            bestedge[w] = bestedge[b] = -1
            if t == 1:
                queue.extend(leaves(b))
                return
            base = blossombase[b]
            w, t, p = endpoint[mate[base]], 1, mate[base] ^ 1

    def scan_blossom(v: int, w: int) -> int:
        path: list[int] = []
        base = -1
        while v != -1 or w != -1:
            b = inblossom[v]
            if label[b] & 4:
                base = blossombase[b]
                break
            path.append(b)
            label[b] = 5
            if labelend[b] == -1:
                v = -1
            else:
                v = endpoint[labelend[b]]
                b = inblossom[v]
                v = endpoint[labelend[b]]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return base

    def add_blossom(base: int, k: int) -> None:
        v, w, _wt = edges[k]
        bb, bv, bw = inblossom[base], inblossom[v], inblossom[w]
        b = unused.pop()
        blossombase[b] = base
        blossomparent[b] = -1
        blossomparent[bb] = b
        path: list[int] = []
        endps: list[int] = []
        while bv != bb:
            blossomparent[bv] = b
            path.append(bv)
            endps.append(labelend[bv])
            bv = inblossom[endpoint[labelend[bv]]]
        path.append(bb)
        path.reverse()
        endps.reverse()
        endps.append(2 * k)
        while bw != bb:
            blossomparent[bw] = b
            path.append(bw)
            endps.append(labelend[bw] ^ 1)
            bw = inblossom[endpoint[labelend[bw]]]
        blossomchilds[b] = path
        blossomendps[b] = endps
        label[b] = 1
        labelend[b] = labelend[bb]
        dual[b] = 0
        for x in leaves(b):
            if label[inblossom[x]] == 2:
                queue.append(x)
            inblossom[x] = b
        bestto: dict[int, int] = {}
        for sub in path:
            if blossombestedges[sub] is None:
                lists: list[list[int]] = [[p >> 1 for p in neighbend[x]] for x in leaves(sub)]
            else:
                lists = [blossombestedges[sub] or []]
            for nblist in lists:
                for kk in nblist:
                    i, j, _w = edges[kk]
                    if inblossom[j] == b:
                        i, j = j, i
                    bj = inblossom[j]
                    if bj != b and label[bj] == 1:
                        best = bestto.get(bj, -1)
                        if best == -1 or slack(kk) < slack(best):
                            bestto[bj] = kk
            blossombestedges[sub] = None
            bestedge[sub] = -1
        found = list(bestto.values())
        blossombestedges[b] = found
        bestedge[b] = min(found, key=slack) if found else -1

    def expand_blossom(b: int, endstage: bool) -> None:
        for s in blossomchilds[b]:
            blossomparent[s] = -1
            if s < n:
                inblossom[s] = s
            elif endstage and dual[s] == 0:
                expand_blossom(s, endstage)
            else:
                for x in leaves(s):
                    inblossom[x] = s
        if not endstage and label[b] == 2:
            childs, endps = blossomchilds[b], blossomendps[b]
            entrychild = inblossom[endpoint[labelend[b] ^ 1]]
            j = childs.index(entrychild)
            if j & 1:
                j -= len(childs)
                jstep, trick = 1, 0
            else:
                jstep, trick = -1, 1
            p = labelend[b]
            while j != 0:
                label[endpoint[p ^ 1]] = 0
                label[endpoint[endps[j - trick] ^ trick ^ 1]] = 0
                assign_label(endpoint[p ^ 1], 2, p)
                allowedge[endps[j - trick] >> 1] = True
                j += jstep
                p = endps[j - trick] ^ trick
                allowedge[p >> 1] = True
                j += jstep
            bv = childs[j]
            label[endpoint[p ^ 1]] = label[bv] = 2
            labelend[endpoint[p ^ 1]] = labelend[bv] = p
            bestedge[bv] = -1
            j += jstep
            while childs[j] != entrychild:
                bv = childs[j]
                if label[bv] == 1:
                    j += jstep
                    continue
                labelled = -1
                for x in leaves(bv):
                    if label[x] != 0:
                        labelled = x
                        break
                if labelled != -1:
                    label[labelled] = 0
                    label[endpoint[mate[blossombase[bv]]]] = 0
                    assign_label(labelled, 2, labelend[labelled])
                j += jstep
        label[b] = labelend[b] = -1
        blossomchilds[b] = []
        blossomendps[b] = []
        blossombase[b] = -1
        blossombestedges[b] = None
        bestedge[b] = -1
        unused.append(b)

    def augment_blossom(b: int, v: int) -> None:
        t = v
        while blossomparent[t] != b:
            t = blossomparent[t]
        if t >= n:
            augment_blossom(t, v)
        childs, endps = blossomchilds[b], blossomendps[b]
        i = j = childs.index(t)
        if i & 1:
            j -= len(childs)
            jstep, trick = 1, 0
        else:
            jstep, trick = -1, 1
        while j != 0:
            j += jstep
            t = childs[j]
            p = endps[j - trick] ^ trick
            if t >= n:
                augment_blossom(t, endpoint[p])
            j += jstep
            t = childs[j]
            if t >= n:
                augment_blossom(t, endpoint[p ^ 1])
            mate[endpoint[p]] = p ^ 1
            mate[endpoint[p ^ 1]] = p
        blossomchilds[b] = childs[i:] + childs[:i]
        blossomendps[b] = endps[i:] + endps[:i]
        blossombase[b] = blossombase[blossomchilds[b][0]]

    def augment_matching(k: int) -> None:
        v, w, _wt = edges[k]
        for s, p in ((v, 2 * k + 1), (w, 2 * k)):
            while True:
                bs = inblossom[s]
                if bs >= n:
                    augment_blossom(bs, s)
                mate[s] = p
                if labelend[bs] == -1:
                    break
                t = endpoint[labelend[bs]]
                bt = inblossom[t]
                s = endpoint[labelend[bt]]
                j = endpoint[labelend[bt] ^ 1]
                if bt >= n:
                    augment_blossom(bt, j)
                mate[j] = labelend[bt]
                p = labelend[bt] ^ 1

    for _stage in range(n):
        label[:] = [0] * (2 * n)
        bestedge[:] = [-1] * (2 * n)
        blossombestedges[n:] = [None] * n
        allowedge[:] = [False] * nedge
        queue.clear()
        for v in range(n):
            if mate[v] == -1 and label[inblossom[v]] == 0:
                assign_label(v, 1, -1)
        augmented = False
        while True:
            while queue and not augmented:
                v = queue.pop()
                dv = dual[v]  # (duals change only between scans; blossoms may form during one)
                for p in neighbend[v]:
                    k = p >> 1
                    w = endpoint[p]
                    bv, bw = inblossom[v], inblossom[w]
                    if bv == bw:
                        continue
                    kslack = 0
                    if not allowedge[k]:
                        kslack = dv + dual[w] - 2 * weight[k]
                        if kslack <= 0:
                            allowedge[k] = True
                    if allowedge[k]:
                        lw = label[bw]
                        if lw == 0:
                            assign_label(w, 2, p ^ 1)
                        elif lw == 1:
                            base = scan_blossom(v, w)
                            if base >= 0:
                                add_blossom(base, k)
                            else:
                                augment_matching(k)
                                augmented = True
                                break
                        elif label[w] == 0:
                            label[w] = 2
                            labelend[w] = p ^ 1
                    elif label[bw] == 1:
                        if bestedge[bv] == -1 or kslack < slack(bestedge[bv]):
                            bestedge[bv] = k
                    elif label[w] == 0 and (bestedge[w] == -1 or kslack < slack(bestedge[w])):
                        bestedge[w] = k
            if augmented:
                break
            deltatype = -1
            delta = 0
            deltaedge = deltablossom = -1
            if not max_cardinality:
                deltatype, delta = 1, min(dual[:n])
            for v in range(n):
                if label[inblossom[v]] == 0 and bestedge[v] != -1:
                    d = slack(bestedge[v])
                    if deltatype == -1 or d < delta:
                        delta, deltatype, deltaedge = d, 2, bestedge[v]
            for b in range(2 * n):
                if blossomparent[b] == -1 and label[b] == 1 and bestedge[b] != -1:
                    d = slack(bestedge[b]) // 2
                    if deltatype == -1 or d < delta:
                        delta, deltatype, deltaedge = d, 3, bestedge[b]
            for b in range(n, 2 * n):
                live = blossombase[b] >= 0 and blossomparent[b] == -1 and label[b] == 2
                if live and (deltatype == -1 or dual[b] < delta):
                    delta, deltatype, deltablossom = dual[b], 4, b
            if deltatype == -1:  # no further progress possible (max cardinality): the optimum is reached
                deltatype, delta = 1, max(0, min(dual[:n]))
            for v in range(n):
                lb = label[inblossom[v]]
                if lb == 1:
                    dual[v] -= delta
                elif lb == 2:
                    dual[v] += delta
            for b in range(n, 2 * n):
                if blossombase[b] >= 0 and blossomparent[b] == -1:
                    if label[b] == 1:
                        dual[b] += delta
                    elif label[b] == 2:
                        dual[b] -= delta
            if deltatype == 1:
                break
            if deltatype == 2:
                allowedge[deltaedge] = True
                i, j, _w = edges[deltaedge]
                if label[inblossom[i]] == 0:
                    i, j = j, i
                queue.append(i)
            elif deltatype == 3:
                allowedge[deltaedge] = True
                queue.append(edges[deltaedge][0])
            else:
                expand_blossom(deltablossom, False)
        if not augmented:
            break
        for b in range(n, 2 * n):
            if blossomparent[b] == -1 and blossombase[b] >= 0 and label[b] == 1 and dual[b] == 0:
                expand_blossom(b, True)
    partner = [endpoint[mate[v]] if mate[v] >= 0 else -1 for v in range(n)]
    blossoms = [(frozenset(leaves(b)), dual[b]) for b in range(n, 2 * n) if blossombase[b] >= 0 and dual[b] > 0]
    return WeightedMatching(partner, dual[:n], blossoms)


def min_cost_perfect_matching(
    cost: Sequence[Sequence[int]], candidates: Sequence[Sequence[int]] | None = None
) -> list[int]:
    """A perfect matching of least total cost on the complete graph whose pair (i, j) costs ``cost[i][j]`` (a
    symmetric matrix of non-negative integers, of even order): ``mate[v]`` for each vertex.

    ``candidates[v]``: the partners most likely to be wanted for v; the matching is found among those pairs first
    and then proved optimal for every pair by the duals (a pair whose reduced cost is below zero joins, and the
    search runs again; at worst on every pair). Without candidates, every pair is used at once.
    """
    n = len(cost)
    if n % 2:
        raise ValueError("a perfect matching needs an even number of vertices")
    if n == 0:
        return []
    everything = n * (n - 1) // 2
    chosen: set[tuple[int, int]] = set()
    if candidates is None:
        chosen = {(i, j) for i in range(n) for j in range(i + 1, n)}
    else:
        for i, near in enumerate(candidates):
            chosen.update((min(i, j), max(i, j)) for j in near if j != i)
    while True:
        pairs = sorted(chosen)
        top = max(cost[i][j] for i, j in pairs) + 1
        found = max_weight_matching(n, [(i, j, top - cost[i][j]) for i, j in pairs])
        if any(m == -1 for m in found.mate):  # no perfect matching among these pairs: every pair
            if len(chosen) == everything:
                raise ValueError("no perfect matching")  # pragma: no cover - a complete graph of even order has one
            chosen = {(i, j) for i in range(n) for j in range(i + 1, n)}
            continue
        if len(chosen) == everything:
            return found.mate
        # A pair's reduced cost (doubled): dual[i] + dual[j] - 2 (top - cost) + 2 (the blossoms holding both).
        dual = found.dual
        missing = []
        for i in range(n):
            row = cost[i]
            base = dual[i] - 2 * top
            for j in range(i + 1, n):
                below = base + dual[j] + 2 * row[j] < 0 and (i, j) not in chosen
                if below and found.reduced(i, j, top - row[j]) < 0:
                    missing.append((i, j))
        if not missing:
            return found.mate
        chosen.update(missing)
