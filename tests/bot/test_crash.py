"""Crash safety: a process applying actions is killed with SIGKILL; nothing acknowledged is lost or corrupted."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

from bot.service import GameService
from bot.storage import Store

ROOT = Path(__file__).resolve().parents[2]


def test_sigkill_loses_no_acknowledged_action_and_every_game_replays(db_url: tuple[str, str | None]) -> None:
    base, schema = db_url
    url = base if schema is None else f"{base}?schema={schema}"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.bot.crash_child", url, "12", "7"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: dict[int, int] = {}
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY", child.stderr.read() if child.stderr else ""
        for count, line in enumerate(child.stdout, 1):
            kind, game, stored, _version = line.split()
            assert kind == "ACK"
            acked[int(game)] = max(acked.get(int(game), 0), int(stored))
            if count == 400:
                os.kill(child.pid, signal.SIGKILL)  # in the middle of whatever it is writing
                break
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert len(acked) >= 6  # most games had acknowledged actions when the process died

    async def check() -> None:
        store = await Store.open(url)
        try:
            service = GameService(store)  # replays every game's log and checks it against the snapshot
            for game_id in range(1, 13):
                n = acked.get(game_id, 0)
                stored = await store.load_actions(game_id)
                assert len(stored) >= n, f"game {game_id}: {n} actions acknowledged, {len(stored)} stored"
                assert [a.seq for a in stored] == list(range(1, len(stored) + 1))
                view = await service.view(game_id)
                state = await service.state(game_id)
                assert view.status == "active" and state.position is not None
        finally:
            await store.close()

    asyncio.run(check())
