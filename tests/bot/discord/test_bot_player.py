"""Playing the computer in Discord: /bg play with a bot strength, a whole 3-point match, and a hint."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest

from bot.service import Refused, Request
from bot.storage import Scope
from tests.bot.discord.helpers import Driver, game_thread, world

pytestmark = pytest.mark.asyncio


def _answer_text(result: object) -> str:
    response = getattr(result, "response", None)
    if response is not None and (response.content or response.attachments):
        return str(response.content)
    followups = getattr(result, "followups", [])
    return str(followups[0].content) if followups else ""


@pytest.mark.parametrize(("variant", "bot"), [("backgammon", "casual"), ("sprintgammon", "heuristic")])
async def test_a_whole_3_point_match_against_the_bot_and_a_hint(tmp_path: Path, variant: str, bot: str) -> None:
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        r = await w.do(alice.slash(w.channel, "bg play", variant=variant, length=3, bot=bot))
        assert r.response is not None and "accepted" in r.response.content, r
        game_id = int(re.search(r"game #(\d+)", r.response.content)[1])  # type: ignore[index]
        view = await w.view(game_id)
        assert view.status == "active" and any(p.startswith("bot:") for side in view.sides for p in side)
        thread = game_thread(w, view)
        d = Driver(w, game_id)
        hinted = False
        for _ in range(400):
            v = await d.view()
            if v.status != "active":
                break
            assert v.to_act in (None, str(alice.id)), f"waiting for {v.to_act}: the bot should have acted"
            if v.phase == "move" and not hinted and len(v.plays) > 1:
                hint = await w.do(alice.slash(thread, "bg hint"))
                assert re.search(r"^1\. ", _answer_text(hint), re.M), _answer_text(hint)
                hinted = True
            if v.phase == "doubled":
                await d.click("Take", alice)
            elif v.phase == "resigned":
                await d.click("Accept", alice)
            else:
                await d.step()
        final = await d.view()
        assert final.status == "finished" and max(final.score) >= 3
        assert hinted
        logged = await w.bot.service.store.load_actions(game_id, scope=Scope.system())
        assert any(a.action["by"].startswith("bot:") and a.action["type"] == "Move" for a in logged)
        history = [m.content for m in thread.history()]
        assert any("Match over" in text for text in history)


async def test_a_spectator_is_mentioned_in_the_turn_updates_of_a_match_they_watch(tmp_path: Path) -> None:
    from tests.bot.discord.helpers import live_message

    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=3)
        spectator = next(p for name, p in w.people.items() if name not in ("alice", "bob"))
        r = await w.do(spectator.slash(thread, "bg watch"))
        assert r.acknowledged
        assert await w.bot.service.watchers(gid) == [str(spectator.id)]
        d = Driver(w, gid)
        await d.step()
        await d.step()
        assert f"<@{spectator.id}>" in live_message(thread).content


async def test_a_blitz_flag_falls_and_the_thread_announces_the_result(tmp_path: Path) -> None:
    from tests.bot.discord.helpers import FakeTime

    now = FakeTime()
    async with world(tmp_path, clock=now) as w:
        gid, thread = await w.start(variant="backgammon", length=5, clock="backgammon-blitz")  # 2 min + 10 s delay
        d = Driver(w, gid)
        await d.until("move")
        slow = (await d.view()).to_act
        now.advance(2 * 60 + 10 + 1)  # the whole reserve and the delay, and a second more
        assert w.bot.scheduler is not None
        fired = await w.bot.scheduler.tick()
        kinds = [e.kind for out in fired for e in out.events]
        assert "timeout" in kinds and "match-over" in kinds
        final = await d.view()
        assert final.status == "finished" and final.winner == final.side_of(slow or "") ^ 1
        assert any("ran out of time" in m.content for m in thread.history())
        assert any("Match over" in m.content for m in thread.history())


async def test_in_doubles_the_team_thread_is_told_its_turn_mentioning_the_teammate(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol, dave = (w.people[n] for n in ("alice", "bob", "carol", "dave"))
        r = await w.do(
            alice.slash(w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=3)
        )
        assert r.response is not None
        gid = int(re.search(r"game #(\d+)", r.response.content)[1])  # type: ignore[index]
        for member in (carol, dave, bob):  # each player the challenge names accepts, the teammate too
            await w.do(member.click(r.response, label="Accept"))
        d = Driver(w, gid)
        await d.until("move")
        view = await d.view()
        acting = view.to_act or ""
        side = view.side_of(acting)
        assert side is not None
        mate = next(p for p in view.sides[side] if p != acting)
        team_threads = [t for t in w.channel.threads if t.name.startswith(f"#{gid} team")]
        pinged = [
            m.content
            for t in team_threads
            for m in t.history()
            if f"<@{acting}>" in m.content and f"<@{mate}>" in m.content and "your team's turn" in m.content
        ]
        assert pinged, [m.content for t in team_threads for m in t.history()]
        others = [p for p in view.sides[side ^ 1]]
        for t in team_threads:
            if any(f"<@{acting}>" in m.content and "your team's turn" in m.content for m in t.history()):
                assert not any(f"<@{o}>" in m.content for m in t.history() for o in others)


async def test_a_server_can_refuse_team_talk_by_direct_message(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        service = w.bot.service
        role = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[role])
        asker = Request(str(admin.id), "admin", str(w.guild.id), "discord", admin=True)
        with pytest.raises(Refused, match="dm .direct messages. or refuse"):
            await service.guild_settings(asker, team_thread_fallback="pigeons")
        r = await w.do(admin.slash(w.channel, "bg-admin config", team_thread_fallback="refuse"))
        assert r.response is not None and r.response.ephemeral
        assert "team_thread_fallback = refuse" in r.response.content
        assert (await service.server_settings(str(w.guild.id)))["team_thread_fallback"] == "refuse"
