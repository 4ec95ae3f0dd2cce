"""Plakoto (rules-family §3), Tavli's second game: a lone checker landed on is pinned, not hit.

Both players start with all 15 checkers on their own 24-point and move towards each other, as in backgammon,
but nothing is ever hit and there is no bar. The rule set owns its move arithmetic (the make step of
:class:`~engine.variant.Variant`) and a per-point state, the pins of :class:`~engine.position.Position`:

* a checker landing on a point that holds exactly one opposing checker, and nothing else, **pins** it: the
  pinned checker stays underneath and cannot move while at least one of the pinner's checkers is on top; when
  the last one leaves (moving on, or borne off) it is free again;
* a point is closed to a player when two or more opposing checkers hold it, or when an opposing checker (even
  one) pins one of his there; a player may always add checkers to his own pinning stack;
* bearing off needs every checker home **and none of them pinned** (option ``pinned_home_bears_off``: a checker
  pinned inside the home board does not stop it, and still counts as occupying its point);
* **the mother**: a player's last checker on his starting point, pinned there, loses him the game at 2 points
  (option ``mother_points=3``: "as a backgammon"), unless the pinner still has checkers on his own starting
  point; if both mothers end up pinned the game is a draw. This is judged on the position a whole play leaves
  (:meth:`Plakoto.game_over`).

Scoring as in all Tavli: 1 point, 2 when the loser has borne off none; no cube. ``*`` in the notation marks a
pin (``13/9*``). ``.mat`` exports carry ``[Variation "Plakoto"]`` (GNU Backgammon has no such game). Position
IDs carry the pins in a suffix (:mod:`engine.positionid`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.geometry import Geometry
from engine.i18n import N_, _
from engine.movegen import HIT, HOME, TurnRules
from engine.position import OFF, PINS, POINTS, Position
from engine.variant import GameOver, Variant, VariantOptionError

__all__ = ["Plakoto", "START", "FREED"]

#: Every checker starts on its owner's 24-point; the last one there is the mother.
START = POINTS
#: The bit of a make step's undo token that says the mover's last pinner left a point and freed the checker under it.
FREED = 2
#: How a game ends by a pinned mother (:attr:`GameOver.how <engine.variant.GameOver.how>`: English, translated where
#: shown).
_MOTHER = N_("a mother is pinned (the last checker on its starting point)")
_BOTH_MOTHERS = N_("both mothers are pinned")


class Plakoto(Variant):
    """Plakoto: 15 checkers on the 24-point, moving towards each other; a lone checker landed on is pinned."""

    name = "plakoto"
    display_name = N_("Plakoto")
    aliases = ("tapa", "mahbusa", "pin-game")
    summary = N_(
        "Each player starts with all 15 checkers on his 24-point and the players move towards each other. "
        "Nothing is ever hit: a checker that lands on a lone opposing checker pins it, and the pinned checker "
        "cannot move until every checker on top of it has left. Two or more checkers close a point, and so "
        "does a checker pinning one of the opponent's. Bear off once all 15 are home and none of them is "
        "pinned. Pinning the opponent's last checker on his starting point (the mother) wins 2 points, unless "
        "you still have checkers on your own starting point; both mothers pinned is a draw. A win is 1 point, "
        "2 if the loser bore off none; there is no cube."
    )
    checkers = 15
    start = {START: 15}
    geometry = Geometry(Geometry.mirrored().opposite, has_bar=False, kind="mirrored, no bar")
    point_blocked_by = 2
    hitting = False
    pinning = True
    uses_cube = False
    match_defaults = {"opening": "winner-reroll"}
    mat_variation = "Plakoto"
    gnubg_compatible = False
    result_names = {1: N_("single game"), 2: N_("gammon"), 3: N_("backgammon")}
    option_defaults = {
        # A checker pinned inside the home board does not stop bearing off (it still occupies its point).
        "pinned_home_bears_off": False,
        # What a pinned mother costs: 2 points, or 3 ("as a backgammon").
        "mother_points": 2,
    }
    option_help = {
        "pinned_home_bears_off": N_("Plakoto: a checker pinned inside the home board does not stop bearing off"),
        "mother_points": N_("Plakoto: what a pinned mother costs, 2 or 3 points"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not isinstance(self.options["pinned_home_bears_off"], bool):
            raise VariantOptionError(_("Plakoto option 'pinned_home_bears_off' is true or false"))
        if self.options["mother_points"] not in (2, 3) or isinstance(self.options["mother_points"], bool):
            raise VariantOptionError(
                _("Plakoto option 'mother_points' is 2 or 3, not {value}").format(
                    value=repr(self.options["mother_points"])
                )
            )
        self._home_pins_ok = self.options["pinned_home_bears_off"]
        self._mother = int(self.options["mother_points"])

    # --- the make step --------------------------------------------------------------------------
    def submove_target(self, b: list[int], src: int, die: int) -> int:
        """Where a checker on ``src`` goes with ``die``, or -1: closed points and bearing off as in the docstring."""
        if b[src] <= 0 or src > POINTS:
            return -1  # no checker of mine on top there (a pinned one never moves); no bar
        t = src - die
        if t > 0:
            v = b[t]
            if v >= 0 or (v == -1 and not b[PINS] >> t & 1):
                return t
            return -1
        if max(b[HOME + 1 : POINTS + 1]) > 0:
            return -1  # a checker still outside the home board
        pins = b[PINS]
        if pins and not self._may_bear_off(b, pins):
            return -1
        if t < 0:
            for p in range(src + 1, HOME + 1):
                if b[p] > 0 or (b[p] < 0 and pins >> p & 1):
                    return -1  # a larger number bears off only from the highest point
        return OFF

    def _may_bear_off(self, b: list[int], pins: int) -> bool:
        if max(b[HOME + 1 : POINTS + 1]) > 0:
            return False  # a checker still outside the home board
        while pins:  # each pinned checker: a pinned one of mine stops bearing off (outside home, or by default)
            low = pins & -pins
            p = low.bit_length() - 1
            if b[p] < 0 and (p > HOME or not self._home_pins_ok):
                return False
            pins ^= low
        return True

    def make_submove(self, b: list[int], src: int, dst: int) -> int:
        """Move one checker: its last pinner leaving frees the checker under it; landing on a lone opposing
        checker pins it (the token's HIT bit, the notation's ``*``)."""
        token = 0
        if b[src] == 1 and b[PINS] >> src & 1:
            b[src] = -1
            b[PINS] ^= 1 << src
            token = FREED
        else:
            b[src] -= 1
        if dst == OFF:
            b[OFF] += 1
            return token
        v = b[dst]
        if v == -1 and not b[PINS] >> dst & 1:
            b[dst] = 1
            b[PINS] |= 1 << dst
            return token | HIT
        b[dst] = v + 1
        return token

    def unmake_submove(self, b: list[int], src: int, dst: int, token: int) -> None:
        if dst == OFF:
            b[OFF] -= 1
        elif token & HIT:
            b[dst] = -1
            b[PINS] ^= 1 << dst
        else:
            b[dst] -= 1
        if token & FREED:
            b[src] = 1
            b[PINS] |= 1 << src
        else:
            b[src] += 1

    def submove_error(self, b: list[int], src: int, die: int, rules: TurnRules | None) -> str | None:
        """Why the submove is illegal, in words (the same judgement as :meth:`submove_target`), or None."""
        if not 1 <= src <= POINTS:
            return _("Plakoto has no bar") if src == 25 else _("there is no point {point}").format(point=src)
        pins = b[PINS]
        if b[src] <= 0:
            if b[src] < 0 and pins >> src & 1:
                return _(
                    "your checker on point {point} is pinned: it cannot move while an opposing checker is on it"
                ).format(point=src)
            return _("you have no checker on point {point}").format(point=src)
        t = src - die
        if t > 0:
            if b[t] < 0 and pins >> t & 1:
                return _("point {point} is closed: an opposing checker pins one of yours there").format(point=t)
            if b[t] <= -2:
                return self.blocked_reason(t)
            return None
        for p in range(POINTS, HOME, -1):
            if b[p] > 0 or (b[p] < 0 and pins >> p & 1):
                return _("you cannot bear off while a checker is outside your home board (on point {point})").format(
                    point=p
                )
        if not self._home_pins_ok:
            for p in range(HOME, 0, -1):
                if b[p] < 0 and pins >> p & 1:
                    return _("you cannot bear off while one of your checkers is pinned (on point {point})").format(
                        point=p
                    )
        if t < 0:
            for p in range(HOME, src, -1):
                if b[p] > 0 or (b[p] < 0 and pins >> p & 1):
                    return _(
                        "a {die} bears off from point {point} only when no checker stands higher, "
                        "but point {higher} is occupied"
                    ).format(die=die, point=src, higher=p)
        return None

    # --- positions and the end of the game ------------------------------------------------------
    @property
    def results(self) -> Mapping[int, str]:
        """A single game and a gammon; a backgammon too when a pinned mother costs 3."""
        return {level: name for level, name in self.result_names.items() if level <= max(2, self._mother)}

    def game_over(self, pos: Position) -> GameOver | None:
        """The end of the game on the position a play leaves (rules-family §3.7, the mover's frame)."""
        raw = pos.key()
        if raw[0] >= self.checkers:
            return GameOver(1, self.game_result(pos))
        pins = raw[PINS]
        if not pins & (1 << START | 1 << 1):
            return None
        mine_pinned = bool(pins >> START & 1) and raw[START] < 0
        theirs_pinned = bool(pins >> 1 & 1) and raw[1] > 0
        if mine_pinned and theirs_pinned:
            return GameOver(0, 0, _BOTH_MOTHERS)
        if theirs_pinned and raw[START] <= 0:
            return GameOver(1, self._mother, _MOTHER)
        if mine_pinned and raw[1] >= 0:
            return GameOver(-1, self._mother, _MOTHER)
        return None

    def game_result(self, pos: Position) -> int:
        """Borne off: 1, or 2 when the loser has borne off none (no triple in Tavli)."""
        return 1 if pos.off[1] > 0 else 2

    def most_at_stake(self, pos: Position) -> int:
        """A single game once a checker is off; 3 while a 3-point mother can still be lost; otherwise 2."""
        if pos.off[0] > 0:
            return 1
        if self._mother > 2 and (pos.board[START - 1] > 0 or pos.is_pinned(START)):
            return self._mother
        return 2
