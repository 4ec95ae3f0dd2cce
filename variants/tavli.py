"""Tavli, the Greek family (rules-family §1–§4): Portes here, Plakoto and Fevga beside it; one plugin for the three.

What the three share (rules-family §1): no doubling cube; a win is 1 point, 2 when the loser has borne off no
checker, never 3; the first game starts with each player throwing one die, and the higher then throws both dice
for his first turn (so a doublet may open); every later game is started by the winner of the game before, who
throws both dice (after a draw, as the first game). The last two are the match option ``opening=winner-reroll``,
each rule set's default (``Variant.match_defaults``); cube options are refused (``Variant.refused_option``).

**Portes** is standard backgammon's board and plays (rules-family §2: legal plays exactly those of backgammon)
with those Tavli differences: a backgammon counts as a gammon. ``.mat`` exports carry ``[Variation "Portes"]``,
which GNU Backgammon does not know (it would score a backgammon 3), so such files are for our own tools.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.plugins import hookimpl
from engine.position import Position
from engine.variant import Variant
from variants.fevga import Fevga
from variants.plakoto import Plakoto

__all__ = ["Portes", "Plakoto", "Fevga", "TAVLI_MATCH_DEFAULTS"]

#: The match defaults every Tavli game shares: the first game re-throws, the winner starts the next.
TAVLI_MATCH_DEFAULTS = {"opening": "winner-reroll"}


class Portes(Variant):
    """Portes: backgammon's board and plays, Tavli's scoring (1 or 2, no triple) and no cube."""

    name = "portes"
    display_name = "Portes"
    aliases = ("tavli-portes",)
    summary = (
        "Backgammon as played in Greece, the first game of Tavli. Each player has 15 checkers: 2 on the "
        "24-point, 5 on the 13, 3 on the 8 and 5 on the 6; players move in opposite directions, two checkers "
        "make a point, a lone checker is hit and must re-enter from the bar first. Both dice must be played if "
        "possible, else the higher one; doublets play four times. A win is 1 point, 2 if the loser bore off "
        "none (never 3); there is no cube. The higher opening die starts and throws both dice; the winner of a "
        "game starts the next."
    )
    checkers = 15
    start = {24: 2, 13: 5, 8: 3, 6: 5}
    uses_cube = False
    match_defaults = TAVLI_MATCH_DEFAULTS
    mat_variation = "Portes"
    result_names = {1: "single game", 2: "gammon"}

    def game_result(self, pos: Position) -> int:
        """1, or 2 when the loser has borne off none (no backgammon in Tavli)."""
        return 1 if pos.off[1] > 0 else 2


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Portes)
    register(Plakoto)
    register(Fevga)
