"""The plugin manager: built-in rule sets and outside packages, registered the same way.

* Built-in plugins are the modules in :data:`DEFAULT_PLUGINS`.
* Outside packages declare an entry point in the ``gammonbot`` group, for example in ``pyproject.toml``::

      [project.entry-points.gammonbot]
      nackgammon = "gammonbot_nackgammon"

* ``GAMMONBOT_PLUGINS`` (comma-separated plugin names) limits which plugins load, built-in ones included;
  unset or empty loads all. ``GAMMONBOT_TRACE_HOOKS=1`` writes every hook call to standard error.
* Collection hooks (``register_variants``, ``register_time_controls``, ``register_players``,
  ``register_rating_systems``, ``register_translations``) are called once per
  plugin with a ``register`` callback that rejects duplicates and remembers which plugin registered what.

**One bad plugin never stops the bot.** A plugin that cannot be imported, implements a hook gammonbot does not
have (a misspelling), raises in one of its hooks, registers something that is not what the hook takes, or claims a
name or alias another plugin already holds is *refused*: a warning naming it and the reason is logged, everything
it registered is taken back (a plugin is in whole or not at all), and the rest load. Plugins load in a fixed order
(the built-in ones, then entry points, then ``extra``), so an outside plugin can never take a built-in name.
:attr:`Registry.refused` keeps the reasons (``gammonbot variants`` lists them). ``strict=True`` raises
:class:`PluginError` instead (a plugin's own tests; see :mod:`engine.testing`).

The reasons a plugin is refused are kept in English and speak the reader's language when shown (:class:`Deferred`):
the registry is built once, at start-up, and read later by admins of any language (``gammonbot variants``); the log
keeps the English.

Names are never inherited silently: a :class:`~engine.variant.Variant` subclass has only the aliases it declares
itself (``Variant.__init_subclass__``), and a rule set that does not declare its own ``name`` is refused.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pluggy

from . import hookspecs, i18n
from .i18n import N_, _
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
    "Deferred",
    "Registry",
    "build_plugin_manager",
    "registry",
    "reset_registry",
    "find_variant",
    "get_variant",
    "is_installed",
    "find_time_control",
    "find_player",
    "players_for",
]

hookimpl = pluggy.HookimplMarker("gammonbot")
log = logging.getLogger("gammonbot.plugins")

#: Built-in plugins: (plugin name, module).
DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("backgammon", "variants.backgammon"),
    ("longgammon", "variants.longgammon"),
    ("sprintgammon", "variants.sprintgammon"),
    ("doubles", "variants.doubles"),
    ("tavli", "variants.tavli"),
    ("aceydeucey", "variants.aceydeucey"),
    ("gulbara", "variants.gulbara"),
    ("timecontrols", "variants.timecontrols"),
    ("players", "engine.players"),
    ("ratings", "engine.ratings"),
    ("bgsage", "variants.bgsage_player"),
)
ENTRY_POINT_GROUP = "gammonbot"
ENV_PLUGINS = "GAMMONBOT_PLUGINS"
ENV_TRACE = "GAMMONBOT_TRACE_HOOKS"


class Deferred(str):
    """A message made once and read later, perhaps by readers of several languages (why a plugin was refused at
    start-up, why a player is unavailable on this machine): its value is the English text, which comparisons, stored
    data and the log see, and ``str()``, ``format()`` and f-strings give it in the language active when it is shown
    (``_(text)`` too: the catalog has no entry for the filled-in English, so the text itself is shown).

    ``msgid`` is a message marked for the catalog (``N_("...{name}...")``); ``fields`` fill its placeholders after
    translation, and a field that is itself a :class:`Deferred` is shown in the same language.
    """

    msgid: str
    fields: dict[str, object]

    def __new__(cls, msgid: str, /, **fields: object) -> Deferred:
        text = super().__new__(cls, msgid.format(**{k: english(v) for k, v in fields.items()}))
        text.msgid = msgid
        text.fields = fields
        return text

    def __str__(self) -> str:
        return _(self.msgid).format(**self.fields)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, object]]:
        return (self.msgid,), dict(self.fields)


def english(text: object) -> object:
    """``text`` as written, in English: the value of a :class:`Deferred`, anything else unchanged (for the log)."""
    return str.__str__(text) if isinstance(text, Deferred) else text


class PluginError(RuntimeError):
    """A plugin that cannot be loaded or registers something twice (its message is a :class:`Deferred`)."""


class UnknownVariant(LookupError):
    """No registered rule set has that name or alias; the message lists those that exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else _("unknown variant")


