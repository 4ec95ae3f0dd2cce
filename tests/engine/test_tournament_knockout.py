"""Knockout brackets: a valid bracket for every number of entrants from 2 to 256 (byes only in round 1 and to
the top seeds; each round pairs everyone left exactly once), double elimination (one winner; everyone else out
after exactly two losses), and a 12-player knockout played to the end."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.tournament import (
    Bracket,
    Format,
    How,
    Tournament,
    TournamentSpec,
    advance,
    bracket_positions,
    champion,
    disqualify,
    pairings,
    record_result,
    standings,
)

from .test_tournament import build, play_out, play_round, random_winner


def test_bracket_positions_keep_the_top_seeds_apart() -> None:
    assert bracket_positions(2) == [1, 2]
    assert bracket_positions(4) == [1, 4, 2, 3]
    assert bracket_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (16, 32, 64, 128, 256):
        order = bracket_positions(size)
        assert sorted(order) == list(range(1, size + 1))
        # each first-round pair adds up to size + 1; seeds 1 and 2 sit in different halves
        assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
        assert (order.index(1) < size // 2) != (order.index(2) < size // 2)


@pytest.mark.parametrize("n", range(2, 257))
def test_every_bracket_from_2_to_256_entrants_is_valid(n: int) -> None:
    t = build(TournamentSpec(Format.KNOCKOUT), n, ratings=True)
    size = 1 << (n - 1).bit_length()
    rounds = size.bit_length() - 1
    assert t.planned_rounds == rounds
    byes = [m for m in pairings(t) if m.is_bye]
    # byes only in round 1, one per missing place, to the top seeds (p0 is seed 1, p1 seed 2, ...)
    assert sorted(t.seed(m.a or "") for m in byes) == list(range(1, size - n + 1))
    assert all(m.a is not None and m.b is None for m in byes)
    rng = random.Random(n)
    left = set(t.seeds)
    while not t.finished:
        current = pairings(t)
        seated = Counter(e for m in current for e in m.entrants)
        assert set(seated) == left and set(seated.values()) == {1}, f"round {t.round} does not seat everyone once"
        if t.round > 1:
            assert not any(m.is_bye for m in current)
        t = play_round(t, random_winner(rng))
        left = {m.result.winner for m in pairings(t) if m.result is not None and m.result.winner is not None}
        t = advance(t)
    assert t.round == rounds and len(left) == 1 and champion(t) in left
    assert sum(1 for m in t.matches if m.result is not None and m.result.how is How.PLAYED) == n - 1


def losses_of(t: Tournament) -> Counter[str]:
    return Counter(m.result.loser for m in t.matches if m.result is not None and m.result.loser is not None)


@pytest.mark.parametrize("n", [*range(2, 41), 63, 64, 65, 100, 128, 129, 200, 256])
def test_double_elimination_ends_with_one_winner_and_everyone_else_out_after_two_losses(n: int) -> None:
    rng = random.Random(n)
    t = build(TournamentSpec(Format.KNOCKOUT, double_elimination=True), n)
    eliminated_in: dict[str, int] = {}

    def check(now: Tournament) -> None:
        # nobody with two losses plays again; everybody with fewer than two is still placed somewhere ahead
        counts = losses_of(now)
        for m in pairings(now):
            for e in m.entrants:
                assert counts[e] < 2, f"{e} plays {m.id} after two losses"
        for e, c in counts.items():
            if c >= 2:
                eliminated_in.setdefault(e, now.round)

    t = play_out(t, random_winner(rng), check=check)
    counts = losses_of(t)
    winner = champion(t)
    assert winner is not None and counts[winner] <= 1
    assert all(counts[e] == 2 for e in t.seeds if e != winner), counts
    assert sorted(e for e in t.seeds if e != winner) == sorted(eliminated_in)
    assert standings(t)[0].rows[0].entrant == winner


def test_the_grand_final_is_replayed_when_the_losers_champion_wins_it() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT, double_elimination=True), 4)
    # p0 wins the winners' bracket; p1 comes through the losers' bracket and wins the first grand final
    favourite = {"p0": 0, "p1": 1, "p2": 2, "p3": 3}
    final_round = t.match("GF1").round

    def choose(t: Tournament, a: str, b: str) -> str:
        return "p1" if t.round == final_round and "p1" in (a, b) else min(a, b, key=favourite.__getitem__)

    while t.match("GF1").result is None:
        t = advance(play_round(t, choose))
    assert t.match("GF1").result.winner == "p1"  # type: ignore[union-attr]
    reset = t.match("GF2")
    assert t.round == reset.round and (reset.a, reset.b) == ("p0", "p1")
    t = advance(record_result(t, "GF2", "p0", 7, 6))
    assert t.finished and champion(t) == "p0"
    assert losses_of(t)["p0"] == 1 and losses_of(t)["p1"] == 2


def test_the_reset_is_void_when_the_winners_champion_takes_the_first_grand_final() -> None:
    t = play_out(build(TournamentSpec(Format.KNOCKOUT, double_elimination=True), 8), lambda t, a, b: min(a, b))
    reset = t.match("GF2").result
    assert reset is not None and reset.how is How.VOID and "not needed" in reset.note
    assert champion(t) == "p0" and t.round == t.match("GF1").round


def test_a_twelve_player_knockout_played_to_the_end() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT, name="Cup"), 12, ratings=True)
    # 16 places: the top four seeds (p0..p3) have byes; seed 5 meets seed 12, and so on
    first = {(m.a, m.b) for m in pairings(t)}
    assert first == {
        ("p0", None), ("p7", "p8"), ("p3", None), ("p4", "p11"),
        ("p1", None), ("p6", "p9"), ("p2", None), ("p5", "p10"),
    }  # fmt: skip
    # the bye winners already wait in round 2, each against the winner of a first-round match
    assert [(m.id, m.a, m.feeds[1]) for m in t.matches if m.round == 2] == [
        ("R2-1", "p0", "W:R1-2"),
        ("R2-2", "p3", "W:R1-4"),
        ("R2-3", "p1", "W:R1-6"),
        ("R2-4", "p2", "W:R1-8"),
    ]
    # the underdog wins every match (the higher entrant number)
    t = play_out(t, lambda t, a, b: max(a, b, key=lambda e: int(e[1:])))
    assert champion(t) == "p11"
    final = t.match("R4-1")
    assert final.result is not None and {final.a, final.b} == {"p11", "p10"}
    table = standings(t)[0]
    assert [(r.rank, r.entrant) for r in table.rows[:4]] == [(1, "p11"), (2, "p10"), (3, "p8"), (3, "p9")]
    assert [r.rank for r in table.rows[4:]] == [5] * 4 + [9] * 4
    assert table.explain() == "Ranked by the round reached."


def test_a_disqualified_player_gives_a_walkover_when_their_next_match_comes() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT), 8)
    t = play_round(t, lambda t, a, b: a)
    t = disqualify(t, "p0")  # p0 won round 1; their round 2 match is a walkover once round 2 starts
    assert t.match("R2-1").result is None
    t = advance(t)
    r = t.match("R2-1").result
    assert r is not None and r.how is How.WALKOVER and r.winner == "p3" and r.note == "Player 0 was disqualified"


def test_a_match_emptied_by_two_disqualifications_passes_a_bye_on() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT), 8)
    t = play_round(t, lambda t, a, b: a)  # p0 and p3 win and meet in R2-1
    t = advance(disqualify(disqualify(t, "p0"), "p3"))
    void = t.match("R2-1").result
    assert void is not None and void.how is How.VOID and void.winner is None
    t = advance(play_round(t, lambda t, a, b: a))  # the final is a bye: the tournament is over
    final = t.match("R3-1")
    assert final.result is not None and final.result.how is How.BYE and final.a is None
    assert t.finished and t.round == 2 and champion(t) == final.b == final.result.winner


def test_double_elimination_places_the_losers_bracket_in_the_picture() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT, double_elimination=True), 8)
    kinds = Counter(m.bracket for m in t.matches)
    assert kinds == {Bracket.WINNERS: 7, Bracket.LOSERS: 6, Bracket.FINAL: 2}
    # losers' round 2 takes the losers of winners' round 2, crossed over so they do not meet again at once
    assert [m.feeds for m in t.matches if m.id.startswith("L2-")] == [
        ("W:L1-1", "L:W2-2"),
        ("W:L1-2", "L:W2-1"),
    ]
    assert t.planned_rounds == t.match("GF2").round == 7
