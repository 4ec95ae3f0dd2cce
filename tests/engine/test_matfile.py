"""``.mat`` match files: the layout GNU Backgammon writes, import of its own files, and round trips."""

from __future__ import annotations

import pytest

from engine.match import (
    Action,
    Beaver,
    Double,
    EndReason,
    MatchOptions,
    MatchSetup,
    Move,
    OpeningRoll,
    OpeningRule,
    Pass,
    Resign,
    Roll,
    Take,
    replay,
)
from engine.matfile import MatFileError, export_mat, import_mat
from engine.plugins import get_variant, registry
from engine.selfplay import play_match

BG = get_variant("backgammon")

#: The first three games of a 5-point match written by GNU Backgammon 1.07's ``export match mat``
#: (gnubg playing itself), trailing blanks included.
GNUBG_FILE = "\n".join(
    [
        '; [EventDate "2026.11.30"]',
        "",
        " 5 point match",
        "",
        " Game 1",
        " gnubg : 0                      root : 0",
        "  1)                             21: 13/11 24/23 ",
        "  2) 52: 13/8 24/22              63: 8/5 11/5 ",
        "  3) 53: 8/3 6/3                 62: 13/7 7/5 ",
        "  4) 42: 8/4 6/4                 41: 13/9 9/8 ",
        "  5) 31: 22/21 24/21             21: 5/3 6/5 ",
        "  6) 43: 13/10 10/6              65: 23/18 24/18 ",
        "  7) 52: 6/1 3/1                 33: 18/15 18/15 13/10 13/10",
        "  8) 51: 6/5 8/3                 52: 3/1 6/1 ",
        "  9) 65: 13/7 7/2                32: 5/3 6/3 ",
        " 10) 63: 5/2 8/2                 62: 8/2 3/1 ",
        " 11) 51: 2/1 21/16               42: 8/4* 4/2 ",
        " 12) 66:                         22: 15/13 13/11 11/9* 3/1",
        " 13) 54: 25/21                    Doubles => 2",
        " 14)  Drops                       Wins 1 point ",
        "",
        " Game 2",
        " gnubg : 0                      root : 1",
        "  1)                             31: 8/5 6/5 ",
        "  2) 43: 13/9 24/21              53: 24/21 21/16* ",
        "  3) 52: 25/23 13/8               Doubles => 2",
        "  4)  Takes                      31: 16/13 6/5 ",
        "  5) 32: 23/21 24/21             43: 13/10 10/6 ",
        "  6) 63: 13/10 21/15             33: 24/21 21/18 18/15* 13/10*",
        "  7) 32: 25/22 25/23             63: 13/7 10/7 ",
        "  8) 65: 22/16 16/11             22: 15/13 13/11 11/9 9/7",
        "  9) 41: 8/4 6/5                 21: 13/11 6/5 ",
        " 10) 43: 8/5 8/4                 32: 11/8 8/6 ",
        " 11) 42: 11/7 6/4                63: 5/2* 8/2 ",
        " 12) 33: 25/22 13/10 13/10 10/7  53: 8/3* 6/3 ",
        " 13) 63:                         65: 7/1 6/1 ",
        " 14) 32:                         52: 13/8 8/6 ",
        " 15) 43: 25/21 8/5               43: 13/10 10/6 ",
        " 16) 44: 21/17 17/13 7/3 7/3     42: 7/3 7/5 ",
        " 17) 33: 13/10 10/7 10/7 5/2     51: 1/0 5/0 ",
        " 18) 31: 7/6 4/1                 55: 6/1 5/0 5/0 5/0",
        " 19) 54: 21/17 17/12             55: 6/1 6/1 6/1 3/0",
        " 20) 63: 12/6 21/18              65: 3/0 3/0 ",
        " 21) 11: 18/17 17/16 16/15 7/6   42: 2/0 2/0 ",
        " 22) 44: 15/11 11/7 7/3 6/2      62: 1/0 1/0 ",
        "                                  Wins 2 points",
        "",
        " Game 3",
        " gnubg : 0                      root : 3",
        "  1) 61: 13/7 8/7                63: 24/21 21/15 ",
        "  2) 64: 13/7 24/20              43: 8/5* 15/11 ",
        "  3) 66:                         41: 6/5 24/20 ",
        "  4) 21: 25/23 6/5*              31: 25/22 6/5 ",
        "  5) 55: 8/3* 8/3 7/2 7/2        33: ",
        "  6)  Doubles => 2                Drops",
        "      Wins 1 point",
        "",
        "",
    ]
)


def test_export_layout_matches_gnu_backgammon() -> None:
    setup = MatchSetup(BG, (("Alice",), ("Bob",)), MatchOptions(length=3))
    actions: list[Action] = [
        OpeningRoll("Bob", (1, 3)),
        Move("Bob", ((8, 5, False), (6, 5, False))),
        Roll("Alice", (6, 4)),
        Move("Alice", ((24, 18, False), (13, 9, False))),
        Roll("Bob", (5, 2)),
        Move("Bob", ((13, 8, False), (13, 11, False))),
        Double("Alice"),
        Pass("Bob"),
        OpeningRoll("Alice", (6, 1)),
        Move("Alice", ((13, 7, False), (8, 7, False))),
        Resign("Bob", 2),
    ]
    text = export_mat(setup, actions)
    assert text.splitlines() == [
        '; [Player 1 "Alice"]',
        '; [Player 2 "Bob"]',
        '; [Crawford "On"]',
        '; [CubeLimit "64"]',
        "",
        " 3 point match",
        "",
        " Game 1",
        " Alice : 0                      Bob : 0",
        "  1)                             31: 8/5 6/5",
        "  2) 64: 24/18 13/9              52: 13/8 13/11",
        "  3)  Doubles => 2                Drops",
        "      Wins 1 point",
        "",
        " Game 2",
        " Alice : 1                      Bob : 0",
        "  1) 61: 13/7 8/7",
        "      Wins 2 points",
        "",
    ]
    state = replay(setup, actions)
    assert state.over and state.score == (3, 0)


