"""The plugin manager: built-in rule sets and outside packages, registered the same way.

* Built-in plugins are the modules in :data:`DEFAULT_PLUGINS`.
* Outside packages declare an entry point in the ``gammonbot`` group, for example in ``pyproject.toml``::

      [project.entry-points.gammonbot]
      nackgammon = "gammonbot_nackgammon"

* ``GAMMONBOT_PLUGINS`` (comma-separated plugin names) limits which plugins load, built-in ones included;
  unset or empty loads all. ``GAMMONBOT_TRACE_HOOKS=1`` writes every hook call to standard error.
* Start-up runs ``check_pending()``, so a misspelled hook name is an error instead of silence.
* Collection hooks (``register_variants``, ``register_time_controls``, ``register_players``,
  ``register_rating_systems``) are called once per
  plugin with a ``register`` callback that rejects duplicates and remembers which plugin registered what.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .players import PlayerSpec, PlayerUnavailable, UnsupportedVariant
from .ratings import RatingSystem
from .timecontrol import TimeControl
from .variant import Variant

__all__ = [
    "hookimpl",
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "UnknownVariant",
    "UnknownTimeControl",
    "UnknownPlayer",
    "PluginError",
    "Registry",
    "build_plugin_manager",
    "registry",
    "find_variant",
    "get_variant",
    "find_time_control",
    "find_player",
    "players_for",
]

hookimpl = pluggy.HookimplMarker("gammonbot")

#: Built-in plugins: (plugin name, module).
DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("backgammon", "variants.backgammon"),
    ("longgammon", "variants.longgammon"),
    ("sprintgammon", "variants.sprintgammon"),
    ("doubles", "variants.doubles"),
    ("timecontrols", "variants.timecontrols"),
    ("players", "engine.players"),
    ("ratings", "engine.ratings"),
    ("bgsage", "variants.bgsage_player"),
)
ENTRY_POINT_GROUP = "gammonbot"
ENV_PLUGINS = "GAMMONBOT_PLUGINS"
ENV_TRACE = "GAMMONBOT_TRACE_HOOKS"


class PluginError(RuntimeError):
    """A plugin that cannot be loaded or registers something twice."""


class UnknownVariant(LookupError):
    """No registered rule set has that name or alias; the message lists those that exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown variant"


class UnknownTimeControl(LookupError):
    """No registered time control has that name or alias; the message lists those that exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown time control"


class UnknownPlayer(LookupError):
    """No registered bot player has that name or alias; the message lists those that exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown player"


