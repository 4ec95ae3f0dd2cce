"""GNU Backgammon Position IDs: rules.md §6.2 vectors, round trips, bad input, and gnubg itself."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from engine import Position, PositionError, decode_position_id, encode_position_id
from engine.plugins import get_variant
from tests.engine.strategies import game_positions, random_game_position, scattered_positions

BG = get_variant("backgammon")


def test_starting_position_id() -> None:
    assert encode_position_id(BG, BG.start_position()) == "4HPwATDgc/ABMA"
    assert decode_position_id(BG, "4HPwATDgc/ABMA") == BG.start_position()


def test_after_the_opening_31_with_the_opponent_on_roll() -> None:
    play = BG.check_play(BG.start_position(), (3, 1), "8/5 6/5")
    assert encode_position_id(BG, BG.flip(play.position)) == "sGfwATDgc/ABMA"


def test_same_board_with_the_mover_still_on_roll() -> None:
    play = BG.check_play(BG.start_position(), (3, 1), "8/5 6/5")
    assert encode_position_id(BG, play.position) == "4HPwATCwZ/ABMA"


@pytest.mark.parametrize("pid", ["jGfkASjg8wcBMA", "zGbiIQgxH/AAWA", "zGbiIYCYD3gALA"])
def test_wildbg_vectors_round_trip(pid: str) -> None:
    assert encode_position_id(BG, decode_position_id(BG, pid)) == pid


def test_bar_and_borne_off_checkers_decode() -> None:
    assert decode_position_id(BG, "zGbiIQgxH/AAWA").bar != (0, 0)
    assert decode_position_id(BG, "zGbiIYCYD3gALA").off != (0, 0)


@pytest.mark.parametrize(
    ("pid", "message"),
    [
        ("4HPwATDgc/ABM", "has 14 characters"),
        ("4HPwATDgc/AB!A", "only A-Z"),
        ("//////////////", "bits run out"),
    ],
)
def test_bad_ids_are_refused_with_the_reason(pid: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        decode_position_id(BG, pid)


def test_an_id_with_too_many_checkers_is_refused() -> None:
    pos = Position.from_points({24: 16}, {1: 2}, off=(0, 13))
    with pytest.raises(PositionError, match="16 checkers"):
        decode_position_id(BG, encode_position_id(BG, pos))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(BG))
def test_ids_of_game_positions_round_trip(pos: Position) -> None:
    assert decode_position_id(BG, encode_position_id(BG, pos)) == pos


@settings(max_examples=300, deadline=None)
@given(pos=scattered_positions())
def test_ids_of_scattered_positions_round_trip(pos: Position) -> None:
    try:
        BG.validate_position(pos)
    except PositionError:
        assume(False)
    assert decode_position_id(BG, encode_position_id(BG, pos)) == pos


GNUBG_SCRIPT = """
import json
import gnubg
rows = json.load(open("positions.json"))
out = []
for row in rows:
    board = (tuple(row["other"]), tuple(row["roller"]))
    out.append({"id": gnubg.positionid(board), "board": [list(s) for s in gnubg.positionfromid(row["id"])]})
json.dump(out, open("answers.json", "w"))
"""


@pytest.mark.gnubg
def test_ids_agree_with_gnu_backgammon_itself(gnubg, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(2026)
    rows = []
    for i in range(300):
        pos = random_game_position(BG, rng, i % 90)
        roller = [max(v, 0) for v in pos.board] + [pos.bar[0]]
        other = [0] * 25
        for p in range(1, 25):
            if pos.board[p - 1] < 0:
                other[25 - p - 1] = -pos.board[p - 1]
        other[24] = pos.bar[1]
        rows.append({"id": encode_position_id(BG, pos), "roller": roller, "other": other})
    (tmp_path / "positions.json").write_text(json.dumps(rows))
    gnubg(GNUBG_SCRIPT)
    answers = json.loads((tmp_path / "answers.json").read_text())
    assert len(answers) == len(rows)
    for row, answer in zip(rows, answers):
        assert answer["id"] == row["id"]
        assert answer["board"] == [row["other"], row["roller"]]
