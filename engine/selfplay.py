"""Random legal players: a whole match played by the engine against itself.

:class:`RandomPlayer` picks uniformly among the legal plays and now and then doubles, takes, passes,
beavers, raccoons and resigns, so every cube path is exercised; with ``chaos`` it also rejects
resignations, times out and forfeits. A seed fixes both the dice and every choice, so a self-played
match is reproducible. It is the engine's smoke test and the seed of a bot opponent.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .dice import DiceSource, RandomDice
from .match import (
    AcceptResignation,
    Action,
    Beaver,
    Double,
    Forfeit,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    Pass,
    Phase,
    Raccoon,
    RejectResignation,
    Resign,
    Roll,
    SetActing,
    Take,
    Timeout,
    apply,
    new_match,
)
from .variant import Variant

__all__ = ["RandomPlayer", "play_match", "default_sides"]


@dataclass
class RandomPlayer:
    """Chooses a random legal action for whoever must act; the rates are per decision."""

    rng: random.Random
    double_rate: float = 0.08
    take_rate: float = 0.65
    redouble_rate: float = 0.25
    resign_rate: float = 0.004
    accept_rate: float = 0.6
    #: Also produce timeouts, forfeits and acting-member choices (rarely).
    chaos: bool = False

    def choose(self, state: MatchState, dice: DiceSource) -> Action:
        """A legal action for the side that must act now (either side before an opening roll)."""
        rng = self.rng
        phase = state.phase
        if phase is Phase.OVER:
            raise ValueError("the match is over")
        due = state.turn
        if self.chaos and due is not None and rng.random() < 0.002:
            return Timeout(state.acting_member(due)) if rng.random() < 0.7 else Forfeit(state.acting_member(due))
        if phase is Phase.OPENING:
            side = rng.randrange(2)
            if state.options.team_choice and not state.opening_ties and rng.random() < 0.3:
                return SetActing(state.acting_member(side), rng.choice(state.setup.sides[side]))
            return OpeningRoll(state.acting_member(side), dice())
        assert due is not None
        by = state.acting_member(due)
        if phase is Phase.ROLL:
            r = rng.random()
            if r < self.double_rate and state.may_double(due) is None:
                return Double(by)
            if r > 1 - self.resign_rate and state.declined[due] < 3:
                return Resign(by, rng.randint(state.declined[due] + 1, 3))
            return Roll(by, dice())
        if phase is Phase.MOVE:
            if rng.random() < self.resign_rate / 2 and state.declined[due] < 3:
                return Resign(by, rng.randint(state.declined[due] + 1, 3))
            play = rng.choice(list(state.legal_plays()))
            moves = list(play.moves)
            return Move(by, tuple(moves))
        if phase is Phase.DOUBLED:
            r = rng.random()
            if r < self.redouble_rate and _allowed(state, Beaver(by)):
                return Beaver(by)
            if r < self.redouble_rate and _allowed(state, Raccoon(by)):
                return Raccoon(by)
            return Take(by) if rng.random() < self.take_rate else Pass(by)
        # A resignation is offered.
        if not self.chaos or rng.random() < self.accept_rate:
            return AcceptResignation(by)
        return RejectResignation(by)


def _allowed(state: MatchState, action: Action) -> bool:
    try:
        apply(state, action)
    except ValueError:
        return False
    return True


def default_sides(variant: Variant) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Player ids for a self-played match: Alice v Bob, or Alice & Carol v Bob & Dave for teams."""
    pool = (("Alice", "Carol", "Erin", "Grace"), ("Bob", "Dave", "Frank", "Heidi"))
    size = variant.team_size
    return pool[0][:size], pool[1][:size]


def play_match(
    variant: Variant,
    options: MatchOptions,
    seed: int,
    *,
    sides: Sequence[Sequence[str]] | None = None,
    chaos: bool = False,
    max_actions: int = 200_000,
) -> tuple[MatchState, list[Action]]:
    """Play a whole match between two random players: the final state and the action record.

    Money sessions need a game count (``options.games``), or they would never end.
    """
    if options.money and not options.games:
        raise ValueError("a self-played money session needs a number of games")
    state = new_match(variant, sides or default_sides(variant), options)
    dice = RandomDice(seed)
    player = RandomPlayer(random.Random(f"choices-{seed}"), chaos=chaos)
    actions: list[Action] = []
    while not state.over:
        if len(actions) >= max_actions:
            raise RuntimeError(f"the match did not end within {max_actions} actions")
        action = player.choose(state, dice)
        state = apply(state, action)
        actions.append(action)
    return state, actions
