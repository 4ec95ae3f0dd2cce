"""Fevga (rules-family §4), Tavli's third game: everything from the 24-point, the same way round, nothing is hit.

The board is Longgammon's (the opponent's numbering rotated by 12, his start is our 12; a single checker holds a
point, nothing is ever hit, no bar), with three rules of its own, checked before every submove by a
:class:`FevgaTurn` (:class:`~engine.movegen.TurnRules`), so a position is legal if some order of the submoves
reaches it:

* **The first checker.** Until the player's first checker has reached the opponent's starting quarter (his own
  points 12..7, or beyond), no other checker may leave his starting point: a checker may leave the 24-point only
  if it does not hold exactly 14 checkers, or one of his checkers stands on his 1..12 (option
  ``first_checker_past_start``: on his 1..11, past the opponent's start; ``first_checker=off``: no such rule).
* **The own starting quarter.** A player may never hold all six points 19..24 at once (option ``own_quarter=off``:
  he may).
* **Blocking.** After no submove may a player hold six or more consecutive points (consecutive along the
  opponent's route, also through the 1/24 corner) with every opposing checker behind them, unless the opponent
  has borne off a checker (option ``block_rule``: ``start-quarter`` forbids only holding all six of the
  opponent's starting quarter, ``moultezim`` holding more than four points there, ``none`` no block rule).

Scoring as in all Tavli: 1 point, 2 when the loser has borne off none; no cube. ``.mat`` exports carry
``[Variation "Fevga"]`` (GNU Backgammon has no such game).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from engine.geometry import Geometry
from engine.i18n import N_, _
from engine.movegen import TurnRules
from engine.position import OFF, POINTS, Position
from engine.variant import Variant, VariantOptionError

__all__ = ["Fevga", "FevgaTurn", "BlockRule", "START", "BLOCK"]

#: Every checker starts on its owner's 24-point.
START = POINTS
#: Six consecutive points make a block.
BLOCK = 6
#: My points of the opponent's starting quarter (his 24..19).
_THEIR_QUARTER = tuple(range(7, 13))
#: My own starting quarter.
_MY_QUARTER = tuple(range(19, 25))


class BlockRule(StrEnum):
    """Which blocks Fevga forbids (rules-family §4.4)."""

    #: Six consecutive points with every opposing checker behind them, unless he has borne off (default).
    PROHIBIT = "prohibit"
    #: Only all six points of the opponent's starting quarter.
    START_QUARTER = "start-quarter"
    #: More than four points of the opponent's starting quarter (Moultezim).
    MOULTEZIM = "moultezim"
    #: No block is forbidden (Gul bara's default).
    NONE = "none"


class Fevga(Variant):
    """Fevga: 15 checkers on the 24-point each, both sides moving the same way round; a single checker holds a point."""

    name = "fevga"
    display_name = N_("Fevga")
    aliases: ClassVar[tuple[str, ...]] = ("feuga",)
    summary = N_(
        "Each player starts with all 15 checkers on his 24-point, in opposite corners, and both move the same "
        "way round. Nothing is ever hit: a single checker holds a point. No second checker may leave the start "
        "until the first has reached the opponent's starting quarter; nobody may hold all six points of his own "
        "starting quarter, nor six points in a row with every opposing checker behind them. Both dice must be "
        "played if possible, else the higher. A win is 1 point, 2 if the loser bore off none; there is no cube."
    )
    checkers = 15
    start = {START: 15}
    geometry = Geometry.rotated(12)
    point_blocked_by = 1
    hitting = False
    uses_cube = False
    match_defaults = {"opening": "winner-reroll"}
    mat_variation = "Fevga"
    gnubg_compatible = False
    result_names = {1: N_("single game"), 2: N_("gammon")}
    option_defaults = {
        "first_checker_past_start": False,
        "block_rule": BlockRule.PROHIBIT,
        "first_checker": True,
        "own_quarter": True,
    }
    option_help = {
        "first_checker_past_start": N_(
            "Fevga: the first checker must pass the opponent's start (his 24) to free yours"
        ),
        "block_rule": N_("Fevga: which blocks are forbidden: prohibit, start-quarter, moultezim or none"),
        "first_checker": N_("Fevga: no second checker leaves the start until the first has reached the far quarter"),
        "own_quarter": N_("Fevga: nobody may hold all six points of his own starting quarter"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        for key in ("first_checker_past_start", "first_checker", "own_quarter"):
            if not isinstance(self.options[key], bool):
                raise VariantOptionError(
                    _("{rule_set} option {option} is true or false").format(
                        rule_set=self.local_name(), option=repr(key)
                    )
                )
        try:
            self.options["block_rule"] = BlockRule(self.options["block_rule"])
        except ValueError:
            choices = ", ".join(r.value for r in BlockRule)
            raise VariantOptionError(
                _("Fevga option 'block_rule' is one of {choices}").format(choices=choices)
            ) from None
        #: The highest of my points the first checker must reach to free the start.
        self.free_from = 11 if self.options["first_checker_past_start"] else 12
        # My points in the order the opponent travels them: route[q] is my number for his point q.
        self.route: tuple[int, ...] = tuple([0] + [self.geometry.my_point(q) for q in range(1, POINTS + 1)])
        self.q_of: tuple[int, ...] = self.geometry.opposite

    def turn_rules(self, pos: Position, dice: tuple[int, int], first_move: bool) -> TurnRules | None:
        """The three rules for this turn; None when none of them can restrict a submove."""
        board = pos.board
        first = (
            self.options["first_checker"] and board[START - 1] >= 14 and not any(v > 0 for v in board[: self.free_from])
        )
        quarter = self.options["own_quarter"] and sum(v for v in board[18:] if v > 0) >= 6
        rule = self.options["block_rule"]
        blocks = rule is not BlockRule.NONE and (rule is not BlockRule.PROHIBIT or pos.off[1] == 0)
        if not (first or quarter or blocks):
            return None
        return FevgaTurn(self, pos, first, quarter, blocks)

    def game_result(self, pos: Position) -> int:
        """1, or 2 when the loser has borne off none."""
        return 1 if pos.off[1] > 0 else 2


class FevgaTurn:
    """Fevga's three rules for one turn, judged before each submove from what it would change."""

    __slots__ = ("first", "quarter", "blocks", "rule", "free_from", "front", "route", "q_of")

    def __init__(self, variant: Fevga, pos: Position, first: bool, quarter: bool, blocks: bool) -> None:
        self.first = first
        self.quarter = quarter
        self.blocks = blocks
        self.rule: BlockRule = variant.options["block_rule"]
        self.free_from = variant.free_from
        self.route = variant.route
        self.q_of = variant.q_of
        # The front-most opposing checker, as his route number (the opponent's checkers do not move in my turn).
        self.front = next((q for q in range(1, POINTS + 1) if pos.board[self.route[q] - 1] < 0), POINTS + 1)

    def _first_checker(self, b: list[int], src: int) -> bool:
        """Whether leaving the start now breaks the first-checker rule."""
        return src == START and b[START] == 14 and not any(b[p] > 0 for p in range(1, self.free_from + 1))

    def _fills_quarter(self, b: list[int], src: int, dst: int) -> bool:
        """Whether the submove makes the player hold all six points of his own starting quarter."""
        if not 19 <= dst <= 24 or b[dst] > 0:
            return False
        return all(p == dst or (b[p] > 0 and not (p == src and b[p] == 1)) for p in _MY_QUARTER)

    def _block(self, b: list[int], src: int, dst: int) -> list[int] | None:
        """The points (mine, back to front) of a block the submove would make that the block rule forbids."""
        if dst == OFF or b[dst] > 0:
            return None  # no new point is made
        vacated = src if b[src] == 1 else -1
        if self.rule is not BlockRule.PROHIBIT:
            if dst not in _THEIR_QUARTER:
                return None
            held = [p for p in _THEIR_QUARTER if p == dst or (b[p] > 0 and p != vacated)]
            limit = BLOCK if self.rule is BlockRule.START_QUARTER else 5
            return held[::-1] if len(held) >= limit else None
        q = self.q_of[dst]
        if q > self.front:
            return None  # an opposing checker is already past this point
        route = self.route
        lo = q
        while lo > 1 and route[lo - 1] != vacated and b[route[lo - 1]] > 0:
            lo -= 1
        hi = q
        while hi < POINTS and route[hi + 1] != vacated and b[route[hi + 1]] > 0:
            hi += 1
        if hi - lo + 1 >= BLOCK:
            return [route[k] for k in range(hi, lo - 1, -1)]
        return None

    def allow(self, b: list[int], src: int, dst: int) -> bool:
        """Whether the submove keeps the three rules (checked before it is made)."""
        if self.first and self._first_checker(b, src):
            return False
        if self.quarter and self._fills_quarter(b, src, dst):
            return False
        return not (self.blocks and self._block(b, src, dst))

    def after(self, b: list[int]) -> bool:
        """Always true: :meth:`allow` already judged the position the submove leaves."""
        return True

    def reason(self, b: list[int], src: int, dst: int) -> str | None:
        """The rule the submove breaks, in the players' words, or None."""
        if self.first and self._first_checker(b, src):
            if self.free_from == 11:
                return _(
                    "no second checker may leave your starting point until the first has reached your 11-point or "
                    "beyond"
                )
            return _(
                "no second checker may leave your starting point until the first has reached the opponent's starting "
                "quarter"
            )
        if self.quarter and self._fills_quarter(b, src, dst):
            return _("you may not hold all six points of your starting quarter (19 to 24)")
        run = self._block(b, src, dst) if self.blocks else None
        if run is not None:
            points = ", ".join(map(str, run))
            if self.rule is BlockRule.MOULTEZIM:
                text = _("you may hold at most four points of the opponent's starting quarter ({points})")
            elif self.rule is BlockRule.START_QUARTER:
                text = _("you may not hold all six points of the opponent's starting quarter ({points})")
            else:
                text = _("this would build a block of six points ({points}) with every opposing checker behind it")
            return text.format(points=points)
        return None
