"""The rule-set contract, checked for every registered rule set: built-in ones and outside plugins alike.

Whatever a plugin registers must start from a valid position, conserve checkers in every play, finish
every game with a legal result, and round-trip its positions through every text form.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Position, decode_position_id, encode_position_id
from engine.movegen import Submove
from engine.notation import format_plain
from engine.plugins import registry
from engine.variant import Variant

NAMES = registry().names()
#: One turn of a game: (player 0 or 1, the roll, the submoves played).
Turn = tuple[int, tuple[int, int], tuple[Submove, ...]]
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


@pytest.fixture(params=NAMES)
def variant(request: pytest.FixtureRequest) -> Variant:
    return registry().get(request.param)


def test_the_outside_test_plugin_is_among_the_rule_sets_checked() -> None:
    assert {"backgammon", "longgammon", "sprintgammon", "nackgammon"} <= set(NAMES)


def test_the_rule_set_describes_itself(variant: Variant) -> None:
    cls = type(variant)
    assert cls.name == cls.name.lower() and cls.display_name and cls.summary
    # Checkers the start leaves out wait in the reserve (Acey-deucey starts them all there).
    assert cls.checkers >= sum(cls.start.values()) and cls.checkers > 0
    assert variant.start_position().reserve[0] == cls.checkers - sum(cls.start.values())
    assert all(1 <= p <= 24 and n > 0 for p, n in cls.start.items())
    assert cls.team_size >= 1 and cls.point_blocked_by >= 1
    assert set(variant.options) == set(cls.option_defaults)


def test_the_start_position_is_valid_and_the_same_for_both_players(variant: Variant) -> None:
    start = variant.start_position()
    variant.validate_position(start)
    assert start.totals() == (variant.checkers, variant.checkers)
    assert start.off == (0, 0) and start.bar == (0, 0)
    assert variant.flip(start) == start
    mine, theirs = variant.pips(start)
    assert mine == theirs == sum(p * n for p, n in variant.start.items()) + 25 * start.reserve[0]


def test_every_roll_from_the_start_has_a_play_using_every_die(variant: Variant) -> None:
    start = variant.start_position()
    for roll in ROLLS:
        plays = variant.legal_plays(start, roll, True)
        assert len(plays) >= 1
        for play in plays:
            assert len(play.moves) == plays.max_dice
            assert play.position.totals() == (variant.checkers, variant.checkers)


def _check_text_forms(variant: Variant, pos: Position) -> None:
    assert Position.parse(str(pos)) == pos
    assert eval(repr(pos), {"Position": Position}) == pos
    assert Position.from_frame(json.loads(json.dumps(pos.to_frame()))) == pos
    assert decode_position_id(variant, encode_position_id(variant, pos)) == pos
    assert variant.flip(variant.flip(pos)) == pos


def play_game(
    variant: Variant, rng: random.Random, visit: Callable[[Position, tuple[int, int], bool], None] | None = None
) -> tuple[int, list[Turn], int]:
    """One complete game of random legal plays: (winner 0/1, or -1 for a draw; the turns; the result level).

    Player 0 opens with two different dice (the opening roll); each turn flips the board to the other player.
    The game ends where the rule set's ``game_over`` says so.
    """
    n = variant.checkers
    pos = variant.start_position()
    turns: list[Turn] = []
    for turn in range(20000):
        side = turn % 2
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        while turn == 0 and roll[0] == roll[1]:
            roll = (rng.randint(1, 6), rng.randint(1, 6))
        first = turn < 2
        if visit is not None:
            visit(pos, roll, first)
        plays = variant.legal_plays(pos, roll, first)
        play = rng.choice(plays.plays)
        after = play.position
        assert after.totals() == (n, n), f"a play changed the number of checkers: {pos} {roll} -> {after}"
        variant.validate_position(after)
        turns.append((side, roll, play.moves))
        over = variant.game_over(after)
        if over is not None:
            assert over.draw or after.off[0] == n or over.how, "a game that ends otherwise than borne off says how"
            winner = -1 if over.draw else side if over.winner > 0 else 1 - side
            return winner, turns, over.level
        assert after.off[0] < n, f"{variant.name}: every checker is off, yet the game goes on"
        pos = variant.flip(after)
    raise AssertionError(f"{variant.name}: a random game did not finish in 20000 turns")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_complete_games_finish_with_a_legal_result(seed: int) -> None:
    for name in NAMES:
        variant = registry().get(name)
        seen: list[Position] = []

        def record(pos: Position, roll: tuple[int, int], first: bool, seen: list[Position] = seen) -> None:
            seen.append(pos)

        winner, turns, result = play_game(variant, random.Random(seed), record)
        assert result in variant.results or (winner == -1 and result == 0), f"{name}: game_over gave {result}"
        last = seen[-1]  # the winner's position before the last play: the loser's checkers are as they end
        loser_off = last.off[1]
        if winner == -1 or last.off[0] + len(turns[-1][2]) < variant.checkers:
            pass  # a draw, or a game a rule of the rule set ended (Plakoto's mother): no bearing-off result
        elif loser_off > 0:
            assert result == 1, f"{name}: the loser bore off {loser_off} checkers, yet the result is {result}"
        elif len(variant.results) > 1:  # (a rule set with one result, Acey-deucey's 1 a game, has no gammon)
            assert result >= 2, f"{name}: the loser bore off nothing, yet the result is a single game"
        for pos in seen[:: max(1, len(seen) // 25)]:
            _check_text_forms(variant, pos)


def test_every_play_of_a_game_is_accepted_back_in_notation(variant: Variant) -> None:
    rng = random.Random(7)
    checked = 0

    def visit(pos: Position, roll: tuple[int, int], first: bool) -> None:
        nonlocal checked
        if rng.random() < 0.25:
            for play in variant.legal_plays(pos, roll, first):
                assert variant.check_play(pos, roll, play.notation, first).position == play.position
                checked += 1

    play_game(variant, random.Random(11), visit)
    assert checked > 0


# --- GNU Backgammon reads the games of the rule sets it knows ------------------------------------------
# GNU Backgammon's .mat tag (import.c) -> the variation its Python match() reports.
GNUBG_VARIATIONS = {
    None: "Standard",
    "NackGammon": "Nackgammon",
    "HyperGammon (1)": "Hypergammon1",
    "HyperGammon (2)": "Hypergammon2",
    "HyperGammon (3)": "Hypergammon3",
}


def mat_text(variant: Variant, winner: int, turns: list[Turn], points: int) -> str:
    """A one-game 7-point match in GNU Backgammon's ``.mat`` layout (left column: player 0, who opened)."""
    rows: list[list[str]] = []
    for side, roll, moves in turns:
        entry = f"{max(roll)}{min(roll)}: {format_plain(moves)}".rstrip()
        if side == 0:
            rows.append([entry, ""])
        else:
            rows[-1][1] = entry
    lines = []
    if variant.mat_variation:
        lines.append(f'; [Variation "{variant.mat_variation}"]')
    lines += ["", " 7 point match", "", " Game 1", " " + "Alice : 0".ljust(31) + "Bob : 0"]
    lines += [f"{n:3d}) " + left.ljust(28) + right for n, (left, right) in enumerate(rows, 1)]
    wins = f" Wins {points} point{'s' if points > 1 else ''}"
    lines.append(" " * 5 + (" " * 28 if winner == 1 else "") + wins)
    return "\n".join(line.rstrip() for line in lines) + "\n"


