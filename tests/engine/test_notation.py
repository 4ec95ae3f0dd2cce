"""Move notation: GNU Backgammon's canonical form, tolerant parsing, and round trips."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from engine import NotationError, Position, format_plain, format_play, parse_play
from engine.plugins import get_variant
from tests.engine.strategies import dice, game_positions

BG = get_variant("backgammon")


@pytest.mark.parametrize(
    ("moves", "text"),
    [
        ([(24, 18, False), (13, 11, False)], "24/18 13/11"),
        ([(8, 7, False), (13, 7, True)], "13/7* 8/7"),
        ([(25, 22, False)], "bar/22"),
        ([(6, 0, False)], "6/off"),
        ([(8, 5, False), (8, 5, False)], "8/5(2)"),
        ([(24, 18, False), (18, 13, False)], "24/13"),
        ([(24, 18, True), (18, 13, False)], "24/18*/13"),
        ([(13, 7, False), (24, 18, False), (24, 18, False), (13, 7, False)], "24/18(2) 13/7(2)"),
        ([(13, 9, False), (9, 5, False), (13, 9, False)], "13/5 13/9"),
        ([(6, 5, False), (5, 0, False)], "6/off"),
        ([], ""),
    ],
)
def test_format_play_writes_gnubg_canonical_notation(moves: list[tuple[int, int, bool]], text: str) -> None:
    assert format_play(moves) == text


def test_format_plain_writes_every_submove_with_25_and_0() -> None:
    assert format_plain([(25, 21, True), (13, 8, False)]) == "25/21* 13/8"
    assert format_plain([(5, 0, False), (6, 0, False)]) == "6/0 5/0"


@pytest.mark.parametrize(
    ("text", "points", "count"),
    [
        ("24/18", (24, 18), 1),
        ("bar/22*", (25, 22), 1),
        ("25/22", (25, 22), 1),
        ("6/off", (6, 0), 1),
        ("6/0", (6, 0), 1),
        ("8/5(2)", (8, 5), 2),
        ("24/18*/13", (24, 18, 13), 1),
        ("BAR/20", (25, 20), 1),
    ],
)
def test_parse_play_reads_one_move(text: str, points: tuple[int, ...], count: int) -> None:
    (seg,) = parse_play(text)
    assert seg.points == points and seg.count == count


def test_parse_play_reads_separators_and_a_roll_prefix() -> None:
    assert [str(s) for s in parse_play("61: 13/7*, 8/7")] == ["13/7*", "8/7"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("13", "write a move as FROM/TO"),
        ("13/x", "a point is 1..24, bar or off"),
        ("7/13", "wrong way"),
        ("30/20", "there is no point 30"),
        ("8/5(9)", "1 to 4 times"),
    ],
)
def test_parse_play_names_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_play(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(BG), roll=dice)
def test_notation_of_every_legal_play_reads_back_to_the_same_play(pos: Position, roll: tuple[int, int]) -> None:
    plays = BG.legal_plays(pos, roll)
    for play in plays:
        assert BG.check_play(pos, roll, play.notation, plays=plays).position == play.position
        assert BG.check_play(pos, roll, format_plain(play.moves), plays=plays).position == play.position
