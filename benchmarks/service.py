"""Game actions per second through the service: parse -> engine -> store -> render, on SQLite or PostgreSQL.

    python benchmarks/service.py [--games 1000] [--actions 12000] [--live 10000] [--no-render] [--db URL]
    python benchmarks/service.py --postgres [URL] --processes 1,2 [--games 1000,10000] [--actions 12000,10000]

* Throughput and latency: ``--games`` matches run at once (one asyncio task each); every action is a real
  service call (roll, typed move, cube answers) stored with its compare-and-swap, followed by rendering the
  board for the next player, as a transport would. After ``--warmup`` untimed actions, exactly ``--actions`` are
  timed; prints actions/s, CPU per action and p50/p99 latency per action. That latency is queueing: every match
  is a client sending its next action as soon as the last returns, so each waits behind the others' work; it is
  not one player's wait. One player's wait is printed after it (one game, one action at a time, nothing else
  running; under other users' load: benchmarks/stall.py).
* Board: the CPU (this thread) of drawing and encoding boards of the benchmark's games, with the text masks cached
  as the run left them and with them cleared before every board (``render.sprites.text_mask``, ``text_length``):
  names, pip counts and scores vary from game to game, so a busy bot draws much of its text afresh.
* Memory: ``--live`` games are held by one service (their states cached, as for games in progress), games 3
  actions old; then ``--live-long`` games with ``--long-actions`` logged actions (histories self-played and
  written as the service writes a change: benchmarks/stall.py); prints the memory per live game of each.
* ``--postgres``: a fresh schema on the PostgreSQL server (default: $GAMMONBOT_TEST_POSTGRES_URL); for each
  number of games and process count, that many worker processes share an identically made set of matches; they
  load them and warm up, start together, and the total throughput (all actions over the time from the first start
  to the last end) is printed with the CPU per action of the workers (X) and of the server (Y, when it is local).
  With 2 cores shared by the workers and the server, 1 worker is bound by X and 2 by X + Y on 2 cores, so 2 reach
  about 2X / (X + Y) times the throughput of 1; that prediction is printed too, since another load on the machine
  (its load average is printed) holds the measured ratio down.
* Requests the service refused (another request got there first) or that the database could not serve in time
  (``Unavailable``: a full pool, a statement timeout) are counted and printed, and retried; they are not actions.
  A worker that fails anyway is reported (with its error) and its run left out, instead of ending the benchmark.
Targets (issue 6): >= 200 actions/s on one core including rendering; 10,000 live games under 1 GiB.
Targets (issue 10): 2 processes >= 1.4x the throughput of 1 on PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.service import SYSTEM, GameService, Refused, Request, SeededDice  # noqa: E402
from bot.storage import Store, Unavailable  # noqa: E402

#: The server every benchmark match is played in.
GUILD = "bench"


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def create_games(
    svc: GameService, n: int, tag: str, *, concurrency: int = 32
) -> list[tuple[int, Request, Request]]:
    """n money matches, accepted and ready for the opening roll (made ``concurrency`` at a time)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(k: int) -> tuple[int, Request, Request]:
        a, b = Request(f"{tag}a{k}", f"A{k}", GUILD), Request(f"{tag}b{k}", f"B{k}", GUILD)
        async with gate:
            out = await svc.challenge(a, b, length=0)
            out = await svc.accept(out.game.id, b)
        return out.game.id, a, b

    return sorted(await asyncio.gather(*(one(k) for k in range(n))), key=lambda g: g[0])


@dataclass
class Tally:
    """Requests that did not act: refused by the service (another request got there first), or not served
    because the database did not answer in time (the store's ``Unavailable``, or a refusal made of one)."""

    refused: int = 0
    unavailable: int = 0

    def __str__(self) -> str:
        return f"{self.refused} refused, {self.unavailable} unavailable"


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was caused by, the store's :class:`Unavailable`."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, Unavailable):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


async def one_action(
    svc: GameService, game_id: int, rng: random.Random, render: bool, tally: Tally | None = None
) -> bool | None:
    """Whoever must act in the game acts (a random legal play, takes, accepts), then the board is drawn
    for the next player as a transport would; False when another request got there first or the database did
    not answer in time (counted in ``tally``), None when the game is over."""
    tally = tally or Tally()
    try:
        view = await svc.view(game_id, SYSTEM)
    except (Refused, Unavailable) as exc:
        if not database_unavailable(exc):
            raise
        tally.unavailable += 1
        return False
    if view.status != "active":
        return None
    who = view.to_act or view.acting[0]  # type: ignore[index]
    actor = Request(who, view.name(who), view.guild_id)
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
            await svc.board(game_id, actor, viewer=out.game.to_act or who)
    except (Refused, Unavailable) as exc:
        if database_unavailable(exc):
            tally.unavailable += 1
        else:
            tally.refused += 1
        return False
    return True


