"""Names per server (issue 33 item 21): a name set in one server never shows in another server's leaderboard,
profile or timers; a server with no name for a player shows the player's own name."""

from __future__ import annotations

import asyncio
from typing import Any

import sqlalchemy as sa

from bot.service import GameService, Request
from bot.storage import MIGRATIONS, Store, member_names, ratings

DbUrl = tuple[str, str | None]


async def _open(db_url: DbUrl, **kwargs: Any) -> Store:
    url, schema = db_url
    return await Store.open(url, schema=schema, **kwargs)


def _rating(guild: str, player: str, value: float) -> dict[str, Any]:
    return {
        "guild_id": guild,
        "player_id": player,
        "variant": "backgammon",
        "system": "elo",
        "rating": value,
        "experience": 1,
        "wins": 1,
        "losses": 0,
        "streak": 1,
        "updated_at": 0.0,
    }


def test_each_server_shows_its_own_name_for_a_player(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        await store.save_player("ann", "Ann in A", guild_id="A")
        await store.save_player("ann", "Annie in B", guild_id="B")
        await store.save_player("ann", "Ann again in A", {"theme": "dark"}, guild_id="A")
        await store.save_player("bob", "Bob", guild_id="B")
        rows = [_rating(g, p, r) for g, p, r in [("A", "ann", 1600), ("B", "ann", 1500), ("B", "bob", 1550)]]
        await store.run(lambda conn: conn.execute(ratings.insert(), rows))
        assert [r["name"] for r in await store.leaderboard("A", "backgammon", "elo")] == ["Ann again in A"]
        assert [r["name"] for r in await store.leaderboard("B", "backgammon", "elo")] == ["Bob", "Annie in B"]
        assert await store.player_name("ann", "A") == "Ann again in A"
        assert await store.player_name("ann", "B") == "Annie in B"
        # A server with no name for her, and a direct message: her own name (the first one stored).
        assert await store.player_name("ann", "C") == "Ann in A"
        assert await store.player_name("ann") == "Ann in A"
        assert await store.player_settings("ann") == {"theme": "dark"}  # settings stay one set everywhere
        await store.save_player("ann", "Ann Own")  # a direct message: her own name
        assert await store.player_name("ann", "C") == "Ann Own" and await store.player_name("ann", "B") == "Annie in B"
        assert await store.player_names(["ann", "bob", "nobody"], "B") == {"ann": "Annie in B", "bob": "Bob"}
        pairs = [("ann", "A"), ("ann", "C"), ("bob", "B"), ("nobody", "A")]
        assert await store.names_in_servers(pairs) == {
            ("ann", "A"): "Ann again in A",
            ("ann", "C"): "Ann Own",
            ("bob", "B"): "Bob",
        }
        # Forgotten in server B: B says the replacement; A keeps its name. Forgotten everywhere: the replacement.
        await store.forget_player("ann", "someone", guild_id="B")
        assert (
            await store.player_name("ann", "B") == "someone" and await store.player_name("ann", "A") == "Ann again in A"
        )
        await store.forget_player("ann", "someone else", guild_id=None)
        assert {await store.player_name("ann", g) for g in ("A", "B", None)} == {"someone else"}
        await store.close()

    asyncio.run(go())


def test_profiles_and_challenges_use_the_servers_names(db_url: DbUrl) -> None:
    async def go() -> None:
        store = await _open(db_url)
        svc = GameService(store)
        bob_a, bob_b = Request("bob", "Bob", "A"), Request("bob", "Bob", "B")
        await svc.challenge(Request("ann", "Nick in A", "A"), bob_a, length=1)
        await svc.challenge(Request("ann", "Nick in B", "B"), bob_b, length=1)
        assert (await svc.profile(bob_a, "ann"))["name"] == "Nick in A"
        assert (await svc.profile(bob_b, "ann"))["name"] == "Nick in B"
        assert (await svc.profile(Request("ann", "Ann", None)))["name"] == "Nick in A"  # her own: first stored
        await store.close()

    asyncio.run(go())


def test_the_migration_takes_each_servers_latest_names_from_its_games(db_url: DbUrl) -> None:
    async def go() -> None:
        old = await _open(db_url, migrations=MIGRATIONS[:7])  # a database as the previous release left it
        for guild, names in [("A", {"ann": "Ann A1", "bob": "Bob"}), ("B", {"ann": "Ann B"}), ("A", {"ann": "Ann A2"})]:
            await old.create_game(
                guild_id=guild, status="challenge", variant="backgammon", setup={"names": names}, players={"ann": 0}
            )
        await old.create_game(guild_id="A", status="active", variant="backgammon", setup={}, players={})
        await old.close()
        store = await _open(db_url)
        assert await store.migrate() == len(MIGRATIONS)
        query = sa.select(member_names.c.guild_id, member_names.c.player_id, member_names.c.name)
        found = await store.run(
            lambda conn: conn.execute(query.order_by(member_names.c.guild_id, member_names.c.player_id))
        )
        assert [tuple(r) for r in found] == [("A", "ann", "Ann A2"), ("A", "bob", "Bob"), ("B", "ann", "Ann B")]
        await store.close()

    asyncio.run(go())
