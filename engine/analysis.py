"""Hints and post-match analysis: pure functions over match states, given an analysing player.

* :func:`hint` answers "what should I do now?" for the side that must decide: the best plays with their
  equities during a roll, the cube decision before it, take or pass when doubled.
* :func:`analyse` replays a match record and measures its decisions by the equity they lost against the
  analyst's best choice, and each roll's luck, counted as GNU Backgammon counts them (below).

The analyst is an :class:`~engine.players.Analyst` (a player that ranks plays and advises on the cube). By
default it is the strongest registered player marked ``hints=True`` that supports the rule set: bgsage for
standard backgammon and Doubles, the heuristic player elsewhere. A player that offers a deeper analyst of itself
(``analyst()``: bgsage's, at 2-ply, where no bot player of ours chooses its moves by that network's 1-ply) is
replaced by it for post-match analysis, so a bot is not graded by the very evaluation it played by. Heuristic
numbers are estimates, not equities, and every result carries the analyst's ``label`` and ``exact`` flag so a
transport can say so.

Counted as GNU Backgammon 1.07 counts (``analysis.c``: ``updateStatcontext``, ``getMWCFromError``; ``eval.c``:
``isCloseCubedecision``), equities normalised to a money game (EMG, as the analyst gives them in match play too):

* **decisions** = unforced moves (a roll with more than one legal play) + close or actual cube decisions;
* a cube decision is *actual* when the side doubled, took or passed (beavers and the answers to them are not
  judged, as in GNU Backgammon); a turn where the roller could double and rolled is *close* when doubling
  would have cost less than :data:`CLOSE_CUBE` (0.16, GNU Backgammon's "very bad" threshold) against the best cube
  action: ``optimal - min(double/take, double/pass) < 0.16``. A missed double costs its equity whether or not
  the decision was close (as in GNU Backgammon), but only close ones count as decisions;
* **error rate** = equity lost / decisions, in thousandths (mEMG); a decision losing at least :data:`ERROR`
  (0.08, "bad") is an error, at least :data:`BLUNDER` (0.16, "very bad") a blunder; those losing at least
  :data:`DOUBTFUL` (0.04) are listed as mistakes;
* **luck** of a roll = the roller's equity after the best play of the roll thrown minus the average of that over
  the 21 rolls (``LuckNormal``); **luck rate** = a side's luck / its rolls (every roll thrown after the opening
  one), in mEMG per roll, with GNU Backgammon's words (:func:`luck_words`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .i18n import _, pgettext
from .match import Action, Beaver, Double, MatchSetup, MatchState, Move, Pass, Phase, Roll, Take, apply, replay
from .movegen import Play
from .players import Analyst, CubeAdvice, PlayerSpec, RankedPlay
from .position import Position

__all__ = [
    "DOUBTFUL",
    "ERROR",
    "BLUNDER",
    "CLOSE_CUBE",
    "LuckyRoll",
    "luck_words",
    "HintError",
    "PlayHint",
    "Hint",
    "Mistake",
    "SideAnalysis",
    "MatchAnalysis",
    "default_analyst",
    "hint",
    "cube_hint",
    "analyse",
]

#: GNU Backgammon's thresholds (``arSkillLevel`` in gnubg.c: doubtful 0.04, bad 0.08, very bad 0.16): a decision
#: losing at least ``ERROR`` counts as an error, at least ``BLUNDER`` as a blunder; from ``DOUBTFUL`` it is listed.
DOUBTFUL = 0.04
ERROR = 0.08
BLUNDER = 0.16
#: A no-double is a close cube decision when doubling would have lost less than this (``isCloseCubedecision``).
CLOSE_CUBE = 0.16


def luck_words(luck_rate: float) -> str:
    """GNU Backgammon's word for a luck rate in mEMG per roll (``getLuckRating``: ``arLuckLevel`` 0.3 and 0.6 over
    ten): "Go to bed" below -60, "Bad dice, man!" below -30, "Good dice, man!" above 30, "Go to Las Vegas" above
    60, else the middle band, which GNU Backgammon calls "None" and the card calls "Average dice" (a bare "None" read
    as if the figure were missing) (in the active language)."""
    if luck_rate < -60:
        return pgettext("luck", "Go to bed")
    if luck_rate < -30:
        return pgettext("luck", "Bad dice, man!")
    if luck_rate > 60:
        return pgettext("luck", "Go to Las Vegas")
    if luck_rate > 30:
        return pgettext("luck", "Good dice, man!")
    return pgettext("luck", "Average dice")


class HintError(ValueError):
    """There is no decision to advise on now, or no analyst can judge this rule set."""


@dataclass(frozen=True, slots=True)
class PlayHint:
    """One suggested play: its place, notation, equity for the mover and how much it loses to the best."""

    rank: int
    notation: str
    play: Play
    equity: float
    loss: float


@dataclass(frozen=True)
class Hint:
    """Advice for ``side``: ``kind`` is "play" (``plays`` set), "double" or "take" (``cube`` set).

    ``cube`` is always seen from the side that may double or has doubled; for a "take" hint the
    responder's equities are the negatives.
    """

    side: int
    kind: str
    plays: tuple[PlayHint, ...] = ()
    cube: CubeAdvice | None = None
    #: The analyst's display name and what its numbers are (in the language active when the hint was made).
    analyst: str = ""
    label: str = ""
    #: True for engine equities, False for heuristic estimates.
    exact: bool = True

    def lines(self) -> list[str]:
        """The advice as short lines of text (a transport may format it its own way)."""
        out: list[str] = []
        if self.kind == "play":
            for h in self.plays:
                loss = "" if h.rank == 1 else f" ({-h.loss:+.3f})"
                notation = h.notation or _("no move")
                out.append(f"{h.rank}. {notation}  {h.equity:+.3f}{loss}")
        elif self.cube is not None:
            c = self.cube
            if self.kind == "double":
                out.append(c.verdict)
                out.append(
                    _("No double {no_double}, double/take {take}, double/pass {drop}").format(
                        no_double=f"{c.no_double:+.3f}", take=f"{c.double_take:+.3f}", drop=f"{c.double_pass:+.3f}"
                    )
                )
            else:
                if not c.should_take:
                    answer = pgettext("cube decision", "Pass")
                elif c.should_beaver:
                    answer = pgettext("cube decision", "Beaver")
                else:
                    answer = pgettext("cube decision", "Take")
                out.append(answer)
                out.append(
                    _("Take {take}, pass {drop}").format(take=f"{-c.double_take:+.3f}", drop=f"{-c.double_pass:+.3f}")
                )
        out.append(f"{self.analyst}: {self.label}")
        return out


def default_analyst(state_or_setup: MatchState | MatchSetup, *, deep: bool = False) -> tuple[PlayerSpec, Analyst]:
    """The strongest registered player marked for hints that supports the rule set, and an instance of it; with
    ``deep`` (post-match analysis), the deeper analyst it offers (``analyst()``) when it offers one."""
    from .plugins import players_for

    setup = state_or_setup.setup if isinstance(state_or_setup, MatchState) else state_or_setup
    for spec in reversed(players_for(setup.variant)):
        if spec.hints:
            made = spec.create(0)
            deeper = getattr(made, "analyst", None)
            if deep and callable(deeper):  # a deeper analyst than the player itself (for post-match analysis)
                made = deeper()
            if isinstance(made, Analyst):
                return spec, made
    raise HintError(_("no registered player can give hints for {rule_set}").format(rule_set=setup.variant.local_name()))


def _resolve(
    state_or_setup: MatchState | MatchSetup, player: Analyst | PlayerSpec | None, *, deep: bool = False
) -> tuple[str, Analyst]:
    if player is None:
        spec, made = default_analyst(state_or_setup, deep=deep)
        own = getattr(made, "display_name", None)
        return _shown(own if isinstance(own, str) and own else spec.display_name), made
    if isinstance(player, PlayerSpec):
        setup = state_or_setup.setup if isinstance(state_or_setup, MatchState) else state_or_setup
        player.check(setup.variant)
        created = player.create(0)
        if not isinstance(created, Analyst):
            raise HintError(
                _("{player} cannot put numbers on its choices, so it gives no hints").format(
                    player=_shown(player.display_name)
                )
            )
        return _shown(player.display_name), created
    if not isinstance(player, Analyst):
        raise HintError(
            _("{player} cannot put numbers on its choices, so it gives no hints").format(player=type(player).__name__)
        )
    return type(player).__name__, player


def _shown(text: str) -> str:
    """A player's name or an analyst's label as players read it (in the active language)."""
    return _(text) if text else text


def _exact(analyst: Analyst) -> bool:
    return "heuristic" not in analyst.equity_label


def hint(
    state: MatchState,
    player: Analyst | PlayerSpec | None = None,
    n: int = 3,
    *,
    time_cap: float | None = None,
) -> Hint:
    """Advice for the side that must decide now: the ``n`` best plays (phase MOVE), the cube decision (phase
    ROLL, when doubling is allowed) or take/pass (phase DOUBLED). :class:`HintError` when there is nothing
    to decide (a forced play still gets its single line)."""
    name, analyst = _resolve(state, player)
    side = state.turn
    if side is None:
        raise HintError(_("there is no decision to advise on now"))
    if state.phase is Phase.MOVE:
        ranked = analyst.rank_plays(state, time_cap)
        best = ranked[0].equity
        plays = tuple(
            PlayHint(i + 1, r.notation, r.play, r.equity, best - r.equity) for i, r in enumerate(ranked[: max(1, n)])
        )
        return Hint(side, "play", plays, None, name, _shown(analyst.equity_label), _exact(analyst))
    if state.phase is Phase.NAME_DOUBLE:
        from .players import best_named_double

        d = best_named_double(state)
        raise HintError(
            _("no play or cube decision yet: name a doublet; {roll} looks best by the heuristic estimate").format(
                roll=f"{d}-{d}"
            )
        )
    return _cube_hint(state, name, analyst, time_cap)


def cube_hint(state: MatchState, player: Analyst | PlayerSpec | None = None, *, time_cap: float | None = None) -> Hint:
    """The cube decision now: to double (phase ROLL) or to take (phase DOUBLED); :class:`HintError` otherwise."""
    name, analyst = _resolve(state, player)
    return _cube_hint(state, name, analyst, time_cap)


def _cube_hint(state: MatchState, name: str, analyst: Analyst, time_cap: float | None) -> Hint:
    if state.phase is Phase.ROLL:
        assert state.roller is not None
        why = state.may_double(state.roller)
        if why:
            raise HintError(_("no cube decision now ({why}): roll").format(why=why))
        advice = analyst.cube_advice(state, time_cap)
        return Hint(state.roller, "double", (), advice, name, _shown(analyst.equity_label), _exact(analyst))
    if state.phase is Phase.DOUBLED and state.responder is not None and not state.redoubles:
        advice = analyst.cube_advice(state, time_cap)
        return Hint(state.responder, "take", (), advice, name, _shown(analyst.equity_label), _exact(analyst))
    raise HintError(_("there is no cube decision now"))


# --- analysis ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mistake:
    """One decision that lost equity: where, what was played and what was better."""

    side: int
    game: int
    #: "play", "double" (a double or a roll without doubling) or "take" (a take, beaver or pass).
    kind: str
    #: ``played`` and ``better``: a play's notation, or a cube decision in words (the language active when the
    #: analysis was made: "Double", "No double", "Take", "Pass", "Beaver").
    #: The board before the decision, in the frame of the side on roll (the doubler for "take").
    position: Position
    dice: tuple[int, int] | None
    played: str
    better: str
    loss: float


@dataclass(frozen=True)
class LuckyRoll:
    """One roll's luck: game ``game``, ``side`` threw ``dice``; ``luck`` in EMG for the roller (+ lucky)."""

    side: int
    game: int
    dice: tuple[int, int]
    luck: float
    #: The roller had a checker on the bar when it rolled (for words such as "6-6 from the bar").
    from_bar: bool = False
    #: The cube's value, and the points the roller and the other side still needed ((0, 0) in money play).
    cube: int = 1
    away: tuple[int, int] = (0, 0)


