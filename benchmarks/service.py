"""Game actions per second through the service: parse -> engine -> store -> render, on SQLite or PostgreSQL.

    python benchmarks/service.py [--games 1000] [--actions 12000] [--live 10000] [--no-render] [--db URL]
    python benchmarks/service.py --postgres [URL] --processes 1,2 [--games 1000,10000] [--actions 12000,10000]
    python benchmarks/service.py --postgres [URL] --processes 1,2 --games 1000 --actions 4000 --same-games \
        [--acquire-timeout 30,2]

* Throughput and latency: ``--games`` matches run at once (one asyncio task each); every action is a real
  service call (roll, typed move, cube answers) stored with its compare-and-swap, followed by rendering the
  board for the next player, as a transport would. After ``--warmup`` untimed actions, exactly ``--actions`` are
  timed; prints actions/s, CPU per action and p50/p99 latency per action. That latency is queueing: every match
  is a client sending its next action as soon as the last returns, so each waits behind the others' work; it is
  not one player's wait. One player's wait is printed after it (one game, one action at a time, nothing else
  running; under other users' load: benchmarks/stall.py).
* Board: the CPU (this thread) of drawing and encoding boards of the benchmark's games, with the text masks cached
  as the run left them and with them cleared before every board (``render.sprites.text_mask``, the measured widths
  ``render.fonts.text_width``):
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
* The workers open the store as the bot does, with ``[storage]``'s defaults (bot.config ``StorageSettings``: a
  request waits its turn for a connection up to ``acquire_timeout``, 30 s; a statement runs up to 2 s) and the
  service with ``[limits]``'s (``max_waiting_requests``, 2,000 players' requests under way per process: one more is
  refused at once). ``--acquire-timeout 30,2`` runs every process count once per acquire timeout, side by side (2 s
  was the default before requests waited their turn).
* ``--same-games``: every process acts on the same matches at once (one task per match in each process: with 2
  processes, 2 clients per match racing), each request a real service call as above. A process holds the games it
  loaded, so it learns of another process's change only when its own compare-and-swap fails (the service then judges
  the request again on the game as it is now): the request is served on the newer game, or refused because the
  other process got there first ("it is not your turn", "you have already rolled", ...). Those refusals are counted
  as conflicts, by reason, and the player looks at the game again and acts.
* Requests that did not act are counted and printed, and retried at once; they are not actions: conflicts (refused
  by the service: another request got there first), "the database is not answering" (``Unavailable``: a connection
  not free within the acquire timeout, a statement timeout) and "the bot is very busy" (``max_waiting_requests``);
  for each run the two overload refusals are set against the actions served. A worker gives up only after ten
  times as many overload refusals as its actions; a worker that fails anyway is reported (with its error) and its
  run left out, instead of ending the benchmark.
* Every PostgreSQL run ends with a check of every game it played, after all workers stopped: its stored record
  (``Store.load_game_and_actions``) must replay to its stored state (the service's own check, ``_check_record``, as
  when a match ends), be numbered 1..n without a gap, hold the dice this seed throws at each roll's place
  (``SeededDice``: a roll judged on a stale game would carry another number's dice), and the game's version must have
  advanced by exactly the served actions: each version written by exactly one served request of one process (none
  served twice, none stored for a request answered "try again", none answered served but not stored).
Targets (issue 6): >= 200 actions/s on one core including rendering; 10,000 live games under 1 GiB.
Targets (issue 10): 2 processes >= 1.4x the throughput of 1 on PostgreSQL.
Target (overload): fewer refusals ("the database is not answering", "the bot is very busy") than actions served at
1,000 clients on PostgreSQL (``--games 1000``; with ``--same-games`` each process runs 1,000 clients).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import random
import re
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.config import LimitSettings, StorageSettings  # noqa: E402
from bot.service import SYSTEM, GameService, Refused, Request, SeededDice  # noqa: E402
from bot.storage import Scope, Store, Unavailable  # noqa: E402

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
    """Requests that did not act, and what the served ones wrote.

    ``refused``: refused by the service because another request got there first (a conflict: the game moved on, so
    "it is not your turn", "you have already rolled"...), by reason in ``reasons``; ``unavailable``: "the database is
    not answering" (the store's ``Unavailable``, or a refusal made of one); ``busy``: "the bot is very busy"
    (``[limits] max_waiting_requests`` under way). ``newer``: actions served that the service judged on a newer game
    than the one the player was shown (its compare-and-swap failed and the request was judged again), by kind.
    ``board_failed``: boards not drawn after a served action (the action stands). ``versions``: per game, the
    version each served action wrote."""

    refused: int = 0
    unavailable: int = 0
    busy: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    newer: Counter[str] = field(default_factory=Counter)
    board_failed: int = 0
    versions: dict[int, list[int]] = field(default_factory=dict)
    causes: Counter[str] = field(default_factory=Counter)  # "the database is not answering", by what the store met
    overloaded_at: list[float] = field(default_factory=list)  # when each overload refusal came (perf_counter)

    @property
    def overload(self) -> int:
        """Refusals for want of capacity: the database not answering in time, the bot too busy."""
        return self.unavailable + self.busy

    def __str__(self) -> str:
        return f"{self.refused} refused (conflicts), {self.unavailable} unavailable, {self.busy} busy"


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


def unavailable_cause(exc: BaseException) -> str:
    """What the store met when it raised ``Unavailable``: a full pool past the acquire timeout, a statement past the
    statement timeout, the driver giving up on an answer or a connection, or something else (named)."""
    import sqlalchemy as sa

    seen: BaseException | None = exc
    names = []
    for _ in range(20):
        if seen is None:
            break
        if isinstance(seen, sa.exc.TimeoutError):
            return "no connection free within the acquire timeout"
        if type(seen).__name__ == "QueryCanceledError":
            return "a statement past the statement timeout"
        if isinstance(seen, TimeoutError):
            return "the driver gave up waiting (an answer, or a new connection)"
        if not isinstance(seen, (Unavailable, Refused)):
            names.append(type(seen).__name__)
        seen = seen.__cause__ or seen.__context__
    return " <- ".join(names) or "no cause given"


def bot_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is the service's "the bot is very busy" refusal (``[limits] max_waiting_requests``)."""
    return isinstance(exc, Refused) and "very busy" in str(exc)


