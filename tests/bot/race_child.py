"""A worker process for the multi-process tests: races actions on shared games, or ticks the scheduler.

python -m tests.bot.race_child play URL GAMES ACTIONS SEED   -> prints "APPLIED <game> <n>" per accepted call
python -m tests.bot.race_child tick URL OFFSET               -> ticks the scheduler with the clock moved ahead
"""

from __future__ import annotations

import asyncio
import random
import sys
import time

from bot.scheduler import Scheduler
from bot.service import GameService, PlayerRef, Refused, SeededDice
from bot.storage import Store


async def play(url: str, games: list[int], actions: int, seed: int) -> None:
    store = await Store.open(url)
    svc = GameService(store, dice=SeededDice(seed))
    rng = random.Random(seed)
    done = 0
    while done < actions:
        game_id = rng.choice(games)
        try:
            view = await svc.view(game_id)
            if view.status != "active":
                continue
            who = view.to_act or view.acting[0]  # type: ignore[index]
            actor = PlayerRef(who, who)
            if view.phase in ("opening", "roll"):
                out = await svc.roll(game_id, actor)
            elif view.phase == "move":
                out = await svc.move(game_id, actor, rng.choice(view.plays))
            elif view.phase == "doubled":
                out = await svc.take(game_id, actor)
            else:
                out = await svc.answer_resignation(game_id, actor, True)
        except Refused:
            svc._forget(game_id)  # another process moved first: look again
            continue
        print(f"APPLIED {game_id} {out.applied}", flush=True)
        done += 1
    await store.close()


async def tick(url: str, offset: float) -> None:
    store = await Store.open(url)
    clock = lambda: time.time() + offset  # noqa: E731
    svc = GameService(store, clock=clock)
    fired = await Scheduler(store, svc, clock=clock, batch=7).tick()
    for outcome in fired:
        for event in outcome.events:
            print(f"EVENT {event.game_id} {event.kind}", flush=True)
    await store.close()


if __name__ == "__main__":
    if sys.argv[1] == "play":
        ids = [int(x) for x in sys.argv[3].split(",")]
        asyncio.run(play(sys.argv[2], ids, int(sys.argv[4]), int(sys.argv[5])))
    else:
        asyncio.run(tick(sys.argv[2], float(sys.argv[3])))