@dataclass
class Registry:
    """What the plugins registered: rule sets and time controls by name, their aliases, and who registered each."""

    variants: dict[str, type[Variant]] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    _names: dict[str, str] = field(default_factory=dict)
    time_controls: dict[str, TimeControl] = field(default_factory=dict)
    time_control_owners: dict[str, str] = field(default_factory=dict)
    _time_control_names: dict[str, str] = field(default_factory=dict)
    players: dict[str, PlayerSpec] = field(default_factory=dict)
    rating_systems: dict[str, RatingSystem] = field(default_factory=dict)
    rating_system_owners: dict[str, str] = field(default_factory=dict)
    player_owners: dict[str, str] = field(default_factory=dict)
    _player_names: dict[str, str] = field(default_factory=dict)

    def register_variant(self, cls: type[Variant], owner: str) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Variant)):
            raise PluginError(f"plugin {owner!r} registered {cls!r}, which is not a Variant subclass")
        if not cls.name or cls.name != cls.name.lower():
            raise PluginError(f"plugin {owner!r}: variant {cls.__name__} needs a lower-case name")
        for label in (cls.name, *cls.aliases):
            key = label.lower()
            if key in self._names:
                other = self._names[key]
                raise PluginError(
                    f"plugin {owner!r} registers {label!r}, but plugin {self.owners[other]!r} "
                    f"already registered it for {other!r}"
                )
        self.variants[cls.name] = cls
        self.owners[cls.name] = owner
        for label in (cls.name, *cls.aliases):
            self._names[label.lower()] = cls.name

    def find(self, name: str) -> type[Variant]:
        key = name.strip().lower()
        if key in self._names:
            return self.variants[self._names[key]]
        have = ", ".join(sorted(self.variants)) or "none"
        raise UnknownVariant(f"no rule set called {name!r}; available: {have}")

    def get(self, name: str, **options: Any) -> Variant:
        return self.find(name)(**options)

    def names(self) -> list[str]:
        return sorted(self.variants)

    def register_time_control(self, tc: TimeControl, owner: str) -> None:
        """Add a time-control preset; a name or alias already taken is a :class:`PluginError` naming both plugins."""
        if not isinstance(tc, TimeControl):
            raise PluginError(f"plugin {owner!r} registered {tc!r}, which is not a TimeControl")
        for label in _claim(
            self._time_control_names, self.time_control_owners, "time control", tc.name, tc.aliases, owner
        ):
            self._time_control_names[label] = tc.name
        self.time_controls[tc.name] = tc
        self.time_control_owners[tc.name] = owner

    def find_time_control(self, name: str) -> TimeControl:
        """The time control registered under ``name`` or an alias; :class:`UnknownTimeControl` lists the others."""
        key = name.strip().lower()
        if key in self._time_control_names:
            return self.time_controls[self._time_control_names[key]]
        have = ", ".join(sorted(self.time_controls)) or "none"
        raise UnknownTimeControl(f"no time control called {name!r}; available: {have}")

    def time_control_names(self) -> list[str]:
        return sorted(self.time_controls)

    def register_player(self, spec: PlayerSpec, owner: str) -> None:
        """Add a bot player; a name or alias already taken is a :class:`PluginError` naming both plugins."""
        if not isinstance(spec, PlayerSpec):
            raise PluginError(f"plugin {owner!r} registered {spec!r}, which is not a PlayerSpec")
        if not spec.name or spec.name != spec.name.lower():
            raise PluginError(f"plugin {owner!r}: player {spec.display_name!r} needs a lower-case name")
        for label in _claim(self._player_names, self.player_owners, "player", spec.name, spec.aliases, owner):
            self._player_names[label] = spec.name
        self.players[spec.name] = spec
        self.player_owners[spec.name] = owner

    def register_rating_system(self, system: RatingSystem, owner: str) -> None:
        name = getattr(system, "name", None)
        if not isinstance(name, str) or not name or not callable(getattr(system, "update", None)):
            raise PluginError(f"plugin {owner!r} registered {system!r}, which is not a rating system")
        if name in self.rating_systems:
            raise PluginError(
                f"plugin {owner!r} registers rating system {name!r}, but plugin "
                f"{self.rating_system_owners[name]!r} already registered it"
            )
        self.rating_systems[name] = system
        self.rating_system_owners[name] = owner

    def find_rating_system(self, name: str) -> RatingSystem:
        """The rating system registered under ``name``; :class:`PluginError` lists the others."""
        if name in self.rating_systems:
            return self.rating_systems[name]
        have = ", ".join(sorted(self.rating_systems)) or "none"
        raise PluginError(f"no rating system called {name!r}; available: {have}")

    def find_player(self, name: str) -> PlayerSpec:
        """The player registered under ``name`` or an alias; :class:`UnknownPlayer` lists the others."""
        key = name.strip().lower()
        if key in self._player_names:
            return self.players[self._player_names[key]]
        have = ", ".join(sorted(self.players)) or "none"
        raise UnknownPlayer(f"no bot player called {name!r}; available: {have}")

    def player_names(self) -> list[str]:
        """Every registered player's name, weakest first."""
        return [spec.name for spec in sorted(self.players.values(), key=lambda s: (s.rank, s.name))]

    def players_for(self, variant: Variant) -> list[PlayerSpec]:
        """The players that can play ``variant`` on this machine, weakest first."""
        found = []
        for name in self.player_names():
            spec = self.players[name]
            try:
                spec.check(variant)
            except (UnsupportedVariant, PlayerUnavailable):
                continue
            found.append(spec)
        return found


