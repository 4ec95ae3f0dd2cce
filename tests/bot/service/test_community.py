"""Ratings per rule set, leaderboards, profiles, history, spectating and forgetting a player, through the service."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.service import SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Store
from engine.matchid import decode_match_id
from engine.ratings import FibsRatings, Rating

GUILD = "guild"
ANN, BEN, CAT = Request("ann", "Ann", GUILD), Request("ben", "Ben", GUILD), Request("cat", "Cat", GUILD)
ADMIN = Request("admin", "Admin", GUILD, admin=True)  # may manage the server
ELSEWHERE = Request("ann", "Ann", "elsewhere")  # Ann, asking in another server
FIBS = FibsRatings()


def run(db_url: tuple[str, str | None], body: Callable[[GameService], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        try:
            return await body(GameService(store, dice=SeededDice(8)))
        finally:
            await store.close()

    return asyncio.run(go())


async def match(svc: GameService, winner: Request, loser: Request, variant: str, length: int) -> Outcome:
    """A match that ``winner`` wins because ``loser`` resigns every game when it is their turn."""
    options = {"games": 1} if length == 0 else {}  # a money session of one game
    out = await svc.challenge(winner, loser, variant=variant, length=length, options=options)
    out = await svc.accept(out.game.id, loser)
    gid = out.game.id
    people = {winner.id: winner, loser.id: loser}
    for _ in range(500):
        view = out.game
        if view.status == "finished":
            return out
        actor = people[view.to_act or view.acting[0]]  # type: ignore[index]
        if view.phase in ("opening", "roll") and actor is loser:
            out = await svc.resign(gid, loser, "backgammon")  # auto-accepted: it concedes the most
        elif view.phase in ("opening", "roll"):
            out = await svc.roll(gid, actor)
        elif view.phase == "move":
            out = await svc.move(gid, actor, view.plays[0])
        elif view.phase == "resigned":
            out = await svc.answer_resignation(gid, actor, True)
        else:
            out = await svc.take(gid, actor)
    raise AssertionError("match did not end")


def test_leaderboards_and_profiles_show_exactly_the_expected_ratings(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        expected: dict[tuple[str, str], Rating] = {}

        def rate(winner: str, loser: str, variant: str, length: int) -> None:
            w = expected.get((winner, variant), Rating())
            lo = expected.get((loser, variant), Rating())
            expected[(winner, variant)], expected[(loser, variant)] = FIBS.update(w, lo, length)

        plan = [
            (ANN, BEN, "backgammon", 1),
            (ANN, CAT, "backgammon", 3),
            (BEN, CAT, "backgammon", 1),
            (CAT, ANN, "sprintgammon", 1),
            (CAT, BEN, "sprintgammon", 1),
        ]
        for winner, loser, variant, length in plan:
            out = await match(svc, winner, loser, variant, length)
            rate(winner.id, loser.id, variant, length)
            ratings_event = [e for e in out.events if e.kind == "ratings"]
            assert ratings_event and winner.name in ratings_event[0].text
        money = await match(svc, ANN, BEN, "backgammon", 0)  # money play: unrated
        assert not [e for e in money.events if e.kind == "ratings"]

        board = await svc.leaderboard(ANN, "backgammon")
        assert [row["player"] for row in board] == sorted(
            ["ann", "ben", "cat"], key=lambda p: -expected[(p, "backgammon")].rating
        )
        for row in board:
            assert row["rating"] == pytest.approx(expected[(row["player"], "backgammon")].rating)
        assert {r["player"]: (r["wins"], r["losses"]) for r in board} == {"ann": (2, 0), "ben": (1, 1), "cat": (0, 2)}
        assert [r["player"] for r in await svc.leaderboard(ANN, "sprintgammon")][0] == "cat"
        assert await svc.leaderboard(ANN, "backgammon", min_matches=3) == []
        assert await svc.leaderboard(ELSEWHERE, "backgammon") == []

        cat = await svc.profile(CAT)
        assert cat["ratings"]["sprintgammon"]["rating"] == pytest.approx(expected[("cat", "sprintgammon")].rating)
        assert cat["ratings"]["backgammon"]["streak"] == -2 and cat["ratings"]["sprintgammon"]["streak"] == 2
        assert [m["won"] for m in cat["recent"]] == [True, True, False, False]
        history = await svc.history(BEN)
        assert len(history) == 6 and history[0]["rated"] is False

    run(db_url, body)


def test_ids_of_any_position_and_spectating(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.accept((await svc.challenge(ANN, BEN, length=5)).game.id, BEN)
        gid = out.game.id
        pid, mid = await svc.ids_at(gid, CAT, 0)
        assert pid == "4HPwATDgc/ABMA" and decode_match_id(mid).length == 5 and decode_match_id(mid).score == (0, 0)
        out = await svc.roll(gid, ANN)
        while out.game.phase == "opening":
            out = await svc.roll(gid, ANN)
        pid, mid = await svc.ids_at(gid, CAT)
        info = decode_match_id(mid)
        assert info.dice is not None and sorted(info.dice) == sorted(out.game.dice)  # type: ignore[arg-type]
        await svc.watch(gid, CAT)
        assert await svc.watchers(gid) == ["cat"]
        await svc.watch(gid, CAT, on=False)
        assert await svc.watchers(gid) == []
        with pytest.raises(Refused, match="pick a number"):
            await svc.ids_at(gid, CAT, 99)

    run(db_url, body)


def test_forgetting_a_player_keeps_the_opponents_records(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        await match(svc, ANN, BEN, "backgammon", 1)
        with pytest.raises(Refused, match="only a server admin"):
            await svc.forget(ANN, "ben")
        assert await svc.forget(ADMIN, "ben") >= 1
        ann = await svc.profile(ANN)
        assert ann["recent"][0]["won"] is True and ann["ratings"]["backgammon"]["wins"] == 1
        # The match stays, under a neutral name: an admin's forget erases Ben's name from this server's records.
        assert ann["recent"][0]["sides"] == ["Ann", "a former player"]
        assert (await svc.history(ANN))[0]["sides"] == ["Ann", "a former player"]

    run(db_url, body)


GNUBG_READ_IDS = """
import gnubg
gnubg.command('new match {length}')
gnubg.command('set matchid {mid}')
gnubg.command('set board {pid}')
cube = gnubg.cubeinfo()
pos = gnubg.posinfo()
print('CUBE', cube['cube'], cube['cubeowner'], cube['matchto'], cube['score'][0], cube['score'][1])
print('DICE', pos['dice'][0], pos['dice'][1])
board = gnubg.board()
print('BOARD', ','.join(map(str, board[0])), ','.join(map(str, board[1])))
"""


@pytest.mark.gnubg
def test_ids_of_a_mid_match_position_decode_in_gnu_backgammon(tmp_path: Any) -> None:
    from tests.conftest import run_gnubg_script

    async def body() -> tuple[str, str, Any]:
        store = await Store.open(f"sqlite:///{tmp_path / 'ids.sqlite3'}")
        svc = GameService(store, dice=SeededDice(3))
        out = await svc.accept((await svc.challenge(ANN, BEN, length=5)).game.id, BEN)
        gid = out.game.id
        people = {"ann": ANN, "ben": BEN}
        doubled = False
        for _ in range(60):
            v = out.game
            actor = people[v.to_act or v.acting[0]]  # type: ignore[index]
            if v.phase == "roll" and not doubled:
                out = await svc.double(gid, actor)
                doubled = True
            elif v.phase == "doubled":
                out = await svc.take(gid, actor)
            elif v.phase in ("opening", "roll"):
                out = await svc.roll(gid, actor)
                if doubled and out.game.phase == "move":
                    break
            else:
                out = await svc.move(gid, actor, v.plays[0])
        state = await svc.state(gid, SYSTEM)
        pid, mid = await svc.ids_at(gid, ANN)
        await store.close()
        return pid, mid, state

    pid, mid, state = asyncio.run(body())
    assert state.cube.value == 2 and state.dice is not None
    out = run_gnubg_script(GNUBG_READ_IDS.format(length=5, mid=mid, pid=pid), Path(tmp_path))
    lines = {
        line.split()[0]: line.split()[1:]
        for line in out.splitlines()
        if line.split() and line.split()[0] in ("CUBE", "DICE", "BOARD")
    }
    value, owner, length, s0, s1 = (int(x) for x in lines["CUBE"])
    assert (value, owner, length, (s0, s1)) == (2, state.cube.owner, 5, state.score)
    assert sorted(int(x) for x in lines["DICE"]) == sorted(state.dice)
    pos = state.position
    roller = [max(v, 0) for v in pos.board] + [pos.bar[0]]
    other = [0] * 25
    for p in range(1, 25):
        if pos.board[p - 1] < 0:
            other[25 - p - 1] = -pos.board[p - 1]
    other[24] = pos.bar[1]
    assert [list(map(int, lines["BOARD"][0].split(","))), list(map(int, lines["BOARD"][1].split(",")))] == [
        other,
        roller,
    ]
