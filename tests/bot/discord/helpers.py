"""Driving the real Discord bot through simcord: a world (server, channel, players) and a game driver.

The driver only does what a player could do in Discord: run slash commands, click buttons and pick from
selects on the messages the bot posted. It reads the game service (never writes it) to know whose turn it
is. Every interaction result is kept, so a test can check that each one was answered or deferred.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import simcord

from bot.config import Settings
from bot.discord.app import GammonBot
from bot.service import SYSTEM, DiceProvider, GameView, SeededDice

NAMES = ("alice", "bob", "carol", "dave", "eve")

#: How long simcord may wait, in wall-clock seconds, for the bot to settle after an action. Settling is an
#: event (no task, callback or executor job of the bot is left); this is only the net under a hung bot, so
#: it is far above anything a loaded machine needs (simcord's own default, 5 s, failed a clean CI run).
SETTLE_SECONDS = 600.0


def _patient_settling() -> None:
    """simcord settles its start-up (login, READY, guilds) with a fixed 5-second wall-clock limit: make every
    settle use at least the environment's ``settle_timeout``, so no test depends on the machine's speed."""
    from simcord.env import Env

    if getattr(Env._settle_internal, "_gammonbot_patient", False):
        return
    original = Env._settle_internal

    async def settle(self: Env, *, timeout: float | None = None, **kwargs: Any) -> None:
        if timeout is not None:
            timeout = max(timeout, self.settle_timeout)
        await original(self, timeout=timeout, **kwargs)

    settle._gammonbot_patient = True  # type: ignore[attr-defined]
    Env._settle_internal = settle  # type: ignore[method-assign]


_patient_settling()


def sim(bot: discord.Client, **options: Any) -> simcord.run:
    """``simcord.run(bot)`` that waits for the bot to settle however slow the machine is (see SETTLE_SECONDS)."""
    options.setdefault("settle_timeout", SETTLE_SECONDS)
    return simcord.run(bot, **options)


class ScriptedDice:
    """Dice that follow a script (roll number -> dice) and fall back to seeded dice after it."""

    def __init__(self, script: dict[int, tuple[int, int]], seed: int = 1) -> None:
        self.script = script
        self.fallback = SeededDice(seed)

    def roll(self, game_id: int, n: int) -> tuple[int, int]:
        return self.script.get(n) or self.fallback.roll(game_id, n)


class FakeTime:
    """A wall clock the test moves by hand (for deadlines and reminders)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_bot(
    db: Path, seed: int = 1, dice: DiceProvider | None = None, clock: Callable[[], float] = time.time
) -> GammonBot:
    """A bot on the SQLite file ``db`` with reproducible dice (its scheduler is ticked by the tests)."""
    return GammonBot(Settings(storage_url=f"sqlite:///{db}"), dice=dice or SeededDice(seed), clock=clock)


