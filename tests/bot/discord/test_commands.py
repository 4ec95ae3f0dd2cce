"""The ``/bg`` commands and components one by one, through simcord and the real discord.py command tree."""

from __future__ import annotations

import dataclasses
import io
import re
from contextlib import redirect_stderr
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.cli import main
from bot.config import Settings
from bot.discord.app import INTENTS, PERMISSIONS, GammonBot, ShardedGammonBot, build_bot
from bot.discord.components import (
    DYNAMIC_ITEMS,
    ActingSelect,
    ActionButton,
    PlaySelect,
    SubmoveButton,
    custom_id,
    may_press,
)
from bot.discord.controls import turn_controls
from bot.discord.options import match_plays
from bot.service import GameView
from engine.controls import NOTHING, Allowed, allowed_actions
from engine.match import Beaver, Double, MatchOptions, Move, OpeningRoll, apply, new_match
from engine.plugins import get_variant
from tests.bot.discord.helpers import (
    Driver,
    FakeTime,
    ScriptedDice,
    components,
    game_thread,
    labels,
    live_message,
    make_bot,
    reply,
    said,
    show_command,
    sim,
    world,
)

# --- the command tree -------------------------------------------------------------------------------------


AppCommand = app_commands.Command[Any, Any, Any] | app_commands.Group | app_commands.ContextMenu


def all_commands(bot: GammonBot) -> list[AppCommand]:
    out: list[AppCommand] = []
    stack: list[AppCommand] = list(bot.tree.get_commands())
    while stack:
        cmd = stack.pop()
        out.append(cmd)
        if isinstance(cmd, app_commands.Group):
            stack.extend(cmd.commands)
    return out


