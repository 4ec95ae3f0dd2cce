"""Each rule set declares its results (names and the largest), and resignations are offered and paid within them.

Longgammon ends in a single game or a mars (a koks only with that option), so a backgammon cannot be offered there,
a mars already concedes the most and is accepted at once, and the menus and messages say "mars", never "gammon".
"""

from __future__ import annotations

import random

import pytest

from engine.controls import allowed_actions
from engine.dice import RandomDice
from engine.match import (
    AcceptResignation,
    ActionError,
    EndReason,
    MatchOptions,
    MatchState,
    OpeningRoll,
    Phase,
    RejectResignation,
    Resign,
    apply,
    new_match,
)
from engine.plugins import get_variant, registry
from engine.position import Position
from engine.selfplay import RandomPlayer, default_sides
from engine.variant import Variant
from variants.longgammon import Longgammon

A, B = "alice", "bob"


def opened(variant: Variant, **options: object) -> MatchState:
    """A match in which alice has won the opening roll (3-1) and is to play it."""
    state = new_match(variant, [[A], [B]], MatchOptions(**options))  # type: ignore[arg-type]
    return apply(state, OpeningRoll(A, (3, 1)))


def test_every_rule_set_declares_its_results_and_the_largest() -> None:
    for name in registry().names():
        variant = get_variant(name)
        assert set(variant.results) == set(range(1, variant.max_result + 1))
        assert all(variant.results.values())
    assert dict(get_variant("backgammon").results) == {1: "single game", 2: "gammon", 3: "backgammon"}
    assert dict(get_variant("sprintgammon").results) == {1: "single game", 2: "gammon", 3: "backgammon"}
    assert dict(Longgammon().results) == {1: "single game", 2: "mars"}
    assert dict(Longgammon(koks=True).results) == {1: "single game", 2: "mars", 3: "koks"}
    assert Longgammon().max_result == 2 and Longgammon(koks=True).max_result == 3
    assert Longgammon().results_text() == "a single game (1) or a mars (2)"


def test_a_longgammon_backgammon_cannot_be_offered_and_says_what_can() -> None:
    state = opened(Longgammon(), length=5)
    with pytest.raises(ActionError, match=r"single game \(1\) or a mars \(2\)") as caught:
        apply(state, Resign(A, 3))
    assert "gammon" not in str(caught.value).replace("Longgammon", "")


def test_a_longgammon_mars_concedes_the_most_and_is_accepted_at_once_for_two_times_the_cube() -> None:
    state = apply(opened(Longgammon(), length=0, games=3), Resign(A, 2))
    assert state.phase is not Phase.RESIGNED and state.score == (0, 2)
    result = state.results[-1]
    assert (result.level, result.points, result.reason) == (2, 2, EndReason.RESIGN)


def test_with_koks_on_a_mars_is_not_the_most_until_the_first_quarter_is_empty() -> None:
    koks = Longgammon(koks=True)
    state = opened(koks, length=0, games=3)
    offered = apply(state, Resign(A, 2))
    assert offered.phase is Phase.RESIGNED  # a koks could still be lost: every checker is on the head
    assert apply(state, Resign(A, 3)).results[-1].points == 3  # a koks concedes the most
    # No checker of alice's in her first quarter (19..24) and none borne off: a mars is the most.
    far = Position.parse("18:15 12:-15")
    assert koks.most_at_stake(far) == 2 and koks.most_at_stake(Position.parse("18:14 12:-15 off:1/0")) == 1
    assert koks.most_at_stake(Position.parse("24:1 18:14 12:-15")) == 3


def test_the_resign_menu_lists_the_rule_sets_results_in_its_words() -> None:
    allowed = allowed_actions(opened(Longgammon(), length=0, games=3, auto_accept_resign=False))
    assert allowed.resign_levels == (1, 2) and allowed.resign_names == ("single game", "mars")
    allowed = allowed_actions(opened(get_variant("backgammon"), length=5))
    assert allowed.resign_levels == (1, 2, 3)
    assert allowed.resign_names == ("single game", "gammon", "backgammon")


def test_a_rejected_longgammon_offer_is_named_in_its_words() -> None:
    state = apply(apply(opened(Longgammon(), length=7), Resign(A, 1)), RejectResignation(B))
    with pytest.raises(ActionError, match="resign a single game was rejected"):
        apply(state, Resign(A, 1))


@pytest.mark.parametrize("variant", [Longgammon(), Longgammon(koks=True), get_variant("backgammon")], ids=repr)
def test_no_game_is_ever_paid_above_the_rule_sets_largest_result(variant: Variant) -> None:
    """Self-played money sessions with many resignations: every result is one of the rule set's, paid within it."""
    top = variant.max_result
    for seed in range(12):
        options = MatchOptions(games=4, auto_accept_resign=seed % 2 == 0)
        state = new_match(variant, default_sides(variant), options)
        player = RandomPlayer(random.Random(seed), resign_rate=0.03, accept_rate=0.3, chaos=True)
        dice = RandomDice(seed)
        while not state.over:
            before = len(state.results)
            state = apply(state, player.choose(state, dice))
            if len(state.results) > before:
                result = state.results[-1]
                if result.reason in (EndReason.BORNE_OFF, EndReason.RESIGN):
                    assert 1 <= result.level <= top and result.points == result.level * result.cube


def test_the_cap_never_understates_what_a_longgammon_game_gives() -> None:
    """Played out without resignations: at every turn, the most the roller could still lose is at least what the
    game finally gave when the roller lost it."""
    koks = Longgammon(koks=True)
    for seed in range(6):
        state = new_match(koks, [[A], [B]], MatchOptions(length=0, games=1, cube=False))
        player = RandomPlayer(random.Random(seed), resign_rate=0.0)
        dice = RandomDice(seed)
        caps: list[tuple[int, int]] = []
        while not state.over:
            if state.phase is Phase.ROLL and state.roller is not None:
                caps.append((state.roller, state.max_level(state.roller)))
            state = apply(state, player.choose(state, dice))
        result = state.results[-1]
        assert all(cap >= result.level for side, cap in caps if side != result.winner)


def test_accepting_a_longgammon_resignation_pays_its_level() -> None:
    state = apply(opened(Longgammon(), length=7, auto_accept_resign=False), Resign(A, 2))
    assert state.phase is Phase.RESIGNED
    done = apply(state, AcceptResignation(B))
    assert done.score == (0, 2) and done.results[-1].level == 2
