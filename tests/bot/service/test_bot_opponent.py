"""Playing the bot through the service: every rule set, hints where allowed, and the bot never acts for a person."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.service import SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Scope, Store
from tests.bot.service.playing import next_action

GUILD = "g"
ME = Request("me", "Me", GUILD)
FRIEND = Request("friend", "Friend", GUILD)


async def play_out(svc: GameService, out: Outcome, me: Request = ME) -> Outcome:
    for _ in range(500):
        v = out.game
        if v.status != "active":
            return out
        assert v.to_act in (None, me.id), f"the service waits for {v.to_act}, not for the person"
        out = await next_action(svc, v, me, lambda plays: plays[-1])
    raise AssertionError("the match did not end")


@pytest.mark.parametrize(
    ("variant", "bot"),
    [("backgammon", "casual"), ("longgammon", "heuristic"), ("sprintgammon", "heuristic"), ("doubles", "random")],
)
def test_a_whole_match_against_the_bot(variant: str, bot: str, tmp_path: Path) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
        svc = GameService(store, dice=SeededDice(4))
        teammate = FRIEND if variant == "doubles" else None
        out = await svc.challenge(ME, None, variant=variant, length=1, bot=bot, teammate=teammate)
        if teammate:  # the bots accept at once; the challenger's teammate is asked like anyone else
            assert out.game.status == "challenge" and out.game.awaiting == ("friend",)
            out = await svc.accept(out.game.id, FRIEND)
        assert out.game.status == "active"  # the bot accepted at once
        # In Doubles the person plays whichever teammate is acting this game.
        actor = FRIEND if out.game.acting and out.game.acting[0] == "friend" else ME
        out = await play_out(svc, out, actor)
        assert out.game.status == "finished"
        state = await svc.state(out.game.id, SYSTEM)
        assert state.over and max(state.score) >= 1
        logged = await store.load_actions(out.game.id, scope=Scope.system())
        assert any(a.action["by"].startswith("bot:") for a in logged)
        await store.close()

    asyncio.run(go())


def test_hints_in_bot_matches_and_none_in_rated_ones(tmp_path: Path) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'hint.sqlite3'}")
        svc = GameService(store, dice=SeededDice(6))
        out = await svc.challenge(ME, None, variant="backgammon", length=3, bot="casual")
        gid = out.game.id
        while out.game.phase != "move" or out.game.to_act != "me":
            out = (
                await svc.roll(gid, ME)
                if out.game.phase in ("opening", "roll")
                else await svc.move(gid, ME, out.game.plays[0])
            )
        hint = await svc.hint(gid, ME)
        assert hint.kind == "play" and hint.plays and hint.plays[0].notation in out.game.plays
        rated = await svc.accept((await svc.challenge(ME, FRIEND, length=3)).game.id, FRIEND)
        with pytest.raises(Refused, match="hints are off"):
            await svc.hint(rated.game.id, ME)
        with pytest.raises(Refused, match="no bot player called"):
            await svc.challenge(ME, None, bot="deep-blue")
        with pytest.raises(Refused, match="cannot play"):
            await svc.challenge(ME, None, variant="longgammon", bot="strong")
        await store.close()

    asyncio.run(go())


def test_players_who_ask_get_a_post_match_analysis(tmp_path: Path) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'analysis.sqlite3'}")
        svc = GameService(store, dice=SeededDice(9))
        out = await svc.challenge(ME, None, variant="sprintgammon", length=1, bot="heuristic")
        out = await play_out(svc, out)
        assert await svc.analysis_report(out.game.id, SYSTEM) is None  # nobody asked
        await svc.player_settings(ME, analysis=True)
        # At the end of a match the bot posts its card (with the analysis) and then the report: one analysis.
        jobs: list[str] = []
        on_record = svc.work.on_record

        async def counted(store: Store, game_id: int, job: Any, *args: Any, **kwargs: Any) -> Any:
            jobs.append(job.__name__)
            return await on_record(store, game_id, job, *args, **kwargs)

        svc.work.on_record = counted  # type: ignore[method-assign,assignment]
        card = await svc.match_card(out.game.id, SYSTEM)
        assert "error rates" in card.alt_text
        report = await svc.analysis_report(out.game.id, ME)
        assert report is not None and report.startswith(f"Analysis of game #{out.game.id}")
        assert "Me:" in report and "decisions" in report and "error rate" in report
        assert await svc.analysis_report(out.game.id, ME) == report
        assert jobs == ["draw_card"], jobs  # the report's analysis is the card's
        # Erased, the player's name is in no analysis kept.
        assert "Me" in {side.name for side in (await svc.analyse(out.game.id, SYSTEM)).sides}
        await svc.forget_me(ME)
        assert "Me" not in {side.name for side in (await svc.analyse(out.game.id, SYSTEM)).sides}
        await store.close()

    asyncio.run(go())
