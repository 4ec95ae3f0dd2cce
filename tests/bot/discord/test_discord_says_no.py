"""Where Discord says no, the game goes on and someone is told (``bot/discord/delivery.py``).

Each test takes something away from the bot the way a server (or Discord) would: a permission in the channel, the
match's thread (archived, locked, deleted), room among the channel's pins, the interaction's 15 minutes, the bot's
place in the server, Discord's patience with a burst of new threads. simcord checks permissions itself; the payload
guard (``tests/discord_guard.py``) adds what simcord does not model: Attach Files, the 50-pin limit, archived and
locked threads, and rate limits.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from simcord.backend.models.channel import Overwrite
from simcord.backend.serializers import guild_create_payload
from simcord.enums import OverwriteType

from bot.discord.delivery import NOTICE_EVERY
from tests.bot.discord.helpers import Driver, World, game_thread, labels, live_message, reply, said, world
from tests.bot.discord.test_tournaments import cast_of, forfeit, join_and_start, open_signups, settle, standing
from tests.discord_guard import Guard

pytestmark = pytest.mark.asyncio


def deny(w: World, channel: simcord.ChannelHandle, **permissions: bool) -> None:
    """Take permissions away from the bot in a channel (as an admin editing the channel's permissions would)."""
    denied = discord.Permissions(**permissions).value
    me = w.env.backend.bot_user.id
    w.env.backend.edit_channel(channel.id, {}, overwrites=[Overwrite(me, OverwriteType.MEMBER, 0, denied)])


def notices(w: World, words: str) -> list[str]:
    return [m.content for m in w.channel.history() if words in m.content and m.author.id == w.bot.user.id]


async def challenge(w: World, **options: Any) -> tuple[int, simcord.ResponseMessage]:
    alice, bob = w.people["alice"], w.people["bob"]
    r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=1, **options))
    game_id = int(re.findall(r"game #(\d+)", said(r))[0])
    await w.do(bob.click(reply(r), label="Accept"))
    return game_id, reply(r)


# --- permissions ----------------------------------------------------------------------------------------------------


async def test_without_create_public_threads_the_match_is_played_in_the_channel_and_the_admins_are_told(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path) as w:
        deny(w, w.channel, create_public_threads=True)
        with caplog.at_level(logging.WARNING, logger="gammonbot"):
            game_id, _ = await challenge(w)
        view = await w.view(game_id)
        assert view.thread_id is None and w.channel.threads == []
        prompt = live_message(w.channel)  # the first turn, in the channel
        assert f"#{game_id}" in prompt.content and "Roll" in labels(prompt)
        (told,) = notices(w, "Create Public Threads")
        assert "**Create Public Threads**" in told and "#backgammon" not in told  # a channel mention, not a name
        assert "Meanwhile matches are played in the channel." in told and "Server Settings → Roles" in told
        logged = [r.getMessage() for r in caplog.records]
        assert any(str(w.guild.id) in line and "Create Public Threads" in line for line in logged), logged
        assert caplog.records[0].levelno == logging.WARNING

        # The match goes on there: a roll, and a play.
        d = Driver(w, game_id)
        await d.until("move")
        assert (await d.view()).phase == "move"

        # A second match: the admins are not told again (once in a while).
        await challenge(w)
        assert len(notices(w, "Create Public Threads")) == 1
        threads: Any = w.bot.threads  # after the quiet spell, they are told again
        threads.notices.clock = lambda: NOTICE_EVERY * 3
        await challenge(w)
        assert len(notices(w, "Create Public Threads")) == 2


