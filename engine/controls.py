"""What the state allows now: the actions the engine would accept, for a transport to draw as its controls.

:func:`allowed_actions` says, for the side due to act (or a given side), which actions :func:`~engine.match.apply`
accepts at this moment: the (opening) roll, a double, the answers to a pending double, a play, the doublets that may
be named (Acey-deucey's 1-2), the resignation levels that may be offered (named in the rule set's words), the answers
to a pending resignation, ending a money session between games, forfeiting, what a teammate may propose in team rule
sets, and which sides may still name their acting member.

Nothing here restates a rule. Every answer is obtained by asking the engine: each candidate action is applied to
the state (states are values, so this changes nothing) and kept exactly when no :class:`~engine.match.ActionError`
is raised; the cube answers are :func:`engine.players.cube_answers`, a finished draft is judged by
:func:`engine.match.confirm`. A transport that draws exactly these controls therefore never offers a button the
engine then refuses, and never hides one it would accept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from .match import (
    AcceptResignation,
    Action,
    ActionError,
    Double,
    EndSession,
    Forfeit,
    MatchState,
    Move,
    NameDouble,
    OpeningRoll,
    Phase,
    RejectResignation,
    Resign,
    Roll,
    SetActing,
    apply,
    confirm,
)
from .players import CubeAnswer, cube_answers
from .turn import TurnDraft, TurnError

__all__ = ["Allowed", "PlayStatus", "ProposalKind", "allowed_actions", "NOTHING"]

# Dice for asking whether a roll would be accepted: no valid throw is ever refused for its numbers, and an
# unequal throw also settles an opening roll at once.
_PROBE_DICE = (2, 1)


class PlayStatus(StrEnum):
    """Where the side stands with the play of its roll."""

    NONE = "none"  #: there is no roll of this side's to play now
    CHOOSE = "choose"  #: there are legal plays to choose (or a draft to go on with)
    CONFIRM = "confirm"  #: the given draft is a whole legal play: it may be confirmed (or undone)
    #: The roll cannot be played at all: the empty play is the only one. (The engine passes such a roll at once,
    #: so no state reached through :func:`~engine.match.apply` shows it; a hand-built state may.)
    NO_MOVE = "no move"


class ProposalKind(StrEnum):
    """What a team member who is not acting may propose to the acting member (the service's proposal kinds)."""

    PLAY = "play"
    DOUBLE = "double"
    ROLL = "roll"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    RACCOON = "raccoon"
    ACCEPT = "accept"
    REJECT = "reject"


@dataclass(frozen=True)
class Allowed:
    """The actions the engine accepts now from ``actors`` (for side ``side``); see :func:`allowed_actions`."""

    #: The phase of the match these answers are for.
    phase: Phase
    #: The side the answers are for: the one asked about, else the side due to act (``state.turn``). None at an
    #: opening roll (either side's acting member may throw it) and once the match is over.
    side: int | None
    #: Whose presses these are: the acting member of ``side`` (at an opening roll asked for nobody in particular,
    #: both acting members; none once the match is over). Teammates who are not acting may do none of it.
    actors: tuple[str, ...]
    #: A roll is accepted now (the opening roll in phase OPENING).
    roll: bool
    #: A double is accepted now.
    double: bool
    #: The engine's reason the double is refused (None when it is allowed, or when no side was asked about).
    double_refusal: str | None
    #: The answers accepted to the pending double, beaver or raccoon (empty unless ``side`` must answer one).
    cube_answers: frozenset[CubeAnswer]
    #: Where the side stands with the play of its roll.
    play: PlayStatus
    #: The given draft has a submove to take back.
    undo: bool
    #: The doublets (1 for 1-1 ... 6 for 6-6) that may be named now and played (a 1-2 in Acey-deucey earns one).
    name_doubles: tuple[int, ...]
    #: The resignation levels that may be offered now, lowest first: the rule set's results (1 single, 2 gammon,
    #: 3 backgammon; Longgammon: 1 single, 2 mars, 3 koks with that option).
    resign_levels: tuple[int, ...]
    #: The names of ``resign_levels``, in the rule set's words ("single game", "mars").
    resign_names: tuple[str, ...]
    #: The pending resignation may be accepted / rejected now.
    accept_resignation: bool
    reject_resignation: bool
    #: Money play: the session may be ended now (between games), by any of ``actors``.
    end_session: bool
    #: The match (or session) may be forfeited now by any of ``actors``: only a side's acting member forfeits.
    forfeit: bool
    #: Team rule sets: what a member of ``side`` who is not acting may propose now (what the acting member could
    #: do with the decision at hand); empty in individual play and when the side has no decision to make.
    proposal_kinds: tuple[ProposalKind, ...]
    #: For each side: whether it may still name its acting member for this game (team choice, before its first
    #: move); any member of the side may make the choice.
    choose_acting: tuple[bool, bool]

    @property
    def take(self) -> bool:
        """Taking the pending double is accepted now."""
        return CubeAnswer.TAKE in self.cube_answers

    @property
    def pass_(self) -> bool:
        """Passing (dropping) the pending double is accepted now."""
        return CubeAnswer.PASS in self.cube_answers

    @property
    def beaver(self) -> bool:
        """A beaver is accepted now."""
        return CubeAnswer.BEAVER in self.cube_answers

    @property
    def raccoon(self) -> bool:
        """A raccoon is accepted now."""
        return CubeAnswer.RACCOON in self.cube_answers

    @property
    def resign(self) -> bool:
        """Some resignation may be offered now."""
        return bool(self.resign_levels)

    @property
    def nothing(self) -> bool:
        """Nothing at all is allowed (besides forfeiting and ending a session, which are always possible somewhere
        until the end and have no turn)."""
        return not (
            self.roll
            or self.double
            or self.cube_answers
            or self.play is not PlayStatus.NONE
            or self.undo
            or self.name_doubles
            or self.resign_levels
            or self.accept_resignation
            or self.reject_resignation
            or self.proposal_kinds
            or any(self.choose_acting)
        )


#: The answer once the match is over.
NOTHING = Allowed(
    phase=Phase.OVER,
    side=None,
    actors=(),
    roll=False,
    double=False,
    double_refusal=None,
    cube_answers=frozenset(),
    play=PlayStatus.NONE,
    undo=False,
    name_doubles=(),
    resign_levels=(),
    resign_names=(),
    accept_resignation=False,
    reject_resignation=False,
    end_session=False,
    forfeit=False,
    proposal_kinds=(),
    choose_acting=(False, False),
)


def _refusal(state: MatchState, action: Action) -> str | None:
    """Why the engine refuses ``action`` now, or None if it accepts it."""
    try:
        apply(state, action)
    except ActionError as exc:
        return str(exc)
    return None


def _accepts(state: MatchState, actors: tuple[str, ...], make: Callable[[str], Action]) -> bool:
    """Whether the engine accepts the action ``make(by)`` from any of ``actors``."""
    return any(_refusal(state, make(by)) is None for by in actors)


def _accepts_resign(state: MatchState, actors: tuple[str, ...], level: int) -> bool:
    return any(_refusal(state, Resign(by, level)) is None for by in actors)


def _roll(by: str, state: MatchState) -> Action:
    return OpeningRoll(by, _PROBE_DICE) if state.phase is Phase.OPENING else Roll(by, _PROBE_DICE)


def _play(state: MatchState, by: str, draft: TurnDraft | None) -> tuple[PlayStatus, bool]:
    """The play status of ``by`` and whether the draft can be undone, by asking the engine."""
    try:
        plays = state.legal_plays()
    except ActionError:
        return PlayStatus.NONE, False
    if _refusal(state, Move(by, plays[0].moves)) is not None:
        return PlayStatus.NONE, False  # not this member's roll to play
    undo = False
    if draft is not None and draft.start == state.position and draft.dice == state.dice:
        # A draft of this very roll (one of another roll, or a stale one, offers nothing).
        try:
            draft.undo()
            undo = True
        except TurnError:
            pass
        try:
            finished = confirm(state, draft, by)
        except ActionError:
            finished = None
        if finished is not None and _refusal(state, finished) is None:
            return PlayStatus.CONFIRM, undo
    if plays.no_move:
        return PlayStatus.NO_MOVE, undo
    return PlayStatus.CHOOSE, undo


def _choose_acting(state: MatchState, side: int) -> bool:
    members = state.setup.sides[side]
    # Naming the member who acts already changes nothing, yet the engine judges it like any other choice.
    return _refusal(state, SetActing(members[0], state.acting_member(side))) is None


def allowed_actions(state: MatchState, side: int | None = None, *, draft: TurnDraft | None = None) -> Allowed:
    """The actions the engine accepts now, for ``side`` (default: the side due to act, ``state.turn``).

    ``draft``: the submoves made so far of the roll being played (phase MOVE), when the transport keeps one; it
    decides between :attr:`PlayStatus.CHOOSE` and :attr:`PlayStatus.CONFIRM` and whether :attr:`Allowed.undo`.
    Every answer comes from :func:`~engine.match.apply` itself (see the module's docstring). ``ValueError`` if
    ``side`` is neither 0 nor 1.
    """
    if side is not None and side not in (0, 1):
        raise ValueError(f"a side is 0 or 1, got {side!r}")
    if state.over:
        return NOTHING
    if side is None:
        side = state.turn
    if side is None:
        # Before an opening roll: either side's acting member throws it.
        actors: tuple[str, ...] = (state.acting_member(0), state.acting_member(1))
    else:
        actors = (state.acting_member(side),)

    roll = _accepts(state, actors, lambda by: _roll(by, state))
    double_refusal = None if side is None else _refusal(state, Double(actors[0]))
    double = side is not None and double_refusal is None
    answers = cube_answers(state) if side is not None and side == state.responder else frozenset()
    play, undo = (PlayStatus.NONE, False) if side is None else _play(state, actors[0], draft)
    named: tuple[int, ...] = ()
    if state.phase is Phase.NAME_DOUBLE:
        named = tuple(d for d in range(1, 7) if any(_refusal(state, NameDouble(by, d)) is None for by in actors))
    levels = tuple(level for level in sorted(state.variant.results) if _accepts_resign(state, actors, level))
    accept = _accepts(state, actors, AcceptResignation)
    reject = _accepts(state, actors, RejectResignation)
    end_session = _accepts(state, actors, EndSession)
    forfeit = _accepts(state, actors, Forfeit)

    kinds: list[ProposalKind] = []
    if state.variant.team_size > 1 and side is not None and side == state.turn:
        # The service's proposals, in its order, kept where the acting member could act on them now.
        candidates: tuple[tuple[ProposalKind, bool], ...] = (
            (ProposalKind.PLAY, play is not PlayStatus.NONE),
            (ProposalKind.DOUBLE, double),
            (ProposalKind.ROLL, roll),
            (ProposalKind.TAKE, CubeAnswer.TAKE in answers),
            (ProposalKind.PASS, CubeAnswer.PASS in answers),
            (ProposalKind.BEAVER, CubeAnswer.BEAVER in answers),
            (ProposalKind.RACCOON, CubeAnswer.RACCOON in answers),
            (ProposalKind.ACCEPT, accept),
            (ProposalKind.REJECT, reject),
        )
        kinds = [kind for kind, ok in candidates if ok]

    return Allowed(
        phase=state.phase,
        side=side,
        actors=actors,
        roll=roll,
        double=double,
        double_refusal=double_refusal,
        cube_answers=answers,
        play=play,
        undo=undo,
        name_doubles=named,
        resign_levels=levels,
        resign_names=tuple(state.variant.result_name(level) for level in levels),
        accept_resignation=accept,
        reject_resignation=reject,
        end_session=end_session,
        forfeit=forfeit,
        proposal_kinds=tuple(kinds),
        choose_acting=(_choose_acting(state, 0), _choose_acting(state, 1)),
    )
