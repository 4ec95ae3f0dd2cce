"""Hook specifications of gammonbot plugins: only specs live here (the guide is ``docs/plugins.md``).

A plugin is a module or object with functions marked ``@hookimpl`` (from :mod:`engine.plugins`) whose
names match these specs. The built-in rule sets are plugins registered the same way outside packages
are (entry-point group ``gammonbot``). Hooks are synchronous; implementations may accept fewer
arguments than the spec lists, so specs can grow.

Each hook is called once per plugin, at start-up, with a ``register`` callback. A plugin whose hook raises, that
registers something of the wrong kind, or whose name or alias another plugin already holds is refused as a whole
(a warning names it and the reason; what it registered is taken back) and the bot starts with the others
(:mod:`engine.plugins`). A hook implemented under a name that is not below (a misspelling) refuses its plugin too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from .players import PlayerSpec
    from .ratings import RatingSystem
    from .timecontrol import TimeControl
    from .variant import Variant

hookspec = pluggy.HookspecMarker("gammonbot")


@hookspec
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    """Called once when the plugin manager starts: call ``register(VariantSubclass)`` for each rule set.

    Results are collected from every plugin (the return value is ignored). ``register`` rejects a name
    or alias that another plugin already registered, and remembers which plugin registered what. A subclass has
    only the aliases it declares itself, and must declare its own ``name`` (the name games are stored under).
    The :class:`~engine.variant.Variant` contract, and the kit that checks it (:mod:`engine.testing`), are
    described in ``docs/plugins.md``.
    """


@hookspec
def register_time_controls(register: Callable[[TimeControl], None]) -> None:
    """Called once when the plugin manager starts: call ``register(TimeControl(...))`` for each preset.

    A preset is a named :class:`~engine.timecontrol.TimeControl` (Backgammon Blitz, a tournament clock, a
    correspondence pace) that matches may be played under. Results are collected from every plugin (the
    return value is ignored). ``register`` rejects a name or alias that another plugin already registered,
    and remembers which plugin registered what.
    """


@hookspec
def register_players(register: Callable[[PlayerSpec], None]) -> None:
    """Called once when the plugin manager starts: call ``register(PlayerSpec(...))`` for each bot player.

    A :class:`~engine.players.PlayerSpec` names a computer opponent (name, display name, strength label)
    and says by capability which rule sets it can play (``supports(variant)``); its ``factory`` builds a
    :class:`~engine.players.Player` that chooses among the engine's own legal plays and answers cube and
    resignation decisions. A spec whose engine cannot run on this machine is still registered, with
    ``unavailable`` saying why. Results are collected from every plugin (the return value is ignored).
    ``register`` rejects a name or alias that another plugin already registered, and remembers which plugin
    registered what.
    """


@hookspec
def register_rating_systems(register: Callable[[RatingSystem], None]) -> None:
    """Called once when the plugin manager starts: call ``register(system)`` for each rating system.

    A :class:`~engine.ratings.RatingSystem` has a ``name``, a ``display_name`` and ``initial()``,
    ``win_probability(...)`` and ``update(winner, loser, length)``; the bot uses the one its configuration
    names (FIBS by default), so a package can replace the ratings (Glicko-2, say) without touching the bot.
    Results are collected from every plugin (the return value is ignored); ``register`` rejects a name another
    plugin already registered.
    """


@hookspec
def register_translations(register: Callable[[str | os.PathLike[str]], None]) -> None:
    """Called once when the plugin manager starts: call ``register(folder)`` with each folder of the plugin's own
    message catalogs, laid out as gettext's: ``<folder>/<lang>/LC_MESSAGES/<domain>.po`` (or ``.mo``), ``<lang>``
    one of the shipped languages (``ru``, ``el``, ``tr``), any domain name. Results are collected from every plugin
    (the return value is ignored).

    Each language's catalogs of the plugin are merged into that language's catalog (:mod:`engine.i18n`) after the
    project's own: the plugin's translations count only for messages the project's catalogs do not hold, so a plugin
    never changes a word of gammonbot's (its rule set's name, summary, options and results speak the player's
    language through ``_``, as the built-in ones do). ``register`` rejects a folder that does not exist; a catalog
    that cannot be read is left out with a logged warning when the language is first used.
    """
