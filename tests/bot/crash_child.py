"""A child process for the crash test: plays games through the service and acknowledges every applied action.

Usage: python -m tests.bot.crash_child DATABASE_URL GAMES SEED
Prints ``ACK <game_id> <actions stored after the call>`` after each call that returned, flushed at once.
"""

from __future__ import annotations

import asyncio
import random
import sys

from bot.service import GameService, PlayerRef, Refused, SeededDice
from bot.storage import Store


async def main(url: str, games: int, seed: int) -> None:
    store = await Store.open(url)
    svc = GameService(store, dice=SeededDice(seed))
    rng = random.Random(seed)
    players = [PlayerRef(f"p{i}", f"P{i}") for i in range(2 * games)]
    ids = []
    for g in range(games):
        out = await svc.challenge("crash", players[2 * g], players[2 * g + 1], length=0)
        out = await svc.accept(out.game.id, players[2 * g + 1])
        ids.append(out.game.id)
    print("READY", flush=True)

    async def play(game_id: int, a: PlayerRef, b: PlayerRef) -> None:
        by_id = {a.id: a, b.id: b}
        while True:
            view = await svc.view(game_id)
            actor = by_id[view.to_act or view.acting[0]]  # type: ignore[index]
            try:
                if view.phase in ("opening", "roll"):
                    out = await (svc.double(game_id, actor) if rng.random() < 0.03 else svc.roll(game_id, actor))
                elif view.phase == "move":
                    out = await svc.move(game_id, actor, rng.choice(view.plays))
                elif view.phase == "doubled":
                    out = await svc.take(game_id, actor)
                else:
                    out = await svc.answer_resignation(game_id, actor, True)
            except Refused:
                continue
            stored = len(await store.load_actions(game_id))
            print(f"ACK {game_id} {stored} {out.game.version}", flush=True)

    await asyncio.gather(*(play(gid, players[2 * k], players[2 * k + 1]) for k, gid in enumerate(ids)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
