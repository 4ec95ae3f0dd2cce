"""Games and matches: the turn state machine, the doubling cube, scoring and seating (rules.md §1.2–1.11, §4).

Everything here is a value. A match is set up once (:class:`MatchSetup`: rule set, sides, options); after
that, every event is an action value (:class:`Roll`, :class:`Move`, :class:`Double`, ...) carrying the id of
the player who acts (``by``) and, for rolls, the dice shown. :func:`apply` checks an action against the
state and returns the next state, or raises :class:`ActionError` whose message says precisely why the
action is not allowed now. The match record is the ordered list of actions; :func:`replay` folds
:func:`apply` over it, so any state can be rebuilt, audited or exported.

Seating: a side has ``variant.team_size`` members. In each game one member per side is the acting member;
only that member's roll, play, cube and resignation actions are accepted (teammates consult). The acting
member rotates from game to game; with ``MatchOptions.team_choice`` a side may name its acting member
for a game until the side first moves in it (:class:`SetActing`): the opponents' opening roll cannot take
the choice away.

Decisions where rules.md leaves a choice (documented on :class:`MatchOptions` too):

* A roll with no legal play passes the turn at once (the record holds just the roll).
* A game ends where the rule set's :meth:`~engine.variant.Variant.game_over` says so on the position a play leaves
  (bearing off, or a rule of its own such as Plakoto's pinned mother: :attr:`EndReason.RULE`); a drawn game scores
  nothing (:attr:`EndReason.DRAW`) and the next game starts as the first one did.
* A rule set's ``match_defaults`` replace the global defaults of the options (:class:`MatchSetup`), and its
  ``forbidden_options`` (the cube's rules, where it has no cube) are refused by :meth:`MatchSetup.check`.
* A resignation may be offered only by the player on roll (before or after rolling), never while a double
  is pending; after a rejection the same side may only offer a higher level in that game (GNU Backgammon).
  Its levels are the rule set's results (:attr:`Variant.results <engine.variant.Variant.results>`: single,
  gammon, backgammon; in Longgammon single and mars, koks only with that option). It pays level × cube, the
  level capped at the most the opponent could still win (:meth:`MatchState.max_level`: single once the
  resigner has borne a checker off, or under Jacoby with a centred cube). With ``auto_accept_resign``
  (default on) it is accepted at once when nothing more could be won: that cap, or in a match when the
  points already give the opponent the match (rules.md §1.10 [U]).
* Timeouts (``by`` is the player whose clock ran out; they must be the one due to act) and forfeits follow
  ``timeout_policy``: IBF (default) credits the opponent what they need to win a match; in money play the
  game in progress is lost at the cube value (a timeout continues the session, a forfeit ends it).
* Money sessions are decided by points: when one ends, the side ahead wins it (nobody when level). Either
  side may end a session between games (:class:`EndSession`, before the next game's first roll or double):
  the score stands as it is. A forfeit between games of a session does the same (no game is charged); a
  forfeit during a game loses that game at the cube value, then ends the session.
* Only a side's acting member of the game at hand may forfeit for the side (in team play the teammate
  consults), as for every other decision of the game; the same holds for ending a session.
* Dead cube (``dead_cube``, on by default as in GNU Backgammon): in a match, no double when the doubler's
  score plus the cube's value already reaches the length (winning the game at the present value already
  wins the match, so a double cannot gain): any double in a 1-point match, the leader's after the Crawford
  game.
* Holland rule counting: see ``holland_counts_opening`` / ``holland_counts_dances`` (rules.md marks both [U]).

Turn stages. A turn is made of stages, each a play of its own dice; after each, the rule set says what follows
(:meth:`Variant.next_stage <engine.variant.Variant.next_stage>`, given the turn's
:class:`~engine.variant.TurnContext`: :meth:`MatchState.turn_context`): the player names a doublet (phase
:attr:`Phase.NAME_DOUBLE`, action :class:`NameDouble`) and plays it (phase MOVE, :attr:`MatchState.stage`
:attr:`Stage.NAMED`; Acey-deucey's 1-2), rolls again (phase ROLL, stage :attr:`Stage.AGAIN`), or plays the dice the
rule set fixes (phase MOVE at once, no action: stage :attr:`Stage.FIXED`; Gul bara's cascade), all within one turn:
the position stays in his frame and nobody else acts. Or the turn ends and the opponent plays the dice the rule set
hands him (stage :attr:`Stage.HANDED`, perhaps fewer than four of a doublet: :attr:`MatchState.count`), and any
fixed stages that follow them, before his own roll. A stage with no legal play asks the rule set too (with no die
used); a turn stops after :data:`~engine.variant.MAX_STAGES` stages whatever the rule set says.
:attr:`MatchState.turns` counts each player's turns in the game and :attr:`MatchState.stages` the stages played in
the turn under way. The cube may be turned only at the start of a turn; a resignation may be offered at any stage of
one's own turn.

A match rule set may play its games by other rule sets (:meth:`Variant.for_game <engine.variant.Variant.for_game>`,
Tavli's cycle of Portes, Plakoto and Fevga): :attr:`MatchState.variant` is the current game's, the setup keeps the
match's (its name, cube and match rules).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .i18n import N_, _, ngettext, pgettext
from .movegen import PlaySet, Submove
from .position import Position
from .turn import TurnDraft, TurnError, check_moves
from .variant import MAX_STAGES, NextStage, TurnContext, TurnStep, Variant

if TYPE_CHECKING:  # pragma: no cover
    from .dice import DiceSource

__all__ = [
    "ActionError",
    "MatchOptionError",
    "Phase",
    "TimeoutPolicy",
    "OpeningRule",
    "EndReason",
    "MatchOptions",
    "MatchSetup",
    "Cube",
    "GameResult",
    "MatchState",
    "OpeningRoll",
    "Roll",
    "Move",
    "Double",
    "Take",
    "Pass",
    "Beaver",
    "Raccoon",
    "Resign",
    "AcceptResignation",
    "RejectResignation",
    "NameDouble",
    "Stage",
    "Timeout",
    "Forfeit",
    "EndSession",
    "SetActing",
    "Action",
    "new_match",
    "apply",
    "replay",
    "states",
    "roll_action",
    "move_from_text",
    "draft",
    "confirm",
    "action_words",
    "RESIGN_LEVELS",
]

#: Resignation levels and their names in standard backgammon; each rule set names its own (``Variant.results``).
RESIGN_LEVELS = {1: N_("single"), 2: N_("gammon"), 3: N_("backgammon")}
MAX_CUBE_LIMIT = 1 << 15  # the largest cube a GNU Backgammon Match ID can carry


class ActionError(ValueError):
    """An action that is not allowed now; ``str()`` says why (wrong player, wrong moment, which rule)."""


class MatchOptionError(ValueError):
    """Match options that contradict each other or the rule set."""


class Phase(StrEnum):
    """What the match is waiting for."""

    OPENING = "opening"  #: the opening roll of a game (one die each); either side's acting member throws
    ROLL = "roll"  #: the player on roll may double, resign or roll
    MOVE = "move"  #: the player on roll has rolled and must play (or resign)
    DOUBLED = "doubled"  #: a double (beaver, raccoon) is pending; the responder takes, passes or redoubles
    RESIGNED = "resigned"  #: a resignation is offered; the opponent accepts or rejects
    OVER = "over"  #: the match (or money session) has ended
    #: The player on roll names a doublet to play, within his turn (Acey-deucey's 1-2, ``Variant.next_step``)
    NAME_DOUBLE = "name double"


class Stage(StrEnum):
    """Where a turn with extra steps stands (``Variant.next_step``); ``NONE`` in every ordinary turn."""

    NONE = "none"  #: an ordinary turn: the dice of phase MOVE were thrown, phase ROLL starts the turn
    NAMED = "named"  #: phase MOVE: the dice are a doublet the player named
    AGAIN = "again"  #: phase ROLL: the player rolls again within the same turn (no cube action then)
    FIXED = "fixed"  #: phase MOVE: the rule set fixed the dice of this stage (Gul bara's cascade)
    HANDED = "handed"  #: phase MOVE: the opponent's unplayed dice, handed over, played before the player's own roll


class OpeningRule(StrEnum):
    """How a game starts (rules.md §1.2, §2.3)."""

    #: IBF: each side throws one die (ties throw again); the higher die plays both numbers.
    IBF = "ibf"
    #: One die each decides who starts; the starter then rolls both dice afresh (a doublet is possible).
    REROLL = "reroll"
    #: The winner of the previous game starts by rolling both dice (the first game starts as IBF).
    PREVIOUS_WINNER = "winner"
    #: The winner of the previous game starts by rolling both dice; the first game, and a game after a draw,
    #: start as REROLL (Tavli).
    WINNER_REROLL = "winner-reroll"


class TimeoutPolicy(StrEnum):
    """What a timeout costs (rules.md §5.4)."""

    #: IBF: a match is lost (the opponent is credited what they need); money play: the game at the cube value.
    IBF = "ibf"
    #: The current game is lost at the cube value; the match goes on.
    GAME = "game"


class EndReason(StrEnum):
    """How a game ended."""

    BORNE_OFF = "borne off"
    PASS = "pass"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    FORFEIT = "forfeit"
    #: A rule of the rule set ended the game otherwise than by bearing off (``Variant.game_over``: a pinned mother).
    RULE = "rule"
    #: The game ended in a draw (``Variant.game_over``): nobody scores; ``winner`` is the side that made the last play.
    DRAW = "draw"


@dataclass(frozen=True)
class MatchOptions:
    """The rules of one match or money session, as data (rules.md §1.7–1.10, §5.4)."""

    #: Match length in points; 0 = a money session.
    length: int = 0
    #: Money sessions only: the number of games to play (0 = unlimited; either side may end it between games).
    games: int = 0
    #: Money sessions only: hours after its start when the session ends, at the first moment between games
    #: once they have passed (0 = no deadline; the service keeps the time).
    session_hours: int = 0
    #: Crawford rule (match play): no doubling in the first game after a player reaches length − 1.
    crawford: bool = True
    #: Whether the doubling cube is used at all (also needs the rule set's ``uses_cube``).
    cube: bool = True
    #: Match play: refuse a double of a dead cube, when the doubler's score plus the cube's value already reaches
    #: the length, so a double cannot gain (GNU Backgammon's rule). Off: such doubles are allowed.
    dead_cube: bool = True
    #: The highest cube value (a power of two).
    max_cube: int = 64
    #: Jacoby rule (money only): gammons and backgammons count single while the cube is centred.
    jacoby: bool = False
    #: Beavers and raccoons (money only).
    beavers: bool = False
    #: How many beavers plus raccoons may follow one double (1 = beavers but no raccoons; GNU Backgammon: 3).
    beaver_limit: int = 3
    #: Automatic doubles (money only): each opening tie doubles the centred cube, at most this many per game.
    auto_doubles: int = 0
    #: Holland rule (match play, post-Crawford): the trailer may not double until both sides have rolled
    #: ``holland_rolls`` times.
    holland: bool = False
    holland_rolls: int = 2
    #: [U] Whether the opening roll counts as the opening winner's first roll for the Holland rule.
    holland_counts_opening: bool = True
    #: [U] Whether a roll with no legal play (a dance) counts as a roll for the Holland rule.
    holland_counts_dances: bool = True
    #: Team rule sets: sides choose their acting member before each game instead of rotating.
    team_choice: bool = False
    #: Accept a resignation at once when it already concedes the most the opponent could win.
    auto_accept_resign: bool = True
    #: What a timeout costs.
    timeout_policy: TimeoutPolicy = TimeoutPolicy.IBF
    #: How each game starts (the IBF opening roll by default).
    opening: OpeningRule = OpeningRule.IBF

    def __post_init__(self) -> None:
        # Options read back from storage may carry the enums as their text values.
        try:
            object.__setattr__(self, "timeout_policy", TimeoutPolicy(self.timeout_policy))
            object.__setattr__(self, "opening", OpeningRule(self.opening))
        except ValueError as exc:
            raise MatchOptionError(str(exc)) from None

    @property
    def money(self) -> bool:
        """True for a money session (no match length)."""
        return self.length == 0

    def check(self) -> None:
        """Raise :class:`MatchOptionError` naming the first contradiction."""
        if self.length < 0:
            raise MatchOptionError(_("the match length cannot be negative (0 means a money session)"))
        if self.length >= MAX_CUBE_LIMIT:
            raise MatchOptionError(_("a match may be at most {count} points long").format(count=MAX_CUBE_LIMIT - 1))
        if self.games < 0:
            raise MatchOptionError(_("the number of money games cannot be negative (0 means unlimited)"))
        if self.games and not self.money:
            raise MatchOptionError(_("a game count is for money sessions; a match ends when a side reaches the length"))
        if self.session_hours < 0:
            raise MatchOptionError(_("a session's hours cannot be negative (0 means no deadline)"))
        if self.session_hours and not self.money:
            raise MatchOptionError(
                _("a session deadline is for money sessions; a match ends when a side reaches the length")
            )
        if self.max_cube < 1 or self.max_cube & (self.max_cube - 1) or self.max_cube > MAX_CUBE_LIMIT:
            raise MatchOptionError(
                _("the cube limit must be a power of two from 1 to {limit}").format(limit=MAX_CUBE_LIMIT)
            )
        if not self.money:
            if self.jacoby:
                raise MatchOptionError(
                    _("the Jacoby rule: money play only, but this is a {length}-point match").format(length=self.length)
                )
            if self.beavers:
                raise MatchOptionError(
                    _("beavers and raccoons: money play only, but this is a {length}-point match").format(
                        length=self.length
                    )
                )
            if self.auto_doubles:
                raise MatchOptionError(
                    _("automatic doubles: money play only, but this is a {length}-point match").format(
                        length=self.length
                    )
                )
            if self.holland and not self.crawford:
                raise MatchOptionError(
                    _("the Holland rule applies after the Crawford game, so it needs the Crawford rule on")
                )
        elif self.holland:
            raise MatchOptionError(_("the Holland rule is a match-play rule (post-Crawford); this is money play"))
        if self.beaver_limit < 1:
            raise MatchOptionError(_("the beaver limit must be at least 1 (turn beavers off instead)"))
        if self.auto_doubles < 0 or self.holland_rolls < 0:
            raise MatchOptionError(_("counts of automatic doubles and Holland rolls cannot be negative"))


@dataclass(frozen=True)
class MatchSetup:
    """Who plays what: the rule set, the two sides (tuples of player ids) and the options."""

    variant: Variant
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    options: MatchOptions = MatchOptions()
    #: Display names of the sides; default: the members joined with " & ".
    names: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        # The rule set's own match defaults (Variant.match_defaults) replace the global ones.
        options = self.variant.match_options(self.options)
        if options is not self.options:
            object.__setattr__(self, "options", options)

    def side_name(self, side: int) -> str:
        """The name of side 0 or 1."""
        if self.names is not None:
            return self.names[side]
        return " & ".join(self.sides[side])

    @property
    def cube_in_use(self) -> bool:
        """Whether doubling is possible at all in this match."""
        return self.variant.uses_cube and self.options.cube and self.options.max_cube >= 2

    def check(self) -> None:
        """Raise :class:`MatchOptionError` if the sides or options cannot work with this rule set."""
        self.options.check()
        refused = self.variant.refused_option(self.options)
        if refused:
            raise MatchOptionError(refused)
        size = self.variant.team_size
        if len(self.sides) != 2:
            raise MatchOptionError(f"a match has two sides, got {len(self.sides)}")
        seen: set[str] = set()
        for k, members in enumerate(self.sides):
            if len(members) != size:
                text = (
                    _("{rule_set} sides have {size} player; side {side} has {count}")
                    if size == 1
                    else _("{rule_set} sides have {size} members; side {side} has {count}")
                )
                raise MatchOptionError(
                    text.format(rule_set=self.variant.local_name(), size=size, side=k + 1, count=len(members))
                )
            for m in members:
                if not isinstance(m, str) or not m.strip():
                    raise MatchOptionError("player ids must be non-empty text")
                if m in seen:
                    raise MatchOptionError(
                        _("{player} is seated twice; every player may sit on one side only").format(player=repr(m))
                    )
                seen.add(m)
        if self.options.team_choice and size == 1:
            raise MatchOptionError(_("team choice of the acting member needs a team rule set (team size 2)"))
        if self.names is not None and len(self.names) != 2:
            raise MatchOptionError("give exactly two side names")


@dataclass(frozen=True)
class Cube:
    """The doubling cube: its value and owner (None = centred, else the side 0 or 1 who may redouble)."""

    value: int = 1
    owner: int | None = None

    @property
    def centred(self) -> bool:
        """True while nobody owns the cube (either player may double)."""
        return self.owner is None


@dataclass(frozen=True)
class GameResult:
    """How one game ended: winner side, points credited, result level (1/2/3, 0 for timeouts and forfeits)."""

    game: int
    winner: int
    points: int
    level: int
    reason: EndReason
    cube: int
    score_before: tuple[int, int]
    crawford: bool = False


# --- actions --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpeningRoll:
    """The opening throw of a game: ``dice[0]`` is side 0's die, ``dice[1]`` side 1's; equal dice throw again."""

    by: str
    dice: tuple[int, int]


@dataclass(frozen=True)
class Roll:
    """The player on roll throws both dice."""

    by: str
    dice: tuple[int, int]


@dataclass(frozen=True)
class Move:
    """A confirmed play: the submoves ``(src, dst, hit)`` in the order made (hit marks are recomputed)."""

    by: str
    moves: tuple[Submove, ...] = ()


@dataclass(frozen=True)
class Double:
    """The player on roll turns the cube before rolling."""

    by: str


@dataclass(frozen=True)
class Take:
    """Accept the pending double (or beaver, raccoon)."""

    by: str


@dataclass(frozen=True)
class Pass:
    """Decline the pending double and lose the game at the cube value before it (a "drop")."""

    by: str


@dataclass(frozen=True)
class Beaver:
    """Money play: take the double and redouble at once, keeping the cube."""

    by: str


@dataclass(frozen=True)
class Raccoon:
    """Money play: answer a beaver (or raccoon) by redoubling again; the cube stays with the beaverer."""

    by: str


@dataclass(frozen=True)
class Resign:
    """The player on roll offers to resign: 1 single, 2 gammon, 3 backgammon."""

    by: str
    level: int = 1


@dataclass(frozen=True)
class AcceptResignation:
    """Accept the offered resignation: the game ends."""

    by: str


@dataclass(frozen=True)
class RejectResignation:
    """Reject the offered resignation: play goes on."""

    by: str


@dataclass(frozen=True)
class NameDouble:
    """Within a turn that earned it (phase NAME_DOUBLE, Acey-deucey's 1-2): play the doublet ``value``-``value``."""

    by: str
    value: int


@dataclass(frozen=True)
class Timeout:
    """``by``'s time to act ran out (reported by the scheduler on their behalf)."""

    by: str


@dataclass(frozen=True)
class Forfeit:
    """``by``'s side gives up the whole match (or money session)."""

    by: str


@dataclass(frozen=True)
class EndSession:
    """Money play: ``by`` ends the session between games (before the next game's first roll or double); the score
    stands. ``deadline``: the service ends it because the session's hours have passed (``by`` is then any player)."""

    by: str
    deadline: bool = False


@dataclass(frozen=True)
class SetActing:
    """With team choice on: ``by``'s side names ``member`` its acting member for this game (until the side moves)."""

    by: str
    member: str


Action = (
    OpeningRoll
    | Roll
    | Move
    | Double
    | Take
    | Pass
    | Beaver
    | Raccoon
    | Resign
    | AcceptResignation
    | RejectResignation
    | NameDouble
    | Timeout
    | Forfeit
    | EndSession
    | SetActing
)


# --- state ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchState:
    """Everything about a match at one moment. ``position`` is in the frame of side ``roller``."""

    setup: MatchSetup
    score: tuple[int, int] = (0, 0)
    game: int = 1
    phase: Phase = Phase.OPENING
    position: Position | None = None
    roller: int | None = None
    dice: tuple[int, int] | None = None
    cube: Cube = Cube()
    responder: int | None = None
    redoubles: int = 0  # beavers and raccoons since the pending double
    resign_level: int = 0
    resume: Phase | None = None  # the phase a rejected resignation returns to
    declined: tuple[int, int] = (0, 0)
    crawford_game: bool = False
    post_crawford: bool = False
    moved: tuple[bool, bool] = (False, False)
    rolls: tuple[int, int] = (0, 0)
    opening_ties: int = 0
    begun: bool = False  # dice have been thrown in this game (the acting member is then fixed)
    auto_doubles: int = 0
    acting: tuple[int, int] = (0, 0)
    results: tuple[GameResult, ...] = ()
    winner: int | None = None
    last_move: tuple[int, tuple[int, int], tuple[Submove, ...]] | None = None
    #: Where a turn with extra steps stands (a named doublet being played, a roll again); ``Stage.NONE`` otherwise.
    stage: Stage = Stage.NONE
    #: Each side's turns begun in this game (a turn begins with its roll, or with the opening roll it plays).
    turns: tuple[int, int] = (0, 0)
    #: The stages already played in the turn under way: ``(dice, count, used)`` each (see :class:`TurnContext`).
    stages: tuple[tuple[tuple[int, int], int | None, int], ...] = ()
    #: How many dice the stage of phase MOVE has when fewer than its roll's (the rest of a doublet handed over).
    count: int | None = None
    _plays: PlaySet | None = field(default=None, compare=False, repr=False)

    # --- views ----------------------------------------------------------------------------------
    @property
    def variant(self) -> Variant:
        """The rule set of the game being played: the match's, or the one it plays this game by (Tavli's cycle)."""
        return self.setup.variant.for_game(self.game - 1)

    @property
    def options(self) -> MatchOptions:
        """The match options."""
        return self.setup.options

    @property
    def title(self) -> str:
        """The rule set as players read it: "Plakoto"; in a match that plays its games by other rule sets, which game
        this is: "Tavli, game 2: Plakoto"."""
        match, game = self.setup.variant, self.variant
        if game is match:
            return match.local_name()
        return _("{match}, game {game}: {rule_set}").format(
            match=match.local_name(), game=self.game, rule_set=game.local_name()
        )

    @property
    def over(self) -> bool:
        """True when the match or money session has ended."""
        return self.phase is Phase.OVER

    @property
    def turn(self) -> int | None:
        """The side that must act now (None before an opening roll, which either side may throw, and at the end)."""
        if self.phase in (Phase.ROLL, Phase.MOVE, Phase.NAME_DOUBLE):
            return self.roller
        if self.phase in (Phase.DOUBLED, Phase.RESIGNED):
            return self.responder
        return None

    def acting_member(self, side: int) -> str:
        """The player id acting for ``side`` in the current game."""
        return self.setup.sides[side][self.acting[side]]

    def side_of(self, player: str) -> int:
        """The side ``player`` sits on; :class:`ActionError` if they are not in the match."""
        for k, members in enumerate(self.setup.sides):
            if player in members:
                return k
        raise ActionError(_("{player} is not playing in this match").format(player=repr(player)))

    def position_for(self, side: int) -> Position:
        """The board as ``side`` sees it (their own numbering)."""
        pos = self.position if self.position is not None else self.variant.start_position()
        if self.roller is None or self.roller == side:
            return pos
        return self.variant.flip(pos)

    def legal_plays(self) -> PlaySet:
        """The legal plays of the current roll (phase MOVE only)."""
        if self.phase is not Phase.MOVE or self.dice is None or self.position is None or self.roller is None:
            raise ActionError(_("there is no roll to play now"))
        if self._plays is None:
            plays = self.variant.stage_plays(self.position, self.dice, self.count, not self.moved[self.roller])
            object.__setattr__(self, "_plays", plays)
        assert self._plays is not None
        return self._plays

    def turn_context(self) -> TurnContext:
        """What the rule set's stage hooks know of the turn under way (:class:`~engine.variant.TurnContext`)."""
        roller = self.roller or 0
        return TurnContext(
            turn=max(1, self.turns[roller]),
            stages=self.stages,
            options=self.options,
            named=self.stage is Stage.NAMED,
            fixed=self.stage is Stage.FIXED,
            handed=self.stage is Stage.HANDED,
            count=self.count,
        )

    @property
    def crawford_possible(self) -> bool:
        """Whether this match plays a Crawford game at all."""
        return not self.options.money and self.options.crawford

    def needs(self, side: int) -> int:
        """Points ``side`` still needs to win the match (0 in money play)."""
        return 0 if self.options.money else max(0, self.options.length - self.score[side])

    def may_double(self, side: int) -> str | None:
        """Why ``side`` may not double now, or None if it may (the acting member must still be the one who acts)."""
        setup = self.setup
        if self.phase is Phase.OVER:
            return _("the match is over")
        if not setup.variant.uses_cube:
            return _("{rule_set} is played without the doubling cube").format(rule_set=setup.variant.local_name())
        if not setup.cube_in_use:
            return _("the doubling cube is switched off in this match")
        if self.phase is Phase.DOUBLED:
            return _("a double is already pending; it must be answered first")
        if self.phase is Phase.RESIGNED:
            return _("a resignation is pending; it must be answered first")
        if self.phase is Phase.OPENING:
            return _("the game has not started: throw the opening roll first")
        if self.roller != side:
            return _("only the player on roll may double, and {side} is on roll").format(
                side=setup.side_name(self.roller or 0)
            )
        if self.phase is Phase.MOVE:
            return _("you have already rolled: a double must come before the roll")
        if self.phase is Phase.NAME_DOUBLE or self.stage is Stage.AGAIN:
            return _("your turn is under way: the cube may be turned only at the start of a turn")
        if self.crawford_game:
            return _("no doubling in the Crawford game (a player is one point from winning the match)")
        if self.cube.owner is not None and self.cube.owner != side:
            return _("the cube is not yours: {side} owns it").format(side=setup.side_name(self.cube.owner))
        if self.cube.value * 2 > self.options.max_cube:
            return _("the cube is already at this match's limit of {limit}").format(limit=self.options.max_cube)
        if self.cube_dead(side):
            needs = self.needs(side)
            return ngettext(
                "the cube is dead: winning this game at the cube's present value ({value}) already gives {side} the "
                "{count} point needed to win the match, so a double cannot gain anything",
                "the cube is dead: winning this game at the cube's present value ({value}) already gives {side} the "
                "{count} points needed to win the match, so a double cannot gain anything",
                needs,
            ).format(value=self.cube.value, side=setup.side_name(side), count=needs)
        if self._holland_blocks(side):
            n = self.options.holland_rolls
            return ngettext(
                "Holland rule: after the Crawford game the trailer may double only once both sides have rolled "
                "{count} time (rolls so far: {mine} and {theirs})",
                "Holland rule: after the Crawford game the trailer may double only once both sides have rolled "
                "{count} times (rolls so far: {mine} and {theirs})",
                n,
            ).format(count=n, mine=self.rolls[side], theirs=self.rolls[1 - side])
        return None

    def cube_dead(self, side: int) -> bool:
        """Whether a double by ``side`` is refused as a dead cube (option ``dead_cube``): in a match, the side's
        score plus the cube's value already reaches the length (GNU Backgammon's test)."""
        opts = self.options
        return opts.dead_cube and not opts.money and self.score[side] + self.cube.value >= opts.length

    @property
    def between_games(self) -> bool:
        """No game is under way: the next one has not had its first roll (opening throw included) or double."""
        return self.phase in (Phase.OPENING, Phase.ROLL) and not self.begun

    def _holland_blocks(self, side: int) -> bool:
        opts = self.options
        if not (opts.holland and self.post_crawford and not self.crawford_game):
            return False
        if self.score[side] >= opts.length - 1:
            return False  # only the trailer is restricted
        return min(self.rolls) < opts.holland_rolls

    def max_level(self, loser: int) -> int:
        """The highest result level ``loser`` could still lose this game (used for auto-accepting): the rule set's
        :meth:`~engine.variant.Variant.most_at_stake`, and a single game under Jacoby with a centred cube."""
        if self.options.money and self.options.jacoby and self.cube.centred:
            return 1
        return self.variant.most_at_stake(self.position_for(loser))

    def draft(self) -> TurnDraft:
        """An empty turn draft for the current roll (phase MOVE)."""
        plays = self.legal_plays()
        assert self.position is not None and self.dice is not None and self.roller is not None
        return TurnDraft(
            self.variant, self.position, self.dice, not self.moved[self.roller], _plays=plays, count=self.count
        )


# --- construction and replay -------------------------------------------------------------------------------
def new_match(
    variant: Variant,
    sides: Sequence[Sequence[str]],
    options: MatchOptions | None = None,
    names: tuple[str, str] | None = None,
) -> MatchState:
    """The state before the first opening roll; :class:`MatchOptionError` if the setup cannot work."""
    if len(sides) != 2:
        raise MatchOptionError(f"a match has two sides, got {len(sides)}")
    setup = MatchSetup(variant, (tuple(sides[0]), tuple(sides[1])), options or MatchOptions(), names)
    setup.check()
    return _start_game(MatchState(setup), 1)


def replay(setup_or_state: MatchSetup | MatchState, actions: Iterable[Action]) -> MatchState:
    """Fold :func:`apply` over a record: the state after every action."""
    state = setup_or_state if isinstance(setup_or_state, MatchState) else _fresh(setup_or_state)
    for action in actions:
        state = apply(state, action)
    return state


def states(setup: MatchSetup, actions: Iterable[Action]) -> Iterator[MatchState]:
    """The initial state and the state after each action of a record."""
    state = _fresh(setup)
    yield state
    for action in actions:
        state = apply(state, action)
        yield state


def _fresh(setup: MatchSetup) -> MatchState:
    setup.check()
    return _start_game(MatchState(setup), 1)


def roll_action(state: MatchState, by: str, dice: DiceSource) -> OpeningRoll | Roll:
    """The roll action ``by`` makes now with dice from ``dice`` (an opening roll at the start of a game)."""
    if state.phase is Phase.OPENING:
        return OpeningRoll(by, dice())
    return Roll(by, dice())


def move_from_text(state: MatchState, by: str, text: str) -> Move:
    """The :class:`Move` the notation describes, or :class:`ActionError` naming the rule it breaks."""
    from .validate import IllegalPlay

    plays = state.legal_plays()
    assert state.position is not None and state.dice is not None and state.roller is not None
    try:
        play = state.variant.check_play(state.position, state.dice, text, not state.moved[state.roller], plays)
    except IllegalPlay as exc:
        raise ActionError(str(exc)) from None
    return Move(by, play.moves)


def draft(state: MatchState) -> TurnDraft:
    """An empty turn draft for the current roll; add submoves, undo, then ``confirm(state, draft, by)``."""
    return state.draft()


def confirm(state: MatchState, turn: TurnDraft, by: str) -> Move:
    """The play action of a finished draft; :class:`ActionError` if it is not a whole legal play."""
    if state.phase is not Phase.MOVE or turn.start != state.position or turn.dice != state.dice:
        raise ActionError(_("that draft does not belong to the current roll"))
    if not turn.complete:
        left = ", ".join(map(str, turn.remaining)) or pgettext("dice left", "none")
        raise ActionError(_("the play is not finished: dice left {dice}; you must play all you can").format(dice=left))
    return Move(by, turn.moves)


# --- the state machine ----------------------------------------------------------------------------------
def apply(state: MatchState, action: Action) -> MatchState:
    """The state after ``action``; :class:`ActionError` says why it is not allowed now."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise ActionError(f"{type(action).__name__} is not a match action")
    if state.phase is Phase.OVER:
        raise ActionError(_("the match is over; no more actions are accepted"))
    try:
        return handler(state, action)
    except ActionError:
        raise
    except Exception as exc:
        failure = _plugin_failure(state, exc)
        if failure is None:
            raise
        raise failure from exc


def _plugin_failure(state: MatchState, exc: BaseException) -> ActionError | None:
    """A rule-set hook that raised during an action, as the refusal the player reads (the state stays as it was),
    logged naming the plugin and the hook; None when the failure is the engine's own."""
    import logging

    tb = exc.__traceback__
    hook = ""
    while tb is not None:  # the innermost frame outside the engine: the plugin's hook
        module = tb.tb_frame.f_globals.get("__name__", "")
        if not module.startswith("engine.") and module != "engine":
            hook = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    if not hook:
        return None
    variant = state.variant
    from .plugins import registry

    plugin = registry().owners.get(variant.name) or type(variant).__module__
    logging.getLogger("gammonbot.plugins").error(
        "plugin %s: rule set %r, hook %s raised %s: %s (the action was refused; the game is unchanged)",
        plugin,
        variant.name,
        hook,
        type(exc).__name__,
        exc,
        exc_info=exc,
    )
    return ActionError(
        _(
            "the rule set {rule_set} (plugin {plugin}) failed in {hook}; nothing was changed: the game stays as it "
            "was. The server's log has the details."
        ).format(rule_set=variant.local_name(), plugin=plugin, hook=hook)
    )


def _who(state: MatchState, by: str) -> tuple[int, int]:
    for k, members in enumerate(state.setup.sides):
        if by in members:
            return k, members.index(by)
    raise ActionError(_("{player} is not playing in this match").format(player=repr(by)))


def action_words(what: str, context: str = "action") -> str:
    """What a player tried to do, named by one of the English phrases of this table, in the active language; a phrase
    the table lacks is returned as it is. The one table of these phrases, for the engine and the bot alike.

    ``context`` "action": as the engine's refusals name it (the handlers' phrases, completing "cannot ..."); "tried
    before rolling": a play command given before the roll, as the service names it ("you cannot play yet: roll
    first")."""
    # Translators: what a player may not do now, completing "cannot ..." / "it is not your turn to ...": a verb phrase
    # (Russian: the infinitive, "бросить кости"); the sentences around it are translated separately.
    words = {
        ("action", "throw an opening roll"): pgettext("action", "throw an opening roll"),
        ("action", "throw the opening roll"): pgettext("action", "throw the opening roll"),
        ("action", "roll"): pgettext("action", "roll"),
        ("action", "name a doublet"): pgettext("action", "name a doublet"),
        ("action", "move checkers"): pgettext("action", "move checkers"),
        ("action", "move"): pgettext("action", "move"),
        ("action", "double"): pgettext("action", "double"),
        ("action", "take"): pgettext("action", "take"),
        ("action", "pass"): pgettext("action", "pass"),
        ("action", "beaver"): pgettext("action", "beaver"),
        ("action", "raccoon"): pgettext("action", "raccoon"),
        ("action", "resign"): pgettext("action", "resign"),
        ("action", "accept the resignation"): pgettext("action", "accept the resignation"),
        ("action", "reject the resignation"): pgettext("action", "reject the resignation"),
        ("action", "run out of time"): pgettext("action", "run out of time"),
        ("action", "forfeit the match"): pgettext("action", "forfeit the match"),
        ("action", "end the session"): pgettext("action", "end the session"),
        ("tried before rolling", "play"): pgettext("tried before rolling", "play"),
        ("tried before rolling", "move"): pgettext("tried before rolling", "move"),
        ("tried before rolling", "undo"): pgettext("tried before rolling", "undo"),
        ("tried before rolling", "confirm"): pgettext("tried before rolling", "confirm"),
    }
    return words.get((context, what), what)


def _require(state: MatchState, by: str, side: int, what: str) -> None:
    """``by`` must be the acting member of ``side``."""
    s, m = _who(state, by)
    setup = state.setup
    if s != side:
        raise ActionError(
            _("it is not your turn to {action}: {side} must act now").format(
                action=action_words(what), side=setup.side_name(side)
            )
        )
    if m != state.acting[side]:
        raise ActionError(
            _(
                "{player} is not the acting member of {side} in game {game}: only {member} may {action} "
                "(teammates may consult)"
            ).format(
                player=by,
                side=setup.side_name(side),
                game=state.game,
                member=state.acting_member(side),
                action=action_words(what),
            )
        )


def _phase_error(state: MatchState, what: str) -> ActionError:
    name = state.setup.side_name
    ph = state.phase
    action = action_words(what)
    if ph is Phase.OPENING:
        return ActionError(
            _("cannot {action}: game {game} has not started; throw the opening roll first").format(
                action=action, game=state.game
            )
        )
    if ph is Phase.ROLL:
        return ActionError(
            _("cannot {action}: {side} must roll first (or double, or resign)").format(
                action=action, side=name(state.roller or 0)
            )
        )
    if ph is Phase.MOVE:
        return ActionError(
            _("cannot {action}: {side} has rolled and must play").format(action=action, side=name(state.roller or 0))
        )
    if ph is Phase.NAME_DOUBLE:
        return ActionError(
            _("cannot {action}: {side} must first name a doublet to play").format(
                action=action, side=name(state.roller or 0)
            )
        )
    if ph is Phase.DOUBLED:
        return ActionError(
            _("cannot {action}: a double is pending; {side} must take or pass").format(
                action=action, side=name(state.responder or 0)
            )
        )
    if ph is Phase.RESIGNED:
        return ActionError(
            _("cannot {action}: a resignation is pending; {side} must accept or reject it").format(
                action=action, side=name(state.responder or 0)
            )
        )
    return ActionError(_("cannot {action}: the match is over").format(action=action))


def _check_dice(dice: object) -> tuple[int, int]:
    if not (isinstance(dice, tuple) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
        raise ActionError(_("dice must be two numbers from 1 to 6, got {dice}").format(dice=repr(dice)))
    return dice[0], dice[1]


def _opening(state: MatchState, a: OpeningRoll) -> MatchState:
    if state.phase is not Phase.OPENING:
        raise _phase_error(state, "throw an opening roll")
    side, member = _who(state, a.by)
    if member != state.acting[side]:
        _require(state, a.by, side, "throw the opening roll")
    d = _check_dice(a.dice)
    if d[0] == d[1]:
        opts = state.options
        cube = state.cube
        autos = state.auto_doubles
        if opts.money and state.setup.cube_in_use and autos < opts.auto_doubles and cube.value * 2 <= opts.max_cube:
            cube = Cube(cube.value * 2, None)
            autos += 1
        return replace(state, opening_ties=state.opening_ties + 1, cube=cube, auto_doubles=autos, begun=True)
    roller = 0 if d[0] > d[1] else 1
    if state.options.opening in (OpeningRule.REROLL, OpeningRule.WINNER_REROLL):
        # The opening throw only decides who starts; the starter rolls both dice as a normal turn.
        return replace(state, phase=Phase.ROLL, roller=roller, begun=True, _plays=None)
    rolls = list(state.rolls)
    if state.options.holland_counts_opening:
        rolls[roller] += 1
    dice = (max(d), min(d))
    turns = list(state.turns)
    turns[roller] += 1
    nxt = replace(
        state,
        phase=Phase.MOVE,
        roller=roller,
        dice=dice,
        position=state.variant.start_position(),
        rolls=(rolls[0], rolls[1]),
        begun=True,
        turns=(turns[0], turns[1]),
        stages=(),
        count=None,
        _plays=None,
    )
    return _dance_check(nxt)


def _roll(state: MatchState, a: Roll) -> MatchState:
    if state.phase is not Phase.ROLL:
        if state.phase is Phase.MOVE and _who(state, a.by)[0] == state.roller:
            raise ActionError(_("you have rolled already: play the roll you have"))
        raise _phase_error(state, "roll")
    assert state.roller is not None
    _require(state, a.by, state.roller, "roll")
    dice = _check_dice(a.dice)
    rolls = list(state.rolls)
    rolls[state.roller] += 1
    turns, stages = state.turns, state.stages
    if state.stage is not Stage.AGAIN:  # a new turn begins (a roll again belongs to the turn under way)
        counted = list(turns)
        counted[state.roller] += 1
        turns, stages = (counted[0], counted[1]), ()
    nxt = replace(
        state,
        phase=Phase.MOVE,
        dice=dice,
        rolls=(rolls[0], rolls[1]),
        begun=True,
        stage=Stage.NONE,
        turns=turns,
        stages=stages,
        count=None,
        _plays=None,
    )
    return _dance_check(nxt)


def _name_double(state: MatchState, a: NameDouble) -> MatchState:
    if state.phase is not Phase.NAME_DOUBLE:
        raise ActionError(_("there is no doublet to name now: one is named after playing a roll that earns it (a 1-2)"))
    assert state.roller is not None
    _require(state, a.by, state.roller, "name a doublet")
    value = a.value
    if not (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6):
        raise ActionError(_("name a doublet by its number, 1 to 6 (1-1 to 6-6), not {value}").format(value=repr(value)))
    return _dance_check(
        replace(state, phase=Phase.MOVE, dice=(value, value), stage=Stage.NAMED, count=None, _plays=None)
    )


def _dance_check(state: MatchState) -> MatchState:
    """A roll with no legal play: the turn passes at once (unless the rule set continues it: ``Variant.next_step``)."""
    plays = state.legal_plays()
    if not plays.no_move:
        return state
    assert state.roller is not None and state.dice is not None
    rolls = list(state.rolls)
    if not state.options.holland_counts_dances and state.stage is Stage.NONE:
        rolls[state.roller] -= 1
    moved = list(state.moved)
    moved[state.roller] = True
    state = replace(state, rolls=(rolls[0], rolls[1]), moved=(moved[0], moved[1]))
    return _next_step(state, state.position, ())


def _stage_after(state: MatchState, used: int) -> NextStage | None:
    """What the rule set says follows the stage of phase MOVE that used ``used`` dice (None: the turn ends)."""
    assert state.dice is not None
    step = state.variant.next_stage(state.dice, used, state.turn_context())
    if step is None:
        return None
    if isinstance(step, TurnStep):
        if step in (TurnStep.FIXED_DICE, TurnStep.TO_OPPONENT):
            raise TypeError(f"{step.value!r} needs its dice: return a NextStage")  # a rule set's mistake
        return NextStage(step)
    if not isinstance(step, NextStage):
        raise TypeError(f"next_stage returned {step!r}, not a NextStage, a TurnStep or None")
    if step.step in (TurnStep.FIXED_DICE, TurnStep.TO_OPPONENT):
        dice = step.dice
        ok = isinstance(dice, tuple) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
        full = 4 if ok and dice is not None and dice[0] == dice[1] else 2
        if not ok or not (step.count is None or (isinstance(step.count, int) and 1 <= step.count <= full)):
            raise TypeError(f"next_stage returned a stage with dice {dice!r} and count {step.count!r}")
    return step


def _next_step(state: MatchState, pos: Position | None, moves: tuple[Submove, ...]) -> MatchState:
    """After a stage of the turn (``moves`` leaving ``pos``): what the rule set says follows, else the turn passes."""
    assert state.roller is not None and state.dice is not None
    step = _stage_after(state, len(moves))
    last = (state.roller, state.dice, moves)
    if not moves and state.stage in (Stage.FIXED, Stage.HANDED) and state.last_move is not None:
        last = state.last_move  # a stage the rules gave that cannot be played: the play before it stays the last
    handed = state.stage is Stage.HANDED
    stages = (*state.stages, (state.dice, state.count, len(moves)))
    if len(stages) >= MAX_STAGES:
        step = None
    if handed and (step is None or step.step is not TurnStep.FIXED_DICE):
        # The dice handed over are played: the player's own turn begins with his roll.
        return replace(
            state, phase=Phase.ROLL, position=pos, dice=None, stage=Stage.NONE, stages=(), count=None,
            last_move=last, _plays=None,
        )  # fmt: skip
    if step is None:
        return _pass_turn(state, pos, moves, last)
    if step.step is TurnStep.NAME_DOUBLE:
        return replace(
            state, phase=Phase.NAME_DOUBLE, position=pos, dice=None, stage=Stage.NONE, stages=stages, count=None,
            last_move=last, _plays=None,
        )  # fmt: skip
    if step.step is TurnStep.ROLL_AGAIN:
        return replace(
            state, phase=Phase.ROLL, position=pos, dice=None, stage=Stage.AGAIN, stages=stages, count=None,
            last_move=last, _plays=None,
        )  # fmt: skip
    assert step.dice is not None
    if step.step is TurnStep.FIXED_DICE:
        nxt = replace(
            state, phase=Phase.MOVE, position=pos, dice=step.dice, stage=Stage.HANDED if handed else Stage.FIXED,
            stages=stages, count=step.count, last_move=last, _plays=None,
        )  # fmt: skip
        return _dance_check(nxt)
    # The rest to the opponent: he plays it (in his frame) before his own roll.
    assert pos is not None
    nxt = replace(
        state, phase=Phase.MOVE, position=state.variant.flip(pos), roller=1 - state.roller, dice=step.dice,
        stage=Stage.HANDED, stages=(), count=step.count, last_move=last, _plays=None,
    )  # fmt: skip
    return _dance_check(nxt)


def _pass_turn(
    state: MatchState,
    pos: Position | None,
    moves: tuple[Submove, ...],
    last: tuple[int, tuple[int, int], tuple[Submove, ...]] | None = None,
) -> MatchState:
    assert state.roller is not None and pos is not None and state.dice is not None
    return replace(
        state,
        phase=Phase.ROLL,
        position=state.variant.flip(pos),
        roller=1 - state.roller,
        dice=None,
        last_move=last or (state.roller, state.dice, moves),
        stage=Stage.NONE,
        stages=(),
        count=None,
        _plays=None,
    )


def _move(state: MatchState, a: Move) -> MatchState:
    if state.phase is not Phase.MOVE:
        raise _phase_error(state, "move checkers")
    assert state.roller is not None and state.position is not None and state.dice is not None
    _require(state, a.by, state.roller, "move")
    plays = state.legal_plays()
    try:
        moves, pos = check_moves(
            state.variant, state.position, state.dice, a.moves, plays, not state.moved[state.roller], state.count
        )
    except TurnError as exc:
        raise ActionError(str(exc)) from None
    roller, dice = state.roller, state.dice
    moved = list(state.moved)
    moved[roller] = True
    state = replace(state, moved=(moved[0], moved[1]))
    over = state.variant.game_over(pos)
    if over is not None:
        done = replace(state, position=pos, last_move=(roller, dice, moves))
        if over.draw:
            return _end_game(done, roller, 0, 0, EndReason.DRAW)
        level = over.level
        if state.options.money and state.options.jacoby and state.cube.centred:
            level = 1  # Jacoby: no gammons while the cube has not been turned
        winner = roller if over.winner > 0 else 1 - roller
        reason = EndReason.RULE if over.how else EndReason.BORNE_OFF
        return _end_game(done, winner, level, level * state.cube.value, reason)
    return _next_step(state, pos, moves)


def _double(state: MatchState, a: Double) -> MatchState:
    side, _member = _who(state, a.by)
    if state.phase in (Phase.ROLL, Phase.MOVE) and state.roller == side:
        _require(state, a.by, side, "double")
    why = state.may_double(side)
    if why:
        raise ActionError(why)
    return replace(state, phase=Phase.DOUBLED, responder=1 - side, redoubles=0, begun=True)


def _answer_side(state: MatchState, by: str, what: str) -> int:
    if state.phase is not Phase.DOUBLED:
        nothing = {
            "take": _("there is no double to take"),
            "pass": _("there is no double to pass"),
            "beaver": _("there is no double to beaver"),
            "raccoon": _("there is no double to raccoon"),
        }
        raise ActionError(nothing.get(what, _("there is no double to answer")))
    assert state.responder is not None
    _require(state, by, state.responder, what)
    return state.responder


def _take(state: MatchState, a: Take) -> MatchState:
    _answer_side(state, a.by, "take")
    assert state.roller is not None
    cube = Cube(state.cube.value * 2, 1 - state.roller)
    return replace(state, phase=Phase.ROLL, cube=cube, responder=None, redoubles=0)


def _pass(state: MatchState, a: Pass) -> MatchState:
    side = _answer_side(state, a.by, "pass")
    # A drop pays the cube value before the double (rules.md §1.6).
    return _end_game(state, 1 - side, 1, state.cube.value, EndReason.PASS)


def _redouble_check(state: MatchState, what: str) -> None:
    opts = state.options
    beaver = what == "beaver"
    if not opts.money:
        raise ActionError(
            _("no beavers in match play: beavers and raccoons are money-play rules")
            if beaver
            else _("no raccoons in match play: beavers and raccoons are money-play rules")
        )
    if not opts.beavers:
        raise ActionError(
            _("beavers are not allowed in this session (beavers are off)")
            if beaver
            else _("raccoons are not allowed in this session (beavers are off)")
        )
    if state.redoubles >= opts.beaver_limit:
        raise ActionError(
            ngettext(
                "no more redoubles: this session allows {count} beaver(s) and raccoon(s)",
                "no more redoubles: this session allows {count} beaver(s) and raccoon(s)",
                opts.beaver_limit,
            ).format(count=opts.beaver_limit)
        )
    if state.cube.value * 4 > opts.max_cube:
        raise ActionError(
            (
                _("a beaver would take the cube past this session's limit of {limit}")
                if beaver
                else _("a raccoon would take the cube past this session's limit of {limit}")
            ).format(limit=opts.max_cube)
        )


def _beaver(state: MatchState, a: Beaver) -> MatchState:
    side = _answer_side(state, a.by, "beaver")
    if state.redoubles:
        raise ActionError(_("a beaver answers a double; to answer a beaver or raccoon, raccoon"))
    _redouble_check(state, "beaver")
    cube = Cube(state.cube.value * 2, side)
    return replace(state, cube=cube, responder=1 - side, redoubles=1)


def _raccoon(state: MatchState, a: Raccoon) -> MatchState:
    side = _answer_side(state, a.by, "raccoon")
    if not state.redoubles:
        raise ActionError(_("a raccoon answers a beaver; to redouble a plain double at once, beaver"))
    _redouble_check(state, "raccoon")
    assert state.roller is not None
    # The cube stays with the side that beavered (the player not on roll).
    cube = Cube(state.cube.value * 2, 1 - state.roller)
    return replace(state, cube=cube, responder=1 - side, redoubles=state.redoubles + 1)


def _resign(state: MatchState, a: Resign) -> MatchState:
    if state.phase not in (Phase.ROLL, Phase.MOVE, Phase.NAME_DOUBLE):
        if state.phase is Phase.DOUBLED:
            raise ActionError(_("cannot resign while a double is pending: take or pass it first"))
        raise _phase_error(state, "resign")
    assert state.roller is not None
    side, _member = _who(state, a.by)
    if side != state.roller:
        raise ActionError(
            _("a resignation is offered on your own turn; {side} is on roll").format(
                side=state.setup.side_name(state.roller)
            )
        )
    _require(state, a.by, side, "resign")
    variant = state.variant
    if a.level not in variant.results:
        raise ActionError(
            _("a {rule_set} game ends in {results}: offer one of those, not {level}").format(
                rule_set=variant.local_name(), results=variant.results_text(), level=repr(a.level)
            )
        )
    if a.level <= state.declined[side]:
        was = variant.result_name(state.declined[side])
        raise ActionError(
            _("your offer to resign a {result} was rejected this game; you may only offer more").format(result=was)
        )
    winner = 1 - side
    # Nobody pays more than the opponent could still win: a gammon offer after bearing a checker off,
    # or under Jacoby with a centred cube, concedes a single game.
    level = min(a.level, state.max_level(side))
    points = level * state.cube.value
    if state.options.auto_accept_resign and (
        level >= state.max_level(side) or (not state.options.money and points >= state.needs(winner))
    ):
        return _end_game(state, winner, level, points, EndReason.RESIGN)
    return replace(state, phase=Phase.RESIGNED, responder=winner, resign_level=level, resume=state.phase)


def _accept(state: MatchState, a: AcceptResignation) -> MatchState:
    if state.phase is not Phase.RESIGNED:
        raise ActionError(_("there is no resignation to accept"))
    assert state.responder is not None
    _require(state, a.by, state.responder, "accept the resignation")
    level = state.resign_level
    return _end_game(state, state.responder, level, level * state.cube.value, EndReason.RESIGN)


def _reject(state: MatchState, a: RejectResignation) -> MatchState:
    if state.phase is not Phase.RESIGNED:
        raise ActionError(_("there is no resignation to reject"))
    assert state.responder is not None and state.resume is not None
    _require(state, a.by, state.responder, "reject the resignation")
    offerer = 1 - state.responder
    declined = list(state.declined)
    declined[offerer] = state.resign_level
    return replace(
        state,
        phase=state.resume,
        responder=None,
        resign_level=0,
        resume=None,
        declined=(declined[0], declined[1]),
    )


def _timeout(state: MatchState, a: Timeout) -> MatchState:
    due = state.turn
    if due is None:
        raise ActionError(_("no clock is running: nobody is due to act before the opening roll"))
    _require(state, a.by, due, "run out of time")
    winner = 1 - due
    if state.options.timeout_policy is TimeoutPolicy.IBF and not state.options.money:
        return _end_game(state, winner, 0, state.needs(winner), EndReason.TIMEOUT)
    return _end_game(state, winner, 0, state.cube.value, EndReason.TIMEOUT)


def _forfeit(state: MatchState, a: Forfeit) -> MatchState:
    side, _member = _who(state, a.by)
    # The side's acting member of the game at hand decides for it, as for every decision of the game.
    _require(state, a.by, side, "forfeit the match")
    winner = 1 - side
    if state.options.money:
        if state.between_games:
            return _close_session(state)  # no game is under way: none is charged
        return _end_game(state, winner, 0, state.cube.value, EndReason.FORFEIT)
    return _end_game(state, winner, 0, state.needs(winner), EndReason.FORFEIT)


def _end_session(state: MatchState, a: EndSession) -> MatchState:
    side, _member = _who(state, a.by)
    if not state.options.money:
        raise ActionError(
            _("a match ends when a side reaches {length} points; to stop before that, forfeit it").format(
                length=state.options.length
            )
        )
    if not state.between_games:
        raise ActionError(
            _("a session ends between games: game {game} is under way, so finish it first (or resign it)").format(
                game=state.game
            )
        )
    if not a.deadline:
        _require(state, a.by, side, "end the session")
    return _close_session(state)


def _close_session(state: MatchState) -> MatchState:
    """The money session ends between games: the score stands and the side ahead wins it (nobody when level).

    The state keeps the last finished game's number (1 when none was played), with no position or roll."""
    s0, s1 = state.score
    lead = None if s0 == s1 else (0 if s0 > s1 else 1)
    return replace(
        state,
        phase=Phase.OVER,
        game=max(1, len(state.results)),
        roller=None,
        dice=None,
        winner=lead,
        _plays=None,
    )


def _set_acting(state: MatchState, a: SetActing) -> MatchState:
    side, _member = _who(state, a.by)
    if not state.options.team_choice:
        raise ActionError(_("the acting member rotates each game in this match; team choice is off"))
    if state.phase not in (Phase.OPENING, Phase.ROLL, Phase.MOVE, Phase.NAME_DOUBLE) or state.moved[side]:
        raise ActionError(
            _(
                "{side} has moved in game {game}: its acting member can be changed only before the side's first "
                "move of a game"
            ).format(side=state.setup.side_name(side), game=state.game)
        )
    members = state.setup.sides[side]
    if a.member not in members:
        raise ActionError(
            _("{player} is not a member of {side}").format(player=repr(a.member), side=state.setup.side_name(side))
        )
    acting = list(state.acting)
    acting[side] = members.index(a.member)
    return replace(state, acting=(acting[0], acting[1]))


_HANDLERS: dict[type, Callable[[MatchState, Any], MatchState]] = {
    OpeningRoll: _opening,
    Roll: _roll,
    Move: _move,
    Double: _double,
    Take: _take,
    Pass: _pass,
    Beaver: _beaver,
    Raccoon: _raccoon,
    Resign: _resign,
    AcceptResignation: _accept,
    RejectResignation: _reject,
    NameDouble: _name_double,
    Timeout: _timeout,
    Forfeit: _forfeit,
    EndSession: _end_session,
    SetActing: _set_acting,
}


def _end_game(state: MatchState, winner: int, level: int, points: int, reason: EndReason) -> MatchState:
    score = list(state.score)
    score[winner] += points
    result = GameResult(state.game, winner, points, level, reason, state.cube.value, state.score, state.crawford_game)
    done = replace(
        state,
        score=(score[0], score[1]),
        results=(*state.results, result),
        responder=None,
        resign_level=0,
        resume=None,
        redoubles=0,
        stage=Stage.NONE,
        _plays=None,
    )
    opts = state.options
    match_over = (
        reason is EndReason.FORFEIT
        or (not opts.money and score[winner] >= opts.length)
        or (opts.money and opts.games and len(done.results) >= opts.games)
    )
    if match_over:
        lead: int | None = winner
        if opts.money:  # a session is decided by points
            lead = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
        return replace(done, phase=Phase.OVER, winner=lead, dice=None)
    return _start_game(done, state.game + 1)


def _start_game(state: MatchState, number: int) -> MatchState:
    opts = state.options
    crawford_game = False
    post = state.post_crawford
    if not opts.money and opts.crawford and not post:
        n1 = opts.length - 1
        if (state.score[0] == n1) != (state.score[1] == n1):
            crawford_game = True
            post = True
    size = state.variant.team_size
    acting = ((number - 1) % size, (number - 1) % size)
    phase, roller = Phase.OPENING, None
    after_winner = opts.opening in (OpeningRule.PREVIOUS_WINNER, OpeningRule.WINNER_REROLL)
    if after_winner and state.results and state.results[-1].reason is not EndReason.DRAW:
        phase, roller = Phase.ROLL, state.results[-1].winner
    return replace(
        state,
        game=number,
        phase=phase,
        position=state.setup.variant.for_game(number - 1).start_position(),
        roller=roller,
        dice=None,
        cube=Cube(),
        responder=None,
        redoubles=0,
        resign_level=0,
        resume=None,
        declined=(0, 0),
        crawford_game=crawford_game,
        post_crawford=post,
        moved=(False, False),
        rolls=(0, 0),
        opening_ties=0,
        begun=False,
        auto_doubles=0,
        acting=acting,
        stage=Stage.NONE,
        turns=(0, 0),
        stages=(),
        count=None,
        _plays=None,
    )
