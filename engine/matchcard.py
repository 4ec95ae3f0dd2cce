"""What a match card shows and what a replay draws, computed from a match record (pure: no PIL, no I/O).

:func:`match_card` reads a record (setup and actions) into a frozen :class:`MatchCard`: the sides' names, every
game's result with the running score, each side's dice luck, the cube actions, and, when given, the analysis
figures of :func:`analyse_card`. :func:`replay_frames` turns one game of a record into board snapshots, one
before the first play and one after each play, with a caption each.

Dice luck counts the rolls a side threw (a :class:`~engine.match.Roll`; opening throws, one die each, are left out,
as in ``/bg-dice stats``):

* **pips rolled**: the dice's sum, a doublet counting four times (a fair roll averages 49/6, about 8.17 pips);
* **doubles**: doublets rolled (a sixth of the rolls, on average);
* **shots hit**: a *shot* is a roll made when at least one of the 36 rolls would have allowed a hit (an opposing
  blot within reach, in a rule set where blots are hit); the shot is *hit* when the roll thrown allowed one,
  whether or not the player chose to hit. The expected number is the sum of each shot's chance (hitting rolls / 36);
* **checkers hit**: the hits actually made.

The graph of an analysed match (:func:`analyse_card`) has one point per turn (before each roll: the roller's
cubeful equity with the best cube action, as the analyst judges it) and one at each game's end, from side 0's point
of view: in match play its **match winning chance** (0 to 100%, as GNU Backgammon and eXtreme Gammon draw it:
the equity turned into winning chances with the match equity table, ``eq2mwc``), in money play the equity per
cube (about -1 to +1; to -3 and +3 with gammons and backgammons; the card's axis fits the data). Doubles are
marked. Luck figures (:class:`~engine.analysis.LuckyRoll`) come with the analysis.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from . import match as m
from .analysis import LuckyRoll, MatchAnalysis, _resolve, _roll_luck, analyse
from .i18n import N_, _, ngettext, pgettext
from .movegen import Play, Submove
from .notation import format_play
from .players import ROLLS, Analyst, CubeAdvice, RankedPlay
from .position import Position
from .snapshot import BoardSnapshot, GameEnd, Home, Side, snapshot_of
from .turn import check_moves

if TYPE_CHECKING:  # pragma: no cover
    from .players import CubeAnswer, PlayerSpec

__all__ = [
    "PIPS_PER_ROLL",
    "GameLine",
    "CubeAction",
    "DiceLuck",
    "SideQuality",
    "EquityPoint",
    "CardAnalysis",
    "MatchCard",
    "ReplayFrame",
    "match_card",
    "side_names",
    "analyse_card",
    "rating_words",
    "replay_frames",
    "plays_in_game",
]

#: The average pips of a fair roll (a doublet counts four times): 49/6.
PIPS_PER_ROLL = 49 / 6
_LEVELS = {1: N_("single game"), 2: N_("gammon"), 3: N_("backgammon")}


@dataclass(frozen=True, slots=True)
class GameLine:
    """One finished game: who won, how much and how, and the score after it."""

    number: int
    winner: int
    points: int
    #: 1 single, 2 gammon, 3 backgammon; 0 for a timeout or a forfeit.
    level: int
    #: How it ended: "borne off", "pass", "resign", "timeout", "forfeit".
    reason: str
    cube: int
    score_after: tuple[int, int]
    crawford: bool = False
    #: Plays made in the game (rolls that could not be played included).
    plays: int = 0
    #: The result's name in the rule set's words ("gammon", "mars"; ``Variant.result_name``, in the language active
    #: when the card was made); empty: the usual names by level.
    result: str = ""
    #: For a game a rule of the rule set ended, or a draw: how, in words ("a mother is pinned ..."); else "".
    ended: str = ""

    @property
    def how(self) -> str:
        """``"gammon"``, ``"single game"``, ``"pass"``, ``"timeout"``, ``"a mother is pinned ..."``... in a few
        words (in the active language)."""
        ended = _(self.ended) if self.ended else ""
        if self.reason == "draw":
            return _("draw: {how}").format(how=ended) if ended else pgettext("how a game ended", "draw")
        if self.reason == "rule":
            return ended or _("won by a rule of the game")
        if self.level == 0:
            reasons = {
                "timeout": pgettext("how a game ended", "timeout"),
                "forfeit": pgettext("how a game ended", "forfeit"),
            }
            return reasons.get(self.reason, self.reason)
        if self.reason == "pass":
            return _("double passed")
        level = _LEVELS.get(self.level)
        kind = self.result or (_(level) if level else pgettext("how a game ended", "game"))
        return _("{result}, resigned").format(result=kind) if self.reason == "resign" else kind


@dataclass(frozen=True, slots=True)
class CubeAction:
    """A cube action: in game ``game``, ``side`` doubled (to ``value``), took, passed, beavered or raccooned."""

    game: int
    side: int
    #: "double", "take", "pass", "beaver" or "raccoon".
    action: str
    #: The cube's value the action offers or accepts (a pass: the value declined).
    value: int


@dataclass(frozen=True, slots=True)
class DiceLuck:
    """One side's dice in a match (see the module docstring for each figure)."""

    rolls: int = 0
    pips: int = 0
    doubles: int = 0
    shots: int = 0
    shots_hit: int = 0
    expected_hits: float = 0.0
    hits: int = 0

    @property
    def expected_pips(self) -> float:
        return self.rolls * PIPS_PER_ROLL

    @property
    def expected_doubles(self) -> float:
        return self.rolls / 6