class UnknownTimeControl(LookupError):
    """No registered time control has that name or alias; the message lists those that exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else _("unknown time control")


class UnknownPlayer(LookupError):
    """No registered bot player has that name or alias; the message lists those that exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else _("unknown player")


@dataclass
class Registry:
    """What the plugins registered: rule sets and time controls by name, their aliases, and who registered each;
    and the plugins that were refused, with why."""

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
    #: Each plugin's folders of message catalogs (``register_translations``), by plugin name, in load order.
    translations: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    #: Plugins refused at start-up (by plugin name), with the reason in words; they registered nothing.
    refused: dict[str, str] = field(default_factory=dict)

    def register_variant(self, cls: type[Variant], owner: str) -> None:
        """Add a rule set; a name or alias already taken is a :class:`PluginError` naming both plugins, and so is a
        class that is not a working rule set (no name of its own, options or a start that cannot be made)."""
        if not (isinstance(cls, type) and issubclass(cls, Variant)):
            raise PluginError(Deferred(N_("it registered {item}, which is not a Variant subclass"), item=repr(cls)))
        if "name" not in cls.__dict__:
            raise PluginError(
                Deferred(
                    N_(
                        "its rule set {class_name} declares no name of its own (it would take {name} from {base}): "
                        "give it one"
                    ),
                    class_name=cls.__name__,
                    name=repr(cls.name),
                    base=cls.__mro__[1].__name__,
                )
            )
        if not cls.name or cls.name != cls.name.lower():
            raise PluginError(
                Deferred(N_("its rule set {class_name} needs a lower-case name"), class_name=cls.__name__)
            )
        keys = _claim(self._names, self.owners, "rule set", cls.name, cls.aliases)
        try:
            variant = cls()
            variant.validate_position(variant.start_position())
        except Exception as exc:  # a rule set that cannot even start would crash the first game played
            raise PluginError(
                Deferred(
                    N_("its rule set {name} cannot start a game: {error}"),
                    name=repr(cls.name),
                    error=f"{type(exc).__name__}: {exc}",
                )
            ) from exc
        self.variants[cls.name] = cls
        self.owners[cls.name] = owner
        for key in keys:
            self._names[key] = cls.name

    def find(self, name: str) -> type[Variant]:
        key = name.strip().lower()
        if key in self._names:
            return self.variants[self._names[key]]
        if not self.variants:
            raise UnknownVariant(_("no rule set called {name}; available: none").format(name=repr(name)))
        have = ", ".join(sorted(self.variants))
        raise UnknownVariant(_("no rule set called {name}; available: {names}").format(name=repr(name), names=have))

    def get(self, name: str, **options: Any) -> Variant:
        return self.find(name)(**options)

    def has(self, name: str) -> bool:
        """Whether a rule set of that name or alias is registered."""
        return name.strip().lower() in self._names

    def names(self) -> list[str]:
        return sorted(self.variants)

    def register_time_control(self, tc: TimeControl, owner: str) -> None:
        """Add a time-control preset; a name or alias already taken is a :class:`PluginError` naming both plugins."""
        if not isinstance(tc, TimeControl):
            raise PluginError(Deferred(N_("it registered {item}, which is not a TimeControl"), item=repr(tc)))
        for label in _claim(self._time_control_names, self.time_control_owners, "time control", tc.name, tc.aliases):
            self._time_control_names[label] = tc.name
        self.time_controls[tc.name] = tc
        self.time_control_owners[tc.name] = owner

    def find_time_control(self, name: str) -> TimeControl:
        """The time control registered under ``name`` or an alias; :class:`UnknownTimeControl` lists the others."""
        key = name.strip().lower()
        if key in self._time_control_names:
            return self.time_controls[self._time_control_names[key]]
        if not self.time_controls:
            raise UnknownTimeControl(_("no time control called {name}; available: none").format(name=repr(name)))
        have = ", ".join(sorted(self.time_controls))
        raise UnknownTimeControl(
            _("no time control called {name}; available: {names}").format(name=repr(name), names=have)
        )

    def time_control_names(self) -> list[str]:
        return sorted(self.time_controls)

    def register_player(self, spec: PlayerSpec, owner: str) -> None:
        """Add a bot player; a name or alias already taken is a :class:`PluginError` naming both plugins."""
        if not isinstance(spec, PlayerSpec):
            raise PluginError(Deferred(N_("it registered {item}, which is not a PlayerSpec"), item=repr(spec)))
        if not spec.name or spec.name != spec.name.lower():
            raise PluginError(
                Deferred(N_("its player {player} needs a lower-case name"), player=repr(english(spec.display_name)))
            )
        for label in _claim(self._player_names, self.player_owners, "player", spec.name, spec.aliases):
            self._player_names[label] = spec.name
        self.players[spec.name] = spec
        self.player_owners[spec.name] = owner

    def register_rating_system(self, system: RatingSystem, owner: str) -> None:
        name = getattr(system, "name", None)
        if not isinstance(name, str) or not name or not callable(getattr(system, "update", None)):
            raise PluginError(Deferred(N_("it registered {item}, which is not a rating system"), item=repr(system)))
        if name in self.rating_systems:
            raise PluginError(
                Deferred(
                    N_("it registers rating system {name}, but plugin {owner} already registered it"),
                    name=repr(name),
                    owner=repr(self.rating_system_owners[name]),
                )
            )
        self.rating_systems[name] = system
        self.rating_system_owners[name] = owner

    def register_translation(self, folder: str | os.PathLike[str], owner: str) -> None:
        """Add a folder of the plugin's message catalogs (``<lang>/LC_MESSAGES/<domain>.po``); one that is not an
        existing folder is a :class:`PluginError`."""
        if not isinstance(folder, (str, os.PathLike)) or not Path(folder).is_dir():
            raise PluginError(
                Deferred(N_("it registered {item} as its translations, which is not a folder"), item=repr(folder))
            )
        self.translations[owner] = (*self.translations.get(owner, ()), Path(folder).resolve())

    def catalog_folders(self) -> list[tuple[str, Path]]:
        """Every plugin's catalog folders, (plugin name, folder), in the order the plugins loaded."""
        return [(owner, folder) for owner, folders in self.translations.items() for folder in folders]

    def find_rating_system(self, name: str) -> RatingSystem:
        """The rating system registered under ``name``; :class:`PluginError` lists the others."""
        if name in self.rating_systems:
            return self.rating_systems[name]
        if not self.rating_systems:
            raise PluginError(Deferred(N_("no rating system called {name}; available: none"), name=repr(name)))
        have = ", ".join(sorted(self.rating_systems))
        raise PluginError(
            Deferred(N_("no rating system called {name}; available: {names}"), name=repr(name), names=have)
        )

    def find_player(self, name: str) -> PlayerSpec:
        """The player registered under ``name`` or an alias; :class:`UnknownPlayer` lists the others."""
        key = name.strip().lower()
        if key in self._player_names:
            return self.players[self._player_names[key]]
        if not self.players:
            raise UnknownPlayer(_("no bot player called {name}; available: none").format(name=repr(name)))
        have = ", ".join(sorted(self.players))
        raise UnknownPlayer(_("no bot player called {name}; available: {names}").format(name=repr(name), names=have))

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

    def _save(self) -> dict[str, dict[str, Any]]:
        """A copy of what is registered, to take a refused plugin's registrations back with :meth:`_restore`."""
        return {f.name: dict(getattr(self, f.name)) for f in fields(self) if f.name != "refused"}

    def _restore(self, saved: dict[str, dict[str, Any]]) -> None:
        for name, value in saved.items():
            setattr(self, name, value)


