"""Backgammon Doubles in Discord (simcord and the real discord.py): a 3-point match where each team chooses its acting
member before each game, consultation in the private team threads, and who may do what.

Along the way: the team threads are private to their members (a moderator who can read every private thread is the
outsider who sees them), a proposal never leaves its team, adopting one plays it, a non-acting member's click on the
public board is refused with the reason, a select's custom id is checked against the user who picks, and after a
restart the bot finds a team thread by the id stored with the game (not by its name).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from simcord import SetupError

from bot.discord.threads import Threads
from bot.service import SYSTEM
from tests.bot.discord.helpers import Driver, World, answer, components, labels, live_message, reply, said, world

pytestmark = pytest.mark.asyncio


def refused(r: simcord.InteractionResult, *words: str) -> str:
    """The ephemeral refusal answering ``r``, which must contain each of ``words``."""
    message = r.followups[0] if r.followups else answer(r)  # a press is deferred, then refused in a follow-up
    assert message.ephemeral, message.content
    for word in words:
        assert word in message.content, message.content
    return message.content


def team_thread(w: World, gid: int, names: str) -> simcord.ChannelHandle:
    """The private thread the table opened for a team (``names``: ``alice & carol``)."""
    (thread,) = [t for t in w.channel.threads if t.name == f"#{gid} team {names}"]
    return thread


def question(thread: simcord.ChannelHandle, number: int) -> tuple[Any, str]:
    """The newest "who acts?" message about game ``number`` in a team thread, and its select's custom id."""
    for message in reversed(thread.history()):
        ids = [c["custom_id"] for c in components(message) if c.get("custom_id", "").startswith("bg:acting:")]
        if ids and ids[0].endswith(f":{number}"):
            return message, ids[0]
    raise AssertionError(f"no question about game {number} in {thread.name}: {[m.content for m in thread.history()]}")


def threads(w: World) -> Threads:
    """The bot's thread manager (match threads and team rooms)."""
    return w.bot.threads


def public_texts(w: World, *, besides: tuple[int, ...] = ()) -> list[str]:
    """Every message anyone in the channel may read: the channel and its threads but ``besides`` (not ephemeral)."""
    channels = [w.channel, *(t for t in w.channel.threads if t.id not in besides)]
    return [m.content for c in channels for m in c.history() if not m.flags.ephemeral]


async def pick_play(w: World, who: simcord.MemberActor, thread: simcord.ChannelHandle) -> simcord.InteractionResult:
    """``who`` picks the first play of the select on the public board (or moves the first checker offered)."""
    message = live_message(thread)
    comps = components(message)
    select = next((c for c in comps if c.get("type") == 3), None)
    if select is not None:
        return await w.do(who.select(message, [select["options"][0]["value"]], custom_id=select["custom_id"]))
    sub = next(c for c in comps if c.get("custom_id", "").startswith("bg:sub:"))
    return await w.do(who.click(message, custom_id=sub["custom_id"]))


async def opening(d: Driver) -> None:
    """Throw the opening roll (again after a tie)."""
    while (await d.view()).phase == "opening":
        await d.roll()


async def resign_game(d: Driver, side: int, level: str = "Resign a single game") -> None:
    """Team ``side`` resigns (its acting member presses Resign…, picks the level); the other team accepts."""
    await opening(d)
    await d.until("roll", side=side)
    who = await d.actor()
    r = await d.w.do(who.click(live_message(await d.thread()), label="Resign…"))
    await d.w.do(who.click(reply(r), label=level))
    v = await d.view()
    if v.phase == "resigned":
        await d.click("Accept resignation")


