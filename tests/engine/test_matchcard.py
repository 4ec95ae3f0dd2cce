"""The figures of a match card and the frames of a replay, read from match records (engine.matchcard)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import match as m
from engine.matchcard import (
    PIPS_PER_ROLL,
    DiceLuck,
    analyse_card,
    match_card,
    plays_in_game,
    rating_words,
    replay_frames,
)
from engine.plugins import find_player, get_variant
from engine.selfplay import play_match

VARIANTS = ("backgammon", "sprintgammon", "longgammon", "doubles")
CUBE_ACTIONS = (m.Double, m.Take, m.Pass, m.Beaver, m.Raccoon)


def random_game(seed: int, variant: str = "backgammon") -> tuple[m.MatchState, list[m.Action]]:
    """A 1-point match of random legal plays without the cube: long games, many shots."""
    rng = random.Random(seed)
    v = get_variant(variant)
    sides = (("ann", "cy"), ("bob", "di")) if v.team_size == 2 else (("ann",), ("bob",))
    state = m.new_match(v, sides, m.MatchOptions(length=1))
    actions: list[m.Action] = []
    while not state.over:
        if state.phase is m.Phase.OPENING:
            action: m.Action = m.OpeningRoll(state.acting_member(0), (rng.randint(1, 6), rng.randint(1, 6)))
        elif state.phase is m.Phase.ROLL:
            assert state.roller is not None
            action = m.Roll(state.acting_member(state.roller), (rng.randint(1, 6), rng.randint(1, 6)))
        else:
            assert state.roller is not None
            action = m.Move(state.acting_member(state.roller), rng.choice(list(state.legal_plays())).moves)
        state = m.apply(state, action)
        actions.append(action)
    return state, actions


def brute_force_luck(setup: m.MatchSetup, actions: list[m.Action]) -> list[dict[str, float]]:
    """Each side's rolls, pips, doubles and shots counted the long way: every one of the 36 ordered rolls tried."""
    out = [dict.fromkeys(("rolls", "pips", "doubles", "shots", "shots_hit", "expected", "hits"), 0.0) for _ in "ab"]
    state = m.replay(setup, ())
    for action in actions:
        before, state = state, m.apply(state, action)
        if isinstance(action, m.Roll):
            assert before.roller is not None and before.position is not None
            side, pos = before.roller, before.position
            a, b = action.dice
            out[side]["rolls"] += 1
            out[side]["pips"] += 4 * a if a == b else a + b
            out[side]["doubles"] += a == b
            first = not before.moved[side]
            hitting = {
                (x, y)
                for x in range(1, 7)
                for y in range(1, 7)
                if any(p.position.bar[1] > pos.bar[1] for p in setup.variant.legal_plays(pos, (x, y), first))
            }
            if hitting and setup.variant.hitting:
                out[side]["shots"] += 1
                out[side]["expected"] += len(hitting) / 36
                out[side]["shots_hit"] += (a, b) in hitting
        if isinstance(action, m.Move) and before.roller is not None and state.last_move is not None:
            out[before.roller]["hits"] += sum(1 for _s, _d, hit in state.last_move[2] if hit)
    return out


@settings(max_examples=15, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 10_000),
    money=st.booleans(),
)
def test_the_score_over_time_ends_at_the_final_score_and_the_dice_add_up(variant: str, seed: int, money: bool) -> None:
    options = m.MatchOptions(games=3, beavers=True) if money else m.MatchOptions(length=3)
    final, actions = play_match(get_variant(variant), options, seed)
    card = match_card(final.setup, actions)
    running = card.running_score()
    assert running[0] == (0, 0) and running[-1] == final.score == card.score
    assert len(card.games) == len(final.results) and card.winner == final.winner and card.over
    for before, after, line in zip(running, running[1:], card.games):
        assert (
            after[line.winner] - before[line.winner] == line.points
            and after[1 - line.winner] == before[1 - line.winner]
        )
    rolls = [a for a in actions if isinstance(a, m.Roll)]
    assert sum(d.rolls for d in card.dice) == len(rolls)
    assert sum(d.pips for d in card.dice) == sum(
        4 * a.dice[0] if a.dice[0] == a.dice[1] else sum(a.dice) for a in rolls
    )
    assert sum(d.doubles for d in card.dice) == sum(1 for a in rolls if a.dice[0] == a.dice[1])
    assert len(card.cube) == sum(1 for a in actions if isinstance(a, CUBE_ACTIONS))
    for line in card.games:
        assert line.plays == plays_in_game(final.setup, actions, line.number)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(("backgammon", "sprintgammon", "longgammon")))
