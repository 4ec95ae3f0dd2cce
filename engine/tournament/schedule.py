"""Structures fixed at the start: the seeding, a league's divisions and schedule, and a knockout's bracket.

A knockout bracket is made whole at the start, so it can be drawn before it is played: every match of a later
round says where its two sides come from (:attr:`Match.feeds`). The bracket has room for the next power of two;
the empty places are byes, and they go to the top seeds in round 1 (seed s meets seed size + 1 - s, so the
byes, the missing seeds n + 1 .. size, fall to seeds 1 .. size - n). Seeds 1 and 2 can meet only in the final.

A double elimination adds a losers' bracket: the losers of winners' round 1 play each other, then every second
losers' round takes in the losers of the next winners' round (in reversed order every other time, so players
who just met do not meet again at once). The winners' champion and the losers' champion meet in the grand
final; if the losers' champion wins it, both have lost once and a second grand final (the reset) decides.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .model import Bracket, DivisionMode, Entrant, Match, Seeding, TournamentSpec

__all__ = [
    "bracket_positions",
    "bracket_size",
    "knockout_matches",
    "round_robin_matches",
    "seed_order",
    "split_divisions",
]


def seed_order(spec: TournamentSpec, entrants: Sequence[Entrant]) -> tuple[str, ...]:
    """Entrant ids from the top seed down, as the tournament's seeding says."""
    if spec.seeding is Seeding.SHUFFLE:
        ids = [e.id for e in entrants]
        random.Random(spec.shuffle_seed).shuffle(ids)
        return tuple(ids)
    if spec.seeding is Seeding.RATING:
        rated = sorted(
            (e for e in entrants if e.rating is not None), key=lambda e: -e.rating if e.rating is not None else 0.0
        )
        return tuple(e.id for e in rated) + tuple(e.id for e in entrants if e.rating is None)
    return tuple(e.id for e in entrants)


def split_divisions(seeds: Sequence[str], divisions: int, mode: DivisionMode) -> tuple[tuple[str, ...], ...]:
    """The entrants of each division, in seed order: the top seeds in division 1 (tiers), or dealt out so the
    divisions are equally strong (balanced). Sizes differ by one at most."""
    if divisions <= 1:
        return (tuple(seeds),)
    if mode is DivisionMode.BALANCED:
        dealt: list[list[str]] = [[] for _ in range(divisions)]
        for i, e in enumerate(seeds):
            turn, pos = divmod(i, divisions)
            dealt[pos if turn % 2 == 0 else divisions - 1 - pos].append(e)
        return tuple(tuple(d) for d in dealt)
    base, extra = divmod(len(seeds), divisions)
    out: list[tuple[str, ...]] = []
    start = 0
    for d in range(divisions):
        size = base + (1 if d < extra else 0)
        out.append(tuple(seeds[start : start + size]))
        start += size
    return tuple(out)


