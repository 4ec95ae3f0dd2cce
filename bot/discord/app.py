"""The Discord bot: ``GammonBot`` and ``run_bot`` (what ``gammonbot run`` starts).

All asynchronous start-up happens in :meth:`GammonBot.setup_hook`: open the storage, build the game service,
load the cogs, register the game components (so buttons sent before a restart keep working) — all of that is
:meth:`GammonBot.prepare`, which needs no Discord — then install the command translator (descriptions in the players'
languages, :mod:`.translator`) and sync the slash commands, to the test server named in ``config.toml`` or globally.
When a shard is ready (once per process and shard), the live games of the servers it serves get their latest message
brought up to date (:mod:`.reconcile`).
Network trouble, at start or later, is one line and a retry with backoff (:mod:`.network`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands, tasks

import render  # noqa: F401  (imported here, not on the event loop during the first board)
from engine.i18n import _

from ..config import Settings
from ..runtime import tune_for_serving
from ..scheduler import Scheduler
from ..service import DiceProvider, GameService, service_for
from ..storage import Store
from ..storage.opening import CannotOpen, open_store
from . import network
from .components import DYNAMIC_ITEMS
from .language import discord_language
from .limits import commands_problems
from .network import StorageUnreachable, quiet_reconnects, serve, unreachable
from .reconcile import Reconciler
from .table import Table
from .text import NO_PINGS
from .threads import Threads
from .translator import CommandTranslator
from .tree import GammonTree
from .welcome import SetupSelect, Welcome

__all__ = ["GammonBot", "ShardedGammonBot", "build_bot", "run_bot", "INTENTS", "PERMISSIONS", "EXTENSIONS"]

log = logging.getLogger("gammonbot.discord")

#: Every log line: when (the machine's local time, to the millisecond), how bad, from where, and what.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Seconds between two looks for due timers (deadlines, reminders): how late a deadline may fire at most.
SCHEDULER_INTERVAL = 5.0
#: The cogs loaded at start-up, one per feature; each adds its commands to ``/bg`` (in any order).
EXTENSIONS = (
    "bot.discord.cogs.games",
    "bot.discord.cogs.teams",
    "bot.discord.cogs.dice",
    "bot.discord.cogs.stats",
    "bot.discord.cogs.info",
    "bot.discord.cogs.admin",
    "bot.discord.cogs.me",
    "bot.discord.cogs.help",
    "bot.discord.cogs.forfeit",
    "bot.discord.cogs.replay",
    "bot.discord.cogs.tour",
)


def intents() -> discord.Intents:
    """Only the guilds intent (channels and threads): slash commands and components need no privileged intent."""
    value = discord.Intents.none()
    value.guilds = True
    return value


INTENTS = intents()

#: What the bot needs in a server (the README's invite link carries this value): post boards and files,
#: open a public thread per match and a private one per Doubles team, and speak in them.
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    create_private_threads=True,
    attach_files=True,
    read_message_history=True,
    pin_messages=True,  # the tournaments' standings message is pinned in its channel
)


class GammonBot(commands.Bot):
    """The backgammon bot: a game service over one database, shown through ``/bg`` commands and buttons."""

    service: GameService
    table: Table
    threads: Threads

    def __init__(
        self,
        settings: Settings,
        *,
        dice: DiceProvider | None = None,
        theme: Any = None,
        storage_url: str | None = None,
        clock: Callable[[], float] = time.time,
        run_scheduler: bool = False,
        tune_after_setup: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            tree_cls=GammonTree,
            # Nobody is pinged unless a message says whom (``text.pings``): a name can never ping anyone.
            allowed_mentions=NO_PINGS,
            help_command=None,
            **options,
        )
        self.settings = settings
        self.dice = dice
        self.theme = theme
        self.storage_url = storage_url or settings.storage_url
        self.clock = clock
        self.run_scheduler = run_scheduler
        #: Tune the process for serving once start-up is done (``gammonbot run``: see bot/runtime.py).
        self.tune_after_setup = tune_after_setup
        self.store: Store | None = None
        self.scheduler: Scheduler | None = None
        self.reconciler: Reconciler | None = None
        self.welcome: Welcome | None = None
        #: Whether this bot was ever connected (ready): a later network failure then starts its retries over.
        self.connected_once = False

    async def setup_hook(self) -> None:
        """Open storage, build the service, the threads and the table, load the cogs, register components
        (:meth:`prepare`); install the command translator and sync the commands."""
        await self.prepare()
        await self.tree.set_translator(CommandTranslator())
        await self.sync_commands()
        if self.run_scheduler:
            self.timer_loop.start()
        if self.tune_after_setup:
            tune_for_serving()  # shorter collector pauses, and the GIL back to the event loop sooner

    async def sync_commands(self) -> None:
        """Register the slash commands (with their translations) to the test server named in ``config.toml``, or
        globally. They are checked against Discord's rules first (:mod:`.limits`): Discord refuses a whole sync for one
        command past them, so what breaks a rule is logged by name. A refused sync is logged, not fatal: the commands
        Discord already has stay, and the games' buttons work without them."""
        translator = self.tree.translator or CommandTranslator()
        payloads = [await command.get_translated_payload(self.tree, translator) for command in self.tree.get_commands()]
        problems = commands_problems(payloads)
        if problems:
            log.error("the slash commands break Discord's rules (Discord will refuse them): %s", "; ".join(problems))
        try:
            if self.settings.guild_id:
                guild = discord.Object(int(self.settings.guild_id))
                self.tree.copy_global_to(guild=guild)
                synced = await self.tree.sync(guild=guild)
                log.info("synced %d commands to server %s", len(synced), self.settings.guild_id)
            else:
                synced = await self.tree.sync()
                log.info("synced %d commands globally (they may take a while to appear)", len(synced))
        except discord.HTTPException as exc:
            log.error(
                "Discord refused the slash commands (%s); the ones it had before stay, and games' buttons still work",
                exc,
            )

    async def prepare(self) -> None:
        """Everything of the start-up that needs no Discord: open storage, build the service, the threads and the
        table, load the cogs (the command tree is then complete), register the game components."""
        url = self.storage_url if "://" in self.storage_url else f"sqlite:///{self.storage_url}"
        try:
            self.store = await Store.open(
                url,
                sqlite_synchronous=self.settings.sqlite_synchronous,
                pool_size=self.settings.pool_size,
                settings_ttl=self.settings.settings_ttl,
                acquire_timeout=self.settings.storage.acquire_timeout,
                statement_timeout=self.settings.storage.statement_timeout,
            )
        except OSError as exc:  # the database server cannot be reached (yet): retried, in one line
            raise StorageUnreachable(unreachable(exc) or str(exc)) from exc
        # config.toml's [defaults], [ratings], [limits] and [render] reach the service here (a test may hand in
        # its own renderer configuration as ``theme``).
        extra = {"render": self.theme} if self.theme is not None else {}
        self.service = service_for(self.store, self.settings, dice=self.dice, clock=self.clock, **extra)
        self.threads = Threads(self, self.service)
        self.table = Table(self, self.service, self.threads)
        # Deadlines, reminders, automatic opening rolls and expiries, announced in the games' threads.
        self.scheduler = Scheduler(self.store, self.service, notify=self.table.notify, clock=self.clock)
        self.reconciler = Reconciler(self, self.service, self.table, self.threads)
        self.welcome = Welcome(self)
        # Load the rule-set plugins now, not inside the first player's click.
        log.info("rule sets: %s", ", ".join(cls.name for cls in self.service.variants()))
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        self.add_dynamic_items(*DYNAMIC_ITEMS, SetupSelect)

    @tasks.loop(seconds=SCHEDULER_INTERVAL)
    async def timer_loop(self) -> None:
        """Every few seconds: fire the timers that are due (deadlines, reminders, opening rolls, expiries)."""
        assert self.scheduler is not None
        try:
            await self.scheduler.tick()
        except Exception as exc:
            reason = unreachable(exc)
            if reason is None:
                log.exception("scheduler tick failed; retrying at the next one")
            else:
                log.warning("cannot reach Discord (%s); retrying in %s s", reason, f"{SCHEDULER_INTERVAL:.0f}")

    # --- after a restart: the live games' messages ------------------------------------------------------------
    async def on_ready(self) -> None:
        """Connected (every shard ready): unsharded, reconcile every server's games now; offer the setup message to
        the servers that never had it."""
        self.connected_once = True
        for guild in self.guilds:
            self.service.server_locale(str(guild.id), discord_language(guild))
        if not isinstance(self, discord.AutoShardedClient):
            self.reconcile(None)
        if self.welcome is not None:
            self.welcome.ready(list(self.guilds))

    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Added to a server (or added back): offer it the setup message, and bring up to date the games it had."""
        log.info("joined server %s", guild.id)
        self.service.server_locale(str(guild.id), discord_language(guild))
        if self.welcome is not None:
            self.welcome.joined(guild)
        if self.reconciler is not None:
            self.reconciler.again(str(guild.id))

    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        """A server changed (its Discord language, or became a Community server)."""
        self.service.server_locale(str(after.id), discord_language(after))

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server: its games are kept (their players see them again if the bot is added back)."""
        log.warning("removed from server %s: its games are kept, and go on if the bot is added back", guild.id)

    async def on_shard_ready(self, shard_id: int) -> None:
        """One shard is ready: reconcile the games of the servers it serves."""
        self.connected_once = True
        self.reconcile(shard_id)

    def reconcile(self, shard_id: int | None) -> None:
        """Bring the latest message of every live game of a shard's servers up to date, in the background, once
        per process and shard (:class:`~.reconcile.Reconciler`)."""
        if self.reconciler is None:
            return
        guilds = [str(g.id) for g in self.guilds if shard_id is None or g.shard_id == shard_id]
        self.reconciler.start(shard_id, guilds)

    async def close(self) -> None:
        """Stop the scheduler and the reconciliation, log out, then close the database."""
        self.timer_loop.cancel()
        if self.reconciler is not None:
            self.reconciler.cancel()
        try:
            await super().close()
        finally:
            await self.close_storage()

    async def close_storage(self) -> None:
        """Stop the service's worker processes and close the database connection (also what a test does with a bot
        it replaced)."""
        service: GameService | None = getattr(self, "service", None)  # set in setup_hook
        if service is not None:
            await service.close()
        if self.store is not None:
            store, self.store = self.store, None
            await store.close()