async def test_a_3_point_doubles_match_where_each_team_chooses_who_acts(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol, dave, eve = (w.people[n] for n in ("alice", "bob", "carol", "dave", "eve"))
        # Moderators read every private thread: dave (an opponent) is one, and so is mo, who plays in nothing.
        mods = w.guild.create_role(
            "Moderators",
            permissions=discord.Permissions(
                view_channel=True, read_message_history=True, send_messages=True, manage_threads=True
            ),
        )
        mo = w.guild.add_member(w.env.create_user("mo"), roles=[mods])
        w.env.backend.add_member_role(w.guild.id, dave.id, mods.id)

        r = await w.do(
            alice.slash(
                w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=3,
                acting="choose",
            )
        )  # fmt: skip
        assert "each team chooses its acting member" in said(r), said(r)
        gid = int(re.findall(r"game #(\d+)", said(r))[0])
        for member in (carol, dave, bob):  # each player the challenge names accepts, the teammate too
            await w.do(member.click(reply(r), label="Accept"))
        d = Driver(w, gid)
        thread = await d.thread()
        ours, theirs = team_thread(w, gid, "alice & carol"), team_thread(w, gid, "bob & dave")

        # The team threads are private to their members (and moderators); they are stored with the game.
        assert await w.bot.service.team_threads(gid) == {0: str(ours.id), 1: str(theirs.id)}
        assert ours.history(viewer=carol) and theirs.history(viewer=bob)
        for stranger in (bob, eve):
            with pytest.raises(SetupError):
                ours.history(viewer=stranger)
        with pytest.raises(SetupError):
            theirs.history(viewer=alice)

        # Game 1: the public call says teams may choose; each team thread asks who acts, the rotation preselected.
        view = await d.view()
        assert view.acting == (str(alice.id), str(bob.id))
        assert "Each team may choose who acts this game" in live_message(thread).content
        asked, select_id = question(ours, 1)
        assert f"<@{alice.id}>" in asked.content and f"<@{carol.id}>" in asked.content
        assert "**alice** acts now" in asked.content
        (menu,) = [c for c in components(asked) if c.get("custom_id") == select_id]
        assert [(o["label"], o.get("default", False)) for o in menu["options"]] == [("alice", True), ("carol", False)]
        assert question(theirs, 1)[1] == f"bg:acting:{gid}:1:1"

        # Who may not choose for alice & carol: an outsider, and an opponent (both can read the thread here).
        r = await w.do(mo.select(asked, [str(carol.id)], custom_id=select_id))
        refused(r, f"You are not playing in game #{gid}")
        r = await w.do(dave.select(asked, [str(carol.id)], custom_id=select_id))
        refused(r, "Only alice & carol choose who acts for their team")
        assert (await d.view()).acting == view.acting

        # carol takes over for her team: the question is updated, the match thread is told and calls carol.
        r = await w.do(carol.select(asked, [str(carol.id)], custom_id=select_id))
        assert r.acknowledged and not r.followups, r
        assert (await d.view()).acting == (str(carol.id), str(bob.id))
        asked, _ = question(ours, 1)
        assert "carol chose. **carol** acts now" in asked.content
        call = live_message(thread)
        assert "alice & carol: carol acts in game 1 (chosen by carol)." in call.content
        assert f"<@{carol.id}>" in call.content and f"<@{alice.id}>" not in call.content
        r = await w.do(alice.select(asked, [str(carol.id)], custom_id=select_id))
        refused(r, "Carol already acts for alice & carol in game 1")

        # alice no longer acts: her click on the public board is refused with the reason.
        r = await w.do(alice.click(live_message(thread), label="Roll"))
        refused(r, "not the acting member of alice & carol in game 1")

        # The opening roll leaves the choice open until the team moves (checked below, after carol's play).
        await opening(d)

        # Consultation: alice proposes the play in her team thread; only her team sees it; carol adopts it.
        await d.until("move", side=0)
        view = await d.view()
        assert view.to_act == str(carol.id)
        r = await pick_play(w, alice, thread)
        refused(r, "Only the acting member of your team")
        assert (await d.view()).version == view.version
        play = view.plays[-1]
        r = await w.do(alice.slash(ours, "bg-team propose", text=play))
        pid = int(re.findall(r"proposal #(\d+)", refused(r, "Proposed to your team", ours.mention))[0])
        assert any(f"proposal #{pid}" in m.content and f"<@{carol.id}>" in m.content for m in ours.history())
        assert not [t for t in public_texts(w, besides=(ours.id,)) if "propos" in t]

        # Nobody outside the team reads or uses its proposals, through any command or its suggestions.
        for outsider in (eve, mo):
            r = await w.do(outsider.slash(w.channel, "bg-team proposals", game=gid))
            refused(r, "Only members of a team")
            r = await w.do(outsider.slash(w.channel, "bg-team adopt", proposal=pid, game=gid))
            refused(r, f"You are not playing in game #{gid}")
            r = await w.do(outsider.slash(w.channel, "bg-team propose", text=play, game=gid))
            refused(r, f"You are not playing in game #{gid}")
            assert await outsider.autocomplete(w.channel, "bg-team adopt", "proposal", "", game=gid) == []
        for opponent in (bob, dave):
            r = await w.do(opponent.slash(thread, "bg-team proposals"))
            assert play not in refused(r, "no open proposals")
            r = await w.do(opponent.slash(thread, "bg-team adopt", proposal=pid))
            refused(r, f"Your team has no proposal #{pid}")
            r = await w.do(opponent.slash(thread, "bg-team approve"))
            refused(r, "approves your play, not you" if opponent is bob else "no play of your team waiting")
            assert await opponent.autocomplete(thread, "bg-team adopt", "proposal", "") == []
        r = await w.do(dave.slash(ours, "bg-team propose", text=play))  # a moderator, typing in the other team's thread
        refused(r, "Your team has no decision to make now")
        assert not [m for m in ours.history() if "dave" in m.content.lower() and "propos" in m.content]

        r = await w.do(carol.slash(ours, "bg-team adopt", proposal=pid))
        assert r.acknowledged
        record = await w.bot.service.record(gid, SYSTEM)
        assert record["actions"][0] == {"type": "SetActing", "by": str(carol.id), "member": str(carol.id)}
        moves = [a for a in record["actions"] if a["type"] == "Move"]
        assert moves[-1]["by"] == str(carol.id)
        assert any(f"adopts proposal #{pid}" in m.content for m in ours.history())
        # alice & carol have moved: a late choice is refused.
        r = await w.do(alice.select(asked, [str(alice.id)], custom_id=select_id))
        refused(r, "Alice & carol has moved in game 1: carol acts for alice & carol until it ends")

        # Game 1 ends (bob & dave resign); game 2 starts with the rotation (carol and dave); each team is asked again.
        await resign_game(d, 1)
        view = await d.view()
        assert view.game == 2 and view.acting == (str(carol.id), str(dave.id)), view
        asked2, select2 = question(ours, 2)
        assert "**carol** acts now" in asked2.content and select2 == f"bg:acting:{gid}:0:2"
        assert question(theirs, 2)[1] == f"bg:acting:{gid}:1:2"
        # The question about game 1 is out of date.
        r = await w.do(alice.select(asked, [str(alice.id)], custom_id=select_id))
        refused(r, "This question was about game 1")
        r = await w.do(alice.select(asked2, [str(alice.id)], custom_id=select2))
        assert r.acknowledged and not r.followups
        asked2b, _ = question(theirs, 2)
        r = await w.do(bob.select(asked2b, [str(bob.id)], custom_id=f"bg:acting:{gid}:1:2"))
        assert r.acknowledged and not r.followups
        assert (await d.view()).acting == (str(alice.id), str(bob.id))  # the acting members changed between games

        # The bot restarts; the team thread has been renamed: the new bot finds it by the id stored with the game.
        await w.restart()
        assert threads(w).team_threads == {}
        renamed = await w.bot.fetch_channel(ours.id)
        assert isinstance(renamed, discord.Thread)
        await renamed.edit(name="alice and carol's corner")
        assert [t.name for t in w.channel.threads if t.id == ours.id] == ["alice and carol's corner"]
        await opening(d)
        await d.until("roll", side=0)
        r = await w.do(carol.slash(ours, "bg-team propose", text="roll"))
        refused(r, "Proposed to your team", ours.mention)
        assert len(w.channel.threads) == 3  # the match thread and the two team threads: none opened anew
        assert any("carol proposes roll" in m.content for m in ours.history())
        assert threads(w).team_threads[(gid, 0)] == ours.id
        r = await w.do(carol.click(live_message(thread), label="Roll"))
        refused(r, "not the acting member of alice & carol in game 2")

        # Game 2 ends (alice & carol resign: 1-1); game 3: bob & dave choose dave, and the match is played out.
        await resign_game(d, 0)
        view = await d.view()
        assert view.game == 3 and view.score == (1, 1), view
        assert view.acting == (str(alice.id), str(bob.id))  # the rotation: the first members again
        asked3, select3 = question(theirs, 3)
        assert "**bob** acts now" in asked3.content
        r = await w.do(dave.select(asked3, [str(dave.id)], custom_id=select3))
        assert r.acknowledged and not r.followups
        assert (await d.view()).acting == (str(alice.id), str(dave.id))
        await resign_game(d, 1, "Resign a gammon")
        view = await d.view()
        assert view.status == "finished" and view.score == (3, 1), view
        setting = [a for a in (await w.bot.service.record(gid, SYSTEM))["actions"] if a["type"] == "SetActing"]
        assert [(a["by"], a["member"]) for a in setting] == [
            (str(carol.id), str(carol.id)),
            (str(alice.id), str(alice.id)),
            (str(bob.id), str(bob.id)),
            (str(dave.id), str(dave.id)),
        ]
        assert labels(thread.history()[-1]) == []


async def test_both_must_agree_holds_a_play_picked_on_the_board_until_the_teammate_approves(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol, dave, eve = (w.people[n] for n in ("alice", "bob", "carol", "dave", "eve"))
        r = await w.do(
            alice.slash(
                w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=3,
                consult="agree",
            )
        )  # fmt: skip
        gid = int(re.findall(r"game #(\d+)", said(r))[0])
        for member in (carol, dave, bob):  # each player the challenge names accepts, the teammate too
            await w.do(member.click(reply(r), label="Accept"))
        d = Driver(w, gid)
        thread = await d.thread()
        await d.until("move", side=0)
        view = await d.view()
        assert view.to_act == str(alice.id)
        ours = team_thread(w, gid, "alice & carol")
        board = live_message(thread)
        posted = len(thread.history())
        logged = len((await w.bot.service.record(gid, SYSTEM))["actions"])

        # alice picks a play on the public board: it is held for carol, told only to alice and in the team thread.
        r = await pick_play(w, alice, thread)
        refused(r, "waiting for carol to approve")
        assert len((await w.bot.service.record(gid, SYSTEM))["actions"]) == logged
        held = await d.view()
        assert held.phase == "move" and held.to_act == str(alice.id) and held.version == view.version
        assert len(thread.history()) == posted and live_message(thread).id == board.id
        assert any(
            "waiting for carol to approve" in m.content and f"<@{carol.id}>" in m.content for m in ours.history()
        )
        assert not [t for t in public_texts(w, besides=(ours.id,)) if "approve" in t]

        # Nobody else approves it: not the opponents, not an outsider, not alice herself.
        r = await w.do(bob.slash(thread, "bg-team approve"))
        refused(r, "approves your play, not you")
        r = await w.do(dave.slash(thread, "bg-team approve"))
        refused(r, "no play of your team waiting")
        r = await w.do(eve.slash(w.channel, "bg-team approve", game=gid))
        refused(r, f"You are not playing in game #{gid}")
        r = await w.do(alice.slash(ours, "bg-team approve"))
        refused(r, "Your teammate approves your play, not you")
        assert (await d.view()).version == view.version

        # carol approves in the team thread: the play is made and shown in the match thread.
        r = await w.do(carol.slash(ours, "bg-team approve"))
        assert r.acknowledged and thread.mention in said(r), said(r)
        after = await d.view()
        assert after.version > view.version and not (after.phase == "move" and after.to_act == str(alice.id))
        assert any("alice played" in m.content for m in thread.history()[posted:])
        assert any("carol approves" in m.content for m in ours.history())
        moves = [a for a in (await w.bot.service.record(gid, SYSTEM))["actions"] if a["type"] == "Move"]
        assert moves[-1]["by"] == str(alice.id)


async def test_without_private_threads_each_member_is_asked_who_acts_by_direct_message(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        w.env.inject_error(
            "POST", f"/channels/{w.channel.id}/threads", status=403, code=50013, message="Missing Permissions",
            times=None,
        )  # fmt: skip
        alice, bob, carol, dave = (w.people[n] for n in ("alice", "bob", "carol", "dave"))
        r = await w.do(
            alice.slash(
                w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=1,
                acting="choose",
            )
        )  # fmt: skip
        gid = int(re.findall(r"game #(\d+)", said(r))[0])
        for member in (carol, dave, bob):  # each player the challenge names accepts, the teammate too
            await w.do(member.click(reply(r), label="Accept"))
        assert await w.bot.service.team_threads(gid) == {}
        asked = {}
        for member in (alice, bob, carol, dave):
            asked[member.name] = question(member.user.dm_channel, 1)
            assert asked[member.name][0].content.startswith(f"Game #{gid}, your team: ")
        assert asked["carol"][1] == f"bg:acting:{gid}:0:1" and asked["dave"][1] == f"bg:acting:{gid}:1:1"
        message, select = asked["carol"]
        r = await w.do(carol.user.select(message, [str(carol.id)], custom_id=select))  # in carol's direct messages
        assert r.acknowledged and not r.followups
        assert (await w.view(gid)).acting == (str(carol.id), str(bob.id))
        assert "carol chose. **carol** acts now" in question(carol.user.dm_channel, 1)[0].content
        message, select = asked["bob"]
        r = await w.do(bob.user.select(message, [str(dave.id)], custom_id=select))
        assert r.acknowledged and not r.followups
        assert (await w.view(gid)).acting == (str(carol.id), str(dave.id))


async def test_acting_choose_is_for_team_rule_sets(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, variant="backgammon", acting="choose"))
        refused(r, "`acting: choose` is for team rule sets", "Backgammon each side is one player")
        gid, thread = await w.start(variant="backgammon", length=1, acting="rotate")
        r = await w.do(alice.slash(thread, "bg-team propose", text="roll"))
        refused(r, "Consultation is for team rule sets")
        assert "choose who acts" not in live_message(thread).content


async def test_a_team_thread_opened_during_a_roll_keeps_the_boards_play_select_working(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        # The table's two team threads at the start fail; the first proposal opens one and stores it.
        w.env.inject_error("POST", f"/channels/{w.channel.id}/threads", status=500, times=2)
        alice, bob, carol, dave = (w.people[n] for n in ("alice", "bob", "carol", "dave"))
        r = await w.do(
            alice.slash(w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=1)
        )
        gid = int(re.findall(r"game #(\d+)", said(r))[0])
        for member in (carol, dave, bob):  # each player the challenge names accepts, the teammate too
            await w.do(member.click(reply(r), label="Accept"))
        d = Driver(w, gid)
        thread = await d.thread()
        await d.until("move")
        view = await d.view()
        side = view.side_of(view.to_act or "")
        assert side is not None and await w.bot.service.team_threads(gid) == {}
        mate = w.by_id(next(p for p in view.sides[side] if p != view.to_act))
        r = await w.do(mate.slash(thread, "bg-team propose", text=view.plays[0]))
        refused(r, "Proposed to your team")
        assert list(await w.bot.service.team_threads(gid)) == [side]
        assert (await d.view()).version == view.version  # storing a team thread is not a game change
        # The board's components stay current: the acting member's pick is played.
        r = await pick_play(w, w.by_id(view.to_act or ""), thread)
        assert not r.followups, r.followups[0].content
        after = await d.view()
        assert after.phase != "move" or after.to_act != view.to_act or after.draft


async def test_a_team_challenge_starts_only_once_each_player_it_names_has_accepted(tmp_path: Path) -> None:
    """Nobody is seated without being asked: the challenger's teammate accepts like the two opponents."""
    async with world(tmp_path) as w:
        alice, bob, carol, dave, eve = (w.people[n] for n in ("alice", "bob", "carol", "dave", "eve"))
        r = await w.do(
            alice.slash(w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=1)
        )
        challenge = reply(r)
        assert "alice & carol challenge bob & dave" in challenge.content, challenge.content
        assert f"<@{carol.id}> <@{bob.id}> <@{dave.id}>: Accept (each of you)" in challenge.content
        gid = int(re.findall(r"game #(\d+)", challenge.content)[0])
        refused = await w.do(alice.click(challenge, label="Accept"))
        assert "cannot accept your own challenge" in said(refused)
        refused = await w.do(eve.click(challenge, label="Accept"))
        assert "This challenge is for" in said(refused)
        await w.do(bob.click(challenge, label="Accept"))
        assert "it starts once carol and dave accept" in challenge.content and "Accept" in labels(challenge)
        again = await w.do(bob.click(challenge, label="Accept"))
        assert "You have accepted already" in said(again), said(again)
        await w.do(carol.click(challenge, label="Accept"))
        assert (await w.view(gid)).status == "challenge"
        await w.do(dave.click(challenge, label="Accept"))
        view = await w.view(gid)
        assert view.status == "active" and view.thread_id is not None
        assert not labels(challenge)  # the challenge's buttons are gone once the match starts
