"""Games of a rule set that is not installed: kept, listed, never lost, and playable again once it is back.

A stored game names its rule set. When no plugin registers that rule set now (its plugin disabled with
``GAMMONBOT_PLUGINS``, uninstalled, or refused at start-up), nothing crashes and nothing is changed:

* loading the game is refused with :class:`NotInstalled`, a :class:`~.types.Refused` whose sentence players read
  ("game #7 is a game of nackgammon, which is not installed on this bot"), and which carries a :class:`GameView`
  made from the stored row alone (:func:`missing_view`: players, names, length, score, cube), marked
  ``unavailable`` ("rule set nackgammon is not installed"), for lists to show;
* finished matches, ratings and leaderboards of the rule set are read as stored, with the same words beside them;
* timers of the game stay (a deadline fires once the rule set is back), and once it is back the game loads and
  plays on where it stood.
"""

from __future__ import annotations

from typing import Any

from engine.i18n import _
from engine.plugins import UnknownVariant, find_variant, is_installed
from engine.variant import Variant

from ..storage import GameRow
from .types import GameView, Refused

__all__ = ["NotInstalled", "not_installed", "stored_variant", "stored_class", "missing_view"]


def not_installed(variant: str) -> str | None:
    """``rule set X is not installed`` when no plugin registers the rule set ``variant`` now; None when one does."""
    return None if is_installed(variant) else _("rule set {rule_set} is not installed").format(rule_set=variant)


def stored_variant(row: GameRow) -> str:
    """The name of the rule set a stored game (or challenge) is played under."""
    match = row.setup.get("match")
    name = match.get("variant") if isinstance(match, dict) else row.setup.get("variant")
    return str(name or row.variant)


def stored_class(name: str, game_id: int) -> type[Variant]:
    """The rule set a stored game names; refused in words when it is not installed."""
    try:
        return find_variant(name)
    except UnknownVariant:
        raise Refused(
            _("game #{game} is a game of {rule_set}, which is not installed on this bot").format(
                game=game_id, rule_set=name
            )
        ) from None


class NotInstalled(Refused):
    """A game whose rule set is not installed on this bot: refused with that sentence, and listed by :attr:`view`."""

    def __init__(self, view: GameView) -> None:
        super().__init__(
            _("game #{game} is a game of {rule_set}, which is not installed on this bot").format(
                game=view.id, rule_set=view.variant
            )
        )
        self.view = view


def _pair(value: Any, default: tuple[int, int]) -> tuple[int, int]:
    try:
        return int(value[0]), int(value[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return default


def missing_view(row: GameRow) -> GameView:
    """A game of a rule set that is not installed, as far as its stored row tells without the rule set: players,
    names, length, score and cube; no position, no plays, nobody called to act."""
    name = stored_variant(row)
    setup = row.setup
    match = setup.get("match") if isinstance(setup.get("match"), dict) else None
    terms = setup.get("terms") or (setup if match is None else {})
    if match is not None:
        raw_sides = match.get("sides") or [[], []]
        length = (match.get("options") or {}).get("length", 0)
    else:  # a challenge: its setup is its terms
        raw_sides = [
            [x for x in (terms.get("challenger"), terms.get("teammate")) if x],
            [x for x in (*(terms.get("invited") or ()), terms.get("opponent_teammate")) if x],
        ]
        length = (terms.get("options") or {}).get("length", 0)
    sides = (tuple(str(p) for p in raw_sides[0]), tuple(str(p) for p in raw_sides[1]))
    state = (row.snapshot or {}).get("state") or {}
    cube = state.get("cube") or [1, None]
    owner = cube[1] if isinstance(cube, list) and len(cube) == 2 and cube[1] in (0, 1) else None
    return GameView(
        id=row.id,
        guild_id=row.guild_id,
        status=row.status,
        variant=name,
        display_name=name,
        sides=sides,
        names={str(k): str(v) for k, v in (setup.get("names") or terms.get("names") or {}).items()},
        length=int(length or 0),
        score=_pair(state.get("score"), (0, 0)),
        game=int(state.get("game") or 1),
        phase=None,
        to_act=None,
        acting=None,
        dice=None,
        cube=int(cube[0]) if isinstance(cube, list) and cube and isinstance(cube[0], int) else 1,
        cube_owner=owner,
        plays=(),
        draft="",
        draft_remaining=(),
        winner=state.get("winner") if state.get("winner") in (0, 1) else None,
        position_id=None,
        version=row.version,
        thread_id=row.thread_id,
        channel_id=row.channel_id,
        challenger=terms.get("challenger"),
        invited=tuple(terms.get("invited") or ()),
        unavailable=_("rule set {rule_set} is not installed").format(rule_set=name),
    )
