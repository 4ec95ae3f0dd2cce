"""Nothing one user does can stall the bot: every interaction is answered before any other Discord call made for it,
and a play whose answer Discord rejected is still shown in its thread.

simcord records every REST call the bot makes; :meth:`World.do` keeps, with each interaction, the calls made until
the bot settled (everything done on its behalf, background work included). The first of them must be the
interaction's own callback (a reply, a deferral, an update): :func:`late_answers` lists those that were not, and
``world()`` checks it for every test. Here it is checked, explicitly, over a standard match played with the buttons,
a Backgammon Doubles match with consultation, and every command of the tree.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from discord import app_commands

from bot.discord.errors import defers
from bot.service import SYSTEM, Request
from tests.bot.discord.helpers import (
    CALLBACK,
    Driver,
    World,
    components,
    labels,
    late_answers,
    live_message,
    reply,
    said,
    world,
)

pytestmark = pytest.mark.asyncio

#: Discord's interaction callback types: a message, and a deferred ("thinking…") message.
MESSAGE, DEFERRED = 4, 5


def admin_request(w: World, admin: simcord.MemberActor) -> Request:
    """The service's request for a server admin (to read a tournament as it stands)."""
    return Request(str(admin.id), "admin", str(w.guild.id), admin=True)


def answered_first(w: World) -> None:
    """Every interaction so far was answered by its first REST call (and each was made)."""
    assert w.calls, "no interaction was run"
    late = late_answers(w)
    assert not late, "answered after other Discord calls:\n" + "\n".join(late)


def leaf_commands(w: World) -> dict[str, app_commands.Command[Any, ..., Any]]:
    """Every command a player can run, by the name typed: ``bg-team adopt``."""
    return {c.qualified_name: c for c in w.bot.tree.walk_commands() if isinstance(c, app_commands.Command)}


def team_room(w: World, gid: int, names: str) -> simcord.ChannelHandle:
    (thread,) = [t for t in w.channel.threads if t.name == f"#{gid} team {names}"]
    return thread


def acting_select(thread: simcord.ChannelHandle) -> tuple[Any, str]:
    """The newest "who acts?" question in a team room and its select's custom id."""
    for message in reversed(thread.history()):
        ids = [c["custom_id"] for c in components(message) if c.get("custom_id", "").startswith("bg:acting:")]
        if ids:
            return message, ids[0]
    raise AssertionError(f"no acting question in {thread.name}")


def expire_interactions(w: World) -> None:
    """From now on Discord rejects every answer to an interaction, as it does once three seconds have passed."""
    w.env.inject_error(
        "POST", "/interactions/*/callback", status=404, code=10062, message="Unknown interaction", times=None
    )
    w.env.inject_error("*", "/webhooks/*", status=404, code=10015, message="Unknown Webhook", times=None)


def answer_again(w: World) -> None:
    w.env.backend.faults.clear()


# --- a standard match, played with the buttons ------------------------------------------------------------------


async def test_every_press_of_a_standard_match_is_answered_first(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        # A challenge declined, then one accepted: a 3-point match.
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, variant="backgammon", length=3))
        await w.do(bob.click(reply(r), label="Decline"))
        gid, thread = await w.start(variant="backgammon", length=3)
        d = Driver(w, gid)
        # Rolls and plays (from the select, or checker by checker with Confirm), a stranger's refused press.
        await d.until("move")
        r = await w.do(w.people["eve"].click(live_message(thread), label="Resign…"))
        assert r.ephemeral and "not playing" in said(r)
        # The cube: doubled and taken.
        await d.until("roll", can_double=True)
        await d.click("Double")
        await d.click("Take")
        assert (await d.view()).cube == 2
        # A resignation offered and rejected, then a gammon given up (enough to win the match: accepted at once).
        await d.until("roll")
        for level in ("Resign a single game", "Resign a gammon"):
            who = await d.actor()
            chooser = await w.do(who.click(live_message(thread), label="Resign…"))
            await w.do(who.click(reply(chooser), label=level))
            if (await d.view()).phase == "resigned":
                await d.click("Reject resignation" if level.endswith("single game") else "Accept resignation")
                await d.until("roll")
        view = await d.view()
        assert view.status == "finished" and max(view.score) == 4, view
        assert len(w.calls) > 10
        answered_first(w)


