"""Buttons and selects of a game, as ``DynamicItem``s whose custom id carries the game id.

Nothing here is kept in memory between clicks: a component's custom id (at most 100 characters) names the
game and, for the components of one roll, the game's version when they were drawn. After a restart the
bot registers the same classes again and every old button still works. :func:`may_press` is the one check
deciding who may press; whether the press is allowed by the rules is the game service's call, and its
refusal (naming the rule) is shown to the presser alone.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, cast

import discord

from engine.i18n import N_, _, ngettext

from ..service import GameStatus, GameView
from .context import GamesPage, games_page
from .errors import SORRY, answer_first, refuse
from .language import speak
from .text import lines_within, safe, sides_text

if TYPE_CHECKING:
    from .protocols import Presses

__all__ = [
    "ActionButton",
    "ResignButton",
    "NameDoubleButton",
    "SubmoveButton",
    "PlaySelect",
    "SubmoveSelect",
    "ActingSelect",
    "GamesPageButton",
    "TourButton",
    "TeamButton",
    "signup_controls",
    "guarded",
    "picked",
    "team_controls",
    "games_message",
    "DYNAMIC_ITEMS",
    "may_press",
    "custom_id",
    "point_label",
    "game_of_custom_id",
    "board_pointer",
]

#: Buttons of a game: custom id ``bg:<action>:<game>``. Labels are what players see (translated when drawn).
ACTIONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "accept": (N_("Accept"), discord.ButtonStyle.success),
    "decline": (N_("Decline"), discord.ButtonStyle.danger),
    "roll": (N_("Roll"), discord.ButtonStyle.primary),
    "double": (N_("Double"), discord.ButtonStyle.secondary),
    "take": (N_("Take"), discord.ButtonStyle.success),
    "pass": (N_("Pass"), discord.ButtonStyle.danger),
    "beaver": (N_("Beaver"), discord.ButtonStyle.secondary),
    "raccoon": (N_("Raccoon"), discord.ButtonStyle.secondary),
    "resign": (N_("Resign…"), discord.ButtonStyle.secondary),
    "resign-accept": (N_("Accept resignation"), discord.ButtonStyle.success),
    "resign-reject": (N_("Reject resignation"), discord.ButtonStyle.danger),
    "undo": (N_("Undo"), discord.ButtonStyle.secondary),
    "confirm": (N_("Confirm"), discord.ButtonStyle.success),
    "end-session": (N_("End session"), discord.ButtonStyle.secondary),
}
#: Labels of the resignation offers when the rule set's name of a level is not given (standard backgammon's words).
RESIGN_LABELS = {1: N_("Resign a single game"), 2: N_("Resign a gammon"), 3: N_("Resign a backgammon")}
#: The refusals (the engine's and the service's, in their own catalogs) of a press on a board whose dice were rolled
#: since it was drawn.
ROLLED_ALREADY = (
    "you have already rolled: play your move (or resign)",
    "you have already rolled: a double must come before the roll",
)
MAX_ID = 100


def custom_id(*parts: object) -> str:
    """A component custom id ``bg:part:part…``; refuses ids longer than Discord's limit of 100 characters."""
    text = ":".join(["bg", *(str(p) for p in parts)])
    if len(text) > MAX_ID:
        raise ValueError(f"custom id {text!r} is longer than {MAX_ID} characters")
    return text


def point_label(point: int) -> str:
    """A point in the mover's numbering as players write it: 25 is the bar, 0 is off, 29 a checker still to enter."""
    return "bar" if point == 25 else "off" if point == 0 else "in" if point == 29 else str(point)


#: The game named by the custom id of any game component but a team room's question (``bg:acting:…``).
_GAME_OF_ID = re.compile(r"bg:(?!acting:)[a-z-]+[123]?:(?P<game>[0-9]+)(?::|$)")


def game_of_custom_id(custom_id: str) -> int | None:
    """The game a turn message's component acts on (None for any other component)."""
    found = _GAME_OF_ID.match(custom_id)
    return int(found["game"]) if found else None


