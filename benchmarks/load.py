"""Loading a game: replaying its whole record against reading its stored state.

    python benchmarks/load.py [--sizes 100,1000,10000] [--variants backgammon,longgammon] [--repeats N]

For each rule set a long money session is self-played (random legal plays, doubles, beavers, resignations;
:class:`engine.selfplay.RandomPlayer`) until its record holds the largest size; each size is a prefix of that
record. For each size it prints the CPU time (``time.process_time``, median of the repeats) of

* ``replay``: :func:`engine.match.replay` of the record (what loading cost before: O(history));
* ``load``: ``json.loads`` of the stored state text plus :func:`engine.record.state_from_data` (O(1) in the
  history; it grows only with the list of finished games);
* ``store``: :func:`engine.record.state_to_data` plus ``json.dumps`` (paid on every change);

and the size of the stored state in bytes (``json.dumps`` with compact separators, and with the defaults).
The record's decode from JSON is not counted in ``replay``, so the comparison favours replaying.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.dice import RandomDice  # noqa: E402
from engine.match import Action, MatchOptions, MatchSetup, MatchState, apply, new_match, replay  # noqa: E402
from engine.plugins import get_variant  # noqa: E402
from engine.record import state_from_data, state_to_data  # noqa: E402
from engine.selfplay import RandomPlayer, default_sides  # noqa: E402

COMPACT = (",", ":")


def session(variant_name: str, length: int, seed: int) -> tuple[MatchSetup, list[Action]]:
    """A money session (unlimited games, beavers on) self-played until its record holds ``length`` actions."""
    variant = get_variant(variant_name)
    state = new_match(variant, default_sides(variant), MatchOptions(beavers=True, auto_doubles=1))
    dice = RandomDice(seed)
    player = RandomPlayer(random.Random(seed))
    actions: list[Action] = []
    while len(actions) < length:
        action = player.choose(state, dice)
        state = apply(state, action)
        actions.append(action)
    return state.setup, actions


def cpu_median(work: Callable[[], object], repeats: int, inner: int = 1) -> float:
    """Median CPU seconds of one call of ``work`` (each sample times ``inner`` calls)."""
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(inner):
            work()
        samples.append((time.process_time() - start) / inner)
    return statistics.median(samples)


def inner_for(seconds: float) -> int:
    """How many calls make a sample of about 20 ms (process_time ticks coarsely on some systems)."""
    return max(1, int(0.02 / max(seconds, 1e-7)))


def bench(variant_name: str, sizes: list[int], repeats: int, seed: int) -> None:
    setup, record = session(variant_name, max(sizes), seed)
    print(f"{variant_name}: money session, {max(sizes):,} actions self-played (seed {seed})")
    head = ("actions", "games", "replay ms", "µs/action", "load µs", "store µs", "bytes")
    print("  " + " ".join(f"{h:>{w}}" for h, w in zip(head, (8, 6, 10, 10, 9, 9, 7))))
    for n in sizes:
        actions = record[:n]
        state = replay(setup, actions)
        data = state_to_data(state)
        text = json.dumps(data, separators=COMPACT)
        assert state_from_data(setup, json.loads(text)) == state

        def run_replay(a: list[Action] = actions) -> MatchState:
            return replay(setup, a)

        def load(t: str = text) -> MatchState:
            return state_from_data(setup, json.loads(t))

        def store(s: MatchState = state) -> str:
            return json.dumps(state_to_data(s), separators=COMPACT)

        t_replay = cpu_median(run_replay, repeats)

        t_load = cpu_median(load, repeats, inner_for(cpu_median(load, 3)))
        t_store = cpu_median(store, repeats, inner_for(cpu_median(store, 3)))
        size = len(text.encode())
        print(
            f"  {n:>8,} {len(state.results) + (0 if state.over else 1):>6} {t_replay * 1e3:>10.1f} "
            f"{t_replay / n * 1e6:>10.1f} {t_load * 1e6:>9.1f} {t_store * 1e6:>9.1f} {size:>7,}"
            f"  (default separators: {len(json.dumps(data).encode()):,} bytes)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000", help="record lengths (comma-separated)")
    parser.add_argument("--variants", default="backgammon,longgammon", help="rule sets (comma-separated)")
    parser.add_argument("--repeats", type=int, default=7, help="samples per figure (the median is printed)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(","))
    for name in args.variants.split(","):
        bench(name.strip(), sizes, args.repeats, args.seed)


if __name__ == "__main__":
    main()
