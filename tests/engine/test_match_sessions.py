"""Money sessions of N games or open-ended, ended between games with the score standing; forfeits; who may forfeit
(or end a session) in team play: the acting member of the game at hand, for their own side."""

from __future__ import annotations

import pytest

from engine.controls import allowed_actions
from engine.match import (
    AcceptResignation,
    ActionError,
    Double,
    EndReason,
    EndSession,
    Forfeit,
    MatchOptionError,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Phase,
    Resign,
    apply,
    new_match,
    replay,
)
from engine.plugins import get_variant
from engine.record import action_from_data, action_to_data, state_from_data, state_to_data

BG = get_variant("backgammon")
A, B = "alice", "bob"
WHO = (A, B)


def start(**options: object) -> MatchState:
    return new_match(BG, [[A], [B]], MatchOptions(**options))  # type: ignore[arg-type]


def concede(state: MatchState, loser: int) -> MatchState:
    """A whole game: the loser wins the opening roll and resigns a single game, which the winner accepts."""
    hi, lo = 3, 1
    state = apply(state, OpeningRoll(WHO[loser], (hi, lo) if loser == 0 else (lo, hi)))
    state = apply(state, Resign(WHO[loser], 1))
    if state.phase is Phase.RESIGNED:
        state = apply(state, AcceptResignation(WHO[1 - loser]))
    return state


def alice_leads_three_nil(**options: object) -> MatchState:
    state = start(**options)
    for _ in range(3):
        state = concede(state, 1)
    return state


def test_either_player_ends_a_session_between_games_and_the_score_stands() -> None:
    for by in WHO:
        state = alice_leads_three_nil()
        assert allowed_actions(state).end_session
        done = apply(state, EndSession(by))
        assert done.over and done.score == (3, 0) and done.winner == 0
        assert len(done.results) == 3 and done.game == 3  # no game was charged for the one not started


def test_a_session_cannot_end_while_a_game_is_under_way() -> None:
    state = apply(alice_leads_three_nil(), OpeningRoll(A, (3, 1)))
    with pytest.raises(ActionError, match="game 4 is under way"):
        apply(state, EndSession(B))
    assert not allowed_actions(state).end_session
    # An opening tie has begun the game too (it may have doubled the cube).
    tied = apply(alice_leads_three_nil(auto_doubles=1), OpeningRoll(A, (2, 2)))
    assert tied.cube.value == 2
    with pytest.raises(ActionError, match="under way"):
        apply(tied, EndSession(A))


def test_a_match_is_not_a_session() -> None:
    with pytest.raises(ActionError, match="reaches 5 points; to stop before that, forfeit"):
        apply(start(length=5), EndSession(A))
    assert not allowed_actions(start(length=5)).end_session


def test_a_session_may_end_before_its_first_game_and_nobody_wins_it() -> None:
    done = apply(start(), EndSession(B))
    assert done.over and done.score == (0, 0) and done.winner is None and done.results == ()
    assert state_from_data(done.setup, state_to_data(done)) == done


def test_with_the_previous_winner_opening_a_session_ends_before_the_first_roll_or_double() -> None:
    state = concede(start(opening=OpeningRule.PREVIOUS_WINNER), 1)
    assert state.phase is Phase.ROLL and state.between_games
    assert apply(state, EndSession(B)).over
    doubled = apply(state, Double(A))
    assert not doubled.between_games
    with pytest.raises(ActionError, match="under way"):
        apply(doubled, EndSession(B))


def test_a_forfeit_between_games_of_a_session_charges_no_game() -> None:
    """The console once printed "Match over: bob wins 3-1" when alice, leading 3-0, forfeited before game 4."""
    for by in WHO:
        done = apply(alice_leads_three_nil(), Forfeit(by))
        assert done.over and done.score == (3, 0) and done.winner == 0 and len(done.results) == 3


def test_a_forfeit_during_a_session_game_loses_it_at_the_cube_then_the_leader_wins() -> None:
    state = apply(alice_leads_three_nil(), OpeningRoll(A, (3, 1)))
    done = apply(state, Forfeit(A))
    assert done.over and done.score == (3, 1) and done.winner == 0
    assert done.results[-1].reason is EndReason.FORFEIT and done.results[-1].points == 1


def test_a_session_of_n_games_ends_after_them_and_more_are_refused() -> None:
    state = start(games=2)
    state = concede(concede(state, 1), 1)
    assert state.over and state.winner == 0 and len(state.results) == 2
    with pytest.raises(ActionError, match="over"):
        apply(state, EndSession(A))


def test_the_end_of_a_session_is_recorded_and_replays() -> None:
    actions = [OpeningRoll(B, (1, 3)), Resign(B, 1), AcceptResignation(A), EndSession(A)]
    state = replay(start().setup, actions)
    assert state.over and state.score == (1, 0)
    assert [action_from_data(action_to_data(a)) for a in actions] == actions
    deadline = EndSession(B, deadline=True)
    assert action_from_data(action_to_data(deadline)) == deadline


def test_session_options_are_for_money_play_and_checked() -> None:
    with pytest.raises(MatchOptionError, match="deadline is for money sessions"):
        start(length=3, session_hours=4)
    with pytest.raises(MatchOptionError, match="cannot be negative"):
        start(session_hours=-1)
    with pytest.raises(MatchOptionError, match="needs the Crawford rule"):
        start(length=5, holland=True, crawford=False)


# --- team play: who may forfeit, and end a session ------------------------------------------------------------
DOUBLES = get_variant("doubles")
SIDES = (("alice", "carol"), ("bob", "dave"))


def team_match(**options: object) -> MatchState:
    return new_match(DOUBLES, SIDES, MatchOptions(**options))  # type: ignore[arg-type]


def test_only_the_acting_member_forfeits_a_doubles_match_for_the_team() -> None:
    state = team_match(length=5)  # game 1: alice acts for her team, bob for his
    for teammate in ("carol", "dave"):
        with pytest.raises(ActionError, match=r"not the acting member .* only (alice|bob) may forfeit the match"):
            apply(state, Forfeit(teammate))
    for acting, winner in (("alice", 1), ("bob", 0)):
        done = apply(state, Forfeit(acting))
        assert done.over and done.winner == winner
    # Game 2: the other members act, and only they may forfeit.
    state = apply(apply(state, OpeningRoll("alice", (3, 1))), Resign("alice", 1))
    state = apply(state, AcceptResignation("bob")) if state.phase is Phase.RESIGNED else state
    assert state.game == 2 and state.acting_member(0) == "carol"
    with pytest.raises(ActionError, match="only carol may forfeit"):
        apply(state, Forfeit("alice"))
    assert apply(state, Forfeit("carol")).winner == 1


def test_the_controls_say_who_may_forfeit_and_end_a_session() -> None:
    state = team_match(games=3)
    for side in (0, 1):
        allowed = allowed_actions(state, side)
        assert allowed.forfeit and allowed.end_session and allowed.actors == (state.acting_member(side),)
    with pytest.raises(ActionError, match="only bob may end the session"):
        apply(state, EndSession("dave"))
    assert apply(state, EndSession("bob")).over
    moving = apply(state, OpeningRoll("alice", (3, 1)))
    allowed = allowed_actions(moving)
    assert allowed.forfeit and not allowed.end_session
    assert allowed_actions(apply(moving, Move("alice", moving.legal_plays()[0].moves)), 0).forfeit
