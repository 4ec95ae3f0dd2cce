"""Runtime settings: one :class:`Settings` object, read once from ``config.toml`` and handed down. Never rules, never
the token (that is the ``DISCORD_TOKEN`` environment variable). :func:`load_settings` reads the file named by
``--config`` (or ``config.toml`` in the working directory when nobody named one), applies the environment overrides
(``GAMMONBOT_DATABASE_URL``), and checks every key. Anything it cannot use — an unknown section or key, a value of
the wrong type or out of range, a rule set, theme or rating system that does not exist, a file named explicitly that
is missing — is a :class:`ConfigError` whose message is one line naming the file and the key::

    config.toml: [defaults] match_length must be a whole number from 0 to 99, not 'five'

The object is a tree of frozen sections (``settings.storage.url``, ``settings.defaults.variant``, ``settings.render``…);
the flat names older callers use (``settings.storage_url``, ``Settings(guild_id=…)``) still work."""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from engine import i18n
from engine.i18n import _
from engine.match import MAX_CUBE_LIMIT, MatchOptionError, MatchOptions
from engine.validate import MAX_PLAY_CHARS
from render.theme import RenderConfig, ThemeError, builtin_config, config_from_mapping
from render.theme import key_text as _key
from render.theme import show as _show

__all__ = [
    "Settings",
    "StorageSettings",
    "DefaultSettings",
    "RatingSettings",
    "LimitSettings",
    "LoggingSettings",
    "DiscordSettings",
    "ConfigError",
    "load_settings",
    "settings_from_mapping",
    "DEFAULT_PATH",
    "ENV_DATABASE",
    "MATCH_OPTION_DEFAULTS",
    "MAX_MATCH_LENGTH",
    "SECTIONS",
]

#: The environment variable that overrides ``[storage] url``.
ENV_DATABASE = "GAMMONBOT_DATABASE_URL"
#: The file read when nobody names one (a missing one means the defaults).
DEFAULT_PATH = "config.toml"
#: A settings file larger than this is refused unread (a settings file is a few kilobytes).
MAX_FILE_BYTES = 1 << 20
#: The longest match a configuration may make the default (what ``/bg play length:`` accepts).
MAX_MATCH_LENGTH = 99
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
SQLITE_SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")
#: Largest Discord id (a snowflake is a 64-bit number).
MAX_SNOWFLAKE = (1 << 64) - 1
MAX_SHARDS = 10_000

_URL = re.compile(r"(sqlite|postgresql|postgres)(\+[a-z0-9_]+)?://[^\s]*")


class ConfigError(ValueError):
    """A settings file that cannot be used; the message is one line naming the file and the key."""


# --- the sections ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StorageSettings:
    """``[storage]``: where games live."""

    #: ``sqlite:///FILE`` or ``postgresql://user@host/db``; ``GAMMONBOT_DATABASE_URL`` overrides it.
    url: str = "sqlite:///gammonbot.sqlite3"
    #: SQLite's ``PRAGMA synchronous``: OFF, NORMAL, FULL or EXTRA.
    sqlite_synchronous: str = "FULL"
    #: Database connections a process keeps open (None: 10 on PostgreSQL, 5 on SQLite).
    pool_size: int | None = None
    #: Seconds a process may keep player and server settings it read (another process's change shows within it).
    settings_ttl: float = 5.0
    #: Seconds a request may wait (its turn) for a database connection before it is answered "try again".
    acquire_timeout: float = 30.0
    #: Seconds one statement may run (waits for locks included) before it is cancelled and answered "try again".
    statement_timeout: float = 2.0


#: Options of a match a configuration may set in ``[defaults]``: every field of MatchOptions but the length.
MATCH_OPTION_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(MatchOptions) if f.name != "length"
}
#: Bounds of the whole-number match options (MatchOptions.check() then checks how they fit together).
_OPTION_BOUNDS: dict[str, tuple[int, int]] = {
    "games": (0, 10_000),
    "max_cube": (1, MAX_CUBE_LIMIT),
    "beaver_limit": (1, 64),
    "auto_doubles": (0, 64),
    "holland_rolls": (0, 64),
}


