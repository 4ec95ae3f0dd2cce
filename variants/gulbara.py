"""Gul bara (rules-family §10; Rosespring, "Crazy Narde"): Fevga's board without its constraints, and the doublet
cascade.

The board is Fevga's (:mod:`variants.fevga`): 15 checkers each on the player's own 24-point, diagonally opposite,
both moving the same way round; nothing is hit, a single checker holds a point, no bar; bearing off once all 15
are home. None of Fevga's three rules applies unless an option asks for it (``first_checker``, ``own_quarter``,
``block_rule``, with Fevga's definitions).

**The cascade** (:meth:`GulBara.next_stage`). During each player's first three turns a doublet plays four times,
as in backgammon. From his fourth turn (option ``cascade_from``: the turn it starts on) a doublet N-N is played as
four N's, then four (N+1)'s, ... up to four 6's, all in the same turn: each stage a play of its own, whose dice the
rule set fixes (:attr:`~engine.variant.TurnStep.FIXED_DICE`). A stage that cannot be played in full ends the
cascade: the rest is lost, or with option ``rest_to_opponent`` handed to the opponent (the unplayed dice of that
stage, then every later stage), who plays them before his own roll under the same rule; what he cannot play is
lost and nothing is handed back.

Scoring: 1 point, 2 (mars) when the loser has borne off none; no cube. Each player throws one die and the higher
throws both dice for his first turn (``opening=reroll``). ``.mat`` exports carry ``[Variation "Gul bara"]``: each
stage of a cascade is written as the same player's next entry with its dice, as Acey-deucey's named doublet is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.i18n import N_, _
from engine.plugins import hookimpl
from engine.variant import NextStage, TurnContext, TurnStep, Variant, VariantOptionError
from variants.fevga import BlockRule, Fevga

__all__ = ["GulBara", "cascade_stage"]


def cascade_stage(dice: tuple[int, int], used: int, context: TurnContext, start: int, rest: bool) -> NextStage | None:
    """What follows a stage under the cascade rule: the next doublet while stages are played in full, the rest
    handed over when ``rest`` says so, else nothing. ``start``: the player's turn the cascade starts on."""
    n = dice[0]
    if dice[0] != dice[1]:
        return None
    full = 4 if context.count is None else context.count
    if context.handed:  # dice handed over: the same rule, and nothing is handed back
        return NextStage.fixed((n + 1, n + 1)) if used == full and n < 6 else None
    if context.turn < start:
        return None
    if used == full:
        return NextStage.fixed((n + 1, n + 1)) if n < 6 else None
    if rest:
        return NextStage.to_opponent((n, n), full - used)
    return None


class GulBara(Fevga):
    """Gul bara: Fevga's board with no constraints by default, and the doublet cascade from the fourth turn."""

    name = "gulbara"
    display_name = N_("Gul bara")
    aliases = ("gul-bara", "rosespring", "crazy-narde")
    summary = N_(
        "Each player starts with all 15 checkers on his 24-point, in opposite corners, and both move the same way "
        "round. Nothing is ever hit: a single checker holds a point. Both dice must be played if possible, else "
        "the higher. In each player's first three turns a doublet plays four times; from his fourth turn a "
        "doublet cascades: 3-3 plays four 3s, then four 4s, four 5s and four 6s, all in the same turn. A stage "
        "that cannot be played in full ends the cascade and the rest is lost. A win is 1 point, 2 if the loser "
        "bore off none; there is no cube."
    )
    match_defaults = {"opening": "reroll"}
    mat_variation = "Gul bara"
    option_defaults = {
        **Fevga.option_defaults,
        "first_checker": False,
        "own_quarter": False,
        "block_rule": BlockRule.NONE,
        "cascade_from": 4,
        "rest_to_opponent": False,
    }
    option_help = {
        **Fevga.option_help,
        "cascade_from": N_("Gul bara: the player's turn from which a doublet cascades up to 6-6 (1 = from the first)"),
        "rest_to_opponent": N_("Gul bara: the dice of a cascade cut short go to the opponent (else they are lost)"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        start = self.options["cascade_from"]
        if not isinstance(start, int) or isinstance(start, bool) or not 1 <= start <= 99:
            raise VariantOptionError(_("Gul bara option 'cascade_from' is a turn number from 1 to 99"))
        if not isinstance(self.options["rest_to_opponent"], bool):
            raise VariantOptionError(_("Gul bara option 'rest_to_opponent' is on or off"))
        self._cascade_from: int = start
        self._rest: bool = self.options["rest_to_opponent"]

    def next_stage(self, dice: tuple[int, int], used: int, context: TurnContext) -> NextStage | TurnStep | None:
        """The cascade: after a doublet played in full from the player's ``cascade_from``-th turn, the next doublet
        up to 6-6; a stage cut short ends it (the rest lost, or handed to the opponent with ``rest_to_opponent``)."""
        return cascade_stage(dice, used, context, self._cascade_from, self._rest)


@hookimpl
def register_variants(register: Callable[[type[Variant]], None]) -> None:
    register(GulBara)