@pytest.mark.asyncio
async def test_no_two_commands_share_a_name_and_every_command_is_described_for_players(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        commands = all_commands(w.bot)
        names = [c.qualified_name for c in commands]
        assert len(names) == len(set(names)), names
        tree = {
            c.name: {s.name: sorted(x.name for x in s.commands) if isinstance(s, app_commands.Group) else None
                     for s in c.commands} if isinstance(c, app_commands.Group) else None
            for c in w.bot.tree.get_commands()
        }  # fmt: skip
        assert tree == {
            "bg": dict.fromkeys((
                "play", "move", "resign", "board", "games", "hint", "watch", "export", "ids", "replay", "help",
                "forfeit",
            )),
            "bg-team": dict.fromkeys(("adopt", "approve", "proposals", "propose")),
            "bg-dice": dict.fromkeys(("stats", "verify")),
            "bg-stats": dict.fromkeys(("history", "leaderboard", "profile")),
            "bg-info": dict.fromkeys(("clocks", "rules", "variants")),
            "bg-me": dict.fromkeys(("forget", "settings", "vacation")),
            "bg-tour": dict.fromkeys(("info", "join", "leave", "standings")),
            "bg-admin": {
                "config": None,
                "forget": None,
                "tour": ["create", "decide", "disqualify", "extend", "pause", "replace", "resume", "start"],
            },
        }  # fmt: skip
        # Only /bg-admin is for admins: Discord hides it from members without the Manage Server permission.
        for top in w.bot.tree.get_commands():
            assert isinstance(top, app_commands.Group)
            perms = top.default_permissions
            assert (perms is not None and perms.manage_guild) == (top.name == "bg-admin"), top.name
        assert all(len(children) <= 25 for children in tree.values() if children is not None)
        for cmd in commands:
            assert not isinstance(cmd, app_commands.ContextMenu), "context menus would need their own check"
            assert cmd.description and cmd.description != "…", cmd.qualified_name
            assert cmd.description[0].isupper() and len(cmd.description) <= 100, cmd.description
            if isinstance(cmd, app_commands.Command):
                for param in cmd.parameters:
                    assert param.description and param.description != "…", f"{cmd.qualified_name} {param.name}"
        # What a player sees in Discord's picker is exactly what was synced.
        assert w.people["alice"].available_commands(w.channel)


def test_the_bot_asks_for_no_privileged_intent() -> None:
    assert not (INTENTS.members or INTENTS.presences or INTENTS.message_content)
    assert INTENTS.guilds


def test_the_readme_invite_link_asks_for_exactly_the_permissions_the_bot_needs() -> None:
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    section = readme[readme.index("## Quick start for server admins") :]
    assert f"permissions={PERMISSIONS.value}" in section and f"`{PERMISSIONS.value}`" in section
    assert not (PERMISSIONS.administrator or PERMISSIONS.manage_guild or PERMISSIONS.manage_messages)


# --- who may press -------------------------------------------------------------------------------------------


def game_view(**kw: object) -> GameView:
    base: dict[str, object] = dict(
        id=7,
        guild_id="g",
        status="active",
        variant="backgammon",
        display_name="Backgammon",
        sides=(("1",), ("2",)),
        names={"1": "Alice", "2": "Bob", "3": "Carol"},
        length=3,
        score=(0, 0),
        game=1,
        phase="roll",
        to_act="1",
        acting=("1", "2"),
        dice=None,
        cube=1,
        cube_owner=None,
        plays=(),
        draft="",
        draft_remaining=(),
        winner=None,
        position_id=None,
        version=3,
        challenger="1",
        invited=("2",),
    )
    base.update(kw)
    return GameView(**base)  # type: ignore[arg-type]


def test_only_the_players_may_press_a_games_buttons() -> None:
    view = game_view()
    assert may_press(view, "1", "roll") is None
    assert may_press(view, "2", "roll") is None  # whose turn it is is the service's call
    refusal = may_press(view, "3", "roll")
    assert refusal is not None and "not playing in game #7" in refusal and "/bg play" in refusal
    assert may_press(game_view(status="finished"), "1", "roll") == "Game #7 is over."


def test_challenge_buttons_are_for_the_invited_or_anyone_on_an_open_challenge() -> None:
    challenge = game_view(status="challenge", sides=(("1",), ("2",)), phase=None)
    assert may_press(challenge, "2", "accept") is None
    assert "for Bob" in (may_press(challenge, "3", "accept") or "")
    assert "your own challenge" in (may_press(challenge, "1", "accept") or "")
    assert may_press(challenge, "1", "decline") is None
    assert may_press(challenge, "3", "decline") is not None
    open_one = game_view(status="challenge", sides=(("1",), ()), invited=(), phase=None)
    assert may_press(open_one, "3", "accept") is None
    assert "withdraw" in (may_press(open_one, "3", "decline") or "")


def test_custom_ids_carry_the_game_and_fit_discords_limit() -> None:
    big = 10**15
    ids = [
        ActionButton("resign-accept", big).custom_id,
        SubmoveButton(big, 10**12, 25, 0).custom_id,
        PlaySelect(big, 10**12, ("13/7 8/7",)).custom_id,
    ]
    assert all(str(big) in i and len(i) <= 100 for i in ids), ids
    for cls, cid in zip(DYNAMIC_ITEMS[1:3], ids[1:]):
        assert cls.__discord_ui_compiled_template__.fullmatch(cid)  # type: ignore[attr-defined]
    acting = ActingSelect(big, 1, 99, (("1", "Alice"), ("3", "Carol")), "3").custom_id
    assert acting == f"bg:acting:{big}:1:99"
    assert [c for c in DYNAMIC_ITEMS if c.__discord_ui_compiled_template__.fullmatch(acting)] == [ActingSelect]  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        custom_id("x" * 100)


def test_move_suggestions_match_what_is_typed() -> None:
    plays = ("13/10 13/9", "24/20 13/10", "24/17", "8/5 6/2")
    assert match_plays(plays, "") == list(plays)
    assert match_plays(plays, "24") == ["24/20 13/10", "24/17"]
    assert match_plays(plays, "13/10") == ["13/10 13/9", "24/20 13/10"]
    assert match_plays(plays, "9/1") == []


# --- `gammonbot run` -------------------------------------------------------------------------------------------


def test_run_without_a_token_refuses_in_one_line_pointing_to_the_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["run", "--config", "/nonexistent/config.toml"])
    assert code == 2
    text = err.getvalue()
    assert text.count("\n") == 1 and "DISCORD_TOKEN" in text and "gammonbot console" in text


# --- commands through Discord ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_information_commands_answer_only_the_asker(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        r = await w.do(alice.slash(w.channel, "bg-info variants"))
        assert r.ephemeral and "Longgammon" in said(r) and "Backgammon Doubles" in said(r)
        r = await w.do(alice.slash(w.channel, "bg-info rules", variant="sprint"))
        assert r.ephemeral and said(r).startswith("Sprintgammon:")
        r = await w.do(alice.slash(w.channel, "bg-info rules", variant="chess"))
        assert r.ephemeral and "chess" in said(r).lower()
        r = await w.do(alice.slash(w.channel, "bg games"))
        assert r.ephemeral and "no games" in said(r)
        choices = await alice.autocomplete(w.channel, "bg play", "variant", "long")
        assert [c["value"] for c in choices] == ["longgammon"]
        r = await w.do(alice.slash(w.channel, "bg board"))
        assert r.ephemeral and "no game running" in said(r)
        assert all(r.acknowledged for r in w.results)


