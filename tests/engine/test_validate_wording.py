"""A refused play is explained with the moves the player wrote: never a hop they did not type, never "1 pips"."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalPlay, Position
from engine.plugins import get_variant
from tests.engine.strategies import dice, game_positions

BG = get_variant("backgammon")
START = BG.start_position()
#: A bear-off with a checker on 6 and one on 3 (the opponent's checkers far away).
LATE = Position.parse("6:1 3:1 off:13/0 24:-15")


def refused(pos: Position, roll: tuple[int, int], text: str) -> str:
    try:
        BG.check_play(pos, roll, text)
    except IllegalPlay as exc:
        return str(exc)
    raise AssertionError(f"{text} was accepted")


def test_a_bear_off_through_a_lower_point_names_the_move_written() -> None:
    text = refused(LATE, (4, 2), "3/off")
    assert text.startswith("3/off by way of point 1 (then a 4): ")
    assert "1/off" not in text
    assert "a 4 bears off from point 1 only when no checker stands higher, but point 6 is occupied" in text


def test_a_move_whose_first_step_is_refused_says_which_die_went_first() -> None:
    assert refused(START, (5, 5), "24/14").startswith("24/14, starting with a 5: point 19 is blocked")
    assert refused(START, (6, 5), "24/19/13").startswith("24/19 with a 5: point 19 is blocked")


def test_one_pip_is_singular() -> None:
    assert refused(LATE, (4, 2), "6/5") == "6/5 is 1 pip, which your dice 4-2 cannot make"
    assert refused(LATE, (1, 3), "6/4").startswith("6/4 is 2 pips")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(BG), roll=dice, data=st.data())
def test_a_refusal_names_only_moves_the_player_wrote(pos: Position, roll: tuple[int, int], data: st.DataObject) -> None:
    """Outside an example of a legal play, every FROM/TO in the refusal is one the player typed."""
    mine = [p for p in range(1, 26) if (pos.board[p - 1] > 0 if p < 25 else pos.bar[0] > 0)]
    moves = []
    for _ in range(data.draw(st.integers(1, 2))):
        src = data.draw(st.sampled_from(mine))
        dst = data.draw(st.integers(0, src - 1))
        moves.append(f"{'bar' if src == 25 else src}/{'off' if dst == 0 else dst}")
    try:
        BG.check_play(pos, roll, " ".join(moves))
    except IllegalPlay as exc:
        text = str(exc)
    else:
        return
    assert not re.search(r"(?<!\d)1 pips", text), text
    own = re.split(r"for example|legal plays include", text)[0]
    named = re.findall(r"(?:bar|\d+)/(?:off|\d+)", own)
    assert set(named) <= set(moves), (moves, text)
