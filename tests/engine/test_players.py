"""Bot players: the contract, the registry hook, legality over thousands of decisions, and the heuristic player.

The legality property plays seeded games between each player under test and the engine's chaos-free random
player (which doubles, beavers, raccoons and resigns, so every kind of decision comes up) in every registered
rule set, and checks each answer against the engine itself: a play is one of ``state.legal_plays()``, a cube
answer is one of :func:`cube_answers`, and :func:`~engine.match.apply` accepts the resulting action.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Position
from engine.dice import RandomDice
from engine.match import (
    AcceptResignation,
    Action,
    Double,
    MatchOptions,
    MatchState,
    Move,
    Phase,
    RejectResignation,
    Roll,
    Take,
    apply,
    new_match,
)
from engine.movegen import Play
from engine.players import (
    HEURISTIC,
    RANDOM,
    CubeAnswer,
    HeuristicEvaluator,
    HeuristicPlayer,
    Player,
    PlayerError,
    PlayerSpec,
    PlayerUnavailable,
    RandomBot,
    UnsupportedVariant,
    bot_action,
    cube_answers,
)
from engine.plugins import (
    PluginError,
    UnknownPlayer,
    build_plugin_manager,
    find_player,
    get_variant,
    hookimpl,
    players_for,
    registry,
)
from engine.selfplay import RandomPlayer, default_sides
from engine.variant import Variant
from tests.engine.strategies import game_positions

VARIANTS = sorted(registry().names())


# --- the referee ------------------------------------------------------------------------------------------
@dataclass
class Tally:
    plays: int = 0
    cube: int = 0
    resignations: int = 0
    kinds: set[str] | None = None


def refereed_match(
    variant: Variant,
    player: Player,
    seed: int,
    tally: Tally,
    options: MatchOptions | None = None,
    time_cap: float | None = None,
) -> MatchState:
    """Side 0 is ``player`` (each answer checked by the engine), side 1 a random player that resigns now and then."""
    options = options or MatchOptions(length=3)
    state = new_match(variant, default_sides(variant), variant.allowed_options(options))
    dice = RandomDice(seed)
    other = RandomPlayer(random.Random(seed), resign_rate=0.03, redouble_rate=0.5)
    for _ in range(20_000):
        if state.over:
            return state
        due = state.turn
        if due == 0 and state.phase is not Phase.OPENING:
            by = state.acting_member(0)
            action: Action
            if state.phase is Phase.MOVE:
                plays = state.legal_plays()
                chosen = player.choose_play(state, time_cap)
                assert isinstance(chosen, Play)
                found = plays.find(chosen.position)
                assert found is not None, f"{chosen!r} is not a legal play"
                tally.plays += 1
                action = Move(by, chosen.moves)
            elif state.phase is Phase.ROLL:
                if state.may_double(0) is None and player.should_double(state, time_cap):
                    action = Double(by)
                    tally.cube += 1
                else:
                    action = Roll(by, dice())
            elif state.phase is Phase.NAME_DOUBLE:  # a 1-2 in Acey-deucey: the player's choice, refereed too
                action = bot_action(player, state, 0, dice, time_cap=time_cap)
            elif state.phase is Phase.DOUBLED:
                answer = player.answer_double(state, time_cap)
                assert answer in cube_answers(state), f"{answer} is not allowed now"
                tally.cube += 1
                action = _answer(state, answer)
            else:
                accept = player.accept_resignation(state, time_cap)
                assert isinstance(accept, bool)
                tally.resignations += 1
                action = AcceptResignation(by) if accept else RejectResignation(by)
            state = apply(state, action)  # raises ActionError if the engine refuses it
        else:
            state = apply(state, other.choose(state, dice))
    raise AssertionError("the match did not end")


def _answer(state: MatchState, answer: CubeAnswer) -> Action:
    from engine.match import Beaver, Pass, Raccoon

    assert state.responder is not None
    by = state.acting_member(state.responder)
    kinds: dict[CubeAnswer, Callable[[str], Action]] = {
        CubeAnswer.TAKE: Take,
        CubeAnswer.PASS: Pass,
        CubeAnswer.BEAVER: Beaver,
        CubeAnswer.RACCOON: Raccoon,
    }
    return kinds[answer](by)


MONEY = MatchOptions(games=3, beavers=True, jacoby=True)


@pytest.mark.parametrize("name", VARIANTS)
def test_random_and_heuristic_players_only_make_legal_plays_and_cube_actions(name: str) -> None:
    """Every rule set (plugins included): hundreds of plays and cube answers per player, all refereed."""
    variant = get_variant(name)
    for spec, matches, least in ((RANDOM, 10, 150), (HEURISTIC, 7, 80)):
        tally = Tally()
        for seed in range(matches):
            player = spec.create(seed)
            if isinstance(player, HeuristicPlayer):
                player.candidates = 1  # one looked-ahead candidate keeps the test fast; the logic is the same
            options = MONEY if seed % 2 else MatchOptions(length=3)
            refereed_match(variant, player, seed, tally, options)
        assert tally.plays >= least, (spec.name, tally)
        assert tally.cube >= 5 or not variant.uses_cube, (spec.name, tally)


@pytest.mark.parametrize("name", ["backgammon", "doubles"])
def test_bgsage_casual_only_makes_legal_plays_and_cube_actions(name: str) -> None:
    """bgsage's cheapest level, with noise, refereed like the others (match and money play, beavers on)."""
    spec = find_player("casual")
    if spec.unavailable:
        pytest.skip(spec.unavailable)
    tally = Tally()
    for seed in range(4):
        options = MONEY if seed % 2 else MatchOptions(length=3)
        refereed_match(get_variant(name), spec.create(seed), seed, tally, options)
    assert tally.plays >= 40 and tally.cube >= 1, tally