async def test_without_send_messages_in_threads_the_match_moves_to_the_channel(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        deny(w, w.channel, send_messages_in_threads=True)
        game_id, _ = await challenge(w)
        view = await w.view(game_id)
        assert view.thread_id is None  # opened, but closed to the bot: the game left it
        assert "Roll" in labels(live_message(w.channel))
        (told,) = notices(w, "Send Messages in Threads")
        assert "Meanwhile matches are played in the channel." in told
        await Driver(w, game_id).until("move")


async def test_without_attach_files_boards_are_shown_in_words(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        deny(w, w.channel, attach_files=True)  # threads take their parent's permissions
        game_id, thread = await w.start(length=1)
        d = Driver(w, game_id)
        prompt = live_message(thread)  # the first turn, posted as the bot's own message
        assert not prompt.attachments
        board = prompt.content.split("```")[1]  # the board drawn in text stands in for the picture
        assert " 13 " in board and "pips" in board and "alice" in board
        (told,) = notices(w, "Attach Files")
        assert "Meanwhile games are shown in words, without their pictures." in told
        await d.until("roll")  # and the game goes on


async def test_without_create_private_threads_a_team_talks_by_direct_message_and_the_admins_are_told(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        deny(w, w.channel, create_private_threads=True)
        people = w.people
        await w.start(variant="doubles", length=1, teammate=people["carol"], partner=people["dave"])
        (told,) = notices(w, "Create Private Threads")
        assert "Meanwhile teams talk by direct message, where the server allows it." in told
        assert not [t for t in w.channel.threads if "team" in (t.name or "")]


# --- the match's thread -----------------------------------------------------------------------------------------------


async def test_an_archived_thread_is_reopened_by_the_next_turn(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(length=1)
        w.env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True})  # a week without a move
        d = Driver(w, game_id)
        await d.until("move")
        await d.play()  # the next player's turn: a new message in the thread
        assert not w.env.backend.channels[thread.id].thread_metadata.archived
        assert (await w.view(game_id)).thread_id == str(thread.id)
        assert "<@" in live_message(thread).content


async def test_a_locked_thread_and_a_deleted_one_are_replaced_by_a_new_thread(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(length=1)
        d = Driver(w, game_id)
        await d.roll()
        # A moderator locks and archives the thread: the bot, which may not manage threads, cannot post there.
        deny(w, w.channel, manage_threads=True)
        w.env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True, "locked": True})
        await d.play()  # the next turn is a new message
        moved = await w.view(game_id)
        assert moved.thread_id not in (None, str(thread.id))
        new = game_thread(w, moved)
        assert new.name == thread.name
        assert f"The thread of game #{game_id} was closed, so the match goes on here." in new.history()[0].content
        assert "<@" in live_message(new).content

        # Then that thread is deleted, buttons and all: the player to act asks for their board in the channel, rolls
        # there, and the game goes on in another new thread.
        w.env.backend.delete_channel(new.id)
        roller = w.by_id(moved.to_act or "")
        r = await w.do(roller.slash(w.channel, "bg board", game=game_id))
        await w.do(roller.click(reply(r), label="Roll"))
        again = await w.view(game_id)
        assert again.phase == "move" and again.thread_id not in (None, str(thread.id), str(new.id))
        assert f"<@{roller.id}>" in live_message(game_thread(w, again)).content


# --- pins -----------------------------------------------------------------------------------------------------------


async def test_a_channel_at_fifty_pins_makes_room_or_tells_the_admins(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        director, players = cast_of(w, 4)
        # The first tournament runs to its end: its standings are pinned.
        first, signup = await open_signups(w, director, name="Autumn", format="knockout")
        await join_and_start(w, director, players[:2], first, signup)
        (game,) = [x.game for x in (await standing(w, director, first)).tournament.matches if x.game]
        await forfeit(w, int(game))
        await settle(w)
        assert len(w.channel.pinned_messages()) == 1
        # The channel fills up to Discord's 50 pins.
        for n in range(49):
            message = await w.people["alice"].send(w.channel, f"note {n}")
            w.env.backend.set_pinned(w.channel.id, message.id, True)
        assert len(w.channel.pinned_messages()) == 50

        # A new tournament: the finished one's standings are unpinned to make room for its own.
        second, signup = await open_signups(w, director, name="Winter", format="knockout")
        await join_and_start(w, director, players[2:], second, signup)
        await settle(w)
        pinned = w.channel.pinned_messages()
        assert len(pinned) == 50 and any("Winter" in m.content for m in pinned)
        assert not any("Autumn" in m.content for m in pinned)
        assert (await standing(w, director, first)).pinned_message_id is None

        # A third, with no finished tournament's pin left to take: not pinned, kept up to date, the admins told.
        third, signup = await open_signups(w, director, name="Spring", format="knockout")
        await join_and_start(w, director, players[:2], third, signup)
        await settle(w)
        assert not any("Spring" in m.content for m in w.channel.pinned_messages())
        assert (await standing(w, director, third)).pinned_message_id is not None  # posted, and edited from now on
        (told,) = notices(w, "has 50 pinned messages")
        assert "Unpin a few old messages" in told


# --- the interaction's 15 minutes -------------------------------------------------------------------------------------
async def deferred(w: World, known: int) -> None:
    """Wait until the interaction after the first ``known`` ones has been answered (deferred): its work is under way."""
    while True:
        records = list(w.env.backend.interactions.values())
        if len(records) > known and records[-1].responded:
            return
        await asyncio.sleep(0.01)


async def test_an_answer_ready_after_the_interactions_fifteen_minutes_is_posted_in_the_channel(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(length=1)
        service: Any = w.bot.service
        original = service.export
        release = asyncio.Event()

        async def slow_export(*args: Any, **kwargs: Any) -> Any:
            await release.wait()  # a long record, a loaded machine: longer than Discord keeps the interaction
            return await original(*args, **kwargs)

        service.export = slow_export
        alice = w.people["alice"]
        known = len(w.env.backend.interactions)
        pending = asyncio.ensure_future(w.do(alice.slash(thread, "bg export")))
        await deferred(w, known)
        w.env.backend.advance_clock(16 * 60)  # Discord's clock: the interaction's token expires
        release.set()
        r = await pending
        assert r.acknowledged and not r.followups  # Discord no longer took it through the interaction...
        late = thread.history()[-1]  # ...so it is in the thread the command was used in, for the asker
        assert late.content.startswith(f"<@{alice.id}>, the answer to `/bg export` took longer than Discord waits")
        assert [a.filename for a in late.attachments] == [f"game{game_id}.mat"]


async def test_a_private_answer_ready_too_late_goes_by_direct_message(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(length=1, variant="backgammon")
        d = Driver(w, game_id)
        await d.until("move")
        service: Any = w.bot.service
        original = service.hint
        release = asyncio.Event()

        async def slow_hint(*args: Any, **kwargs: Any) -> Any:
            await release.wait()
            return await original(*args, **kwargs)

        service.hint = slow_hint
        mover = w.by_id((await d.view()).to_act or "")
        before = len(thread.history())
        known = len(w.env.backend.interactions)
        pending = asyncio.ensure_future(w.do(mover.slash(thread, "bg hint")))
        await deferred(w, known)
        w.env.backend.advance_clock(16 * 60)  # Discord's clock: the interaction's token expires
        release.set()
        await pending
        assert len(thread.history()) == before  # nothing private in the thread
        dm = mover.user.dm_channel.history()[-1]
        assert "took longer than Discord waits" in dm.content and "/bg hint" in dm.content


# --- the bot removed, and added back ----------------------------------------------------------------------------------


async def test_a_bot_removed_from_a_server_and_added_back_keeps_its_games_and_play_resumes(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(length=3)
        d = Driver(w, game_id)
        await d.until("move")
        backend = w.env.backend
        backend.emit("GUILD_DELETE", {"id": str(w.guild.id)})  # kicked
        await w.env.settle()
        assert w.bot.get_guild(w.guild.id) is None
        assert (await w.view(game_id)).status == "active"  # nothing was thrown away
        joined = dict(guild_create_payload(backend, backend.get_guild(w.guild.id)))
        joined.pop("unavailable", None)  # a server the bot joins (an outage's return would say unavailable: false)
        backend.emit("GUILD_CREATE", joined)  # added back
        await w.env.settle()
        assert w.bot.get_guild(w.guild.id) is not None
        reconciler: Any = w.bot.reconciler
        while reconciler._running:
            await asyncio.gather(*reconciler._running.values())
        assert reconciler.counts["adopted"] >= 1
        await d.play()  # the old buttons work again
        await d.until("move")
        assert (await w.view(game_id)).version > 0


# --- a burst of new threads -------------------------------------------------------------------------------------------


async def test_a_round_opening_many_threads_at_once_waits_for_discord_and_loses_or_doubles_nothing(
    tmp_path: Path, discord_guard: Guard
) -> None:
    async with world(tmp_path) as w:
        director, players = cast_of(w, 16)
        threads: Any = w.bot.threads
        backend = w.env.backend

        async def wait(seconds: float) -> None:  # Discord's clock moves on instead of the test's
            backend.advance_clock(seconds)

        threads.sleep = wait
        tid, signup = await open_signups(w, director, name="Burst", format="knockout")
        with discord_guard.rate_limit("POST", "/channels/*/threads", count=3, seconds=5.0):
            await join_and_start(w, director, players, tid, signup)
        assert discord_guard.throttled > 0
        matches = [x for x in (await standing(w, director, tid)).tournament.matches if x.game]
        assert len(matches) == 8
        names = [t.name for t in w.channel.threads]
        assert len(names) == len(set(names)) == 8  # one thread per match, none twice
        for x in matches:
            view = await w.view(int(x.game or 0))
            thread = game_thread(w, view)
            prompts = [m for m in thread.history() if m.components]
            assert len(prompts) == 1, (x.id, [m.content for m in thread.history()])  # its first turn, once
