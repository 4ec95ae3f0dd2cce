"""The rule-set contract: what a variant plugin describes and what the engine derives from it.

A rule set is a subclass of :class:`Variant`, in the manner of python-chess's variants: a data rule set is a few
class attributes (names, checkers, starting points, geometry, what blocks a point, whether blots are hit, the
results a game can end with and their names), and a rule set with rules of its own overrides hooks that answer
"nothing special" unless overridden. The engine's algorithms (legal plays, validation, turn drafts, replay,
notation, IDs, boards) are written once against this description and never ask which rule set they run.

The hooks, by what they decide:

* **One submove** on the working board (a list copy of a position's tuple, :mod:`engine.position`):
  :meth:`~Variant.submove_target` (where a checker may go with a die, or -1), :meth:`~Variant.submove_sources`
  (where checkers may move from: the bar first), :meth:`~Variant.make_submove` / :meth:`~Variant.unmake_submove`
  (**the make step**: what moving it does, a hit to the bar by default; the one place a rule set's move
  arithmetic lives, used by the legal-play search, validation, drafts, replay, formats and boards) and
  :meth:`~Variant.submove_error` (the same judgement in words). A rule set that keeps the standard make step and
  test (``standard_moves``) is searched by the fast paths of :mod:`engine.movegen`.
* **One turn**: :meth:`~Variant.turn_rules` (constraints checked around every submove: a head rule, a block rule);
  :meth:`~Variant.legal_plays` may be overridden as a whole.
* **The end of a game**: :meth:`~Variant.game_over` (who wins and what, or a draw, on the position a play
  leaves: bearing off, Plakoto's mother), :attr:`~Variant.results` and :meth:`~Variant.result_name` (levels and
  their names), :meth:`~Variant.game_result` (the level of a borne-off win), :meth:`~Variant.most_at_stake`.
* **Turn stages**: :meth:`~Variant.next_stage` says what follows a stage (a play) within the same turn, given the
  turn's :class:`TurnContext` (the player's turn number in the game, the stages already played this turn, the match
  options): the next stage's dice fixed by the rule set (Gul bara's cascade: 3-3, then 4-4, ...), a doublet the
  player names (Acey-deucey's 1-2), another roll, the unplayed rest handed to the opponent, or the end of the turn
  (None). :meth:`~Variant.next_step` is its short form for rule sets that need no context. The match keeps the
  stage (``engine.match.Phase.NAME_DOUBLE``, ``MatchState.stage``), so turns with extra steps are replayed, stored
  and shown like any other.
* **A match**: ``uses_cube``, :attr:`~Variant.match_defaults` (match options the rule set plays by unless the
  players choose otherwise), :attr:`~Variant.forbidden_options` (match options it refuses) and
  :meth:`~Variant.for_game` (the rule set each game of a match is played by: itself, or a cycle such as Tavli's
  Portes, Plakoto, Fevga).
* **State beyond the points**: a position carries pins and a reserve of checkers not yet entered
  (:class:`~engine.position.Position`); ``pinning`` says a rule set pins, and a ``start`` with fewer than
  ``checkers`` checkers starts the rest in the reserve. A reserve checker is moved from the source
  :data:`~engine.position.RESERVE` (written ``in``: ``in/22``) by a rule set whose :meth:`~Variant.submove_sources`
  offers it; its pips count from the bar (:func:`~engine.position.pip_point`), and the standard make step moves it
  like any other checker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from .geometry import Geometry
from .i18n import N_, _, listed
from .movegen import HIT, HOME, Play, PlaySet, Submove, TurnRules, board_list, generate, generate_general
from .position import (
    BAR,
    OFF,
    PINS,
    POINTS,
    RESERVE,
    THEIR_BAR,
    THEIR_RESERVE,
    Position,
    PositionError,
)

__all__ = [
    "Variant",
    "VariantOptionError",
    "GameOver",
    "TurnStep",
    "NextStage",
    "TurnContext",
    "CUBE_OPTIONS",
    "MOVE_HOOKS",
]

_Options = TypeVar("_Options")

#: Match options that mean something only with the doubling cube: a rule set without it refuses them.
CUBE_OPTIONS = ("jacoby", "beavers", "auto_doubles", "holland")
#: Match options that say how the cube is used, meaningless without it: a rule set without the cube sets them to
#: their defaults (the cube itself off).
_CUBE_DETAILS = ("cube", "max_cube", "beaver_limit", "holland_rolls", "holland_counts_opening", "holland_counts_dances")
#: The hooks of the make step and the submove test: a rule set overriding none of them has ``standard_moves``.
MOVE_HOOKS = ("make_submove", "unmake_submove", "submove_target", "submove_sources")


class VariantOptionError(ValueError):
    """An option the rule set does not have, or a value it does not accept."""


@dataclass(frozen=True, slots=True)
class GameOver:
    """How a game ends on a position (:meth:`Variant.game_over`), from the side of the player who just moved.

    ``winner``: +1 that player, -1 the opponent, 0 nobody (a draw). ``level``: the result level (the points are
    level x cube; 0 for a draw). ``how``: in words, when the game ended otherwise than by bearing off ("a mother
    is pinned"); empty for a game borne off.
    """

    winner: int
    level: int
    how: str = ""

    @property
    def draw(self) -> bool:
        return self.winner == 0


class TurnStep(StrEnum):
    """What follows a stage (a play) within the same turn (:meth:`Variant.next_stage`); nothing (None) ends the turn."""

    #: The player names any doublet (1-1 to 6-6) and plays it as if thrown (Acey-deucey's 1-2).
    NAME_DOUBLE = "name double"
    #: The player throws the dice again.
    ROLL_AGAIN = "roll again"
    #: The player plays the dice the rule set fixes (:attr:`NextStage.dice`; Gul bara's cascade: 4-4 after 3-3).
    FIXED_DICE = "fixed dice"
    #: The turn ends and the opponent plays the dice the rule set hands him (:attr:`NextStage.dice`, perhaps fewer
    #: than four of a doublet: :attr:`NextStage.count`) before his own roll; he plays them under the rule set's
    #: :meth:`~Variant.next_stage` too (with :attr:`TurnContext.handed`).
    TO_OPPONENT = "to opponent"


#: The most stages one turn may have: a rule set whose stages would go on past it (a bug) ends the turn there.
MAX_STAGES = 32


@dataclass(frozen=True, slots=True)
class NextStage:
    """What follows a stage: ``step`` with, for :attr:`TurnStep.FIXED_DICE` and :attr:`TurnStep.TO_OPPONENT`, the
    dice of the next stage and how many of them are played (``count``: None for the roll's own, two or four; fewer
    for the rest of a doublet cut short)."""

    step: TurnStep
    dice: tuple[int, int] | None = None
    count: int | None = None

    @classmethod
    def fixed(cls, dice: tuple[int, int], count: int | None = None) -> NextStage:
        """The next stage plays ``dice`` (the rule set fixes them; no throw, nothing named)."""
        return cls(TurnStep.FIXED_DICE, dice, count)

    @classmethod
    def to_opponent(cls, dice: tuple[int, int], count: int | None = None) -> NextStage:
        """The turn ends; the opponent first plays ``count`` of ``dice`` (all of them when None)."""
        return cls(TurnStep.TO_OPPONENT, dice, count)


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What a stage's hooks know of the turn it belongs to (:meth:`Variant.next_stage`).

    ``turn``: the player's own turn number in this game (1 = his first turn; a game's opening roll played at once
    is his turn 1). ``stages``: the stages already played this turn, each ``(dice, count, used)`` (the stage being
    judged not included). ``options``: the match options (:class:`~engine.match.MatchOptions`; None outside a
    match). ``named``: this stage's dice were a doublet the player named; ``fixed``: the rule set fixed them;
    ``handed``: the opponent handed them over (they precede the player's own roll). ``count``: how many dice this
    stage has (None: the roll's two or four).
    """

    turn: int = 1
    stages: tuple[tuple[tuple[int, int], int | None, int], ...] = ()
    options: Any = None
    named: bool = False
    fixed: bool = False
    handed: bool = False
    count: int | None = None


class Variant:
    """Base class of every rule set. Subclasses override class attributes and, where needed, hooks."""

    #: Unique lower-case name used in commands, storage and plugin registration.
    name: ClassVar[str] = ""
    #: Name shown to players.
    display_name: ClassVar[str] = ""
    #: Other names players may type.
    aliases: ClassVar[tuple[str, ...]] = ()
    #: A short rules summary for ``/rules`` (a few sentences, in the game's own words).
    summary: ClassVar[str] = ""
    #: Checkers per player.
    checkers: ClassVar[int] = 15
    #: Starting checkers per player in the player's own numbering: ``{point: count}``. Checkers beyond these start
    #: off the board, in the reserve (entered later by a rule set that has such a start).
    start: ClassVar[Mapping[int, int]] = {}
    #: How the two numberings relate and whether there is a bar.
    geometry: ClassVar[Geometry] = Geometry.mirrored()
    #: A point with at least this many opposing checkers cannot be landed on.
    point_blocked_by: ClassVar[int] = 2
    #: Whether landing on a lone opposing checker hits it (sends it to the bar).
    hitting: ClassVar[bool] = True
    #: Whether landing on a lone opposing checker pins it where it stands (Plakoto; the rule set's make step does it).
    pinning: ClassVar[bool] = False
    #: Whether two submoves of different checkers leave the same position in either order whenever both orders are
    #: legal (the legal-play search then skips orders it need not try). A rule set where the order matters says no.
    submoves_commute: ClassVar[bool] = True
    #: Whether the doubling cube is used.
    uses_cube: ClassVar[bool] = True
    #: Match options (fields of :class:`~engine.match.MatchOptions`) this rule set plays by unless the players
    #: choose otherwise: ``{"opening": "reroll"}``. They replace the global defaults.
    match_defaults: ClassVar[Mapping[str, Any]] = {}
    #: Match options this rule set refuses to change from its default, with the reason in words:
    #: ``{"holland": "there is no Crawford game"}``. A rule set without the cube refuses the cube's rules itself.
    forbidden_options: ClassVar[Mapping[str, str]] = {}
    #: The ``[Variation "..."]`` tag of ``.mat`` exports; None writes no tag (standard backgammon).
    mat_variation: ClassVar[str | None] = None
    #: Whether GNU Backgammon Position IDs mean the same board in GNU Backgammon itself.
    gnubg_compatible: ClassVar[bool] = True
    #: Members per side: 1 for individual play, 2 for team rule sets where one member acts per game.
    team_size: ClassVar[int] = 1
    #: Options this rule set accepts, with their defaults.
    option_defaults: ClassVar[Mapping[str, Any]] = {}
    #: The results a game can end with, by level (the points multiplier: level x cube), in the rule set's words:
    #: English, marked ``N_`` for the catalog (:meth:`result_name` says them in the active language). A rule set
    #: whose options change them overrides :attr:`results`.
    result_names: ClassVar[Mapping[int, str]] = {1: N_("single game"), 2: N_("gammon"), 3: N_("backgammon")}
    #: The match length a challenge gets when the players name none (None: the server's default length).
    default_length: ClassVar[int | None] = None
    #: Set for each subclass: whether it keeps the standard make step and submove test (:data:`MOVE_HOOKS`).
    standard_moves: ClassVar[bool] = True
    #: Set for each subclass: whether it overrides :meth:`submove_sources`.
    own_sources: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass has only the aliases it declares itself: the names players type belong to one rule set, so a
        # rule set built on another (``class Mine(Backgammon)``) never inherits its "bg" (see engine.plugins).
        if "aliases" not in cls.__dict__:
            cls.aliases = ()
        cls.standard_moves = all(getattr(cls, hook) is getattr(Variant, hook) for hook in MOVE_HOOKS)
        cls.own_sources = cls.submove_sources is not Variant.submove_sources

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            if not self.option_defaults:
                raise VariantOptionError(
                    _("{rule_set} has no option {option} (options: none)").format(
                        rule_set=self.local_name(), option=repr(unknown[0])
                    )
                )
            raise VariantOptionError(
                _("{rule_set} has no option {option} (options: {options})").format(
                    rule_set=self.local_name(), option=repr(unknown[0]), options=", ".join(sorted(self.option_defaults))
                )
            )
        self.options: dict[str, Any] = {**self.option_defaults, **options}
        # Landing on my point t is allowed when b[t] >= this; a lone opposing checker there is then hit.
        self._land_min = -(self.point_blocked_by - 1) if self.hitting else 0

    def __repr__(self) -> str:
        extra = {k: v for k, v in self.options.items() if self.option_defaults.get(k) != v}
        args = ", ".join(f"{k}={v!r}" for k, v in extra.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.options.items()))))

    def local_name(self) -> str:
        """The name shown to players in the active language (:attr:`display_name` through the catalog; the
        registered :attr:`name` when there is no display name)."""
        return _(self.display_name) if self.display_name else self.name

    # --- positions ------------------------------------------------------------------------------
    def start_position(self) -> Position:
        """The starting position, seen from the player on roll (checkers ``start`` leaves out wait in the reserve)."""
        board = [0] * POINTS
        for point, n in self.start.items():
            board[point - 1] += n
        for point, n in self.start.items():
            q = self.geometry.my_point(point)
            if board[q - 1] > 0:
                raise PositionError(f"{self.name}: both players start on my point {q}")
            board[q - 1] -= n
        waiting = self.checkers - sum(self.start.values())
        return Position(tuple(board), reserve=(waiting, waiting))

    def flip(self, pos: Position) -> Position:
        """The same board seen by the opponent: the turn passes."""
        return self.geometry.flip(pos)

    def pips(self, pos: Position) -> tuple[int, int]:
        """Pip counts (roller, opponent)."""
        return self.geometry.pips(pos)

    def race(self, pos: Position) -> bool:
        """Whether no checker of either side can meet one of the other's again: nothing can be hit, pinned or blocked
        any more, so only the dice matter (a pure race). Derived from the geometry: a checker of mine still to travel
        my points up to ``m`` and one of the opponent's still to travel his points up to ``q`` are apart when no
        point is on both ways (checkers on the bar or waiting to enter travel from 25; pinned ones from where they
        lie)."""
        raw = pos.key()
        pins = raw[PINS]
        mine = BAR if raw[BAR] or raw[RESERVE] else 0
        theirs: list[int] = [BAR] if raw[THEIR_BAR] or raw[THEIR_RESERVE] else []
        their = self.geometry.opposite
        for p in range(1, POINTS + 1):
            v = raw[p]
            pinned = pins >> p & 1
            if v > 0 or (v < 0 and pinned):
                mine = max(mine, p)
            if v < 0 or (v > 0 and pinned):
                theirs.append(their[p])
        if not mine or not theirs:
            return True
        # The lowest of the opponent's numbers on my way (my points 1..m), for every m.
        lowest = [POINTS + 1] * (BAR + 1)
        for m in range(1, BAR + 1):
            lowest[m] = min(lowest[m - 1], their[m] if m <= POINTS else POINTS + 1)
        return all(lowest[mine] > q for q in theirs)

    def validate_position(self, pos: Position) -> None:
        """Raise :class:`PositionError` if the position cannot occur in this rule set."""
        name = self.local_name()
        mine, theirs = pos.totals()
        if mine != self.checkers:
            raise PositionError(
                _("the player on roll has {total} checkers; {rule_set} uses {count}").format(
                    total=mine, rule_set=name, count=self.checkers
                )
            )
        if theirs != self.checkers:
            raise PositionError(
                _("the opponent has {total} checkers; {rule_set} uses {count}").format(
                    total=theirs, rule_set=name, count=self.checkers
                )
            )
        if not self.geometry.has_bar and any(pos.bar):
            raise PositionError(_("{rule_set} has no bar").format(rule_set=name))
        if not self.hitting and any(pos.bar):
            raise PositionError(
                _("nothing is ever hit in {rule_set}, so no checker can be on the bar").format(rule_set=name)
            )
        if pos.pins and not self.pinning:
            raise PositionError(_("nothing is ever pinned in {rule_set}").format(rule_set=name))
        if any(pos.reserve) and sum(self.start.values()) >= self.checkers:
            raise PositionError(
                _("every checker starts on the board in {rule_set}: none can wait to enter").format(rule_set=name)
            )
        if all(pos.bar):
            k = self.point_blocked_by
            i_am_shut_out = all(-pos.board[BAR - d - 1] >= k for d in range(1, 7))
            they_are_shut_out = all(pos.board[self.geometry.my_point(BAR - d) - 1] >= k for d in range(1, 7))
            if i_am_shut_out and they_are_shut_out:
                raise PositionError(_("both players are on the bar against closed boards"))

    # --- one submove: the make step -------------------------------------------------------------
    def submove_sources(self, b: list[int], occupied: list[int]) -> Sequence[int]:
        """Where checkers may move from on working board ``b``, in the order the search tries them: the bar while a
        checker of mine is on it, else ``occupied`` (my points, highest first, then points reached this turn)."""
        return (BAR,) if b[BAR] > 0 else occupied

    def submove_target(self, b: list[int], src: int, die: int) -> int:
        """Where a checker of mine on ``src`` goes with ``die`` on working board ``b`` (0 = off), or -1 when the
        board does not allow it (turn rules apart). :meth:`submove_error` says why in words."""
        if src == BAR:
            if b[BAR] <= 0:
                return -1
        elif b[BAR] > 0 or b[src] <= 0:
            return -1
        t = src - die
        if t > 0:
            return t if b[t] >= self._land_min else -1
        for p in range(HOME + 1, BAR + 1):
            if b[p] > 0:
                return -1  # a checker still outside the home board
        if t < 0:
            for p in range(src + 1, HOME + 1):
                if b[p] > 0:
                    return -1  # a larger number bears off only from the highest point
        return OFF

    def make_submove(self, b: list[int], src: int, dst: int) -> int:
        """Make one submove (already judged legal) on working board ``b``: the rule set's move arithmetic.

        Returns an undo token for :meth:`unmake_submove`; its bit :data:`~engine.movegen.HIT` says the checker
        landed on a lone opposing one (the notation's ``*``). Standard: a lone opposing checker is hit to the bar.
        """
        b[src] -= 1
        if dst == OFF:
            b[OFF] += 1
            return 0
        v = b[dst]
        if v < 0:
            b[dst] = 1
            b[THEIR_BAR] += 1
            return HIT
        b[dst] = v + 1
        return 0

    def unmake_submove(self, b: list[int], src: int, dst: int, token: int) -> None:
        """Take back :meth:`make_submove` (``token`` is what it returned)."""
        b[src] += 1
        if dst == OFF:
            b[OFF] -= 1
        elif token & HIT:
            b[dst] = -1
            b[THEIR_BAR] -= 1
        else:
            b[dst] -= 1

    def apply(self, pos: Position, moves: Sequence[Submove]) -> Position:
        """Make the submoves (already known legal) with the make step; the result is still in the mover's frame.

        Derived, not a hook: a rule set changes what a submove does in :meth:`make_submove`.
        """
        b = board_list(pos)
        make = self.make_submove
        for s, t, _hit in moves:
            make(b, s, t)
        return Position.trusted(tuple(b))

    def blocked_reason(self, point: int) -> str:
        if self.point_blocked_by == 1:
            return _("point {point} is blocked: a single opposing checker holds a point").format(point=point)
        return _("point {point} is blocked: {count} or more opposing checkers hold it").format(
            point=point, count=self.point_blocked_by
        )

    def submove_error(self, b: list[int], src: int, die: int, rules: TurnRules | None) -> str | None:
        """Why moving a checker from ``src`` by ``die`` on working board ``b`` is illegal, or None (turn rules too)."""
        if src == RESERVE:
            return _("you have no checker waiting to enter")
        if src == BAR:
            if b[BAR] <= 0:
                return _("you have no checker on the bar")
        elif b[BAR] > 0:
            return _("checkers on the bar must enter first")
        elif not 1 <= src <= POINTS or b[src] <= 0:
            return _("you have no checker on point {point}").format(point=src)
        dst = src - die
        if dst > 0:
            if b[dst] < self._land_min:
                return self.blocked_reason(dst)
        else:
            outside = [p for p in range(POINTS, HOME, -1) if b[p] > 0]
            if outside:
                return _("you cannot bear off while a checker is outside your home board (on point {point})").format(
                    point=outside[0]
                )
            if b[BAR] > 0:
                return _("you cannot bear off while a checker is outside your home board (on the bar)")
            if dst < 0:
                higher = [p for p in range(HOME, src, -1) if b[p] > 0]
                if higher:
                    return _(
                        "a {die} bears off from point {point} only when no checker stands higher, "
                        "but point {higher} is occupied"
                    ).format(die=die, point=src, higher=higher[0])
            dst = OFF
        if rules is not None:
            return rules.reason(b, src, dst)
        return None

    # --- one turn -------------------------------------------------------------------------------
    def turn_rules(self, pos: Position, dice: tuple[int, int], first_move: bool) -> TurnRules | None:
        """Extra per-turn constraints (a head rule, a block rule); None when there are none."""
        return None

    def next_step(self, dice: tuple[int, int], used: int, named: bool) -> TurnStep | None:
        """What follows a play of ``dice`` that used ``used`` of them, within the same turn: None (the turn passes),
        :attr:`TurnStep.NAME_DOUBLE` or :attr:`TurnStep.ROLL_AGAIN`. ``named``: the dice were a doublet the player
        named. Not asked when the play ended the game. Standard: nothing follows."""
        return None

    def next_stage(self, dice: tuple[int, int], used: int, context: TurnContext) -> NextStage | TurnStep | None:
        """What follows a stage played with ``dice`` that used ``used`` of them, within the same turn: None (the turn
        ends), a :class:`TurnStep` (:attr:`~TurnStep.NAME_DOUBLE`, :attr:`~TurnStep.ROLL_AGAIN`) or a
        :class:`NextStage` (dice the rule set fixes, or the rest handed to the opponent). ``context`` is the turn's
        :class:`TurnContext`. Not asked when the play ended the game. Standard: :meth:`next_step`."""
        return self.next_step(dice, used, context.named)

    def stage_plays(
        self, pos: Position, dice: tuple[int, int], count: int | None = None, first_move: bool = False
    ) -> PlaySet:
        """Every legal play of a stage: :meth:`legal_plays`, or with ``count`` fewer than the roll's dice (the rest of
        a doublet handed over), every play of that many of them."""
        if count is None or count >= (4 if dice[0] == dice[1] else 2):
            return self.legal_plays(pos, dice, first_move)
        check_dice(dice)
        return generate_general(self, pos, dice, self.turn_rules(pos, dice, first_move), count=count)

    def legal_plays(self, pos: Position, dice: tuple[int, int], first_move: bool = False) -> PlaySet:
        """Every legal play for the roller of ``pos`` with ``dice`` (rules.md §1.5)."""
        check_dice(dice)
        return generate(self, pos, dice, first_move)

    def check_play(
        self, pos: Position, dice: tuple[int, int], play: str, first_move: bool = False, plays: PlaySet | None = None
    ) -> Play:
        """The legal play the notation describes, or :class:`~engine.validate.IllegalPlay` naming the rule.

        Any text is judged quickly: one longer than ``engine.validate.MAX_PLAY_CHARS`` is refused unread, and
        one writing more moves than the dice is refused before any search (:mod:`engine.validate`).
        """
        from .validate import check_play

        return check_play(self, pos, dice, play, first_move, plays)

    # --- a match --------------------------------------------------------------------------------
    def for_game(self, k: int) -> Variant:
        """The rule set game ``k`` (from 0) of a match of this rule set is played by: itself. A match rule set that
        plays several (Tavli: Portes, Plakoto, Fevga in turn) returns each game's; its own name and match rules
        (``uses_cube``, ``match_defaults``, ratings) stand for the match."""
        return self

    def games_cycle(self) -> tuple[Variant, ...]:
        """The rule sets of a match's games in the order they come round (derived from :meth:`for_game`): just this
        one, or Tavli's Portes, Plakoto and Fevga."""
        games = [self.for_game(k) for k in range(12)]
        for period in range(1, len(games)):
            if all(games[k] is games[k % period] for k in range(len(games))):
                return tuple(games[:period])
        return tuple(games)

    def match_options(self, options: _Options) -> _Options:
        """``options`` (a :class:`~engine.match.MatchOptions`) with :attr:`match_defaults` in place of the global
        defaults: an option left at the global default takes the rule set's. Without the cube, the cube is off and the
        details of its rules (its limit, the beaver limit, the Holland counts), which mean nothing then, are the
        defaults."""
        if not self.match_defaults and self.uses_cube:
            return options
        changes = {
            f.name: self.match_defaults[f.name]
            for f in dataclasses.fields(options)  # type: ignore[arg-type]
            if f.name in self.match_defaults and getattr(options, f.name) == f.default
        }
        if not self.uses_cube:
            defaults = {f.name: f.default for f in dataclasses.fields(options)}  # type: ignore[arg-type]
            for name in _CUBE_DETAILS:
                value = False if name == "cube" else defaults.get(name)
                if name in defaults and getattr(options, name) != value:
                    changes[name] = value
        return dataclasses.replace(options, **changes) if changes else options  # type: ignore[type-var]

    def forbidden(self) -> dict[str, str]:
        """The match options this rule set refuses, with why: :attr:`forbidden_options`, and the cube's rules when
        it has no cube."""
        forbidden = dict(self.forbidden_options)
        if not self.uses_cube:
            for name in CUBE_OPTIONS:
                forbidden.setdefault(
                    name, _("{rule_set} is played without the doubling cube").format(rule_set=self.local_name())
                )
        return forbidden

    def allowed_options(self, options: _Options) -> _Options:
        """``options`` with the ones this rule set refuses put back to their defaults (and its match defaults)."""
        forbidden = self.forbidden()
        changes = {
            f.name: self.match_defaults.get(f.name, f.default)
            for f in dataclasses.fields(options)  # type: ignore[arg-type]
            if f.name in forbidden and getattr(options, f.name) != self.match_defaults.get(f.name, f.default)
        }
        return self.match_options(dataclasses.replace(options, **changes) if changes else options)  # type: ignore[type-var]

    def refused_option(self, options: object) -> str | None:
        """Why the match options break this rule set's :attr:`forbidden_options` (or its lack of a cube), or None."""
        forbidden = self.forbidden()
        for f in dataclasses.fields(options):  # type: ignore[arg-type]
            why = forbidden.get(f.name)
            if why is None:
                continue
            value = getattr(options, f.name)
            if value != self.match_defaults.get(f.name, f.default):
                return _("{rule_set} does not allow the option {option}: {why}").format(
                    rule_set=self.local_name(), option=f"{f.name}={_shown(value)}", why=_(why) if why else why
                )
        return None

    # --- end of game ----------------------------------------------------------------------------
    def game_over(self, pos: Position) -> GameOver | None:
        """Whether the game is over on ``pos``, the position a complete play leaves (the mover's frame, before the
        turn passes), and how: a :class:`GameOver` (winner, level, in words), or None while play goes on.

        Standard: the mover has borne off every checker and wins :meth:`game_result`. A rule set with other ends
        (a pinned mother, a draw) overrides this; the match ends the game on what it returns.
        """
        if pos.key()[0] >= self.checkers:
            return GameOver(1, self.game_result(pos))
        return None

    @property
    def results(self) -> Mapping[int, str]:
        """The results a game can end with under this rule set's options, by level, named in its own words."""
        return self.result_names

    @property
    def max_result(self) -> int:
        """The largest result level: the most a game is worth, times the cube."""
        return max(self.results)

    def result_name(self, level: int) -> str:
        """The name of a result level ("gammon", "mars") in the active language; levels the rule set does not have
        are called by number. (:attr:`results` keeps the names as the rule set wrote them, in English.)"""
        name = self.results.get(level)
        if name:
            return _(name)
        return _("result of level {level}").format(level=level)

    def results_text(self, conjunction: str = "or") -> str:
        """The results listed with their levels: "a single game (1), a gammon (2) or a backgammon (3)" (in the
        active language; ``conjunction`` is "or" or "and")."""
        # Translators: one result of a game and its level, in a list: "a gammon (2)".
        items = [
            _("a {result} ({level})").format(result=_(name), level=level)
            for level, name in sorted(self.results.items())
        ]
        return listed(items, conjunction)

    def most_at_stake(self, pos: Position) -> int:
        """The highest result level the player on roll of ``pos`` could still lose this game.

        A single game once he has borne a checker off (no gammon is possible any more); otherwise the largest
        result. A rule set where a larger result can become impossible sooner (nothing is ever hit in Longgammon,
        so a checker that left the first quarter never returns) overrides this.
        """
        if pos.off[0] > 0:
            return 1
        return self.max_result

    def game_result(self, pos: Position) -> int:
        """The result level when the roller of ``pos`` has borne off everything: 1, 2 or 3 (see :meth:`game_over`)."""
        if pos.off[1] > 0:
            return 1
        # A gammon; a backgammon when the loser still has a checker on the bar or in the winner's home.
        if pos.bar[1] > 0 or any(pos.board[p - 1] < 0 for p in range(1, HOME + 1)):
            return 3
        return 2


def check_dice(dice: Sequence[int]) -> None:
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(_("dice must be two numbers from 1 to 6, got {dice}").format(dice=list(dice)))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(getattr(value, "value", value))
