"""Runtime settings from ``config.toml`` (storage, defaults, logging, rendering). Never rules, never the token."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Settings", "load_settings", "ConfigError"]

ENV_DATABASE = "GAMMONBOT_DATABASE_URL"


class ConfigError(ValueError):
    """A settings file that cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class Settings:
    """What the bot reads at start-up."""

    storage_url: str = "sqlite:///gammonbot.sqlite3"
    sqlite_synchronous: str = "FULL"
    pool_size: int | None = None  # database connections kept open (None: 10 on PostgreSQL, 5 on SQLite)
    settings_ttl: float = 5.0  # seconds another process's change to player/server settings may take to show
    default_variant: str = "backgammon"
    default_length: int = 5
    log_level: str = "INFO"
    guild_id: str | None = None  # Discord: sync commands to this test server only (faster during setup)
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    raw: dict[str, Any] = field(default_factory=dict)


def load_settings(path: str | Path | None = "config.toml") -> Settings:
    """Read ``path`` (missing file: defaults). ``GAMMONBOT_DATABASE_URL`` overrides the storage URL."""
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        if p.exists():
            try:
                data = tomllib.loads(p.read_text())
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{p}: {exc}") from None
    storage = data.get("storage", {})
    defaults = data.get("defaults", {})
    discord = data.get("discord", {})
    url = os.environ.get(ENV_DATABASE) or storage.get("url") or Settings.storage_url
    shard_ids = discord.get("shard_ids")
    return Settings(
        storage_url=str(url),
        sqlite_synchronous=str(storage.get("sqlite_synchronous", "FULL")),
        pool_size=int(storage["pool_size"]) if storage.get("pool_size") else None,
        settings_ttl=float(storage.get("settings_ttl", 5.0)),
        default_variant=str(defaults.get("variant", "backgammon")),
        default_length=int(defaults.get("match_length", 5)),
        log_level=str(data.get("logging", {}).get("level", "INFO")),
        guild_id=str(discord["guild_id"]) if discord.get("guild_id") else None,
        shard_count=int(discord["shard_count"]) if discord.get("shard_count") else None,
        shard_ids=tuple(int(i) for i in shard_ids) if shard_ids else None,
        raw=data,
    )
