"""The analyst does not grade the player it judges (issue 36): the default post-match analyst is deeper than the
network the strong bot plays with, so the strong bot's error rate is not identically 0 over ten matches."""

from __future__ import annotations

import random

import pytest

from engine.analysis import analyse, default_analyst
from engine.match import MatchOptions
from engine.players import HeuristicPlayer
from engine.plugins import get_variant
from engine.selfplay import play_bot_match


def test_the_strong_bot_is_not_graded_perfect_by_the_default_analyst() -> None:
    from variants.bgsage_player import SPECS, UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(str(UNAVAILABLE))
    strong = next(s for s in SPECS if s.name == "strong")
    bg = get_variant("backgammon")
    rates = []
    for k in range(10):  # stops at the first match where the analyst finds an error of the strong bot's
        players = (strong.create(k), HeuristicPlayer(random.Random(k)))
        state, actions = play_bot_match(bg, MatchOptions(length=1), players, 700 + k, sides=(("strong",), ("heur",)))
        if k == 0:
            spec, analyst = default_analyst(state.setup, deep=True)
            assert analyst.equity_label != strong.create(0).equity_label, "the analyst is the strong bot's own depth"
        result = analyse(state.setup, actions, luck=False)
        mine = result.sides[0]
        assert mine.unforced > 0
        rates.append(mine.equity_lost)
        if mine.equity_lost > 0:
            return
    raise AssertionError(f"the strong bot lost no equity in ten matches, as judged by the default analyst: {rates}")
