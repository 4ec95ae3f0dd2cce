"""Nackgammon's own CI: gammonbot's contract kit on the plugin, as an outside package runs it.

``cd tests/plugins/nackgammon && python -m pytest`` runs it alone; gammonbot's suite runs it too. The plugin is
loaded beside the built-in plugins (strictly: a clash or a failing hook fails here), then every rule set it
registers is checked over self-played matches, its boards drawn.
"""

from __future__ import annotations

import gammonbot_nackgammon

from engine.testing import contract_test
from render import render_board

test_contract = contract_test(gammonbot_nackgammon, render=render_board)
