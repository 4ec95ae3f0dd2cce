"""Hypothesis strategies for positions and rolls."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from engine import Position
from engine.variant import Variant

dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


def random_game_position(variant: Variant, rng: random.Random, turns: int) -> Position:
    """The position after ``turns`` random legal plays from the start (roller's frame)."""
    pos = variant.start_position()
    for _ in range(turns):
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        plays = variant.legal_plays(pos, roll)
        nxt = rng.choice(plays.plays).position
        if variant.game_over(nxt) is not None:
            break
        pos = variant.flip(nxt)
    return pos


@st.composite
def game_positions(draw: st.DrawFn, variant: Variant, max_turns: int = 80) -> Position:
    """Positions reached by random legal play: realistic middle games, races and bear-offs."""
    seed = draw(st.integers(0, 2**32 - 1))
    turns = draw(st.integers(0, max_turns))
    return random_game_position(variant, random.Random(seed), turns)


@st.composite
def scattered_positions(draw: st.DrawFn, checkers: int = 15, pins: bool = False) -> Position:
    """Arbitrary legal-looking backgammon positions: checkers scattered over points, bar and off.

    ``pins``: a rule set that pins and has no bar (Plakoto): no checker on the bar, and some stacks hold a pinned
    checker of the other side under them."""
    board = [0] * 24
    bar = [0, 0]
    off = [0, 0]
    for side, sign in ((0, 1), (1, -1)):
        for _ in range(checkers):
            where = draw(st.integers(-2, 23))  # -2 = off, -1 = bar, else a point index
            if where == -2 or (where == -1 and pins):
                off[side] += 1
            elif where == -1:
                bar[side] += 1
            elif board[where] * sign >= 0:
                board[where] += sign
            else:
                off[side] += 1  # the point is the opponent's: put this one in the tray instead
    pinned = [0] * 24
    if pins:
        for i in draw(st.lists(st.integers(0, 23), max_size=6, unique=True)):
            under = 0 if board[i] < 0 else 1  # the side whose checker lies under the stack (0: the roller)
            if board[i] and off[under]:
                off[under] -= 1
                pinned[i] = 1 if under == 0 else -1
    return Position(tuple(board), (bar[0], bar[1]), (off[0], off[1]), pinned=pinned)
