"""Several service processes on one database: racing actions apply exactly once, every timer fires once.

Runs on the real PostgreSQL server (GAMMONBOT_TEST_POSTGRES_URL) and on a SQLite file.

The main test starts whole service processes (``tests.bot.race_child play``: one GameService shared by four
player tasks and a Scheduler, as the bot runs) on one database full of timed 1-point matches, and lets them
play every match to its end:

* PLAYED games are played by all processes at once, often the same few games at the same moment, so
  requests race (the processes report the compare-and-swap writes they lost and the requests refused
  because another process acted first; the test requires both, and games acted on by several processes);
* STALLED games are played for a few actions and then left to their clock, IDLE games are never touched:
  their automatic opening rolls, reminders and timeouts are fired by the schedulers of all processes, which
  claim due timers from one table.

Afterwards, on the database: every match is over; every game's log replays to its stored snapshot (a fresh
service's ``view``) and its dice verify against the committed seed with every action legal (``verify``, the
check behind ``gammonbot verify``); the log has exactly as many actions as the processes acknowledged (no
acknowledged action lost, none applied twice), never the same kind of action by the same player twice in a
row; each timer was fired by one process only, each fired row in the timers table was claimed by the
process that reports firing it, and no timer is left pending; each idle game ended by a timeout.

Two tests at the end pin down bugs ``GameService.fire_timer`` once had with several processes: a timer judged
stale from a process's cached copy of the game (a due timeout dropped, the game waiting for ever), and an
opening-roll timer rolling an ordinary turn after a player had thrown the opening.

Game counts: on PostgreSQL 3 processes play 110 matches, play 45 more for a few actions, and let 45 idle
ones time out: 200 matches, about 2,000 stored actions from 1,800 acknowledged requests (and as many refused
ones), 250 fired timers. That takes 20 s on this 2-core machine, up to 50 s when other test runs share it;
SQLite's one writer makes every action wait for the others, so there 2 processes play 60 matches in about
10 s. Resigning 10% of the turns (and forfeiting the last few matches) keeps matches short, about ten actions,
so the whole suite stays within a few minutes while the database still sees hundreds of matches with racing
requests and timers at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import sqlalchemy as sa

from bot.service import SYSTEM, GameService, Refused, Request
from bot.storage import Scope, Store, timers_table
from engine.fairdice import Verdict

ROOT = Path(__file__).resolve().parents[2]

#: Idle and stalled games: the flag falls two seconds after the move begins (reminders at 1 s and 1.8 s).
FAST = {"name": "race-fast", "kind": "clock", "bonus": "delay", "per_move": 1.0, "reserve": 1.0}
#: Played games: timers are set and replaced on every action, and fire only if the players fall behind.
RELAXED = {"name": "race-relaxed", "kind": "clock", "bonus": "delay", "per_move": 4.0, "reserve": 8.0}

#: (played, stalled, idle, processes) per back end; see the module docstring for why these numbers.
SIZES = {"postgresql": (110, 45, 45, 3), "sqlite": (40, 10, 10, 2)}


def _url(db_url: tuple[str, str | None]) -> str:
    url, schema = db_url
    if schema is None:
        return url
    return f"{url}?schema={schema}"


def _spawn(*args: str, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.bot.race_child", *args], cwd=ROOT, stdout=stdout, stderr=stderr, text=True
    )


async def _setup(db_url: tuple[str, str | None], n: int, clock: Any, start: int = 0) -> list[int]:
    """``n`` accepted 1-point matches between fresh pairs of players (created 10 at a time)."""
    url, schema = db_url
    store = await Store.open(url, schema=schema)
    svc = GameService(store)  # committed dice, as deployed

    async def one(k: int) -> int:
        a, b = Request(f"a{k}", "A", "mp"), Request(f"b{k}", "B", "mp")
        out = await svc.challenge(a, b, length=1, time_control=clock)
        return (await svc.accept(out.game.id, b)).game.id

    ids: list[int] = []
    for first in range(start, start + n, 10):
        ids += await asyncio.gather(*(one(k) for k in range(first, min(first + 10, start + n))))
    await store.close()
    return ids


#: A timer: (id, game, kind, due_at). SQLite gives a new row the id of a deleted last row, so ids repeat.
TimerKey = tuple[int, int, str, float]


class Fire(NamedTuple):
    """One firing of a timer, as the process that claimed it reported it."""

    worker: str
    result: str  # done, stale (the game moved on), refused, error
    applied: int  # actions it added to the game's log
    events: tuple[str, ...]


@dataclass
class Report:
    """What the worker processes said they did."""

    applied: Counter[int] = field(default_factory=Counter)  # actions acknowledged per game
    actors: defaultdict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    fires: defaultdict[TimerKey, list[Fire]] = field(default_factory=lambda: defaultdict(list))
    stats: dict[str, tuple[int, int, int]] = field(default_factory=dict)


def _read(worker: str, out: str, report: Report) -> None:
    for line in out.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "ACK":
            gid, n = map(int, rest.split())
            report.applied[gid] += n
            report.actors[gid].add(worker)
        elif kind == "FIRE":
            timer, game, what, due, result, count, events = rest.split()
            key = (int(timer), int(game), what, float(due))
            report.fires[key].append(Fire(worker, result, int(count), tuple(events.split(","))))
            report.applied[int(game)] += int(count)
        elif kind == "STATS":
            name, acks, refused, conflicts = rest.split()
            report.stats[name] = (int(acks), int(refused), int(conflicts))


def test_racing_processes_play_hundreds_of_timed_games_each_action_and_timer_once(
    db_url: tuple[str, str | None], tmp_path: Path
) -> None:
    n_played, n_stalled, n_idle, n_procs = SIZES["sqlite" if db_url[1] is None else "postgresql"]
    played = asyncio.run(_setup(db_url, n_played, RELAXED))
    stalled = asyncio.run(_setup(db_url, n_stalled, FAST, start=n_played))
    idle = asyncio.run(_setup(db_url, n_idle, FAST, start=n_played + n_stalled))
    every = played + stalled + idle
    url = _url(db_url)
    started = time.monotonic()
    workers = [f"w{k}" for k in range(n_procs)]
    csv = [",".join(map(str, ids)) for ids in (played, stalled, idle)]
    # Output goes to files: a full pipe nobody is reading yet would stall a worker, and with it every game.
    files = {w: (tmp_path / f"{w}.out", tmp_path / f"{w}.err") for w in workers}
    procs = {}
    for k, w in enumerate(workers):
        with files[w][0].open("w") as out_file, files[w][1].open("w") as err_file:
            procs[w] = _spawn("play", url, w, *csv, "90", str(k + 1), stdout=out_file, stderr=err_file)
    report = Report()
    for w, p in procs.items():
        p.wait(timeout=240)
        out, err = (f.read_text() for f in files[w])
        assert p.returncode == 0, err[-3000:]
        errors = [line for line in err.splitlines() if line.startswith("LOG ERROR")]
        assert not errors, "\n".join(errors[:20]) + "\n" + err[-3000:]
        _read(w, out, report)
    played_for = time.monotonic() - started

    # The processes raced: writes lost to another process, requests refused because one acted first,
    # and most played games were acted on by more than one process.
    assert set(report.stats) == set(workers)
    acks, refused, conflicts = (sum(s[i] for s in report.stats.values()) for i in range(3))
    assert conflicts > 0 and refused > 0, report.stats
    assert all(s[0] > 0 for s in report.stats.values()), report.stats
    shared = sum(1 for g in played if len(report.actors[g]) > 1)
    assert shared >= len(played) // 2, f"only {shared} of {len(played)} games were played by several processes"

    # Each timer was claimed and fired by one process; every process fired some (they share the table).
    twice = {t: f for t, f in report.fires.items() if len(f) > 1}
    assert not twice, f"timers fired by more than one process: {twice}"
    by_worker = Counter(f[0].worker for f in report.fires.values() if f[0].result == "done")
    assert set(by_worker) == set(workers), by_worker
    assert not [f for f in report.fires.values() if f[0].result == "error"]
    # An opening timer that rolled a normal turn is the bug test_an_opening_timer_fired_... pins down; here
    # it needs a player's request to commit between the firing's read and its write (it happens in perhaps
    # one run in three), so it is reported, not asserted, to keep the suite deterministic.
    wrong = [t for t, f in report.fires.items() if t[2] == "opening" and "roll" in f[0].events]

    async def check() -> None:
        store = await Store.open(*db_url[:1], schema=db_url[1])
        fresh = GameService(store)
        try:
            for gid in every:
                log = await store.load_actions(gid, scope=Scope.system())
                assert [a.seq for a in log] == list(range(1, len(log) + 1))
                view = await fresh.view(gid, SYSTEM)  # replays the log and checks it against the stored snapshot
                assert view.status == "finished", f"game {gid} is still {view.status}"
                assert len(log) == report.applied[gid], (
                    f"game {gid}: {report.applied[gid]} actions acknowledged, {len(log)} stored"
                )
                kinds = [(a.action["type"], a.action["by"]) for a in log]
                repeated = [k for k, nxt in zip(kinds, kinds[1:]) if k == nxt and k[0] != "OpeningRoll"]
                assert not repeated, f"game {gid}: the same action twice in a row: {repeated}"
                assert sum(1 for t, _ in kinds if t == "Timeout") <= 1
                verdict = await fresh.verify(gid, SYSTEM)  # the dice match the commitment and every action is legal
                assert verdict.verdict is Verdict.VERIFIED and verdict.rules_checked, (gid, verdict.message)
                if gid in idle:
                    assert kinds[-1][0] == "Timeout", f"idle game {gid} ended by {kinds[-1]}"
            async with store.engine.connect() as conn:
                rows = (await conn.execute(sa.select(timers_table))).mappings().all()
        finally:
            await store.close()
        mine = {row["game_id"] for row in rows} & set(every)
        assert mine, "no timers were stored"
        pending = [dict(r) for r in rows if r["fired_at"] is None]
        assert not pending, f"timers never fired: {pending[:5]}"
        for row in rows:
            if row["game_id"] in every and row["claimed_by"] is not None:
                fired = report.fires.get((row["id"], row["game_id"], row["kind"], row["due_at"]))
                assert fired and fired[0].worker == row["claimed_by"], (dict(row), fired)

    checked = time.monotonic()
    asyncio.run(check())
    kinds = Counter(t[2] for t, f in report.fires.items() if f[0].result == "done")
    print(
        f"{len(every)} games, {sum(report.applied.values())} actions ({acks} requests, {refused} refused, "
        f"{conflicts} lost writes), timers fired: {dict(kinds)} by {dict(by_worker)}; "
        f"played for {played_for:.1f} s, checked in {time.monotonic() - checked:.1f} s; "
        f"opening timers that rolled a turn: {wrong}"
    )


def test_two_scheduler_processes_fire_every_timer_once(db_url: tuple[str, str | None]) -> None:
    """A backlog of overdue timers (the processes were down for ten days): two schedulers share it."""
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
            log = await store.load_actions(gid, scope=Scope.system())
            assert log and log[0].action["type"] == "OpeningRoll"
        await store.close()

    asyncio.run(check())


def test_an_opening_timer_fired_from_a_stale_cache_does_not_roll_a_turn(tmp_path: Path) -> None:
    """Process A claims the opening timer; process B's players throw the opening and play it; A fires.

    The timer was set for the record at the opening; the game has moved on, so A throws nothing (once, A's
    stale cache let it through and the roll, retried after losing its compare-and-swap, threw a normal turn).
    """

    class Dice:
        def roll(self, game_id: int, n: int) -> tuple[int, int]:
            return (3, 5) if n == 0 else (6, 2)  # side 1 wins the opening; then side 0 must roll

    async def run() -> list[tuple[str, str]]:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        a_svc, b_svc = GameService(store, dice=Dice()), GameService(store, dice=Dice())
        a, b = Request("a", "A", "g"), Request("b", "B", "g")
        out = await a_svc.challenge(a, b, length=1, time_control=FAST)
        gid = (await a_svc.accept(out.game.id, b)).game.id
        [timer] = await store.pending_timers(gid)
        assert timer.kind == "opening"
        await a_svc.view(gid, SYSTEM)  # A has the game cached at the opening
        await b_svc.roll(gid, a)
        await b_svc.move(gid, b, (await b_svc.view(gid, b)).plays[0])
        with contextlib.suppress(Refused):
            await a_svc.fire_timer(timer)
        log = [(x.action["type"], x.action["by"]) for x in await store.load_actions(gid, scope=Scope.system())]
        await store.close()
        return log

    assert asyncio.run(run()) == [("OpeningRoll", "a"), ("Move", "b")]


def test_a_timeout_fired_from_a_stale_cache_still_ends_the_game(tmp_path: Path) -> None:
    """Process A cached the game; process B's player moved (the record grew, a new timeout was set for it).

    When A's scheduler fires that timeout, the flag has fallen and the game ends, judged against the
    database (once, A's shorter cached record made the timer look stale, and the game waited for ever).
    """

    class Dice:
        def roll(self, game_id: int, n: int) -> tuple[int, int]:
            return (3, 5) if n == 0 else (6, 2)

    async def run() -> tuple[list[str], str]:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        a_svc, b_svc = GameService(store, dice=Dice()), GameService(store, dice=Dice())
        a, b = Request("a", "A", "g"), Request("b", "B", "g")
        out = await a_svc.challenge(a, b, length=1, time_control=FAST)
        gid = (await a_svc.accept(out.game.id, b)).game.id
        await a_svc.roll(gid, a)  # A: the opening roll (side 1 starts); A caches the game
        await b_svc.move(gid, b, (await b_svc.view(gid, b)).plays[0])  # B: side 1 plays; a's clock runs
        [timeout] = [t for t in await store.pending_timers(gid) if t.kind == "timeout"]
        await a_svc.fire_timer(timeout)  # A's scheduler: the flag has fallen
        log = [x.action["type"] for x in await store.load_actions(gid, scope=Scope.system())]
        status = (await GameService(store).view(gid, SYSTEM)).status
        await store.close()
        return log, status

    assert asyncio.run(run()) == (["OpeningRoll", "Move", "Timeout"], "finished")
