"""Ratings: the FIBS formula, kept per rule set, and the contract a plugin implements to replace it.

FIBS (``help formula``): with ratings ``r1``, ``r2`` and an ``n``-point match,

* ``D = |r1 - r2|``; the underdog wins with probability ``P_upset = 1 / (10^(D·√n / 2000) + 1)``;
* ``P = 1 - P_upset`` if the underdog wins, ``P = P_upset`` if the favourite wins;
* each player's factor ``K = max(1, 5 - experience / 100)``, from their own experience (the sum of the
  lengths of the matches they finished before this one);
* the winner gains ``4·K·√n·P``, the loser loses ``4·K·√n·P`` (each with their own ``K``).

Everybody starts at 1500 with no experience. Money sessions are unrated. In team play each member is rated
against the average rating of the opposing team.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import pluggy

from .i18n import N_

hookimpl = pluggy.HookimplMarker("gammonbot")

__all__ = ["Rating", "RatingSystem", "FibsRatings", "START_RATING"]

START_RATING = 1500.0


@dataclass(frozen=True)
class Rating:
    """One player's standing in one rule set."""

    rating: float = START_RATING
    experience: int = 0


class RatingSystem(Protocol):
    """What a rating plugin provides (registered through the ``register_rating_systems`` hook)."""

    name: str
    display_name: str

    def initial(self) -> Rating:
        """A new player's rating."""
        ...

    def win_probability(self, rating: float, opponent: float, length: int) -> float:
        """The chance that a player rated ``rating`` beats ``opponent`` in a ``length``-point match."""
        ...

    def update(self, winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
        """The two ratings after ``winner`` beat ``loser`` in a ``length``-point match."""
        ...


class FibsRatings:
    """The FIBS rating formula (see the module docstring)."""

    name = "fibs"
    display_name = N_("FIBS ratings")

    def initial(self) -> Rating:
        return Rating()

    @staticmethod
    def upset_probability(difference: float, length: int) -> float:
        """The chance that the lower-rated player wins, for a rating ``difference`` >= 0."""
        return 1.0 / (10 ** (abs(difference) * math.sqrt(length) / 2000.0) + 1.0)

    def win_probability(self, rating: float, opponent: float, length: int) -> float:
        upset = self.upset_probability(rating - opponent, length)
        return upset if rating < opponent else 1.0 - upset

    @staticmethod
    def k_factor(experience: int) -> float:
        """Ratings of new players move faster: 5 with no experience, 1 from 400 points of experience on."""
        return max(1.0, 5.0 - experience / 100.0)

    def change(self, winner: Rating, loser: Rating, length: int) -> tuple[float, float]:
        """(winner's gain, loser's loss), both >= 0."""
        if length < 1:
            raise ValueError("only matches of at least one point are rated (money play is unrated)")
        upset = self.upset_probability(winner.rating - loser.rating, length)
        p = 1.0 - upset if winner.rating < loser.rating else upset
        base = 4.0 * math.sqrt(length) * p
        return self.k_factor(winner.experience) * base, self.k_factor(loser.experience) * base

    def update(self, winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
        gain, loss = self.change(winner, loser, length)
        return (
            Rating(winner.rating + gain, winner.experience + length),
            Rating(loser.rating - loss, loser.experience + length),
        )


@hookimpl
def register_rating_systems(register: Callable[[RatingSystem], None]) -> None:
    register(FibsRatings())
