"""How the two players' numberings of the 24 points relate: a property of the rule set, as data.

Every player numbers the points 1..24 along their own route and bears off from 1..6. In a mirrored
geometry (backgammon) the opponent's point ``q`` is my point ``25 - q``: we move towards each other.
In a rotated geometry (long nardy) the opponent's route is mine shifted by half the board: both move the
same way round.
"""

from __future__ import annotations

from dataclasses import dataclass

from .position import BAR, OFF, PINS, POINTS, RESERVE, THEIR_BAR, THEIR_OFF, THEIR_RESERVE, Position

__all__ = ["Geometry"]


@dataclass(frozen=True, slots=True)
class Geometry:
    """The map between my point numbers and the opponent's, and whether a bar exists."""

    #: ``opposite[p]`` is the opponent's number for my point ``p`` (index 0 unused).
    opposite: tuple[int, ...]
    #: True when hit checkers go to a bar and re-enter in the opponent's home board.
    has_bar: bool = True
    #: A short description for documentation and renderers ("mirrored", "rotated by 12").
    kind: str = "mirrored"

    def __post_init__(self) -> None:
        # Seen from either side the relation must be the same, so the map must undo itself: their q is my p
        # exactly when my p is their q. (Mirroring and a half-board rotation are; a rotation by 6 is not.)
        points = range(1, POINTS + 1)
        if len(self.opposite) != POINTS + 1 or sorted(self.opposite[1:]) != list(points):
            raise ValueError("a geometry maps each of the 24 points to a distinct point")
        if any(self.opposite[self.opposite[p]] != p for p in points):
            raise ValueError("a geometry's point map must undo itself (mirror, or rotation by 12)")

    @classmethod
    def mirrored(cls) -> Geometry:
        """Players move towards each other: their point q is my point 25 - q."""
        return cls(tuple([0] + [POINTS + 1 - p for p in range(1, POINTS + 1)]), True, "mirrored")

    @classmethod
    def rotated(cls, by: int = 12, *, has_bar: bool = False) -> Geometry:
        """Both players move the same way round: their numbering is mine shifted by ``by`` points."""
        return cls(
            tuple([0] + [((p + by - 1) % POINTS) + 1 for p in range(1, POINTS + 1)]), has_bar, f"rotated by {by}"
        )

    def their_point(self, mine: int) -> int:
        """The opponent's number for my point ``mine``."""
        return self.opposite[mine]

    def my_point(self, theirs: int) -> int:
        """My number for the opponent's point ``theirs``."""
        return self.opposite.index(theirs)

    def flip(self, pos: Position) -> Position:
        """The same board seen by the other player (the turn passes); pins and the reserve go along."""
        raw = pos.key()
        opposite = self.opposite
        board = [0] * (POINTS + 1)
        for mine in range(1, POINTS + 1):
            v = raw[mine]
            if v:
                board[opposite[mine]] = -v
        pins = raw[PINS]
        if pins:
            pins = sum(1 << opposite[p] for p in range(1, POINTS + 1) if pins >> p & 1)
        return Position.trusted(
            (raw[THEIR_OFF], *board[1:], raw[THEIR_BAR], raw[BAR], raw[OFF], pins, raw[THEIR_RESERVE], raw[RESERVE])
        )

    def pips(self, pos: Position) -> tuple[int, int]:
        """Pip counts (roller, opponent): the distance every checker still has to travel (from the bar or the
        reserve, 25; a pinned checker from where it lies)."""
        raw = pos.key()
        mine = BAR * (raw[BAR] + raw[RESERVE])
        theirs = BAR * (raw[THEIR_BAR] + raw[THEIR_RESERVE])
        pins = raw[PINS]
        for p in range(1, POINTS + 1):
            v = raw[p]
            if v > 0:
                mine += v * p
                if pins >> p & 1:
                    theirs += self.opposite[p]
            elif v < 0:
                theirs -= v * self.opposite[p]
                if pins >> p & 1:
                    mine += p
        return mine, theirs
