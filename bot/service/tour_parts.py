"""What the tournaments service hands out (views, events, news) and its pure parts: a tournament's terms from a
creator's options, the words it announces, the facts a deadline rule judges, and the timers of its deadlines.

The engine (``engine.tournament``) pairs, records and ranks; everything here is about the service around it: which
rule set and clock its games use, what players read, when the bot wakes up to apply a deadline.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.tournament import (
    Entrant,
    Format,
    How,
    Match,
    Status,
    Tournament,
    champion,
    duration_words,
    open_matches,
    pairings,
)
from render.bracket import round_title

from ..storage import TimerSpec
from .types import Outcome, Refused

__all__ = [
    "FORMATS",
    "REMINDER_SHARES",
    "TourEvent",
    "TourNews",
    "TourView",
    "deadline_timers",
    "format_of",
    "moment",
    "round_words",
    "summary_words",
]

#: How players name the formats, and the engine's.
FORMATS: dict[str, Format] = {
    "knockout": Format.KNOCKOUT,
    "ko": Format.KNOCKOUT,
    "elimination": Format.KNOCKOUT,
    "swiss": Format.SWISS,
    "league": Format.ROUND_ROBIN,
    "round robin": Format.ROUND_ROBIN,
    "round-robin": Format.ROUND_ROBIN,
    "roundrobin": Format.ROUND_ROBIN,
}
#: How much of a round's time has gone when both players of an unfinished match are reminded.
REMINDER_SHARES = (0.75, 0.95)
#: What each format is called in sentences.
FORMAT_WORDS = {Format.KNOCKOUT: "knockout", Format.SWISS: "Swiss", Format.ROUND_ROBIN: "league"}


def format_of(text: str) -> Format:
    """A format as typed (knockout, swiss, league) -> the engine's; refused with the choices."""
    found = FORMATS.get(" ".join(text.strip().lower().split()))
    if found is None:
        raise Refused(f"there is no tournament format {text!r}: knockout, swiss or league")
    return found


@dataclass(frozen=True)
class TourEvent:
    """Something a tournament did, with the sentence for the players: ``pings`` are the players it concerns (a
    transport may call them), ``game_id`` the game it is about (its thread is where a reminder goes)."""

    kind: str
    text: str
    pings: tuple[str, ...] = ()
    game_id: int | None = None
    match_id: str | None = None


@dataclass(frozen=True)
class TourView:
    """A tournament as transports show it: the engine's value, the service's notes and where it is announced."""

    id: int
    guild_id: str
    name: str
    status: str
    version: int
    tournament: Tournament
    meta: dict[str, Any]
    channel_id: str | None = None
    signup_message_id: str | None = None
    pinned_message_id: str | None = None

    @property
    def terms(self) -> str:
        """The rule set, length, options and clock of its matches, in words."""
        return str(self.meta.get("terms") or "")

    def player_name(self, player_id: str) -> str:
        return str(self.meta.get("names", {}).get(player_id, player_id))

    def players(self) -> list[str]:
        """Every player signed up (each member of each team), in sign-up order."""
        return [p for e in self.tournament.entrants for p in e.members]


@dataclass(frozen=True)
class TourNews:
    """What one tournament change did: the tournament afterwards, its events in order, the games it started (to be
    shown, each in a thread of its own), the games it ended (their outcomes, to be shown like any game's), and
    whether its table (bracket or standings) or its list of entrants changed."""

    view: TourView
    events: tuple[TourEvent, ...] = ()
    started: tuple[int, ...] = ()
    ended: tuple[Outcome, ...] = ()
    table_changed: bool = False
    entrants_changed: bool = False


@dataclass
class Step:
    """A change being made: the new state, the new notes, what to announce, and games to end afterwards."""

    tournament: Tournament
    meta: dict[str, Any]
    events: list[TourEvent] = field(default_factory=list)


def moment(at: float, now: float | None = None) -> str:
    """A time as players read it, in UTC, and how far off it is: ``2027-01-15 12:00 UTC (in 2 days 3 h)``."""
    text = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))
    if now is None:
        return text
    gap = at - now
    return f"{text} ({'in ' + duration_words(gap) if gap >= 0 else duration_words(-gap) + ' ago'})"


def members_of(t: Tournament, *entrants: str | None) -> tuple[str, ...]:
    """The players of these entrants (the ones to call about their match)."""
    out: list[str] = []
    for e in entrants:
        if e is not None:
            out.extend(t.entrant(e).members)
    return tuple(out)


def match_line(t: Tournament, m: Match) -> str:
    """One pairing in words: ``R2-1 Alice vs Bob``, ``R2-5 Carol has a bye``, a walkover and why."""
    r = m.result
    if r is not None and r.how is How.BYE:
        return f"{m.id}: {t.name(r.winner)} has a bye"
    if r is not None and r.how is How.VOID:
        return f"{m.id}: not played ({r.note or 'no players'})"
    head = f"{m.id}: {t.name(m.a)} vs {t.name(m.b)}"
    if r is not None and r.how is How.WALKOVER:
        return f"{head}: {t.name(r.winner)} wins by walkover ({r.note or 'the opponent did not play'})"
    if r is not None:
        return f"{head}: {t.name(r.winner)} won"
    return head


