"""Clocks, deadlines, reminders, vacations and the durable scheduler, with time driven by an injected clock."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.clock import Clock, advance, deadline, overlap
from bot.scheduler import Scheduler
from bot.service import DAY, SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Scope, Store
from engine.plugins import registry

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)
PEOPLE = {"alice": ALICE, "bob": BOB}


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def run(db_url: tuple[str, str | None], body: Callable[[GameService, Store, FakeTime], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        url, schema = db_url
        t = FakeTime()
        store = await Store.open(url, schema=schema, clock=t)
        try:
            return await body(GameService(store, dice=SeededDice(3), clock=t), store, t)
        finally:
            await store.close()

    return asyncio.run(go())


async def start(svc: GameService, tc: str | dict[str, Any], length: int = 3) -> Outcome:
    out = await svc.challenge(ALICE, BOB, length=length, time_control=tc)
    return await svc.accept(out.game.id, BOB)


async def roll_opening(svc: GameService, out: Outcome) -> Outcome:
    while out.game.phase == "opening":
        out = await svc.roll(out.game.id, ALICE)
    return out


def kinds(outcomes: list[Outcome]) -> list[str]:
    return [e.kind for o in outcomes for e in o.events]


def test_delay_and_increment_arithmetic_of_the_running_clock() -> None:
    tc = registry().find_time_control("backgammon-blitz")  # 2 min + 10 s simple delay
    clock = Clock((120.0, 120.0), 0, 0.0)
    assert deadline(tc, clock) == 130.0
    from engine.match import new_match
    from engine.plugins import get_variant

    state = new_match(get_variant("backgammon"), [["a"], ["b"]])
    state = state.__class__(**{**state.__dict__, "phase": state.phase.ROLL, "roller": 1})
    after = advance(tc, clock, state, 25.0)  # side 0 took 25 s: 15 s beyond the delay
    assert after.reserve == (105.0, 120.0) and after.running == 1 and after.since == 25.0
    fischer = tc.with_bonus("increment")
    assert advance(fischer, clock, state, 25.0).reserve == (105.0, 120.0)
    assert advance(fischer, clock, state, 4.0).reserve == (126.0, 120.0)  # unused increment accumulates
    assert overlap(0, 100, [(10, 20), (15, 30), (90, 200)]) == 30


def test_reminders_then_a_timeout_at_the_right_instants(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        sched = Scheduler(store, svc, clock=t)
        out = await roll_opening(svc, await start(svc, "correspondence"))  # 1 day per move, 3-day bank
        gid = out.game.id
        # The roller plays at once, so the opponent's clock starts now: 3 days bank + 1 day = 4 days.
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        out = await svc.move(gid, mover, out.game.plays[0])
        waiting = out.game.to_act
        start_at = t.now
        t.now = start_at + 1.99 * DAY
        assert await sched.tick() == []
        t.now = start_at + 2.0 * DAY + 1
        first = await sched.tick()
        assert kinds(first) == ["reminder"] and first[0].events[0].by == waiting and "50%" in first[0].events[0].text
        t.now = start_at + 3.6 * DAY + 1
        assert kinds(await sched.tick()) == ["reminder"]
        t.now = start_at + 4.0 * DAY - 5
        assert await sched.tick() == []
        t.now = start_at + 4.0 * DAY + 5
        final = await sched.tick()
        assert "timeout" in kinds(final) and "match-over" in kinds(final)
        view = await svc.view(gid, SYSTEM)
        assert view.status == "finished" and view.winner == (0 if waiting == "bob" else 1)
        assert max(view.score) == 3  # IBF: the opponent is credited the points needed to win
        assert await sched.tick() == []

    run(db_url, body)


def test_only_a_real_takeover_is_logged_as_one(
    db_url: tuple[str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    """A timeout that ends its game removes its own row (the game's timers are replaced): that is no takeover."""

    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        out = await roll_opening(svc, await start(svc, "correspondence", length=1))
        gid = out.game.id
        t.now += 30 * DAY
        with caplog.at_level(logging.WARNING, logger="bot.scheduler"):
            assert "timeout" in kinds(await Scheduler(store, svc, clock=t, worker="a").tick())
        assert (await svc.view(gid, SYSTEM)).status == "finished"
        assert "taken over" not in caplog.text
        # A worker whose lease ran out while it fired: another claimed the timer meanwhile.
        other = await roll_opening(svc, await start(svc, "correspondence", length=1))
        t.now += 30 * DAY
        mine = [x.id for x in await store.claim_due_timers(t.now, "slow", lease=1.0)]
        assert mine and {x.game_id for x in await store.pending_timers(other.game.id)} == {other.game.id}
        assert [x.id for x in await store.claim_due_timers(t.now + 2, "fast", lease=60.0)] == mine
        assert await store.timers_taken_over(mine, "slow") == len(mine)
        assert await store.timers_taken_over(mine, "fast") == 0

    run(db_url, body)


def test_a_bot_stopped_across_a_deadline_fires_it_once_and_two_schedulers_fire_each_timer_once(
    db_url: tuple[str, str | None],
) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        games = []
        for _ in range(4):
            out = await roll_opening(svc, await start(svc, "correspondence"))
            games.append(out.game.id)
        t.now += 30 * DAY  # everybody was away, and so was the bot
        restarted = GameService(store, dice=SeededDice(3), clock=t)  # a new process: nothing in memory
        first = Scheduler(store, restarted, clock=t)
        second = Scheduler(store, GameService(store, clock=t), clock=t)
        a, b = await asyncio.gather(first.tick(), second.tick())
        timeouts = [e for o in a + b for e in o.events if e.kind == "timeout"]
        assert len(timeouts) == len(games)
        assert sorted(e.game_id for e in timeouts) == sorted(games)
        assert await first.tick() == [] and await second.tick() == []
        for gid in games:
            assert (await restarted.view(gid, SYSTEM)).status == "finished"

    run(db_url, body)


def test_a_blitz_flag_falls_and_a_late_move_meets_the_fallen_flag(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        out = await roll_opening(svc, await start(svc, "backgammon-blitz", length=5))  # 2 min + 10 s delay
        gid = out.game.id
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        t.now += 8  # within the delay: costs nothing
        out = await svc.move(gid, mover, out.game.plays[0])
        clock = (await store.load_game(gid, scope=Scope.system())).clock
        assert clock is not None and clock["reserve"] == [120.0, 120.0]
        slow = PEOPLE[out.game.to_act]  # type: ignore[index]
        t.now += 131  # 2 min reserve + 10 s delay, and one second more
        late = await svc.roll(gid, slow)
        assert [e.kind for e in late.events][:2] == ["flag", "timeout"]
        assert late.game.status == "finished" and late.game.winner == (0 if slow is BOB else 1)
        assert await Scheduler(store, svc, clock=t).tick() == []  # its deadline timer is gone with the game

    run(db_url, body)


def test_an_unthrown_opening_roll_is_thrown_automatically(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        out = await start(svc, "correspondence")
        t.now += DAY + 1
        fired = await Scheduler(store, svc, clock=t).tick()
        assert kinds(fired)[:2] == ["auto-opening", "opening"]
        assert (await svc.view(out.game.id, SYSTEM)).phase != "opening" or "tie" in fired[0].events[1].text

    run(db_url, body)


def test_vacation_stops_the_clock_within_the_yearly_allowance(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        out = await roll_opening(svc, await start(svc, "correspondence"))
        gid = out.game.id
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        before = [x.due_at for x in await store.pending_timers(gid) if x.kind == "timeout"]
        await svc.vacation(mover, 5)
        after = [x.due_at for x in await store.pending_timers(gid) if x.kind == "timeout"]
        assert after[0] - before[0] == pytest.approx(5 * DAY)
        assert (await svc.view(gid, mover)).deadline == pytest.approx(after[0])  # what the players are shown
        restarted = GameService(store, dice=SeededDice(3), clock=t)  # a new process: nothing in memory
        assert (await restarted.view(gid, mover)).deadline == pytest.approx(after[0])
        t.now += 8 * DAY  # within the moved deadline
        assert "timeout" not in kinds(await Scheduler(store, svc, clock=t).tick())
        out = await svc.move(gid, mover, (await svc.view(gid, mover)).plays[0])
        assert out.game.status == "active"
        with pytest.raises(Refused, match="more vacation than this server allows"):
            await svc.vacation(mover, 30)

    run(db_url, body)


def test_abandoned_challenges_expire_and_idle_matches_are_archived(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        challenge = await svc.challenge(ALICE, BOB, length=1)
        idle = await svc.accept((await svc.challenge(ALICE, BOB, length=1)).game.id, BOB)
        sched = Scheduler(store, svc, clock=t)
        t.now += 7 * DAY + 1
        assert kinds(await sched.tick()) == ["expired"]
        assert (await svc.view(challenge.game.id, SYSTEM)).status == "expired"
        with pytest.raises(Refused, match="not an open challenge"):
            await svc.accept(challenge.game.id, BOB)
        t.now += 60 * DAY
        assert kinds(await sched.tick()) == ["archived"]
        assert (await svc.view(idle.game.id, SYSTEM)).status == "archived"

    run(db_url, body)


def test_an_untimed_match_is_archived_only_after_its_last_change_grows_old(db_url: tuple[str, str | None]) -> None:
    """Moves write no timer rows; the one archive timer, when due, waits again from the last change."""

    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        out = await roll_opening(svc, await start(svc, None, length=1))  # type: ignore[arg-type]
        gid = out.game.id
        [armed] = await store.pending_timers(gid)
        assert armed.kind == "archive"
        t.now += 50 * DAY
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        out = await svc.move(gid, mover, out.game.plays[0])
        assert [x.id for x in await store.pending_timers(gid)] == [armed.id]  # the move left the timer alone
        sched = Scheduler(store, svc, clock=t)
        t.now = armed.due_at + 1  # 60 days after the start, 10 after the move
        assert kinds(await sched.tick()) == []
        assert (await svc.view(gid, SYSTEM)).status == "active"
        [again] = await store.pending_timers(gid)
        assert again.kind == "archive" and again.due_at == pytest.approx(armed.due_at + 50 * DAY)
        t.now = again.due_at + 1
        assert kinds(await sched.tick()) == ["archived"]
        assert (await svc.view(gid, SYSTEM)).status == "archived"

    run(db_url, body)


def test_unknown_or_impossible_time_controls_are_refused(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        with pytest.raises(Refused, match="no time control"):
            await svc.challenge(ALICE, BOB, time_control="hourglass")
        with pytest.raises(Refused, match="cannot work"):
            await svc.challenge(ALICE, BOB, time_control={"kind": "correspondence", "per_move": 0})
        custom = await svc.challenge(ALICE, BOB, time_control={"kind": "clock", "per_move": 5, "reserve": 60})
        assert "clock: 1 min + 5 s delay" in custom.events[0].text

    run(db_url, body)


def test_my_games_puts_the_games_waiting_for_me_with_the_least_time_left_first(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        slow = await roll_opening(svc, await start(svc, "correspondence"))
        t.now += 3600
        fast = await roll_opening(svc, await start(svc, "backgammon-blitz", length=5))
        mover = fast.game.to_act
        games = await svc.my_games(PEOPLE[mover])  # type: ignore[index]
        assert games[0].id == fast.game.id  # its two minutes run out first
        mine = [g for g in games if g.to_act == mover]
        assert all(g.deadline is not None for g in mine)
        assert [g.deadline for g in mine] == sorted(g.deadline for g in mine)  # type: ignore[type-var]
        assert slow.game.id in [g.id for g in games]

    run(db_url, body)