def test_every_player_is_legal_over_thousands_of_positions() -> None:
    """Thousands of positions in total over every rule set: each player's play is one of ours."""
    seen = 0
    rng = random.Random(7)
    heuristic = HeuristicPlayer(random.Random(1), candidates=0)
    players: list[Player] = [RandomBot(random.Random(2)), heuristic]
    casual = find_player("casual")
    for name in VARIANTS:
        variant = get_variant(name)
        neural = casual.create(3) if not casual.unavailable and casual.supports(variant) else None
        for i in range(220):
            state = _state_in_move(variant, rng)
            if state is None:
                continue
            plays = state.legal_plays()
            bots = [*players, neural] if neural is not None and i % 3 == 0 else players
            for bot in bots:
                assert plays.find(bot.choose_play(state).position) is not None
                seen += 1
    assert seen >= 2000


def _state_in_move(variant: Variant, rng: random.Random) -> MatchState | None:
    """A match state with a random game position and roll for the side on roll."""
    from tests.engine.strategies import random_game_position

    pos = random_game_position(variant, rng, rng.randint(0, 60))
    if pos.off[0] >= variant.checkers or pos.off[1] >= variant.checkers:
        return None
    state = new_match(variant, default_sides(variant), MatchOptions(length=5))
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    state = replace(state, phase=Phase.MOVE, position=pos, roller=0, dice=dice, moved=(True, True), begun=True)
    return state


# --- bot_action: the engine refuses a player's mistakes ---------------------------------------------------
class Cheater:
    """Answers with things the rules do not allow."""

    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Play:
        assert state.position is not None
        return Play((), state.position)  # not moving at all, though moves exist

    def should_double(self, state: MatchState, time_cap: float | None = None) -> bool:
        return True

    def answer_double(self, state: MatchState, time_cap: float | None = None) -> CubeAnswer:
        return CubeAnswer.BEAVER  # a match: beavers are money-play only

    def accept_resignation(self, state: MatchState, time_cap: float | None = None) -> bool:
        return True


def _to_phase(variant: Variant, phase: Phase, seed: int = 3) -> MatchState:
    state = new_match(variant, default_sides(variant), MatchOptions(length=5))
    dice = RandomDice(seed)
    bot = RandomBot(random.Random(seed), double_rate=1.0 if phase is Phase.DOUBLED else 0.0)
    for _ in range(200):
        if state.phase is phase and (phase is not Phase.MOVE or len(state.legal_plays()) > 1):
            return state
        side = state.turn if state.turn is not None else 0
        state = apply(state, bot_action(bot, state, side, dice))
    raise AssertionError(f"never reached {phase}")


def test_bot_action_refuses_a_play_that_is_not_ours() -> None:
    state = _to_phase(get_variant("backgammon"), Phase.MOVE)
    assert state.roller is not None
    with pytest.raises(PlayerError, match="not one of the legal plays"):
        bot_action(Cheater(), state, state.roller, RandomDice(1))


def test_bot_action_refuses_a_cube_answer_that_is_not_allowed() -> None:
    state = _to_phase(get_variant("backgammon"), Phase.DOUBLED)
    assert state.responder is not None
    assert CubeAnswer.BEAVER not in cube_answers(state)
    with pytest.raises(PlayerError, match="not allowed"):
        bot_action(Cheater(), state, state.responder, RandomDice(1))


