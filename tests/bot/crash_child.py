"""A child process for the crash test: a service (players and scheduler) that plays its games to the end.

Usage: python -m tests.bot.crash_child DATABASE_URL SEED [PLAYED IDLE]

With PLAYED and IDLE it first creates that many timed 1-point matches (guild "crash") and prints ``READY``;
without them it is the restarted process and takes over every active match of the guild. One task per
played match plays it (both sides); idle matches are never touched, so the scheduler (lease 2 s, so that a
restarted process takes over the timers a killed one had claimed) throws their opening rolls and times
them out. After each request that returned it prints, flushed at once:

    ACK <game_id> <n> <digest>     the game's stored log had <n> actions after the call; <digest> is the
                                   SHA-256 of those actions, so the test can check they never change
    DONE                           no match of the guild is active any more
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sys
import time
from typing import Any

from bot.scheduler import Scheduler
from bot.service import SYSTEM, GameService, Refused, Request
from bot.storage import Scope, Store

GUILD = "crash"
#: Played matches: timers are set on every action but fire only if a player falls far behind.
RELAXED = {"name": "crash-relaxed", "kind": "clock", "bonus": "delay", "per_move": 5.0, "reserve": 10.0}
#: Idle matches: the flag falls two seconds after the opening roll.
FAST = {"name": "crash-fast", "kind": "clock", "bonus": "delay", "per_move": 1.0, "reserve": 1.0}


def digest(actions: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(actions, sort_keys=True).encode()).hexdigest()[:16]


async def main(url: str, seed: int, played: int | None, idle: int | None) -> None:
    store = await Store.open(url, acquire_timeout=300, statement_timeout=300)  # correctness, not speed
    svc = GameService(store)  # committed dice: the test verifies every roll afterwards
    rng = random.Random(seed)
    if played is not None and idle is not None:
        for g in range(played + idle):
            a, b = Request(f"a{g}", f"A{g}", GUILD), Request(f"b{g}", f"B{g}", GUILD)
            out = await svc.challenge(a, b, length=1, time_control=RELAXED if g < played else FAST)
            await svc.accept(out.game.id, b)
        print("READY", flush=True)
    rows = await store.games_where(status="active", scope=Scope.server(GUILD), limit=10_000)
    mine = [r.id for r in rows if r.setup["time_control"]["name"] == RELAXED["name"]]

    async def play(game_id: int) -> None:
        refused = 0
        while refused < 50:
            view = await svc.view(game_id, SYSTEM)
            if view.status != "active":
                return
            who = view.to_act or view.acting[0]  # type: ignore[index]
            actor = Request(who, view.name(who), GUILD)
            try:
                if view.phase == "opening":
                    out = await svc.roll(game_id, actor)
                elif view.phase == "roll":
                    out = await (svc.resign(game_id, actor, 1) if rng.random() < 0.04 else svc.roll(game_id, actor))
                elif view.phase == "move":
                    out = await svc.move(game_id, actor, rng.choice(view.plays))
                elif view.phase == "doubled":
                    out = await svc.take(game_id, actor)
                else:
                    out = await svc.answer_resignation(game_id, actor, True)
            except Refused:
                refused += 1
                svc._forget(game_id)  # a timer acted first: look again
                continue
            refused = 0
            if out.applied:
                stored = [a.action for a in await store.load_actions(game_id, scope=Scope.system())]
                print(f"ACK {game_id} {len(stored)} {digest(stored)}", flush=True)
        raise RuntimeError(f"game {game_id}: every request is refused")

    stop = asyncio.Event()
    scheduler = Scheduler(store, svc, worker=f"crash-{seed}", batch=20, lease=2.0)
    ticking = asyncio.create_task(scheduler.run(stop, interval=0.1))
    await asyncio.gather(*(play(gid) for gid in mine))
    deadline = time.monotonic() + 60
    while await store.games_where(status="active", scope=Scope.server(GUILD), limit=1) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # the idle matches' clocks are running out
    stop.set()
    await ticking
    print("DONE", flush=True)
    await store.close()


if __name__ == "__main__":
    new = len(sys.argv) > 3
    asyncio.run(
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if new else None, int(sys.argv[4]) if new else None)
    )
