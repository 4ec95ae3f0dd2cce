"""``/bg help``: a newcomer's walk through a first game, one page at a time, with pictures of real boards.

The pages are text and a board drawn from a real position (the engine plays the example moves, the renderer draws
them in the reader's own board settings), so a picture never disagrees with the rules. The Previous / Next buttons
are persistent (``bg:help:<page>``): they work after a restart, and only the reader sees the private message.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine import match as m
from engine.i18n import N_, _
from engine.plugins import get_variant
from engine.snapshot import board_snapshot

from ..components import Localized, guarded
from ..context import bot_of, requester
from ..errors import answer_first, refusals, reply
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Help", "HelpPageButton", "PAGES", "help_message", "page_state", "setup"]

YOU, FRIEND = "you", "friend"


@dataclass(frozen=True)
class HelpPage:
    """One page of ``/bg help``: a title, the text (both marked for the catalog, translated where shown), and the
    example position drawn under it (None: no picture)."""

    title: str
    text: str
    picture: Callable[[], m.MatchState] | None = None


def example_names() -> dict[str, str]:
    """The example's two players as the board names them, in the reader's language."""
    return {YOU: _("You"), FRIEND: _("Your friend")}


def _start(length: int = 5) -> m.MatchState:
    return m.new_match(
        get_variant("backgammon"), [[YOU], [FRIEND]], m.MatchOptions(length=length), names=(_("You"), _("Your friend"))
    )


def _play(state: m.MatchState, by: str, text: str) -> m.MatchState:
    return m.apply(state, m.move_from_text(state, by, text))


def _opening() -> m.MatchState:
    """You win the opening throw with 3-1 (your 3 against your friend's 1)."""
    return m.apply(_start(), m.OpeningRoll(YOU, (3, 1)))


def _after_first_play() -> m.MatchState:
    """You have played 8/5 6/5; your friend is to roll."""
    return _play(_opening(), YOU, "8/5 6/5")


def _your_second_roll() -> m.MatchState:
    """Your friend ran 24/14 with 6-4; you rolled 6-5."""
    state = m.apply(_after_first_play(), m.Roll(FRIEND, (6, 4)))
    state = _play(state, FRIEND, "24/14")
    return m.apply(state, m.Roll(YOU, (6, 5)))


def _cube_taken() -> m.MatchState:
    """You played 24/13; your friend rolled 2-1 and played 13/11 6/5; you doubled and they took: cube 2, theirs."""
    state = _play(_your_second_roll(), YOU, "24/13")
    state = m.apply(state, m.Roll(FRIEND, (2, 1)))
    state = _play(state, FRIEND, "13/11 6/5")
    state = m.apply(state, m.Double(YOU))
    return m.apply(state, m.Take(FRIEND))


PAGES: tuple[HelpPage, ...] = (
    HelpPage(
        N_("1. Start a game"),
        N_(
            "Type **`/bg play`** and pick your **opponent** (or leave it empty: anyone may accept). You can also "
            "choose the rule set (`variant`), the match `length` (first to that many points; 0 plays for money), a "
            "`clock`, more rules in `options`, or `bot` to play the computer.\n"
            "\n"
            "Your opponent presses **Accept**. The bot opens a thread for the match: everything happens there, and "
            "each of you is told when it is your turn. Both players throw one die to start; the higher die moves "
            "first and plays both dice. Below: you threw 3 against your friend's 1, so you play 3-1."
        ),
        _opening,
    ),
    HelpPage(
        N_("2. Moving with buttons"),
        N_(
            "On your turn, press **Roll** (or **Double** first, see page 4). Then pick your checkers with the "
            "buttons: each button moves one checker by one die, like `8/5`. **Undo** takes back a checker, "
            "**Confirm** ends your turn. When there is only one way to play, the bot plays it for you.\n"
            "\n"
            "Checkers move from your 24 point towards your 1 point, then off the board. You may land on an empty "
            "point, your own checkers, or a single enemy checker (a *blot*: you hit it and it goes to the bar). Two "
            "or more enemy checkers block a point. Below: 8/5 6/5 made your 5 point."
        ),
        _after_first_play,
    ),
    HelpPage(
        N_("3. Typing a play"),
        N_(
            "Prefer typing? **`/bg move play:24/13`** plays a whole turn; the bot suggests legal plays as you type. "
            "The notation counts points from your own side:\n"
            "- `13/7 8/7`: one checker from 13 to 7, another from 8 to 7.\n"
            "- `24/13`: one checker using both dice (here 6 and 5).\n"
            "- `bar/22`: enter a hit checker from the bar; checkers on the bar must enter first.\n"
            "- `6/off`: bear off, once all your checkers are in your home board (points 1 to 6).\n"
            "- `8/2(2)`: the same move twice (doubles play four times). A `*` marks a hit; you may leave it out.\n"
            "You must use both dice if you can (with doubles, all four); if only one can be played, the larger. A "
            "play that breaks a rule is refused with the rule it breaks. Below: you rolled 6-5."
        ),
        _your_second_roll,
    ),
    HelpPage(
        N_("4. The doubling cube and the Crawford rule"),
        N_(
            "Before rolling, you may press **Double**: the game is then worth twice as much. Your opponent **Takes** "
            "(plays on for the higher stake and owns the cube: only they may double next) or **Passes** (gives up "
            "the game at the old value). Below: you doubled and your friend took, so the cube shows 2 on their "
            "side.\n"
            "\n"
            "In a match, when a player is one point from winning, the next game is the **Crawford game**: nobody may "
            "double in it. A double that cannot gain anything (say, when winning the game already wins the match) is "
            "refused, and the bot says why. In money play, `beavers` let the doubled player take and redouble at "
            "once."
        ),
        _cube_taken,
    ),
    HelpPage(
        N_("5. Gammons, resigning and forfeits"),
        N_(
            "Bear off all your checkers first to win. A win is worth the cube's value, twice that (a **gammon**) if "
            "the loser has borne off no checker, three times (a **backgammon**) if the loser also still has a "
            "checker on the bar or in the winner's home board. Other rule sets name their own results: Longgammon "
            "has single and mars.\n"
            "\n"
            "A lost game can be ended early: **Resign…** (or `/bg resign level:gammon`) offers the game at a level "
            "you choose; your opponent accepts or rejects. A resignation is always for one game. To give up the "
            "**whole match**, use `/bg forfeit`: your opponent wins the match."
        ),
    ),
    HelpPage(
        N_("6. Clocks, vacations and finding your games"),
        N_(
            "Games are asynchronous: take your time within the match's clock (see **`/bg-info clocks`**). The bot "
            "reminds you before your time runs out; if it runs out, the match's timeout rule applies. Going away? "
            "**`/bg-me vacation days:7`** stops your clocks in this server while you are gone.\n"
            "\n"
            "Lost a game? **`/bg games`** lists yours (those waiting for you first); **`/bg board`** shows a board "
            "again, with its buttons; **`/bg hint`** suggests a play in unrated games; **`/bg-info rules`** shows a "
            "game's terms. Your board colours and side: **`/bg-me settings`**.\n"
            "\n"
            "Every command starts with `/bg`: type it and Discord lists them all. **`/bg-team`** is for Backgammon "
            "Doubles teams, **`/bg-tour`** for tournaments, **`/bg-stats`** and **`/bg-dice`** for ratings, records "
            "and dice, **`/bg-info`** for rules and clocks, **`/bg-me`** for your own settings; admins also see "
            "**`/bg-admin`**. Have fun!"
        ),
    ),
)


def page_state(number: int) -> m.MatchState | None:
    """The example position of page ``number`` (1-based), or None when the page has no picture."""
    picture = PAGES[number - 1].picture
    return picture() if picture is not None else None


#: The help's page buttons, by the word their custom id carries; labels are translated when drawn.
TURNS = {"previous": N_("Previous"), "next": N_("Next")}


class HelpPageButton(
    Localized,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:help:(?P<page>[0-9]+):(?P<label>previous|next)",
):
    """Previous / Next under ``/bg help`` (persistent: they work in help messages posted before a restart)."""

    def __init__(self, page: int, turn: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=_(TURNS[turn]),
                style=discord.ButtonStyle.secondary,
                custom_id=f"bg:help:{page}:{turn}",
                disabled=disabled,
            )
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> HelpPageButton:
        return cls(int(match["page"]), match["label"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, _show_page(interaction, self.page))


async def help_message(
    interaction: discord.Interaction[Any], number: int
) -> tuple[discord.Embed, discord.File | None, discord.ui.View]:
    """Page ``number`` of the help as an embed, its picture (drawn off the event loop, in the reader's board
    settings) and the Previous / Next buttons."""
    number = min(max(number, 1), len(PAGES))
    page = PAGES[number - 1]
    embed = discord.Embed(title=_(page.title), description=_(page.text), colour=discord.Colour.dark_green())
    embed.set_footer(
        text=_("Page {page} of {pages} · {command}").format(
            page=number, pages=len(PAGES), command=f"/bg help page:{number}"
        )
    )
    file = None
    state = page_state(number)
    if state is not None:
        service = bot_of(interaction).service
        prefs = await service.settings_of(requester(interaction).id)
        snapshot = board_snapshot(
            state, 0, names=example_names(), home="left" if prefs.get("home") == "left" else "right"
        )
        rendered = await service.render(snapshot, prefs.get("theme"))
        name = f"help{number}.png"
        file = discord.File(io.BytesIO(rendered.png), filename=name, description=rendered.alt_text[:1000])
        embed.set_image(url=f"attachment://{name}")
    ui = discord.ui.View(timeout=None)
    ui.add_item(HelpPageButton(number - 1, "previous", disabled=number == 1))
    ui.add_item(HelpPageButton(number + 1, "next", disabled=number == len(PAGES)))
    return embed, file, ui


async def _show_page(interaction: discord.Interaction[Any], number: int) -> None:
    await answer_first(interaction)
    embed, file, ui = await help_message(interaction, number)
    try:
        await interaction.edit_original_response(embed=embed, attachments=[file] if file else [], view=ui)
    finally:
        ui.stop()


class Help(BgCog):
    """``/bg help``: how to play, with pictures."""

    @app_commands.command(name="help")
    @app_commands.describe(page=f"Which page (1 to {len(PAGES)}; default: the first)")
    @refusals
    async def help(self, interaction: discord.Interaction[Any], page: app_commands.Range[int, 1] = 1) -> None:
        """How to play: a first game step by step, with pictures."""
        embed, file, ui = await help_message(interaction, page)
        try:
            extra: dict[str, Any] = {"file": file} if file is not None else {}
            await reply(interaction, embed=embed, view=ui, **extra)
        finally:
            ui.stop()


async def setup(bot: Bot) -> None:
    """Add ``/bg help`` and its page buttons."""
    bot.add_dynamic_items(HelpPageButton)
    await bot.add_cog(Help(bot))
