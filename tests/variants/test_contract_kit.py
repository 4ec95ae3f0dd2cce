"""gammonbot's contract kit (engine.testing) on every rule set the built-in plugins register, boards drawn.

Outside plugins run the same kit in their own CI (tests/plugins/*/); a rule set added to variants/ is checked here
without any change to this file.
"""

from __future__ import annotations

from engine.plugins import DEFAULT_PLUGINS, build_plugin_manager
from engine.testing import contract_test
from render import render_board

_, _registry = build_plugin_manager(load_entry_points=False)
BUILT_IN = [cls for name, cls in sorted(_registry.variants.items()) if _registry.owners[name] in dict(DEFAULT_PLUGINS)]

test_contract = contract_test(*BUILT_IN, render=render_board)


def test_every_built_in_plugin_loads_and_the_kit_sees_every_built_in_rule_set() -> None:
    assert _registry.refused == {}, "a built-in plugin was refused"
    assert {"backgammon", "longgammon", "sprintgammon", "doubles"} <= {cls.name for cls in BUILT_IN}
