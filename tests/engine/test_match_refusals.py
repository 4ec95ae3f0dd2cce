"""Any action at any moment is either applied or refused with an ActionError: never another exception."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import RandomDice
from engine.match import (
    AcceptResignation,
    ActionError,
    Beaver,
    Double,
    Forfeit,
    MatchOptions,
    Move,
    OpeningRoll,
    Pass,
    Raccoon,
    RejectResignation,
    Resign,
    Roll,
    SetActing,
    Take,
    Timeout,
    apply,
    new_match,
)
from engine.plugins import get_variant
from engine.selfplay import RandomPlayer

PLAYERS = ["ann", "cat", "bob", "dan", "zed"]
ints = st.integers(-2, 30)
anyone = st.sampled_from(PLAYERS)
junk_actions = st.one_of(
    st.builds(OpeningRoll, anyone, st.tuples(ints, ints)),
    st.builds(Roll, anyone, st.tuples(ints, ints)),
    st.builds(Move, anyone, st.lists(st.tuples(ints, ints, st.booleans()), max_size=5).map(tuple)),
    st.builds(Resign, anyone, ints),
    st.builds(SetActing, anyone, anyone),
    *(st.builds(cls, anyone) for cls in (Double, Take, Pass, Beaver, Raccoon, AcceptResignation, RejectResignation)),
    st.builds(Timeout, anyone),
    st.builds(Forfeit, anyone),
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 120), junk=st.lists(junk_actions, min_size=1, max_size=8))
def test_every_action_is_applied_or_refused_with_a_reason(seed: int, steps: int, junk: list[object]) -> None:
    options = MatchOptions(games=3, beavers=True, jacoby=True, team_choice=True)
    state = new_match(get_variant("doubles"), [["ann", "cat"], ["bob", "dan"]], options)
    player = RandomPlayer(random.Random(seed))
    dice = RandomDice(seed)
    for _ in range(steps):
        if state.over:
            break
        state = apply(state, player.choose(state, dice))
    for action in junk:
        try:
            apply(state, action)  # type: ignore[arg-type]
        except ActionError as exc:
            assert str(exc) and "Traceback" not in str(exc)