def reason_of(exc: BaseException) -> str:
    """A refusal's reason with the game, the players and the play left out (so that like reasons count together)."""
    text = re.sub(r"#\d+", "#N", str(exc))
    text = re.sub(r"\b[AB]\d+\b", "<player>", text)
    text = re.sub(r"`[^`]*`", "`…`", text)
    return re.sub(r"\d+", "N", text)


def count_refusal(tally: Tally, exc: BaseException) -> None:
    if database_unavailable(exc):
        tally.unavailable += 1
        tally.causes[unavailable_cause(exc)] += 1
        tally.overloaded_at.append(time.perf_counter())
    elif bot_busy(exc):
        tally.busy += 1
        tally.overloaded_at.append(time.perf_counter())
    else:
        tally.refused += 1
        tally.reasons[reason_of(exc)] += 1


async def one_action(
    svc: GameService, game_id: int, rng: random.Random, render: bool, tally: Tally | None = None
) -> bool | None:
    """Whoever must act in the game, as this process sees it, acts (a random legal play, takes, accepts), then the
    board is drawn for the next player as a transport would; False when another request got there first or the
    database did not answer in time or the bot was too busy (counted in ``tally``), None when the game is over."""
    tally = tally if tally is not None else Tally()
    try:
        view = await svc.view(game_id, SYSTEM)
    except (Refused, Unavailable) as exc:
        if not database_unavailable(exc):
            raise
        count_refusal(tally, exc)
        return False
    if view.status != "active":
        return None
    who = view.to_act or view.acting[0]  # type: ignore[index]
    actor = Request(who, view.name(who), view.guild_id)
    try:
        if view.phase in ("opening", "roll"):
            kind = "roll"
            out = await svc.roll(game_id, actor)
        elif view.phase == "move":
            kind = "move"
            out = await svc.move(game_id, actor, rng.choice(view.plays))
        elif view.phase == "doubled":
            kind = "take"
            out = await svc.take(game_id, actor)
        else:
            kind = "accept"
            out = await svc.answer_resignation(game_id, actor, True)
    except (Refused, Unavailable) as exc:
        count_refusal(tally, exc)
        return False
    tally.versions.setdefault(game_id, []).append(out.game.version)
    if out.game.version != view.version + 1:  # judged again on a game another process had changed
        tally.newer[kind] += 1
    if render and out.game.status == "active":
        try:
            await svc.board(game_id, actor, viewer=out.game.to_act or who)
        except (Refused, Unavailable) as exc:
            if not database_unavailable(exc) and not bot_busy(exc):
                raise
            tally.board_failed += 1
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

    A request refused or not served (counted in ``tally``) is retried at once; fewer actions are made only if the
    database keeps failing (ten times as many overload refusals as actions asked for)."""
    tally = tally if tally is not None else Tally()
    latencies: list[float] = []
    started = 0
    give_up = 10 * max(n_actions, 100)

    async def play(game_id: int) -> None:
        nonlocal started
        while started < n_actions and tally.overload <= give_up:
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
    from engine.snapshot import board_snapshot
    from render import fonts, render_board, sprites

    cfg = svc.render_config
    snapshots = [board_snapshot(await svc.state(g, SYSTEM), 0) for g in game_ids]
    # The text caches: the masks, and the widths measured (sprites.text_length is cached when it is its own cache,
    # else through fonts.text_width).
    caches = [f for f in (sprites.text_mask, sprites.text_length, fonts.text_width) if hasattr(f, "cache_clear")]

    def draw(cold: bool) -> list[float]:
        spent = []
        for snap in snapshots:
            if cold:
                for cached in caches:
                    cached.cache_clear()
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


@dataclass(frozen=True)
class WorkerPlan:
    """What one worker process plays: games ``first``..``last`` (every worker the same ones with --same-games),
    ``index`` (its place among the run's workers: its random plays), the dice seed of its service, the acquire
    timeout its store waits for a connection (None: ``[storage]``'s default), and where it writes what it served."""

    first: int
    last: int
    index: int = 0
    seed: int = 0
    acquire_timeout: float | None = None
    report: str | None = None


async def worker(url: str, plan: WorkerPlan, n_actions: int, warmup: int, render: bool) -> None:
    """One worker process playing games first..last. Loads them and warms up, says READY, waits for GO on stdin,
    makes exactly n_actions actions, writes the versions its served actions wrote (warm-up included) to the plan's
    report file, says DONE and, as JSON on the same line, its count, start and end (epoch seconds), CPU seconds,
    p50 and p99, and the requests that did not act (see :class:`Tally`); then waits for a line on stdin before
    closing (so its server connections are still there to be measured). Says FAILED and why, on one line, if it
    fails instead.
    """
    try:
        await _worker(url, plan, n_actions, warmup, render)
    except Exception as exc:
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"FAILED {reason}", flush=True)
        raise


def open_like_the_bot(url: str, acquire_timeout: float | None = None) -> Any:
    """``Store.open`` as the bot calls it (bot/discord/app.py) with ``[storage]``'s defaults: the pool size (or
    $BENCH_POOL_SIZE), the acquire timeout (or ``acquire_timeout``) and the statement timeout."""
    storage = StorageSettings()
    pool = os.environ.get("BENCH_POOL_SIZE")
    return Store.open(
        url,
        sqlite_synchronous=storage.sqlite_synchronous,
        pool_size=int(pool) if pool else storage.pool_size,
        settings_ttl=storage.settings_ttl,
        acquire_timeout=storage.acquire_timeout if acquire_timeout is None else acquire_timeout,
        statement_timeout=storage.statement_timeout,
    )


class LogTally(logging.Handler):
    """What the bot's code logged at WARNING and above, counted by level, logger and message template (a worker
    under load would otherwise print a line per refusal)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        self.seen[f"{record.levelname} {record.name}: {record.msg}"] += 1


async def _worker(url: str, plan: WorkerPlan, n_actions: int, warmup: int, render: bool) -> None:
    logged = LogTally()
    logging.getLogger().addHandler(logged)
    store = await open_like_the_bot(url, plan.acquire_timeout)
    if store.dialect == "postgresql":  # name this worker's server connections, so their CPU can be measured
        from sqlalchemy import event

        await store.engine.dispose()

        @event.listens_for(store.engine.sync_engine, "connect")
        def _name(dbapi_conn: Any, _record: object) -> None:
            dbapi_conn.run_async(
                lambda pg: pg.execute(f"SET application_name = '{APPLICATION}'")
            )  # outside a transaction

    ids = list(range(plan.first, plan.last + 1))
    # [limits] as the bot has them by default (service_for passes the configuration's).
    svc = GameService(store, dice=SeededDice(plan.seed), cache_size=max(20000, 2 * len(ids)), limits=LimitSettings())
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
    rng = random.Random(plan.first if plan.index == 0 else f"{plan.first}:{plan.index}")
    warm = Tally()
    await play_actions(svc, ids, warmup, rng, render, warm)
    print("READY", flush=True)
    sys.stdin.readline()
    start, started = time.time(), time.perf_counter()
    tally = Tally()
    latencies, elapsed, cpu = await play_actions(svc, ids, n_actions, rng, render, tally)
    end = time.time()
    tenths = [0] * 10  # overload refusals by tenth of the run
    for at in tally.overloaded_at:
        tenths[min(9, int((at - started) / max(elapsed, 1e-9) * 10))] += 1
    p50, p99 = percentiles(latencies) if latencies else (0.0, 0.0)
    if plan.report:
        versions = {g: warm.versions.get(g, []) + tally.versions.get(g, []) for g in ids}
        Path(plan.report).write_text(json.dumps({"seed": plan.seed, "versions": versions}))
    done = {
        "actions": len(latencies),
        "start": start,
        "end": end,
        "cpu": cpu,
        "p50": p50,
        "p99": p99,
        "max": max(latencies, default=0.0) * 1000,
        "refused": tally.refused,
        "unavailable": tally.unavailable,
        "busy": tally.busy,
        "reasons": dict(tally.reasons),
        "newer": dict(tally.newer),
        "board_failed": tally.board_failed,
        "logged": dict(logged.seen),
        "causes": dict(tally.causes),
        "tenths": tenths,
        "gave_up": len(latencies) < n_actions,
    }
    print(f"DONE {json.dumps(done)}", flush=True)
    sys.stdin.readline()
    await svc.close()
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


async def _versions(url: str, first: int, last: int) -> dict[int, tuple[int, int]]:
    """The stored version and record length of games first..last."""
    import sqlalchemy as sa

    store = await Store.open(url)
    try:
        rows = await store.load_games(list(range(first, last + 1)), scope=Scope.system())
        query = sa.text("SELECT game_id, count(*) FROM actions WHERE game_id BETWEEN :first AND :last GROUP BY game_id")

        async def counts(conn: Any) -> list[Any]:
            return list((await conn.execute(query, {"first": first, "last": last})).all())

        logged = {game_id: n for game_id, n in await store.run(counts)}
        return {r.id: (r.version, int(logged.get(r.id, 0))) for r in rows}
    finally:
        await store.close()


@dataclass
class GameCheck:
    """What the check of a run's games found (see :func:`check_games`); every count but ``games`` and ``actions``
    should be 0."""

    games: int = 0
    actions: int = 0  # actions logged during the run (warm-up included), over all its games
    not_replaying: int = 0  # games whose record does not replay to their stored state
    counted_wrong: int = 0  # games whose stored action count is not their record's length
    gaps: int = 0  # games whose record is not numbered 1..n
    dice_wrong: int = 0  # rolls whose dice are not the seed's for their place in the record
    served_twice: int = 0  # versions two served requests both wrote
    stored_unserved: int = 0  # versions written for a request answered "try again" (or never answered)
    served_unstored: int = 0  # versions a request was answered with that the game never reached
    failures: list[str] = field(default_factory=list)

    @property
    def corrupted(self) -> int:
        return (
            self.not_replaying
            + self.counted_wrong
            + self.gaps
            + self.dice_wrong
            + self.served_twice
            + self.served_unstored
        )

    def __str__(self) -> str:
        head = (
            f"{self.games} games checked ({self.actions} actions logged during the run): "
            f"{self.not_replaying} records not replaying to the stored state, {self.counted_wrong} action counts "
            f"off, {self.gaps} records with gaps, {self.dice_wrong} rolls with other dice than their place's, "
            f"{self.served_twice} versions served twice, {self.served_unstored} served but not stored, "
            f"{self.stored_unserved} stored for a request answered 'try again'"
        )
        return head + "".join(f"; {f}" for f in self.failures[:3])


async def check_games(
    url: str, start: dict[int, tuple[int, int]], served: dict[int, list[int]], seeds: dict[int, int]
) -> GameCheck:
    """Each game's stored record replayed against its stored state by the service's own check (what it does when a
    match ends), its numbering and dice checked, and its versions since ``start`` matched against those its served
    actions wrote (``served``, from every process)."""
    from engine import match as m
    from engine.record import action_from_data

    store = await Store.open(url, acquire_timeout=60.0)
    svc = GameService(store, cache_size=0)
    out = GameCheck()
    try:
        for game_id, (v0, logged) in sorted(start.items()):
            out.games += 1
            row, actions = await store.load_game_and_actions(game_id, scope=Scope.system())
            state = await svc.state(game_id, SYSTEM)  # the state stored with the last change (no replay)
            if not await svc._check_record(game_id, state):
                out.not_replaying += 1
                out.failures.append(f"game #{game_id}: its record does not replay to its stored state")
            loaded = svc._cache.get(game_id) or await svc._load(game_id, SYSTEM)
            if loaded.n_actions != len(actions):
                out.counted_wrong += 1
                out.failures.append(f"game #{game_id}: {loaded.n_actions} actions counted, {len(actions)} logged")
            if [a.seq for a in actions] != list(range(1, len(actions) + 1)):
                out.gaps += 1
                out.failures.append(f"game #{game_id}: its record is not numbered 1..{len(actions)}")
            dice = SeededDice(seeds[game_id])
            for a in actions:
                act = action_from_data(a.action)
                if isinstance(act, (m.Roll, m.OpeningRoll)) and tuple(act.dice) != dice.roll(game_id, a.seq - 1):
                    out.dice_wrong += 1
                    out.failures.append(f"game #{game_id}: roll {a.seq} has dice another place would have")
            claimed = Counter(served.get(game_id, []))
            made = set(range(v0 + 1, row.version + 1))
            out.served_twice += sum(n - 1 for n in claimed.values() if n > 1)
            out.stored_unserved += len(made - set(claimed))
            out.served_unstored += len(set(claimed) - made)
            if any(n > 1 for n in claimed.values()) or set(claimed) - made:
                out.failures.append(
                    f"game #{game_id}: versions {v0 + 1}..{row.version}, served {sorted(claimed.elements())}"
                )
            out.actions += len(actions) - logged
    finally:
        await svc.close()
        await store.close()
    return out


def overload_line(label: str, served: int, unavailable: int, busy: int) -> str:
    """Refusals for want of capacity set against the actions served."""
    refusals = unavailable + busy
    verdict = "fewer than" if refusals < served else ("as many as" if refusals == served else "MORE than")
    return (
        f"{label}: {refusals} refusals ({unavailable} 'the database is not answering', {busy} 'the bot is very busy') "
        f"against {served} actions served: {verdict} the actions served"
    )


def postgres(
    base: str,
    process_counts: list[int],
    game_counts: list[int],
    action_counts: list[int],
    warmup: int,
    render: bool,
    *,
    same_games: bool = False,
    acquire_timeouts: list[float | None] | None = None,
) -> None:
    """For each number of games: a fresh schema with a separate, identically made set of that many matches for each
    run (a process count, and an acquire timeout), so every run does the same work from the same start; the
    processes load and warm up, then start together; the rate is all their actions over the time from the first
    start to the last end. Without ``same_games`` each process plays its own share of the run's matches; with it,
    every process plays all of them. Every run ends with :func:`check_games` on its matches."""
    import subprocess
    import uuid

    import asyncpg

    timeouts = acquire_timeouts or [None]
    default_acquire = StorageSettings().acquire_timeout
    max_waiting = LimitSettings().max_waiting_requests

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

    runs = [(procs, acquire) for procs in process_counts for acquire in timeouts]
    for n_games, n_actions in zip(game_counts, action_counts):
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        asyncio.run(admin(f"CREATE SCHEMA {schema}"))
        url = f"{base}?schema={schema}"
        try:
            t0 = time.perf_counter()
            asyncio.run(_setup_games(url, n_games * len(runs)))
            per_match = n_actions / n_games
            reduced = f" (a reduced count, {per_match:.1g} per match, to stay within minutes)" if per_match < 2 else ""
            how = (
                "every process acting on all of them at once (the same games)"
                if same_games
                else "each process its own share of them"
            )
            print(
                f"PostgreSQL, {n_games} concurrent matches, {how}; {n_actions} timed actions per run{reduced} "
                f"(+{warmup} warm-up per process); "
                f"created {n_games * len(runs)} matches in {time.perf_counter() - t0:.1f} s; "
                f"[storage] acquire_timeout {default_acquire:g} s unless said, [limits] max_waiting_requests "
                f"{max_waiting} per process"
            )
            rates: dict[tuple[int, float | None], float] = {}
            cpu_per_action: dict[tuple[int, float | None], tuple[float, float | None]] = {}
            for run, (procs, acquire) in enumerate(runs):
                # Every run starts from tables as autovacuum keeps them on a live database: statistics (planned
                # without any, the timer replacement would scan every pending timer, as the freshly made tables
                # look empty to the planner) and no dead rows left by the previous run to work around or clean.
                asyncio.run(admin(f"SET search_path = {schema}", "VACUUM ANALYZE"))
                base_id = 1 + run * n_games
                ids = (base_id, base_id + n_games - 1)
                start_versions = asyncio.run(_versions(url, *ids))
                cmd = [sys.executable, __file__, "--worker", url, "--warmup", str(warmup)]
                if not render:
                    cmd.append("--no-render")
                if acquire is not None:
                    cmd += ["--acquire-timeout", f"{acquire:g}"]
                clients = n_games * procs if same_games else n_games
                label = (
                    f"{procs} process(es), {n_games} games, {clients} clients, "
                    f"acquire_timeout {default_acquire if acquire is None else acquire:g} s"
                )
                reports = tempfile.TemporaryDirectory()
                workers = []
                for k in range(procs):
                    if same_games:
                        first, last = ids
                    else:
                        first = base_id + k * n_games // procs
                        last = base_id + (k + 1) * n_games // procs - 1
                    share = n_actions // procs + (1 if k < n_actions % procs else 0)
                    plan = [
                        "--range",
                        f"{first},{last}",
                        "--index",
                        str(k),
                        "--seed",
                        str(first),
                        "--report",
                        f"{reports.name}/{k}.json",
                    ]
                    workers.append(
                        subprocess.Popen(
                            [*cmd, *plan, "--actions", str(share)],
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
                        print(f"  {label}: a worker {line.removeprefix('FAILED ')}")
                    print(f"  {label}: no figure (a worker failed)")
                    reports.cleanup()
                    continue
                results = [json.loads(line.removeprefix("DONE ")) for line in lines]
                total = sum(r["actions"] for r in results)
                refused = sum(r["refused"] for r in results)
                unavailable = sum(r["unavailable"] for r in results)
                busy = sum(r["busy"] for r in results)
                for k, r in enumerate(results):
                    print(f"    process {k + 1}: {process_line(r)}")
                if total == 0:
                    print(
                        f"  {label}: no action completed ({refused} conflicts, {unavailable} unavailable, {busy} busy)"
                    )
                    reports.cleanup()
                    continue
                wall = max(r["end"] for r in results) - min(r["start"] for r in results)
                python_cpu = sum(r["cpu"] for r in results)
                p50 = statistics.median(r["p50"] for r in results)
                p99 = max(r["p99"] for r in results)
                longest = max(r["max"] for r in results)
                rate = total / wall
                rates[procs, acquire] = rate
                server_cpu = sum(cpu1[p] - cpu0[p] for p in cpu1 if p in cpu0)
                cpu_per_action[procs, acquire] = (python_cpu / total, server_cpu / total if cpu1 else None)
                load = os.getloadavg()[0]
                server = f", PostgreSQL {server_cpu / total * 1000:.2f} ms ({len(cpu1)} connections)" if cpu1 else ""
                reasons: Counter[str] = Counter()
                for r in results:
                    reasons.update(r["reasons"])
                print(
                    f"  {label}: {total} actions in {wall:.1f} s = {rate:,.0f} actions/s, "
                    f"queueing p50 {p50:.1f} ms, p99 {p99:.1f} ms, longest {longest / 1000:.1f} s; "
                    f"CPU per action: Python {python_cpu / total * 1000:.2f} ms"
                    f"{server}; load average {load:.1f}; requests not acting: {refused} conflicts, "
                    f"{unavailable} unavailable, {busy} busy"
                )
                stopped = " (run cut short: a worker stopped early)" if any(r["gave_up"] for r in results) else ""
                print("    " + overload_line(f"overload at {clients} clients{stopped}", total, unavailable, busy))
                served: dict[int, list[int]] = {}
                seeds: dict[int, int] = {}
                for k in range(procs):
                    report = json.loads(Path(f"{reports.name}/{k}.json").read_text())
                    for g, versions in report["versions"].items():
                        served.setdefault(int(g), []).extend(versions)
                        seeds[int(g)] = report["seed"]
                reports.cleanup()
                checked = asyncio.run(check_games(url, start_versions, served, seeds))
                verdict = "no game corrupted" if checked.corrupted == 0 else f"{checked.corrupted} FAULTS"
                print(f"    check ({verdict}): {checked}")
            for acquire in timeouts:
                one, two = rates.get((1, acquire)), rates.get((2, acquire))
                if one and two:
                    what = f" (acquire_timeout {acquire:g} s)" if acquire is not None else ""
                    target = (
                        " (the same games: each process also spends work on conflicts)"
                        if same_games
                        else "  (target >= 1.4x)"
                    )
                    print(f"  2 processes / 1 process = {two / one:.2f}x{what}{target}")
                    x, y = cpu_per_action[1, acquire]
                    if y is not None:
                        print(
                            f"  predicted for 2 otherwise idle cores from the 1-process CPU: "
                            f"2X/(X+Y) = {2 * x / (x + y):.2f}x"
                        )
        finally:
            asyncio.run(admin(f"DROP SCHEMA {schema} CASCADE"))


def process_line(r: dict[str, Any]) -> str:
    """One worker's figures: actions served, conflicts by reason, refusals by reason."""
    reasons = sorted(r["reasons"].items(), key=lambda kv: -kv[1])
    shown = "; ".join(f"{n} '{why}'" for why, n in reasons[:6])
    rest = sum(n for _why, n in reasons[6:])
    if rest:
        shown += f"; {rest} other"
    newer = sum(r["newer"].values())
    newer_kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(r["newer"].items()))
    logged = "; ".join(f"{n} x {what!r}" for what, n in sorted(r["logged"].items(), key=lambda kv: -kv[1]))
    causes = ", ".join(f"{n} {why}" for why, n in sorted(r["causes"].items(), key=lambda kv: -kv[1]))
    when = f" (by tenth of the run: {r['tenths']})" if r["unavailable"] + r["busy"] else ""
    return (
        f"{r['actions']} actions served ({newer} of them judged on a newer game than shown"
        f"{': ' + newer_kinds if newer else ''}); {r['refused']} conflicts ({shown or 'none'}); "
        f"refusals: {r['unavailable']} 'the database is not answering'{' (' + causes + ')' if causes else ''}, "
        f"{r['busy']} 'the bot is very busy'{when}; "
        f"p50 {r['p50']:.0f} ms, p99 {r['p99']:.0f} ms, longest {r['max'] / 1000:.1f} s"
        + (f"; {r['board_failed']} boards not drawn after a served action" if r["board_failed"] else "")
        + ("; STOPPED EARLY (ten times as many overload refusals as its actions)" if r["gave_up"] else "")
        + (f"; logged (warm-up included): {logged}" if logged else "")
    )


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
    parser.add_argument(
        "--same-games",
        action="store_true",
        help="PostgreSQL: every process acts on the same matches at once (else each on its own share)",
    )
    parser.add_argument(
        "--acquire-timeout",
        help=f"PostgreSQL: [storage] acquire_timeout of the workers, seconds; a list runs each (default: "
        f"{StorageSettings().acquire_timeout:g}, the configuration's default)",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--range", help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--report", help=argparse.SUPPRESS)
    args = parser.parse_args()
    acquire_timeouts: list[float | None] = (
        [float(x) for x in args.acquire_timeout.split(",")] if args.acquire_timeout else [None]
    )
    if args.worker:
        first, last = (int(x) for x in args.range.split(","))
        plan = WorkerPlan(
            first,
            last,
            index=args.index,
            seed=first if args.seed is None else args.seed,
            acquire_timeout=acquire_timeouts[0],
            report=args.report,
        )
        asyncio.run(worker(args.worker, plan, int(args.actions), args.warmup, not args.no_render))
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
        postgres(
            args.postgres,
            counts,
            game_counts,
            action_counts,
            args.warmup,
            not args.no_render,
            same_games=args.same_games,
            acquire_timeouts=acquire_timeouts,
        )
        return
    if args.same_games or args.acquire_timeout:
        sys.exit("--same-games and --acquire-timeout are options of --postgres")
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
