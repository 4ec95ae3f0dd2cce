"""The extra commands under ``/bg`` (verify, dice, hint, propose, proposals, adopt, approve), through simcord and
the real discord.py command tree, after matches played in Discord.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from simcord import SetupError

from bot.cli import main as cli_main
from bot.discord.threads import team_thread_name
from bot.service import SYSTEM, Request
from bot.storage import actions
from engine.fairdice import verify_record
from tests.bot.discord.helpers import Driver, World, answer, game_thread, reply, said, world

pytestmark = pytest.mark.asyncio


def public_texts(w: World, *, besides: tuple[int, ...] = ()) -> list[str]:
    """Every message that is not ephemeral in the channel, its threads (but ``besides``) and everyone's DMs."""
    channels = [w.channel, *(t for t in w.channel.threads if t.id not in besides)]
    out = []
    for channel in channels:
        out += [m.content for m in channel.history() if not m.flags.ephemeral]
    return out


async def finish(w: World, winner: str, loser: str, variant: str = "backgammon", rolls: int = 6) -> int:
    """A 1-point match in Discord: at least ``rolls`` rolls are played, then the loser resigns a backgammon."""
    gid, thread = await w.start(opponent=loser, challenger=winner, variant=variant, length=1)
    d = Driver(w, gid)
    lose = w.people[loser]
    for _ in range(200):
        v = await d.view()
        if v.status == "finished":
            return gid
        played = [a for a in (await w.bot.service.record(gid, SYSTEM))["actions"] if a["type"] == "Roll"]
        if v.phase == "roll" and v.to_act == str(lose.id) and len(played) >= rolls:
            r = await w.do(lose.slash(thread, "bg resign", level="backgammon"))
            assert r.acknowledged, said(r)
        else:
            await d.step()
    raise AssertionError(f"match #{gid} did not end")


