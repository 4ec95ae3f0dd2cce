"""Time controls: how much time a player has to think, as pure data and arithmetic (rules.md §5).

A :class:`TimeControl` is a frozen value; plugins register named presets through the
``register_time_controls`` hook (Backgammon Blitz, the US tournament clock, a correspondence default...).
Nothing here reads the wall clock: callers pass in how long a move took, and the scheduler (issue 8)
turns allowances into deadlines from timestamps it already has.

Two kinds of control share the same arithmetic:

* :attr:`Kind.CLOCK` — a reserve for the whole match, set from the match length (for example "2 minutes
  per point, less 1 minute per point already scored by either player"), plus a per-move delay or
  increment. Over-the-board and Blitz play.
* :attr:`Kind.CORRESPONDENCE` — asynchronous play: a per-move allowance (say a day) and a bank of extra
  time for the match (say three days). It is the clock's simple delay on a coarser scale: a move within
  the allowance costs nothing, a slower one draws the excess from the bank (rules.md §5.7).

How the per-move time ``δ`` works (rules.md §5.1; ``R`` the reserve, ``t`` the time the move took):

* :attr:`Bonus.DELAY` (simple or US delay): ``R' = R - max(0, t - δ)``; unused delay is lost. The flag
  falls when ``t > R + δ``.
* :attr:`Bonus.BRONSTEIN`: the clock runs from the start and ``min(t, δ)`` is credited back afterwards, so
  ``R'`` equals the simple-delay result, but the flag falls when ``t > R``.
* :attr:`Bonus.INCREMENT` (Fischer): ``R' = R - t + δ``; unused time accumulates. The flag falls when
  ``t > R``.
* :attr:`Bonus.NONE`: ``R' = R - t``; the flag falls when ``t > R``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from enum import StrEnum

from . import i18n
from .i18n import _, ngettext, pgettext

__all__ = ["Bonus", "Kind", "TimeControl", "TimeControlError"]


class TimeControlError(ValueError):
    """A time control whose numbers cannot work (negative times, a delay kind without a delay...)."""


class Kind(StrEnum):
    """Whether the control is a match clock or asynchronous (correspondence) play."""

    CLOCK = "clock"
    CORRESPONDENCE = "correspondence"


class Bonus(StrEnum):
    """What the per-move time does (see the module docstring for the arithmetic)."""

    NONE = "none"
    DELAY = "delay"
    BRONSTEIN = "bronstein"
    INCREMENT = "increment"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A named time control. All times are in seconds.

    The reserve at the start of a match of ``L`` points at score ``(a, b)`` is
    ``reserve + reserve_per_point * L - reserve_less_per_point_scored * (a + b)``, never below zero.
    """

    #: Unique lower-case name used in commands and storage.
    name: str
    #: Name shown to players.
    display_name: str
    #: Match clock or correspondence play.
    kind: Kind
    #: What the per-move time does.
    bonus: Bonus = Bonus.DELAY
    #: The per-move delay, increment or allowance ``δ``.
    per_move: float = 0.0
    #: The fixed part of the reserve (for correspondence play: the bank).
    reserve: float = 0.0
    #: Reserve added per point of the match length.
    reserve_per_point: float = 0.0
    #: Reserve taken away per point already scored by either player (resuming a match).
    reserve_less_per_point_scored: float = 0.0
    #: The match length the preset is made for (Blitz events fix it), or None for any length.
    match_length: int | None = None
    #: Rule sets the preset is meant for (names), empty for any.
    variants: tuple[str, ...] = ()
    #: Other names players may type.
    aliases: tuple[str, ...] = ()
    #: One line for players: where the numbers come from and what they mean.
    summary: str = ""

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.strip().lower() or " " in self.name:
            raise TimeControlError(
                _("a time control needs a lower-case name without spaces, not {name}").format(name=repr(self.name))
            )
        object.__setattr__(self, "kind", Kind(self.kind))
        object.__setattr__(self, "bonus", Bonus(self.bonus))
        for field in ("per_move", "reserve", "reserve_per_point", "reserve_less_per_point_scored"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise TimeControlError(
                    _("time control {name}: {field} must be a number of seconds >= 0").format(
                        name=repr(self.name), field=field
                    )
                )
        if self.bonus is not Bonus.NONE and self.per_move <= 0:
            raise TimeControlError(
                _("time control {name}: a {bonus} needs a per-move time above zero").format(
                    name=repr(self.name), bonus=self.bonus.value
                )
            )
        if self.bonus is Bonus.NONE and self.per_move:
            raise TimeControlError(
                _("time control {name}: per_move is set but the bonus kind is 'none'").format(name=repr(self.name))
            )
        if self.kind is Kind.CORRESPONDENCE and self.per_move <= 0:
            raise TimeControlError(
                _("time control {name}: correspondence play needs a per-move allowance").format(name=repr(self.name))
            )
        if self.match_length is not None and (isinstance(self.match_length, bool) or self.match_length < 1):
            raise TimeControlError(
                _("time control {name}: match_length must be at least 1 point").format(name=repr(self.name))
            )
        if self.reserve == 0 and self.reserve_per_point == 0 and self.bonus in (Bonus.NONE, Bonus.BRONSTEIN):
            raise TimeControlError(
                _("time control {name}: no reserve, so every move would lose on time").format(name=repr(self.name))
            )
        object.__setattr__(self, "variants", tuple(self.variants))
        object.__setattr__(self, "aliases", tuple(a.lower() for a in self.aliases))

    # --- the arithmetic of rules.md §5.1 ------------------------------------------------------------
    def starting_reserve(self, match_length: int | None = None, score: tuple[int, int] = (0, 0)) -> float:
        """Each player's reserve at the start of a match of ``match_length`` points at ``score``.

        ``match_length`` defaults to the preset's own; 0 (money play) counts no points.
        """
        length = self.match_length if match_length is None else match_length
        if length is None:
            if self.reserve_per_point:
                raise TimeControlError(
                    _("{clock} sets its reserve per match point: give the match length").format(
                        clock=_(self.display_name) if self.display_name else self.name
                    )
                )
            length = 0
        if length < 0 or min(score) < 0:
            raise TimeControlError(_("match length and score cannot be negative"))
        total = self.reserve + self.reserve_per_point * length - self.reserve_less_per_point_scored * sum(score)
        return max(0.0, float(total))

    def time_allowed(self, reserve: float) -> float:
        """How long the player with ``reserve`` left may take over this move before the flag falls."""
        if self.bonus is Bonus.DELAY:
            return reserve + self.per_move
        return reserve

    def expired(self, reserve: float, taken: float) -> bool:
        """Whether a move that took ``taken`` seconds, begun with ``reserve`` left, ran out of time."""
        return taken > self.time_allowed(reserve)

    def remaining(self, reserve: float, taken: float) -> float:
        """The reserve after a move that took ``taken`` seconds (not checked for expiry: see :meth:`expired`)."""
        if taken < 0:
            raise TimeControlError(_("a move cannot take a negative time"))
        if self.bonus in (Bonus.DELAY, Bonus.BRONSTEIN):
            return reserve - max(0.0, taken - self.per_move)
        if self.bonus is Bonus.INCREMENT:
            return reserve - (taken - self.per_move)
        return reserve - taken

    def with_bonus(self, bonus: Bonus | str) -> TimeControl:
        """The same control with another per-move kind (where a source does not say delay or increment)."""
        return dataclasses.replace(self, bonus=Bonus(bonus))

    def describe(self) -> str:
        """The control in a few words, for players (in the active language): ``2 min per point (less 1 min per point
        scored) + 12 s delay``."""
        parts = []
        if self.reserve:
            parts.append(_duration(self.reserve))
        if self.reserve_per_point:
            if self.reserve_less_per_point_scored:
                parts.append(
                    _("{time} per point (less {less} per point scored)").format(
                        time=_duration(self.reserve_per_point), less=_duration(self.reserve_less_per_point_scored)
                    )
                )
            else:
                parts.append(_("{time} per point").format(time=_duration(self.reserve_per_point)))
        reserve = " + ".join(parts) or _("no reserve")
        per_move = _duration(self.per_move)
        if self.kind is Kind.CORRESPONDENCE:
            text = _("{time} per move, then a bank of {reserve}").format(time=per_move, reserve=reserve)
        elif self.bonus is Bonus.NONE:
            text = _("{reserve}, no delay").format(reserve=reserve)
        elif self.bonus is Bonus.BRONSTEIN:
            text = _("{reserve} + {time} Bronstein delay").format(reserve=reserve, time=per_move)
        elif self.bonus is Bonus.INCREMENT:
            text = _("{reserve} + {time} increment").format(reserve=reserve, time=per_move)
        else:
            text = _("{reserve} + {time} delay").format(reserve=reserve, time=per_move)
        if self.match_length:
            text = _("{clock}, {length}-point matches").format(clock=text, length=self.match_length)
        return text


def _amount(n: float) -> str:
    """A number of time units as the active language writes it (``1.5``; Russian ``1,5``)."""
    digits = len(f"{n:g}".partition(".")[2])
    if "e" in f"{n:g}":
        return f"{n:g}"
    return i18n.decimal(n, digits)


def _duration(seconds: float) -> str:
    """``90`` -> ``1.5 min``, ``86400`` -> ``1 day``, ``12`` -> ``12 s`` (in the active language)."""
    for size, unit in ((86400, "day"), (3600, "h"), (60, "min")):
        if seconds >= size and (seconds / size * 4).is_integer():
            n = seconds / size
            if unit == "day":
                if n.is_integer():
                    return ngettext("{count} day", "{count} days", int(n)).format(count=_amount(n))
                # Translators: a fraction of days, "1.5 days".
                return pgettext("fraction", "{count} days").format(count=_amount(n))
            if unit == "h":
                # Translators: hours, abbreviated.
                return _("{count} h").format(count=_amount(n))
            # Translators: minutes, abbreviated.
            return _("{count} min").format(count=_amount(n))
    # Translators: seconds, abbreviated.
    return _("{count} s").format(count=_amount(seconds))