@dataclass(frozen=True)
class DefaultSettings:
    """``[defaults]``: what a challenge that names nothing plays, until a server's admin changes it."""

    #: The rule set (its canonical name: an alias in the file is resolved).
    variant: str = "backgammon"
    #: Match length in points; 0 = a money session.
    match_length: int = 5
    #: Match options (MatchOptions field names, e.g. ``jacoby``, ``beavers``, ``crawford``) that differ from
    #: the engine's defaults, as stored in a server's ``default_options`` (enums as their text values).
    options: Mapping[str, Any] = field(default_factory=dict)

    def match_options(self) -> MatchOptions:
        """The options of a default challenge (length included)."""
        return MatchOptions(length=self.match_length, **self.options)

    def guild_defaults(self) -> dict[str, Any]:
        """The server settings these defaults stand for (bot.service ``GUILD_DEFAULTS`` keys)."""
        return {
            "default_variant": self.variant,
            "default_length": self.match_length,
            "default_options": dict(self.options),
        }


@dataclass(frozen=True)
class RatingSettings:
    """``[ratings]``: which registered rating system (engine.plugins ``register_rating_systems``) rates matches."""

    system: str = "fibs"


@dataclass(frozen=True)
class LimitSettings:
    """``[limits]``: bounds that keep one player or one server from filling the database."""

    #: Open challenges (made, not yet accepted, declined or expired) one player may have.
    max_open_challenges_per_player: int = 10
    #: Open challenges one server may have at once.
    max_open_challenges_per_server: int = 200
    #: The longest typed play (characters) the bot tries to read; longer text is refused unread.
    max_play_length: int = 100
    #: Worker processes for heavy work, in lanes (bot/service/pool.py); 0: threads of this process.
    worker_processes: int = 4
    #: Players' requests worked on at once (each waits its turn for the database); one more is refused at once.
    max_waiting_requests: int = 2000


@dataclass(frozen=True)
class LoggingSettings:
    """``[logging]``: how much the bot writes to its log."""

    #: DEBUG, INFO, WARNING, ERROR or CRITICAL.
    level: str = "INFO"


@dataclass(frozen=True)
class DiscordSettings:
    """``[discord]``: the connection (never the token)."""

    #: Sync slash commands to this server only (they show at once; useful while setting up).
    guild_id: str | None = None
    #: The total number of shards (None: one connection, no sharding).
    shard_count: int | None = None
    #: The shards this process runs (None: all of them).
    shard_ids: tuple[int, ...] | None = None


_UNSET: Any = object()
T = TypeVar("T")


