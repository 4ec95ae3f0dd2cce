"""Time controls: the arithmetic of rules.md §5.1, the presets of §5.2, and refusals of impossible numbers."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.plugins import registry
from engine.timecontrol import Bonus, Kind, TimeControl, TimeControlError
from variants.timecontrols import PRESETS

MIN = 60.0
DAY = 86400.0

times = st.floats(min_value=0, max_value=10 * DAY, allow_nan=False, allow_infinity=False)
deltas = st.floats(min_value=0.5, max_value=DAY, allow_nan=False, allow_infinity=False)


def clock(bonus: Bonus, per_move: float = 12, reserve: float = 600) -> TimeControl:
    per_move = per_move if bonus is not Bonus.NONE else 0
    return TimeControl("test", "Test", Kind.CLOCK, bonus, per_move=per_move, reserve=reserve)


# --- rules.md §5.1 -------------------------------------------------------------------------------------
def test_simple_delay_charges_only_the_time_beyond_the_delay() -> None:
    tc = clock(Bonus.DELAY)
    assert tc.remaining(100, 10) == 100
    assert tc.remaining(100, 20) == 92
    assert not tc.expired(100, 112) and tc.expired(100, 112.5)


def test_bronstein_leaves_the_same_reserve_but_the_flag_falls_without_the_delay() -> None:
    tc = clock(Bonus.BRONSTEIN)
    assert tc.remaining(100, 10) == 100 and tc.remaining(100, 20) == 92
    assert tc.expired(100, 100.5)


def test_fischer_increment_lets_unused_time_accumulate() -> None:
    tc = clock(Bonus.INCREMENT)
    assert tc.remaining(100, 10) == 102
    assert tc.remaining(100, 20) == 92
    assert tc.expired(100, 100.5)


def test_a_clock_without_delay_charges_every_second() -> None:
    tc = clock(Bonus.NONE)
    assert tc.remaining(100, 10) == 90
    assert tc.time_allowed(100) == 100


@given(reserve=times, taken=times, delta=deltas)
def test_the_four_kinds_compare_as_rules_md_says(reserve: float, taken: float, delta: float) -> None:
    delay, bronstein, fischer = (clock(b, delta, 1) for b in (Bonus.DELAY, Bonus.BRONSTEIN, Bonus.INCREMENT))
    plain = clock(Bonus.NONE, 0, 1)
    assert bronstein.remaining(reserve, taken) == delay.remaining(reserve, taken)
    assert fischer.remaining(reserve, taken) >= delay.remaining(reserve, taken) >= plain.remaining(reserve, taken)
    assert delay.remaining(reserve, taken) <= reserve
    # The simple delay never loses on time where Bronstein does not.
    if delay.expired(reserve, taken):
        assert bronstein.expired(reserve, taken) and plain.expired(reserve, taken)


@given(reserve=times, a=times, b=times, delta=deltas)
def test_a_slower_move_never_leaves_more_time(reserve: float, a: float, b: float, delta: float) -> None:
    fast, slow = sorted((a, b))
    for bonus in Bonus:
        tc = clock(bonus, delta, 1)
        assert tc.remaining(reserve, slow) <= tc.remaining(reserve, fast)


def test_a_negative_move_time_is_refused() -> None:
    with pytest.raises(TimeControlError, match="negative time"):
        clock(Bonus.DELAY).remaining(100, -1)


# --- the reserve --------------------------------------------------------------------------------------
def test_the_tournament_clock_gives_two_minutes_a_point_less_one_per_point_scored() -> None:
    tc = registry().find_time_control("tournament-clock")
    assert tc.bonus is Bonus.DELAY and tc.per_move == 12
    assert tc.starting_reserve(7) == 14 * MIN
    assert tc.starting_reserve(7, (4, 5)) == 5 * MIN
    assert tc.describe() == "2 min per point (less 1 min per point scored) + 12 s delay"


def test_the_doubles_clock_gives_two_and_a_half_minutes_a_point_and_an_18_second_delay() -> None:
    tc = registry().find_time_control("doubles-clock")
    assert tc.starting_reserve(9) == 22.5 * MIN
    assert tc.starting_reserve(9, (2, 2)) == 17.5 * MIN
    assert tc.per_move == 18


def test_the_clock_without_delay_gives_six_minutes_a_point() -> None:
    tc = registry().find_time_control("no-delay-clock")
    assert tc.bonus is Bonus.NONE and tc.starting_reserve(5) == 30 * MIN
    assert tc.describe() == "6 min per point, no delay"


def test_a_per_point_reserve_needs_a_match_length() -> None:
    with pytest.raises(TimeControlError, match="give the match length"):
        registry().find_time_control("tournament-clock").starting_reserve()


def test_the_reserve_never_goes_below_zero() -> None:
    tc = TimeControl("x", "X", Kind.CLOCK, per_move=10, reserve_per_point=60, reserve_less_per_point_scored=120)
    assert tc.starting_reserve(3, (2, 2)) == 0


# --- the Blitz presets and correspondence -------------------------------------------------------------
def test_backgammon_blitz_is_two_minutes_and_ten_seconds_a_move_for_five_points() -> None:
    tc = registry().find_time_control("Backgammon-Blitz")
    assert (tc.display_name, tc.match_length, tc.variants) == ("Backgammon Blitz", 5, ("backgammon",))
    assert tc.starting_reserve() == 2 * MIN and tc.per_move == 10
    assert tc.describe() == "2 min + 10 s delay, 5-point matches"


def test_longgammon_blitz_is_one_minute_and_ten_seconds_a_move_for_three_points() -> None:
    tc = registry().find_time_control("longgammon-blitz")
    assert (tc.display_name, tc.match_length, tc.variants) == ("Longgammon Blitz", 3, ("longgammon",))
    assert tc.starting_reserve() == 1 * MIN and tc.per_move == 10


def test_whether_plus_n_seconds_is_a_delay_or_an_increment_is_an_option() -> None:
    tc = registry().find_time_control("fnr-long-nardy")
    other = tc.with_bonus("increment")
    assert (tc.bonus, other.bonus) == (Bonus.DELAY, Bonus.INCREMENT)
    assert other.remaining(100, 3) == 105 and tc.remaining(100, 3) == 100
    assert dataclasses.replace(other, bonus=Bonus.DELAY) == tc


def test_correspondence_play_allows_a_day_a_move_then_draws_on_a_bank() -> None:
    tc = registry().find_time_control("daily")
    assert tc.kind is Kind.CORRESPONDENCE and tc.per_move == DAY
    bank = tc.starting_reserve()
    assert bank == 3 * DAY
    assert tc.remaining(bank, 20 * 3600) == bank
    assert tc.remaining(bank, 30 * 3600) == bank - 6 * 3600
    assert tc.expired(bank, 4 * DAY + 1) and not tc.expired(bank, 4 * DAY)
    assert tc.describe() == "1 day per move, then a bank of 3 days"


def test_every_preset_has_a_summary_and_a_starting_reserve() -> None:
    for tc in PRESETS:
        assert tc.summary and tc.display_name
        assert tc.starting_reserve(tc.match_length or 7) > 0
        hash(tc)


# --- impossible numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "Fast Clock"}, "lower-case name"),
        ({"per_move": -1}, "per_move must be a number of seconds >= 0"),
        ({"reserve": float("nan")}, "reserve must be a number"),
        ({"per_move": 0}, "a delay needs a per-move time above zero"),
        ({"bonus": Bonus.NONE}, "per_move is set but the bonus kind is 'none'"),
        ({"kind": Kind.CORRESPONDENCE, "per_move": 0, "bonus": Bonus.NONE}, "needs a per-move allowance"),
        ({"match_length": 0}, "match_length must be at least 1"),
        ({"reserve": 0, "bonus": Bonus.BRONSTEIN}, "every move would lose on time"),
    ],
)
def test_impossible_time_controls_are_refused_with_the_reason(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = {
        "name": "fast",
        "display_name": "Fast",
        "kind": Kind.CLOCK,
        "bonus": Bonus.DELAY,
        "per_move": 5,
        "reserve": 60,
    }
    with pytest.raises(TimeControlError, match=message):
        TimeControl(**{**base, **fields})  # type: ignore[arg-type]


def test_kinds_and_bonuses_may_be_given_as_their_names() -> None:
    tc = TimeControl("fast", "Fast", "clock", "increment", per_move=2, reserve=60)  # type: ignore[arg-type]
    assert tc.kind is Kind.CLOCK and tc.bonus is Bonus.INCREMENT
    with pytest.raises(ValueError):
        TimeControl("fast", "Fast", "sundial", per_move=2, reserve=60)  # type: ignore[arg-type]
