"""Match clocks as stored data: who is thinking since when, and how much reserve each side has left.

The arithmetic of a move (delay, increment, expiry) is the engine's :class:`engine.timecontrol.TimeControl`;
this module keeps the running state between actions and turns it into deadlines, all from timestamps
passed in (the service and scheduler own the wall clock).

Whose clock runs is the side that must act (``MatchState.turn``): the roller before and after rolling, the
responder to a double or a resignation. Between games and during the opening roll no clock runs (the
opening roll is thrown automatically when nobody throws it within one move's allowance). Time a player
spends on declared vacation is never charged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.match import MatchState, Phase
from engine.timecontrol import TimeControl

__all__ = ["Clock", "start_clock", "advance", "deadline", "overlap", "REMINDER_FRACTIONS"]

#: Reminders go out when this share of the time allowed for the move has passed.
REMINDER_FRACTIONS = (0.5, 0.9)


@dataclass(frozen=True)
class Clock:
    """The clocks of one match: each side's reserve, and whose clock runs since when."""

    reserve: tuple[float, float]
    running: int | None = None
    since: float | None = None

    def to_data(self) -> dict[str, Any]:
        return {"reserve": list(self.reserve), "running": self.running, "since": self.since}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Clock:
        r = data["reserve"]
        return cls((float(r[0]), float(r[1])), data.get("running"), data.get("since"))


def overlap(start: float, end: float, intervals: Sequence[tuple[float, float]]) -> float:
    """Seconds of ``[start, end]`` covered by the (possibly overlapping) ``intervals``."""
    total = 0.0
    cursor = start
    for a, b in sorted(intervals):
        a, b = max(a, cursor), min(b, end)
        if b > a:
            total += b - a
            cursor = b
    return total


def _runner(state: MatchState) -> int | None:
    if state.over or state.phase is Phase.OPENING:
        return None
    return state.turn


def start_clock(tc: TimeControl, state: MatchState, now: float) -> Clock:
    """The clocks at the start of a match."""
    reserve = tc.starting_reserve(state.options.length or 0, state.score)
    runner = _runner(state)
    return Clock((reserve, reserve), runner, now if runner is not None else None)


def advance(
    tc: TimeControl,
    clock: Clock,
    after: MatchState,
    now: float,
    vacations: Mapping[int, Sequence[tuple[float, float]]] | None = None,
) -> Clock:
    """The clocks after an action at ``now`` that led to ``after``: charge the side that was thinking, switch.

    Correspondence reserves (the bank) carry over between games; a match clock's reserve is the whole match's.
    """
    reserve = list(clock.reserve)
    if clock.running is not None and clock.since is not None:
        side = clock.running
        taken = max(0.0, now - clock.since - overlap(clock.since, now, (vacations or {}).get(side, ())))
        reserve[side] = max(0.0, tc.remaining(reserve[side], taken))
    runner = _runner(after)
    if runner == clock.running and clock.running is not None and runner is not None and clock.since is not None:
        # The same side acts again (a roll, then the play): one move, one allowance, the clock keeps running.
        return Clock(clock.reserve, runner, clock.since)
    return Clock((reserve[0], reserve[1]), runner, now if runner is not None else None)


def deadline(tc: TimeControl, clock: Clock, vacations: Sequence[tuple[float, float]] = ()) -> float | None:
    """When the running side's flag falls (None when no clock runs), pushed back by vacations that begin."""
    if clock.running is None or clock.since is None:
        return None
    due = clock.since + tc.time_allowed(clock.reserve[clock.running])
    # Vacation time is not charged: every vacation overlapping the thinking time moves the flag back.
    for a, b in sorted(vacations):
        if b <= clock.since or a >= due:
            continue
        due += b - max(a, clock.since)
    return due


def reminder_times(tc: TimeControl, clock: Clock, due: float) -> list[float]:
    """When to remind the running side: at each of :data:`REMINDER_FRACTIONS` of the time allowed."""
    if clock.since is None:
        return []
    span = due - clock.since
    return [clock.since + f * span for f in REMINDER_FRACTIONS if span > 0]


def paused(clock: Clock) -> Clock:
    return replace(clock, running=None, since=None)