@dataclass
class SideAnalysis:
    """One side's decisions (GNU Backgammon's way: unforced moves plus close or actual cube decisions), the equity
    they lost, the error rate, and the luck of its rolls."""

    side: int
    name: str
    decisions: int = 0
    equity_lost: float = 0.0
    errors: int = 0
    blunders: int = 0
    mistakes: list[Mistake] = field(default_factory=list)
    #: Rolls with more than one legal play, and close or actual cube decisions (``decisions`` is their sum).
    unforced: int = 0
    cube_decisions: int = 0
    #: Rolls whose luck was judged, and their luck summed (EMG, + lucky).
    rolls: int = 0
    luck: float = 0.0

    @property
    def error_rate(self) -> float:
        """Average equity lost per decision, in thousandths (GNU Backgammon's "error rate" in mEMG)."""
        return 1000.0 * self.equity_lost / self.decisions if self.decisions else 0.0

    @property
    def luck_rate(self) -> float:
        """Average luck per roll, in thousandths (GNU Backgammon's "luck rate" in mEMG per move)."""
        return 1000.0 * self.luck / self.rolls if self.rolls else 0.0


@dataclass
class MatchAnalysis:
    """Both sides' results and the biggest mistakes of the match (largest first)."""

    sides: tuple[SideAnalysis, SideAnalysis]
    biggest: list[Mistake]
    analyst: str
    label: str
    exact: bool
    #: The first game judged (1: every game; a long session's analysis may judge only its last games).
    from_game: int = 1
    #: Every judged roll's luck, in the order thrown (empty when luck was not judged).
    luck: list[LuckyRoll] = field(default_factory=list)

    def luckiest(self) -> LuckyRoll | None:
        """The luckiest roll of the match (None without luck figures)."""
        return max(self.luck, key=lambda r: r.luck) if self.luck else None

    def unluckiest(self) -> LuckyRoll | None:
        """The unluckiest roll of the match (None without luck figures)."""
        return min(self.luck, key=lambda r: r.luck) if self.luck else None

    def luck_adjusted(self, side: int) -> float:
        """Side ``side``'s luck less the other's, in EMG: what its result owes to the dice (GNU Backgammon subtracts
        it from the actual result for the "luck adjusted result")."""
        return self.sides[side].luck - self.sides[1 - side].luck