class LoopMeter:
    """Watches the event loop while the bot works: how long any one callback kept it busy, and where boards render.

    Each callback's cost is the CPU time the loop's thread spent in it (``time.thread_time``), which a busy
    machine cannot inflate, unlike wall-clock lag, less the time simcord's in-memory Discord spent answering
    REST calls made from it (work Discord's servers do in production). A ticker task also records the
    wall-clock lag, for the failure message. ``render.render_board`` (and ``render.board.render_board``, which
    RenderConfig.render_board calls) is wrapped to note which thread draws each board.
    """

    def __init__(self, period: float = 0.005) -> None:
        self.period = period
        self.worst_cpu = 0.0
        self.worst_callback = ""
        self.callbacks = 0
        self.worst_lag = 0.0
        self.ticks = 0
        self.render_threads: list[str] = []
        self.simulated = 0.0  # CPU time spent inside simcord's REST router
        #: While set (see :meth:`startup`), callbacks are not measured.
        self.starting = False
        self._task: asyncio.Task[None] | None = None
        self._undo: list[Any] = []

    async def _tick(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.period)
            self.worst_lag = max(self.worst_lag, time.perf_counter() - start - self.period)
            self.ticks += 1

    def start(self) -> None:
        from simcord.http import router

        import render

        # Objects left by earlier tests in this process would make the collector's full passes (which run
        # inside whatever callback triggers them) slower than anything this bot does: set them aside.
        gc.collect()
        gc.freeze()

        loop_thread = threading.current_thread()
        original_run = asyncio.events.Handle._run
        import render.board

        original_render = render.render_board
        original_dispatch = router.dispatch
        meter = self

        def timed_run(handle: asyncio.Handle) -> None:
            if threading.current_thread() is not loop_thread or meter.starting:
                original_run(handle)
                return
            start = time.thread_time()
            simulated = meter.simulated
            try:
                original_run(handle)
            finally:
                spent = time.thread_time() - start - (meter.simulated - simulated)
                meter.callbacks += 1
                if spent > meter.worst_cpu:
                    meter.worst_cpu = spent
                    meter.worst_callback = repr(handle)[:300]

        def timed_dispatch(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return original_dispatch(*args, **kwargs)
            finally:
                meter.simulated += time.thread_time() - start

        def traced_render(*args: Any, **kwargs: Any) -> Any:
            meter.render_threads.append("loop" if threading.current_thread() is loop_thread else "worker")
            return original_render(*args, **kwargs)

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign,assignment]
        # Both names a board is drawn through: the package's, and the module's (RenderConfig.render_board).
        render.render_board = traced_render
        render.board.render_board = traced_render  # type: ignore[assignment]
        router.dispatch = timed_dispatch
        self._undo = [
            lambda: setattr(asyncio.events.Handle, "_run", original_run),
            lambda: setattr(render, "render_board", original_render),
            lambda: setattr(render.board, "render_board", original_render),
            lambda: setattr(router, "dispatch", original_dispatch),
        ]
        self._task = asyncio.get_running_loop().create_task(self._tick())

    @contextlib.asynccontextmanager
    async def startup(self) -> AsyncIterator[None]:
        """A bot starting (a restart): its start-up (loading the command modules, syncing the command tree in every
        language) runs before it connects to Discord, when it serves nobody yet, so it is not measured."""
        self.starting = True
        try:
            yield
        finally:
            self.starting = False

    async def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        for undo in self._undo:
            undo()
        gc.unfreeze()

    def report(self) -> str:
        return (
            f"the longest callback took {self.worst_cpu * 1000:.0f} ms of CPU ({self.worst_callback}), "
            f"besides {self.simulated * 1000:.0f} ms in all spent by simcord's REST router; "
            f"the longest wall-clock lag of a {self.period * 1000:.0f} ms ticker was {self.worst_lag * 1000:.0f} ms; "
            f"boards rendered on: {self.render_threads}"
        )


@dataclass
class World:
    """One server with a #backgammon channel, five members, and the bot under test."""

    env: simcord.Env
    bot: GammonBot
    db: Path
    guild: simcord.GuildHandle
    channel: simcord.ChannelHandle
    people: dict[str, simcord.MemberActor]
    results: list[simcord.InteractionResult] = field(default_factory=list)
    old_bots: list[GammonBot] = field(default_factory=list)
    dice: DiceProvider | None = None
    clock: Callable[[], float] = time.time
    #: Exceptions discord.py logged from component callbacks (simcord does not see dynamic items' errors).
    ui_errors: list[logging.LogRecord] = field(default_factory=list)
    #: The REST calls the bot made while each interaction of :meth:`do` was handled (until the bot settled).
    calls: list[tuple[simcord.InteractionResult, list[simcord.HttpLogEntry]]] = field(default_factory=list)

    def by_id(self, player_id: str) -> simcord.MemberActor:
        for actor in self.people.values():
            if str(actor.id) == player_id:
                return actor
        raise KeyError(player_id)

    async def do(self, action: Awaitable[simcord.InteractionResult]) -> simcord.InteractionResult:
        """Run one interaction and keep its result, with the REST calls the bot made for it."""
        # A tournament's pinned pictures are redrawn in the background (drawn in a worker thread, which the
        # simulator's settling does not wait for): let an earlier interaction's redraw finish first, so that its
        # edit is not counted as this interaction's (it would look like a call made before the answer).
        cog: Any = self.bot.get_cog("Tournaments")
        if cog is not None:
            await cog.board.drawn()
        start = len(self.env.http_requests)
        result = await action
        self.results.append(result)
        self.calls.append((result, list(self.env.http_requests[start:])))
        return result

    async def restart(self, seed: int = 1) -> None:
        """Replace the bot by a new instance on the same database (the old one's messages stay)."""
        old = self.bot
        self.bot = make_bot(self.db, seed, self.dice, self.clock)
        await self.env.restart_bot(self.bot)
        await old.close_storage()
        self.old_bots.append(old)

    async def view(self, game_id: int) -> GameView:
        return await self.bot.service.view(game_id, SYSTEM)

    async def start(self, opponent: str = "bob", challenger: str = "alice", **options: Any) -> tuple[int, Any]:
        """A challenge accepted: (game id, the match thread)."""
        me, them = self.people[challenger], self.people[opponent]
        r = await self.do(me.slash(self.channel, "bg play", opponent=them, **options))
        assert r.response is not None, r
        found = re.search(r"game #(\d+)", r.response.content)
        assert found is not None, r.response.content
        game_id = int(found[1])
        await self.do(them.click(r.response, label="Accept"))
        # A team challenge starts once each player it names has accepted (the challenger's teammate too).
        for waiting in (await self.view(game_id)).awaiting:
            await self.do(self.by_id(waiting).click(r.response, label="Accept"))
        return game_id, game_thread(self, await self.view(game_id))


