"""The bgsage bot players: a neural-network engine for standard backgammon and Doubles, at three strengths.

bgsage (PyPI, MPL-2.0) ships its own network weights and runs offline. Its nets know standard backgammon
only, so the players support a rule set by its description: 15 checkers each, the mirrored geometry with a
bar, two checkers hold a point, lone checkers are hit, no extra turn rules, standard gammons and
backgammons (:func:`plays_standard_backgammon`). That covers Backgammon and Backgammon Doubles (and any
plugin with standard rules and another start, such as Nackgammon); Longgammon and Sprintgammon are left to
the heuristic player.

Our engine stays the referee. bgsage ranks the plays *it* generates (it is lenient about one bear-off), and
every one of *our* legal plays is looked up among them by its resulting board; a play of ours that bgsage
did not list is evaluated on its own (``post_move_analytics``). A play bgsage lists but we do not is never
chosen. Cube decisions use ``cube_action`` with the match score, cube owner, Crawford game, Jacoby rule and
beavers of the match.

Levels (bgsage's own names: its "1ply" is the raw network, what GNU Backgammon calls 0-ply):

* ``casual``: the raw network with seeded Gaussian noise (standard deviation 0.06 equity) on each play;
* ``strong``: the raw network (bgsage ``1ply``, about 10 ms a move);
* ``expert``: bgsage ``2ply`` (about 100 to 250 ms a move); when a time cap is too short for it, it plays
  the ``1ply`` choice instead.

If bgsage cannot be imported, the three players are still registered with ``unavailable`` saying why, so
``/bg play`` can say so instead of failing.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.geometry import Geometry
from engine.i18n import N_
from engine.match import MatchState, Phase
from engine.movegen import Play
from engine.players import (
    CubeAdvice,
    CubeAnswer,
    PlayerSpec,
    RankedPlay,
    cube_answers,
    cube_context,
)
from engine.plugins import Deferred, hookimpl
from engine.position import Position
from engine.variant import Variant

__all__ = [
    "BgsagePlayer",
    "BgsageAnalyst",
    "LEVELS",
    "UNAVAILABLE",
    "EQUITY_LABELS",
    "plays_standard_backgammon",
    "to_bgsage_board",
    "analyzer",
]

log = logging.getLogger(__name__)

_bgsage: Any = None
UNAVAILABLE: str | None = None
try:  # bgsage is a dependency, but a machine without a wheel for it still runs every other player.
    import bgsage as _imported  # type: ignore[import-untyped]

    _bgsage = _imported
except Exception as exc:  # pragma: no cover - depends on the machine
    UNAVAILABLE = Deferred(
        N_(
            "the bgsage package cannot be imported here ({error}); install it with `pip install bgsage` (wheels "
            "exist for CPython on x86-64 Linux, macOS and Windows)"
        ),
        error=f"{type(exc).__name__}: {exc}",
    )

#: Level name -> (bgsage eval level, noise standard deviation in equity).
LEVELS: dict[str, tuple[str, float]] = {
    "casual": ("1ply", 0.06),
    "strong": ("1ply", 0.0),
    "expert": ("2ply", 0.0),
}

#: What a level's figures are, by bgsage eval level (English; translated where shown).
EQUITY_LABELS: dict[str, str] = {
    "1ply": N_("cubeful equity (bgsage 1-ply)"),
    "2ply": N_("cubeful equity (bgsage 2-ply)"),
}

_analyzers: dict[str, Any] = {}
_lock = threading.Lock()
_STANDARD = Geometry.mirrored()


def analyzer(eval_level: str) -> Any:
    """The shared bgsage analyzer for an eval level (built once; bgsage analyzers are thread-safe)."""
    if _bgsage is None:
        raise RuntimeError(UNAVAILABLE)
    with _lock:
        found = _analyzers.get(eval_level)
        if found is None:
            found = _analyzers[eval_level] = _bgsage.BgBotAnalyzer(eval_level=eval_level)
        return found


def plays_standard_backgammon(variant: Variant) -> bool:
    """Whether ``variant`` has standard backgammon's rules of play (what bgsage's networks know).

    15 checkers each, mirrored geometry with a bar, two checkers hold a point, a lone checker is hit, the standard
    make step and submove test (``standard_moves``: no pins, no reserve), no turn rules beyond the maximal-usage
    rule, no extra turn steps, every game of a match by the rule set itself, and the standard game result. The
    starting position may differ (but no checker may start off the board).
    """
    cls = type(variant)
    return (
        variant.checkers == 15
        and variant.standard_moves
        and not variant.pinning
        and sum(variant.start.values()) == variant.checkers
        and cls.next_step is Variant.next_step
        and len(variant.games_cycle()) == 1
        and variant.for_game(0) is variant
        and variant.geometry == _STANDARD
        and variant.point_blocked_by == 2
        and variant.hitting
        and cls.turn_rules is Variant.turn_rules
        and cls.submove_error is Variant.submove_error
        and cls.game_result is Variant.game_result
    )


def to_bgsage_board(pos: Position) -> list[int]:
    """bgsage's 26-int board for a position in the frame of the player on roll (or of the mover, after a play).

    ``b[1..24]`` the points (own positive), ``b[25]`` own checkers on the bar, ``b[0]`` the opponent's.
    """
    raw = pos.key()
    return [raw[26], *raw[1:25], raw[25]]


@dataclass
class BgsagePlayer:
    """A bgsage player at one level; the engine's legal plays are the only candidates."""

    level: str = "strong"
    rng: random.Random = field(default_factory=random.Random)
    #: Seconds a 2-ply choice took recently (expert only): decides whether a time cap leaves room for it.
    _deep_seconds: float = 0.25

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"no bgsage level {self.level!r}; levels: {', '.join(LEVELS)}")
        self.eval_level, self.noise = LEVELS[self.level]
        self.equity_label = EQUITY_LABELS[self.eval_level]

    def analyst(self) -> BgsagePlayer:
        """The analyst for post-match analysis: bgsage at 2-ply (:class:`BgsageAnalyst`)."""
        return BgsageAnalyst()

    # --- analysis ------------------------------------------------------------------------------------------
    def _match_args(self, state: MatchState) -> dict[str, Any]:
        ctx = cube_context(state)
        return {
            "away1": ctx.away[0],
            "away2": ctx.away[1],
            "is_crawford": ctx.crawford,
            "jacoby": ctx.jacoby,
        }

    def _level_for(self, time_cap: float | None) -> str:
        if self.eval_level != "1ply" and time_cap is not None and time_cap < self._deep_seconds * 1.5:
            return "1ply"
        return self.eval_level

    def _rank(
        self,
        state: MatchState,
        plays: list[Play],
        position: Position,
        dice: tuple[int, int],
        eval_level: str,
        force: list[Play] | None = None,
    ) -> list[tuple[float, Any, Play]]:
        """(equity, bgsage probabilities, play) for each of ``plays``, best first."""
        ctx = cube_context(state)
        engine = analyzer(eval_level)
        boards = {tuple(to_bgsage_board(p.position)): p for p in plays}
        result = engine.checker_play(
            to_bgsage_board(position),
            dice[0],
            dice[1],
            cube_value=ctx.value,
            cube_owner=ctx.owner,
            beaver=ctx.beavers,
            force_boards=[to_bgsage_board(p.position) for p in force] if force else None,
            **self._match_args(state),
        )
        ranked: list[tuple[float, Any, Play]] = []
        for move in result.moves:
            play = boards.pop(tuple(move.board), None)
            if play is not None:  # a play bgsage allows but our rules do not is skipped
                ranked.append((float(move.equity), move.probs, play))
        for board, play in boards.items():  # ours, missing from bgsage's list
            log.info("bgsage did not list the legal play %s; evaluating it on its own", play.notation)
            post = engine.post_move_analytics(
                list(board), cube_owner=ctx.owner, cube_value=ctx.value, **self._match_args(state)
            )
            ranked.append((float(post.cubeful_equity), post.probs, play))
        ranked.sort(key=lambda x: -x[0])
        return ranked

    def rank_plays(self, state: MatchState, time_cap: float | None = None) -> list[RankedPlay]:
        """Every legal play with bgsage's cubeful equity for the mover, best first (no noise)."""
        assert state.position is not None and state.dice is not None
        plays = list(state.legal_plays())
        ranked = self._rank(state, plays, state.position, state.dice, self._level_for(time_cap))
        return [RankedPlay(play, equity) for equity, _, play in ranked]

    def rank_with(self, state: MatchState, played: Play, time_cap: float | None = None) -> list[RankedPlay]:
        """Like :meth:`rank_plays`, with ``played`` evaluated at the full level even if bgsage's filter drops it."""
        assert state.position is not None and state.dice is not None
        plays = list(state.legal_plays())
        ranked = self._rank(state, plays, state.position, state.dice, self._level_for(time_cap), force=[played])
        return [RankedPlay(play, equity) for equity, _, play in ranked]

    def cube_advice(self, state: MatchState, time_cap: float | None = None) -> CubeAdvice:
        """bgsage's cube action for the side on roll before its roll (or the doubler of a pending double)."""
        result = self._cube(state, time_cap)
        return CubeAdvice(
            float(result.equity_nd),
            float(result.equity_dt),
            float(result.equity_dp),
            bool(result.should_double),
            bool(result.should_take),
            bool(result.is_beaver) and cube_context(state).beavers,
        )

    def _cube(self, state: MatchState, time_cap: float | None) -> Any:
        assert state.position is not None
        ctx = cube_context(state)
        return analyzer(self._level_for(time_cap)).cube_action(
            to_bgsage_board(state.position),
            cube_value=ctx.value,
            cube_owner=ctx.owner,
            beaver=ctx.beavers,
            **self._match_args(state),
        )

    # --- decisions -----------------------------------------------------------------------------------------
    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Play:
        """The best of our legal plays by bgsage's equity (with noise at the casual level)."""
        assert state.position is not None and state.dice is not None
        plays = list(state.legal_plays())
        if len(plays) == 1:
            return plays[0]
        level = self._level_for(time_cap)
        started = time.perf_counter()
        ranked = self._rank(state, plays, state.position, state.dice, level)
        if level != "1ply":
            self._deep_seconds = 0.7 * self._deep_seconds + 0.3 * (time.perf_counter() - started)
        if self.noise:
            noisy = [(equity + self.rng.gauss(0.0, self.noise), i, play) for i, (equity, _, play) in enumerate(ranked)]
            return max(noisy, key=lambda x: (x[0], -x[1]))[2]
        return ranked[0][2]

    def should_double(self, state: MatchState, time_cap: float | None = None) -> bool:
        """bgsage's verdict for the side on roll."""
        return bool(self._cube(state, time_cap).should_double)

    def answer_double(self, state: MatchState, time_cap: float | None = None) -> CubeAnswer:
        """Take or pass by bgsage's verdict; beaver where it says so and the session allows it.

        Facing a beaver, the doubler raccoons (when allowed) with a cubeless equity above +0.4, passes below
        -0.5, and takes otherwise.
        """
        allowed = cube_answers(state)
        result = self._cube(state, time_cap)
        if state.redoubles:
            equity = float(result.cubeless_equity)
            if equity > 0.4 and CubeAnswer.RACCOON in allowed:
                return CubeAnswer.RACCOON
            return CubeAnswer.PASS if equity < -0.5 else CubeAnswer.TAKE
        if not result.should_take:
            return CubeAnswer.PASS
        if result.is_beaver and CubeAnswer.BEAVER in allowed:
            return CubeAnswer.BEAVER
        return CubeAnswer.TAKE

    def accept_resignation(self, state: MatchState, time_cap: float | None = None) -> bool:
        """Accepts when the offer is worth at least the cubeless equity of playing on (gammons included)."""
        assert state.responder is not None and state.position is not None and state.roller is not None
        me = state.responder
        if not state.options.money and state.resign_level * state.cube.value >= state.needs(me):
            return True
        if state.resume is Phase.MOVE and state.dice is not None:
            plays = list(state.variant.legal_plays(state.position, state.dice, not state.moved[state.roller]))
            probs = self._rank(state, plays, state.position, state.dice, "1ply")[0][1]
        else:
            probs = self._cube(state, time_cap).probs
        # probs are the resigner's; the responder's cubeless points per cube are minus their equity, and never
        # more than the resigner could still lose (no gammon once he has borne off, or under Jacoby).
        expected = min(-float(probs.equity), float(state.max_level(state.roller)))
        return state.resign_level >= expected - 0.02


