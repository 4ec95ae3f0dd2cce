"""Storage on a real SQLite file and a real PostgreSQL server: migrations, compare-and-swap, the action log."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
import sqlalchemy as sa

from bot.storage import MIGRATIONS, Conflict, NotFound, Scope, Store, log_lines

SYSTEM = Scope.system()


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
        row = await store.load_game(game_id, scope=SYSTEM)
        assert row.version == 0 and row.players == {"a": 0, "b": 1} and row.setup == {"sides": [["a"], ["b"]]}
        v1 = await store.update_game(
            game_id, 0, new_actions=[{"type": "Roll", "by": "a", "dice": [3, 1]}], snapshot={"x": 1}
        )
        v2 = await store.update_game(game_id, v1, new_actions=[{"type": "Double", "by": "b"}], turn_player="a")
        assert (v1, v2) == (1, 2)
        row = await store.load_game(game_id, scope=SYSTEM)
        assert row.snapshot == {"x": 1} and row.turn_player == "a" and row.version == 2
        log = await store.load_actions(game_id, scope=SYSTEM)
        assert [(a.seq, a.action["type"]) for a in log] == [(1, "Roll"), (2, "Double")]
        # Read backwards a piece at a time: the last actions, those before a number.
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM, last=1)] == [2]
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM, last=5)] == [1, 2]
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM, last=1, before=2)] == [1]
        assert await store.load_actions(game_id, scope=SYSTEM, last=1, before=1) == []
        with pytest.raises(NotFound):
            await store.load_actions(game_id, scope=Scope.server("elsewhere"), last=1)
        with pytest.raises(Conflict):
            await store.update_game(game_id, v1, new_actions=[{"type": "Take", "by": "a"}])
        assert len(await store.load_actions(game_id, scope=SYSTEM)) == 2
        with pytest.raises(NotFound):
            await store.load_game(9999, scope=SYSTEM)
        await store.close()

    run(go())


def test_the_log_as_one_string_is_in_order_and_scoped(db_url: tuple[str, str | None]) -> None:
    """Store.action_log: a line per action (number, tab, JSON text) in log order, the same actions load_actions
    decodes, or the first few; a game outside the scope (or missing) is NotFound, a game without actions ""."""

    async def go() -> None:
        store = await _open(db_url)
        game_id = await _new_game(store)
        assert await store.action_log(game_id, scope=SYSTEM) == "" and log_lines("") == []
        version = 0
        for k in range(12):  # 10 after 9: in the numbers' order, not the texts'
            note = "tab\there, line\nthere"  # stored escaped (JSON): one line per action still
            version = await store.update_game(
                game_id, version, new_actions=[{"type": "Roll", "by": "a", "dice": [k], "note": note}]
            )
        log = await store.action_log(game_id, scope=Scope.server("g1"))
        assert isinstance(log, str) and log.count("\n") == 11
        lines = log_lines(log)
        assert [seq for seq, _text in lines] == list(range(1, 13))
        stored = await store.load_actions(game_id, scope=SYSTEM)
        assert [json.loads(text) for _seq, text in lines] == [a.action for a in stored]
        assert [json.loads(text)["dice"] for _seq, text in lines] == [[k] for k in range(12)]
        assert await store.action_log(game_id, scope=Scope.dm("a")) == log
        assert log_lines(await store.action_log(game_id, scope=SYSTEM, first=10)) == lines[:10]
        assert await store.action_log(game_id, scope=SYSTEM, first=0) == ""
        shuffled = "\n".join(reversed(log.split("\n")))  # however a database joins them: back in order
        assert log_lines(shuffled) == lines
        for outside in (Scope.server("g2"), Scope.dm("c")):
            with pytest.raises(NotFound):
                await store.action_log(game_id, scope=outside)
        with pytest.raises(NotFound):
            await store.action_log(9999, scope=SYSTEM)
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
        listed = [g.id for g in await store.games_of("a", scope=SYSTEM)]
        assert listed == [a, b]
        await store.update_game(b, 0, status="finished")
        assert [g.id for g in await store.games_of("a", scope=SYSTEM)] == [a]
        assert [g.id for g in await store.games_of("a", scope=SYSTEM, statuses=("finished",))] == [b]
        await store.close()

    run(go())


def test_the_database_orders_and_bounds_a_players_list(db_url: tuple[str, str | None]) -> None:
    """games_of puts first what may wait for the player (as ``may_wait_for`` judges a stored row) and reads one page
    of the list at a time; typed digits pick games by number, a thread finds its game (match or team thread), and
    count_games_of counts the whole list."""
    from bot.service.results import may_wait_for

    # (status, seats, whose turn, waits for "a")
    kinds = [
        ("active", {"a": 0, "b": 1}, "a", True),  # her turn
        ("active", {"a": 0, "b": 1}, "b", False),  # her opponent's
        ("active", {"a": 0, "b": 1}, None, True),  # an opening roll: each side throws
        ("challenge", {"b": 0, "a": 1}, "a", True),  # a challenge to her
        ("challenge", {"a": 0, "b": 1}, "b", False),  # her challenge to b
        ("challenge", {"b": 0, "a": 0, "c": 1}, "a", True),  # b's teammate: she must still accept
        ("challenge", {"b": 0, "a": 0, "c": 1}, "c", False),  # the same, once she has accepted
        ("finished", {"a": 0, "b": 1}, None, False),  # not listed
    ]

    async def go() -> None:
        store = await _open(db_url)
        waits: dict[int, bool] = {}
        for _round in range(3):
            for status, seats, turn, waiting in kinds:
                row = await store.create_game(
                    guild_id="g1", status=status, variant="backgammon", setup={}, players=seats, turn_player=turn
                )
                if status != "finished":
                    waits[row.id] = waiting
        newest_first = await store.games_of("a", scope=SYSTEM)
        assert {r.id for r in newest_first} == set(waits)
        assert all(may_wait_for(r, "a") == waits[r.id] for r in newest_first)
        expected = [r.id for r in sorted(newest_first, key=lambda r: not waits[r.id])]
        ordered = await store.games_of("a", scope=SYSTEM, waiting_first=True)
        assert [r.id for r in ordered] == expected
        assert await store.count_games_of("a", scope=SYSTEM) == len(expected) == 21
        paged = [
            r.id
            for k in range(0, 25, 5)
            for r in await store.games_of("a", scope=SYSTEM, waiting_first=True, limit=5, offset=k)
        ]
        assert paged == expected
        assert await store.count_games_of("a", scope=Scope.server("g2")) == 0

        # Digits: the games whose number has them first, then the rest as before.
        digits = str(expected[-1])[-1]
        found = [r.id for r in await store.games_of("a", scope=SYSTEM, waiting_first=True, number_has=digits, limit=30)]
        having = [gid for gid in expected if digits in str(gid)]
        assert found[: len(having)] == having and set(found) == set(expected)

        # A thread: the game whose match thread it is, or one of whose team threads it may be.
        match, team = expected[0], expected[1]
        await store.update_game(match, (await store.load_game(match, scope=SYSTEM)).version, thread_id="7001")
        teams = {"team_threads": {"0": "7002", "1": "7003"}}
        await store.update_game(team, (await store.load_game(team, scope=SYSTEM)).version, setup=teams)
        assert [r.id for r in await store.games_of("a", scope=SYSTEM, thread="7001")] == [match]
        assert [r.id for r in await store.games_of("a", scope=SYSTEM, thread="7003")] == [team]
        assert await store.games_of("a", scope=SYSTEM, thread="7004") == []
        assert await store.games_of("d", scope=SYSTEM, thread="7001") == []  # not d's game
        await store.close()

    run(go())


def test_a_listed_game_reads_as_the_loaded_one(db_url: tuple[str, str | None]) -> None:
    """games_of's rows decode their JSON columns when read (a long list decodes almost none): read, each is what
    load_game gives; copied with dataclasses.replace, the copy is too."""
    import dataclasses

    async def go() -> None:
        store = await _open(db_url)
        gid = await _new_game(store)
        clock = {"running": 0, "left": [60.0, 60.0]}
        await store.update_game(gid, 0, draft=[[8, 5, False]], clock=clock, turn_player="a")
        loaded = await store.load_game(gid, scope=SYSTEM)
        (listed,) = await store.games_of("a", scope=SYSTEM)
        assert listed.snapshot is None and isinstance(listed.__dict__["setup"], str)  # not decoded yet
        for name in ("setup", "draft", "clock", "turn_player", "version", "players", "updated_at"):
            assert getattr(listed, name) == getattr(loaded, name), name
        assert listed.setup is listed.setup  # decoded once
        copy = dataclasses.replace(listed, version=9)
        assert (copy.setup, copy.clock, copy.version) == (loaded.setup, clock, 9)
        await store.close()

    run(go())


def test_a_game_update_is_one_transaction_on_every_path(db_url: tuple[str, str | None]) -> None:
    """The fast update (SQLite writer thread, PostgreSQL single statement) and the general one (``also``) store the
    same thing: the log numbered on (from the caller's ``log_length`` or the stored log), the timers replaced or
    kept, and nothing at all when the version does not match or a log number is taken."""

    async def go() -> None:
        from bot.storage import TimerSpec, actions

        store = await _open(db_url)
        game_id = await _new_game(store)
        from bot.storage import SqliteDialect

        fast_path = store.dialect == "postgresql" or (
            isinstance(store.backend, SqliteDialect) and store.backend.writer is not None
        )
        assert fast_path
        roll = {"type": "Roll", "by": "a", "dice": [3, 1]}
        v = await store.update_game(
            game_id, 0, new_actions=[roll, roll], log_length=0, timers=[TimerSpec("archive", 100.0, {"actions": 2})]
        )
        v = await store.update_game(game_id, v, new_actions=[roll])  # numbered from the stored log
        v = await store.update_game(game_id, v, new_actions=[roll], log_length=3, snapshot={"n": 4})
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM)] == [1, 2, 3, 4]
        # Timers: None keeps them; a list replaces the pending ones, in the same transaction, set for the new version.
        [timer] = await store.pending_timers(game_id)
        assert (timer.kind, timer.due_at, timer.game_version, timer.payload) == ("archive", 100.0, 1, {"actions": 2})
        v = await store.update_game(
            game_id,
            v,
            timers=[TimerSpec("timeout", 50.0, {"side": 0}), TimerSpec("reminder", 40.0, {"side": 0, "share": 0.5})],
        )
        pending = await store.pending_timers(game_id)
        assert [(t.kind, t.game_version) for t in pending] == [("reminder", v), ("timeout", v)]
        claimed = await store.claim_due_timers(45.0, "w")
        assert [t.kind for t in claimed] == ["reminder"]
        assert await store.finish_timers([claimed[0].id], "w", 45.0) == 1
        v = await store.update_game(game_id, v, timers=[])  # fired timers stay, pending ones go
        assert await store.pending_timers(game_id) == []
        # A stale version changes nothing (neither the log nor the timers), on either path.
        await store.update_game(game_id, v, timers=[TimerSpec("archive", 10.0)])
        for also in (None, _noop):
            with pytest.raises(Conflict):
                await store.update_game(game_id, v, new_actions=[roll], log_length=4, timers=[], also=also)
        assert len(await store.load_actions(game_id, scope=SYSTEM)) == 4
        assert [t.kind for t in await store.pending_timers(game_id)] == ["archive"]
        # A log number already taken (a wrong log_length) fails the whole update, on either path.
        row = await store.load_game(game_id, scope=SYSTEM)
        for also in (None, _noop):
            with pytest.raises(Exception, match="(?i)unique|duplicate"):
                await store.update_game(game_id, row.version, new_actions=[roll], log_length=2, timers=[], also=also)
        after = await store.load_game(game_id, scope=SYSTEM)
        assert after.version == row.version and after.snapshot == {"n": 4}
        assert [t.kind for t in await store.pending_timers(game_id)] == ["archive"]
        with pytest.raises(NotFound):
            await store.update_game(9999, 0, new_actions=[roll])
        # The general path (a finished match's extra statements) numbers on the same way.
        v = await store.update_game(game_id, row.version, new_actions=[roll], log_length=4, also=_noop)
        v = await store.update_game(game_id, v, new_actions=[roll], also=_noop)
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM)] == [1, 2, 3, 4, 5, 6]
        count = await store.run(
            lambda conn: conn.scalar(
                sa.select(sa.func.count()).select_from(actions).where(actions.c.game_id == game_id)
            )
        )
        assert count == 6
        await store.close()

    run(go())


async def _noop(conn: object) -> None:
    return None


def test_settings_are_cached_briefly_and_a_change_through_the_store_is_seen_at_once(
    db_url: tuple[str, str | None],
) -> None:
    async def go() -> None:
        url, schema = db_url
        store = await Store.open(url, schema=schema, settings_ttl=0.3)
        other = await Store.open(url, schema=schema)  # another process
        await store.save_player("p", "Pat", {"autoplay": True})
        assert await store.player_settings("p") == {"autoplay": True}
        await store.save_player("p", "Pat", {"autoplay": False})
        assert await store.player_settings("p") == {"autoplay": False}  # its own change: at once
        got = await store.player_settings("p")
        got["autoplay"] = "mutated"  # callers get their own copy
        assert await store.player_settings("p") == {"autoplay": False}
        await other.save_player("p", "Pat", {"autoplay": True})
        await other.save_guild_settings("g", {"x": 1})
        assert await store.player_settings("p") == {"autoplay": False}  # another process's change: after the TTL
        assert await store.guild_settings("g") == {"x": 1}  # not cached before: read now
        await asyncio.sleep(0.35)
        assert await store.player_settings("p") == {"autoplay": True}
        await other.forget_player("p", "someone", guild_id=None)
        await store.forget_player("p", "someone", guild_id=None)
        assert await store.player_settings("p") == {}
        await store.close()
        await other.close()

    run(go())


def test_a_burst_queues_for_the_pooled_connections_instead_of_opening_more(db_url: tuple[str, str | None]) -> None:
    async def go() -> None:
        from sqlalchemy import event

        url, schema = db_url
        store = await Store.open(url, schema=schema, pool_size=2, settings_ttl=0)
        await store.engine.dispose()
        opened = []
        event.listen(store.engine.sync_engine, "connect", lambda *_: opened.append(1))
        game_id = await _new_game(store)
        for _ in range(3):
            await asyncio.gather(
                *(store.load_game(game_id, scope=SYSTEM) for _ in range(30)),
                *(store.player_settings("p") for _ in range(30)),
            )
        assert len(opened) <= 2
        await store.close()

    run(go())


def test_an_update_cancelled_midway_leaves_the_store_usable(db_url: tuple[str, str | None]) -> None:
    """A request cancelled while its update is in flight: the update happened entirely or not at all, and the
    next one on the same (single) pooled connection works."""

    async def go() -> None:
        url, schema = db_url
        store = await Store.open(url, schema=schema, pool_size=1)
        game_id = await _new_game(store)
        roll = {"type": "Roll", "by": "a", "dice": [3, 1]}
        for pause in range(6):
            row = await store.load_game(game_id, scope=SYSTEM)
            n = len(await store.load_actions(game_id, scope=SYSTEM))
            task = asyncio.create_task(store.update_game(game_id, row.version, new_actions=[roll], log_length=n))
            for _ in range(pause):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await asyncio.sleep(0.05)  # a SQLite writer thread finishes what it started
            after = await store.load_game(game_id, scope=SYSTEM)
            log = await store.load_actions(game_id, scope=SYSTEM)
            assert (after.version, len(log)) in ((row.version, n), (row.version + 1, n + 1))
            v = await store.update_game(game_id, after.version, new_actions=[roll], log_length=len(log))
            assert v == after.version + 1
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM)] == list(range(1, len(log) + 2))
        await store.close()

    run(go())


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_connection_the_server_ended_is_not_reused(db_url: tuple[str, str | None]) -> None:
    """PostgreSQL ends a session (an administrator, a restart): the one request on it fails, the next works."""
    url, schema = db_url

    async def go() -> None:
        store = await Store.open(url, schema=schema, pool_size=1, settings_ttl=0)
        await store.save_player("p", "P", {"theme": "classic"})
        assert await store.player_settings("p") == {"theme": "classic"}
        async with store.engine.connect() as conn:  # the pool's one connection: learn its server process
            pid = (await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar()
        other = await Store.open(url, schema=schema)
        async with other.engine.connect() as conn:
            assert (await conn.execute(sa.text(f"SELECT pg_terminate_backend({int(pid)})"))).scalar()
        await other.close()
        with pytest.raises(Exception):  # noqa: B017 - the driver's error for a session the server ended
            await store.player_settings("p")
        assert await store.player_settings("p") == {"theme": "classic"}  # a fresh connection, not the dead one
        await store.close()

    run(go())
