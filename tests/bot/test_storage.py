"""Storage on a real SQLite file and a real PostgreSQL server: migrations, compare-and-swap, the action log."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import MIGRATIONS, Conflict, NotFound, Store


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


async def _open(db_url: tuple[str, str | None]) -> Store:
    url, schema = db_url
    return await Store.open(url, schema=schema)


async def _new_game(store: Store) -> int:
    row = await store.create_game(
        guild_id="g1", status="active", variant="backgammon", setup={"sides": [["a"], ["b"]]}, players={"a": 0, "b": 1}
    )
    return row.id


def test_an_empty_database_is_migrated_and_reopening_is_idempotent(db_url: tuple[str, str | None]) -> None:
    async def go() -> None:
        store = await _open(db_url)
        assert await store.migrate() == len(MIGRATIONS)
        await store.close()
        again = await _open(db_url)
        assert await again.migrate() == len(MIGRATIONS)
        await again.close()

    run(go())


def test_game_round_trip_and_versioned_updates(db_url: tuple[str, str | None]) -> None:
    async def go() -> None:
        store = await _open(db_url)
        game_id = await _new_game(store)
        row = await store.load_game(game_id)
        assert row.version == 0 and row.players == {"a": 0, "b": 1} and row.setup == {"sides": [["a"], ["b"]]}
        v1 = await store.update_game(
            game_id, 0, new_actions=[{"type": "Roll", "by": "a", "dice": [3, 1]}], snapshot={"x": 1}
        )
        v2 = await store.update_game(game_id, v1, new_actions=[{"type": "Double", "by": "b"}], turn_player="a")
        assert (v1, v2) == (1, 2)
        row = await store.load_game(game_id)
        assert row.snapshot == {"x": 1} and row.turn_player == "a" and row.version == 2
        log = await store.load_actions(game_id)
        assert [(a.seq, a.action["type"]) for a in log] == [(1, "Roll"), (2, "Double")]
        with pytest.raises(Conflict):
            await store.update_game(game_id, v1, new_actions=[{"type": "Take", "by": "a"}])
        assert len(await store.load_actions(game_id)) == 2
        with pytest.raises(NotFound):
            await store.load_game(9999)
        await store.close()

    run(go())


def test_two_concurrent_identical_writes_apply_exactly_once(db_url: tuple[str, str | None]) -> None:
    async def go() -> None:
        first = await _open(db_url)
        second = await _open(db_url)  # a second process's store on the same database
        game_id = await _new_game(first)

        async def write(store: Store) -> str:
            try:
                await store.update_game(game_id, 0, new_actions=[{"type": "Roll", "by": "a", "dice": [6, 5]}])
                return "applied"
            except Conflict:
                return "conflict"

        for _ in range(5):
            results = await asyncio.gather(write(first), write(second), write(first), write(second))
            assert sorted(results) == ["applied", "conflict", "conflict", "conflict"]
            game_id = await _new_game(first)
        await first.close()
        await second.close()

    run(go())


def test_player_and_guild_settings_are_upserted(db_url: tuple[str, str | None]) -> None:
    async def go() -> None:
        store = await _open(db_url)
        assert await store.player_settings("p") == {}
        await store.save_player("p", "Pat", {"autoplay": True})
        await store.save_player("p", "Pat the Great")
        assert await store.player_settings("p") == {"autoplay": True}
        assert await store.player_name("p") == "Pat the Great"
        await store.save_guild_settings("g", {"variants": ["backgammon"]})
        await store.save_guild_settings("g", {"variants": ["longgammon"]})
        assert await store.guild_settings("g") == {"variants": ["longgammon"]}
        await store.close()

    run(go())


def test_games_of_a_player_lists_active_games_newest_first(db_url: tuple[str, str | None]) -> None:
    async def go() -> None:
        store = await _open(db_url)
        a = await _new_game(store)
        b = await _new_game(store)
        await store.update_game(a, 0, status="active")
        listed = [g.id for g in await store.games_of("a")]
        assert listed == [a, b]
        await store.update_game(b, 0, status="finished")
        assert [g.id for g in await store.games_of("a")] == [a]
        assert [g.id for g in await store.games_of("a", statuses=("finished",))] == [b]
        await store.close()

    run(go())