class BgsageAnalyst(BgsagePlayer):
    """bgsage at 2-ply for post-match analysis (``engine.analysis``): deeper than the network the casual and strong
    players choose by (1-ply), always at its full depth (no time cap makes it shallower), with each roll's luck
    from the same cube analysis (the 21 rolls' best plays, bgsage ``roll_luck``)."""

    display_name = N_("bgsage 2-ply")

    def __init__(self) -> None:
        super().__init__("expert", random.Random(0))
        self._details: tuple[tuple[Any, ...], Any] | None = None

    def _level_for(self, time_cap: float | None) -> str:
        return self.eval_level

    def _cube(self, state: MatchState, time_cap: float | None) -> Any:
        assert state.position is not None
        ctx = cube_context(state)
        key = (tuple(to_bgsage_board(state.position)), ctx, state.phase is Phase.DOUBLED)
        if self._details is not None and self._details[0] == key:
            return self._details[1]
        result = analyzer(self.eval_level).cube_action(
            to_bgsage_board(state.position),
            cube_value=ctx.value,
            cube_owner=ctx.owner,
            beaver=ctx.beavers,
            incl_2ply_details=True,
            **self._match_args(state),
        )
        self._details = (key, result)
        return result

    def roll_luck(self, state: MatchState, dice: tuple[int, int], time_cap: float | None = None) -> float | None:
        """The luck of ``dice`` thrown now (phase ROLL) for the roller, in EMG (None when bgsage cannot say)."""
        found = _bgsage.roll_luck(self._cube(state, time_cap), dice[0], dice[1])
        return None if found is None else float(found.luck)

    def met(self, away: int, other: int) -> float:
        """The match winning chance of a side ``away`` points from winning against one ``other`` away (bgsage's
        match equity table)."""
        if away <= 0:
            return 1.0
        if other <= 0:
            return 0.0
        import bgbot_cpp  # type: ignore[import-not-found]  # bgsage's engine, installed with it

        return float(bgbot_cpp.get_met(away, other, False))


