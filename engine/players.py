"""Bot players: the contract every computer opponent meets, a random player and a heuristic player.

A bot player is registered by a plugin as a :class:`PlayerSpec` (hook ``register_players``): a name, a
display name, a strength label and a ``supports(variant)`` test written on the rule set's description (its
capabilities, never its name). ``spec.create(seed)`` builds a :class:`Player`, which answers the four
decisions of a turn; each method takes a ``time_cap`` in seconds (None: the player's own default):

* :meth:`Player.choose_play` returns one of ``state.legal_plays()``: the engine stays the referee, a player
  only ever picks among the plays the engine lists;
* :meth:`Player.should_double` (before the roll, when ``state.may_double(side)`` is None);
* :meth:`Player.answer_double` (take, pass, beaver or raccoon; see :func:`cube_answers`);
* :meth:`Player.accept_resignation`.

A turn that earns a doublet to name (Acey-deucey's 1-2) asks the player's ``name_double(state, time_cap)`` when it
has one (the heuristic and random players do), else :func:`best_named_double` picks the doublet with the best
play by the heuristic estimate.

A player that can also put numbers on its choices is an :class:`Analyst` (``rank_plays`` and
``cube_advice``); hints and post-match analysis (:mod:`engine.analysis`) need one.

:func:`bot_action` turns a player's decision into the match action for one side, and is what a transport
calls (in a worker thread: players are synchronous). Built in here, registered by this module's
``register_players``:

* ``random``: uniform among the legal plays, with random cube and resignation answers (every rule set);
* ``heuristic``: race and blocking heuristics on the rule set's own description (pip counts, points made,
  blots where hitting exists, primes, checkers on the bar, stacking) and a one-roll look-ahead over the 21
  rolls for its best few candidates, within the time cap. Every rule set; clearly weaker than a neural
  network, and labelled so.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

import pluggy

from .dice import DiceSource
from .i18n import N_, _
from .match import (
    AcceptResignation,
    Action,
    ActionError,
    Beaver,
    Double,
    MatchState,
    Move,
    NameDouble,
    OpeningRoll,
    Pass,
    Phase,
    Raccoon,
    RejectResignation,
    Roll,
    Take,
    apply,
)
from .movegen import Play
from .position import BAR, PINS, POINTS, RESERVE, Position
from .variant import Variant

__all__ = [
    "CubeAnswer",
    "RankedPlay",
    "CubeAdvice",
    "Player",
    "Analyst",
    "PlayerSpec",
    "PlayerError",
    "PlayerUnavailable",
    "UnsupportedVariant",
    "RandomBot",
    "HeuristicPlayer",
    "HeuristicEvaluator",
    "RANDOM",
    "HEURISTIC",
    "ROLLS",
    "bot_action",
    "best_named_double",
    "answer_action",
    "cube_answers",
    "cube_context",
    "register_players",
]

# The engine's own plugin marker, made here (not imported from engine.plugins, which imports this module).
hookimpl = pluggy.HookimplMarker("gammonbot")

#: The 21 distinct rolls with their weights out of 36 (a doublet once, other rolls twice).
ROLLS: tuple[tuple[tuple[int, int], int], ...] = tuple(
    ((a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(1, a + 1)
)


class PlayerError(RuntimeError):
    """A player answered with something the rules do not allow now (a defect of that player)."""


class PlayerFailed(PlayerError):
    """A player's method raised (a plugin's defect, not a refused answer): ``hook`` names the method, ``error`` the
    exception in one line, ``details`` its traceback as text, and ``action`` what :func:`bot_action` takes for it
    instead so the game goes on (the first legal play, no double, take, reject; never a resignation). Picklable, so
    a worker process can hand it back."""

    def __init__(self, message: str, hook: str, error: str, details: str, action: Action) -> None:
        super().__init__(message, hook, error, details, action)
        self.hook, self.error, self.details, self.action = hook, error, details, action

    def __str__(self) -> str:
        return str(self.args[0])


class PlayerUnavailable(RuntimeError):
    """The player's engine cannot run on this machine; the message says why."""


class UnsupportedVariant(ValueError):
    """The player cannot play this rule set; the message names what it needs."""