@dataclass(frozen=True, init=False)
class Settings:
    """Everything the bot reads at start-up, as one tree of checked sections.

    Build it with :func:`load_settings` (which checks every value) or directly in tests, with sections
    (``Settings(defaults=DefaultSettings(match_length=7))``) or the flat keywords older callers use
    (``Settings(storage_url=…, guild_id=…, shard_count=…)``); values given directly are not checked.
    """

    storage: StorageSettings
    defaults: DefaultSettings
    ratings: RatingSettings
    limits: LimitSettings
    logging: LoggingSettings
    discord: DiscordSettings
    #: The ``[render]`` section: themes, width and PNG settings (:meth:`render_config`).
    render: RenderConfig = field(repr=False)
    #: The file the settings came from (None: built-in defaults, no file).
    source: str | None
    #: The parsed file as it was (for diagnostics).
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    def __init__(
        self,
        *,
        storage: StorageSettings | None = None,
        defaults: DefaultSettings | None = None,
        ratings: RatingSettings | None = None,
        limits: LimitSettings | None = None,
        logging: LoggingSettings | None = None,
        discord: DiscordSettings | None = None,
        render: RenderConfig | None = None,
        source: str | None = None,
        raw: Mapping[str, Any] | None = None,
        # The flat names of earlier versions; each replaces the field of its section.
        storage_url: str = _UNSET,
        sqlite_synchronous: str = _UNSET,
        pool_size: int | None = _UNSET,
        settings_ttl: float = _UNSET,
        default_variant: str = _UNSET,
        default_length: int = _UNSET,
        log_level: str = _UNSET,
        guild_id: str | None = _UNSET,
        shard_count: int | None = _UNSET,
        shard_ids: tuple[int, ...] | None = _UNSET,
    ) -> None:
        def fill(section: Any, **flat: Any) -> Any:
            given = {k: v for k, v in flat.items() if v is not _UNSET}
            return dataclasses.replace(section, **given) if given else section

        sections = {
            "storage": fill(
                storage or StorageSettings(),
                url=storage_url,
                sqlite_synchronous=sqlite_synchronous,
                pool_size=pool_size,
                settings_ttl=settings_ttl,
            ),
            "defaults": fill(defaults or DefaultSettings(), variant=default_variant, match_length=default_length),
            "ratings": ratings or RatingSettings(),
            "limits": limits or LimitSettings(),
            "logging": fill(logging or LoggingSettings(), level=log_level),
            "discord": fill(
                discord or DiscordSettings(),
                guild_id=guild_id,
                shard_count=shard_count,
                shard_ids=tuple(shard_ids) if shard_ids not in (_UNSET, None) else shard_ids,
            ),
            "render": render or builtin_config(),
            "source": source,
            "raw": dict(raw or {}),
        }
        for name, value in sections.items():
            object.__setattr__(self, name, value)

    # --- what the bot hands down ----------------------------------------------------------------------------
    def render_config(self) -> RenderConfig:
        """The ``[render]`` settings for whatever draws boards (``render_board(snapshot, theme, config=...)``)."""
        return self.render

    def theme_names(self) -> list[str]:
        """The board themes a player's ``theme`` setting may name (``"default"`` also means the default one)."""
        return self.render.theme_names()

    def has_theme(self, name: str) -> bool:
        """Whether a player's ``theme`` setting may be ``name``."""
        return self.render.has_theme(name)

    # --- the flat names of earlier versions -------------------------------------------------------------------
    @property
    def storage_url(self) -> str:
        return self.storage.url

    @property
    def sqlite_synchronous(self) -> str:
        return self.storage.sqlite_synchronous

    @property
    def pool_size(self) -> int | None:
        return self.storage.pool_size

    @property
    def settings_ttl(self) -> float:
        return self.storage.settings_ttl

    @property
    def default_variant(self) -> str:
        return self.defaults.variant

    @property
    def default_length(self) -> int:
        return self.defaults.match_length

    @property
    def log_level(self) -> str:
        return self.logging.level

    @property
    def guild_id(self) -> str | None:
        return self.discord.guild_id

    @property
    def shard_count(self) -> int | None:
        return self.discord.shard_count

    @property
    def shard_ids(self) -> tuple[int, ...] | None:
        return self.discord.shard_ids

    @property
    def rating_system(self) -> str:
        return self.ratings.system


# --- reading ------------------------------------------------------------------------------------------------


