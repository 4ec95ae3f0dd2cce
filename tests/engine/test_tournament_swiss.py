"""Swiss pairing against an independent reference (tests/engine/swiss_reference.py, which shares no code with the
pairing): over random tournaments of 4 to 64 players, odd and even, with up to log2(n) + 2 rounds, random results
and now and then a disqualification, every round's pairing is optimal on the priorities, in their order (a brute
force over every pairing up to ten players, a generic matching of the test's own above). Then the two findings that
the old pairing got wrong, a full 16-player Swiss of four rounds, the bye rule, and the weighted matching against a
brute force."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import (
    ByeRule,
    Format,
    Tournament,
    TournamentSpec,
    advance,
    champion,
    disqualify,
    from_data,
    pairings,
    to_data,
)
from engine.tournament import standings as standings_of
from engine.tournament.matching import max_matching, max_weight_matching, min_cost_perfect_matching
from engine.tournament.swiss import swiss_pairings

from .swiss_reference import Facts, brute_force, by_matching, costs, facts, reference_matching, round_pairing
from .test_tournament import build, play_out, play_round, random_winner


def check_round(t: Tournament) -> None:
    """The round just paired is optimal on the priorities (costs compared as tuples: in order)."""
    f = facts(t, t.round)
    pairs, bye = round_pairing(t, t.round)
    seated = sorted([p for pair in pairs for p in pair] + ([bye] if bye else []))
    assert seated == sorted(f.ranked), "everyone still in is paired once"
    rematch_first = t.spec.bye_rule is ByeRule.NO_REMATCH
    made = costs(f, pairs, bye, rematch_first)
    if len(f.ranked) <= 10:
        best = brute_force(f, rematch_first)
        assert by_matching(f, rematch_first) == best, "the reference matching agrees with the brute force"
    else:
        best = by_matching(f, rematch_first)
    assert made == best, f"round {t.round}: {made} where {best} was possible"


#: The random tournaments the property is checked on: (the sizes, tournaments of each size). Small fields are many
#: (the brute force checks them, and they are quick); larger ones, odd and even, up to 64. benchmarks/tournament.py
#: --swiss-check runs the same check over as many more as asked (1,000 and more).
FIELDS = (
    (tuple(range(4, 11)), 8),
    (tuple(range(11, 17)), 6),
    (tuple(range(17, 33)), 2),
    ((*range(33, 65, 2), *range(36, 65, 4)), 1),
)


def swiss_run(n: int, seed: int, rule: ByeRule, drop: bool) -> int:
    """One random Swiss of ``n`` players with log2(n) + 2 rounds (random results; with ``drop``, a player is
    disqualified after round 2), every round checked against the reference. Returns the rounds checked."""
    rng = random.Random(seed)
    rounds = int(math.log2(n)) + 2
    t = build(TournamentSpec(Format.SWISS, rounds=rounds, bye_rule=rule), n)
    check_round(t)
    checked = 1
    while not t.finished:
        t = play_round(t, random_winner(rng), rng)
        if drop and t.round == 2 and not t.withdrawn:
            t = disqualify(t, rng.choice(t.seeds))
        t = advance(t)
        if not t.finished:
            check_round(t)
            checked += 1
    assert t.round == rounds
    return checked


@pytest.mark.parametrize(("sizes", "each"), FIELDS, ids=lambda v: f"{v[0]}-{v[-1]}" if isinstance(v, tuple) else str(v))
def test_every_round_is_optimal_on_the_priorities_in_order(sizes: tuple[int, ...], each: int) -> None:
    """Seeded, so the same tournaments every run; the seed, size and rule are in the failure's message."""
    checked = 0
    for n in sizes:
        for k in range(each):
            seed = 1000 * n + k
            rule = list(ByeRule)[(n + k) % 2]
            try:
                checked += swiss_run(n, seed, rule, drop=(n + k) % 3 == 0)
            except AssertionError as exc:
                raise AssertionError(f"n={n} seed={seed} rule={rule.value}: {exc}") from exc
    assert checked >= len(sizes) * each * 3


def test_the_bye_rule_is_kept_with_the_tournament() -> None:
    for rule in ByeRule:
        t = build(TournamentSpec(Format.SWISS, rounds=3, bye_rule=rule), 5)
        assert from_data(json.loads(json.dumps(to_data(t)))) == t


def small_facts(score: dict[str, int], met: dict[str, list[str]], ranked: list[str]) -> Facts:
    from collections import Counter

    return Facts(2, tuple(ranked), score, {p: set(v) for p, v in met.items()}, Counter(), frozenset())


