"""A worker process for the multi-process tests: a whole service (players and scheduler) on a shared database.

python -m tests.bot.race_child play URL WORKER PLAYED STALLED IDLE SECONDS SEED
    Runs what one bot process runs: one GameService shared by several concurrent player tasks and a
    Scheduler, on one database with other such processes. The player tasks act for both players of the
    PLAYED and STALLED games (comma-separated ids, possibly empty), choosing at random among them and often
    among the same few "hot" games the other processes are choosing too, so requests race; STALLED games are
    left alone once they are a few actions old and IDLE games are never touched, so their clocks run out and
    the schedulers of all processes finish them. Stops when no game of the database is active (or after
    SECONDS), fires the due timers once more, and prints, each line flushed at once:

    ACK <game> <applied>                      a player's request returned (it added <applied> actions)
    REFUSED <game> <reason>                   a request was refused (another process acted first)
    FIRE <timer> <game> <kind> <due> <result> <applied> <events>
                                              this process fired a claimed timer: result done|stale|refused
                                              (SQLite reuses the id of a deleted last row: the four first
                                              fields tell timers apart)
    STATS <worker> <acks> <refused> <conflicts>
                                              <conflicts>: compare-and-swap writes that lost to another writer

With RACE_DEBUG=1 it reports its progress on stderr every quarter second.

python -m tests.bot.race_child tick URL OFFSET               -> ticks the scheduler with the clock moved ahead
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import sys
import time
from typing import Any

import sqlalchemy as sa

from bot.scheduler import Scheduler
from bot.service import SYSTEM, GameService, Outcome, Refused, Request
from bot.storage import Conflict, Store, TimerRow, games

#: How many actions a STALLED game gets from the players before they leave it to its clock.
STALL_AFTER = 10


def say(line: str) -> None:
    print(line, flush=True)


class Worker(GameService):
    """The service as deployed, reporting each timer it fires (the test matches them against the database)."""

    async def fire_timer(self, timer: TimerRow) -> Outcome | None:
        head = f"FIRE {timer.id} {timer.game_id} {timer.kind} {timer.due_at!r}"
        try:
            out = await super().fire_timer(timer)
        except Refused:
            say(f"{head} refused 0 -")
            raise
        except Exception:
            say(f"{head} error 0 -")
            raise
        if out is None:
            say(f"{head} stale 0 -")
            return out
        say(f"{head} done {out.applied} {','.join(e.kind for e in out.events) or '-'}")
        return out


async def play(
    url: str, worker: str, played: list[int], stalled: list[int], idle: list[int], seconds: float, seed: int
) -> None:
    store = await Store.open(url, acquire_timeout=300, statement_timeout=300)  # correctness, not speed
    stats = {"acks": 0, "refused": 0, "conflicts": 0}
    update_game = store.update_game

    async def counting_update(*args: Any, **kwargs: Any) -> int:
        try:
            return await update_game(*args, **kwargs)
        except Conflict:
            stats["conflicts"] += 1
            raise

    store.update_game = counting_update  # type: ignore[method-assign]
    svc = Worker(store)  # dice=None: every match has committed dice the test verifies afterwards
    scheduler = Scheduler(store, svc, worker=worker, batch=25, lease=120.0)
    stall = set(stalled)
    live = sorted(played + stalled)
    everything = played + stalled + idle
    stop = asyncio.Event()

    async def act(game_id: int, r: random.Random) -> None:
        view = await svc.view(game_id, SYSTEM)  # from this process's cache: often behind the other processes
        if view.status != "active" or (game_id in stall and view.version > STALL_AFTER):
            if game_id in live:
                live.remove(game_id)
            return
        who = view.to_act or view.acting[0]  # type: ignore[index]
        actor = Request(who, who.upper(), view.guild_id)
        try:
            if len(live) <= 15 and r.random() < 0.4:  # the last few matches: wrap up
                out = await svc.forfeit(game_id, actor)
            elif view.phase == "opening":
                out = await svc.roll(game_id, actor)
            elif view.phase == "roll":
                if r.random() < 0.1:
                    out = await svc.resign(game_id, actor, 1)
                else:
                    out = await svc.roll(game_id, actor)
            elif view.phase == "move":
                out = await svc.move(game_id, actor, r.choice(view.plays))
            elif view.phase == "doubled":
                out = await svc.take(game_id, actor)
            else:  # a resignation waits for its answer
                out = await svc.answer_resignation(game_id, actor, r.random() < 0.8)
        except Refused as exc:
            stats["refused"] += 1
            say(f"REFUSED {game_id} {str(exc).replace(chr(10), ' ')}")
            return
        stats["acks"] += 1
        say(f"ACK {game_id} {out.applied}")

    async def player(k: int) -> None:
        r = random.Random(seed * 1000 + k)
        while not stop.is_set() and live:
            # Often one of the same few games the other processes are on too: requests race for real.
            pool = live[:4] if r.random() < 0.2 else live
            await act(r.choice(pool), r)
        while not stop.is_set():  # the players are done; the timers finish the rest
            await asyncio.sleep(0.05)

    async def monitor() -> None:
        until = time.monotonic() + seconds
        query = (
            sa.select(sa.func.count()).select_from(games).where(games.c.id.in_(everything), games.c.status == "active")
        )
        while time.monotonic() < until:
            async with store.engine.connect() as conn:
                active = (await conn.execute(query)).scalar()
                if not active:
                    break
            if os.environ.get("RACE_DEBUG"):
                print(f"DEBUG {time.monotonic():.1f} active={active} live={len(live)} {stats}", file=sys.stderr)
            await asyncio.sleep(0.25)
        stop.set()

    ticking = asyncio.create_task(scheduler.run(stop, interval=0.1))
    await asyncio.gather(monitor(), *(player(k) for k in range(4)))
    await ticking
    await scheduler.tick()  # whatever came due meanwhile
    say(f"STATS {worker} {stats['acks']} {stats['refused']} {stats['conflicts']}")
    await store.close()


async def tick(url: str, offset: float) -> None:
    store = await Store.open(url, acquire_timeout=300, statement_timeout=300)  # correctness, not speed
    clock = lambda: time.time() + offset  # noqa: E731
    svc = GameService(store, clock=clock)
    fired = await Scheduler(store, svc, clock=clock, batch=7).tick()
    for outcome in fired:
        for event in outcome.events:
            print(f"EVENT {event.game_id} {event.kind}", flush=True)
    await store.close()


def _ids(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="LOG %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if sys.argv[1] == "play":
        url, worker, played, stalled, idle, seconds, seed = sys.argv[2:9]
        asyncio.run(play(url, worker, _ids(played), _ids(stalled), _ids(idle), float(seconds), int(seed)))
    else:
        asyncio.run(tick(sys.argv[2], float(sys.argv[3])))
