"""Work done in batches: game updates sent together (on a SQLite file one transaction, each update standing or
falling on its own), and a batch of due timers read at once (their games fresh from the database, their players'
vacations and names) and fired together, each judged against the database, never against a stale copy."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.scheduler import Scheduler
from bot.service import DAY, SYSTEM, GameService, Outcome, Request, SeededDice
from bot.storage import Conflict, Scope, SqliteDialect, Store, TimerSpec

DbUrl = tuple[str, str | None]
ROLL = {"type": "Roll", "by": "a", "dice": [3, 1]}
GUILD = "g"


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def _new_game(store: Store) -> int:
    row = await store.create_game(
        guild_id="g1", status="active", variant="backgammon", setup={"sides": [["a"], ["b"]]}, players={"a": 0, "b": 1}
    )
    return row.id


@contextlib.asynccontextmanager
async def _writer_held(store: Store) -> AsyncIterator[list[int]]:
    """On a SQLite file: the writer thread kept busy until the block ends, so that everything sent meanwhile waits
    for it together; yields the sizes of the transactions it then commits. Elsewhere: nothing is held."""
    sizes: list[int] = []
    writer = store.backend.writer if isinstance(store.backend, SqliteDialect) else None
    if writer is None:
        yield sizes
        return
    commit = writer._commit

    def counting(jobs: list[Any]) -> Any:
        sizes.append(len(jobs))
        return commit(jobs)

    writer._commit = counting  # type: ignore[method-assign]
    release, started = threading.Event(), threading.Event()

    def busy() -> None:
        started.set()
        release.wait(60)

    occupying = writer._thread.submit(busy)
    started.wait(60)
    try:
        yield sizes
    finally:
        release.set()
        await asyncio.wrap_future(occupying)


def test_updates_sent_together_each_stand_or_fall_on_their_own(db_url: DbUrl) -> None:
    async def go() -> None:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        try:
            games = [await _new_game(store) for _ in range(5)]
            taken = await store.update_game(games[3], 0, new_actions=[ROLL], log_length=0)  # its log number 1 taken
            async with _writer_held(store) as sizes:
                calls = [
                    store.update_game(games[0], 0, new_actions=[ROLL, ROLL], log_length=0),
                    store.update_game(games[1], 7, new_actions=[ROLL], log_length=0),  # a stale version
                    store.update_game(games[2], 0, new_actions=[ROLL], timers=[TimerSpec("archive", 10.0)]),
                    store.update_game(games[3], taken, new_actions=[ROLL], log_length=0),  # a log number taken
                    store.update_game(games[4], 0, new_actions=[ROLL], log_length=0),
                    store.update_game(games[4], 0, new_actions=[ROLL, ROLL], log_length=0),  # the same game again
                ]
                tasks = [asyncio.create_task(c) for c in calls]
                await asyncio.sleep(0.05)  # every call is waiting for the writer now (on SQLite)
            results = await asyncio.gather(*tasks, return_exceptions=True)
            assert results[0] == 1 and results[2] == 1 and isinstance(results[1], Conflict)
            won = 4 if results[4] == 1 else 5  # of two updates of one version, one applies and the other conflicts
            assert results[won] == 1 and isinstance(results[9 - won], Conflict)
            assert isinstance(results[3], Exception) and "unique" in str(results[3]).lower()
            if isinstance(store.backend, SqliteDialect):
                assert sizes == [6]  # one transaction, one sync to the disk
            logs = [len(await store.load_actions(g, scope=Scope.system())) for g in games]
            assert logs == [2, 0, 1, 1, won - 3]
            versions = [(await store.load_game(g, scope=Scope.system())).version for g in games]
            assert versions == [1, 0, 1, 1, 1]
            assert [t.kind for t in await store.pending_timers(games[2])] == ["archive"]
            # Claims and marks go the same way: each claims what is due once.
            await store.add_timers(games[0], [TimerSpec("reminder", 5.0), TimerSpec("reminder", 6.0)])
            async with _writer_held(store):
                first = asyncio.create_task(store.claim_due_timers(20.0, "w1", limit=2))
                second = asyncio.create_task(store.claim_due_timers(20.0, "w2", limit=2))
                await asyncio.sleep(0.05)
            claims = [await first, await second]
            assert sorted(len(c) for c in claims) == [1, 2]
            ids = sorted(t.id for c in claims for t in c)
            assert len(set(ids)) == 3
            assert await store.finish_timers([t.id for t in claims[0]], "w1", 20.0) == len(claims[0])
            assert await store.finish_timers([t.id for t in claims[1]], "w1", 20.0) == 0  # not w1's
        finally:
            await store.close()

    asyncio.run(go())


class Calls:
    """Counts calls of some store methods."""

    def __repr__(self) -> str:
        return repr(self.counts)

    def __init__(self, store: Store, *names: str) -> None:
        self.counts = dict.fromkeys(names, 0)
        for name in names:
            original = getattr(store, name)

            def counted(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
                self.counts[_name] += 1
                return _original(*args, **kwargs)

            setattr(store, name, counted)


def test_a_batch_of_due_timers_is_read_at_once_and_judged_against_the_database(db_url: DbUrl) -> None:
    """Another process (another service on the same database) moves a game on: this process's copy is stale. When the
    timers come due together, the batch read finds the game as it is, so its new timeout fires (a stale copy would
    call it out of date, and the game would wait for ever), and no timer reads its game, vacations or names alone."""

    async def go() -> None:
        url, schema = db_url
        t = FakeTime()
        store = await Store.open(url, schema=schema, clock=t)
        try:
            here = GameService(store, dice=SeededDice(3), clock=t)
            elsewhere = GameService(store, dice=SeededDice(4), clock=t)
            games: list[int] = []
            for k in range(4):
                a, b = Request(f"a{k}", f"A{k}", GUILD), Request(f"b{k}", f"B{k}", GUILD)
                out = await here.challenge(a, b, length=1, time_control="correspondence")
                out = await here.accept(out.game.id, b)
                while out.game.phase == "opening":
                    out = await here.roll(out.game.id, a)
                games.append(out.game.id)
            calls = Calls(store, "load_game", "vacations_of", "player_name", "load_games", "vacations_of_players")
            t.now += 2.5 * DAY  # past the first reminders
            reminders = await Scheduler(store, here, clock=t).tick()
            assert sorted(e.game_id for o in reminders for e in o.events if e.kind == "reminder") == games
            # The other process plays game 0's first move: this process still holds the game as it was.
            view = await elsewhere.view(games[0], SYSTEM)
            mover = Request(view.to_act or "", view.name(view.to_act), GUILD)
            await elsewhere.move(games[0], mover, view.plays[0])
            assert (await here.view(games[0], SYSTEM)).to_act == mover.id  # stale here
            calls.counts = dict.fromkeys(calls.counts, 0)
            t.now += 30 * DAY  # past every deadline
            outcomes: list[Outcome] = await Scheduler(store, here, clock=t).tick()
            timeouts = sorted(e.game_id for o in outcomes for e in o.events if e.kind == "timeout")
            assert timeouts == games  # each game timed out once, game 0 too
            assert calls.counts["load_game"] == calls.counts["vacations_of"] == calls.counts["player_name"] == 0, calls
            fresh = GameService(store, clock=t)
            for gid in games:
                view = await fresh.view(gid, SYSTEM)
                assert view.status == "finished"
            assert calls.counts["load_games"] == 1 and calls.counts["vacations_of_players"] == 1
            assert await store.pending_timers() == []
        finally:
            await store.close()

    asyncio.run(go())


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_vacation_declared_here_is_seen_at_once_by_the_next_deadline(db_url: DbUrl) -> None:
    """Vacations are read through a short-lived memo (every timed action needs them); declaring one forgets it."""

    async def go() -> None:
        url, schema = db_url
        t = FakeTime()
        store = await Store.open(url, schema=schema, clock=t, settings_ttl=3600)
        try:
            svc = GameService(store, dice=SeededDice(3), clock=t)
            a, b = Request("a", "A", GUILD), Request("b", "B", GUILD)
            out = await svc.accept((await svc.challenge(a, b, length=1, time_control="correspondence")).game.id, b)
            while out.game.phase == "opening":
                out = await svc.roll(out.game.id, a)
            gid = out.game.id
            waiting = out.game.to_act
            before = {t.kind: t.due_at for t in await store.pending_timers(gid)}["timeout"]
            await svc.vacation(Request(waiting or "", "W", GUILD), 3)  # its deadline moves back by three days
            after = {t.kind: t.due_at for t in await store.pending_timers(gid)}["timeout"]
            assert after == pytest.approx(before + 3 * DAY)
        finally:
            await store.close()

    asyncio.run(go())
