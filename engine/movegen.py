"""The legal-play generator, written once for every rule set.

It follows GNU Backgammon's ``GenerateMoves`` exactly (rules.md §1.5):

* the dice are tried in both orders (a doublet: four times the same number);
* a submove sequence ends only when the dice are used up or the next die has no legal submove;
* of all sequences, only those using the most dice, then the most pips (die values), are kept;
* a play is identified by the position it leaves, so different orders reaching it are one play.

What differs between rule sets enters only as data and predicates of the :class:`~engine.variant.Variant`:
how many opposing checkers block a point, whether a lone opposing checker is hit, and an optional
:class:`TurnRules` object whose ``allow`` / ``after`` predicates add constraints (a head rule, a
six-block rule) checked before and after every submove.

Internally a board is a list of 26 ints in the roller's frame: ``b[0]`` my checkers borne off, ``b[1..24]``
the points (positive mine, negative the opponent's), ``b[25]`` my checkers on the bar. A position's
identity during the search is an exact integer key, updated incrementally with each submove.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from .position import BAR, OFF, POINTS, Position

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["Play", "PlaySet", "Submove", "TurnRules", "generate", "board_list", "HOME"]

#: A single checker moved by one die: (source, destination, hit). Source 25 is the bar, destination 0 off.
Submove = tuple[int, int, bool]

#: Points 1..HOME are the home board: checkers are borne off from there.
HOME = 6

# Weights of the exact integer key: 5 bits per slot, counts offset by 16 so they stay non-negative.
_W = tuple(1 << (5 * i) for i in range(26))
_OFFSET_KEY = sum(16 * w for w in _W)


class TurnRules(Protocol):
    """Extra constraints of a rule set for one turn (created per turn by ``Variant.turn_rules``)."""

    def allow(self, b: list[int], src: int, dst: int) -> bool:
        """Before a submove from ``src`` to ``dst`` (0 = off) is made on board ``b``: may it be made?"""
        ...

    def after(self, b: list[int]) -> bool:
        """After a submove has been made on ``b``: is the position reached allowed?"""
        ...

    def reason(self, b: list[int], src: int, dst: int) -> str | None:
        """Why the submove from ``src`` to ``dst`` breaks a constraint (None if it does not)."""
        ...


def board_list(pos: Position) -> list[int]:
    """The generator's working board for a position (see the module docstring)."""
    return [pos.off[0], *pos.board, pos.bar[0]]


def _key(b: Sequence[int]) -> int:
    k = _OFFSET_KEY
    for i, v in enumerate(b):
        if v:
            k += v * _W[i]
    return k


class Play:
    """One legal play: the submoves of one representative order and the position they leave."""

    __slots__ = ("moves", "_board", "_base", "_hits", "_position")

    def __init__(self, moves: tuple[Submove, ...], board: tuple[int, ...], base: Position, hits: int) -> None:
        self.moves = moves
        self._board = board
        self._base = base
        self._hits = hits
        self._position: Position | None = None

    @property
    def position(self) -> Position:
        """The position after the play, still in the mover's frame (the turn has not passed)."""
        if self._position is None:
            b = self._board
            base = self._base
            self._position = Position(b[1:25], (b[25], base.bar[1] + self._hits), (b[0], base.off[1]))
        return self._position

    @property
    def dice_used(self) -> int:
        return len(self.moves)

    @property
    def notation(self) -> str:
        from .notation import format_play

        return format_play(self.moves)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and self.position == other.position

    def __hash__(self) -> int:
        return hash(self.position)

    def __repr__(self) -> str:
        return f"<Play {self.notation or 'no move'} -> {self.position}>"


class PlaySet(Sequence[Play]):
    """The legal plays for one position and roll, plus what the maximal-usage rule required."""

    __slots__ = ("plays", "dice", "max_dice", "max_pips", "_by_key")

    def __init__(self, plays: list[Play], dice: tuple[int, int], max_dice: int, max_pips: int) -> None:
        self.plays = plays
        self.dice = dice
        self.max_dice = max_dice
        self.max_pips = max_pips
        self._by_key: dict[tuple[int, ...], Play] | None = None

    def __len__(self) -> int:
        return len(self.plays)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        return self.plays[i]

    def __iter__(self) -> Iterator[Play]:
        return iter(self.plays)

    @property
    def positions(self) -> set[Position]:
        return {p.position for p in self.plays}

    @property
    def no_move(self) -> bool:
        """True when nothing can be played (the single play is the unchanged position)."""
        return self.max_dice == 0

    @property
    def forced(self) -> bool:
        """True when there is exactly one way to play (including no move at all)."""
        return len(self.plays) == 1

    def find(self, pos: Position) -> Play | None:
        """The legal play leaving ``pos``, or None."""
        if self._by_key is None:
            self._by_key = {p.position.key(): p for p in self.plays}
        return self._by_key.get(pos.key())