class CubeAnswer(StrEnum):
    """An answer to a pending double (or, for the doubler, to a beaver)."""

    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    RACCOON = "raccoon"


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """A legal play with the player's estimate of it: ``equity`` from the mover's side, after the play."""

    play: Play
    equity: float

    @property
    def notation(self) -> str:
        """The play in standard notation (empty when nothing can be played)."""
        return self.play.notation


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """A cube decision seen from the side that may double (equities in units of the current cube).

    ``no_double``, ``double_take`` and ``double_pass`` are the doubler's equities after each outcome;
    ``should_double`` and ``should_take`` are the player's verdicts, ``should_beaver`` whether the taker
    should redouble at once (money play with beavers only).
    """

    no_double: float
    double_take: float
    double_pass: float
    should_double: bool
    should_take: bool
    should_beaver: bool = False

    @property
    def double_equity(self) -> float:
        """The doubler's equity after doubling, the opponent answering best."""
        return min(self.double_take, self.double_pass)

    @property
    def verdict(self) -> str:
        """The right action in backgammon's words: "No double", "Double, take", "Double, pass", "Too good" (in the
        active language)."""
        if not self.should_double:
            too_good = not self.should_take and self.no_double > self.double_pass
            return _("Too good to double") if too_good else _("No double")
        if self.should_beaver:
            return _("Double, beaver")
        return _("Double, take") if self.should_take else _("Double, pass")