def test_eight_players_stay_in_their_score_groups_when_they_can() -> None:
    """The first finding: a pairing inside every score group exists without a rematch; the old pairing made two
    pairs across groups."""
    ranked = ["P4", "P5", "P1", "P2", "P3", "P6", "P7", "P8"]
    score = {"P1": 1, "P2": 1, "P3": 1, "P4": 2, "P5": 2, "P6": 1, "P7": 0, "P8": 0}
    met = {
        "P1": ["P5", "P7"], "P2": ["P4", "P6"], "P3": ["P5", "P7"], "P4": ["P2", "P8"],
        "P5": ["P1", "P3"], "P6": ["P2", "P8"], "P7": ["P1", "P3"], "P8": ["P4", "P6"],
    }  # fmt: skip
    pairs, bye = swiss_pairings(ranked, score, {p: set(v) for p, v in met.items()}, {})
    assert bye is None
    assert all(score[a] == score[b] for a, b in pairs), pairs
    assert not any(b in met[a] for a, b in pairs)
    # top half against bottom half in the group of four on one win (P1 P2 | P3 P6), without a rematch
    assert sorted(map(sorted, pairs)) == [["P1", "P6"], ["P2", "P3"], ["P4", "P5"], ["P7", "P8"]]
    assert costs(small_facts(score, met, ranked), pairs, None)[3] == 0


def test_six_players_are_paired_with_the_smallest_score_differences() -> None:
    """The second finding: the old pairing's score differences added up to 5 where 3 is possible."""
    ranked = ["P5", "P2", "P4", "P3", "P6", "P1"]
    score = {"P1": 0, "P2": 2, "P3": 1, "P4": 2, "P5": 3, "P6": 1}
    met = {
        "P1": ["P4", "P5", "P6"], "P2": ["P3", "P5", "P6"], "P3": ["P2", "P4", "P6"],
        "P4": ["P1", "P3", "P5"], "P5": ["P1", "P2", "P4"], "P6": ["P1", "P2", "P3"],
    }  # fmt: skip
    pairs, bye = swiss_pairings(ranked, score, {p: set(v) for p, v in met.items()}, {})
    assert not any(b in met[a] for a, b in pairs)
    assert sum(abs(score[a] - score[b]) for a, b in pairs) == 3, pairs
    f = small_facts(score, met, ranked)
    assert costs(f, pairs, None) == brute_force(f)


def test_the_bye_rule_decides_between_a_second_bye_and_a_rematch() -> None:
    """Three players who have all met, one of whom had the bye: either the bye goes to someone who has had one, or
    two players meet again."""
    ranked = ["A", "B", "C"]
    score = {"A": 2, "B": 1, "C": 1}
    met = {"A": {"B", "C"}, "B": {"A", "C"}, "C": {"A", "B"}}
    byes = {"A": 1, "B": 1, "C": 1}
    # everyone has had a bye and everyone has met everyone: both rules need a rematch and a second bye
    pairs, bye = swiss_pairings(ranked, score, met, byes)
    assert bye == "C" and pairs == [("A", "B")]
    byes = {"A": 0, "B": 1, "C": 1}  # only A may have the bye, and then B meets C again
    pairs, bye = swiss_pairings(ranked, score, met, byes, rule=ByeRule.ONE_BYE)
    assert bye == "A" and pairs == [("B", "C")]
    met = {"A": {"B", "C"}, "B": {"A"}, "C": {"A"}}  # B and C have not met: C's second bye, or A's rematch
    pairs, bye = swiss_pairings(ranked, score, met, {"A": 0, "B": 1, "C": 1}, rule=ByeRule.ONE_BYE)
    assert bye == "A" and pairs == [("B", "C")]
    met = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}  # only A-C is new, and then B would have a second bye
    pairs, bye = swiss_pairings(ranked, score, met, {"A": 0, "B": 1, "C": 0}, rule=ByeRule.NO_REMATCH)
    assert bye == "B" and pairs == [("A", "C")]
    pairs, bye = swiss_pairings(ranked, score, met, {"A": 0, "B": 1, "C": 0}, rule=ByeRule.ONE_BYE)
    assert bye in ("A", "C") and len(pairs) == 1 and bye not in pairs[0]


def test_a_player_who_floated_last_round_does_not_float_again() -> None:
    """Five players, three on one win: one of the three must float down; the lowest-ranked would, but it floated
    (its bye) last round, so the next one up floats instead."""
    ranked = ["A", "D", "E", "B", "C"]
    score = {"A": 1, "D": 1, "E": 1, "B": 0, "C": 0}
    met = {"A": {"B"}, "B": {"A"}, "C": set(), "D": set(), "E": set()}  # A cannot float: it met B
    pairs, bye = swiss_pairings(ranked, score, met, {"E": 1}, floated=frozenset({"E"}))
    assert bye == "C"
    assert ("D", "B") in pairs and ("A", "E") in pairs
    pairs, bye = swiss_pairings(ranked, score, met, {"E": 1})
    assert bye == "C" and ("E", "B") in pairs and ("A", "D") in pairs


