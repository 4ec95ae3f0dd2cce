"""The store: opening and migrating the database, and games (create, load within a scope, the unit of work)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .community import CommunityMixin
from .consultation import ConsultationMixin
from .dialects import GameUpdate, Plan, Step, Timeouts, dialect_for
from .parts import StoreBase, visible, waits_for
from .prompts import PromptsMixin
from .rows import (
    ID_MAX,
    ActionRow,
    Conflict,
    GameRow,
    GameStatus,
    ListedRow,
    NotFound,
    Scope,
    TimerSpec,
    Unavailable,
    dump,
    game_id_of,
    id_in_range,
    load,
)
from .schema import MIGRATIONS, Migration, actions, game_players, game_secrets, games, schema_version
from .servers import ServersMixin
from .timers import TimersMixin, timers_plan
from .tournaments import TournamentsMixin

__all__ = ["Store", "normalise_url"]

#: The advisory lock that several processes starting together take to migrate once (PostgreSQL).
MIGRATION_LOCK = 7302915

#: Game columns an update may set, and which of them hold JSON.
_JSON_COLUMNS = frozenset({"setup", "snapshot", "draft", "clock", "dice"})
_PLAIN_COLUMNS = frozenset({"status", "turn_player", "channel_id", "thread_id", "variant"})


#: Statements' parts made once: an alias or a subquery made per query is garbage in reference cycles (its columns,
#: their comparators, event dispatchers), which only the garbage collector frees, in pauses of the event loop.
#: The asker's own seat in the games of their list (Store.games_of).
_MINE = game_players.alias("mine")
#: A game's log, in order, as one string (Store.action_log): its game and last action number are bound per query.
_ORDERED_LOG = (
    sa.select(actions.c.seq, actions.c.action)
    .where(
        actions.c.game_id == sa.bindparam("log_game", type_=sa.Integer),
        actions.c.seq <= sa.bindparam("log_first", type_=sa.Integer),
    )
    .order_by(actions.c.seq)
    .subquery("log")
)
_LOG_LINE = sa.cast(_ORDERED_LOG.c.seq, sa.Text) + sa.literal("\t", sa.Text) + _ORDERED_LOG.c.action
_JOINED_LOG = sa.select(sa.func.aggregate_strings(_LOG_LINE, "\n")).select_from(_ORDERED_LOG).scalar_subquery()

_Method = TypeVar("_Method", bound=Callable[..., Awaitable[Any]])

#: Store coroutines that are not requests: opening, closing and migrating fail with the driver's own error.
_UNGUARDED = frozenset({"open", "close", "migrate"})


def _guarded(method: _Method) -> _Method:
    """``method``, raising :class:`Unavailable` for whatever the back end says means the database could not be
    reached in time (a pool or statement timeout, a lost connection) instead of the driver's error."""

    @functools.wraps(method)
    async def guarded(self: StoreBase, *args: Any, **kwargs: Any) -> Any:
        try:
            return await method(self, *args, **kwargs)
        except Unavailable:
            raise
        except Exception as exc:
            if self.backend.unreachable(exc):
                raise Unavailable() from exc
            raise

    return guarded  # type: ignore[return-value]


def _guard_requests(cls: type[StoreBase]) -> type[StoreBase]:
    """Guard every public coroutine method of ``cls`` (its own and its mixins') with :func:`_guarded`."""
    for name in dir(cls):
        if name.startswith("_") or name in _UNGUARDED:
            continue
        method = inspect.getattr_static(cls, name)
        if inspect.iscoroutinefunction(method):
            setattr(cls, name, _guarded(method))
    return cls


def normalise_url(url: str) -> str:
    """Accept plain ``sqlite:///`` and ``postgresql://`` URLs and pick the async drivers."""
    if url.startswith("sqlite:///") or url == "sqlite://":
        return "sqlite+aiosqlite" + url[len("sqlite") :]
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


#: Logs (and, divided by ten, lists of games) longer than this are decoded in a worker thread, not on the loop.
DECODE_ON_THE_LOOP = 200
#: Ids a statement lists at most (``IN (...)``); longer lists are read in several statements.
_IN_CHUNK = 500


