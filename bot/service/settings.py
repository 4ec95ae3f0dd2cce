"""Player and server settings, board themes and rule sets."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from engine import i18n
from engine.i18n import _
from engine.match import MatchOptions
from engine.options import OptionError, check_defaults
from engine.options import parse as parse_options
from engine.plugins import UnknownVariant, registry
from engine.terms import describe, suggest
from engine.variant import Variant

from ..storage import Unavailable
from .core import ServiceCore
from .helpers import _coerce, _time_control
from .missing import stored_class
from .types import GUILD_DEFAULTS, PLAYER_DEFAULTS, Refused, Request

log = logging.getLogger("gammonbot.service")

#: Seconds a server's language setting is taken from memory (every interaction asks for it); a change made through
#: this process is seen at once, one made through another process within this many seconds.
LANGUAGE_TTL = 30.0
#: The ``language`` setting that follows the server: its Discord language, else its members', else English.
AUTO = "auto"
#: How many (server, player) locales are remembered as stored, at most.
LOCALES_SEEN = 100_000


class SettingsMixin(ServiceCore):
    """Player and server settings, board themes and rule sets."""

    @property
    def theme_names(self) -> list[str]:
        """The board themes players may choose."""
        return self.render_config.theme_names()

    # --- rule sets ------------------------------------------------------------------------------
    @staticmethod
    def variants() -> list[type[Variant]]:
        """Every registered rule set, by name."""
        reg = registry()
        return [reg.variants[n] for n in reg.names()]

    @staticmethod
    def rules(name: str) -> str:
        """The rules summary of a rule set (by name or alias)."""
        try:
            cls = registry().find(name)
        except UnknownVariant as exc:
            raise Refused(str(exc)) from None
        text = _("{rule_set}: {summary}").format(rule_set=_(cls.display_name), summary=_(cls.summary))
        # The summary says how the checkers move (a rule set without the cube says so there); the cube is the
        # match's rule, shown in every status line, so the rules say it is used.
        return f"{text} {_('Played with the doubling cube.')}" if cls.uses_cube else text

    # --- settings -------------------------------------------------------------------------------
    async def player_settings(self, player: Request, **changes: Any) -> dict[str, Any]:
        """The asker's own settings after applying ``changes`` (unknown keys and bad values are refused).

        A player's settings are theirs in every server (they are about how they like to play and see boards)."""
        current = await self.settings_of(player.id)
        for key, value in changes.items():
            if key not in PLAYER_DEFAULTS:
                raise Refused(
                    _("there is no player setting {setting}; settings: {settings}").format(
                        setting=repr(key), settings=", ".join(PLAYER_DEFAULTS)
                    )
                )
            current[key] = _coerce(key, value, PLAYER_DEFAULTS[key])
            if key == "home" and current[key] not in ("right", "left"):
                raise Refused(_("home must be right or left"))
            if key == "theme":
                current[key] = self._theme_name(str(current[key]))
        if changes:
            await self.store.save_player(player.id, player.name, current, guild_id=player.guild_id)
        return current

    def _theme_name(self, value: str) -> str:
        """A board theme a player may choose: one of the configured themes ("default": the server's)."""
        key = value.strip().lower() or "default"
        if self.render_config.has_theme(key):
            return key
        names = ", ".join(self.render_config.theme_names())
        raise Refused(
            _("there is no board theme {theme}; themes: default, {themes}").format(theme=repr(value[:40]), themes=names)
        )

    async def settings_of(self, player_id: str) -> dict[str, Any]:
        """Another player's settings, read for what the service and transports do for them (drawing their board,
        direct-message reminders); a player changes their own with :meth:`player_settings`."""
        return {**PLAYER_DEFAULTS, **await self.store.player_settings(player_id)}

    async def server_settings(self, guild_id: str) -> dict[str, Any]:
        """The settings of the server of a game already found (what the service and transports act on)."""
        return {**self.guild_defaults, **await self.store.guild_settings(guild_id)}

    async def guild_settings(self, who: Request, **changes: Any) -> dict[str, Any]:
        """The asker's server's settings after applying ``changes``; only that server's admins may change them."""
        if who.guild_id is None:
            raise Refused(_("server settings are set in the server, not in a direct message"))
        guild_id = who.guild_id
        current = await self.server_settings(guild_id)
        if not changes:
            return current
        if not who.admin:
            raise Refused(_("only a server admin (Manage Server permission) can change the server's settings"))
        for key, value in changes.items():
            if key not in GUILD_DEFAULTS:
                raise Refused(
                    _("there is no server setting {setting}; settings: {settings}").format(
                        setting=repr(key), settings=", ".join(GUILD_DEFAULTS)
                    )
                )
            if key == "default_variant":
                value = self._variant_class(str(value)).name
            elif key == "allowed_variants":
                if value is not None:
                    names = value.split(",") if isinstance(value, str) else list(value)
                    value = sorted({self._variant_class(n.strip()).name for n in names if n.strip()}) or None
            elif key == "default_length":
                value = _coerce(key, value, 0)
                if value < 0:
                    raise Refused(_("the default match length cannot be negative (0 means money play)"))
            elif key == "team_thread_fallback":
                value = str(value).strip().lower()
                if value not in ("dm", "refuse"):
                    raise Refused(_("the team thread fallback is dm (direct messages) or refuse"))
            elif key == "default_options":
                value = self._default_options(value, current)
            elif key == "language":
                value = language_setting(value)
            current[key] = value
        await self.store.save_guild_settings(guild_id, current)
        self._language_memo.pop(guild_id, None)
        return current

    async def server_language(self, guild_id: str | None, preferred: str | None = None) -> str:
        """The language of what the bot posts for everyone in a server (game threads, timers' messages): its
        ``language`` setting, or when that is ``auto``: the server's own language where it has one that means
        something (``preferred``, a locale tag such as ``"ru"``, or the one the transport told with
        :meth:`server_locale`; Discord: a Community server's preferred locale), if it is a shipped language; else the
        shipped language most of the server's players' clients show (:meth:`note_locale`); else English. A direct
        message (``guild_id`` None) has no server: ``preferred`` or English. Always one of
        :data:`engine.i18n.LANGUAGES` (or the tests' pseudo-language, when ``preferred`` names it).

        Cheap to call per interaction: the setting is read through a memo (:data:`LANGUAGE_TTL`); a database
        that does not answer gives the last value known (else ``preferred`` or English), never a refusal."""
        if guild_id is None:
            return i18n.normalize(preferred) or i18n.DEFAULT
        setting = await self._language_setting(guild_id)
        if setting in i18n.LANGUAGES:
            return setting
        own = i18n.normalize(preferred) or i18n.normalize(self._discord_locales.get(guild_id))
        return own or await self.members_language(guild_id) or i18n.DEFAULT

    def server_locale(self, guild_id: str, locale: str | None) -> None:
        """The server's own language as the transport knows it (Discord: a Community server's preferred locale;
        None: it has none that means anything, as a server that is not a Community server always reports en-US)."""
        if len(self._discord_locales) >= 100_000:
            self._discord_locales.clear()
        self._discord_locales[guild_id] = locale

    async def note_locale(self, guild_id: str, player_id: str, locale: str | None) -> None:
        """A player used the bot in a server with their client in ``locale``: remembered (stored when it changed),
        for :meth:`members_language`. Never raises: a database that does not answer only means it is noted later."""
        if not locale or not player_id.isdigit():
            return
        key = (guild_id, player_id)
        if self._locales_seen.get(key) == locale:
            return
        try:
            await self.store.note_locale(guild_id, player_id, locale)
        except Exception as exc:  # a locale is worth no refusal
            log.info("server %s: a player's locale was not stored (%s)", guild_id, exc)
            return
        if len(self._locales_seen) >= LOCALES_SEEN:
            self._locales_seen.clear()
        self._locales_seen[key] = locale
        self._members_memo.pop(guild_id, None)

    async def members_language(self, guild_id: str) -> str | None:
        """The shipped language most of a server's players' clients show (None: none of them shows one)."""
        now = time.monotonic()
        memo = self._members_memo.get(guild_id)
        if memo is not None and memo[0] > now:
            return memo[1]
        try:
            counts = await self.store.locales_of(guild_id)
        except Unavailable:
            return memo[1] if memo is not None else None
        votes: dict[str, int] = {}
        for locale, n in counts.items():
            lang = i18n.normalize(locale)  # a shipped language (or the tests' pseudo-language), else None
            if lang is not None:
                votes[lang] = votes.get(lang, 0) + n
        # The most players; on a tie, English (the bot's own), then the first by name.
        found = min(votes, key=lambda lang: (-votes[lang], lang != i18n.DEFAULT, lang)) if votes else None
        if len(self._members_memo) >= 100_000:
            self._members_memo.clear()
        self._members_memo[guild_id] = (now + LANGUAGE_TTL, found)
        return found

    async def _language_setting(self, guild_id: str) -> str:
        """A server's ``language`` setting, through the memo."""
        now = time.monotonic()
        memo = self._language_memo.get(guild_id)
        if memo is not None and memo[0] > now:
            setting = memo[1]
        else:
            try:
                setting = str((await self.server_settings(guild_id)).get("language") or AUTO)
            except Unavailable:
                log.warning("server %s: its language setting could not be read; using the last known", guild_id)
                setting = memo[1] if memo is not None else AUTO
            else:
                if len(self._language_memo) >= 100_000:
                    self._language_memo.clear()
                self._language_memo[guild_id] = (now + LANGUAGE_TTL, setting)
        return setting

    def _default_options(self, value: Any, current: Mapping[str, Any]) -> dict[str, Any]:
        """Server default options from an options string (``jacoby beavers koks=on``), a JSON object or a mapping,
        checked together for money play and for matches; stored flat (``longgammon.koks`` for a rule set's)."""
        if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "{}")):
            return {}
        if isinstance(value, str) and value.strip().startswith("{"):
            try:
                value = json.loads(value)
            except ValueError as exc:
                raise Refused(
                    _("default_options is an options string (like jacoby beavers) or a JSON object: {reason}").format(
                        reason=exc
                    )
                ) from None
            if not isinstance(value, dict):
                raise Refused(_("default_options is an options string (like jacoby beavers) or a JSON object"))
        if not isinstance(value, str | Mapping):
            raise Refused(_("default_options is an options string, like jacoby beavers max_cube=16"))
        rule_sets = self.variants()
        try:
            chosen = parse_options(value, rule_sets)
            check_defaults(chosen, rule_sets, int(current["default_length"]))
        except OptionError as exc:
            raise Refused(_("default options: {reason}").format(reason=exc)) from None
        return chosen.to_data()

    def options_text(self, stored: Mapping[str, Any] | None) -> str:
        """A server's stored default options as the options string that sets them ("none" when there are none)."""
        chosen = parse_options(dict(stored or {}), self.variants(), lenient=True)
        return chosen.text() or _("none")

    async def option_suggestions(
        self, who: Request, typed: str, *, variant: str | None = None, length: int | None = None, server: bool = False
    ) -> list[tuple[str, str]]:
        """Completions of a half-typed options string, as (label, whole text): for a challenge of ``variant`` (the
        server's default rule set and length when not given), or (``server``) for the server's defaults."""
        rule_sets = self.variants()
        if server:
            return suggest(typed, rule_sets)
        settings = await self.server_settings(who.guild_id) if who.guild_id is not None else dict(self.guild_defaults)
        try:
            cls = registry().find(variant or settings["default_variant"])
        except UnknownVariant:
            if not registry().has(settings["default_variant"]):  # the server's default is not installed now
                return suggest(typed, rule_sets)
            cls = registry().find(settings["default_variant"])
        length = settings["default_length"] if length is None else length
        return suggest(typed, rule_sets, rule_set=cls, money=int(length) == 0)

    async def match_terms(self, game_id: int, who: Request) -> list[str]:
        """The terms in force for a game, in words, one line each: length, cube rules, how games start and end, the
        rule set's options, the clock and whether it is rated."""
        loaded = await self._load(game_id, who)
        row = loaded.row
        if loaded.state is not None:
            opts = loaded.state.options
            lines = describe(loaded.state.setup.variant, opts, loaded.state.game)
            terms = row.setup.get("terms", {})
        else:
            terms = row.setup
            cls = stored_class(terms.get("variant", row.variant), game_id)
            try:
                variant = cls(**dict(terms.get("variant_options") or {}))
                opts = MatchOptions(**dict(terms.get("options") or {}))
            except (ValueError, TypeError) as exc:
                raise Refused(
                    _("the terms of game #{game} cannot be read: {reason}").format(game=game_id, reason=exc)
                ) from None
            lines = describe(variant, opts)
        tc = _time_control(row.setup.get("time_control", terms.get("time_control")))
        lines.append(_("Clock: {clock}").format(clock=tc.describe()) if tc is not None else _("Clock: none"))
        rated = bool(terms.get("rated", True)) and not opts.money
        lines.append(
            _("Rated: yes") if rated else _("Rated: no (money play and matches against the bot are not rated)")
        )
        return lines

    @staticmethod
    def _variant_class(name: str) -> type[Variant]:
        try:
            return registry().find(name)
        except UnknownVariant as exc:
            raise Refused(str(exc)) from None


def language_choices() -> str:
    """The values of the ``language`` server setting, for a refusal or a help text: ``en (English), ru (Русский),
    …``."""
    return ", ".join(f"{code} ({i18n.LANGUAGE_NAMES[code]})" for code in i18n.LANGUAGES)


def language_setting(value: Any) -> str:
    """A ``language`` server setting as stored: a shipped language's code (from a code, a locale tag like ``ru-RU``
    or the language's own name), or ``auto`` (also for nothing, ``none`` or ``default``); Refused otherwise."""
    text = "" if value is None else str(value).strip()
    low = text.lower()
    if low in ("", AUTO, "none", "default"):
        return AUTO
    for code, name in i18n.LANGUAGE_NAMES.items():
        if low == name.lower():
            return code
    shipped = i18n.normalize(low)
    if shipped is not None and shipped in i18n.LANGUAGES:
        return shipped
    raise Refused(
        _(
            "there is no language {value} here: the server language is one of {choices}, or auto (the server's "
            "Discord language, else English)"
        ).format(value=repr(text[:40]), choices=language_choices())
    )
