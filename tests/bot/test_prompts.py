"""Prompts in storage (SQLite and PostgreSQL): each game's newest message with buttons, and the live games a restarted
bot goes through, a page at a time, for the servers it serves."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from bot.storage import MIGRATIONS, Prompt, Store

DbUrl = tuple[str, str | None]


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


async def _open(db_url: DbUrl) -> Store:
    url, schema = db_url
    return await Store.open(url, schema=schema)


async def _game(store: Store, guild: str, status: str = "active") -> int:
    row = await store.create_game(guild_id=guild, status=status, variant="backgammon", setup={}, players={"a": 0})
    return row.id


def test_a_prompt_is_replaced_by_the_newest_and_dropped_only_while_it_is_still_the_games(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        gid = await _game(store, "G")
        assert await store.prompt_of(gid) is None
        await store.set_prompt(gid, "10", "100", 3, ["1", "2"])
        assert await store.prompt_of(gid) == Prompt(gid, "10", "100", 3, ("1", "2"))
        await store.set_prompt(gid, "10", "101", 4, [])  # the next prompt replaces it
        assert await store.prompt_of(gid) == Prompt(gid, "10", "101", 4, ())
        await store.drop_prompt(gid, "100")  # an older message: the stored prompt stays
        assert (await store.prompt_of(gid)) is not None
        await store.drop_prompt(gid, "101")
        assert await store.prompt_of(gid) is None
        await store.drop_prompt(gid)  # nothing to drop: no error
        await store.close()

    run(go())


def test_prompts_written_at_once_leave_one_row_per_game(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        gid = await _game(store, "G")
        await asyncio.gather(*(store.set_prompt(gid, "10", str(200 + k), k, ["1"]) for k in range(8)))
        stored = await store.prompt_of(gid)
        assert stored is not None and stored.message_id == str(200 + stored.game_version)
        assert [g.game_id for g in await store.live_games(["G"])] == [gid]
        await store.close()

    run(go())


def test_live_games_are_the_active_ones_and_those_holding_a_prompt_of_the_servers_asked(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        active = [await _game(store, "A") for _ in range(5)]
        finished_with_prompt = await _game(store, "A", "finished")
        await _game(store, "A", "finished")  # no prompt: nothing to do there
        await _game(store, "A", "challenge")
        elsewhere = await _game(store, "B")
        await store.set_prompt(finished_with_prompt, "1", "2", 9, ["x"])
        await store.set_prompt(active[1], "1", "3", 1, [])
        # Many servers (more than one query's worth of ids), among them A.
        guilds = [str(n) for n in range(1200)] + ["A"]
        seen, after = [], 0
        while page := await store.live_games(guilds, after=after, limit=2):
            assert len(page) <= 2
            seen.extend(page)
            after = page[-1].game_id
        assert [g.game_id for g in seen] == sorted([*active, finished_with_prompt])
        assert all(g.guild_id == "A" for g in seen)
        by_id = {g.game_id: g for g in seen}
        assert by_id[finished_with_prompt].status == "finished"
        assert by_id[finished_with_prompt].prompt == Prompt(finished_with_prompt, "1", "2", 9, ("x",))
        assert by_id[active[1]].prompt is not None and by_id[active[0]].prompt is None
        assert [g.game_id for g in await store.live_games(["B"])] == [elsewhere]
        assert await store.live_games([]) == []
        await store.close()

    run(go())


def test_an_older_database_gains_the_prompts_table_and_keeps_its_games(db_url: DbUrl) -> None:
    async def go() -> None:
        url, schema = db_url
        old = await Store.open(url, schema=schema, migrations=MIGRATIONS[:3])
        gid = await _game(old, "A")
        await old.close()
        store = await _open(db_url)
        assert await store.migrate() == len(MIGRATIONS)
        assert [g.game_id for g in await store.live_games(["A"])] == [gid]
        await store.set_prompt(gid, "1", "2", 0, [])
        assert await store.prompt_of(gid) is not None
        await store.close()

    run(go())
