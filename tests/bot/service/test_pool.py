"""The service's worker processes (bot/service/pool.py): a job done in a worker gives exactly what the same job gives
in a thread (exports, replays, match cards and pictures, dice, a bot player's choice), a worker answers in the
caller's language and with the service's plugins (entry points and ``GAMMONBOT_PLUGINS`` included) or leaves the job
to a thread, and the workers stop when the service closes."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bot.config import ConfigError, LimitSettings, settings_from_mapping
from bot.service import SYSTEM, GameService, Request, SeededDice, service_for
from bot.service.helpers import SNAPSHOT_VERSION, _to_act
from bot.service.pool import POOL_FROM_ACTIONS, WORKER_NICENESS, WorkPool, choose_action, export_record, replay_record
from bot.storage import Scope, Store, games
from bot.storage.rows import dump
from engine import i18n, plugins
from engine import match as m
from engine.dice import RandomDice
from engine.fairdice import dice_stats, player_rolls
from engine.plugins import build_plugin_manager, find_player, registry, reset_registry
from engine.record import action_from_data, action_to_data, log_counters, setup_from_data, state_to_data
from engine.selfplay import RandomPlayer
from tests.bot.service.playing import next_action
from variants.bgsage_player import BgsagePlayer

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)
LONG = POOL_FROM_ACTIONS + 60  # a record long enough for a worker


def threads(store: Store, **options: Any) -> GameService:
    return GameService(store, dice=SeededDice(7), limits=LimitSettings(worker_processes=0), **options)


async def workers(store: Store, **options: Any) -> GameService:
    """A service whose worker process is up (normally the first large job starts it, and waits for nothing)."""
    svc = GameService(store, dice=SeededDice(7), limits=LimitSettings(worker_processes=1), **options)
    assert await svc.work.start()
    return svc


def self_played(setup: m.MatchSetup, n: int, seed: int = 1) -> tuple[m.MatchState, list[m.Action]]:
    """A record of at least ``n`` actions (random legal plays, doubles, takes...), cut where a request could stop."""
    state = m.replay(setup, [])
    rng = random.Random(seed)
    dice, player = RandomDice(seed), RandomPlayer(rng)
    acts: list[m.Action] = []
    while len(acts) < n or (state.phase is m.Phase.MOVE and len(state.legal_plays()) == 1):
        assert not state.over, "a money session does not end"
        action = player.choose(state, dice)
        state = m.apply(state, action)
        acts.append(action)
    return state, acts


def as_log(acts: list[m.Action]) -> str:
    """A record as Store.action_log gives it: a line per action, its number, a tab, its JSON text."""
    return "\n".join(f"{seq}\t{dump(action_to_data(a))}" for seq, a in enumerate(acts, 1))


def money_setup(variant: str) -> m.MatchSetup:
    return m.MatchSetup(registry().get(variant), (("alice",), ("bob",)), m.MatchOptions(length=0))


async def long_game(svc: GameService, n: int = LONG) -> int:
    """A money session between Alice and Bob with a record of ``n`` actions, written as the service writes a change."""
    out = await svc.challenge(ALICE, BOB, variant="backgammon", length=0)
    gid = (await svc.accept(out.game.id, BOB)).game.id
    row = await svc.store.load_game(gid, scope=Scope.system())
    state, acts = self_played(setup_from_data(row.setup["match"]), n)
    await svc.store.update_game(
        gid,
        row.version,
        new_actions=[action_to_data(a) for a in acts],
        log_length=0,
        snapshot={"v": SNAPSHOT_VERSION, "state": state_to_data(state), "counters": log_counters(acts)},
        status="active",
        turn_player=_to_act(state),
        draft=None,
    )
    svc._forget(gid)
    return gid


def run(tmp_path: Path, body: Callable[[Store], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        store = await Store.open(f"sqlite:///{tmp_path / 'games.sqlite3'}")
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(go())


def test_a_long_record_gives_the_same_export_replays_card_and_dice_in_a_worker(tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        here = threads(store)
        gid = await long_game(here)
        there = await workers(store)
        try:
            n = len(await store.load_actions(gid, scope=Scope.system()))
            assert n >= POOL_FROM_ACTIONS
            exported = await here.export(gid, ALICE)
            assert exported.count("\n") > 50
            assert await there.export(gid, ALICE) == exported
            assert await there.ids_at(gid, ALICE, n - 7) == await here.ids_at(gid, ALICE, n - 7)
            # Dice statistics read the tallies kept as the games are played; a game from before they were kept
            # (its tally cleared here) is counted from its record once, in a worker, and its tally stored.
            kept = await here.dice_stats(ALICE)
            async with store.engine.begin() as conn:
                await conn.execute(games.update().values(dice=None))
            assert await there.dice_stats(ALICE) == kept == await here.dice_stats(ALICE)
            rolls = player_rolls([action_from_data(a) for a in (await here.record(gid, SYSTEM))["actions"]], ALICE.id)
            assert kept == dice_stats(rolls) and kept.rolls > 10
            final = await here.state(gid, SYSTEM)
            assert await there._check_record(gid, final) and await here._check_record(gid, final)
            with i18n.use(i18n.PSEUDO):  # the worker speaks the caller's language
                card = await here.match_card(gid, ALICE, analysis=False)
                assert i18n.PSEUDO_OPEN in card.alt_text
                assert await there.match_card(gid, ALICE, analysis=False) == card
            assert await there.replay(gid, ALICE, 1) == await here.replay(gid, ALICE, 1)
            assert there.work.answered >= 6 and here.work.answered == 0  # each job above went to the worker
        finally:
            await there.close()

    run(tmp_path, body)


def test_a_game_whose_stored_state_is_unreadable_replays_the_same_in_a_worker(tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        gid = await long_game(threads(store))
        kept = state_to_data(await threads(store).state(gid, SYSTEM))
        async with store.engine.begin() as conn:
            await conn.execute(
                sa.text("UPDATE games SET snapshot = :s WHERE id = :id"),
                {"s": json.dumps({"v": SNAPSHOT_VERSION, "state": {"v": 99}, "counters": {}}), "id": gid},
            )
        there = await workers(store)
        try:
            replayed_there = await there.state(gid, SYSTEM)
            assert there.work.answered == 1
            replayed_here = await threads(store).state(gid, SYSTEM)
            assert replayed_there == replayed_here
            assert state_to_data(replayed_there) == state_to_data(replayed_here) == kept
            assert (await there._load(gid, SYSTEM)).counters == (await threads(store)._load(gid, SYSTEM)).counters
        finally:
            await there.close()

    run(tmp_path, body)


def _playing(spec: str) -> str:
    player = find_player(spec)
    if player.unavailable:
        pytest.skip(player.unavailable)
    return spec


def test_a_seeded_bot_player_chooses_the_same_in_a_worker_as_in_a_thread() -> None:
    bot = _playing("casual")  # bgsage's network with seeded noise: the player's random state must travel
    state, _acts = self_played(money_setup("backgammon"), 41, seed=5)
    rng, dice = random.Random(5), RandomDice(5)
    while state.phase is not m.Phase.MOVE or len(state.legal_plays()) < 2:  # a position with a choice to make
        state = m.apply(state, RandomPlayer(rng).choose(state, dice))
    side = state.roller
    assert side is not None

    async def go() -> None:
        pool = WorkPool(1)
        assert await pool.start()
        try:
            here = find_player(bot).create(12)
            there = find_player(bot).create(12)
            for _ in range(3):  # the same choices, one after another: the random state came back each time
                chosen_here, here = await WorkPool(0).run(choose_action, (here, state), (side, 3.0), large=True)
                chosen_there, there = await pool.run(choose_action, (there, state), (side, 3.0), large=True)
                assert chosen_there == chosen_here and isinstance(chosen_here, m.Move)
            assert isinstance(here, BgsagePlayer) and isinstance(there, BgsagePlayer)
            assert there.rng.getstate() == here.rng.getstate()
            assert pool.answered == 3
        finally:
            await pool.close()

    asyncio.run(go())


def test_a_match_against_a_bot_is_played_the_same_with_workers(tmp_path: Path) -> None:
    bot = _playing("casual")

    async def play(store: Store, svc: GameService) -> list[dict[str, Any]]:
        rng = random.Random(3)
        out = await svc.challenge(ALICE, None, variant="backgammon", length=1, bot=bot)
        gid = out.game.id
        for _ in range(400):
            if out.game.status != "active":
                break
            out = await next_action(svc, out.game, ALICE, rng.choice)
        assert out.game.status == "finished"
        return [a.action for a in await store.load_actions(gid, scope=Scope.system())]

    async def go() -> None:
        here_store = await Store.open(f"sqlite:///{tmp_path / 'here.sqlite3'}")
        there_store = await Store.open(f"sqlite:///{tmp_path / 'there.sqlite3'}")
        there = await workers(there_store)
        try:
            played_here = await play(here_store, threads(here_store))
            played_there = await play(there_store, there)
            assert played_there == played_here
            assert any(a["by"].startswith("bot:") and a["type"] == "Move" for a in played_here)
            assert there.work.answered > 0
        finally:
            await there.close()
            await here_store.close()
            await there_store.close()

    asyncio.run(go())


def test_a_worker_loads_the_plugins_of_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nackgammon comes from an entry point (tests/plugins/nackgammon); a worker serves its records, and a worker
    started under GAMMONBOT_PLUGINS loads what the service loaded."""
    if not registry().has("nackgammon"):
        pytest.skip("the Nackgammon test plugin is not installed")
    setup = money_setup("nackgammon")
    state, acts = self_played(setup, LONG, seed=9)
    data = as_log(acts)

    async def served(pool: WorkPool) -> tuple[m.MatchState, str]:
        replayed = await pool.run(replay_record, (setup,), (data,), large=True)
        return replayed, await pool.run(export_record, (setup,), (data,), large=True)

    async def go(processes: int) -> tuple[m.MatchState, str, int]:
        pool = WorkPool(processes)
        try:
            if processes:
                assert await pool.start()
            replayed, text = await served(pool)
            return replayed, text, pool.answered
        finally:
            await pool.close()

    replayed, text, answered = asyncio.run(go(1))
    assert answered == 2 and replayed == state
    assert asyncio.run(go(0))[:2] == (replayed, text)

    names = ",".join(name for name, _module in plugins.DEFAULT_PLUGINS)  # the built-in plugins only
    monkeypatch.setenv(plugins.ENV_PLUGINS, names)
    reset_registry()
    try:
        assert not registry().has("nackgammon")
        backgammon = money_setup("backgammon")
        state, acts = self_played(backgammon, LONG, seed=10)

        async def limited() -> int:
            pool = WorkPool(1)
            try:
                assert await pool.start()
                replayed = await pool.run(replay_record, (backgammon,), (as_log(acts),), large=True)
                assert replayed == state
                return pool.answered
            finally:
                await pool.close()

        assert asyncio.run(limited()) == 1  # the worker left Nackgammon out too: the same registry
    finally:
        monkeypatch.delenv(plugins.ENV_PLUGINS)
        reset_registry()


