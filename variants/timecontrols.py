"""The built-in time-control presets (rules.md §5.2), registered like any plugin's.

Blitz is not a rule set of its own: Backgammon Blitz and Longgammon Blitz are these presets on the
backgammon and Longgammon rule sets. Sources and the choices made where they are silent:

* The IBF's own Backgammon, Backgammon Blitz and Longgammon Blitz controls could not be found
  (rules.md §5.2 [U]). The Blitz presets use the Russian federation's (FNR) blitz events instead:
  short-nardy (backgammon) blitz, 5-point matches with 2 minutes + 10 s; long-nardy blitz, 3-point
  matches with 1 minute + 10 s. Their reserves are for the whole match, as the events state them.
* Whether the FNR's "+8 s" / "+10 s" is a delay or an increment is not stated ([U], rules.md §8.2). The
  presets use a simple delay, the backgammon clock rules' choice since 2013; ``preset.with_bonus("increment")``
  gives the other reading.
* The correspondence default (one day per move, then a three-day bank, simple-delay arithmetic) follows the
  recommendation of rules.md §5.7; DailyGammon's own numbers could not be retrieved.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.i18n import N_
from engine.plugins import hookimpl
from engine.timecontrol import Bonus, Kind, TimeControl

__all__ = ["PRESETS"]

MINUTE = 60.0
DAY = 86400.0

PRESETS: tuple[TimeControl, ...] = (
    TimeControl(
        name="backgammon-blitz",
        display_name=N_("Backgammon Blitz"),
        kind=Kind.CLOCK,
        bonus=Bonus.DELAY,
        per_move=10,
        reserve=2 * MINUTE,
        match_length=5,
        variants=("backgammon",),
        aliases=("blitz", "bg-blitz"),
        summary=N_("2 minutes for the whole 5-point match and a 10-second delay each move (FNR short-nardy blitz)."),
    ),
    TimeControl(
        name="longgammon-blitz",
        display_name=N_("Longgammon Blitz"),
        kind=Kind.CLOCK,
        bonus=Bonus.DELAY,
        per_move=10,
        reserve=1 * MINUTE,
        match_length=3,
        variants=("longgammon",),
        aliases=("long-blitz",),
        summary=N_("1 minute for the whole 3-point match and a 10-second delay each move (FNR long-nardy blitz)."),
    ),
    TimeControl(
        name="tournament-clock",
        display_name=N_("Tournament clock"),
        kind=Kind.CLOCK,
        bonus=Bonus.DELAY,
        per_move=12,
        reserve_per_point=2 * MINUTE,
        reserve_less_per_point_scored=1 * MINUTE,
        aliases=("us-clock", "usbgf", "ukbgf", "clock"),
        summary=N_(
            "2 minutes per match point, less 1 minute per point already scored by either player, and a "
            "12-second delay each move (US Backgammon Clock Rules 2013; UKBGF, Biba)."
        ),
    ),
    TimeControl(
        name="doubles-clock",
        display_name=N_("Doubles clock"),
        kind=Kind.CLOCK,
        bonus=Bonus.DELAY,
        per_move=18,
        reserve_per_point=2.5 * MINUTE,
        reserve_less_per_point_scored=1.25 * MINUTE,
        variants=("doubles",),
        aliases=("team-clock",),
        summary=N_(
            "2.5 minutes per match point, less 1.25 minutes per point already scored, and an 18-second delay "
            "each move, for team play (US Backgammon Clock Rules 2013)."
        ),
    ),
    TimeControl(
        name="no-delay-clock",
        display_name=N_("Standard clock without delay"),
        kind=Kind.CLOCK,
        bonus=Bonus.NONE,
        reserve_per_point=6 * MINUTE,
        aliases=("unified-clock",),
        summary=N_("6 minutes per match point and no delay (Unified clock rules, ABA 2003)."),
    ),
    TimeControl(
        name="fnr-short-nardy",
        display_name=N_("FNR short nardy"),
        kind=Kind.CLOCK,
        bonus=Bonus.DELAY,
        per_move=8,
        reserve=18 * MINUTE,
        match_length=9,
        variants=("backgammon",),
        summary=N_("18 minutes for a 9-point match and 8 seconds each move (Russian federation events, 2025)."),
    ),
    TimeControl(
        name="fnr-long-nardy",
        display_name=N_("FNR long nardy"),
        kind=Kind.CLOCK,
        bonus=Bonus.DELAY,
        per_move=8,
        reserve=14 * MINUTE,
        match_length=7,
        variants=("longgammon",),
        summary=N_("14 minutes for a 7-point match and 8 seconds each move (Russian federation events, 2025)."),
    ),
    TimeControl(
        name="correspondence",
        display_name=N_("Correspondence"),
        kind=Kind.CORRESPONDENCE,
        bonus=Bonus.DELAY,
        per_move=1 * DAY,
        reserve=3 * DAY,
        aliases=("daily", "async"),
        summary=N_("A day for each move; a slower move draws the extra time from a three-day bank for the match."),
    ),
)


@hookimpl
def register_time_controls(register: Callable[[TimeControl], None]) -> None:
    for preset in PRESETS:
        register(preset)