def dice_orders(dice: tuple[int, int]) -> list[tuple[int, ...]]:
    a, b = dice
    if a == b:
        return [(a, a, a, a)]
    hi, lo = (a, b) if a > b else (b, a)
    return [(hi, lo), (lo, hi)]


def generate(variant: Variant, pos: Position, dice: tuple[int, int], first_move: bool = False) -> PlaySet:
    """Every legal play for ``pos`` (roller's frame) and ``dice``, per GNU Backgammon's rules."""
    b = board_list(pos)
    rules = variant.turn_rules(pos, dice, first_move)
    allow = rules.allow if rules is not None else None
    after = rules.after if rules is not None else None
    # Landing on my point t is allowed when b[t] >= land_min; a lone opposing checker there is hit.
    land_min = -(variant.point_blocked_by - 1) if variant.hitting else 0
    W = _W
    outside = b[BAR] + sum(v for v in b[HOME + 1 : BAR] if v > 0)

    found: dict[int, tuple[tuple[int, ...], tuple[Submove, ...], int]] = {}
    best = [0, 0]  # most dice used, then most pips, among sequences seen so far
    path: list[Submove] = []

    def save(depth: int, pips: int, key: int, hits: int) -> None:
        bd, bp = best
        if depth < bd or (depth == bd and pips < bp):
            return
        if depth > bd or pips > bp:
            found.clear()
            best[0] = depth
            best[1] = pips
        if key not in found:
            found[key] = (tuple(b), tuple(path), hits)

    def search(order: tuple[int, ...], depth: int, pips: int, key: int, top: int, hits: int) -> None:
        nonlocal outside
        if depth == len(order):
            save(depth, pips, key, hits)
            return
        d = order[depth]
        doublet = order[0] == order[-1] and len(order) == 4
        used = False
        if b[BAR] > 0:
            sources: Sequence[int] = (BAR,)
        else:
            sources = range(top, 0, -1)
        for s in sources:
            if b[s] <= 0:
                continue
            t = s - d
            if t > 0:
                v = b[t]
                if v < land_min:
                    continue
                if allow is not None and not allow(b, s, t):
                    continue
                b[s] -= 1
                if v < 0:
                    b[t] = 1
                    nkey = key - W[s] + 2 * W[t]
                    hit = True
                else:
                    b[t] = v + 1
                    nkey = key - W[s] + W[t]
                    hit = False
                came_home = s > HOME >= t
                if came_home:
                    outside -= 1
                if after is None or after(b):
                    used = True
                    path.append((s, t, hit))
                    search(order, depth + 1, pips + d, nkey, s if doublet else POINTS, hits + hit)
                    path.pop()
                if came_home:
                    outside += 1
                b[t] = v
                b[s] += 1
            else:
                # Bearing off: every checker home, and either the exact number or from the highest point.
                if outside:
                    continue
                if t < 0 and any(b[p] > 0 for p in range(s + 1, HOME + 1)):
                    continue
                if allow is not None and not allow(b, s, OFF):
                    continue
                b[s] -= 1
                b[OFF] += 1
                if after is None or after(b):
                    used = True
                    path.append((s, OFF, False))
                    search(order, depth + 1, pips + d, key - W[s] + 1, s if doublet else POINTS, hits)
                    path.pop()
                b[OFF] -= 1
                b[s] += 1
        if not used:
            save(depth, pips, key, hits)

    start_key = _key(b)
    for order in dice_orders(dice):
        search(order, 0, 0, start_key, POINTS, 0)

    plays = [Play(moves, board, pos, hits) for board, moves, hits in found.values()]
    return PlaySet(plays, (dice[0], dice[1]), best[0], best[1])


def apply_submoves(variant: Variant, pos: Position, moves: Sequence[Submove]) -> Position:
    """Make the given submoves on ``pos`` without checking them (hits follow the board)."""
    b = board_list(pos)
    hits = 0
    for s, t, _ in moves:
        b[s] -= 1
        if t == OFF:
            b[OFF] += 1
        elif b[t] < 0:
            b[t] = 1
            hits += 1
        else:
            b[t] += 1
    return Position(tuple(b[1:25]), (b[BAR], pos.bar[1] + hits), (b[OFF], pos.off[1]))
