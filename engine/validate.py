"""Checking a submitted play and saying which rule it breaks.

A play typed by a player is accepted when its moves can be made one die at a time, each submove legal
in the position reached so far, and the result is one of the legal plays (rules.md §1.5 "Engine API
note"). Moves may be written in any order that is legal; a move written through an intermediate point
(``24/21/20``) is made in exactly that order, while ``24/20`` may use the dice either way. A play is the position it
leaves, so moves written without a point on the way are also accepted when no order of their own steps is legal but
the position they describe is a legal play reached otherwise (Fevga's ``22/18`` with 1-1, made 20/19/18 22/21/20).

Judging takes time linear in the length of the text, and little of it, whatever the text (Discord lets a
string option carry 6,000 characters):

* a text longer than :data:`MAX_PLAY_CHARS` is refused before it is read;
* the text is read once (:func:`~engine.notation.parse_play`, one pass) into written moves;
* every written move (a hop between two written points, each ``(n)`` repeat and each leg of a
  ``8/7/6`` chain counting) uses at least one die, so more of them than the roll has dice (two, or four
  for a doublet) is refused before anything is searched;
* the at most four written hops are then made one die at a time, in every order the dice and the written
  chains allow, and each resulting position is matched against the legal plays. That search has at most
  341 steps (:data:`MAX_SEARCH_STEPS` is a safety ceiling never reached); a failure is only recorded
  during it, and the one message chosen is written once at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import i18n
from .i18n import _, ngettext
from .movegen import HIT, Play, PlaySet, Submove, board_list
from .notation import NotationError, Segment, format_play, parse_play, point_name
from .position import BAR, OFF, RESERVE, Position, pip_point

if TYPE_CHECKING:  # pragma: no cover
    from .variant import Variant

__all__ = ["IllegalPlay", "MAX_PLAY_CHARS", "MAX_SEARCH_STEPS", "check_play", "written_hops"]

#: The longest typed play that is read. The longest legal play of any rule set, even written one submove
#: at a time with a roll prefix and commas (``6-6: 25/19*, 25/19*, 25/19*, 25/19*``), is under 50.
MAX_PLAY_CHARS = 200
#: A ceiling on the steps of one search, never reached. A step makes one submove with one of the remaining
#: dice (a doublet's equal dice count once) for one of the at most four written hops, so a doublet's search
#: has at most 1 + 4 + 16 + 64 + 256 = 341 steps (four hops that each need two dice, so none finishes) and
#: two different dice at most 1 + 4 + 8 = 13.
MAX_SEARCH_STEPS = 1000


class IllegalPlay(ValueError):
    """A submitted play that is not legal; ``str()`` names the rule it breaks."""


@dataclass(frozen=True, slots=True)
class _Hop:
    src: int
    dst: int
    chain: int
    index: int  # position within its chain: hop k may only be made after hop k - 1
    hit_marked: bool


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{dice[0]}-{dice[1]}"


def written_hops(segments: Sequence[Segment]) -> int:
    """How many dice the written moves need at the least: one per hop, ``(n)`` repeats counted."""
    return sum(max(s.count, 0) * (len(s.points) - 1) for s in segments)


def check_play(
    variant: Variant,
    pos: Position,
    dice: tuple[int, int],
    text: str | Sequence[Segment],
    first_move: bool = False,
    plays: PlaySet | None = None,
) -> Play:
    """Return the legal play ``text`` describes, or raise :class:`IllegalPlay` with the reason."""
    if isinstance(text, str):
        if len(text) > MAX_PLAY_CHARS:
            raise IllegalPlay(
                _("that play is {length} characters long; a play is at most {limit} characters").format(
                    length=i18n.number(len(text)), limit=MAX_PLAY_CHARS
                )
            )
        try:
            segments = parse_play(text)
        except NotationError as exc:
            raise IllegalPlay(str(exc)) from None
    else:
        segments = list(text)

    if not segments:
        if plays is None:
            plays = variant.legal_plays(pos, dice, first_move)
        if plays.no_move:
            return plays[0]
        example = plays[0].notation
        raise IllegalPlay(
            _("you have a legal play with {dice} (for example {example}); you must move").format(
                dice=_dice_text(dice), example=example
            )
        )

    if not variant.geometry.has_bar and any(BAR in s.points for s in segments):
        raise IllegalPlay(_("{rule_set} has no bar").format(rule_set=variant.local_name()))

    pool = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    n_hops = written_hops(segments)
    if n_hops > len(pool):
        raise IllegalPlay(
            _("a roll of {dice} makes at most {count} moves, one per die, not {written}").format(
                dice=_dice_text(dice), count=len(pool), written=i18n.number(n_hops)
            )
        )

    hops: list[_Hop] = []
    for chain_no, seg in enumerate(s for s in segments if len(s.points) > 1 for _k in range(s.count)):
        for k in range(len(seg.points) - 1):
            hops.append(_Hop(seg.points[k], seg.points[k + 1], chain_no, k, seg.hits[k + 1]))

    sums = _subset_sums(pool)
    for hop in hops:
        need = pip_point(hop.src) - hop.dst
        if (hop.dst != OFF and need not in sums) or (hop.dst == OFF and max(sums) < need and need not in sums):
            raise IllegalPlay(
                _("{move} is {pips}, which your dice {dice} cannot make").format(
                    move=_written(hop), pips=_pips(need), dice=_dice_text(dice)
                )
            )

    if plays is None:
        plays = variant.legal_plays(pos, dice, first_move)
    search = _Search(variant, pos, dice, hops, plays, first_move)
    search.run()
    if search.accepted:
        return search.best()
    same = _same_position(variant, pos, hops, plays)
    if same is not None:
        return same
    reason = search.reason()
    if plays.no_move:
        raise IllegalPlay(
            _("no legal play with {dice}: {reason}; the turn passes").format(
                dice=_dice_text(dice), reason=reason or _("nothing can move")
            )
        )
    if search.complete:
        raise IllegalPlay(_maximal_usage_reason(plays, dice, search.complete))
    raise IllegalPlay(reason or _("that play cannot be made with these dice"))


def _same_position(variant: Variant, pos: Position, hops: list[_Hop], plays: PlaySet) -> Play | None:
    """The legal play leaving the position the written moves describe, when no order of their steps is legal by itself:
    each checker taken straight from where it is written to leave to where it is written to arrive.

    A play is the position it leaves (rules.md §1.5): ``22/18`` with 1-1 is accepted when the checker cannot go that
    way (in Fevga, through a point that would complete the own starting quarter) but the same position is reached
    legally otherwise (20/19/18 and 22/21/20). Only moves written without a point on the way qualify (``24/19/13``
    says which way the checker goes), and written hit marks must be on landing points that hit.
    """
    b = board_list(pos)
    chains: dict[int, list[_Hop]] = {}
    for hop in hops:
        chains.setdefault(hop.chain, []).append(hop)
    if any(len(chain) > 1 for chain in chains.values()):
        return None  # a point written on the way says which way the checker goes
    tokens: list[tuple[int, int]] = []
    for (hop,) in chains.values():
        src, dst = hop.src, hop.dst
        if not (1 <= src <= BAR or src == RESERVE) or b[src] <= 0:
            return None
        tokens.append((dst, variant.make_submove(b, src, dst)))
    play = plays.find(Position.trusted(tuple(b)))
    if play is None:
        return None
    marked = {h.dst for h in hops if h.hit_marked}
    if marked - {dst for dst, token in tokens if token & HIT}:
        return None
    return play


def _subset_sums(pool: list[int]) -> set[int]:
    sums = {0}
    for d in pool:
        sums |= {s + d for s in sums}
    sums.discard(0)
    return sums


def _maximal_usage_reason(plays: PlaySet, dice: tuple[int, int], made: list[tuple[int, int]]) -> str:
    example = plays[0].notation or _("no move")
    used, pips = max(made)
    hi, lo = max(dice), min(dice)
    if used < plays.max_dice:
        if hi == lo:
            return _("you must play {count} of your four {die}s when you can (for example {example})").format(
                count=plays.max_dice, die=hi, example=example
            )
        return _("you must use both dice when you can (for example {example})").format(example=example)
    if pips < plays.max_pips:
        return _("when only one die can be played it must be the higher one, the {die} (for example {example})").format(
            die=hi, example=example
        )
    return _("that play breaks a rule of the game; legal plays include {example}").format(example=example)


def _no_dice_left(hop: _Hop, dice: tuple[int, int]) -> str:
    return _("{move}: no dice left for it (you rolled {dice})").format(move=_written(hop), dice=_dice_text(dice))


def _pips(n: int) -> str:
    return ngettext("{count} pip", "{count} pips", n).format(count=n)


def _written(hop: _Hop) -> str:
    return f"{point_name(hop.src)}/{point_name(hop.dst)}"


def _broken_rule(hop: _Hop, at: int, to: int, die: int, error: str) -> str:
    """The move as the player wrote it; a step of it they did not write is told as a part of it."""
    if at != hop.src:
        return _("{move} by way of point {point} (then a {die}): {error}").format(
            move=_written(hop), point=point_name(at), die=die, error=error
        )
    if max(to, OFF) != hop.dst:
        return _("{move}, starting with a {die}: {error}").format(move=_written(hop), die=die, error=error)
    return _("{move} with a {die}: {error}").format(move=_written(hop), die=die, error=error)


def _short_of_pips(hop: _Hop, at: int, remaining: list[int]) -> str:
    dice_left = ", ".join(map(str, remaining))
    if at == hop.src:
        return _("{move} is {pips}, which the dice left ({dice}) cannot make").format(
            move=_written(hop), pips=_pips(pip_point(at) - hop.dst), dice=dice_left
        )
    return _("{move}: the last {pips}, from point {point}, cannot be made with the dice left ({dice})").format(
        move=_written(hop), pips=_pips(at - hop.dst), point=point_name(at), dice=dice_left
    )


class _Search:
    """Depth-first search for an order of the written moves and a die for each submove.

    There are at most four written hops (``check_play`` refuses more than the dice), so the search is small.
    A failure is kept as the function that would write it and its arguments; only the one finally chosen
    is written (:meth:`reason`).
    """

    def __init__(
        self, variant: Variant, pos: Position, dice: tuple[int, int], hops: list[_Hop], plays: PlaySet, first_move: bool
    ) -> None:
        self.variant = variant
        self.pos = pos
        self.dice = dice
        self.hops = hops
        self.plays = plays
        self.rules = variant.turn_rules(pos, dice, first_move)
        self.b = board_list(pos)
        self.done = [False] * len(hops)
        self.at = [h.src for h in hops]
        self.path: list[Submove] = []
        self.accepted: list[tuple[int, frozenset[int], Play]] = []  # (mismatched marks, marks on no hit, play)
        self.complete: list[tuple[int, int]] = []  # (dice used, pips) of complete but non-maximal plays
        self.failure: tuple[Callable[..., str], tuple[object, ...]] | None = None
        self.failure_rank = -1
        self.steps = 0

    def run(self) -> None:
        remaining = [self.dice[0]] * 4 if self.dice[0] == self.dice[1] else list(self.dice)
        self._next(remaining, 0, 0)

    def best(self) -> Play:
        """The play written, its hit marks matching best; refused when each way of making it marks a hit (``*``)
        where no checker is hit (README: a play whose marks are wrong is refused; an unmarked hit is fine)."""
        self.accepted.sort(key=lambda item: (len(item[1]), item[0]))
        _mismatched, false_marks, play = self.accepted[0]
        if false_marks:
            point = point_name(min(false_marks))
            raise IllegalPlay(
                _("{point}* marks a hit, but no checker is hit on {point}: leave the * out ({play})").format(
                    point=point, play=format_play(play.moves)
                )
            )
        return play

    def reason(self) -> str | None:
        """The most telling failure met, written out (None when there was none)."""
        if self.failure is None:
            return None
        write, args = self.failure
        return write(*args)

    def _fail(self, depth: int, rule: bool, write: Callable[..., str], *args: object) -> None:
        """Remember the most telling failure: a broken rule beats dice arithmetic, then the deepest wins."""
        rank = (2 * depth + 1) if rule else 2 * depth
        rank += 100 if rule else 0
        if rank > self.failure_rank:
            self.failure = (write, args)
            self.failure_rank = rank

    def _next(self, remaining: list[int], made: int, pips: int) -> None:
        """Make one more submove: any unfinished written move may advance by any remaining die."""
        self.steps += 1
        if self.steps > MAX_SEARCH_STEPS or len(self.accepted) >= 4:
            return
        if all(self.done):
            self._finish(made, pips)
            return
        b = self.b
        for i, hop in enumerate(self.hops):
            if self.done[i] or (hop.index and not self.done[i - 1]):
                continue  # finished, or the earlier part of its written chain comes first
            at = self.at[i]
            if not remaining:
                self._fail(made, False, _no_dice_left, hop, self.dice)
                continue
            stepped = False
            for k, d in enumerate(remaining):
                if d in remaining[:k]:
                    continue  # the same number again gives the same submove
                to = pip_point(at) - d
                if hop.dst != OFF and to < hop.dst:
                    continue
                stepped = True
                error = self.variant.submove_error(b, at, d, self.rules)
                if error:
                    self._fail(made, True, _broken_rule, hop, at, to, d, error)
                    continue
                dst = self.variant.submove_target(b, at, d)
                token = self.variant.make_submove(b, at, dst)
                self.path.append((at, dst, bool(token & HIT)))
                self.at[i] = dst
                self.done[i] = dst == hop.dst
                self._next(remaining[:k] + remaining[k + 1 :], made + 1, pips + d)
                self.done[i] = False
                self.at[i] = at
                self.path.pop()
                self.variant.unmake_submove(b, at, dst, token)
            if not stepped:
                self._fail(made, False, _short_of_pips, hop, at, remaining)

    def _finish(self, made: int, pips: int) -> None:
        final = Position.trusted(tuple(self.b))
        play = self.plays.find(final)
        if play is None:
            self.complete.append((made, pips))
            return
        marks = {h.dst for h in self.hops if h.hit_marked}
        # Where this way of making the play hits, or the generator's way of making it does: in Plakoto a chain such
        # as 20/18*/14* is two checkers (the pinner on 18 leaves, freeing the checker under it, and another re-pins
        # it), so its marks are right although the written order of the chain hits only on 14.
        hit_points = {t for _s, t, h in self.path if h} | {t for _s, t, h in play.moves if h}
        self.accepted.append((len(marks ^ hit_points), frozenset(marks - hit_points), play))


def describe(plays: PlaySet) -> list[str]:
    """Every legal play in notation (for error messages and listings)."""
    return [format_play(p.moves) for p in plays]