# --- Backgammon Doubles with consultation -----------------------------------------------------------------------


async def test_every_interaction_of_a_doubles_match_with_consultation_is_answered_first(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol, dave = (w.people[n] for n in ("alice", "bob", "carol", "dave"))
        r = await w.do(
            alice.slash(
                w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=1,
                consult="agree", acting="choose",
            )
        )  # fmt: skip
        gid = int(re.findall(r"game #(\d+)", said(r))[0])
        for member in (carol, dave, bob):  # each player the challenge names accepts
            await w.do(member.click(reply(r), label="Accept"))
        d = Driver(w, gid)
        thread = await d.thread()
        rooms = (team_room(w, gid, "alice & carol"), team_room(w, gid, "bob & dave"))
        # Each team chooses who acts: carol for alice & carol, bob (the rotation's choice) confirmed for the other.
        for room, (chooser, member) in zip(rooms, ((alice, carol), (dave, bob)), strict=True):
            message, select = acting_select(room)
            await w.do(chooser.select(message, [str(member.id)], custom_id=select))
        assert (await d.view()).acting == (str(carol.id), str(bob.id))

        # Six turns, each team's play decided in consultation, three ways in turn.
        turns = 0
        while turns < 6:
            view = await d.view()
            assert view.status == "active", view
            if view.phase != "move" or not view.plays:
                await d.step()
                continue
            side = view.side_of(view.to_act or "")
            assert side is not None
            acting = w.by_id(view.to_act or "")
            mate = w.by_id(next(p for p in view.sides[side] if p != view.to_act))
            room = rooms[side]
            play = view.plays[0]
            if turns % 3 == 0:  # the teammate proposes; the acting member adopts it (no approval needed)
                r = await w.do(mate.slash(room, "bg-team propose", text=play))
                pid = int(re.findall(r"proposal #(\d+)", said(r))[0])
                await w.do(acting.slash(room, "bg-team proposals"))
                await w.do(acting.slash(room, "bg-team adopt", proposal=pid))
            elif turns % 3 == 1:  # the acting member types it in the match thread; the teammate approves
                r = await w.do(acting.slash(thread, "bg move", play=play))
                assert "waiting for" in said(r), said(r)
                await w.do(mate.slash(room, "bg-team approve"))
            else:  # held, sent back, held again, approved
                await w.do(acting.slash(room, "bg move", play=play, game=gid))
                await w.do(mate.slash(room, "bg-team approve", agree=False))
                await w.do(acting.slash(room, "bg move", play=play, game=gid))
                await w.do(mate.slash(thread, "bg-team approve"))
            after = await d.view()
            assert after.version > view.version and not (after.phase == "move" and after.to_act == view.to_act)
            assert any(f"played {play}" in m.content for m in thread.history()[-3:]), play
            turns += 1

        # The team on roll gives up a backgammon (the most there is: accepted at once): the match is over.
        await d.until("roll")
        who = await d.actor()
        chooser = await w.do(who.click(live_message(thread), label="Resign…"))
        await w.do(who.click(reply(chooser), label="Resign a backgammon"))
        final = await d.view()
        assert final.status == "finished", final
        assert len(w.calls) > 20
        answered_first(w)


# --- every command of the tree ----------------------------------------------------------------------------------


async def test_every_command_of_the_tree_is_answered_before_any_other_discord_call(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol, dave, eve = (w.people[n] for n in ("alice", "bob", "carol", "dave", "eve"))
        admins = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[admins])
        mo = w.guild.add_member(w.env.create_user("mo"))
        # A standard match (alice vs eve) and a Doubles match with consultation (alice & carol vs bob & dave).
        gid, thread = await w.start(opponent="eve", variant="sprintgammon", length=3)
        d = Driver(w, gid)
        await d.until("move")
        r = await w.do(
            alice.slash(
                w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=1,
                consult="agree",
            )
        )  # fmt: skip
        team_gid = int(re.findall(r"game #(\d+)", said(r))[0])
        for member in (carol, dave, bob):  # each player the challenge names accepts
            await w.do(member.click(reply(r), label="Accept"))
        td = Driver(w, team_gid)
        team_thread = await td.thread()
        await td.until("move")
        tv = await td.view()
        side = tv.side_of(tv.to_act or "") or 0
        acting = w.by_id(tv.to_act or "")
        mate = w.by_id(next(p for p in tv.sides[side] if p != tv.to_act))
        room = team_room(w, team_gid, "alice & carol" if side == 0 else "bob & dave")

        view = await d.view()
        mover = w.by_id(view.to_act or "")
        waiting = next(p for p in (alice, eve) if p is not mover)
        start = len(w.calls)
        ran: dict[str, simcord.InteractionResult] = {}

        async def run(name: str, who: simcord.MemberActor, where: simcord.ChannelHandle, /, **options: Any) -> None:
            ran[name] = await w.do(who.slash(where, name, **options))

        await run("bg-info variants", alice, w.channel)
        await run("bg-info rules", alice, w.channel, variant="doubles")
        await run("bg-info clocks", alice, w.channel)
        await run("bg games", alice, w.channel)
        await run("bg board", alice, thread)
        await run("bg hint", mover, thread)
        await run("bg export", alice, thread)
        await run("bg ids", alice, thread)
        await run("bg replay", alice, thread)
        await run("bg help", alice, w.channel, page=2)
        await run("bg watch", mo, thread)
        await run("bg resign", waiting, thread, level="gammon")  # not on roll: refused, but answered first
        await run("bg move", mover, thread, play=view.plays[0])
        await run("bg-dice verify", alice, thread)
        await run("bg-dice stats", alice, w.channel)
        await run("bg-stats leaderboard", alice, w.channel)
        await run("bg-stats profile", alice, w.channel, player=eve)
        await run("bg-stats history", alice, w.channel)
        await run("bg-team propose", mate, room, text=tv.plays[0])
        await run("bg-team proposals", acting, room)
        pid = int(re.findall(r"proposal #(\d+)", said(ran["bg-team propose"]))[0])
        await run("bg-team adopt", acting, room, proposal=pid)
        await td.until("move")
        tv = await td.view()
        await w.do(w.by_id(tv.to_act or "").slash(team_thread, "bg move", play=tv.plays[0]))  # held
        side = tv.side_of(tv.to_act or "") or 0
        mate = w.by_id(next(p for p in tv.sides[side] if p != tv.to_act))
        await run("bg-team approve", mate, team_thread)
        await run("bg-admin config", admin, w.channel, default_length=5)
        await run("bg-admin forget", admin, w.channel, player=mo)
        await run("bg-me settings", alice, w.channel, dm_reminders=False)
        await run("bg-me vacation", alice, w.channel, days=1.0)
        await run("bg-me forget", mo, w.channel)
        await w.do(mo.click(reply(ran["bg-me forget"]), label="Erase my data everywhere"))
        await run("bg play", carol, w.channel, opponent=dave, variant="sprintgammon")
        await run("bg forfeit", alice, thread, confirm=True)
        # A tournament: sign-ups, its pages, and every admin action on its first round.
        await run(
            "bg-admin tour create", admin, w.channel, name="Cup", format="knockout", variant="sprintgammon", length=1
        )
        tid = int(re.findall(r"#(\d+)", reply(ran["bg-admin tour create"]).content)[0])
        for member in (bob, carol, dave):
            await w.do(member.slash(w.channel, "bg-tour join", tournament=tid))
        await run("bg-tour join", eve, w.channel, tournament=tid)
        await run("bg-tour leave", eve, w.channel, tournament=tid)
        await w.do(eve.click(reply(ran["bg-admin tour create"]), label="Join"))
        await run("bg-tour info", eve, w.channel, tournament=tid)
        await run("bg-admin tour start", admin, w.channel, tournament=tid)
        await run("bg-tour standings", eve, w.channel, tournament=tid)
        await run("bg-admin tour pause", admin, w.channel, tournament=tid)
        await run("bg-admin tour resume", admin, w.channel, tournament=tid)
        await run("bg-admin tour extend", admin, w.channel, hours=2.0, tournament=tid)
        tour = await w.bot.service.tour_view(admin_request(w, admin), tid)
        decided, other = (x for x in tour.tournament.matches if x.round == 1)
        winner = w.by_id(tour.tournament.entrant(decided.a or "").members[0])
        await run("bg-admin tour decide", admin, w.channel, match=decided.id, winner=winner, tournament=tid)
        await run("bg-admin tour replace", admin, w.channel, player=w.by_id(other.a or ""), by=alice, tournament=tid)
        await run("bg-admin tour disqualify", admin, w.channel, player=w.by_id(other.b or ""), tournament=tid)
        expected = {
            "join": "You joined Cup",
            "leave": "You left Cup",
            "info": "a knockout",
            "start": "has started",
            "standings": "Cup · Knockout",
            "pause": "paused",
            "resume": "resumed",
            "extend": "extended round 1",
            "decide": "wins by an admin's decision",
            "replace": "takes bob's place",
            "disqualify": "without",
        }
        for name, words in expected.items():
            (result,) = [r for typed, r in ran.items() if typed.endswith(f"tour {name}")]
            assert words in said(result), (name, said(result))

        commands = leaf_commands(w)
        assert sorted(ran) == sorted(commands), "a command of the tree is not run here: add it"
        assert all(r.acknowledged for r in ran.values())
        answered_first(w)
        for name, result in ran.items():
            (first,) = [c for result_, calls in w.calls[start:] if result_ is result for c in calls[:1]]
            assert CALLBACK.match(first.path) and first.json is not None
            # A command that defers is deferred before it runs; the others answer with their message at once.
            assert first.json["type"] == (DEFERRED if defers(commands[name].callback) else MESSAGE), name
        assert "The game goes on in" in said(ran["bg move"]) or "played" in said(ran["bg move"])
        assert (await w.view(gid)).to_act != view.to_act  # the typed move was made
        assert (await w.view(team_gid)).version > tv.version  # the approved play was made


# --- an answer Discord rejects ----------------------------------------------------------------------------------


async def test_a_play_whose_answer_discord_rejected_is_still_shown_in_its_thread(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, gid)
        await d.until("move")

        # A typed move whose interaction expired: the play is made and the next turn is posted in the thread.
        view = await d.view()
        old = live_message(thread)
        expire_interactions(w)
        r = await w.by_id(view.to_act or "").slash(thread, "bg move", play=view.plays[0])
        answer_again(w)
        assert not r.acknowledged
        after = await d.view()
        assert after.to_act != view.to_act and after.phase == "roll"
        post = live_message(thread)
        assert post.id != old.id and f"<@{after.to_act}>" in post.content and f"played {view.plays[0]}" in post.content
        assert labels(next(m for m in thread.history() if m.id == old.id)) == []  # the old buttons are gone

        # A Roll press whose interaction expired: rolled, and the same message now offers the play.
        roller = w.by_id(after.to_act or "")
        expire_interactions(w)
        r = await roller.click(post, label="Roll")
        answer_again(w)
        assert not r.acknowledged
        rolled = await d.view()
        assert rolled.phase == "move" and rolled.to_act == after.to_act
        board = live_message(thread)
        assert board.id == post.id and "Roll" not in labels(board)
        assert any(c.get("type") == 3 or c.get("custom_id", "").startswith("bg:sub:") for c in components(board))

        # The play picked from the select, the interaction expired: played, and the next turn posted.
        if rolled.plays and len(rolled.plays) <= 25:
            select = next(c for c in components(board) if c.get("type") == 3)
            expire_interactions(w)
            await roller.select(board, [rolled.plays[0]], custom_id=select["custom_id"])
            answer_again(w)
            moved = await d.view()
            assert moved.to_act != rolled.to_act
            assert live_message(thread).id != board.id and f"<@{moved.to_act}>" in live_message(thread).content

        # A challenge whose answer was rejected is posted in the channel all the same, with its buttons.
        alice, carol = w.people["alice"], w.people["carol"]
        expire_interactions(w)
        r = await alice.slash(w.channel, "bg play", opponent=carol, variant="sprintgammon", length=1)
        answer_again(w)
        assert not r.acknowledged
        challenge = w.channel.history()[-1]
        assert "challenges carol" in challenge.content and labels(challenge) == ["Accept", "Decline"]
        await w.do(carol.click(challenge, label="Accept"))
        new = int(re.findall(r"game #(\d+)", challenge.content)[0])
        assert (await w.bot.service.view(new, SYSTEM)).status == "active"
        assert not w.ui_errors
