"""Any text Discord can send (up to 6,000 characters) is judged with bounded work and a clear answer.

These tests never time anything: they count what the judge does. A text longer than ``MAX_PLAY_CHARS`` is
refused before it is read (the reader and the search are never called, the legal plays never generated);
a text with more written hops than the roll has dice is refused after one reading, before any search; and
every search that does run stays within the few dozen steps four hops allow.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.validate as validate
from engine import IllegalPlay, NotationError, Position, parse_play
from engine.movegen import Play
from engine.notation import point_name
from engine.plugins import registry
from engine.validate import MAX_PLAY_CHARS, MAX_SEARCH_STEPS
from engine.variant import Variant
from tests.engine.strategies import dice as rolls
from tests.engine.strategies import game_positions

NAMES = registry().names()
BG = registry().get("backgammon")
START = BG.start_position()
DISCORD_MAX = 6000
#: The most steps a search can make: a doublet's four dice, each tried on any of four unfinished hops.
MOST_STEPS = 1 + 4 + 16 + 64 + 256
#: With two different dice: either die on either of two hops, then the other die on either hop.
MOST_STEPS_TWO_DICE = 1 + 4 + 8
REPRO = "8/7*(4) " * 700
#: The longest message: the reader quotes at most 40 characters of a point and of its move, each of which
#: ``repr`` may write as up to 10 characters (``\\U0001f3b2``).
LONGEST_MESSAGE = 1000

#: Repeated units of adversarial texts: hops, hits, chains, repeats, digits, ``*``, ``(n)``, ``/``, unicode.
UNITS = [
    "8/7*(4) ",
    "24/23 ",
    "8/7* ",
    "/".join(str(p) for p in range(24, 0, -1)) + "/off ",
    "bar/24*/23*/22*/21*/20* ",
    "6/off(4) ",
    "24/23(2)",
    "8",
    "13 8 6 ",
    "*",
    "(4)",
    "/",
    "8/",
    "\u0668/\u0667 ",
    "\uff18\uff0f\uff17 ",
    "\U0001f3b2",
    " \t\u3000\n",
    ",;",
    "8/7*(4)//**((bar/off 13/x 7/13 30/20 ",
    "24/18 13/11 ",
    "25/22* ",
    "b/o ",
]


def fill(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


class Recorder:
    """What the judge did: texts read, searches made and their steps."""

    def __init__(self) -> None:
        self.reads = 0
        self.steps: list[int] = []

    @property
    def searches(self) -> int:
        return len(self.steps)


@contextmanager
def recording() -> Iterator[Recorder]:
    """Count the reader's calls and each search's steps while the block runs."""
    seen = Recorder()
    real_parse = validate.parse_play

    def counting_parse(text: str) -> list[validate.Segment]:
        seen.reads += 1
        return real_parse(text)

    class CountingSearch(validate._Search):
        def run(self) -> None:
            super().run()
            seen.steps.append(self.steps)

    with (
        mock.patch.object(validate, "parse_play", counting_parse),
        mock.patch.object(validate, "_Search", CountingSearch),
    ):
        yield seen


def judge(variant: Variant, pos: Position, roll: tuple[int, int], text: str, first: bool = False) -> Play | str:
    plays = variant.legal_plays(pos, roll, first)
    try:
        play = variant.check_play(pos, roll, text, first, plays)
    except IllegalPlay as exc:
        return str(exc)
    assert play in plays.plays
    return play


def test_the_issue_repro_is_refused_before_it_is_read() -> None:
    unused = AssertionError("the legal plays were generated")
    with (
        recording() as seen,
        mock.patch.object(BG, "legal_plays", side_effect=unused),
        pytest.raises(IllegalPlay) as info,
    ):
        BG.check_play(START, (1, 1), REPRO)
    assert str(info.value) == "that play is 5,600 characters long; a play is at most 200 characters"
    assert seen.reads == 0 and seen.searches == 0


def test_the_length_bound_is_on_the_text_as_typed() -> None:
    assert isinstance(judge(BG, START, (3, 1), "8/5 6/5".ljust(MAX_PLAY_CHARS)), Play)
    assert judge(BG, START, (3, 1), "8/5 6/5".ljust(MAX_PLAY_CHARS + 1)) == (
        "that play is 201 characters long; a play is at most 200 characters"
    )
    assert judge(BG, START, (1, 1), fill("8/7 ", 4200)) == (
        "that play is 4,200 characters long; a play is at most 200 characters"
    )


@pytest.mark.parametrize(
    ("roll", "text", "written"),
    [
        ((1, 1), "8/7(4) 6/5", 5),
        ((1, 1), "24/23/22/21/20/19", 5),
        ((1, 1), "8/7*(4) " * 25, 100),
        ((3, 1), "13/10 8/5 6/5", 3),
        ((3, 1), "8/5(2)", 2),
        ((6, 5), "24/18/13 13/8", 3),
    ],
)
def test_more_written_moves_than_dice_are_refused_before_any_search(
    roll: tuple[int, int], text: str, written: int
) -> None:
    dice_count = 4 if roll[0] == roll[1] else 2
    with recording() as seen:
        answer = judge(BG, START, roll, text)
    if written <= dice_count:
        assert seen.searches == 1
        return
    assert answer == f"a roll of {roll[0]}-{roll[1]} makes at most {dice_count} moves, one per die, not {written:,}"
    assert seen.reads == 1 and seen.searches == 0


def test_a_rule_is_still_named_within_the_bounds() -> None:
    assert "point 19 is blocked" in str(judge(BG, START, (5, 1), "24/19 8/7"))
    assert "you must use both dice" in str(judge(BG, START, (3, 1), "8/5"))
    assert "13/8 is 5 pips, which your dice 3-1 cannot make" in str(judge(BG, START, (3, 1), "13/8"))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("unit", UNITS)
def test_the_worst_texts_of_every_kind_are_judged_with_bounded_work(name: str, unit: str) -> None:
    variant = registry().get(name)
    pos = variant.start_position()
    for roll in ((1, 1), (6, 6), (2, 1), (6, 5)):
        for length in (DISCORD_MAX, MAX_PLAY_CHARS + 1, MAX_PLAY_CHARS, MAX_PLAY_CHARS - 1, 30):
            text = fill(unit, length)
            with recording() as seen:
                answer = judge(variant, pos, roll, text, first=True)
            if length > MAX_PLAY_CHARS:
                assert answer == f"that play is {length:,} characters long; a play is at most 200 characters"
                assert seen.reads == 0 and seen.searches == 0
            else:
                assert seen.reads == 1 and seen.searches <= 1
                assert all(steps <= MOST_STEPS for steps in seen.steps)
                if isinstance(answer, str):
                    assert 10 < len(answer) <= LONGEST_MESSAGE


def hostile_texts() -> st.SearchStrategy[str]:
    """Random garbage and huge texts: repeated units up to 6,000 characters, and arbitrary unicode."""
    repeated = st.builds(fill, st.sampled_from(UNITS), st.integers(1, DISCORD_MAX))
    pieces = st.lists(st.sampled_from(UNITS), max_size=60).map("".join)
    tokens = st.text(st.sampled_from(list("0123456789/*()barofx ,;-:\t") + ["\u0663", "\u3000"]), max_size=DISCORD_MAX)
    return st.one_of(repeated, pieces, tokens, st.text(max_size=DISCORD_MAX), st.text(max_size=40))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), roll=rolls, first=st.booleans(), text=hostile_texts())
def test_any_text_gets_a_play_or_a_reason_with_bounded_work(
    name: str, data: st.DataObject, roll: tuple[int, int], first: bool, text: str
) -> None:
    variant = registry().get(name)
    pos = data.draw(game_positions(variant, max_turns=60))
    with recording() as seen:
        answer = judge(variant, pos, roll, text, first)  # any other exception fails the test
    if len(text) > MAX_PLAY_CHARS:
        assert seen.reads == 0 and seen.searches == 0
    most = MOST_STEPS if roll[0] == roll[1] else MOST_STEPS_TWO_DICE
    assert seen.searches <= 1 and all(steps <= most for steps in seen.steps) and most < MAX_SEARCH_STEPS
    if isinstance(answer, str):
        assert 10 < len(answer) <= LONGEST_MESSAGE


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), roll=rolls, first=st.booleans(), seed=st.integers(0, 2**16))
def test_searches_for_legal_plays_stay_small(
    name: str, data: st.DataObject, roll: tuple[int, int], first: bool, seed: int
) -> None:
    """Every legal play, written one submove at a time in any order (the most hops), searches little."""
    variant = registry().get(name)
    pos = data.draw(game_positions(variant, max_turns=60))
    plays = variant.legal_plays(pos, roll, first)
    for play in plays.plays[:30]:
        moves = sorted(play.moves, key=lambda m: (m[0] * 7 + seed) % 11)
        text = " ".join(f"{point_name(s)}/{t}" for s, t, _ in moves)  # "in" for a checker entering from the reserve
        with recording() as seen:
            assert variant.check_play(pos, roll, text, first, plays).position == play.position
        most = MOST_STEPS if roll[0] == roll[1] else MOST_STEPS_TWO_DICE
        assert seen.searches <= 1 and all(steps <= most for steps in seen.steps)


def test_the_largest_search_is_four_hops_of_a_doublet_that_never_finish() -> None:
    # Four written hops of four pips each with 1-1: every submove is legal and no hop is ever finished by the
    # four dice, so each step tries all four hops; five hops are refused before searching.
    with recording() as seen:
        judge(BG, START, (1, 1), "24/20 24/20 8/4 6/2")
        judge(BG, START, (1, 1), "24/23 24/23 8/7 6/5")
        judge(BG, START, (1, 1), "24/23/22/21/20")
        judge(BG, START, (1, 1), "24/20 24/20 8/4 6/2 6/5")
    assert seen.steps[0] == MOST_STEPS and max(seen.steps) == MOST_STEPS < MAX_SEARCH_STEPS
    assert seen.searches == 3


@settings(max_examples=300, deadline=None)
@given(text=hostile_texts())
def test_the_reader_answers_any_text_and_quotes_little_of_it(text: str) -> None:
    try:
        segments = parse_play(text)
    except NotationError as exc:
        assert len(str(exc)) <= LONGEST_MESSAGE
    else:
        assert all(len(s.points) >= 2 and 1 <= s.count <= 4 for s in segments)
