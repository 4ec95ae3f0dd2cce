"""Many servers in one store, on a real SQLite file and a real PostgreSQL server: every lookup is scoped by server
(or to the asker's own games in a direct message), ratings and vacations belong to a server, forgetting a player on
one server leaves the others alone, and the migration to per-server ratings keeps the ratings there were."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.storage import (
    MIGRATIONS,
    NotFound,
    Scope,
    Store,
    games,
    players,
    ratings,
    result_players,
    results,
    schema_version,
    vacations,
    watchers,
)

SYSTEM = Scope.system()
DbUrl = tuple[str, str | None]


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


async def _open(db_url: DbUrl, **kwargs: Any) -> Store:
    url, schema = db_url
    return await Store.open(url, schema=schema, **kwargs)


async def _game(store: Store, guild: str, seats: dict[str, int | None], **setup: Any) -> int:
    names = {p: p.upper() for p in seats}
    row = await store.create_game(
        guild_id=guild, status="active", variant="backgammon", setup={"names": names, **setup}, players=seats
    )
    return row.id


async def _result(store: Store, game_id: int, guild: str, won: dict[str, bool], *, variant: str = "backgammon",
                  rated: bool = True, data: dict[str, Any] | None = None, at: float = 1.0) -> None:  # fmt: skip
    async def write(conn: AsyncConnection) -> None:
        await store.put_result(
            conn,
            game_id=game_id,
            guild_id=guild,
            variant=variant,
            length=3,
            data=data or {"names": {p: p.upper() for p in won}},
            rated=rated,
            finished_at=at,
            won=won,
        )

    await store.run(write)


async def _rating(store: Store, guild: str, player: str, rating: float, variant: str = "backgammon") -> None:
    row = {
        "guild_id": guild,
        "player_id": player,
        "variant": variant,
        "system": "elo",
        "rating": rating,
        "experience": 1,
        "wins": 1,
        "losses": 0,
        "streak": 1,
        "updated_at": 0.0,
    }

    async def write(conn: AsyncConnection) -> None:
        await store.put_rating(conn, row, exists=False)

    await store.run(write)


def test_scopes_are_made_only_from_real_ids() -> None:
    assert Scope.server("g", "p") == Scope("g", "p") and Scope.dm("p") == Scope(None, "p")
    assert Scope.system().is_system and not Scope.dm("p").is_system
    with pytest.raises(ValueError):
        Scope.server("")
    with pytest.raises(ValueError):
        Scope.dm("")


def test_a_game_is_found_only_from_its_server_or_in_a_dm_of_its_players(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        game_id = await _game(store, "A", {"a": 0, "b": 1})
        await store.update_game(game_id, 0, new_actions=[{"type": "Roll", "by": "a", "dice": [3, 1]}])
        for seen in (Scope.server("A"), Scope.server("A", "z"), Scope.dm("a"), Scope.dm("b"), SYSTEM):
            assert (await store.load_game(game_id, scope=seen)).id == game_id
            row, log = await store.load_game_and_actions(game_id, scope=seen)
            assert row.version == 1 and len(log) == 1
            assert len(await store.load_actions(game_id, scope=seen)) == 1
        with pytest.raises(NotFound) as missing:
            await store.load_game(game_id + 1000, scope=SYSTEM)
        for hidden in (Scope.server("B"), Scope.server("B", "a"), Scope.dm("c")):
            for load in (store.load_game, store.load_game_and_actions, store.load_actions):
                with pytest.raises(NotFound) as outside:
                    await load(game_id, scope=hidden)  # type: ignore[operator]
                # Told exactly as a missing game is: nothing says that it exists elsewhere.
                assert str(outside.value) == str(missing.value).replace(str(game_id + 1000), str(game_id))
        empty = await _game(store, "A", {"a": 0})
        assert await store.load_actions(empty, scope=Scope.dm("a")) == []
        await store.close()

    run(go())


def test_a_scoped_load_costs_no_extra_statement(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        game_id = await _game(store, "A", {"a": 0, "b": 1})
        statements: list[str] = []
        event.listen(store.engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
        for scope in (Scope.server("A"), Scope.dm("a")):
            statements.clear()
            await store.load_game(game_id, scope=scope)
            assert len(statements) == 2  # the game (its scope in the WHERE) and its seats
            statements.clear()
            await store.load_game_and_actions(game_id, scope=scope)
            assert len(statements) == 3  # the game, its seats, and its log with the version it belongs to
        await store.close()

    run(go())


def test_lists_of_games_and_results_never_show_another_servers(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        a1 = await _game(store, "A", {"a": 0, "b": 1})
        a2 = await _game(store, "A", {"c": 0, "d": 1})
        b1 = await _game(store, "B", {"a": 0, "c": 1})
        ids = lambda rows: sorted(r.id for r in rows)  # noqa: E731
        assert ids(await store.games_of("a", scope=Scope.server("A"))) == [a1]
        assert ids(await store.games_of("a", scope=Scope.server("B"))) == [b1]
        assert ids(await store.games_of("a", scope=Scope.dm("a"))) == [a1, b1]  # a DM: the asker's own games
        assert ids(await store.games_of("c", scope=Scope.dm("a"))) == [b1]  # another's: only those shared with them
        assert ids(await store.games_of("a", scope=SYSTEM)) == [a1, b1]
        assert (await store.games_of("a", scope=Scope.server("A")))[0].players == {"a": 0, "b": 1}
        assert ids(await store.games_where(status="active", scope=Scope.server("A"))) == [a1, a2]
        assert ids(await store.games_where(status="active", scope=Scope.server("B"))) == [b1]
        assert ids(await store.games_where(status="active", scope=Scope.dm("d"))) == [a2]
        assert ids(await store.games_where(status="active", scope=SYSTEM)) == [a1, a2, b1]
        assert await store.games_where(status="active", scope=Scope.server("C")) == []

        await _result(store, a1, "A", {"a": True, "b": False}, at=1.0)
        await _result(store, a2, "A", {"c": True, "d": False}, at=2.0)
        await _result(store, b1, "B", {"a": False, "c": True}, at=3.0)
        of = lambda rows: [r["game_id"] for r in rows]  # noqa: E731
        assert of(await store.results_of(scope=Scope.server("A"))) == [a2, a1]
        assert of(await store.results_of(scope=Scope.server("B"))) == [b1]
        assert of(await store.results_of(scope=Scope.server("A"), player_id="a")) == [a1]
        assert of(await store.results_of(scope=Scope.server("A"), player_id="z")) == []
        assert of(await store.results_of(scope=Scope.dm("a"))) == [b1, a1]  # the matches the asker played
        assert of(await store.results_of(scope=Scope.dm("a"), player_id="c")) == [b1]
        assert of(await store.results_of(scope=Scope.dm("z"))) == []
        assert of(await store.results_of(scope=SYSTEM)) == [b1, a2, a1]
        got = (await store.results_of(scope=Scope.server("B")))[0]
        assert got["guild_id"] == "B" and got["data"] == {"names": {"a": "A", "c": "C"}}
        await store.close()

    run(go())


def test_ratings_and_vacations_belong_to_a_server(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        a1 = await _game(store, "A", {"p": 0, "q": 1})
        b1 = await _game(store, "B", {"p": 0, "q": 1})
        await _result(store, a1, "A", {"p": True, "q": False})
        await _result(store, b1, "B", {"p": False, "q": True})
        await store.save_player("p", "Pat")
        await _rating(store, "A", "p", 1600.0)
        await _rating(store, "A", "q", 1400.0)
        await _rating(store, "B", "p", 1450.0)
        await _rating(store, "B", "q", 1550.0)

        async def locked(guild: str) -> dict[str, float]:
            async def read(conn: AsyncConnection) -> dict[str, float]:
                rows = await store.lock_ratings(conn, ["p", "q"], "backgammon", "elo", guild)
                return {p: r["rating"] for p, r in rows.items()}

            result: dict[str, float] = await store.run(read)
            return result

        assert await locked("A") == {"p": 1600.0, "q": 1400.0}
        assert await locked("B") == {"p": 1450.0, "q": 1550.0}
        assert await locked("C") == {}
        assert [r["rating"] for r in await store.ratings_of("p", "elo", "A")] == [1600.0]
        assert [r["rating"] for r in await store.ratings_of("p", "elo", "B")] == [1450.0]
        assert await store.ratings_of("p", "elo", "C") == []
        board = await store.leaderboard("A", "backgammon", "elo")
        assert [(r["player_id"], r["name"], r["rating"]) for r in board] == [("p", "Pat", 1600.0), ("q", None, 1400.0)]
        assert [r["player_id"] for r in await store.leaderboard("B", "backgammon", "elo")] == ["q", "p"]

        async def update(conn: AsyncConnection) -> None:
            row = {"guild_id": "B", "player_id": "p", "variant": "backgammon", "system": "elo", "rating": 1500.0}
            await store.put_rating(conn, row, exists=True)

        await store.run(update)
        assert [r["rating"] for r in await store.ratings_of("p", "elo", "B")] == [1500.0]
        assert [r["rating"] for r in await store.ratings_of("p", "elo", "A")] == [1600.0]

        async def keyless(conn: AsyncConnection) -> None:
            await store.put_rating(conn, {"player_id": "p", "variant": "backgammon", "system": "elo"}, exists=True)

        with pytest.raises(TypeError, match="guild_id"):
            await store.run(keyless)

        await store.add_vacation("p", "A", 10.0, 20.0)
        await store.add_vacation("p", "B", 30.0, 40.0)
        await store.add_vacation("p", "A", 50.0, 60.0)
        assert await store.vacations_of("p", "A") == [(10.0, 20.0), (50.0, 60.0)]
        assert await store.vacations_of("p", "A", 25.0) == [(50.0, 60.0)]
        assert await store.vacations_of("p", "B") == [(30.0, 40.0)]
        assert await store.vacations_of("p", "C") == []
        with pytest.raises(TypeError):
            await store.vacations_of("p", 25.0)  # type: ignore[arg-type]  # the old call: (player, since)
        await store.close()

    run(go())


async def _two_servers(store: Store) -> dict[str, int]:
    """Alice ("a") plays a team match with Carol on server A and a match on server B; each has a result, a rating,
    a vacation and a watched game."""
    team = await _game(
        store,
        "A",
        {"a": 0, "c": 0, "b": 1, "d": 1},
        match={"names": ["Alice & Carol", "Bob & Dan"], "variant": "doubles", "sides": [["a", "c"], ["b", "d"]]},
        terms={"names": {"a": "Alice", "b": "Bob", "c": "Carol", "d": "Dan"}, "variant": "doubles"},
        dice={"scheme": "x", "client": "accepted by a", "commitment": "ab" * 32},
    )
    solo = await _game(store, "B", {"a": 0, "e": 1}, match={"names": ["Alice", "Eve"]})
    other_a = await _game(store, "A", {"b": 0, "d": 1})
    other_b = await _game(store, "B", {"e": 0, "f": 1})
    for game_id in (team, solo, other_a, other_b):
        setup = (await store.load_game(game_id, scope=SYSTEM)).setup
        names = {**setup["names"], **({"a": "Alice", "c": "Carol", "b": "Bob", "d": "Dan", "e": "Eve"})}
        await store.update_setup(game_id, lambda s, n=names: {**s, "names": {p: n[p] for p in s["names"]}})
    await _result(
        store,
        team,
        "A",
        {"a": True, "c": True, "b": False, "d": False},
        data={
            "names": {"a": "Alice", "b": "Bob", "c": "Carol", "d": "Dan"},
            "side_names": ["Alice & Carol", "Bob & Dan"],
            "display_name": "Doubles",
        },
    )
    await _result(store, solo, "B", {"a": False, "e": True}, data={"names": {"a": "Alice", "e": "Eve"}})
    await store.save_player("a", "Alice", {"theme": "dark"})
    for guild in ("A", "B"):
        await _rating(store, guild, "a", 1500.0)
        await store.add_vacation("a", guild, 0.0, 10.0)
    await store.watch(other_a, "a")
    await store.watch(other_b, "a")
    return {"team": team, "solo": solo, "other_a": other_a, "other_b": other_b}


async def _dump(store: Store, guild: str) -> dict[str, Any]:
    """Everything stored about server ``guild`` and about Alice there."""

    async def read(conn: AsyncConnection) -> dict[str, Any]:
        here = sa.select(games.c.id).where(games.c.guild_id == guild)
        return {
            "setups": (await conn.execute(sa.select(games.c.id, games.c.setup).where(games.c.guild_id == guild))).all(),
            "results": (
                await conn.execute(sa.select(results.c.game_id, results.c.data).where(results.c.guild_id == guild))
            ).all(),  # noqa: E501
            "vacations": (await conn.execute(sa.select(vacations).where(vacations.c.guild_id == guild))).all(),
            "ratings": (await conn.execute(sa.select(ratings).where(ratings.c.guild_id == guild))).all(),
            "watchers": (await conn.execute(sa.select(watchers).where(watchers.c.game_id.in_(here)))).all(),
            "result_players": (
                await conn.execute(sa.select(result_players).where(result_players.c.game_id.in_(here)))
            ).all(),
        }

    result: dict[str, Any] = await store.run(read)
    return result


def test_forgetting_a_player_on_one_server_leaves_other_servers_and_their_own_settings(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        ids = await _two_servers(store)
        before_b = await _dump(store, "B")
        before_a = await _dump(store, "A")
        changed = await store.forget_player("a", "a former player", guild_id="A")
        assert changed == 1  # the team match (its setup and result); the other game of A never named Alice
        assert await _dump(store, "B") == before_b  # not a byte of server B changed
        after = await _dump(store, "A")
        assert "Alice" not in json.dumps([list(r) for r in after["setups"] + after["results"]])
        team = (await store.load_game(ids["team"], scope=SYSTEM)).setup
        assert team["names"] == {"a": "a former player", "b": "Bob", "c": "Carol", "d": "Dan"}
        assert team["terms"]["names"]["a"] == "a former player" and team["terms"]["names"]["c"] == "Carol"
        assert team["match"]["names"] == ["a former player & Carol", "Bob & Dan"]
        assert team["match"]["sides"] == [["a", "c"], ["b", "d"]]  # ids and rules stay
        assert team["dice"] == {"scheme": "x", "client": "accepted by a", "commitment": "ab" * 32}
        [result] = await store.results_of(scope=Scope.server("A"))
        assert result["data"]["side_names"] == ["a former player & Carol", "Bob & Dan"]
        assert result["data"]["display_name"] == "Doubles"
        assert after["result_players"] == before_a["result_players"]  # the record keeps its place
        assert await store.vacations_of("a", "A") == [] and await store.vacations_of("a", "B") == [(0.0, 10.0)]
        assert await store.ratings_of("a", "elo", "A") == [] and len(await store.ratings_of("a", "elo", "B")) == 1
        assert await store.watchers_of(ids["other_a"]) == [] and await store.watchers_of(ids["other_b"]) == ["a"]
        # Their name and settings are their own, for every server: an administrator of one does not erase them.
        assert await store.player_name("a") == "Alice"
        assert await store.player_settings("a") == {"theme": "dark"}
        assert await store.forget_player("a", "a former player", guild_id="A") == 0  # nothing left to change
        await store.close()

    run(go())


def test_forgetting_oneself_erases_every_server(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        ids = await _two_servers(store)
        assert await store.player_settings("a") == {"theme": "dark"}  # cached: forgetting must drop it
        assert await store.forget_player("a", "a former player", guild_id=None) == 2
        for guild in ("A", "B"):
            stored = await _dump(store, guild)
            assert "Alice" not in json.dumps([list(r) for r in stored["setups"] + stored["results"]])
            assert await store.vacations_of("a", guild) == []
            assert await store.ratings_of("a", "elo", guild) == []
        assert (await store.load_game(ids["solo"], scope=SYSTEM)).setup["match"]["names"] == ["a former player", "Eve"]
        assert await store.watchers_of(ids["other_a"]) == [] and await store.watchers_of(ids["other_b"]) == []
        assert await store.player_name("a") == "a former player"
        assert await store.player_settings("a") == {}
        assert (await store.load_game(ids["team"], scope=SYSTEM)).setup["names"]["c"] == "Carol"
        await store.close()

    run(go())


def test_the_migration_to_per_server_ratings_keeps_each_rating_where_it_was_earned(db_url: DbUrl) -> None:
    async def go() -> None:
        old = await _open(db_url, migrations=MIGRATIONS[:2])  # a database as the previous release left it
        a1 = await _game(old, "A", {"p": 0, "q": 1})
        a2 = await _game(old, "A", {"p": 0, "q": 1})
        b1 = await _game(old, "B", {"p": 0, "q": 1})
        c1 = await _game(old, "C", {"p": 0, "q": 1})
        await _result(old, a1, "A", {"p": True, "q": False})
        await _result(old, a2, "A", {"p": True, "q": False})  # a second match there: still one copy
        await _result(old, b1, "B", {"p": True, "q": False}, rated=False)  # unrated: B never moved the rating
        await _result(old, c1, "C", {"p": True, "q": False}, variant="nackgammon")

        async def fill(conn: AsyncConnection) -> None:
            columns = await conn.run_sync(lambda c: [col["name"] for col in sa.inspect(c).get_columns("ratings")])
            assert "guild_id" not in columns
            insert = sa.text(
                "INSERT INTO ratings (player_id, variant, system, rating, experience, wins, losses, streak, "
                "updated_at) VALUES (:p, :v, 'elo', :r, 7, 2, 1, 2, 5.0)"
            )
            for p, v, r in [("p", "backgammon", 1620.0), ("p", "nackgammon", 1510.0), ("z", "backgammon", 1490.0)]:
                await conn.execute(insert, {"p": p, "v": v, "r": r})

        await old.run(fill)
        await old.close()

        store = await _open(db_url)
        assert await store.migrate() == len(MIGRATIONS)

        async def read(conn: AsyncConnection) -> list[tuple[Any, ...]]:
            versions = (await conn.execute(sa.select(schema_version.c.version))).scalars().all()
            assert sorted(versions) == list(range(1, len(MIGRATIONS) + 1))
            query = sa.select(ratings.c.guild_id, ratings.c.player_id, ratings.c.variant, ratings.c.rating)
            return [tuple(r) for r in (await conn.execute(query.order_by(*query.selected_columns))).all()]

        assert await store.run(read) == [
            ("", "z", "backgammon", 1490.0),  # no rated match anywhere: kept, on no server
            ("A", "p", "backgammon", 1620.0),
            ("C", "p", "nackgammon", 1510.0),
        ]
        [kept] = await store.ratings_of("p", "elo", "A")
        assert (kept["experience"], kept["wins"], kept["losses"], kept["streak"]) == (7, 2, 1, 2)
        assert [r["player_id"] for r in await store.leaderboard("A", "backgammon", "elo")] == ["p"]
        assert await store.leaderboard("B", "backgammon", "elo") == []
        await _rating(store, "B", "p", 1400.0)  # the new key: the same player and rule set on another server
        assert [r["rating"] for r in await store.ratings_of("p", "elo", "B")] == [1400.0]
        await store.close()
        again = await _open(db_url)  # migrating again changes nothing
        assert await again.migrate() == len(MIGRATIONS)
        assert len(await again.run(read)) == 4
        await again.close()

    run(go())


def test_an_id_outside_the_id_columns_range_is_not_found(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        game_id = await _game(store, "A", {"a": 0})
        for bad in (2**31, -(2**31) - 1, 2**63, 2**70):
            for load in (store.load_game, store.load_game_and_actions, store.load_actions):
                with pytest.raises(NotFound):
                    await load(bad, scope=SYSTEM)  # type: ignore[operator]
            with pytest.raises(NotFound):
                await store.update_game(bad, 0, status="finished")
            with pytest.raises(NotFound):
                await store.update_setup(bad, lambda s: s)
            with pytest.raises(NotFound):
                await store.watch(bad, "a")
            with pytest.raises(NotFound):
                await store.put_secret(bad, "00")
            assert await store.secret(bad) is None
            assert await store.watchers_of(bad) == []
            assert await store.pending_timers(bad) == []
            assert await store.open_proposals(bad, 0, 0) == []
            assert await store.proposal(bad) is None and await store.close_proposal(bad, "rejected") is False
            assert await store.finish_timers([bad], "w", 0.0) == 0
        for edge in (2**31 - 1, -(2**31)):  # the column's own limits: a plain missing game
            with pytest.raises(NotFound):
                await store.load_game(edge, scope=SYSTEM)
        with pytest.raises(Exception, match="changed"):  # a version no row can hold: a conflict, not a crash
            await store.update_game(game_id, 2**40, status="finished")
        assert (await store.load_game(game_id, scope=SYSTEM)).status == "active"
        await store.close()

    run(go())


def test_forgetting_keeps_players_rows_of_others(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        await _two_servers(store)
        await store.save_player("c", "Carol", {"theme": "light"})
        await store.forget_player("a", "someone", guild_id=None)

        async def names(conn: AsyncConnection) -> dict[str, str]:
            return {r.id: r.name for r in (await conn.execute(sa.select(players))).all()}

        assert await store.run(names) == {"a": "someone", "c": "Carol"}
        assert await store.player_settings("c") == {"theme": "light"}
        await store.close()

    run(go())


def test_forgetting_a_name_that_is_also_a_rule_name_changes_only_the_names(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        game_id = await _game(
            store,
            "A",
            {"a": 0, "b": 1},
            match={"names": ["blitz", "Bob"], "variant": "blitz"},
            time_control={"name": "blitz", "reserve": 60},
            terms={"names": {"a": "blitz", "b": "Bob"}, "variant": "blitz"},
        )
        await store.update_setup(game_id, lambda s: {**s, "names": {"a": "blitz", "b": "Bob"}})
        assert await store.forget_player("a", "someone", guild_id="A") == 1
        setup = (await store.load_game(game_id, scope=SYSTEM)).setup
        assert setup["names"] == {"a": "someone", "b": "Bob"} and setup["match"]["names"] == ["someone", "Bob"]
        assert setup["match"]["variant"] == "blitz" and setup["terms"]["variant"] == "blitz"
        assert setup["time_control"] == {"name": "blitz", "reserve": 60}
        await store.close()

    run(go())
