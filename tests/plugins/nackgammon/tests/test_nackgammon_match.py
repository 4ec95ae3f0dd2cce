"""Whole Nackgammon matches in the plugin's own tests, driven by the contract kit's ``play_through``: every action is
checked legal on the way, and the match is looked into afterwards."""

from __future__ import annotations

from gammonbot_nackgammon import Nackgammon

from engine.match import Phase
from engine.testing import play_through


def test_a_seeded_match_is_played_to_its_end_from_nacks_start() -> None:
    played = play_through(Nackgammon, seed=7, length=3, cube=True)
    assert played.final.phase is Phase.OVER and played.winner is not None
    assert played.score[played.winner] >= 3
    first_state, _ = played.moves()[0]
    assert first_state.variant.start == {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    assert {result.level for result in played.results} <= set(Nackgammon().results)


def test_a_match_between_registered_bot_players() -> None:
    played = play_through(Nackgammon, seed=1, length=1, players=("random", "random"))
    assert played.winner in (0, 1) and len(played.results) == 1
