"""The store under a database that does not answer, on a real SQLite file and a real PostgreSQL server.

A full pool, a statement stuck behind another connection's lock, a busy SQLite writer thread, a lost connection and
a stalled link: each call that cannot reach the database in time raises :class:`Unavailable` (never the driver's
TimeoutError), changes nothing, and leaves the store working once the database answers again. The timeouts are
small only to bound how long a test waits for the failure: the assertions are on outcomes, never on elapsed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from bot.storage import Scope, SqliteDialect, Store, TimerSpec, Unavailable

SYSTEM = Scope.system()
DbUrl = tuple[str, str | None]
ROLL = {"type": "Roll", "by": "a", "dice": [3, 1]}
#: Short: how long a test waits for the failure it provokes.
SHORT = 0.2
#: Long: how long a test lets a call that must succeed wait (it never takes that long unless something is wrong).
LONG = 30.0


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


async def _open(db_url: DbUrl, **kwargs: Any) -> Store:
    url, schema = db_url
    return await Store.open(url, schema=schema, settings_ttl=0, **kwargs)


async def _new_game(store: Store) -> int:
    row = await store.create_game(
        guild_id="g1", status="active", variant="backgammon", setup={"sides": [["a"], ["b"]]}, players={"a": 0, "b": 1}
    )
    return row.id


async def _noop(conn: object) -> None:
    return None


def _pg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


class Blocker:
    """Another connection, outside the store, holding the lock the store's writes to ``games`` need: on
    PostgreSQL ``LOCK TABLE games IN ACCESS EXCLUSIVE MODE`` (reads wait too), on SQLite a write transaction
    (``BEGIN IMMEDIATE``: writers wait, readers do not)."""

    def __init__(self, db_url: DbUrl) -> None:
        self.url, self.schema = db_url
        self.sqlite: sqlite3.Connection | None = None
        self.pg: Any = None

    async def hold(self) -> None:
        if self.url.startswith("sqlite"):
            self.sqlite = sqlite3.connect(sa.make_url(self.url).database or "", isolation_level=None)
            self.sqlite.execute("BEGIN IMMEDIATE")
        else:
            import asyncpg

            self.pg = await asyncpg.connect(_pg_dsn(self.url))
            await self.pg.execute("BEGIN")
            await self.pg.execute(f"LOCK TABLE {self.schema}.games IN ACCESS EXCLUSIVE MODE")

    async def release(self) -> None:
        if self.sqlite is not None:
            self.sqlite.execute("ROLLBACK")
            self.sqlite.close()
            self.sqlite = None
        if self.pg is not None:
            await self.pg.execute("ROLLBACK")
            await self.pg.close()
            self.pg = None


@contextlib.asynccontextmanager
async def blocked(db_url: DbUrl) -> AsyncIterator[Blocker]:
    blocker = Blocker(db_url)
    await blocker.hold()
    try:
        yield blocker
    finally:
        await blocker.release()


async def _unchanged(store: Store, game_id: int) -> None:
    """The game is as created: no update of it applied, not even in part."""
    row = await store.load_game(game_id, scope=SYSTEM)
    assert (row.version, row.snapshot, row.turn_player) == (0, None, None)
    assert await store.load_actions(game_id, scope=SYSTEM) == []
    assert await store.pending_timers(game_id) == []


def _is_unavailable(exc: BaseException) -> bool:
    return type(exc) is Unavailable and str(exc) == Unavailable.MESSAGE and exc.__cause__ is not None


# --- a full pool ------------------------------------------------------------------------------------------------
def test_a_full_pool_answers_unavailable_and_the_store_works_once_a_connection_is_free(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url, pool_size=1, acquire_timeout=SHORT, statement_timeout=LONG)
        game_id = await _new_game(store)
        calls: list[Coroutine[Any, Any, Any]]
        async with store.engine.connect():  # the pool's only connection, held
            calls = [
                store.load_game(game_id, scope=SYSTEM),
                store.update_game(game_id, 0, new_actions=[ROLL], also=_noop),
                store.games_of("a", scope=SYSTEM),
            ]
            if store.dialect == "postgresql":  # (on a SQLite file these go to its writer thread, not the pool)
                calls += [
                    store.update_game(game_id, 0, new_actions=[ROLL]),
                    store.player_settings("a"),
                    store.add_timers(game_id, [TimerSpec("archive", 1.0)]),
                ]
            for call in calls:
                with pytest.raises(Unavailable) as refused:
                    await call
                assert _is_unavailable(refused.value)
                assert isinstance(refused.value.__cause__, sa.exc.TimeoutError)  # the pool's, now bounded
        await _unchanged(store, game_id)
        assert await store.update_game(game_id, 0, new_actions=[ROLL], log_length=0) == 1
        assert await store.update_game(game_id, 1, new_actions=[ROLL], also=_noop) == 2
        await store.close()

    run(go())


def test_a_call_queued_behind_a_blocked_one_is_refused_and_the_blocked_one_completes(db_url: DbUrl) -> None:
    """The pool's one connection is taken by an update waiting for a lock another connection holds: a second call
    waits for the pool only the acquire timeout; the first completes once the lock is released (no worker dies)."""

    async def go() -> None:
        store = await _open(db_url, pool_size=1, acquire_timeout=SHORT, statement_timeout=LONG)
        game_id = await _new_game(store)
        other = await _new_game(store)
        checked_out = asyncio.Event()
        event.listen(store.engine.sync_engine, "checkout", lambda *_: checked_out.set())
        async with blocked(db_url) as blocker:
            # The general path (a transaction on a pooled connection) on SQLite, whose fast path has its own thread.
            also = _noop if store.dialect == "sqlite" else None
            first = asyncio.create_task(store.update_game(game_id, 0, new_actions=[ROLL], log_length=0, also=also))
            await checked_out.wait()
            with pytest.raises(Unavailable) as refused:
                await store.load_game(other, scope=SYSTEM)
            assert isinstance(refused.value.__cause__, sa.exc.TimeoutError)
            assert not first.done()
            await blocker.release()
            assert await first == 1
        assert (await store.load_game(other, scope=SYSTEM)).version == 0
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM)] == [1]
        await store.close()

    run(go())


def test_a_burst_against_a_blocked_database_is_all_refused_then_all_served(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url, pool_size=2, acquire_timeout=SHORT, statement_timeout=SHORT)
        ids = [await _new_game(store) for _ in range(12)]
        async with blocked(db_url):
            results = await asyncio.gather(
                *(store.update_game(g, 0, new_actions=[ROLL], log_length=0) for g in ids),
                *(store.update_game(g, 0, new_actions=[ROLL], log_length=0, also=_noop) for g in ids),
                return_exceptions=True,
            )
        assert all(_is_unavailable(r) for r in results), [r for r in results if not _is_unavailable(r)]
        for g in ids:
            await _unchanged(store, g)
            assert await store.update_game(g, 0, new_actions=[ROLL], log_length=0) == 1
        await store.close()

    run(go())


# --- a statement stuck behind a lock ----------------------------------------------------------------------------
def test_a_statement_waiting_for_a_lock_is_cut_off_by_the_statement_timeout(db_url: DbUrl) -> None:
    """A write (on SQLite; on PostgreSQL a read too) waiting for another connection's lock: the statement timeout
    cancels it, the call raises Unavailable, the game row and its log and timers are unchanged (the compare-and-swap
    is all or nothing), and the next update works on the pool's same single connection."""

    async def go() -> None:
        store = await _open(db_url, pool_size=1, acquire_timeout=LONG, statement_timeout=SHORT)
        game_id = await _new_game(store)
        timers = [TimerSpec("timeout", 50.0, {"side": 0})]
        async with blocked(db_url):
            calls = [
                store.update_game(game_id, 0, new_actions=[ROLL], timers=timers, snapshot={"x": 1}),  # the fast path
                store.update_game(game_id, 0, new_actions=[ROLL], timers=timers, also=_noop),  # the general path
                store.update_setup(game_id, lambda setup: {**setup, "thread": "t"}),
            ]
            if store.dialect == "postgresql":
                calls.append(store.load_game(game_id, scope=SYSTEM))
            else:
                calls.append(store.save_player("a", "Alice"))
            for call in calls:
                with pytest.raises(Unavailable) as refused:
                    await call
                assert _is_unavailable(refused.value)
        await _unchanged(store, game_id)
        assert (await store.load_game(game_id, scope=SYSTEM)).setup == {"sides": [["a"], ["b"]]}
        assert await store.update_game(game_id, 0, new_actions=[ROLL], timers=timers, snapshot={"x": 1}) == 1
        assert await store.update_game(game_id, 1, new_actions=[ROLL], also=_noop) == 2
        assert [t.kind for t in await store.pending_timers(game_id)] == ["timeout"]
        assert [a.seq for a in await store.load_actions(game_id, scope=SYSTEM)] == [1, 2]
        await store.close()

    run(go())


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_postgres_cancels_a_slow_statement_on_the_server_and_keeps_the_connection(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url, pool_size=1, acquire_timeout=LONG, statement_timeout=SHORT)

        async def pid(conn: Any) -> int:
            return int((await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar())

        before = await store.run(pid)
        with pytest.raises(Unavailable) as refused:
            await store.run(lambda conn: conn.execute(sa.text("SELECT pg_sleep(30)")))
        assert getattr(refused.value.__cause__, "orig", None) is not None
        assert refused.value.__cause__.orig.sqlstate == "57014"  # type: ignore[union-attr]  # query_canceled
        assert await store.run(pid) == before  # rolled back and reused, not discarded
        await store.close()

    run(go())


# --- SQLite: its writer thread ----------------------------------------------------------------------------------
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_sqlite_work_waiting_for_a_busy_writer_thread_is_withdrawn_after_the_acquire_timeout(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url, acquire_timeout=SHORT, statement_timeout=LONG)
        assert isinstance(store.backend, SqliteDialect) and store.backend.writer is not None
        game_id = await _new_game(store)
        release, started = threading.Event(), threading.Event()

        def stuck() -> None:
            started.set()
            release.wait(LONG)

        occupying = store.backend.writer._thread.submit(stuck)
        started.wait(LONG)
        try:
            for call in (store.update_game(game_id, 0, new_actions=[ROLL]), store.player_settings("a")):
                with pytest.raises(Unavailable) as refused:
                    await call
                assert isinstance(refused.value.__cause__, TimeoutError)
        finally:
            release.set()
        await asyncio.wrap_future(occupying)
        await _unchanged(store, game_id)  # the withdrawn update never ran
        assert await store.update_game(game_id, 0, new_actions=[ROLL]) == 1
        await store.close()

    run(go())


# --- PostgreSQL: a lost connection, a stalled link ----------------------------------------------------------------
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_postgres_a_connection_the_server_ended_is_unavailable_once_then_replaced(db_url: DbUrl) -> None:
    async def go() -> None:
        import asyncpg

        store = await _open(db_url, pool_size=1)
        game_id = await _new_game(store)
        pid = await store.run(lambda conn: conn.scalar(sa.text("SELECT pg_backend_pid()")))
        admin = await asyncpg.connect(_pg_dsn(db_url[0]))
        try:
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        finally:
            await admin.close()
        with pytest.raises(Unavailable):
            await store.update_game(game_id, 0, new_actions=[ROLL])
        await _unchanged(store, game_id)
        assert await store.update_game(game_id, 0, new_actions=[ROLL]) == 1
        await store.close()

    run(go())


class Proxy:
    """A TCP relay to the PostgreSQL server that can stall: while stalled it loses whatever is sent either way (a
    cable pulled, a network partition), on the connections it has and on new ones."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.writers += [writer, up_writer]
        for a, b in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pump(a, b))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if self.flowing.is_set():
                    writer.write(data)
                    await writer.drain()
        writer.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self.tasks):
            task.cancel()
        for writer in self.writers:
            writer.close()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_postgres_a_stalled_link_is_given_up_on_and_its_connection_never_reused(db_url: DbUrl) -> None:
    """The server stops answering (nothing comes back, no error): the driver gives up on the statement, and on
    opening a new connection, within the timeouts; the stalled connection is closed, and once the link flows
    again the store works on a fresh one."""

    async def go() -> None:
        url, schema = db_url
        target = sa.make_url(url)
        proxy = Proxy(target.host or "127.0.0.1", target.port or 5432)
        port = await proxy.start()
        try:
            relayed = target.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
            store = await Store.open(
                relayed, schema=schema, pool_size=1, acquire_timeout=SHORT, statement_timeout=SHORT, settings_ttl=0
            )
            game_id = await _new_game(store)
            proxy.flowing.clear()
            with pytest.raises(Unavailable) as refused:
                await store.update_game(game_id, 0, new_actions=[ROLL])  # the fast path's raw statement
            assert isinstance(refused.value.__cause__, TimeoutError)
            with pytest.raises(Unavailable):  # a new connection: opening it times out too
                await store.load_game(game_id, scope=SYSTEM)
            proxy.flowing.set()
            row = await store.load_game(game_id, scope=SYSTEM)
            # The stalled update reached no server (the link forwarded nothing), so it did not apply.
            assert row.version == 0
            assert await store.update_game(game_id, 0, new_actions=[ROLL], also=_noop) == 1
            proxy.flowing.clear()
            with pytest.raises(Unavailable):  # the general path (a statement through SQLAlchemy)
                await store.update_game(game_id, 1, new_actions=[ROLL], also=_noop)
            proxy.flowing.set()
            assert await store.update_game(game_id, 1, new_actions=[ROLL], log_length=1) == 2
            await store.close()
        finally:
            await proxy.close()

    run(go())


def test_timeouts_must_be_positive(tmp_path: Any) -> None:
    async def go() -> None:
        for bad in (0, -1.0, float("inf"), float("nan")):
            with pytest.raises(ValueError, match="timeout"):
                await Store.open(f"sqlite:///{tmp_path / 'x.sqlite3'}", acquire_timeout=bad)

    run(go())
