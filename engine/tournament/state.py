"""Pure transitions of a tournament: each takes a :class:`Tournament` and returns a new one, or raises
:class:`TournamentError` with the reason in words. Times (``now``, deadlines) are seconds passed in by the
caller; nothing here reads a clock.

The life of a tournament: :func:`new_tournament` (sign-ups open), :func:`join` / :func:`leave`, :func:`start`
(seeding, the first round), then for each round the service plays :func:`pairings` (:func:`open_matches` are
the games to start), feeds each result to :func:`record_result`, and once :func:`round_complete` calls
:func:`advance`, which makes the next round or finishes the tournament. Byes, the walkovers of disqualified
entrants and knockout matches left empty are decided by the tournament itself as their round comes.
"""

from __future__ import annotations

import dataclasses
import math

from engine.i18n import N_, _, ngettext, pgettext

from .model import (
    MIN_ENTRANTS,
    RECORDABLE,
    Entrant,
    Format,
    How,
    Match,
    Result,
    Status,
    Tournament,
    TournamentError,
    TournamentSpec,
)
from .schedule import knockout_matches, round_robin_matches, seed_order, split_divisions
from .standings import Standings, compute_standings, records, swiss_score
from .swiss import swiss_pairings

__all__ = [
    "advance",
    "attach_game",
    "champion",
    "disqualify",
    "expired_matches",
    "extend_deadline",
    "join",
    "leave",
    "match_of",
    "match_of_game",
    "new_tournament",
    "note_words",
    "open_matches",
    "pairings",
    "pause",
    "record_result",
    "replace_entrant",
    "resume",
    "round_complete",
    "standings",
    "start",
]


def new_tournament(spec: TournamentSpec) -> Tournament:
    """A tournament open for sign-ups."""
    return Tournament(spec)


#: Why an action is refused in each state, by the action (translated where said).
_REFUSED = {
    Status.SIGNUP: N_("cannot {action}: the tournament is still taking sign-ups"),
    Status.RUNNING: N_("cannot {action}: the tournament is running"),
    Status.FINISHED: N_("cannot {action}: the tournament is over"),
}
#: What each action is called in those refusals (in the active language).
_ACTIONS = {
    "join": lambda: pgettext("tournament action", "join"),
    "leave": lambda: pgettext("tournament action", "leave"),
    "start": lambda: pgettext("tournament action", "start"),
    "record a result": lambda: pgettext("tournament action", "record a result"),
    "advance": lambda: pgettext("tournament action", "advance"),
    "disqualify a player": lambda: pgettext("tournament action", "disqualify a player"),
    "pause": lambda: pgettext("tournament action", "pause"),
    "resume": lambda: pgettext("tournament action", "resume"),
    "extend a deadline": lambda: pgettext("tournament action", "extend a deadline"),
}
#: The notes the tournament writes on the results it decides itself: stored in English, said with :func:`note_words`.
NOT_NEEDED = N_("not needed: the winners' bracket champion won the final")
BOTH_DISQUALIFIED = N_("both players were disqualified")
_DISQUALIFIED = " was disqualified"


def _need(t: Tournament, status: Status, doing: str) -> None:
    if t.status is not status:
        raise TournamentError(_(_REFUSED[t.status]).format(action=_ACTIONS[doing]()))


def note_words(t: Tournament, result: Result) -> str:
    """A result's note as players read it, in the active language: the tournament's own notes (stored in English)
    translated, a walkover against a disqualified entrant said anew; others (the service's) as stored."""
    note = result.note
    if note in (NOT_NEEDED, BOTH_DISQUALIFIED):
        return _(note)
    if result.how is How.WALKOVER and result.loser in t.withdrawn and note.endswith(_DISQUALIFIED):
        return _("{name} was disqualified").format(name=t.name(result.loser))
    return note


