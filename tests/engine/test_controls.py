"""What the state allows now (:func:`engine.controls.allowed_actions`): exactly what the engine accepts.

The property: in every state of random self-played matches of every registered rule set, each action the
function allows is accepted by :func:`~engine.match.apply`, and each roll, cube, play, resignation and
acting-member action it does not allow is refused (from every player, acting or not). Then the cases a
transport must get right, one by one.
"""

from __future__ import annotations

import random

import pytest

from engine.controls import NOTHING, Allowed, PlayStatus, ProposalKind, allowed_actions
from engine.dice import RandomDice
from engine.match import (
    RESIGN_LEVELS,
    AcceptResignation,
    Action,
    ActionError,
    Beaver,
    Double,
    EndSession,
    Forfeit,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Pass,
    Phase,
    Raccoon,
    RejectResignation,
    Resign,
    Roll,
    SetActing,
    Take,
    apply,
    confirm,
    new_match,
)
from engine.players import CubeAnswer
from engine.plugins import get_variant, registry
from engine.selfplay import RandomPlayer, default_sides
from engine.variant import Variant
from variants.backgammon import Backgammon

BG = get_variant("backgammon")
A, B = "alice", "bob"
WHO = (A, B)

#: What bot/service.py ``propose`` accepts in each phase (the specification the proposal kinds must stay within).
SERVICE_PROPOSALS: dict[Phase, set[str]] = {
    Phase.ROLL: {"double", "roll"},
    Phase.MOVE: {"play"},
    Phase.DOUBLED: {"take", "pass", "beaver", "raccoon"},
    Phase.RESIGNED: {"accept", "reject"},
}


def accepted(state: MatchState, action: Action) -> bool:
    try:
        apply(state, action)
    except ActionError:
        return False
    return True


# --- the property ------------------------------------------------------------------------------------------
def candidates(state: MatchState, by: str) -> list[tuple[str, Action]]:
    """Every roll, cube, play and resignation action ``by`` could try now, with the label of its control."""
    roll: Action = OpeningRoll(by, (2, 1)) if state.phase is Phase.OPENING else Roll(by, (2, 1))
    moves = state.legal_plays()[0].moves if state.phase is Phase.MOVE else ()
    out: list[tuple[str, Action]] = [
        ("roll", roll),
        ("double", Double(by)),
        ("take", Take(by)),
        ("pass", Pass(by)),
        ("beaver", Beaver(by)),
        ("raccoon", Raccoon(by)),
        ("accept", AcceptResignation(by)),
        ("reject", RejectResignation(by)),
        ("play", Move(by, moves)),
        ("end-session", EndSession(by)),
        ("forfeit", Forfeit(by)),
    ]
    out += [(f"resign{level}", Resign(by, level)) for level in RESIGN_LEVELS]
    if state.phase is not Phase.OPENING:
        out.append(("opening", OpeningRoll(by, (2, 1))))  # never allowed after the opening roll
    if state.phase is not Phase.ROLL:
        out.append(("plain-roll", Roll(by, (2, 1))))  # a roll outside phase ROLL is never allowed
    return out


def allows(allowed: Allowed, by: str, label: str) -> bool:
    """Whether ``allowed`` lets ``by`` do the action labelled ``label``."""
    if by not in allowed.actors:
        return False
    flags = {
        "roll": allowed.roll,
        "double": allowed.double,
        "take": allowed.take,
        "pass": allowed.pass_,
        "beaver": allowed.beaver,
        "raccoon": allowed.raccoon,
        "accept": allowed.accept_resignation,
        "reject": allowed.reject_resignation,
        "play": allowed.play is not PlayStatus.NONE,
        "end-session": allowed.end_session,
        "forfeit": allowed.forfeit,
        "opening": False,
        "plain-roll": False,
    }
    flags.update({f"resign{level}": level in allowed.resign_levels for level in RESIGN_LEVELS})
    return flags[label]


