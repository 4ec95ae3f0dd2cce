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

from engine.i18n import _, ngettext

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
    announce ("The round's deadline passed. Rule: the higher pip count loses. ..."), in the language active when
    it was decided."""

    rule: DeadlineRule
    winner: str | None
    loser: str | None
    words: str

    @property
    def needs_admin(self) -> bool:
        return self.winner is None


def decide(rule: DeadlineRule, a: SideFacts, b: SideFacts) -> DeadlineDecision:
    """Apply ``rule`` to a match between ``a`` and ``b`` whose deadline has passed (the words in the active
    language; the decision is the same in every language)."""
    opening = _("The round's deadline passed before {a} and {b} finished. Rule: {rule}.").format(
        a=a.name, b=b.name, rule=rule.words
    )
    if rule is DeadlineRule.RECENT_ACTOR:
        return _recent(rule, opening, a, b)
    if rule is DeadlineRule.PIP_COUNT:
        return _pips(rule, opening, a, b)
    return _admin(rule, opening, _("An admin will decide this match."))


def _wins(rule: DeadlineRule, opening: str, winner: SideFacts, loser: SideFacts, why: str) -> DeadlineDecision:
    return DeadlineDecision(rule, winner.entrant, loser.entrant, f"{opening} {why}")


def _admin(rule: DeadlineRule, opening: str, why: str) -> DeadlineDecision:
    return DeadlineDecision(rule, None, None, f"{opening} {why}")


def _recent(rule: DeadlineRule, opening: str, a: SideFacts, b: SideFacts) -> DeadlineDecision:
    if a.last_action is None and b.last_action is None:
        return _admin(rule, opening, _("Neither side acted, so an admin will decide."))
    if a.last_action is None or b.last_action is None:
        acted, idle = (a, b) if b.last_action is None else (b, a)
        why = _("{acted} acted and {idle} never did, so {acted} wins.").format(acted=acted.name, idle=idle.name)
        return _wins(rule, opening, acted, idle, why)
    if a.last_action == b.last_action:
        return _admin(rule, opening, _("Both last acted at the same moment, so an admin will decide."))
    late, early = (a, b) if a.last_action > b.last_action else (b, a)
    assert late.last_action is not None and early.last_action is not None
    gap = duration_words(late.last_action - early.last_action)
    why = _("{late} acted last, {gap} after {early}, so {late} wins.").format(late=late.name, gap=gap, early=early.name)
    return _wins(rule, opening, late, early, why)


def _pips(rule: DeadlineRule, opening: str, a: SideFacts, b: SideFacts) -> DeadlineDecision:
    if a.pips is None or b.pips is None:
        return _admin(rule, opening, _("There is no position to count pips in, so an admin will decide."))
    if a.pips == b.pips:
        why = ngettext(
            "Both have {pips} pip, so an admin will decide.", "Both have {pips} pips, so an admin will decide.", a.pips
        ).format(pips=a.pips)
        return _admin(rule, opening, why)
    high, low = (a, b) if a.pips > b.pips else (b, a)
    assert high.pips is not None and low.pips is not None
    why = ngettext(
        "{high} has {high_pips} pip to {low}'s {low_pips}, so {low} wins.",
        "{high} has {high_pips} pips to {low}'s {low_pips}, so {low} wins.",
        high.pips,
    ).format(high=high.name, high_pips=high.pips, low=low.name, low_pips=low.pips)
    return _wins(rule, opening, low, high, why)


def duration_words(seconds: float) -> str:
    """A duration in words, to the two largest units: "2 days 3 h", "45 min", "12 s" (in the active language)."""
    s = max(0, int(seconds))
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    parts = []
    if days:
        parts.append(ngettext("{count} day", "{count} days", days).format(count=days))
    if hours:
        # Translators: hours, abbreviated ("3 h").
        parts.append(_("{count} h").format(count=hours))
    if minutes:
        # Translators: minutes, abbreviated ("45 min").
        parts.append(_("{count} min").format(count=minutes))
    if s or not parts:
        # Translators: seconds, abbreviated ("12 s").
        parts.append(_("{count} s").format(count=s))
    return " ".join(parts[:2])
