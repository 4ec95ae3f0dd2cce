"""Writes written as plans (a game's final update with its result and ratings, settings, new games, timers): on a
SQLite file one hop each to the writer thread, never a pooled connection holding the write lock across event-loop
hops; on PostgreSQL the same statements in one transaction. Real databases, both back ends."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import sqlalchemy as sa

from bot.storage import Conflict, Scope, Store, TimerSpec
from bot.storage.dialects import Plan
from bot.storage.schema import result_players, results

SYSTEM = Scope.system()
DbUrl = tuple[str, str | None]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _open(db_url: DbUrl, **kwargs: Any) -> Store:
    url, schema = db_url
    return await Store.open(url, schema=schema, **kwargs)


async def _new_game(store: Store) -> int:
    row = await store.create_game(
        guild_id="g1", status="active", variant="backgammon", setup={"sides": [["a"], ["b"]]}, players={"a": 0}
    )
    return row.id


def _final(store: Store, game_id: int, threads: list[str], winner: str = "a") -> Plan:
    """A finished match's statements, as the service's result writer makes them: ratings read and written on the
    ladder's lock, the result and its players."""
    threads.append(threading.current_thread().name)
    current = yield from store.ratings_plan(["a", "b"], "backgammon", "elo", "g1")
    for p in ("a", "b"):
        old = current.get(p)
        row = {
            "player_id": p,
            "guild_id": "g1",
            "variant": "backgammon",
            "system": "elo",
            "rating": (old["rating"] if old else 1500.0) + (10 if p == winner else -10),
            "experience": (old["experience"] if old else 0) + 1,
            "wins": (old["wins"] if old else 0) + (p == winner),
            "losses": (old["losses"] if old else 0) + (p != winner),
            "streak": 0,
            "updated_at": 1.0,
        }
        yield from store.put_rating_plan(row, exists=old is not None)
    yield from store.put_result_plan(
        game_id=game_id,
        guild_id="g1",
        variant="backgammon",
        length=3,
        data={"winner": 0},
        rated=True,
        finished_at=1.0,
        won={"a": winner == "a", "b": winner == "b"},
    )


async def _results(store: Store, game_id: int) -> list[tuple[str, bool]]:
    query = sa.select(result_players.c.player_id, result_players.c.won).where(result_players.c.game_id == game_id)
    return sorted(tuple(r) for r in await store.run(lambda conn: conn.execute(query)))


def test_a_final_update_with_its_result_and_ratings_is_one_transaction(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        game_id = await _new_game(store)
        threads: list[str] = []
        roll = {"type": "Roll", "by": "a", "dice": [3, 1]}
        # Seats and the result in the compare-and-swap's transaction.
        also = store.statements(lambda: _final(store, game_id, threads))
        v = await store.update_game(game_id, 0, new_actions=[roll], players={"b": 1}, also=also, status="finished")
        assert v == 1
        row = await store.load_game(game_id, scope=SYSTEM)
        assert row.status == "finished" and row.players == {"a": 0, "b": 1}
        assert await _results(store, game_id) == [("a", True), ("b", False)]
        ratings = {r["player_id"]: r for r in await _ratings(store)}
        assert (ratings["a"]["rating"], ratings["a"]["wins"], ratings["b"]["losses"]) == (1510.0, 1, 1)
        on_file = store.dialect == "sqlite"
        assert threads == ["gammonbot-sqlite-writer_0" if on_file else threading.current_thread().name]
        # A stale version: the plan never runs, nothing is written.
        other = await _new_game(store)
        with pytest.raises(Conflict):
            await store.update_game(
                other, 5, new_actions=[roll], also=store.statements(lambda: _final(store, other, threads))
            )
        assert len(threads) == 1 and await _results(store, other) == []
        # A plan that fails (the result is written twice) undoes the whole update: version, log, ratings, seats.
        again = store.statements(lambda: _final(store, game_id, threads, winner="b"))
        with pytest.raises(Exception, match="(?i)unique|duplicate"):
            await store.update_game(game_id, 1, new_actions=[roll], players={"c": 1}, also=again)
        after = await store.load_game(game_id, scope=SYSTEM)
        assert after.version == 1 and after.players == {"a": 0, "b": 1}
        assert len(await store.load_actions(game_id, scope=SYSTEM)) == 1
        assert {r["player_id"]: r["rating"] for r in await _ratings(store)} == {"a": 1510.0, "b": 1490.0}
        # The same plan runs on a connection as any ``also`` does (a caller's own transaction).
        await store.run(lambda conn: _drive(store, conn, other, threads))
        assert await _results(store, other) == [("a", True), ("b", False)]
        await store.close()

    run(go())


async def _drive(store: Store, conn: Any, game_id: int, threads: list[str]) -> None:
    await store.statements(lambda: _final(store, game_id, threads))(conn)


async def _ratings(store: Store) -> list[dict[str, Any]]:
    return await store.ratings_of("a", "elo", "g1") + await store.ratings_of("b", "elo", "g1")


def test_settings_new_games_timers_and_secrets_need_no_pooled_connection_on_a_sqlite_file(db_url: DbUrl) -> None:
    """With the pool's only connection held, the writes of a challenge still go through (on a SQLite file, each is
    one hop to the writer thread); on PostgreSQL they behave the same once the connection is free."""

    async def go() -> None:
        store = await _open(db_url, pool_size=1)
        game_id = await _new_game(store)
        on_file = store.dialect == "sqlite"

        async def writes() -> None:
            await store.save_player("p", "Pat")
            await store.save_player("p", "Pat Two", {"theme": "dark"})
            await store.save_guild_settings("g1", {"cap": 3})
            await store.add_timers(game_id, [TimerSpec("archive", 5.0, {"n": 1}), TimerSpec("reminder", 4.0)])
            await store.put_secret(game_id, "ab" * 16)
            await store.add_vacation("p", "g1", 1.0, 2.0)

        if on_file:
            async with store.engine.connect():  # the pool's only connection, held throughout
                await writes()
        else:
            await writes()
        assert await store.player_name("p") == "Pat Two"
        assert await store.player_settings("p") == {"theme": "dark"}
        assert await store.guild_settings("g1") == {"cap": 3}
        assert sorted(t.kind for t in await store.pending_timers(game_id)) == ["archive", "reminder"]
        assert await store.secret(game_id) == "ab" * 16
        assert await store.vacations_of("p", "g1") == [(1.0, 2.0)]
        made = await store.create_game(
            guild_id="g1", status="challenge", variant="backgammon", setup={}, players={"p": 0, "q": 1}
        )
        assert made.players == {"p": 0, "q": 1} and made.version == 0 and made.id > game_id
        count = sa.select(sa.func.count()).select_from(results)
        assert await store.run(lambda conn: conn.scalar(count)) == 0
        await store.close()

    run(go())
