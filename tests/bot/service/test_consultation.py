"""Backgammon Doubles consultation through the service: proposals stay inside the team, adoption, approval."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.scheduler import Scheduler
from bot.service import SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Scope, Store

GUILD = "g"
ANN, BEA = Request("ann", "Ann", GUILD), Request("bea", "Bea", GUILD)  # team 1
CAL, DAN = Request("cal", "Cal", GUILD), Request("dan", "Dan", GUILD)  # team 2
OUTSIDER = Request("eve", "Eve", GUILD)
EVERYTHING = Scope.system()  # the store read directly, for inspection
PEOPLE = {p.id: p for p in (ANN, BEA, CAL, DAN)}
TEAMMATE = {"ann": BEA, "bea": ANN, "cal": DAN, "dan": CAL}


class Clock:
    def __init__(self) -> None:
        self.now = 5_000_000.0

    def __call__(self) -> float:
        return self.now


async def _match(svc: GameService, consult: str = "free") -> Outcome:
    out = await svc.challenge(
        ANN, CAL, variant="doubles", length=3, teammate=BEA, opponent_teammate=DAN, consult=consult
    )
    await svc.accept(out.game.id, BEA)  # each player the challenge names accepts, the teammate too
    await svc.accept(out.game.id, DAN)
    out = await svc.accept(out.game.id, CAL)
    while out.game.phase == "opening":
        out = await svc.roll(out.game.id, ANN)
    return out


def _run(tmp_path: Path, body: Any) -> None:
    async def go() -> None:
        clock = Clock()
        store = await Store.open(f"sqlite:///{tmp_path / 'team.sqlite3'}", clock=clock)
        try:
            await body(GameService(store, dice=SeededDice(2), clock=clock), store, clock)
        finally:
            await store.close()

    asyncio.run(go())


def test_proposals_are_seen_only_by_the_team_and_adopting_one_plays_it(tmp_path: Path) -> None:
    async def body(svc: GameService, store: Store, clock: Clock) -> None:
        out = await _match(svc)
        gid = out.game.id
        acting = PEOPLE[out.game.to_act]  # type: ignore[index]
        mate = TEAMMATE[acting.id]
        opponents = [p for p in (ANN, BEA, CAL, DAN) if p not in (acting, mate)]
        proposal = out.game.plays[-1]
        made = await svc.propose(gid, mate, proposal)
        assert made.events[0].data["team"] == out.game.sides.index(
            tuple(x for x in out.game.sides if acting.id in x)[0]
        )
        listed = await svc.proposals(gid, acting)
        assert [p["text"] for p in listed] == [proposal] and listed[0]["name"] == mate.name
        for opponent in opponents:  # they see their own team's proposals only: none
            assert await svc.proposals(gid, opponent) == []
        with pytest.raises(Refused, match="only members of a team"):
            await svc.proposals(gid, OUTSIDER)
        with pytest.raises(Refused, match="has no decision"):
            await svc.propose(gid, opponents[0], "take")
        with pytest.raises(Refused, match="only the acting member"):
            await svc.adopt(gid, mate, listed[0]["id"])
        with pytest.raises(Refused, match="no proposal"):
            await svc.adopt(gid, opponents[0], listed[0]["id"])
        adopted = await svc.adopt(gid, acting, listed[0]["id"])
        assert any(e.kind == "move" for e in adopted.events)
        state = await svc.state(gid, SYSTEM)
        assert state.last_move is not None and state.last_move[0] != state.roller
        with pytest.raises(Refused, match="earlier decision"):
            await svc.adopt(gid, acting, listed[0]["id"])

    _run(tmp_path, body)


def test_both_must_agree_holds_the_play_until_the_teammate_approves(tmp_path: Path) -> None:
    async def body(svc: GameService, store: Store, clock: Clock) -> None:
        out = await _match(svc, consult="agree")
        gid = out.game.id
        acting = PEOPLE[out.game.to_act]  # type: ignore[index]
        mate = TEAMMATE[acting.id]
        before = len(await store.load_actions(gid, scope=EVERYTHING))
        held = await svc.move(gid, acting, out.game.plays[0])
        assert held.events[0].kind == "held" and len(await store.load_actions(gid, scope=EVERYTHING)) == before
        with pytest.raises(Refused, match="your teammate approves"):
            await svc.approve(gid, acting)
        rejected = await svc.approve(gid, mate, accept=False)
        assert rejected.events[0].kind == "rejected"
        await svc.move(gid, acting, out.game.plays[-1])
        approved = await svc.approve(gid, mate)
        assert [e.kind for e in approved.events][:2] == ["approved", "move"]
        assert len(await store.load_actions(gid, scope=EVERYTHING)) > before
        # Next time nobody answers: the held play is made when the approval time runs out.
        out = approved
        while out.game.to_act is None or out.game.phase != "move":
            actor = PEOPLE[out.game.to_act or out.game.acting[0]]  # type: ignore[index]
            out = await svc.roll(gid, actor) if out.game.phase in ("opening", "roll") else await svc.take(gid, actor)
        acting = PEOPLE[out.game.to_act]  # type: ignore[index]
        count = len(await store.load_actions(gid, scope=EVERYTHING))
        await svc.move(gid, acting, out.game.plays[0])
        clock.now += 601
        fired = await Scheduler(store, svc, clock=clock).tick()
        assert any(e.kind == "approved" for o in fired for e in o.events)
        assert len(await store.load_actions(gid, scope=EVERYTHING)) > count

    _run(tmp_path, body)
