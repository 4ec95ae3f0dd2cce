"""GNU Backgammon Position IDs (rules.md §6.2).

The 80-bit key lists, for the player *not* on roll and then for the player on roll, each point 1..24 of
that player's own numbering and then the bar: one 1-bit per checker, then a 0. It is packed least
significant bit first into 10 bytes and written in Base64 without padding (14 characters).

The IDs of a rule set whose geometry is not GNU Backgammon's (``Variant.gnubg_compatible`` false) use
the same bit layout with that rule set's own numbering; they are only meaningful together with the
rule set's name.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

from .position import POINTS, Position, PositionError

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["encode_position_id", "decode_position_id"]


def _sides(variant: Variant, pos: Position) -> tuple[list[int], list[int]]:
    """(not on roll, on roll) checker counts on points 1..24 of each side's own numbering, then the bar."""
    roller = [0] * (POINTS + 1)
    other = [0] * (POINTS + 1)
    geo = variant.geometry
    for p in range(1, POINTS + 1):
        v = pos.board[p - 1]
        if v > 0:
            roller[p - 1] = v
        elif v < 0:
            other[geo.their_point(p) - 1] = -v
    roller[POINTS] = pos.bar[0]
    other[POINTS] = pos.bar[1]
    return other, roller


def encode_position_id(variant: Variant, pos: Position) -> str:
    """The 14-character Position ID of ``pos`` (roller's frame)."""
    bits = 0
    n = 0
    for side in _sides(variant, pos):
        for count in side:
            bits |= ((1 << count) - 1) << n
            n += count + 1
    if n > 80:
        raise PositionError("too many checkers for a Position ID (at most 30 on the board)")
    return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii").rstrip("=")


def decode_position_id(variant: Variant, pid: str) -> Position:
    """The position (roller's frame) a Position ID describes; :class:`PositionError` if it cannot be one."""
    text = pid.strip()
    if len(text) != 14:
        raise PositionError(f"a Position ID has 14 characters, {text!r} has {len(text)}")
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise PositionError(f"{text!r} is not a Position ID: it must use only A-Z, a-z, 0-9, + and /") from None
    bits = int.from_bytes(raw, "little")
    sides: list[list[int]] = []
    n = 0
    for _ in range(2):
        counts = []
        for _slot in range(POINTS + 1):
            c = 0
            while n < 80 and bits >> n & 1:
                c += 1
                n += 1
            if n >= 80:
                raise PositionError(f"{text!r} is not a Position ID: its bits run out before both sides are read")
            n += 1  # the separating 0
            counts.append(c)
        sides.append(counts)
    if bits >> n:
        raise PositionError(f"{text!r} is not a Position ID: it has checkers after both sides are complete")
    other, roller = sides
    limit = variant.checkers
    for name, side in (("the player not on roll", other), ("the player on roll", roller)):
        total = sum(side)
        if total > limit:
            raise PositionError(f"{name} has {total} checkers; {variant.display_name} uses {limit}")
    board = [0] * POINTS
    geo = variant.geometry
    for p in range(1, POINTS + 1):
        board[p - 1] = roller[p - 1]
    for q in range(1, POINTS + 1):
        c = other[q - 1]
        if not c:
            continue
        mine = geo.my_point(q)
        if board[mine - 1]:
            raise PositionError(f"point {mine} would hold checkers of both players")
        board[mine - 1] = -c
    bar = (roller[POINTS], other[POINTS])
    off = (limit - sum(roller), limit - sum(other))
    pos = Position(tuple(board), bar, off)
    variant.validate_position(pos)
    return pos
