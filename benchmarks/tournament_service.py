"""Tournaments through the game service: many tournaments of many players in one process, on a real database.

    python benchmarks/tournament_service.py [--tournaments 64] [--players 64] [--rounds 2] [--concurrency 64]
                                            [--url sqlite:///… | postgresql://…]

Each tournament is a Swiss (1-point Sprintgammon matches); its players sign up and it starts (the first round's
games are created in the same write). Then, round by round, every game of every tournament is given up (a
forfeit), up to ``--concurrency`` at once across all tournaments, as players would: each game's end records
its result in its tournament (a compare-and-swap on the tournament's row; under load, mostly time queued for the
database and for the tournament), and the game that completes a round (here given up alone, one tournament after
another) advances it: the next round's pairings and its games, in one write. Printed: what each costs, and the
longest the event loop waited (a ticker's lag, which counts the worker threads' share of the GIL and a busy
machine too) and the CPU time of its longest callback: the figures that say nothing blocks it. A round's pairing
runs on the event loop (bounded: see benchmarks/tournament.py); pictures are drawn in worker threads.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.runtime import tune_for_serving  # noqa: E402
from bot.service import SYSTEM, GameService, Request, SeededDice  # noqa: E402
from bot.service.tour_parts import TourNews  # noqa: E402
from bot.storage import Store  # noqa: E402
from engine.tournament import open_matches  # noqa: E402


class Callbacks:
    """The CPU time of the longest single callback the event loop ran (what holds it: wall-clock lag also counts
    the worker threads' share of the GIL and of the machine), and which one it was."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.which = ""
        self._original = asyncio.events.Handle._run

    def start(self) -> None:
        loop_thread = threading.current_thread()
        original = self._original
        meter = self

        def timed(handle: asyncio.Handle) -> None:
            if threading.current_thread() is not loop_thread:
                original(handle)
                return
            start = time.thread_time()
            try:
                original(handle)
            finally:
                spent = time.thread_time() - start
                if spent > meter.worst:
                    meter.worst, meter.which = spent, repr(handle)[:160]

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]

    def stop(self) -> None:
        asyncio.events.Handle._run = self._original  # type: ignore[method-assign]


class Lag:
    """A ticker on the event loop: the longest it waited past its period."""

    def __init__(self, period: float = 0.005) -> None:
        self.period = period
        self.worst = 0.0

    async def run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.period)
            self.worst = max(self.worst, time.perf_counter() - start - self.period)


def ms(values: list[float]) -> str:
    values = sorted(v * 1000 for v in values)
    return f"median {statistics.median(values):7.1f} ms, max {values[-1]:7.1f} ms ({len(values)} samples)"


async def main(url: str, tournaments: int, players: int, rounds: int, concurrency: int) -> None:
    schema = None
    if url.startswith("postgres"):  # a schema of its own, dropped at the end
        import asyncpg

        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin_conn = await asyncpg.connect(url)
        await admin_conn.execute(f"CREATE SCHEMA {schema}")
    try:
        await measure(url, schema, tournaments, players, rounds, concurrency)
    finally:
        if schema is not None:
            await admin_conn.execute(f"DROP SCHEMA {schema} CASCADE")
            await admin_conn.close()


async def measure(url: str, schema: str | None, tournaments: int, players: int, rounds: int, concurrency: int) -> None:
    store = await Store.open(
        url, schema=schema, sqlite_synchronous="NORMAL", acquire_timeout=60.0, statement_timeout=60.0
    )
    svc = GameService(store, dice=SeededDice(1))
    admin = Request("admin", "Admin", "bench", admin=True)
    advances: list[float] = []
    results: list[float] = []

    async def heard(news: TourNews) -> None:  # a transport's listener (here: nothing to show)
        return None

    svc.on_tournament(heard)
    # Warm up (the first game imports and builds what every later one reuses), then measure.
    warm = (await svc.tour_create(admin, "Warm-up", "knockout", variant="sprintgammon", length=1)).view.id
    for i in range(2):
        await svc.tour_join(Request(f"w{i}", f"W{i}", "bench"), warm)
    (first,) = (await svc.tour_start(admin, warm)).started
    await svc.forfeit(first, Request("w1", "W1", "bench"))
    tune_for_serving()  # as `gammonbot run` does once started (bot/runtime.py): the collector's passes stay short
    lag = Lag()
    ticker = asyncio.create_task(lag.run())
    callbacks = Callbacks()
    callbacks.start()
    try:
        ids = []
        wall = time.perf_counter()
        for k in range(tournaments):
            news = await svc.tour_create(admin, f"Swiss {k + 1}", "swiss", variant="sprintgammon", length=1,
                                         rounds=rounds + 1)  # fmt: skip
            tid = news.view.id
            for i in range(players):
                await svc.tour_join(Request(f"t{k}p{i}", f"Player {i + 1}", "bench"), tid)
            start = time.perf_counter()
            await svc.tour_start(admin, tid)
            advances.append(time.perf_counter() - start)
            ids.append(tid)
        took = time.perf_counter() - wall
        print(f"{tournaments} tournaments of {players} players signed up and started in {took:.1f} s")
        print(f"  start (seeding, round 1 paired, {players // 2} games created, one write): {ms(advances)}")
        advances.clear()

        gate = asyncio.Semaphore(concurrency)

        async def give_up(game_id: int, into: list[float]) -> None:
            async with gate:
                state = await svc.state(game_id, SYSTEM)
                loser = state.acting_member(1)
                start = time.perf_counter()
                await svc.forfeit(game_id, Request(loser, loser, "bench"))
                into.append(time.perf_counter() - start)

        for number in range(1, rounds + 1):
            lasts: list[int] = []
            games: list[int] = []
            for tid in ids:
                t = (await svc.tour_view(admin, tid)).tournament
                *most, last = [int(x.game or 0) for x in open_matches(t)]
                games += most
                lasts.append(last)
            wall = time.perf_counter()
            await asyncio.gather(*(give_up(g, results) for g in games))
            for g in lasts:  # one at a time: what completing a round costs, without the queue in front of it
                await give_up(g, advances)
            print(f"round {number}: {len(games) + len(lasts)} games given up in {time.perf_counter() - wall:.1f} s")
        print(f"  a game's end, its result recorded in its tournament: {ms(results)}")
        print(f"  the game's end that completes a round (result, next round paired, its games created): {ms(advances)}")
        print(f"the event loop's longest wait (a 5 ms ticker's lag): {lag.worst * 1000:.0f} ms")
        print(f"the longest callback on the event loop: {callbacks.worst * 1000:.1f} ms of CPU ({callbacks.which})")
    finally:
        callbacks.stop()
        ticker.cancel()
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tournaments", type=int, default=64)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--url", default="")
    parser.add_argument("--concurrency", type=int, default=64, help="games given up at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{tmp}/bench.sqlite3"
        asyncio.run(main(url, args.tournaments, args.players, args.rounds, args.concurrency))