def check_state(state: MatchState, rng: random.Random) -> None:
    """allowed_actions agrees with the engine on every candidate action of every player in ``state``."""
    if state.over:
        for side in (None, 0, 1):
            assert allowed_actions(state, side) == NOTHING
        for members in state.setup.sides:
            for by in members:
                assert not any(accepted(state, action) for _, action in candidates(state, by))
        return
    per_side = (allowed_actions(state, 0), allowed_actions(state, 1))
    due = allowed_actions(state)
    assert due.side == state.turn
    if state.turn is not None:
        assert due == per_side[state.turn]
    else:  # the opening roll: either side's acting member
        assert state.phase is Phase.OPENING and due.roll
        assert set(due.actors) == {state.acting_member(0), state.acting_member(1)}
    for side, members in enumerate(state.setup.sides):
        allowed = per_side[side]
        assert allowed.side == side and allowed.actors == (state.acting_member(side),)
        assert allowed.choose_acting == due.choose_acting
        for by in members:
            for label, action in candidates(state, by):
                expected = allows(allowed, by, label)
                assert accepted(state, action) == expected, (label, by, state.phase, allowed)
                if side == state.turn or state.turn is None:
                    assert accepted(state, action) == allows(due, by, label), (label, by, state.phase, due)
            for member in members:
                assert accepted(state, SetActing(by, member)) == allowed.choose_acting[side]
        if allowed.double:
            assert allowed.double_refusal is None
        else:
            assert allowed.double_refusal  # the engine's own words, for a disabled control
        # Proposals: only in team rule sets, only for the side with the decision, within what the service takes,
        # and each one something the acting member may do now.
        if state.variant.team_size == 1 or side != state.turn:
            assert allowed.proposal_kinds == ()
        else:
            assert set(allowed.proposal_kinds) <= SERVICE_PROPOSALS.get(state.phase, set())
            assert allowed.proposal_kinds  # a side due to act always has something to propose
    if state.phase is Phase.MOVE:
        check_drafts(state, rng)


def check_drafts(state: MatchState, rng: random.Random) -> None:
    """Each prefix of a random legal play: confirm exactly when the draft is a whole play; undo once it has a move."""
    assert state.roller is not None
    by = state.acting_member(state.roller)
    play = rng.choice(list(state.legal_plays()))
    draft = state.draft()
    prefixes = [draft]
    for src, dst, _ in play.moves:
        draft = draft.add(src, dst)
        prefixes.append(draft)
    for d in prefixes:
        allowed = allowed_actions(state, state.roller, draft=d)
        assert allowed.undo == bool(d.moves)
        if d.complete:
            assert allowed.play is PlayStatus.CONFIRM
            assert accepted(state, confirm(state, d, by))
        else:
            assert allowed.play is PlayStatus.CHOOSE
            with pytest.raises(ActionError):
                confirm(state, d, by)


def option_sets(team: bool) -> list[MatchOptions]:
    sets = [
        MatchOptions(length=3),
        MatchOptions(length=5, holland=True, max_cube=8, auto_accept_resign=False),
        MatchOptions(length=2, crawford=False, opening=OpeningRule.REROLL),
        MatchOptions(games=2, beavers=True, jacoby=True, max_cube=8),
        MatchOptions(games=2, beavers=True, beaver_limit=1, auto_doubles=2, opening=OpeningRule.PREVIOUS_WINNER),
        MatchOptions(length=3, cube=False),
    ]
    if team:
        sets.append(MatchOptions(length=3, team_choice=True, auto_accept_resign=False))
    return sets


#: Self-played matches per rule set and option set.
SEEDS = 3


def play_and_check(variant: Variant, options: MatchOptions, seed: int) -> None:
    """Self-play one match, checking every state it passes through (teams also name acting members at random)."""
    rng = random.Random(seed)
    dice = RandomDice(seed)
    # Doubles, redoubles, resignations and rejections often, so the cube and resignation paths are all reached.
    player = RandomPlayer(
        random.Random(f"choices-{seed}"),
        double_rate=0.3,
        redouble_rate=0.5,
        resign_rate=0.03,
        accept_rate=0.5,
        chaos=True,
    )
    state = new_match(variant, default_sides(variant), variant.allowed_options(options))
    for _ in range(3000):
        check_state(state, rng)
        if state.over:
            return
        allowed = allowed_actions(state)
        if any(allowed.choose_acting) and rng.random() < 0.1:
            # A team names its acting member (the engine accepts it from any member of the side).
            side = rng.choice([s for s in (0, 1) if allowed.choose_acting[s]])
            members = state.setup.sides[side]
            state = apply(state, SetActing(rng.choice(members), rng.choice(members)))
        else:
            state = apply(state, player.choose(state, dice))


@pytest.mark.parametrize("name", registry().names())
def test_allowed_actions_agree_with_the_engine_in_self_play(name: str) -> None:
    variant = get_variant(name)
    for k, options in enumerate(option_sets(variant.team_size > 1)):
        for seed in range(1000 * k, 1000 * k + SEEDS):
            play_and_check(variant, options, seed)


# --- one by one --------------------------------------------------------------------------------------------
def start(**options: object) -> MatchState:
    return new_match(BG, [[A], [B]], MatchOptions(**options))  # type: ignore[arg-type]


