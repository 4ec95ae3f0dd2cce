"""Hints and post-match analysis, and the bot-against-bot self-play they are checked with."""

from __future__ import annotations

import io
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from engine import Position
from engine.analysis import BLUNDER, DOUBTFUL, ERROR, HintError, analyse, cube_hint, hint
from engine.dice import RandomDice
from engine.match import MatchOptions, MatchState, Move, Phase, apply, new_match, replay, states
from engine.matfile import import_mat
from engine.players import RANDOM, HeuristicPlayer, RandomBot, bot_action
from engine.plugins import find_player, get_variant
from engine.selfplay import default_sides, duel, play_bot_match, wilson_interval
from engine.variant import Variant

BGSAGE = find_player("strong")
needs_bgsage = pytest.mark.skipif(BGSAGE.unavailable is not None, reason=str(BGSAGE.unavailable))


def state_with(variant: Variant, pos: Position, roll: tuple[int, int] | None, options: MatchOptions) -> MatchState:
    state = new_match(variant, default_sides(variant), options)
    phase = Phase.MOVE if roll is not None else Phase.ROLL
    return replace(state, phase=phase, position=pos, roller=0, dice=roll, moved=(True, True), begun=True)


# --- hints ------------------------------------------------------------------------------------------------
@needs_bgsage
def test_hint_lists_the_best_plays_with_equities_from_bgsage() -> None:
    bg = get_variant("backgammon")
    state = state_with(bg, bg.start_position(), (3, 1), MatchOptions(length=5))
    advice = hint(state, n=3)
    assert advice.kind == "play" and advice.exact and "bgsage" in advice.analyst
    assert [h.rank for h in advice.plays] == [1, 2, 3]
    assert advice.plays[0].notation == "8/5 6/5" and advice.plays[0].loss == 0
    assert all(a.equity >= b.equity for a, b in zip(advice.plays, advice.plays[1:]))
    assert all(h.loss == pytest.approx(advice.plays[0].equity - h.equity) for h in advice.plays)
    assert all(state.legal_plays().find(h.play.position) for h in advice.plays)
    assert advice.lines()[0].startswith("1. 8/5 6/5  +")


def test_hint_in_a_rule_set_bgsage_does_not_know_is_heuristic_and_says_so() -> None:
    lg = get_variant("longgammon")
    state = new_match(lg, default_sides(lg), MatchOptions(length=3))
    dice = RandomDice(2)
    bot = RandomBot(random.Random(1), double_rate=0)
    while state.phase is not Phase.MOVE or len(state.legal_plays()) < 3:
        side = state.turn if state.turn is not None else 0
        state = apply(state, bot_action(bot, state, side, dice))
    advice = hint(state, n=2)
    assert advice.analyst == "Heuristic bot" and not advice.exact
    assert "not an equity" in advice.label and "not an equity" in advice.lines()[-1]
    assert len(advice.plays) == 2


def test_there_is_no_hint_before_the_opening_roll_and_random_players_give_none() -> None:
    bg = get_variant("backgammon")
    state = new_match(bg, default_sides(bg), MatchOptions(length=3))
    with pytest.raises(HintError):
        hint(state)
    rolled = state_with(bg, bg.start_position(), (3, 1), MatchOptions(length=3))
    with pytest.raises(HintError, match="cannot put numbers"):
        hint(rolled, RANDOM)


def test_cube_hint_before_the_roll_and_when_doubled() -> None:
    sprint = get_variant("sprintgammon")
    ahead = Position.from_points({1: 1, 2: 1, 3: 1}, {4: 1, 5: 1, 6: 1})
    state = state_with(sprint, ahead, None, MatchOptions(length=7))
    advice = cube_hint(state)
    assert advice.kind == "double" and advice.cube is not None and advice.cube.should_double
    doubled = replace(state, phase=Phase.DOUBLED, responder=1)
    take = hint(doubled)
    assert take.kind == "take" and take.side == 1 and take.lines()[0] == "Pass"
    crawford = replace(state, crawford_game=True)
    with pytest.raises(HintError, match="Crawford"):
        cube_hint(crawford)


# --- analysis ---------------------------------------------------------------------------------------------
def test_analysis_of_a_heuristic_against_random_match() -> None:
    sprint = get_variant("sprintgammon")
    heuristic = HeuristicPlayer(random.Random(1), candidates=1)
    state, actions = play_bot_match(sprint, MatchOptions(length=3), (heuristic, RandomBot(random.Random(2))), 4)
    result = analyse(state.setup, actions, HeuristicPlayer(candidates=1), luck=False)
    unforced = sum(
        1
        for s, a in zip(states(state.setup, actions), actions)
        if s.phase is Phase.MOVE and isinstance(a, Move) and len(s.legal_plays()) > 1
    )
    assert sum(side.decisions for side in result.sides) >= unforced
    bot, rnd = result.sides
    assert bot.name == "Alice" and rnd.name == "Bob"
    assert rnd.error_rate > bot.error_rate
    assert rnd.errors >= rnd.blunders and rnd.errors == sum(1 for m in rnd.mistakes if m.loss >= ERROR)
    assert all(m.loss >= DOUBTFUL for m in rnd.mistakes)
    assert bot.decisions == bot.unforced + bot.cube_decisions
    assert rnd.blunders == sum(1 for m in rnd.mistakes if m.loss >= BLUNDER)
    assert result.biggest == sorted(result.biggest, key=lambda m: -m.loss)[:5]
    assert not result.exact


