"""Backgammon Doubles through the service: a team chooses its acting member before each game (match option
``team_choice``), with clear refusals; each team's private thread is remembered with the game."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.service import SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Store

GUILD = "g"
ANN, BEA = Request("ann", "Ann", GUILD), Request("bea", "Bea", GUILD)  # side 0
CAL, DAN = Request("cal", "Cal", GUILD), Request("dan", "Dan", GUILD)  # side 1
EVE = Request("eve", "Eve", GUILD)  # plays in nothing
ADMIN = Request("admin", "Admin", GUILD, admin=True)  # may manage the server
PEOPLE = {p.id: p for p in (ANN, BEA, CAL, DAN)}


def run(db_url: tuple[str, str | None], body: Callable[[Store, GameService], Awaitable[Any]], **kw: Any) -> None:
    async def go() -> None:
        url, schema = db_url
        store = await Store.open(url, schema=schema)
        try:
            await body(store, GameService(store, **{"dice": SeededDice(3), **kw}))
        finally:
            await store.close()

    asyncio.run(go())


async def doubles(svc: GameService, *, team_choice: bool = True, length: int = 3) -> Outcome:
    out = await svc.challenge(
        ANN,
        CAL,
        variant="doubles",
        length=length,
        teammate=BEA,
        opponent_teammate=DAN,
        options={"team_choice": True} if team_choice else {},
    )
    await svc.accept(out.game.id, BEA)  # each player the challenge names accepts, the teammate too
    await svc.accept(out.game.id, DAN)
    return await svc.accept(out.game.id, CAL)


async def end_game(svc: GameService, gid: int) -> Outcome:
    """Finish the game at hand: throw and play until a side is to roll, which resigns a single game (accepted)."""
    out = Outcome((), await svc.view(gid, SYSTEM))
    game = out.game.game
    for _ in range(20):
        v = out.game
        if v.game > game or v.status == "finished":
            return out
        if v.phase == "opening":
            out = await svc.roll(gid, PEOPLE[v.acting[0]])  # type: ignore[index]
        elif v.phase == "move":
            out = await svc.move(gid, PEOPLE[v.to_act], v.plays[0])  # type: ignore[index]
        elif v.phase == "roll":
            out = await svc.resign(gid, PEOPLE[v.to_act], "single")  # type: ignore[index]
        else:
            assert v.phase == "resigned", v.phase
            out = await svc.answer_resignation(gid, PEOPLE[v.to_act], True)  # type: ignore[index]
    raise AssertionError(f"game {game} did not end")


def test_each_team_chooses_who_acts_before_each_game(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        out = await doubles(svc)
        gid = out.game.id
        assert out.game.acting == ("ann", "cal")  # by default the first members act in game 1

        # Bea takes over for her team; the choice is public and enters the match record.
        chosen = await svc.choose_acting(gid, BEA, "bea")
        assert chosen.game.acting == ("bea", "cal") and chosen.applied == 1
        (event,) = [e for e in chosen.events if e.kind == "acting"]
        assert event.data == {"side": 0, "member": "bea", "game": 1} and "team" not in event.data
        assert event.text == "Ann & Bea: Bea acts in game 1 (chosen by Bea)."
        record = await svc.record(gid, ANN)
        assert record["actions"] == [{"type": "SetActing", "by": "bea", "member": "bea"}]
        with pytest.raises(Refused, match="only Bea may throw the opening roll"):
            await svc.roll(gid, ANN)
        with pytest.raises(Refused, match="Bea already acts for Ann & Bea in game 1"):
            await svc.choose_acting(gid, ANN, "bea")

        # The opponents choose for their own team only; someone from outside the match, for nobody.
        with pytest.raises(Refused, match=r"Ann is not on your team \(Cal & Dan\): choose Cal or Dan"):
            await svc.choose_acting(gid, CAL, "ann")
        with pytest.raises(Refused, match="you are not playing in game"):
            await svc.choose_acting(gid, EVE, "eve")
        assert (await svc.choose_acting(gid, CAL, "dan")).game.acting == ("bea", "dan")

        # The opening roll does not take the choice away: each team may choose until it first moves.
        out = await svc.roll(gid, BEA)
        while out.game.phase == "opening":
            out = await svc.roll(gid, BEA)
        if out.game.to_act == "bea":
            with pytest.raises(Refused, match="only the acting member of your team, Bea, moves"):
                await svc.move(gid, ANN, out.game.plays[0])
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        moved, team, waiting = (ANN, "Ann & Bea", CAL) if mover is BEA else (CAL, "Cal & Dan", ANN)
        out = await svc.move(gid, mover, out.game.plays[0])
        with pytest.raises(Refused, match=f"{team} has moved in game 1: {mover.name} acts for {team} until it ends"):
            await svc.choose_acting(gid, moved, moved.id)
        out = await svc.choose_acting(gid, waiting, waiting.id)  # the other team has not moved yet
        assert waiting.id in out.game.acting  # type: ignore[operator]

        # Game 2 starts with the rotation (the other members); a team may choose again, and the choice holds.
        out = await end_game(svc, gid)
        assert out.game.game == 2 and out.game.acting == ("bea", "dan")
        out = await svc.choose_acting(gid, BEA, "ann")
        assert out.game.acting == ("ann", "dan")

        # A new service on the same database replays the record: the choices are part of the match.
        again = GameService(store, dice=SeededDice(3))
        assert (await again.view(gid, SYSTEM)).acting == ("ann", "dan")
        await again.roll(gid, ANN)
        (await again.export(gid, ANN)).splitlines()  # the .mat export copes with the choices in the record

    run(db_url, body)


def test_refusals_name_the_rule(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        rotating = (await doubles(svc, team_choice=False)).game.id
        with pytest.raises(Refused, match="this match rotates the acting member; Ann acts for Ann & Bea in game 1"):
            await svc.choose_acting(rotating, BEA, "bea")

        challenge = await svc.challenge(
            ANN, CAL, variant="doubles", length=3, teammate=BEA, opponent_teammate=DAN,
            options={"team_choice": True},
        )  # fmt: skip
        with pytest.raises(Refused, match="has not started"):
            await svc.choose_acting(challenge.game.id, ANN, "bea")

        with pytest.raises(Refused, match="Backgammon is played one against one: choosing the acting member is for"):
            await svc.challenge(ANN, CAL, variant="backgammon", length=1, options={"team_choice": True})
        # A server whose default options ask for team choice still hosts one-against-one matches.
        await svc.guild_settings(ADMIN, default_options={"team_choice": True})
        single = await svc.challenge(ANN, CAL, variant="backgammon", length=1)
        await svc.accept(single.game.id, CAL)
        with pytest.raises(Refused, match="choosing the acting member is for team rule sets"):
            await svc.choose_acting(single.game.id, ANN, "ann")

        over = (await doubles(svc, length=1)).game.id
        out = await end_game(svc, over)
        assert out.game.status == "finished"
        with pytest.raises(Refused, match="is over"):
            await svc.choose_acting(over, ANN, "bea")

    run(db_url, body)


def test_team_threads_are_stored_with_the_game(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        svc.dice = None  # commit-reveal dice: the setup is rewritten when the seed is revealed at the end
        out = await doubles(svc, length=1)
        gid = out.game.id
        assert await svc.team_threads(gid) == {}
        version = out.game.version
        await svc.set_team_thread(gid, 0, "1001")
        await svc.set_team_thread(gid, 1, "1002")
        await svc.set_team_thread(gid, 1, "1002")  # unchanged: nothing written
        assert await svc.team_threads(gid) == {0: "1001", 1: "1002"}
        assert (await svc.view(gid, SYSTEM)).version == version  # not a game change: boards and buttons stay current
        with pytest.raises(ValueError):
            await svc.set_team_thread(gid, 2, "1003")

        # Another process (a new service on the same database) finds them, and its change reaches this one.
        other = GameService(store)
        assert await other.team_threads(gid) == {0: "1001", 1: "1002"}
        await other.set_team_thread(gid, 1, None)
        await svc.set_team_thread(gid, 0, "2001")  # written over what is stored, not over this one's stale copy
        assert await GameService(store).team_threads(gid) == {0: "2001"}

        # They survive the match's end (the setup is written again with the revealed seed).
        out = await end_game(svc, gid)
        assert out.game.status == "finished"
        fresh = GameService(store)
        assert await fresh.team_threads(gid) == {0: "2001"}
        assert (await fresh.verify(gid, ANN)).ok

    run(db_url, body)


def test_refusals_name_players_not_their_ids(db_url: tuple[str, str | None]) -> None:
    """Engine messages carry player ids; players read names ("Ann", not a Discord snowflake)."""
    ids = {"Ann": "145600000000000001", "Bea": "145600000000000002", "Cal": "1456000000000003", "Dan": "14560004"}
    ann, bea, cal, dan = (Request(pid, name, GUILD) for name, pid in ids.items())

    async def body(store: Store, svc: GameService) -> None:
        out = await svc.challenge(ann, cal, variant="doubles", length=1, teammate=bea, opponent_teammate=dan)
        await svc.accept(out.game.id, bea)
        await svc.accept(out.game.id, dan)
        gid = (await svc.accept(out.game.id, cal)).game.id
        acting = (await svc.view(gid, SYSTEM)).acting
        assert acting is not None
        idle = bea if acting[0] == ann.id else ann
        with pytest.raises(Refused) as refused:
            await svc.roll(gid, idle)
        message = str(refused.value)
        assert f"{idle.name} is not the acting member" in message, message
        assert not any(pid in message for pid in ids.values()), message

    run(db_url, body)


def test_naming_the_acting_member_moves_no_deadline(db_url: tuple[str, str | None]) -> None:
    """In a timed match a team's choice neither pushes the opening roll's deadline back nor voids its timer."""

    async def body(store: Store, svc: GameService) -> None:
        out = await svc.challenge(
            ANN, CAL, variant="doubles", length=1, teammate=BEA, opponent_teammate=DAN,
            options={"team_choice": True}, time_control="doubles-clock",
        )  # fmt: skip
        await svc.accept(out.game.id, BEA)
        await svc.accept(out.game.id, DAN)
        gid = (await svc.accept(out.game.id, CAL)).game.id
        before = [(t.id, t.kind, t.due_at) for t in await store.pending_timers(gid)]
        assert [k for _, k, _ in before] == ["opening"]
        await svc.choose_acting(gid, BEA, "bea")
        await svc.choose_acting(gid, CAL, "dan")
        await svc.choose_acting(gid, BEA, "ann")
        assert [(t.id, t.kind, t.due_at) for t in await store.pending_timers(gid)] == before
        [timer] = await store.pending_timers(gid)
        fired = await svc.fire_timer(timer)  # still applies: the bot throws the opening roll
        assert fired is not None and "auto-opening" in [e.kind for e in fired.events]
        assert (await svc.view(gid, SYSTEM)).phase != "opening" or "tie" in " ".join(e.text for e in fired.events)

    run(db_url, body)


def test_a_choice_after_the_opening_roll_plays_on_and_exports(db_url: tuple[str, str | None]) -> None:
    """The team on roll after the opening changes hands: the new acting member plays the opening dice, and the
    .mat export shows the roll with its play (a choice is not a .mat event)."""

    async def body(store: Store, svc: GameService) -> None:
        gid = (await doubles(svc, length=1)).game.id
        out = await svc.roll(gid, ANN)
        while out.game.phase == "opening":
            out = await svc.roll(gid, ANN)
        mover = PEOPLE[out.game.to_act]  # type: ignore[index]
        mate = {"ann": BEA, "cal": DAN}[mover.id]
        out = await svc.choose_acting(gid, mover, mate.id)
        assert out.game.to_act == mate.id and out.game.phase == "move"
        out = await svc.move(gid, mate, out.game.plays[0])
        mat = await svc.export(gid, ANN)
        entries = [m for line in mat.splitlines() for m in re.findall(r"\b[1-6]{2}:\s*(\S*)", line)]
        assert entries and all(e[:1].isdigit() or e.startswith("bar") for e in entries), mat
        assert (await GameService(store).view(gid, SYSTEM)).acting == out.game.acting

    run(db_url, body)
