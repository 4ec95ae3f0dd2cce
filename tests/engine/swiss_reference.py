"""An independent reference for Swiss pairing, written for the tests and sharing no code with engine.tournament's
pairing: the facts of a round read from the matches, the priorities of a pairing counted from their definitions, a
brute force over every pairing (n <= 10), and a generic maximum-weight matching of its own (a dense O(n^3) blossom
algorithm with vertex labels and slack per blossom, a different construction from the engine's).

The priorities, in order (the first two swapped when the tournament gives a second bye rather than a rematch):

1. second byes (the bye to a player who had one), 2. rematches, 3. the players ranked below the bye-taker,
4. pairs of two different scores, 5. the sum of their score differences, 6. players floating again (paired
outside their score group, or given the bye, in this round and the one before), 7. pairs inside one half of their
group (both places below g // 2, or both from it on, in a group of g), 8. seeding: ``|j - i - g // 2|`` for places
i < j of a group; a floater's places below it in its group plus its opponent's places above it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.tournament import Tournament

Costs = tuple[int, ...]


@dataclass(frozen=True)
class Facts:
    """What the pairing of round ``number`` knows: the players in rank order, their scores, whom they met, their
    byes, and who floated in the round before."""

    number: int
    ranked: tuple[str, ...]
    score: dict[str, int]
    met: dict[str, set[str]]
    byes: Counter[str]
    floated: frozenset[str]


def facts(t: Tournament, number: int) -> Facts:
    """The facts of round ``number`` of Swiss ``t``, from its matches alone."""
    players = [e for e in t.seeds if e not in t.withdrawn]
    score = scores(t, number)
    met: dict[str, set[str]] = {e: set() for e in t.seeds}
    byes: Counter[str] = Counter()
    for m in t.matches:
        if m.round >= number:
            continue
        if m.a is not None and m.b is not None:
            met[m.a].add(m.b)
            met[m.b].add(m.a)
        elif m.a is not None:
            byes[m.a] += 1
    before = scores(t, number - 1)
    floated: set[str] = set()
    for m in t.matches:
        if m.round == number - 1 and m.a is not None and (m.b is None or before[m.a] != before[m.b]):
            floated.update(x for x in (m.a, m.b) if x is not None)
    ranked = tuple(sorted(players, key=lambda e: (-score[e], t.seeds.index(e))))
    return Facts(number, ranked, score, met, byes, frozenset(floated))


def scores(t: Tournament, number: int) -> dict[str, int]:
    """Wins and byes in the rounds before ``number``."""
    out = {e: 0 for e in t.seeds}
    for m in t.matches:
        if m.round < number and m.result is not None and m.result.winner is not None:
            out[m.result.winner] += 1
    return out


def round_pairing(t: Tournament, number: int) -> tuple[list[tuple[str, str]], str | None]:
    pairs = [(m.a, m.b) for m in t.matches if m.round == number and m.a is not None and m.b is not None]
    byes = [m.a for m in t.matches if m.round == number and m.b is None]
    return pairs, (byes[0] if byes else None)  # type: ignore[return-value]


Layout = tuple[dict[str, int], Counter[int], dict[str, int], int]


def layout(f: Facts) -> Layout:
    """Each player's rank, the size of each score group, each player's place in its group, the lowest score."""
    rank = {p: i for i, p in enumerate(f.ranked)}
    group_size = Counter(f.score[p] for p in f.ranked)
    place: dict[str, int] = {}
    seen: Counter[int] = Counter()
    for p in f.ranked:
        place[p] = seen[f.score[p]]
        seen[f.score[p]] += 1
    return rank, group_size, place, min(f.score[p] for p in f.ranked)


def costs(
    f: Facts,
    pairs: Sequence[tuple[str, str]],
    bye: str | None,
    rematch_first: bool = False,
    known: Layout | None = None,
) -> Costs:
    """The priorities of a pairing, counted from their definitions."""
    rank, group_size, place, _lowest = known or layout(f)
    second_byes = rematches = bye_score = outside = difference = again = halves = seeding = 0
    for x, y in pairs:
        a, b = (x, y) if rank[x] < rank[y] else (y, x)
        rematches += b in f.met[a]
        if f.score[a] == f.score[b]:
            middle = group_size[f.score[a]] // 2
            halves += (place[a] < middle) == (place[b] < middle)
            seeding += abs(place[b] - place[a] - middle)
        else:
            outside += 1
            difference += abs(f.score[a] - f.score[b])
            again += (a in f.floated) + (b in f.floated)
            seeding += (group_size[f.score[a]] - 1 - place[a]) + place[b]
    if bye is not None:
        second_byes = 1 if f.byes[bye] else 0
        bye_score = len(f.ranked) - 1 - rank[bye]
        again += bye in f.floated
    first = (rematches, second_byes) if rematch_first else (second_byes, rematches)
    return (*first, bye_score, outside, difference, again, halves, seeding)


def pairings_of(players: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
    if not players:
        yield []
        return
    top, rest = players[0], players[1:]
    for k, partner in enumerate(rest):
        for more in pairings_of(rest[:k] + rest[k + 1 :]):
            yield [(top, partner), *more]


def brute_force(f: Facts, rematch_first: bool = False) -> Costs:
    """The least costs over every pairing (and every bye)."""
    players = list(f.ranked)
    choices: list[str | None] = list(players) if len(players) % 2 else [None]
    best: Costs | None = None
    for bye in choices:
        rest = [p for p in players if p != bye]
        for pairs in pairings_of(rest):
            c = costs(f, pairs, bye, rematch_first)
            if best is None or c < best:
                best = c
    assert best is not None
    return best


def by_matching(f: Facts, rematch_first: bool = False) -> Costs:
    """The least costs, by the reference matching on weights that fold the priorities (each level in a field of
    its own, wide enough that no sum of the levels below reaches it)."""
    players = list(f.ranked)
    bye = "(bye)" if len(players) % 2 else None
    vertices = players + ([bye] if bye is not None else [])
    n = len(vertices)
    field = 10**6

    def folded(c: Costs) -> int:
        value = 0
        for part in c:
            value = value * field + part
        return value

    known = layout(f)
    cost = [[0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        x, y = vertices[i], vertices[j]
        if x == bye or y == bye:
            c = costs(f, [], y if x == bye else x, rematch_first, known)
        else:
            assert x is not None and y is not None
            c = costs(f, [(x, y)], None, rematch_first, known)
        cost[i][j] = cost[j][i] = folded(c)
    big = (n // 2 + 1) * (max(max(row) for row in cost) + 1)
    mate = reference_matching([[big - cost[i][j] if i != j else 0 for j in range(n)] for i in range(n)])
    assert all(m >= 0 for m in mate), "the reference matching is perfect"
    pairs = [(vertices[i], vertices[mate[i]]) for i in range(n) if i < mate[i]]
    taker = next((x if y == bye else y for x, y in pairs if bye in (x, y)), None)
    played = [(x, y) for x, y in pairs if bye not in (x, y)]
    return costs(f, played, taker, rematch_first)  # type: ignore[arg-type]


def reference_matching(weight: Sequence[Sequence[int]]) -> list[int]:
    """A maximum-weight matching of the complete graph with these (positive) weights: ``mate[v]``, or -1.

    The dense primal-dual blossom algorithm: every vertex and blossom has a label (doubled dual), each unlabelled or
    inner blossom keeps the outer vertex of least slack towards it, and blossoms store their members in cycle order
    and, for every vertex, the member it was reached through. Vertices are numbered from 1 inside."""
    n = len(weight)
    size = 2 * n + 1
    # g[u][x]: the edge (endpoint in u's part, endpoint in x's part, weight) joining u and x, blossoms included
    gu = [[0] * size for _ in range(size)]
    gv = [[0] * size for _ in range(size)]
    gw = [[0] * size for _ in range(size)]
    for u in range(1, n + 1):
        for v in range(1, n + 1):
            gu[u][v], gv[u][v] = u, v
            gw[u][v] = 2 * weight[u - 1][v - 1] if u != v else 0  # doubled: every dual stays whole
    lab = [0] * size
    match = [0] * size
    slack = [0] * size
    st = list(range(size))
    pa = [0] * size
    S = [-1] * size
    vis = [0] * size
    flower: list[list[int]] = [[] for _ in range(size)]
    flower_from = [[0] * (n + 1) for _ in range(size)]
    for u in range(1, n + 1):
        flower_from[u][u] = u
    state = {"n_x": n, "stamp": 0}
    queue: list[int] = []

    def dist(u: int, v: int) -> int:
        return lab[gu[u][v]] + lab[gv[u][v]] - 2 * gw[u][v]

    def update_slack(u: int, x: int) -> None:
        if not slack[x] or dist(u, x) < dist(slack[x], x):
            slack[x] = u

    def set_slack(x: int) -> None:
        slack[x] = 0
        for u in range(1, n + 1):
            if gw[u][x] > 0 and st[u] != x and S[st[u]] == 0:
                update_slack(u, x)

    def q_push(x: int) -> None:
        if x <= n:
            queue.append(x)
        else:
            for y in flower[x]:
                q_push(y)

    def set_st(x: int, b: int) -> None:
        st[x] = b
        if x > n:
            for y in flower[x]:
                set_st(y, b)

    def get_pr(b: int, xr: int) -> int:
        pr = flower[b].index(xr)
        if pr % 2 == 1:
            flower[b][1:] = flower[b][1:][::-1]
            return len(flower[b]) - pr
        return pr

    def set_match(u: int, v: int) -> None:
        match[u] = gv[u][v]
        if u > n:
            xr = flower_from[u][gu[u][v]]
            pr = get_pr(u, xr)
            for i in range(pr):
                set_match(flower[u][i], flower[u][i ^ 1])
            set_match(xr, v)
            flower[u] = flower[u][pr:] + flower[u][:pr]

    def augment(u: int, v: int) -> None:
        while True:
            xnv = st[match[u]]
            set_match(u, v)
            if not xnv:
                return
            set_match(xnv, st[pa[xnv]])
            u, v = st[pa[xnv]], xnv

    def get_lca(u: int, v: int) -> int:
        state["stamp"] += 1
        t = state["stamp"]
        while u or v:
            if u:
                if vis[u] == t:
                    return u
                vis[u] = t
                u = st[match[u]]
                if u:
                    u = st[pa[u]]
            u, v = v, u
        return 0

    def add_blossom(u: int, lca: int, v: int) -> None:
        b = n + 1
        while b <= state["n_x"] and st[b]:
            b += 1
        if b > state["n_x"]:
            state["n_x"] += 1
        lab[b] = 0
        S[b] = 0
        match[b] = match[lca]
        members = [lca]
        x = u
        while x != lca:
            y = st[match[x]]
            members += [x, y]
            q_push(y)
            x = st[pa[y]]
        members[1:] = members[1:][::-1]
        x = v
        while x != lca:
            y = st[match[x]]
            members += [x, y]
            q_push(y)
            x = st[pa[y]]
        flower[b] = members
        set_st(b, b)
        for x in range(1, state["n_x"] + 1):
            gw[b][x] = gw[x][b] = 0
        for x in range(1, n + 1):
            flower_from[b][x] = 0
        for xs in members:
            for x in range(1, state["n_x"] + 1):
                if gw[b][x] == 0 or dist(xs, x) < dist(b, x):
                    gu[b][x], gv[b][x], gw[b][x] = gu[xs][x], gv[xs][x], gw[xs][x]
                    gu[x][b], gv[x][b], gw[x][b] = gu[x][xs], gv[x][xs], gw[x][xs]
            for x in range(1, n + 1):
                if flower_from[xs][x]:
                    flower_from[b][x] = xs
        set_slack(b)

    def expand_blossom(b: int) -> None:
        for x in flower[b]:
            set_st(x, x)
        xr = flower_from[b][gu[b][pa[b]]]
        pr = get_pr(b, xr)
        for i in range(0, pr, 2):
            xs, xns = flower[b][i], flower[b][i + 1]
            pa[xs] = gu[xns][xs]
            S[xs], S[xns] = 1, 0
            slack[xs] = 0
            set_slack(xns)
            q_push(xns)
        S[xr] = 1
        pa[xr] = pa[b]
        for i in range(pr + 1, len(flower[b])):
            xs = flower[b][i]
            S[xs] = -1
            set_slack(xs)
        st[b] = 0

    def on_found_edge(eu: int, ev: int) -> bool:
        u, v = st[eu], st[ev]
        if S[v] == -1:
            pa[v] = eu
            S[v] = 1
            nu = st[match[v]]
            slack[v] = slack[nu] = 0
            S[nu] = 0
            q_push(nu)
        elif S[v] == 0:
            lca = get_lca(u, v)
            if not lca:
                augment(u, v)
                augment(v, u)
                return True
            add_blossom(u, lca, v)
        return False

    def one_augmentation() -> bool:
        n_x = state["n_x"]
        for x in range(1, n_x + 1):
            S[x] = -1
            slack[x] = 0
        queue.clear()
        for x in range(1, n_x + 1):
            if st[x] == x and not match[x]:
                pa[x] = 0
                S[x] = 0
                q_push(x)
        if not queue:
            return False
        while True:
            while queue:
                u = queue.pop(0)
                if S[st[u]] == 1:
                    continue
                for v in range(1, n + 1):
                    if gw[u][v] > 0 and st[u] != st[v]:
                        if dist(u, v) == 0:
                            if on_found_edge(gu[u][v], gv[u][v]):
                                return True
                        else:
                            update_slack(u, st[v])
            n_x = state["n_x"]
            d: int | None = None
            for b in range(n + 1, n_x + 1):
                if st[b] == b and S[b] == 1:
                    d = lab[b] // 2 if d is None else min(d, lab[b] // 2)
            for x in range(1, n_x + 1):
                if st[x] == x and slack[x]:
                    if S[x] == -1:
                        e = dist(slack[x], x)
                    elif S[x] == 0:
                        e = dist(slack[x], x) // 2
                    else:
                        continue
                    d = e if d is None else min(d, e)
            if d is None:
                return False
            for u in range(1, n + 1):
                if S[st[u]] == 0:
                    if lab[u] <= d:
                        return False
                    lab[u] -= d
                elif S[st[u]] == 1:
                    lab[u] += d
            for b in range(n + 1, n_x + 1):
                if st[b] == b:
                    if S[b] == 0:
                        lab[b] += 2 * d
                    elif S[b] == 1:
                        lab[b] -= 2 * d
            queue.clear()
            for x in range(1, n_x + 1):
                tight = st[x] == x and slack[x] and st[slack[x]] != x and dist(slack[x], x) == 0
                if tight and on_found_edge(gu[slack[x]][x], gv[slack[x]][x]):
                    return True
            for b in range(n + 1, n_x + 1):
                if st[b] == b and S[b] == 1 and lab[b] == 0:
                    expand_blossom(b)

    top = 2 * max((w for row in weight for w in row), default=0)
    for u in range(1, n + 1):
        lab[u] = top
    while one_augmentation():
        pass
    return [match[u] - 1 if match[u] else -1 for u in range(1, n + 1)]
