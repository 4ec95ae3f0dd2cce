"""Tiebreaks checked against tables worked out by hand (the arithmetic is in the comments).

Round robin: wins, then head-to-head (wins against the entrants level on wins: a mini-league, re-applied to those
still level), then points difference, then the seed. Swiss: score (wins, a bye counting as one), then Buchholz (the
sum of the opponents' scores), then median Buchholz (the same without the best and the worst opponent), then points
difference, then the seed; or Buchholz cut-1 or Sonneborn-Berger first.
"""

from __future__ import annotations

from engine.tournament import (
    DivisionMode,
    Entrant,
    Format,
    Seeding,
    Tiebreak,
    Tournament,
    TournamentSpec,
    advance,
    join,
    new_tournament,
    open_matches,
    pairings,
    record_result,
    standings,
    start,
)

Results = dict[frozenset[str], tuple[str, int, int]]


def field(spec: TournamentSpec, names: str) -> Tournament:
    t = new_tournament(spec)
    for name in names:
        t = join(t, Entrant(name, name, (name,)))
    return start(t)


def beats(winner: str, loser: str, won: int, lost: int) -> tuple[frozenset[str], tuple[str, int, int]]:
    return frozenset((winner, loser)), (winner, won, lost)


def play(t: Tournament, results: Results) -> Tournament:
    """Record the given result of every open match, round after round, until the results run out."""
    while not t.finished and open_matches(t):
        for m in open_matches(t):
            winner, won, lost = results[frozenset(m.entrants)]
            t = record_result(t, m.id, winner, won, lost)
        t = advance(t)
    return t


def table(t: Tournament) -> list[tuple[int, str, int, tuple[int | None, ...]]]:
    (only,) = standings(t)
    return [(r.rank, r.entrant, r.score, r.tiebreaks) for r in only.rows]


def test_round_robin_head_to_head_comes_before_points_difference() -> None:
    t = play(
        field(TournamentSpec(Format.ROUND_ROBIN, seeding=Seeding.SIGNUP), "ABCD"),
        dict(
            [
                beats("A", "B", 7, 3),
                beats("A", "C", 7, 5),
                beats("D", "A", 7, 6),
                beats("B", "C", 7, 0),
                beats("B", "D", 7, 0),
                beats("C", "D", 7, 1),
            ]
        ),
    )
    # Wins: A 2 (B, C), B 2 (C, D), C 1 (D), D 1 (A).
    # A and B are level on 2 wins; A beat B, so A's head-to-head is 1 and B's 0: A first although
    #   B's points difference is better: A 7+7+6=20 for, 3+5+7=15 against, +5; B 3+7+7=17 for, 7+0+0=7, +10.
    # C and D are level on 1 win; C beat D: C above D.
    #   C 5+0+7=12 for, 7+7+1=15 against, -3; D 7+0+1=8 for, 6+7+7=20 against, -12.
    assert table(t) == [
        (1, "A", 2, (1, 5)),
        (2, "B", 2, (0, 10)),
        (3, "C", 1, (1, -3)),
        (4, "D", 1, (0, -12)),
    ]
    (only,) = standings(t)
    assert only.tiebreaks == (Tiebreak.HEAD_TO_HEAD, Tiebreak.POINTS_DIFFERENCE)
    assert only.explain() == (
        "Ranked by wins, then head-to-head (wins against the entrants level with you), "
        "then points difference (points won minus points lost), then seed (the higher seed first)."
    )
    assert [r.separated_by for r in only.rows] == [None, Tiebreak.HEAD_TO_HEAD, None, Tiebreak.HEAD_TO_HEAD]


def test_round_robin_three_way_tie_goes_to_points_difference() -> None:
    t = play(
        field(TournamentSpec(Format.ROUND_ROBIN, seeding=Seeding.SIGNUP), "ABCD"),
        dict(
            [
                beats("A", "B", 5, 1),
                beats("B", "C", 5, 4),
                beats("C", "A", 5, 3),
                beats("A", "D", 5, 0),
                beats("B", "D", 5, 2),
                beats("C", "D", 5, 4),
            ]
        ),
    )
    # A, B and C all have 2 wins, and each beat one of the other two: head-to-head 1 each, still level.
    # Points difference:  A  5+3+5=13 for, 1+5+0=6 against:   +7
    #                     B  1+5+5=11 for, 5+4+2=11 against:   0
    #                     C  4+5+5=14 for, 5+3+4=12 against:  +2
    #                     D  0+2+4=6 for,  5+5+5=15 against:  -9  (alone on 0 wins: no head-to-head)
    assert table(t) == [
        (1, "A", 2, (1, 7)),
        (2, "C", 2, (1, 2)),
        (3, "B", 2, (1, 0)),
        (4, "D", 0, (None, -9)),
    ]