def join(t: Tournament, entrant: Entrant) -> Tournament:
    """Sign ``entrant`` up (sign-ups only): at most ``max_entrants``, each player in one entrant only, teams of
    the tournament's size."""
    _need(t, Status.SIGNUP, "join")
    if len(t.entrants) >= t.spec.max_entrants:
        most = t.spec.max_entrants
        raise TournamentError(
            ngettext(
                "the tournament is full ({count} entrant)", "the tournament is full ({count} entrants)", most
            ).format(count=most)
        )
    if len(entrant.members) != t.spec.team_size:
        raise TournamentError(
            _("this tournament is for single players")
            if t.spec.team_size == 1
            else _("this tournament is for teams of two")
        )
    if any(e.id == entrant.id for e in t.entrants):
        raise TournamentError(_("{name} has already joined").format(name=entrant.name))
    for member in entrant.members:
        other = t.entrant_of(member)
        if other is not None:
            raise TournamentError(
                _("a player of {name} already plays in this tournament as {other}").format(
                    name=entrant.name, other=other.name
                )
            )
    return dataclasses.replace(t, entrants=(*t.entrants, entrant))


def leave(t: Tournament, entrant_id: str) -> Tournament:
    """Take an entrant off the list (sign-ups only; once started, see :func:`disqualify`)."""
    _need(t, Status.SIGNUP, "leave")
    t.entrant(entrant_id)
    return dataclasses.replace(t, entrants=tuple(e for e in t.entrants if e.id != entrant_id))


def start(t: Tournament, now: float | None = None) -> Tournament:
    """Close the sign-ups, seed the entrants and make round 1 (``now`` starts its deadline, when rounds have
    one)."""
    _need(t, Status.SIGNUP, "start")
    spec = t.spec
    n = len(t.entrants)
    if n < MIN_ENTRANTS:
        raise TournamentError(
            _("a tournament needs at least {least} entrants, it has {count}").format(least=MIN_ENTRANTS, count=n)
        )
    if spec.format is Format.ROUND_ROBIN and n < 2 * spec.divisions:
        raise TournamentError(
            _("{divisions} divisions need at least {least} entrants, there are {count}").format(
                divisions=spec.divisions, least=2 * spec.divisions, count=n
            )
        )
    seeds = seed_order(spec, t.entrants)
    divisions: tuple[tuple[str, ...], ...] = ()
    matches: tuple[Match, ...] = ()
    if spec.format is Format.KNOCKOUT:
        matches = knockout_matches(seeds, spec.double_elimination)
        planned = max(m.round for m in matches)
    elif spec.format is Format.ROUND_ROBIN:
        divisions = split_divisions(seeds, spec.divisions, spec.division_mode)
        matches = round_robin_matches(divisions, spec.legs)
        planned = max(m.round for m in matches)
    else:
        planned = spec.rounds or max(1, math.ceil(math.log2(n)))
    started = dataclasses.replace(
        t, status=Status.RUNNING, seeds=seeds, divisions=divisions, matches=matches, planned_rounds=planned
    )
    if spec.format is Format.SWISS:
        started = _pair_swiss(started)
    return _enter_round(started, 1, now)


def pairings(t: Tournament) -> tuple[Match, ...]:
    """The current round's matches (byes and matches already decided included)."""
    return tuple(m for m in t.matches if m.round == t.round) if t.status is Status.RUNNING else ()


def open_matches(t: Tournament) -> tuple[Match, ...]:
    """The current round's matches to be played: both entrants known, no result yet."""
    return tuple(m for m in pairings(t) if m.result is None and m.a is not None and m.b is not None)


def match_of(t: Tournament, entrant_id: str) -> Match | None:
    """The entrant's match of the current round still to be decided, if any."""
    for m in pairings(t):
        if m.result is None and entrant_id in m.entrants:
            return m
    return None


def match_of_game(t: Tournament, game_id: str) -> Match | None:
    """The match the service's game ``game_id`` was attached to (:func:`attach_game`), if any."""
    for m in t.matches:
        if m.game == game_id:
            return m
    return None


def round_complete(t: Tournament) -> bool:
    """Whether every match of the current round has a result."""
    return t.status is Status.RUNNING and all(m.result is not None for m in pairings(t))


