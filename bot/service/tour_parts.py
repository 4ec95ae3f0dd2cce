"""What the tournaments service hands out (views, events, news) and its pure parts: a tournament's terms from a
creator's options, the words it announces, the facts a deadline rule judges, and the timers of its deadlines.

The engine (``engine.tournament``) pairs, records and ranks; everything here is about the service around it: which
rule set and clock its games use, what players read, when the bot wakes up to apply a deadline.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.i18n import _, ngettext, pgettext
from engine.tournament import (
    Entrant,
    Format,
    How,
    Match,
    Status,
    Tournament,
    champion,
    duration_words,
    note_words,
    open_matches,
    pairings,
    standings,
)
from render.bracket import format_words, round_title

from ..storage import TimerSpec
from .types import FORGOTTEN, Outcome, Refused

__all__ = [
    "FORMATS",
    "REMINDER_SHARES",
    "TourEvent",
    "TourNews",
    "TourView",
    "called",
    "deadline_timers",
    "format_of",
    "format_words",
    "moment",
    "status_words",
    "round_words",
    "summary_words",
    "ties_words",
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


def format_of(text: str) -> Format:
    """A format as typed (knockout, swiss, league) -> the engine's; refused with the choices."""
    found = FORMATS.get(" ".join(text.strip().lower().split()))
    if found is None:
        raise Refused(
            # Translators: knockout, swiss and league are typed as they are: keep them in English.
            _("there is no tournament format {format}: knockout, swiss or league").format(format=repr(text)[:60])
        )
    return found


def status_words(status: str) -> str:
    """A tournament's stored status (signup, running, finished) in the active language."""
    if status == "signup":
        return pgettext("tournament status", "taking sign-ups")
    if status == "running":
        return pgettext("tournament status", "under way")
    if status == "finished":
        return pgettext("tournament status", "finished")
    return status


class TourEventKind(StrEnum):
    """What a :class:`TourEvent` says a tournament did."""

    CREATED = "created"
    DEADLINE = "deadline"
    DECIDED = "decided"
    DISQUALIFIED = "disqualified"
    EXTENDED = "extended"
    FINISHED = "finished"
    JOINED = "joined"
    LEFT = "left"
    NEEDS_ADMIN = "needs-admin"
    PAUSED = "paused"
    REMINDER = "reminder"
    REPLACED = "replaced"
    RESULT = "result"
    RESUMED = "resumed"
    ROUND = "round"
    STARTED = "started"
    TEAM_DECLINED = "team-declined"
    TEAM_INVITE = "team-invite"
    WALKOVER = "walkover"


@dataclass(frozen=True)
class TourEvent:
    """Something a tournament did, with the sentence for the players: ``pings`` are the players it concerns (a
    transport may call them), ``game_id`` the game it is about (its thread is where a reminder goes).

    ``say`` makes the sentence when it is read (:attr:`text`), in the language then active: the channel's
    announcement reads it in the server's language, the reply to the admin who did it in theirs. (A plain string
    is said as it is.)"""

    kind: TourEventKind
    say: Callable[[], str] | str
    pings: tuple[str, ...] = ()
    game_id: int | None = None
    match_id: str | None = None
    #: The player who did it, when a transport needs to know (a team invitation's captain, whose teammate answers).
    by: str | None = None

    @property
    def text(self) -> str:
        """The sentence, in the active language."""
        return self.say() if callable(self.say) else self.say


@dataclass(frozen=True)
class TourView:
    """A tournament as transports show it: the engine's value, the service's notes and where it is announced."""

    id: int
    guild_id: str
    name: str
    status: Status
    version: int
    tournament: Tournament
    meta: dict[str, Any]
    channel_id: str | None = None
    signup_message_id: str | None = None
    pinned_message_id: str | None = None

    @property
    def terms(self) -> str:
        """The rule set, length, options and clock of its matches, in words (in the active language; the words
        stored when it was created if its rule set cannot be found any more)."""
        return terms_words(self.tournament.spec.terms, str(self.meta.get("terms") or ""))

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
    """A change being made: the new state, the new notes, what to announce, and ``rated``: the matches it decided at
    their deadline whose games both sides played (their games end as a forfeit, rated; every other match decided
    without being played to its end, a walkover or an admin's decision, is not rated: its game is stopped)."""

    tournament: Tournament
    meta: dict[str, Any]
    events: list[TourEvent] = field(default_factory=list)
    rated: set[str] = field(default_factory=set)


