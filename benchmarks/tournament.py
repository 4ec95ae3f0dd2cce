"""Tournaments at scale: 64 tournaments of 64 players each in one process.

    python benchmarks/tournament.py [--tournaments 64] [--players 64] [--format swiss|knockout|league|all]

For each format, every tournament is played round by round (random results). Per tournament and round it
times what the service does when a round ends, in CPU time of the measuring thread:

* advance: ``advance`` (the next round's pairings: Swiss pairing with its rematch search, or a bracket's
  places filled) plus ``standings`` (the tables with their tiebreaks);
* store: ``to_data`` + ``json.dumps`` and ``json.loads`` + ``from_data`` (the compare-and-swap round trip);
* record: ``record_result`` of one match (what every finished game costs);
* render: the standings table or the bracket pages as PNG (meant for a worker thread, off the event loop).

It prints the median, 95th percentile and maximum of each, and the worst round of the whole run. The figure
to watch is the worst advance: it bounds how long one round's end holds the event loop if the service runs
it inline (target: under 50 ms; the renders belong in a worker thread regardless).

Then it times the Swiss pairing of the largest field, 256 players, every round of a 10-round Swiss with random
results (``--swiss-players``): the minimum-cost matching on the priorities (target: well under a second a round).

``--swiss-check N`` runs the test suite's property check (tests/engine/test_tournament_swiss.py: every round of a
random Swiss, 4 to 64 players, log2(n) + 2 rounds, optimal on the pairing priorities in order against the test's
independent reference) over N random tournaments, more than the suite can afford, and says how many rounds it
checked.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.tournament import (  # noqa: E402
    Entrant,
    Format,
    Tournament,
    TournamentSpec,
    advance,
    from_data,
    join,
    new_tournament,
    open_matches,
    record_result,
    standings,
    start,
    to_data,
)
from render.bracket import render_bracket  # noqa: E402
from render.standings import render_standings  # noqa: E402

T = TypeVar("T")

SPECS = {
    "swiss": TournamentSpec(Format.SWISS, name="Swiss", rounds=6),
    "knockout": TournamentSpec(Format.KNOCKOUT, name="Knockout", double_elimination=True),
    "league": TournamentSpec(Format.ROUND_ROBIN, name="League", divisions=4),
}


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.thread_time()
    out = fn()
    return out, time.thread_time() - start


def figures(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"  {name:<8} median {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms   max {ms[-1]:7.2f} ms"


def run(kind: str, tournaments: int, players: int, seed: int) -> None:
    rng = random.Random(seed)
    spec = SPECS[kind]
    field: list[Tournament] = []
    for k in range(tournaments):
        t = new_tournament(spec)
        for i in range(players):
            t = join(t, Entrant(f"t{k}p{i}", f"Player {i + 1}", (f"u{k}-{i}",), rating=rng.uniform(1200, 2000)))
        field.append(start(t, 0.0))
    advance_t: list[float] = []
    store_t: list[float] = []
    record_t: list[float] = []
    render_t: list[float] = []
    worst_round = (0.0, 0)
    wall = time.perf_counter()
    while not all(t.finished for t in field):
        round_total = 0.0
        for k, t in enumerate(field):
            if t.finished:
                continue
            for m in open_matches(t):
                assert m.a is not None and m.b is not None
                winner = rng.choice((m.a, m.b))
                t, spent = timed(lambda t=t, m=m, w=winner: record_result(t, m.id, w, 7, rng.randint(0, 6)))
                record_t.append(spent)
            (t, _), spent = timed(lambda t=t: (advance(t, 0.0), None))
            _, spent_tables = timed(lambda t=t: standings(t))
            advance_t.append(spent + spent_tables)
            round_total += spent + spent_tables
            _, spent = timed(lambda t=t: from_data(json.loads(json.dumps(to_data(t)))))
            store_t.append(spent)
            if k < 4:  # a few renders per round are enough to know their cost
                draw = render_bracket if t.spec.is_knockout else render_standings
                _, spent = timed(lambda t=t, draw=draw: draw(t))
                render_t.append(spent)
            field[k] = t
        worst_round = max(worst_round, (round_total, field[0].round))
    wall = time.perf_counter() - wall
    rounds = max(t.round for t in field)
    print(f"{kind}: {tournaments} tournaments of {players} players, {rounds} rounds, {wall:.1f} s wall in all")
    print(figures("advance", advance_t) + "   (advance + standings, per tournament and round)")
    print(figures("store", store_t) + "   (to_data + json round trip)")
    print(figures("record", record_t) + "   (one result)")
    print(figures("render", render_t) + "   (PNG pages, in a worker thread)")
    print(
        f"  the slowest round's advances for all {tournaments} tournaments: {worst_round[0] * 1000:.0f} ms "
        f"(round {worst_round[1]})"
    )


def pairing_time(players: int, rounds: int, seed: int) -> None:
    """Each round's pairing time (``advance``: the Swiss pairing of the next round) for one large Swiss."""
    rng = random.Random(seed)
    t = new_tournament(TournamentSpec(Format.SWISS, name="Big Swiss", rounds=rounds))
    for i in range(players):
        t = join(t, Entrant(f"p{i}", f"Player {i + 1}", (f"u{i}",), rating=rng.uniform(1200, 2000)))
    t, first = timed(lambda: start(t, 0.0))
    spent = [first]
    while not t.finished:
        for m in open_matches(t):
            assert m.a is not None and m.b is not None
            t = record_result(t, m.id, rng.choice((m.a, m.b)), 7, rng.randint(0, 6))
        t, took = timed(lambda t=t: advance(t, 0.0))
        if not t.finished:
            spent.append(took)
    ms = ", ".join(f"{s * 1000:.0f}" for s in spent)
    print(f"swiss pairing of {players} players, {len(spent)} rounds: {ms} ms (max {max(spent) * 1000:.0f} ms)")


def swiss_check(count: int, seed: int) -> None:
    """The suite's Swiss property over ``count`` random tournaments (sizes 4 to 64, both bye rules)."""
    from engine.tournament import ByeRule
    from tests.engine.test_tournament_swiss import swiss_run

    rng = random.Random(seed)
    rounds = 0
    began = time.perf_counter()
    for k in range(count):
        n = rng.randint(4, 64)
        rounds += swiss_run(n, rng.randrange(2**32), rng.choice(list(ByeRule)), drop=k % 3 == 0)
    took = time.perf_counter() - began
    print(f"swiss check: {count} tournaments, {rounds} rounds optimal on the priorities ({took:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=64)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--format", choices=[*SPECS, "all"], default="all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--swiss-players", type=int, default=256)
    parser.add_argument("--swiss-check", type=int, default=0, metavar="N", help="check N random Swiss tournaments")
    args = parser.parse_args()
    if args.swiss_check:
        swiss_check(args.swiss_check, args.seed)
        return
    for kind in SPECS if args.format == "all" else [args.format]:
        run(kind, args.tournaments, args.players, args.seed)
    pairing_time(args.swiss_players, 10, args.seed)


if __name__ == "__main__":
    main()
