"""Dice sources: where rolls come from, injected into whoever builds roll actions.

The match state machine never rolls dice itself: a roll action carries the dice it shows, so a match
record replays exactly. A :class:`DiceSource` is any callable returning two dice; :class:`RandomDice`
is a seeded source (reproducible) and :class:`ScriptedDice` replays a fixed list (tests).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

__all__ = ["DiceSource", "RandomDice", "ScriptedDice", "DiceExhausted"]


class DiceSource(Protocol):
    """Anything that rolls two dice: each call returns a pair of numbers from 1 to 6."""

    def __call__(self) -> tuple[int, int]: ...


class DiceExhausted(LookupError):
    """A scripted dice source has no rolls left."""


class RandomDice:
    """Fair dice from a seeded generator: the same seed gives the same rolls."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def __call__(self) -> tuple[int, int]:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


class ScriptedDice:
    """Replays a fixed list of rolls, in order; raises :class:`DiceExhausted` when they run out."""

    def __init__(self, rolls: Iterable[tuple[int, int]]) -> None:
        self._rolls = [(int(a), int(b)) for a, b in rolls]
        for a, b in self._rolls:
            if not (1 <= a <= 6 and 1 <= b <= 6):
                raise ValueError(f"a die shows 1 to 6, got {a}-{b}")
        self._next = 0

    def __call__(self) -> tuple[int, int]:
        if self._next >= len(self._rolls):
            raise DiceExhausted(f"the scripted dice ran out after {len(self._rolls)} rolls")
        roll = self._rolls[self._next]
        self._next += 1
        return roll

    @property
    def remaining(self) -> int:
        """Rolls not used yet."""
        return len(self._rolls) - self._next