@dataclass(frozen=True, slots=True)
class SideQuality:
    """One side's decisions as the analysis judged them, and its luck."""

    decisions: int
    errors: int
    blunders: int
    equity_lost: float
    #: Equity lost per decision in thousandths (GNU Backgammon's error rate).
    error_rate: float
    #: Luck per roll in thousandths (GNU Backgammon's luck rate, mEMG), over ``rolls`` rolls (0: luck not judged).
    luck_rate: float = 0.0
    rolls: int = 0
    #: The side's result (match winning chance won, 0 to 1 less its chance at the start, in match play; points in
    #: money play) and that result less its luck plus the other side's (GNU Backgammon's "luck adjusted result").
    result: float = 0.0
    luck_adjusted: float = 0.0


@dataclass(frozen=True, slots=True)
class EquityPoint:
    """Side 0's standing at one turn of game ``game`` (before the roll) or at its end: ``equity`` per cube, and in
    match play ``mwc``, its match winning chance (0 to 1). ``mark``: "double" for a turn whose roller doubled,
    "end" for a game's end, else ""."""

    game: int
    equity: float
    mwc: float | None = None
    mark: str = ""


@dataclass(frozen=True, slots=True)
class CardAnalysis:
    """The analysis figures a card shows: who analysed, each side's quality, the equity over the match."""

    analyst: str
    label: str
    #: True for engine equities, False for heuristic estimates.
    exact: bool
    sides: tuple[SideQuality, SideQuality]
    equity: tuple[EquityPoint, ...]
    #: The luckiest and unluckiest rolls of the analysed games (None without luck figures).
    luckiest: LuckyRoll | None = None
    unluckiest: LuckyRoll | None = None

    @property
    def match_play(self) -> bool:
        """Whether the graph is in match winning chances (match play)."""
        return bool(self.equity) and all(p.mwc is not None for p in self.equity)


@dataclass(frozen=True, slots=True)
class MatchCard:
    """Everything a match card shows (see :func:`match_card`)."""

    variant: str
    names: tuple[str, str]
    #: Match length in points; 0 for a money session.
    length: int
    games: tuple[GameLine, ...]
    score: tuple[int, int]
    #: The side that won the match (None: not over, or a tied money session).
    winner: int | None
    over: bool
    dice: tuple[DiceLuck, DiceLuck]
    cube: tuple[CubeAction, ...]
    #: Whether doubling was possible at all, and whether blots are hit in this rule set.
    uses_cube: bool
    hitting: bool
    analysis: CardAnalysis | None = None
    #: Whether the sides are teams (a team's name takes "win", not "wins").
    teams: bool = False
    #: The first game whose dice, cube actions and (with an analysis) play the card counts: 1, or for a long
    #: session its last games only (its every game is in the score all the same).
    counted_from: int = 1

    def running_score(self) -> list[tuple[int, int]]:
        """The score before the first game and after each game."""
        return [(0, 0), *(g.score_after for g in self.games)]


