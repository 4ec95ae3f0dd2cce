"""Sprintgammon (rules.md §3): backgammon with three checkers each, on the 24, 23 and 22 points.

"After this different starting setup, play continues according to the rules of Backgammon" (IBF), so the
rule set is only data: the checkers and the start. It is GNU Backgammon's three-checker Hypergammon, so
Position IDs mean the same board there; the start is ``AACgAgAAKgAAAA``.

A gammon means the loser has borne off none of his three checkers, a backgammon that he also still has one
on the bar or in the winner's home board (the base rule set counts borne-off checkers, not fifteen).

``.mat`` exports carry ``[Variation "HyperGammon (3)"]``: GNU Backgammon's importer (``import.c``,
``ImportMatVariation``) recognises exactly the prefixes ``HyperGammon (1)``, ``(2)`` and ``(3)``. A bare
``"HyperGammon"`` is kept as a comment and the file only loads because the importer retries every variation
after a failed standard-backgammon import, which a short game can pass by accident. Checked by importing a
file into GNU Backgammon 1.07 (``tests/variants/test_sprintgammon.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.i18n import N_
from engine.plugins import hookimpl
from engine.variant import Variant


class Sprintgammon(Variant):
    """Backgammon with three checkers each (GNU Backgammon's Hypergammon)."""

    name = "sprintgammon"
    display_name = N_("Sprintgammon")
    aliases = ("hypergammon", "hypergammon3", "sprint")
    summary = N_(
        "Backgammon with three checkers each, one on each of the 24, 23 and 22 points. Everything else is "
        "backgammon: two checkers make a point, a blot is hit and re-enters from the bar, both dice must be "
        "played if possible, and the cube is used. A gammon (the loser bore off none of his three) doubles "
        "the stake, a backgammon (also still on the bar or in the winner's home) triples it."
    )
    checkers = 3
    start = {24: 1, 23: 1, 22: 1}
    mat_variation = "HyperGammon (3)"


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Sprintgammon)
