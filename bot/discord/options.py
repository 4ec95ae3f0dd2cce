"""What players type into command options: rule sets, time controls and plays, suggested as they type.

:class:`RuleSet` turns a typed rule set (name, display name or alias) into its registered name. The ``*_choices``
functions are the suggestions behind autocompleted options; :func:`match_plays` filters the legal plays by what is
typed (``/bg move``, ``/bg-team propose``).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from engine.i18n import LANGUAGE_NAMES, _, pgettext

from ..service import GameService, Refused, Request
from .context import MAX_CHOICES, bot_of

__all__ = [
    "RuleSet",
    "variant_choices",
    "clock_choices",
    "clock_preset",
    "match_plays",
    "option_choices",
    "SETTING_WORDS",
    "show",
]


def _service(interaction: discord.Interaction[Any]) -> GameService:
    return bot_of(interaction).service


def variant_choices(service: GameService, current: str) -> list[app_commands.Choice[str]]:
    """The rule sets whose name, display name or alias contains what is typed."""
    key = current.strip().lower()
    out = []
    for cls in service.variants():
        shown = _(cls.display_name)
        words = [cls.name, cls.display_name.lower(), shown.lower(), *cls.aliases]
        if not key or any(key in w.lower() for w in words):
            out.append(app_commands.Choice(name=shown[:100], value=cls.name))
    return out[:MAX_CHOICES]


class RuleSet(app_commands.Transformer):
    """A rule set typed or picked from the suggestions (name, display name or alias) -> its registered name.

    Unknown text passes through unchanged, so that the service refuses it with the list of rule sets (a
    transformer error would only earn the player a generic apology).
    """

    async def transform(self, interaction: discord.Interaction[Any], value: str) -> str:
        key = value.strip().lower()
        for cls in _service(interaction).variants():
            if key in (
                cls.name,
                cls.display_name.lower(),
                _(cls.display_name).lower(),
                *(a.lower() for a in cls.aliases),
            ):
                return cls.name
        return value.strip()

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: str
    ) -> list[app_commands.Choice[str]]:
        return variant_choices(_service(interaction), value)


def clock_choices(service: GameService, current: str) -> list[app_commands.Choice[str]]:
    """The time-control presets matching what is typed, each with its summary."""
    key = current.strip().lower()
    out = []
    for tc in service.time_controls():
        shown = _(tc.display_name)
        words = [tc.name, tc.display_name.lower(), shown.lower(), *tc.aliases]
        if not key or any(key in w.lower() for w in words):
            label = f"{shown}: {_(tc.summary)}" if tc.summary else shown
            out.append(app_commands.Choice(name=label[:100], value=tc.name))
    return out[:MAX_CHOICES]


def clock_preset(service: GameService, name: str) -> str | None:
    """A typed time control -> its preset name (None: no clock); refused with the list of presets."""
    key = name.strip().lower()
    if key in ("", "none", "off", "no clock"):
        return None
    for tc in service.time_controls():
        if key in (tc.name, tc.display_name.lower(), *tc.aliases):
            return tc.name
    names = ", ".join(tc.name for tc in service.time_controls())
    raise Refused(
        _("There is no time control {name}; presets: {presets} (or none).").format(name=repr(name), presets=names)
    )


async def option_choices(
    service: GameService,
    who: Request,
    current: str,
    *,
    variant: str | None = None,
    length: Any = None,
    server: bool = False,
) -> list[app_commands.Choice[str]]:
    """Completions of a half-typed options string (``/bg play options``, ``/bg-admin config options``): the last word
    completed from the match options and the rule set's options (every rule set's, for a server's defaults); a
    first suggestion says what cannot be read in what is typed before it."""
    try:
        count = int(length) if length is not None and str(length).strip() else None
    except ValueError:
        count = None
    try:
        pairs = await service.option_suggestions(
            who, current, variant=variant if isinstance(variant, str) else None, length=count, server=server
        )
    except Refused:
        return []
    return [app_commands.Choice(name=label[:100] or value[:100], value=value[:100]) for label, value in pairs][
        :MAX_CHOICES
    ]


def match_plays(plays: tuple[str, ...], typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """The legal plays matching what is typed so far: prefix matches first, then plays containing it."""
    words = typed.strip().lower().split()
    if not words:
        return list(plays[:limit])
    key = " ".join(words)
    starts = [p for p in plays if p.lower().startswith(key)]
    contains = [p for p in plays if p not in starts and all(w in p.lower() for w in words)]
    return (starts + contains)[:limit]


#: Settings whose None reads "all" rather than "none".
SETTING_WORDS = {"allowed_variants": "all"}


def show(value: Any, key: str = "") -> str:
    """A setting's value for players: on/off, lists, or ``none`` (in the reader's language; the server's language by
    its own name)."""
    none = pgettext("setting value", "none")
    if key == "language":
        return LANGUAGE_NAMES.get(str(value), pgettext("setting value", "auto (the server's language in Discord)"))
    if value is None:
        return pgettext("setting value", "all") if SETTING_WORDS.get(key) == "all" else none
    if isinstance(value, bool):
        return pgettext("setting value", "on") if value else pgettext("setting value", "off")
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or none
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or none
    return str(value)