def test_import_reads_a_gnu_backgammon_export() -> None:
    setup, actions = import_mat(GNUBG_FILE)
    assert setup.sides == (("gnubg",), ("root",)) and setup.options.length == 5
    state = replay(setup, actions)
    assert [(r.winner, r.points) for r in state.results] == [(1, 1), (1, 2), (0, 1)]
    assert state.score == (1, 3)
    assert state.results[0].reason is EndReason.PASS


def test_gnu_backgammon_file_round_trips_through_our_export() -> None:
    setup, actions = import_mat(GNUBG_FILE)
    again = import_mat(export_mat(setup, actions))
    assert replay(*again).results == replay(setup, actions).results


ROUND_TRIPS = [
    ("backgammon", MatchOptions(length=7), 11),
    ("backgammon", MatchOptions(length=5, crawford=False), 12),
    ("backgammon", MatchOptions(games=6, jacoby=True, beavers=True), 13),
    ("backgammon", MatchOptions(games=4, beavers=True, beaver_limit=1, max_cube=16), 14),
    ("doubles", MatchOptions(length=5), 15),
    ("backgammon", MatchOptions(length=5, opening=OpeningRule.REROLL), 16),
    ("backgammon", MatchOptions(games=4, opening=OpeningRule.PREVIOUS_WINNER), 17),
]


@pytest.mark.parametrize(("name", "options", "seed"), ROUND_TRIPS)
def test_self_played_matches_round_trip(name: str, options: MatchOptions, seed: int) -> None:
    state, actions = play_match(get_variant(name), options, seed)
    text = export_mat(state.setup, actions)
    setup2, actions2 = import_mat(text)
    assert setup2.options == state.setup.options and type(setup2.variant) is type(state.setup.variant)
    state2 = replay(setup2, actions2)
    assert state2.results == state.results and state2.score == state.score and state2.over
    assert export_mat(setup2, actions2) == text


def test_variation_tag_round_trips_when_a_variant_has_one() -> None:
    tagged = [cls for cls in registry().variants.values() if cls.mat_variation]
    if not tagged:
        pytest.skip("no registered rule set has a .mat variation tag yet")
    for cls in tagged:
        state, actions = play_match(cls(), MatchOptions(length=3), 5)
        text = export_mat(state.setup, actions)
        assert f'[Variation "{cls.mat_variation}"]' in text
        setup2, actions2 = import_mat(text)
        assert type(setup2.variant) is cls and replay(setup2, actions2).score == state.score


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a .mat file"),
        (" 3 point match\n\n Game 1\n", "no games|score line"),
        (" three point match\n", "expected '<N> point match'"),
        (" 3 point match\n Game 1\n a : 0    b : 0\n  1) 31: 8/5 6/5 hello\n", "cannot read"),
        (" 3 point match\n Game 1\n a : 0    b : 0\n  1) 31: 8/4 6/5\n", "line 4"),
        (" 3 point match\n Game 1\n a : 0    b : 0\n  1) 33: 8/5 6/5\n", "doublet"),
        ('; [Variation "Chouette"]\n 3 point match\n Game 1\n a : 0    b : 0\n', "not a rule set here"),
        (" 3 point match\n Game 1\n a : 0    b : 0\n  1) 31: 8/5 6/5\n      Wins 4 points\n", "line 5.*4 points"),
    ],
)
def test_bad_files_name_the_line_and_the_problem(text: str, message: str) -> None:
    with pytest.raises(MatFileError, match=message):
        import_mat(text)


def test_take_and_money_session_header() -> None:
    setup = MatchSetup(BG, (("a",), ("b",)), MatchOptions(games=2, jacoby=True))
    actions: list[Action] = [
        OpeningRoll("a", (3, 1)),
        Move("a", ((8, 5, False), (6, 5, False))),
        Double("b"),
        Take("a"),
    ]
    text = export_mat(setup, actions)
    assert '[Jacoby "On"]' in text and '[Games "2"]' in text and " 0 point match" in text
    assert "  2)  Takes" in text
    setup2, actions2 = import_mat(text)
    assert actions2 == actions and setup2.options == setup.options


#: GNU Backgammon 1.07's export of: gnubg 31 8/5 6/5; root doubles; gnubg beavers; root takes (not written)
#: and rolls 52.
GNUBG_BEAVER = "\n".join(
    [
        '; [EventDate "2026.11.30"]',
        "",
        " 0 point match",
        "",
        " Game 1",
        " gnubg : 0                      root : 0",
        "  1) 31: 8/5 6/5                  Doubles => 2",
        "  2)  Beavers => 4               52: 13/8 13/11 ",
        "  3) 42: 8/4 6/4                 61: 13/7 8/7 ",
        "",
    ]
)


def test_the_doublers_take_of_a_beaver_is_implied_as_gnu_backgammon_writes_it() -> None:
    setup, actions = import_mat(GNUBG_BEAVER)
    assert setup.options.beavers  # no Beaver tag, but the file has a beaver
    assert [type(a) for a in actions[2:6]] == [Double, Beaver, Take, Roll]
    state = replay(setup, actions)
    assert state.cube.value == 4 and state.cube.owner == 0
    text = export_mat(setup, actions)
    assert "  2)  Beavers => 4               52: 13/8 13/11" in text.splitlines()
    assert replay(*import_mat(text)) == state