def round_words(name: str, t: Tournament, now: float) -> str:
    """The announcement of a round: its number (a knockout's round title), its deadline, and its pairings."""
    matches = pairings(t)
    title = f"round {t.round} of {t.planned_rounds}" if t.planned_rounds else f"round {t.round}"
    if t.spec.is_knockout and matches:
        titles = [x for x in dict.fromkeys(round_title(t, m) for m in matches) if x.lower() != f"round {t.round}"]
        title += f" ({', '.join(titles)})" if titles else ""
    due = t.round_deadline()
    when = f" Play your match by {moment(due, now)}." if due is not None else ""
    lines = [f"{name}: {title} starts.{when}"]
    lines += [match_line(t, m) for m in matches]
    return "\n".join(lines)


def finished_words(name: str, t: Tournament) -> str:
    winner = champion(t)
    if winner is None:
        return f"{name} is over."
    return f"{name} is over: {t.name(winner)} wins the tournament!"


def summary_words(view: TourView, asker: str | None = None, now: float | None = None) -> str:
    """A tournament in a few lines: format, terms, status, entrants, the round and its deadline, the asker's match."""
    t = view.tournament
    spec = t.spec
    kind = FORMAT_WORDS[spec.format]
    if spec.double_elimination:
        kind = "double-elimination knockout"
    if spec.format is Format.SWISS and spec.rounds:
        kind += f" of {spec.rounds} rounds"
    if spec.divisions > 1:
        kind += f" in {spec.divisions} divisions"
    lines = [f"#{view.id} {view.name}: a {kind}; {view.terms}."]
    deadline = (
        f"each round lasts {duration_words(spec.round_seconds)}; an unfinished match is then decided so: "
        f"{spec.deadline_rule.words}"
        if spec.round_seconds
        else "rounds have no deadline"
    )
    lines.append(f"Seeding by {spec.seeding.value}; {deadline}.")
    entrants = len(t.entrants)
    if t.status is Status.SIGNUP:
        lines.append(f"Sign-ups are open: {entrants} of at most {spec.max_entrants} entrants so far.")
        names = ", ".join(e.name for e in t.entrants)
        if names:
            lines.append(f"Entrants: {names}.")
    elif t.status is Status.RUNNING:
        paused = " It is paused." if t.paused else ""
        due = t.round_deadline()
        when = f", deadline {moment(due, now)}" if due is not None else ""
        lines.append(f"Round {t.round} of {t.planned_rounds} is under way{when}; {entrants} entrants.{paused}")
    else:
        lines.append(finished_words(view.name, t))
    if asker is not None:
        mine = t.entrant_of(asker)
        if mine is not None and t.status is Status.RUNNING:
            current = [m for m in open_matches(t) if mine.id in m.entrants]
            if current:
                m = current[0]
                game = f" (game #{m.game})" if m.game else ""
                lines.append(f"Your match: {match_line(t, m)}{game}.")
            elif mine.id in t.withdrawn:
                lines.append("You were disqualified.")
            else:
                lines.append("You have no match to play this round.")
    return "\n".join(lines)


def deadline_timers(
    tournament_id: int, before: Tournament | None, after: Tournament, now: float
) -> list[tuple[int | None, TimerSpec]]:
    """The timers a change needs: for each deadline of the current round's open matches that is new (a round began,
    a deadline was extended, a pause ended), a wake-up at the deadline and reminders before it. A timer of a deadline
    that moved since finds nothing to do when it comes due: it judges the tournament as it then stands."""
    new = _moments(after) - (_moments(before) if before is not None else set())
    span = after.spec.round_seconds
    out: list[tuple[int | None, TimerSpec]] = []
    for number, at in sorted(new):
        mark = {"tournament": tournament_id, "round": number, "at": at}
        out.append((None, TimerSpec("tour-deadline", at, mark)))
        length = span if span else at - now
        for share in REMINDER_SHARES:
            when = at - (1.0 - share) * length
            if when > now:
                out.append((None, TimerSpec("tour-reminder", when, {**mark, "share": share})))
    return out


def _moments(t: Tournament) -> set[tuple[int, float]]:
    if t.status is not Status.RUNNING or t.paused:
        return set()
    return {(t.round, d) for m in open_matches(t) if (d := t.deadline_of(m)) is not None}


def terms_of(spec_terms: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A tournament's stored terms, decoded: variant, length, options, variant_options, clock."""
    raw = dict(spec_terms)
    return {
        "variant": raw.get("variant", "backgammon"),
        "length": int(raw.get("length", "1")),
        "options": json.loads(raw.get("options") or "{}"),
        "variant_options": json.loads(raw.get("variant_options") or "{}"),
        "clock": json.loads(raw["clock"]) if raw.get("clock") else None,
    }


def entrant_for(members: Sequence[tuple[str, str]], ratings: Mapping[str, float]) -> Entrant:
    """The entrant of a player, or of a team ((id, name) of each member): its seat id joins the members' ids, its
    rating is theirs (a team's, their average; without any, none)."""
    ids = tuple(p for p, _ in members)
    known = [ratings[p] for p in ids if p in ratings]
    rating = sum(known) / len(known) if known else None
    return Entrant("+".join(ids)[:100], " & ".join(n for _, n in members)[:100], ids, rating)