def test_swiss_buchholz_then_median_buchholz_then_points_difference() -> None:
    t = field(TournamentSpec(Format.SWISS, rounds=3, seeding=Seeding.SIGNUP), "ABCDEFGH")
    # Round 1 folds the field (A-E, B-F, C-G, D-H); then score groups fold (winners E F G H: E-G, F-H;
    # losers A B C D: A-C, B-D). Round 3: E-F (2 wins each); on one win C D G H fold to C-G, a rematch, so
    # C takes the next one down, H, and D meets G; A-B (no wins).
    t = play(
        t,
        dict(
            [
                beats("E", "A", 5, 4),
                beats("F", "B", 5, 4),
                beats("G", "C", 5, 0),
                beats("H", "D", 5, 1),
                beats("E", "G", 5, 2),
                beats("F", "H", 5, 3),
                beats("C", "A", 5, 4),
                beats("D", "B", 5, 4),
                beats("F", "E", 5, 0),
                beats("H", "C", 5, 0),
                beats("G", "D", 5, 3),
                beats("B", "A", 5, 0),
            ]
        ),
    )
    assert [(m.a, m.b) for m in t.matches if m.round == 3] == [("E", "F"), ("C", "H"), ("D", "G"), ("A", "B")]
    # Scores: F 3; E, G, H 2; B, C, D 1; A 0.
    # Opponents' scores, Buchholz (sum) and median Buchholz (without the highest and the lowest):
    #   F: B1 H2 E2 -> 5, median 2        E: A0 G2 F3 -> 5, median 2        H: D1 F3 C1 -> 5, median 1
    #   G: C1 E2 D1 -> 4, median 1        D: H2 B1 G2 -> 5, median 2        C: G2 A0 H2 -> 4, median 2
    #   B: F3 D1 A0 -> 4, median 1        A: E2 C1 B1 -> 4, median 1
    # Points difference (for - against):
    #   F 15-7=+8  E 10-11=-1  H 13-6=+7  G 12-8=+4  D 9-14=-5  C 5-14=-9  B 13-10=+3  A 8-15=-7
    # E and H: same score and Buchholz; E's median Buchholz is higher, so E is above H despite H's +7.
    # C and B: the same; C's median 2 beats B's 1 although B's points difference (+3) is far better.
    assert table(t) == [
        (1, "F", 3, (5, 2, 8)),
        (2, "E", 2, (5, 2, -1)),
        (3, "H", 2, (5, 1, 7)),
        (4, "G", 2, (4, 1, 4)),
        (5, "D", 1, (5, 2, -5)),
        (6, "C", 1, (4, 2, -9)),
        (7, "B", 1, (4, 1, 3)),
        (8, "A", 0, (4, 1, -7)),
    ]
    (only,) = standings(t)
    assert [tb.label for tb in only.tiebreaks] == ["Buch", "MBuch", "+/-"]


