"""Swiss pairing: players of equal score meet, nobody meets the same opponent twice while that can be avoided,
and the bye goes to the lowest-ranked player who has not had one.

The players are ranked by score, then seed. The top unpaired player's score group (the unpaired players on
the same score) is folded in half, as in the Dutch system: with a group of six, 1 meets 4, 2 meets 5, 3 meets
6; a player left over floats down to the next group. Pairings are searched in that order of preference,
backtracking on a rematch. The first pairing found is also the first one in that order whose every step
leaves the rest pairable without rematches, so when plain backtracking takes too long, the search goes on
step by step asking Edmonds' matching algorithm (:mod:`.matching`) whether the players left can still be
paired: it never dead-ends, and it finds a pairing without rematches whenever one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set

from .matching import has_perfect_matching

__all__ = ["swiss_pairings"]

Pair = tuple[str, str]
#: How many tentative pairs plain backtracking may try before the search asks the matching algorithm.
BUDGET = 4000


class _OutOfBudget(Exception):
    pass


def swiss_pairings(
    ranked: Sequence[str],
    score: Mapping[str, int],
    met: Mapping[str, Set[str]],
    byes: Mapping[str, int],
) -> tuple[list[Pair], str | None]:
    """The pairs of a round (higher-ranked player first) and who gets the bye (None with an even number).

    ``ranked``: the players to pair, best first (score, then seed); ``score`` their scores; ``met`` whom each
    has already been paired with; ``byes`` how many byes each has had.
    """
    players = list(ranked)
    if len(players) % 2 == 0:
        pairs = _pair(players, score, met)
        return (pairs if pairs is not None else _pair_anyway(players, score, met)), None
    # The bye: the lowest-ranked player without one (then those with the fewest), unless giving it to them
    # would force a rematch that another choice avoids.
    order = sorted(reversed(players), key=lambda p: byes.get(p, 0))
    for candidate in order:
        rest = [p for p in players if p != candidate]
        pairs = _pair(rest, score, met)
        if pairs is not None:
            return pairs, candidate
    rest = [p for p in players if p != order[0]]
    return _pair_anyway(rest, score, met), order[0]


def _preferences(players: Sequence[str], score: Mapping[str, int]) -> list[str]:
    """Partners for ``players[0]`` (the top unpaired player), most wanted first: the fold of their score group
    (top half against bottom half), then the rest of the group upwards, then lower groups in rank order."""
    top = players[0]
    size = 1
    while size < len(players) and score.get(players[size], 0) == score.get(top, 0):
        size += 1
    half = size // 2
    group = list(players[:size])
    wanted = group[half:] + group[1:half][::-1] + list(players[size:])
    return [p for p in wanted if p != top]


def _pair(players: list[str], score: Mapping[str, int], met: Mapping[str, Set[str]]) -> list[Pair] | None:
    """The first pairing in order of preference without rematches, or None when there is none."""
    budget = [BUDGET]
    try:
        return _backtrack(players, score, met, budget)
    except _OutOfBudget:
        return _guided(players, score, met)


def _backtrack(
    players: list[str], score: Mapping[str, int], met: Mapping[str, Set[str]], budget: list[int]
) -> list[Pair] | None:
    if not players:
        return []
    top = players[0]
    seen = met.get(top, frozenset())
    for partner in _preferences(players, score):
        if partner in seen:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget
        rest = [p for p in players if p != top and p != partner]
        found = _backtrack(rest, score, met, budget)
        if found is not None:
            return [(top, partner), *found]
    return None


def _pairable(players: Sequence[str], met: Mapping[str, Set[str]]) -> bool:
    """Whether ``players`` can all be paired without a rematch (a perfect matching of the pairs not yet met)."""
    index = {p: i for i, p in enumerate(players)}
    adjacency = [[index[q] for q in players if q != p and q not in met.get(p, frozenset())] for p in players]
    return has_perfect_matching(adjacency)


def _guided(players: list[str], score: Mapping[str, int], met: Mapping[str, Set[str]]) -> list[Pair] | None:
    if not _pairable(players, met):
        return None
    pairs: list[Pair] = []
    while players:
        top = players[0]
        seen = met.get(top, frozenset())
        for partner in _preferences(players, score):
            if partner in seen:
                continue
            rest = [p for p in players if p != top and p != partner]
            if _pairable(rest, met):
                pairs.append((top, partner))
                players = rest
                break
        else:  # pragma: no cover - _pairable(players) promised a way on
            raise AssertionError("Swiss pairing lost its way")
    return pairs


def _pair_anyway(players: list[str], score: Mapping[str, int], met: Mapping[str, Set[str]]) -> list[Pair]:
    """Every pairing needs a rematch: pair in order of preference, opponents not met yet first."""
    pairs: list[Pair] = []
    while players:
        top = players[0]
        seen = met.get(top, frozenset())
        partner = min(_preferences(players, score), key=_rank_by(seen))
        pairs.append((top, partner))
        players = [p for p in players if p != top and p != partner]
    return pairs


def _rank_by(seen: Set[str]) -> Callable[[str], int]:
    return lambda p: 1 if p in seen else 0