def _cube_words(advice: CubeAdvice) -> str:
    return pgettext("cube decision", "Double") if advice.should_double else pgettext("cube decision", "No double")


def analyse(
    setup: MatchSetup,
    actions: Iterable[Action],
    player: Analyst | PlayerSpec | None = None,
    *,
    top: int = 5,
    time_cap: float | None = None,
    from_game: int = 1,
    luck: bool = True,
) -> MatchAnalysis:
    """Replay a match and measure each side's decisions against the analyst's best, and its rolls' luck.

    Counted as GNU Backgammon counts (see the module docstring): unforced moves, and close or actual cube decisions
    (a double, a take, a pass; a roll without doubling when doubling was close). A decision's loss is the analyst's
    best equity minus that of the choice made (never negative). Only the decisions of game ``from_game`` and later
    are judged (the games before are replayed, not judged). ``luck``: judge each roll's luck too (the analyst's
    ``roll_luck`` when it has one, else its best play for each of the 21 rolls).
    """
    name, analyst = _resolve(setup, player, deep=True)
    state = replay(setup, ())
    sides = (SideAnalysis(0, setup.side_name(0)), SideAnalysis(1, setup.side_name(1)))
    everything: list[Mistake] = []
    rolls: list[LuckyRoll] = []
    for action in actions:
        judged = _judge(state, action, analyst, time_cap) if state.game >= from_game else None
        if judged is not None:
            side, mistake, counted = judged
            record = sides[side]
            if counted:
                record.decisions += 1
                if state.phase is Phase.MOVE:
                    record.unforced += 1
                else:
                    record.cube_decisions += 1
            if mistake is not None and mistake.loss > 0.0:
                record.equity_lost += mistake.loss
                if mistake.loss >= DOUBTFUL:
                    record.mistakes.append(mistake)
                    everything.append(mistake)
                if mistake.loss >= ERROR:
                    record.errors += 1
                if mistake.loss >= BLUNDER:
                    record.blunders += 1
        if luck and isinstance(action, Roll) and state.game >= from_game and state.phase is Phase.ROLL:
            rolled = _roll_luck(state, action.dice, analyst, time_cap)
            if rolled is not None:
                assert state.roller is not None and state.position is not None
                side = state.roller
                sides[side].rolls += 1
                sides[side].luck += rolled
                away = (0, 0) if state.options.money else (state.needs(side), state.needs(1 - side))
                bar = state.position.bar[0] > 0
                rolls.append(LuckyRoll(side, state.game, action.dice, rolled, bar, state.cube.value, away))
        state = apply(state, action)
    for record in sides:
        record.mistakes.sort(key=lambda m: -m.loss)
    everything.sort(key=lambda m: -m.loss)
    return MatchAnalysis(sides, everything[:top], name, _shown(analyst.equity_label), _exact(analyst), from_game, rolls)