def open_for(state: MatchState, side: int, dice: tuple[int, int] = (3, 1)) -> MatchState:
    """The opening roll, won by ``side`` with ``dice`` (higher die first)."""
    hi, lo = max(dice), min(dice)
    return apply(state, OpeningRoll(WHO[side], (hi, lo) if side == 0 else (lo, hi)))


def play_first(state: MatchState) -> MatchState:
    """The roller plays the first legal play."""
    assert state.roller is not None
    return apply(state, Move(state.acting_member(state.roller), state.legal_plays()[0].moves))


def on_roll(state: MatchState, side: int) -> MatchState:
    """Play on until ``side`` is in phase ROLL (no doubles)."""
    while not (state.phase is Phase.ROLL and state.roller == side):
        if state.phase is Phase.ROLL:
            assert state.roller is not None
            state = apply(state, Roll(state.acting_member(state.roller), (5, 2)))
        else:
            state = play_first(state)
    return state


def concede(state: MatchState, side: int, level: int) -> MatchState:
    """``side`` resigns the current game at ``level`` (auto-accepted at level 3)."""
    if state.phase is Phase.OPENING:
        state = open_for(state, side)
    state = on_roll(state, side)
    state = apply(state, Resign(WHO[side], level))
    if state.phase is Phase.RESIGNED:
        state = apply(state, AcceptResignation(WHO[1 - side]))
    return state


def test_opening_roll_is_for_either_acting_member() -> None:
    s = start(length=3)
    allowed = allowed_actions(s)
    assert allowed.side is None and set(allowed.actors) == {A, B}
    assert allowed.roll and not allowed.double and allowed.double_refusal is None
    assert allowed.play is PlayStatus.NONE and allowed.resign_levels == ()
    mine = allowed_actions(s, 1)
    assert mine.side == 1 and mine.actors == (B,) and mine.roll
    assert "opening roll" in (mine.double_refusal or "")


def test_roll_phase_offers_roll_double_and_every_resignation() -> None:
    s = on_roll(open_for(start(length=5), 0), 1)
    allowed = allowed_actions(s)
    assert allowed.side == 1 and allowed.actors == (B,)
    assert allowed.roll and allowed.double and allowed.resign_levels == (1, 2, 3)
    assert not allowed.cube_answers and allowed.play is PlayStatus.NONE
    other = allowed_actions(s, 0)
    assert other.nothing and "only the player on roll" in (other.double_refusal or "")


def test_move_phase_plays_or_resigns_but_does_not_roll_or_double() -> None:
    s = open_for(start(length=5), 0)
    allowed = allowed_actions(s)
    assert allowed.play is PlayStatus.CHOOSE and allowed.resign_levels == (1, 2, 3)
    assert not allowed.roll and not allowed.double
    assert "already rolled" in (allowed.double_refusal or "")


def test_cube_at_the_match_limit_allows_no_double() -> None:
    s = on_roll(open_for(start(length=5, max_cube=2), 0), 1)
    s = apply(s, Double(B))
    assert allowed_actions(s).cube_answers == {CubeAnswer.TAKE, CubeAnswer.PASS}
    s = on_roll(apply(s, Take(A)), 0)  # alice owns the cube at 2, the limit
    allowed = allowed_actions(s)
    assert allowed.roll and not allowed.double
    assert "limit of 2" in (allowed.double_refusal or "")


def test_no_beaver_past_the_cube_limit() -> None:
    # The double to 2 is allowed, but a beaver would take the cube to 4, past the limit of 2.
    s = on_roll(open_for(start(beavers=True, max_cube=2), 0), 1)
    s = apply(s, Double(B))
    allowed = allowed_actions(s)
    assert allowed.side == 0 and allowed.cube_answers == {CubeAnswer.TAKE, CubeAnswer.PASS}
    assert not allowed.beaver and not accepted(s, Beaver(A))


def test_beaver_limit_one_allows_no_raccoon() -> None:
    s = on_roll(open_for(start(beavers=True, beaver_limit=1), 0), 1)
    s = apply(s, Double(B))
    assert allowed_actions(s).cube_answers == {CubeAnswer.TAKE, CubeAnswer.PASS, CubeAnswer.BEAVER}
    s = apply(s, Beaver(A))
    allowed = allowed_actions(s)
    assert allowed.side == 1 and allowed.cube_answers == {CubeAnswer.TAKE, CubeAnswer.PASS}
    assert not accepted(s, Raccoon(B))