@pytest.mark.gnubg
def test_gnu_backgammon_imports_a_random_game_with_the_same_rules_and_result(
    variant: Variant, gnubg: Callable[[str], str], tmp_path: object
) -> None:
    if not variant.gnubg_compatible:
        pytest.skip(f"{variant.display_name} is not a GNU Backgammon rule set")
    if variant.mat_variation not in GNUBG_VARIATIONS:
        pytest.skip(f"GNU Backgammon's importer has no tag {variant.mat_variation!r}")
    winner, turns, result = play_game(variant, random.Random(2024))
    text = mat_text(variant, winner, turns, result)
    script = f"""
import gnubg, json
open("game.mat", "w").write({text!r})
gnubg.command("import mat game.mat")
m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
print("RESULT " + json.dumps({{"variation": m["match-info"]["variation"], "games": [g["info"] for g in m["games"]],
      "comment": m["match-info"].get("comment", "")}}))
"""
    out = gnubg(script)
    assert not any(word in out for word in ("WARNING", "Illegal", "Invalid", "Unrecognised")), out[-2000:]
    found = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:])
    assert found["variation"] == GNUBG_VARIATIONS[variant.mat_variation]
    assert "Variation" not in found["comment"], "GNU Backgammon did not recognise the tag"
    (game,) = found["games"]
    assert game["winner"] == ("X" if winner == 0 else "O")
    assert game["points-won"] == result and not game["resigned"]
