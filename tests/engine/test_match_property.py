"""Property: random complete matches end with a correct winner and score, and replaying the record
reproduces every intermediate state."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import RandomDice
from engine.match import (
    Action,
    Double,
    EndReason,
    MatchOptions,
    MatchState,
    OpeningRule,
    Phase,
    apply,
    new_match,
    states,
)
from engine.plugins import get_variant, registry
from engine.selfplay import RandomPlayer, default_sides


@st.composite
def match_setups(draw: st.DrawFn) -> tuple[str, MatchOptions]:
    name = draw(st.sampled_from(registry().names()))
    if draw(st.booleans()):
        crawford = draw(st.booleans())
        options = MatchOptions(
            length=draw(st.integers(1, 7)),
            crawford=crawford,
            holland=crawford and draw(st.booleans()),  # the Holland rule needs the Crawford rule
            dead_cube=draw(st.booleans()),
            max_cube=draw(st.sampled_from([1, 2, 8, 64])),
            opening=draw(st.sampled_from(list(OpeningRule))),
        )
    else:
        options = MatchOptions(
            games=draw(st.integers(1, 4)),
            jacoby=draw(st.booleans()),
            beavers=draw(st.booleans()),
            beaver_limit=draw(st.integers(1, 3)),
            auto_doubles=draw(st.integers(0, 2)),
            opening=draw(st.sampled_from(list(OpeningRule))),
        )
    return name, options


def expected_crawford_flags(length: int, crawford: bool, scores_before: list[tuple[int, int]]) -> list[bool]:
    """GNU Backgammon's rule (import.c): the first game where exactly one side is at length − 1."""
    flags = []
    post = False
    for s0, s1 in scores_before:
        game = crawford and length > 0 and not post and ((s0 == length - 1) != (s1 == length - 1))
        post = post or game
        flags.append(game)
    return flags


@settings(max_examples=40, deadline=None)
@given(setup=match_setups(), seed=st.integers(0, 2**32 - 1), chaos=st.booleans())
def test_random_matches_end_correctly_and_replay_exactly(
    setup: tuple[str, MatchOptions], seed: int, chaos: bool
) -> None:
    name, options = setup
    variant = get_variant(name)
    state = new_match(variant, default_sides(variant), variant.allowed_options(options))
    options = state.setup.options  # the rule set's own defaults and refusals applied
    dice = RandomDice(seed)
    player = RandomPlayer(random.Random(seed), chaos=chaos)
    seen: list[MatchState] = [state]
    actions: list[Action] = []
    while not state.over:
        assert len(actions) < 100_000
        action = player.choose(state, dice)
        if isinstance(action, Double):
            assert not state.crawford_game
        state = apply(state, action)
        actions.append(action)
        seen.append(state)

    # Replaying the record reproduces every intermediate state.
    assert list(states(state.setup, actions)) == seen

    results = state.results
    assert results and state.phase is Phase.OVER
    totals = [0, 0]
    for k, r in enumerate(results, 1):
        assert r.game == k and r.score_before == (totals[0], totals[1])
        totals[r.winner] += r.points
        if r.reason in (EndReason.BORNE_OFF, EndReason.RESIGN):
            assert 1 <= r.level <= 3 and r.points == r.level * r.cube
        elif r.reason is EndReason.PASS:
            assert r.points == r.cube
        if options.money and options.jacoby and r.reason is EndReason.BORNE_OFF and r.level > 1:
            assert r.cube > 1  # a gammon under Jacoby needs a turned cube
    assert state.score == (totals[0], totals[1])
    flags = expected_crawford_flags(options.length, options.crawford, [r.score_before for r in results])
    assert [r.crawford for r in results] == flags

    last = results[-1]
    if options.money:
        if last.reason is not EndReason.FORFEIT:
            assert len(results) == options.games
        # A session is decided by points, also when a forfeit (which loses the game at the cube) ends it.
        lead = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        assert state.winner == lead
    else:
        assert state.winner == last.winner
        assert totals[last.winner] >= options.length > totals[1 - last.winner]
        for r in results[:-1]:
            assert max(r.score_before) < options.length