def test_swiss_bye_scores_a_win_but_adds_nothing_to_buchholz() -> None:
    t = field(TournamentSpec(Format.SWISS, rounds=2, seeding=Seeding.SIGNUP), "ABCDE")
    # Round 1: five players, so the lowest-ranked (E) has the bye; A-C and B-D (top half against bottom half).
    assert [(m.a, m.b) for m in pairings(t)] == [("A", "C"), ("B", "D"), ("E", None)]
    t = record_result(record_result(t, "R1-1", "A", 3, 1), "R1-2", "D", 3, 1)
    t = advance(t)
    # Ranked A 1, D 1, E 1 (bye), B 0, C 0: C is the lowest-ranked without a bye. One of A, D, E floats down to B:
    # E floated last round (its bye) and D has met B, so A does; D meets E.
    assert [(m.a, m.b) for m in pairings(t)] == [("A", "B"), ("D", "E"), ("C", None)]
    t = record_result(record_result(t, "R2-1", "A", 3, 2), "R2-2", "D", 3, 0)
    t = advance(t)
    assert t.finished
    # Scores: A 2 (beat C, B), D 2 (beat B, E), C 1 (bye), E 1 (bye), B 0.
    # Buchholz: A: C1 + B0 = 1; D: B0 + E1 = 1; C: A2 = 2 (the bye is nobody); E: D2 = 2; B: D2 + A2 = 4.
    # With fewer than three opponents nothing is dropped: median Buchholz equals Buchholz.
    # Points: A 3+3 for, 1+2 against: +3; D 3+3 for, 1+0: +5; C 1 for, 3 against: -2; E 0-3: -3; B 1+2, 3+3: -3.
    # A and D are level on Buchholz and median Buchholz: points difference puts D first. C and E the same: C.
    assert table(t) == [
        (1, "D", 2, (1, 1, 5)),
        (2, "A", 2, (1, 1, 3)),
        (3, "C", 1, (2, 2, -2)),
        (4, "E", 1, (2, 2, -3)),
        (5, "B", 0, (4, 4, -3)),
    ]
    (only,) = standings(t)
    assert [r.separated_by for r in only.rows] == [
        None, Tiebreak.POINTS_DIFFERENCE, None, Tiebreak.POINTS_DIFFERENCE, None
    ]  # fmt: skip


def test_a_three_way_cycle_re_applies_head_to_head_to_the_two_still_level() -> None:
    t = play(
        field(TournamentSpec(Format.ROUND_ROBIN, seeding=Seeding.SIGNUP), "ABCD"),
        dict(
            [
                beats("A", "B", 5, 3),
                beats("B", "C", 5, 1),
                beats("C", "A", 5, 0),
                beats("A", "D", 7, 1),
                beats("B", "D", 5, 4),
                beats("C", "D", 5, 0),
            ]
        ),
    )
    # A, B and C have 2 wins each and beat one another in a cycle: head-to-head 1 each, no help.
    # Points difference:  A  +2 (5-3)  -5 (0-5)  +6 (7-1)  = +3
    #                     B  -2 (3-5)  +4 (5-1)  +1 (5-4)  = +3
    #                     C  -4 (1-5)  +5 (5-0)  +5 (5-0)  = +6   -> C first
    # A and B are still level (+3 each): head-to-head again, between the two of them: A beat B, so A is second.
    # (Applied once, head-to-head would have left A and B sharing second place.)
    # D: 0 wins, 1+4+0 = 5 for, 7+5+5 = 17 against: -12.
    assert table(t) == [
        (1, "C", 2, (1, 6)),
        (2, "A", 2, (1, 3)),
        (3, "B", 2, (0, 3)),
        (4, "D", 0, (None, -12)),
    ]
    (only,) = standings(t)
    assert [r.separated_by for r in only.rows] == [
        None, Tiebreak.POINTS_DIFFERENCE, Tiebreak.HEAD_TO_HEAD, None
    ]  # fmt: skip


def test_a_four_way_tie_re_applies_head_to_head_within_each_part() -> None:
    t = play(
        field(TournamentSpec(Format.ROUND_ROBIN, seeding=Seeding.SIGNUP), "ABCDEF"),
        dict(
            [
                # the four level on three wins, among themselves
                beats("A", "B", 5, 4),
                beats("C", "A", 5, 0),
                beats("D", "A", 5, 0),
                beats("B", "C", 5, 0),
                beats("C", "D", 5, 4),
                beats("D", "B", 5, 4),
                # and against E and F
                beats("A", "E", 5, 4),
                beats("A", "F", 5, 4),
                beats("B", "E", 5, 0),
                beats("B", "F", 5, 0),
                beats("C", "E", 5, 4),
                beats("F", "C", 5, 4),
                beats("D", "F", 5, 0),
                beats("E", "D", 5, 4),
                beats("E", "F", 5, 4),
            ]
        ),
    )
    # Wins: A, B, C, D 3 each; E 2; F 1.
    # Among A B C D: A beat B (1), B beat C (1), C beat A and D (2), D beat A and B (2): C and D above A and B.
    # Each pair still level is ranked again between its two: C beat D, and A beat B.
    # Points difference would have put D (+9) above C (+1) and B (+13) above A (-7):
    #   A +1 -5 -5 +1 +1 = -7;  B -1 +5 -1 +5 +5 = +13;  C +5 -5 +1 +1 -1 = +1;  D +5 -1 +1 +5 -1 = +9
    #   E -1 -5 -1 +1 +1 = -5;  F -1 -5 +1 -5 -1 = -11
    assert table(t) == [
        (1, "C", 3, (1, 1)),
        (2, "D", 3, (0, 9)),
        (3, "A", 3, (1, -7)),
        (4, "B", 3, (0, 13)),
        (5, "E", 2, (None, -5)),
        (6, "F", 1, (None, -11)),
    ]
    (only,) = standings(t)
    assert [r.separated_by for r in only.rows] == [
        None, Tiebreak.HEAD_TO_HEAD, Tiebreak.HEAD_TO_HEAD, Tiebreak.HEAD_TO_HEAD, None, None
    ]  # fmt: skip


