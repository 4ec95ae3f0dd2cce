"""Board snapshots: everything a renderer needs to draw one board, derived by the caller from the rules
(:func:`snapshot_of`), or from a match state as one player sees it (:func:`board_snapshot`).

A :class:`BoardSnapshot` is a frozen, hashable value. It is always written **from the viewer's side**:

* ``position`` is in the frame of the viewer, the player sitting at the bottom of the picture: positive
  counts are the viewer's checkers, negative counts the opponent's, ``board[i]`` is the viewer's point
  ``i + 1`` in the viewer's own numbering, ``bar``/``off`` are ``(viewer, opponent)``. When the viewer is
  the player on roll this is exactly the engine's roller frame; otherwise the caller flips it once
  (:func:`snapshot_of` does this).
* Every pair (``names``, ``pips``, ``score``, ``team_names``) is ``(viewer, opponent)``, and every "side"
  field (``on_roll``, ``cube_owner``, ``cube_offered_by``, ``last_play_by``) is :data:`VIEWER` (0),
  :data:`OPPONENT` (1) or ``None``.

The layout comes from the rule set's description only (its :class:`~engine.geometry.Geometry` and
checker count), so a plugin rule set is drawn without any renderer change. Nothing here imports PIL.

Each player gets their own snapshot (each sees their own home board at the bottom); ``home`` picks
whether that home board is drawn on the right (the usual way) or the left.

Pins (Plakoto) travel in ``position`` (:attr:`Position.pins <engine.position.Position.pins>`): a renderer draws a
pinned checker at the edge of its point, under its pinners; checkers waiting to enter are ``position.reserve``.

The end of a game is a snapshot with a :class:`GameEnd` in ``result`` (the final position, nobody on roll); a play
being entered checker by checker is a snapshot whose ``position`` is the position reached so far, its submoves in
``last_play`` with ``draft`` set, and the dice they used in ``dice_used``. A turn made of stages (Gul bara's
cascade, Acey-deucey's named doublet) shows the stage's dice in ``dice`` (``dice_count`` of them when fewer than the
roll's: the rest of a doublet handed over) and the dice of the stages already played this turn in ``stages``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from .geometry import Geometry
from .i18n import _
from .movegen import Submove
from .position import BAR, OFF, POINTS, RESERVE, Position, PositionError
from .positionid import encode_position_id

if TYPE_CHECKING:  # pragma: no cover
    from .match import GameResult, MatchState
    from .turn import TurnDraft
    from .variant import Variant

__all__ = ["VIEWER", "OPPONENT", "BoardSnapshot", "GameEnd", "snapshot_of", "board_snapshot"]

#: Side index of the viewer: the player at the bottom whose checkers are positive in ``position``.
VIEWER: Final = 0
#: Side index of the viewer's opponent, at the top of the picture.
OPPONENT: Final = 1

Side = Literal[0, 1]
Home = Literal["right", "left"]
Colour = Literal["light", "dark"]
#: How a game ended (the values of ``engine.match.EndReason``).
Reason = Literal["borne off", "pass", "resign", "timeout", "forfeit", "rule", "draw"]


@dataclass(frozen=True, slots=True)
class GameEnd:
    """How the game on the board ended, for its result banner (sides are VIEWER or OPPONENT)."""

    #: The side that won the game.
    winner: Side
    #: The points the game scored (the cube and the result level together).
    points: int
    #: The rule set's word for the result ("single game", "gammon", a Longgammon "mars": ``Variant.result_name``),
    #: or "" when the game was not played out to a level (a timeout or forfeit).
    result: str
    #: How it ended: borne off, the loser passed a double, resigned, ran out of time, forfeited the match, a rule of
    #: the rule set (``how`` says which), or a draw (``winner`` is then the side that made the last play).
    reason: Reason
    #: The game's number in the match.
    game: int = 1
    #: Whether this game ended the match (or money session); ``match_winner`` then says who won it (None: a tie).
    match_over: bool = False
    match_winner: Side | None = None
    #: For a game a rule ended ("rule") or a draw: how, in words ("a mother is pinned"); else "".
    how: str = ""

    def __post_init__(self) -> None:
        if self.winner not in (VIEWER, OPPONENT) or self.match_winner not in (None, VIEWER, OPPONENT):
            raise ValueError("winner and match_winner are 0 (viewer), 1 (opponent) or None")
        if self.points < 0:
            raise ValueError(f"a game scores no negative points, got {self.points}")


@dataclass(frozen=True, slots=True)
class BoardSnapshot:
    """One board to draw, seen by one viewer (see the module docstring for frames and sides)."""

    #: The board in the viewer's frame (positive = the viewer's checkers).
    position: Position
    #: The rule set's geometry: how the opponent numbers the points and whether there is a bar.
    geometry: Geometry
    #: Checkers per player in this rule set (15, or 3 in Sprintgammon ...).
    checkers: int
    #: The rule set's registered name ("backgammon") and the name shown to players ("Backgammon").
    variant_name: str
    display_name: str
    #: Player names (viewer, opponent); in team play the **acting member** of each team.
    names: tuple[str, str] = ("You", "Opponent")
    #: Team names (viewer's team, opponent's team) in team play, else None.
    team_names: tuple[str, str] | None = None
    #: Pip counts (viewer, opponent), computed by the rule set.
    pips: tuple[int, int] = (0, 0)
    #: Who is to act: VIEWER, OPPONENT, or None (opening roll, game over).
    on_roll: Side | None = VIEWER
    #: The dice rolled by the player on roll, as rolled; None before the roll.
    dice: tuple[int, int] | None = None
    #: The opening roll, one die per player: (viewer's die, opponent's die); None otherwise.
    opening_dice: tuple[int, int] | None = None
    #: Whether the rule set / match uses the doubling cube at all.
    uses_cube: bool = True
    #: The cube's value (1, 2, 4 ...) and owner (None = centred, else the side that owns it).
    cube_value: int = 1
    cube_owner: Side | None = None
    #: The side that has just offered a double (the cube is shown at twice ``cube_value``), or None.
    cube_offered_by: Side | None = None
    #: Why the cube cannot be used this game ("Crawford"), or None.
    cube_unavailable: str | None = None
    #: Match score (viewer, opponent) and match length in points (0 = money game).
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    #: The last play as submoves ``(src, dst, hit)`` in the **mover's** numbering (25 = bar, 0 = off, 29 = entering
    #: from the reserve).
    last_play: tuple[Submove, ...] = ()
    #: Who made ``last_play``: VIEWER, OPPONENT or None when there is none.
    last_play_by: Side | None = None
    #: Where the viewer's home board is drawn: "right" (usual) or "left".
    home: Home = "right"
    #: Which checker colour the viewer plays ("light" or "dark"); the opponent plays the other one.
    viewer_checkers: Colour = "light"
    #: The Position ID (from the side on roll) when the rule set's IDs mean something to GNU Backgammon.
    position_id: str | None = None
    #: The end of the game shown (its final position): drawn as a result banner; None while the game goes on.
    result: GameEnd | None = None
    #: True when ``last_play`` is the play the side on roll is entering (``position`` shows it so far).
    draft: bool = False
    #: The dice numbers that play has used so far (a doublet's number once per checker moved).
    dice_used: tuple[int, ...] = ()
    #: The dice of the stages already played in this turn, in order (a cascade's 2-2, 3-3 before its 4-4).
    stages: tuple[tuple[int, int], ...] = ()
    #: How many of ``dice`` this stage plays when fewer than the roll's (two 4s of a 4-4 handed over), else None.
    dice_count: int | None = None

    def __post_init__(self) -> None:
        for label in ("on_roll", "cube_owner", "cube_offered_by", "last_play_by"):
            if getattr(self, label) not in (None, VIEWER, OPPONENT):
                raise ValueError(f"{label} must be 0 (viewer), 1 (opponent) or None")
        for label in ("dice", "opening_dice"):
            dice = getattr(self, label)
            if dice is not None and (len(dice) != 2 or not all(1 <= d <= 6 for d in dice)):
                raise ValueError(f"{label} must be two numbers from 1 to 6, got {dice!r}")
        if self.cube_value < 1 or self.cube_value & (self.cube_value - 1):
            raise ValueError(f"the cube shows a power of two, got {self.cube_value}")
        if self.home not in ("right", "left"):
            raise ValueError(f"home is 'right' or 'left', got {self.home!r}")
        if self.viewer_checkers not in ("light", "dark"):
            raise ValueError(f"viewer_checkers is 'light' or 'dark', got {self.viewer_checkers!r}")
        if len(self.geometry.opposite) != POINTS + 1:
            raise ValueError("the geometry must map all 24 points")
        if self.match_length < 0:
            raise ValueError("match_length is 0 (money) or a number of points")
        if self.last_play and self.last_play_by is None:
            raise ValueError("last_play needs last_play_by (who made it)")
        for src, dst, _hit in self.last_play:
            if not ((1 <= src <= BAR or src == RESERVE) and OFF <= dst < BAR):
                raise ValueError(f"bad submove {src}/{dst} in last_play")
        if self.draft and (self.dice is None or self.on_roll is None or self.last_play_by != self.on_roll):
            raise ValueError("a play being entered belongs to the side on roll, with its dice")
        if self.dice_used and (self.dice is None or any(d not in self.dice for d in self.dice_used)):
            raise ValueError(f"dice_used {self.dice_used!r} are not numbers of the roll {self.dice!r}")

    def dice_left(self) -> tuple[int, ...]:
        """The numbers of the roll still to play (a doublet's four times): what ``dice_used`` leaves."""
        if self.dice is None:
            return ()
        count = 4 if self.dice_count is None else self.dice_count
        pool = [self.dice[0]] * count if self.dice[0] == self.dice[1] else list(self.dice)
        for d in self.dice_used:
            if d in pool:
                pool.remove(d)
        return tuple(pool)

    def to_viewer(self, side: Side, point: int) -> int:
        """The viewer's number for ``point`` in ``side``'s numbering (25 = bar, 0 = off and 29 = the reserve kept as
        they are)."""
        if side == VIEWER or point in (BAR, OFF, RESERVE):
            return point
        return self.geometry.my_point(point)

    def last_play_for_viewer(self) -> tuple[Submove, ...]:
        """``last_play`` translated to the viewer's numbering (bar, off and the reserve stay 25, 0 and 29)."""
        if self.last_play_by is None:
            return ()
        by = self.last_play_by
        return tuple((self.to_viewer(by, s), self.to_viewer(by, d), h) for s, d, h in self.last_play)


def snapshot_of(
    variant: Variant,
    position: Position,
    *,
    viewer_on_roll: bool = True,
    on_roll: bool = True,
    dice: tuple[int, int] | None = None,
    opening_dice: tuple[int, int] | None = None,
    names: tuple[str, str] = ("You", "Opponent"),
    team_names: tuple[str, str] | None = None,
    cube_value: int = 1,
    cube_owner: Side | None = None,
    cube_offered_by: Side | None = None,
    cube_unavailable: str | None = None,
    uses_cube: bool | None = None,
    score: tuple[int, int] = (0, 0),
    match_length: int = 0,
    last_play: Sequence[Submove] = (),
    last_play_by: Side | None = None,
    home: Home = "right",
    viewer_checkers: Colour = "light",
    result: GameEnd | None = None,
    draft: bool = False,
    dice_used: Sequence[int] = (),
    position_id_of: Position | None = None,
    display_name: str | None = None,
    stages: Sequence[tuple[int, int]] = (),
    dice_count: int | None = None,
) -> BoardSnapshot:
    """Build a snapshot from a rule set and a position **in the engine's roller frame**.

    ``viewer_on_roll`` says whether the viewer is the roller of ``position`` (otherwise the board is
    flipped to the viewer's side). ``on_roll`` False means nobody is to act (opening roll, game over);
    the Position ID is then written from the viewer's side. Every other argument is as in
    :class:`BoardSnapshot`, already in (viewer, opponent) order. Pips and the Position ID are computed
    here; ``uses_cube`` defaults to the rule set's. ``position_id_of``: the position (roller's frame) whose ID
    is given instead, e.g. the one a play being entered started from. ``display_name``: the rule set's name as the
    board shows it (default its own; a Tavli match says which game it is: ``MatchState.title``).
    """
    viewer_pos = position if viewer_on_roll else variant.flip(position)
    roller_pos = position if on_roll else viewer_pos
    if position_id_of is not None:
        roller_pos = position_id_of if on_roll or viewer_on_roll else variant.flip(position_id_of)
    pid: str | None = None
    if variant.gnubg_compatible:
        try:
            pid = encode_position_id(variant, roller_pos)
        except PositionError:
            pid = None
    side: Side | None = None
    if on_roll:
        side = VIEWER if viewer_on_roll else OPPONENT
    return BoardSnapshot(
        position=viewer_pos,
        geometry=variant.geometry,
        checkers=variant.checkers,
        variant_name=variant.name,
        display_name=display_name or variant.display_name or variant.name,
        names=names,
        team_names=team_names,
        pips=variant.pips(viewer_pos),
        on_roll=side,
        dice=dice,
        opening_dice=opening_dice,
        uses_cube=variant.uses_cube if uses_cube is None else uses_cube,
        cube_value=cube_value,
        cube_owner=cube_owner,
        cube_offered_by=cube_offered_by,
        cube_unavailable=cube_unavailable,
        score=score,
        match_length=match_length,
        last_play=tuple(last_play),
        last_play_by=last_play_by,
        home=home,
        viewer_checkers=viewer_checkers,
        position_id=pid,
        result=result,
        draft=draft,
        dice_used=tuple(dice_used),
        stages=tuple(stages),
        dice_count=dice_count,
    )


def board_snapshot(
    state: MatchState,
    viewer: int | str,
    *,
    home: Home = "right",
    names: dict[str, str] | None = None,
    draft: TurnDraft | None = None,
    ended: GameResult | None = None,
) -> BoardSnapshot:
    """The board as ``viewer`` (a side, 0 or 1, or a player id) sees it, for renderers.

    Names are the acting members (team names too in team play): ``names`` maps player ids to the names to show
    (an id it lacks is shown as it is; team names are then the members' names joined with " & "); without it, the
    ids themselves and the setup's side names. The cube owner, a pending offer and the last play are given relative
    to the viewer; ``cube_unavailable`` says "Crawford" in the Crawford game.

    ``draft``: the play the side on roll is entering (phase MOVE); the board shows the position it has reached,
    its submoves as the play and the dice they used. ``ended``: ``state`` is the final position of that game (the
    caller's state of the game just over): drawn with its result, nobody on roll. A state whose match is over is
    drawn with the result of its last game without being asked.
    """
    from .match import EndReason, Phase  # deferred: engine.match needs nothing of this module

    side = viewer if isinstance(viewer, int) else state.side_of(viewer)
    if side not in (0, 1):
        raise ValueError(f"a side is 0 or 1, got {side!r}")
    other = 1 - side

    def rel(s: int | None) -> Side | None:
        if s is None:
            return None
        return 0 if s == side else 1

    def shown(player: str) -> str:
        return names.get(player, player) if names is not None else player

    def team(k: int) -> str:
        if names is None:
            return setup.side_name(k)
        return " & ".join(shown(p) for p in setup.sides[k])

    setup = state.setup
    pos = state.position if state.position is not None else state.variant.start_position()
    if ended is None and state.over and state.results:
        ended = state.results[-1]
    acting = ended is None and state.phase in (
        Phase.ROLL,
        Phase.MOVE,
        Phase.DOUBLED,
        Phase.RESIGNED,
        Phase.NAME_DOUBLE,
    )
    offered_by = (
        rel(1 - state.responder) if acting and state.phase is Phase.DOUBLED and state.responder is not None else None
    )
    last_play: tuple[Submove, ...] = ()
    last_by: Side | None = None
    # The last play of this game only: a new game keeps the previous game's until its own first play.
    if state.last_move is not None and state.last_move[2] and state.begun and state.moved[state.last_move[0]]:
        last_by = rel(state.last_move[0])
        last_play = state.last_move[2]
    moving = acting and draft is not None and bool(draft.moves) and state.phase is Phase.MOVE
    start_pos: Position | None = None
    if moving:
        assert draft is not None and state.roller is not None
        start_pos, pos = pos, draft.position
        last_play, last_by = draft.moves, rel(state.roller)
    result: GameEnd | None = None
    if ended is not None:
        won = rel(ended.winner)
        assert won is not None
        how = ""
        if ended.reason in (EndReason.RULE, EndReason.DRAW) and state.roller is not None:
            over = state.variant.game_over(state.position_for(state.roller))
            how = _(over.how) if over is not None and over.how else ""
        result = GameEnd(
            winner=won,
            points=ended.points,
            result=state.variant.result_name(ended.level) if ended.level else "",
            reason=ended.reason.value,
            game=ended.game,
            match_over=state.over,
            match_winner=rel(state.winner) if state.over else None,
            how=how,
        )
    return snapshot_of(
        state.variant,
        pos,
        viewer_on_roll=state.roller is None or state.roller == side,
        on_roll=acting,
        dice=state.dice if acting and Phase.MOVE in (state.phase, state.resume) else None,
        names=(shown(state.acting_member(side)), shown(state.acting_member(other))),
        team_names=(team(side), team(other)) if state.variant.team_size > 1 else None,
        cube_value=state.cube.value,
        cube_owner=rel(state.cube.owner),
        cube_offered_by=offered_by,
        cube_unavailable=_("Crawford") if state.crawford_game else None,
        uses_cube=setup.cube_in_use,
        score=(state.score[side], state.score[other]),
        viewer_checkers="light" if side == 0 else "dark",
        match_length=state.options.length,
        last_play=last_play,
        last_play_by=last_by,
        home=home,
        result=result,
        draft=moving,
        dice_used=draft.dice_used if moving and draft is not None else (),
        position_id_of=start_pos,
        display_name=state.title,
        stages=tuple(dice for dice, _count, _used in state.stages) if acting else (),
        dice_count=state.count if acting and Phase.MOVE in (state.phase, state.resume) else None,
    )
