"""Property: for every rule set, a self-played record exported as ``.mat`` and imported again is the same record.

1,000 seeded matches in all (every registered rule set, the Nackgammon test plugin included when installed):
match play of 1 to 5 points with and without Crawford, the dead-cube rule and Holland; money sessions with
the Jacoby rule, beavers and raccoons (limits 1 to 3), cube limits, game counts and sessions ended between
games; IBF, reroll and previous-winner openings. The players double, beaver, raccoon and resign (before and
after rolling) far more often than real players, so the cube and resignation paths are dense.

"The same record" is what ``.mat`` can carry: every action but an opening tie, in order, with the same
player, dice (written high die first, as GNU Backgammon does), submoves in the order played and hit marks;
an opening throw as who starts with what; a
resignation by the level it was accepted at (the results carry it). The final results, score and winner must
be equal, and the setup too (rule set and its options, sides, match options).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import RandomDice
from engine.match import (
    Action,
    EndSession,
    Forfeit,
    MatchOptions,
    MatchSetup,
    MatchState,
    OpeningRoll,
    OpeningRule,
    Resign,
    Roll,
    apply,
    new_match,
    replay,
)
from engine.matfile import MatFileError, export_mat, read_mat
from engine.plugins import get_variant, registry
from engine.selfplay import RandomPlayer, default_sides
from engine.variant import Variant

MATCHES = 1000


def options_for(rng: random.Random) -> MatchOptions:
    opening = rng.choice([OpeningRule.IBF] * 6 + [OpeningRule.REROLL, OpeningRule.PREVIOUS_WINNER])
    if rng.random() < 0.55:
        crawford = rng.random() < 0.8
        return MatchOptions(
            length=rng.randint(1, 5),
            crawford=crawford,
            dead_cube=rng.random() < 0.8,
            holland=crawford and rng.random() < 0.2,
            max_cube=rng.choice([64, 64, 8]),
            opening=opening,
        )
    beavers = rng.random() < 0.6
    return MatchOptions(
        games=rng.randint(1, 3),
        jacoby=rng.random() < 0.4,
        beavers=beavers,
        beaver_limit=rng.randint(1, 3) if beavers else 3,
        max_cube=rng.choice([64, 64, 256, 16]),
        opening=opening,
    )


def variant_for(name: str, rng: random.Random) -> Variant:
    if name == "longgammon" and rng.random() < 0.3:
        return get_variant(name, koks=True)
    return get_variant(name)


def self_play(
    variant: Variant, options: MatchOptions, seed: int, watch: Callable[[MatchState, Action], None] | None = None
) -> tuple[MatchState, list[Action]]:
    """A random match with many cube actions and resignations; money sessions may end between games.
    ``watch(state, action)`` sees each action with the state it applies to."""
    rng = random.Random(f"mat-{seed}")
    player = RandomPlayer(rng, double_rate=0.12, redouble_rate=0.45, resign_rate=0.03)
    dice = RandomDice(seed)
    state = new_match(variant, default_sides(variant), variant.allowed_options(options))
    actions: list[Action] = []
    while not state.over:
        action: Action
        if options.money and state.results and state.between_games and rng.random() < 0.25:
            by = state.acting_member(rng.randrange(2))
            action = EndSession(by) if rng.random() < 0.7 else Forfeit(by)
        else:
            action = player.choose(state, dice)
        if watch is not None:
            watch(state, action)
        state = apply(state, action)
        actions.append(action)
    return state, actions


def carried(setup: MatchSetup, actions: list[Action]) -> list[Any]:
    """The actions as ``.mat`` carries them (see the module docstring)."""
    out: list[Any] = []
    for action in actions:
        if isinstance(action, OpeningRoll):
            d0, d1 = action.dice
            if d0 == d1:
                continue
            if setup.options.opening in (OpeningRule.REROLL, OpeningRule.WINNER_REROLL):
                out.append(("starts", d0 < d1))
            else:
                out.append(("starts", d0 < d1, max(d0, d1), min(d0, d1)))
        elif isinstance(action, Roll):
            out.append(Roll(action.by, (max(action.dice), min(action.dice))))
        elif isinstance(action, Resign):
            out.append(("resigns", action.by))
        else:
            out.append(action)
    return out


def test_every_rule_set_round_trips_through_mat() -> None:
    names = registry().names()
    seen: Counter[str] = Counter()
    for k in range(MATCHES):
        name = names[k % len(names)]
        rng = random.Random(k)
        variant = variant_for(name, rng)
        options = options_for(rng)
        state, actions = self_play(variant, options, k)
        text = export_mat(state.setup, actions)
        again = read_mat(text)
        where = f"match {k} ({name}, {options})"
        assert again.setup.variant == state.setup.variant, where
        assert again.setup.options == state.setup.options, where
        assert again.setup.sides == state.setup.sides, where
        assert carried(again.setup, again.actions) == carried(state.setup, actions), where
        got = again.state
        assert (got.results, got.score, got.winner, got.over) == (state.results, state.score, state.winner, True), where
        if k % 10 == 0:
            assert export_mat(again.setup, again.actions) == text, where
        seen.update(type(a).__name__ for a in actions)
        seen.update(
            "resign after the roll"
            for before, a in zip(actions, actions[1:])
            if isinstance(a, Resign) and isinstance(before, Roll) and before.by == a.by
        )
        # A left entry of 27 characters or more (GNU Backgammon still ends it with a blank) and a right one.
        seen.update(
            "long left entry"
            for line in text.splitlines()
            if line[3:5] == ") " and line[31:33].strip() and len(line) > 34
        )
        seen[name] += 1
    for wanted in ("Double", "Take", "Pass", "Beaver", "Raccoon", "Resign", "AcceptResignation", "EndSession"):
        assert seen[wanted] >= 20, (wanted, seen)
    assert seen["resign after the roll"] >= 20 and seen["Forfeit"] >= 5 and seen["long left entry"] >= 20, seen
    assert all(seen[name] >= MATCHES // len(names) for name in names), seen


SAMPLE_STATE, SAMPLE_ACTIONS = self_play(get_variant("backgammon"), MatchOptions(games=3, beavers=True), 7)
SAMPLE = export_mat(SAMPLE_STATE.setup, SAMPLE_ACTIONS)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(SAMPLE)),
            st.integers(0, 12),
            st.text(alphabet=' /*:=>0123456789)\nDoublesTakDrpWinBvRc;[]"', max_size=12),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_a_damaged_file_is_read_or_refused_with_a_message(edits: list[tuple[int, int, str]]) -> None:
    """Whatever is cut from or written into a file, reading it gives a replayable match or a MatFileError."""
    text = SAMPLE
    for at, cut, insert in edits:
        text = text[:at] + insert + text[at + cut :]
    try:
        done = read_mat(text)
    except MatFileError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert replay(done.setup, done.actions) == done.state
