"""Nackgammon, an outside gammonbot plugin: a rule set added by ``pip install``, with no change to gammonbot.

Backgammon from Nack Ballard's start (GNU Backgammon's ``VARIATION_NACKGAMMON``: its Position IDs and the ``.mat``
tag ``[Variation "NackGammon"]`` mean the same there). ``pyproject.toml`` declares the entry point that brings it
in (group ``gammonbot``: ``nackgammon = "gammonbot_nackgammon"``); ``tests/`` runs gammonbot's contract kit on it.

Its words ship with it: ``locale/ru/LC_MESSAGES/nackgammon.po`` translates its name and summary into Russian
(``register_translations``); gammonbot merges it into its Russian catalog when the plugin loads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.i18n import N_
from engine.plugins import hookimpl
from engine.variant import Variant

#: The plugin's own catalogs: ``<lang>/LC_MESSAGES/<domain>.po`` (package data, see ``pyproject.toml``).
LOCALE = Path(__file__).resolve().parent / "locale"


class Nackgammon(Variant):
    name = "nackgammon"
    display_name = N_("Nackgammon")
    aliases = ("nack",)
    summary = N_(
        "Backgammon with a different start: 2 checkers on the 24-point, 2 on the 23, 4 on the 13, 3 on the 8 "
        "and 4 on the 6. Everything else is backgammon: blots are hit, both dice must be played if possible, "
        "gammons and backgammons count double and triple."
    )
    start = {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    mat_variation = "NackGammon"


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Nackgammon)


@hookimpl
def register_translations(register: Callable[[Path], None]) -> None:
    register(LOCALE)
