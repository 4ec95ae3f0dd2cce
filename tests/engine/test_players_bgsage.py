"""The bgsage players: board conversion, the rule sets they support, and our engine as the referee."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Position
from engine.match import MatchOptions, MatchState, Phase, new_match
from engine.players import CubeAnswer
from engine.plugins import find_player, get_variant, registry
from engine.selfplay import default_sides
from engine.variant import Variant
from tests.engine.strategies import dice, game_positions
from variants import bgsage_player
from variants.bgsage_player import BgsagePlayer, plays_standard_backgammon, to_bgsage_board

pytestmark = pytest.mark.skipif(bgsage_player.UNAVAILABLE is not None, reason=str(bgsage_player.UNAVAILABLE))


def _bgsage() -> Any:
    import bgsage  # type: ignore[import-untyped]

    return bgsage


def state_with(variant: Variant, pos: Position, roll: tuple[int, int] | None, options: MatchOptions) -> MatchState:
    state = new_match(variant, default_sides(variant), options)
    phase = Phase.MOVE if roll is not None else Phase.ROLL
    return replace(state, phase=phase, position=pos, roller=0, dice=roll, moved=(True, True), begun=True)


def test_the_starting_position_is_bgsages_starting_board() -> None:
    assert to_bgsage_board(get_variant("backgammon").start_position()) == _bgsage().STARTING_BOARD


def test_bar_checkers_sit_where_bgsage_expects_them() -> None:
    pos = Position.from_points({6: 13}, {19: 14}, bar=(2, 1))
    board = to_bgsage_board(pos)
    assert board[25] == 2 and board[0] == 1 and board[6] == 13 and board[19] == -14
    # bgsage's own flip agrees with ours.
    assert _bgsage().flip_board(board) == to_bgsage_board(get_variant("backgammon").flip(pos))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), roll=dice)
def test_every_legal_play_of_ours_is_a_play_bgsage_knows(data: st.DataObject, roll: tuple[int, int]) -> None:
    """Ours are a subset of bgsage's (it is more lenient, never stricter), compared by resulting board."""
    bg = get_variant("backgammon")
    pos = data.draw(game_positions(bg, max_turns=90))
    ours = {tuple(to_bgsage_board(p.position)) for p in bg.legal_plays(pos, roll)}
    theirs = {tuple(b) for b in _bgsage().possible_moves(to_bgsage_board(pos), *roll)}
    if not theirs:  # bgsage lists nothing when nothing can move; we list the unchanged position
        assert ours == {tuple(to_bgsage_board(pos))}
    else:
        assert ours <= theirs


def test_supported_rule_sets_are_found_by_capability() -> None:
    for name in registry().names():
        variant = get_variant(name)
        expected = name in ("backgammon", "doubles", "nackgammon")
        assert plays_standard_backgammon(variant) == expected, name


def test_strong_plays_the_book_opening_and_ranks_every_legal_play() -> None:
    bg = get_variant("backgammon")
    state = state_with(bg, bg.start_position(), (3, 1), MatchOptions(length=5))
    player = find_player("strong").create(1)
    assert isinstance(player, BgsagePlayer)
    assert player.choose_play(state).notation == "8/5 6/5"
    ranked = player.rank_plays(state)
    assert {r.play for r in ranked} == set(state.legal_plays())
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)


def test_a_play_bgsage_alone_allows_is_never_chosen() -> None:
    """bgsage's known leniency: the last checker borne off with one die when a hit first would use both."""
    bg = get_variant("backgammon")
    pos = Position.parse("24:-1 23:-5 22:-5 14:-1 7:-1 4:-1 2:1 1:-1 off:14/0")
    state = state_with(bg, pos, (2, 1), MatchOptions(length=5))
    plays = state.legal_plays()
    theirs = {tuple(b) for b in _bgsage().possible_moves(to_bgsage_board(pos), 2, 1)}
    extra = theirs - {tuple(to_bgsage_board(p.position)) for p in plays}
    assert extra, "bgsage lists a play here that our rules forbid"
    player = BgsagePlayer("strong")
    assert [r.play for r in player.rank_plays(state)] == list(plays)
    assert plays.find(player.choose_play(state).position) is not None


def test_cube_decisions_follow_bgsage_and_the_match() -> None:
    bg = get_variant("backgammon")
    player = BgsagePlayer("strong")
    # All home, 60 pips against 75 and on roll: double, and the opponent passes.
    ahead = Position.from_points({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {19: 5, 20: 5, 21: 5})
    for options in (MatchOptions(games=1, beavers=True), MatchOptions(length=5)):
        state = state_with(bg, ahead, None, options)
        assert player.should_double(state)
        assert player.answer_double(replace(state, phase=Phase.DOUBLED, responder=1)) is CubeAnswer.PASS
    # The other way round, a double is a beaver where the session allows beavers, else a take.
    behind = bg.flip(ahead)
    money = state_with(bg, behind, None, MatchOptions(games=1, beavers=True))
    assert not player.should_double(money)
    assert player.answer_double(replace(money, phase=Phase.DOUBLED, responder=1)) is CubeAnswer.BEAVER
    match = state_with(bg, behind, None, MatchOptions(length=5))
    assert player.answer_double(replace(match, phase=Phase.DOUBLED, responder=1)) is CubeAnswer.TAKE
    # The opening position is no double.
    assert not player.should_double(state_with(bg, bg.start_position(), None, MatchOptions(length=5)))


def test_expert_falls_back_to_one_ply_under_a_short_time_cap() -> None:
    bg = get_variant("backgammon")
    state = state_with(bg, bg.start_position(), (6, 4), MatchOptions(length=5))
    expert = BgsagePlayer("expert")
    assert expert._level_for(0.01) == "1ply"
    assert expert._level_for(None) == "2ply"
    assert state.legal_plays().find(expert.choose_play(state, time_cap=0.01).position) is not None


def test_casual_noise_is_seeded_and_changes_some_choices() -> None:
    from tests.engine.strategies import random_game_position

    bg = get_variant("backgammon")
    rng = random.Random(3)
    states = []
    for _ in range(60):
        pos = random_game_position(bg, rng, rng.randint(0, 40))
        if pos.off[0] < 15 and pos.off[1] < 15:
            states.append(state_with(bg, pos, (rng.randint(1, 6), rng.randint(1, 6)), MatchOptions(length=5)))
    casual, again = BgsagePlayer("casual", random.Random(9)), BgsagePlayer("casual", random.Random(9))
    one = [casual.choose_play(s).position for s in states]
    assert one == [again.choose_play(s).position for s in states]
    strong = BgsagePlayer("strong")
    assert one != [strong.choose_play(s).position for s in states]
