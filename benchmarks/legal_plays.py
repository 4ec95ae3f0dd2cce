"""Legal-play generations per second over each oracle file (cold, one pass, one core).

    python benchmarks/legal_plays.py [ORACLE_DIR] [--passes N] [--generate N]

Without the oracle (a clone on its own has no ``../shared/oracle``), or with ``--generate N``, each rule set is
timed on N positions of its own, taken from seeded random games (every position met on the way, each with a fresh
roll): the same work, other rows, so the figures are close to the oracle's, not equal.

Each row's position and dice are decoded first; the timed loop only generates the plays. Every
generation builds the full list of plays (submoves and resulting Position objects). Nothing is cached
between rows, so each pass is cold; the pass is repeated N times (default 5) and the best and median
passes are printed, since other work on a shared machine only ever slows a pass down.

A pass is timed by the CPU time this process spends (``time.process_time``), which is what one core's
rate means: on a shared machine other processes take the core away for a while, and the wall-clock time
then counts their work too. The wall-clock rate of the best pass is printed beside it (``--wall`` judges
the targets by it instead).

Rule sets that share another's rows are timed on them too (Portes on the backgammon rows), and the new rule sets of
the backgammon family (Portes, Plakoto, Fevga, Acey-deucey: its rows, 1-2 bonus rows included) are compared with
Longgammon's rate, which each must reach.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Position  # noqa: E402
from engine.plugins import UnknownVariant, get_variant  # noqa: E402

TARGETS = {"backgammon": 20_000, "longgammon": 9_000, "sprintgammon": 100_000}
#: Rule sets timed on another rule set's rows (they have exactly its legal plays).
BORROWED = {"portes": "backgammon"}
#: Rule sets whose rate must reach Longgammon's.
AT_LEAST_LONGGAMMON = ("portes", "plakoto", "fevga", "aceydeucey")


def generated(name: str, n: int, seed: int = 1) -> list[dict[str, object]]:
    """``n`` rows of rule set ``name`` in the oracle's form: the positions of seeded random games, each with a
    fresh roll (a game that ends starts again)."""
    variant = get_variant(name)
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    pos, first = variant.start_position(), True
    while len(rows) < n:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if first:
            while dice[0] == dice[1]:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
        rows.append({"variant": name, "position": pos.to_frame(), "dice": list(dice), "first_move": first})
        plays = variant.legal_plays(pos, dice, first)
        after = rng.choice(plays.plays).position if len(plays) else pos
        if variant.game_over(after) is not None:
            pos, first = variant.start_position(), True
        else:
            pos, first = variant.flip(after), False
    return rows


def bench(
    path: Path, passes: int, by_wall: bool = False, as_variant: str | None = None, generate: int = 0
) -> float | None:
    """Time the rows of one file (as another rule set's when ``as_variant``; ``generate``: that many rows of the
    rule set named by the file's stem, made by :func:`generated`); the best rate, or None if skipped."""
    label = as_variant or path.stem
    if generate:
        try:
            rows = generated(label, generate)
        except UnknownVariant as exc:
            print(f"{label:14s} skipped: {exc}", flush=True)
            return None
    else:
        rows = [json.loads(line) for line in path.open() if line.strip()]
    if as_variant is not None:
        rows = [{**r, "variant": as_variant} for r in rows]
    try:
        variants = {name: get_variant(name) for name in {r["variant"] for r in rows}}
    except UnknownVariant as exc:
        print(f"{label:14s} skipped: {exc}", flush=True)
        return None
    work = [
        (variants[r["variant"]], Position.from_frame(r["position"]), tuple(r["dice"]), r.get("first_move", False))
        for r in rows
    ]
    cpu_times = []
    wall_times = []
    n_plays = 0
    for _ in range(passes):
        n_plays = 0
        start_cpu = time.process_time()
        start_wall = time.perf_counter()
        for variant, pos, dice, first in work:
            n_plays += len(variant.legal_plays(pos, dice, first))
        wall_times.append(time.perf_counter() - start_wall)
        cpu_times.append(time.process_time() - start_cpu)
    times = wall_times if by_wall else cpu_times
    best = min(times)
    median = statistics.median(times)
    rate = len(work) / best
    other = len(work) / min(cpu_times if by_wall else wall_times)
    target = None if as_variant else TARGETS.get(label)
    verdict = "" if target is None else f"  target {target:,}/s: {'met' if rate >= target else 'NOT met'}"
    if as_variant and not generate:
        verdict = f"  ({path.stem} rows)"
    elif generate:
        verdict += "  (generated rows)"
    print(
        f"{label:14s} {len(work):5d} rows {n_plays:6d} plays  best pass {best * 1000:7.1f} ms "
        f"{'wall' if by_wall else 'CPU '} = {rate:8,.0f} generations/s  (median {len(work) / median:8,.0f}/s, "
        f"{'CPU' if by_wall else 'wall'} {other:8,.0f}/s){verdict}",
        flush=True,
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("oracle", nargs="?", type=Path, default=ROOT.parent / "shared" / "oracle")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--wall", action="store_true", help="judge the targets by wall-clock time, not CPU time")
    parser.add_argument("--generate", type=int, default=0, metavar="N", help="time N generated positions per rule set")
    args = parser.parse_args()
    files = sorted(args.oracle.glob("*.jsonl"))
    generate = args.generate
    if not files and not generate:
        generate = 2000
        print(f"no oracle files in {args.oracle}: timing {generate} positions of seeded random games per rule set")
    rates: dict[str, float | None] = {}
    if generate:
        for name in dict.fromkeys((*TARGETS, *BORROWED, *AT_LEAST_LONGGAMMON)):
            rates[name] = bench(Path(name), args.passes, args.wall, generate=generate)
    else:
        for path in files:
            rates[path.stem] = bench(path, args.passes, args.wall)
        for name, rows_of in BORROWED.items():
            if (args.oracle / f"{rows_of}.jsonl").exists():
                rates[name] = bench(args.oracle / f"{rows_of}.jsonl", args.passes, args.wall, as_variant=name)
    floor = rates.get("longgammon")
    if floor:
        for name in AT_LEAST_LONGGAMMON:
            rate = rates.get(name)
            if rate is not None:
                verdict = "met" if rate >= floor else "NOT met"
                print(f"{name:14s} {rate:8,.0f}/s against Longgammon's {floor:8,.0f}/s: {verdict}", flush=True)


if __name__ == "__main__":
    main()