class Player(Protocol):
    """A bot player for one side. All methods are synchronous and may take up to ``time_cap`` seconds."""

    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Play:
        """One of ``state.legal_plays()`` for the side on roll (phase MOVE)."""
        ...

    def should_double(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Whether the side on roll doubles now (phase ROLL; only asked when doubling is allowed)."""
        ...

    def answer_double(self, state: MatchState, time_cap: float | None = None) -> CubeAnswer:
        """The responder's answer to the pending double or beaver: one of :func:`cube_answers` ``(state)``."""
        ...

    def accept_resignation(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Whether the responder accepts the pending resignation (phase RESIGNED)."""
        ...


@runtime_checkable
class Analyst(Player, Protocol):
    """A player that puts numbers on its choices, so it can give hints and analyse matches."""

    #: What the numbers are ("cubeful equity (bgsage 1-ply)", "heuristic estimate, not an equity").
    equity_label: str

    def rank_plays(self, state: MatchState, time_cap: float | None = None) -> list[RankedPlay]:
        """Every legal play of the current roll with its estimate, best first (phase MOVE)."""
        ...

    def cube_advice(self, state: MatchState, time_cap: float | None = None) -> CubeAdvice:
        """The cube decision of the side on roll, before the roll (phases ROLL and DOUBLED)."""
        ...


@dataclass(frozen=True)
class PlayerSpec:
    """A registered bot player: how it is named and shown, what it can play, and how to build one."""

    #: Unique lower-case name used in commands and storage ("strong", "heuristic").
    name: str
    #: Name shown to players ("bgsage (strong)"); like ``strength``, ``requirements`` and ``description``, in English
    #: (marked ``N_`` for the catalog) and shown through it: ``_(spec.display_name)``.
    display_name: str
    #: The strength label shown beside the name ("casual", "strong", "expert", "weak: heuristic").
    strength: str
    #: Builds a player; the seed fixes any randomness of its choices (None: unseeded).
    factory: Callable[[int | None], Player] = field(repr=False)
    #: Whether the player can play a rule set, judged on its description (``Variant`` attributes).
    supports: Callable[[Variant], bool] = field(repr=False, default=lambda variant: True)
    #: What it needs of a rule set, for messages ("any rule set", "standard backgammon geometry, 15 checkers").
    requirements: str = N_("any rule set")
    #: A sentence for menus and ``/bg play`` help.
    description: str = ""
    #: Other names players may type.
    aliases: tuple[str, ...] = ()
    #: Orders players from weakest to strongest in menus.
    rank: int = 0
    #: Suited to hints and match analysis: an :class:`Analyst` quick enough for a whole match.
    hints: bool = False
    #: Why the player cannot run on this machine (None when it can).
    unavailable: str | None = None

    def create(self, seed: int | None = None) -> Player:
        """A new player; :class:`PlayerUnavailable` when its engine cannot run here."""
        if self.unavailable:
            raise self._unavailable()
        return self.factory(seed)

    def _unavailable(self) -> PlayerUnavailable:
        return PlayerUnavailable(
            _("{player} is not available: {why}").format(
                player=_(self.display_name) if self.display_name else self.name,
                why=_(self.unavailable) if self.unavailable else "",
            )
        )

    def check(self, variant: Variant) -> None:
        """Raise :class:`UnsupportedVariant` (or :class:`PlayerUnavailable`) unless it can play ``variant`` here."""
        if self.unavailable:
            raise self._unavailable()
        if not self.supports(variant):
            raise UnsupportedVariant(
                _("{player} cannot play {rule_set}: it needs {requirements}").format(
                    player=_(self.display_name) if self.display_name else self.name,
                    rule_set=variant.local_name(),
                    requirements=_(self.requirements) if self.requirements else "",
                )
            )


# --- helpers every player uses -------------------------------------------------------------------------------
def _allowed(state: MatchState, action: Action) -> bool:
    try:
        apply(state, action)
    except ActionError:
        return False
    return True


_ANSWERS: dict[CubeAnswer, Callable[[str], Action]] = {
    CubeAnswer.TAKE: Take,
    CubeAnswer.PASS: Pass,
    CubeAnswer.BEAVER: Beaver,
    CubeAnswer.RACCOON: Raccoon,
}


def answer_action(answer: CubeAnswer, by: str) -> Action:
    """The action that gives ``answer`` to the pending double or beaver for player ``by``."""
    return _ANSWERS[answer](by)


def cube_answers(state: MatchState) -> frozenset[CubeAnswer]:
    """The answers the responder may give to the pending double or beaver (phase DOUBLED)."""
    if state.phase is not Phase.DOUBLED or state.responder is None:
        return frozenset()
    by = state.acting_member(state.responder)
    return frozenset(answer for answer, kind in _ANSWERS.items() if _allowed(state, kind(by)))


@dataclass(frozen=True, slots=True)
class CubeContext:
    """The cube and score as the side on roll sees them (what a cube-aware engine needs)."""

    value: int
    #: "centered", "player" (the side on roll owns it) or "opponent".
    owner: str
    #: Points the side on roll and its opponent still need (0 and 0 in money play).
    away: tuple[int, int]
    crawford: bool
    jacoby: bool
    beavers: bool


def cube_context(state: MatchState) -> CubeContext:
    """The cube seen from the side on roll (the doubler, while a double is pending)."""
    roller = state.roller if state.roller is not None else 0
    cube = state.cube
    owner = "centered" if cube.owner is None else ("player" if cube.owner == roller else "opponent")
    money = state.options.money
    away = (0, 0) if money else (state.needs(roller), state.needs(1 - roller))
    return CubeContext(
        cube.value,
        owner,
        away,
        state.crawford_game,
        money and state.options.jacoby,
        money and state.options.beavers,
    )


def bot_action(
    player: Player, state: MatchState, side: int, dice: DiceSource, *, time_cap: float | None = None
) -> Action:
    """The action ``player`` takes for ``side`` now: an opening throw, a double or roll, a play, a cube answer
    or a resignation answer. :class:`PlayerError` when it is not ``side``'s turn or the player answers with
    something the rules do not allow (the player's defect; the engine never applies it)."""
    phase = state.phase
    if phase is Phase.OVER:
        raise PlayerError(_("the match is over"))
    by = state.acting_member(side)
    if phase is Phase.OPENING:
        return OpeningRoll(by, dice())
    if state.turn != side:
        raise PlayerError(_("it is not {side}'s turn to act").format(side=state.setup.side_name(side)))
    if phase is Phase.ROLL:
        if state.may_double(side) is None and _ask(player, "should_double", lambda: Roll(by, dice()), state, time_cap):
            return Double(by)
        return Roll(by, dice())
    if phase is Phase.MOVE:
        plays = state.legal_plays()
        if len(plays) == 1:
            return Move(by, plays[0].moves)
        chosen = _ask(player, "choose_play", lambda: Move(by, plays[0].moves), state, time_cap)
        found = plays.find(chosen.position) if isinstance(chosen, Play) else None
        if found is None:
            raise PlayerError(f"{type(player).__name__} chose {chosen!r}, which is not one of the legal plays")
        return Move(by, found.moves)
    if phase is Phase.NAME_DOUBLE:
        choose = getattr(player, "name_double", None)
        safe = best_named_double(state)
        value = _ask(player, "name_double", lambda: NameDouble(by, safe), state, time_cap) if callable(choose) else safe
        if not _allowed(state, NameDouble(by, value)):
            raise PlayerError(f"{type(player).__name__} named the doublet {value!r}, which is not allowed now")
        return NameDouble(by, value)
    if phase is Phase.DOUBLED:
        take = CubeAnswer.TAKE if CubeAnswer.TAKE in cube_answers(state) else CubeAnswer.PASS
        answer = _ask(player, "answer_double", lambda: _ANSWERS[take](by), state, time_cap)
        if answer not in cube_answers(state):
            raise PlayerError(f"{type(player).__name__} answered {answer!r}, which is not allowed now")
        return _ANSWERS[CubeAnswer(answer)](by)
    # A resignation is offered to this side.
    accept = _ask(player, "accept_resignation", lambda: RejectResignation(by), state, time_cap)
    return AcceptResignation(by) if accept else RejectResignation(by)


def _ask(player: Player, hook: str, fallback: Callable[[], Action], state: MatchState, time_cap: float | None) -> Any:
    """``player.hook(state, time_cap)``; whatever it raises (other than a :class:`PlayerError`) becomes a
    :class:`PlayerFailed` carrying ``fallback()``, the action taken instead."""
    try:
        return getattr(player, hook)(state, time_cap)
    except PlayerError:
        raise
    except Exception as exc:
        import traceback

        error = f"{type(exc).__name__}: {exc}"
        details = "".join(traceback.format_exception(exc))
        raise PlayerFailed(f"{type(player).__name__}.{hook} raised {error}", hook, error, details, fallback()) from exc


# --- the random player ---------------------------------------------------------------------------------------
@dataclass
class RandomBot:
    """Chooses uniformly among the legal plays; doubles, takes and beavers at random rates (seeded)."""

    rng: random.Random
    double_rate: float = 0.08
    take_rate: float = 0.65
    beaver_rate: float = 0.2
    accept_rate: float = 0.7

    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Play:
        """A legal play picked uniformly."""
        return self.rng.choice(list(state.legal_plays()))

    def should_double(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Doubles now and then."""
        return self.rng.random() < self.double_rate

    def answer_double(self, state: MatchState, time_cap: float | None = None) -> CubeAnswer:
        """Beavers or raccoons now and then when allowed, else takes or passes at random."""
        allowed = cube_answers(state)
        r = self.rng.random()
        for redouble in (CubeAnswer.BEAVER, CubeAnswer.RACCOON):
            if redouble in allowed and r < self.beaver_rate:
                return redouble
        return CubeAnswer.TAKE if self.rng.random() < self.take_rate else CubeAnswer.PASS

    def accept_resignation(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Accepts most offers."""
        return self.rng.random() < self.accept_rate

    def name_double(self, state: MatchState, time_cap: float | None = None) -> int:
        """Any doublet, at random."""
        return self.rng.randint(1, 6)


def best_named_double(state: MatchState, evaluator: HeuristicEvaluator | None = None) -> int:
    """The doublet to name (phase NAME_DOUBLE) whose best play the heuristic estimate likes most; a doublet whose
    four moves can all be played (another throw follows) counts a little more. Ties go to the higher doublet."""
    assert state.position is not None
    ev = evaluator or HeuristicEvaluator(state.variant)
    best, best_value = 6, -1.0
    for d in range(6, 0, -1):
        plays = state.variant.legal_plays(state.position, (d, d))
        value = max(ev.after_play(p.position) for p in plays) + (0.05 if plays.max_dice == 4 else 0.0)
        if value > best_value:
            best, best_value = d, value
    return best


# --- the heuristic player -----------------------------------------------------------------------------------
# Chance in 36 that a lone checker this many pips in front of one opposing checker is hit (open board).
_HIT_36 = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3, 15: 1, 16: 1, 18: 1, 20: 1}
_HIT_MISS = tuple(1.0 - _HIT_36.get(d, 0) / 36 for d in range(26))
# Extra value (in pips) of the longest run of consecutive points made in front of an opposing checker.
_PRIME = (0.0, 0.0, 2.0, 5.0, 9.0, 15.0, 24.0)
_SQRT2 = math.sqrt(2.0)
#: What a pinned mother costs, in pips (it usually loses the game at twice the stake).
_MOTHER_RISK = 60.0


class HeuristicEvaluator:
    """Win chances estimated from a rule set's description; works for any :class:`Variant`.

    The estimate is a pip-count race (``variant.pips``) shifted by structure, all in pips: points made
    (``point_blocked_by`` checkers) on the opponent's remaining route, the longest such run (a prime),
    opposing checkers on the bar facing made entry points, stacking, and (only where ``hitting``) the risk
    of lone checkers being hit, computed from the distances on the opponent's route (``geometry``). Where the rule
    set pins (``pinning``: Plakoto), pins held and suffered count, the risk of a lone checker being pinned (far
    more for the last checker on the starting point, the mother) stands for the risk of a hit, and a play that
    ends the game (``game_over``) is worth what it ends with.
    """

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        geo = variant.geometry
        #: ``their[p]``: the opponent's number of my point p.
        self.their: tuple[int, ...] = geo.opposite
        #: ``mine[t]``: my number of the opponent's point t.
        self.mine: tuple[int, ...] = tuple([0] + [geo.my_point(t) for t in range(1, POINTS + 1)])
        self.k = variant.point_blocked_by
        self.hitting = variant.hitting and geo.has_bar
        self.pinning = variant.pinning
        self.checkers = variant.checkers
        # Lowest of my points on the opponent's route from its point t down to 1 (contact test).
        low = [POINTS + 1] * (BAR + 1)
        for t in range(1, BAR + 1):
            low[t] = min(low[t - 1], self.mine[t] if t <= POINTS else POINTS + 1)
        self._route_low = tuple(low)
        self.entry_points = tuple(self.mine[BAR - d] for d in range(1, 7))

    def _rears(self, raw: tuple[int, ...]) -> tuple[int, int]:
        """(my rearmost point, the opponent's rearmost point in his numbering); 25 for the bar, 0 for none."""
        their = self.their
        mine_rear = BAR if raw[BAR] or raw[RESERVE] else 0
        theirs_rear = BAR if raw[BAR + 1] or raw[RESERVE + 1] else 0
        for p in range(1, POINTS + 1):
            v = raw[p]
            if v > 0:
                if p > mine_rear:
                    mine_rear = p
            elif v < 0 and their[p] > theirs_rear:
                theirs_rear = their[p]
        return mine_rear, theirs_rear

    def contact(self, pos: Position) -> bool:
        """Whether some checker of either side still has to pass an opposing one."""
        a, b = self._rears(pos.key())
        return a > 0 and b > 0 and self._route_low[b] <= a

    def _structure(self, raw: tuple[int, ...], b_rear: int) -> tuple[float, float]:
        """(structure value, blot exposure) of the side with positive counts, in pips."""
        k, mine, their = self.k, self.mine, self.their
        value = 0.0
        run = best = ahead = 0
        for t in range(b_rear - 1, 0, -1):
            if raw[mine[t]] >= k:
                run += 1
                ahead += 1
                if run > best:
                    best = run
            else:
                run = 0
        value += 1.5 * ahead + _PRIME[min(best, 6)]
        for p in range(1, POINTS + 1):
            if raw[p] > 3:
                value -= 0.7 * (raw[p] - 3)
        exposure = 0.0
        if self.pinning:
            exposure = self._pin_exposure(raw)
        elif self.hitting:
            on_bar = raw[BAR + 1]
            if on_bar:
                closed = sum(1 for q in self.entry_points if raw[q] >= k)
                value += on_bar * (3.0 + 2.5 * closed + (12.0 if closed == 6 else 0.0))
            shooters = [their[p] for p in range(1, POINTS + 1) if raw[p] < 0]
            if on_bar:
                shooters.append(BAR)
            if shooters:
                home = sum(1 for t in range(1, 7) if raw[mine[t]] <= -k)
                for p in range(1, POINTS + 1):
                    if raw[p] == 1:
                        tp = their[p]
                        miss = 1.0
                        for ts in shooters:
                            d = ts - tp
                            if 0 < d <= BAR:
                                miss *= _HIT_MISS[d]
                        if miss < 1.0:
                            exposure += (1.0 - miss) * ((BAR - p) + 8.0 + 2.0 * home)
        return value, exposure

    def _pin_exposure(self, raw: tuple[int, ...]) -> float:
        """The risk, in pips, of the positive side's lone checkers being pinned (the mother above all)."""
        their = self.their
        shooters = [their[p] for p in range(1, POINTS + 1) if raw[p] < 0 and not raw[PINS] >> p & 1]
        exposure = 0.0
        for p in range(1, POINTS + 1):
            if raw[p] != 1 or raw[PINS] >> p & 1:
                continue
            tp = their[p]
            miss = 1.0
            for ts in shooters:
                d = ts - tp
                if 0 < d <= BAR:
                    miss *= _HIT_MISS[d]
            if miss < 1.0:
                mother = p == POINTS
                exposure += (1.0 - miss) * (_MOTHER_RISK if mother else 6.0 + p / 4)
        return exposure

    def _pins(self, raw: tuple[int, ...]) -> float:
        """The positive side's pins held less those suffered, in pips (a pinned mother far more)."""
        pins = raw[PINS]
        if not pins:
            return 0.0
        value = 0.0
        for p in range(1, POINTS + 1):
            if pins >> p & 1:
                weight = _MOTHER_RISK if p in (1, POINTS) else 8.0
                value += weight if raw[p] > 0 else -weight
        return value

    def win_chance(self, pos: Position, on_roll: bool) -> float:
        """The estimated chance that the side with positive counts in ``pos`` wins the game.

        ``on_roll`` says whether that side rolls next (a position just played is evaluated with
        ``on_roll=False``).
        """
        n = self.checkers
        if pos.off[0] >= n:
            return 1.0
        if pos.off[1] >= n:
            return 0.0
        a_pips, b_pips = self.variant.pips(pos)
        raw = pos.key()
        a_rear, b_rear = self._rears(raw)
        lead = float(b_pips - a_pips) + (4.0 if on_roll else -4.0)
        spread = 0.85 * math.sqrt(a_pips + b_pips) + 3.0
        if a_rear and b_rear and self._route_low[b_rear] <= a_rear:
            flipped = self.variant.flip(pos).key()
            value_a, exposed_a = self._structure(raw, b_rear)
            value_b, exposed_b = self._structure(flipped, a_rear)
            lead += value_a - value_b
            lead -= exposed_a * (0.3 if on_roll else 1.0)
            lead += exposed_b * (1.0 if on_roll else 0.3)
            if self.pinning:
                lead += self._pins(raw)
            spread += 4.0
        else:
            # A race: checkers already off waste nothing; a little credit breaks ties towards bearing off.
            lead += 0.5 * (pos.off[0] - pos.off[1])
        return 0.5 * (1.0 + math.erf(lead / (spread * _SQRT2)))

    def after_play(self, pos: Position) -> float:
        """The mover's chance of winning after making a play (``pos`` in the mover's frame); certain where the play
        ends the game (a draw: even)."""
        over = self.variant.game_over(pos)
        if over is not None:
            return 0.5 + 0.5 * over.winner
        return self.win_chance(pos, on_roll=False)

    def look_ahead(self, pos: Position, opponent_first_move: bool, deadline: float | None = None) -> float | None:
        """The mover's chance after a play, averaged over the opponent's 21 rolls with his best reply each.

        None when the deadline passes before all rolls are seen.
        """
        over = self.variant.game_over(pos)
        if over is not None:
            return 0.5 + 0.5 * over.winner
        variant = self.variant
        theirs = variant.flip(pos)
        total = 0.0
        for roll, weight in ROLLS:
            if deadline is not None and time.perf_counter() > deadline:
                return None
            plays = variant.legal_plays(theirs, roll, opponent_first_move)
            best = max(self.after_play(play.position) for play in plays)
            total += weight * best
        return 1.0 - total / 36.0


@dataclass
class HeuristicPlayer:
    """Race and blocking heuristics with a one-roll look-ahead for the best ``candidates`` plays.

    Works for every rule set; a weak opponent, and its numbers are estimates, not equities.
    """

    rng: random.Random = field(default_factory=random.Random)
    #: How many of the statically best plays get the one-roll look-ahead.
    candidates: int = 3
    #: The time cap used when a call gives none, in seconds.
    default_time_cap: float = 1.0
    equity_label: str = N_("heuristic estimate (2 x win chance - 1), not an equity")
    _evaluators: dict[Variant, HeuristicEvaluator] = field(default_factory=dict, repr=False)

    def evaluator(self, variant: Variant) -> HeuristicEvaluator:
        """The (cached) evaluator for a rule set."""
        ev = self._evaluators.get(variant)
        if ev is None:
            ev = self._evaluators[variant] = HeuristicEvaluator(variant)
        return ev

    def rank_plays(self, state: MatchState, time_cap: float | None = None) -> list[RankedPlay]:
        """Every legal play, best first: the looked-ahead candidates first, then the rest by static value."""
        return self._rank(state, time_cap, None)

    def rank_with(self, state: MatchState, played: Play, time_cap: float | None = None) -> list[RankedPlay]:
        """Like :meth:`rank_plays`, with ``played`` among the looked-ahead plays (for analysis)."""
        return self._rank(state, time_cap, played)

    def _rank(self, state: MatchState, time_cap: float | None, played: Play | None) -> list[RankedPlay]:
        cap = self.default_time_cap if time_cap is None else time_cap
        deadline = time.perf_counter() + cap
        plays = state.legal_plays()
        ev = self.evaluator(state.variant)
        static = sorted(((ev.after_play(p.position), i, p) for i, p in enumerate(plays)), key=lambda x: (-x[0], x[1]))
        if len(static) == 1 or self.candidates <= 0:
            return [RankedPlay(p, 2 * v - 1) for v, _i, p in static]
        assert state.roller is not None
        opponent_first = not state.moved[1 - state.roller]
        deep: list[tuple[float, int, Play]] = []
        chosen = static[: self.candidates]
        if played is not None and all(p != played for _v, _i, p in chosen):
            chosen += [x for x in static if x[2] == played]
        for _v, i, p in chosen:
            value = ev.look_ahead(p.position, opponent_first, deadline)
            if value is None:
                break
            deep.append((value, i, p))
        deep.sort(key=lambda x: (-x[0], x[1]))
        seen = {i for _v, i, _p in deep}
        rest = [x for x in static if x[1] not in seen]
        return [RankedPlay(p, 2 * v - 1) for v, _i, p in (*deep, *rest)]

    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Play:
        """The best-ranked play."""
        return self.rank_plays(state, time_cap)[0].play

    def name_double(self, state: MatchState, time_cap: float | None = None) -> int:
        """The doublet whose best play is estimated best (:func:`best_named_double`)."""
        return best_named_double(state, self.evaluator(state.variant))

    def _chance(self, state: MatchState) -> float:
        """The side on roll's chance, before rolling."""
        assert state.position is not None
        return self.evaluator(state.variant).win_chance(state.position, on_roll=True)

    def cube_advice(self, state: MatchState, time_cap: float | None = None) -> CubeAdvice:
        """Cube equities from the win chance alone (gammons and the match score ignored).

        Janowski's interpolation with cube efficiency 0.7 between a dead cube (equity ``2p - 1``) and a live
        cube (linear between the take point 20% and the cash point 80%, or 20% and 100% once the opponent
        owns the cube): no double ``nd``, double/take ``dt`` (in units of the current cube), double/pass 1.
        This doubles from about 70% and takes up to about 78%; the taker beavers when ``dt < 0``.
        """
        return _janowski(self._chance(state), state.options.money and state.options.beavers)

    def should_double(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Doubles when double/take or double/pass beats no double (:meth:`cube_advice`), except in a match
        when the cube already covers the points it needs while the opponent could still use it after taking."""
        assert state.roller is not None
        me = state.roller
        if not state.options.money:
            value = state.cube.value
            if value >= state.needs(me) and 2 * value < state.needs(1 - me):
                return False
        return self.cube_advice(state, time_cap).should_double

    def answer_double(self, state: MatchState, time_cap: float | None = None) -> CubeAnswer:
        """Takes while double/take is below double/pass, beavers when the doubler's double/take is negative,
        and always takes in a match when passing would lose it; facing a beaver, the doubler raccoons from a 60%
        chance and passes below 20%."""
        allowed = cube_answers(state)
        if state.redoubles:  # the doubler answers a beaver
            p = self._chance(state)
            if p >= 0.6 and CubeAnswer.RACCOON in allowed:
                return CubeAnswer.RACCOON
            return CubeAnswer.PASS if p < 0.2 else CubeAnswer.TAKE
        assert state.responder is not None
        if not state.options.money and state.cube.value >= state.needs(1 - state.responder):
            return CubeAnswer.TAKE  # passing would lose the match: taking can only help
        advice = self.cube_advice(state, time_cap)
        if not advice.should_take:
            return CubeAnswer.PASS
        if advice.should_beaver and CubeAnswer.BEAVER in allowed:
            return CubeAnswer.BEAVER
        return CubeAnswer.TAKE

    def accept_resignation(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Accepts when the offer is worth at least the expected result of playing on (gammons estimated)."""
        assert state.responder is not None and state.position is not None
        me = state.responder
        if not state.options.money and state.resign_level * state.cube.value >= state.needs(me):
            return True
        mine = state.position_for(me)
        ev = self.evaluator(state.variant)
        p = ev.win_chance(mine, on_roll=False)
        expected = min((2 * p - 1) + _gammon_chance(state.variant, mine), float(state.max_level(1 - me)))
        return state.resign_level >= expected - 0.05


_CUBE_EFFICIENCY = 0.7


def _janowski(p: float, beavers: bool) -> CubeAdvice:
    """Cube equities for the side on roll with win chance ``p`` (see :meth:`HeuristicPlayer.cube_advice`)."""
    x = _CUBE_EFFICIENCY
    nd_live = min(1.0, max(-1.0, (p - 0.5) / 0.3))
    dt_live = 2.0 * min(1.0, max(-1.0, -1.0 + 2.0 * (p - 0.2) / 0.8))
    nd = x * nd_live + (1 - x) * (2 * p - 1)
    dt = x * dt_live + (1 - x) * 2 * (2 * p - 1)
    dp = 1.0
    return CubeAdvice(nd, dt, dp, min(dt, dp) > nd, dt <= dp, beavers and dt < 0.0)


def _gammon_chance(variant: Variant, pos: Position) -> float:
    """A rough chance that the side with positive counts wins a gammon (the other side bears none off)."""
    if pos.off[1] > 0:
        return 0.0
    their = variant.geometry.opposite
    # Pips the opponent needs to bring every checker home and bear one off; pips I need to finish.
    need = pos.bar[1] * (BAR - 6) + 3
    for p in range(1, POINTS + 1):
        v = pos.board[p - 1]
        if v < 0 and their[p] > 6:
            need += -v * (their[p] - 6)
    mine = variant.pips(pos)[0]
    lead = (need - mine * 0.6) / 8.0
    return 0.5 * (1.0 + math.erf(lead / (2.0 * _SQRT2)))


def _random_player(seed: int | None) -> Player:
    return RandomBot(random.Random(seed))


def _heuristic_player(seed: int | None) -> Player:
    return HeuristicPlayer(random.Random(seed))


RANDOM = PlayerSpec(
    name="random",
    display_name=N_("Random"),
    strength=N_("random: no skill"),
    factory=_random_player,
    requirements=N_("any rule set"),
    description=N_("Picks any legal play at random; doubles, takes and passes at random. For testing."),
    rank=0,
)

HEURISTIC = PlayerSpec(
    name="heuristic",
    display_name=N_("Heuristic bot"),
    strength=N_("weak: heuristic"),
    factory=_heuristic_player,
    requirements=N_("any rule set"),
    description=N_(
        "Plays on pip counts, points made, primes and blots, looking one roll ahead. Plays every rule set, "
        "but clearly weaker than a neural network."
    ),
    aliases=("weak",),
    rank=10,
    hints=True,
)


@hookimpl
def register_players(register: Callable[[PlayerSpec], None]) -> None:
    """The built-in players for every rule set: random and heuristic."""
    register(RANDOM)
    register(HEURISTIC)