@pytest.mark.asyncio
async def test_settings_are_per_player_and_bad_values_are_refused(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        r = await w.do(alice.slash(w.channel, "bg-me settings", autoplay=False, home="left"))
        assert r.ephemeral and "autoplay = off" in said(r) and "home = left" in said(r)
        r = await w.do(w.people["bob"].slash(w.channel, "bg-me settings"))
        assert "autoplay = on" in said(r) and "home = right" in said(r)
        r = await w.do(alice.slash(w.channel, "bg-me settings", dm_reminders=True, quiet_hours="22-7"))
        assert "dm_reminders = on" in said(r) and "quiet_hours = 22-7" in said(r)
        r = await w.do(alice.slash(w.channel, "bg-me settings", quiet_hours="late"))
        assert r.ephemeral and "like 22-7" in said(r)
        r = await w.do(alice.slash(w.channel, "bg-me settings"))
        assert "quiet_hours = 22-7" in said(r)


@pytest.mark.asyncio
async def test_server_settings_need_the_manage_server_permission(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        # Discord shows /bg-admin only to members with the Manage Server permission...
        assert not [c for c in w.people["alice"].available_commands(w.channel) if c.startswith("bg-admin")]
        # ...unless a server shows it to others (Server Settings → Integrations): the service refuses them all the same.
        show_command(w, "bg-admin", w.people["alice"])
        r = await w.do(w.people["alice"].slash(w.channel, "bg-admin config", default_length=7))
        assert r.ephemeral and "Manage Server" in said(r)
        role = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[role])
        r = await w.do(admin.slash(w.channel, "bg-admin config", default_length=7, default_variant="sprint"))
        assert r.ephemeral and "default_length = 7" in said(r)
        assert "default_variant = sprintgammon" in said(r)
        r = await w.do(admin.slash(w.channel, "bg-admin config", default_variant="chess"))
        assert r.ephemeral and "chess" in said(r).lower()
        r = await w.do(admin.slash(w.channel, "bg-admin config", default_clock="daily", vacation_days_per_year=10))
        assert "default_time_control = correspondence" in said(r) and "vacation_days_per_year = 10" in said(r)
        r = await w.do(admin.slash(w.channel, "bg-admin config", default_clock="sundial"))
        assert r.ephemeral and "no time control 'sundial'" in said(r) and "correspondence" in said(r)
        choices = await admin.autocomplete(w.channel, "bg-admin config", "default_clock", "")
        assert choices[0]["value"] == "none" and len(choices) > 3
        r = await w.do(admin.slash(w.channel, "bg-admin config", default_clock="none"))
        assert "default_time_control = none" in said(r) and "allowed_variants = all" in said(r)
        # A challenge that names nothing now gets the server's defaults.
        r = await w.do(w.people["alice"].slash(w.channel, "bg play", opponent=w.people["bob"]))
        assert "7-point Sprintgammon match" in said(r)


@pytest.mark.asyncio
async def test_bad_challenges_are_refused_with_the_rule(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        r = await w.do(alice.slash(w.channel, "bg play", opponent=alice))
        assert r.ephemeral and "cannot challenge yourself" in said(r)
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, variant="doubles"))
        assert r.ephemeral and "teammate" in said(r)
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=3, jacoby=True))
        assert r.ephemeral and "Jacoby" in said(r) or "jacoby" in said(r)
        assert w.channel.threads == []


@pytest.mark.asyncio
async def test_open_challenges_are_for_anyone_and_a_challenger_may_withdraw(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, eve = w.people["alice"], w.people["bob"], w.people["eve"]
        r = await w.do(alice.slash(w.channel, "bg play", variant="sprintgammon", length=1))
        assert "Anyone may Accept" in said(r)
        r2 = await w.do(alice.click(reply(r), label="Accept"))
        assert r2.ephemeral and "your own challenge" in said(r2)
        await w.do(eve.click(reply(r), label="Accept"))
        game_id = int(re.findall(r"game #(\d+)", said(r))[0])
        view = await w.view(game_id)
        assert view.status == "active" and str(eve.id) in view.sides[1]
        assert len(w.channel.threads) == 1

        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob))
        challenge = reply(r)
        await w.do(alice.click(challenge, label="Decline"))
        message = w.channel.history()[-1]
        assert "withdrew" in message.content and labels(message) == []
        assert len(w.channel.threads) == 1


