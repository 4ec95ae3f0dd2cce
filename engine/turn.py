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

from .movegen import PlaySet, Submove, TurnRules, board_list
from .notation import format_play, point_name
from .position import BAR, OFF, POINTS, Position

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["TurnError", "TurnDraft", "check_moves", "dice_pool"]


class TurnError(ValueError):
    """A submove or play that cannot be made now; the message names the rule."""


def dice_pool(dice: tuple[int, int]) -> list[int]:
    """The numbers a roll lets you play: a doublet four times, otherwise each die once."""
    return [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]


def _candidate_dice(remaining: Sequence[int], src: int, dst: int) -> list[int]:
    """Dice that could carry a checker from ``src`` to ``dst``: exact ones first, then larger bear-offs."""
    distinct = sorted(set(remaining))
    if dst != OFF:
        return [d for d in distinct if src - d == dst]
    exact = [d for d in distinct if d == src]
    return exact + [d for d in distinct if d > src]


def _step(
    variant: Variant, rules: TurnRules | None, b: list[int], src: int, dst: int, die: int
) -> tuple[str | None, bool]:
    """Make one submove on ``b`` if legal: (error, hit). On error ``b`` is unchanged."""
    if not (src == BAR or 1 <= src <= POINTS):
        return f"there is no point {src}", False
    error = variant.submove_error(b, src, die, rules)
    if error:
        return error, False
    hit = dst != OFF and b[dst] < 0
    b[src] -= 1
    if dst == OFF:
        b[OFF] += 1
    elif hit:
        b[dst] = 1
    else:
        b[dst] += 1
    if rules is not None and not rules.after(b):
        _unstep(b, src, dst, hit)
        text = f"{point_name(src)}/{point_name(dst)}"
        return f"{text} leaves a position the rules of {variant.display_name} forbid", False
    return None, hit


def _unstep(b: list[int], src: int, dst: int, hit: bool) -> None:
    b[src] += 1
    if dst == OFF:
        b[OFF] -= 1
    elif hit:
        b[dst] = -1
    else:
        b[dst] -= 1


def _final(start: Position, b: list[int], hits: int) -> Position:
    return Position(tuple(b[1:25]), (b[BAR], start.bar[1] + hits), (b[OFF], start.off[1]))


