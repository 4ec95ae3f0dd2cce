"""A database that does not answer in time: the player is told to try again (a refusal, nothing changed), and a
timer that met it stays due and fires later instead of being taken as done."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.scheduler import Scheduler
from bot.service import SYSTEM, GameService, Refused, Request, SeededDice
from bot.storage import Scope, Store, Unavailable

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)


class Silent:
    """Makes one store method raise Unavailable while ``on`` is set."""

    def __init__(self, store: Store, name: str) -> None:
        self.on = False
        self.original = getattr(store, name)
        setattr(store, name, self)

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.on:
            raise Unavailable(Unavailable.MESSAGE)
        return await self.original(*args, **kwargs)


def test_a_silent_database_is_a_refusal_that_says_try_again(tmp_path: Path) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        try:
            svc = GameService(store, dice=SeededDice(1))
            gid = (await svc.accept((await svc.challenge(ALICE, BOB, length=1)).game.id, BOB)).game.id
            svc._forget(gid)  # not cached: the next call must read the database
            silent = Silent(store, "load_game")
            silent.on = True
            with pytest.raises(Refused, match="try again in a moment"):
                await svc.roll(gid, ALICE)
            with pytest.raises(Refused, match="try again in a moment"):
                await svc.view(gid, ALICE)
            silent.on = False
            assert (await svc.view(gid, ALICE)).phase == "opening"  # nothing changed, and it works again
        finally:
            await store.close()

    asyncio.run(go())


def test_a_timer_that_meets_a_silent_database_stays_due(tmp_path: Path) -> None:
    now = [1_800_000_000.0]

    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}", clock=lambda: now[0])
        try:
            svc = GameService(store, dice=SeededDice(1), clock=lambda: now[0])
            out = await svc.challenge(ALICE, BOB, length=1, time_control="blitz")
            gid = (await svc.accept(out.game.id, BOB)).game.id
            scheduler = Scheduler(store, svc, clock=lambda: now[0], lease=60.0)
            now[0] += 86400.0  # the automatic opening roll is long due
            svc._forget(gid)
            silent = Silent(store, "load_game")
            silent.on = True
            with pytest.raises(Unavailable):
                await svc.fire_timer((await store.pending_timers(gid))[0])  # the scheduler's call lets it through
            assert await scheduler.tick() == []  # nothing fired, nothing lost
            assert [t.kind for t in await store.pending_timers(gid)] == ["opening"]
            silent.on = False
            now[0] += 61.0  # past the lease: the timer is claimed again
            fired = await scheduler.tick()
            assert fired and (await svc.view(gid, SYSTEM)).phase != "opening"
            assert await store.load_game(gid, scope=Scope.system())
        finally:
            await store.close()

    asyncio.run(go())