async def test_the_dice_and_team_groups_are_under_bg(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        names = set(w.people["alice"].available_commands(w.channel))
        expected = {"bg-dice verify", "bg-dice stats", "bg hint"}
        expected |= {f"bg-team {n}" for n in ("propose", "proposals", "adopt", "approve")}
        assert expected <= names


@pytest.mark.parametrize("edit", ["swap", "change"])
async def test_verify_attaches_a_record_that_verifies_and_a_changed_roll_is_named(tmp_path: Path, edit: str) -> None:
    async with world(tmp_path) as w:
        w.bot.service.dice = None  # the service's own commit-reveal dice (GammonBot always passes a provider)
        gid = await finish(w, "alice", "bob")
        view = await w.view(gid)
        thread = game_thread(w, view)

        # In the match's thread, the game is the thread's; anyone may ask (eve did not play).
        r = await w.do(w.people["eve"].slash(thread, "bg-dice verify"))
        message = answer(r)
        assert message.ephemeral and "Verified: the seed matches the commitment" in message.content, message.content
        (attachment,) = message.attachments
        assert attachment.filename == f"game{gid}-record.json"
        record = json.loads(await attachment.read())
        report = verify_record(record)
        assert report.ok and report.rolls > 2, report
        saved = tmp_path / attachment.filename
        saved.write_bytes(await attachment.read())
        out = io.StringIO()
        assert cli_main(["verify", str(saved)], out) == 0 and out.getvalue().startswith("verified:"), out.getvalue()
        assert record["dice"]["seed"] and record["dice"]["commitment"] in message.content

        # Edit one stored roll: swap its dice (the plays stay legal, the log still replays) or change a number (the
        # next play becomes illegal: the service cannot load the game any more). /bg verify fails naming the roll.
        async with w.bot.store.engine.begin() as conn:  # type: ignore[union-attr]
            rows = (
                await conn.execute(
                    sa.select(actions.c.seq, actions.c.action).where(actions.c.game_id == gid).order_by(actions.c.seq)
                )
            ).all()
            logged = [json.loads(row.action) for row in rows]
            k = next(i for i, a in enumerate(logged) if a["type"] == "Roll" and a["dice"][0] != a["dice"][1])
            number = sum(1 for a in logged[:k] if a["type"] in ("OpeningRoll", "Roll"))
            d1, d2 = logged[k]["dice"]
            changed = {**logged[k], "dice": [d2, d1] if edit == "swap" else [7 - d1, d2]}
            await conn.execute(
                actions.update()
                .where(actions.c.game_id == gid, actions.c.seq == rows[k].seq)
                .values(action=json.dumps(changed))
            )
        await w.restart()  # a new bot on the same database: nothing cached
        r = await w.do(w.people["eve"].slash(w.channel, "bg-dice verify", game=gid))
        message = answer(r)
        assert message.ephemeral and message.attachments == []
        assert f"Tampered: roll {number} (" in message.content, message.content
        e1, e2 = changed["dice"]
        assert f"is {e1}-{e2} but the dice derive {d1}-{d2}" in message.content


async def test_verify_refuses_games_without_commitment_or_without_a_game(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid = await finish(w, "alice", "bob", "sprintgammon", rolls=1)  # seeded test dice: no commitment
        r = await w.do(w.people["alice"].slash(w.channel, "bg-dice verify", game=gid))
        assert r.ephemeral and "carry no commitment" in said(r) and said(r)[0].isupper()
        r = await w.do(w.people["alice"].slash(w.channel, "bg-dice verify"))
        assert r.ephemeral and "`game` option" in said(r)
        choices = await w.people["alice"].autocomplete(w.channel, "bg-dice verify", "game", "")
        assert [c["value"] for c in choices] == [gid] and choices[0]["name"].startswith(f"#{gid} Sprintgammon")
        r = await w.do(w.people["alice"].slash(w.channel, "bg-dice verify", game=gid + 50))
        assert r.ephemeral and f"There is no game #{gid + 50}" in said(r)


async def test_dice_counts_each_number_and_the_doublets_against_fair_dice(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await finish(w, "alice", "bob")
        await finish(w, "bob", "alice")
        alice = w.people["alice"]
        eve = Request(str(w.people["eve"].id), "eve", str(w.guild.id), "discord")
        stats = await w.bot.service.dice_stats(eve, str(alice.id))
        assert stats.rolls > 0
        r = await w.do(w.people["eve"].slash(w.channel, "bg-dice stats", player=alice.user))
        text = said(r)
        assert r.ephemeral and f"{stats.rolls} rolls" in text
        seen = next(line for line in text.splitlines() if line.startswith("Seen"))
        assert [int(n) for n in seen.split()[1:]] == list(stats.faces)
        expected = next(line for line in text.splitlines() if line.startswith("Expected"))
        assert expected.split()[1:] == [f"{stats.rolls / 3:.1f}"] * 6
        assert f"Doublets: **{stats.doublets}** (expected {stats.rolls / 6:.1f})" in text
        assert "p = " in text

        r = await w.do(w.people["eve"].slash(w.channel, "bg-dice stats"))
        assert r.ephemeral and "eve has no rolls" in said(r)


async def test_a_hint_lists_ranked_plays_in_money_play_and_is_refused_in_a_rated_match(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=0)  # money play between two people: hints allowed
        d = Driver(w, gid)
        await d.until("move")
        view = await d.view()
        mover = w.by_id(view.to_act or "")
        r = await w.do(mover.slash(thread, "bg hint"))
        message = answer(r)
        assert message.ephemeral, message.content
        ranked = re.findall(r"^(\d)\. (.+?)  ([+-]\d\.\d{3})", message.content, re.M)
        assert ranked and ranked[0][0] == "1", message.content
        assert all(play in view.plays or play == "no move" for _, play, _ in ranked)
        assert (await d.view()).version == view.version  # a hint changes nothing
        other = next(
            p
            for p in w.people.values()
            if p.id != mover.id and str(p.id) in view.sides[view.side_of(str(mover.id)) ^ 1]
        )
        r = await w.do(other.slash(thread, "bg hint"))
        assert answer(r).ephemeral and "Hints are for your own turn" in answer(r).content

        gid2, thread2 = await w.start(opponent="dave", challenger="carol", variant="backgammon", length=3)
        d2 = Driver(w, gid2)
        await d2.until("move")
        mover2 = w.by_id((await d2.view()).to_act or "")
        r = await w.do(mover2.slash(thread2, "bg hint"))
        assert answer(r).ephemeral and "Hints are off in this match" in answer(r).content


async def _doubles(w: World) -> tuple[int, Any, Driver]:
    alice, bob, carol, dave = (w.people[n] for n in ("alice", "bob", "carol", "dave"))
    r = await w.do(
        alice.slash(w.channel, "bg play", opponent=bob, teammate=carol, partner=dave, variant="doubles", length=3)
    )
    found = re.search(r"game #(\d+)", said(r))
    assert found is not None
    gid = int(found[1])
    for member in (carol, dave, bob):  # each player the challenge names accepts, the teammate too
        await w.do(member.click(reply(r), label="Accept"))
    d = Driver(w, gid)
    return gid, await d.thread(), d


async def test_a_teammates_proposal_reaches_only_the_team_and_the_acting_member_adopts_it(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread, d = await _doubles(w)
        await d.until("move")
        view = await d.view()
        side = view.side_of(view.to_act or "")
        assert side is not None and view.acting is not None
        acting = w.by_id(view.acting[side])
        mate = w.by_id(next(p for p in view.sides[side] if p != view.acting[side]))
        opponents = [w.by_id(p) for p in view.sides[1 - side]]
        eve = w.people["eve"]

        # Suggestions list the legal plays; the teammate proposes one from the match thread.
        choices = await mate.autocomplete(thread, "bg-team propose", "text", "")
        assert [c["value"] for c in choices] == list(view.plays[:25])
        assert await opponents[0].autocomplete(thread, "bg-team propose", "text", "") == []
        play = view.plays[0]
        r = await w.do(mate.slash(thread, "bg-team propose", text=play))
        assert r.ephemeral and "Proposed to your team (proposal #" in said(r), said(r)
        pid = int(re.findall(r"proposal #(\d+)", said(r))[0])

        # It is in the team's private thread (the one the table opened) and nowhere public.
        team = next(t for t in w.channel.threads if t.mention in said(r))
        assert team.id != thread.id
        posted = [m.content for m in team.history() if f"proposal #{pid}" in m.content]
        assert posted and "proposes" in posted[0] and f"<@{acting.id}>" in posted[0]
        assert team.history(viewer=mate) and team.history(viewer=acting)
        for stranger in (*opponents, eve):
            with pytest.raises(SetupError):
                team.history(viewer=stranger)
        assert not [t for t in public_texts(w, besides=(team.id,)) if "propos" in t]

        # Only the team reads its proposals; an outsider is refused, the opponents see only their own (none).
        r = await w.do(mate.slash(thread, "bg-team proposals"))
        assert r.ephemeral and f"#{pid} **{play}**" in said(r)
        r = await w.do(eve.slash(w.channel, "bg-team proposals", game=gid))
        assert r.ephemeral and "Only members of a team" in said(r)
        r = await w.do(opponents[0].slash(thread, "bg-team proposals"))
        assert r.ephemeral and play not in said(r) and "no open proposals" in said(r)
        choices = await acting.autocomplete(thread, "bg-team adopt", "proposal", "")
        assert [c["value"] for c in choices] == [pid]

        # The teammate cannot adopt; the acting member does, from the team thread, and the play is made.
        r = await w.do(mate.slash(team, "bg-team adopt", proposal=pid))
        assert r.ephemeral and "Only the acting member" in said(r)
        r = await w.do(acting.slash(team, "bg-team adopt", proposal=pid))
        assert r.ephemeral and thread.mention in said(r), said(r)
        after = await d.view()
        assert after.version > view.version and (after.phase != "move" or after.to_act not in view.sides[side])
        assert any(f"adopts proposal #{pid}" in m.content for m in team.history())
        assert not [t for t in public_texts(w, besides=(team.id,)) if "propos" in t]
        record = await w.bot.service.record(gid, SYSTEM)
        moves = [a for a in record["actions"] if a["type"] == "Move"]
        assert moves and moves[-1]["by"] == str(acting.id)
        r = await w.do(acting.slash(team, "bg-team adopt", proposal=pid))
        assert r.ephemeral and "earlier decision" in said(r)


async def test_without_a_team_thread_one_is_opened_lazily_and_remembered(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        # The table's two team threads at the start fail; the match thread (from the message) does not.
        w.env.inject_error("POST", f"/channels/{w.channel.id}/threads", status=500, times=2)
        gid, thread, d = await _doubles(w)
        assert [t.id for t in w.channel.threads] == [thread.id]
        await d.until("roll", side=0)
        view = await d.view()
        assert view.acting is not None
        mate = w.by_id(next(p for p in view.sides[0] if p != view.acting[0]))
        r = await w.do(mate.slash(w.channel, "bg-team propose", text="roll", game=gid))
        assert r.ephemeral, said(r)
        (team,) = [t for t in w.channel.threads if t.id != thread.id]
        assert team.name == team_thread_name(view, 0) == f"#{gid} team alice & carol"
        assert team.mention in said(r)
        for p in view.sides[1]:
            with pytest.raises(SetupError):
                team.history(viewer=w.by_id(p))
        assert any("proposes roll" in m.content for m in team.history(viewer=mate))
        assert w.bot.threads.team_threads == {(gid, 0): team.id}
        # Inside the team thread the game is known; a second proposal goes to the same thread.
        r = await w.do(mate.slash(team, "bg-team propose", text="double"))
        assert r.ephemeral and team.mention in said(r)
        assert len([t for t in w.channel.threads if t.id != thread.id]) == 1
        r = await w.do(mate.slash(team, "bg-team propose", text="take"))
        assert r.ephemeral and "may propose: double, roll" in said(r)


async def test_without_the_private_thread_permission_both_members_get_a_direct_message(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        w.env.inject_error(
            "POST",
            f"/channels/{w.channel.id}/threads",
            status=403,
            code=50013,
            message="Missing Permissions",
            times=None,
        )
        gid, thread, d = await _doubles(w)
        await d.until("roll", side=1)
        view = await d.view()
        assert view.acting is not None
        acting = w.by_id(view.acting[1])
        mate = w.by_id(next(p for p in view.sides[1] if p != view.acting[1]))
        r = await w.do(mate.slash(thread, "bg-team propose", text="double"))
        assert r.ephemeral and "Create Private Threads" in said(r) and "direct message" in said(r), said(r)
        for member in (acting, mate):
            assert any("proposes double" in m.content for m in member.user.dm_channel.history())
        for p in view.sides[0]:
            assert not any("propos" in m.content for m in w.by_id(p).user.dm_channel.history())
        assert not [t for t in public_texts(w) if "propos" in t]


async def test_both_must_agree_holds_the_play_for_the_teammates_approval(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        svc = w.bot.service
        here = str(w.guild.id)
        ann, ben, cat, dan = (
            Request(str(w.people[n].id), n, here, "discord") for n in ("alice", "bob", "carol", "dave")
        )
        out = await svc.challenge(
            ann,
            ben,
            teammate=cat,
            opponent_teammate=dan,
            variant="doubles",
            length=1,
            channel_id=str(w.channel.id),
            consult="agree",
        )
        gid = out.game.id
        for member in (cat, dan, ben):  # each player the challenge names accepts, the teammate too
            await svc.accept(gid, member)
        for _ in range(40):  # roll until a side has a play to make (no thread: the game lives in the channel)
            view = await svc.view(gid, SYSTEM)
            if view.phase == "move":
                break
            await svc.roll(gid, Request(view.to_act or (view.acting or ("",))[0], "x", here, "discord"))
        view = await svc.view(gid, SYSTEM)
        side = view.side_of(view.to_act or "")
        assert side is not None and view.acting is not None
        acting_ref = Request(view.acting[side], "acting", here, "discord")
        mate = w.by_id(next(p for p in view.sides[side] if p != view.acting[side]))
        held = await svc.move(gid, acting_ref, view.plays[0])
        assert [e.kind for e in held.events] == ["held"]

        # The teammate sends it back: the team is told privately, the game is unchanged.
        r = await w.do(mate.slash(w.channel, "bg-team approve", agree=False, game=gid))
        assert r.ephemeral and "chooses again" in said(r), said(r)
        # (The version moves on only because the team thread opened just now is stored with the game.)
        assert dataclasses.replace(await svc.view(gid, SYSTEM), version=view.version) == view
        held = await svc.move(gid, acting_ref, view.plays[0])
        opponent = w.by_id(next(p for p in view.sides[1 - side] if p != view.acting[1 - side]))
        r = await w.do(opponent.slash(w.channel, "bg-team approve", game=gid))
        assert r.ephemeral and "no play of your team waiting" in said(r)

        # Approved: the play is made and shown in the game's channel; the approval itself stays in the team thread.
        r = await w.do(mate.slash(w.channel, "bg-team approve", game=gid))
        assert r.acknowledged
        after = await svc.view(gid, SYSTEM)
        assert after.version > view.version and not (after.phase == "move" and after.to_act in view.sides[side])
        (team,) = w.channel.threads
        assert any("approves" in m.content for m in team.history())
        assert any("does not agree" in m.content for m in team.history())
        assert not [t for t in public_texts(w, besides=(team.id,)) if "approves" in t or "does not agree" in t]


async def test_consultation_is_for_team_rule_sets(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=1)
        r = await w.do(w.people["alice"].slash(thread, "bg-team propose", text="roll"))
        assert r.ephemeral and "Consultation is for team rule sets" in said(r)
        r = await w.do(w.people["alice"].slash(thread, "bg-team adopt", proposal=1))
        assert r.ephemeral and "Consultation is for team rule sets" in said(r)