def _claim(
    taken: dict[str, str], owners: dict[str, str], kind: str, name: str, aliases: Iterable[str], owner: str
) -> list[str]:
    """The lower-case labels ``name`` and ``aliases`` would take; :class:`PluginError` naming both plugins if
    another plugin holds one, or if the same label is listed twice."""
    labels = (name, *aliases)
    for label in labels:
        other = taken.get(label.lower())
        if other is not None:
            raise PluginError(
                f"plugin {owner!r} registers {kind} {label!r}, but plugin {owners[other]!r} "
                f"already registered it for {other!r}"
            )
    keys = [label.lower() for label in labels]
    if len(set(keys)) != len(keys):
        raise PluginError(f"plugin {owner!r}: {kind} {name!r} lists the same name twice")
    return keys


def _wanted() -> set[str] | None:
    raw = os.environ.get(ENV_PLUGINS, "").strip()
    if not raw:
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


def build_plugin_manager(
    extra: Iterable[tuple[str, object]] = (), *, load_entry_points: bool = True
) -> tuple[pluggy.PluginManager, Registry]:
    """A fresh plugin manager with the built-in plugins, entry points and ``extra`` (name, plugin) pairs."""
    pm = pluggy.PluginManager("gammonbot")
    pm.add_hookspecs(hookspecs)
    wanted = _wanted()

    def allowed(name: str) -> bool:
        return wanted is None or name in wanted

    for name, module in DEFAULT_PLUGINS:
        if allowed(name):
            pm.register(importlib.import_module(module), name=name)
    if load_entry_points:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if not allowed(ep.name) or pm.has_plugin(ep.name):
                continue
            try:
                plugin = ep.load()
            except Exception as exc:  # an outside package failing to import must say which one
                raise PluginError(f"cannot load plugin {ep.name!r} ({ep.value}): {exc}") from exc
            pm.register(plugin, name=ep.name)
    for name, plugin in extra:
        if allowed(name):
            pm.register(plugin, name=name)
    pm.check_pending()
    if os.environ.get(ENV_TRACE, "").strip() not in ("", "0"):
        pm.trace.root.setwriter(lambda text: sys.stderr.write(text))
        pm.enable_tracing()

    reg = Registry()
    for name, plugin in pm.list_name_plugin():
        others = [p for p in pm.get_plugins() if p is not plugin]
        for hook, method in COLLECTIONS:
            caller = pm.subset_hook_caller(hook, remove_plugins=others)
            caller(register=_registrar(getattr(reg, method), name))
    return pm, reg


#: Collection hooks and the Registry method that takes what each plugin registers through them.
COLLECTIONS = (
    ("register_variants", "register_variant"),
    ("register_time_controls", "register_time_control"),
    ("register_players", "register_player"),
    ("register_rating_systems", "register_rating_system"),
)


def _registrar(add: Callable[[Any, str], None], owner: str) -> Callable[[Any], None]:
    """The ``register`` callback one plugin receives: it records the plugin as the owner of what it adds."""

    def register(item: Any) -> None:
        add(item, owner)

    return register


_default: Registry | None = None


def registry() -> Registry:
    """The process-wide registry, built on first use."""
    global _default
    if _default is None:
        _default = build_plugin_manager()[1]
    return _default


def find_variant(name: str) -> type[Variant]:
    """The rule-set class registered under ``name`` or an alias; :class:`UnknownVariant` lists what exists."""
    return registry().find(name)


def get_variant(name: str, **options: Any) -> Variant:
    """An instance of the rule set ``name`` with ``options``."""
    return registry().get(name, **options)


def find_time_control(name: str) -> TimeControl:
    """The time control registered under ``name`` or an alias; :class:`UnknownTimeControl` lists those that exist."""
    return registry().find_time_control(name)


def find_player(name: str) -> PlayerSpec:
    """The bot player registered under ``name`` or an alias; :class:`UnknownPlayer` lists those that exist."""
    return registry().find_player(name)


def players_for(variant: Variant) -> list[PlayerSpec]:
    """The bot players that can play ``variant`` on this machine, weakest first."""
    return registry().players_for(variant)
