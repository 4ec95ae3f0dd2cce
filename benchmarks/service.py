"""Game actions per second through the service: parse -> engine -> store -> render, on SQLite or PostgreSQL.

    python benchmarks/service.py [--games 1000] [--actions 3000] [--live 10000] [--no-render] [--db URL]
    python benchmarks/service.py --postgres [URL] --processes 1,2 [--games 1000,10000] [--no-render]

* Throughput and latency: ``--games`` matches run at once (one asyncio task each); every action is a real
  service call (roll, typed move, cube answers) stored with its compare-and-swap, followed by rendering the
  board for the next player, as a transport would. Prints actions/s and p50/p99 latency per action.
* Memory: ``--live`` games are held by one service (their states cached, as for games in progress);
  prints the resident memory per live game.
* ``--postgres``: a fresh schema on the PostgreSQL server (default: $GAMMONBOT_TEST_POSTGRES_URL); for each
  process count, that many worker processes share the games and the total throughput is printed.
Targets (issue 6): >= 200 actions/s on one core including rendering; 10,000 live games under 1 GiB.
Targets (issue 10): 2 processes >= 1.4x the throughput of 1 on PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
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


async def one_action(svc: GameService, game_id: int, rng: random.Random, render: bool) -> bool:
    """Whoever must act in the game acts (a random legal play, takes, accepts), then the board is drawn
    for the next player as a transport would; False when another request got there first."""
    view = await svc.view(game_id)
    who = view.to_act or view.acting[0]  # type: ignore[index]
    actor = PlayerRef(who, view.name(who))
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
            await svc.board(game_id, out.game.to_act or who)
    except Refused:
        return False
    return True


async def throughput(url: str, n_games: int, n_actions: int, render: bool) -> None:
    store = await Store.open(url)  # the default durability (SQLite synchronous=FULL)
    svc = GameService(store, dice=SeededDice(1))
    t0 = time.perf_counter()
    games = await create_games(svc, n_games, "t")
    print(f"created {n_games} matches in {time.perf_counter() - t0:.1f} s")
    latencies: list[float] = []
    done = 0
    rng = random.Random(5)

    async def play(game_id: int) -> None:
        nonlocal done
        while done < n_actions:
            start = time.perf_counter()
            if await one_action(svc, game_id, rng, render):
                latencies.append(time.perf_counter() - start)
                done += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(play(g[0]) for g in games))
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


async def worker(url: str, first: int, last: int, n_actions: int, render: bool) -> None:
    """One worker process: plays games first..last until it has made n_actions; prints its count and time."""
    store = await Store.open(url)
    svc = GameService(store, dice=SeededDice(first))
    rng = random.Random(first)
    done = 0
    start = time.perf_counter()
    latencies: list[float] = []

    async def play(game_id: int) -> None:
        nonlocal done
        while done < n_actions:
            t0 = time.perf_counter()
            if await one_action(svc, game_id, rng, render):
                latencies.append(time.perf_counter() - t0)
                done += 1

    await asyncio.gather(*(play(g) for g in range(first, last + 1)))
    elapsed = time.perf_counter() - start
    latencies.sort()
    print(f"{done} {elapsed} {statistics.median(latencies)} {latencies[int(len(latencies) * 0.99) - 1]}", flush=True)
    await store.close()


async def _setup_games(url: str, n_games: int) -> None:
    store = await Store.open(url)
    await create_games(GameService(store, dice=SeededDice(0)), n_games, "p")
    await store.close()


def postgres(base: str, process_counts: list[int], game_counts: list[int], n_actions: int, render: bool) -> None:
    import subprocess
    import uuid

    import asyncpg

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(base.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    for n_games in game_counts:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        asyncio.run(admin(f"CREATE SCHEMA {schema}"))
        url = f"{base}?schema={schema}"
        try:
            t0 = time.perf_counter()
            asyncio.run(_setup_games(url, n_games))
            print(f"PostgreSQL: created {n_games} matches in {time.perf_counter() - t0:.1f} s")
            rates = {}
            for procs in process_counts:
                share = n_games // procs
                cmd = [sys.executable, __file__, "--worker", url, "--actions", str(n_actions // procs)]
                if not render:
                    cmd.append("--no-render")
                t0 = time.perf_counter()
                workers = [
                    subprocess.Popen(
                        [*cmd, "--range", f"{1 + k * share},{(k + 1) * share}"], stdout=subprocess.PIPE, text=True
                    )
                    for k in range(procs)
                ]
                results = [w.communicate()[0].split() for w in workers]
                wall = time.perf_counter() - t0
                total = sum(int(r[0]) for r in results)
                rate = sum(int(r[0]) / float(r[1]) for r in results)  # the workers run side by side
                p50 = statistics.median(float(r[2]) for r in results) * 1000
                p99 = max(float(r[3]) for r in results) * 1000
                rates[procs] = rate
                print(
                    f"  {procs} process(es), {n_games} games: {total} actions, {rate:,.0f} actions/s "
                    f"({wall:.1f} s wall with start-up), "
                    f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"
                )
            if 1 in rates and 2 in rates:
                print(f"  2 processes / 1 process = {rates[2] / rates[1]:.2f}x  (target >= 1.4x)")
        finally:
            asyncio.run(admin(f"DROP SCHEMA {schema} CASCADE"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="1000")
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--live", type=int, default=10000)
    parser.add_argument("--no-render", action="store_true")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--postgres", nargs="?", const=os.environ.get("GAMMONBOT_TEST_POSTGRES_URL", ""), default=None)
    parser.add_argument("--processes", default="1,2")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--range", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        first, last = (int(x) for x in args.range.split(","))
        asyncio.run(worker(args.worker, first, last, args.actions, not args.no_render))
        return
    if args.postgres is not None:
        if not args.postgres:
            sys.exit("give a PostgreSQL URL or set GAMMONBOT_TEST_POSTGRES_URL")
        counts = [int(x) for x in args.processes.split(",")]
        postgres(args.postgres, counts, [int(x) for x in args.games.split(",")], args.actions, not args.no_render)
        return
    args.games = int(args.games.split(",")[0])
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{tmp}/bench.sqlite3"
        asyncio.run(throughput(url, args.games, args.actions, not args.no_render))
        url = args.db or f"sqlite:///{tmp}/live.sqlite3"
        if args.live:
            asyncio.run(memory(url, args.live))


if __name__ == "__main__":
    main()