def _circle(ids: Sequence[str]) -> list[list[tuple[str, str | None]]]:
    """The circle method: one entrant stays put, the others turn around it, so each pair meets once. With an odd
    number, the entrant drawn against the empty place rests that round."""
    ring: list[str | None] = list(ids) + ([None] if len(ids) % 2 else [])
    n = len(ring)
    rounds: list[list[tuple[str, str | None]]] = []
    for r in range(n - 1):
        games: list[tuple[str, str | None]] = []
        rest: list[tuple[str, str | None]] = []
        for i in range(n // 2):
            x, y = ring[i], ring[n - 1 - i]
            if i == 0 and r % 2:
                x, y = y, x  # the fixed entrant alternates sides
            if x is None or y is None:
                sitting = x if x is not None else y
                assert sitting is not None
                rest.append((sitting, None))
            else:
                games.append((x, y))
        rounds.append(games + rest)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def round_robin_matches(divisions: Sequence[Sequence[str]], legs: int) -> tuple[Match, ...]:
    """Every match of a league: each division's round r is played in tournament round r; with two legs, the
    second leg repeats the first with the sides swapped. A rest (odd-sized division) is a match without ``b``."""
    per_division = []
    for ids in divisions:
        first = _circle(ids)
        second = [[(b, a) if b is not None else (a, b) for a, b in rnd] for rnd in first] if legs == 2 else []
        per_division.append(first + second)
    matches: list[Match] = []
    for r in range(max(len(d) for d in per_division)):
        k = 0
        for div, rounds in enumerate(per_division):
            if r >= len(rounds):
                continue
            for a, b in rounds[r]:
                k += 1
                matches.append(
                    Match(
                        f"R{r + 1}-{k}",
                        r + 1,
                        a,
                        b,
                        stage=r + 1,
                        slot=k - 1,
                        division=div + 1 if len(divisions) > 1 else 0,
                    )
                )
    return tuple(matches)


def bracket_size(n: int) -> int:
    """The number of places in a knockout bracket for ``n`` entrants: the next power of two."""
    size = 2
    while size < n:
        size *= 2
    return size


def bracket_positions(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for a bracket of ``size`` places: place 2i meets place 2i + 1.

    Each doubling puts seed s beside seed 2 * current + 1 - s: [1, 2] -> [1, 4, 2, 3] -> [1, 8, 4, 5, 2, 7, 3, 6].
    """
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order[:size]


def knockout_matches(seeds: Sequence[str], double: bool) -> tuple[Match, ...]:
    """Every match of a knockout, feeders before the matches they feed; rounds are scheduled as early as their
    feeders allow (the losers' bracket runs alongside the winners')."""
    size = bracket_size(len(seeds))
    rounds = size.bit_length() - 1
    placed = [seeds[s - 1] if s <= len(seeds) else None for s in bracket_positions(size)]
    prefix, bracket = ("W", Bracket.WINNERS) if double else ("R", Bracket.MAIN)
    specs: list[tuple[str, Bracket, int, int, tuple[str, str], str | None, str | None]] = []
    for i in range(size // 2):
        specs.append((f"{prefix}1-{i + 1}", bracket, 1, i, ("", ""), placed[2 * i], placed[2 * i + 1]))
    for r in range(2, rounds + 1):
        for i in range(size >> r):
            feeds = (f"W:{prefix}{r - 1}-{2 * i + 1}", f"W:{prefix}{r - 1}-{2 * i + 2}")
            specs.append((f"{prefix}{r}-{i + 1}", bracket, r, i, feeds, None, None))
    if double:
        specs.extend(_losers_bracket(size, rounds))
        last = f"W:L{2 * rounds - 2}-1" if rounds > 1 else "L:W1-1"
        specs.append(("GF1", Bracket.FINAL, 1, 0, (f"W:W{rounds}-1", last), None, None))
        specs.append(("GF2", Bracket.FINAL, 2, 0, ("L:GF1", "W:GF1"), None, None))
    when: dict[str, int] = {}
    out: list[Match] = []
    for mid, br, stage, slot, feeds, a, b in specs:
        sources = [f[2:] for f in feeds if f]
        when[mid] = 1 + max((when[s] for s in sources), default=0)
        out.append(Match(mid, when[mid], a, b, bracket=br, stage=stage, slot=slot, feeds=feeds))
    return tuple(out)


def _losers_bracket(
    size: int, rounds: int
) -> list[tuple[str, Bracket, int, int, tuple[str, str], str | None, str | None]]:
    out: list[tuple[str, Bracket, int, int, tuple[str, str], str | None, str | None]] = []
    if rounds < 2:
        return out
    for i in range(size // 4):  # losers' round 1: the losers of winners' round 1, in pairs
        out.append((f"L1-{i + 1}", Bracket.LOSERS, 1, i, (f"L:W1-{2 * i + 1}", f"L:W1-{2 * i + 2}"), None, None))
    for j in range(1, rounds):
        count = size >> (j + 1)
        stage = 2 * j
        for i in range(count):  # the survivors meet the losers of winners' round j + 1
            drop = count - 1 - i if j % 2 else i
            feeds = (f"W:L{stage - 1}-{i + 1}", f"L:W{j + 1}-{drop + 1}")
            out.append((f"L{stage}-{i + 1}", Bracket.LOSERS, stage, i, feeds, None, None))
        if j < rounds - 1:
            for i in range(count // 2):  # the survivors play each other
                feeds = (f"W:L{stage}-{2 * i + 1}", f"W:L{stage}-{2 * i + 2}")
                out.append((f"L{stage + 1}-{i + 1}", Bracket.LOSERS, stage + 1, i, feeds, None, None))
    return out