def _factory(level: str) -> Callable[[int | None], BgsagePlayer]:
    def make(seed: int | None) -> BgsagePlayer:
        return BgsagePlayer(level, random.Random(seed))

    return make


_REQUIREMENTS = N_(
    "standard backgammon rules: 15 checkers, mirrored board with a bar, blots hit, 2 checkers hold a point"
)

SPECS: tuple[PlayerSpec, ...] = (
    PlayerSpec(
        name="casual",
        display_name=N_("bgsage (casual)"),
        # Translators: a bot player's strength, shown after its name: "Gammonbot (casual)".
        strength=N_("casual"),
        factory=_factory("casual"),
        supports=plays_standard_backgammon,
        requirements=_REQUIREMENTS,
        description=N_("bgsage's neural network with some noise: a friendly opponent that makes small mistakes."),
        aliases=("bgsage-casual",),
        rank=20,
        unavailable=UNAVAILABLE,
    ),
    PlayerSpec(
        name="strong",
        display_name=N_("bgsage (strong)"),
        # Translators: a bot player's strength, shown after its name: "Gammonbot (strong)".
        strength=N_("strong"),
        factory=_factory("strong"),
        supports=plays_standard_backgammon,
        requirements=_REQUIREMENTS,
        description=N_("bgsage's neural network (1-ply): a strong opponent that answers at once."),
        aliases=("bgsage", "bgsage-strong"),
        rank=30,
        hints=True,
        unavailable=UNAVAILABLE,
    ),
    PlayerSpec(
        name="expert",
        display_name=N_("bgsage (expert)"),
        # Translators: a bot player's strength, shown after its name: "Gammonbot (expert)".
        strength=N_("expert"),
        factory=_factory("expert"),
        supports=plays_standard_backgammon,
        requirements=_REQUIREMENTS,
        description=N_("bgsage looking two plies ahead: stronger still, and slower (a fraction of a second a move)."),
        aliases=("bgsage-expert",),
        rank=40,
        unavailable=UNAVAILABLE,
    ),
)


@hookimpl
def register_players(register: Callable[[PlayerSpec], None]) -> None:
    """The three bgsage levels (registered even when bgsage is missing, marked unavailable)."""
    for spec in SPECS:
        register(spec)
