"""Nackgammon as an outside gammonbot plugin: a rule set added by ``pip install``, with no change to gammonbot.

Nackgammon (Nack Ballard's variant) is standard backgammon from another start: 2 checkers on the 24-point,
2 on the 23, 4 on the 13, 3 on the 8 and 4 on the 6 (rules.md §1.1; GNU Backgammon ``InitBoard``,
``VARIATION_NACKGAMMON``). GNU Backgammon knows it, so Position IDs mean the same board there, and its
``.mat`` importer reads the tag ``[Variation "NackGammon"]``.

The package declares itself in ``pyproject.toml``::

    [project.entry-points.gammonbot]
    nackgammon = "gammonbot_nackgammon"

and gammonbot's plugin manager loads every module of that entry-point group and calls its hooks.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.plugins import hookimpl
from engine.variant import Variant

__all__ = ["Nackgammon", "register_variants"]


class Nackgammon(Variant):
    """Backgammon from Nack Ballard's starting position: more checkers back, fewer on the midpoint."""

    name = "nackgammon"
    display_name = "Nackgammon"
    aliases = ("nack",)
    summary = (
        "Backgammon with a different start: 2 checkers on the 24-point, 2 on the 23, 4 on the 13, 3 on the 8 "
        "and 4 on the 6. Everything else is backgammon: blots are hit, both dice must be played if "
        "possible, gammons and backgammons count double and triple."
    )
    checkers = 15
    start = {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    mat_variation = "NackGammon"


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    """Add Nackgammon to gammonbot's rule sets."""
    register(Nackgammon)