# --- the card ------------------------------------------------------------------------------------------------
def match_card(
    setup: m.MatchSetup,
    actions: Iterable[m.Action],
    analysis: CardAnalysis | None = None,
    *,
    names: Mapping[str, str] | None = None,
    from_game: int = 1,
) -> MatchCard:
    """The card of a match (finished or not) from its record; ``analysis`` from :func:`analyse_card`; ``names``:
    display names by player id (a side is then called by its members' names; default: the setup's side names).
    ``from_game``: count the dice and cube actions of that game and later only (a long session's last games:
    judging every roll's shots is most of a card's work); every game is in the score."""
    variant = setup.variant
    state = m.replay(setup, ())
    luck = [_Luck(), _Luck()]
    cube: list[CubeAction] = []
    plays: dict[int, int] = {}
    ended: dict[int, tuple[str, str]] = {}  # game -> (result name in its rule set's words, how a rule ended it)
    for action in actions:
        before = state
        state = m.apply(before, action)
        if len(state.results) > len(before.results):
            r = state.results[-1]
            ended[r.game] = (before.variant.result_name(r.level) if r.level else "", rule_end(before, action, r))
        counted = before.game >= from_game
        if isinstance(action, m.Roll) and before.roller is not None and counted:
            side = before.roller
            luck[side].roll(action.dice)
            if before.variant.hitting and before.position is not None:
                luck[side].shot(_shot(before, action.dice))
            if state.game != before.game or state.roller != side or state.phase is not m.Phase.MOVE:
                plays[before.game] = plays.get(before.game, 0) + 1  # no legal play: the roll is the turn
        elif isinstance(action, m.Roll) and before.roller is not None:
            if state.game != before.game or state.roller != before.roller or state.phase is not m.Phase.MOVE:
                plays[before.game] = plays.get(before.game, 0) + 1
        elif isinstance(action, m.Move) and before.roller is not None and before.position is not None:
            plays[before.game] = plays.get(before.game, 0) + 1
            if counted:
                moved = before.variant.apply(before.position, _played(before, state, action))
                if moved.bar[1] > before.position.bar[1]:
                    luck[before.roller].hits += moved.bar[1] - before.position.bar[1]
        elif isinstance(action, m.Double | m.Take | m.Pass | m.Beaver | m.Raccoon) and counted:
            cube.append(_cube_action(before, state, action))
    games = tuple(
        GameLine(
            r.game,
            r.winner,
            r.points,
            r.level,
            str(r.reason),
            r.cube,
            _after(r),
            r.crawford,
            plays.get(r.game, 0),
            *ended.get(r.game, ("", "")),
        )
        for r in state.results
    )
    return MatchCard(
        variant=variant.local_name(),
        names=side_names(setup, names),
        length=setup.options.length,
        games=games,
        score=state.score,
        winner=state.winner,
        over=state.over,
        dice=(luck[0].freeze(), luck[1].freeze()),
        cube=tuple(cube),
        uses_cube=setup.cube_in_use,
        hitting=variant.hitting,
        analysis=analysis,
        teams=variant.team_size > 1,
        counted_from=from_game,
    )