def test_shots_and_hits_match_a_count_over_all_36_rolls(seed: int, variant: str) -> None:
    final, actions = random_game(seed, variant)
    card = match_card(final.setup, actions)
    for side, counted in enumerate(brute_force_luck(final.setup, actions)):
        luck = card.dice[side]
        assert (luck.rolls, luck.pips, luck.doubles) == (counted["rolls"], counted["pips"], counted["doubles"])
        assert (luck.shots, luck.shots_hit, luck.hits) == (counted["shots"], counted["shots_hit"], counted["hits"])
        assert luck.expected_hits == pytest.approx(counted["expected"])
        assert luck.shots_hit <= luck.shots and luck.expected_hits <= luck.shots
    if variant == "longgammon":  # nothing is ever hit there
        assert not card.hitting and all(d.shots == d.hits == 0 for d in card.dice)


def test_expected_figures_of_fair_dice() -> None:
    luck = DiceLuck(rolls=36, pips=300, doubles=6)
    assert luck.expected_pips == pytest.approx(36 * 49 / 6)
    assert pytest.approx(8.1667, abs=1e-4) == PIPS_PER_ROLL
    assert luck.expected_doubles == 6


def test_names_come_from_the_ids_display_names_and_teams_are_joined() -> None:
    final, actions = random_game(3, "doubles")
    names = {"ann": "Ann", "cy": "Cy", "bob": "Bob", "di": "Di"}
    card = match_card(final.setup, actions, names=names)
    assert card.names == ("Ann & Cy", "Bob & Di")
    frames = replay_frames(final.setup, actions, 1, names=names)
    assert frames[0].snapshot.team_names == ("Ann & Cy", "Bob & Di")
    assert frames[1].snapshot.names[0] in ("Ann", "Cy")
    text = " ".join(f.caption for f in frames)
    assert "ann" not in text and "bob" not in text
    winner = final.results[0].winner
    assert card.teams and f"{card.names[winner]} win: " in frames[-1].caption and " wins" not in text


def test_cube_actions_are_listed_with_who_and_the_value() -> None:
    v = get_variant("backgammon")
    setup = m.MatchSetup(v, (("ann",), ("bob",)), m.MatchOptions(length=5), ("Ann", "Bob"))
    actions: list[m.Action] = [m.OpeningRoll("ann", (3, 1))]
    state = m.apply(m.replay(setup, ()), actions[0])
    actions.append(m.Move("ann", next(iter(state.legal_plays())).moves))
    actions += [m.Double("bob"), m.Take("ann"), m.Roll("bob", (6, 6))]
    state = m.replay(setup, actions)
    actions += [m.Move("bob", next(iter(state.legal_plays())).moves), m.Double("ann"), m.Pass("bob")]
    card = match_card(setup, actions)
    assert [(c.game, c.side, c.action, c.value) for c in card.cube] == [
        (1, 1, "double", 2),
        (1, 0, "take", 2),
        (1, 0, "double", 4),
        (1, 1, "pass", 4),
    ]
    (line,) = card.games
    assert (line.winner, line.points, line.how, line.plays, card.score) == (0, 2, "double passed", 2, (2, 0))
    assert not card.over and card.winner is None
    frames = replay_frames(setup, actions, 1)
    assert len(frames) == 3
    assert frames[1].caption.startswith("Ann 3-1: ")
    assert frames[2].caption.startswith("Bob doubles to 2 · Ann takes · Bob 6-6: ")
    assert frames[2].caption.endswith("Ann doubles to 4 · Bob passes · Ann wins: double passed, 2 points")
    assert frames[2].snapshot.result is not None and frames[2].snapshot.result.points == 2
    assert frames[2].snapshot.cube_value == 2 and frames[2].snapshot.score == (2, 0)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), viewer=st.sampled_from((0, 1)), home=st.sampled_from(("left", "right")))
