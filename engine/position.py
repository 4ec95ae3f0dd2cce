"""Positions: immutable board values seen from the player on roll.

A :class:`Position` is always written in the frame of the player on roll ("the roller"):
``board[i]`` is the roller's point ``i + 1`` in the roller's own numbering (the roller moves from 24 down
to 1 and bears off from points 1..6). Positive counts are the roller's checkers, negative counts the
opponent's checkers on that same point. ``bar`` and ``off`` are ``(roller, opponent)`` pairs.

This is the frame of the legal-play reference data (``shared/oracle/README.md``), so a position converts
to and from an oracle row without arithmetic. How the opponent numbers the same points is a property of
the rule set (its :class:`~engine.geometry.Geometry`), not of the position.

The one-line text form lists the occupied points, highest first, then the bar and borne-off checkers
when there are any::

    24:2 19:-5 17:-3 13:5 12:-5 8:3 6:5 1:-2
    25:1 20:-2 6:4 bar:1/0 off:9/3

``Position.parse(str(p)) == p`` and ``repr(p)`` pastes back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["POINTS", "BAR", "OFF", "Position", "PositionError"]

POINTS = 24
#: Submove code for the bar, in the mover's numbering (GNU Backgammon writes 25 in .mat files).
BAR = 25
#: Submove code for bearing off.
OFF = 0


class PositionError(ValueError):
    """A position (text, frame, ID) that cannot describe a real board."""


_TOKEN = re.compile(r"^(?:(\d{1,2}):(-?\d{1,2})|(bar|off):(\d{1,2})/(\d{1,2}))$")


class Position:
    """A board in the frame of the player on roll. Immutable; equal boards compare and hash equal.

    ``Position(board, bar=(0, 0), off=(0, 0))`` with ``board`` 24 signed counts. Internally one tuple
    ``raw = (my off, points 1..24, my bar, their bar, their off)`` whose first 26 entries are the legal-play
    generator's working board, so the engine builds positions without copying.
    """

    __slots__ = ("_raw",)
    _raw: tuple[int, ...]

    def __init__(self, board: Sequence[int], bar: Sequence[int] = (0, 0), off: Sequence[int] = (0, 0)) -> None:
        if len(board) != POINTS:
            raise PositionError(f"a board has {POINTS} points, got {len(board)}")
        if len(bar) != 2 or len(off) != 2:
            raise PositionError("bar and off are (roller, opponent) pairs")
        if min(bar) < 0 or min(off) < 0:
            raise PositionError("bar and off counts cannot be negative")
        _set(self, "_raw", (int(off[0]), *(int(v) for v in board), int(bar[0]), int(bar[1]), int(off[1])))

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
        return (Position, (self.board, self.bar, self.off))

    @property
    def board(self) -> tuple[int, ...]:
        """24 signed counts: ``board[i]`` is the roller's point ``i + 1`` (positive: the roller's checkers)."""
        return self._raw[1:25]

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (roller, opponent)."""
        return (self._raw[25], self._raw[26])

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off: (roller, opponent)."""
        return (self._raw[0], self._raw[27])

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
                raise PositionError(f"point {point} holds checkers of both players")
            board[point - 1] -= n
        return cls(board, bar, off)

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read the one-line text form (see the module docstring)."""
        board = [0] * POINTS
        bar = (0, 0)
        off = (0, 0)
        for token in text.replace(",", " ").split():
            m = _TOKEN.match(token.strip().lower())
            if not m:
                raise PositionError(f"cannot read {token!r}: expected POINT:COUNT, bar:M/T or off:M/T")
            if m.group(1):
                point = int(m.group(1))
                _check_point(point)
                board[point - 1] = int(m.group(2))
            elif m.group(3) == "bar":
                bar = (int(m.group(4)), int(m.group(5)))
            else:
                off = (int(m.group(4)), int(m.group(5)))
        return cls(tuple(board), bar, off)

    @classmethod
    def from_frame(cls, frame: Mapping[str, Any]) -> Position:
        """Read the oracle frame ``{"board": [24 ints], "bar": [m, t], "off": [m, t]}``."""
        try:
            board = tuple(int(v) for v in frame["board"])
            bar = tuple(int(v) for v in frame.get("bar", (0, 0)))
            off = tuple(int(v) for v in frame.get("off", (0, 0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise PositionError(f"not a position frame: {exc}") from None
        return cls(board, bar, off)  # type: ignore[arg-type]

    # --- views --------------------------------------------------------------------------------
    def to_frame(self) -> dict[str, list[int]]:
        """The oracle frame (JSON-ready)."""
        return {"board": list(self.board), "bar": list(self.bar), "off": list(self.off)}

    def __str__(self) -> str:
        parts = [f"{p}:{self.board[p - 1]}" for p in range(POINTS, 0, -1) if self.board[p - 1]]
        if any(self.bar):
            parts.append(f"bar:{self.bar[0]}/{self.bar[1]}")
        if any(self.off):
            parts.append(f"off:{self.off[0]}/{self.off[1]}")
        return " ".join(parts) if parts else "empty"

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    def mine(self, point: int) -> int:
        """How many of the roller's checkers stand on the roller's ``point`` (1..24, or 25 = bar)."""
        if point == BAR:
            return self.bar[0]
        v = self.board[point - 1]
        return v if v > 0 else 0

    def theirs(self, point: int) -> int:
        """How many opposing checkers stand on the roller's ``point`` (1..24)."""
        v = self.board[point - 1]
        return -v if v < 0 else 0

    def checkers(self) -> tuple[int, int]:
        """Checkers still in play (board and bar) for (roller, opponent)."""
        mine = sum(v for v in self.board if v > 0) + self.bar[0]
        theirs = -sum(v for v in self.board if v < 0) + self.bar[1]
        return mine, theirs

    def totals(self) -> tuple[int, int]:
        """All checkers, borne off included, for (roller, opponent)."""
        on = self.checkers()
        return on[0] + self.off[0], on[1] + self.off[1]

    def key(self) -> tuple[int, ...]:
        """A compact hashable identity (used to compare plays by their resulting positions)."""
        return self._raw


_set = object.__setattr__


def _check_point(point: int) -> None:
    if not 1 <= point <= POINTS:
        raise PositionError(f"point {point} is off the board (points are 1..{POINTS})")