async def play_actions(
    svc: GameService,
    game_ids: list[int],
    n_actions: int,
    rng: random.Random,
    render: bool,
    tally: Tally | None = None,
) -> tuple[list[float], float, float]:
    """Exactly ``n_actions`` actions, every game its own task (all at once); (latencies, seconds, CPU seconds).

    A request refused or not served (counted in ``tally``) is retried; fewer actions are made only if the database
    keeps failing (more requests unavailable than actions asked for)."""
    tally = tally if tally is not None else Tally()
    latencies: list[float] = []
    started = 0

    async def play(game_id: int) -> None:
        nonlocal started
        while started < n_actions and tally.unavailable <= n_actions:
            started += 1  # this task's turn is booked, so the count comes out exact
            t0 = time.perf_counter()
            acted = await one_action(svc, game_id, rng, render, tally)
            if acted:
                latencies.append(time.perf_counter() - t0)
                continue
            started -= 1
            if acted is None:
                return  # the match is over: this task stops
            await asyncio.sleep(0)

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(play(g) for g in game_ids))
    return latencies, time.perf_counter() - wall, time.process_time() - cpu


def percentiles(latencies: list[float]) -> tuple[float, float]:
    """(p50, p99) in milliseconds."""
    ordered = sorted(latencies)
    return statistics.median(ordered) * 1000, ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000


async def throughput(url: str, n_games: int, n_actions: int, render: bool, warmup: int) -> None:
    store = await Store.open(url)  # the default durability (SQLite synchronous=FULL)
    svc = GameService(store, dice=SeededDice(1))
    t0 = time.perf_counter()
    games = await create_games(svc, n_games, "t")
    print(f"created {n_games} matches in {time.perf_counter() - t0:.1f} s")
    rng = random.Random(5)
    ids = [g[0] for g in games]
    await play_actions(svc, ids, warmup, rng, render)  # warm-up: connections, caches, statements
    tally = Tally()
    latencies, elapsed, cpu = await play_actions(svc, ids, n_actions, rng, render, tally)
    if not latencies:
        print(f"no action completed over {n_games} concurrent matches ({tally})")
        await store.close()
        return
    p50, p99 = percentiles(latencies)
    what = "with rendering" if render else "without rendering"
    print(
        f"{len(latencies)} actions over {n_games} concurrent matches {what} (after {warmup} warm-up actions): "
        f"{len(latencies) / elapsed:,.0f} actions/s, {cpu / len(latencies) * 1000:.2f} ms CPU per action, "
        f"queueing latency p50 {p50:.1f} ms, p99 {p99:.1f} ms (each action waits behind the other {n_games - 1} "
        f"simultaneous clients' work: not one player's wait); requests not acting: {tally}"
    )
    # One player's wait: one game, one action at a time, nothing else running (the other games stay held).
    alone: list[float] = []
    for _ in range(300):
        start = time.perf_counter()
        acted = await one_action(svc, ids[0], rng, render)
        if acted is None:
            break
        if acted:
            alone.append(time.perf_counter() - start)
    if alone:
        p50, p99 = percentiles(alone)
        print(
            f"one player's action latency, one at a time with nothing else running ({n_games} games held, "
            f"{what}): p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(alone)} actions"
        )
    if render:
        await board_cpu(svc, ids[:200])
    await store.close()


async def board_cpu(svc: GameService, game_ids: list[int]) -> None:
    """CPU of drawing and encoding one board (this thread), text masks as cached by the run and cleared each time."""
    from engine.match import board_snapshot
    from render import render_board, sprites

    cfg = svc.render_config
    snapshots = [board_snapshot(await svc.state(g, SYSTEM), 0) for g in game_ids]

    def draw(cold: bool) -> list[float]:
        spent = []
        for snap in snapshots:
            if cold:
                sprites.text_mask.cache_clear()
                sprites.text_length.cache_clear()
            start = time.thread_time()
            render_board(snap, cfg.theme(), compress_level=cfg.compress_level, palette_colors=cfg.palette_colors)
            spent.append(time.thread_time() - start)
        return spent

    warm, cold = draw(False), draw(True)
    print(
        f"a board ({len(snapshots)} of the benchmark's games, CPU of the drawing thread): text masks cached "
        f"median {statistics.median(warm) * 1000:.2f} ms; cleared before every board median "
        f"{statistics.median(cold) * 1000:.2f} ms, worst {max(cold) * 1000:.2f} ms"
    )