def show_command(w: World, name: str, *members: simcord.MemberActor) -> None:
    """Let ``members`` see a top-level command Discord hides from them (``/bg-admin`` from members without the
    Manage Server permission), as a server's admin can in Server Settings → Integrations (in each member's server)."""
    found = [c for c in w.env.backend.commands.get(None, {}).values() if c["name"] == name]
    assert found, f"/{name} is not registered"
    by_guild: dict[int, list[simcord.MemberActor]] = {}
    for member in members:
        by_guild.setdefault(member.guild.id, []).append(member)
    for group in by_guild.values():
        group[0].guild.set_command_permissions(int(found[0]["id"]), dict.fromkeys(group, True))


class _Catcher(logging.Handler):
    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record)


@asynccontextmanager
async def world(
    tmp_path: Path, seed: int = 1, dice: DiceProvider | None = None, clock: Callable[[], float] = time.time
) -> AsyncIterator[World]:
    """A running bot on a fresh SQLite file, a server, a channel and the players of :data:`NAMES`."""
    db = tmp_path / "games.sqlite3"
    bot = make_bot(db, seed, dice, clock)
    async with sim(bot) as env:
        guild = env.create_guild("Backgammon Club")
        channel = guild.create_text_channel("backgammon")
        people = {name: guild.add_member(env.create_user(name)) for name in NAMES}
        w = World(env, bot, db, guild, channel, people, dice=dice, clock=clock)
        # The server of these tests had its setup message already (tests/bot/discord/test_server_setup.py shows it).
        await bot.service.store.claim_setup(str(guild.id))
        catcher = _Catcher(w.ui_errors)
        ui_log = logging.getLogger("discord.ui.view")
        ui_log.addHandler(catcher)
        try:
            yield w
        finally:
            ui_log.removeHandler(catcher)
            await w.bot.close_storage()
        assert not w.ui_errors, "component callbacks failed: " + "; ".join(r.getMessage() for r in w.ui_errors)
        unanswered = [r for r in w.results if not r.acknowledged]
        assert not unanswered, f"interactions left unanswered: {unanswered}"
        late = late_answers(w)
        assert not late, "interactions answered after other Discord calls:\n" + "\n".join(late)


CALLBACK = re.compile(r"^/interactions/(\d+)/[^/]+/callback$")


def late_answers(w: World) -> list[str]:
    """Every interaction of :meth:`World.do` whose first REST call was not its own answer (the interaction
    callback: a reply, a deferral, an update, a modal): one line each, with the calls made before the answer."""
    out = []
    for result, calls in w.calls:
        if not calls:
            continue  # no answer at all: reported as unanswered
        first = CALLBACK.match(calls[0].path)
        if first is None or calls[0].method != "POST":
            before = []
            for call in calls:
                if CALLBACK.match(call.path):
                    break
                before.append(f"{call.method} {call.path}")
            out.append(f"{result!r}: {len(before)} call(s) before the answer: {', '.join(before[:6])}")
    return out