def _roll_luck(state: MatchState, dice: tuple[int, int], analyst: Analyst, time_cap: float | None) -> float | None:
    """The luck of ``dice`` thrown now (phase ROLL) for the roller, in EMG: the analyst's ``roll_luck`` when it has
    one, else its best play's equity for the dice thrown less the average over the 21 rolls (a roll that cannot
    be played: the equity of the position as it stands, seen by the roller)."""
    own = getattr(analyst, "roll_luck", None)
    if own is not None:
        found: float | None = own(state, dice, time_cap)
        return found
    from .players import ROLLS

    assert state.roller is not None
    by_roll: dict[tuple[int, int], float] = {}
    for roll, _weight in ROLLS:
        try:
            rolled = apply(state, Roll(state.acting_member(state.roller), roll))
        except Exception:  # noqa: BLE001 - a rule set whose roll cannot be applied here: no luck figure
            return None
        if rolled.phase is not Phase.MOVE or rolled.roller != state.roller:
            return None  # a roll with no legal play ends the turn: the fallback cannot judge it
        by_roll[roll] = analyst.rank_plays(rolled, 0.0)[0].equity  # the quick estimate of each roll's best play
    mean = sum(by_roll[roll] * weight for roll, weight in ROLLS) / 36.0
    return by_roll[(max(dice), min(dice))] - mean