async def memory(url: str, n_live: int) -> None:
    store = await Store.open(url, sqlite_synchronous="OFF" if "sqlite" in url else "FULL")
    svc = GameService(store, dice=SeededDice(2), cache_size=n_live + 10)
    games = await create_games(svc, n_live, "m")
    # A few actions each, so every live game has a board, dice and a record.
    for game_id, a, b in games:
        people = {a.id: a, b.id: b}
        for _ in range(3):
            view = await svc.view(game_id, a)
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
        await fresh.view(game_id, SYSTEM)
    gc.collect()
    traced, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = rss_mb()
    per_game_kb = traced / 1024 / n_live
    print(
        f"{n_live} live games 3 actions old held in one service: {traced / 2**20:.1f} MB of Python objects "
        f"({per_game_kb:.1f} KB per game, {per_game_kb * 10000 / 1024:.0f} MB per 10,000); "
        f"resident memory grew {after - before:.0f} MB"
    )
    await store.close()


async def memory_long(url: str, n_live: int, n_actions: int) -> None:
    """Memory per live game for games with ``n_actions`` logged actions (the figure above is for new games)."""
    from stall import long_games  # benchmarks/stall.py: histories written as the service writes a change

    store = await Store.open(url, sqlite_synchronous="OFF" if "sqlite" in url else "FULL", acquire_timeout=60.0)
    games = await long_games(GameService(store, dice=SeededDice(2)), n_live, n_actions, "ml")
    await GameService(store).view(games[0].id, SYSTEM)  # warm-up: statements compiled, modules imported
    gc.collect()
    tracemalloc.start()
    fresh = GameService(store, cache_size=n_live + 10)
    for g in games:
        await fresh.view(g.id, SYSTEM)
    gc.collect()
    traced, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    mean = statistics.mean(g.actions for g in games)
    per_game_kb = traced / 1024 / n_live
    print(
        f"{n_live} live games with {mean:,.0f} logged actions held in one service: {traced / 2**20:.1f} MB of Python "
        f"objects ({per_game_kb:.1f} KB per game, {per_game_kb * 10000 / 1024:.0f} MB per 10,000)"
    )
    await store.close()


async def worker(url: str, first: int, last: int, n_actions: int, warmup: int, render: bool) -> None:
    """One worker process playing games first..last. Loads them and warms up, says READY, waits for GO on stdin,
    makes exactly n_actions actions, says DONE with its count, start and end (epoch seconds), CPU seconds, p50 and
    p99, and how many requests were refused and unavailable; then waits for a line on stdin before closing (so its
    server connections are still there to be measured). Says FAILED and why, on one line, if it fails instead.
    """
    try:
        await _worker(url, first, last, n_actions, warmup, render)
    except Exception as exc:
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"FAILED {reason}", flush=True)
        raise


async def _worker(url: str, first: int, last: int, n_actions: int, warmup: int, render: bool) -> None:
    pool = os.environ.get("BENCH_POOL_SIZE")
    store = await Store.open(url, pool_size=int(pool) if pool else None)
    if store.dialect == "postgresql":  # name this worker's server connections, so their CPU can be measured
        from sqlalchemy import event

        await store.engine.dispose()

        @event.listens_for(store.engine.sync_engine, "connect")
        def _name(dbapi_conn: Any, _record: object) -> None:
            dbapi_conn.run_async(
                lambda pg: pg.execute(f"SET application_name = '{APPLICATION}'")
            )  # outside a transaction

    ids = list(range(first, last + 1))
    svc = GameService(store, dice=SeededDice(first), cache_size=max(20000, 2 * len(ids)))
    gate = asyncio.Semaphore(32)

    async def load(game_id: int) -> None:
        async with gate:
            for _ in range(100):  # the database may be too busy to answer in time: try again
                try:
                    await svc.view(game_id, SYSTEM)
                    return
                except (Refused, Unavailable) as exc:
                    if not database_unavailable(exc):
                        raise
            await svc.view(game_id, SYSTEM)

    await asyncio.gather(*(load(g) for g in ids))  # games in progress are held in memory, as in the bot
    rng = random.Random(first)
    await play_actions(svc, ids, warmup, rng, render)
    print("READY", flush=True)
    sys.stdin.readline()
    start = time.time()
    tally = Tally()
    latencies, _elapsed, cpu = await play_actions(svc, ids, n_actions, rng, render, tally)
    end = time.time()
    p50, p99 = percentiles(latencies) if latencies else (0.0, 0.0)
    print(f"DONE {len(latencies)} {start} {end} {cpu} {p50} {p99} {tally.refused} {tally.unavailable}", flush=True)
    sys.stdin.readline()
    await store.close()


