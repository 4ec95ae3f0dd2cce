"""Tavli, the Greek family (rules-family §1–§4): Portes and the Tavli match here, Plakoto and Fevga beside them; one
plugin for the four.

What the three share (rules-family §1): no doubling cube; a win is 1 point, 2 when the loser has borne off no
checker, never 3; the first game starts with each player throwing one die, and the higher then throws both dice
for his first turn (so a doublet may open); every later game is started by the winner of the game before, who
throws both dice (after a draw, as the first game). The last two are the match option ``opening=winner-reroll``,
each rule set's default (``Variant.match_defaults``); cube options are refused (``Variant.refused_option``).

**Portes** is standard backgammon's board and plays (rules-family §2: legal plays exactly those of backgammon)
with those Tavli differences: a backgammon counts as a gammon. ``.mat`` exports carry ``[Variation "Portes"]``,
which GNU Backgammon does not know (it would score a backgammon 3), so such files are for our own tools.

**The Tavli match** (:class:`Tavli`, rules-family §1.1) plays its games by the three in turn: game *k* (from 0) is
``(Portes, Plakoto, Fevga)[k % 3]`` (:meth:`Tavli.for_game`); the cycle advances after every game, a drawn Plakoto
included. One score, to 5 points unless the players choose another length; each game's result comes from its own
rule set, and the match is rated under "tavli". Plakoto's and Fevga's options may be given to the match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.i18n import N_
from engine.plugins import hookimpl
from engine.position import Position
from engine.variant import Variant
from variants.fevga import Fevga
from variants.plakoto import Plakoto

__all__ = ["Portes", "Plakoto", "Fevga", "Tavli", "TAVLI_MATCH_DEFAULTS"]

#: The match defaults every Tavli game shares: the first game re-throws, the winner starts the next.
TAVLI_MATCH_DEFAULTS = {"opening": "winner-reroll"}


class Portes(Variant):
    """Portes: backgammon's board and plays, Tavli's scoring (1 or 2, no triple) and no cube."""

    name = "portes"
    display_name = N_("Portes")
    aliases = ("tavli-portes",)
    summary = N_(
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
    result_names = {1: N_("single game"), 2: N_("gammon")}

    def game_result(self, pos: Position) -> int:
        """1, or 2 when the loser has borne off none (no backgammon in Tavli)."""
        return 1 if pos.off[1] > 0 else 2


class Tavli(Portes):
    """The Tavli match: Portes, Plakoto and Fevga in turn, one score (the match's own rules are Tavli's: no cube, the
    first game re-thrown, the winner starts the next). Asked directly, it answers as Portes, its first game."""

    name = "tavli"
    display_name = N_("Tavli")
    aliases = ("tavli-match",)
    summary = N_(
        "A match of the three Greek games in turn: Portes (backgammon), Plakoto (pins instead of hits) and Fevga "
        "(both sides run the same way, a single checker holds a point), then Portes again, until a player reaches "
        "the match length (5 unless you choose another). Each game is scored by its own rules: 1 point, 2 if the "
        "loser bore off none, 2 for Plakoto's pinned mother; a drawn Plakoto scores nothing and Fevga follows. No "
        "cube. In the first game each player throws one die and the higher throws both dice to start; every later "
        "game is started by the winner of the game before. `/bg-info rules` with a rule set's name tells its rules."
    )
    mat_variation = "Tavli"
    gnubg_compatible = False
    default_length = 5
    option_defaults = {**Plakoto.option_defaults, **Fevga.option_defaults}
    option_help = {**Plakoto.option_help, **Fevga.option_help}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        plakoto = Plakoto(**{k: self.options[k] for k in Plakoto.option_defaults})
        fevga = Fevga(**{k: self.options[k] for k in Fevga.option_defaults})
        self.options.update(plakoto.options)
        self.options.update(fevga.options)
        #: The rule sets of the games, in the order they come round.
        self.cycle: tuple[Variant, ...] = (Portes(), plakoto, fevga)

    def for_game(self, k: int) -> Variant:
        """Game ``k`` (from 0) is Portes, Plakoto or Fevga: ``k % 3``."""
        return self.cycle[k % len(self.cycle)]

    @property
    def results(self) -> Mapping[int, str]:
        """Every result a game of the cycle can end with."""
        out: dict[int, str] = {}
        for variant in self.cycle:
            for level, name in variant.results.items():
                out.setdefault(level, name)
        return dict(sorted(out.items()))


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Portes)
    register(Plakoto)
    register(Fevga)
    register(Tavli)