def test_swiss_tiebreaks_the_organiser_picks_buchholz_cut_1_and_sonneborn_berger() -> None:
    picks = (Tiebreak.BUCHHOLZ_CUT1, Tiebreak.SONNEBORN_BERGER, Tiebreak.POINTS_DIFFERENCE)
    t = field(TournamentSpec(Format.SWISS, rounds=2, seeding=Seeding.SIGNUP, tiebreaks=picks), "ABCDE")
    t = record_result(record_result(t, "R1-1", "A", 3, 1), "R1-2", "D", 3, 1)
    t = record_result(record_result(advance(t), "R2-1", "A", 3, 2), "R2-2", "D", 3, 0)
    t = advance(t)
    # The games of the bye test above. Buchholz cut-1 drops the weakest opponent (with two or more):
    #   A: C1 B0 -> 1; D: B0 E1 -> 1; C: A2 -> 2 (one opponent: nothing dropped); E: D2 -> 2; B: D2 A2 -> 2.
    # Sonneborn-Berger adds the scores of the opponents beaten: A: C1 + B0 = 1; D: B0 + E1 = 1; C, E, B: 0.
    assert table(t) == [
        (1, "D", 2, (1, 1, 5)),
        (2, "A", 2, (1, 1, 3)),
        (3, "C", 1, (2, 0, -2)),
        (4, "E", 1, (2, 0, -3)),
        (5, "B", 0, (2, 0, -3)),
    ]
    (only,) = standings(t)
    assert [tb.label for tb in only.tiebreaks] == ["Bc1", "SB", "+/-"]
    assert "Sonneborn-Berger (the sum of the scores of the opponents you beat)" in only.explain()


def test_entrants_equal_on_everything_are_ranked_by_seed_the_final_tiebreak() -> None:
    t = play(
        field(TournamentSpec(Format.ROUND_ROBIN, seeding=Seeding.SIGNUP), "ABC"),
        dict([beats("A", "B", 3, 1), beats("B", "C", 3, 1), beats("C", "A", 3, 1)]),
    )
    # everyone 1 win, head-to-head 1, points 4-4: the seed decides, and the table says so
    rows = standings(t)[0].rows
    assert [(r.rank, r.entrant, r.separated_by) for r in rows] == [
        (1, "A", None), (2, "B", Tiebreak.SEED), (3, "C", Tiebreak.SEED)
    ]  # fmt: skip
    assert [r.byes for r in rows] == [1, 1, 1] and [r.score for r in rows] == [1, 1, 1]  # a rest is no win


def test_a_league_with_divisions_has_a_table_per_division() -> None:
    t = field(TournamentSpec(Format.ROUND_ROBIN, divisions=2, seeding=Seeding.SIGNUP), "ABCDEFG")
    assert t.divisions == (("A", "B", "C", "D"), ("E", "F", "G"))
    tables = standings(t)
    assert [s.division for s in tables] == [1, 2]
    assert [[r.entrant for r in s.rows] for s in tables] == [["A", "B", "C", "D"], ["E", "F", "G"]]
    assert all(m.division in (1, 2) for m in t.matches)
    balanced = field(
        TournamentSpec(Format.ROUND_ROBIN, divisions=2, seeding=Seeding.SIGNUP, division_mode=DivisionMode.BALANCED),
        "ABCDEFG",
    )
    assert balanced.divisions == (("A", "D", "E"), ("B", "C", "F", "G"))