class Store(CommunityMixin, TimersMixin, ConsultationMixin, PromptsMixin, TournamentsMixin, ServersMixin):
    """The game database. Create with :meth:`open`; every method is a coroutine.

    Every game lookup takes a :class:`Scope` (which server, or whose direct messages, asks): a game outside it is
    :class:`NotFound`, exactly like a missing one. Every call (but opening, migrating and closing) raises
    :class:`Unavailable` when the database cannot be reached in time (see :meth:`open`'s timeouts).
    """

    # --- lifecycle ----------------------------------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        sqlite_synchronous: str = "FULL",
        schema: str | None = None,
        echo: bool = False,
        settings_ttl: float = 5.0,
        pool_size: int | None = None,
        migrations: Sequence[Migration] | None = None,
        acquire_timeout: float = 30.0,
        statement_timeout: float = 2.0,
    ) -> Store:
        """Connect, configure (SQLite: WAL, busy timeout) and migrate an empty or older database.

        ``pool_size``: connections kept open (default 10 on PostgreSQL, 5 on a SQLite file); that many at most, so
        that a busy moment queues for a connection instead of opening and closing extra ones (on PostgreSQL each is
        a server process to start, and the driver's set-up). ``migrations``: apply only these (default: all of
        ``MIGRATIONS``; tests build an older database with fewer).

        The timeouts (seconds) bound how long a call waits for the database; past them it raises
        :class:`Unavailable` (so that a request can answer "try again" in time) and leaves no connection in a bad
        state, nor any write half-done. ``acquire_timeout``: waiting for a connection (a free one of the pool, a
        new one to open; on a SQLite file also for its writer thread to take a game update up).
        ``statement_timeout``: one statement, waits for locks included (PostgreSQL: the server's
        ``statement_timeout``, with the driver giving up on a stalled link half a second later; SQLite: its busy
        timeout). Migrations are not bounded by the statement timeout.
        """
        timeouts = Timeouts(acquire=acquire_timeout, statement=statement_timeout)
        parsed = sa.engine.make_url(normalise_url(url))
        if "schema" in parsed.query:  # postgresql://host/db?schema=name: tables live in that schema
            schema = schema or str(parsed.query["schema"])
            parsed = parsed.difference_update_query(["schema"])
        backend = dialect_for(parsed, sqlite_synchronous=sqlite_synchronous, timeouts=timeouts)
        engine = backend.create_engine(parsed, schema=schema, echo=echo, pool_size=pool_size)
        store = cls(engine, clock=clock, settings_ttl=settings_ttl, backend=backend)
        try:
            await store.migrate(migrations)
            await backend.start()
        except BaseException:
            await engine.dispose()
            raise
        return store

    async def close(self) -> None:
        await self.backend.close()
        await self.engine.dispose()

    async def migrate(self, migrations: Sequence[Migration] | None = None) -> int:
        """Apply the migrations this database lacks; returns the schema version now in force.

        On a connection of its own, without the statement timeout: a migration may take long, and so may waiting
        for another process that is migrating."""
        steps = MIGRATIONS if migrations is None else list(migrations)
        engine = self.backend.maintenance_engine()
        try:
            async with engine.begin() as conn:
                await self.backend.lock(conn, MIGRATION_LOCK)
                await conn.run_sync(lambda c: schema_version.create(c, checkfirst=True))
                current = (await conn.execute(sa.select(sa.func.max(schema_version.c.version)))).scalar() or 0
                for number, step in enumerate(steps, 1):
                    if number > current:
                        await conn.run_sync(step)
                        await conn.execute(schema_version.insert().values(version=number))
                return max(int(current), len(steps))
        finally:
            if engine is not self.engine:
                await engine.dispose()

    async def run(self, fn: Callable[[AsyncConnection], Awaitable[Any]]) -> Any:
        """Run ``fn(conn)`` in one transaction (for tests and maintenance tools)."""
        self._settings_changed()
        try:
            async with self.engine.begin() as conn:
                return await fn(conn)
        finally:
            self._settings_changed()

    # --- games: reading ---------------------------------------------------------------------------------------
    async def create_game(
        self,
        *,
        guild_id: str,
        status: GameStatus,
        variant: str,
        setup: dict[str, Any],
        players: dict[str, int | None],
        turn_player: str | None = None,
        snapshot: dict[str, Any] | None = None,
        channel_id: str | None = None,
        secret: str | None = None,
        timers: Sequence[TimerSpec] = (),
    ) -> GameRow:
        """A new game with its seats, and its dice ``secret`` (the seed, hex) and ``timers`` (set at version 0) when
        given: all in one transaction, so a game is never stored without the seed its challenge committed to."""
        now = self.clock()
        insert = games.insert().values(
            guild_id=guild_id,
            status=status,
            variant=variant,
            setup=dump(setup),
            version=0,
            snapshot=None if snapshot is None else dump(snapshot),
            turn_player=turn_player,
            channel_id=channel_id,
            created_at=now,
            updated_at=now,
        )

        def plan() -> Plan:
            game_id = yield Step("value", insert.returning(games.c.id))
            yield from _seats(int(game_id), players)
            if secret is not None:
                yield Step("count", game_secrets.insert().values(game_id=int(game_id), seed=secret))
            yield from timers_plan(int(game_id), 0, timers)
            return int(game_id)

        # One transaction (on a SQLite file: one hop to its writer thread).
        game_id = int(await self.backend.transaction(plan()))
        return await self.load_game(game_id, scope=Scope.system())

    def statements(self, build: Callable[[], Plan]) -> Statements:
        """Further statements for :meth:`update_game`'s transaction (its ``also``), written as a plan: on a SQLite
        file the whole update is then one hop to the writer thread. Callable on a connection like any ``also``."""
        return Statements(self, build)

    async def load_game(self, game_id: int, *, scope: Scope) -> GameRow:
        """A game as ``scope`` may see it: NotFound if it is missing or outside the scope."""
        game_id = game_id_of(game_id)
        async with self.engine.connect() as conn:
            return await self._load(conn, game_id, scope)

    async def load_games(self, game_ids: Sequence[int], *, scope: Scope) -> list[GameRow]:
        """The games of ``game_ids`` that ``scope`` may see, by id (missing ones left out): two statements however
        many (the scheduler reads the games of a batch of due timers so)."""
        ids = sorted({i for i in game_ids if id_in_range(i)})
        out: list[GameRow] = []
        for k in range(0, len(ids), _IN_CHUNK):
            chunk = ids[k : k + _IN_CHUNK]
            out += await self._select_games(sa.select(games).where(games.c.id.in_(chunk), *visible(scope)))
        return sorted(out, key=lambda r: r.id)

    async def load_game_and_actions(self, game_id: int, *, scope: Scope) -> tuple[GameRow, list[ActionRow]]:
        """A game and its action log as of one moment (read again if a write lands between the reads)."""
        game_id = game_id_of(game_id)
        for _ in range(20):
            async with self.engine.connect() as conn:
                row = await self._load(conn, game_id, scope)
                version, log = await self._actions(conn, game_id, scope)
            if version == row.version:
                return row, await _decode_log(log)
        raise Conflict(f"game #{game_id} keeps changing while being read")

    async def load_actions(
        self, game_id: int, *, scope: Scope, last: int | None = None, before: int | None = None
    ) -> list[ActionRow]:
        """A game's action log, in order: NotFound if the game is missing or outside the scope. ``last``: only the
        last that many actions (numbered below ``before``, when given), so a caller can read a long log backwards
        in bounded steps."""
        game_id = game_id_of(game_id)
        async with self.engine.connect() as conn:
            log = (await self._actions(conn, game_id, scope, last=last, before=before))[1]
        return await _decode_log(log)  # the connection is back in the pool meanwhile

    async def action_log(self, game_id: int, *, scope: Scope, first: int | None = None) -> str:
        """A game's action log as stored, in one string (its ``first`` actions, or all): a line per action, its
        number, a tab, its JSON text, in the order of the numbers (:func:`log_lines` reads it). The database joins
        the lines, so this process handles one string however long the log: no row object, nothing the garbage
        collector looks at; a worker process decodes it (bot/service/pool.py). NotFound if the game is missing or
        outside the scope."""
        game_id = game_id_of(game_id)
        query = sa.select(games.c.id, _JOINED_LOG).where(games.c.id == game_id, *visible(scope))
        bounds = {"log_game": game_id, "log_first": ID_MAX if first is None else max(0, min(first, ID_MAX))}
        async with self.engine.connect() as conn:
            row = (await conn.execute(query, bounds)).first()
        if row is None:
            raise NotFound(f"there is no game #{game_id}")
        return str(row[1] or "")

    async def games_of(
        self,
        player_id: str,
        *,
        scope: Scope,
        statuses: Sequence[GameStatus] = (GameStatus.CHALLENGE, GameStatus.ACTIVE),
        waiting_first: bool = False,
        number_has: str | None = None,
        thread: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[GameRow]:
        """The games a player sits in (or was challenged to) that ``scope`` may see, newest first. A list carries no
        snapshot (``snapshot`` is None: load a game for its state): a player in a thousand games reads a thousand
        rows, and their states would be most of what is read and decoded.

        The database orders and bounds the list, so a request reads only what it shows: ``number_has`` (digits)
        puts the games whose number contains them first; ``waiting_first`` then those that may wait for the player
        (``waits_for`` in :mod:`bot.storage.parts`); ``thread`` keeps only the games whose match thread, or one of
        whose team threads, may be that thread (the caller checks the team threads); ``limit`` and ``offset`` take
        one page."""
        query = _listed(player_id, scope, statuses, *(c for c in games.c if c.name != "snapshot"))
        if thread is not None:
            query = query.where(sa.or_(games.c.thread_id == thread, games.c.setup.contains(thread, autoescape=True)))
        order: list[sa.ColumnElement[Any]] = []
        if number_has:
            has = sa.cast(games.c.id, sa.Text).contains(number_has, autoescape=True)
            order.append(sa.case((has, 0), else_=1))
        if waiting_first:
            order.append(sa.case((waits_for(player_id, _MINE.c.side), 0), else_=1))
        query = query.order_by(*order, games.c.updated_at.desc(), games.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        if offset:
            query = query.offset(offset)
        return await self._select_games(query)

    async def count_games_of(
        self,
        player_id: str,
        *,
        scope: Scope,
        statuses: Sequence[GameStatus] = (GameStatus.CHALLENGE, GameStatus.ACTIVE),
    ) -> int:
        """How many games :meth:`games_of` lists (one COUNT; no game is read)."""
        query = _listed(player_id, scope, statuses, sa.func.count())
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def dice_of(
        self,
        player_id: str,
        *,
        scope: Scope,
        statuses: Sequence[GameStatus] = (GameStatus.ACTIVE, GameStatus.FINISHED, GameStatus.ARCHIVED),
    ) -> list[tuple[int, int, str | None]]:
        """(game, version, dice tally as stored: JSON text, or None when not kept yet) of each game :meth:`games_of`
        lists for these statuses: one query, nothing decoded (a player in a thousand games reads a thousand small
        texts)."""
        query = _listed(player_id, scope, statuses, games.c.id, games.c.version, games.c.dice).order_by(games.c.id)
        async with self.engine.connect() as conn:
            return [(int(i), int(v), d) for i, v, d in (await conn.execute(query)).all()]

    async def set_dice(self, game_id: int, version: int, tally: Mapping[str, Any]) -> bool:
        """Store a game's dice tally counted from its record at ``version``, unless the game moved on since (False):
        not a game change (the version stays)."""
        query = games.update().where(games.c.id == game_id, games.c.version == version).values(dice=dump(tally))
        count, _rows = await self.backend.write(query)
        return bool(count)

    async def games_where(self, *, status: GameStatus, scope: Scope, limit: int = 1000) -> list[GameRow]:
        """Games in ``status`` that ``scope`` may see, oldest first."""
        query = sa.select(games).where(games.c.status == status, *visible(scope)).order_by(games.c.id).limit(limit)
        return await self._select_games(query)

    async def count_games(self, *, status: GameStatus, scope: Scope) -> int:
        """How many games in ``status`` ``scope`` may see (one COUNT; no game is read)."""
        query = sa.select(sa.func.count()).select_from(games).where(games.c.status == status, *visible(scope))
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def _load(self, conn: AsyncConnection, game_id: int, scope: Scope) -> GameRow:
        query = sa.select(games).where(games.c.id == game_id, *visible(scope))
        row = (await conn.execute(query)).mappings().first()
        if row is None:
            raise NotFound(f"there is no game #{game_id}")
        seats = (await conn.execute(sa.select(game_players).where(game_players.c.game_id == game_id))).all()
        return _game(row, {s.player_id: s.side for s in seats})

    async def _select_games(self, query: sa.Select[Any]) -> list[GameRow]:
        """The games a query selects, with their seats (two statements, however many games), decoded once the
        connection is back in the pool."""
        async with self.engine.connect() as conn:
            found = (await conn.execute(query)).mappings().all()
            if not found:
                return []
            seats: dict[int, dict[str, int | None]] = {r["id"]: {} for r in found}
            for s in await conn.execute(sa.select(game_players).where(game_players.c.game_id.in_(list(seats)))):
                seats[s.game_id][s.player_id] = s.side

        def decode() -> list[GameRow]:
            return [_game(r, seats[r["id"]]) for r in found]

        # Many games (a player's list) are decoded in a worker thread, so the event loop never waits for them.
        return await asyncio.to_thread(decode) if len(found) > DECODE_ON_THE_LOOP // 10 else decode()

    async def _actions(
        self, conn: AsyncConnection, game_id: int, scope: Scope, *, last: int | None = None, before: int | None = None
    ) -> tuple[int, list[Any]]:
        """The game's version and its log (undecoded: see :func:`_decode_log`; ``last`` and ``before`` as in
        :meth:`load_actions`), read by one statement (so they agree); NotFound outside the scope."""
        joined = actions.c.game_id == games.c.id
        if before is not None:
            joined = sa.and_(joined, actions.c.seq < before)
        query = (
            sa.select(games.c.version, actions.c.seq, actions.c.action, actions.c.at)
            .select_from(games.outerjoin(actions, joined))
            .where(games.c.id == game_id, *visible(scope))
        )
        if last is None:
            rows = list((await conn.execute(query.order_by(actions.c.seq))).all())
        else:  # the newest ``last``, read newest first, given in order
            rows = list((await conn.execute(query.order_by(actions.c.seq.desc()).limit(max(1, last)))).all())[::-1]
        if not rows:
            raise NotFound(f"there is no game #{game_id}")
        return int(rows[0].version), rows

    # --- games: the unit of work --------------------------------------------------------------------------------
    async def update_game(
        self,
        game_id: int,
        expected_version: int,
        *,
        new_actions: Sequence[dict[str, Any]] = (),
        players: Mapping[str, int | None] | None = None,
        timers: Sequence[TimerSpec] | None = None,
        also: Callable[[AsyncConnection], Awaitable[None]] | None = None,
        log_length: int | None = None,
        **changes: Any,
    ) -> int:
        """Compare-and-swap: apply ``changes`` (and append ``new_actions``) only if the version still matches.

        Returns the new version. Raises :class:`Conflict` if someone else changed the game first (NotFound if there
        is no such game). JSON columns (setup, snapshot, draft, clock) are encoded here; pass ``draft=None`` to clear
        it. ``timers`` (when not None) replaces the game's pending timers, in the same transaction, and ``also`` runs
        further statements in it (a finished match's result and ratings); ``players`` seats more players.
        ``log_length``: how many actions the log held at ``expected_version``, when the caller knows it (it read
        the game at that version), so the new actions are numbered without reading the log; otherwise they
        continue from the last stored one. Either way the log's primary key refuses a duplicate number.

        Without ``also`` or ``players`` the update is sent as cheaply as the back end allows (SQLite file: one hop
        to its writer thread; PostgreSQL: one statement). With seats, or an ``also`` made by :meth:`statements`, the
        compare-and-swap and they are one transaction, on a SQLite file one hop to the writer thread (never a pooled
        connection holding SQLite's write lock across event-loop hops); with any other ``also`` the compare-and-swap
        opens a transaction on a pooled connection that it joins. The effect is the same.
        """
        game_id = game_id_of(game_id)
        values: dict[str, Any] = {}
        for key, value in changes.items():
            if key in _JSON_COLUMNS:
                values[key] = None if value is None else dump(value)
            elif key in _PLAIN_COLUMNS:
                values[key] = value
            else:
                raise TypeError(f"games has no column {key!r} to update")
        if not id_in_range(expected_version):
            await self._conflict(game_id, expected_version)
        now = self.clock()
        new_version = expected_version + 1
        values.update(version=new_version, updated_at=now)
        update = GameUpdate(
            game_id=game_id,
            expected_version=expected_version,
            values=values,
            actions=[dump(a) for a in new_actions],
            log_length=log_length,
            now=now,
            timers=None if timers is None else [(t.kind, float(t.due_at), dump(t.payload)) for t in timers],
        )
        if also is None and not players:
            if not await self.backend.update_game(update):
                await self._conflict(game_id, expected_version)
            return new_version
        if also is None or isinstance(also, Statements):
            more = _seats(game_id, players or {})
            plan = more if also is None else _chain(more, also.build())
            if not await self.backend.update_game_and(update, plan):
                await self._conflict(game_id, expected_version)
            return new_version
        async with self.engine.begin() as conn:
            if not await self.backend.update_game_in(conn, update):
                await self._conflict(game_id, expected_version, conn)
            if players:
                await conn.execute(
                    game_players.insert(), [{"game_id": game_id, "player_id": p, "side": s} for p, s in players.items()]
                )
            if also is not None:
                await also(conn)
        return new_version

    async def update_setup(self, game_id: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        """Rewrite a game's stored setup with ``change`` (read and written in one locked transaction) without
        moving its version: for facts about the game's surroundings that no compare-and-swap judges (a team's
        private thread), so that a player's board and buttons stay current. Returns the new setup."""
        game_id = game_id_of(game_id)

        def plan() -> Plan:  # one hop on a SQLite file (``change`` then runs in its writer thread)
            found = (yield Step("locked", sa.select(games.c.setup).where(games.c.id == game_id)))[1]
            if not found:
                raise NotFound(f"there is no game #{game_id}")
            setup = change(load(found[0][0]) or {})
            yield Step("count", games.update().where(games.c.id == game_id).values(setup=dump(setup)))
            return setup

        result: dict[str, Any] = await self.backend.transaction(plan())
        return result

    async def _conflict(self, game_id: int, expected_version: int, conn: AsyncConnection | None = None) -> None:
        """Raise why a compare-and-swap on the game failed: NotFound, or Conflict naming the versions."""
        query = sa.select(games.c.version).where(games.c.id == game_id)
        if conn is None:
            async with self.engine.connect() as fresh:
                exists = (await fresh.execute(query)).first()
        else:
            exists = (await conn.execute(query)).first()
        if exists is None:
            raise NotFound(f"there is no game #{game_id}")
        raise Conflict(f"game #{game_id} changed (version {exists[0]}, expected {expected_version})")


_guard_requests(Store)


class Statements:
    """Statements written as a plan (see :meth:`Store.statements`), runnable on a connection like any ``also``."""

    def __init__(self, store: Store, build: Callable[[], Plan]) -> None:
        self.store = store
        self.build = build

    async def __call__(self, conn: AsyncConnection) -> None:
        await self.store.backend.drive(conn, self.build())


def _seats(game_id: int, players: Mapping[str, int | None]) -> Plan:
    for p, s in players.items():
        yield Step("count", game_players.insert().values(game_id=game_id, player_id=p, side=s))


def _chain(*plans: Plan) -> Plan:
    for plan in plans:
        yield from plan


async def _decode_log(rows: list[Any]) -> list[ActionRow]:
    """Log rows as :meth:`Store._actions` read them, decoded (a long log in a worker thread, so the event loop never
    waits for it)."""

    def decode() -> list[ActionRow]:
        return [ActionRow(r.seq, json.loads(r.action), r.at) for r in rows if r.seq is not None]

    return await asyncio.to_thread(decode) if len(rows) > DECODE_ON_THE_LOOP else decode()


def _listed(player_id: str, scope: Scope, statuses: Sequence[GameStatus], *columns: Any) -> sa.Select[Any]:
    """``columns`` of the games ``player_id`` sits in, in ``statuses``, that ``scope`` may see: what
    :meth:`Store.games_of` lists and :meth:`Store.count_games_of` counts (their seat: ``_MINE``)."""
    seat = sa.and_(_MINE.c.game_id == games.c.id, _MINE.c.player_id == player_id)
    return (
        sa.select(*columns)
        .select_from(games.join(_MINE, seat))
        .where(games.c.status.in_(list(statuses)), *visible(scope))
    )


def log_lines(log: str) -> list[tuple[int, str]]:
    """A log as :meth:`Store.action_log` gives it: (number, JSON text) of each action, in order. (Databases join the
    lines in the order of the numbers, which neither promises: out of order, they are sorted here.)"""
    lines = [(int(seq), text) for seq, text in (line.split("\t", 1) for line in log.split("\n"))] if log else []
    if any(lines[k][0] >= lines[k + 1][0] for k in range(len(lines) - 1)):
        lines.sort()
    return lines


#: The columns a game's row holds as they are (not JSON).
_AS_STORED = ("id", "guild_id", "status", "variant", "version", "turn_player", "channel_id", "thread_id")


def _game(row: sa.RowMapping, seats: dict[str, int | None]) -> GameRow:
    plain = {name: row[name] for name in _AS_STORED}
    plain["status"] = GameStatus(plain["status"])
    plain.update(created_at=row["created_at"], updated_at=row["updated_at"], players=seats)
    if "snapshot" not in row:  # a list's row (games_of): its JSON columns are decoded when read (ListedRow)
        return ListedRow(**plain, setup=row["setup"], draft=row["draft"], clock=row["clock"])
    json_columns = {name: load(row[name]) for name in ("setup", "snapshot", "draft", "clock", "dice")}
    return GameRow(**plain, **json_columns)
