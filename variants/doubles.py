"""Backgammon Doubles (rules.md §4): standard backgammon played by sides of two.

The rules of the board are those of backgammon. Each side is a team of two; teammates may consult,
but in each game only one member of a side, its acting member, rolls, moves the checkers and handles
the cube. The acting member rotates from game to game unless the match lets teams choose (seating is
enforced by the engine's match state machine from ``team_size``; nothing here names a transport).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.i18n import N_
from engine.plugins import hookimpl
from engine.variant import Variant
from variants.backgammon import Backgammon


class Doubles(Backgammon):
    """Backgammon for two teams of two; one acting member per side in each game."""

    name = "doubles"
    display_name = N_("Backgammon Doubles")
    aliases = ("team", "pairs")
    summary = N_(
        "Backgammon for two teams of two, with the usual board, dice and cube. Teammates may talk over "
        "every decision, but in each game only one member of a team, the acting member, rolls, moves the "
        "checkers and doubles, takes or passes. The acting member changes from one game to the next."
    )
    team_size = 2


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Doubles)