def test_a_sixteen_player_swiss_of_four_rounds() -> None:
    t = build(TournamentSpec(Format.SWISS, name="Spring Swiss", rounds=4), 16, ratings=True)
    # round 1: top half against bottom half: seed 1 meets seed 9, seed 2 seed 10, ...
    assert [(m.a, m.b) for m in pairings(t)] == [(f"p{i}", f"p{i + 8}") for i in range(8)]

    def seen(now: Tournament) -> None:
        if now.finished:
            return
        check_round(now)
        f = facts(now, now.round)
        for m in pairings(now):  # winners meet winners, and so on down
            assert m.a is not None and m.b is not None and f.score[m.a] == f.score[m.b], m
        if now.round == 2:
            assert [(m.a, m.b) for m in pairings(now)] == [
                ("p0", "p4"), ("p1", "p5"), ("p2", "p6"), ("p3", "p7"),
                ("p8", "p12"), ("p9", "p13"), ("p10", "p14"), ("p11", "p15"),
            ]  # fmt: skip

    t = play_out(t, lambda t, a, b: min(a, b, key=t.seed), check=seen)  # the higher seed always wins
    assert t.round == 4 and champion(t) == "p0"
    table = standings_of(t)[0]
    assert [r.score for r in table.rows] == [4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 0]
    assert [tb.label for tb in table.tiebreaks] == ["Buch", "MBuch", "+/-"]
    pairs = [frozenset((m.a, m.b)) for m in t.matches if m.b is not None]
    assert len(pairs) == len(set(pairs)) == 32  # every player met four different opponents


def test_a_round_of_256_players_is_paired() -> None:
    """The largest field: round 6 of 256 has no rematch, no second bye, and few floats (its speed is measured by
    benchmarks/tournament.py, not here)."""
    rng = random.Random(11)
    t = build(TournamentSpec(Format.SWISS, rounds=9), 256)
    while t.round < 5:
        t = advance(play_round(t, random_winner(rng), rng))
    f = facts(t, t.round)
    pairs, bye = round_pairing(t, t.round)
    made = costs(f, pairs, bye)
    assert made[:2] == (0, 0)  # no rematch, no second bye
    assert made[3] <= len({f.score[p] for p in f.ranked})  # about one float down from each score group at most


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 10), st.floats(0, 1), st.integers(0, 2**32), st.booleans())
def test_the_weighted_matching_is_maximum(n: int, density: float, seed: int, cardinality: bool) -> None:
    """Against a brute force: the greatest weight (among the largest matchings, when asked), and duals that prove it
    (no edge below zero slack, every matched edge tight)."""
    rng = random.Random(seed)
    edges = [(a, b, rng.randint(0, 30)) for a, b in itertools.combinations(range(n), 2) if rng.random() < density]
    found = max_weight_matching(n, edges, max_cardinality=cardinality)
    mate = found.mate
    weight = {(a, b): w for a, b, w in edges}
    for v, w in enumerate(mate):
        if w != -1:
            assert mate[w] == v and (min(v, w), max(v, w)) in weight
    got = (sum(1 for w in mate if w != -1) // 2, sum(weight[(v, w)] for v, w in enumerate(mate) if v < w))
    best = _brute_weight(tuple(range(n)), weight, cardinality)
    assert got == best if cardinality else got[1] == best[1]
    if cardinality and all(w != -1 for w in mate):
        for (a, b), w in weight.items():
            assert found.reduced(a, b, w) >= 0
            assert mate[a] != b or found.reduced(a, b, w) == 0


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.integers(1, 6), st.integers(0, 2**32), st.integers(1, 4))
def test_the_cheapest_perfect_matching_from_a_few_candidates_is_the_cheapest_of_all(
    half: int, seed: int, near: int
) -> None:
    """Found among a few candidate partners, then proved by the duals over every pair: the same cost as the test's
    own matching over every pair."""
    rng = random.Random(seed)
    n = 2 * half
    cost = [[0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        cost[i][j] = cost[j][i] = rng.randint(0, 50)
    candidates = [rng.sample([j for j in range(n) if j != i], min(near, n - 1)) for i in range(n)]
    mate = min_cost_perfect_matching(cost, candidates)
    assert sorted(mate) == list(range(n)) and all(mate[mate[v]] == v for v in range(n))
    big = 10_000
    ref = reference_matching([[big - cost[i][j] if i != j else 0 for j in range(n)] for i in range(n)])
    assert sum(cost[v][mate[v]] for v in range(n)) == sum(cost[v][ref[v]] for v in range(n))


def _brute_weight(vertices: tuple[int, ...], weight: dict[tuple[int, int], int], cardinality: bool) -> tuple[int, int]:
    """(pairs, weight) of the best matching: the most weight (among those with the most pairs, if asked)."""
    if len(vertices) < 2:
        return (0, 0)
    v, rest = vertices[0], vertices[1:]
    options = [_brute_weight(rest, weight, cardinality)]
    for w in rest:
        if (v, w) in weight:
            pairs, total = _brute_weight(tuple(x for x in rest if x != w), weight, cardinality)
            options.append((pairs + 1, total + weight[(v, w)]))
    if cardinality:
        return max(options)
    best = max(total for _pairs, total in options)
    return (max(p for p, total in options if total == best), best)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 12), st.floats(0, 1), st.integers(0, 2**32))
def test_the_cardinality_matching_is_maximum(n: int, density: float, seed: int) -> None:
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
    assert sum(1 for w in mate if w != -1) // 2 == _brute_weight(tuple(range(n)), dict.fromkeys(edges, 0), True)[0]
