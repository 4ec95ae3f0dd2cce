"""Acey-deucey (rules-family §5): every checker starts off the board, and a 1-2 earns a doublet of one's choice.

The board, the direction and the hits are backgammon's; what differs:

* **The start.** All 15 checkers of each player start off the board, in the *reserve*
  (:attr:`Position.reserve <engine.position.Position.reserve>`), and enter into the opponent's home board as a
  checker on the bar does: with a die *d* on the player's own point 25 − *d*. Entering is a submove like any other
  (``in/22``); a checker waiting in the reserve may enter at any time and checkers already on the board may move
  although others have not entered (options ``enter``: ``all-first``, no checker on the board moves until all have
  entered; ``not-past-13``, none moves onto the player's 12..1 until then).
* **The bar.** A hit checker goes to the bar and must re-enter before any other submove, entering new ones
  included (option ``bar_first=off``: it may wait).
* **Bearing off** once all 15 are home (none still to enter, none on the bar), exactly as in backgammon (option
  ``exact_bear_off``: a die larger than the highest point cannot be used).
* **The 1-2** (:meth:`AceyDeucey.next_step`): the player plays the 1 and the 2; if he used both, he names any
  doublet and plays it; if he used all four of it, he rolls again (another 1-2 repeats the chain). A play that
  bears off the last checker ends the game at once.
* **Other doublets** play four times, with no extra throw (option ``extra_throw``: ``again``, an extra throw after
  any doublet; ``all-four``, only when all four were used).
* **Scoring**: 1 point a game and no cube (option ``scoring``: ``checkers``, one point for each checker the loser
  has not borne off; ``backgammon``, gammons and backgammons as in backgammon).

The opening is the Tavli one (``opening=reroll``: one die each decides who starts, who then rolls both dice, so a
1-2 or a doublet may open) and every game starts so. The make step is the standard one: a checker entering from
the reserve leaves slot :data:`~engine.position.RESERVE`, which :meth:`AceyDeucey.submove_sources` offers. Position
IDs carry the reserve in a suffix (:mod:`engine.positionid`); ``.mat`` exports write ``in/22`` and the named doublet
as the same player's next entry (:mod:`engine.matfile`), which GNU Backgammon cannot read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from engine.i18n import N_, _, ngettext
from engine.movegen import HOME, TurnRules
from engine.plugins import hookimpl
from engine.position import BAR, OFF, POINTS, RESERVE, Position
from engine.variant import TurnStep, Variant, VariantOptionError

__all__ = ["AceyDeucey", "Entering", "ExtraThrow", "Scoring"]

#: Until every checker has entered (option ``not-past-13``), none may move onto these points of its owner.
_PAST_13 = 12


class Entering(StrEnum):
    """When checkers already on the board may move (rules-family §5.2)."""

    #: At any time, although others have not entered yet (default).
    ANY = "any"
    #: Only once all 15 have entered.
    ALL_FIRST = "all-first"
    #: At any time, but none onto the player's own points 12..1 until all have entered.
    NOT_PAST_13 = "not-past-13"


class ExtraThrow(StrEnum):
    """Whether a doublet other than the named one earns another throw (rules-family §5.6)."""

    NONE = "none"
    AGAIN = "again"
    ALL_FOUR = "all-four"


class Scoring(StrEnum):
    """What a game is worth (rules-family §5.7)."""

    GAME = "game"
    CHECKERS = "checkers"
    BACKGAMMON = "backgammon"


class AceyDeucey(Variant):
    """Acey-deucey: backgammon with every checker entering from off the board, and the 1-2 bonus."""

    name = "aceydeucey"
    display_name = N_("Acey-deucey")
    aliases = ("acey-deucey", "acey")
    summary = N_(
        "Backgammon where all 15 checkers of each player start off the board and enter into the opponent's home "
        "board as a hit checker does (a 3 enters on your 22-point); checkers on the board may move while others "
        "still wait to enter. A hit checker must re-enter before anything else. Bear off once all 15 are home. "
        "The 1-2 (acey-deucey): play the 1 and the 2, then name any doublet and play it, then roll again; the "
        "chain stops when a roll cannot be used in full. One die each decides who starts, who then rolls both "
        "dice. A game is worth 1 point; there is no cube."
    )
    checkers = 15
    start = {}
    uses_cube = False
    match_defaults = {"opening": "reroll"}
    mat_variation = "Acey-deucey"
    gnubg_compatible = False
    result_names = {1: N_("single game")}
    option_defaults = {
        "enter": Entering.ANY,
        "bar_first": True,
        "extra_throw": ExtraThrow.NONE,
        "exact_bear_off": False,
        "scoring": Scoring.GAME,
    }
    option_help = {
        "enter": N_("Acey-deucey: when board checkers may move before all have entered: any, all-first or not-past-13"),
        "bar_first": N_("Acey-deucey: a hit checker must re-enter before any other move"),
        "extra_throw": N_(
            "Acey-deucey: another throw after a doublet: none, again or all-four (when all four were used)"
        ),
        "exact_bear_off": N_("Acey-deucey: bearing off needs the exact number"),
        "scoring": N_("Acey-deucey: a game is worth 1 (game), 1 per checker left (checkers), or gammons (backgammon)"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        for key, kind in (("enter", Entering), ("extra_throw", ExtraThrow), ("scoring", Scoring)):
            try:
                self.options[key] = kind(self.options[key])
            except ValueError:
                choices = ", ".join(v.value for v in kind)
                raise VariantOptionError(
                    _("Acey-deucey option {option} is one of {choices}").format(option=repr(key), choices=choices)
                ) from None
        for key in ("bar_first", "exact_bear_off"):
            if not isinstance(self.options[key], bool):
                raise VariantOptionError(_("Acey-deucey option {option} is on or off").format(option=repr(key)))
        self._bar_first: bool = self.options["bar_first"]
        self._exact: bool = self.options["exact_bear_off"]
        enter: Entering = self.options["enter"]
        self._all_first = enter is Entering.ALL_FIRST
        self._not_past = enter is Entering.NOT_PAST_13
        self._doubles: ExtraThrow = self.options["extra_throw"]
        self._scoring: Scoring = self.options["scoring"]

    # --- the submove test ------------------------------------------------------------------------
    def submove_sources(self, b: list[int], occupied: list[int]) -> Sequence[int]:
        """The bar while a checker of mine is on it (unless ``bar_first`` is off), else the reserve first, then the
        points."""
        if b[BAR] > 0:
            if self._bar_first:
                return (BAR,)
            return (RESERVE, BAR, *occupied) if b[RESERVE] > 0 else (BAR, *occupied)
        return (RESERVE, *occupied) if b[RESERVE] > 0 else occupied

    def submove_target(self, b: list[int], src: int, die: int) -> int:
        """Where a checker of mine on ``src`` (or in the reserve) goes with ``die``, or -1."""
        if b[src] <= 0:
            return -1
        if src == RESERVE:
            if b[BAR] > 0 and self._bar_first:
                return -1
            t = BAR - die
            return t if b[t] >= -1 else -1
        if src != BAR:
            if b[BAR] > 0 and self._bar_first:
                return -1
            if self._all_first and b[RESERVE] > 0:
                return -1
        t = src - die
        if t > 0:
            if self._not_past and t <= _PAST_13 and b[RESERVE] > 0:
                return -1
            return t if b[t] >= -1 else -1
        if b[RESERVE] > 0 or b[BAR] > 0:
            return -1
        for p in range(HOME + 1, POINTS + 1):
            if b[p] > 0:
                return -1  # a checker still outside the home board
        if t < 0:
            if self._exact:
                return -1
            for p in range(src + 1, HOME + 1):
                if b[p] > 0:
                    return -1  # a larger number bears off only from the highest point
        return OFF

    def submove_error(self, b: list[int], src: int, die: int, rules: TurnRules | None) -> str | None:
        """Why the submove is illegal, in words (the same judgement as :meth:`submove_target`), or None."""
        waiting = b[RESERVE]
        bar_first = self._bar_first and b[BAR] > 0
        if src == RESERVE:
            if waiting <= 0:
                return _("you have no checker waiting to enter")
            if bar_first:
                return _("a checker on the bar must re-enter before any other move, entering new ones included")
            t = BAR - die
            return self.blocked_reason(t) if b[t] < -1 else None
        if src == BAR:
            if b[BAR] <= 0:
                return _("you have no checker on the bar")
        else:
            if not 1 <= src <= POINTS or b[src] <= 0:
                return _("you have no checker on point {point}").format(point=src)
            if bar_first:
                return _("checkers on the bar must enter first")
            if self._all_first and waiting > 0:
                return _("no checker on the board moves until all {count} have entered ({waiting} to enter)").format(
                    count=self.checkers, waiting=waiting
                )
        t = src - die
        if t > 0:
            if self._not_past and t <= _PAST_13 and waiting > 0:
                return _("no checker passes your 13-point until all {count} have entered ({waiting} to enter)").format(
                    count=self.checkers, waiting=waiting
                )
            return self.blocked_reason(t) if b[t] < -1 else None
        if waiting > 0:
            return _("you cannot bear off while a checker is still to enter ({waiting} waiting)").format(
                waiting=waiting
            )
        outside = [p for p in range(BAR, HOME, -1) if b[p] > 0]
        if outside:
            if outside[0] == BAR:
                return _("you cannot bear off while a checker is outside your home board (on the bar)")
            return _("you cannot bear off while a checker is outside your home board (on point {point})").format(
                point=outside[0]
            )
        if t < 0:
            if self._exact:
                return _("bearing off needs the exact number: a {die} bears off only from point {die}").format(die=die)
            higher = [p for p in range(HOME, src, -1) if b[p] > 0]
            if higher:
                return _(
                    "a {die} bears off from point {point} only when no checker stands higher, "
                    "but point {higher} is occupied"
                ).format(die=die, point=src, higher=higher[0])
        return None

    # --- the turn ----------------------------------------------------------------------------------
    def next_step(self, dice: tuple[int, int], used: int, named: bool) -> TurnStep | None:
        """After a 1-2 used in full, a doublet to name; after a named doublet used in full, another throw (and, with
        option ``extra_throw``, after a thrown doublet)."""
        if named:
            return TurnStep.ROLL_AGAIN if used == 4 else None
        if {dice[0], dice[1]} == {1, 2}:
            return TurnStep.NAME_DOUBLE if used == 2 else None
        doublet = dice[0] == dice[1]
        if doublet and (self._doubles is ExtraThrow.AGAIN or (self._doubles is ExtraThrow.ALL_FOUR and used == 4)):
            return TurnStep.ROLL_AGAIN
        return None

    # --- results ------------------------------------------------------------------------------------
    @property
    def results(self) -> Mapping[int, str]:
        """One point a game; by option, one per checker left, or backgammon's single game, gammon and backgammon."""
        if self._scoring is Scoring.CHECKERS:
            return {n: f"game with {n} checker{'s' if n != 1 else ''} left" for n in range(1, self.checkers + 1)}
        if self._scoring is Scoring.BACKGAMMON:
            return {1: N_("single game"), 2: N_("gammon"), 3: N_("backgammon")}
        return self.result_names

    def result_name(self, level: int) -> str:
        """The name of a result level in the active language; with option ``scoring=checkers``, "game with 3 checkers
        left" (its plural forms come from the catalog: :attr:`results` keeps the English)."""
        if self._scoring is Scoring.CHECKERS and level in self.results:
            return ngettext("game with {count} checker left", "game with {count} checkers left", level).format(
                count=level
            )
        return super().result_name(level)

    def game_result(self, pos: Position) -> int:
        """The level of a game the roller of ``pos`` has borne off (see :attr:`results`)."""
        if self._scoring is Scoring.CHECKERS:
            return self.checkers - pos.off[1]
        if self._scoring is Scoring.GAME or pos.off[1] > 0:
            return 1
        # A backgammon: the loser still has a checker on the bar, to enter, or in the winner's home board.
        if pos.bar[1] or pos.reserve[1] or any(pos.board[p - 1] < 0 for p in range(1, HOME + 1)):
            return 3
        return 2

    def most_at_stake(self, pos: Position) -> int:
        """The most the roller of ``pos`` could still lose: one per checker not borne off, with that option."""
        if self._scoring is Scoring.CHECKERS:
            return self.checkers - pos.off[0]
        if self._scoring is Scoring.GAME:
            return 1
        return super().most_at_stake(pos)


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(AceyDeucey)