class ShardedGammonBot(GammonBot, commands.AutoShardedBot):
    """The bot running several Discord shards in one process (``[discord] shard_count`` / ``shard_ids``).

    Several such processes, each with its own ``shard_ids``, share one PostgreSQL database.
    """

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(
            settings,
            shard_count=settings.shard_count,
            shard_ids=list(settings.shard_ids) if settings.shard_ids else None,
            **kwargs,
        )


def build_bot(settings: Settings, **kwargs: Any) -> GammonBot:
    """The bot ``config.toml`` asks for: sharded when it names shards, else a single connection."""
    if settings.shard_count or settings.shard_ids:
        if settings.shard_ids and not settings.shard_count:
            raise ValueError("[discord] shard_ids needs shard_count (the total number of shards)")
        return ShardedGammonBot(settings, **kwargs)
    return GammonBot(settings, **kwargs)


async def database_ready(settings: Settings) -> str | None:
    """Open the database and close it again, before the bot logs in to Discord: None once it opens, else the one
    line saying why it cannot and what to fix. A database server that does not answer is waited for as at any start
    (one line, and a retry with backoff): it may be starting with the machine."""
    url = settings.storage_url if "://" in settings.storage_url else f"sqlite:///{settings.storage_url}"
    delay = network.RETRY_FIRST
    while True:
        try:
            store = await open_store(url, statement_timeout=settings.storage.statement_timeout)
        except CannotOpen as exc:
            if not exc.unreachable:
                return _("{problem}; see [storage] url in config.toml").format(problem=exc)
            log.warning("%s; retrying in %s s", exc, network.seconds(delay))
            await network.wait(delay)
            delay = min(delay * 2, network.RETRY_CAP)
            continue
        await store.close()
        return None


def run_bot(settings: Settings, token: str) -> int:
    """Run the bot until it is stopped; returns an exit status. Network trouble is one line and a retry with
    backoff (:func:`.network.serve`); a refused token is one line and exit status 1."""
    logging.basicConfig(level=getattr(logging, settings.log_level.upper(), logging.INFO), format=LOG_FORMAT)
    quiet_reconnects()
    try:
        build_bot(settings)  # the configuration is checked once, before anything connects
    except ValueError as exc:
        log.error("config: %s", exc)
        return 2
    try:
        problem = asyncio.run(database_ready(settings))  # before logging in to Discord
        if problem is not None:
            log.error("%s", problem)
            return 2
        return asyncio.run(serve(lambda: build_bot(settings, run_scheduler=True, tune_after_setup=True), token))
    except KeyboardInterrupt:
        log.info("stopped")
        return 0
