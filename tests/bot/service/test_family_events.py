"""The sentences players read about the backgammon family: a draw and a pinned mother said in words (never "a
gammon (rule)"), a re-thrown opening that says who rolls next, a named doublet, a roll again, and the next game of
a Tavli match."""

from __future__ import annotations

from dataclasses import replace

from bot.service.events import _events, _verb
from bot.service.types import GameView
from engine import Position
from engine.match import (
    AcceptResignation,
    Action,
    MatchOptions,
    MatchState,
    Move,
    NameDouble,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    apply,
    new_match,
)
from engine.plugins import get_variant
from engine.position import RESERVE


def _view(state: MatchState) -> GameView:
    return GameView(
        1, "g", "active", state.setup.variant.name, state.title, state.setup.sides, {"ann": "Ann", "bob": "Bob"},
        state.options.length, state.score, state.game, str(state.phase), None, None, state.dice, 1, None, (), "", (),
        None, None, 1,
    )  # fmt: skip


def _said(state: MatchState, action: Action) -> tuple[MatchState, str]:
    after = apply(state, action)
    return after, " ".join(e.text for e in _events(1, _view(after), state, action, after, auto=False))


def test_a_rethrown_opening_says_who_rolls_both_dice_and_a_standard_one_what_is_played() -> None:
    tavli = new_match(get_variant("portes"), [["ann"], ["bob"]], MatchOptions(length=3))
    _, text = _said(tavli, OpeningRoll("ann", (6, 3)))
    assert "Opening roll: Ann 6, Bob 3. Ann starts and rolls both dice." in text and "plays 6-3" not in text
    bg = new_match(get_variant("backgammon"), [["ann"], ["bob"]], MatchOptions(length=3))
    assert "Ann plays 6-3." in _said(bg, OpeningRoll("ann", (6, 3)))[1]


def test_a_pinned_mother_and_a_draw_are_said_in_words_and_the_next_tavli_game_is_named() -> None:
    tavli = new_match(get_variant("tavli"), [["ann"], ["bob"]], MatchOptions(length=5))
    tavli = apply(apply(apply(tavli, OpeningRoll("ann", (6, 1))), Roll("ann", (3, 1))), Resign("ann", 1))
    _, text = _said(tavli, AcceptResignation("bob"))
    assert "Bob wins a single game (1 point, resign)." in text and "Next: Tavli, game 2: Plakoto." in text
    plakoto = new_match(get_variant("plakoto"), [["ann"], ["bob"]], MatchOptions(length=5))
    plakoto = apply(plakoto, OpeningRoll("ann", (5, 2)))
    p6 = replace(plakoto, phase=Phase.MOVE, dice=(4, 2), position=Position.parse("22:-14 10:12 5:2 3:1 1:-1"))
    after, text = _said(p6, Move("ann", ((5, 1, True), (3, 1, False))))
    assert "Ann wins 2 points: a mother is pinned (the last checker on its starting point)." in text
    assert "gammon" not in text and "(2 points, rule)" not in text
    mothers = Position.parse("24:-1p 22:-13 10:12 5:1 3:1 1:-1")
    p8 = replace(after, phase=Phase.MOVE, dice=(4, 2), roller=1, position=mothers, moved=(True, True))
    _, text = _said(p8, Move("bob", ((5, 1, True), (3, 1, False))))
    assert "A draw: both mothers are pinned; nobody scores." in text and "wins" not in text.split("Score")[0]


def test_a_named_doublet_and_a_roll_again_are_told() -> None:
    state = new_match(get_variant("aceydeucey"), [["ann"], ["bob"]], MatchOptions(length=1))
    state = apply(apply(state, OpeningRoll("ann", (5, 2))), Roll("ann", (2, 1)))
    state, text = _said(state, Move("ann", ((RESERVE, 24, False), (RESERVE, 23, False))))
    assert "Ann to name a doublet to play (any of 1-1 to 6-6)." in text
    state, text = _said(state, NameDouble("ann", 6))
    assert "Ann names 6-6." in text and _verb(state) == "play the named 6-6"
    full = next(p for p in state.legal_plays() if len(p.moves) == 4)
    state, text = _said(state, Move("ann", full.moves))
    assert "Ann to roll again." in text
