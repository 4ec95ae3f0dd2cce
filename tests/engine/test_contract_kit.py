"""The contract kit (engine.testing) itself: each check catches the rule set that breaks its rule, and says so in
words naming the rule set; a plugin that would be refused fails its "loads" test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.movegen import Play, PlaySet
from engine.plugins import hookimpl
from engine.position import Position
from engine.testing import CHECKS, Budget, ContractError, check_plugin, check_variant, contract_test, play_through
from engine.validate import IllegalPlay
from engine.variant import Variant

SMALL = Budget(matches=1, length=1, max_actions=3000)


class Short(Variant):
    """A quick rule set to break: backgammon with three checkers."""

    name = "kit-short"
    display_name = "Kit short"
    summary = "Backgammon with three checkers each."
    mat_variation = "Kit short"
    checkers = 3
    start = {24: 1, 23: 1, 22: 1}


def test_a_sound_rule_set_passes_every_check() -> None:
    check_variant(Short, SMALL)


def test_a_start_with_the_wrong_number_of_checkers_fails_starts() -> None:
    class Lopsided(Short):
        name = "kit-lopsided"
        start = {24: 2, 23: 1, 22: 1}

    with pytest.raises(ContractError, match="kit-lopsided: starts: the starting position is not valid: "):
        CHECKS["starts"](Lopsided, SMALL)


def test_a_rule_set_without_a_name_of_its_own_fails_declares() -> None:
    class Copy(Short):
        display_name = "Copy"

    with pytest.raises(ContractError, match="declares: Copy declares no name of its own .*'kit-short'"):
        CHECKS["declares"](Copy, SMALL)


def test_results_it_does_not_declare_fail_results() -> None:
    class Greedy(Short):
        name = "kit-greedy"

        def game_result(self, pos: Position) -> int:
            return 4

    with pytest.raises(ContractError, match="kit-greedy: results: game 1 ended with level 4, not one of"):
        CHECKS["results"](Greedy, SMALL)


def test_plays_its_notation_refuses_fail_notation() -> None:
    class Deaf(Short):
        name = "kit-deaf"

        def check_play(self, *args: Any, **kwargs: Any) -> Play:
            raise IllegalPlay("I hear nothing")

    with pytest.raises(ContractError, match="kit-deaf: notation: .*typed, it is refused: I hear nothing"):
        CHECKS["notation"](Deaf, SMALL)


def test_a_play_that_loses_a_checker_fails_conserves() -> None:
    class Leaky(Short):
        name = "kit-leaky"

        def legal_plays(self, pos: Position, dice: tuple[int, int], first_move: bool = False) -> PlaySet:
            plays = super().legal_plays(pos, dice, first_move)
            leaked = []
            for play in plays:
                board = list(play.position.board)
                top = max(i for i, n in enumerate(board) if n > 0) if any(n > 0 for n in board) else None
                if top is not None:
                    board[top] -= 1
                leaked.append(Play(play.moves, Position(board, play.position.bar, play.position.off)))
            return PlaySet(leaked, plays.dice, plays.max_dice, plays.max_pips)

    # The match judges a play by making its submoves, so the leak is caught as a play the match refuses.
    with pytest.raises(ContractError, match="kit-leaky: (conserves: .* not valid|self-play: the match cannot go on)"):
        check_variant(Leaky, SMALL)


def test_a_snapshot_that_cannot_be_drawn_fails_snapshots() -> None:
    def broken(snapshot: object) -> object:
        raise RuntimeError("no ink")

    with pytest.raises(ContractError, match="kit-short: snapshots: the board of .* cannot be drawn: RuntimeError"):
        CHECKS["snapshots"](Short, Budget(matches=1, length=1, render=broken))


class _Clash:
    """A plugin whose rule set takes the alias "bg" of standard backgammon."""

    class Mine(Short):
        name = "kit-mine"
        aliases = ("bg",)

    @hookimpl
    def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
        register(self.Mine)


def test_check_plugin_loads_a_plugin_as_the_bot_would_and_refuses_a_clash_by_name() -> None:
    class Fine:
        @hookimpl
        def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
            register(Short)

    assert check_plugin(Fine(), "fine") == [Short]
    with pytest.raises(
        ContractError, match="plugin 'clash' refused: it registers rule set 'bg', but plugin 'backgammon'"
    ):
        check_plugin(_Clash(), "clash")


def test_contract_test_gives_a_failing_loads_test_for_a_plugin_that_would_be_refused() -> None:
    test = contract_test(_Clash())
    (mark,) = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    (case,) = mark.args[1]
    assert case.id == "_Clash-loads"
    with pytest.raises(ContractError, match="refused: it registers rule set 'bg'"):
        case.values[0]()
    ids = [p.id for p in next(m for m in contract_test(Short).pytestmark if m.name == "parametrize").args[1]]
    assert ids == [f"kit-short-{name}" for name in CHECKS]


def test_a_subclass_that_changes_the_rules_needs_its_own_mat_tag_and_no_tag_is_taken_twice() -> None:
    from variants.fevga import Fevga

    class MyFevga(Fevga):
        name = "kit-myfevga"

    with pytest.raises(ContractError, match="kit-myfevga: tags: .*inherit 'Fevga'"):
        CHECKS["tags"](MyFevga, SMALL)

    class Copy(Short):
        name = "kit-copy"
        mat_variation = "plakoto"  # Plakoto's, in other letters

    with pytest.raises(ContractError, match="kit-copy: tags: .*'plakoto'"):
        CHECKS["tags"](Copy, SMALL)


def test_the_hostile_check_passes_for_a_sound_rule_set() -> None:
    CHECKS["hostile"](Short, SMALL)


# --- play_through: a whole match in a plugin's tests -----------------------------------------------------------
def test_play_through_plays_a_built_in_rule_set_to_its_end_the_same_way_for_a_seed() -> None:
    from engine.match import Move, Phase
    from variants.backgammon import Backgammon

    played = play_through(Backgammon, seed=4, length=3, cube=True)
    assert played.final.phase is Phase.OVER and played.winner in (0, 1)
    assert played.score[played.winner] >= 3 and played.results
    assert played.states[0].phase is Phase.OPENING and len(played.states) == len(played.actions) + 1
    moves = played.moves()
    assert moves and all(isinstance(move, Move) for _, move in moves)
    for state, move in moves:  # each play one of its roll's legal plays
        assert state.position is not None
        assert state.legal_plays().find(state.variant.apply(state.position, move.moves)) is not None
    assert play_through(Backgammon, seed=4, length=3, cube=True).actions == played.actions


def test_play_through_seats_registered_bot_players_and_plays_gul_bara_cascades() -> None:
    from engine.match import Stage
    from variants.gulbara import GulBara

    played = play_through(GulBara, seed=2, length=1)
    assert played.winner in (0, 1)
    assert any(state.stage is Stage.FIXED for state, _ in played.moves())  # a cascade's stage, dice the rules fix
    seated = play_through(GulBara, seed=2, length=1, players=("random", "random"))  # registered bot players
    assert seated.winner in (0, 1) and seated.actions != played.actions


def test_play_through_fails_on_a_bot_player_that_chooses_no_legal_play() -> None:
    class Cheat:
        def choose_play(self, state: Any, time_cap: float | None = None) -> Play:
            first = state.legal_plays()[0]
            return Play(first.moves, state.variant.flip(first.position))  # a position no legal play leaves

        def should_double(self, state: Any, time_cap: float | None = None) -> bool:
            return False

        def answer_double(self, state: Any, time_cap: float | None = None) -> bool:
            return True

        def accept_resignation(self, state: Any, time_cap: float | None = None) -> bool:
            return True

    with pytest.raises(ContractError, match=r"kit-short: play_through: the bot player failed: .*not one of the legal"):
        play_through(Short, seed=1, length=1, players=(Cheat(), Cheat()))
