"""The rule-set contract: what a variant plugin describes and what the engine derives from it.

A rule set is a subclass of :class:`Variant` whose class attributes are its data (names, checkers,
starting points, geometry, what blocks a point, whether blots are hit, the results a game can end with and
their names) and whose methods are template hooks that answer "nothing special" unless overridden
(``turn_rules``, ``game_result``, ``results``, ``most_at_stake``). The engine's
algorithms (legal plays, validation, notation, IDs) are written once against this description and never
ask which rule set they are running.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .geometry import Geometry
from .movegen import HOME, Play, PlaySet, Submove, TurnRules, apply_submoves, board_list, generate
from .position import BAR, OFF, POINTS, Position, PositionError

__all__ = ["Variant", "VariantOptionError"]


class VariantOptionError(ValueError):
    """An option the rule set does not have, or a value it does not accept."""


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
    #: Starting checkers per player in the player's own numbering: ``{point: count}``.
    start: ClassVar[Mapping[int, int]] = {}
    #: How the two numberings relate and whether there is a bar.
    geometry: ClassVar[Geometry] = Geometry.mirrored()
    #: A point with at least this many opposing checkers cannot be landed on.
    point_blocked_by: ClassVar[int] = 2
    #: Whether landing on a lone opposing checker hits it (sends it to the bar).
    hitting: ClassVar[bool] = True
    #: Whether the doubling cube is used.
    uses_cube: ClassVar[bool] = True
    #: The ``[Variation "..."]`` tag of ``.mat`` exports; None writes no tag (standard backgammon).
    mat_variation: ClassVar[str | None] = None
    #: Whether GNU Backgammon Position IDs mean the same board in GNU Backgammon itself.
    gnubg_compatible: ClassVar[bool] = True
    #: Members per side: 1 for individual play, 2 for team rule sets where one member acts per game.
    team_size: ClassVar[int] = 1
    #: Options this rule set accepts, with their defaults.
    option_defaults: ClassVar[Mapping[str, Any]] = {}
    #: The results a game can end with, by level (the points multiplier: level x cube), in the rule set's words.
    #: A rule set whose options change them overrides :attr:`results`.
    result_names: ClassVar[Mapping[int, str]] = {1: "single game", 2: "gammon", 3: "backgammon"}

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            have = ", ".join(sorted(self.option_defaults)) or "none"
            raise VariantOptionError(f"{self.display_name or self.name} has no option {unknown[0]!r} (options: {have})")
        self.options: dict[str, Any] = {**self.option_defaults, **options}

    def __repr__(self) -> str:
        extra = {k: v for k, v in self.options.items() if self.option_defaults.get(k) != v}
        args = ", ".join(f"{k}={v!r}" for k, v in extra.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.options.items()))))

    # --- positions ------------------------------------------------------------------------------
    def start_position(self) -> Position:
        """The starting position, seen from the player on roll."""
        board = [0] * POINTS
        for point, n in self.start.items():
            board[point - 1] += n
        for point, n in self.start.items():
            q = self.geometry.my_point(point)
            if board[q - 1] > 0:
                raise PositionError(f"{self.name}: both players start on my point {q}")
            board[q - 1] -= n
        return Position(tuple(board))

    def flip(self, pos: Position) -> Position:
        """The same board seen by the opponent: the turn passes."""
        return self.geometry.flip(pos)

    def pips(self, pos: Position) -> tuple[int, int]:
        """Pip counts (roller, opponent)."""
        return self.geometry.pips(pos)

    def validate_position(self, pos: Position) -> None:
        """Raise :class:`PositionError` if the position cannot occur in this rule set."""
        for side, total in zip(("the player on roll", "the opponent"), pos.totals()):
            if total != self.checkers:
                raise PositionError(f"{side} has {total} checkers; {self.display_name} uses {self.checkers}")
        if not self.geometry.has_bar and any(pos.bar):
            raise PositionError(f"{self.display_name} has no bar")
        if not self.hitting and any(pos.bar):
            raise PositionError(f"nothing is ever hit in {self.display_name}, so no checker can be on the bar")
        if all(pos.bar):
            k = self.point_blocked_by
            i_am_shut_out = all(-pos.board[BAR - d - 1] >= k for d in range(1, 7))
            they_are_shut_out = all(pos.board[self.geometry.my_point(BAR - d) - 1] >= k for d in range(1, 7))
            if i_am_shut_out and they_are_shut_out:
                raise PositionError("both players are on the bar against closed boards")

    # --- one turn -------------------------------------------------------------------------------
    def turn_rules(self, pos: Position, dice: tuple[int, int], first_move: bool) -> TurnRules | None:
        """Extra per-turn constraints (a head rule, a block rule); None when there are none."""
        return None

    def legal_plays(self, pos: Position, dice: tuple[int, int], first_move: bool = False) -> PlaySet:
        """Every legal play for the roller of ``pos`` with ``dice`` (rules.md §1.5)."""
        check_dice(dice)
        return generate(self, pos, dice, first_move)

    def apply(self, pos: Position, moves: Sequence[Submove]) -> Position:
        """Make the submoves (already known legal); the result is still in the mover's frame."""
        return apply_submoves(self, pos, moves)

    def check_play(
        self, pos: Position, dice: tuple[int, int], play: str, first_move: bool = False, plays: PlaySet | None = None
    ) -> Play:
        """The legal play the notation describes, or :class:`~engine.validate.IllegalPlay` naming the rule.

        Any text is judged quickly: one longer than ``engine.validate.MAX_PLAY_CHARS`` is refused unread, and
        one writing more moves than the dice is refused before any search (:mod:`engine.validate`).
        """
        from .validate import check_play

        return check_play(self, pos, dice, play, first_move, plays)

    def blocked_reason(self, point: int) -> str:
        if self.point_blocked_by == 1:
            return f"point {point} is blocked: a single opposing checker holds a point"
        return f"point {point} is blocked: {self.point_blocked_by} or more opposing checkers hold it"

    def submove_error(self, b: list[int], src: int, die: int, rules: TurnRules | None) -> str | None:
        """Why moving a checker from ``src`` by ``die`` on working board ``b`` is illegal, or None."""
        if src == BAR:
            if b[BAR] <= 0:
                return "you have no checker on the bar"
        elif b[BAR] > 0:
            return "checkers on the bar must enter first"
        elif not 1 <= src <= POINTS or b[src] <= 0:
            return f"you have no checker on point {src}"
        dst = src - die
        if dst > 0:
            land_min = -(self.point_blocked_by - 1) if self.hitting else 0
            if b[dst] < land_min:
                return self.blocked_reason(dst)
        else:
            outside = [p for p in range(POINTS, HOME, -1) if b[p] > 0]
            if b[BAR] > 0 or outside:
                where = f"point {outside[0]}" if outside else "the bar"
                return f"you cannot bear off while a checker is outside your home board (on {where})"
            if dst < 0:
                higher = [p for p in range(HOME, src, -1) if b[p] > 0]
                if higher:
                    return (
                        f"a {die} bears off from point {src} only when no checker stands higher, "
                        f"but point {higher[0]} is occupied"
                    )
            dst = OFF
        if rules is not None:
            return rules.reason(b, src, dst)
        return None

    def working_board(self, pos: Position) -> list[int]:
        return board_list(pos)

    # --- end of game ----------------------------------------------------------------------------
    @property
    def results(self) -> Mapping[int, str]:
        """The results a game can end with under this rule set's options, by level, named in its own words."""
        return self.result_names

    @property
    def max_result(self) -> int:
        """The largest result level: the most a game is worth, times the cube."""
        return max(self.results)

    def result_name(self, level: int) -> str:
        """The name of a result level ("gammon", "mars"); levels the rule set does not have are called by number."""
        return self.results.get(level, f"result of level {level}")

    def results_text(self, conjunction: str = "or") -> str:
        """The results listed with their levels: "a single game (1), a gammon (2) or a backgammon (3)"."""
        items = [f"a {name} ({level})" for level, name in sorted(self.results.items())]
        if len(items) == 1:
            return items[0]
        return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"

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
        """Points multiplier when the roller of ``pos`` has borne off everything: 1, 2 or 3."""
        if pos.off[1] > 0:
            return 1
        # A gammon; a backgammon when the loser still has a checker on the bar or in the winner's home.
        if pos.bar[1] > 0 or any(pos.board[p - 1] < 0 for p in range(1, HOME + 1)):
            return 3
        return 2


def check_dice(dice: Sequence[int]) -> None:
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two numbers from 1 to 6, got {list(dice)}")
