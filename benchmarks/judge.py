"""CPU time to judge one typed play, for adversarial inputs up to 6,000 characters and for ordinary plays.

    python benchmarks/judge.py [--positions N] [--quick] [--each] [--no-gc] [--kinds a,b,...] [--variants a,b,...]

Discord lets a string option carry 6,000 characters, so any text up to that length may reach
``Variant.check_play``. For every registered rule set this judges, in a few positions (the start and
positions reached by seeded random play) and for every roll:

* adversarial texts of many kinds (the issue's ``8/7*(4)`` repeat, repeated hops, long chains, digits,
  ``*``, ``(n)``, ``/``, unicode, whitespace, a legal play repeated or padded), each at 6,000 characters,
  just over, at and just under the length bound, and at 60;
* ordinary plays: the canonical and the ``.mat`` notation of the legal plays.

The legal plays are generated beforehand and handed in, as the match state does (it caches them per
roll), so only the judging is timed. Each judgment is timed alone by the CPU time of this process
(``time.process_time``); the worst and the median are printed per rule set, and with ``--each`` every
adversarial judgment. ``--quick`` judges only the 6,000-character texts at the start with 1-1 and 6-5 (for
measuring an implementation that takes seconds per text). A pause of the cyclic garbage collector lands on
whichever call allocates at the time and can add a few milliseconds to one judgment; ``--no-gc`` shows
the judging alone.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import random
import statistics
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import IllegalPlay, Position, format_plain  # noqa: E402
from engine.movegen import PlaySet  # noqa: E402
from engine.plugins import get_variant, registry  # noqa: E402
from engine.variant import Variant  # noqa: E402

DISCORD_MAX = 6000
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def fill(unit: str, length: int = DISCORD_MAX) -> str:
    """``unit`` repeated to exactly ``length`` characters."""
    return (unit * (length // len(unit) + 1))[:length]


def adversarial_units(first_legal: str) -> dict[str, str]:
    """Repeated units of each adversarial kind (a kind's text is its unit repeated to the wanted length)."""
    chain = "/".join(str(p) for p in range(24, 0, -1)) + "/off "
    return {
        "repro 8/7*(4)": "8/7*(4) ",
        "hops 24/23": "24/23 ",
        "hits 8/7*": "8/7* ",
        "chain 24/../off": chain,
        "bar chain": "bar/24*/23*/22*/21*/20* ",
        "repeat 6/off(4)": "6/off(4) ",
        "digits": "8",
        "digits+spaces": "13 8 6 ",
        "stars": "*",
        "parens (4)": "(4)",
        "slashes": "/",
        "slash digits": "8/",
        "unicode digits": "\u0668/\u0667 ",
        "fullwidth": "\uff18\uff0f\uff17 ",
        "emoji": "\U0001f3b2",
        "whitespace": " \t\u3000\n",
        "separators": ",;",
        "legal repeated": (first_legal or "24/23") + " ",
        "mixed garbage": "8/7*(4)//**((bar/off 13/x 7/13 30/20 ",
    }


def adversarial_texts(first_legal: str, quick: bool) -> list[tuple[str, str]]:
    texts: list[tuple[str, str]] = []
    lengths = (DISCORD_MAX,) if quick else (DISCORD_MAX, 201, 200, 199, 60)
    for kind, unit in adversarial_units(first_legal).items():
        for n in lengths:
            texts.append((f"{kind} [{n}]", fill(unit, n)))
    texts.append(("legal padded [6000]", (first_legal or "24/23").ljust(DISCORD_MAX)))
    if not quick:
        texts.append(("legal padded [200]", (first_legal or "24/23").ljust(200)))
    return texts


def positions(variant: Variant, count: int, seed: int) -> list[tuple[Position, bool]]:
    """The start (as a first move) and positions reached by seeded random play."""
    rng = random.Random(seed)
    found = [(variant.start_position(), True)]
    while len(found) < count:
        pos = variant.start_position()
        for _ in range(rng.randint(1, 60)):
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            nxt = rng.choice(variant.legal_plays(pos, roll).plays).position
            if nxt.off[0] == variant.checkers:
                break
            pos = variant.flip(nxt)
        found.append((pos, False))
    return found


def timed(variant: Variant, pos: Position, roll: tuple[int, int], text: str, first: bool, plays: PlaySet) -> float:
    """CPU seconds one judgment takes."""
    start = time.process_time()
    with contextlib.suppress(IllegalPlay):
        variant.check_play(pos, roll, text, first, plays)
    return time.process_time() - start


def bench(name: str, n_positions: int, quick: bool, each: bool, kinds: set[str] | None) -> None:
    variant = get_variant(name)
    rolls = [(1, 1), (6, 5)] if quick else ROLLS
    spots = positions(variant, 1 if quick else n_positions, seed=zlib.crc32(name.encode()))
    adversarial: list[tuple[float, str]] = []
    ordinary: list[tuple[float, str]] = []
    for pos, first in spots:
        for roll in rolls:
            plays = variant.legal_plays(pos, roll, first)
            first_legal = plays[0].notation
            for kind, text in adversarial_texts(first_legal, quick):
                if kinds is not None and kind.split(" [")[0] not in kinds:
                    continue
                seconds = timed(variant, pos, roll, text, first, plays)
                adversarial.append((seconds, f"{kind} with {roll[0]}-{roll[1]}"))
                if each:
                    print(f"{name:14s} {seconds * 1000:10.3f} ms  {kind} with {roll[0]}-{roll[1]}", flush=True)
            if quick:
                continue
            for play in plays.plays[:40]:
                for text in (play.notation, format_plain(play.moves)):
                    seconds = timed(variant, pos, roll, text, first, plays)
                    ordinary.append((seconds, f"{text!r} with {roll[0]}-{roll[1]}"))
    for label, rows in (("adversarial", adversarial), ("ordinary", ordinary)):
        if not rows:
            continue
        worst, what = max(rows)
        median = statistics.median(t for t, _ in rows)
        print(
            f"{name:14s} {label:11s} {len(rows):6d} judgments  worst {worst * 1000:9.3f} ms  "
            f"median {median * 1000:7.3f} ms  (worst: {what[:60]})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=4, help="positions per rule set (the start included)")
    parser.add_argument("--quick", action="store_true", help="the start, 1-1 and 6-5, 6,000-character texts only")
    parser.add_argument("--each", action="store_true", help="print every adversarial judgment's time")
    parser.add_argument(
        "--no-gc", action="store_true", help="switch the cyclic garbage collector off (its pauses land on any call)"
    )
    parser.add_argument("--kinds", default=None, help="comma-separated adversarial kinds to run (default all)")
    parser.add_argument("--variants", default=None, help="comma-separated rule sets (default every registered one)")
    args = parser.parse_args()
    if args.no_gc:
        gc.disable()
    kinds = set(args.kinds.split(",")) if args.kinds else None
    names = args.variants.split(",") if args.variants else registry().names()
    for name in names:
        bench(name, args.positions, args.quick, args.each, kinds)


if __name__ == "__main__":
    main()
