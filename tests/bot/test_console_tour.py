"""``tour …`` at the console: a tournament run from the terminal, its news printed as it happens."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from bot.console import Console
from bot.service import GameService, SeededDice
from bot.storage import Store
from tests.bot.console_session import Session, refusals


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_the_console_runs_a_league_with_a_deadline_and_a_disqualification(tmp_path: Path) -> None:
    async def go() -> None:
        clock = Clock()
        store = await Store.open(f"sqlite:///{tmp_path / 'console.sqlite3'}", clock=clock)
        service = GameService(store, dice=SeededDice(5), clock=clock)
        out = io.StringIO()
        s = Session(Console(service, out, boards=tmp_path / "boards"), service, out)
        try:
            said = await s.type('alice: tour create "Club League" league sprintgammon 1 hours=24 rule=recent')
            assert "opened sign-ups for Club League (tournament #1), a league" in said
            for name in ("alice", "bob", "carol", "dave"):
                assert "joined Club League" in await s.type(f"{name}: tour join")
            assert "for single players" in await s.type("erin: tour join teammate=frank")
            said = await s.type("alice: tour start")
            assert "round 1 of 3 starts" in said and "Games started: #1" in said, said
            # One match is given up; in the other, one player throws the opening die and the day goes by.
            await s.type("alice: forfeit")
            said = await s.type("bob: roll")
            assert not refusals(said), said
            clock.now += 25 * 3600
            said = await s.type("alice: tour check")
            assert "Rule: the player who acted more recently wins" in said and "so bob wins" in said, said
            assert "round 2 of 3 starts" in said
            assert "no match is past its deadline" in await s.type("alice: tour check")
            said = await s.type("carol: tour dq dave")
            assert "dave was disqualified" in said and said.count("wins by walkover") == 1, said
            said = await s.type("alice: tour standings")
            assert "Club League · League · round 2 of 3" in said and "wrote " in said
            assert (tmp_path / "boards" / "tournament1-1.png").read_bytes().startswith(b"\x89PNG")
            assert "a league" in await s.type("erin: tour info #1")
            assert refusals(await s.type("alice: tour decide R9-9 alice"))
        finally:
            await store.close()

    asyncio.run(go())


def test_the_console_keeps_a_tournaments_clock_and_says_each_decision_once(tmp_path: Path) -> None:
    """No ``tour check``: the deadline that passed while nobody typed is applied before the next line runs, a
    reminder is said when its time has come, and a decision is said once, before the next round's pairings. A team
    enters once the teammate types ``tour accept``. Timers of a round that ended early are cancelled."""

    async def go() -> None:
        clock = Clock()
        store = await Store.open(f"sqlite:///{tmp_path / 'clock.sqlite3'}", clock=clock)
        service = GameService(store, dice=SeededDice(5), clock=clock)
        out = io.StringIO()
        s = Session(Console(service, out), service, out)
        try:
            await s.type('alice: tour create "Night Swiss" swiss sprintgammon 1 hours=10 rule=recent rounds=2')
            for name in ("alice", "bob", "carol", "dave"):
                await s.type(f"{name}: tour join")
            said = await s.type("alice: tour start")
            assert "round 1 of 2 starts" in said
            said = await s.type("alice: tour decide R1-1 alice")
            assert said.count("R1-1") == 1 and "forfeits" not in said and "Ratings" not in said, said
            assert not refusals(await s.type("bob: roll"))  # bob throws the opening die in R1-2, dave never acts
            clock.now += 8 * 3600  # 80% of the round: the 75% reminder comes with the next line
            said = await s.type("bob: board")
            assert "Reminder:" in said and said.count("Reminder:") == 1, said
            clock.now += 3 * 3600  # the deadline has passed: applied before the next line, which then runs
            said = await s.type("carol: tour info")
            assert "Rule: the player who acted more recently wins" in said and "so bob wins" in said, said
            assert "round 2 of 2 starts" in said
            assert said.index("Rule:") < said.index("round 2 of 2 starts") < said.index("#1 Night Swiss")
            assert said.count("Rule:") == 1
            pending = [r for r in await service.store.pending_timers() if r.kind in ("tour-deadline", "tour-reminder")]
            assert pending and all(r.payload["round"] == 2 for r in pending)  # round 1's are gone
            # A team tournament: the teammate's yes enters the team.
            await s.type('alice: tour create "Pairs" knockout doubles 1')
            said = await s.type("alice: tour join #2 teammate=erin")
            assert "alice asks erin to play Pairs as a team" in said and "tour accept" in said, said
            assert refusals(await s.type("frank: tour accept #2"))
            said = await s.type("erin: tour accept #2")
            assert "alice & erin joined Pairs (1 entrant now)." in said, said
        finally:
            await store.close()

    asyncio.run(go())
