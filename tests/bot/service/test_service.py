"""The game service: every command and every refusal, on a real SQLite file and the real PostgreSQL server."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.service import SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Scope, Store
from engine.matfile import import_mat
from tests.bot.service.playing import next_action

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)
CAROL = Request("carol", "Carol", GUILD)
DAVE = Request("dave", "Dave", GUILD)
ADMIN = Request("admin", "Admin", GUILD, admin=True)  # may manage the server
EVERYTHING = Scope.system()  # the store read directly, for inspection
PEOPLE = {p.id: p for p in (ALICE, BOB, CAROL, DAVE)}


def run(db_url: tuple[str, str | None], body: Callable[[GameService], Awaitable[Any]], seed: int = 1) -> Any:
    async def go() -> Any:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        try:
            return await body(GameService(store, dice=SeededDice(seed)))
        finally:
            await store.close()

    return asyncio.run(go())


async def started(svc: GameService, length: int = 3, **kw: Any) -> Outcome:
    out = await svc.challenge(ALICE, BOB, variant=kw.pop("variant", "backgammon"), length=length, **kw)
    return await svc.accept(out.game.id, BOB)


async def refused(coro: Awaitable[Any], text: str) -> str:
    with pytest.raises(Refused) as info:
        await coro
    assert text in str(info.value), str(info.value)
    return str(info.value)


async def to_move(svc: GameService, out: Outcome) -> Outcome:
    """Roll until someone has a roll to play; returns that outcome."""
    gid = out.game.id
    for _ in range(20):
        v = out.game
        if v.phase == "move":
            return out
        actor = PEOPLE[v.to_act or v.acting[0]]  # type: ignore[index]
        out = await svc.roll(gid, actor)
    raise AssertionError("never reached a move")


async def play_out(svc: GameService, out: Outcome, rng: random.Random, limit: int = 3000) -> Outcome:
    for _ in range(limit):
        v = out.game
        if v.status != "active":
            return out
        out = await next_action(svc, v, PEOPLE[v.to_act or v.acting[0]], rng.choice)  # type: ignore[index]
    raise AssertionError("the match did not end")


def test_a_whole_match_is_played_stored_and_exported(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await started(svc, length=3)
        out = await play_out(svc, out, random.Random(4))
        assert out.game.status == "finished" and max(out.game.score) >= 3
        assert any(e.kind == "match-over" for e in out.events)
        setup, actions = import_mat(await svc.export(out.game.id, ALICE))
        assert setup.options.length == 3 and len(actions) > 10
        fresh = GameService(svc.store)  # a new process: replays the log and checks the snapshot
        assert (await fresh.view(out.game.id, SYSTEM)).score == out.game.score

    run(db_url, body)


def test_challenge_refusals(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        await refused(svc.challenge(ALICE, ALICE), "you cannot challenge yourself")
        await refused(svc.challenge(ALICE, BOB, variant="chess"), "no rule set called 'chess'")
        await refused(svc.challenge(ALICE, BOB, options={"jacoby": True}, length=5), "money play only")
        await refused(svc.challenge(ALICE, BOB, options={"colour": "red"}), "unknown option 'colour'")
        await refused(svc.challenge(ALICE, BOB, variant="doubles"), "name your teammate")
        await svc.guild_settings(ADMIN, allowed_variants=["longgammon"])
        await refused(svc.challenge(ALICE, BOB, variant="backgammon"), "not allowed on this server")
        await refused(svc.guild_settings(ALICE, default_length=7), "only a server admin")

    run(db_url, body)


def test_accept_and_decline_refusals(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, length=1)
        gid = out.game.id
        await refused(svc.accept(gid, ALICE), "you cannot accept your own challenge")
        await refused(svc.accept(gid, CAROL), "this challenge is for Bob")
        await refused(svc.roll(gid, ALICE), "waiting for the challenge to be accepted")
        await refused(svc.accept(999, BOB), "there is no game #999")
        declined = await svc.decline(gid, BOB)
        assert declined.game.status == "declined" and "Bob declined" in declined.events[0].text
        await refused(svc.accept(gid, BOB), "not an open challenge")
        open_challenge = await svc.challenge(ALICE, None, length=1)
        accepted = await svc.accept(open_challenge.game.id, CAROL)
        assert accepted.game.status == "active" and accepted.game.sides == (("alice",), ("carol",))

    run(db_url, body)


def test_turn_refusals_name_the_rule(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await to_move(svc, await started(svc))
        gid = out.game.id
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        other = BOB if mover is ALICE else ALICE
        await refused(svc.roll(gid, CAROL), "you are not playing in game")
        await refused(svc.roll(gid, mover), "you have already rolled")
        await refused(svc.move(gid, other, out.game.plays[0]), "it is not your turn")
        await refused(svc.move(gid, mover, "24/1"), "cannot make")
        await refused(svc.double(gid, mover), "a double must come before the roll")
        out = await svc.move(gid, mover, out.game.plays[0])
        assert out.events[0].kind == "move" and out.game.to_act == other.id

    run(db_url, body)


def test_submoves_undo_and_confirm(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await to_move(svc, await started(svc))
        gid = out.game.id
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        state = await svc.state(gid, SYSTEM)
        play = max(state.legal_plays(), key=lambda p: len(p.moves))
        await refused(svc.undo(gid, mover), "nothing to undo")
        (s0, t0, _), *rest = play.moves
        out = await svc.submove(gid, mover, s0, t0)
        assert out.game.draft and out.game.phase == "move"
        out = await svc.undo(gid, mover)
        assert out.game.draft == ""
        for s, t, _ in play.moves:
            out = await svc.submove(gid, mover, s, t)
        assert out.game.draft_remaining == ()
        await refused(svc.submove(gid, mover, s0, t0), "used up")
        out = await svc.confirm(gid, mover)
        assert out.events[0].kind == "move" and out.game.draft == ""
        assert (await svc.state(gid, SYSTEM)).last_move is not None

    run(db_url, body)


def test_cube_and_resignation_paths(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await started(svc, length=0, options={"beavers": True})
        out = await to_move(svc, out)
        gid = out.game.id
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        out = await svc.move(gid, mover, out.game.plays[0])
        doubler = PEOPLE[out.game.to_act]  # type: ignore[index]
        taker = ALICE if doubler is BOB else BOB
        out = await svc.double(gid, doubler)
        assert out.game.phase == "doubled" and out.game.to_act == taker.id
        out = await svc.beaver(gid, taker)
        assert out.game.cube == 2 and out.game.to_act == doubler.id  # the cube doubles on the answer (GNU Backgammon)
        out = await svc.take(gid, doubler)
        assert out.game.cube == 4 and out.game.cube_owner == (0 if taker is ALICE else 1)
        await refused(svc.double(gid, doubler), "the cube is not yours")
        out = await svc.resign(gid, doubler, "single")
        assert out.game.phase == "resigned"
        out = await svc.answer_resignation(gid, taker, False)
        assert out.game.phase == "roll"
        await refused(svc.resign(gid, doubler, "single"), "you may only offer more")
        out = await svc.resign(gid, doubler, "gammon")
        out = await svc.answer_resignation(gid, taker, True)
        assert any(e.kind == "game-over" for e in out.events)
        assert out.game.score == ((8, 0) if taker is ALICE else (0, 8))

    run(db_url, body)


def test_a_pass_pays_the_value_before_the_double(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await to_move(svc, await started(svc, length=5))
        gid = out.game.id
        out = await svc.move(gid, PEOPLE[out.game.to_act], out.game.plays[0])  # type: ignore[index]
        doubler = PEOPLE[out.game.to_act]  # type: ignore[index]
        taker = ALICE if doubler is BOB else BOB
        await svc.double(gid, doubler)
        out = await svc.pass_(gid, taker)
        won = out.game.score[0 if doubler is ALICE else 1]
        assert won == 1 and out.game.game == 2

    run(db_url, body)


def test_my_games_lists_the_games_waiting_for_me_first(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        first = await to_move(svc, await started(svc))
        waiting_for = first.game.to_act
        assert waiting_for is not None
        other = "bob" if waiting_for == "alice" else "alice"
        await svc.challenge(PEOPLE[other], PEOPLE[waiting_for], length=1)
        games = await svc.my_games(PEOPLE[waiting_for])
        assert len(games) == 2
        mine = await svc.my_games(PEOPLE[other])
        assert [g.id for g in mine][-1] in {g.id for g in games}
        assert all(g.to_act == waiting_for or waiting_for in g.invited for g in games)

    run(db_url, body)


def test_forced_plays_are_played_automatically_by_setting(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        await svc.player_settings(ALICE, autoplay=True)
        await svc.player_settings(BOB, autoplay="off")
        assert (await svc.player_settings(BOB))["autoplay"] is False
        await refused(svc.player_settings(BOB, colour="red"), "no player setting 'colour'")
        out = await play_out(svc, await started(svc, length=1), random.Random(9))
        assert out.game.status == "finished"
        gid = out.game.id
        state = await svc.state(gid, SYSTEM)
        logged = await svc.store.load_actions(gid, scope=EVERYTHING)
        assert logged and state.over

    run(db_url, body, seed=5)


def test_doubles_only_the_acting_member_acts(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, variant="doubles", length=3, teammate=CAROL, opponent_teammate=DAVE)
        assert out.game.awaiting == ("carol", "bob", "dave")  # nobody is seated without being asked
        await refused(svc.accept(out.game.id, ALICE), "you cannot accept your own challenge")
        out = await svc.accept(out.game.id, CAROL)
        assert out.game.status == "challenge" and "it starts once Bob and Dave accept" in out.events[0].text
        await refused(svc.accept(out.game.id, CAROL), "you have accepted challenge")
        await refused(svc.accept(out.game.id, ADMIN), "this challenge is for")
        await svc.accept(out.game.id, DAVE)
        out = await svc.accept(out.game.id, BOB)
        gid = out.game.id
        assert out.game.acting == ("alice", "bob")
        await refused(svc.roll(gid, CAROL), "")
        out = await to_move(svc, out)
        mover = out.game.to_act
        teammate = {"alice": CAROL, "bob": DAVE}[mover]  # type: ignore[index]
        await refused(svc.move(gid, teammate, out.game.plays[0]), "only the acting member")

    run(db_url, body)


def test_two_concurrent_identical_rolls_apply_exactly_once(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await to_move(svc, await started(svc))
        gid = out.game.id
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        out = await svc.move(gid, mover, out.game.plays[0])
        roller = PEOPLE[out.game.to_act]  # type: ignore[index]
        url, schema = db_url
        second_store = await Store.open(url, schema=schema)  # a second instance with its own connections
        other_process = GameService(second_store, dice=SeededDice(99))
        before = len(await svc.store.load_actions(gid, scope=EVERYTHING))

        async def attempt(s: GameService) -> str:
            try:
                await s.roll(gid, roller)
                return "ok"
            except Refused as exc:
                return str(exc)

        results = await asyncio.gather(attempt(svc), attempt(other_process), attempt(svc), attempt(other_process))
        assert results.count("ok") == 1, results
        assert all("already rolled" in r or "not your turn" in r for r in results if r != "ok"), results
        assert len(await svc.store.load_actions(gid, scope=EVERYTHING)) == before + 1
        await second_store.close()

    run(db_url, body)


def test_two_services_with_stale_caches_keep_one_contiguous_log(db_url: tuple[str, str | None]) -> None:
    """Each service numbers new log entries from the record it read; when another process moved the game first,
    the compare-and-swap refuses the stale write, the service reloads and numbers on from the stored log."""

    async def go() -> None:
        url, schema = db_url
        first = await Store.open(url, schema=schema)
        second = await Store.open(url, schema=schema)  # another process on the same database
        try:
            one, two = GameService(first, dice=SeededDice(3)), GameService(second, dice=SeededDice(4))
            out = await started(one, length=1)
            gid = out.game.id
            rng = random.Random(9)
            for _ in range(40):
                svc = (one, two)[rng.random() < 0.5]
                view = await svc.view(gid, SYSTEM)  # maybe stale: the other service may have acted since
                if view.status != "active":
                    break
                try:
                    actor = PEOPLE[view.to_act or view.acting[0]]  # type: ignore[index]
                    if view.phase == "move":
                        await svc.move(gid, actor, rng.choice(view.plays))
                    elif view.phase == "doubled":
                        await svc.take(gid, actor)
                    else:
                        await svc.roll(gid, actor)
                except Refused:
                    svc._forget(gid)  # acted on a stale view: look again
            log = await first.load_actions(gid, scope=EVERYTHING)
            assert len(log) >= 10
            assert [a.seq for a in log] == list(range(1, len(log) + 1))
            fresh = GameService(first)  # replays the stored log and checks it against the snapshot
            assert (await fresh.view(gid, SYSTEM)).version == (await first.load_game(gid, scope=EVERYTHING)).version
        finally:
            await first.close()
            await second.close()

    asyncio.run(go())


def test_a_move_out_of_turn_says_who_is_to_roll(db_url: tuple[str, str | None]) -> None:
    """After a play the other side is to roll: the player who just moved is told whose turn it is, not to roll."""

    async def body(svc: GameService) -> None:
        out = await to_move(svc, await started(svc, variant="sprintgammon", length=1))
        gid = out.game.id
        mover = PEOPLE[out.game.to_act or ""]
        other = BOB if mover is ALICE else ALICE
        after = await svc.move(gid, mover, out.game.plays[0])
        if after.game.phase != "roll" or after.game.to_act != other.id:
            pytest.skip("the play ended the game or handed over no roll")
        text = await refused(svc.move(gid, mover, "1/off"), "it is not your turn")
        assert f"{other.name} is to roll" in text
        await refused(svc.move(gid, other, "1/off"), "you cannot play yet: roll first")

    run(db_url, body)