def record_result(
    t: Tournament,
    match_id: str,
    winner: str,
    points_for: int = 0,
    points_against: int = 0,
    how: How = How.PLAYED,
    note: str = "",
) -> Tournament:
    """Record that ``winner`` won match ``match_id``, scoring ``points_for`` match points to the loser's
    ``points_against``. ``how``: played, walkover, deadline (a deadline rule decided; put its words in ``note``)
    or admin. Allowed while paused; only for the current round's matches."""
    _need(t, Status.RUNNING, "record a result")
    m = t.match(match_id)
    if how not in RECORDABLE:
        raise TournamentError(
            _("a result is played, a walkover, a deadline decision or an admin's, not {how}").format(how=how.value)
        )
    if m.result is not None:
        raise TournamentError(_("match {match} already has a result").format(match=match_id))
    if m.round != t.round:
        raise TournamentError(
            _("match {match} belongs to round {round}; the tournament is in round {current}").format(
                match=match_id, round=m.round, current=t.round
            )
        )
    if m.a is None or m.b is None:
        raise TournamentError(_("match {match} does not have both its players yet").format(match=match_id))
    if winner not in (m.a, m.b):
        raise TournamentError(
            _("{entrant} does not play in match {match}").format(entrant=repr(winner), match=match_id)
        )
    for value in (points_for, points_against):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10_000:
            raise TournamentError(_("match points must be whole numbers from 0 to 10000"))
    loser = m.b if winner == m.a else m.a
    decided = dataclasses.replace(m, result=Result(winner, loser, points_for, points_against, how, note[:500]))
    t = _replace_match(t, decided)
    # Only a knockout's later matches depend on a result (their places fill from it).
    return _resolve(t) if t.spec.format is Format.KNOCKOUT else t


def advance(t: Tournament, now: float | None = None) -> Tournament:
    """Once the current round is complete: make the next round (``now`` starts its deadline), or finish."""
    _need(t, Status.RUNNING, "advance")
    if t.paused:
        raise TournamentError(_("the tournament is paused"))
    if not round_complete(t):
        left = ", ".join(m.id for m in pairings(t) if m.result is None)
        raise TournamentError(
            _("round {round} is not over: {matches} still to play").format(round=t.round, matches=left)
        )
    if t.spec.format is Format.SWISS:
        if t.round >= t.planned_rounds or len(_active(t)) < MIN_ENTRANTS:
            return _finish(t)
        return _enter_round(_pair_swiss(t), t.round + 1, now)
    if all(m.result is not None for m in t.matches):
        return _finish(t)
    return _enter_round(t, t.round + 1, now)


def standings(t: Tournament) -> tuple[Standings, ...]:
    """The tables (one per league division, else one); see :mod:`.standings` for the tiebreaks."""
    return compute_standings(t)


def champion(t: Tournament) -> str | None:
    """The winner of a finished tournament (the top of the table; a knockout's last match winner)."""
    if t.status is not Status.FINISHED:
        return None
    if t.spec.format is Format.KNOCKOUT:
        for m in reversed(t.matches):
            if m.result is not None and m.result.how is not How.VOID:
                return m.result.winner
        return None
    tables = standings(t)
    if len(tables) != 1:
        return None
    return tables[0].rows[0].entrant


def attach_game(t: Tournament, match_id: str, game_id: str | None) -> Tournament:
    """Note the service's game for a match (None to clear it)."""
    m = t.match(match_id)
    return _replace_match(t, dataclasses.replace(m, game=game_id))


def disqualify(t: Tournament, entrant_id: str) -> Tournament:
    """Withdraw an entrant: every match of theirs still to be decided is a walkover for the opponent, now for
    the current round and as each later round comes; a Swiss pairs them no more. Their results stand."""
    _need(t, Status.RUNNING, "disqualify a player")
    e = t.entrant(entrant_id)
    if entrant_id in t.withdrawn:
        raise TournamentError(_("{name} is already disqualified").format(name=e.name))
    withdrawn = tuple(sorted((*t.withdrawn, entrant_id)))
    return _resolve(dataclasses.replace(t, withdrawn=withdrawn))


