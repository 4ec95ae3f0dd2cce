"""The contract kit's hostile plugin: a rule set whose hook raises during play. The action is refused in words naming
the rule set, its plugin and the hook; the game stays as it was; the log names the plugin and the hook."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from engine.match import ActionError, Move, OpeningRoll, Phase, apply, new_match
from engine.variant import NextStage, TurnContext, TurnStep
from variants.backgammon import Backgammon


class Hostile(Backgammon):
    name = "hostile"
    display_name = "Hostile"
    mat_variation = "Hostile"

    def next_stage(self, dice: tuple[int, int], used: int, context: TurnContext) -> NextStage | TurnStep | None:
        raise RuntimeError("boom")


class HostilePlays(Backgammon):
    name = "hostileplays"
    display_name = "Hostile plays"
    mat_variation = "Hostile plays"

    def turn_rules(self, *args: Any) -> Any:
        raise ZeroDivisionError("no rules today")


def test_a_rule_set_hook_that_raises_refuses_the_action_and_leaves_the_game_as_it_was(
    caplog: pytest.LogCaptureFixture,
) -> None:
    state = apply(new_match(Hostile(), [["alice"], ["bob"]]), OpeningRoll("alice", (3, 1)))
    assert state.phase is Phase.MOVE
    play = state.legal_plays()[0].moves

    with caplog.at_level(logging.ERROR, logger="gammonbot.plugins"), pytest.raises(ActionError) as refused:
        apply(state, Move("alice", play))
    assert "Hostile" in str(refused.value) and "next_stage" in str(refused.value)
    assert "nothing was changed" in str(refused.value)
    assert any("next_stage" in r.getMessage() and "RuntimeError" in r.getMessage() for r in caplog.records)
    assert state.phase is Phase.MOVE and state.legal_plays()[0].moves == play  # the state value is untouched


def test_a_failing_legal_play_search_is_refused_in_words(caplog: pytest.LogCaptureFixture) -> None:
    state = new_match(HostilePlays(), [["alice"], ["bob"]])
    with caplog.at_level(logging.ERROR, logger="gammonbot.plugins"), pytest.raises(ActionError) as refused:
        apply(state, OpeningRoll("alice", (3, 1)))
    assert state.phase is Phase.OPENING
    assert "turn_rules" in str(refused.value)
    assert any("turn_rules" in r.getMessage() for r in caplog.records)
