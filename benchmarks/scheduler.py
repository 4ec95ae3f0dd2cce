"""The scheduler under a large backlog: 100,000 pending timers on SQLite (or --db URL).

    python benchmarks/scheduler.py [--pending 100000] [--due 1000] [--games 1000] [--db URL]

Prints the cost of a tick with nothing due (the query that finds due timers, plus the next-due lookup) and
the time to claim, fire and mark 1,000 due timers (reminders of live games, fired through the service).
Targets (issue 8): an idle tick < 5 ms; firing 1,000 due timers < 1 s with SQLite.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.scheduler import Scheduler  # noqa: E402
from bot.service import DAY, GameService, Request, SeededDice  # noqa: E402
from bot.storage import Scope, Store, TimerSpec  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def main(url: str, pending: int, due: int, n_games: int) -> None:
    clock = Clock()
    store = await Store.open(url, clock=clock)
    svc = GameService(store, dice=SeededDice(1), clock=clock)
    t0 = time.perf_counter()
    games = []
    for k in range(n_games):
        a, b = Request(f"a{k}", f"A{k}", "bench"), Request(f"b{k}", f"B{k}", "bench")
        out = await svc.challenge(a, b, length=3, time_control="correspondence")
        out = await svc.accept(out.game.id, b)
        games.append(out.game.id)
    print(f"set up {n_games} matches with clocks in {time.perf_counter() - t0:.1f} s")
    # Far-future timers make up the backlog; `due` reminders of live games fall due now.
    have = len(await store.pending_timers())
    filler = [
        TimerSpec("reminder", clock.now + 30 * DAY + k, {"side": 0, "actions": -1}) for k in range(pending - have - due)
    ]
    for start in range(0, len(filler), 5000):
        await store.add_timers(games[0], filler[start : start + 5000])
    for k in range(due):
        gid = games[k % n_games]
        n_actions = len(await store.load_actions(gid, scope=Scope.system()))
        await store.add_timers(
            gid, [TimerSpec("reminder", clock.now + 60, {"side": 0, "share": 0.5, "actions": n_actions})]
        )
    total = len(await store.pending_timers())
    print(f"{total:,} pending timers")

    sched = Scheduler(store, svc, clock=clock)
    idle = []
    for _ in range(50):
        start = time.perf_counter()
        assert await sched.tick() == []
        await store.next_due()
        idle.append(time.perf_counter() - start)
    print(
        f"idle tick (nothing due): median {statistics.median(idle) * 1000:.2f} ms, "
        f"max {max(idle) * 1000:.2f} ms  (target < 5 ms)"
    )

    clock.now += 120
    start = time.perf_counter()
    fired = await sched.tick()
    elapsed = time.perf_counter() - start
    print(f"fired {len(fired)} due timers in {elapsed * 1000:.0f} ms  (target < 1000 ms for 1,000)")
    await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pending", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=1000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--db")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.db or f"sqlite:///{tmp}/sched.sqlite3", args.pending, args.due, args.games))
