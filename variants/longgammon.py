"""Longgammon, long nardy (rules.md §2): everything from the head, the same way round, no hitting.

The rule set is data on the :class:`~engine.variant.Variant` (15 checkers on the head, the opponent's
numbering rotated by 12, a single checker holds a point, nothing is hit) plus a :class:`LonggammonTurn`
object that the generic move generator consults before every submove:

* **Head rule.** At most one checker leaves the head (the player's own 24-point) per turn; on the player's
  first turn of the game a roll of 6-6, 4-4 or 3-3 lets two checkers leave it.
* **Six-block rule.** Nobody may build six or more consecutive points unless at least one opposing checker
  is already in front of (past) the block. The rule holds after every submove, so a block may not be made
  even for a moment within a turn. "Consecutive" is counted along the *opponent's* route, which in the
  roller's numbering runs 12, 11, ..., 1, 24, 23, ..., 13: a block through the roller's 1/24 corner counts,
  one through the 12/13 seam does not (rules.md §2.6, an interpretation; option ``block_across_corner``).
  Once the opponent has borne off a checker, not all of his checkers can be blocked and the rule is void.

Scoring: a single game (oin) is 1; a mars, when the loser has borne off no checker, is 2. Koks is optional
(``koks=True``; off by default, as in the Russian federation's sport rules): it is worth 3 when the loser
has borne off no checker and still has a checker in his first quarter, his own points 19 to 24 where the
head stands (the long-nardy counterpart of a backgammon; sources disagree on koks, rules.md §2.8 [U]).

``.mat`` exports carry ``[Variation "Longgammon"]``, the IBF discipline's name. GNU Backgammon has no long
nardy and does not recognise the tag (it keeps it as a comment), so such files are for our own tools and
human readers, never for import into GNU Backgammon.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.geometry import Geometry
from engine.i18n import N_, _
from engine.movegen import TurnRules
from engine.plugins import hookimpl
from engine.position import OFF, POINTS, Position, PositionError
from engine.variant import Variant, VariantOptionError

__all__ = ["Longgammon", "LonggammonTurn", "HEAD", "BLOCK"]

#: The head: every checker starts on its owner's 24-point.
HEAD = 24
#: Six consecutive points make a block.
BLOCK = 6
_NOTHING_RISKY = (False,) * (POINTS + 2)
#: Opponent-route numbers of the two halves that meet at the roller's 1/24 corner (12 | 13).
_CORNER_LOW_HALF_TOP = 12


class Longgammon(Variant):
    """Long nardy: 15 checkers on the head, both sides moving the same way round, a lone checker holds a point."""

    name = "longgammon"
    display_name = N_("Longgammon")
    aliases = ("long", "long-nardy", "longnardy", "nardy", "narde", "long-backgammon")
    summary = N_(
        "Each player starts with all 15 checkers on the head, his own 24-point, in opposite corners; both "
        "move the same way round. A single checker holds a point: nothing is ever hit, and no checker may "
        "land where an opposing checker stands. Only one checker may leave the head each turn, except that "
        "on a player's first turn 6-6, 4-4 or 3-3 lets two leave. No one may build six points in a row "
        "unless an opposing checker is already in front of them, not even for a moment within a turn. "
        "Both dice must be played if possible, else the higher. Bear off once all 15 are home. "
        "A mars (the loser bore off none) counts double."
    )
    checkers = 15
    start = {HEAD: 15}
    # Both players move the same way round: the opponent's numbering is mine turned by half the board.
    geometry = Geometry.rotated(12)
    # A single checker blocks a point, and nothing is ever hit.
    point_blocked_by = 1
    hitting = False
    uses_cube = True
    mat_variation = "Longgammon"
    gnubg_compatible = False
    result_names = {1: N_("single game"), 2: N_("mars"), 3: N_("koks")}
    option_defaults = {
        # Koks (3 points) when the mars-losing side still has a checker in his first quarter. Off by default.
        "koks": False,
        # A block through my 1/24 corner counts: it is consecutive on the opponent's route.
        "block_across_corner": True,
        # The doublets that let two checkers leave the head on a player's first turn.
        "first_turn_doublets": (6, 4, 3),
    }
    option_help = {
        "koks": N_("Longgammon: a koks (3 points) when the loser bore off none and has a checker in his first quarter"),
        "block_across_corner": N_("Longgammon: a block through your 1/24 corner counts for the six-block rule"),
        "first_turn_doublets": N_("Longgammon: the doublets that let two checkers leave the head on a first turn"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        for flag in ("koks", "block_across_corner"):
            if not isinstance(self.options[flag], bool):
                raise VariantOptionError(
                    _("Longgammon option {option} is true or false, not {value}").format(
                        option=repr(flag), value=repr(self.options[flag])
                    )
                )
        doublets = self.options["first_turn_doublets"]
        if not (
            isinstance(doublets, tuple | list | frozenset | set)
            and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in doublets)
        ):
            raise VariantOptionError(
                _("Longgammon option 'first_turn_doublets' lists die numbers 1 to 6, not {value}").format(
                    value=repr(doublets)
                )
            )
        self.options["first_turn_doublets"] = tuple(sorted(set(doublets), reverse=True))
        # My points in the order the opponent travels them: _route[q] is my number for his point q.
        self._route: tuple[int, ...] = tuple([0] + [self.geometry.my_point(q) for q in range(1, POINTS + 1)])
        self._q_of: tuple[int, ...] = self.geometry.opposite
        self._risky_by_front: dict[int, tuple[bool, ...]] = {}

    def _risky(self, front: int) -> tuple[bool, ...]:
        """For each slot of a working board: could making it complete a block, given the front-most opposing checker?"""
        risky = self._risky_by_front.get(front)
        if risky is None:
            risky = tuple(1 <= p <= POINTS and self._q_of[p] < front for p in range(POINTS + 2))
            self._risky_by_front[front] = risky
        return risky

    def turn_rules(self, pos: Position, dice: tuple[int, int], first_move: bool) -> TurnRules | None:
        """The head and six-block rules for this turn; None when neither can restrict any submove."""
        head = pos.board[HEAD - 1] if pos.board[HEAD - 1] > 0 else 0
        doublet_exception = first_move and dice[0] == dice[1] and dice[0] in self.options["first_turn_doublets"]
        head_limit = 2 if doublet_exception else 1
        # Once the opponent has borne off a checker, not all of his checkers can be blocked.
        blocks_matter = pos.off[1] == 0
        if head <= head_limit and not blocks_matter:
            return None
        return LonggammonTurn(self, pos, head, head_limit, blocks_matter)

    @property
    def results(self) -> Mapping[int, str]:
        """A single game (oin) and a mars; a koks too when that option is on."""
        if self.options["koks"]:
            return self.result_names
        return {level: name for level, name in self.result_names.items() if level < 3}

    def most_at_stake(self, pos: Position) -> int:
        """A single game once a checker is off; a koks only while a checker is still in the first quarter (it can
        never come back: nothing is hit); otherwise a mars."""
        if pos.off[0] > 0:
            return 1
        if self.options["koks"] and any(pos.board[p - 1] > 0 for p in range(POINTS - BLOCK + 1, POINTS + 1)):
            return 3
        return 2

    def game_result(self, pos: Position) -> int:
        """1 for a single game, 2 for a mars (the loser bore off none), 3 for a koks when that option is on."""
        if pos.off[1] > 0:
            return 1
        if self.options["koks"]:
            # Koks: the loser still has a checker in his first quarter (his own 19..24).
            for mine in range(1, POINTS + 1):
                if pos.board[mine - 1] < 0 and self.geometry.their_point(mine) > POINTS - BLOCK:
                    return 3
        return 2

    def validate_position(self, pos: Position) -> None:
        """Also refuse a six-block that no game can reach (no opposing checker in front, none borne off)."""
        super().validate_position(pos)
        for mine, seen in ((True, pos), (False, self.flip(pos))):
            if seen.off[1] == 0:
                run = _unblocked_run(self, list(seen.board), _front(self, seen))
                if run:
                    points = ", ".join(map(str, run))
                    if mine:
                        text = _(
                            "the player on roll has a block of six points ({points}) with no opposing checker in "
                            "front of it, which the rules never allow"
                        )
                    else:
                        text = _(
                            "the opponent has a block of six points ({points}) with no opposing checker in front of "
                            "it, which the rules never allow"
                        )
                    raise PositionError(text.format(points=points))


def _front(variant: Longgammon, pos: Position) -> int:
    """The lowest opponent-route number holding an opposing checker (25 when there is none)."""
    board = pos.board
    route = variant._route
    for q in range(1, POINTS + 1):
        if board[route[q] - 1] < 0:
            return q
    return POINTS + 1


def _unblocked_run(variant: Longgammon, board: list[int], front: int) -> list[int]:
    """My points (opponent's route order, back to front) of a block of six no opposing checker has passed."""
    route = variant._route
    q = 1
    while q <= POINTS:
        if board[route[q] - 1] <= 0:
            q += 1
            continue
        lo = q
        while q < POINTS and board[route[q + 1] - 1] > 0 and _joined(variant, q):
            q += 1
        if q - lo + 1 >= BLOCK and front > lo:
            return [route[k] for k in range(q, lo - 1, -1)]
        q += 1
    return []


def _joined(variant: Longgammon, q: int) -> bool:
    """Whether opponent-route points q and q + 1 count as consecutive for the six-block rule."""
    return q != _CORNER_LOW_HALF_TOP or bool(variant.options["block_across_corner"])


class LonggammonTurn:
    """The head rule and the six-block rule for one turn (a :class:`~engine.movegen.TurnRules`).

    Both are decided before a submove is made, from what it would change: the head rule counts the
    checkers already gone from the head (none ever returns), and a six-block can only appear through the
    point a checker lands on, so only the run through that point is examined. The opponent's checkers do
    not move during my turn, so the front-most of them is found once per turn.
    """

    __slots__ = ("head_start", "head_limit", "blocks_matter", "front", "route", "q_of", "floor", "ceiling", "risky")

    def __init__(self, variant: Longgammon, pos: Position, head: int, head_limit: int, blocks_matter: bool) -> None:
        self.head_start = head
        self.head_limit = head_limit
        self.blocks_matter = blocks_matter
        self.front = _front(variant, pos)
        self.route = variant._route
        self.q_of = variant._q_of
        across = bool(variant.options["block_across_corner"])
        # Runs may not cross these opponent-route numbers when the 1/24 corner does not join them.
        self.floor = (1, 1) if across else (1, _CORNER_LOW_HALF_TOP + 1)
        self.ceiling = (POINTS, POINTS) if across else (_CORNER_LOW_HALF_TOP, POINTS)
        # risky[p]: whether making my point p could complete a forbidden block (no opposing checker past it).
        self.risky = variant._risky(self.front) if blocks_matter else _NOTHING_RISKY

    def _head_spent(self, b: list[int], src: int) -> bool:
        # Only one checker may leave the head this turn (two on a first turn with 6-6, 4-4 or 3-3).
        return src == HEAD and self.head_start - b[HEAD] >= self.head_limit

    def _block_run(self, b: list[int], src: int, dst: int) -> tuple[int, int] | None:
        """The run (lo, hi) of opponent-route numbers a move to ``dst`` would complete as a forbidden block."""
        if not self.blocks_matter or dst == OFF or b[dst] > 0:
            return None  # no new point is made, and a point given up never builds a block
        q = self.q_of[dst]
        if q > self.front:
            # An opposing checker is already past this point, so past any block through it.
            return None
        route = self.route
        half = 0 if q <= _CORNER_LOW_HALF_TOP else 1
        floor = self.floor[half]
        ceiling = self.ceiling[half]
        vacated = src if b[src] == 1 else -1
        lo = q
        while lo > floor:
            m = route[lo - 1]
            if m == vacated or b[m] <= 0:
                break
            lo -= 1
        hi = q
        while hi < ceiling:
            m = route[hi + 1]
            if m == vacated or b[m] <= 0:
                break
            hi += 1
        # Six points in a row with every opposing checker still behind them: a forbidden block.
        if hi - lo + 1 >= BLOCK:
            return lo, hi
        return None

    def allow(self, b: list[int], src: int, dst: int) -> bool:
        """Whether the submove keeps the head rule and builds no forbidden block (checked before it is made)."""
        if src == HEAD and self.head_start - b[HEAD] >= self.head_limit:
            return False
        # Only a point newly made, with no opposing checker past it yet, can complete a forbidden block.
        if b[dst] or not self.risky[dst]:
            return True
        return self._block_run(b, src, dst) is None

    def after(self, b: list[int]) -> bool:
        """Always true: :meth:`allow` already judged the position the submove leaves."""
        return True

    def reason(self, b: list[int], src: int, dst: int) -> str | None:
        """The rule the submove breaks, in the players' words, or None."""
        if self._head_spent(b, src):
            if self.head_limit == 1:
                return _("only one checker may leave the head this turn")
            return _("only two checkers may leave the head this turn, even on a first turn with 6-6, 4-4 or 3-3")
        run = self._block_run(b, src, dst)
        if run is not None:
            lo, hi = run
            points = ", ".join(str(self.route[q]) for q in range(hi, lo - 1, -1))
            text = _("this would build a block of six points ({points}) with no opposing checker in front of it")
            return text.format(points=points)
        return None


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Longgammon)
