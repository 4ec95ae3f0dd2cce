"""After a restart the bot reconciles every live game's latest message (simcord, a real SQLite file).

Each test plays into a state through Discord, then changes the game behind the bot's back (the service call was
committed, and the process stopped before its message was posted: a crash), then starts a new bot on the same
database. The newest message of each game must then carry the right buttons for the game as it stands (edited in
place when the same players are called, posted afresh, pinging them, when others are), and a match that ended
meanwhile must keep no enabled button anywhere.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.config import Settings
from bot.discord.app import GammonBot, ShardedGammonBot
from bot.discord.components import (
    ActingSelect,
    ActionButton,
    PlaySelect,
    ResignButton,
    SubmoveButton,
    SubmoveSelect,
    board_pointer,
    game_of_custom_id,
)
from bot.discord.reconcile import Reconciler
from bot.service import SYSTEM, GameView, Request, SeededDice
from tests.bot.discord.helpers import (
    NAMES,
    Driver,
    World,
    components,
    labels,
    live_message,
    sim,
    world,
)


def as_player(w: World, player_id: str) -> Request:
    """A request of a player of ``w``'s server, made straight to the service (as if through a bot that then died)."""
    return Request(player_id, w.by_id(player_id).name, str(w.guild.id))


def live_buttons(thread: simcord.ChannelHandle) -> list[tuple[int, str]]:
    """(message id, custom id) of every enabled component in the thread."""
    return [
        (m.id, c.get("custom_id", ""))
        for m in thread.history()
        for c in components(m)
        if c.get("custom_id") and not c.get("disabled")
    ]


def assert_current(message: discord.Message, view: GameView) -> None:
    """The message's components act on this game at its current version (those carrying a version)."""
    ids = [c.get("custom_id", "") for c in components(message)]
    assert ids, "the prompt has no components"
    for cid in ids:
        found = re.fullmatch(r"bg:(?:play|sub|subs):(\d+):(\d+)(?::.*)?", cid)
        if found:
            assert (int(found[1]), int(found[2])) == (view.id, view.version), cid


def test_the_game_of_every_turn_component_is_read_from_its_custom_id() -> None:
    items = [
        ActionButton("roll", 12),
        ActionButton("resign-accept", 12),
        ResignButton(12, 2),
        SubmoveButton(12, 40, 25, 22),
        PlaySelect(12, 40, ("13/7 8/7",)),
        SubmoveSelect(12, 40, ((6, 1),)),
    ]
    assert [game_of_custom_id(item.item.custom_id or "") for item in items] == [12] * len(items)
    # A team room's question is no turn message's; neither is a page of /bg games.
    assert game_of_custom_id(ActingSelect(12, 0, 1).item.custom_id or "") is None
    assert game_of_custom_id("bg:games:page:2") is None


def test_only_a_refusal_about_dice_already_rolled_points_to_the_board() -> None:
    assert board_pointer("it is not your turn") == "it is not your turn"
    pointed = board_pointer("you have already rolled: play your move (or resign)")
    assert pointed.startswith("you have already rolled: play your move (or resign). ") and "`/bg board`" in pointed


@pytest.mark.asyncio
async def test_a_roll_the_bot_never_showed_is_shown_by_editing_the_prompt_after_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        await d.until("roll")
        prompt = live_message(thread)
        before = await d.view()
        roller = before.to_act or ""
        # The roll is committed; the bot dies before it can show it: the thread still offers Roll.
        await w.bot.service.roll_once(game_id, as_player(w, roller))
        r = await w.do(w.by_id(roller).click(prompt, label="Roll"))
        assert r.followups and r.followups[0].ephemeral
        refusal = r.followups[0].content
        assert "already rolled" in refusal and "`/bg board`" in refusal and "newest board" in refusal
        count = len(thread.history())

        await w.restart()

        view = await d.view()
        assert view.phase == "move" and view.to_act == roller
        message = live_message(thread)
        assert message.id == prompt.id and len(thread.history()) == count  # edited in place, nothing new
        assert "Roll" not in labels(message) and f"<@{roller}>" in message.content
        assert_current(message, view)
        stored = await w.bot.service.store.prompt_of(game_id)
        assert stored is not None and (stored.message_id, stored.game_version) == (str(prompt.id), view.version)
        # The edited prompt plays; the next turn's message takes its buttons off.
        await d.play()
        assert live_message(thread).id != prompt.id
        assert all(m != prompt.id for m, _ in live_buttons(thread))