@pytest.mark.asyncio
async def test_typed_moves_get_suggestions_and_are_shown_in_the_thread(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        await d.until("move")
        view = await d.view()
        mover = w.by_id(view.to_act or "")
        choices = await mover.autocomplete(thread, "bg move", "play", "24/")
        expected = [p for p in view.plays if p.startswith("24/")]
        assert expected and [c["value"] for c in choices] == expected
        all_choices = await mover.autocomplete(thread, "bg move", "play", "")
        assert [c["value"] for c in all_choices] == list(view.plays[:25])

        # Typed in the thread: the next turn's board, calling the opponent, is posted there; the mover alone is told
        # what they did (the command is answered at once, privately, before the play is made and shown).
        old = live_message(thread)
        r = await w.do(mover.slash(thread, "bg move", play=expected[0]))
        assert r.acknowledged and r.ephemeral and f"played {expected[0]}" in said(r), r
        post = thread.history()[-1]
        assert live_message(thread).id == post.id and post.id != old.id
        after = await d.view()
        assert after.to_act != view.to_act and f"<@{after.to_act}>" in post.content
        assert f"played {expected[0]}" in post.content and post.attachments
        assert labels(thread.history()[[m.id for m in thread.history()].index(old.id)]) == []  # old buttons gone

        # Typed elsewhere: a private acknowledgement, and the board still goes to the thread.
        await d.until("move")
        view = await d.view()
        mover = w.by_id(view.to_act or "")
        count = len(thread.history())
        r = await w.do(mover.slash(w.channel, "bg move", play=view.plays[0], game=game_id))
        assert r.ephemeral and thread.mention in said(r)
        assert len(thread.history()) == count + 1


@pytest.mark.asyncio
async def test_board_and_export_are_private_files(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="sprintgammon", length=3)
        d = Driver(w, game_id)
        await d.until("move")
        r = await w.do(w.people["eve"].slash(thread, "bg board"))
        assert r.response is not None and r.response.ephemeral
        assert reply(r).attachments[0].filename == f"game{game_id}.png"
        r = await w.do(w.people["alice"].slash(w.channel, "bg export", game=game_id))
        assert r.ephemeral and reply(r).attachments[0].filename == f"game{game_id}.mat"
        text = (await reply(r).attachments[0].read()).decode()
        assert "Hypergammon" in text or "3 point match" in text
        r = await w.do(w.people["alice"].slash(w.channel, "bg games"))
        (listing,) = reply(r).embeds
        assert r.ephemeral and "1 in all" in said(r) and listing.description is not None
        assert f"#{game_id}" in listing.description and thread.mention in listing.description
        choices = await w.people["alice"].autocomplete(w.channel, "bg board", "game", "")
        assert [c["value"] for c in choices] == [game_id] and choices[0]["name"].startswith(f"#{game_id} Sprintgammon")
        assert await w.people["eve"].autocomplete(w.channel, "bg board", "game", "") == []


@pytest.mark.asyncio
async def test_rolls_with_many_plays_are_played_checker_by_checker_with_undo_and_confirm(tmp_path: Path) -> None:
    # Opening 3-1 for side 0 (action 0), its play (action 1), then 2-2 for side 1: 75 legal plays.
    async with world(tmp_path, dice=ScriptedDice({0: (3, 1), 2: (2, 2)})) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        await d.roll()
        await d.play()
        await d.roll()
        view = await d.view()
        assert view.dice == (2, 2) and len(view.plays) > 25
        message = live_message(thread)
        subs = [c for c in components(message) if c.get("custom_id", "").startswith("bg:sub:")]
        assert subs and labels(message)[-3:] == ["Undo", "Confirm", "Resign…"]
        assert all(c.get("disabled") for c in components(message) if c.get("label") in ("Undo", "Confirm"))
        who = w.by_id(view.to_act or "")
        stranger = w.people["eve"]
        r = await w.do(stranger.click(message, custom_id=subs[0]["custom_id"]))
        assert r.ephemeral and "not playing" in said(r)
        for _ in range(4):
            message = live_message(thread)
            sub = next(c for c in components(message) if c.get("custom_id", "").startswith("bg:sub:"))
            r = await w.do(who.click(message, custom_id=sub["custom_id"]))
            assert not r.ephemeral and live_message(thread).id == message.id  # edited in place, no new message
        view = await d.view()
        assert view.draft and view.draft_remaining == ()
        await w.do(who.click(live_message(thread), label="Undo"))
        assert (await d.view()).draft_remaining == (2,)
        await d.play()
        after = await d.view()
        assert after.to_act != view.to_act and after.phase == "roll"
        assert f"played {view.draft}" in thread.history()[-1].content


@pytest.mark.asyncio
async def test_a_stale_play_list_is_refused_after_the_game_moved_on(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        await d.until("move")
        stale = live_message(thread)
        view = await d.view()
        mover = w.by_id(view.to_act or "")
        # Discord fails to take the old select off when the next turn is posted: the stale select stays.
        w.env.inject_error("PATCH", f"/channels/{thread.id}/messages/{stale.id}", times=1)
        await w.do(mover.slash(w.channel, "bg move", play=view.plays[-1], game=game_id))
        select = next(c for c in components(stale) if c.get("type") == 3)
        r = await w.do(mover.select(stale, [view.plays[0]], custom_id=select["custom_id"]))
        assert r.followups and r.followups[0].ephemeral and "out of date" in r.followups[0].content
        assert (await d.view()).to_act != view.to_act


@pytest.mark.asyncio
async def test_money_play_offers_beavers_and_raccoons(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=0, beavers=True)
        d = Driver(w, game_id)
        await d.until("roll", can_double=True)
        await d.click("Double")
        assert labels(live_message(thread)) == ["Take", "Pass", "Beaver"]
        await d.click("Beaver")
        assert labels(live_message(thread)) == ["Take", "Pass", "Raccoon"]
        await d.click("Take")
        view = await d.view()
        assert view.cube == 4 and view.phase in ("roll", "move")


def test_a_bot_can_be_built_without_touching_the_network(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "x.sqlite3")
    assert bot.intents == INTENTS and bot.store is None


@pytest.mark.asyncio
async def test_the_invited_player_may_decline_and_a_declined_challenge_cannot_be_accepted(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=1))
        challenge = reply(r)
        r = await w.do(bob.click(challenge, label="Decline"))
        assert not r.ephemeral
        message = w.channel.history()[-1]
        assert "bob declined challenge" in message.content and labels(message) == []
        game_id = int(re.findall(r"game #(\d+)", message.content)[0])
        assert (await w.view(game_id)).status == "declined"
        # The buttons are gone; a slash command about it names what happened.
        r = await w.do(bob.slash(w.channel, "bg board", game=game_id))
        assert r.ephemeral and said(r).startswith(f"Game #{game_id} was declined, so it has no board.")
        assert w.channel.threads == []


@pytest.mark.asyncio
async def test_a_typed_resignation_is_answered_with_buttons_in_the_thread(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="sprintgammon", length=5)
        d = Driver(w, game_id)
        await d.until("roll")
        view = await d.view()
        resigner = w.by_id(view.to_act or "")
        other = next(
            p for p in w.people.values() if str(p.id) in view.sides[1 - (view.side_of(view.to_act or "") or 0)]
        )
        r = await w.do(other.slash(thread, "bg resign", level="gammon"))
        assert r.ephemeral and "own turn" in said(r)  # not on roll: the rule is named
        r = await w.do(resigner.slash(thread, "bg resign", level="gammon"))
        assert r.ephemeral and "offers to resign a gammon" in said(r)
        offer = live_message(thread)  # posted in the thread, for the opponent to answer
        assert "offers to resign a gammon" in offer.content
        assert labels(offer) == ["Accept resignation", "Reject resignation"]
        await w.do(other.click(offer, label="Accept resignation"))
        after = await d.view()
        assert after.game == 2 and sorted(after.score) == [0, 2]


@pytest.mark.asyncio
async def test_a_failed_post_gets_an_apology_and_the_board_command_brings_back_the_buttons(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        await d.until("move")
        view = await d.view()
        mover = w.by_id(view.to_act or "")
        message = live_message(thread)
        select = next(c for c in components(message) if c.get("type") == 3)
        # Discord refuses the next post in the thread (as when a moderator removed the bot's permission).
        w.env.inject_error("POST", "/channels/*/messages", status=403, code=50013, message="Missing Permissions")
        r = await w.do(mover.select(message, [view.plays[0]], custom_id=select["custom_id"]))
        assert r.acknowledged and r.followups and r.followups[0].ephemeral
        assert "Your game is safe" in r.followups[0].content
        assert len(w.ui_errors) == 1 and w.ui_errors[0].exc_info is not None
        assert isinstance(w.ui_errors[0].exc_info[1], discord.Forbidden)
        w.ui_errors.clear()
        after = await d.view()
        assert after.to_act != view.to_act and after.phase == "roll"  # the play itself was made

        # The player now to act asks for the board and gets their buttons with it.
        roller = w.by_id(after.to_act or "")
        r = await w.do(roller.slash(thread, "bg board"))
        assert r.response is not None and r.response.ephemeral and "Roll" in labels(r.response)
        count = len(thread.history())
        await w.do(roller.click(reply(r), label="Roll"))
        assert (await d.view()).phase in ("move", "roll")
        assert len(thread.history()) == count + 1 and "<@" in thread.history()[-1].content


@pytest.mark.asyncio
async def test_commands_sync_to_the_test_server_of_the_configuration(tmp_path: Path) -> None:
    server = 4242 << 22
    bot = GammonBot(Settings(storage_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", guild_id=str(server)))
    async with sim(bot) as env:
        try:
            guild = env.create_guild("Test server", id=server)
            channel = guild.create_text_channel("bg")
            alice = guild.add_member(env.create_user("alice"))
            assert "bg play" in alice.available_commands(channel)
            other = env.create_guild("Elsewhere")
            bob = other.add_member(env.create_user("bob"))
            assert bob.available_commands(other.create_text_channel("bg")) == ()
            r = await alice.slash(channel, "bg-info variants")
            assert r.ephemeral and "Backgammon" in said(r)
        finally:
            await bot.close_storage()


@pytest.mark.asyncio
async def test_without_the_thread_permission_the_match_is_played_in_the_channel(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        w.env.inject_error("POST", "/channels/*/messages/*/threads", status=403, code=50013, message="Missing Access")
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, variant="sprintgammon", length=1))
        await w.do(bob.click(reply(r), label="Accept"))
        assert w.channel.threads == []
        first = w.channel.history()[-1]
        assert labels(first) == ["Roll"] and first.attachments
        game_id = int(re.findall(r"#(\d+)", first.content)[0])
        d = Driver(w, game_id)
        v = await d.view()
        roller = w.by_id(v.acting[0] if v.acting else "")
        await w.do(roller.click(first, label="Roll"))
        assert (await d.view()).phase != "opening"


@pytest.mark.asyncio
async def test_a_challenge_inside_a_thread_is_refused(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        _, thread = await w.start(variant="sprintgammon", length=1)
        r = await w.do(w.people["alice"].slash(thread, "bg play", opponent=w.people["carol"]))
        assert r.ephemeral and "not inside a thread" in said(r)


@pytest.mark.asyncio
async def test_configured_shards_run_as_one_sharded_bot_and_play_on_every_shard(tmp_path: Path) -> None:
    settings = Settings(storage_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", shard_count=2)
    bot = build_bot(settings)
    assert isinstance(bot, ShardedGammonBot) and isinstance(bot, discord.AutoShardedClient)
    assert type(build_bot(Settings(storage_url="sqlite:///x"))) is GammonBot
    with pytest.raises(ValueError, match="shard_count"):
        build_bot(Settings(shard_ids=(1,)))
    async with sim(bot) as env:
        try:
            assert bot.shard_count == 2
            for shard in (0, 1):
                guild = env.create_guild(f"Server {shard}", shard_id=shard)
                channel = guild.create_text_channel("bg")
                alice = guild.add_member(env.create_user(f"alice{shard}"))
                bob = guild.add_member(env.create_user(f"bob{shard}"))
                r = await alice.slash(channel, "bg play", opponent=bob, variant="sprintgammon", length=1)
                await bob.click(reply(r), label="Accept")
                assert channel.threads and labels(channel.threads[0].history()[0]) == ["Roll"]
                assert bot.get_guild(guild.id) is not None and bot.get_guild(guild.id).shard_id == shard  # type: ignore[union-attr]
        finally:
            await bot.close_storage()


@pytest.mark.asyncio
async def test_clocks_remind_in_the_thread_and_a_missed_deadline_is_played_out_there(tmp_path: Path) -> None:
    day = 86400.0
    now = FakeTime()
    async with world(tmp_path, clock=now) as w:
        choices = await w.people["alice"].autocomplete(w.channel, "bg play", "clock", "corr")
        assert [c["value"] for c in choices] == ["correspondence"]
        game_id, thread = await w.start(variant="backgammon", length=3, clock="correspondence")
        assert w.bot.scheduler is not None
        assert await w.bot.scheduler.tick() == []  # nothing due yet

        # Nobody throws the opening roll for a day: the bot throws it and calls the winner to play.
        now.advance(day + 1)
        await w.bot.scheduler.tick()
        view = await w.view(game_id)
        assert view.phase == "move"
        post = thread.history()[-1]
        assert "the bot threw it" in post.content and f"<@{view.to_act}>" in post.content and post.attachments
        assert any(c.get("type") == 3 for c in components(post))

        # Time goes by: a reminder mentions the player, without a new board.
        for _ in range(20):
            now.advance(0.25 * day)
            fired = await w.bot.scheduler.tick()
            if fired:
                break
        assert [e.kind for out in fired for e in out.events] == ["reminder"]
        reminder = thread.history()[-1]
        assert reminder.content.startswith(f"<@{view.to_act}> Reminder:") and not reminder.attachments

        # The deadline passes (and the bank): the timeout is applied and shown in the thread.
        now.advance(10 * day)
        fired = await w.bot.scheduler.tick()
        assert fired and any(e.kind == "timeout" for out in fired for e in out.events)
        after = await w.view(game_id)
        assert after.version > view.version
        assert any("ran out of time" in m.content for m in thread.history()[-2:])
        again = next(m for m in thread.history() if m.id == post.id)
        assert components(again) == []  # the old play list was retired


@pytest.mark.asyncio
async def test_the_running_bot_fires_due_timers_by_itself(tmp_path: Path) -> None:
    now = FakeTime()
    bot = GammonBot(Settings(storage_url=f"sqlite:///{tmp_path / 'g.sqlite3'}"), clock=now, run_scheduler=True)
    async with sim(bot) as env:
        try:
            guild = env.create_guild()
            channel = guild.create_text_channel("bg")
            alice = guild.add_member(env.create_user("alice"))
            bob = guild.add_member(env.create_user("bob"))
            r = await alice.slash(channel, "bg play", opponent=bob, length=1, clock="correspondence")
            await bob.click(reply(r), label="Accept")
            thread = channel.threads[0]
            count = len(thread.history())
            now.advance(86400 + 1)  # the opening roll is overdue...
            await env.advance_time(10)  # ...and the scheduler's next tick comes round
            assert len(thread.history()) == count + 1
            assert "the bot threw it" in thread.history()[-1].content
        finally:
            await bot.close()
    assert bot.store is None and not bot.timer_loop.is_running()


@pytest.mark.asyncio
async def test_an_unanswered_challenge_expires_and_loses_its_buttons(tmp_path: Path) -> None:
    now = FakeTime()
    async with world(tmp_path, clock=now) as w:
        r = await w.do(w.people["alice"].slash(w.channel, "bg play", opponent=w.people["bob"], length=1))
        challenge = reply(r)
        now.advance(8 * 86400)
        assert w.bot.scheduler is not None
        fired = await w.bot.scheduler.tick()
        assert [e.kind for out in fired for e in out.events] == ["expired"]
        assert "expired unanswered" in w.channel.history()[-1].content
        again = next(m for m in w.channel.history() if m.id == challenge.id)
        assert components(again) == []


def test_quiet_hours_wrap_around_midnight() -> None:
    from bot.discord.table import in_quiet_hours

    at = datetime(2027, 1, 15, 23, 30, tzinfo=UTC).timestamp()
    assert in_quiet_hours("22-7", at) and not in_quiet_hours("8-22", at) and not in_quiet_hours("", at)
    morning = datetime(2027, 1, 15, 7, 0, tzinfo=UTC).timestamp()
    assert not in_quiet_hours("22-7", morning) and in_quiet_hours("6-8", morning)


@pytest.mark.asyncio
async def test_players_who_ask_get_their_turn_pings_by_direct_message_outside_quiet_hours(tmp_path: Path) -> None:
    now = FakeTime()
    hour = datetime.fromtimestamp(now(), UTC).hour
    async with world(tmp_path, clock=now) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        await w.do(alice.slash(w.channel, "bg-me settings", dm_reminders=True))
        await w.do(bob.slash(w.channel, "bg-me settings", dm_reminders=True, quiet_hours=f"{hour}-{(hour + 2) % 24}"))
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        for _ in range(6):
            await d.step()
        alice_dms = alice.user.dm_channel.history()
        assert alice_dms and all(f"game #{game_id}" in m.content for m in alice_dms)
        assert any("Your turn" in m.content and "/channels/" in m.content for m in alice_dms)
        assert bob.user.dm_channel.history() == []  # bob is in his quiet hours
        assert w.people["carol"].user.dm_channel.history() == []


@pytest.mark.asyncio
async def test_the_thread_tells_every_roll_and_play_even_when_messages_are_edited_in_place(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        for _ in range(9):
            await d.step()
        lines = [line for m in thread.history() for line in m.content.split("\n")]
        rolls = [line for line in lines if " rolled " in line or line.startswith("Opening roll")]
        plays = [line for line in lines if " played " in line]
        view = await d.view()
        assert len(rolls) >= 4
        assert len(plays) == len(rolls) - (1 if view.phase == "move" else 0), lines
        assert len(thread.history()) < len(rolls) + len(plays)  # fewer messages than events: edits in place


# --- the buttons come from the engine -------------------------------------------------------------------------


def drawn(view: GameView, allowed: Allowed) -> list[str]:
    ui, _prompt = turn_controls(view, allowed)
    return [
        str(getattr(item, "label", "") or getattr(getattr(item, "item", None), "label", "")) for item in ui.children
    ]


def test_the_buttons_of_a_turn_are_exactly_what_the_engine_allows() -> None:
    state = new_match(get_variant("backgammon"), (("1",), ("2",)), MatchOptions(length=0, beavers=True))
    # Between games of a money session either player may also end it.
    assert drawn(game_view(phase="opening", to_act=None), allowed_actions(state)) == ["Roll", "End session"]
    state = apply(state, OpeningRoll("1", (3, 1)))
    state = apply(state, Move("1", state.legal_plays()[0].moves))
    allowed = allowed_actions(state)
    assert drawn(game_view(phase="roll", to_act="2"), allowed) == ["Roll", "Double", "Resign…"]
    # What the engine does not allow is not drawn (the layer holds no rule of its own).
    assert drawn(game_view(phase="roll", to_act="2"), dataclasses.replace(allowed, double=False)) == [
        "Roll",
        "Resign…",
    ]
    assert drawn(game_view(phase="roll", to_act="2"), dataclasses.replace(allowed, resign_levels=())) == [
        "Roll",
        "Double",
    ]
    state = apply(state, Double("2"))
    doubled = game_view(phase="doubled", to_act="1")
    assert drawn(doubled, allowed_actions(state)) == ["Take", "Pass", "Beaver"]
    assert "the cube is offered at 2" in turn_controls(doubled, allowed_actions(state))[1]
    state = apply(state, Beaver("1"))
    assert drawn(game_view(phase="doubled", to_act="2", cube=2), allowed_actions(state)) == ["Take", "Pass", "Raccoon"]
    assert drawn(game_view(status="finished", phase=None), NOTHING) == []


# --- mentions -------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_nickname_that_looks_like_a_mention_never_pings_anyone(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        victim, bob = w.people["eve"], w.people["bob"]
        role = w.guild.create_role("Everyone who plays", mentionable=True)
        nick = f"<@{victim.id}> @everyone <@&{role.id}> @here"
        mallory = w.people["mallory"] = w.guild.add_member(w.env.create_user("mallory"), nick=nick)
        await w.do(bob.slash(w.channel, "bg-me settings", dm_reminders=True))
        r = await w.do(mallory.slash(w.channel, "bg play", opponent=bob, variant="backgammon", length=3))
        gid = int(re.findall(r"game #(\d+)", said(r))[0])
        challenge = w.env.backend.messages[w.channel.id][reply(r).id]
        assert challenge.ping_user_ids == [bob.id]  # the challenged player, pinged as it was posted
        await w.do(bob.click(reply(r), label="Accept"))
        await w.do(w.people["carol"].slash(w.channel, "bg watch", game=gid))
        d = Driver(w, gid)
        for _ in range(6):
            await d.step()
        await w.do(mallory.slash(w.channel, "bg-me vacation", days=1))
        view = await d.view()

        stored = [m for channel in w.env.backend.messages.values() for m in channel.values()]
        assert any("\u200beveryone" in m.content for m in stored)  # the nickname is shown, as text
        for m in stored:
            assert victim.id not in m.ping_user_ids and not m.ping_role_ids and not m.mention_everyone, m.content
            assert f"<@{victim.id}>" not in m.content and f"<@&{role.id}>" not in m.content, m.content
        # Those called to act, and the spectator, are still pinged.
        live = live_message(game_thread(w, view))
        latest = w.env.backend.messages[live.channel.id][live.id]
        assert int(view.to_act or 0) in latest.ping_user_ids and w.people["carol"].id in latest.ping_user_ids