#: What :func:`_claim` says, by the kind of thing claimed: a name another plugin holds, a name listed twice.
_TAKEN = {
    "rule set": N_("it registers rule set {label}, but plugin {owner} already registered it for {other}"),
    "time control": N_("it registers time control {label}, but plugin {owner} already registered it for {other}"),
    "player": N_("it registers player {label}, but plugin {owner} already registered it for {other}"),
}
_TWICE = {
    "rule set": N_("its rule set {name} lists the same name twice"),
    "time control": N_("its time control {name} lists the same name twice"),
    "player": N_("its player {name} lists the same name twice"),
}


def _claim(taken: dict[str, str], owners: dict[str, str], kind: str, name: str, aliases: Iterable[str]) -> list[str]:
    """The lower-case labels ``name`` and ``aliases`` would take; :class:`PluginError` naming the plugin that holds
    one already, or if the same label is listed twice (``kind``: "rule set", "time control" or "player")."""
    labels = (name, *aliases)
    for label in labels:
        other = taken.get(label.lower())
        if other is not None:
            raise PluginError(Deferred(_TAKEN[kind], label=repr(label), owner=repr(owners[other]), other=repr(other)))
    keys = [label.lower() for label in labels]
    if len(set(keys)) != len(keys):
        raise PluginError(Deferred(_TWICE[kind], name=repr(name)))
    return keys