@pytest.mark.asyncio
async def test_a_turn_that_passed_to_the_opponent_gets_a_fresh_prompt_that_pings_them(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=3)
        d = Driver(w, game_id)
        await d.until("move")
        prompt = live_message(thread)
        mover = (await d.view()).to_act or ""
        await w.bot.service.move(game_id, as_player(w, mover), (await d.view()).plays[0])

        await w.restart()

        view = await d.view()
        assert view.phase == "roll" and view.to_act not in (None, mover)
        fresh = live_message(thread)
        assert fresh.id != prompt.id and thread.history()[-1].id == fresh.id
        assert f"<@{view.to_act}>" in fresh.content and [u.id for u in fresh.mentions] == [int(view.to_act or 0)]
        assert labels(fresh)[0] == "Roll"
        assert {m for m, _ in live_buttons(thread)} == {fresh.id}  # the old prompt lost its buttons
        await d.roll()  # and the fresh one works
        assert (await d.view()).phase == "move"


@pytest.mark.asyncio
async def test_a_match_that_ended_while_its_prompt_had_buttons_keeps_no_enabled_button(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, game_id)
        await d.until("roll")
        assert live_buttons(thread)
        view = await d.view()
        loser = view.to_act or ""
        winner = next(p for side in view.sides for p in side if p != loser)
        await w.bot.service.resign(game_id, as_player(w, loser), 1)
        if (await d.view()).status == "active":  # not accepted by itself: the winner accepts
            await w.bot.service.answer_resignation(game_id, as_player(w, winner), True)
        assert (await d.view()).status == "finished"
        assert live_buttons(thread)  # the bot died before it could take them off

        await w.restart()

        assert live_buttons(thread) == []
        assert await w.bot.service.store.prompt_of(game_id) is None
        assert w.bot.reconciler is not None and w.bot.reconciler.counts["retired"] == 1
        # Another restart finds nothing left to do.
        await w.restart()
        assert w.bot.reconciler is not None and not w.bot.reconciler.counts


