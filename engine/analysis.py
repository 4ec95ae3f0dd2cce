"""Hints and post-match analysis: pure functions over match states, given an analysing player.

* :func:`hint` answers "what should I do now?" for the side that must decide: the best plays with their
  equities during a roll, the cube decision before it, take or pass when doubled.
* :func:`analyse` replays a match record and measures every real decision (more than one legal play, a
  cube decision that was allowed) by the equity it lost against the analyst's best choice.

The analyst is an :class:`~engine.players.Analyst` (a player that ranks plays and advises on the cube). By
default it is the strongest registered player marked ``hints=True`` that supports the rule set: bgsage for
standard backgammon and Doubles, the heuristic player elsewhere. Heuristic numbers are estimates, not
equities, and every result carries the analyst's ``label`` and ``exact`` flag so a transport can say so.
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
    "ERROR",
    "BLUNDER",
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

#: A decision losing at least this much equity counts as an error; at least ``BLUNDER`` as a blunder.
ERROR = 0.02
BLUNDER = 0.08


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


def default_analyst(state_or_setup: MatchState | MatchSetup) -> tuple[PlayerSpec, Analyst]:
    """The strongest registered player marked for hints that supports the rule set, and an instance of it."""
    from .plugins import players_for

    setup = state_or_setup.setup if isinstance(state_or_setup, MatchState) else state_or_setup
    for spec in reversed(players_for(setup.variant)):
        if spec.hints:
            made = spec.create(0)
            if isinstance(made, Analyst):
                return spec, made
    raise HintError(_("no registered player can give hints for {rule_set}").format(rule_set=setup.variant.local_name()))


def _resolve(state_or_setup: MatchState | MatchSetup, player: Analyst | PlayerSpec | None) -> tuple[str, Analyst]:
    if player is None:
        spec, made = default_analyst(state_or_setup)
        return _shown(spec.display_name), made
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


@dataclass
class SideAnalysis:
    """One side's decisions: how many, the equity they lost, and the error rate."""

    side: int
    name: str
    decisions: int = 0
    equity_lost: float = 0.0
    errors: int = 0
    blunders: int = 0
    mistakes: list[Mistake] = field(default_factory=list)

    @property
    def error_rate(self) -> float:
        """Average equity lost per decision, in thousandths (GNU Backgammon's "error rate" in mEMG)."""
        return 1000.0 * self.equity_lost / self.decisions if self.decisions else 0.0


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
) -> MatchAnalysis:
    """Replay a match and measure each side's decisions against the analyst's best.

    Counted decisions: a roll with more than one legal play; a turn where the roller could double (doubling
    or rolling); the answer to a double (take, beaver or pass; answers to a beaver are not judged). A
    decision's loss is the analyst's best equity minus that of the choice made (never negative). Only the
    decisions of game ``from_game`` and later are judged (the games before are replayed, not judged).
    """
    name, analyst = _resolve(setup, player)
    state = replay(setup, ())
    sides = (SideAnalysis(0, setup.side_name(0)), SideAnalysis(1, setup.side_name(1)))
    everything: list[Mistake] = []
    for action in actions:
        judged = _judge(state, action, analyst, time_cap) if state.game >= from_game else None
        if judged is not None:
            side, mistake = judged
            record = sides[side]
            record.decisions += 1
            if mistake is not None:
                record.equity_lost += mistake.loss
                if mistake.loss >= ERROR:
                    record.errors += 1
                    record.mistakes.append(mistake)
                    everything.append(mistake)
                if mistake.loss >= BLUNDER:
                    record.blunders += 1
        state = apply(state, action)
    for record in sides:
        record.mistakes.sort(key=lambda m: -m.loss)
    everything.sort(key=lambda m: -m.loss)
    return MatchAnalysis(sides, everything[:top], name, _shown(analyst.equity_label), _exact(analyst), from_game)


def _judge(
    state: MatchState, action: Action, analyst: Analyst, time_cap: float | None
) -> tuple[int, Mistake | None] | None:
    """(side, the mistake or None when the choice was best) for a real decision; None for anything else."""
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
            return state.roller, None
        return state.roller, Mistake(
            state.roller, state.game, "play", state.position, state.dice, done.notation, best.notation, loss
        )
    if phase is Phase.ROLL and isinstance(action, Roll | Double):
        assert state.roller is not None and state.position is not None
        if state.may_double(state.roller) is not None:
            return None
        advice = analyst.cube_advice(state, time_cap)
        chosen = advice.double_equity if isinstance(action, Double) else advice.no_double
        loss = max(0.0, max(advice.no_double, advice.double_equity) - chosen)
        if loss <= 0.0:
            return state.roller, None
        played = (
            pgettext("cube decision", "Double")
            if isinstance(action, Double)
            else pgettext("cube decision", "No double")
        )
        return state.roller, Mistake(
            state.roller, state.game, "double", state.position, None, played, _cube_words(advice), loss
        )
    if phase is Phase.DOUBLED and isinstance(action, Take | Pass | Beaver) and not state.redoubles:
        assert state.responder is not None and state.position is not None
        advice = analyst.cube_advice(state, time_cap)
        take, drop = -advice.double_take, -advice.double_pass
        chosen = drop if isinstance(action, Pass) else take
        loss = max(0.0, max(take, drop) - chosen)
        if loss <= 0.0:
            return state.responder, None
        if isinstance(action, Pass):
            played = pgettext("cube decision", "Pass")
        elif isinstance(action, Beaver):
            played = pgettext("cube decision", "Beaver")
        else:
            played = pgettext("cube decision", "Take")
        better = pgettext("cube decision", "Take") if take >= drop else pgettext("cube decision", "Pass")
        return state.responder, Mistake(state.responder, state.game, "take", state.position, None, played, better, loss)
    return None