def load_settings(path: str | Path | None = None, *, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of ``path`` (None: ``config.toml`` in the working directory), checked.

    A missing file is an error when ``path`` was named (``--config``); without a name, a missing
    ``config.toml`` means the defaults. ``GAMMONBOT_DATABASE_URL`` (from ``environ``, default
    ``os.environ``) overrides ``[storage] url``. Raises :class:`ConfigError` (one line, in the active language:
    ``gammonbot``'s ``--lang`` or ``GAMMONBOT_LANG``) and nothing else.
    """
    env = os.environ if environ is None else environ
    explicit = path is not None
    file = Path(path) if path is not None else Path(DEFAULT_PATH)
    name = str(file)
    data: dict[str, Any] = {}
    try:
        if file.is_file() or explicit:
            size = file.stat().st_size
            if size > MAX_FILE_BYTES:
                raise ConfigError(
                    _("{file}: {size} bytes is too large for a settings file (at most {limit})").format(
                        file=name, size=i18n.number(size), limit=i18n.number(MAX_FILE_BYTES)
                    )
                )
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        else:
            name = ""
    except ConfigError:
        raise
    except FileNotFoundError:
        raise ConfigError(_("{file}: no such settings file (check --config)").format(file=name)) from None
    except IsADirectoryError:
        raise ConfigError(_("{file}: is a folder, not a settings file").format(file=name)) from None
    except UnicodeDecodeError:
        raise ConfigError(_("{file}: is not UTF-8 text").format(file=name)) from None
    except tomllib.TOMLDecodeError as exc:
        reason = _one_line(str(exc))  # TOML's own words
        raise ConfigError(_("{file}: not valid TOML: {reason}").format(file=name, reason=reason)) from None
    except RecursionError:
        raise ConfigError(_("{file}: not valid TOML: arrays or tables nested too deeply").format(file=name)) from None
    except (OSError, ValueError, MemoryError) as exc:  # unreadable; a number with thousands of digits
        raise ConfigError(_("{file}: cannot be read: {reason}").format(file=name, reason=_one_line(str(exc)))) from None
    return settings_from_mapping(data, source=name or None, environ=env)


def settings_from_mapping(
    data: Mapping[str, Any], *, source: str | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Check parsed settings (``tomllib`` output) and build :class:`Settings`; messages name ``source``."""
    # Translators: what a settings error starts with when the settings come from no file.
    where = f"{source}: " if source else _("settings: ")
    built: dict[str, Any] = {}
    for key, value in data.items():
        if key not in SECTIONS:
            sections = ", ".join(_section_names())
            if not isinstance(value, Mapping):
                raise ConfigError(
                    where + _("{key} must be inside a section ({sections})").format(key=_key(key), sections=sections)
                )
            raise ConfigError(
                where
                + _("unknown section [{key}]{did_you_mean}; sections: {sections}").format(
                    key=_key(key), did_you_mean=_did_you_mean(key, SECTIONS), sections=sections
                )
            )
        if not isinstance(value, Mapping):
            raise ConfigError(
                where + _("{key} must be a section ([{key}]), not {value}").format(key=key, value=_show(value))
            )
        if key == "render":
            try:
                built["render"] = config_from_mapping(value)
            except ThemeError as exc:
                raise ConfigError(f"{where}{_one_line(str(exc))}") from None
        else:
            built[key] = _READERS[key](_Table(where, key, value))
    env = os.environ if environ is None else environ
    url = env.get(ENV_DATABASE, "")
    if url:
        try:
            url = _url(url)
        except _Invalid as exc:
            raise ConfigError(
                _("{variable} (environment) must be {what}, not {value}").format(
                    variable=ENV_DATABASE, what=exc, value=_show(url)
                )
            ) from None
        built["storage"] = dataclasses.replace(built.get("storage", StorageSettings()), url=url)
    return Settings(**built, source=source, raw=dict(data))


# --- checking values ----------------------------------------------------------------------------------------


class _Invalid(Exception):
    """A value that does not fit; the message says what it must be ("a whole number from 0 to 99")."""


class _Table:
    """One section of the file: refuses unknown keys, checks the values it is asked for."""

    def __init__(self, where: str, name: str, table: Mapping[str, Any]) -> None:
        self.where = where
        self.name = name
        self.table = table

    def known(self, keys: Sequence[str]) -> None:
        for key in self.table:
            if key not in keys:
                raise self.error(
                    _("has no setting {key}{did_you_mean}; settings: {keys}").format(
                        key=_show(key), did_you_mean=_did_you_mean(key, keys), keys=", ".join(keys)
                    )
                )

    def get(self, key: str, check: Callable[[Any], T], default: T) -> T:
        if key not in self.table:
            return default
        value = self.table[key]
        try:
            return check(value)
        except _Invalid as exc:
            raise self.error(
                _("{key} must be {what}, not {value}").format(key=_key(key), what=exc, value=_show(value))
            ) from None

    def error(self, text: str) -> ConfigError:
        return ConfigError(f"{self.where}[{self.name}] {text}")


def _whole(low: int, high: int, what: str | None = None) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _Invalid(what or _("a whole number from {low} to {high}").format(low=low, high=high))
        return value

    return check


def _number(low: float, high: float, what: str) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise _Invalid(what)  # NaN fails the comparison too
        return float(value)

    return check


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(_("true or false"))
    return value


def _choice(choices: Sequence[str], *, upper: bool = False) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        text = value.strip().upper() if upper and isinstance(value, str) else value
        if not isinstance(text, str) or text not in choices:
            raise _Invalid(_("one of {choices}").format(choices=", ".join(choices)))
        return text

    return check


def _url(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 2048 or not _URL.fullmatch(value.strip()):
        raise _Invalid(_("a database URL: sqlite:///FILE or postgresql://user@host/db"))
    return value.strip()


def _snowflake(value: Any) -> str:
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 20:
        text = int(text)
    if isinstance(text, bool) or not isinstance(text, int) or not 1 <= text <= MAX_SNOWFLAKE:
        raise _Invalid(_("a Discord server id (a number, or a string of digits)"))
    return str(text)


def _shard_ids(value: Any) -> tuple[int, ...]:
    what = _("a list of distinct shard numbers from 0 to {high}, like [0, 1]").format(high=MAX_SHARDS - 1)
    if not isinstance(value, list) or not value or len(value) > MAX_SHARDS:
        raise _Invalid(what)
    ids = tuple(_whole(0, MAX_SHARDS - 1, what)(i) for i in value)
    if len(set(ids)) != len(ids):
        raise _Invalid(what)
    return ids


def _variant(value: Any) -> str:
    from engine.plugins import UnknownVariant, registry

    reg = registry()
    what = _("a rule set ({names})").format(names=", ".join(reg.names()))
    if not isinstance(value, str) or len(value) > 100:
        raise _Invalid(what)
    try:
        return reg.find(value).name
    except UnknownVariant:
        raise _Invalid(what) from None


def _rating_system(value: Any) -> str:
    from engine.plugins import registry

    names = sorted(registry().rating_systems)
    if not isinstance(value, str) or value not in names:
        raise _Invalid(_("a registered rating system ({names})").format(names=", ".join(names) or _("none registered")))
    return value


def _option_check(name: str, default: Any) -> Callable[[Any], Any]:
    if isinstance(default, bool):
        return _flag
    if isinstance(default, Enum):
        values = [str(e.value) for e in type(default)]

        def check(value: Any) -> str:
            if not isinstance(value, str) or value not in values:
                raise _Invalid(_("one of {choices}").format(choices=", ".join(values)))
            return value

        return check
    if isinstance(default, int):
        low, high = _OPTION_BOUNDS.get(name, (0, MAX_CUBE_LIMIT))
        return _whole(low, high)
    raise AssertionError(f"MatchOptions.{name}: no check for {type(default).__name__}")  # pragma: no cover


# --- the sections, one function each ------------------------------------------------------------------------


def _seconds(low: str, high: str) -> str:
    """What a duration setting must be (its bounds as the file writes them: 0.05, not 0,05)."""
    return _("a number of seconds from {low} to {high}").format(low=low, high=high)


def _storage(t: _Table) -> StorageSettings:
    t.known(("url", "sqlite_synchronous", "pool_size", "settings_ttl", "acquire_timeout", "statement_timeout"))
    d = StorageSettings()
    return StorageSettings(
        url=t.get("url", _url, d.url),
        sqlite_synchronous=t.get("sqlite_synchronous", _choice(SQLITE_SYNCHRONOUS, upper=True), d.sqlite_synchronous),
        pool_size=t.get("pool_size", _whole(1, 1000), d.pool_size),
        settings_ttl=t.get("settings_ttl", _number(0, 3600, _seconds("0", "3600")), d.settings_ttl),
        acquire_timeout=t.get("acquire_timeout", _number(0.05, 600, _seconds("0.05", "600")), d.acquire_timeout),
        statement_timeout=t.get("statement_timeout", _number(0.05, 600, _seconds("0.05", "600")), d.statement_timeout),
    )


def _defaults(t: _Table) -> DefaultSettings:
    t.known(("variant", "match_length", *MATCH_OPTION_DEFAULTS))
    d = DefaultSettings()
    variant = t.get("variant", _variant, d.variant)
    length = t.get("match_length", _whole(0, MAX_MATCH_LENGTH), d.match_length)
    options = {
        key: t.get(key, _option_check(key, default), default)
        for key, default in MATCH_OPTION_DEFAULTS.items()
        if key in t.table
    }
    try:
        MatchOptions(length=length, **options).check()
    except MatchOptionError as exc:
        given = ", ".join(f"{k} = {json.dumps(v)}" for k, v in {"match_length": length, **options}.items())
        raise t.error(
            _("options do not fit together ({given}): {reason}").format(given=given, reason=_one_line(str(exc)))
        ) from None
    return DefaultSettings(variant, length, options)


def _ratings(t: _Table) -> RatingSettings:
    t.known(("system",))
    return RatingSettings(t.get("system", _rating_system, RatingSettings.system))


def _limits(t: _Table) -> LimitSettings:
    t.known(tuple(f.name for f in dataclasses.fields(LimitSettings)))
    d = LimitSettings()
    bounds = {
        "max_open_challenges_per_player": (1, 1000),
        "max_open_challenges_per_server": (1, 100_000),
        "max_play_length": (20, MAX_PLAY_CHARS),
        "worker_processes": (0, 64),
        "max_waiting_requests": (10, 1_000_000),
    }
    return LimitSettings(**{key: t.get(key, _whole(*b), getattr(d, key)) for key, b in bounds.items()})


def _logging(t: _Table) -> LoggingSettings:
    t.known(("level",))
    return LoggingSettings(t.get("level", _choice(LOG_LEVELS, upper=True), LoggingSettings.level))


def _discord(t: _Table) -> DiscordSettings:
    t.known(("guild_id", "shard_count", "shard_ids"))
    count = t.get("shard_count", _whole(1, MAX_SHARDS), None)
    ids = t.get("shard_ids", _shard_ids, None)
    if ids is not None:
        if count is None:
            raise t.error(_("shard_ids needs shard_count (the total number of shards)"))
        if max(ids) >= count:
            raise t.error(
                _("shard_ids must be shard numbers below shard_count = {count}, not {value}").format(
                    count=count, value=_show(list(ids))
                )
            )
    return DiscordSettings(t.get("guild_id", _snowflake, None), count, ids)


_READERS: dict[str, Callable[[_Table], Any]] = {
    "storage": _storage,
    "defaults": _defaults,
    "ratings": _ratings,
    "limits": _limits,
    "logging": _logging,
    "discord": _discord,
}
#: The sections of a settings file (``[render]`` is checked by render.theme.config_from_mapping).
SECTIONS: tuple[str, ...] = (*_READERS, "render")


def _section_names() -> list[str]:
    return [f"[{name}]" for name in SECTIONS]


# --- messages -----------------------------------------------------------------------------------------------


def _did_you_mean(key: Any, known: Sequence[str] | Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(str(key)[:100], list(known), n=1)
    return _(" (did you mean {key}?)").format(key=_key(close[0])) if close else ""


def _one_line(text: str) -> str:
    return " ".join(text.split())