def test_a_worker_with_other_plugins_leaves_the_job_to_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry the worker cannot build the same way (here: one changed by hand) is never served by it."""
    setup = money_setup("backgammon")
    state, acts = self_played(setup, LONG, seed=11)
    data = as_log(acts)

    async def go() -> None:
        pool = WorkPool(1)
        try:
            assert await pool.start()
            changed = dataclasses.replace(build_plugin_manager()[1])
            changed.players = {name: spec for name, spec in changed.players.items() if name != "random"}
            monkeypatch.setattr(plugins, "_default", changed)
            assert await pool.run(replay_record, (setup,), (data,), large=True) == state
            assert pool.answered == 0  # done in a thread
            monkeypatch.undo()
            assert await pool.run(replay_record, (setup,), (data,), large=True) == state
            assert pool.answered == 1
        finally:
            await pool.close()

    asyncio.run(go())


def test_the_workers_stop_when_the_service_closes(tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        svc = await workers(store)
        gid = await long_game(svc)
        exported = await svc.export(gid, ALICE)
        assert svc.work.answered == 1
        pids = svc.work.pids
        assert pids and all(_alive(pid) for pid in pids)
        if hasattr(os, "getpriority"):  # below the service's CPU priority: on a busy machine the event loop runs first
            mine = os.getpriority(os.PRIO_PROCESS, 0)
            assert all(os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + WORKER_NICENESS) for pid in pids)
        await svc.close()
        assert not svc.work.running and not any(_alive(pid) for pid in pids)
        # Closed, the service still answers: the work is done in a thread, and no worker starts again.
        assert await svc.export(gid, ALICE) == exported
        assert not svc.work.running and svc.work.answered == 1

    run(tmp_path, body)


def test_without_workers_nothing_starts(tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        svc = threads(store)
        gid = await long_game(svc)
        assert "Alice" in await svc.export(gid, ALICE)
        assert not await svc.work.start() and not svc.work.running and svc.work.pids == []

    run(tmp_path, body)


def test_config_toml_sets_the_number_of_worker_processes(tmp_path: Path) -> None:
    assert settings_from_mapping({}).limits.worker_processes == LimitSettings().worker_processes == 4
    settings = settings_from_mapping({"limits": {"worker_processes": 0}}, source="config.toml")
    with pytest.raises(
        ConfigError, match=r"config.toml: \[limits\] worker_processes must be a whole number from 0 to 64"
    ):
        settings_from_mapping({"limits": {"worker_processes": -1}}, source="config.toml")

    async def body(store: Store) -> None:
        assert service_for(store, settings).work.processes == 0
        three = settings_from_mapping({"limits": {"worker_processes": 3}})
        assert service_for(store, three).work.processes == 3

    run(tmp_path, body)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_no_worker_outlives_a_killed_service(tmp_path: Path) -> None:
    """The service's process is killed (SIGKILL) while a worker is in the middle of a job: every worker dies with it,
    the busy one too (on Linux: the kernel kills a worker whose fork server is gone)."""
    import signal
    import subprocess
    import sys
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("workers die with their parent through Linux's prctl")
    marker, release = tmp_path / "running", tmp_path / "release"
    root = Path(__file__).resolve().parents[3]
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.bot.pool_child", str(marker), str(release)],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("PIDS "), line
        pids = [int(p) for p in line.split()[1:]]
        assert len(pids) == 3 and all(_running(pid) for pid in pids)
        while not marker.exists():  # a worker is in the middle of its job
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
        deadline = time.monotonic() + 120  # a net under a hung machine; they go within a moment
        while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in pids if _running(pid)], "workers outlived the killed service"
    finally:
        release.write_text("go")
        if child.poll() is None:
            child.kill()


def _running(pid: int) -> bool:
    """Whether a process runs (a zombie, dead and waiting for its parent to reap it, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
