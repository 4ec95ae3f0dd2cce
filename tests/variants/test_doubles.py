"""Backgammon Doubles: a plugin with team_size 2, and the engine's seating of acting members (rules.md §4)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.dice import RandomDice
from engine.match import (
    ActionError,
    MatchOptionError,
    MatchOptions,
    Move,
    OpeningRoll,
    Phase,
    Roll,
    SetActing,
    apply,
    new_match,
)
from engine.plugins import find_variant, get_variant
from engine.selfplay import RandomPlayer
from variants.backgammon import Backgammon
from variants.doubles import Doubles

SIDES = (("ann", "cat"), ("bob", "dan"))


def test_doubles_is_registered_with_backgammon_rules_and_teams_of_two() -> None:
    assert find_variant("doubles") is Doubles and find_variant("Pairs") is Doubles
    v = get_variant("doubles")
    assert v.team_size == 2 and v.display_name == "Backgammon Doubles" and v.summary
    bg = Backgammon()
    assert v.start_position() == bg.start_position()
    pos = v.start_position()
    assert {p.position for p in v.legal_plays(pos, (3, 1))} == {p.position for p in bg.legal_plays(pos, (3, 1))}


def test_three_game_match_rotates_acting_members_and_refuses_everyone_else() -> None:
    state = new_match(get_variant("doubles"), SIDES, MatchOptions(games=3))
    player = RandomPlayer(random.Random(7))
    dice = RandomDice(7)
    acting_per_game: dict[int, tuple[str, str]] = {}
    refusals = 0
    while not state.over:
        acting_per_game[state.game] = (state.acting_member(0), state.acting_member(1))
        action = player.choose(state, dice)
        for side in (0, 1):
            for member in SIDES[side]:
                if member == state.acting_member(side):
                    continue
                with pytest.raises(ActionError) as err:
                    apply(state, dataclasses.replace(action, by=member))
                message = str(err.value)
                if state.phase is Phase.OPENING or side == state.turn:
                    # The teammate of the player due to act: refused, naming who acts for the team.
                    assert f"{member} is not the acting member" in message
                    assert f"only {state.acting_member(side)} may" in message
                else:
                    # A member of the side not due to act: refused, naming the side that must act.
                    due = state.setup.side_name(state.turn if state.turn is not None else 0)
                    assert due in message or "not the acting member" in message, message
                refusals += 1
        state = apply(state, action)
    assert len(state.results) == 3 and refusals > 100
    games = [acting_per_game[g] for g in (1, 2, 3)]
    for before, after in zip(games, games[1:]):
        assert before[0] != after[0] and before[1] != after[1]


def test_team_choice_sets_the_acting_member_until_the_side_first_moves() -> None:
    state = new_match(get_variant("doubles"), SIDES, MatchOptions(length=3, team_choice=True))
    assert state.acting_member(0) == "ann"
    state = apply(state, SetActing("ann", "cat"))
    assert state.acting_member(0) == "cat"
    with pytest.raises(ActionError, match="only cat may throw the opening roll"):
        apply(state, OpeningRoll("ann", (3, 1)))
    state = apply(state, OpeningRoll("cat", (3, 1)))
    # The opening roll takes the choice from neither side: ann & cat (on roll) and bob & dan may still choose.
    assert apply(state, SetActing("cat", "ann")).acting_member(0) == "ann"
    assert apply(state, SetActing("dan", "dan")).acting_member(1) == "dan"
    state = apply(state, Move("cat", state.legal_plays()[0].moves))
    with pytest.raises(ActionError, match="ann & cat has moved in game 1: its acting member can be changed only"):
        apply(state, SetActing("cat", "ann"))
    with pytest.raises(ActionError, match="only bob may roll"):
        apply(state, Roll("dan", (2, 1)))
    with pytest.raises(ActionError, match="'bob' is not a member of ann & cat"):
        apply(new_match(get_variant("doubles"), SIDES, MatchOptions(team_choice=True)), SetActing("ann", "bob"))


def test_acting_member_rotates_unless_team_choice_is_on() -> None:
    state = new_match(get_variant("doubles"), SIDES, MatchOptions(length=3))
    with pytest.raises(ActionError, match="rotates each game"):
        apply(state, SetActing("ann", "cat"))


def test_sides_must_have_two_members() -> None:
    with pytest.raises(MatchOptionError, match="sides have 2 members; side 1 has 1"):
        new_match(get_variant("doubles"), [["ann"], ["bob", "dan"]])
    with pytest.raises(MatchOptionError, match="team choice"):
        new_match(get_variant("backgammon"), [["ann"], ["bob"]], MatchOptions(team_choice=True))