def test_raccoon_answers_a_beaver_when_the_limit_allows() -> None:
    s = on_roll(open_for(start(beavers=True, beaver_limit=3), 0), 1)
    s = apply(apply(s, Double(B)), Beaver(A))
    assert allowed_actions(s).cube_answers == {CubeAnswer.TAKE, CubeAnswer.PASS, CubeAnswer.RACCOON}


def test_no_beavers_in_match_play() -> None:
    s = on_roll(open_for(start(length=5), 0), 1)
    s = apply(s, Double(B))
    allowed = allowed_actions(s)
    assert allowed.take and allowed.pass_ and not allowed.beaver and not allowed.raccoon
    assert allowed.roll is False and allowed.resign_levels == ()  # no resigning while a double is pending
    assert allowed_actions(s, 1).nothing  # the doubler waits


def test_crawford_game_allows_no_double_and_post_crawford_does() -> None:
    s = concede(start(length=3), 1, 2)  # alice 2-0: one point from winning
    assert s.crawford_game
    s = on_roll(open_for(s, 0), 1)
    allowed = allowed_actions(s)
    assert allowed.roll and not allowed.double and "Crawford" in (allowed.double_refusal or "")
    s = concede(concede(start(length=3), 1, 2), 0, 1)  # the Crawford game goes to bob: 2-1, post-Crawford
    assert s.post_crawford and not s.crawford_game
    s = on_roll(open_for(s, 0), 1)
    assert allowed_actions(s).double


def test_holland_rule_refusal_is_the_engines() -> None:
    s = concede(concede(start(length=3, holland=True), 1, 2), 0, 1)  # post-Crawford, bob trails 1-2
    s = on_roll(open_for(s, 0), 1)
    allowed = allowed_actions(s)
    assert not allowed.double and "Holland" in (allowed.double_refusal or "")


def test_cube_owned_by_the_opponent() -> None:
    s = on_roll(open_for(start(length=7), 0), 1)
    s = apply(apply(s, Double(B)), Take(A))  # alice owns the cube at 2
    s = on_roll(s, 1)
    allowed = allowed_actions(s)
    assert allowed.roll and not allowed.double and "not yours" in (allowed.double_refusal or "")
    s = on_roll(s, 0)
    assert allowed_actions(s).double


def test_rule_set_without_cube_and_cube_switched_off() -> None:
    class NoCube(Backgammon):
        name = "nocube"
        display_name = "No-cube backgammon"
        uses_cube = False

    s = on_roll(open_for(new_match(NoCube(), [[A], [B]], MatchOptions(length=3)), 0), 1)
    allowed = allowed_actions(s)
    assert allowed.roll and not allowed.double and "without the doubling cube" in (allowed.double_refusal or "")
    s = on_roll(open_for(start(length=3, cube=False), 0), 1)
    allowed = allowed_actions(s)
    assert allowed.roll and not allowed.double and "switched off" in (allowed.double_refusal or "")


@pytest.mark.parametrize("name", registry().names())
def test_every_registered_rule_set_doubles_when_its_cube_is_in_use(name: str) -> None:
    variant = get_variant(name)
    s = new_match(variant, default_sides(variant), MatchOptions(length=5))
    dice = RandomDice(3)
    player = RandomPlayer(random.Random(1), double_rate=0, resign_rate=0)
    while s.phase is not Phase.ROLL:
        s = apply(s, player.choose(s, dice))
    assert allowed_actions(s).double == s.setup.cube_in_use


def test_resignation_pending_and_rejected() -> None:
    s = on_roll(open_for(start(length=5, auto_accept_resign=False), 0), 1)
    s = apply(s, Resign(B, 1))
    allowed = allowed_actions(s)
    assert allowed.phase is Phase.RESIGNED and allowed.side == 0 and allowed.actors == (A,)
    assert allowed.accept_resignation and allowed.reject_resignation
    assert not (allowed.roll or allowed.double or allowed.cube_answers or allowed.resign_levels)
    assert allowed_actions(s, 1).nothing  # the offerer waits
    s = apply(s, RejectResignation(A))
    allowed = allowed_actions(s)
    assert allowed.side == 1 and allowed.roll and allowed.resign_levels == (2, 3)  # only a higher offer
    s = apply(apply(s, Resign(B, 3)), RejectResignation(A))
    allowed = allowed_actions(s)
    assert allowed.roll and not allowed.resign  # nothing higher than a backgammon to offer


def test_game_over_allows_nothing() -> None:
    s = apply(open_for(start(length=3), 0), Forfeit(B))
    assert s.over
    for side in (None, 0, 1):
        allowed = allowed_actions(s, side)
        assert allowed == NOTHING and allowed.nothing and allowed.side is None and allowed.actors == ()


