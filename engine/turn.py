"""One turn's play, submove by submove: checking a submitted play and the undoable turn draft.

A play is accepted when each submove uses an unused die, is legal in the position reached so far, and
the whole uses as many dice and pips as the roll allows and leaves one of the legal positions
(rules.md §1.5, "Engine API note"). :class:`TurnDraft` is the immutable value a player builds while
moving checkers one at a time: every added submove must be legal now and still lead to some legal
play; ``undo`` takes the last one back; ``confirm`` turns a finished draft into the play action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .i18n import _
from .movegen import HIT, PlaySet, Submove, TurnRules, board_list
from .notation import format_play, point_name
from .position import BAR, OFF, POINTS, RESERVE, Position, pip_point

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["TurnError", "TurnDraft", "check_moves", "dice_pool"]


class TurnError(ValueError):
    """A submove or play that cannot be made now; the message names the rule."""


def dice_pool(dice: tuple[int, int], count: int | None = None) -> list[int]:
    """The numbers a roll lets you play: a doublet four times (or ``count`` times: the rest of one handed over),
    otherwise each die once."""
    if dice[0] == dice[1]:
        return [dice[0]] * (4 if count is None else count)
    return [dice[0], dice[1]]


def _candidate_dice(remaining: Sequence[int], src: int, dst: int) -> list[int]:
    """Dice that could carry a checker from ``src`` to ``dst``: exact ones first, then larger bear-offs."""
    distinct = sorted(set(remaining))
    src = pip_point(src)  # a checker entering from the reserve counts its pips from the bar
    if dst != OFF:
        return [d for d in distinct if src - d == dst]
    exact = [d for d in distinct if d == src]
    return exact + [d for d in distinct if d > src]


#: Where submoves may start, highest first: the reserve (checkers still to enter), the bar, the points.
_SOURCES = (RESERVE, *range(BAR, 0, -1))


def _step(
    variant: Variant, rules: TurnRules | None, b: list[int], src: int, dst: int, die: int
) -> tuple[str | None, int]:
    """Make one submove on ``b`` with the rule set's make step if legal: (error, undo token). On error ``b`` is
    unchanged; otherwise ``variant.unmake_submove`` with the token takes it back."""
    if not (src in (BAR, RESERVE) or 1 <= src <= POINTS):
        return _("there is no point {point}").format(point=src), 0
    error = variant.submove_error(b, src, die, rules)
    if error:
        return error, 0
    token = variant.make_submove(b, src, dst)
    if rules is not None and not rules.after(b):
        variant.unmake_submove(b, src, dst, token)
        text = f"{point_name(src)}/{point_name(dst)}"
        return _("{move} leaves a position the rules of {rule_set} forbid").format(
            move=text, rule_set=variant.local_name()
        ), 0
    return None, token


def _final(b: list[int]) -> Position:
    return Position.trusted(tuple(b))


def check_moves(
    variant: Variant,
    start: Position,
    dice: tuple[int, int],
    moves: Sequence[tuple[int, int]] | Sequence[Submove],
    plays: PlaySet,
    first_move: bool = False,
    count: int | None = None,
) -> tuple[tuple[Submove, ...], Position]:
    """Check a complete play given as submoves ``(src, dst[, hit])``; return them with true hit marks and
    the position left (mover's frame). Raise :class:`TurnError` naming the rule broken."""
    rules = variant.turn_rules(start, dice, first_move)
    b = board_list(start)
    pairs = [(int(m[0]), int(m[1])) for m in moves]
    best_error: list[tuple[int, str]] = [(-1, "")]
    found: list[tuple[tuple[Submove, ...], Position]] = []
    short: list[tuple[int, int]] = []

    def dfs(i: int, remaining: list[int], path: list[Submove], pips: int) -> None:
        if found:
            return
        if i == len(pairs):
            pos = _final(b)
            if len(path) == plays.max_dice and pips == plays.max_pips and plays.find(pos) is not None:
                found.append((tuple(path), pos))
            else:
                short.append((len(path), pips))
            return
        src, dst = pairs[i]
        text = f"{point_name(src)}/{point_name(dst)}"
        if not remaining:
            if i > best_error[0][0]:
                best_error[0] = (
                    i,
                    _("{move}: no dice left for it (you rolled {dice})").format(move=text, dice=f"{dice[0]}-{dice[1]}"),
                )
            return
        candidates = _candidate_dice(remaining, src, dst)
        if not candidates and i > best_error[0][0]:
            left = ", ".join(map(str, remaining))
            best_error[0] = (
                i,
                _("{move} cannot be made with one of the dice left ({dice})").format(move=text, dice=left),
            )
        for die in candidates:
            error, token = _step(variant, rules, b, src, dst, die)
            if error:
                if i > best_error[0][0]:
                    best_error[0] = (i, _("{move} with a {die}: {error}").format(move=text, die=die, error=error))
                continue
            rest = list(remaining)
            rest.remove(die)
            path.append((src, dst, bool(token & HIT)))
            dfs(i + 1, rest, path, pips + die)
            path.pop()
            variant.unmake_submove(b, src, dst, token)

    try:
        dfs(0, dice_pool(dice, count), [], 0)
    finally:
        dfs = None  # type: ignore[assignment]  # breaks the cycle it is in (see movegen._free_doublet)
    if found:
        return found[0]
    example = plays[0].notation or _("no move")
    if short:
        used, pips = max(short)
        if plays.no_move:
            raise TurnError(_("no legal play with {dice}: the turn passes").format(dice=f"{dice[0]}-{dice[1]}"))
        if used < plays.max_dice:
            if dice[0] == dice[1]:
                raise TurnError(
                    _("you must play {count} of your four {die}s (for example {example})").format(
                        count=plays.max_dice, die=dice[0], example=example
                    )
                )
            raise TurnError(_("you must use both dice when you can (for example {example})").format(example=example))
        if pips < plays.max_pips:
            raise TurnError(
                _(
                    "when only one die can be played it must be the higher one, the {die} (for example {example})"
                ).format(die=max(dice), example=example)
            )
        raise TurnError(
            _("that play breaks a rule of {rule_set}; legal plays include {example}").format(
                rule_set=variant.local_name(), example=example
            )
        )
    raise TurnError(best_error[0][1] or _("that play cannot be made with these dice"))


@dataclass(frozen=True)
class TurnDraft:
    """A play being built submove by submove (immutable: every change returns a new draft).

    ``moves`` are the submoves made so far (with hit marks), each with the die it used in ``dice_used``.
    Only :meth:`confirm` produces something for the match record; drafts themselves are never recorded.
    """

    variant: Variant
    start: Position
    dice: tuple[int, int]
    first_move: bool = False
    moves: tuple[Submove, ...] = ()
    dice_used: tuple[int, ...] = ()
    _plays: PlaySet | None = field(default=None, compare=False, repr=False)
    #: How many dice the stage has when fewer than the roll's (the rest of a doublet handed over).
    count: int | None = None

    @property
    def plays(self) -> PlaySet:
        """The legal plays of this roll."""
        if self._plays is None:
            plays = self.variant.stage_plays(self.start, self.dice, self.count, self.first_move)
            object.__setattr__(self, "_plays", plays)
        assert self._plays is not None
        return self._plays

    def _board(self) -> list[int]:
        return board_list(self.position)

    @property
    def remaining(self) -> tuple[int, ...]:
        """The numbers still to play."""
        pool = dice_pool(self.dice, self.count)
        for d in self.dice_used:
            pool.remove(d)
        return tuple(pool)

    @property
    def position(self) -> Position:
        """The position reached so far (mover's frame): the submoves made with the rule set's make step."""
        return self.variant.apply(self.start, self.moves)

    @property
    def complete(self) -> bool:
        """True when the submoves so far make a whole legal play (it may be confirmed)."""
        plays = self.plays
        return (
            len(self.moves) == plays.max_dice
            and sum(self.dice_used) == plays.max_pips
            and plays.find(self.position) is not None
        )

    def _extends(self, b: list[int], remaining: list[int], used: int, pips: int) -> bool:
        plays = self.plays
        rules = self.variant.turn_rules(self.start, self.dice, self.first_move)
        seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

        def dfs(rem: list[int], used: int, pips: int) -> bool:
            if used == plays.max_dice:
                return pips == plays.max_pips and plays.find(_final(b)) is not None
            key = (tuple(b), tuple(sorted(rem)))
            if key in seen:
                return False
            seen.add(key)
            for die in sorted(set(rem)):
                for src in _SOURCES:
                    if b[src] <= 0:
                        continue
                    dst = self.variant.submove_target(b, src, die)
                    if dst < 0:
                        continue
                    error, token = _step(self.variant, rules, b, src, dst, die)
                    if error:
                        continue
                    rest = list(rem)
                    rest.remove(die)
                    ok = dfs(rest, used + 1, pips + die)
                    self.variant.unmake_submove(b, src, dst, token)
                    if ok:
                        return True
            return False

        try:
            return dfs(remaining, used, pips)
        finally:
            dfs = None  # type: ignore[assignment]  # breaks the cycle it is in (see movegen._free_doublet)

    def options(self) -> list[tuple[int, int]]:
        """Every submove ``(src, dst)`` that may be added now (legal and still part of a legal play)."""
        out: list[tuple[int, int]] = []
        b = self._board()
        rem = list(self.remaining)
        for src in _SOURCES:
            if b[src] <= 0:
                continue
            for die in sorted(set(rem), reverse=True):
                dst = max(pip_point(src) - die, OFF)
                if (src, dst) in out:
                    continue
                try:
                    self.add(src, dst)
                except TurnError:
                    continue
                out.append((src, dst))
        return out

    def add(self, src: int, dst: int) -> TurnDraft:
        """The draft with one more submove; :class:`TurnError` says why it cannot be made."""
        text = f"{point_name(src)}/{point_name(dst)}"
        rem = list(self.remaining)
        if not rem or len(self.moves) >= self.plays.max_dice:
            raise TurnError(
                _("{move}: the roll {dice} is used up; confirm or undo").format(
                    move=text, dice=f"{self.dice[0]}-{self.dice[1]}"
                )
            )
        candidates = _candidate_dice(rem, src, dst)
        if not candidates:
            left = ", ".join(map(str, rem))
            raise TurnError(_("{move} cannot be made with one of the dice left ({dice})").format(move=text, dice=left))
        b = self._board()
        rules = self.variant.turn_rules(self.start, self.dice, self.first_move)
        reason = ""
        for die in candidates:
            error, token = _step(self.variant, rules, b, src, dst, die)
            if error:
                reason = reason or _("{move} with a {die}: {error}").format(move=text, die=die, error=error)
                continue
            rest = list(rem)
            rest.remove(die)
            ok = self._extends(b, rest, len(self.moves) + 1, sum(self.dice_used) + die)
            self.variant.unmake_submove(b, src, dst, token)
            if ok:
                return TurnDraft(
                    self.variant,
                    self.start,
                    self.dice,
                    self.first_move,
                    (*self.moves, (src, dst, bool(token & HIT))),
                    (*self.dice_used, die),
                    self._plays,
                    self.count,
                )
            reason = reason or _(
                "{move} is legal by itself but no legal play continues from it (legal plays include {example})"
            ).format(move=text, example=self.plays[0].notation or _("no move"))
        raise TurnError(reason)

    def undo(self) -> TurnDraft:
        """The draft without its last submove; :class:`TurnError` if there is nothing to undo."""
        if not self.moves:
            raise TurnError(_("nothing to undo: no checker has been moved this turn"))
        return TurnDraft(
            self.variant,
            self.start,
            self.dice,
            self.first_move,
            self.moves[:-1],
            self.dice_used[:-1],
            self._plays,
            self.count,
        )

    @property
    def notation(self) -> str:
        """The submoves so far in canonical notation."""
        return format_play(self.moves)
