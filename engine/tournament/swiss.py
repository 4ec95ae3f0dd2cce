"""Swiss pairing: the pairing of least cost on the usual priorities, found as a minimum-cost perfect matching.

The players are ranked by score, then seed; a score group is the players on one score. A pairing (with the bye,
when the number of players is odd) is judged on these priorities, each counting only where the ones before it
are equal:

1. **no rematch**: as few pairs as possible who have met before;
2. **at most one bye per player**: the bye to a player who has not had one, if anyone can take it;
   (which of 1 and 2 comes first when both cannot hold is the tournament's choice, :class:`ByeRule`);
3. **the bye to the lowest-ranked player** it can go to (so in the lowest score group it can);
4. **as few players as possible paired outside their score group** (pairs of two different scores);
5. **the smallest score differences** (their sum over the pairs);
6. **nobody floats in two rounds running**: as few players as possible who floated last round and float again (a
   player floats when paired outside their score group, or given the bye);
7. **seeding order within a score group**: top half against bottom half (with six, 1 meets 4, 2 meets 5, 3 meets
   6), the lowest of a group floating down to meet the highest of the next: first as few pairs as possible inside
   one half of their group (places below ``size // 2``, or from it on), then each pair costs how far it is from
   that (``|j - i - size // 2|`` for places i < j of one group; the places below the floater plus those above its
   opponent for a floater).

Each pair's costs are folded into one integer (each priority weighs more than everything below it can add up
to), and the pairing of least total cost is a minimum-cost perfect matching of the players (and the bye), found by
Edmonds' blossom algorithm (:mod:`.matching`): optimal on the priorities, in that order, every round. A round of 256
players takes a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from enum import StrEnum

from .matching import min_cost_perfect_matching

__all__ = ["ByeRule", "PairCosts", "pair_costs", "swiss_pairings"]

Pair = tuple[str, str]
#: Partners tried first for each player (the matching is then proved optimal over every pair).
NEAREST = 8


class ByeRule(StrEnum):
    """Which holds when a Swiss cannot both avoid every rematch and give nobody a second bye."""

    #: Nobody gets a second bye: two players meet again instead (the default: a rematch is a game played).
    ONE_BYE = "one bye"
    #: Nobody meets the same opponent twice: a player gets a second bye instead.
    NO_REMATCH = "no rematch"


#: The priorities of one pair, in the order above (the first two swapped under ByeRule.NO_REMATCH).
PairCosts = tuple[int, int, int, int, int, int, int, int]


def pair_costs(
    ranked: Sequence[str],
    score: Mapping[str, int],
    met: Mapping[str, Set[str]],
    byes: Mapping[str, int],
    floated: Set[str],
) -> list[list[PairCosts]]:
    """``costs[i][j]`` for the i-th and j-th ranked players (i < j; j == len(ranked): the bye), as (second byes,
    rematches, players ranked below the bye's taker, outside their group, score difference, floating again, inside
    one half, seeding)."""
    players = list(ranked)
    n = len(players)
    size: dict[int, int] = {}
    place: list[int] = []
    for p in players:
        s = score.get(p, 0)
        place.append(size.get(s, 0))
        size[s] = size.get(s, 0) + 1
    out: list[list[PairCosts]] = []
    for i, a in enumerate(players):
        sa, pa, ga = score.get(a, 0), place[i], size[score.get(a, 0)]
        seen = met.get(a, frozenset())
        fa = 1 if a in floated else 0
        row: list[PairCosts] = [(0, 0, 0, 0, 0, 0, 0, 0)] * (i + 1)
        half = ga // 2
        for j in range(i + 1, n):
            b = players[j]
            sb = score.get(b, 0)
            rematch = 1 if b in seen else 0
            if sa == sb:
                inside = 1 if (pa < half) == (place[j] < half) else 0
                row.append((0, rematch, 0, 0, 0, 0, inside, abs(place[j] - pa - half)))
            else:
                again = fa + (1 if b in floated else 0)
                row.append((0, rematch, 0, 1, abs(sa - sb), again, 0, (ga - 1 - pa) + place[j]))
        row.append((1 if byes.get(a, 0) else 0, 0, n - 1 - i, 0, 0, fa, 0, 0))
        out.append(row)
    return out


def swiss_pairings(
    ranked: Sequence[str],
    score: Mapping[str, int],
    met: Mapping[str, Set[str]],
    byes: Mapping[str, int],
    floated: Set[str] = frozenset(),
    rule: ByeRule = ByeRule.ONE_BYE,
) -> tuple[list[Pair], str | None]:
    """The pairs of a round (higher-ranked player first, in rank order) and who gets the bye (None with an even
    number).

    ``ranked``: the players to pair, best first (score, then seed); ``score`` their scores; ``met`` whom each has
    already been paired with; ``byes`` how many byes each has had; ``floated`` who floated last round (paired outside
    their score group, or given the bye); ``rule``: whether a second bye or a rematch is the lesser evil.
    """
    players = list(ranked)
    n = len(players)
    if n <= 1:
        return [], (players[0] if players else None)
    costs = pair_costs(players, score, met, byes, floated)
    total = n + n % 2
    spread = max(score.get(p, 0) for p in players) - min(score.get(p, 0) for p in players)
    half = total // 2
    # The most each priority can add up to over a whole pairing, plus one: the radix of the next.
    radix = (2, half + 1, total + 1, half + 1, half * spread + 1, total + 1, half + 1, total * total + 1)
    order = (0, 1) if rule is ByeRule.ONE_BYE else (1, 0)

    def fold(c: PairCosts) -> int:
        value = 0
        for k in (*order, 2, 3, 4, 5, 6, 7):
            value = value * radix[k] + c[k]
        return value

    weights = [[0] * total for _ in range(total)]
    for i, row in enumerate(costs):
        for j in range(i + 1, total):
            weights[i][j] = weights[j][i] = fold(row[j])
    group = [score.get(p, 0) for p in players] + [None]
    nearest: list[list[int]] = []
    for i in range(total):
        # the cheapest partners, and the two cheapest in each score group up to two points away (a floater's)
        chosen: list[int] = []
        per_group: dict[int | None, int] = {}
        mine = group[i]
        for j in sorted(range(total), key=weights[i].__getitem__):
            if j == i:
                continue
            g = group[j]
            taken = per_group.get(g, 0)
            near = g is None or mine is None or abs(g - mine) <= 2
            if len(chosen) < NEAREST or (taken < 2 and near):
                chosen.append(j)
                per_group[g] = taken + 1
        nearest.append(chosen)
    mate = min_cost_perfect_matching(weights, nearest)
    pairs: list[Pair] = []
    bye: str | None = None
    for i in range(n):
        j = mate[i]
        if j == n:
            bye = players[i]
        elif i < j:
            pairs.append((players[i], players[j]))
    return pairs, bye
