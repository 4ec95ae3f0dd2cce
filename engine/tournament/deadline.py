"""What decides a match still unfinished when its round's deadline passes.

A tournament states one rule (:class:`DeadlineRule`, stored in its terms) and the bot says which rule it
applied. :func:`decide` is a pure function of the facts the service gathers from the match's game:

- **the player who acted more recently wins** (whoever acted last was waiting for the other);
- **the higher pip count loses** (the player further from bearing off, in the game in progress);
- **an admin decides**.

When the rule cannot tell (both acted at the same moment, nobody acted, equal or unknown pip counts), the
decision goes to an admin and the words say why. Times are seconds, as everywhere in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import DeadlineRule

__all__ = ["DeadlineDecision", "SideFacts", "decide", "duration_words"]


@dataclass(frozen=True, slots=True)
class SideFacts:
    """One side of an unfinished match at its deadline: the entrant, its name, when it last acted in the match
    (None: never), and its pip count in the game in progress (None: no position yet)."""

    entrant: str
    name: str
    last_action: float | None = None
    pips: int | None = None


@dataclass(frozen=True, slots=True)
class DeadlineDecision:
    """The outcome of a deadline rule: the winner and loser (None when an admin must decide), and the words to
    announce ("The round's deadline passed. Rule: the higher pip count loses. ...")."""

    rule: DeadlineRule
    winner: str | None
    loser: str | None
    words: str

    @property
    def needs_admin(self) -> bool:
        return self.winner is None


def decide(rule: DeadlineRule, a: SideFacts, b: SideFacts) -> DeadlineDecision:
    """Apply ``rule`` to a match between ``a`` and ``b`` whose deadline has passed."""
    opening = f"The round's deadline passed before {a.name} and {b.name} finished. Rule: {rule.words}."
    if rule is DeadlineRule.RECENT_ACTOR:
        return _recent(rule, opening, a, b)
    if rule is DeadlineRule.PIP_COUNT:
        return _pips(rule, opening, a, b)
    return DeadlineDecision(rule, None, None, f"{opening} An admin will decide this match.")


def _wins(rule: DeadlineRule, opening: str, winner: SideFacts, loser: SideFacts, why: str) -> DeadlineDecision:
    return DeadlineDecision(rule, winner.entrant, loser.entrant, f"{opening} {why}, so {winner.name} wins.")


def _admin(rule: DeadlineRule, opening: str, why: str) -> DeadlineDecision:
    return DeadlineDecision(rule, None, None, f"{opening} {why}, so an admin will decide.")


def _recent(rule: DeadlineRule, opening: str, a: SideFacts, b: SideFacts) -> DeadlineDecision:
    if a.last_action is None and b.last_action is None:
        return _admin(rule, opening, "Neither side acted")
    if a.last_action is None or b.last_action is None:
        acted, idle = (a, b) if b.last_action is None else (b, a)
        return _wins(rule, opening, acted, idle, f"{acted.name} acted and {idle.name} never did")
    if a.last_action == b.last_action:
        return _admin(rule, opening, "Both last acted at the same moment")
    late, early = (a, b) if a.last_action > b.last_action else (b, a)
    assert late.last_action is not None and early.last_action is not None
    gap = duration_words(late.last_action - early.last_action)
    return _wins(rule, opening, late, early, f"{late.name} acted last, {gap} after {early.name}")


def _pips(rule: DeadlineRule, opening: str, a: SideFacts, b: SideFacts) -> DeadlineDecision:
    if a.pips is None or b.pips is None:
        return _admin(rule, opening, "There is no position to count pips in")
    if a.pips == b.pips:
        return _admin(rule, opening, f"Both have {a.pips} pips")
    high, low = (a, b) if a.pips > b.pips else (b, a)
    return _wins(rule, opening, low, high, f"{high.name} has {high.pips} pips to {low.name}'s {low.pips}")


def duration_words(seconds: float) -> str:
    """A duration in words, to the two largest units: "2 days 3 h", "45 min", "12 s"."""
    s = max(0, int(seconds))
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    parts = []
    if days:
        parts.append(f"{days} day" + ("s" if days != 1 else ""))
    if hours:
        parts.append(f"{hours} h")
    if minutes:
        parts.append(f"{minutes} min")
    if s or not parts:
        parts.append(f"{s} s")
    return " ".join(parts[:2])