def test_bot_action_refuses_to_act_out_of_turn_and_doubles_only_when_allowed() -> None:
    state = _to_phase(get_variant("backgammon"), Phase.MOVE)
    assert state.roller is not None
    with pytest.raises(PlayerError, match="not .*turn"):
        bot_action(Cheater(), state, 1 - state.roller, RandomDice(1))
    # Longgammon with the cube switched off: a player that always wants to double just rolls.
    lg = new_match(
        get_variant("longgammon"), default_sides(get_variant("longgammon")), MatchOptions(length=3, cube=False)
    )
    dice = RandomDice(4)
    for _ in range(30):
        side = lg.turn if lg.turn is not None else 0
        if lg.phase is Phase.MOVE:
            lg = apply(lg, bot_action(RandomBot(random.Random(1)), lg, side, dice))
            continue
        action = bot_action(Cheater(), lg, side, dice)
        assert not isinstance(action, Double)
        lg = apply(lg, action)


# --- the registry hook ------------------------------------------------------------------------------------
def test_built_in_players_are_registered_with_their_owners() -> None:
    _, reg = build_plugin_manager(load_entry_points=False)
    assert reg.player_owners["random"] == "players" and reg.player_owners["heuristic"] == "players"
    assert {"casual", "strong", "expert"} <= set(reg.players)
    assert reg.find_player("bgsage") is reg.players["strong"]
    assert reg.player_names()[:2] == ["random", "heuristic"]


def test_players_for_uses_capabilities_of_the_rule_set() -> None:
    bgsage_ok = not find_player("strong").unavailable
    for name in VARIANTS:
        names = {spec.name for spec in players_for(get_variant(name))}
        assert {"random", "heuristic"} <= names
        variant = get_variant(name)
        standard = variant.geometry.kind == "mirrored" and variant.checkers == 15
        standard = standard and type(variant).game_result is Variant.game_result  # Portes scores no backgammon
        assert ("strong" in names) == (bgsage_ok and standard), name
    with pytest.raises(UnsupportedVariant, match="cannot play Longgammon"):
        find_player("strong").check(get_variant("longgammon"))


def test_unknown_player_lists_the_registered_ones() -> None:
    with pytest.raises(UnknownPlayer, match="available: .*heuristic"):
        find_player("deep-blue")


class _Plugin:
    def __init__(self, spec: PlayerSpec) -> None:
        self.spec = spec

    @hookimpl
    def register_players(self, register: Callable[[PlayerSpec], None]) -> None:
        register(self.spec)


def test_a_plugin_adds_its_own_player_and_duplicates_are_refused() -> None:
    only_sprint = PlayerSpec(
        "sprinter",
        "Sprinter",
        "weak",
        factory=lambda seed: RandomBot(random.Random(seed)),
        supports=lambda variant: variant.checkers == 3,
        requirements="three checkers",
    )
    _, reg = build_plugin_manager([("sprinter", _Plugin(only_sprint))], load_entry_points=False)
    assert reg.player_owners["sprinter"] == "sprinter"
    assert only_sprint in reg.players_for(get_variant("sprintgammon"))
    assert only_sprint not in reg.players_for(get_variant("backgammon"))
    clash = PlayerSpec("clash", "Clash", "weak", factory=lambda seed: RandomBot(random.Random(seed)), aliases=("weak",))
    with pytest.raises(PluginError, match="already registered it for 'heuristic'"):
        build_plugin_manager([("clash", _Plugin(clash))], load_entry_points=False, strict=True)


def test_an_unavailable_player_says_why_and_is_not_offered() -> None:
    gone = PlayerSpec(
        "gone", "Gone", "strong", factory=lambda seed: RandomBot(random.Random(seed)), unavailable="no wheel"
    )
    _, reg = build_plugin_manager([("gone", _Plugin(gone))], load_entry_points=False)
    assert gone not in reg.players_for(get_variant("backgammon"))
    with pytest.raises(PlayerUnavailable, match="Gone is not available: no wheel"):
        gone.create(1)


# --- the heuristic evaluator ------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(VARIANTS), on_roll=st.booleans())
def test_heuristic_win_chances_of_both_sides_add_up_to_one(data: st.DataObject, name: str, on_roll: bool) -> None:
    variant = get_variant(name)
    pos = data.draw(game_positions(variant, max_turns=70))
    ev = HeuristicEvaluator(variant)
    mine = ev.win_chance(pos, on_roll)
    theirs = ev.win_chance(variant.flip(pos), not on_roll)
    assert 0.0 <= mine <= 1.0
    assert mine + theirs == pytest.approx(1.0, abs=1e-9)
    assert ev.contact(pos) == ev.contact(variant.flip(pos))


