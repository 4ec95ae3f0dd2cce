"""Two servers and a direct message: nothing reaches another server's games, players or settings.

Matches are played in server A. Then, from server B (by a member of both servers, by a member of B only, and by B's
admin) and from direct messages (by users who play in none of A's games), every command that takes a game number
or a player is tried on A's games and players. Each answer says "There is no game #N" or shows only B's (or the
asker's own) data, and afterwards A's games, settings, names and records are exactly as they were. Then: B's admin
forgetting a player leaves A's matches as they are, while ``/bg-me forget`` erases the player everywhere; and a
button of A's game pressed by someone not playing in it is refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.discord.cogs.stats import FORMER_PLAYER
from bot.service import SYSTEM, Request
from tests.bot.discord.helpers import Driver, World, answer, live_message, reply, said, show_command, world

pytestmark = pytest.mark.asyncio


async def finished_match(w: World, winner: str, loser: str) -> int:
    """A 1-point Sprintgammon match in server A, which ``loser`` resigns (a backgammon) on their first roll."""
    gid, thread = await w.start(opponent=loser, challenger=winner, variant="sprintgammon", length=1)
    d = Driver(w, gid)
    for _ in range(60):
        v = await d.view()
        if v.status == "finished":
            return gid
        if v.phase == "roll" and v.to_act == str(w.people[loser].id):
            r = await w.do(w.people[loser].slash(thread, "bg resign", level="backgammon"))
            assert r.acknowledged, said(r)
        else:
            await d.step()
    raise AssertionError(f"match #{gid} did not end")


async def snapshot(w: World, games: list[int]) -> dict[str, Any]:
    """Everything of server A a probe must not change: its games, records, settings, history and ratings."""
    service = w.bot.service
    alice = w.people["alice"]
    here = Request(str(alice.id), "alice", str(w.guild.id), "discord")
    return {
        "views": [await service.view(g, SYSTEM) for g in games],
        "records": [await service.record(g, SYSTEM) for g in games],
        "settings": await service.server_settings(str(w.guild.id)),
        "history": await service.history(here),
        "profile": await service.profile(here, str(w.people["bob"].id)),
        "watchers": [await service.watchers(g) for g in games],
    }


def told(r: simcord.InteractionResult) -> str:
    """What the asker was told (ephemeral), whether the interaction was answered or deferred first."""
    message = r.followups[0] if r.followups else answer(r)
    assert message.ephemeral, message.content
    return message.content


async def test_a_game_and_the_players_of_one_server_are_out_of_reach_from_another_and_from_dms(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol, dave, eve = (w.people[n] for n in ("alice", "bob", "carol", "dave", "eve"))
        # Server A (the world's): a finished match, and a Doubles match in progress.
        done = await finished_match(w, "alice", "bob")
        running, thread = await w.start(
            opponent="bob", challenger="alice", variant="doubles", length=3, teammate=carol, partner=dave
        )
        d = Driver(w, running)
        await d.until("move")
        games = [done, running]

        # Server B: alice is a member of both; zed only of B; bea is B's admin.
        other = w.env.create_guild("Other Club")
        lobby = other.create_text_channel("backgammon")
        alice_b = other.add_member(alice.user)
        zed = other.add_member(w.env.create_user("zed"))
        admins = other.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        bea = other.add_member(w.env.create_user("bea"), roles=[admins])
        before = await snapshot(w, games)
        a_thread_messages = len(thread.history())

        # Every command taking a game number, from B (both kinds of member) and from direct messages.
        askers: list[tuple[str, Any, Any]] = [
            ("alice in B", alice_b, lobby),
            ("zed in B", zed, lobby),
            ("bea in B", bea, lobby),
        ]
        for gid in games:
            probes: list[tuple[str, dict[str, Any]]] = [
                ("bg board", {}),
                ("bg move", {"play": "13/7 8/7"}),
                ("bg resign", {}),
                ("bg hint", {}),
                ("bg watch", {}),
                ("bg export", {}),
                ("bg ids", {}),
                ("bg-team propose", {"text": "roll"}),
                ("bg-team proposals", {}),
                ("bg-team adopt", {"proposal": 1}),
                ("bg-team approve", {}),
                ("bg-dice verify", {}),
            ]
            for command, options in probes:
                for who, actor, channel in askers:
                    r = await w.do(actor.slash(channel, command, game=gid, **options))
                    assert told(r) == f"There is no game #{gid}", (who, command, told(r))
                for user in (zed.user, eve.user):  # direct messages: neither plays in A's games
                    r = await w.do(user.slash(command, game=gid, **options))
                    text = told(r)
                    if command == "bg watch":
                        assert text == "Use `/bg watch` in a server: it is about that server's players and matches."
                    else:
                        assert text == f"There is no game #{gid}", (user.name, command, text)
                # Suggestions never offer A's games either.
                if command in ("bg board", "bg ids", "bg-dice verify", "bg-team propose"):
                    assert await alice_b.autocomplete(lobby, command, "game", "") == []
                    assert await zed.user.autocomplete(command, "game", "") == []

        # Without a game number, alice's commands in B find no game of hers there.
        r = await w.do(alice_b.slash(lobby, "bg board"))
        assert told(r) == "You have no game running. Start one with `/bg play`, or give the game number."
        r = await w.do(alice_b.slash(lobby, "bg games"))
        assert told(r) == "You have no games. Start one with `/bg play`."

        # Players: only B's data (none), never A's ratings, records or matches.
        for who, actor in (("alice in B", alice_b), ("zed in B", zed)):
            r = await w.do(actor.slash(lobby, "bg-dice stats", player=alice.user))
            assert told(r).startswith("alice has no rolls in this server's matches yet"), (who, told(r))
            r = await w.do(actor.slash(lobby, "bg-stats profile", player=bob.user))
            (embed,) = reply(r).embeds
            assert embed.description == "No finished matches yet. `/bg play` starts one." and not embed.fields
            r = await w.do(actor.slash(lobby, "bg-stats history", player=bob.user))
            assert told(r) == "bob has no finished matches yet."
            r = await w.do(actor.slash(lobby, "bg-stats history"))
            assert told(r) == "This server has no finished matches yet."
            r = await w.do(actor.slash(lobby, "bg-stats leaderboard"))
            assert told(r).startswith("No Backgammon players here")
        r = await w.do(zed.user.slash("bg-dice stats", player=alice.user))
        assert told(r).startswith("In direct messages you see your own dice only")
        r = await w.do(zed.user.slash("bg-stats profile", player=bob.user))
        assert told(r) == "In a direct message you can see only your own profile"
        r = await w.do(zed.user.slash("bg-stats history", player=bob.user))
        assert told(r) == "Use `/bg-stats history` in a server: it is about that server's players and matches."
        # /bg-admin is for servers only: Discord does not offer it in direct messages at all.
        assert not [c for c in zed.user.available_commands() if c.startswith("bg-admin")]
        assert "bg-stats history" in zed.user.available_commands()

        # Settings and vacations in B are B's: A's settings and clocks do not move. (B shows /bg-admin to alice and
        # zed, who lack Manage Server: the service refuses them all the same.)
        show_command(w, "bg-admin", alice_b, zed)
        r = await w.do(alice_b.slash(lobby, "bg-admin config", default_length=9))
        assert told(r) == "Only members with the Manage Server permission can see or change the server's settings."
        r = await w.do(bea.slash(lobby, "bg-admin config", default_length=9, default_variant="sprint"))
        assert "default_length = 9" in told(r)
        r = await w.do(alice_b.slash(lobby, "bg-me vacation", days=2))
        assert "Enjoy your break" in told(r) and "<#" not in told(r)  # no running game of hers in B to tell
        r = await w.do(zed.user.slash("bg-me vacation", days=2))
        assert told(r) == "Use `/bg-me vacation` in a server: it is about that server's players and matches."

        # B's admin forgets bob (who played only in A): in B only. A's matches keep his name.
        r = await w.do(bea.slash(lobby, "bg-admin forget", player=bob.user))
        assert f"<@{bob.id}>" in told(r) and FORMER_PLAYER in told(r)
        r = await w.do(zed.slash(lobby, "bg-admin forget", player=alice.user))
        assert told(r) == "Only members with the Manage Server permission can remove a player's data."

        after = await snapshot(w, games)
        assert after == before
        assert len(thread.history()) == a_thread_messages  # nothing was posted in A's match thread
        for gid in games:
            assert (await w.view(gid)).names[str(bob.id)] == "bob"

        # A button of A's game, pressed in A by a member who does not play in it: refused, nothing changes.
        r = await w.do(eve.click(live_message(thread), label="Resign…"))
        assert told(r).startswith(f"You are not playing in game #{running}")
        assert await w.view(running) == before["views"][1]

        # alice erases her own data (from B, confirming with the button): her name is gone from A's matches too.
        r = await w.do(alice_b.slash(lobby, "bg-me forget"))
        assert "cannot be undone" in told(r)
        r = await w.do(alice_b.click(reply(r), label="Erase my data everywhere"))
        assert "your personal data is gone from every server" in told(r)
        for gid in games:
            view = await w.view(gid)
            assert view.names[str(alice.id)] == FORMER_PLAYER and view.names[str(bob.id)] == "bob"
        here = Request(str(eve.id), "eve", str(w.guild.id), "discord")
        (line,) = [x for x in await w.bot.service.history(here) if x["game_id"] == done]
        assert FORMER_PLAYER in line["sides"] and "alice" not in str(line)


async def test_me_forget_asks_for_confirmation_unless_confirm_is_given(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        gid, _thread = await w.start(variant="sprintgammon", length=1)
        r = await w.do(alice.slash(w.channel, "bg-me forget"))
        assert "cannot be undone" in told(r)
        assert (await w.view(gid)).names[str(alice.id)] == "alice"  # nothing yet
        r = await w.do(alice.slash(w.channel, "bg-me forget", confirm=True))
        assert "your personal data is gone from every server" in told(r)
        assert (await w.view(gid)).names[str(alice.id)] == FORMER_PLAYER
        assert (await w.view(gid)).names[str(bob.id)] == "bob"
        assert re.search(r"\(\d+ records changed\)", told(r))