def _wanted() -> set[str] | None:
    raw = os.environ.get(ENV_PLUGINS, "").strip()
    if not raw:
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


def _candidates(
    extra: Iterable[tuple[str, object]], load_entry_points: bool
) -> list[tuple[str, Deferred, Callable[[], object]]]:
    """Every plugin that may load, in order: (name, where it comes from, how to load it)."""
    out: list[tuple[str, Deferred, Callable[[], object]]] = []
    for name, module in DEFAULT_PLUGINS:
        where = Deferred(N_("built-in module {module}"), module=module)
        out.append((name, where, functools.partial(importlib.import_module, module)))
    if load_entry_points:
        seen: set[tuple[str, str]] = set()
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if (ep.name, ep.value) not in seen:  # one package found twice on the path is one plugin
                seen.add((ep.name, ep.value))
                out.append((ep.name, Deferred(N_("entry point {entry_point}"), entry_point=ep.value), ep.load))
    for name, plugin in extra:
        # Translators: where a plugin comes from: handed to the plugin manager by the program itself (tests).
        out.append((name, Deferred(N_("given")), functools.partial(_same, plugin)))
    return out


def _same(plugin: object) -> object:
    return plugin


def _unknown_hooks(pm: pluggy.PluginManager, plugin: object) -> list[str]:
    """The hooks ``plugin`` implements that no spec declares (a misspelling, or a hook of another version)."""
    return sorted(
        caller.name
        for caller in pm.get_hookcallers(plugin) or ()
        if not caller.has_spec()
        and any(impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls())
    )


