"""Bot players: strength (win rates with 95% confidence intervals) and thinking time, printed as figures.

    python benchmarks/players.py [--games N] [--samples N] [--skip-strength] [--skip-timing]

Strength: each line is a :func:`engine.selfplay.duel` of one-point matches (seats alternate, seeded dice):

* bgsage strong (1-ply) v random, standard backgammon: target at least 95% of 100 games;
* bgsage strong v heuristic, standard backgammon: a clear margin (the interval above 50%);
* heuristic v random in Longgammon and in Sprintgammon: target at least 80%.

Timing: medians over positions from real games (not the first call, which loads the networks):

* a 1-ply move choice (``choose_play`` of bgsage strong): target, with storing and rendering, under 250 ms;
* the cube decision before a roll (``should_double``), which the bot also makes each turn it may double;
* a hint (:func:`engine.analysis.hint`, the default analyst: bgsage in backgammon, heuristic in Longgammon):
  target under 1 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.analysis import hint  # noqa: E402
from engine.dice import RandomDice  # noqa: E402
from engine.match import MatchOptions, MatchState, Phase, apply, new_match  # noqa: E402
from engine.players import RandomBot, bot_action  # noqa: E402
from engine.plugins import find_player, get_variant  # noqa: E402
from engine.selfplay import DuelResult, default_sides, duel  # noqa: E402


def strength(variant_name: str, first: str, second: str, games: int, target: float | None) -> DuelResult | None:
    variant = get_variant(variant_name)
    a, b = find_player(first), find_player(second)
    for spec in (a, b):
        if spec.unavailable:
            print(f"{variant.display_name:12s} {first} v {second}: skipped, {spec.unavailable}", flush=True)
            return None
    started = time.perf_counter()
    result = duel(variant, MatchOptions(length=1), a, b, games, seed=2026)
    seconds = time.perf_counter() - started
    lo, hi = result.interval
    verdict = ""
    if target is not None:
        verdict = f"  target {target:.0%}: {'met' if result.share >= target else 'NOT met'}"
    elif lo > 0.5:
        verdict = "  clear margin (95% interval above 50%)"
    else:
        verdict = "  NO clear margin"
    print(
        f"{variant.display_name:12s} {first} v {second}: {result.wins[0]}-{result.wins[1]} of {result.matches} "
        f"one-point games = {result.share:.1%} (95% CI {lo:.1%} to {hi:.1%}), {seconds:.0f} s{verdict}",
        flush=True,
    )
    return result


def sample_states(variant_name: str, count: int, seed: int) -> list[MatchState]:
    """States on roll (phase MOVE with a choice, and phase ROLL) from random games."""
    variant = get_variant(variant_name)
    rng = random.Random(seed)
    moves: list[MatchState] = []
    rolls: list[MatchState] = []
    while len(moves) < count:
        state = new_match(variant, default_sides(variant), MatchOptions(length=7))
        dice = RandomDice(rng.randrange(1 << 30))
        bot = RandomBot(random.Random(rng.randrange(1 << 30)), double_rate=0.0)
        while not state.over and len(moves) < count:
            if state.phase is Phase.MOVE and len(state.legal_plays()) > 1 and rng.random() < 0.3:
                moves.append(state)
            if state.phase is Phase.ROLL and rng.random() < 0.3:
                rolls.append(state)
            side = state.turn if state.turn is not None else 0
            state = apply(state, bot_action(bot, state, side, dice))
    return moves + rolls[:count]


def median_ms(samples: list[float]) -> str:
    p90 = sorted(samples)[int(0.9 * len(samples))]
    return f"median {1000 * statistics.median(samples):6.1f} ms, p90 {1000 * p90:6.1f} ms"


def timing(samples: int) -> None:
    strong = find_player("strong")
    if strong.unavailable:
        print(f"timing skipped: {strong.unavailable}")
        return
    player = strong.create(1)
    states = sample_states("backgammon", samples, 11)
    moves = [s for s in states if s.phase is Phase.MOVE]
    rolls = [s for s in states if s.phase is Phase.ROLL]
    player.choose_play(moves[0])  # loads the network
    player.should_double(rolls[0])
    chose = []
    for s in moves:
        t = time.perf_counter()
        player.choose_play(s)
        chose.append(time.perf_counter() - t)
    ok = statistics.median(chose) < 0.25
    print(
        f"bgsage strong choose_play   ({len(chose)} positions): {median_ms(chose)}  target 250 ms: "
        f"{'met' if ok else 'NOT met'} (choose only)"
    )
    cube = []
    for s in rolls:
        t = time.perf_counter()
        player.should_double(s)
        cube.append(time.perf_counter() - t)
    print(f"bgsage strong should_double ({len(cube)} positions): {median_ms(cube)}")
    expert = find_player("expert").create(1)
    deep = []
    for s in moves[: max(10, len(moves) // 5)]:
        t = time.perf_counter()
        expert.choose_play(s)
        deep.append(time.perf_counter() - t)
    print(f"bgsage expert choose_play   ({len(deep)} positions): {median_ms(deep)}")
    hints = []
    fresh = [s for s in sample_states("backgammon", samples, 13) if s.phase is Phase.MOVE]  # nothing cached
    for s in fresh:
        t = time.perf_counter()
        hint(s)
        hints.append(time.perf_counter() - t)
    ok = statistics.median(hints) < 1.0
    print(
        f"hint, backgammon (bgsage)   ({len(hints)} positions): {median_ms(hints)}  target 1 s: "
        f"{'met' if ok else 'NOT met'}"
    )
    for name in ("longgammon", "sprintgammon"):
        lg = [s for s in sample_states(name, max(20, samples // 4), 12) if s.phase is Phase.MOVE]
        hints = []
        heuristic = find_player("heuristic").create(1)
        chose = []
        for s in lg:
            t = time.perf_counter()
            hint(s)
            hints.append(time.perf_counter() - t)
            t = time.perf_counter()
            heuristic.choose_play(s)
            chose.append(time.perf_counter() - t)
        print(
            f"hint, {name} (heuristic) ({len(hints)} positions): {median_ms(hints)}; heuristic choose_play "
            f"{median_ms(chose)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="one-point games per pairing (default 100)")
    parser.add_argument("--samples", type=int, default=200, help="positions per timing (default 200)")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args()
    if not args.skip_timing:
        timing(args.samples)
    if not args.skip_strength:
        strength("backgammon", "strong", "random", args.games, 0.95)
        strength("longgammon", "heuristic", "random", args.games, 0.80)
        strength("sprintgammon", "heuristic", "random", args.games, 0.80)
        strength("backgammon", "strong", "heuristic", args.games, None)


if __name__ == "__main__":
    main()
