"""Tournaments (engine.tournament): the lifecycle, refusals in words, admin actions, deadlines and their rules,
and the JSON form (a property test over random tournaments).

The pairing tests are in test_tournament_knockout.py and test_tournament_swiss.py, the hand-worked tiebreaks
in test_tournament_standings.py; the helpers here build and play tournaments for all of them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import (
    DeadlineRule,
    Entrant,
    Format,
    How,
    SideFacts,
    Status,
    Tournament,
    TournamentError,
    TournamentSpec,
    advance,
    attach_game,
    champion,
    decide,
    disqualify,
    duration_words,
    expired_matches,
    extend_deadline,
    from_data,
    join,
    leave,
    match_of,
    match_of_game,
    new_tournament,
    open_matches,
    pairings,
    pause,
    record_result,
    replace_entrant,
    resume,
    round_complete,
    standings,
    start,
    to_data,
)

DAY = 86400.0


def entrant(i: int, rating: float | None = None) -> Entrant:
    return Entrant(f"p{i}", f"Player {i}", (f"u{i}",), rating)


def build(spec: TournamentSpec, n: int, now: float | None = 0.0, ratings: bool = False) -> Tournament:
    """A started tournament of ``n`` entrants p0..p(n-1) (signed up in that order)."""
    t = new_tournament(spec)
    for i in range(n):
        t = join(t, entrant(i, 2000.0 - i if ratings else None))
    return start(t, now)


Chooser = Callable[[Tournament, str, str], str]


def random_winner(rng: random.Random) -> Chooser:
    return lambda t, a, b: rng.choice((a, b))


def play_round(t: Tournament, choose: Chooser, rng: random.Random | None = None) -> Tournament:
    """Record a result for every open match of the current round (7-point matches)."""
    for m in open_matches(t):
        assert m.a is not None and m.b is not None
        w = choose(t, m.a, m.b)
        t = record_result(t, m.id, w, 7, rng.randint(0, 6) if rng else 3)
    return t


def play_out(
    t: Tournament, choose: Chooser, rng: random.Random | None = None, check: Callable[[Tournament], None] | None = None
) -> Tournament:
    while not t.finished:
        t = play_round(t, choose, rng)
        assert round_complete(t)
        t = advance(t)
        if check is not None:
            check(t)
    return t


# --- lifecycle and refusals -------------------------------------------------------------------------------------
def test_sign_ups_refuse_duplicates_wrong_team_sizes_and_a_full_list() -> None:
    t = new_tournament(TournamentSpec(Format.SWISS, max_entrants=3))
    t = join(t, entrant(1))
    with pytest.raises(TournamentError, match="Player 1 has already joined"):
        join(t, entrant(1))
    with pytest.raises(TournamentError, match="already plays in this tournament as Player 1"):
        join(t, Entrant("other", "Other", ("u1",)))
    with pytest.raises(TournamentError, match="single players"):
        join(t, Entrant("team", "A & B", ("a", "b")))
    t = join(join(t, entrant(2)), entrant(3))
    with pytest.raises(TournamentError, match="full"):
        join(t, entrant(4))
    t = leave(t, "p2")
    assert [e.id for e in t.entrants] == ["p1", "p3"]
    t = start(t)
    with pytest.raises(TournamentError, match="cannot join: the tournament is running"):
        join(t, entrant(5))
    with pytest.raises(TournamentError, match="cannot leave"):
        leave(t, "p1")


def test_a_tournament_needs_two_entrants_and_a_league_two_per_division() -> None:
    with pytest.raises(TournamentError, match="at least 2 entrants"):
        start(join(new_tournament(TournamentSpec(Format.KNOCKOUT)), entrant(1)))
    t = new_tournament(TournamentSpec(Format.ROUND_ROBIN, divisions=3))
    for i in range(5):
        t = join(t, entrant(i))
    with pytest.raises(TournamentError, match="3 divisions need at least 6 entrants"):
        start(t)


def test_terms_that_make_no_sense_are_refused_in_words() -> None:
    with pytest.raises(TournamentError, match="only a knockout can be double elimination"):
        TournamentSpec(Format.SWISS, double_elimination=True)
    with pytest.raises(TournamentError, match="only a league"):
        TournamentSpec(Format.SWISS, divisions=2)
    with pytest.raises(TournamentError, match=r"a round robin breaks ties by head-to-head and points difference \("):
        TournamentSpec(Format.ROUND_ROBIN, tiebreaks=(TournamentSpec(Format.SWISS).effective_tiebreaks()[0],))
    with pytest.raises(TournamentError, match="positive number of seconds"):
        TournamentSpec(Format.SWISS, round_seconds=-1)


def test_results_are_refused_when_they_do_not_fit_the_match() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT), 4)
    first = pairings(t)[0]
    assert (first.id, first.a, first.b) == ("R1-1", "p0", "p3")
    with pytest.raises(TournamentError, match="'p1' does not play in match R1-1"):
        record_result(t, "R1-1", "p1")
    with pytest.raises(TournamentError, match="belongs to round 2"):
        record_result(t, "R2-1", "p0")
    with pytest.raises(TournamentError, match="no match 'R9-9'"):
        record_result(t, "R9-9", "p0")
    with pytest.raises(TournamentError, match="not bye"):
        record_result(t, "R1-1", "p0", how=How.BYE)
    t = record_result(t, "R1-1", "p0", 7, 2)
    with pytest.raises(TournamentError, match="already has a result"):
        record_result(t, "R1-1", "p0")
    with pytest.raises(TournamentError, match="round 1 is not over: R1-2 still to play"):
        advance(t)


def test_a_game_is_attached_to_its_match_and_survives_the_json_form() -> None:
    t = attach_game(build(TournamentSpec(Format.SWISS, rounds=2), 4), "R1-1", "g42")
    assert t.match("R1-1").game == "g42"
    assert match_of_game(t, "g42") == t.match("R1-1") and match_of_game(t, "g9") is None
    assert match_of(t, "p2") == t.match("R1-1") and match_of(record_result(t, "R1-1", "p0"), "p2") is None
    assert from_data(json.loads(json.dumps(to_data(t)))).match("R1-1").game == "g42"


# --- deadlines ----------------------------------------------------------------------------------------------------
def test_rounds_get_deadlines_that_a_pause_moves_on_and_an_admin_extends() -> None:
    t = build(TournamentSpec(Format.SWISS, rounds=3, round_seconds=7 * DAY), 4, now=100.0)
    assert t.round_deadline() == 100.0 + 7 * DAY
    assert expired_matches(t, 100.0 + 7 * DAY - 1) == ()
    assert {m.id for m in expired_matches(t, 100.0 + 7 * DAY)} == {"R1-1", "R1-2"}
    t = pause(t, 100.0 + DAY)
    assert t.paused and expired_matches(t, 100.0 + 30 * DAY) == ()
    with pytest.raises(TournamentError, match="already paused"):
        pause(t, 0.0)
    t = record_result(t, "R1-1", "p0")  # results still count while paused
    t = record_result(t, "R1-2", "p1")
    with pytest.raises(TournamentError, match="paused"):
        advance(t)
    t = resume(t, 100.0 + 3 * DAY)  # paused for two days
    assert t.round_deadline() == 100.0 + 9 * DAY
    t = advance(t, now=100.0 + 4 * DAY)
    assert t.round == 2 and t.round_deadline() == 100.0 + 11 * DAY
    t = extend_deadline(t, 100.0 + 12 * DAY)
    assert t.round_deadline() == 100.0 + 12 * DAY
    t = extend_deadline(t, 100.0 + 20 * DAY, match_id="R2-1")
    assert [m.id for m in expired_matches(t, 100.0 + 13 * DAY)] == ["R2-2"]


def test_the_more_recent_actor_wins_and_the_words_say_so() -> None:
    d = decide(DeadlineRule.RECENT_ACTOR, SideFacts("a", "Alice", 1000.0), SideFacts("b", "Bob", 1000.0 + 7500))
    assert (d.winner, d.loser, d.needs_admin) == ("b", "a", False)
    assert d.words == (
        "The round's deadline passed before Alice and Bob finished. Rule: the player who acted more recently wins. "
        "Bob acted last, 2 h 5 min after Alice, so Bob wins."
    )
    d = decide(DeadlineRule.RECENT_ACTOR, SideFacts("a", "Alice", 5.0), SideFacts("b", "Bob", None))
    assert d.winner == "a" and "Alice acted and Bob never did, so Alice wins." in d.words
    d = decide(DeadlineRule.RECENT_ACTOR, SideFacts("a", "Alice", 5.0), SideFacts("b", "Bob", 5.0))
    assert d.needs_admin and d.words.endswith("Both last acted at the same moment, so an admin will decide.")
    d = decide(DeadlineRule.RECENT_ACTOR, SideFacts("a", "Alice"), SideFacts("b", "Bob"))
    assert d.needs_admin and "Neither side acted" in d.words


def test_the_higher_pip_count_loses_and_an_admin_decides_otherwise() -> None:
    d = decide(DeadlineRule.PIP_COUNT, SideFacts("a", "Alice", pips=142), SideFacts("b", "Bob", pips=97))
    assert (d.winner, d.loser) == ("b", "a")
    assert d.words.endswith("Rule: the higher pip count loses. Alice has 142 pips to Bob's 97, so Bob wins.")
    assert decide(DeadlineRule.PIP_COUNT, SideFacts("a", "A", pips=80), SideFacts("b", "B", pips=80)).needs_admin
    assert decide(DeadlineRule.PIP_COUNT, SideFacts("a", "A"), SideFacts("b", "B", pips=80)).needs_admin
    d = decide(DeadlineRule.ADMIN, SideFacts("a", "Alice", 1.0, 50), SideFacts("b", "Bob", 2.0, 60))
    assert d.needs_admin and d.words.endswith("Rule: an admin decides. An admin will decide this match.")
    assert duration_words(3 * DAY + 3600 + 60) == "3 days 1 h" and duration_words(0) == "0 s"


def test_a_deadline_decision_is_recorded_with_its_words() -> None:
    t = build(TournamentSpec(Format.KNOCKOUT, deadline_rule=DeadlineRule.PIP_COUNT, round_seconds=DAY), 2)
    (m,) = expired_matches(t, DAY)
    d = decide(t.spec.deadline_rule, SideFacts("p0", "Player 0", pips=120), SideFacts("p1", "Player 1", pips=60))
    assert d.winner is not None
    t = record_result(t, m.id, d.winner, 3, 2, How.DEADLINE, d.words)
    result = t.match(m.id).result
    assert result is not None and result.how is How.DEADLINE and "higher pip count loses" in result.note
    assert champion(advance(t)) == "p1"


# --- admin actions ------------------------------------------------------------------------------------------------
def test_a_disqualified_player_loses_every_remaining_league_match_by_walkover() -> None:
    t = build(TournamentSpec(Format.ROUND_ROBIN, walkover_points=7), 4)
    t = disqualify(t, "p2")
    (walkover,) = [m for m in pairings(t) if "p2" in m.entrants]
    assert walkover.result is not None and walkover.result.how is How.WALKOVER
    assert walkover.result.loser == "p2" and walkover.result.note == "Player 2 was disqualified"
    assert (walkover.result.winner_points, walkover.result.loser_points) == (7, 0)
    with pytest.raises(TournamentError, match="already disqualified"):
        disqualify(t, "p2")
    t = play_out(t, lambda t, a, b: a)
    table = standings(t)[0]
    assert table.row("p2").losses == 3 and table.row("p2").wins == 0 and table.row("p2").withdrawn
    assert all(m.result is not None and m.result.how is How.WALKOVER for m in t.matches if "p2" in m.entrants)


def test_a_disqualified_swiss_player_is_paired_no_more() -> None:
    t = build(TournamentSpec(Format.SWISS, rounds=3), 6)
    t = play_round(t, lambda t, a, b: a)
    t = advance(disqualify(t, "p5"))
    assert all("p5" not in m.entrants for m in pairings(t))
    assert sum(1 for m in pairings(t) if m.b is None) == 1  # five left: one bye


def test_a_replacement_takes_over_the_seat_with_its_results() -> None:
    t = build(TournamentSpec(Format.SWISS, rounds=2), 4)
    t = attach_game(t, "R1-2", "g1")
    t = record_result(t, "R1-1", "p0", 7, 1)
    t = replace_entrant(t, "p1", Entrant("ignored", "Newcomer", ("u99",)))
    assert t.entrant("p1").name == "Newcomer" and t.entrant_of("u99") == t.entrant("p1")
    assert t.entrant_of("u1") is None
    assert t.match("R1-2").game is None  # the service starts a new game for the new player
    with pytest.raises(TournamentError, match="already plays in this tournament as Player 0"):
        replace_entrant(t, "p1", Entrant("x", "X", ("u0",)))


def test_pause_is_a_flag_that_survives_the_json_form() -> None:
    t = pause(build(TournamentSpec(Format.KNOCKOUT), 3), 50.0)
    back = from_data(json.loads(json.dumps(to_data(t))))
    assert back.paused and back.paused_at == 50.0
    assert not resume(back, 60.0).paused


def test_teams_are_entrants_like_any_other() -> None:
    t = new_tournament(TournamentSpec(Format.KNOCKOUT, team_size=2))
    teams = [Entrant(f"t{i}", f"Team {i}", (f"a{i}", f"b{i}")) for i in range(5)]
    for team in teams:
        t = join(t, team)
    with pytest.raises(TournamentError, match="already plays in this tournament as Team 0"):
        join(t, Entrant("t9", "Late", ("b0", "z")))
    t = play_out(start(t), lambda t, a, b: min(a, b))
    assert champion(t) == "t0" and t.entrant_of("b3") == teams[3]


# --- the JSON form --------------------------------------------------------------------------------------------------
formats = st.sampled_from(
    [
        TournamentSpec(Format.KNOCKOUT, name="Cup"),
        TournamentSpec(Format.KNOCKOUT, double_elimination=True, walkover_points=3),
        TournamentSpec(Format.SWISS, rounds=3, round_seconds=DAY, terms=(("variant", "backgammon"), ("length", "5"))),
        TournamentSpec(Format.ROUND_ROBIN, divisions=2, legs=2, deadline_rule=DeadlineRule.PIP_COUNT),
    ]
)


@settings(max_examples=40, deadline=None)
@given(formats, st.integers(4, 20), st.integers(0, 2**32), st.integers(0, 40), st.booleans())
def test_json_round_trip_gives_back_the_same_tournament(
    spec: TournamentSpec, n: int, seed: int, steps: int, ratings: bool
) -> None:
    rng = random.Random(seed)
    t = build(spec, n, now=1000.0, ratings=ratings)
    for _ in range(steps):
        if t.finished:
            break
        if round_complete(t):
            t = advance(t, now=rng.uniform(0, 1e6))
            continue
        m = rng.choice(open_matches(t))
        assert m.a is not None and m.b is not None
        action = rng.random()
        if action < 0.05:
            t = disqualify(t, rng.choice([m.a, m.b])) if m.a not in t.withdrawn and m.b not in t.withdrawn else t
        elif action < 0.1:
            t = attach_game(t, m.id, f"g{rng.randint(1, 99)}")
        else:
            how = rng.choice([How.PLAYED, How.WALKOVER, How.DEADLINE, How.ADMIN])
            t = record_result(t, m.id, rng.choice([m.a, m.b]), rng.randint(0, 9), rng.randint(0, 9), how, "note")
    text = json.dumps(to_data(t))
    assert from_data(json.loads(text)) == t
    assert to_data(from_data(json.loads(text))) == json.loads(text)


def test_damaged_data_is_refused_with_what_is_wrong() -> None:
    data = to_data(build(TournamentSpec(Format.KNOCKOUT), 5))
    bad = json.loads(json.dumps(data))
    bad["matches"][4]["feeds"][0] = "W:R9-9"
    with pytest.raises(TournamentError, match="stored tournament is damaged: match R2-1 is fed by an unknown match"):
        from_data(bad)
    bad = json.loads(json.dumps(data))
    bad["seeds"][0] = "ghost"
    with pytest.raises(TournamentError, match="unknown entrant 'ghost'"):
        from_data(bad)
    with pytest.raises(TournamentError, match="unknown layout version"):
        from_data({**data, "v": 99})
    bad = json.loads(json.dumps(data))
    bad["status"] = "exploded"
    with pytest.raises(TournamentError, match="damaged"):
        from_data(bad)
    assert from_data(data).status is Status.RUNNING