def moment(at: float, now: float | None = None) -> str:
    """A time as players read it, in UTC (written the same in every language), and how far off it is:
    ``2027-01-15 12:00 UTC (in 2 days 3 h)``."""
    text = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))
    if now is None:
        return text
    gap = at - now
    if gap >= 0:
        return _("{moment} (in {duration})").format(moment=text, duration=duration_words(gap))
    return _("{moment} ({duration} ago)").format(moment=text, duration=duration_words(-gap))


def members_of(t: Tournament, *entrants: str | None) -> tuple[str, ...]:
    """The players of these entrants (the ones to call about their match)."""
    out: list[str] = []
    for e in entrants:
        if e is not None:
            out.extend(t.entrant(e).members)
    return tuple(out)


def called(t: Tournament, entrant_id: str | None) -> str:
    """An entrant's name as players read it: an erased player's neutral name (stored in English) in the active
    language ("bye" for None)."""
    name = t.name(entrant_id)
    return name.replace(FORGOTTEN, _(FORGOTTEN)) if FORGOTTEN in name else name


def match_line(t: Tournament, m: Match) -> str:
    """One pairing in words: ``R2-1 Alice vs Bob``, ``R2-5 Carol has a bye``, a walkover and why."""
    r = m.result
    if r is not None and r.how is How.BYE:
        return _("{match}: {name} has a bye").format(match=m.id, name=called(t, r.winner))
    if r is not None and r.how is How.VOID:
        return _("{match}: not played ({why})").format(match=m.id, why=note_words(t, r) or _("no players"))
    a, b = called(t, m.a), called(t, m.b)
    if r is not None and r.how is How.WALKOVER:
        why = note_words(t, r) or _("the opponent did not play")
        return _("{match}: {a} vs {b}: {winner} wins by walkover ({why})").format(
            match=m.id, a=a, b=b, winner=called(t, r.winner), why=why
        )
    if r is not None:
        return _("{match}: {a} vs {b}: {winner} won").format(match=m.id, a=a, b=b, winner=called(t, r.winner))
    return _("{match}: {a} vs {b}").format(match=m.id, a=a, b=b)


def round_words(name: str, t: Tournament, now: float) -> str:
    """The announcement of a round: its number (a knockout's round title), its deadline, and its pairings."""
    matches = pairings(t)
    if t.planned_rounds:
        title = _("round {round} of {rounds}").format(round=t.round, rounds=t.planned_rounds)
    else:
        title = _("round {round}").format(round=t.round)
    if t.spec.is_knockout and matches:
        plain = _("Round {round}").format(round=t.round)
        titles = [x for x in dict.fromkeys(round_title(t, m) for m in matches) if x != plain]
        title += f" ({', '.join(titles)})" if titles else ""
    line = _("{tournament}: {round} starts.").format(tournament=name, round=title)
    due = t.round_deadline()
    if due is not None:
        line += " " + _("Play your match by {moment}.").format(moment=moment(due, now))
    return "\n".join([line, *(match_line(t, m) for m in matches)])


def ties_words(t: Tournament) -> str:
    """Which tiebreak settled each tie of the tables, by place ("Ties settled: 2 above 3 by head-to-head; 5 above 6
    by seed."), or nothing when no two entrants were level on the score."""
    said: list[str] = []
    for table in standings(t):
        for above, row in zip(table.rows, table.rows[1:], strict=False):
            if row.separated_by is not None:
                said.append(
                    _("{above} above {below} by {tiebreak}").format(
                        above=above.rank, below=row.rank, tiebreak=row.separated_by.term
                    )
                )
    return _("Ties settled: {ties}.").format(ties="; ".join(said)) if said else ""


def finished_words(name: str, t: Tournament) -> str:
    winner = champion(t)
    if winner is None:
        return _("{tournament} is over.").format(tournament=name)
    return _("{tournament} is over: {name} wins the tournament!").format(tournament=name, name=called(t, winner))


