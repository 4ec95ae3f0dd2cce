"""Dice players can verify, through the service: commitment first, seed revealed at the end, tampering caught."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import sqlalchemy as sa

from bot.service import GameService, Refused, Request
from bot.storage import Scope, Store, actions
from engine.fairdice import commitment

GUILD = "g"
ANN, BEN = Request("ann", "Ann", GUILD), Request("ben", "Ben", GUILD)


async def _finished_match(svc: GameService) -> tuple[int, list[str]]:
    """A 1-point match with the service's own fair dice; returns the game id and every text it produced."""
    texts: list[str] = []
    out = await svc.challenge(ANN, BEN, length=1)
    out = await svc.accept(out.game.id, BEN, entropy="interaction 123456789")
    gid = out.game.id
    people = {"ann": ANN, "ben": BEN}
    for _ in range(400):
        view = out.game
        if view.status == "finished":
            assert any(e.kind == "dice-revealed" for e in out.events)
            return gid, texts
        texts.extend(e.text for e in out.events)
        record = await svc.record(gid, ANN)
        assert record["dice"]["seed"] is None  # never before the end
        actor = people[view.to_act or view.acting[0]]  # type: ignore[index]
        if view.phase in ("opening", "roll"):
            out = await svc.roll(gid, actor)
        elif view.phase == "move":
            out = await svc.move(gid, actor, view.plays[-1])
        else:
            out = await svc.take(gid, actor)
    raise AssertionError("the match did not end")


def _roll_index(logged: list[dict[str, Any]], seq: int) -> int:
    """The roll number (from 0, opening throws included) of the action stored under ``seq``."""
    return sum(1 for a in logged[: seq - 1] if a["type"] in ("OpeningRoll", "Roll"))


def test_a_fair_dice_match_verifies_and_a_tampered_roll_is_named(tmp_path: Any) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'fair.sqlite3'}")
        svc = GameService(store)  # no dice provider: commit-reveal dice
        gid, texts = await _finished_match(svc)
        record = await svc.record(gid, BEN)
        seed = record["dice"]["seed"]
        assert seed and commitment(bytes.fromhex(seed)) == record["dice"]["commitment"]
        # Published whole with the challenge; the start message repeats its first 12 digits.
        assert any(record["dice"]["commitment"][:12] in t for t in texts[:3])
        assert all(seed not in t for t in texts)  # nothing before the last action shows it
        report = await svc.verify(gid, ANN)
        assert report.ok, report
        # Edit one stored roll: verification now fails and names it.
        async with store.engine.begin() as conn:
            rows = (
                await conn.execute(sa.select(actions.c.seq, actions.c.action).where(actions.c.game_id == gid))
            ).all()
            seq, text = next((r.seq, r.action) for r in rows if json.loads(r.action)["type"] == "Roll")
            data = json.loads(text)
            data["dice"] = [7 - data["dice"][0], data["dice"][1]]  # a different number (7 - d is never d)
            await conn.execute(
                actions.update().where(actions.c.game_id == gid, actions.c.seq == seq).values(action=json.dumps(data))
            )
        record = {**(await store.load_game(gid, scope=Scope.system())).setup}
        logged = [a.action for a in await store.load_actions(gid, scope=Scope.system())]
        from engine.fairdice import verify_record

        report = verify_record({"setup": record["match"], "actions": logged, "dice": record["dice"]})
        assert not report.ok and f"roll {_roll_index(logged, seq)}" in str(report).lower()
        await store.close()

    asyncio.run(go())


def test_the_start_message_shows_fingerprints_not_the_raw_dice_values(tmp_path: Any) -> None:
    """The players' value is JSON text ('["…","game 1"]'): players read a short fingerprint of it, and of the
    commitment; the whole values stay in the record that /bg-dice verify attaches (issue 33 item 17)."""
    import hashlib

    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        try:
            svc = GameService(store)
            out = await svc.challenge(ANN, BEN, length=1)
            out = await svc.accept(out.game.id, BEN, entropy="interaction 123456789")
            start = next(e.text for e in out.events if e.kind == "start")
            dice = (await svc.record(out.game.id, ANN))["dice"]
            client = dice["client"]
            assert client and client not in start and repr(client) not in start, start
            assert hashlib.sha256(client.encode()).hexdigest()[:12] in start, start
            assert dice["commitment"][:12] in start and dice["commitment"] not in start, start
        finally:
            await store.close()

    asyncio.run(go())


_REFUSE_SECRETS = {
    # A stand-in for a kill while the challenge is being stored: the seed's write fails.
    "sqlite": ["CREATE TRIGGER killed BEFORE INSERT ON game_secrets BEGIN SELECT RAISE(ABORT, 'killed'); END"],
    "postgresql": [
        "CREATE FUNCTION killed() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'killed'; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER killed BEFORE INSERT ON game_secrets FOR EACH ROW EXECUTE FUNCTION killed()",
    ],
}


def test_a_challenge_is_never_stored_without_its_dice_seed(db_url: tuple[str, str | None]) -> None:
    """Issue 33 item 19: the challenge, its seed and its expiry are one transaction; when the seed cannot be written,
    no challenge is left behind (before: a challenge with no seed, whose dice nobody could verify)."""

    async def go() -> None:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        svc = GameService(store)
        for sql in _REFUSE_SECRETS[store.dialect]:
            await store.run(lambda conn, sql=sql: conn.execute(sa.text(sql)))
        try:
            await svc.challenge(ANN, BEN, length=1)
        except Exception as exc:
            assert "killed" in str(exc)
        else:
            raise AssertionError("the seed's write was expected to fail")
        assert await store.count_games(status="challenge", scope=Scope.system()) == 0
        assert await store.pending_timers() == []
        await store.close()

    asyncio.run(go())


def test_a_challenge_without_its_dice_seed_is_refused_in_words(tmp_path: Any) -> None:
    """A challenge an earlier version left without its seed is not played with dice nobody can verify."""

    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'fair.sqlite3'}")
        svc = GameService(store)
        gid = (await svc.challenge(ANN, BEN, length=1)).game.id
        assert await store.secret(gid) is not None
        await store.run(lambda conn: conn.execute(sa.text("DELETE FROM game_secrets")))
        try:
            await svc.accept(gid, BEN)
        except Refused as exc:
            assert str(exc) == (
                f"challenge #{gid} has no dice commitment (it was interrupted while being made), so its dice could "
                "not be verified: the challenger can decline it and challenge again"
            )
        else:
            raise AssertionError("a challenge without its seed was accepted")
        assert (await svc.decline(gid, ANN)).game.status != "challenge"
        await store.close()

    asyncio.run(go())