def _judge(
    state: MatchState, action: Action, analyst: Analyst, time_cap: float | None
) -> tuple[int, Mistake | None, bool] | None:
    """(side, the mistake or None when the choice was best, whether it counts as a decision) for a judged choice;
    None for anything else."""
    phase = state.phase
    if phase is Phase.MOVE and isinstance(action, Move):
        plays = state.legal_plays()
        if len(plays) < 2:
            return None
        assert state.position is not None and state.roller is not None
        done = plays.find(state.variant.apply(state.position, action.moves))
        if done is None:
            return None
        ranked: Sequence[RankedPlay]
        rank_with = getattr(analyst, "rank_with", None)
        ranked = rank_with(state, done, time_cap) if rank_with is not None else analyst.rank_plays(state, time_cap)
        best = ranked[0]
        mine = next((r for r in ranked if r.play == done), None)
        if mine is None:
            return None
        loss = max(0.0, best.equity - mine.equity)
        if loss <= 0.0:
            return state.roller, None, True
        return (
            state.roller,
            Mistake(state.roller, state.game, "play", state.position, state.dice, done.notation, best.notation, loss),
            True,
        )
    if phase is Phase.ROLL and isinstance(action, Roll | Double):
        assert state.roller is not None and state.position is not None
        if state.may_double(state.roller) is not None:
            return None
        advice = analyst.cube_advice(state, time_cap)
        doubled = min(advice.double_take, advice.double_pass)
        optimal = max(advice.no_double, doubled)  # GNU Backgammon's OUTPUT_OPTIMAL (FindCubeDecision)
        if isinstance(action, Double):
            loss, counted = max(0.0, optimal - doubled), True
        else:
            loss, counted = max(0.0, optimal - advice.no_double), optimal - doubled < CLOSE_CUBE
        if loss <= 0.0:
            return state.roller, None, counted
        played = (
            pgettext("cube decision", "Double")
            if isinstance(action, Double)
            else pgettext("cube decision", "No double")
        )
        return (
            state.roller,
            Mistake(state.roller, state.game, "double", state.position, None, played, _cube_words(advice), loss),
            counted,
        )
    if phase is Phase.DOUBLED and isinstance(action, Take | Pass | Beaver) and not state.redoubles:
        assert state.responder is not None and state.position is not None
        advice = analyst.cube_advice(state, time_cap)
        take, drop = -advice.double_take, -advice.double_pass
        chosen = drop if isinstance(action, Pass) else take
        loss = max(0.0, max(take, drop) - chosen)
        if loss <= 0.0:
            return state.responder, None, True
        if isinstance(action, Pass):
            played = pgettext("cube decision", "Pass")
        elif isinstance(action, Beaver):
            played = pgettext("cube decision", "Beaver")
        else:
            played = pgettext("cube decision", "Take")
        better = pgettext("cube decision", "Take") if take >= drop else pgettext("cube decision", "Pass")
        return (
            state.responder,
            Mistake(state.responder, state.game, "take", state.position, None, played, better, loss),
            True,
        )
    return None