def reply(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The message answering an interaction (there must be one)."""
    assert result.response is not None, f"no answer: {result!r}"
    return result.response


def answer(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The message answering an interaction: the response, or the first follow-up after a deferral."""
    if result.response is not None and (result.response.content or result.response.attachments):
        return result.response
    assert result.followups, f"no answer: {result!r}"
    return result.followups[0]


def said(result: simcord.InteractionResult) -> str:
    """The text answering an interaction (deferred or not)."""
    return answer(result).content


def components(message: Any) -> list[dict[str, Any]]:
    """The buttons and selects of a message, flattened, as payload dicts."""
    out: list[dict[str, Any]] = []
    for row in message.components:
        data = row.to_dict() if hasattr(row, "to_dict") else row
        out.extend(data.get("components", []))
    return out


def labels(message: Any) -> list[str]:
    return [c.get("label", "") for c in components(message) if c.get("type") == 2]


def live_message(thread: simcord.ChannelHandle) -> discord.Message:
    """The newest message in the thread that has components (the one calling a player to act)."""
    for message in reversed(thread.history()):
        if message.components:
            return message
    raise AssertionError("no message with buttons in the thread")


def game_thread(w: World, view: GameView) -> simcord.ChannelHandle:
    assert view.thread_id is not None, "the game has no thread"
    for thread in w.channel.threads:
        if str(thread.id) == view.thread_id:
            return thread
    raise AssertionError(f"thread {view.thread_id} not found")


class Driver:
    """Plays one game through Discord: rolls, picks plays, cube actions, resignations."""

    def __init__(self, w: World, game_id: int) -> None:
        self.w = w
        self.game_id = game_id

    async def view(self) -> GameView:
        return await self.w.view(self.game_id)

    async def thread(self) -> simcord.ChannelHandle:
        """Where the game is played: its thread, or the channel of its challenge when it has none."""
        view = await self.view()
        if view.thread_id is None:
            assert view.channel_id == str(self.w.channel.id), view.channel_id
            return self.w.channel
        return game_thread(self.w, view)

    async def actor(self) -> simcord.MemberActor:
        v = await self.view()
        pid = v.to_act or (v.acting[0] if v.acting else None)
        assert pid is not None, f"nobody to act in {v.phase}"
        return self.w.by_id(pid)

    async def click(self, label: str, who: simcord.MemberActor | None = None) -> simcord.InteractionResult:
        who = who or await self.actor()
        message = live_message(await self.thread())
        return await self.w.do(who.click(message, label=label))

    async def roll(self) -> simcord.InteractionResult:
        result = await self.click("Roll")
        assert result.acknowledged
        return result

    async def play(self) -> None:
        """Play the current roll: the first play of the select, or checker by checker, then Confirm."""
        v = await self.view()
        assert v.phase == "move", v.phase
        who = self.w.by_id(v.to_act or "")
        for _ in range(6):
            message = live_message(await self.thread())
            comps = components(message)
            select = next((c for c in comps if c.get("type") == 3), None)
            if select is not None and select["custom_id"].startswith("bg:play:"):
                await self.w.do(who.select(message, [select["options"][0]["value"]], custom_id=select["custom_id"]))
                return
            confirm = next(c for c in comps if c.get("label") == "Confirm")
            if not confirm.get("disabled"):
                await self.w.do(who.click(message, label="Confirm"))
                return
            if select is not None:
                await self.w.do(who.select(message, [select["options"][0]["value"]], custom_id=select["custom_id"]))
            else:
                sub = next(c for c in comps if c.get("custom_id", "").startswith("bg:sub:"))
                await self.w.do(who.click(message, custom_id=sub["custom_id"]))
        raise AssertionError("the play was never confirmed")

    async def step(self) -> None:
        """One action of the player to act: roll, or play the roll."""
        v = await self.view()
        if v.phase in ("opening", "roll"):
            await self.roll()
        elif v.phase == "move":
            await self.play()
        elif v.phase == "name double":  # after a 1-2 in Acey-deucey: name a doublet with its button
            await self.click("Name double: 6-6")
        else:
            raise AssertionError(f"step in phase {v.phase}")

    async def until(self, phase: str, side: int | None = None, *, can_double: bool = False, limit: int = 60) -> None:
        """Roll and play until ``phase`` with a member of ``side`` to act (and a Double button, if asked)."""
        for _ in range(limit):
            v = await self.view()
            assert v.status == "active", v.status
            on_side = side is None or (v.to_act is not None and v.side_of(v.to_act) == side)
            if (
                v.phase == phase
                and on_side
                and (not can_double or "Double" in labels(live_message(await self.thread())))
            ):
                return
            await self.step()
        raise AssertionError(f"never reached {phase} for side {side}")
