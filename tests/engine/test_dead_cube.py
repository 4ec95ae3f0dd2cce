"""The dead cube (option ``dead_cube``, on by default as in GNU Backgammon): no double that cannot gain.

In a match, a double is refused when the doubler's score plus the cube's value already reaches the length: winning
the game at the present value already wins the match. That is any double in a 1-point match and the leader's after
the Crawford game. The controls offer no Double button then, the refusal says why in words, and a server may allow
such doubles (the option off). GNU Backgammon is asked about hundreds of seeded match states and agrees.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.controls import allowed_actions
from engine.dice import RandomDice
from engine.match import (
    AcceptResignation,
    ActionError,
    Double,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    Take,
    apply,
    new_match,
)
from engine.matchid import decode_match_id, match_id
from engine.plugins import get_variant
from engine.selfplay import RandomPlayer, default_sides
from tests.conftest import run_gnubg_script

BG = get_variant("backgammon")
A, B = "alice", "bob"
WHO = (A, B)


def start(**options: object) -> MatchState:
    return new_match(BG, [[A], [B]], MatchOptions(**options))  # type: ignore[arg-type]


def on_roll(state: MatchState, side: int) -> MatchState:
    """The other side wins the opening roll and plays it: ``side`` is then on roll, before rolling."""
    state = apply(state, OpeningRoll(WHO[0], (3, 1) if side == 1 else (1, 3)))
    assert state.roller is not None
    return apply(state, Move(WHO[state.roller], state.legal_plays()[0].moves))


def concede(state: MatchState, loser: int, level: int = 1) -> MatchState:
    state = apply(state, OpeningRoll(WHO[0], (3, 1) if loser == 0 else (1, 3)))
    state = apply(state, Resign(WHO[loser], level))
    return apply(state, AcceptResignation(WHO[1 - loser])) if state.phase is Phase.RESIGNED else state


def test_no_double_in_a_one_point_match_and_the_refusal_says_why() -> None:
    state = on_roll(start(length=1), 1)
    with pytest.raises(ActionError, match="the cube is dead") as caught:
        apply(state, Double(B))
    assert "already gives bob the 1 point needed to win the match" in str(caught.value)
    allowed = allowed_actions(state)
    assert not allowed.double and allowed.double_refusal == str(caught.value)


def test_the_option_off_allows_doubles_of_a_dead_cube() -> None:
    state = on_roll(start(length=1, dead_cube=False), 1)
    assert apply(state, Double(B)).phase is Phase.DOUBLED
    assert allowed_actions(state).double


def test_after_the_crawford_game_the_leader_may_not_double_and_the_trailer_may() -> None:
    state = concede(start(length=3), 1, 2)  # alice 2-0: the next game is the Crawford game
    state = concede(state, 0)  # bob wins the Crawford game: 2-1, post-Crawford
    assert state.post_crawford and not state.crawford_game
    with pytest.raises(ActionError, match="cube is dead"):
        apply(on_roll(state, 0), Double(A))
    assert apply(on_roll(state, 1), Double(B)).phase is Phase.DOUBLED


def test_a_cube_owned_at_a_value_that_already_wins_the_match_is_dead() -> None:
    late = concede(concede(concede(start(length=5), 1), 1), 1)  # alice 3-0 in a 5-point match
    late = apply(apply(on_roll(late, 1), Double(B)), Take(A))  # alice owns the cube at 2: 3 + 2 reaches 5
    late = apply(late, Roll(B, (5, 2)))
    late = apply(late, Move(B, late.legal_plays()[0].moves))
    assert late.roller == 0 and late.cube.value == 2 and late.cube.owner == 0
    assert "cube is dead" in (late.may_double(0) or "")
    # At 2-0 the same cube is live: 2 + 2 does not reach 5.
    live = concede(concede(start(length=5), 1), 1)
    live = apply(apply(on_roll(live, 1), Double(B)), Take(A))
    live = apply(live, Roll(B, (5, 2)))
    live = apply(live, Move(B, live.legal_plays()[0].moves))
    assert live.may_double(0) is None


def test_money_play_has_no_dead_cube() -> None:
    state = on_roll(start(games=3), 1)
    assert apply(state, Double(B)).phase is Phase.DOUBLED


# --- GNU Backgammon -------------------------------------------------------------------------------------------
def roll_states(matches: int) -> dict[str, bool]:
    """Match ID -> whether the player on roll may double, for every distinct state before a roll of seeded matches
    of 1 to 9 points (cube limit as GNU Backgammon's, 4096)."""
    seen: dict[str, bool] = {}
    for seed in range(matches):
        length = (1, 2, 3, 4, 5, 7, 9)[seed % 7]
        state = new_match(BG, default_sides(BG), MatchOptions(length=length, max_cube=4096))
        player = RandomPlayer(random.Random(seed), double_rate=0.3, take_rate=0.8, resign_rate=0.01)
        dice = RandomDice(seed)
        while not state.over:
            if state.phase is Phase.ROLL and state.roller is not None:
                seen.setdefault(match_id(state), state.may_double(state.roller) is None)
            state = apply(state, player.choose(state, dice))
    return seen


@pytest.mark.gnubg
def test_gnubg_agrees_on_every_double_of_hundreds_of_match_states(tmp_path: Path) -> None:
    expected = roll_states(150)
    dead = sum(1 for mid, ok in expected.items() if not ok and _dead(mid))
    assert len(expected) >= 400 and dead >= 40  # the sample holds many dead cubes, and many live ones
    lines = [
        "import gnubg",
        "gnubg.command('set player 0 human')",
        "gnubg.command('set player 1 human')",
        "gnubg.command('new match 5')",
    ]
    for mid in expected:
        lines += [f"gnubg.command('set matchid {mid}')", "gnubg.command('double')"]
        lines.append(f"print('R {mid} ' + gnubg.matchid())")
    out = run_gnubg_script("\n".join(lines) + "\n", tmp_path)
    answers = {}
    for line in out.splitlines():
        if line.startswith("R "):
            _, mid, after = line.split()
            answers[mid] = decode_match_id(after).double_offered
    assert set(answers) == set(expected)
    disagree = {mid: (expected[mid], answers[mid]) for mid in expected if expected[mid] != answers[mid]}
    assert not disagree, disagree


def _dead(mid: str) -> bool:
    """Whether the player on roll of a Match ID faces a dead cube (score plus cube reaches the length)."""
    info = decode_match_id(mid)
    return info.length > 0 and info.score[info.dice_owner] + info.cube_value >= info.length
