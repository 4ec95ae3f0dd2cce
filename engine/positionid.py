"""GNU Backgammon Position IDs (rules.md §6.2).

The 80-bit key lists, for the player *not* on roll and then for the player on roll, each point 1..24 of
that player's own numbering and then the bar: one 1-bit per checker, then a 0. It is packed least
significant bit first into 10 bytes and written in Base64 without padding (14 characters).

The IDs of a rule set whose geometry is not GNU Backgammon's (``Variant.gnubg_compatible`` false) use
the same bit layout with that rule set's own numbering; they are only meaningful together with the
rule set's name.

**Pins** (Plakoto; ours, GNU Backgammon has none). A position with a pinned checker counts it on its point for
its owner, like any other checker, and the ID gets a suffix: ``:`` and 8 more Base64 characters, 48 bits packed
least significant bit first: bit ``p - 1`` for a checker of the player on roll pinned on his point ``p``, bit
``24 + q - 1`` for a checker of the other player pinned on his point ``q`` (each side in its own numbering, as
in the key). A position without pins has the plain 14-character ID, which means the same board in GNU
Backgammon where the rule set's geometry is GNU Backgammon's::

    4HPwATDgc/ABMA              the start of backgammon (no pins)
    AACABAAA/P8AAA:AAAAAACA     Plakoto, 24:14 1:1p off:0/14: the player on roll pins the other's mother, the
                                other's last checker, on his 24-point (bit 47)

**The reserve** (Acey-deucey's checkers that have not entered yet; ours too). A position with checkers waiting to
enter gets a last suffix: ``_`` and two characters of the Base64 alphabet, the number of the roller's waiting
checkers, then the other player's (``A`` = 0, ``B`` = 1, ... ``P`` = 15; up to 63). Checkers neither on the board,
on the bar nor waiting are borne off, as in the plain ID::

    AAAAAAAAAAAAAA_PP           Acey-deucey's start: every checker of both players waiting to enter
    AAAAAACAAgAAAA_NP           the player on roll has entered two checkers, on his 24 and 23 (in:13/15)
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

from .i18n import _
from .position import POINTS, Position, PositionError

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["encode_position_id", "decode_position_id"]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _sides(variant: Variant, pos: Position) -> tuple[list[int], list[int]]:
    """(not on roll, on roll) checker counts on points 1..24 of each side's own numbering (pinned checkers
    included), then the bar."""
    roller = [0] * (POINTS + 1)
    other = [0] * (POINTS + 1)
    geo = variant.geometry
    pins = pos.pins
    for p in range(1, POINTS + 1):
        v = pos.board[p - 1]
        q = geo.their_point(p)
        if v > 0:
            roller[p - 1] = v
            if pins >> p & 1:
                other[q - 1] = 1
        elif v < 0:
            other[q - 1] = -v
            if pins >> p & 1:
                roller[p - 1] = 1
    roller[POINTS] = pos.bar[0]
    other[POINTS] = pos.bar[1]
    return other, roller


def _pin_suffix(variant: Variant, pos: Position) -> str:
    bits = 0
    for p in range(1, POINTS + 1):
        if pos.is_pinned(p):
            if pos.board[p - 1] < 0:
                bits |= 1 << (p - 1)  # the roller's checker lies pinned under the opponent's
            else:
                bits |= 1 << (POINTS + variant.geometry.their_point(p) - 1)
    return ":" + base64.b64encode(bits.to_bytes(6, "little")).decode("ascii")


def encode_position_id(variant: Variant, pos: Position) -> str:
    """The Position ID of ``pos`` (roller's frame): 14 characters, and a pin suffix where checkers are pinned."""
    bits = 0
    n = 0
    for side in _sides(variant, pos):
        for count in side:
            bits |= ((1 << count) - 1) << n
            n += count + 1
    if n > 80:
        raise PositionError(_("too many checkers for a Position ID (at most 30 on the board)"))
    key = base64.b64encode(bits.to_bytes(10, "little")).decode("ascii").rstrip("=")
    if pos.pins:
        key += _pin_suffix(variant, pos)
    mine, theirs = pos.reserve
    if mine or theirs:
        if max(mine, theirs) >= len(_B64):
            raise PositionError(_("too many checkers waiting to enter for a Position ID (at most 63 a side)"))
        key += f"_{_B64[mine]}{_B64[theirs]}"
    return key


def _b64(text: str, size: int, what: str) -> int:
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise PositionError(
            _("{text} is not a Position ID: it must use only A-Z, a-z, 0-9, + and /").format(text=what)
        ) from None
    if len(raw) != size:
        raise PositionError(_("{text} is not a Position ID").format(text=what))
    return int.from_bytes(raw, "little")


def decode_position_id(variant: Variant, pid: str) -> Position:
    """The position (roller's frame) a Position ID describes; :class:`PositionError` if it cannot be one."""
    text = pid.strip()
    text_key, underscore, waiting = text.partition("_")
    reserve = (0, 0)
    if underscore:
        if len(waiting) != 2 or any(c not in _B64 for c in waiting):
            raise PositionError(
                _("a Position ID's checkers waiting to enter are 2 characters after the '_', {text} is not").format(
                    text=repr(waiting)
                )
            )
        reserve = (_B64.index(waiting[0]), _B64.index(waiting[1]))
    key, colon, suffix = text_key.partition(":")
    if len(key) != 14:
        raise PositionError(
            _("a Position ID has 14 characters, {text} has {count}").format(text=repr(key), count=len(key))
        )
    if colon and len(suffix) != 8:
        raise PositionError(
            _("a Position ID's pins are 8 characters after the colon, {text} has {count}").format(
                text=repr(suffix), count=len(suffix)
            )
        )
    bits = _b64(key, 10, repr(text))
    pin_bits = _b64(suffix, 6, repr(text)) if colon else 0
    sides: list[list[int]] = []
    n = 0
    for _side in range(2):
        counts = []
        for _slot in range(POINTS + 1):
            c = 0
            while n < 80 and bits >> n & 1:
                c += 1
                n += 1
            if n >= 80:
                raise PositionError(
                    _("{text} is not a Position ID: its bits run out before both sides are read").format(
                        text=repr(text)
                    )
                )
            n += 1  # the separating 0
            counts.append(c)
        sides.append(counts)
    if bits >> n:
        raise PositionError(
            _("{text} is not a Position ID: it has checkers after both sides are complete").format(text=repr(text))
        )
    other, roller = sides
    limit = variant.checkers
    for on_roll, side, held in ((False, other, reserve[1]), (True, roller, reserve[0])):
        total = sum(side) + held
        if total > limit:
            text = (
                _("the player on roll has {total} checkers; {rule_set} uses {count}")
                if on_roll
                else _("the player not on roll has {total} checkers; {rule_set} uses {count}")
            )
            raise PositionError(text.format(total=total, rule_set=variant.local_name(), count=limit))
    board = [0] * POINTS
    pinned = [0] * POINTS
    geo = variant.geometry
    for p in range(1, POINTS + 1):
        mine = roller[p - 1]
        theirs = other[geo.their_point(p) - 1]
        mine_pinned = bool(pin_bits >> (p - 1) & 1)
        theirs_pinned = bool(pin_bits >> (POINTS + geo.their_point(p) - 1) & 1)
        if mine_pinned and theirs_pinned:
            raise PositionError(_("point {point} cannot hold a pinned checker of each player").format(point=p))
        if mine_pinned or theirs_pinned:
            under, over = (mine, theirs) if mine_pinned else (theirs, mine)
            if under != 1 or over < 1:
                raise PositionError(
                    _("a pinned checker on point {point} lies alone under the other player's checkers").format(point=p)
                )
            board[p - 1] = -theirs if mine_pinned else mine
            pinned[p - 1] = 1 if mine_pinned else -1
        elif mine and theirs:
            raise PositionError(_("point {point} would hold checkers of both players").format(point=p))
        else:
            board[p - 1] = mine - theirs
    bar = (roller[POINTS], other[POINTS])
    off = (limit - sum(roller) - reserve[0], limit - sum(other) - reserve[1])
    pos = Position(tuple(board), bar, off, pinned=pinned, reserve=reserve)
    variant.validate_position(pos)
    return pos
