"""Match states as stored data (engine.record.state_to_data / state_from_data) and the record counters kept
beside them (log_counters / advance_counters).

Every intermediate state of hundreds of self-played matches (every registered rule set, match and money play,
teams, cube actions with beavers and raccoons, resignations, Crawford and Holland, automatic doubles, timeouts
and forfeits) goes through JSON and back: it must come back equal, list the same legal plays, and take the next
recorded action to the same next state. Corrupted data must raise RecordError and nothing else.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.dice import RandomDice
from engine.fairdice import roll_number
from engine.match import (
    Action,
    Double,
    EndSession,
    MatchOptions,
    MatchSetup,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Phase,
    Roll,
    Take,
    TimeoutPolicy,
    apply,
    new_match,
)
from engine.plugins import get_variant, registry
from engine.record import (
    STATE_KEYS,
    STATE_VERSION,
    RecordError,
    action_to_data,
    advance_counters,
    log_counters,
    setup_from_data,
    setup_to_data,
    state_from_data,
    state_to_data,
)
from engine.selfplay import RandomPlayer, default_sides

# --- helpers ------------------------------------------------------------------------------------------------


def is_json_data(value: Any) -> bool:
    """Only dicts with text keys, lists, text, whole numbers, booleans and null."""
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, list):
        return all(is_json_data(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json_data(v) for k, v in value.items())
    return False


def reread_setup(setup: MatchSetup) -> MatchSetup:
    """The setup as the service has it: stored with setup_to_data, read back from JSON."""
    back = setup_from_data(json.loads(json.dumps(setup_to_data(setup))))
    assert back == setup
    return back


def random_match(
    variant_name: str,
    variant_options: dict[str, Any],
    options: MatchOptions,
    seed: int,
    *,
    chaos: bool,
    resign_rate: float = 0.004,
    double_rate: float = 0.08,
) -> tuple[list[MatchState], list[Action]]:
    """Every state of a self-played match (the first is the initial state) and its record."""
    variant = get_variant(variant_name, **variant_options)
    state = new_match(variant, default_sides(variant), variant.allowed_options(options))
    dice = RandomDice(seed)
    player = RandomPlayer(random.Random(seed), chaos=chaos, resign_rate=resign_rate, double_rate=double_rate)
    seen = [state]
    actions: list[Action] = []
    ender = random.Random(seed + 1)  # with chaos, money sessions are sometimes ended between games
    while not state.over:
        assert len(actions) < 50_000
        if chaos and state.options.money and state.between_games and ender.random() < 0.15:
            action: Action = EndSession(state.acting_member(ender.randrange(2)))
        else:
            action = player.choose(state, dice)
        state = apply(state, action)
        actions.append(action)
        seen.append(state)
    return seen, actions


def check_round_trips(seen: list[MatchState], actions: list[Action]) -> int:
    """Every state survives JSON and behaves the same afterwards; returns how many states were checked."""
    setup = reread_setup(seen[0].setup)
    for i, state in enumerate(seen):
        data = state_to_data(state)
        assert is_json_data(data), data
        assert data["v"] == STATE_VERSION
        text = json.dumps(data, allow_nan=False)
        back = json.loads(text)
        assert back == data
        restored = state_from_data(setup, back)
        assert restored == state, (i, data)
        assert state_to_data(restored) == data
        if state.phase is Phase.MOVE:
            assert [p.notation for p in restored.legal_plays()] == [p.notation for p in state.legal_plays()]
            assert [p.position for p in restored.legal_plays()] == [p.position for p in state.legal_plays()]
        for side in (0, 1):
            assert restored.may_double(side) == state.may_double(side)
        if i < len(actions):
            assert apply(restored, actions[i]) == seen[i + 1], (i, actions[i])
    return len(seen)


def check_counters(actions: list[Action], rng: random.Random) -> None:
    """advance_counters over chunks equals log_counters of the longer record, which agrees with roll_number."""
    counters = log_counters([])
    assert counters == {"actions": 0, "rolls": 0, "timed": 0}
    done = 0
    checkpoints = 0
    while done < len(actions):
        step = rng.choice([1, 1, 1, 2, 3, 7])
        chunk = actions[done : done + step]
        as_data = rng.random() < 0.5
        counters = advance_counters(
            json.loads(json.dumps(counters)), [action_to_data(a) for a in chunk] if as_data else chunk
        )
        done += len(chunk)
        if rng.random() < 0.05 or done == len(actions):
            checkpoints += 1
            prefix = actions[:done]
            assert counters == log_counters(prefix)
            assert counters == log_counters(action_to_data(a) for a in prefix)
            assert counters["actions"] == done
            assert counters["rolls"] == roll_number(prefix)
            assert counters["timed"] == sum(1 for a in prefix if type(a).__name__ != "SetActing")
    assert checkpoints


# --- the grid of seeded matches -----------------------------------------------------------------------------

VARIANTS: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in registry().names()]
VARIANTS.append(("longgammon", {"koks": True, "block_across_corner": False}))

CONFIGS: list[MatchOptions] = [
    MatchOptions(length=5),
    MatchOptions(length=7, holland=True, opening=OpeningRule.REROLL, max_cube=8),
    MatchOptions(
        length=3,
        crawford=False,
        opening=OpeningRule.PREVIOUS_WINNER,
        timeout_policy=TimeoutPolicy.GAME,
        auto_accept_resign=False,
    ),
    MatchOptions(length=5, holland=True, holland_rolls=3, holland_counts_opening=False, holland_counts_dances=False),
    MatchOptions(length=1),
    MatchOptions(games=3, beavers=True, beaver_limit=3, auto_doubles=2),
    MatchOptions(games=4, jacoby=True, beavers=True, beaver_limit=1, auto_accept_resign=False),
    MatchOptions(games=3, auto_doubles=3, max_cube=16, opening=OpeningRule.PREVIOUS_WINNER),
    MatchOptions(games=2, cube=False, opening=OpeningRule.REROLL),
]
SEEDS = range(6)


def grid() -> Iterator[tuple[str, dict[str, Any], MatchOptions, int]]:
    for name, vopts in VARIANTS:
        variant = get_variant(name, **vopts)
        team = variant.team_size > 1
        # Without a cube most of the configurations differ only in what a cube would do: fewer seeds suffice.
        seeds = SEEDS if variant.uses_cube else SEEDS[:2]
        for k, options in enumerate(CONFIGS):
            for seed in seeds:
                opts = dataclasses.replace(options, team_choice=team and seed % 2 == 0)
                yield name, vopts, opts, 1000 * k + seed


ACTION_KINDS = [
    "OpeningRoll",
    "Roll",
    "Move",
    "Double",
    "Take",
    "Pass",
    "Beaver",
    "Raccoon",
    "Resign",
    "AcceptResignation",
    "RejectResignation",
    "Timeout",
    "Forfeit",
    "EndSession",
    "SetActing",
]
STATE_CORNERS = [
    "crawford",
    "post-crawford",
    "auto-double",
    "redoubles",
    "resigned",
    "declined",
    "owned-cube",
    "opening-tie",
    "acting-member-2",
    "winner",
    "bar",
    "bearing-off",
    "dance",
    "hit",
]


def test_every_state_of_hundreds_of_seeded_matches_round_trips_and_behaves_the_same() -> None:
    matches = states_checked = 0
    kinds: Counter[str] = Counter()
    seen_flags: Counter[str] = Counter()
    seen_variants: set[str] = set()
    rng = random.Random(7)
    for name, vopts, options, seed in grid():
        chaos = seed % 4 != 3
        seen, actions = random_match(
            name, vopts, options, seed, chaos=chaos, resign_rate=0.02 if seed % 2 else 0.004, double_rate=0.15
        )
        states_checked += check_round_trips(seen, actions)
        check_counters(actions, rng)
        matches += 1
        seen_variants.add(name)
        kinds.update(type(a).__name__ for a in actions)
        for s in seen:
            seen_flags.update(
                flag
                for flag, on in (
                    ("crawford", s.crawford_game),
                    ("post-crawford", s.post_crawford),
                    ("auto-double", s.auto_doubles > 0),
                    ("redoubles", s.redoubles > 0),
                    ("resigned", s.phase is Phase.RESIGNED),
                    ("declined", any(s.declined)),
                    ("owned-cube", s.cube.owner is not None),
                    ("opening-tie", s.opening_ties > 0),
                    ("acting-member-2", any(s.acting)),
                    ("winner", s.winner is not None),
                    ("bar", s.position is not None and any(s.position.bar)),
                    ("bearing-off", s.position is not None and any(s.position.off)),
                    ("dance", s.last_move is not None and not s.last_move[2]),
                    ("hit", s.last_move is not None and any(h for _, _, h in s.last_move[2])),
                )
                if on
            )
    assert seen_variants == set(registry().names())
    assert matches >= 300
    assert states_checked >= 30_000
    # Every kind of action and every corner of the state was exercised.
    for kind in ACTION_KINDS:
        assert kinds[kind] > 0, kind
    for flag in STATE_CORNERS:
        assert seen_flags[flag] > 0, flag


@st.composite
def match_setups(draw: st.DrawFn) -> tuple[str, MatchOptions]:
    name = draw(st.sampled_from(registry().names()))
    team = get_variant(name).team_size > 1
    if draw(st.booleans()):
        crawford = draw(st.booleans())
        options = MatchOptions(
            length=draw(st.integers(1, 9)),
            crawford=crawford,
            holland=crawford and draw(st.booleans()),  # the Holland rule needs the Crawford rule
            dead_cube=draw(st.booleans()),
            holland_counts_opening=draw(st.booleans()),
            holland_counts_dances=draw(st.booleans()),
            max_cube=draw(st.sampled_from([1, 2, 8, 64])),
            opening=draw(st.sampled_from(list(OpeningRule))),
            auto_accept_resign=draw(st.booleans()),
            timeout_policy=draw(st.sampled_from(list(TimeoutPolicy))),
            team_choice=team and draw(st.booleans()),
        )
    else:
        options = MatchOptions(
            games=draw(st.integers(1, 4)),
            jacoby=draw(st.booleans()),
            beavers=draw(st.booleans()),
            beaver_limit=draw(st.integers(1, 3)),
            auto_doubles=draw(st.integers(0, 3)),
            max_cube=draw(st.sampled_from([1, 4, 64, 1024])),
            opening=draw(st.sampled_from(list(OpeningRule))),
            auto_accept_resign=draw(st.booleans()),
            team_choice=team and draw(st.booleans()),
        )
    return name, options


@settings(max_examples=40, deadline=None)
@given(setup=match_setups(), seed=st.integers(0, 2**32 - 1), chaos=st.booleans())
def test_random_matches_round_trip_at_every_state(setup: tuple[str, MatchOptions], seed: int, chaos: bool) -> None:
    name, options = setup
    seen, actions = random_match(name, {}, options, seed, chaos=chaos, resign_rate=0.01, double_rate=0.12)
    check_round_trips(seen, actions)
    check_counters(actions, random.Random(seed))


# --- the format ---------------------------------------------------------------------------------------------


def test_every_field_of_the_match_state_has_a_key() -> None:
    """A field added to MatchState must be added to the stored format too (and this list)."""
    fields = {f.name for f in dataclasses.fields(MatchState)} - {"setup", "_plays"}
    assert set(STATE_KEYS) == fields
    assert len(set(STATE_KEYS.values())) == len(STATE_KEYS)


def example_state() -> MatchState:
    variant = get_variant("backgammon")
    state = new_match(variant, [["alice"], ["bob"]], MatchOptions(length=5))
    for action in (
        OpeningRoll("alice", (3, 1)),
        Move("alice", ((8, 5, False), (6, 5, False))),
        Roll("bob", (6, 4)),
        Move("bob", ((24, 18, False), (13, 9, False))),
        Double("alice"),
        Take("bob"),
        Roll("alice", (5, 3)),
    ):
        state = apply(state, action)
    return state


EXAMPLE = {
    "v": 1,
    "phase": "move",
    "pos": "24:2 19:-5 17:-3 16:-1 13:5 12:-4 8:2 7:-1 6:4 5:2 1:-1",
    "roller": 0,
    "dice": [5, 3],
    "cube": [2, 1],
    "moved": [True, True],
    "rolls": [2, 1],
    "begun": True,
    "last": [1, [6, 4], "24/18 13/9"],
    "turns": [2, 1],
}


def test_a_mid_game_state_is_written_compactly_and_the_version_1_format_stays_readable() -> None:
    state = example_state()
    assert state_to_data(state) == EXAMPLE
    assert state_from_data(state.setup, EXAMPLE) == state
    # Defaults are left out: the state before the first roll is its version and position.
    fresh = new_match(get_variant("backgammon"), [["alice"], ["bob"]])
    assert state_to_data(fresh) == {"v": 1, "pos": "24:2 19:-5 17:-3 13:5 12:-5 8:3 6:5 1:-2"}


def test_results_whose_numbers_do_not_follow_from_each_other_are_written_in_full() -> None:
    state = example_state()
    odd = dataclasses.replace(
        state,
        game=3,
        score=(9, 0),
        results=(_result(1, (0, 0)), _result(7, (5, 0))),
    )
    data = state_to_data(odd)
    assert isinstance(data["results"][0], list) and isinstance(data["results"][1], dict)
    assert state_from_data(odd.setup, json.loads(json.dumps(data))) == odd


def _result(game: int, before: tuple[int, int]) -> Any:
    from engine.match import EndReason, GameResult

    return GameResult(game, 0, 4, 2, EndReason.BORNE_OFF, 2, before, True)


# --- malformed data -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([1, 2], "JSON object"),
        ({}, "version None"),
        ({"v": 2}, "version 2"),
        ({"v": True}, "version True"),
        ({"v": "1"}, "version '1'"),
        ({"v": 1, "score": [1, 2], "extra": 1}, "no key 'extra'"),
        ({"v": 1, "pos": "24:2 19:-5"}, "'pos'"),
        ({"v": 1, "pos": 12}, "'pos'"),
        ({"v": 1, "phase": "sleeping"}, "'phase'"),
        ({"v": 1, "phase": "move", "pos": EXAMPLE["pos"], "roller": 0}, "'dice'"),
        ({**EXAMPLE, "dice": [7, 1]}, "'dice'"),
        ({**EXAMPLE, "dice": [1.0, 1]}, "'dice'"),
        ({**EXAMPLE, "cube": [3, 0]}, "power of two"),
        ({**EXAMPLE, "roller": 2}, "'roller'"),
        ({**EXAMPLE, "moved": [1, 0]}, "'moved'"),
        ({**EXAMPLE, "last": [1, [6, 4], "24/18 13/9x"]}, "'last'"),
        ({**EXAMPLE, "last": [1, [6, 4], "9/13"]}, "'last'"),
        ({**EXAMPLE, "results": [[0, 1, 1, "pass"]]}, "'results'"),
        ({**EXAMPLE, "results": [[0, 1, 1, "pass", 1]]}, "finished games"),
        ({**EXAMPLE, "winner": 0}, "winner"),
        ({**EXAMPLE, "acting": [0, 1]}, "'acting'"),
    ],
)
def test_malformed_states_are_refused_with_a_reason(data: Any, words: str) -> None:
    setup = example_state().setup
    with pytest.raises(RecordError, match=None) as info:
        state_from_data(setup, data)
    assert words in str(info.value), str(info.value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.integers(-3, 30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["move", "roll", "over", "opening", "doubled", "resigned", "pass", "borne off", "8/5*", "25/0"]),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def _sample_pool() -> list[tuple[MatchSetup, dict[str, Any]]]:
    pool: list[tuple[MatchSetup, dict[str, Any]]] = []
    for k, (name, vopts) in enumerate(VARIANTS):
        for options in (CONFIGS[0], CONFIGS[2], CONFIGS[5], CONFIGS[6]):
            seen, _ = random_match(name, vopts, options, 77 + k, chaos=True, resign_rate=0.02, double_rate=0.15)
            pool.extend((s.setup, state_to_data(s)) for s in seen[:: max(1, len(seen) // 25)])
    return pool


POOL = _sample_pool()


def _mutate(value: Any, draw: st.DrawFn) -> Any:
    """A corrupted copy of a (nested) JSON value: an item dropped, replaced, added or a text edited."""
    how = draw(st.integers(0, 4))
    if isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value)))
        out = dict(value)
        if how == 0:
            del out[key]
        elif how == 1:
            out[key] = draw(json_values)
        elif how == 2:
            out[draw(st.text(max_size=10))] = draw(json_values)
        else:
            out[key] = _mutate(value[key], draw)
        return out
    if isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        items = list(value)
        if how == 0:
            del items[i]
        elif how == 1:
            items[i] = draw(json_values)
        elif how == 2:
            items.insert(i, draw(json_values))
        else:
            items[i] = _mutate(value[i], draw)
        return items
    if isinstance(value, str) and value and how < 3:
        i = draw(st.integers(0, len(value)))
        j = draw(st.integers(i, len(value)))
        return value[:i] + draw(st.text(alphabet="0123456789-:/* barof", max_size=4)) + value[j:]
    return draw(json_values)


@st.composite
def corrupted(draw: st.DrawFn) -> tuple[MatchSetup, Any]:
    setup, data = draw(st.sampled_from(POOL))
    for _ in range(draw(st.integers(1, 3))):
        data = _mutate(data, draw)
    return setup, data


def _accepts_or_refuses(setup: MatchSetup, data: Any) -> None:
    try:
        state = state_from_data(setup, data)
    except RecordError as exc:
        assert str(exc)
        return
    # What is accepted is a state that writes and reads back the same.
    assert state_from_data(setup, json.loads(json.dumps(state_to_data(state)))) == state


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=corrupted())
def test_corrupted_states_raise_record_error_only(case: tuple[MatchSetup, Any]) -> None:
    _accepts_or_refuses(*case)


@settings(max_examples=600, deadline=None)
@given(
    index=st.integers(0, len(POOL) - 1),
    data=st.one_of(
        json_values,
        st.dictionaries(st.sampled_from(sorted({"v", *STATE_KEYS.values()})), json_values, max_size=8),
        st.dictionaries(st.sampled_from(sorted(STATE_KEYS.values())), json_values, max_size=8).map(
            lambda d: {"v": 1, **d}
        ),
    ),
)
def test_arbitrary_data_raises_record_error_only(index: int, data: Any) -> None:
    _accepts_or_refuses(POOL[index][0], data)


def test_malformed_counters_are_refused() -> None:
    bad_counters: list[Any] = [
        None,
        [],
        {},
        {"actions": 1, "rolls": 0},
        {"actions": -1, "rolls": 0, "timed": 0},
        {"actions": 1.5, "rolls": 0, "timed": 0},
        {"actions": True, "rolls": 0, "timed": 0},
        {"actions": 1, "rolls": 0, "timed": 0, "more": 0},
    ]
    for bad in bad_counters:
        with pytest.raises(RecordError):
            advance_counters(bad, [])
