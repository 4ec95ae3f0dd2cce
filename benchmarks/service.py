"""Game actions per second through the service: parse -> engine -> store -> render, on SQLite.

    python benchmarks/service.py [--games 1000] [--actions 3000] [--live 10000] [--no-render] [--db URL]

* Throughput and latency: ``--games`` matches run at once (one asyncio task each); every action is a real
  service call (roll, typed move, cube answers) stored with its compare-and-swap, followed by rendering the
  board for the next player, as a transport would. Prints actions/s and p50/p99 latency per action.
* Memory: ``--live`` games are held by one service (their states cached, as for games in progress);
  prints the resident memory per live game.
Targets (issue 6): >= 200 actions/s on one core including rendering; 10,000 live games under 1 GiB.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.service import GameService, PlayerRef, Refused, SeededDice  # noqa: E402
from bot.storage import Store  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def create_games(svc: GameService, n: int, tag: str) -> list[tuple[int, PlayerRef, PlayerRef]]:
    games = []
    for k in range(n):
        a, b = PlayerRef(f"{tag}a{k}", f"A{k}"), PlayerRef(f"{tag}b{k}", f"B{k}")
        out = await svc.challenge("bench", a, b, length=0)
        out = await svc.accept(out.game.id, b)
        games.append((out.game.id, a, b))
    return games


async def throughput(url: str, n_games: int, n_actions: int, render: bool) -> None:
    store = await Store.open(url)  # the default durability (SQLite synchronous=FULL)
    svc = GameService(store, dice=SeededDice(1))
    t0 = time.perf_counter()
    games = await create_games(svc, n_games, "t")
    print(f"created {n_games} matches in {time.perf_counter() - t0:.1f} s")
    latencies: list[float] = []
    done = 0
    rng = random.Random(5)

    async def play(game_id: int, a: PlayerRef, b: PlayerRef) -> None:
        nonlocal done
        people = {a.id: a, b.id: b}
        while done < n_actions:
            view = await svc.view(game_id)
            actor = people[view.to_act or view.acting[0]]  # type: ignore[index]
            start = time.perf_counter()
            try:
                if view.phase in ("opening", "roll"):
                    out = await svc.roll(game_id, actor)
                elif view.phase == "move":
                    out = await svc.move(game_id, actor, rng.choice(view.plays))
                elif view.phase == "doubled":
                    out = await svc.take(game_id, actor)
                else:
                    out = await svc.answer_resignation(game_id, actor, True)
                if render and out.game.status == "active":
                    await svc.board(game_id, out.game.to_act or a.id)
            except Refused:
                continue
            latencies.append(time.perf_counter() - start)
            done += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(play(*g) for g in games))
    elapsed = time.perf_counter() - t0
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    what = "with rendering" if render else "without rendering"
    print(
        f"{len(latencies)} actions over {n_games} concurrent matches {what}: "
        f"{len(latencies) / elapsed:,.0f} actions/s, "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (latency includes waiting for the other {n_games - 1} matches' work)"
    )
    await store.close()


async def memory(url: str, n_live: int) -> None:
    store = await Store.open(url, sqlite_synchronous="OFF" if "sqlite" in url else "FULL")
    svc = GameService(store, dice=SeededDice(2), cache_size=n_live + 10)
    games = await create_games(svc, n_live, "m")
    # A few actions each, so every live game has a board, dice and a record.
    for game_id, a, b in games:
        people = {a.id: a, b.id: b}
        for _ in range(3):
            view = await svc.view(game_id)
            actor = people[view.to_act or view.acting[0]]  # type: ignore[index]
            if view.phase == "move":
                await svc.move(game_id, actor, view.plays[0])
            else:
                await svc.roll(game_id, actor)
    svc._cache.clear()
    gc.collect()
    before = rss_mb()
    tracemalloc.start()
    fresh = GameService(store, cache_size=n_live + 10)
    for game_id, _, _ in games:
        await fresh.view(game_id)
    gc.collect()
    traced, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = rss_mb()
    per_game_kb = traced / 1024 / n_live
    print(
        f"{n_live} live games held in one service: {traced / 2**20:.1f} MB of Python objects "
        f"({per_game_kb:.1f} KB per game, {per_game_kb * 10000 / 1024:.0f} MB per 10,000); "
        f"resident memory grew {after - before:.0f} MB"
    )
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--live", type=int, default=10000)
    parser.add_argument("--no-render", action="store_true")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{tmp}/bench.sqlite3"
        asyncio.run(throughput(url, args.games, args.actions, not args.no_render))
        url = args.db or f"sqlite:///{tmp}/live.sqlite3"
        if args.live:
            asyncio.run(memory(url, args.live))


if __name__ == "__main__":
    main()
