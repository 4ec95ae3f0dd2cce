"""Standard backgammon (rules.md §1): the first plugin, and the base the other rule sets reuse."""

from __future__ import annotations

from collections.abc import Callable

from engine.i18n import N_
from engine.plugins import hookimpl
from engine.variant import Variant


class Backgammon(Variant):
    """Standard backgammon: 15 checkers each, players move towards each other, blots are hit."""

    name = "backgammon"
    display_name = N_("Backgammon")
    aliases = ("bg", "standard")
    summary = N_(
        "Each player has 15 checkers: 2 on the 24-point, 5 on the 13, 3 on the 8 and 5 on the 6. "
        "Players move in opposite directions. Two or more checkers make a point the opponent cannot land on; "
        "a single checker (a blot) is hit and must re-enter from the bar before anything else moves. "
        "Both dice must be played if possible, else the higher one; doublets play four times. "
        "Bear off once all 15 are home. A gammon (loser bore off none) doubles the stake, a backgammon "
        "(loser also still on the bar or in the winner's home) triples it."
    )
    checkers = 15
    start = {24: 2, 13: 5, 8: 3, 6: 5}


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Backgammon)
