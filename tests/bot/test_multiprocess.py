"""Several service processes on one database: racing actions apply exactly once, every timer fires once.

Runs on the real PostgreSQL server (GAMMONBOT_TEST_POSTGRES_URL) and on a SQLite file.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections import Counter
from pathlib import Path

from bot.service import GameService, PlayerRef, SeededDice
from bot.storage import Store

ROOT = Path(__file__).resolve().parents[2]


def _url(db_url: tuple[str, str | None]) -> str:
    url, schema = db_url
    if schema is None:
        return url
    return f"{url}?schema={schema}"


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.bot.race_child", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def _setup(db_url: tuple[str, str | None], n: int, clock: str | None) -> list[int]:
    url, schema = db_url
    store = await Store.open(url, schema=schema)
    svc = GameService(store, dice=SeededDice(0))
    ids = []
    for k in range(n):
        a, b = PlayerRef(f"a{k}", "A"), PlayerRef(f"b{k}", "B")
        out = await svc.challenge("mp", a, b, length=0, time_control=clock)
        ids.append((await svc.accept(out.game.id, b)).game.id)
    await store.close()
    return ids


def test_racing_processes_apply_each_action_exactly_once(db_url: tuple[str, str | None]) -> None:
    ids = asyncio.run(_setup(db_url, 40, None))
    url = _url(db_url)
    procs = [_spawn("play", url, ",".join(map(str, ids)), "80", str(seed)) for seed in (1, 2, 3)]
    applied: Counter[int] = Counter()
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        for line in out.splitlines():
            _, game, n = line.split()
            applied[int(game)] += int(n)
    assert sum(applied.values()) >= 240

    async def check() -> None:
        store = await Store.open(*db_url[:1], schema=db_url[1])
        fresh = GameService(store)
        for gid in ids:
            log = await store.load_actions(gid)
            assert [a.seq for a in log] == list(range(1, len(log) + 1))
            assert len(log) == applied[gid], f"game {gid}: {applied[gid]} actions acknowledged, {len(log)} stored"
            await fresh.view(gid)  # replays the log and checks it against the stored snapshot
        await store.close()

    asyncio.run(check())


def test_two_scheduler_processes_fire_every_timer_once(db_url: tuple[str, str | None]) -> None:
    ids = asyncio.run(_setup(db_url, 30, "correspondence"))
    url = _url(db_url)
    procs = [_spawn("tick", url, str(10 * 86400)) for _ in range(2)]  # ten days later: every opening is overdue
    events: Counter[tuple[int, str]] = Counter()
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        for line in out.splitlines():
            _, game, kind = line.split()
            events[(int(game), kind)] += 1
    assert {gid for gid, kind in events if kind == "auto-opening"} == set(ids)
    assert all(n == 1 for (gid, kind), n in events.items() if kind == "auto-opening")

    async def check() -> None:
        store = await Store.open(*db_url[:1], schema=db_url[1])
        for gid in ids:
            log = await store.load_actions(gid)
            assert log and log[0].action["type"] == "OpeningRoll"
        await store.close()

    asyncio.run(check())
