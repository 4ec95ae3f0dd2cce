"""Player and server settings, board themes and rule sets."""

from __future__ import annotations

from typing import Any

from engine.plugins import UnknownVariant, registry
from engine.variant import Variant

from .core import ServiceCore
from .helpers import _coerce, _match_options
from .types import GUILD_DEFAULTS, PLAYER_DEFAULTS, Refused, Request


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
        return f"{cls.display_name}: {cls.summary}"

    # --- settings -------------------------------------------------------------------------------
    async def player_settings(self, player: Request, **changes: Any) -> dict[str, Any]:
        """The asker's own settings after applying ``changes`` (unknown keys and bad values are refused).

        A player's settings are theirs in every server (they are about how they like to play and see boards)."""
        current = await self.settings_of(player.id)
        for key, value in changes.items():
            if key not in PLAYER_DEFAULTS:
                raise Refused(f"there is no player setting {key!r}; settings: {', '.join(PLAYER_DEFAULTS)}")
            current[key] = _coerce(key, value, PLAYER_DEFAULTS[key])
            if key == "home" and current[key] not in ("right", "left"):
                raise Refused("home must be right or left")
            if key == "theme":
                current[key] = self._theme_name(str(current[key]))
        if changes:
            await self.store.save_player(player.id, player.name, current)
        return current

    def _theme_name(self, value: str) -> str:
        """A board theme a player may choose: one of the configured themes ("default": the server's)."""
        key = value.strip().lower() or "default"
        if self.render_config.has_theme(key):
            return key
        names = ", ".join(self.render_config.theme_names())
        raise Refused(f"there is no board theme {value[:40]!r}; themes: default, {names}")

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
            raise Refused("server settings are set in the server, not in a direct message")
        guild_id = who.guild_id
        current = await self.server_settings(guild_id)
        if not changes:
            return current
        if not who.admin:
            raise Refused("only a server admin (Manage Server permission) can change the server's settings")
        for key, value in changes.items():
            if key not in GUILD_DEFAULTS:
                raise Refused(f"there is no server setting {key!r}; settings: {', '.join(GUILD_DEFAULTS)}")
            if key == "default_variant":
                value = self._variant_class(str(value)).name
            elif key == "allowed_variants":
                if value is not None:
                    names = value.split(",") if isinstance(value, str) else list(value)
                    value = sorted({self._variant_class(n.strip()).name for n in names if n.strip()}) or None
            elif key == "default_length":
                value = _coerce(key, value, 0)
                if value < 0:
                    raise Refused("the default match length cannot be negative (0 means money play)")
            elif key == "team_thread_fallback":
                value = str(value).strip().lower()
                if value not in ("dm", "refuse"):
                    raise Refused("the team thread fallback is dm (direct messages) or refuse")
            elif key == "default_options":
                value = dict(value)
                _match_options(value, length=current["default_length"])
            current[key] = value
        await self.store.save_guild_settings(guild_id, current)
        return current

    @staticmethod
    def _variant_class(name: str) -> type[Variant]:
        try:
            return registry().find(name)
        except UnknownVariant as exc:
            raise Refused(str(exc)) from None