def replace_entrant(t: Tournament, entrant_id: str, replacement: Entrant) -> Tournament:
    """Put ``replacement``'s players (and name and rating) in ``entrant_id``'s seat: the seat keeps its results
    and plays its remaining matches. Undecided matches of the seat lose their game (the service starts new
    ones)."""
    if t.status is Status.FINISHED:
        raise TournamentError(_("cannot replace a player: the tournament is over"))
    old = t.entrant(entrant_id)
    if entrant_id in t.withdrawn:
        raise TournamentError(_("{name} is disqualified; their seat cannot be taken over").format(name=old.name))
    if len(replacement.members) != t.spec.team_size:
        raise TournamentError(_("the replacement must be a team of the tournament's size"))
    for member in replacement.members:
        other = t.entrant_of(member)
        if other is not None and other.id != entrant_id:
            raise TournamentError(
                _("a player of {name} already plays in this tournament as {other}").format(
                    name=replacement.name, other=other.name
                )
            )
    seat = dataclasses.replace(replacement, id=entrant_id)
    entrants = tuple(seat if e.id == entrant_id else e for e in t.entrants)
    matches = tuple(
        dataclasses.replace(m, game=None) if m.result is None and entrant_id in m.entrants else m for m in t.matches
    )
    return dataclasses.replace(t, entrants=entrants, matches=matches)


def pause(t: Tournament, now: float) -> Tournament:
    """Pause (deadlines stop counting and rounds do not advance; results are still recorded)."""
    _need(t, Status.RUNNING, "pause")
    if t.paused:
        raise TournamentError(_("the tournament is already paused"))
    return dataclasses.replace(t, paused_at=now)


def resume(t: Tournament, now: float) -> Tournament:
    """Resume after :func:`pause`: every deadline still ahead moves on by the time the pause lasted."""
    _need(t, Status.RUNNING, "resume")
    if t.paused_at is None:
        raise TournamentError(_("the tournament is not paused"))
    shift = max(0.0, now - t.paused_at)
    deadlines = tuple(d + shift if d is not None and i + 1 >= t.round else d for i, d in enumerate(t.deadlines))
    matches = tuple(
        dataclasses.replace(m, deadline=m.deadline + shift) if m.deadline is not None and m.result is None else m
        for m in t.matches
    )
    return dataclasses.replace(t, deadlines=deadlines, matches=matches, paused_at=None)


def extend_deadline(t: Tournament, until: float, match_id: str | None = None) -> Tournament:
    """Move the current round's deadline (or one match's) to ``until``."""
    _need(t, Status.RUNNING, "extend a deadline")
    if match_id is not None:
        m = t.match(match_id)
        if m.result is not None:
            raise TournamentError(_("match {match} already has a result").format(match=match_id))
        return _replace_match(t, dataclasses.replace(m, deadline=until))
    deadlines = list(t.deadlines)
    deadlines[t.round - 1] = until
    return dataclasses.replace(t, deadlines=tuple(deadlines))


def expired_matches(t: Tournament, now: float) -> tuple[Match, ...]:
    """The current round's open matches whose deadline has passed (none while paused)."""
    if t.paused:
        return ()
    return tuple(m for m in open_matches(t) if (d := t.deadline_of(m)) is not None and d <= now)


# --- internals -----------------------------------------------------------------------------------------------
def _replace_match(t: Tournament, new: Match) -> Tournament:
    i = t.match_position(new.id)
    return dataclasses.replace(t, matches=(*t.matches[:i], new, *t.matches[i + 1 :]))


def _finish(t: Tournament) -> Tournament:
    return dataclasses.replace(t, status=Status.FINISHED)


def _active(t: Tournament) -> list[str]:
    gone = set(t.withdrawn)
    return [e for e in t.seeds if e not in gone]


def _enter_round(t: Tournament, number: int, now: float | None) -> Tournament:
    """Make ``number`` the current round, deciding what decides itself; a round with nothing left to play is
    passed over (a knockout's round of byes only, a grand final reset not needed)."""
    before = (t.round, t.deadlines)
    while True:
        deadline = now + t.spec.round_seconds if now is not None and t.spec.round_seconds else None
        deadlines = (*t.deadlines[: number - 1], *([None] * (number - 1 - len(t.deadlines))), deadline)
        t = _resolve(dataclasses.replace(t, round=number, deadlines=deadlines))
        if not round_complete(t) or t.spec.format is Format.SWISS:
            return t
        if all(m.result is not None for m in t.matches):  # it ends with the last round that was played
            return _finish(dataclasses.replace(t, round=before[0], deadlines=before[1]))
        number += 1


