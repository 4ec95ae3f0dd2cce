"""State -> buttons: the components a game message carries, drawn from what the engine says the state allows.

The Discord layer holds no rule of its own. Which buttons a turn message shows (Roll, Double, Take, Pass, Beaver,
Raccoon, Resign…, the resignation answers, End session between games of a money session) and which levels the Resign…
chooser offers, in the rule set's words, come from
:func:`engine.controls.allowed_actions`, the one tested function that lists what the engine would accept now. This
module only lays those answers out as components, with the sentence calling the players to act. Everything here is
pure: the table gathers the state and the legal checker moves, then calls :func:`turn_controls`.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from engine.controls import Allowed, PlayStatus
from engine.i18n import _, ngettext
from engine.match import Phase

from ..service import GameView
from .components import (
    ActingSelect,
    ActionButton,
    NameDoubleButton,
    PlaySelect,
    ResignButton,
    SubmoveButton,
    SubmoveSelect,
)
from .limits import MAX_SELECT_OPTIONS
from .text import callers, clip, mention, safe, team_name

__all__ = [
    "turn_controls",
    "challenge_controls",
    "resign_chooser",
    "acting_question",
    "MAX_SELECT",
    "MAX_SUBMOVE_BUTTONS",
]

#: A select lists at most 25 options; above that the roll is played checker by checker.
MAX_SELECT = MAX_SELECT_OPTIONS
#: Four rows of five submove buttons; the fifth row holds Undo, Confirm and Resign.
MAX_SUBMOVE_BUTTONS = 20


def challenge_controls(view: GameView) -> discord.ui.View:
    """Accept and Decline, under a challenge."""
    ui = discord.ui.View(timeout=None)
    ui.add_item(ActionButton("accept", view.id))
    ui.add_item(ActionButton("decline", view.id))
    return ui


def resign_chooser(game_id: int, levels: Sequence[int], names: Sequence[str] = ()) -> discord.ui.View:
    """The resignation levels that may be offered now (the engine's answer), one button each, labelled with the rule
    set's names of them (``Allowed.resign_names``)."""
    ui = discord.ui.View(timeout=None)
    for k, level in enumerate(levels):
        ui.add_item(ResignButton(game_id, level, names[k] if k < len(names) else ""))
    return ui


def turn_controls(
    view: GameView, allowed: Allowed, submoves: Sequence[tuple[int, int]] = ()
) -> tuple[discord.ui.View, str]:
    """The components of the message calling the players to act, and its sentence.

    ``allowed``: :func:`engine.controls.allowed_actions` of the game's state (for the side due to act).
    ``submoves``: the checker moves that may be made next, when the roll is played checker by checker (more legal
    plays than a select lists, or a draft begun). Undo and Confirm follow the draft the service keeps.
    """
    ui = discord.ui.View(timeout=None)
    gid = view.id
    who = " ".join(mention(p) for p in callers(view))
    resign = allowed.resign
    # Between games of a money session either side may end it (the score stands).
    end = " " + _("Or end the session here: the score stands.") if allowed.end_session else ""
    if view.phase == Phase.OPENING:
        if allowed.roll:
            ui.add_item(ActionButton("roll", gid))
        if allowed.end_session:
            ui.add_item(ActionButton("end-session", gid))
        choose = ""
        if any(allowed.choose_acting):
            choose = " " + _(
                "Each team may choose who acts this game, in its private team thread, until it first moves."
            )
        return ui, _("{players}: roll the opening dice (either of you).").format(players=who) + choose + end
    if view.phase == Phase.NAME_DOUBLE:
        # After a 1-2 used in full: any doublet may be named (the engine's answer), five buttons a row.
        for k, value in enumerate(allowed.name_doubles):
            ui.add_item(NameDoubleButton(gid, value, row=k // 5))
        if resign:
            ui.add_item(ActionButton("resign", gid, row=2))
        return ui, _(
            "{player}: you used your 1-2: name a doublet to play (then, if you play all four, roll again)."
        ).format(player=who)
    if view.phase == Phase.ROLL:
        if allowed.roll:
            ui.add_item(ActionButton("roll", gid))
        if allowed.double:
            ui.add_item(ActionButton("double", gid))
        if resign:
            ui.add_item(ActionButton("resign", gid))
        if allowed.end_session:
            ui.add_item(ActionButton("end-session", gid))
        if allowed.double:
            return ui, _("{player}: your roll (or double).").format(player=who) + end
        return ui, _("{player}: your roll.").format(player=who) + end
    if view.phase == Phase.MOVE and allowed.play is not PlayStatus.NONE:
        dice = f"{view.dice[0]}-{view.dice[1]}" if view.dice else _("your roll")
        if len(view.plays) <= MAX_SELECT and not view.draft:
            ui.add_item(PlaySelect(gid, view.version, view.plays))
            if resign:
                ui.add_item(ActionButton("resign", gid, row=1))
            return ui, _("{player}: play {dice}: pick your play below, or type it with `/bg move`.").format(
                player=who, dice=dice
            )
        if len(submoves) <= MAX_SUBMOVE_BUTTONS:
            for k, (src, dst) in enumerate(submoves):
                ui.add_item(SubmoveButton(gid, view.version, src, dst, row=k // 5))
        else:
            ui.add_item(SubmoveSelect(gid, view.version, tuple(submoves)))
        complete = bool(view.draft) and not view.draft_remaining
        ui.add_item(ActionButton("undo", gid, disabled=not view.draft, row=4))
        ui.add_item(ActionButton("confirm", gid, disabled=not complete, row=4))
        if resign:
            ui.add_item(ActionButton("resign", gid, row=4))
        so_far = " " + _("So far: {draft}.").format(draft=view.draft) if view.draft else ""
        left = ", ".join(map(str, view.draft_remaining))
        todo = _("dice left: {dice}").format(dice=left) if left else _("all dice used: Confirm, or Undo")
        count = len(view.plays)
        head = ngettext(
            "{player}: play {dice} checker by checker ({count} possible play; {todo}).",
            "{player}: play {dice} checker by checker ({count} possible plays; {todo}).",
            count,
        ).format(player=who, dice=dice, count=count, todo=todo)
        return ui, head + so_far + " " + _("Or type the whole play with `/bg move`.")
    if view.phase == Phase.DOUBLED:
        for action, ok in (
            ("take", allowed.take),
            ("pass", allowed.pass_),
            ("beaver", allowed.beaver),
            ("raccoon", allowed.raccoon),
        ):
            if ok:
                ui.add_item(ActionButton(action, gid))
        return ui, _("{player}: the cube is offered at {value}: take or pass?").format(player=who, value=view.cube * 2)
    if view.phase == Phase.RESIGNED:
        if allowed.accept_resignation:
            ui.add_item(ActionButton("resign-accept", gid))
        if allowed.reject_resignation:
            ui.add_item(ActionButton("resign-reject", gid))
        return ui, _("{player}: accept or reject the resignation.").format(player=who)
    return ui, ""


def acting_question(view: GameView, side: int, note: str = "") -> tuple[str, discord.ui.View]:
    """Team choice (Backgammon Doubles): the question, for team ``side``'s room, of who acts for it in the game at
    hand, with a select of the two members (the one acting now preselected). ``note`` is safe text."""
    members = view.sides[side]
    acting = view.acting[side] if view.acting is not None else None
    ui = discord.ui.View(timeout=None)
    ui.add_item(ActingSelect(view.id, side, view.game, tuple((p, view.name(p)) for p in members), acting))
    text = _(
        "{members}: **game {number}** of match #{match} — who acts for your team ({team})? The acting member rolls, "
        "moves and handles the cube; the other consults here. {note}**{acting}** acts now; you may change it below "
        "until your team first moves this game."
    ).format(
        members=" ".join(mention(p) for p in members),
        number=view.game,
        match=view.id,
        team=team_name(view, side),
        note=note,
        acting=safe(view.name(acting)),
    )
    return clip(text), ui
