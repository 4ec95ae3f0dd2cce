"""Hypergammon (5), a one-module plugin, registered in-process (no install) and checked by the contract kit."""

from __future__ import annotations

import gammonbot_hypergammon5

from engine.plugins import build_plugin_manager
from engine.testing import contract_test
from render import render_board

test_contract = contract_test(gammonbot_hypergammon5, render=render_board)


def test_it_registers_beside_the_built_in_rule_sets_and_plays_from_its_start() -> None:
    _, reg = build_plugin_manager([("hypergammon5", gammonbot_hypergammon5)], load_entry_points=False, strict=True)
    assert reg.owners["hypergammon5"] == "hypergammon5" and reg.find("hyper5") is gammonbot_hypergammon5.Hypergammon5
    variant = reg.get("hypergammon5")
    assert str(variant.start_position()) == "24:1 23:1 22:1 21:1 20:1 5:-1 4:-1 3:-1 2:-1 1:-1"
    assert {p.notation for p in variant.legal_plays(variant.start_position(), (6, 5))} >= {"24/13"}