def test_a_replay_has_one_frame_per_play_and_the_start(seed: int, viewer: int, home: str) -> None:
    final, actions = random_game(seed)
    frames = replay_frames(final.setup, actions, 1, viewer=viewer, home=home)
    moves = sum(1 for a in actions if isinstance(a, m.Move))
    state, dances = m.replay(final.setup, ()), 0
    for action in actions:
        before, state = state, m.apply(state, action)
        dances += isinstance(action, m.Roll) and state.roller != before.roller
    assert len(frames) == moves + dances + 1
    first, last = frames[0].snapshot, frames[-1].snapshot
    assert first.position == final.variant.start_position() and first.on_roll is None and not first.last_play
    assert frames[0].caption == "Game 1 · ann 0, bob 0 (match to 1)"
    assert all(f.snapshot.home == home for f in frames)
    assert last.result is not None and last.result.match_over
    winner = final.results[0].winner
    assert last.result.winner == (0 if winner == viewer else 1)
    assert last.position.off[0 if winner == viewer else 1] == 15  # the final position, all borne off
    assert f"{final.setup.side_name(winner)} wins: " in frames[-1].caption
    for frame in frames[1:]:
        assert frame.snapshot.dice is not None or frame is frames[-1]
    with pytest.raises(ValueError, match="no game 2"):
        replay_frames(final.setup, actions, 2)


def test_a_game_in_progress_and_a_game_not_begun_replay_so_far() -> None:
    final, actions = random_game(1)
    partial = actions[:9]
    frames = replay_frames(final.setup, partial, 1)
    assert frames[-1].snapshot.result is None and len(frames) >= 2
    (only,) = replay_frames(final.setup, [], 1)
    assert only.snapshot.on_roll is None


def test_the_card_analysis_notes_one_point_per_turn_and_one_per_game_end() -> None:
    v = get_variant("backgammon")
    spec = find_player("strong")
    if spec.unavailable:
        pytest.skip(spec.unavailable)
    final, actions = play_match(v, m.MatchOptions(length=1), 4)
    result, figures = analyse_card(final.setup, actions, time_cap=0.2)
    # The deep analyst (bgsage at 2-ply), not the strong bot's own network, names itself on the card.
    assert result.analyst == figures.analyst == "bgsage 2-ply" != spec.display_name and figures.exact
    assert [s.decisions for s in figures.sides] == [s.decisions for s in result.sides]
    assert [s.error_rate for s in figures.sides] == pytest.approx([s.error_rate for s in result.sides])
    ends = [p for p in figures.equity if p.mark == "end"]
    assert len(ends) == len(final.results) and figures.match_play
    assert all(p.mwc is not None and 0.0 <= p.mwc <= 1.0 for p in figures.equity)
    assert ends[-1].mwc == (1.0 if final.winner == 0 else 0.0)
    rolled = sum(s.rolls for s in figures.sides)
    assert rolled == len(result.luck) and len(figures.equity) >= rolled + len(ends)
    assert match_card(final.setup, actions, figures).analysis is figures


def test_an_analyst_without_rank_with_is_recorded_too() -> None:
    final, actions = play_match(get_variant("sprintgammon"), m.MatchOptions(length=1), 2)
    _result, figures = analyse_card(final.setup, actions, find_player("heuristic"), time_cap=0.05)
    assert not figures.exact and "heuristic" in figures.label
    assert figures.equity and figures.equity[-1].mark == "end"


@pytest.mark.parametrize(
    ("rate", "words"),
    [(0.0, "Supernatural"), (4.9, "World class"), (5.0, "Expert"), (17.9, "Intermediate"), (35.0, "Awful!")],
)
def test_rating_words_follow_gnu_backgammon(rate: float, words: str) -> None:
    assert rating_words(rate) == words


def test_results_are_named_in_the_rule_sets_words() -> None:
    """A Longgammon game won with a mars is a mars on the card, never a "gammon"."""
    for seed in range(200):
        state, actions = random_game(seed, "longgammon")
        if state.results[-1].level == 2:
            break
    else:
        pytest.fail("no mars in 200 random Longgammon games")
    card = match_card(state.setup, actions)
    assert card.games[-1].how == "mars", card.games[-1]
    for seed in range(200):
        state, actions = random_game(seed)
        if state.results[-1].level == 2:
            break
    assert match_card(state.setup, actions).games[-1].how == "gammon"