@pytest.mark.asyncio
async def test_a_clean_restart_touches_no_message_and_a_game_without_a_stored_prompt_is_found(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        current, current_thread = await w.start(variant="backgammon", length=1)
        older, older_thread = await w.start("dave", "carol", variant="backgammon", length=1)
        await Driver(w, current).until("roll")
        d = Driver(w, older)
        await d.until("roll")
        untouched = live_message(current_thread)
        prompt = live_message(older_thread)
        # A game of an older version of the bot (no prompt stored), rolled just before the bot stopped.
        await w.bot.service.store.drop_prompt(older)
        await w.bot.service.roll_once(older, as_player(w, (await d.view()).to_act or ""))
        start = len(w.env.http_requests)

        await w.restart()

        writes = [
            (e.method, e.path)
            for e in w.env.http_requests[start:]
            if e.method in ("POST", "PATCH", "DELETE") and e.path.startswith("/channels/")
        ]
        assert writes == [("PATCH", f"/channels/{older_thread.id}/messages/{prompt.id}")]
        assert live_message(current_thread).id == untouched.id
        view = await d.view()
        message = live_message(older_thread)
        assert message.id == prompt.id and view.phase == "move"
        assert_current(message, view)
        stored = await w.bot.service.store.prompt_of(older)
        assert stored is not None and stored.game_version == view.version
        assert w.bot.reconciler is not None and w.bot.reconciler.counts == {"adopted": 1, "edited": 1}


@pytest.mark.asyncio
async def test_a_turn_played_before_the_bot_got_to_its_game_still_takes_the_old_buttons_off(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="backgammon", length=3)
        d = Driver(w, game_id)
        await d.until("move")
        prompt = live_message(thread)
        await w.restart()
        w.bot.table.turn_messages.clear()  # as if the reconciliation had not reached this game yet
        view = await d.view()
        mover = w.by_id(view.to_act or "")
        await w.do(mover.slash(w.channel, "bg move", play=view.plays[0], game=game_id))  # typed, not pressed
        assert (await d.view()).to_act != view.to_act
        assert {m for m, _ in live_buttons(thread)} == {live_message(thread).id} != {prompt.id}


@pytest.mark.asyncio
async def test_many_stale_games_are_done_in_batches_with_a_pause_between(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        games = []
        for challenger, opponent in [("alice", "bob"), ("carol", "dave"), ("eve", "alice"), ("bob", "carol")]:
            game_id, thread = await w.start(opponent, challenger, variant="backgammon", length=1)
            await Driver(w, game_id).until("roll")
            games.append((game_id, thread))
        await w.restart()
        for game_id, _thread in games:  # every game rolls behind the bot's back, and the bot forgets its messages
            await w.bot.service.roll_once(game_id, as_player(w, (await w.view(game_id)).to_act or ""))
        w.bot.table.turn_messages.clear()
        waits: list[float] = []

        async def pause(seconds: float) -> None:
            waits.append(seconds)

        again = Reconciler(w.bot, w.bot.service, w.bot.table, w.bot.threads, sleep=pause, batch=3, pause=7.0)
        done = await again.run([str(w.guild.id)])
        await w.env.settle()
        assert done == {"edited": 4} and waits == [7.0]
        for game_id, thread in games:
            assert_current(live_message(thread), await w.view(game_id))


async def _server(env: simcord.Env, bot: GammonBot, db: Path, shard: int) -> World:
    guild = env.create_guild(f"Club {shard}", shard_id=shard)
    channel = guild.create_text_channel("backgammon")
    people = {name: guild.add_member(env.create_user(f"{name}{shard}")) for name in NAMES}
    return World(env, bot, db, guild, channel, people, dice=SeededDice(1))


def _sharded(db: Path, shards: tuple[int, ...]) -> GammonBot:
    settings = Settings(storage_url=f"sqlite:///{db}", shard_count=2, shard_ids=shards)
    return ShardedGammonBot(settings, dice=SeededDice(1))


@pytest.mark.asyncio
async def test_each_shard_reconciles_the_games_of_its_own_servers_once(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    bot = _sharded(db, (0, 1))
    async with sim(bot) as env:
        servers = [await _server(env, bot, db, shard) for shard in (0, 1)]
        started: list[tuple[int, Any, str]] = []
        for w in servers:
            game_id, thread = await w.start(variant="backgammon", length=1)
            await Driver(w, game_id).until("roll")
            roller = (await w.view(game_id)).to_act or ""
            await w.bot.service.roll_once(game_id, as_player(w, roller))
            started.append((game_id, thread, roller))
        prompts = [live_message(thread).id for _game, thread, _roller in started]

        # A process running shard 0 only: the other shard's server is not its business.
        only_zero = _sharded(db, (0,))
        await env.restart_bot(only_zero)
        await bot.close_storage()
        assert only_zero.reconciler is not None and only_zero.reconciler.done == {0}
        assert only_zero.reconciler.counts == {"edited": 1}
        assert "Roll" not in labels(live_message(started[0][1]))
        assert labels(live_message(started[1][1]))[0] == "Roll"  # still as it was

        # A process running both shards: each shard's ready reconciles its own server, once.
        both = _sharded(db, (0, 1))
        await env.restart_bot(both)
        await only_zero.close_storage()
        try:
            assert both.reconciler is not None and both.reconciler.done == {0, 1}
            assert both.reconciler.counts == {"adopted": 1, "edited": 1}
            for (game_id, thread, _roller), prompt in zip(started, prompts, strict=True):
                view = await both.service.view(game_id, SYSTEM)
                message = live_message(thread)
                assert message.id == prompt and view.phase == "move"
                assert_current(message, view)
            for shard in (0, 1):  # a shard that is ready again (a new session) does not reconcile again
                await both.on_shard_ready(shard)
            assert both.reconciler.counts == {"adopted": 1, "edited": 1}
        finally:
            await both.close_storage()