def side_names(setup: m.MatchSetup, names: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The sides' names: their members' display names from ``names`` (by id) joined with " & ", or without
    ``names`` the setup's own side names."""
    if names is None:
        return setup.side_name(0), setup.side_name(1)
    a, b = (" & ".join(names.get(p, p) for p in members) for members in setup.sides)
    return a, b


def rule_end(before: m.MatchState, action: m.Action, r: m.GameResult) -> str:
    """How a rule of the rule set ended game ``r`` (a pinned mother, a draw), in its words; "" for other ends."""
    if r.reason not in (m.EndReason.RULE, m.EndReason.DRAW) or not isinstance(action, m.Move):
        return ""
    if before.position is None or before.roller is None or before.dice is None:
        return ""
    variant = before.variant
    try:
        first = not before.moved[before.roller]
        moves = check_moves(variant, before.position, before.dice, action.moves, before.legal_plays(), first)[0]
    except ValueError:  # a TurnError or ActionError: not a play of this roll
        return ""
    over = variant.game_over(variant.apply(before.position, moves))
    return over.how if over is not None else ""


def _after(r: m.GameResult) -> tuple[int, int]:
    after = list(r.score_before)
    after[r.winner] += r.points
    return after[0], after[1]


class _Luck:
    """A side's dice figures while the record is read."""

    def __init__(self) -> None:
        self.rolls = self.pips = self.doubles = self.shots = self.shots_hit = self.hits = 0
        self.expected_hits = 0.0

    def roll(self, dice: tuple[int, int]) -> None:
        a, b = dice
        self.rolls += 1
        self.pips += 4 * a if a == b else a + b
        self.doubles += a == b

    def shot(self, chance: tuple[float, bool] | None) -> None:
        if chance is None:
            return
        self.shots += 1
        self.expected_hits += chance[0]
        self.shots_hit += chance[1]

    def freeze(self) -> DiceLuck:
        return DiceLuck(self.rolls, self.pips, self.doubles, self.shots, self.shots_hit, self.expected_hits, self.hits)


def _hits_with(state: m.MatchState, pos: Position, dice: tuple[int, int], first: bool) -> bool:
    """Whether some legal play of ``dice`` hits (sends an opposing checker to the bar)."""
    return any(p.position.bar[1] > pos.bar[1] for p in state.variant.legal_plays(pos, dice, first))


def _shot(state: m.MatchState, dice: tuple[int, int]) -> tuple[float, bool] | None:
    """For a roll about to be thrown: (the chance that a roll allows a hit, whether ``dice`` allow one), or None
    when no roll could hit (no opposing blot in reach)."""
    pos = state.position
    assert pos is not None and state.roller is not None
    blocked = state.variant.point_blocked_by
    if not any(-blocked < v < 0 for v in pos.board):
        return None
    first = not state.moved[state.roller]
    hitting = {roll for roll, _weight in ROLLS if _hits_with(state, pos, roll, first)}
    if not hitting:
        return None
    chance = sum(weight for roll, weight in ROLLS if roll in hitting) / 36
    thrown = (max(dice), min(dice))
    return chance, thrown in hitting


def _played(before: m.MatchState, after: m.MatchState, action: m.Move) -> tuple[tuple[int, int, bool], ...]:
    """The submoves of a play as the engine recorded them (hit marks recomputed)."""
    if after.last_move is not None and after.last_move[0] == before.roller:
        return after.last_move[2]
    return action.moves


def _cube_action(before: m.MatchState, after: m.MatchState, action: m.Action) -> CubeAction:
    side = before.side_of(action.by)
    value = before.cube.value
    if isinstance(action, m.Double):
        return CubeAction(before.game, side, "double", value * 2)
    if isinstance(action, m.Take):
        return CubeAction(before.game, side, "take", after.cube.value)
    if isinstance(action, m.Pass):
        return CubeAction(before.game, side, "pass", value * 2)
    kind = "beaver" if isinstance(action, m.Beaver) else "raccoon"
    return CubeAction(before.game, side, kind, value * 4)


# --- analysis ------------------------------------------------------------------------------------------------
class _Recorder:
    """An analyst that hands on another's answers and notes, once per turn (before the roll), the roller's cubeful
    equity with the best cube action: the analysis asks for the cube (to judge it, or for the roll's luck) once per
    turn, so the graph costs nothing more (the deep analyst keeps its last cube analysis)."""

    def __init__(self, inner: Analyst) -> None:
        self.inner = inner
        self.equity_label = inner.equity_label
        self.turns: list[tuple[m.MatchState, float]] = []

    def _note(self, state: m.MatchState, advice: CubeAdvice) -> None:
        fresh = not self.turns or self.turns[-1][0] is not state
        if state.phase is m.Phase.ROLL and state.roller is not None and fresh:
            equity = max(advice.no_double, min(advice.double_take, advice.double_pass))
            self.turns.append((state, equity if state.roller == 0 else -equity))

    def rank_plays(self, state: m.MatchState, time_cap: float | None = None) -> list[RankedPlay]:
        return self.inner.rank_plays(state, time_cap)

    def rank_with(self, state: m.MatchState, played: Play, time_cap: float | None = None) -> list[RankedPlay]:
        rank_with = getattr(self.inner, "rank_with", None)
        if rank_with is None:
            return self.rank_plays(state, time_cap)
        ranked: list[RankedPlay] = rank_with(state, played, time_cap)
        return ranked

    def cube_advice(self, state: m.MatchState, time_cap: float | None = None) -> CubeAdvice:
        advice = self.inner.cube_advice(state, time_cap)
        self._note(state, advice)
        return advice

    def roll_luck(self, state: m.MatchState, dice: tuple[int, int], time_cap: float | None = None) -> float | None:
        self._note(state, self.inner.cube_advice(state, time_cap))
        return _roll_luck(state, dice, self.inner, time_cap)

    def choose_play(self, state: m.MatchState, time_cap: float | None = None) -> Play:
        return self.inner.choose_play(state, time_cap)

    def should_double(self, state: m.MatchState, time_cap: float | None = None) -> bool:
        return self.inner.should_double(state, time_cap)

    def answer_double(self, state: m.MatchState, time_cap: float | None = None) -> CubeAnswer:
        return self.inner.answer_double(state, time_cap)

    def accept_resignation(self, state: m.MatchState, time_cap: float | None = None) -> bool:
        return self.inner.accept_resignation(state, time_cap)


def match_equity(analyst: object, away: int, other: int) -> float:
    """The match winning chance of a side ``away`` points from winning against one ``other`` away: the analyst's
    match equity table (``met``) when it has one, else an estimate (a logistic curve in the difference of the
    points needed over the square root of their sum, within about 3% of the usual tables to 11 points)."""
    if away <= 0:
        return 1.0
    if other <= 0:
        return 0.0
    met = getattr(analyst, "met", None)
    if callable(met):
        return float(met(away, other))
    import math

    return 1.0 / (1.0 + math.exp(-0.85 * (other - away) / math.sqrt(away + other)))


def winning_chance(state: m.MatchState, side: int, equity: float, analyst: object) -> float | None:
    """Side ``side``'s match winning chance with ``equity`` (per cube, normalised to a money game, from its own
    side) in ``state``: GNU Backgammon's ``eq2mwc`` (linear between losing and winning the cube's value). None in
    money play."""
    if state.options.money:
        return None
    cube = state.cube.value
    a, b = state.needs(side), state.needs(1 - side)
    win, lose = match_equity(analyst, a - cube, b), match_equity(analyst, a, b - cube)
    return min(1.0, max(0.0, lose + (equity + 1.0) / 2.0 * (win - lose)))


def analyse_card(
    setup: m.MatchSetup,
    actions: Sequence[m.Action],
    player: Analyst | PlayerSpec | None = None,
    *,
    time_cap: float | None = None,
    from_game: int = 1,
) -> tuple[MatchAnalysis, CardAnalysis]:
    """:func:`engine.analysis.analyse` of a match (from game ``from_game`` on), and the figures its card shows (with
    the graph, noted during that one analysis, and the luck). ``player`` as there (default: the deep analyst for the
    rule set); :class:`~engine.analysis.HintError` when no analyst can judge the rule set."""
    name, inner = _resolve(setup, player, deep=True)
    recorder = _Recorder(inner)
    result = analyse(setup, actions, recorder, time_cap=time_cap, from_game=from_game)
    result = replace(result, analyst=name)
    points = _graph(setup, actions, recorder.turns, inner, from_game)
    results = _results(setup, actions, result, inner, from_game)
    sides = tuple(
        SideQuality(
            s.decisions, s.errors, s.blunders, s.equity_lost, s.error_rate, s.luck_rate, s.rolls, *results[s.side]
        )
        for s in result.sides
    )
    card = CardAnalysis(
        name, result.label, result.exact, (sides[0], sides[1]), points, result.luckiest(), result.unluckiest()
    )
    return result, card


def _graph(
    setup: m.MatchSetup,
    actions: Sequence[m.Action],
    turns: list[tuple[m.MatchState, float]],
    analyst: object,
    from_game: int,
) -> tuple[EquityPoint, ...]:
    """The graph's points: one per noted turn (a double marked), and one at each game's end."""
    noted = iter(turns)  # one per turn from game ``from_game`` on, in order
    ahead = next(noted, None)
    points: list[EquityPoint] = []
    state = m.replay(setup, ())
    for action in actions:
        before = state
        state = m.apply(before, action)
        if before.game < from_game:
            continue
        turn = before.phase is m.Phase.ROLL and isinstance(action, m.Roll | m.Double)
        if turn and ahead is not None and ahead[0].game == before.game and ahead[0].position == before.position:
            equity = ahead[1]
            mark = "double" if isinstance(action, m.Double) else ""
            points.append(EquityPoint(before.game, equity, winning_chance(before, 0, equity, analyst), mark))
            ahead = next(noted, None)
        if len(state.results) > len(before.results):
            r = state.results[-1]
            level = r.points / max(1, r.cube)
            equity = level if r.winner == 0 else -level
            mwc = None
            if not state.options.money:
                mwc = (
                    1.0
                    if state.winner == 0
                    else 0.0
                    if state.over
                    else match_equity(analyst, state.needs(0), state.needs(1))
                )
            points.append(EquityPoint(r.game, equity, mwc, "end"))
    return tuple(points)


def _results(
    setup: m.MatchSetup, actions: Sequence[m.Action], result: MatchAnalysis, analyst: object, from_game: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Each side's (result, luck-adjusted result) over the analysed games, as GNU Backgammon counts them: in match
    play match winning chances (the chance at the end less that at the first analysed game; a roll's luck turned
    into winning chances at its score and cube), in money play points (a roll's luck times the cube)."""
    state = m.replay(setup, actions)
    money = state.options.money
    if money:
        won = [0.0, 0.0]
        for r in state.results:
            if r.game >= from_game:
                won[r.winner] += r.points
                won[1 - r.winner] -= r.points
        actual = (won[0], won[1])
    else:
        first = next((r for r in state.results if r.game == from_game), None)
        before = first.score_before if first is not None else state.score
        start = match_equity(analyst, setup.options.length - before[0], setup.options.length - before[1])
        end = 1.0 if state.winner == 0 else 0.0 if state.over else match_equity(analyst, state.needs(0), state.needs(1))
        actual = (end - start, start - end)
    luck = [0.0, 0.0]
    for roll in result.luck:
        if money:
            value = roll.luck * roll.cube
        else:
            a, b = roll.away
            win, lose = match_equity(analyst, a - roll.cube, b), match_equity(analyst, a, b - roll.cube)
            value = roll.luck / 2.0 * (win - lose)
        luck[roll.side] += value
    return (actual[0], actual[0] - luck[0] + luck[1]), (actual[1], actual[1] - luck[1] + luck[0])


#: GNU Backgammon's words for an error rate (thousandths of equity lost per decision), best first.
_RATINGS = (
    (2.0, N_("Supernatural")),
    (5.0, N_("World class")),
    (8.0, N_("Expert")),
    (12.0, N_("Advanced")),
    (18.0, N_("Intermediate")),
    (26.0, N_("Casual player")),
    (35.0, N_("Beginner")),
)


def rating_words(error_rate: float) -> str:
    """GNU Backgammon's rating of a player by error rate: "World class" below 5, ... "Awful!" from 35 (in the
    active language)."""
    for limit, words in _RATINGS:
        if error_rate < limit:
            return _(words)
    return _("Awful!")


# --- replays -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """One picture of a replay: the board and a line saying what happened."""

    snapshot: BoardSnapshot
    caption: str


def plays_in_game(setup: m.MatchSetup, actions: Iterable[m.Action], game: int) -> int:
    """How many plays game ``game`` of a record has (a roll that cannot be played counts as one)."""
    return len(replay_frames(setup, actions, game)) - 1


def replay_frames(
    setup: m.MatchSetup,
    actions: Iterable[m.Action],
    game: int,
    *,
    viewer: int = 0,
    names: Mapping[str, str] | None = None,
    home: str = "right",
) -> list[ReplayFrame]:
    """Game ``game`` of a record as board snapshots seen by side ``viewer``: the start, then one after each play
    (a roll that cannot be played included), showing its dice and the checkers moved. A finished game's last frame
    carries its result (the board's banner) and its caption says how it ended. ``names``: display names by player
    id (default: the setup's side names, or the ids).

    ValueError when the record has no game ``game``.
    """
    if viewer not in (0, 1):
        raise ValueError(f"a side is 0 or 1, got {viewer!r}")
    film = _Film(setup, viewer, names, "left" if home == "left" else "right")
    state = m.replay(setup, ())
    for action in actions:
        before = state
        state = m.apply(before, action)
        if before.game < game:
            continue
        if before.game > game:
            break
        film.record(before, action, state)
        if len(state.results) >= game:
            film.end(before, state, state.results[game - 1])
            return film.frames
    if not film.frames:
        if state.game != game or state.over:
            raise ValueError(f"this match has no game {game}")
        film.frames.append(ReplayFrame(film.start(state), film.heading(state)))
    return film.frames


class _Film:
    """The frames of one game's replay as its record is read."""

    def __init__(self, setup: m.MatchSetup, viewer: int, names: Mapping[str, str] | None, home: Home) -> None:
        self.setup = setup
        self.viewer = viewer
        self.names = names
        self.home = home
        self.sides = side_names(setup, names)
        self.frames: list[ReplayFrame] = []
        self.told: list[str] = []  # cube actions since the last frame
        self.last_action: m.Action | None = None

    def name(self, state: m.MatchState, side: int) -> str:
        """The acting member of ``side`` (a side's name outside team play)."""
        if self.setup.variant.team_size == 1:
            return self.sides[side]
        pid = state.acting_member(side)
        return self.names.get(pid, pid) if self.names is not None else pid

    def heading(self, state: m.MatchState) -> str:
        score = f"{self.sides[0]} {state.score[0]}, {self.sides[1]} {state.score[1]}"
        what = _("match to {length}").format(length=state.options.length) if state.options.length else _("money")
        heading = _("Game {game} · {score} ({what})").format(game=state.game, score=score, what=what)
        return heading + " · " + _("Crawford game") if state.crawford_game else heading

    def record(self, before: m.MatchState, action: m.Action, after: m.MatchState) -> None:
        self.last_action = action
        if not self.frames:
            self.frames.append(ReplayFrame(self.start(before), self.heading(before)))
        if isinstance(action, m.Double | m.Take | m.Pass | m.Beaver | m.Raccoon):
            c = _cube_action(before, after, action)
            who = self.name(before, c.side)
            told = {
                "double": _("{player} doubles to {value}"),
                "take": _("{player} takes"),
                "pass": _("{player} passes"),
                "beaver": _("{player} beavers to {value}"),
                "raccoon": _("{player} raccoons to {value}"),
            }[c.action]
            self.told.append(told.format(player=who, value=c.value))
            return
        picture = self.after_play(before, action, after)
        if picture is not None:
            self.frames.append(ReplayFrame(picture[0], " · ".join([*self.told, picture[1]])))
            self.told = []

    def end(self, before: m.MatchState, after: m.MatchState, r: m.GameResult) -> None:
        """Game ``r`` ended with the last action: its result on the last frame (the board's banner, the new
        score), and in its caption."""
        name = before.variant.result_name(r.level) if r.level else ""
        how = rule_end(before, self.last_action, r) if self.last_action is not None else ""
        line = GameLine(r.game, r.winner, r.points, r.level, str(r.reason), r.cube, _after(r), result=name, ended=how)
        points = ngettext("{count} point", "{count} points", r.points).format(count=r.points)
        if self.setup.variant.team_size > 1:  # a team wins as "Ann & Cy win"
            won = _("{team} win: {how}, {points}").format(team=self.sides[r.winner], how=line.how, points=points)
        else:
            won = _("{player} wins: {how}, {points}").format(player=self.sides[r.winner], how=line.how, points=points)
        words = " · ".join([*self.told, won])
        last = self.frames[-1]
        over = after.over and len(after.results) == r.game
        result = GameEnd(
            winner=0 if r.winner == self.viewer else 1,
            points=r.points,
            result=name,
            reason=r.reason.value,
            game=r.game,
            match_over=over,
            match_winner=_rel(self.viewer, after.winner) if over else None,
            how=_(how) if how else "",
        )
        score = line.score_after
        snapshot = replace(
            last.snapshot,
            on_roll=None,
            dice=None,
            result=result,
            score=(score[self.viewer], score[1 - self.viewer]),
        )
        caption = f"{last.caption} · {words}" if len(self.frames) > 1 else words
        self.frames[-1] = ReplayFrame(snapshot, caption)

    def snapshot(
        self,
        state: m.MatchState,
        position: Position,
        frame_side: int,
        play: tuple[tuple[int, int], tuple[Submove, ...], int] | None = None,
    ) -> BoardSnapshot:
        """The board of ``state`` with ``position`` (in ``frame_side``'s frame); ``play``: the dice, submoves and
        side of a play just made (shown with its dice), or None for a board nobody is playing on."""
        setup = state.setup
        viewer, other = self.viewer, 1 - self.viewer
        teams = (self.sides[viewer], self.sides[other]) if setup.variant.team_size > 1 else None
        dice, moves, mover = play if play is not None else (None, (), None)
        return snapshot_of(
            state.variant,
            position,
            viewer_on_roll=frame_side == viewer,
            on_roll=play is not None,
            dice=dice,
            names=(self.name(state, viewer), self.name(state, other)),
            team_names=teams,
            cube_value=state.cube.value,
            cube_owner=_rel(viewer, state.cube.owner),
            cube_unavailable=_("Crawford") if state.crawford_game else None,
            uses_cube=setup.cube_in_use,
            score=(state.score[viewer], state.score[other]),
            match_length=state.options.length,
            last_play=moves,
            last_play_by=_rel(viewer, mover) if moves else None,
            home=self.home,
            viewer_checkers="light" if viewer == 0 else "dark",
            display_name=state.title,
        )

    def start(self, state: m.MatchState) -> BoardSnapshot:
        pos = state.position if state.position is not None else state.variant.start_position()
        return self.snapshot(state, pos, state.roller if state.roller is not None else self.viewer)

    def after_play(
        self, before: m.MatchState, action: m.Action, after: m.MatchState
    ) -> tuple[BoardSnapshot, str] | None:
        """The board after a play (or a roll that cannot be played) and what happened; None for other actions."""
        mover = before.roller
        if mover is None or before.position is None:
            return None
        if isinstance(action, m.Move) and before.dice is not None:
            dice = before.dice
            moves = _played(before, after, action)
            pos = before.variant.apply(before.position, moves)
            played = format_play(moves) or _("no move")
        elif isinstance(action, m.Roll | m.NameDouble) and after.phase is not m.Phase.MOVE:
            dice, moves, pos = after.last_move[1] if after.last_move else (1, 1), (), before.position
            played = _("no legal play")
        else:
            return None
        words = f"{self.name(before, mover)} {max(dice)}-{min(dice)}: {played}"
        return self.snapshot(before, pos, mover, (dice, moves, mover)), words


def _rel(viewer: int, side: int | None) -> Side | None:
    if side is None:
        return None
    return 0 if side == viewer else 1
