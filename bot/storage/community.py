"""What players share on a server: results, ratings (one ladder per server), watchers, vacations, settings, and
forgetting a player (on one server, or everywhere)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .dialects import Plan, Step
from .parts import StoreBase
from .rows import Scope, dump, game_id_of, id_in_range
from .schema import (
    game_players,
    games,
    guilds,
    member_locales,
    member_names,
    players,
    ratings,
    result_players,
    results,
    vacations,
    watchers,
)

__all__ = ["CommunityMixin"]

_RATING_KEY = ("guild_id", "player_id", "variant", "system")

#: Ids a statement lists at most (``IN (...)``); longer lists are read in several statements.
_IN_CHUNK = 500

#: The asker's own row among a result's players (made once: an alias made per query is garbage in reference cycles,
#: left for the garbage collector).
_ASKER = result_players.alias("asker")


class CommunityMixin(StoreBase):
    """Results, ratings, watchers, vacations, settings and forgetting, for :class:`~bot.storage.Store`."""

    # --- results and ratings --------------------------------------------------------------------------------
    async def lock_ratings(
        self, conn: AsyncConnection, player_ids: Sequence[str], variant: str, system: str, guild_id: str
    ) -> dict[str, dict[str, Any]]:
        """The current rating rows of ``player_ids`` on server ``guild_id``, locked until ``conn``'s transaction
        ends, by player.

        A row that does not exist yet cannot be locked, so two matches of the same player ending at once would both
        insert it: the ladder (server, rule set, system) is locked first, which serialises its updates (they come
        once per finished match, so nothing waits long)."""
        await self.backend.lock(conn, f"ratings:{guild_id}:{variant}:{system}")
        query = sa.select(ratings).where(
            ratings.c.guild_id == guild_id,
            ratings.c.player_id.in_(list(player_ids)),
            ratings.c.variant == variant,
            ratings.c.system == system,
        )
        rows = (await self.backend.select_for_update(conn, query)).mappings().all()
        return {r["player_id"]: dict(r) for r in rows}

    @staticmethod
    def ratings_plan(player_ids: Sequence[str], variant: str, system: str, guild_id: str) -> Plan:
        """:meth:`lock_ratings` as steps of a plan (see :meth:`Store.statements <bot.storage.Store.statements>`):
        returns the rating rows by player."""
        yield Step("lock", f"ratings:{guild_id}:{variant}:{system}")
        query = sa.select(*ratings.c).where(
            ratings.c.guild_id == guild_id,
            ratings.c.player_id.in_(list(player_ids)),
            ratings.c.variant == variant,
            ratings.c.system == system,
        )
        found = (yield Step("locked", query, ratings))[1]
        names = list(ratings.c.keys())
        rows = [dict(zip(names, r)) for r in found]
        return {r["player_id"]: r for r in rows}

    @staticmethod
    def put_rating_plan(row: dict[str, Any], *, exists: bool) -> Plan:
        """:meth:`put_rating` as steps of a plan."""
        yield Step("count", _rating_statement(row, exists))

    @staticmethod
    def put_result_plan(
        *,
        game_id: int,
        guild_id: str,
        variant: str,
        length: int,
        data: dict[str, Any],
        rated: bool,
        finished_at: float,
        won: dict[str, bool],
    ) -> Plan:
        """:meth:`put_result` as steps of a plan."""
        game_id = game_id_of(game_id)
        yield Step(
            "count",
            results.insert().values(
                game_id=game_id,
                guild_id=guild_id,
                variant=variant,
                length=length,
                data=dump(data),
                rated=rated,
                finished_at=finished_at,
            ),
        )
        for p, w in won.items():
            yield Step("count", result_players.insert().values(game_id=game_id, player_id=p, won=w))

    async def put_rating(self, conn: AsyncConnection, row: dict[str, Any], *, exists: bool) -> None:
        """Store a rating row (its key: guild_id, player_id, variant, system), updating it when it ``exists``."""
        await conn.execute(_rating_statement(row, exists))

    async def put_result(
        self,
        conn: AsyncConnection,
        *,
        game_id: int,
        guild_id: str,
        variant: str,
        length: int,
        data: dict[str, Any],
        rated: bool,
        finished_at: float,
        won: dict[str, bool],
    ) -> None:
        """Store a finished match's result inside ``conn``'s transaction (the steps of :meth:`put_result_plan`)."""
        plan = self.put_result_plan(
            game_id=game_id,
            guild_id=guild_id,
            variant=variant,
            length=length,
            data=data,
            rated=rated,
            finished_at=finished_at,
            won=won,
        )
        await self.backend.drive(conn, plan)

    async def ratings_of(self, player_id: str, system: str, guild_id: str) -> list[dict[str, Any]]:
        """A player's ratings on one server, by rule set."""
        query = (
            sa.select(ratings)
            .where(ratings.c.guild_id == guild_id, ratings.c.player_id == player_id, ratings.c.system == system)
            .order_by(ratings.c.variant)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [dict(r) for r in rows]

    async def leaderboard(
        self, guild_id: str, variant: str, system: str, *, min_matches: int = 1, limit: int = 20
    ) -> list[dict[str, Any]]:
        """This server's ladder in ``variant``: its players' ratings here, best first (with their names)."""
        query = (
            _join_name(
                sa.select(ratings, _name_in(guild_id)).join(players, players.c.id == ratings.c.player_id, isouter=True),
                guild_id,
                ratings.c.player_id,
            )
            .where(
                ratings.c.guild_id == guild_id,
                ratings.c.variant == variant,
                ratings.c.system == system,
                (ratings.c.wins + ratings.c.losses) >= min_matches,
            )
            .order_by(ratings.c.rating.desc(), ratings.c.player_id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [dict(r) for r in rows]

    async def results_of(self, *, scope: Scope, player_id: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Finished matches that ``scope`` may see, newest first: a server's (in a direct message: the matches the
        asker played), or of those only one player's."""
        query = sa.select(results, games.c.thread_id, games.c.channel_id).join(games, games.c.id == results.c.game_id)
        if player_id is not None:
            query = query.join(result_players, result_players.c.game_id == results.c.game_id).where(
                result_players.c.player_id == player_id
            )
        if scope.guild_id is not None:
            query = query.where(results.c.guild_id == scope.guild_id)
        elif scope.player_id is not None:
            query = query.where(
                sa.exists().where(_ASKER.c.game_id == results.c.game_id, _ASKER.c.player_id == scope.player_id)
            )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query.order_by(results.c.finished_at.desc()).limit(limit))).mappings().all()
        return [{**dict(r), "data": json.loads(r["data"])} for r in rows]

    # --- watchers -------------------------------------------------------------------------------------------
    async def watch(self, game_id: int, player_id: str, on: bool = True) -> None:
        game_id = game_id_of(game_id)

        def plan() -> Plan:
            yield Step(
                "count", watchers.delete().where(watchers.c.game_id == game_id, watchers.c.player_id == player_id)
            )
            if on:
                yield Step("count", watchers.insert().values(game_id=game_id, player_id=player_id))

        await self.backend.transaction(plan())  # one hop on a SQLite file

    async def watchers_of(self, game_id: int) -> list[str]:
        if not id_in_range(game_id):
            return []
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(watchers.c.player_id).where(watchers.c.game_id == game_id))).all()
        return sorted(r[0] for r in rows)

    # --- vacations ------------------------------------------------------------------------------------------
    async def add_vacation(self, player_id: str, guild_id: str, start: float, end: float) -> None:
        await self.backend.write(
            vacations.insert().values(player_id=player_id, guild_id=guild_id, start=start, end=end)
        )

    async def vacations_of(self, player_id: str, guild_id: str, since: float = 0.0) -> list[tuple[float, float]]:
        """A player's vacations on one server that end after ``since``, in order."""
        if not isinstance(guild_id, str):
            raise TypeError(f"vacations_of takes the server's id, not {guild_id!r}")
        query = (
            sa.select(vacations.c.start, vacations.c.end)
            .where(vacations.c.player_id == player_id, vacations.c.guild_id == guild_id, vacations.c.end > since)
            .order_by(vacations.c.start)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(float(a), float(b)) for a, b in rows]

    # --- settings -------------------------------------------------------------------------------------------
    async def _settings(self, table: sa.Table, key: str) -> dict[str, Any]:
        """A player's or server's stored settings, read through a short-lived cache (see ``settings_ttl``)."""
        now = time.monotonic()
        cached = self._settings_cache.get((table.name, key))
        if cached is not None and cached[0] > now:
            text = cached[1]
        else:
            generation = self._settings_generation
            found = await self.backend.settings_text(table, key)
            text = None if found is None else str(found)
            if generation == self._settings_generation and self.settings_ttl > 0:  # no write meanwhile
                if len(self._settings_cache) >= 100_000:
                    self._settings_cache.clear()
                self._settings_cache[(table.name, key)] = (now + self.settings_ttl, text)
        return {} if text is None else dict(json.loads(text))

    async def player_settings(self, player_id: str) -> dict[str, Any]:
        """A player's own settings (one set for every server)."""
        return await self._settings(players, player_id)

    async def save_player(
        self, player_id: str, name: str, settings: dict[str, Any] | None = None, *, guild_id: str | None = None
    ) -> None:
        """Store a player's name (and settings, one set for every server). ``guild_id`` given: ``name`` is what the
        player goes by in that server (Discord: their nickname there), stored for that server only; the player's
        own name is then written only for a player not stored yet. None (a direct message): the player's own name."""
        self._settings_changed(players.name, player_id)
        try:
            await self.backend.transaction(_player_plan(player_id, name, settings, guild_id))
        finally:
            self._settings_changed(players.name, player_id)

    async def player_name(self, player_id: str, guild_id: str | None = None) -> str | None:
        """A player's name in a server (their own name where that server has none; ``guild_id`` None: their own)."""
        return (await self.player_names([player_id], guild_id)).get(player_id)

    async def player_names(self, player_ids: Sequence[str], guild_id: str | None = None) -> dict[str, str]:
        """The names of these players in a server, as :meth:`player_name` (those without a row left out)."""
        ids = sorted(set(player_ids))
        out: dict[str, str] = {}
        if not ids:
            return out
        for k in range(0, len(ids), _IN_CHUNK):
            query = sa.select(players.c.id, _name_in(guild_id)).where(players.c.id.in_(ids[k : k + _IN_CHUNK]))
            out.update((str(i), str(n)) for i, n in await self.backend.read(_join_name(query, guild_id)))
        return out

    async def names_in_servers(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The names of players in servers, by (player, server), as :meth:`player_name`: two reads however many
        servers (the scheduler reads those of a batch of due timers so)."""
        wanted = set(pairs)
        own = await self.player_names([p for p, _g in wanted])
        out = {(p, g): own[p] for p, g in wanted if p in own}
        ids = sorted({p for p, _g in wanted})
        servers = sorted({g for _p, g in wanted})
        for k in range(0, len(ids), _IN_CHUNK):
            for j in range(0, len(servers), _IN_CHUNK):
                query = sa.select(member_names.c.player_id, member_names.c.guild_id, member_names.c.name).where(
                    member_names.c.player_id.in_(ids[k : k + _IN_CHUNK]),
                    member_names.c.guild_id.in_(servers[j : j + _IN_CHUNK]),
                )
                for p, g, name in await self.backend.read(query):
                    if (p, g) in wanted:
                        out[(str(p), str(g))] = str(name)
        return out

    async def guild_settings(self, guild_id: str) -> dict[str, Any]:
        return await self._settings(guilds, guild_id)

    async def save_guild_settings(self, guild_id: str, settings: dict[str, Any]) -> None:
        await self._upsert(guilds, guild_id, {"settings": dump(settings)})

    async def _upsert(self, table: sa.Table, key: str, values: dict[str, Any]) -> None:
        """Insert or update a player's or server's row in one transaction (on a SQLite file: one hop to its writer)."""
        self._settings_changed(table.name, key)
        try:
            await self.backend.transaction(_upsert_plan(table, key, values))
        finally:
            self._settings_changed(table.name, key)

    # --- forgetting -----------------------------------------------------------------------------------------
    async def forget_player(self, player_id: str, replacement: str, *, guild_id: str | None) -> int:
        """Remove what is personal about a player; match records keep their place under ``replacement``.

        ``guild_id`` given (a server's administrator): only that server's data. The player's display name, wherever
        that server's games and results wrote it (their ``names``, team and side names), becomes ``replacement``; the
        player's vacations, watching and ratings there are deleted. Other servers' rows, and the player's own name
        and settings (one set for every server), stay. ``guild_id`` None (the player, for themselves): all of that
        on every server, and their name and settings too. Returns how many games changed.
        """
        self._settings_changed("players", player_id)
        try:
            return await self._forget_player(player_id, replacement, guild_id)
        finally:
            self._settings_changed("players", player_id)

    async def _forget_player(self, player_id: str, replacement: str, guild_id: str | None) -> int:
        here = [] if guild_id is None else [games.c.guild_id == guild_id]
        played = sa.or_(
            sa.exists().where(game_players.c.game_id == games.c.id, game_players.c.player_id == player_id),
            sa.exists().where(result_players.c.game_id == games.c.id, result_players.c.player_id == player_id),
        )
        query = (
            sa.select(games.c.id, games.c.setup, results.c.data)
            .select_from(games.outerjoin(results, results.c.game_id == games.c.id))
            .where(played, *here)
            .order_by(games.c.id)
        )
        changed = 0
        async with self.engine.begin() as conn:
            found = (await self.backend.select_for_update(conn, query, of=games)).mappings().all()
            name = (await conn.execute(sa.select(players.c.name).where(players.c.id == player_id))).scalar()
            here_names = member_names.c.player_id == player_id
            if guild_id is not None:
                here_names = sa.and_(here_names, member_names.c.guild_id == guild_id)
            known = [str(n) for n in (await conn.execute(sa.select(member_names.c.name).where(here_names))).scalars()]
            if name is not None:
                known.append(str(name))
            for row in found:
                game_id = row["id"]
                setup = json.loads(row["setup"])
                data = None if row["data"] is None else json.loads(row["data"])
                old = _names_of(player_id, [setup, data], known)
                moved = False
                if _forget_in(setup, player_id, old, replacement):
                    await conn.execute(games.update().where(games.c.id == game_id).values(setup=dump(setup)))
                    moved = True
                if data is not None and _forget_in(data, player_id, old, replacement):
                    await conn.execute(results.update().where(results.c.game_id == game_id).values(data=dump(data)))
                    moved = True
                changed += moved
            if guild_id is None:
                await conn.execute(
                    players.update().where(players.c.id == player_id).values(name=replacement, settings="{}")
                )
                await conn.execute(vacations.delete().where(vacations.c.player_id == player_id))
                await conn.execute(watchers.delete().where(watchers.c.player_id == player_id))
                await conn.execute(ratings.delete().where(ratings.c.player_id == player_id))
                await conn.execute(member_locales.delete().where(member_locales.c.player_id == player_id))
                await conn.execute(member_names.delete().where(member_names.c.player_id == player_id))
            else:
                # The server's name for the player becomes the replacement (their own name would show there else).
                await conn.execute(member_names.delete().where(here_names))
                await conn.execute(
                    member_names.insert().values(guild_id=guild_id, player_id=player_id, name=replacement)
                )
                in_guild = sa.select(games.c.id).where(games.c.guild_id == guild_id)
                await conn.execute(
                    vacations.delete().where(vacations.c.player_id == player_id, vacations.c.guild_id == guild_id)
                )
                await conn.execute(
                    watchers.delete().where(watchers.c.player_id == player_id, watchers.c.game_id.in_(in_guild))
                )
                await conn.execute(
                    ratings.delete().where(ratings.c.player_id == player_id, ratings.c.guild_id == guild_id)
                )
                await conn.execute(
                    member_locales.delete().where(
                        member_locales.c.player_id == player_id, member_locales.c.guild_id == guild_id
                    )
                )
        return changed


def _rating_statement(row: dict[str, Any], exists: bool) -> sa.UpdateBase:
    missing = [k for k in _RATING_KEY if row.get(k) is None]
    if missing:
        raise TypeError(f"a rating row needs {', '.join(missing)}")
    keys = {k: row[k] for k in _RATING_KEY}
    values = {k: v for k, v in row.items() if k not in keys}
    if exists:
        return ratings.update().where(*(ratings.c[k] == v for k, v in keys.items())).values(**values)
    return ratings.insert().values(**row)


def _name_in(guild_id: str | None) -> sa.ColumnElement[Any]:
    """A player's name in a server: that server's name for them, else their own (for :func:`_join_name`)."""
    if guild_id is None:
        return players.c.name.label("name")
    return sa.func.coalesce(member_names.c.name, players.c.name).label("name")


def _join_name(query: sa.Select[Any], guild_id: str | None, player: Any = players.c.id) -> sa.Select[Any]:
    """``query`` (over ``players``), joined to the server's names of its players when ``guild_id`` is given."""
    if guild_id is None:
        return query
    on = sa.and_(member_names.c.player_id == player, member_names.c.guild_id == guild_id)
    return query.outerjoin(member_names, on)


def _player_plan(player_id: str, name: str, settings: dict[str, Any] | None, guild_id: str | None) -> Plan:
    """:meth:`CommunityMixin.save_player`: the player's row, and their server's name for them when ``guild_id``."""
    yield Step("lock", f"players:{player_id}")
    exists = yield Step("value", sa.select(players.c.id).where(players.c.id == player_id))
    values = {} if settings is None else {"settings": dump(settings)}
    if guild_id is None:
        values["name"] = name
    if exists is None:
        yield Step("count", players.insert().values(**{"id": player_id, "name": name, "settings": "{}", **values}))
    elif values:
        yield Step("count", players.update().where(players.c.id == player_id).values(**values))
    if guild_id is None:
        return
    where = (member_names.c.guild_id == guild_id, member_names.c.player_id == player_id)
    known = yield Step("value", sa.select(member_names.c.name).where(*where))
    if known is None:
        yield Step("count", member_names.insert().values(guild_id=guild_id, player_id=player_id, name=name))
    elif known != name:
        yield Step("count", member_names.update().where(*where).values(name=name))


def _upsert_plan(table: sa.Table, key: str, values: dict[str, Any]) -> Plan:
    yield Step("lock", f"{table.name}:{key}")
    exists = yield Step("value", sa.select(table.c.id).where(table.c.id == key))
    if exists is not None:
        if values:
            yield Step("count", table.update().where(table.c.id == key).values(**values))
        return
    defaults = {"settings": "{}"} if "settings" in table.c else {}
    if table is players and "name" not in values:
        values = {**values, "name": key}
    yield Step("count", table.insert().values(id=key, **{**defaults, **values}))


# --- where a stored game wrote a player's name ------------------------------------------------------------------
#: Fields that hold display names as a whole, besides ``*_names`` lists and ``*header*`` texts. Not ``name`` alone,
#: nor ``display_name``: those name time controls and rule sets ("blitz", "Doubles"), which must survive any player.
_NAME_FIELDS = frozenset({"names", "side_name", "team_name", "player_name", "thread_name"})


def _is_name_field(key: Any) -> bool:
    """Whether a JSON field holds players' display names (rather than rule names or ids)."""
    if not isinstance(key, str):
        return False
    key = key.lower()
    return key in _NAME_FIELDS or key.endswith("_names") or "header" in key


def _names_of(player_id: str, documents: Iterable[Any], also: Iterable[str]) -> set[str]:
    """Every display name the documents' ``names`` mappings give ``player_id`` (and ``also``), none empty."""
    found = {n for n in also if n}

    def walk(data: Any) -> None:
        if isinstance(data, dict):
            names = data.get("names")
            if isinstance(names, dict) and isinstance(names.get(player_id), str) and names[player_id]:
                found.add(names[player_id])
            for value in data.values():
                walk(value)
        elif isinstance(data, list):
            for value in data:
                walk(value)

    for document in documents:
        walk(document)
    return found


def _forget_in(data: Any, player_id: str, old_names: set[str], replacement: str) -> bool:
    """Write ``replacement`` for the player's name in ``data`` (changed in place); True if anything changed.

    The player's entry in every ``names`` mapping, and each old name wherever a field of names holds it as a whole
    word: alone, or inside a team's or side's name ("Alice & Carol"). Other players' entries stay, as do rule names,
    ids and the dice proof (they are not fields of names).
    """
    names = sorted((n for n in old_names if n != replacement), key=len, reverse=True)
    pattern = re.compile("|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in names)) if names else None

    def text(value: Any) -> Any:
        if isinstance(value, str):
            return value if pattern is None else pattern.sub(lambda _m: replacement, value)
        if isinstance(value, list):
            return [text(v) for v in value]
        if isinstance(value, dict):
            return {k: text(v) for k, v in value.items()}
        return value

    def walk(data: Any) -> bool:
        found = False
        if isinstance(data, dict):
            for key, value in data.items():
                if key == "names" and isinstance(value, dict):
                    if player_id in value and value[player_id] != replacement:
                        value[player_id] = replacement
                        found = True
                elif _is_name_field(key):
                    new = text(value)
                    if new != value:
                        data[key] = new
                        found = True
                else:
                    found = walk(value) or found
        elif isinstance(data, list):
            for value in data:
                found = walk(value) or found
        return found

    return walk(data)
