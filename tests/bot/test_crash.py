"""Crash safety: a service process is killed with SIGKILL under load; a restarted one finishes every match.

The first process (tests.bot.crash_child) creates 24 timed 1-point matches and plays 16 of them at once, one
task each, while its scheduler throws the other 8's opening rolls and times them out. It is killed with
SIGKILL after 150 acknowledged requests, while at least 8 matches have had requests in the last 40
acknowledgements and some are still active: in the middle of whatever it was writing. Then:

* right after the kill, every acknowledged action is stored: each acknowledgement said how long the log was
  and gave a digest of it, and that prefix of the stored log is unchanged; every game replays to its stored
  snapshot;
* a restarted process (the same code, without creating games) takes over every active match, including the
  timers the dead process had claimed (their 2 s lease runs out), and plays them all to the end;
* afterwards every match is over, every acknowledgement of either process is still a prefix of its log,
  every log replays and its dice verify against the committed seed, each idle match ended by one timeout,
  and no timer is left pending.

About 5-10 s per back end.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bot.service import SYSTEM, GameService
from bot.storage import Scope, Store, timers_table
from engine.fairdice import Verdict

ROOT = Path(__file__).resolve().parents[2]
PLAYED, IDLE = 16, 8
KILL_AFTER = 150


def _spawn(url: str, *args: str, stderr: Any = subprocess.PIPE) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.bot.crash_child", url, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )


def _digest(actions: list[dict[str, object]]) -> str:
    return hashlib.sha256(json.dumps(actions, sort_keys=True).encode()).hexdigest()[:16]


Log = list[dict[str, object]]


async def _check(url: str, acks: list[tuple[int, int, str]], *, over: bool) -> dict[int, tuple[Log, str]]:
    """Every acknowledged prefix is stored unchanged and every game replays; ``over``: and every match ended.

    Returns each game's log and status.
    """
    store = await Store.open(url)
    logs: dict[int, Log] = {}
    status: dict[int, str] = {}
    try:
        service = GameService(store)  # a fresh cache: replays every game's log and checks it against the snapshot
        async with store.engine.connect() as conn:
            ids = [r[0] for r in (await conn.execute(sa.text("SELECT id FROM games WHERE guild_id = 'crash'"))).all()]
        assert len(ids) == PLAYED + IDLE
        for game_id in ids:
            stored = await store.load_actions(game_id, scope=Scope.system())
            assert [a.seq for a in stored] == list(range(1, len(stored) + 1))
            logs[game_id] = [a.action for a in stored]
            view = await service.view(game_id, SYSTEM)
            status[game_id] = view.status
            assert view.status == "finished" or not over, f"game {game_id} is still {view.status}"
            if over:
                report = await service.verify(game_id, SYSTEM)
                assert report.verdict is Verdict.VERIFIED and report.rules_checked, (game_id, report.message)
        for game_id, n, digest in acks:
            log = logs[game_id]
            assert len(log) >= n, f"game {game_id}: {n} actions acknowledged, {len(log)} stored"
            assert _digest(log[:n]) == digest, f"game {game_id}: the first {n} acknowledged actions changed"
        if over:
            async with store.engine.connect() as conn:
                pending = (await conn.execute(sa.select(timers_table).where(timers_table.c.fired_at.is_(None)))).all()
            assert not pending, f"timers never fired: {pending[:5]}"
    finally:
        await store.close()
    return {gid: (log, status[gid]) for gid, log in logs.items()}


def test_sigkill_under_load_loses_no_acknowledged_action_and_a_restart_finishes_every_game(
    db_url: tuple[str, str | None], tmp_path: Path
) -> None:
    base, schema = db_url
    url = base if schema is None else f"{base}?schema={schema}"
    errors = tmp_path / "killed.err"  # a file: a full stderr pipe, unread while we read stdout, would stall it
    with errors.open("w") as err_file:
        child = _spawn(url, "7", str(PLAYED), str(IDLE), stderr=err_file)
    acks: list[tuple[int, int, str]] = []
    recent: deque[int] = deque(maxlen=40)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY", errors.read_text()
        for line in child.stdout:
            kind, game, n, digest = line.split()
            assert kind == "ACK"
            acks.append((int(game), int(n), digest))
            recent.append(int(game))
            if len(acks) >= KILL_AFTER and len(set(recent)) >= 8:
                os.kill(child.pid, signal.SIGKILL)  # in the middle of whatever it is writing
                break
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL, errors.read_text()
    in_flight = len(set(recent))
    assert in_flight >= 8, f"only {in_flight} games were being played when the process was killed"

    before = asyncio.run(_check(url, acks, over=False))
    unfinished = [gid for gid, (_, status) in before.items() if status == "active"]
    assert len(unfinished) >= 8, f"the process was killed too late: only {len(unfinished)} matches were still on"

    restarted = _spawn(url, "8")
    out, err = restarted.communicate(timeout=120)
    assert restarted.returncode == 0, err[-3000:]
    assert out.splitlines()[-1] == "DONE", out[-2000:]
    more = []
    for line in out.splitlines()[:-1]:
        kind, game, n, digest = line.split()
        assert kind == "ACK"
        more.append((int(game), int(n), digest))
    # The restarted process played on every match the dead one had been playing and left unfinished.
    assert {g for g, _, _ in more} >= {g for g in unfinished if g in {a[0] for a in acks}}

    after = asyncio.run(_check(url, acks + more, over=True))
    for game_id, (log, _) in after.items():
        timeouts = [a for a in log if a["type"] == "Timeout"]
        assert len(timeouts) <= 1, f"game {game_id}: {len(timeouts)} timeouts"
        if not any(g == game_id for g, _, _ in acks + more):  # an idle match: its clock ended it
            assert timeouts and log[-1] == timeouts[0], f"idle game {game_id} ended by {log[-1]}"
    total = sum(len(log) for log, _ in after.values())
    print(
        f"killed after {len(acks)} acknowledged requests with {in_flight} games in flight and {len(unfinished)} "
        f"active; the restarted process made {len(more)} more and finished them ({total} actions)"
    )