def test_drafts_choose_confirm_and_undo() -> None:
    s = open_for(start(length=3), 0, (3, 1))
    play = s.legal_plays()[0]
    draft = s.draft()
    assert allowed_actions(s, draft=draft).play is PlayStatus.CHOOSE and not allowed_actions(s, draft=draft).undo
    draft = draft.add(*play.moves[0][:2])
    allowed = allowed_actions(s, draft=draft)
    assert allowed.play is PlayStatus.CHOOSE and allowed.undo
    draft = draft.add(*play.moves[1][:2])
    allowed = allowed_actions(s, draft=draft)
    assert allowed.play is PlayStatus.CONFIRM and allowed.undo
    # A draft of another roll does not belong to this state: it cannot be confirmed here.
    elsewhere = open_for(start(length=3), 0, (6, 5))
    other = elsewhere.draft().add(*elsewhere.legal_plays()[0].moves[0][:2])
    allowed = allowed_actions(s, draft=other)
    assert allowed.play is PlayStatus.CHOOSE and not allowed.undo


def test_side_must_be_zero_or_one() -> None:
    with pytest.raises(ValueError, match="side"):
        allowed_actions(start(length=3), 2)


# --- Backgammon Doubles: acting member, teammates, proposals, team choice -------------------------------------
DOUBLES = get_variant("doubles")
TEAMS = (("ann", "cat"), ("bea", "dan"))


def doubles(**options: object) -> MatchState:
    return new_match(DOUBLES, TEAMS, MatchOptions(**options))  # type: ignore[arg-type]


def test_doubles_only_the_acting_member_acts_and_teammates_propose_per_phase() -> None:
    s = doubles(length=5, auto_accept_resign=False)
    assert s.acting_member(0) == "ann" and s.acting_member(1) == "bea"
    assert allowed_actions(s, 0).proposal_kinds == ()  # nobody's decision before the opening roll
    s = apply(s, OpeningRoll("ann", (3, 1)))
    allowed = allowed_actions(s)
    assert allowed.side == 0 and allowed.actors == ("ann",) and allowed.play is PlayStatus.CHOOSE
    assert allowed.proposal_kinds == (ProposalKind.PLAY,)
    assert not accepted(s, Move("cat", s.legal_plays()[0].moves))  # the teammate consults
    assert allowed_actions(s, 1).proposal_kinds == ()  # not the opponents' decision
    s = play_first(s)
    allowed = allowed_actions(s)
    assert allowed.side == 1 and allowed.actors == ("bea",)
    assert allowed.proposal_kinds == (ProposalKind.DOUBLE, ProposalKind.ROLL)
    s = apply(s, Double("bea"))
    assert allowed_actions(s).proposal_kinds == (ProposalKind.TAKE, ProposalKind.PASS)
    s = apply(s, Take("ann"))
    # Ann's team owns the cube: Bea's team may roll but not propose a double.
    s = apply(s, Roll("bea", (5, 2)))
    s = play_first(s)
    s = play_first(apply(s, Roll("ann", (4, 1))))
    allowed = allowed_actions(s)
    assert allowed.side == 1 and allowed.proposal_kinds == (ProposalKind.ROLL,)
    s = apply(s, Resign("bea", 1))
    assert allowed_actions(s).proposal_kinds == (ProposalKind.ACCEPT, ProposalKind.REJECT)
    assert allowed_actions(s).actors == ("ann",)


def test_individual_play_has_no_proposals() -> None:
    s = open_for(start(length=3), 0)
    assert allowed_actions(s).proposal_kinds == ()


def test_team_choice_until_the_side_first_moves() -> None:
    s = doubles(length=5, team_choice=True)
    assert allowed_actions(s).choose_acting == (True, True)
    s = apply(s, SetActing("ann", "cat"))  # any member may name who acts
    assert allowed_actions(s).actors == ("cat", "bea")
    s = apply(s, OpeningRoll("cat", (3, 1)))
    # The opponents' opening roll does not take the choice away: each side chooses until it first moves.
    assert allowed_actions(s).choose_acting == (True, True)
    s = play_first(s)
    assert allowed_actions(s).choose_acting == (False, True)
    s = apply(s, Roll("bea", (5, 2)))
    s = play_first(s)
    assert allowed_actions(s).choose_acting == (False, False)


def test_rotation_without_team_choice_allows_no_choice() -> None:
    s = doubles(length=5)
    assert allowed_actions(s).choose_acting == (False, False)
    assert not accepted(s, SetActing("cat", "cat"))