@needs_bgsage
def test_a_player_analysed_by_itself_makes_no_errors_and_random_makes_many() -> None:
    bg = get_variant("backgammon")
    strong = BGSAGE.create(1)
    state, actions = play_bot_match(bg, MatchOptions(length=3), (strong, RandomBot(random.Random(5))), 3)
    result = analyse(state.setup, actions, BGSAGE)
    me, them = result.sides
    assert me.decisions > 5 and me.equity_lost == pytest.approx(0.0, abs=1e-9)
    assert them.equity_lost > 0.5 and them.error_rate > 50
    worst = result.biggest[0]
    assert worst.side == 1 and worst.played != worst.better
    assert result.exact and "bgsage" in result.label


# --- self-play between bot players ------------------------------------------------------------------------
def test_wilson_interval_contains_the_share_and_narrows_with_more_matches() -> None:
    lo, hi = wilson_interval(9, 10)
    assert lo < 0.9 < hi <= 1.0
    lo2, hi2 = wilson_interval(90, 100)
    assert lo < lo2 < 0.9 < hi2 < hi
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_duel_counts_every_match_and_alternates_seats() -> None:
    sprint = get_variant("sprintgammon")
    kept: list[MatchState] = []
    result = duel(sprint, MatchOptions(length=1), RANDOM, RANDOM, 6, 3, keep=lambda i, s, a: kept.append(s))
    assert result.matches == 6 == len(kept)
    assert sum(result.wins) + result.ties == 6
    assert result.points[0] + result.points[1] == sum(s.score[0] + s.score[1] for s in kept)
    assert result.games == sum(len(s.results) for s in kept)
    assert "6 matches" in result.summary() and "95% CI" in result.summary()


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_selfplay_command_pits_two_players(tmp_path: Path) -> None:
    code, text = run(
        "selfplay",
        "--variant",
        "sprintgammon",
        "--player1",
        "heuristic",
        "--player2",
        "random",
        "--matches",
        "4",
        "--seed",
        "5",
    )
    assert code == 0
    assert text.startswith("Sprintgammon, 1-point matches: heuristic v random, 4 matches: heuristic won ")
    mat = tmp_path / "one.mat"
    code, _ = run("selfplay", "--player1", "random", "--length", "3", "--mat", str(mat))
    assert code == 0 and replay(*import_mat(mat.read_text())).over


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--player1", "deep-blue"], "no bot player called 'deep-blue'"),
        (["--player1", "strong", "--variant", "longgammon"], "cannot play Longgammon"),
        (["--matches", "0"], "at least one match"),
        (["--matches", "2", "--mat", "x.mat"], "--mat writes a single match"),
        (["--seed", "1"], "either --length N"),
    ],
)
def test_selfplay_bot_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("selfplay", *argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


class _DiceAnalyst:
    """An analyst whose every play is worth (the dice's sum) / 12 and whose cube advice is "no double": each roll's
    luck is then worked by hand, (a + b) / 12 - 7 / 12 (7 is the average sum of two dice)."""

    equity_label = "dice sum over 12"

    def rank_plays(self, state: MatchState, time_cap: float | None = None) -> list[Any]:
        from engine.players import RankedPlay

        assert state.dice is not None
        return [RankedPlay(p, sum(state.dice) / 12) for p in state.legal_plays()]

    def cube_advice(self, state: MatchState, time_cap: float | None = None) -> Any:
        from engine.players import CubeAdvice

        return CubeAdvice(0.0, -0.5, 1.0, False, True)

    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Any:
        return state.legal_plays()[0]

    def should_double(self, state: MatchState, time_cap: float | None = None) -> bool:
        return False

    def answer_double(self, state: MatchState, time_cap: float | None = None) -> Any:
        return "take"

    def accept_resignation(self, state: MatchState, time_cap: float | None = None) -> bool:
        return True


def test_luck_of_known_dice_is_what_the_hand_works_out() -> None:
    bg = get_variant("backgammon")
    state, actions = play_bot_match(
        bg, MatchOptions(length=1), (RandomBot(random.Random(3)), RandomBot(random.Random(4))), 9
    )
    result = analyse(state.setup, actions, _DiceAnalyst())
    assert len(result.luck) > 20
    for roll in result.luck:  # 6-6: 12/12 - 7/12 = +0.417; 2-1: 3/12 - 7/12 = -0.333
        assert roll.luck == pytest.approx((roll.dice[0] + roll.dice[1] - 7) / 12)
    for side in result.sides:
        mine = [r.luck for r in result.luck if r.side == side.side]
        assert side.rolls == len(mine) and side.luck == pytest.approx(sum(mine))
        assert side.luck_rate == pytest.approx(1000 * sum(mine) / len(mine))
    best, worst = result.luckiest(), result.unluckiest()
    assert best is not None and worst is not None and best.luck >= worst.luck
    assert result.luck_adjusted(0) == pytest.approx(result.sides[0].luck - result.sides[1].luck)
