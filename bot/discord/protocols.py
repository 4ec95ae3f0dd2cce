"""What the cogs and helpers of the Discord layer need of the bot, of its table and of its threads.

The bot (:class:`~.app.GammonBot`) builds everything else: it imports the table, the threads, the components and the
cogs. They in turn need a few of its parts, and would import ``app.py`` for the type, which made one import circle
of the whole layer. They name these protocols instead: ``app.py`` imports everything, and nothing imports ``app.py``
(``tests/test_static.py`` keeps it so). mypy checks that the real classes fit where the bot hands itself, its
table or its threads in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from engine.match import MatchState

from ..service import GameService, GameView, Outcome
from .delivery import Notices

__all__ = ["Bot", "GameTable", "MatchThreads", "Presses"]


class Presses(Protocol):
    """What the game components (buttons and selects of :mod:`.components`) hand their presses to: the table."""

    async def check_press(self, interaction: discord.Interaction[Any], game_id: int, action: str) -> bool: ...

    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, action: str) -> None: ...

    async def on_resign(self, interaction: discord.Interaction[Any], game_id: int, level: int) -> None: ...

    async def on_name_double(self, interaction: discord.Interaction[Any], game_id: int, value: int) -> None: ...

    async def on_play(self, interaction: discord.Interaction[Any], game_id: int, version: int, play: str) -> None: ...

    async def on_submove(
        self, interaction: discord.Interaction[Any], game_id: int, version: int, src: int, dst: int
    ) -> None: ...

    async def on_acting(
        self, interaction: discord.Interaction[Any], game_id: int, side: int, number: int, member: str
    ) -> None: ...


class GameTable(Presses, Protocol):
    """What the cogs and the tournament posts need of the table (:class:`~.table.Table`)."""

    turn_messages: dict[int, tuple[int, int]]

    async def controls(self, view: GameView, state: MatchState | None = None) -> tuple[discord.ui.View, str]: ...

    async def direct(self, player_id: str, text: str) -> bool: ...

    async def start_match(
        self, interaction: discord.Interaction[Any], game_id: int, challenge: discord.Message | None
    ) -> None: ...

    async def begin(self, game_id: int, thread: discord.Thread | None) -> None: ...

    async def command_action(
        self, interaction: discord.Interaction[Any], game_id: int, call: Callable[[], Awaitable[Outcome]]
    ) -> None: ...

    async def notify(self, out: Outcome) -> None: ...


class MatchThreads(Protocol):
    """What the cogs, the game resolver and the tournament posts need of the threads (:class:`~.threads.Threads`)."""

    @property
    def notices(self) -> Notices: ...

    def game_of_team_thread(self, thread_id: int) -> int | None: ...

    async def channel_of(self, view: GameView) -> discord.abc.Messageable: ...

    async def tell_in(self, game_id: int, thread_id: str | None, text: str) -> None: ...

    async def tell_teams(self, out: Outcome) -> str: ...

    async def private_first(self, call: Awaitable[Outcome]) -> Outcome: ...

    async def open_match_thread(
        self, view: GameView, message: discord.Message | None, channel: Any
    ) -> discord.Thread | None: ...


class Bot(Protocol):
    """What the cogs and helpers need of the bot (:class:`~.app.GammonBot`): its game service, table and threads,
    its command tree, and the few Discord calls they make through it."""

    @property
    def service(self) -> GameService: ...

    @property
    def table(self) -> GameTable: ...

    @property
    def threads(self) -> MatchThreads: ...

    @property
    def tree(self) -> app_commands.CommandTree[Any]: ...

    @property
    def user(self) -> discord.ClientUser | None: ...

    def get_channel(self, id: int, /) -> Any: ...

    async def fetch_channel(self, channel_id: int, /) -> Any: ...

    async def add_cog(self, cog: commands.Cog, /) -> None: ...

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None: ...
