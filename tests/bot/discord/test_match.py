"""Whole 3-point matches in Discord (through simcord and the real discord.py), one per rule set.

Each match goes from the challenge to the match end with a double passed, a double taken, a resignation
rejected and one accepted, an illegal move refused with its rule, strangers' clicks refused, and a restart
of the bot in the middle (a new instance on the same database) after which the buttons posted before it
still work. Along the way every interaction must be answered or deferred, and no handler may block the
event loop for 100 ms or more while boards render (measured as the CPU time of each loop callback),
and every board must be drawn in a worker thread.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from simcord import MemberActor, SetupError

from bot.service import SYSTEM
from engine.match import ActionError, move_from_text
from tests.bot.discord.helpers import Driver, LoopMeter, game_thread, labels, live_message, reply, said, world

pytestmark = pytest.mark.asyncio

RULES = ["backgammon", "longgammon", "sprintgammon", "doubles"]


async def resign(d: Driver, who: MemberActor, level: str) -> None:
    """Press Resign…, then pick the level in the chooser only the resigner sees."""
    r = await d.w.do(who.click(live_message(await d.thread()), label="Resign…"))
    assert r.ephemeral and r.response is not None
    await d.w.do(who.click(reply(r), label=level))


@pytest.mark.parametrize("variant", RULES)
async def test_a_3_point_match_is_played_from_challenge_to_the_end(tmp_path: Path, variant: str) -> None:
    async with world(tmp_path) as w:
        meter = LoopMeter()
        meter.start()
        alice, bob, carol, dave, eve = (w.people[n] for n in ("alice", "bob", "carol", "dave", "eve"))
        team = {"teammate": carol, "partner": dave} if variant == "doubles" else {}

        # The challenge: a message with Accept/Decline for the invited player.
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, variant=variant, length=3, **team))
        assert r.response is not None and not r.response.ephemeral
        challenge = r.response
        assert labels(challenge) == ["Accept", "Decline"]
        assert f"<@{bob.id}>" in challenge.content
        found = re.search(r"game #(\d+)", challenge.content)
        assert found is not None
        gid = int(found[1])

        # Someone else cannot accept it; bob can, and the match gets its own thread.
        r = await w.do(eve.click(challenge, label="Accept"))
        assert r.ephemeral and r.followups == [] and "This challenge is for " in said(r) and "bob" in said(r)
        assert (await w.view(gid)).status == "challenge"
        for member in (carol, dave) if team else ():  # a team challenge: each player it names accepts
            await w.do(member.click(challenge, label="Accept"))
        await w.do(bob.click(challenge, label="Accept"))
        view = await w.view(gid)
        assert view.status == "active"
        thread = game_thread(w, view)
        first = thread.history()[0]
        assert labels(first) == ["Roll"]
        assert first.attachments and first.attachments[0].filename.endswith(".png")
        png = await first.attachments[0].read()
        assert png.startswith(b"\x89PNG")
        assert all(f"<@{p}>" in first.content for p in view.acting or ())

        if variant == "doubles":
            # Each team also gets a private thread to consult in.
            teams = [t for t in w.channel.threads if " team " in (t.name or "")]
            assert sorted(t.name or "" for t in teams) == [f"#{gid} team alice & carol", f"#{gid} team bob & dave"]
            for t in teams:
                members = [alice, carol] if "alice" in (t.name or "") else [bob, dave]
                assert all(f"<@{m.id}>" in t.history()[0].content for m in members)
                assert t.history(viewer=members[1])
                with pytest.raises(SetupError):
                    t.history(viewer=eve)

        # A stranger's click is refused, and changes nothing.
        r = await w.do(eve.click(first, label="Roll"))
        assert r.ephemeral and f"You are not playing in game #{gid}" in said(r)
        assert (await w.view(gid)).phase == "opening"

        d = Driver(w, gid)
        if variant == "doubles":
            # Only the acting member rolls; the teammate is told why not.
            v = await d.view()
            assert v.acting is not None
            teammate = next(p for p in v.sides[0] if p != v.acting[0])
            r = await w.do(w.by_id(teammate).click(live_message(thread), label="Roll"))
            assert r.followups[0].ephemeral and "acting member" in r.followups[0].content, r.followups[0].content
            assert (await w.view(gid)).phase == "opening"

        # An illegal move typed in the thread is refused, naming the rule; the game is unchanged.
        await d.until("move")
        before = await d.view()
        mover = w.by_id(before.to_act or "")
        r = await w.do(mover.slash(thread, "bg move", play="6/off"))
        assert r.ephemeral, r
        refusal = said(r) if r.response else ""
        with pytest.raises(ActionError) as rule:
            move_from_text(await w.bot.service.state(gid, SYSTEM), str(mover.id), "6/off")
        rule_text = str(rule.value)
        assert refusal == rule_text[:1].upper() + rule_text[1:] and ("cannot" in refusal or "no checker" in refusal)
        assert (await d.view()).version == before.version

        # Game 1: the first player who may double does; the opponent passes.
        await d.until("roll", can_double=True)
        v = await d.view()
        first_side = v.side_of(v.to_act or "")
        assert first_side is not None
        other_side = 1 - first_side
        await d.click("Double")
        v = await d.view()
        assert v.phase == "doubled"
        offer = live_message(thread)
        assert labels(offer)[:2] == ["Take", "Pass"] and f"<@{v.to_act}>" in offer.content
        await d.click("Pass")
        v = await d.view()
        assert v.game == 2 and v.score[first_side] == 1 and v.score[other_side] == 0

        # Game 2: the trailer offers to resign a single game (1 point of the 2 needed) and it is rejected.
        await d.until("roll", side=other_side)
        resigner = await d.actor()
        await resign(d, resigner, "Resign a single game")
        await d.click("Reject resignation")
        v = await d.view()
        assert v.phase == "roll" and v.to_act == str(resigner.id) and v.score == ((1, 0) if first_side == 0 else (0, 1))

        # The bot restarts: a new instance on the same database; the buttons posted before still work.
        before_restart = live_message(thread)
        async with meter.startup():
            await w.restart()
        r = await w.do(resigner.click(before_restart, label="Roll"))
        assert r.acknowledged and not r.ephemeral
        assert (await d.view()).phase in ("move", "roll")

        # A double taken: the cube goes to 2.
        await d.until("roll", can_double=True)
        await d.click("Double")
        await d.click("Take")
        v = await d.view()
        assert v.cube == 2 and v.phase in ("roll", "move")

        # The leader resigns a single game at cube 2 (2 points, short of the 3 the trailer needs): accepted.
        await d.until("roll", side=first_side)
        await resign(d, await d.actor(), "Resign a single game")
        await d.click("Accept resignation")
        v = await d.view()
        assert v.game == 3 and v.score[first_side] == 1 and v.score[other_side] == 2

        # Game 3 (Crawford): the leader's side resigns again; a single game wins the match, so it is automatic.
        await d.until("roll", side=first_side)
        await resign(d, await d.actor(), "Resign a single game")

        # The match is over, 3-1; the result, the final board and the .mat file are posted.
        v = await d.view()
        assert v.status == "finished" and v.winner == other_side
        assert v.score[other_side] == 3 and v.score[first_side] == 1
        end, card = thread.history()[-2:]  # the end of the match, then its match card
        assert card.attachments[0].filename == f"game{gid}-card.png"
        assert "Match over" in end.content
        assert "accepted automatically" in end.content
        names = sorted(a.filename for a in end.attachments)
        assert names == [f"game{gid}-final.png", f"game{gid}.mat"]
        mat = next(a for a in end.attachments if a.filename.endswith(".mat"))
        text = (await mat.read()).decode()
        assert "3 point match" in text
        assert labels(end) == []

        # Every interaction was answered (or deferred), and the loop never stalled while boards rendered.
        await meter.stop()
        assert len(w.results) >= 20
        unanswered = [r for r in w.results if not r.acknowledged]
        assert unanswered == []
        assert meter.ticks > 50 and meter.callbacks > 1000
        assert len(meter.render_threads) >= 15 and set(meter.render_threads) == {"worker"}, meter.report()
        assert meter.worst_cpu < 0.1, meter.report()