def test_heuristic_ends_the_game_when_it_can() -> None:
    bg = get_variant("backgammon")
    # Two checkers left on the 1 and 2 points, a 2-1 to play: bearing both off wins at once.
    pos = Position.from_points({1: 1, 2: 1}, {24: 5, 23: 5, 22: 5}, off=(13, 0))
    state = _state_with(bg, pos, (2, 1))
    chosen = HeuristicPlayer(candidates=2).choose_play(state)
    assert chosen.position.off[0] == 15


def test_heuristic_prefers_a_race_lead_and_cube_sense() -> None:
    sprint = get_variant("sprintgammon")
    ev = HeuristicEvaluator(sprint)
    ahead = Position.from_points({1: 1, 2: 1, 3: 1}, {4: 1, 5: 1, 6: 1})  # 6 pips v 60, no contact
    behind = sprint.flip(ahead)
    assert not ev.contact(ahead)
    assert ev.win_chance(ahead, True) > 0.95 > 0.05 > ev.win_chance(behind, True)
    player = HeuristicPlayer()
    assert player.cube_advice(_state_with(sprint, ahead, None)).should_double
    assert not player.cube_advice(_state_with(sprint, ahead, None)).should_take  # too good for the taker
    even = _state_with(get_variant("backgammon"), get_variant("backgammon").start_position(), None)
    advice = player.cube_advice(even)
    assert not advice.should_double and advice.should_take


def _state_with(variant: Variant, pos: Position, dice: tuple[int, int] | None) -> MatchState:
    state = new_match(variant, default_sides(variant), MatchOptions(length=7))
    phase = Phase.MOVE if dice is not None else Phase.ROLL
    return replace(state, phase=phase, position=pos, roller=0, dice=dice, moved=(True, True), begun=True)


def test_heuristic_look_ahead_respects_a_time_cap() -> None:
    variant = get_variant("longgammon")
    state = _to_phase(variant, Phase.MOVE, seed=11)
    player = HeuristicPlayer(candidates=50)
    ranked = player.rank_plays(state, time_cap=0.0)  # no time: static values only, still every play
    assert len(ranked) == len(state.legal_plays())
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)


def test_heuristic_cube_knows_the_match_score() -> None:
    sprint = get_variant("sprintgammon")
    ahead = Position.from_points({1: 1, 2: 1, 3: 1}, {4: 1, 5: 1, 6: 1})
    player = HeuristicPlayer()
    # A one-point match: passing loses the match, so even a hopeless double is taken.
    one_point = replace(
        _state_with(sprint, ahead, None),
        setup=replace(_state_with(sprint, ahead, None).setup, options=MatchOptions(length=1)),
    )
    assert player.answer_double(replace(one_point, phase=Phase.DOUBLED, responder=1)) is CubeAnswer.TAKE
    # Seven points to go: the same double is passed.
    seven = _state_with(sprint, ahead, None)
    assert player.answer_double(replace(seven, phase=Phase.DOUBLED, responder=1)) is CubeAnswer.PASS
    # Needing 1 point with the opponent needing 6: no double that only hands him a live cube.
    leading = replace(seven, score=(6, 1))
    assert player.cube_advice(leading).should_double and not player.should_double(leading)


@pytest.mark.parametrize("name", ["heuristic", "strong"])
def test_resignations_are_accepted_only_when_worth_it(name: str) -> None:
    spec = find_player(name)
    if spec.unavailable:
        pytest.skip(spec.unavailable)
    bg = get_variant("backgammon")
    # The resigner (on roll) has all fifteen on his 13 point; the responder is nearly home: a gammon is likely.
    pos = Position.from_points({13: 15}, {19: 5, 20: 5, 21: 5})
    player = spec.create(1)
    for options, single, gammon in (
        (MatchOptions(games=1), False, True),
        (MatchOptions(games=1, jacoby=True), True, True),  # a centred cube under Jacoby: no gammons to win
        (MatchOptions(length=7), False, True),
        (MatchOptions(length=1), True, True),  # a single point wins the match
    ):
        state = replace(_state_with(bg, pos, None), setup=replace(_state_with(bg, pos, None).setup, options=options))
        for level, expected in ((1, single), (2, gammon)):
            offer = replace(state, phase=Phase.RESIGNED, responder=1, resign_level=level, resume=Phase.ROLL)
            assert player.accept_resignation(offer) is expected, (options, level)
