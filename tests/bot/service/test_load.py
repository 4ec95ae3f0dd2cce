"""Loading a game costs the same whatever its history: the service starts from the state stored with the last change
and never reads the record to load, fire a timer or act; the record is checked against that state when the match
ends (in a worker thread), and games stored before states were kept are still loaded (by a replay off the loop)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import sqlalchemy as sa

from bot.service import SYSTEM, GameService, Refused, Request, SeededDice
from bot.service.helpers import _summary
from bot.storage import Scope, Store
from engine import match as m
from engine.record import action_from_data, setup_from_data, state_to_data
from tests.bot.service.playing import next_action

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)
PEOPLE = {p.id: p for p in (ALICE, BOB)}


def run(db_url: tuple[str, str | None], body: Callable[[Store, GameService], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        try:
            return await body(store, GameService(store, dice=SeededDice(7)))
        finally:
            await store.close()

    return asyncio.run(go())


async def play(svc: GameService, gid: int, rng: random.Random, *, until_over: bool, steps: int = 400) -> None:
    for _ in range(steps):
        v = await svc.view(gid, SYSTEM)
        if v.status != "active":
            return
        await next_action(svc, v, PEOPLE[v.to_act or (v.acting[0] if v.acting else "alice")], rng.choice)
    assert not until_over, "the match did not end"


class Counting:
    """Counts the store's reads of game records (the action log, decoded or as one string)."""

    def __init__(self, store: Store) -> None:
        self.calls = 0
        for name in ("load_actions", "action_log", "load_game_and_actions"):
            setattr(store, name, self._counted(getattr(store, name)))

    def _counted(self, original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return await original(*args, **kwargs)

        return call


def test_a_long_game_loads_from_its_stored_state_without_reading_its_record(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, variant="backgammon", length=0)  # money play: it goes on
        gid = (await svc.accept(out.game.id, BOB)).game.id
        await play(svc, gid, random.Random(1), until_over=False, steps=120)
        logged = [action_from_data(a.action) for a in await store.load_actions(gid, scope=Scope.system())]
        assert len(logged) > 100
        counting = Counting(store)
        fresh = GameService(store, dice=SeededDice(7))  # another process, or after a restart
        view = await fresh.view(gid, ALICE)
        state = await fresh.state(gid, SYSTEM)
        assert counting.calls == 0  # loaded without the record
        row = await store.load_game(gid, scope=Scope.system())
        replayed = m.replay(setup_from_data(row.setup["match"]), logged)
        assert state_to_data(state) == state_to_data(replayed) and view.version == row.version
        # Acting on it reads no record either, and both services agree afterwards.
        await play(fresh, gid, random.Random(2), until_over=False, steps=6)
        assert counting.calls == 0
        assert (await GameService(store).view(gid, SYSTEM)).version == (await fresh.view(gid, SYSTEM)).version
        # What needs the record reads it on demand.
        await fresh.export(gid, ALICE)
        assert counting.calls == 1

    run(db_url, body)


def test_a_game_stored_in_the_first_format_is_replayed_and_then_stored_anew(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, variant="sprintgammon", length=3)
        gid = (await svc.accept(out.game.id, BOB)).game.id
        await play(svc, gid, random.Random(3), until_over=False, steps=15)
        state = await svc.state(gid, SYSTEM)
        # The row as an older gammonbot wrote it: a summary, no state.
        async with store.engine.begin() as conn:
            await conn.execute(
                sa.text("UPDATE games SET snapshot = :s WHERE id = :id"),
                {"s": json.dumps(_summary(state)), "id": gid},
            )
        fresh = GameService(store, dice=SeededDice(7))
        assert state_to_data(await fresh.state(gid, SYSTEM)) == state_to_data(state)
        await play(fresh, gid, random.Random(4), until_over=False, steps=3)
        row = await store.load_game(gid, scope=Scope.system())
        assert row.snapshot is not None and row.snapshot.get("v") == 2  # the next change stored the whole state

    run(db_url, body)


def test_a_tampered_record_is_caught_when_the_match_ends(
    db_url: tuple[str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    async def body(store: Store, svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, variant="sprintgammon", length=1)
        gid = (await svc.accept(out.game.id, BOB)).game.id
        await play(svc, gid, random.Random(5), until_over=True)
        final = await svc.state(gid, SYSTEM)
        assert await svc._check_record(gid, final)  # the match as played agrees with its record
        async with store.engine.begin() as conn:
            rows = (
                await conn.execute(sa.text("SELECT seq, action FROM actions WHERE game_id = :id"), {"id": gid})
            ).all()
            seq, text = next((s, a) for s, a in rows if json.loads(a)["type"] == "Move" and json.loads(a)["moves"])
            changed = json.loads(text)
            changed["moves"] = changed["moves"][:-1]
            await conn.execute(
                sa.text("UPDATE actions SET action = :a WHERE game_id = :id AND seq = :seq"),
                {"a": json.dumps(changed), "id": gid, "seq": seq},
            )
        with caplog.at_level(logging.ERROR, logger="gammonbot.service"):
            assert not await svc._check_record(gid, final)
        assert any("does not replay" in r.getMessage() for r in caplog.records)

    run(db_url, body)


def test_an_unreadable_stored_state_falls_back_to_the_record(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, variant="sprintgammon", length=3)
        gid = (await svc.accept(out.game.id, BOB)).game.id
        await play(svc, gid, random.Random(6), until_over=False, steps=9)
        state = await svc.state(gid, SYSTEM)
        async with store.engine.begin() as conn:
            await conn.execute(
                sa.text("UPDATE games SET snapshot = :s WHERE id = :id"),
                {"s": json.dumps({"v": 2, "state": {"v": 99}, "counters": {}}), "id": gid},
            )
        fresh = GameService(store)
        assert state_to_data(await fresh.state(gid, SYSTEM)) == state_to_data(state)
        with pytest.raises(Refused, match="there is no game #999"):
            await fresh.view(999, SYSTEM)

    run(db_url, body)
