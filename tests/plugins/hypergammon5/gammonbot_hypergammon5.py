"""Hypergammon with five checkers, a plugin of one module: backgammon from one checker on each of the 24 to 20
points. Its tests register it in-process (``build_plugin_manager([("hypergammon5", module)])``) and check it with
gammonbot's contract kit; a package would declare it as an entry point, as Nackgammon does."""

from __future__ import annotations

from collections.abc import Callable

from engine.plugins import hookimpl
from engine.variant import Variant


class Hypergammon5(Variant):
    name = "hypergammon5"
    display_name = "Hypergammon (5)"
    aliases = ("hyper5",)
    summary = (
        "Backgammon with five checkers each, one on each of the 24, 23, 22, 21 and 20 points. Everything else is "
        "backgammon: blots are hit, both dice must be played if possible, gammons and backgammons count."
    )
    checkers = 5
    start = {24: 1, 23: 1, 22: 1, 21: 1, 20: 1}
    mat_variation = "HyperGammon (5)"


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(Hypergammon5)
