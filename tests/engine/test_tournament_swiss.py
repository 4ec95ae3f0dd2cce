"""Swiss pairing: no rematch while one can be avoided (a property test over random results, 4 to 64 players),
the bye to the lowest-ranked player without one, score groups folded top half against bottom half, a full
16-player Swiss of 4 rounds, and the matching algorithm the pairing leans on (against brute force)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence, Set

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.tournament import Format, How, Tournament, TournamentSpec, advance, champion, pairings, standings
from engine.tournament.matching import max_matching

from .test_tournament import build, play_out, play_round, random_winner


def score_of(t: Tournament, before_round: int = 10**6) -> Counter[str]:
    """Wins plus byes, counted from the results (independently of the standings code)."""
    score: Counter[str] = Counter()
    for m in t.matches:
        if m.round < before_round and m.result is not None and m.result.winner is not None:
            score[m.result.winner] += 1
    return score


def met_of(t: Tournament, before_round: int) -> dict[str, set[str]]:
    met: dict[str, set[str]] = {e: set() for e in t.seeds}
    for m in t.matches:
        if m.round < before_round and m.a is not None and m.b is not None:
            met[m.a].add(m.b)
            met[m.b].add(m.a)
    return met


def pairable(players: Sequence[str], met: dict[str, set[str]]) -> bool:
    """Brute force: can ``players`` all be paired with opponents they have not met?"""
    if not players:
        return True
    top, rest = players[0], players[1:]
    return any(q not in met[top] and pairable([p for p in rest if p != q], met) for q in rest)


def dirac(players: Set[str], met: dict[str, set[str]]) -> bool:
    """Dirac's theorem: when everyone may still meet at least half of the others, the graph of pairs not yet
    met has a Hamiltonian cycle, hence (an even number of players) a pairing without rematches."""
    return all(len(players - met[p] - {p}) >= len(players) / 2 for p in players)


def check_round(after: Tournament) -> None:
    """The round ``after`` just paired: everyone active exactly once, no avoidable rematch, the bye right."""
    number = after.round
    current = pairings(after)
    active = [e for e in after.seeds if e not in after.withdrawn]
    seated = Counter(e for m in current for e in m.entrants)
    assert set(seated) == set(active) and set(seated.values()) == {1}
    met = met_of(after, number)
    rematches = [m for m in current if m.a is not None and m.b is not None and m.b in met[m.a]]
    byes_before = Counter(m.a for m in after.matches if m.round < number and m.is_bye)
    score = score_of(after, number)
    ranked = sorted(active, key=lambda e: (-score[e], after.seed(e)))
    byes = [m.a for m in current if m.b is None]
    assert len(byes) == len(active) % 2
    bye = byes[0] if byes else None
    paired = [e for e in ranked if e != bye]
    if len(active) <= 14:
        if rematches:
            assert not pairable(paired, met), f"round {number}: an avoidable rematch"
            eligible = [e for e in ranked if byes_before[e] == 0] if bye is not None else []
            assert all(not pairable([p for p in ranked if p != e], met) for e in eligible)
        if bye is not None and not rematches:
            eligible = [e for e in ranked if byes_before[e] == 0]
            if eligible:
                below = eligible[eligible.index(bye) + 1 :] if bye in eligible else eligible
                # every eligible player ranked lower than the one given the bye would have forced a rematch
                assert all(not pairable([p for p in ranked if p != e], met) for e in below)
    else:
        assert dirac(set(paired), met), "the test's own bound: keep the rounds few for large fields"
        assert not rematches, f"round {number}: a rematch although a pairing without one exists"
        if bye is not None:
            eligible = [e for e in ranked if byes_before[e] == 0]
            assert bye == eligible[-1], "the bye goes to the lowest-ranked player without one"


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 64), st.integers(1, 13), st.integers(0, 2**32))
@example(64, 6, 1)
@example(63, 6, 2)
@example(33, 6, 3)
@example(14, 13, 4)
@example(13, 12, 5)
def test_no_rematch_while_it_can_be_avoided_and_byes_to_the_lowest_ranked(n: int, rounds: int, seed: int) -> None:
    rounds = min(rounds, n - 1) if n <= 14 else min(rounds, 6)
    rng = random.Random(seed)
    t = build(TournamentSpec(Format.SWISS, rounds=rounds), n)
    check_round(t)
    while not t.finished:
        t = advance(play_round(t, random_winner(rng), rng))
        if not t.finished:
            check_round(t)
    assert t.round == rounds


def test_a_sixteen_player_swiss_of_four_rounds() -> None:
    t = build(TournamentSpec(Format.SWISS, name="Spring Swiss", rounds=4), 16, ratings=True)
    # round 1 folds the field: seed 1 meets seed 9, seed 2 seed 10, ...
    assert [(m.a, m.b) for m in pairings(t)] == [(f"p{i}", f"p{i + 8}") for i in range(8)]

    def seen(now: Tournament) -> None:
        if now.finished:
            return
        score = score_of(now)
        for m in pairings(now):  # winners meet winners, and so on down
            assert m.a is not None and m.b is not None and score[m.a] == score[m.b], m
        assert not any(m.b in met_of(now, now.round)[m.a or ""] for m in pairings(now))
        if now.round == 2:
            assert [(m.a, m.b) for m in pairings(now)] == [
                ("p0", "p4"), ("p1", "p5"), ("p2", "p6"), ("p3", "p7"),
                ("p8", "p12"), ("p9", "p13"), ("p10", "p14"), ("p11", "p15"),
            ]  # fmt: skip

    t = play_out(t, lambda t, a, b: min(a, b, key=t.seed), check=seen)  # the higher seed always wins
    assert t.round == 4 and champion(t) == "p0"
    table = standings(t)[0]
    assert [r.score for r in table.rows] == [4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 0]
    assert [tb.label for tb in table.tiebreaks] == ["Buch", "MBuch", "+/-"]
    # every player met four different opponents
    assert all(len(v) == 4 for v in met_of(t, 5).values())


def test_random_swiss_tournaments_end_with_a_table_sorted_by_score_and_tiebreaks() -> None:
    rng = random.Random(7)
    for n in (5, 9, 16, 33, 64):
        t = play_out(build(TournamentSpec(Format.SWISS), n), random_winner(rng), rng)
        rows = standings(t)[0].rows
        keys = [(r.score, *(v or 0 for v in r.tiebreaks)) for r in rows]
        assert keys == sorted(keys, reverse=True)
        assert t.round == (n - 1).bit_length()
        byes = Counter(m.result.winner for m in t.matches if m.result is not None and m.result.how is How.BYE)
        assert all(c == 1 for c in byes.values())


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 12), st.floats(0, 1), st.integers(0, 2**32))
def test_the_matching_is_maximum(n: int, density: float, seed: int) -> None:
    rng = random.Random(seed)
    edges = {(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < density}
    adjacency: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    mate = max_matching(adjacency)
    for v, w in enumerate(mate):
        if w != -1:
            assert mate[w] == v and (min(v, w), max(v, w)) in edges
    assert sum(1 for w in mate if w != -1) // 2 == _brute_matching(tuple(range(n)), frozenset(edges))


def _brute_matching(vertices: tuple[int, ...], edges: frozenset[tuple[int, int]]) -> int:
    if len(vertices) < 2:
        return 0
    v, rest = vertices[0], vertices[1:]
    best = _brute_matching(rest, edges)
    for w in rest:
        if (v, w) in edges:
            best = max(best, 1 + _brute_matching(tuple(x for x in rest if x != w), edges))
    return best