def summary_words(view: TourView, asker: str | None = None, now: float | None = None) -> str:
    """A tournament in a few lines: format, terms, status, entrants, the round and its deadline, the asker's match."""
    t = view.tournament
    spec = t.spec
    lines = [_("#{id} {tournament}: a {kind}; {terms}.").format(
        id=view.id, tournament=view.name, kind=kind_words(t), terms=view.terms
    )]  # fmt: skip
    seeding = seeding_words(spec.seeding.value)
    if spec.round_seconds:
        lines.append(
            _(
                "Seeding by {seeding}; each round lasts {duration}; an unfinished match is then decided so: {rule}."
            ).format(seeding=seeding, duration=duration_words(spec.round_seconds), rule=spec.deadline_rule.words)
        )
    else:
        lines.append(_("Seeding by {seeding}; rounds have no deadline.").format(seeding=seeding))
    entrants = len(t.entrants)
    if t.status is Status.SIGNUP:
        lines.append(
            ngettext(
                "Sign-ups are open: {count} of at most {most} entrant so far.",
                "Sign-ups are open: {count} of at most {most} entrants so far.",
                spec.max_entrants,
            ).format(count=entrants, most=spec.max_entrants)
        )
        names = ", ".join(called(t, e.id) for e in t.entrants)
        if names:
            lines.append(_("Entrants: {names}.").format(names=names))
    elif t.status is Status.RUNNING:
        due = t.round_deadline()
        count = ngettext("{count} entrant", "{count} entrants", entrants).format(count=entrants)
        if due is not None:
            line = _("Round {round} of {rounds} is under way, deadline {moment}; {entrants}.").format(
                round=t.round, rounds=t.planned_rounds, moment=moment(due, now), entrants=count
            )
        else:
            line = _("Round {round} of {rounds} is under way; {entrants}.").format(
                round=t.round, rounds=t.planned_rounds, entrants=count
            )
        lines.append(line + (" " + _("It is paused.") if t.paused else ""))
    else:
        lines.append(finished_words(view.name, t))
    if asker is not None:
        mine = t.entrant_of(asker)
        if mine is not None and t.status is Status.RUNNING:
            current = [m for m in open_matches(t) if mine.id in m.entrants]
            if current:
                m = current[0]
                if m.game:
                    lines.append(_("Your match: {match} (game #{game}).").format(match=match_line(t, m), game=m.game))
                else:
                    lines.append(_("Your match: {match}.").format(match=match_line(t, m)))
            elif mine.id in t.withdrawn:
                lines.append(_("You were disqualified."))
            else:
                lines.append(_("You have no match to play this round."))
    return "\n".join(lines)


def seeding_words(seeding: str) -> str:
    """How entrants are seeded, in "Seeding by ..." (in the active language)."""
    if seeding == "rating":
        return pgettext("seeding", "rating")
    if seeding == "signup":
        return pgettext("seeding", "sign-up order")
    if seeding == "shuffle":
        return pgettext("seeding", "shuffle")
    return seeding


def kind_words(t: Tournament) -> str:
    """What kind of tournament it is, in a sentence ("a {kind}"): "Swiss of 4 rounds", "league in 2 divisions",
    "double-elimination knockout" (in the active language)."""
    spec = t.spec
    if spec.double_elimination:
        return _("double-elimination knockout")
    if spec.format is Format.SWISS and spec.rounds:
        return ngettext("Swiss of {rounds} round", "Swiss of {rounds} rounds", spec.rounds).format(rounds=spec.rounds)
    if spec.divisions > 1:
        return ngettext("league in {divisions} division", "league in {divisions} divisions", spec.divisions).format(
            divisions=spec.divisions
        )
    return format_words(spec.format)


def terms_words(spec_terms: Sequence[tuple[str, str]], stored: str = "") -> str:
    """The rule set, length, options and clock of a tournament's matches in words, in the active language (said
    anew from its terms, as a challenge says them); ``stored`` (the words of its creation) if they cannot be."""
    from engine.plugins import registry

    from .challenges import _terms_words
    from .helpers import _match_options, _time_control

    try:
        terms = terms_of(spec_terms)
        cls = registry().find(terms["variant"])
        opts = _match_options(terms["options"])
        words = _terms_words(cls, opts, terms["variant_options"])
        tc = _time_control(terms["clock"]) if terms["clock"] else None
    except Exception:  # a rule set no longer installed, terms from an older version: the words stored
        return stored
    if tc is not None:
        words += ", " + _("clock: {clock}").format(clock=tc.describe())
    return words


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
    ids = tuple(p for p, _name in members)
    known = [ratings[p] for p in ids if p in ratings]
    rating = sum(known) / len(known) if known else None
    return Entrant("+".join(ids)[:100], " & ".join(n for _id, n in members)[:100], ids, rating)