def check_moves(
    variant: Variant,
    start: Position,
    dice: tuple[int, int],
    moves: Sequence[tuple[int, int]] | Sequence[Submove],
    plays: PlaySet,
    first_move: bool = False,
) -> tuple[tuple[Submove, ...], Position]:
    """Check a complete play given as submoves ``(src, dst[, hit])``; return them with true hit marks and
    the position left (mover's frame). Raise :class:`TurnError` naming the rule broken."""
    rules = variant.turn_rules(start, dice, first_move)
    b = board_list(start)
    pairs = [(int(m[0]), int(m[1])) for m in moves]
    best_error: list[tuple[int, str]] = [(-1, "")]
    found: list[tuple[tuple[Submove, ...], Position]] = []
    short: list[tuple[int, int]] = []

    def dfs(i: int, remaining: list[int], path: list[Submove], pips: int, hits: int) -> None:
        if found:
            return
        if i == len(pairs):
            pos = _final(start, b, hits)
            if len(path) == plays.max_dice and pips == plays.max_pips and plays.find(pos) is not None:
                found.append((tuple(path), pos))
            else:
                short.append((len(path), pips))
            return
        src, dst = pairs[i]
        text = f"{point_name(src)}/{point_name(dst)}"
        if not remaining:
            if i > best_error[0][0]:
                best_error[0] = (i, f"{text}: no dice left for it (you rolled {dice[0]}-{dice[1]})")
            return
        candidates = _candidate_dice(remaining, src, dst)
        if not candidates and i > best_error[0][0]:
            left = ", ".join(map(str, remaining))
            best_error[0] = (i, f"{text} cannot be made with one of the dice left ({left})")
        for die in candidates:
            error, hit = _step(variant, rules, b, src, dst, die)
            if error:
                if i > best_error[0][0]:
                    best_error[0] = (i, f"{text} with a {die}: {error}")
                continue
            rest = list(remaining)
            rest.remove(die)
            path.append((src, dst, hit))
            dfs(i + 1, rest, path, pips + die, hits + hit)
            path.pop()
            _unstep(b, src, dst, hit)

    dfs(0, dice_pool(dice), [], 0, 0)
    if found:
        return found[0]
    example = plays[0].notation or "no move"
    if short:
        used, pips = max(short)
        if plays.no_move:
            raise TurnError(f"no legal play with {dice[0]}-{dice[1]}: the turn passes")
        if used < plays.max_dice:
            if dice[0] == dice[1]:
                raise TurnError(f"you must play {plays.max_dice} of your four {dice[0]}s (for example {example})")
            raise TurnError(f"you must use both dice when you can (for example {example})")
        if pips < plays.max_pips:
            raise TurnError(
                f"when only one die can be played it must be the higher one, the {max(dice)} (for example {example})"
            )
        raise TurnError(f"that play breaks a rule of {variant.display_name}; legal plays include {example}")
    raise TurnError(best_error[0][1] or "that play cannot be made with these dice")


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

    @property
    def plays(self) -> PlaySet:
        """The legal plays of this roll."""
        if self._plays is None:
            object.__setattr__(self, "_plays", self.variant.legal_plays(self.start, self.dice, self.first_move))
        assert self._plays is not None
        return self._plays

    def _board(self) -> list[int]:
        b = board_list(self.start)
        for s, t, h in self.moves:
            b[s] -= 1
            if t == OFF:
                b[OFF] += 1
            elif h:
                b[t] = 1
            else:
                b[t] += 1
        return b

    @property
    def remaining(self) -> tuple[int, ...]:
        """The numbers still to play."""
        pool = dice_pool(self.dice)
        for d in self.dice_used:
            pool.remove(d)
        return tuple(pool)

    @property
    def position(self) -> Position:
        """The position reached so far (mover's frame)."""
        return _final(self.start, self._board(), sum(h for _, _, h in self.moves))

    @property
    def complete(self) -> bool:
        """True when the submoves so far make a whole legal play (it may be confirmed)."""
        plays = self.plays
        return (
            len(self.moves) == plays.max_dice
            and sum(self.dice_used) == plays.max_pips
            and plays.find(self.position) is not None
        )

    def _extends(self, b: list[int], remaining: list[int], used: int, pips: int, hits: int) -> bool:
        plays = self.plays
        rules = self.variant.turn_rules(self.start, self.dice, self.first_move)
        seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

        def dfs(rem: list[int], used: int, pips: int, hits: int) -> bool:
            if used == plays.max_dice:
                return pips == plays.max_pips and plays.find(_final(self.start, b, hits)) is not None
            key = (tuple(b), tuple(sorted(rem)))
            if key in seen:
                return False
            seen.add(key)
            for die in sorted(set(rem)):
                for src in range(BAR, 0, -1):
                    if b[src] <= 0:
                        continue
                    dst = max(src - die, OFF)
                    error, hit = _step(self.variant, rules, b, src, dst, die)
                    if error:
                        continue
                    rest = list(rem)
                    rest.remove(die)
                    ok = dfs(rest, used + 1, pips + die, hits + hit)
                    _unstep(b, src, dst, hit)
                    if ok:
                        return True
            return False

        return dfs(remaining, used, pips, hits)

    def options(self) -> list[tuple[int, int]]:
        """Every submove ``(src, dst)`` that may be added now (legal and still part of a legal play)."""
        out: list[tuple[int, int]] = []
        b = self._board()
        rem = list(self.remaining)
        for src in range(BAR, 0, -1):
            if b[src] <= 0:
                continue
            for die in sorted(set(rem), reverse=True):
                dst = max(src - die, OFF)
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
            raise TurnError(f"{text}: the roll {self.dice[0]}-{self.dice[1]} is used up; confirm or undo")
        candidates = _candidate_dice(rem, src, dst)
        if not candidates:
            left = ", ".join(map(str, rem))
            raise TurnError(f"{text} cannot be made with one of the dice left ({left})")
        b = self._board()
        rules = self.variant.turn_rules(self.start, self.dice, self.first_move)
        hits = sum(h for _, _, h in self.moves)
        reason = ""
        for die in candidates:
            error, hit = _step(self.variant, rules, b, src, dst, die)
            if error:
                reason = reason or f"{text} with a {die}: {error}"
                continue
            rest = list(rem)
            rest.remove(die)
            ok = self._extends(b, rest, len(self.moves) + 1, sum(self.dice_used) + die, hits + hit)
            _unstep(b, src, dst, hit)
            if ok:
                return TurnDraft(
                    self.variant,
                    self.start,
                    self.dice,
                    self.first_move,
                    (*self.moves, (src, dst, hit)),
                    (*self.dice_used, die),
                    self._plays,
                )
            reason = reason or (
                f"{text} is legal by itself but no legal play continues from it "
                f"(legal plays include {self.plays[0].notation or 'no move'})"
            )
        raise TurnError(reason)

    def undo(self) -> TurnDraft:
        """The draft without its last submove; :class:`TurnError` if there is nothing to undo."""
        if not self.moves:
            raise TurnError("nothing to undo: no checker has been moved this turn")
        return TurnDraft(
            self.variant, self.start, self.dice, self.first_move, self.moves[:-1], self.dice_used[:-1], self._plays
        )

    @property
    def notation(self) -> str:
        """The submoves so far in canonical notation."""
        return format_play(self.moves)