APPLICATION = "gammonbot-benchmark"


def process_cpu(pids: list[int]) -> dict[int, float]:
    """CPU seconds used so far by each of these processes of this machine (those it can see)."""
    seen = {}
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            seen[pid] = (int(parts[11]) + int(parts[12])) / tick  # utime, stime
        except (OSError, IndexError):
            continue
    return seen


async def _setup_games(url: str, n_games: int) -> None:
    store = await Store.open(url)
    await create_games(GameService(store, dice=SeededDice(0)), n_games, "p")
    await store.close()


def postgres(
    base: str, process_counts: list[int], game_counts: list[int], action_counts: list[int], warmup: int, render: bool
) -> None:
    """For each number of games: a fresh schema with a separate, identically made set of that many matches for each
    process count (so every run does the same work from the same start); the processes load and warm up, then
    start together; the rate is all their actions over the time from the first start to the last end."""
    import subprocess
    import uuid

    import asyncpg

    async def admin(*statements: str) -> None:
        conn = await asyncpg.connect(base.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            for sql in statements:  # one at a time: VACUUM refuses to run in a multi-statement string
                await conn.execute(sql)
        finally:
            await conn.close()

    async def admin_rows(sql: str) -> list[int]:
        conn = await asyncpg.connect(base.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            return [r[0] for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    for n_games, n_actions in zip(game_counts, action_counts):
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        asyncio.run(admin(f"CREATE SCHEMA {schema}"))
        url = f"{base}?schema={schema}"
        try:
            t0 = time.perf_counter()
            asyncio.run(_setup_games(url, n_games * len(process_counts)))
            per_match = n_actions / n_games
            reduced = f" (a reduced count, {per_match:.1g} per match, to stay within minutes)" if per_match < 2 else ""
            print(
                f"PostgreSQL, {n_games} concurrent matches, {n_actions} timed actions per run{reduced} "
                f"(+{warmup} warm-up per process); "
                f"created {n_games * len(process_counts)} matches in {time.perf_counter() - t0:.1f} s"
            )
            rates: dict[int, float] = {}
            cpu_per_action: dict[int, tuple[float, float | None]] = {}
            for run, procs in enumerate(process_counts):
                # Every run starts from tables as autovacuum keeps them on a live database: statistics (planned
                # without any, the timer replacement would scan every pending timer, as the freshly made tables
                # look empty to the planner) and no dead rows left by the previous run to work around or clean.
                asyncio.run(admin(f"SET search_path = {schema}", "VACUUM ANALYZE"))
                base_id = 1 + run * n_games
                cmd = [sys.executable, __file__, "--worker", url, "--warmup", str(warmup)]
                if not render:
                    cmd.append("--no-render")
                workers = []
                for k in range(procs):
                    first = base_id + k * n_games // procs
                    last = base_id + (k + 1) * n_games // procs - 1
                    share = n_actions // procs + (1 if k < n_actions % procs else 0)
                    workers.append(
                        subprocess.Popen(
                            [*cmd, "--range", f"{first},{last}", "--actions", str(share)],
                            stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE,
                            text=True,
                        )
                    )
                for w in workers:
                    assert w.stdout is not None and w.stdin is not None
                    line = w.stdout.readline().strip()
                    if line != "READY":
                        for other in workers:
                            other.kill()
                            other.wait()
                        raise SystemExit(f"a worker failed to start: {line or 'it ended without a word'!r}")
                backends = asyncio.run(
                    admin_rows(f"SELECT pid FROM pg_stat_activity WHERE application_name = '{APPLICATION}'")
                )
                cpu0 = process_cpu(backends)
                for w in workers:
                    w.stdin.write("GO\n")  # type: ignore[union-attr]
                    w.stdin.flush()  # type: ignore[union-attr]
                lines = [w.stdout.readline().strip() for w in workers]  # type: ignore[union-attr]
                cpu1 = process_cpu(backends)
                for w in workers:
                    with contextlib.suppress(BrokenPipeError, ValueError):
                        w.communicate("BYE\n")
                failed = [line or "FAILED it ended without a word" for line in lines if not line.startswith("DONE ")]
                if failed:
                    for line in failed:
                        print(f"  {procs} process(es), {n_games} games: a worker {line.removeprefix('FAILED ')}")
                    print(f"  {procs} process(es), {n_games} games: no figure (a worker failed)")
                    continue
                results = [line.split() for line in lines]
                total = sum(int(r[1]) for r in results)
                refused = sum(int(r[7]) for r in results)
                unavailable = sum(int(r[8]) for r in results)
                if total == 0:
                    print(
                        f"  {procs} process(es), {n_games} games: no action completed "
                        f"({refused} refused, {unavailable} unavailable)"
                    )
                    continue
                wall = max(float(r[3]) for r in results) - min(float(r[2]) for r in results)
                python_cpu = sum(float(r[4]) for r in results)
                p50 = statistics.median(float(r[5]) for r in results)
                p99 = max(float(r[6]) for r in results)
                rate = total / wall
                rates[procs] = rate
                server_cpu = sum(cpu1[p] - cpu0[p] for p in cpu1 if p in cpu0)
                cpu_per_action[procs] = (python_cpu / total, server_cpu / total if cpu1 else None)
                load = os.getloadavg()[0]
                server = f", PostgreSQL {server_cpu / total * 1000:.2f} ms ({len(cpu1)} connections)" if cpu1 else ""
                print(
                    f"  {procs} process(es), {n_games} games: {total} actions in {wall:.1f} s = {rate:,.0f} actions/s, "
                    f"queueing p50 {p50:.1f} ms, p99 {p99:.1f} ms; "
                    f"CPU per action: Python {python_cpu / total * 1000:.2f} ms"
                    f"{server}; load average {load:.1f}; requests not acting: {refused} refused, "
                    f"{unavailable} unavailable"
                )
            if 1 in rates and 2 in rates:
                print(f"  2 processes / 1 process = {rates[2] / rates[1]:.2f}x  (target >= 1.4x)")
                x, y = cpu_per_action[1]
                if y is not None:
                    print(
                        f"  predicted for 2 otherwise idle cores from the 1-process CPU: "
                        f"2X/(X+Y) = {2 * x / (x + y):.2f}x"
                    )
        finally:
            asyncio.run(admin(f"DROP SCHEMA {schema} CASCADE"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", help="concurrent matches (PostgreSQL: a list, default 1000,10000; else 1000)")
    parser.add_argument(
        "--actions", help="timed actions per run, one per --games entry (default: 12000; 10000 above 1,000 games)"
    )
    parser.add_argument("--warmup", type=int, default=300, help="untimed actions first (per process)")
    parser.add_argument("--live", type=int, default=10000)
    parser.add_argument("--live-long", type=int, default=500, help="live games with --long-actions logged actions")
    parser.add_argument("--long-actions", type=int, default=1000)
    parser.add_argument("--no-render", action="store_true")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--postgres", nargs="?", const=os.environ.get("GAMMONBOT_TEST_POSTGRES_URL", ""), default=None)
    parser.add_argument("--processes", default="1,2")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--range", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        first, last = (int(x) for x in args.range.split(","))
        asyncio.run(worker(args.worker, first, last, int(args.actions), args.warmup, not args.no_render))
        return
    game_counts = [int(x) for x in (args.games or ("1000,10000" if args.postgres is not None else "1000")).split(",")]
    if args.actions:
        given = [int(x) for x in args.actions.split(",")]
        action_counts = [given[min(k, len(given) - 1)] for k in range(len(game_counts))]
    else:
        action_counts = [12000 if n <= 1000 else 10000 for n in game_counts]
    if args.postgres is not None:
        if not args.postgres:
            sys.exit("give a PostgreSQL URL or set GAMMONBOT_TEST_POSTGRES_URL")
        counts = [int(x) for x in args.processes.split(",")]
        postgres(args.postgres, counts, game_counts, action_counts, args.warmup, not args.no_render)
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{tmp}/bench.sqlite3"
        asyncio.run(throughput(url, game_counts[0], action_counts[0], not args.no_render, args.warmup))
        url = args.db or f"sqlite:///{tmp}/live.sqlite3"
        if args.live:
            asyncio.run(memory(url, args.live))
        if args.live_long:
            asyncio.run(memory_long(args.db or f"sqlite:///{tmp}/long.sqlite3", args.live_long, args.long_actions))


if __name__ == "__main__":
    main()
