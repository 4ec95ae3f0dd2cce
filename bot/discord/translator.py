"""The slash commands in the players' languages: Discord's command localizations, from the ``commands`` catalog.

Discord shows a command's description, its options' descriptions and its choices in the language of each player's
client, when the bot registers translations for that locale (``description_localizations`` and the like).
discord.py asks an :class:`app_commands.Translator` for them when the tree is synced; :class:`CommandTranslator`
answers from the ``commands`` catalog (``engine/i18n/locale/<lang>/LC_MESSAGES/commands.po``) for the Discord
locales of the shipped languages (``ru``, ``el``, ``tr``). ``GammonBot.setup_hook`` installs it with
``tree.set_translator`` before syncing.

**Names stay English.** Command, group and option names (``/bg play``, ``opponent``) are not translated: the
translator returns None for them. Every message, the help pages and the README quote them as typed, the console
uses the same words, and a player switching their client's language would otherwise find every command renamed.
Only descriptions and choice names are translated.

**Discord's limits.** A description and a choice name are 1 to 100 characters. A translation that does not fit is
not used (the English text stands): ``tests/bot/discord/test_i18n_discord.py`` checks every one of them.

**The catalog.** Its messages are not in the source as ``_()`` calls: they are the descriptions and choice names of
the command tree as the bot builds it (every cog loaded, including the docstrings that describe commands). So the
tree is built offline, without Discord (a bot on a throw-away SQLite database, its cogs loaded, nothing synced), and
walked::

    python -m bot.discord.catalog update    # writes engine/i18n/locale/commands.pot and merges every .po

(``gammonbot i18n update`` also does it: :mod:`.catalog`.) Then translate with
``python -m engine.i18n.catalogs fill commands LANG FILE.json`` and check with
``python -m engine.i18n.catalogs check commands``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from babel.messages.catalog import Catalog
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from engine import i18n

from .limits import MAX_CHOICE_NAME, MAX_DESCRIPTION

__all__ = [
    "CommandTranslator",
    "LOCALES",
    "MAX_DESCRIPTION",
    "MAX_CHOICE",
    "NAMES",
    "tree_messages",
    "template",
]

#: The Discord locales the shipped languages are registered for (English is Discord's default text).
LOCALES: dict[discord.Locale, str] = {
    discord.Locale.russian: "ru",
    discord.Locale.greek: "el",
    discord.Locale.turkish: "tr",
}
#: Discord's limits on a description and on a choice's name (:mod:`.limits`).
MAX_CHOICE = MAX_CHOICE_NAME
#: What is never translated: the names players type.
NAMES = frozenset({Where.command_name, Where.group_name, Where.parameter_name})
#: Choice names that are already in their own language (``/bg-admin config language``'s).
NATIVE = frozenset(i18n.LANGUAGE_NAMES.values())


def _limit(location: Where) -> int:
    return MAX_CHOICE if location is Where.choice_name else MAX_DESCRIPTION


class CommandTranslator(app_commands.Translator):
    """Descriptions and choice names from the ``commands`` catalog; None (Discord shows the English) for names, for
    other locales, for texts the catalog lacks, and for translations beyond Discord's limits."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        return self.lookup(string.message, locale, context.location)

    @staticmethod
    def lookup(message: str, locale: discord.Locale | str, location: Where) -> str | None:
        """The translation of one text of the command tree (None: keep the English)."""
        if location in NAMES or message in NATIVE:
            return None
        lang = LOCALES.get(locale) if isinstance(locale, discord.Locale) else i18n.normalize(locale)
        if lang is None or lang == i18n.DEFAULT:
            return None
        text = i18n.translation(lang).gettext(message)
        if not text or text == message or len(text) > _limit(location):
            return None
        return text


# --- the catalog: extracted from the command tree -------------------------------------------------------------------
def _walk(tree: app_commands.CommandTree[Any]) -> Iterator[tuple[str, str, str]]:
    """Every translatable text of the tree: (text, where it is, what it is), in the tree's order."""
    for command in tree.walk_commands():
        path = "/" + command.qualified_name.replace(" ", "/")
        if isinstance(command, app_commands.Group):
            yield command.description, path, f"Description of the command group /{command.qualified_name}."
            continue
        if not isinstance(command, app_commands.Command):
            continue
        yield command.description, path, f"Description of the command /{command.qualified_name}."
        for param in command.parameters:
            where = f"{path}:{param.name}"
            yield param.description, where, f"Description of the option {param.name} of /{command.qualified_name}."
            for choice in param.choices:
                what = f"A choice of the option {param.name} of /{command.qualified_name} (its value: {choice.value})."
                yield choice.name, where, what


def tree_messages(tree: app_commands.CommandTree[Any]) -> list[tuple[str, list[str], list[str]]]:
    """The texts to translate: (text, where each use is, what each is), once per text, in the tree's order. Texts in
    their own language (the language names of ``/bg-admin config``) and descriptions Discord fills in itself (``…``)
    are left out."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for text, where, what in _walk(tree):
        if not text or text == "…" or text in NATIVE:
            continue
        places, notes = found.setdefault(text, ([], []))
        if where not in places:
            places.append(where)
        if what not in notes:
            notes.append(what)
    return [(text, places, notes) for text, (places, notes) in found.items()]


def template(tree: app_commands.CommandTree[Any]) -> Catalog:
    """The ``commands`` catalog template of a command tree."""
    catalog = Catalog(domain="commands", project="gammonbot", version="1", charset="utf-8")
    for text, places, notes in tree_messages(tree):
        limit = "at most 100 characters"
        catalog.add(text, None, [(p, 0) for p in places], auto_comments=[*notes, f"Discord shows {limit}."])
    return catalog
