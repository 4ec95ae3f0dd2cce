"""The legal-play generator, written once for every rule set.

It follows GNU Backgammon's ``GenerateMoves`` exactly (rules.md §1.5):

* the dice are tried in both orders (a doublet: four times the same number);
* a submove sequence ends only when the dice are used up or the next die has no legal submove;
* of all sequences, only those using the most dice, then the most pips (die values), are kept;
* a play is identified by the position it leaves, so different orders reaching it are one play.

What differs between rule sets enters only through the :class:`~engine.variant.Variant`: its **make step**
(``make_submove`` / ``unmake_submove``: what one checker moved by one die does to the board, a hit to the bar
in backgammon, a pin in Plakoto), its **submove test** (``submove_target``: where a checker may go with a die,
or nowhere), the sources it offers (``submove_sources``: the bar first) and an optional :class:`TurnRules`
object whose ``allow`` / ``after`` predicates add constraints (a head rule, a six-block rule) checked before
and after every submove.

The working board is a list copy of a position's internal tuple (:class:`~engine.position.Position`): ``b[0]``
my checkers borne off, ``b[1..24]`` the points (positive mine, negative the opponent's, on top), ``b[25]`` my
checkers on the bar, ``b[26]`` the opponent's, ``b[27]`` his borne-off checkers, ``b[28]`` the pin bits and
``b[29..30]`` the reserves. A finished board is already a position's tuple.

There are three searches with one result:

* :func:`generate_general` is the reference: it calls the rule set's hooks for every submove, so a rule set
  that owns its move arithmetic (Plakoto's pins) is searched by it;
* :func:`generate_ruled` serves rule sets with the standard make step and turn rules (Longgammon, Fevga): the
  hooks' standard arithmetic is written inline and identities are exact integer keys updated with each submove;
* :func:`generate_free` serves those with the standard make step and no turn rules (backgammon): it also leaves
  out the predicate calls and unrolls the two dice orders.

They are chosen by those properties alone, never by name (``Variant.standard_moves`` says whether a rule set
keeps the standard make step and submove test). The two specialisations visit submoves in the reference's
order, so all three return the same plays in the same order with the same submoves (property tests hold them to
it); the standard arithmetic they inline is the base class's make step, the one definition of a hit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, overload

from .position import BAR, OFF, POINTS, RESERVE, THEIR_BAR, Position

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = [
    "Play",
    "PlaySet",
    "Submove",
    "TurnRules",
    "generate",
    "generate_general",
    "generate_ruled",
    "generate_free",
    "board_list",
    "HOME",
    "HIT",
]

#: A single checker moved by one die: (source, destination, hit). Source 25 is the bar, destination 0 off;
#: ``hit`` is the ``*`` of the notation: the checker landed on a lone opposing one (a hit, or a pin in Plakoto).
Submove = tuple[int, int, bool]

#: Points 1..HOME are the home board: checkers are borne off from there.
HOME = 6
#: The bit of a make step's undo token that says the submove hit (or pinned): the notation's ``*``.
HIT = 1

# Weights of the exact integer key of a board reached during one search: 5 bits per slot. The key is the
# sum of each slot's change since the start times its weight; a slot never changes by 16 or more within a
# turn, so equal keys mean equal boards (the opponent's bar follows from the points that were hit).
_W = tuple(1 << (5 * i) for i in range(26))
#: The key change of a hit: the point goes from one opposing checker to one of mine.
_W2 = tuple(2 * w for w in _W)
#: My points from the 24-point down.
_DOWN = tuple(range(POINTS, 0, -1))
_new = object.__new__
_set = object.__setattr__


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
    """The working board for a position (see the module docstring): a list copy of its internal tuple."""
    return list(pos.key())


class Play:
    """One legal play: the submoves of one representative order and the position they leave."""

    __slots__ = ("moves", "position")

    def __init__(self, moves: tuple[Submove, ...], position: Position) -> None:
        self.moves = moves
        #: The position after the play, still in the mover's frame (the turn has not passed).
        self.position = position

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

    @overload
    def __getitem__(self, i: int) -> Play: ...

    @overload
    def __getitem__(self, i: slice) -> list[Play]: ...

    def __getitem__(self, i: int | slice) -> Play | list[Play]:
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
    rules = variant.turn_rules(pos, dice, first_move)
    if not variant.standard_moves:
        return generate_general(variant, pos, dice, rules)
    if rules is None:
        return generate_free(variant, pos, dice)
    return generate_ruled(variant, pos, dice, rules)


def generate_general(
    variant: Variant,
    pos: Position,
    dice: tuple[int, int],
    rules: TurnRules | None,
    *,
    recursive: bool = False,
    count: int | None = None,
) -> PlaySet:
    """The reference search: every submove through the rule set's hooks, ``rules`` checked before and after each.

    :func:`generate` uses it for rule sets that own their move arithmetic; for the others it is the reference that
    :func:`generate_ruled` and :func:`generate_free` must agree with exactly (same plays, order and submoves).
    Two different dice are searched in two unrolled loops (:func:`_general_two_dice`), which visit the submoves
    in the recursive search's order (``recursive=True`` forces that one, for the tests that hold them together).
    ``count`` (a doublet only) plays that many of its dice instead of four: the rest of a doublet handed over.
    """
    b = board_list(pos)
    if count is not None and dice[0] == dice[1] and 1 <= count < 4:
        return _count_of_doublet(variant, b, dice[0], count, rules)
    if dice[0] != dice[1] and not recursive:
        return _general_two_dice(variant, b, dice, rules)
    allow = rules.allow if rules is not None else None
    after = rules.after if rules is not None else None
    target = variant.submove_target
    make = variant.make_submove
    # The search takes a submove back by restoring a copy of the board (cheaper than a call to unmake_submove).
    sources_of = variant.submove_sources if variant.own_sources else None

    found: dict[tuple[int, ...], tuple[Submove, ...]] = {}
    best = [0, 0]  # most dice used, then most pips, among sequences seen so far
    path: list[Submove] = []

    def save(depth: int, pips: int) -> None:
        bd, bp = best
        if depth < bd or (depth == bd and pips < bp):
            return
        if depth > bd or pips > bp:
            found.clear()
            best[0] = depth
            best[1] = pips
        key = tuple(b)
        if key not in found:
            found[key] = tuple(path)

    def search(order: tuple[int, ...], depth: int, pips: int, top: int, occ: list[int]) -> None:
        # occ lists points that held my checkers somewhere on this path (emptied ones are skipped below).
        d = order[depth]
        last = depth + 1 == len(order)
        doublet = len(order) == 4
        npips = pips + d
        used = False
        saved = b[:]
        for s in sources_of(b, occ) if sources_of is not None else (BAR,) if b[BAR] > 0 else occ:
            if b[s] <= 0 or s > top:
                continue
            t = target(b, s, d)
            if t < 0:
                continue
            if allow is not None and not allow(b, s, t):
                continue
            if last:
                token = make(b, s, t)
                if after is None or after(b):
                    used = True
                    if best[0] == depth + 1 and best[1] == npips:  # the usual case, without a call
                        key = tuple(b)
                        if key not in found:
                            found[key] = (*path, (s, t, token & HIT != 0))
                    else:
                        path.append((s, t, token & HIT != 0))
                        save(depth + 1, npips)
                        path.pop()
                b[:] = saved
                continue
            fresh = t != OFF and b[t] <= 0  # a point that becomes mine
            token = make(b, s, t)
            if after is None or after(b):
                used = True
                path.append((s, t, token & HIT != 0))
                if prune and depth == 0 and order is orders[1] and _outside(b):
                    # Dice played the other way round: a second checker that moves independently of the first
                    # gives a play already found with the higher die first, so only the checker just moved (or
                    # one beside it on its new point) needs trying.
                    nocc = [t]
                else:
                    nocc = [*occ, t] if fresh else occ
                if memo is None:
                    # A doublet's sources never rise (a checker entered from the bar leaves every source open).
                    search(order, depth + 1, npips, s if doublet and s != BAR else RESERVE, nocc)
                else:
                    seen = (depth, tuple(b))
                    if seen not in memo:
                        memo.add(seen)
                        search(order, depth + 1, npips, RESERVE, nocc)
                path.pop()
            b[:] = saved
        if not used:
            save(depth, pips)

    occupied = [p for p in range(POINTS, 0, -1) if b[p] > 0]
    orders = dice_orders(dice)
    # Independent submoves commute unless a turn rule, the bar or bearing off makes their order matter (or the
    # rule set says its submoves do not commute).
    prune = rules is None and b[BAR] == 0 and len(orders) == 2 and variant.submoves_commute
    # A doublet's submoves are tried with sources never rising (GNU Backgammon), which loses nothing when order
    # cannot matter. Turn rules checked after every submove can make order matter, so then every order is tried
    # and each board reached at each depth is expanded once.
    memo: set[tuple[int, tuple[int, ...]]] | None = (
        set() if (rules is not None or not variant.submoves_commute) and len(orders) == 1 else None
    )
    try:
        for order in orders:
            search(order, 0, 0, RESERVE, occupied)  # the reserve (checkers still to enter) is the highest source
    finally:
        search = None  # type: ignore[assignment]  # breaks the cycle (see _free_doublet)

    return PlaySet(_plays(found.items()), (dice[0], dice[1]), best[0], best[1])


def _count_of_doublet(variant: Variant, b: list[int], die: int, count: int, rules: TurnRules | None) -> PlaySet:
    """Every legal play of ``count`` (1 to 3) dice showing ``die``: as many as can be played, then the positions
    they leave (a plain search through the rule set's hooks; such stages are rare)."""
    found: dict[tuple[int, ...], tuple[Submove, ...]] = {}
    best = [0]
    path: list[Submove] = []
    seen: set[tuple[int, tuple[int, ...]]] = set()
    sources_of = variant.submove_sources if variant.own_sources else None

    def search(depth: int) -> None:
        if (depth, tuple(b)) in seen:
            return
        seen.add((depth, tuple(b)))
        used = False
        if depth < count:
            occ = [p for p in range(POINTS, 0, -1) if b[p] > 0]
            sources = sources_of(b, occ) if sources_of is not None else (BAR,) if b[BAR] > 0 else occ
            for s in list(sources):
                if b[s] <= 0:
                    continue
                t = variant.submove_target(b, s, die)
                if t < 0 or (rules is not None and not rules.allow(b, s, t)):
                    continue
                saved = b[:]
                token = variant.make_submove(b, s, t)
                if rules is None or rules.after(b):
                    used = True
                    path.append((s, t, token & HIT != 0))
                    search(depth + 1)
                    path.pop()
                b[:] = saved
        if not used:
            if depth > best[0]:
                found.clear()
                best[0] = depth
            if depth == best[0]:
                found.setdefault(tuple(b), tuple(path))

    try:
        search(0)
    finally:
        search = None  # type: ignore[assignment]  # breaks the cycle (see _free_doublet)
    return PlaySet(_plays(found.items()), (die, die), best[0], best[0] * die)


def _general_two_dice(variant: Variant, b: list[int], dice: tuple[int, int], rules: TurnRules | None) -> PlaySet:
    """:func:`generate_general` for two different dice, unrolled: the same plays in the same order."""
    allow = rules.allow if rules is not None else None
    after = rules.after if rules is not None else None
    target = variant.submove_target
    make = variant.make_submove
    sources_of = variant.submove_sources if variant.own_sources else None
    prune = rules is None and b[BAR] == 0 and variant.submoves_commute  # see generate_general
    occ = [p for p in range(POINTS, 0, -1) if b[p] > 0]
    found: dict[tuple[int, ...], tuple[Submove, ...]] = {}
    best_n = best_pips = 0
    hi, lo = (dice[0], dice[1]) if dice[0] > dice[1] else (dice[1], dice[0])
    for first, second, reverse in ((hi, lo, False), (lo, hi, True)):
        used = False
        saved = b[:]
        for s in sources_of(b, occ) if sources_of is not None else (BAR,) if b[BAR] > 0 else occ:
            if b[s] <= 0:
                continue
            t = target(b, s, first)
            if t < 0 or (allow is not None and not allow(b, s, t)):
                continue
            fresh = t != OFF and b[t] <= 0
            token = make(b, s, t)
            if after is None or after(b):
                used = True
                move = (s, t, token & HIT != 0)
                nocc = [t] if reverse and prune and _outside(b) else [*occ, t] if fresh else occ
                used2 = False
                saved2 = b[:]
                for s2 in sources_of(b, nocc) if sources_of is not None else (BAR,) if b[BAR] > 0 else nocc:
                    if b[s2] <= 0:
                        continue
                    t2 = target(b, s2, second)
                    if t2 < 0 or (allow is not None and not allow(b, s2, t2)):
                        continue
                    token2 = make(b, s2, t2)
                    if after is None or after(b):
                        used2 = True
                        if best_n < 2:
                            found.clear()
                            best_n, best_pips = 2, hi + lo
                        key = tuple(b)
                        if key not in found:
                            found[key] = (move, (s2, t2, token2 & HIT != 0))
                    b[:] = saved2
                if not used2 and (best_n == 0 or (best_n == 1 and best_pips <= first)):
                    if best_n == 0 or best_pips < first:
                        found.clear()
                        best_n, best_pips = 1, first
                    key = tuple(b)
                    if key not in found:
                        found[key] = (move,)
            b[:] = saved
        if not used and best_n == 0:
            found.setdefault(tuple(b), ())
    return PlaySet(_plays(found.items()), (dice[0], dice[1]), best_n, best_pips)


def _outside(b: list[int]) -> bool:
    """Whether a checker of mine is still outside my home board (on points 7..24 or the bar)."""
    return any(b[p] > 0 for p in range(HOME + 1, BAR + 1))


def generate_ruled(variant: Variant, pos: Position, dice: tuple[int, int], rules: TurnRules | None) -> PlaySet:
    """The plays of :func:`generate_general` for a rule set with the standard make step, with the make step and
    the submove test written inline and exact integer keys (the module docstring); consults ``rules``."""
    b = board_list(pos)
    allow = rules.allow if rules is not None else None
    after = rules.after if rules is not None else None
    # Landing on my point t is allowed when b[t] >= land_min; a lone opposing checker there is hit.
    land_min = -(variant.point_blocked_by - 1) if variant.hitting else 0
    W = _W
    outside = b[BAR] + sum(v for v in b[HOME + 1 : BAR] if v > 0)

    found: dict[int, tuple[tuple[int, ...], tuple[Submove, ...]]] = {}
    best = [0, 0]  # most dice used, then most pips, among sequences seen so far
    path: list[Submove] = []

    def save(depth: int, pips: int, key: int) -> None:
        bd, bp = best
        if depth < bd or (depth == bd and pips < bp):
            return
        if depth > bd or pips > bp:
            found.clear()
            best[0] = depth
            best[1] = pips
        if key not in found:
            found[key] = (tuple(b), tuple(path))

    def search(order: tuple[int, ...], depth: int, pips: int, key: int, top: int, occ: list[int]) -> None:
        # occ lists points that held my checkers somewhere on this path (emptied ones are skipped below).
        nonlocal outside
        d = order[depth]
        last = depth + 1 == len(order)
        doublet = len(order) == 4
        npips = pips + d
        used = False
        sources: Sequence[int] = (BAR,) if b[BAR] > 0 else occ
        for s in sources:
            if b[s] <= 0 or s > top:
                continue
            t = s - d
            if t > 0:
                v = b[t]
                if v < land_min:
                    continue
                if allow is not None and not allow(b, s, t):
                    continue
                nkey = key - W[s] + (2 * W[t] if v < 0 else W[t])
                if last and after is None and nkey in found and best[0] == depth + 1 and best[1] == npips:
                    used = True  # the same resulting position is already recorded
                    continue
                b[s] -= 1
                if v < 0:
                    b[t] = 1
                    b[THEIR_BAR] += 1
                else:
                    b[t] = v + 1
                came_home = s > HOME >= t
                if came_home:
                    outside -= 1
                if after is None or after(b):
                    used = True
                    path.append((s, t, v < 0))
                    if last:
                        save(depth + 1, npips, nkey)
                    else:
                        if prune and depth == 0 and order is orders[1] and outside:
                            nocc = [t]  # see generate_general
                        else:
                            nocc = occ if v > 0 else [*occ, t]
                        if memo is None:
                            search(order, depth + 1, npips, nkey, s if doublet else BAR, nocc)
                        elif (depth, nkey) not in memo:
                            memo.add((depth, nkey))
                            search(order, depth + 1, npips, nkey, BAR, nocc)
                    path.pop()
                if came_home:
                    outside += 1
                if v < 0:
                    b[THEIR_BAR] -= 1
                b[t] = v
                b[s] += 1
            else:
                # Bearing off: every checker home, and either the exact number or from the highest point.
                if outside:
                    continue
                if t < 0:
                    higher = False
                    for p in range(s + 1, HOME + 1):
                        if b[p] > 0:
                            higher = True
                            break
                    if higher:
                        continue
                if allow is not None and not allow(b, s, OFF):
                    continue
                b[s] -= 1
                b[OFF] += 1
                if after is None or after(b):
                    used = True
                    path.append((s, OFF, False))
                    if last:
                        save(depth + 1, npips, key - W[s] + 1)
                    else:
                        if memo is None:
                            search(order, depth + 1, npips, key - W[s] + 1, s if doublet else BAR, occ)
                        elif (depth, key - W[s] + 1) not in memo:
                            memo.add((depth, key - W[s] + 1))
                            search(order, depth + 1, npips, key - W[s] + 1, BAR, occ)
                    path.pop()
                b[OFF] -= 1
                b[s] += 1
        if not used:
            save(depth, pips, key)

    start_key = 0  # keys are kept relative to the starting board: only differences matter
    occupied = [p for p in range(POINTS, 0, -1) if b[p] > 0]
    orders = dice_orders(dice)
    prune = rules is None and b[BAR] == 0 and len(orders) == 2  # see generate_general
    memo: set[tuple[int, int]] | None = set() if rules is not None and len(orders) == 1 else None
    try:
        for order in orders:
            search(order, 0, 0, start_key, BAR, occupied)
    finally:
        search = None  # type: ignore[assignment]  # breaks the cycle (see _free_doublet)

    return PlaySet(_plays(found.values()), (dice[0], dice[1]), best[0], best[1])


def generate_free(variant: Variant, pos: Position, dice: tuple[int, int]) -> PlaySet:
    """The plays of :func:`generate_general` with no turn rules, found with less overhead (module docstring).

    Two dice are searched in two unrolled loops, a doublet in a small recursion; the board is one list of
    plain ints that also holds the opponent's bar (a hit adds to it) and borne-off checkers.
    """
    raw = pos.key()
    b = list(raw)  # the working board, then their bar and their borne-off checkers
    land_min = -(variant.point_blocked_by - 1) if variant.hitting else 0
    occ = [p for p in _DOWN if b[p] > 0]
    outside = b[BAR]
    for p in occ:
        if p <= HOME:
            break
        outside += b[p]
    d1, d2 = dice
    found: Iterable[tuple[tuple[int, ...], tuple[Submove, ...]]]
    if d1 == d2:
        found, best_n = _free_doublet(b, occ, outside, d1, land_min)
        best_pips = best_n * d1
    else:
        found, best_n, best_pips = _free_two_dice(b, occ, outside, d1, d2, land_min)
    return PlaySet(_plays(found), (d1, d2), best_n, best_pips)


def _plays(found: Iterable[tuple[tuple[int, ...], tuple[Submove, ...]]]) -> list[Play]:
    plays = []
    for after, moves in found:
        position = _new(Position)  # Position.trusted(after), without a call per play
        _set(position, "_raw", after)
        plays.append(Play(moves, position))
    return plays


def _free_two_dice(
    b: list[int], occ: list[int], outside: int, d1: int, d2: int, land_min: int
) -> tuple[Iterable[tuple[tuple[int, ...], tuple[Submove, ...]]], int, int]:
    W = _W
    W2 = _W2
    found: dict[int, tuple[tuple[int, ...], tuple[Submove, ...]]] = {}
    best_n = 0  # most dice used by a sequence seen so far
    best_pips = 0  # most pips among those
    hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
    entering = b[BAR] > 0
    # Played the other way round, only the first checker's own successors are new (see generate_general).
    for first, second, prune in ((hi, lo, False), (lo, hi, not entering)):
        used = False
        for s in (BAR,) if entering else occ:
            t = s - first
            if t > 0:
                v = b[t]
                if v < land_min:
                    continue
            elif outside or (t < 0 and max(b[s + 1 : HOME + 1], default=0) > 0):
                continue
            else:
                t = OFF
                v = b[OFF]
            used = True
            b[s] -= 1
            if v < 0:
                b[t] = 1
                b[THEIR_BAR] += 1
                key = W2[t] - W[s]
            else:
                b[t] = v + 1
                key = W[t] - W[s]
            came_home = s > HOME >= t
            if came_home:
                outside -= 1
            move = (s, t, v < 0)
            if prune and outside:
                nocc = [t]
            elif v > 0 or t == OFF:
                nocc = occ
            else:
                nocc = [*occ, t]
            # The second die.
            used2 = False
            for s2 in (BAR,) if b[BAR] > 0 else nocc:
                if b[s2] <= 0:
                    continue
                t2 = s2 - second
                if t2 > 0:
                    v2 = b[t2]
                    if v2 < land_min:
                        continue
                elif outside or (t2 < 0 and max(b[s2 + 1 : HOME + 1], default=0) > 0):
                    continue
                else:
                    t2 = OFF
                    v2 = b[OFF]
                used2 = True
                nkey = key + (W2[t2] if v2 < 0 else W[t2]) - W[s2]
                if best_n == 2:
                    if nkey in found:
                        continue
                else:
                    found.clear()
                    best_n = 2
                    best_pips = hi + lo
                b[s2] -= 1
                if v2 < 0:
                    b[t2] = 1
                    b[THEIR_BAR] += 1
                    found[nkey] = (tuple(b), (move, (s2, t2, True)))
                    b[THEIR_BAR] -= 1
                else:
                    b[t2] = v2 + 1
                    found[nkey] = (tuple(b), (move, (s2, t2, False)))
                b[t2] = v2
                b[s2] += 1
            if not used2 and (best_n == 0 or (best_n == 1 and best_pips <= first)):
                if best_n == 0 or best_pips < first:
                    found.clear()
                    best_n = 1
                    best_pips = first
                if key not in found:
                    found[key] = (tuple(b), (move,))
            if came_home:
                outside += 1
            if v < 0:
                b[THEIR_BAR] -= 1
            b[t] = v
            b[s] += 1
        if not used and not found:
            found[0] = (tuple(b), ())
    return found.values(), best_n, best_pips


def _free_doublet(
    b: list[int], occ: list[int], outside: int, d: int, land_min: int
) -> tuple[list[tuple[tuple[int, ...], tuple[Submove, ...]]], int]:
    # Sources never rise along a sequence, so each sequence is the only one of its submoves, and a board
    # determines those submoves: every board reached is new, and no key is needed.
    found: list[tuple[tuple[int, ...], tuple[Submove, ...]]] = []
    best_n = 0  # most dice used by a sequence seen so far

    def search(depth: int, top: int, occ: list[int], outside: int, path: tuple[Submove, ...]) -> None:
        nonlocal best_n
        used = False
        for s in (BAR,) if b[BAR] > 0 else occ:
            if s > top or b[s] <= 0:
                continue
            t = s - d
            if t > 0:
                v = b[t]
                if v < land_min:
                    continue
            elif outside or (t < 0 and max(b[s + 1 : HOME + 1], default=0) > 0):
                continue
            else:
                t = OFF
                v = b[OFF]
            used = True
            b[s] -= 1
            if v < 0:
                b[t] = 1
                b[THEIR_BAR] += 1
            else:
                b[t] = v + 1
            if depth < 3:
                search(
                    depth + 1,
                    s,
                    occ if v > 0 or t == OFF else [*occ, t],
                    outside - 1 if s > HOME >= t else outside,
                    (*path, (s, t, v < 0)),
                )
            else:
                if best_n < 4:
                    found.clear()
                    best_n = 4
                found.append((tuple(b), (*path, (s, t, v < 0))))
            if v < 0:
                b[THEIR_BAR] -= 1
            b[t] = v
            b[s] += 1
        if not used and depth >= best_n:
            if depth > best_n:
                found.clear()
                best_n = depth
            found.append((tuple(b), path))

    try:
        search(0, BAR, occ, outside, ())
    finally:
        # ``search`` calls itself through the cell that holds it: a reference cycle (function, cell) that would keep
        # the search's board and closure alive until the garbage collector looked for cycles. Emptying the cell
        # frees them now, and leaves the collector less to look at (a collection stops the event loop).
        search = None  # type: ignore[assignment]
    return found, best_n
