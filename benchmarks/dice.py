"""Are the commit-reveal dice uniform? Chi-square tests over a million derived rolls (issue 12).

    python benchmarks/dice.py [--rolls 1000000] [--seed HEX] [--client TEXT]

Derives ``--rolls`` rolls of one match (engine.fairdice.derive_roll, roll numbers 0, 1, 2, ...) and prints:

* the count of each number against the expected third of the rolls, and the doublets against a sixth;
* the chi-square of the six face counts (5 degrees of freedom) and of the 36 ordered rolls (35), each
  with its p-value (computed here, no SciPy) and the tabulated 1% critical value (15.086 and 57.342);
* a control: the same HMAC bytes mapped with a plain modulo (``b % 6 + 1`` on the first two bytes, no
  rejection), which favours 1-4 (43 byte values each against 42). It should fail at this sample size,
  showing that the test can see a bias that small;
* the derivation speed.

Target: both tests of the real dice pass at the 1% level (p > 0.01). Exit status 0 when they do, 1 otherwise.
With a random seed (the default) a fair generator still fails one test in 50 runs or so; pass ``--seed``
to repeat a run exactly.
"""

from __future__ import annotations

import argparse
import hmac
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.fairdice import (  # noqa: E402
    _roll_message,
    chi_square_p_value,
    derive_roll,
    dice_stats,
    new_server_seed,
)

CRITICAL_1PC = {5: 15.086, 35: 57.342}  # upper 1% points of the chi-square distribution


def modulo_roll(seed: bytes, client: bytes, n: int) -> tuple[int, int]:
    """The biased mapping the scheme avoids: the first two HMAC bytes modulo 6."""
    block = hmac.digest(seed, _roll_message(client, n, 0), "sha256")
    return block[0] % 6 + 1, block[1] % 6 + 1


def report(title: str, rolls: list[tuple[int, int]]) -> bool:
    stats = dice_stats(rolls)
    print(f"{title}: {stats.rolls:,} rolls")
    faces = "  ".join(f"{k + 1}: {c:,} ({c - stats.expected_face:+,.0f})" for k, c in enumerate(stats.faces))
    print(f"  numbers (each expected {stats.expected_face:,.1f}): {faces}")
    dev = stats.doublets - stats.expected_doublets
    print(f"  doublets: {stats.doublets:,} (expected {stats.expected_doublets:,.1f}, {dev:+,.1f})")
    ok = True
    for label, chi, df in (
        ("faces", stats.face_chi_square, 5),
        ("ordered rolls", stats.pair_chi_square, 35),
    ):
        p = chi_square_p_value(chi, df)
        passed = chi < CRITICAL_1PC[df]
        ok &= passed
        verdict = "passes" if passed else "FAILS"
        print(
            f"  chi-square of the {label}: {chi:.3f} with {df} df, p = {p:.4f} "
            f"(1% critical value {CRITICAL_1PC[df]}): {verdict} at the 1% level"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=1_000_000)
    parser.add_argument("--seed", help="server seed as 64 hex digits (default: a fresh random seed)")
    parser.add_argument("--client", default="benchmark client value", help="the players' client value")
    args = parser.parse_args()
    seed = bytes.fromhex(args.seed) if args.seed else new_server_seed()
    print(f"server seed {seed.hex()}, client value {args.client!r}")

    start = time.perf_counter()
    rolls = [derive_roll(seed, args.client, n) for n in range(args.rolls)]
    elapsed = time.perf_counter() - start
    ok = report("derived dice (rejection sampling)", rolls)
    print(f"  derivation: {elapsed:.2f} s, {elapsed / args.rolls * 1e6:.2f} µs per roll")

    client = args.client.encode("utf-8")
    control_ok = report(
        "control: plain modulo, no rejection", [modulo_roll(seed, client, n) for n in range(args.rolls)]
    )
    print(f"control {'passes (too few rolls to see a 2% bias)' if control_ok else 'fails, as it should'}")
    print(f"RESULT: derived dice {'PASS' if ok else 'FAIL'} the chi-square tests at the 1% level")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