def _pair_swiss(t: Tournament) -> Tournament:
    recs = records(t)
    score = {e: swiss_score(recs[e]) for e in t.seeds}
    active = _active(t)
    ranked = sorted(active, key=lambda e: (-score[e], t.seed(e)))
    met: dict[str, set[str]] = {e: set() for e in t.seeds}
    for m in t.matches:
        if m.a is not None and m.b is not None:
            met[m.a].add(m.b)
            met[m.b].add(m.a)
    byes = {e: recs[e].byes for e in t.seeds}
    pairs, bye = swiss_pairings(ranked, score, met, byes, floaters(t, t.round), t.spec.bye_rule)
    number = t.round + 1
    new = [
        Match(f"R{number}-{k + 1}", number, a, b, stage=number, slot=k)
        for k, (a, b) in enumerate([*pairs, *([(bye, None)] if bye is not None else [])])
    ]
    return dataclasses.replace(t, matches=(*t.matches, *new))


def floaters(t: Tournament, number: int) -> frozenset[str]:
    """Who floated in round ``number`` of a Swiss: paired with an opponent on another score (as the scores stood
    before that round), or given the bye."""
    if number < 1:
        return frozenset()
    before = records(t, (m for m in t.matches if m.round < number))
    score = {e: swiss_score(r) for e, r in before.items()}
    out: set[str] = set()
    for m in t.matches:
        if m.round != number:
            continue
        if m.a is not None and m.b is None:
            out.add(m.a)
        elif m.a is not None and m.b is not None and score[m.a] != score[m.b]:
            out.update((m.a, m.b))
    return frozenset(out)


def _resolve(t: Tournament) -> Tournament:
    """Fill knockout places from the matches that feed them, and decide what decides itself in rounds up to
    the current one: a bye, a walkover against a disqualified entrant, a knockout match left without players."""
    done: dict[str, Match] = {}
    out: list[Match] = []
    gone = set(t.withdrawn)
    changed = False
    for m in t.matches:
        new = m
        if m.result is None:
            a, known_a = _side(m.feeds[0], m.a, done)
            b, known_b = _side(m.feeds[1], m.b, done)
            if (a, b) != (m.a, m.b):
                new = dataclasses.replace(m, a=a, b=b)
            if known_a and known_b and m.round <= t.round:
                result = _automatic(t, new, gone, done)
                if result is not None:
                    new = dataclasses.replace(new, result=result)
        changed = changed or new is not m
        done[m.id] = new
        out.append(new)
    return dataclasses.replace(t, matches=tuple(out)) if changed else t


def _side(feed: str, current: str | None, done: dict[str, Match]) -> tuple[str | None, bool]:
    """Who sits on one side of a match, and whether that is known yet."""
    if not feed:
        return current, True
    source = done[feed[2:]]
    if source.result is None:
        return None, False
    return (source.result.winner if feed[0] == "W" else source.result.loser), True


def _automatic(t: Tournament, m: Match, gone: set[str], done: dict[str, Match]) -> Result | None:
    points = t.spec.walkover_points
    if m.id == "GF2":
        first = done["GF1"].result
        if first is not None and first.winner is not None and first.winner == done["GF1"].a:
            return Result(None, None, how=How.VOID, note=NOT_NEEDED)
    if m.a is None and m.b is None:
        return Result(None, None, how=How.VOID)
    if m.a is None or m.b is None:
        return Result(m.a or m.b, None, points, 0, How.BYE)
    out = [e for e in (m.a, m.b) if e in gone]
    if len(out) == 2:
        return Result(None, None, how=How.VOID, note=BOTH_DISQUALIFIED)
    if out:
        winner = m.b if out[0] == m.a else m.a
        # Stored in English, like every note of the tournament's own; note_words says it in the reader's language.
        return Result(winner, out[0], points, 0, How.WALKOVER, t.entrant(out[0]).name + _DISQUALIFIED)
    return None