def board_pointer(refusal: str) -> str:
    """A refusal to a pressed button, pointing to ``/bg board`` when the press came from a board that is behind (the
    dice were already rolled): the buttons for the turn are on the newest board, which ``/bg board`` shows again."""
    if "already rolled" not in refusal and not any(_(text) in refusal for text in ROLLED_ALREADY):
        return refusal
    return _(
        "{refusal}. This message is behind the game: use the newest board in the game's thread, or `/bg board`, "
        "which shows it with your buttons."
    ).format(refusal=refusal.rstrip("."))


def may_press(view: GameView, user_id: str, action: str) -> str | None:
    """Who may press a game's components: None if ``user_id`` may, else the message telling them why not.

    Challenges: Accept is for the invited players (anyone on an open challenge, except the challengers);
    Decline is for the invited players and the challengers. Games: only the players of the game. Whether the
    press is allowed *now* (whose turn it is, which cube action is legal) is the service's decision.
    """
    if view.status == GameStatus.CHALLENGE:
        own = user_id in view.sides[0]
        team = len(view.sides[0]) > 1
        if action == "accept":
            if user_id == view.challenger or (own and not team):
                return _("You cannot accept your own challenge; wait for your opponent (or Decline to withdraw it).")
            if team and user_id not in view.awaiting:
                if user_id in view.sides[0] or user_id in view.sides[1]:
                    waiting = ", ".join(safe(view.name(i)) for i in view.awaiting)
                    return _("You have accepted already; the match starts once {players} accept.").format(
                        players=waiting
                    )
                names = ", ".join(safe(view.name(i)) for i in (*view.sides[0][1:], *view.sides[1]))
                return _("This challenge is for {players}. Start your own with `/bg play`.").format(players=names)
            if not team and view.invited and user_id not in view.invited:
                names = ", ".join(safe(view.name(i)) for i in view.invited)
                return _("This challenge is for {players}. Start your own with `/bg play`.").format(players=names)
            return None
        if action == "decline":
            if own or user_id in view.invited:
                return None
            if not view.invited:
                return _(
                    "Only the challenger can withdraw an open challenge; just leave it if you do not want to play."
                )
            return _("Only the challenged players (or the challenger) can decline this challenge.")
        return _("Game #{game} has not started: it is waiting for the challenge to be accepted.").format(game=view.id)
    if view.status == GameStatus.DECLINED:
        return _("Game #{game} was declined; start a new one with `/bg play`.").format(game=view.id)
    if view.status == GameStatus.EXPIRED:
        return _("Game #{game} expired unanswered; start a new one with `/bg play`.").format(game=view.id)
    if view.status == GameStatus.ARCHIVED:
        return _("Game #{game} was archived; start a new one with `/bg play`.").format(game=view.id)
    if view.side_of(user_id) is None:
        return _(
            "You are not playing in game #{game} ({players}): only its players can use these buttons. "
            "Start your own with `/bg play`."
        ).format(game=view.id, players=sides_text(view))
    if view.status == GameStatus.FINISHED:
        return _("Game #{game} is over.").format(game=view.id)
    return None


def _table(interaction: discord.Interaction[Any]) -> Presses:
    return cast("Presses", interaction.client.table)


def picked(interaction: discord.Interaction[Any]) -> list[str]:
    """The values a member picked in a select."""
    data = cast(dict[str, Any], interaction.data or {})
    return [str(v) for v in data.get("values") or []]


async def guarded(interaction: discord.Interaction[Any], work: Awaitable[None]) -> None:
    """Run a component's work; on an unexpected error, apologise to the presser, then let it be logged."""
    try:
        await work
    except Exception:
        with contextlib.suppress(discord.HTTPException):
            await refuse(interaction, _(SORRY))
        raise