def build_plugin_manager(
    extra: Iterable[tuple[str, object]] = (), *, load_entry_points: bool = True, strict: bool = False
) -> tuple[pluggy.PluginManager, Registry]:
    """A fresh plugin manager with the built-in plugins, entry points and ``extra`` (name, plugin) pairs, and what
    they registered. A plugin that fails is refused with a logged warning (``Registry.refused``) and the others
    load; with ``strict`` the first refusal is a :class:`PluginError` instead."""
    pm = pluggy.PluginManager("gammonbot")
    pm.add_hookspecs(hookspecs)
    reg = Registry()
    wanted = _wanted()

    def refuse(name: str, reason: Deferred, exc: BaseException | None = None) -> None:
        if strict:
            raise PluginError(Deferred(N_("plugin {name} refused: {reason}"), name=repr(name), reason=reason)) from exc
        reg.refused.setdefault(name, reason)  # a second plugin of a refused one's name keeps the first reason
        log.warning("plugin %r refused: %s", name, english(reason))
        if exc is not None and not isinstance(exc, PluginError):
            log.debug("plugin %r: what went wrong", name, exc_info=exc)

    for name, where, load in _candidates(extra, load_entry_points):
        if wanted is not None and name not in wanted:
            continue
        if pm.has_plugin(name) or name in reg.refused:
            refuse(
                name,
                Deferred(
                    N_("a plugin loaded before it has the same name; this one ({where}) is left out"), where=where
                ),
            )
            continue
        try:
            plugin = load()
        except Exception as exc:  # an outside package failing to import must say which one, and only stop itself
            error = f"{type(exc).__name__}: {exc}"
            refuse(name, Deferred(N_("it cannot be loaded ({where}): {error}"), where=where, error=error), exc)
            continue
        try:
            pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            refuse(
                name,
                Deferred(N_("its hooks do not fit gammonbot's ({where}): {error}"), where=where, error=str(exc)),
                exc,
            )
            continue
        except ValueError as exc:  # pluggy: this very object is loaded already, under another plugin name
            if pm.is_registered(plugin):
                same = Deferred(
                    N_("it is the same plugin as {other} ({where}), loaded once"),
                    other=repr(pm.get_name(plugin)),
                    where=where,
                )
            else:
                same = Deferred(N_("it is the same plugin as another one ({where}), loaded once"), where=where)
            refuse(name, same, exc)
            continue
        unknown = _unknown_hooks(pm, plugin)
        if unknown:
            pm.unregister(plugin)
            refuse(
                name,
                Deferred(
                    N_("it implements {hooks}, which gammonbot has no hook for (misspelled?)"), hooks=", ".join(unknown)
                ),
            )
    for name in sorted((wanted or set()) - {n for n, _plugin in pm.list_name_plugin()} - set(reg.refused)):
        log.warning("%s names plugin %r, but no plugin of that name is installed", ENV_PLUGINS, name)
    pm.check_pending()
    if os.environ.get(ENV_TRACE, "").strip() not in ("", "0"):
        pm.trace.root.setwriter(lambda text: sys.stderr.write(text))
        pm.enable_tracing()

    for name, plugin in list(pm.list_name_plugin()):
        others = [p for p in pm.get_plugins() if p is not plugin]
        saved = reg._save()
        hook = ""
        try:
            for hook, method in COLLECTIONS:
                caller = pm.subset_hook_caller(hook, remove_plugins=others)
                caller(register=_registrar(getattr(reg, method), name))
        except Exception as exc:  # whatever one plugin's hook does, the others load: its registrations are undone
            reg._restore(saved)
            pm.unregister(plugin)
            refuse(name, _reason(exc, hook), exc)
    return pm, reg


def _reason(exc: Exception, hook: str) -> Deferred:
    """Why a plugin whose collection ``hook`` raised ``exc`` is refused: a :class:`PluginError`'s own words (still
    :class:`Deferred`), or what went wrong in its hook."""
    if isinstance(exc, PluginError) and exc.args and isinstance(exc.args[0], Deferred):
        return exc.args[0]
    if isinstance(exc, PluginError):
        return Deferred("{error}", error=str(exc))  # words from elsewhere, as they were given
    return Deferred(N_("its {hook} failed: {error}"), hook=hook, error=f"{type(exc).__name__}: {exc}")


#: Collection hooks and the Registry method that takes what each plugin registers through them.
COLLECTIONS = (
    ("register_variants", "register_variant"),
    ("register_time_controls", "register_time_control"),
    ("register_players", "register_player"),
    ("register_rating_systems", "register_rating_system"),
    ("register_translations", "register_translation"),
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
        i18n.use_plugin_catalogs(_default.catalog_folders())  # the plugins' words, in every language's catalog
    return _default


def reset_registry() -> None:
    """Forget the process-wide registry: the next use builds it again, reading ``GAMMONBOT_PLUGINS`` and the
    installed entry points afresh (a plugin installed, enabled or disabled meanwhile; tests)."""
    global _default
    _default = None


def find_variant(name: str) -> type[Variant]:
    """The rule-set class registered under ``name`` or an alias; :class:`UnknownVariant` lists what exists."""
    return registry().find(name)


def get_variant(name: str, **options: Any) -> Variant:
    """An instance of the rule set ``name`` with ``options``."""
    return registry().get(name, **options)


def is_installed(name: str) -> bool:
    """Whether the rule set ``name`` (a stored game's, say) is registered on this machine now."""
    return registry().has(name)


def find_time_control(name: str) -> TimeControl:
    """The time control registered under ``name`` or an alias; :class:`UnknownTimeControl` lists those that exist."""
    return registry().find_time_control(name)


def find_player(name: str) -> PlayerSpec:
    """The bot player registered under ``name`` or an alias; :class:`UnknownPlayer` lists those that exist."""
    return registry().find_player(name)


def players_for(variant: Variant) -> list[PlayerSpec]:
    """The bot players that can play ``variant`` on this machine, weakest first."""
    return registry().players_for(variant)
