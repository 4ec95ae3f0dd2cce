"""The Tavli match (rules-family §1): Portes, Plakoto and Fevga in turn with one score; the game's rule set is read
where the match state's ``variant`` is defined, so boards, records, formats and terms all follow the cycle."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Position
from engine.match import (
    AcceptResignation,
    EndReason,
    MatchOptionError,
    MatchOptions,
    Move,
    OpeningRoll,
    OpeningRule,
    Phase,
    Resign,
    Roll,
    apply,
    new_match,
    replay,
    states,
)
from engine.matchcard import match_card
from engine.matfile import export_mat, import_mat
from engine.players import HEURISTIC
from engine.plugins import get_variant, players_for
from engine.record import setup_from_data, setup_to_data, state_from_data, state_to_data
from engine.selfplay import play_bot_match, play_match
from engine.snapshot import board_snapshot
from engine.terms import describe

TAVLI = get_variant("tavli")
CYCLE = ("portes", "plakoto", "fevga")


def test_the_games_come_round_portes_plakoto_fevga() -> None:
    assert [TAVLI.for_game(k).name for k in range(7)] == [*CYCLE, *CYCLE, "portes"]
    assert [v.name for v in TAVLI.games_cycle()] == list(CYCLE)
    assert get_variant("plakoto").games_cycle() == (get_variant("plakoto"),)
    assert TAVLI.default_length == 5 and not TAVLI.uses_cube and TAVLI.results == {1: "single game", 2: "gammon"}
    assert get_variant("tavli", mother_points=3).for_game(1).options["mother_points"] == 3


def test_a_3_game_match_plays_each_game_by_its_rule_set() -> None:
    for seed in range(40):
        final, actions = play_match(TAVLI, MatchOptions(length=3), seed)
        if len(final.results) == 3:
            break
    else:
        pytest.fail("no 3-game match in 40 self-played matches")
    assert final.setup.options.opening is OpeningRule.WINNER_REROLL
    played: dict[int, str] = {}
    for state in states(final.setup, actions):
        if state.phase is Phase.MOVE:
            played.setdefault(state.game, state.variant.name)
            assert state.title == f"Tavli, game {state.game}: {state.variant.display_name}"
            assert board_snapshot(state, 0).display_name == state.title
        assert state_from_data(state.setup, state_to_data(state)) == state  # the game's rule set validates
    assert played == {1: "portes", 2: "plakoto", 3: "fevga"}
    data = setup_to_data(final.setup)
    assert data["variant"] == "tavli" and setup_from_data(data).variant == TAVLI
    text = export_mat(final.setup, actions)
    assert '[Variation "Tavli"]' in text and '[RuleSet "tavli"]' in text
    setup, again = import_mat(text)
    assert replay(setup, again).results == final.results
    card = match_card(final.setup, actions)
    assert card.variant == "Tavli" and len(card.games) == 3


def test_a_drawn_plakoto_advances_the_cycle_and_the_next_game_opens_with_the_throw() -> None:
    state = new_match(TAVLI, [["ann"], ["bob"]], MatchOptions(length=5))
    for action in (OpeningRoll("ann", (6, 1)), Roll("ann", (3, 1)), Resign("ann", 1), AcceptResignation("bob")):
        state = apply(state, action)
    assert state.game == 2 and state.variant.name == "plakoto" and state.position == Position.parse("24:15 1:-15")
    assert state.phase is Phase.ROLL and state.roller == 1  # the winner of game 1 starts game 2
    mothers = Position.parse("24:-1p 22:-13 10:12 5:1 3:1 1:-1")  # rules-family P8 for bob: both mothers pinned
    state = replace(state, phase=Phase.MOVE, dice=(4, 2), position=mothers, moved=(True, True))
    drawn = apply(state, Move("bob", ((5, 1, True), (3, 1, False))))
    assert drawn.results[-1].reason is EndReason.DRAW and drawn.score == (0, 1)
    assert drawn.game == 3 and drawn.variant.name == "fevga" and drawn.phase is Phase.OPENING
    assert drawn.position == get_variant("fevga").start_position()


def test_the_terms_name_the_cycle_and_the_game_under_way_and_the_cube_is_refused() -> None:
    lines = describe(TAVLI, MatchOptions(length=5, cube=False, opening=OpeningRule.WINNER_REROLL), game=2)
    assert "Games: Portes, then Plakoto, then Fevga, and round again; game 2 is Plakoto" in lines
    assert any("winner of the game before" in line for line in lines)
    with pytest.raises(MatchOptionError, match="played without the doubling cube"):
        new_match(TAVLI, [["a"], ["b"]], MatchOptions(games=2, beavers=True))


def test_bots_offered_for_tavli_play_every_game_of_it() -> None:
    assert "casual" not in {spec.name for spec in players_for(TAVLI)}  # bgsage knows only standard backgammon
    bots = (HEURISTIC.create(1), HEURISTIC.create(2))
    final, _ = play_bot_match(TAVLI, MatchOptions(length=3), bots, 2, time_cap=0.01)
    assert final.over and final.results


def test_a_race_is_judged_by_the_rule_sets_geometry_and_pins() -> None:
    bg, lg, plakoto = (get_variant(n) for n in ("backgammon", "longgammon", "plakoto"))
    assert bg.race(Position.parse("6:3 5:2 24:-3 off:10/12")) and not bg.race(Position.parse("6:3 5:2 4:-1 24:-2"))
    # Longgammon: his checkers still to pass through my home board can block it; once past, a race.
    assert not lg.race(Position.parse("6:3 5:2 12:-3")) and lg.race(Position.parse("6:3 5:2 24:-2"))
    # Plakoto: a straggler in my home board can still pin my blots there; one pinned under mine too.
    assert not plakoto.race(Position.parse("6:3 5:1 3:-1 off:11/14"))
    assert not plakoto.race(Position.parse("6:3 5:1p off:11/14"))
    assert plakoto.race(Position.parse("6:3 5:1 20:-1 off:11/14"))


def test_the_match_card_names_a_mother_win_in_words_not_as_a_gammon() -> None:
    for seed in range(60):
        final, actions = play_match(get_variant("plakoto"), MatchOptions(length=3), seed)
        rule = [g for g in match_card(final.setup, actions).games if g.reason == "rule"]
        if rule:
            break
    else:
        pytest.skip("no game ended by a pinned mother in 60 self-played matches")
    assert rule[0].how == "a mother is pinned (the last checker on its starting point)" and rule[0].level == 2
