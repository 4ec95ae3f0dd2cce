"""Move notation: ``24/18 13/11``, ``13/7* 8/7``, ``bar/22``, ``6/off``, ``8/5(2)``, ``24/18/13``.

Points are in the mover's own numbering; ``bar`` (or 25) and ``off`` (or 0) name the bar and bearing off, ``in``
a checker entering that has not been on the board yet (Acey-deucey's start off the board: ``in/22``);
``*`` after a point marks a hit there (in Plakoto a pin: the checker landed on a lone opposing one, whatever the
rule set's make step does with it); ``(n)`` repeats a move n times.

:func:`format_play` writes a play the way GNU Backgammon does (``drawboard.c`` ``FormatMove``): submoves
sorted by source, then destination, highest first; one checker's consecutive submoves joined into one
move, keeping the intermediate point only where it hit; identical moves counted as ``(n)``.
:func:`format_plain` writes the ``.mat`` form (every submove on its own, ``25`` and ``0``).
:func:`parse_play` reads either form, tolerantly, in time linear in the length of the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .i18n import _
from .position import BAR, OFF, RESERVE

__all__ = ["NotationError", "Segment", "parse_play", "format_play", "format_plain", "point_name"]

Submove = tuple[int, int, bool]


class NotationError(ValueError):
    """Text that is not move notation; the message says what was expected."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One written move: the points one checker visits (highest first), hit marks, and a repeat count."""

    points: tuple[int, ...]
    hits: tuple[bool, ...]
    count: int = 1

    def __str__(self) -> str:
        text = "/".join(point_name(p) + ("*" if h else "") for p, h in zip(self.points, self.hits))
        return text + (f"({self.count})" if self.count > 1 else "")


def point_name(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    if point == RESERVE:
        return "in"
    return str(point)


#: What a player may type for "no move" (only accepted when nothing can move).
_PASS_WORDS = frozenset(("", "-", "pass", "no move", "no play", "dance", "fan", "cannot move"))
_POINT_WORDS = {"bar": BAR, "b": BAR, "off": OFF, "o": OFF, "in": RESERVE}
_DIE_FACES = frozenset("123456")
#: Longest piece of the player's text quoted back in a message.
_SHOWN = 40


def _cut(text: str) -> str:
    """``text`` as quoted in a message: cut short when it is long."""
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "\u2026"


def _without_roll_prefix(text: str) -> str:
    """``text`` less a leading roll such as ``61:`` or ``6-1 :`` (the text is already stripped)."""
    n = len(text)
    i = 0
    if i < n and text[i] in _DIE_FACES:
        i += 1
        if i < n and text[i] == "-":
            i += 1
        if i < n and text[i] in _DIE_FACES:
            i += 1
            while i < n and text[i].isspace():
                i += 1
            if i < n and text[i] == ":":
                i += 1
                while i < n and text[i].isspace():
                    i += 1
                return text[i:]
    return text


def parse_play(text: str) -> list[Segment]:
    """Read move notation into segments; raise :class:`NotationError` naming what is wrong.

    One pass over the text splits it into written moves at whitespace, commas and semicolons; each move is
    then read on its own, so the work is linear in the length of the text (no pattern over the whole text).
    """
    text = _without_roll_prefix(text.strip().lower())
    if text in _PASS_WORDS:
        return []
    segments: list[Segment] = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isspace() or ch == "," or ch == ";":
            if start >= 0:
                segments.append(_segment(text[start:i]))
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        segments.append(_segment(text[start:]))
    return segments


def _segment(token: str) -> Segment:
    """One written move: ``FROM/TO``, ``FROM/VIA*/TO``, with ``*`` hit marks and an optional ``(n)``."""
    count = 1
    if len(token) >= 3 and token[-1] == ")" and token[-3] == "(" and token[-2].isdecimal():
        token, count = token[:-3], int(token[-2])
        if not 1 <= count <= 4:
            raise NotationError(_("a move can be repeated 1 to 4 times, not {count}").format(count=count))
    parts = token.split("/")
    if len(parts) < 2:
        raise NotationError(
            _("cannot read {text}: write a move as FROM/TO, for example 13/7 or bar/22").format(text=repr(_cut(token)))
        )
    points: list[int] = []
    hits: list[bool] = []
    for part in parts:
        hit = part.endswith("*")
        name = part[:-1] if hit else part
        point = _POINT_WORDS.get(name)
        if point is None:
            if not (1 <= len(name) <= 2 and name.isdecimal()):
                raise NotationError(
                    _("cannot read {part} in {text}: a point is 1..24, bar or off").format(
                        part=repr(_cut(part)), text=repr(_cut(token))
                    )
                )
            point = int(name)
            if point > BAR:
                raise NotationError(
                    _("there is no point {point}: points are 1..24 (25 = bar, 0 = off)").format(point=point)
                )
        points.append(point)
        hits.append(hit)
    for i in range(1, len(points)):
        if points[i] >= points[i - 1]:
            raise NotationError(
                _(
                    "{text}: checkers move from higher to lower points in your own numbering "
                    "({start} to {end} goes the wrong way)"
                ).format(text=_cut(token), start=point_name(points[i - 1]), end=point_name(points[i]))
            )
    return Segment(tuple(points), tuple(hits), count)


def _merge(moves: Sequence[Submove]) -> list[tuple[list[int], list[bool]]]:
    """GNU Backgammon's FormatMove grouping: sort, then join each checker's consecutive submoves."""
    ordered = sorted(moves, key=lambda m: (m[0], m[1]), reverse=True)
    paths: list[tuple[list[int], list[bool]] | None] = [([s, t], [False, h]) for s, t, h in ordered]
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            pi, pj = paths[i], paths[j]
            if pi is None or pj is None or pi[0][-1] != pj[0][0] or pi[0][-1] == OFF:
                continue
            if not pi[1][-1]:
                # A non-hitting intermediate point is not written: 24/18 18/13 is 24/13.
                pi[0].pop()
                pi[1].pop()
            pi[0].extend(pj[0][1:])
            pi[1].extend(pj[1][1:])
            paths[j] = None
    return [p for p in paths if p is not None]


def format_play(moves: Sequence[Submove]) -> str:
    """The canonical notation of a play (GNU Backgammon's order and grouping); '' for no move."""
    written: list[str] = []
    counts: list[int] = []
    for points, hits in _merge(moves):
        text = "/".join(point_name(p) + ("*" if h else "") for p, h in zip(points, hits))
        if written and written[-1] == text:
            counts[-1] += 1
        else:
            written.append(text)
            counts.append(1)
    return " ".join(w + (f"({n})" if n > 1 else "") for w, n in zip(written, counts))


def format_plain(moves: Sequence[Submove]) -> str:
    """The ``.mat`` form: every submove separately, 25 for the bar and 0 for off (``in`` for a checker entering from
    the reserve), ``*`` on hits."""
    ordered = sorted(moves, key=lambda m: (m[0], m[1]), reverse=True)
    return " ".join(f"{'in' if s == RESERVE else s}/{t}{'*' if h else ''}" for s, t, h in ordered)
