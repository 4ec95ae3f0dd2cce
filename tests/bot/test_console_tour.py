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
            assert "dave was disqualified" in said and "wins by walkover" in said, said
            said = await s.type("alice: tour standings")
            assert "Club League · League · round 2 of 3" in said and "wrote " in said
            assert (tmp_path / "boards" / "tournament1-1.png").read_bytes().startswith(b"\x89PNG")
            assert "a league" in await s.type("erin: tour info #1")
            assert refusals(await s.type("alice: tour decide R9-9 alice"))
        finally:
            await store.close()

    asyncio.run(go())
