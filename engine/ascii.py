"""An ASCII board for logs, the console and tests, drawn from the roller's side.

``X`` is the player on roll, ``O`` the opponent; points are numbered in X's own numbering, X's home board
(points 1..6) at the bottom right, as GNU Backgammon draws it. Stacks taller than five show their count
in the fifth row, right-aligned under the point's number (a Longgammon head of 15 reads "15"); the bar's count
(ten or more included) keeps to the bar's three columns. A checker pinned under a stack (Plakoto) is drawn ``*O`` at
the edge of the board with the stack above it, and a line under the board lists the pins. The same drawing serves
every geometry: where the opponent stands is read from the position, never from the rule set's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .i18n import _
from .position import POINTS, Position
from .turn import TurnDraft

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["ascii_board"]

ROWS = 5


def _cell(count: int, row: int, mark: str, fresh: int = 0, under: str = "") -> str:
    """What a point holding ``count`` checkers on top shows in ``row`` (0 = the edge of the board); the ``fresh``
    checkers on top of the stack (moved there by the play being entered) are drawn in lower case. ``under``: the
    letter of a checker pinned under the stack, drawn ``*O`` at the edge, the stack above it."""
    if under:
        if row == 0:
            return "*" + under
        row -= 1
        if row == ROWS - 2 and count > ROWS - 1:
            return str(count)
        if count <= row:
            return " "
        top = min(count, ROWS - 1) - 1 - (count > ROWS - 1)
        return mark.lower() if top - fresh < row <= top else mark
    if count <= row:
        return " "
    if row == ROWS - 1 and count > ROWS:
        return str(count)
    top = min(count, ROWS) - 1 - (count > ROWS)
    return mark.lower() if top - fresh < row <= top else mark


def _half(points: list[int], pos: Position, rows: range, fresh: Mapping[int, int]) -> list[tuple[str, str]]:
    lines = []
    for row in rows:
        cells = []
        for p in points:
            v = pos.board[p - 1]
            under = ("O" if v > 0 else "X") if pos.is_pinned(p) else ""
            cells.append(_cell(abs(v), row, "X" if v > 0 else "O", fresh.get(p, 0) if v > 0 else 0, under))
        left = " ".join(f"{c:>2}" for c in cells[:6])  # a count of 10 or more takes the space before it
        right = " ".join(f"{c:>2}" for c in cells[6:])
        lines.append((left, right))
    return lines


def ascii_board(
    variant: Variant,
    pos: Position,
    *,
    dice: tuple[int, int] | None = None,
    names: tuple[str, str] = ("X", "O"),
    x_on_roll: bool = True,
    draft: TurnDraft | None = None,
) -> str:
    """A text drawing of ``pos`` seen by X (``pos`` in X's frame): points, bar, borne-off checkers, pips, dice.

    ``draft``: the play X (on roll, ``pos`` the position it starts from) is entering checker by checker: the board
    shows the position it has reached, the checkers it moved drawn ``x``, and a last line its submoves and the
    numbers still to play.
    """
    fresh: dict[int, int] = {}
    if draft is not None:
        if draft.start != pos:
            raise ValueError("the play being entered starts from another position")
        pos = draft.position
        for _src, dst, _hit in draft.moves:
            fresh[dst] = fresh.get(dst, 0) + 1
        for src, _dst, _hit in draft.moves:
            if fresh.get(src):
                fresh[src] -= 1  # a checker that moved on from where it arrived
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    bar_mine, bar_theirs = pos.bar
    out: list[str] = []
    out.append(" " + "".join(f"{p:>3}" for p in top[:6]) + "     " + "".join(f"{p:>3}" for p in top[6:]))
    out.append(" +" + "-" * 18 + "+---+" + "-" * 18 + "+")
    for i, (left, right) in enumerate(_half(top, pos, range(ROWS), fresh)):
        bar = "O" if bar_theirs > i else " "
        if i == ROWS - 1 and bar_theirs > ROWS:
            bar = str(bar_theirs)
        out.append(f" |{left} |{bar:^3}|{right} |")
    # Translators: the ASCII board's line of checkers borne off: "off: alice 3  bob 0".
    off_line = "  " + _("off: {counts}").format(counts=f"{names[0]} {pos.off[0]}  {names[1]} {pos.off[1]}")
    off_line = off_line if any(pos.off) else ""
    out.append(f" |{' ' * 18}|BAR|{' ' * 18}|{off_line}")
    for i, (left, right) in enumerate(_half(bottom, pos, range(ROWS - 1, -1, -1), fresh)):
        bar = "X" if bar_mine > i else " "
        if i == ROWS - 1 and bar_mine > ROWS:
            bar = str(bar_mine)
        out.append(f" |{left} |{bar:^3}|{right} |")
    out.append(" +" + "-" * 18 + "+---+" + "-" * 18 + "+")
    out.append(" " + "".join(f"{p:>3}" for p in bottom[:6]) + "     " + "".join(f"{p:>3}" for p in bottom[6:]))
    pips = variant.pips(pos)
    x_label, o_label = (
        (_("{mark}, on roll").format(mark="X"), "O") if x_on_roll else ("X", _("{mark}, on roll").format(mark="O"))
    )
    # Translators: one side in the ASCII board's last line: "alice (X, on roll) pips 167".
    side = _("{name} ({mark}) pips {pips}")
    footer = " " + side.format(name=names[0], mark=x_label, pips=pips[0])
    footer += "   " + side.format(name=names[1], mark=o_label, pips=pips[1])
    if dice is not None:
        footer += "   " + _("dice {dice}").format(dice=f"{dice[0]}-{dice[1]}")
    out.append(footer)
    if pos.pins:
        pinned = [(p, "X" if pos.board[p - 1] < 0 else "O") for p in range(POINTS, 0, -1) if pos.is_pinned(p)]
        where = ", ".join(_("{side} on {point}").format(side=who, point=p) for p, who in pinned)
        out.append(" " + _("pinned (*): {pins}").format(pins=where))
    if any(pos.reserve):
        waiting = f"{names[0]} {pos.reserve[0]}  {names[1]} {pos.reserve[1]}"
        out.append(" " + _("waiting to enter: {counts}").format(counts=waiting))
    if draft is not None:
        left = " ".join(map(str, draft.remaining)) if not draft.complete else ""
        so_far = draft.notation or _("nothing yet")
        if left:
            out.append(" " + _("moving: {play} (to play: {dice})").format(play=so_far, dice=left))
        else:
            out.append(" " + _("moving: {play} (all played: confirm or undo)").format(play=so_far))
    return "\n".join(out)
