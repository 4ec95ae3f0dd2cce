"""Money sessions through the service: a game count, ending between games, a deadline, forfeits that charge no
unstarted game; results and messages in the rule set's words (Longgammon's mars); the tie message; Doubles forfeits.
On a real SQLite file and the real PostgreSQL server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.service import GameService, Outcome, PlayerRef, Refused, Request, SeededDice

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)
CAROL = Request("carol", "Carol", GUILD)
DAVE = Request("dave", "Dave", GUILD)
PEOPLE = {p.id: p for p in (ALICE, BOB, CAROL, DAVE)}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def run(db_url: tuple[str, str | None], body: Callable[[GameService, Clock], Awaitable[Any]], seed: int = 1) -> Any:
    from bot.storage import Store

    async def go() -> Any:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        clock = Clock()
        try:
            return await body(GameService(store, dice=SeededDice(seed), clock=clock), clock)
        finally:
            await store.close()

    return asyncio.run(go())


async def money(svc: GameService, options: str = "", variant: str = "backgammon") -> Outcome:
    out = await svc.challenge(ALICE, BOB, variant=variant, length=0, options=options)
    return await svc.accept(out.game.id, BOB)


async def concede_game(svc: GameService, out: Outcome, loser: Request, level: int | str = 1) -> Outcome:
    """Roll until ``loser`` is on roll, then resign; the winner accepts when it is not accepted at once."""
    gid = out.game.id
    for _ in range(40):
        v = out.game
        if v.status != "active" or v.to_act == loser.id:
            break
        actor = PEOPLE[v.to_act or v.acting[0]]  # type: ignore[index]
        if v.phase in ("opening", "roll"):
            out = await svc.roll(gid, actor)
        elif v.phase == "move":
            out = await svc.move(gid, actor, v.plays[0])
        else:
            raise AssertionError(v.phase)
    out = await svc.resign(gid, loser, level)
    if out.game.phase == "resigned":
        out = await svc.answer_resignation(gid, PEOPLE[out.game.to_act or ""], True)
    return out


def texts(out: Outcome) -> str:
    return " | ".join(e.text for e in out.events)


def test_a_session_of_two_games_ends_after_them(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc, "games=2")
        out = await concede_game(svc, out, BOB)
        assert out.game.status == "active"
        out = await concede_game(svc, out, BOB)
        assert out.game.status == "finished" and out.game.score == (2, 0) and out.game.winner == 0
        assert "Session over after 2 games at 2-0: Alice leads by 2 points and wins the session." in texts(out)

    run(db_url, body)


def test_either_player_ends_a_session_between_games_and_the_score_stands(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc)
        for _ in range(3):
            out = await concede_game(svc, out, BOB)
        gid = out.game.id
        out = await svc.end_session(gid, BOB)
        assert out.game.status == "finished" and out.game.score == (3, 0) and out.game.winner == 0
        assert "Session ended by Bob at 3-0: Alice leads by 3 points and wins the session." in texts(out)
        with pytest.raises(Refused, match="over"):
            await svc.roll(gid, ALICE)

    run(db_url, body)


def test_a_session_does_not_end_during_a_game(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc)
        out = await svc.roll(out.game.id, ALICE)  # the opening roll: game 1 is under way
        with pytest.raises(Refused, match="game 1 is under way, so finish it first"):
            await svc.end_session(out.game.id, ALICE)

    run(db_url, body)


def test_a_forfeit_between_games_charges_no_game(db_url: tuple[str, str | None]) -> None:
    """The console once printed "Match over: bob wins 3-1" when alice, leading 3-0, forfeited before game 4."""

    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc)
        for _ in range(3):
            out = await concede_game(svc, out, BOB)
        out = await svc.forfeit(out.game.id, ALICE)
        assert out.game.score == (3, 0) and out.game.winner == 0
        assert "Alice forfeits the session." in texts(out)
        assert "Session ended by Alice at 3-0: Alice leads by 3 points" in texts(out)
        assert "Bob wins" not in texts(out)

    run(db_url, body)


def test_the_session_ends_at_its_deadline_at_the_next_moment_between_games(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc, "session_hours=2")
        out = await concede_game(svc, out, BOB)
        assert out.game.status == "active"
        out = await svc.roll(out.game.id, ALICE)  # game 2 is under way when the time is up
        clock.now += 3 * 3600
        out = await concede_game(svc, out, ALICE)  # it is played out, then the session ends
        assert out.game.status == "finished" and out.game.score == (1, 1) and out.game.winner is None
        assert "The session's 2 hours are up." in texts(out)
        assert "Session ended at its deadline at 1-1: level, nobody wins." in texts(out)

    run(db_url, body)


def test_a_deadline_passed_while_nobody_played_ends_the_session_instead_of_a_roll(
    db_url: tuple[str, str | None],
) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc, "session_hours=1")
        out = await concede_game(svc, out, ALICE)
        clock.now += 3600
        out = await svc.roll(out.game.id, BOB)
        assert out.game.status == "finished" and out.game.score == (0, 1) and out.game.winner == 1
        assert "Session ended at its deadline at 1-0: Bob leads by 1 point and wins the session." in texts(out)

    run(db_url, body)


def test_longgammon_results_are_named_and_paid_in_its_words(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await money(svc, variant="longgammon")
        gid = out.game.id
        with pytest.raises(Refused, match=r"a Longgammon game ends in a single game \(1\) or a mars \(2\)"):
            await concede_game(svc, out, BOB, "backgammon")
        out = await concede_game(svc, await svc_view(svc, gid), BOB, "mars")
        assert out.game.score == (2, 0)
        said = texts(out)
        assert "offers to resign a mars" in said and "Alice wins a mars (2 points, resign)" in said
        assert "accepted automatically" in said and "gammon" not in said.replace("Longgammon", "")
        with pytest.raises(Refused, match="give its name or number"):
            await svc.resign(gid, BOB, "everything")

    run(db_url, body)


async def svc_view(svc: GameService, gid: int) -> Outcome:
    from bot.service import SYSTEM

    return Outcome((), await svc.view(gid, SYSTEM))


def test_the_tie_message_says_the_cube_was_doubled(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        for seed in range(40):  # until a seed opens with a tie
            svc.dice = SeededDice(seed)
            out = await money(svc, "auto_doubles=1")
            out = await svc.roll(out.game.id, ALICE)
            if "a tie" in texts(out):
                assert "the cube is doubled automatically to 2" in texts(out) and out.game.cube == 2
                return
        raise AssertionError("no opening tie in 40 seeds")

    run(db_url, body)


def test_in_doubles_only_the_acting_member_forfeits_for_the_team(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, clock: Clock) -> None:
        out = await svc.challenge(
            ALICE,
            BOB,
            variant="doubles",
            length=3,
            teammate=PlayerRef("carol", "Carol"),
            opponent_teammate=PlayerRef("dave", "Dave"),
        )
        gid = out.game.id
        for who in (BOB, CAROL, DAVE):
            with contextlib.suppress(Refused):  # the first to accept for a side may accept for it
                out = await svc.accept(gid, who)
        assert out.game.status == "active"
        acting = out.game.acting
        assert acting is not None
        teammate = CAROL if acting[0] == "alice" else ALICE
        with pytest.raises(Refused, match=f"only {PEOPLE[acting[0]].name} may forfeit the match"):
            await svc.forfeit(gid, teammate)
        out = await svc.forfeit(gid, PEOPLE[acting[0]])
        assert out.game.status == "finished" and out.game.winner == 1

    run(db_url, body)
