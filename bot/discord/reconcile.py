"""After a restart: every live game's latest message is brought up to date, and finished games lose their buttons.

The table stores which message carries each game's buttons (its prompt: channel, message, the game version it was
drawn at, whom it called), beside the game (:meth:`Threads.remember_prompt`). When a shard is ready, once per
process, the games of the servers that shard serves are gone through, a page at a time:

* an active game whose prompt shows its current version needs nothing (no Discord call): the table adopts the
  prompt, so that the next turn takes its buttons off;
* an active game that moved on since its prompt (the bot stopped between a change and its message) gets its
  prompt edited to the game as it stands, when the same players are called to act, or else a fresh prompt that
  calls (and pings) them, the old one losing its buttons;
* an active game with no stored prompt (from before prompts were stored, or whose prompt could not be posted) has
  its newest message with buttons found in its thread's recent history and edited, or a fresh prompt posted;
* a game that ended, expired or was archived while its prompt still had buttons has them taken off.

Games that need Discord are done a batch at a time, with a pause between batches, and one at a time under the
table's lock of the game, so that a player's click and the reconciliation never interleave.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

from engine import i18n

from ..service import SYSTEM, GameService, GameView, Refused
from ..storage import GameStatus, LiveGame, Prompt
from .channels import find_channel, take_buttons_off, told
from .components import game_of_custom_id
from .language import server_language
from .network import unreachable
from .table import Table
from .text import callers
from .threads import Threads

__all__ = ["Reconciler", "BATCH", "PAUSE", "PAGE", "HISTORY"]

log = logging.getLogger("gammonbot.discord")

#: Games needing Discord calls between two pauses, and the pause (seconds): a slow, steady pace under Discord's
#: rate limits, leaving room for the players.
BATCH = 25
PAUSE = 2.0
#: Games read from the database at a time.
PAGE = 100
#: How many recent messages of a thread are looked through for a game's buttons when no prompt is stored.
HISTORY = 50


class Reconciler:
    """Brings the games of each ready shard up to date, once per process and shard."""

    def __init__(
        self,
        bot: discord.Client,
        service: GameService,
        table: Table,
        threads: Threads,
        *,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        batch: int | None = None,
        pause: float | None = None,
    ) -> None:
        self.bot = bot
        self.service = service
        self.table = table
        self.threads = threads
        self.sleep = sleep
        self.batch = BATCH if batch is None else batch
        self.pause = PAUSE if pause is None else pause
        #: Shards (None: the whole bot, unsharded) reconciled by this process.
        self.done: set[int | None] = set()
        #: What was done, by kind: adopted, edited, posted, retired, skipped.
        self.counts: Counter[str] = Counter()
        self._running: dict[int | None, asyncio.Task[None]] = {}

    def start(self, shard: int | None, guild_ids: Sequence[str]) -> None:
        """Reconcile the games of these servers in the background (unless done or under way for this shard)."""
        if shard in self.done or shard in self._running:
            return
        task = asyncio.create_task(self._background(shard, list(guild_ids)), name=f"gammonbot-reconcile-{shard}")
        self._running[shard] = task

    def again(self, guild_id: str) -> None:
        """Reconcile one server's games now, in the background (the bot was added back to it)."""
        key = -int(guild_id) if guild_id.isdigit() else None  # a key of its own, apart from the shards'
        if key in self._running:
            return
        task = asyncio.create_task(self._background(key, [guild_id]), name=f"gammonbot-reconcile-guild-{guild_id}")
        self._running[key] = task

    def cancel(self) -> None:
        for task in self._running.values():
            task.cancel()

    async def _background(self, shard: int | None, guild_ids: list[str]) -> None:
        try:
            await self.run(guild_ids)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # tried again when the shard is next ready
            reason = unreachable(exc)
            if reason is None:
                log.exception("bringing the games' messages up to date failed (shard %s)", shard)
            else:
                log.warning("cannot reach Discord (%s); the games' messages are brought up to date later", reason)
        else:
            self.done.add(shard)
        finally:
            self._running.pop(shard, None)

    async def run(self, guild_ids: Sequence[str]) -> Counter[str]:
        """Reconcile every live game of these servers (and every game still holding a prompt); returns the counts."""
        after = 0
        busy = 0
        before = self.counts.copy()
        while guild_ids:
            page = await self.service.store.live_games(guild_ids, after=after, limit=PAGE)
            if not page:
                break
            for game in page:
                after = game.game_id
                if not await self.one(game):
                    continue
                busy += 1
                if busy % self.batch == 0:
                    await self.sleep(self.pause)
        done = self.counts - before
        if done:
            log.info("games' messages brought up to date: %s", ", ".join(f"{n} {k}" for k, n in sorted(done.items())))
        return done

    async def one(self, game: LiveGame) -> bool:
        """Reconcile one game; True when that took Discord calls."""
        current = game.prompt is not None and game.prompt.game_version == game.version
        if game.status == GameStatus.ACTIVE and (current or game.game_id in self.table.turn_messages):
            self._adopt(game.game_id, game.prompt)
            return False
        async with self.table.lock(game.game_id):
            try:
                return await self._settle(game.game_id)
            except discord.HTTPException as exc:
                log.info("game %s: its messages could not be brought up to date (%s)", game.game_id, exc)
                self.counts["skipped"] += 1
                return True

    def _adopt(self, game_id: int, prompt: Prompt | None) -> None:
        if prompt is not None and game_id not in self.table.turn_messages:
            self.table.turn_messages[game_id] = (int(prompt.channel_id), int(prompt.message_id))
        self.counts["adopted"] += 1

    async def _settle(self, game_id: int) -> bool:
        prompt = await self.service.store.prompt_of(game_id)
        try:
            view = await self.service.view(game_id, SYSTEM)
        except Refused as exc:  # a game that cannot be read: left alone, as every request would be refused
            log.warning("game %s: not brought up to date (%s)", game_id, exc)
            self.counts["skipped"] += 1
            return False
        # No one asked: everything this posts or edits is in the server's language.
        with i18n.use(await server_language(self.service, view.guild_id)):
            return await self._bring_up_to_date(game_id, view, prompt)

    async def _bring_up_to_date(self, game_id: int, view: GameView, prompt: Prompt | None) -> bool:
        if view.status != GameStatus.ACTIVE:
            if prompt is None:
                return False
            self.table.turn_messages.pop(game_id, None)
            await self._strip(game_id, prompt.channel_id, prompt.message_id)
            await self.service.store.drop_prompt(game_id, prompt.message_id)
            self.counts["retired"] += 1
            return True
        if game_id in self.table.turn_messages or (prompt is not None and prompt.game_version == view.version):
            self._adopt(game_id, prompt)  # shown since, or current after all
            return False
        try:
            channel = await self.threads.channel_of(view)
        except Refused as exc:
            log.info("game %s: not brought up to date (%s)", game_id, exc)
            self.counts["skipped"] += 1
            return False
        older: list[discord.Message] = []
        if prompt is not None:
            old = await self._fetch(prompt)
            same = prompt.callers == callers(view)
        else:
            old, older = await self._find(channel, view)
            same = True
        for message in older:
            await self._strip(game_id, str(message.channel.id), str(message.id))
        if old is not None and same and await self._edit(old, view):
            self.counts["edited"] += 1
            return True
        await self.table.post_turn(channel, view, ())
        self.counts["posted"] += 1
        if old is not None:
            await self._strip(game_id, str(old.channel.id), str(old.id))
        return True

    async def _fetch(self, prompt: Prompt) -> discord.Message | None:
        """The stored prompt, if it is still there."""
        channel = await find_channel(self.bot, prompt.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return None
        try:
            return await channel.fetch_message(int(prompt.message_id))
        except discord.HTTPException as exc:  # deleted, or no longer readable
            log.info("game %s: its prompt %s is gone (%s)", prompt.game_id, prompt.message_id, exc)
            return None

    async def _find(
        self, channel: discord.abc.Messageable, view: GameView
    ) -> tuple[discord.Message | None, list[discord.Message]]:
        """The bot's newest message with this game's buttons among the thread's recent ones, and older such ones."""
        me = self.bot.user.id if self.bot.user is not None else None
        found: list[discord.Message] = []
        try:
            async for message in channel.history(limit=HISTORY):
                if message.author.id == me and _games_of(message) == {view.id}:
                    found.append(message)
        except discord.HTTPException as exc:  # no Read Message History: a fresh prompt will do
            log.info("game %s: could not read its thread (%s)", view.id, exc)
        return (found[0], found[1:]) if found else (None, [])

    async def _edit(self, message: discord.Message, view: GameView) -> bool:
        """Edit the game's prompt to the game as it stands (keeping what it told); False if Discord refuses."""
        content, picture, ui, allowed = await self.table.turn_message(view, (), told(message.content))
        try:
            await message.edit(content=content, attachments=[picture.file()], view=ui, allowed_mentions=allowed)
        except discord.HTTPException as exc:  # an archived thread, say: a fresh prompt instead
            log.info("game %s: could not edit its prompt %s (%s)", view.id, message.id, exc)
            return False
        finally:
            ui.stop()
        self.table.turn_messages[view.id] = (message.channel.id, message.id)
        await self.threads.remember_prompt(view, message.channel.id, message.id)
        return True

    async def _strip(self, game_id: int, channel_id: str, message_id: str) -> None:
        """Take the buttons off a message (best effort: it may be gone)."""
        channel: Any = await find_channel(self.bot, channel_id)
        if not hasattr(channel, "get_partial_message"):
            return
        exc = await take_buttons_off(channel, int(message_id))
        if exc is not None:
            log.info("game %s: could not take the buttons off message %s (%s)", game_id, message_id, exc)


def _games_of(message: discord.Message) -> set[int]:
    """The games named by a message's components."""
    games: set[int] = set()
    for row in message.components:
        for item in getattr(row, "children", [row]):
            custom_id: Any = getattr(item, "custom_id", None)
            game = game_of_custom_id(custom_id) if isinstance(custom_id, str) else None
            if game is not None:
                games.add(game)
    return games
