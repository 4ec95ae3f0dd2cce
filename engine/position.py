"""Positions: immutable board values seen from the player on roll.

A :class:`Position` is always written in the frame of the player on roll ("the roller"):
``board[i]`` is the roller's point ``i + 1`` in the roller's own numbering (the roller moves from 24 down
to 1 and bears off from points 1..6). Positive counts are the roller's checkers, negative counts the
opponent's checkers on that same point. ``bar``, ``off`` and ``reserve`` are ``(roller, opponent)`` pairs.

Two kinds of state exist only in some rule sets and are zero elsewhere:

* **pins** (Plakoto): a checker landed on a lone opposing checker pins it in place. ``board[i]`` counts only
  the checkers on top; ``pinned[i]`` is ``+1`` when one of the roller's checkers lies pinned under the
  opponent's there, ``-1`` when an opposing checker lies pinned under the roller's, else ``0`` (so a pin has
  the opposite sign of ``board[i]``). Internally one bit per point (:attr:`Position.pins`): whose checker is
  pinned follows from who is on top.
* **reserve**: checkers that have not entered the board yet (an off-board start, as in Acey-deucey); they are
  neither on the bar nor borne off.

This is the frame of the legal-play reference data (``shared/oracle/README.md``, ``pinned`` and ``reserve``
included), so a position converts to and from an oracle row without arithmetic. How the opponent numbers the
same points is a property of the rule set (its :class:`~engine.geometry.Geometry`), not of the position.

The one-line text form lists the occupied points, highest first, then the bar, borne-off and reserve checkers
when there are any; a ``p`` after a count says one checker of the other side lies pinned under that stack::

    24:2 19:-5 17:-3 13:5 12:-5 8:3 6:5 1:-2
    25:1 20:-2 6:4 bar:1/0 off:9/3
    24:13 20:-1p 9:1p 1:-12 in:0/2

``Position.parse(str(p)) == p`` and ``repr(p)`` pastes back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .i18n import _

__all__ = [
    "POINTS",
    "BAR",
    "OFF",
    "THEIR_BAR",
    "THEIR_OFF",
    "PINS",
    "RESERVE",
    "THEIR_RESERVE",
    "SLOTS",
    "pip_point",
    "Position",
    "PositionError",
]

POINTS = 24
#: Submove code for the bar, in the mover's numbering (GNU Backgammon writes 25 in .mat files).
BAR = 25
#: Submove code for bearing off.
OFF = 0
# Slots of a position's internal tuple (also the engine's working board, see Position): 0 my borne-off checkers,
# 1..24 the points, 25 my bar, then these.
#: The opponent's checkers on the bar.
THEIR_BAR = 26
#: The opponent's borne-off checkers.
THEIR_OFF = 27
#: The pin bits: bit ``p`` set when a checker lies pinned on point ``p`` under the other side's stack.
PINS = 28
#: My checkers not yet entered (an off-board start).
RESERVE = 29
#: The opponent's checkers not yet entered.
THEIR_RESERVE = 30
#: Length of the internal tuple.
SLOTS = 31


def pip_point(point: int) -> int:
    """The point a submove's pips are counted from: a checker in the reserve (slot :data:`RESERVE`, written ``in``)
    enters as a checker on the bar does, on point 25 − die, so its pips count from the bar (25)."""
    return BAR if point == RESERVE else point


class PositionError(ValueError):
    """A position (text, frame, ID) that cannot describe a real board."""


_TOKEN = re.compile(r"^(?:(\d{1,2}):(-?\d{1,2})(p?)|(bar|off|in):(\d{1,2})/(\d{1,2}))$")


class Position:
    """A board in the frame of the player on roll. Immutable; equal boards compare and hash equal.

    ``Position(board, bar=(0, 0), off=(0, 0), *, pinned=None, reserve=(0, 0))`` with ``board`` 24 signed counts
    and ``pinned`` 24 values of +1, -1 or 0 (see the module docstring). Internally one tuple of :data:`SLOTS`
    ints: ``raw = (my off, points 1..24, my bar, their bar, their off, pin bits, my reserve, their reserve)``.
    A copy of it as a list is the engine's working board (``Variant.make_submove`` changes it in place), so the
    engine builds positions without copying.
    """

    __slots__ = ("_raw",)
    _raw: tuple[int, ...]

    def __init__(
        self,
        board: Sequence[int],
        bar: Sequence[int] = (0, 0),
        off: Sequence[int] = (0, 0),
        *,
        pinned: Sequence[int] | None = None,
        reserve: Sequence[int] = (0, 0),
    ) -> None:
        if len(board) != POINTS:
            raise PositionError(f"a board has {POINTS} points, got {len(board)}")
        if len(bar) != 2 or len(off) != 2 or len(reserve) != 2:
            raise PositionError("bar, off and reserve are (roller, opponent) pairs")
        if min(bar) < 0 or min(off) < 0 or min(reserve) < 0:
            raise PositionError("bar, off and reserve counts cannot be negative")
        pins = 0
        if pinned is not None:
            if len(pinned) != POINTS:
                raise PositionError(f"pinned has {POINTS} entries, got {len(pinned)}")
            for i, (v, pin) in enumerate(zip(board, pinned)):
                if pin not in (-1, 0, 1):
                    raise PositionError(f"pinned[{i}] is +1, -1 or 0, not {pin!r}")
                if pin:
                    if v * pin >= 0:
                        raise PositionError(
                            _("a checker pinned on point {point} needs the other side's checkers on top of it").format(
                                point=i + 1
                            )
                        )
                    pins |= 1 << (i + 1)
        raw = (int(off[0]), *(int(v) for v in board), int(bar[0]), int(bar[1]), int(off[1]))
        _set(self, "_raw", (*raw, pins, int(reserve[0]), int(reserve[1])))

    @classmethod
    def trusted(cls, raw: tuple[int, ...]) -> Position:
        """Build from the internal tuple without checks (values the engine has just computed)."""
        self = object.__new__(cls)
        _set(self, "_raw", raw)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._raw == other._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __reduce__(self) -> tuple[object, ...]:
        return (Position.trusted, (self._raw,))

    @property
    def board(self) -> tuple[int, ...]:
        """24 signed counts: ``board[i]`` is the roller's point ``i + 1`` (positive: the roller's checkers on top)."""
        return self._raw[1:25]

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (roller, opponent)."""
        return (self._raw[25], self._raw[THEIR_BAR])

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off: (roller, opponent)."""
        return (self._raw[0], self._raw[THEIR_OFF])

    @property
    def reserve(self) -> tuple[int, int]:
        """Checkers not yet entered (an off-board start): (roller, opponent)."""
        return (self._raw[RESERVE], self._raw[THEIR_RESERVE])

    @property
    def pins(self) -> int:
        """The pin bits: bit ``p`` is set when a checker lies pinned on point ``p`` (0 when nothing is pinned)."""
        return self._raw[PINS]

    @property
    def pinned(self) -> tuple[int, ...]:
        """24 values: ``+1`` where one of the roller's checkers is pinned, ``-1`` where an opposing one is, else 0."""
        pins = self._raw[PINS]
        if not pins:
            return (0,) * POINTS
        raw = self._raw
        return tuple((-1 if raw[p] > 0 else 1) if pins >> p & 1 else 0 for p in range(1, POINTS + 1))

    def is_pinned(self, point: int) -> bool:
        """Whether a checker lies pinned on ``point`` (1..24), under the other side's stack."""
        return bool(self._raw[PINS] >> point & 1)

    @classmethod
    def from_points(
        cls,
        mine: Mapping[int, int],
        theirs: Mapping[int, int] | None = None,
        *,
        bar: tuple[int, int] = (0, 0),
        off: tuple[int, int] = (0, 0),
    ) -> Position:
        """Build from ``{point: count}`` maps, both in the roller's numbering (``theirs`` positive)."""
        board = [0] * POINTS
        for point, n in mine.items():
            _check_point(point)
            board[point - 1] += n
        for point, n in (theirs or {}).items():
            _check_point(point)
            if board[point - 1] and n:
                raise PositionError(_("point {point} holds checkers of both players").format(point=point))
            board[point - 1] -= n
        return cls(board, bar, off)

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read the one-line text form (see the module docstring)."""
        board = [0] * POINTS
        pinned = [0] * POINTS
        pairs = {"bar": (0, 0), "off": (0, 0), "in": (0, 0)}
        for token in text.replace(",", " ").split():
            m = _TOKEN.match(token.strip().lower())
            if not m:
                raise PositionError(
                    _("cannot read {text}: expected POINT:COUNT, bar:M/T, off:M/T or in:M/T").format(text=repr(token))
                )
            if m.group(1):
                point = int(m.group(1))
                _check_point(point)
                board[point - 1] = v = int(m.group(2))
                if m.group(3):
                    pinned[point - 1] = -1 if v > 0 else 1
            else:
                pairs[m.group(4)] = (int(m.group(5)), int(m.group(6)))
        return cls(tuple(board), pairs["bar"], pairs["off"], pinned=pinned, reserve=pairs["in"])

    @classmethod
    def from_frame(cls, frame: Mapping[str, Any]) -> Position:
        """Read the oracle frame ``{"board": [24 ints], "bar": [m, t], "off": [m, t]}`` (``"pinned"`` and
        ``"reserve"`` too where the rule set has them)."""
        try:
            board = tuple(int(v) for v in frame["board"])
            bar = tuple(int(v) for v in frame.get("bar", (0, 0)))
            off = tuple(int(v) for v in frame.get("off", (0, 0)))
            pinned = frame.get("pinned")
            pins = None if pinned is None else tuple(int(v) for v in pinned)
            reserve = tuple(int(v) for v in frame.get("reserve", (0, 0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise PositionError(f"not a position frame: {exc}") from None
        return cls(board, bar, off, pinned=pins, reserve=reserve)

    # --- views --------------------------------------------------------------------------------
    def to_frame(self, *, pinned: bool = False, reserve: bool = False) -> dict[str, list[int]]:
        """The oracle frame (JSON-ready); ``pinned`` and ``reserve`` are written when they are not zero, or when
        asked for (the rows of a rule set that has them carry them always)."""
        frame = {"board": list(self.board), "bar": list(self.bar), "off": list(self.off)}
        if pinned or self._raw[PINS]:
            frame["pinned"] = list(self.pinned)
        if reserve or any(self.reserve):
            frame["reserve"] = list(self.reserve)
        return frame

    def __str__(self) -> str:
        raw = self._raw
        pins = raw[PINS]
        parts = [f"{p}:{raw[p]}{'p' if pins >> p & 1 else ''}" for p in range(POINTS, 0, -1) if raw[p]]
        if any(self.bar):
            parts.append(f"bar:{self.bar[0]}/{self.bar[1]}")
        if any(self.off):
            parts.append(f"off:{self.off[0]}/{self.off[1]}")
        if any(self.reserve):
            parts.append(f"in:{self.reserve[0]}/{self.reserve[1]}")
        return " ".join(parts) if parts else "empty"

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    def mine(self, point: int) -> int:
        """How many of the roller's checkers stand on top on the roller's ``point`` (1..24, or 25 = bar)."""
        if point == BAR:
            return self.bar[0]
        v = self.board[point - 1]
        return v if v > 0 else 0

    def theirs(self, point: int) -> int:
        """How many opposing checkers stand on top on the roller's ``point`` (1..24)."""
        v = self.board[point - 1]
        return -v if v < 0 else 0

    def checkers(self) -> tuple[int, int]:
        """Checkers on the board (pinned ones included) and on the bar for (roller, opponent)."""
        raw = self._raw
        mine = sum(v for v in raw[1:25] if v > 0) + raw[25]
        theirs = -sum(v for v in raw[1:25] if v < 0) + raw[THEIR_BAR]
        pins = raw[PINS]
        if pins:
            for p in range(1, POINTS + 1):
                if pins >> p & 1:
                    if raw[p] > 0:
                        theirs += 1
                    else:
                        mine += 1
        return mine, theirs

    def totals(self) -> tuple[int, int]:
        """All checkers, borne off and not yet entered included, for (roller, opponent)."""
        on = self.checkers()
        raw = self._raw
        return on[0] + raw[0] + raw[RESERVE], on[1] + raw[THEIR_OFF] + raw[THEIR_RESERVE]

    def key(self) -> tuple[int, ...]:
        """A compact hashable identity (used to compare plays by their resulting positions): the internal tuple."""
        return self._raw


_set = object.__setattr__


def _check_point(point: int) -> None:
    if not 1 <= point <= POINTS:
        raise PositionError(_("point {point} is off the board (points are 1..{last})").format(point=point, last=POINTS))