class Localized:
    """A component whose press speaks the presser's language (and the server's for what it posts publicly): the
    check discord.py runs before the callback sets them (:func:`.language.speak`)."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await speak(interaction)
        return True


class _GameItem:
    """Shared behaviour: the languages, then the press check, before any callback runs."""

    game_id: int
    action: str

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await speak(interaction)
        return await _table(interaction).check_press(interaction, self.game_id, self.action)


class ActionButton(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<action>[a-z-]+):(?P<game>[0-9]+)",
):
    """Accept, Decline, Roll, Double, Take, Pass, Beaver, Raccoon, Resign…, resignation answers, Undo, Confirm."""

    def __init__(self, action: str, game_id: int, *, disabled: bool = False, row: int | None = None) -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown game button {action!r}")
        label, style = ACTIONS[action]
        super().__init__(
            discord.ui.Button(
                label=_(label), style=style, custom_id=custom_id(action, game_id), disabled=disabled, row=row
            )
        )
        self.action = action
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ActionButton:
        action = match["action"]
        if action not in ACTIONS:
            raise ValueError(f"unknown game button {action!r}")
        return cls(action, int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, _table(interaction).on_button(interaction, self.game_id, self.action))


class ResignButton(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:resign(?P<level>[123]):(?P<game>[0-9]+)",
):
    """One of the resignation offers, labelled with the rule set's name of its level (a mars in Longgammon)."""

    def __init__(self, game_id: int, level: int, name: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Resign a {result}").format(result=_(name)) if name else _(RESIGN_LABELS[level]),
                style=discord.ButtonStyle.danger,
                custom_id=custom_id(f"resign{level}", game_id),
            )
        )
        self.game_id = game_id
        self.level = level
        self.action = "resign"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ResignButton:
        return cls(int(match["game"]), int(match["level"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, _table(interaction).on_resign(interaction, self.game_id, self.level))


class NameDoubleButton(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:name-double:(?P<game>[0-9]+):(?P<value>[1-6])",
):
    """After a 1-2 that earned it (Acey-deucey): name the doublet ``value``-``value`` to play."""

    def __init__(self, game_id: int, value: int, *, row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Name double: {dice}").format(dice=f"{value}-{value}"),
                style=discord.ButtonStyle.primary,
                custom_id=custom_id("name-double", game_id, value),
                row=row,
            )
        )
        self.game_id = game_id
        self.value = value
        self.action = "name-double"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> NameDoubleButton:
        return cls(int(match["game"]), int(match["value"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, _table(interaction).on_name_double(interaction, self.game_id, self.value))


class SubmoveButton(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:sub:(?P<game>[0-9]+):(?P<version>[0-9]+):(?P<src>[0-9]+)-(?P<dst>[0-9]+)",
):
    """Move one checker by one die (``src`` to ``dst`` in the mover's numbering), for rolls with many plays."""

    def __init__(self, game_id: int, version: int, src: int, dst: int, *, row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"{point_label(src)}/{point_label(dst)}",
                style=discord.ButtonStyle.primary,
                custom_id=custom_id("sub", game_id, version, f"{src}-{dst}"),
                row=row,
            )
        )
        self.game_id = game_id
        self.version = version
        self.src = src
        self.dst = dst
        self.action = "submove"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SubmoveButton:
        return cls(int(match["game"]), int(match["version"]), int(match["src"]), int(match["dst"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(
            interaction, _table(interaction).on_submove(interaction, self.game_id, self.version, self.src, self.dst)
        )


class PlaySelect(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bg:play:(?P<game>[0-9]+):(?P<version>[0-9]+)",
):
    """Pick the whole play of this roll from the legal plays (shown when there are at most 25)."""

    def __init__(self, game_id: int, version: int, plays: tuple[str, ...] = ()) -> None:
        options = [discord.SelectOption(label=p[:100], value=p[:100]) for p in plays[:25]]
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id("play", game_id, version),
                placeholder=_("Pick your play"),
                options=options or [discord.SelectOption(label=_("no play"), value="-")],
                row=0,
            )
        )
        self.game_id = game_id
        self.version = version
        self.action = "move"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PlaySelect:
        return cls(int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = picked(interaction)
        play = str(values[0]) if values else ""
        await guarded(interaction, _table(interaction).on_play(interaction, self.game_id, self.version, play))


class SubmoveSelect(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bg:subs:(?P<game>[0-9]+):(?P<version>[0-9]+)",
):
    """Move one checker by one die, picked from a list (when there are too many checkers for buttons)."""

    def __init__(self, game_id: int, version: int, options: tuple[tuple[int, int], ...] = ()) -> None:
        choices = [
            discord.SelectOption(label=f"{point_label(s)}/{point_label(d)}", value=f"{s}-{d}") for s, d in options[:25]
        ]
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id("subs", game_id, version),
                placeholder=_("Move a checker"),
                options=choices or [discord.SelectOption(label=_("no move"), value="-")],
                row=0,
            )
        )
        self.game_id = game_id
        self.version = version
        self.action = "submove"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SubmoveSelect:
        return cls(int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = picked(interaction)
        src, _dash, dst = str(values[0] if values else "").partition("-")
        if not (src.isdigit() and dst.isdigit()):
            await refuse(interaction, _("Pick a checker move from the list."))
            return
        await guarded(
            interaction, _table(interaction).on_submove(interaction, self.game_id, self.version, int(src), int(dst))
        )


class ActingSelect(
    _GameItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bg:acting:(?P<game>[0-9]+):(?P<side>[01]):(?P<number>[0-9]+)",
):
    """Backgammon Doubles with team choice: pick who acts for the team in game ``number`` of the match.

    Posted in the team's private thread when a game starts. The custom id names the team (``side``) the select
    was posted for and the game it is about; the table checks both against the user who picks (never trusting
    them), and the game service decides whether the choice is allowed.
    """

    def __init__(
        self,
        game_id: int,
        side: int,
        number: int,
        members: tuple[tuple[str, str], ...] = (),
        current: str | None = None,
    ) -> None:
        options = [discord.SelectOption(label=name[:100], value=pid, default=pid == current) for pid, name in members]
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id("acting", game_id, side, number),
                placeholder=_("Who acts for your team this game?"),
                options=options or [discord.SelectOption(label=_("nobody"), value="-")],
                row=0,
            )
        )
        self.game_id = game_id
        self.side = side
        self.number = number
        self.action = "acting"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ActingSelect:
        return cls(int(match["game"]), int(match["side"]), int(match["number"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = picked(interaction)
        member = str(values[0]) if values else ""
        await guarded(
            interaction, _table(interaction).on_acting(interaction, self.game_id, self.side, self.number, member)
        )


class GamesPageButton(
    Localized,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:games:page:(?P<page>[0-9]+)",
):
    """Previous / Next under ``/bg games``: show another page of the presser's games (in the same private message).

    The list is always the presser's own (the message is ephemeral, so only its owner can press anyway)."""

    def __init__(self, page: int, label: str = "", *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or _("Page {page}").format(page=page),
                style=discord.ButtonStyle.secondary,
                custom_id=custom_id("games", "page", page),
                disabled=disabled,
            )
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GamesPageButton:
        return cls(int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, _show_games_page(interaction, self.page))


async def _show_games_page(interaction: discord.Interaction[Any], page: int) -> None:
    await answer_first(interaction)
    content, embed, ui = games_message(await games_page(interaction, page))
    try:
        await interaction.edit_original_response(content=content, embed=embed, view=ui)
    finally:
        if ui is not None:
            ui.stop()


class TourButton(
    Localized,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:tour:(?P<action>join|leave):(?P<tournament>[0-9]+)",
):
    """Join / Leave under a tournament's sign-up message: sign the presser up, or take their name off. The custom id
    names the tournament, so the buttons work after a restart; the tournaments cog (cogs/tour.py) does the rest."""

    LABELS: dict[str, tuple[str, discord.ButtonStyle]] = {
        "join": (N_("Join"), discord.ButtonStyle.success),
        "leave": (N_("Leave"), discord.ButtonStyle.secondary),
    }

    def __init__(self, action: str, tournament_id: int, *, disabled: bool = False) -> None:
        label, style = self.LABELS[action]
        super().__init__(
            discord.ui.Button(
                label=_(label), style=style, custom_id=custom_id("tour", action, tournament_id), disabled=disabled
            )
        )
        self.action = action
        self.tournament_id = tournament_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TourButton:
        return cls(match["action"], int(match["tournament"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog: Any = getattr(interaction.client, "get_cog", lambda _name: None)("Tournaments")
        if cog is None:
            await refuse(interaction, _("Tournaments are not available on this bot right now."))
            return
        await guarded(interaction, cog.on_button(interaction, self.action, self.tournament_id))


class TeamButton(
    Localized,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:tour:team-(?P<answer>yes|no):(?P<tournament>[0-9]+):(?P<captain>[^:]+)",
):
    """Accept / Decline under a team's invitation to a tournament: the named teammate says yes (the team is entered)
    or no. The custom id names the tournament and the player who asked; the service checks who presses."""

    LABELS: dict[str, tuple[str, discord.ButtonStyle]] = {"yes": ACTIONS["accept"], "no": ACTIONS["decline"]}

    def __init__(self, answer: str, tournament_id: int, captain: str, *, disabled: bool = False) -> None:
        label, style = self.LABELS[answer]
        super().__init__(
            discord.ui.Button(
                label=_(label),
                style=style,
                custom_id=custom_id("tour", f"team-{answer}", tournament_id, captain),
                disabled=disabled,
            )
        )
        self.answer = answer
        self.tournament_id = tournament_id
        self.captain = captain

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TeamButton:
        return cls(match["answer"], int(match["tournament"]), match["captain"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog: Any = getattr(interaction.client, "get_cog", lambda _name: None)("Tournaments")
        if cog is None:
            await refuse(interaction, _("Tournaments are not available on this bot right now."))
            return
        await guarded(
            interaction, cog.on_team_button(interaction, self.answer == "yes", self.tournament_id, self.captain)
        )


def team_controls(tournament_id: int, captain: str) -> discord.ui.View:
    """Accept and Decline, under a team's invitation to a tournament."""
    ui = discord.ui.View(timeout=None)
    ui.add_item(TeamButton("yes", tournament_id, captain))
    ui.add_item(TeamButton("no", tournament_id, captain))
    return ui


def signup_controls(tournament_id: int) -> discord.ui.View:
    """Join and Leave, under a tournament's sign-up message."""
    ui = discord.ui.View(timeout=None)
    ui.add_item(TourButton("join", tournament_id))
    ui.add_item(TourButton("leave", tournament_id))
    return ui


#: Discord's limit on an embed's description.
MAX_DESCRIPTION = 4096


def games_message(shown: GamesPage) -> tuple[str, discord.Embed, discord.ui.View | None]:
    """A page of ``/bg games`` as a message: a heading, the games (in an embed, which holds twenty long lines), and
    Previous / Next buttons when there is more than one page."""
    content = ngettext(
        "Your games and challenges, those waiting for you first: {count} in all.",
        "Your games and challenges, those waiting for you first: {count} in all.",
        shown.total,
    ).format(count=shown.total)
    if shown.pages > 1:
        page = _("Page {page} of {pages} (`/bg games page:<number>` shows any page).")
    else:
        page = _("Page {page} of {pages}.")
    content += " " + page.format(page=shown.page, pages=shown.pages)
    embed = discord.Embed(description=lines_within(list(shown.lines), MAX_DESCRIPTION))
    total = ngettext("{count} game or challenge", "{count} games and challenges", shown.total).format(count=shown.total)
    embed.set_footer(text=_("Page {page} of {pages} · {total}").format(page=shown.page, pages=shown.pages, total=total))
    if shown.pages == 1:
        return content, embed, None
    ui = discord.ui.View(timeout=None)
    ui.add_item(GamesPageButton(max(shown.page - 1, 0), _("Previous"), disabled=shown.page <= 1))
    ui.add_item(GamesPageButton(shown.page + 1, _("Next"), disabled=shown.page >= shown.pages))
    return content, embed, ui


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ResignButton,
    SubmoveButton,
    PlaySelect,
    SubmoveSelect,
    ActionButton,
    ActingSelect,
    GamesPageButton,
    TourButton,
    TeamButton,
    NameDoubleButton,
)
