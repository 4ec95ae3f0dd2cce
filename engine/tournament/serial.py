"""A tournament as JSON-ready data and back: :func:`to_data` gives dicts, lists, strings, numbers, booleans and
None only, so the service can store it as text and compare-and-swap it; :func:`from_data` checks what it reads
and raises :class:`TournamentError` naming what is wrong with damaged data.

``from_data(to_data(t)) == t`` for every tournament (a property test checks it through ``json``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .model import (
    Bracket,
    ByeRule,
    DeadlineRule,
    DivisionMode,
    Entrant,
    Format,
    How,
    Match,
    Result,
    Seeding,
    Status,
    Tiebreak,
    Tournament,
    TournamentError,
    TournamentSpec,
)

__all__ = ["DATA_VERSION", "from_data", "to_data"]

#: The layout version written in every record (``"v"``).
DATA_VERSION = 1

E = TypeVar("E")


def to_data(t: Tournament) -> dict[str, Any]:
    """``t`` as JSON-ready data."""
    s = t.spec
    return {
        "v": DATA_VERSION,
        "spec": {
            "format": s.format.value,
            "name": s.name,
            "double_elimination": s.double_elimination,
            "rounds": s.rounds,
            "legs": s.legs,
            "divisions": s.divisions,
            "division_mode": s.division_mode.value,
            "seeding": s.seeding.value,
            "shuffle_seed": s.shuffle_seed,
            "team_size": s.team_size,
            "max_entrants": s.max_entrants,
            "round_seconds": s.round_seconds,
            "deadline_rule": s.deadline_rule.value,
            "walkover_points": s.walkover_points,
            "tiebreaks": [tb.value for tb in s.tiebreaks],
            "terms": [[k, v] for k, v in s.terms],
            "bye_rule": s.bye_rule.value,
        },
        "entrants": [{"id": e.id, "name": e.name, "members": list(e.members), "rating": e.rating} for e in t.entrants],
        "status": t.status.value,
        "round": t.round,
        "seeds": list(t.seeds),
        "divisions": [list(d) for d in t.divisions],
        "matches": [_match_data(m) for m in t.matches],
        "deadlines": list(t.deadlines),
        "withdrawn": list(t.withdrawn),
        "paused_at": t.paused_at,
        "planned_rounds": t.planned_rounds,
    }


def _match_data(m: Match) -> dict[str, Any]:
    r = m.result
    return {
        "id": m.id,
        "round": m.round,
        "a": m.a,
        "b": m.b,
        "result": None
        if r is None
        else {
            "winner": r.winner,
            "loser": r.loser,
            "winner_points": r.winner_points,
            "loser_points": r.loser_points,
            "how": r.how.value,
            "note": r.note,
        },
        "bracket": m.bracket.value,
        "stage": m.stage,
        "slot": m.slot,
        "feeds": list(m.feeds),
        "division": m.division,
        "game": m.game,
        "deadline": m.deadline,
    }


def from_data(data: Mapping[str, Any]) -> Tournament:
    """The tournament ``data`` (from :func:`to_data`) describes; TournamentError if it is damaged."""
    try:
        return _read(data)
    except TournamentError as exc:
        raise TournamentError(f"stored tournament is damaged: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TournamentError(f"stored tournament is damaged: {type(exc).__name__} {exc}") from None


def _read(d: Mapping[str, Any]) -> Tournament:
    if d.get("v") != DATA_VERSION:
        raise TournamentError(f"unknown layout version {d.get('v')!r}")
    s = d["spec"]
    spec = TournamentSpec(
        format=_enum(Format, s["format"]),
        name=_str(s["name"]),
        double_elimination=_bool(s["double_elimination"]),
        rounds=_int(s["rounds"]),
        legs=_int(s["legs"]),
        divisions=_int(s["divisions"]),
        division_mode=_enum(DivisionMode, s["division_mode"]),
        seeding=_enum(Seeding, s["seeding"]),
        shuffle_seed=_int(s["shuffle_seed"]),
        team_size=_int(s["team_size"]),
        max_entrants=_int(s["max_entrants"]),
        round_seconds=_opt(_num, s["round_seconds"]),
        deadline_rule=_enum(DeadlineRule, s["deadline_rule"]),
        walkover_points=_int(s["walkover_points"]),
        tiebreaks=tuple(_enum(Tiebreak, v) for v in _list(s["tiebreaks"])),
        terms=tuple((_str(k), _str(v)) for k, v in _list(s["terms"])),
        # Written since the bye rule exists; a tournament stored before it keeps the default.
        bye_rule=_enum(ByeRule, s.get("bye_rule", ByeRule.ONE_BYE.value)),
    )
    entrants = tuple(
        Entrant(_str(e["id"]), _str(e["name"]), tuple(_str(m) for m in _list(e["members"])), _opt(_num, e["rating"]))
        for e in _list(d["entrants"])
    )
    t = Tournament(
        spec=spec,
        entrants=entrants,
        status=_enum(Status, d["status"]),
        round=_int(d["round"]),
        seeds=tuple(_str(x) for x in _list(d["seeds"])),
        divisions=tuple(tuple(_str(x) for x in _list(div)) for div in _list(d["divisions"])),
        matches=tuple(_read_match(m) for m in _list(d["matches"])),
        deadlines=tuple(_opt(_num, x) for x in _list(d["deadlines"])),
        withdrawn=tuple(_str(x) for x in _list(d["withdrawn"])),
        paused_at=_opt(_num, d["paused_at"]),
        planned_rounds=_int(d["planned_rounds"]),
    )
    _check(t)
    return t


def _read_match(m: Mapping[str, Any]) -> Match:
    r = m["result"]
    result = None
    if r is not None:
        result = Result(
            _opt(_str, r["winner"]),
            _opt(_str, r["loser"]),
            _int(r["winner_points"]),
            _int(r["loser_points"]),
            _enum(How, r["how"]),
            _str(r["note"]),
        )
    feeds = _list(m["feeds"])
    if len(feeds) != 2:
        raise TournamentError(f"match {m['id']!r} must have two feeds")
    return Match(
        id=_str(m["id"]),
        round=_int(m["round"]),
        a=_opt(_str, m["a"]),
        b=_opt(_str, m["b"]),
        result=result,
        bracket=_enum(Bracket, m["bracket"]),
        stage=_int(m["stage"]),
        slot=_int(m["slot"]),
        feeds=(_str(feeds[0]), _str(feeds[1])),
        division=_int(m["division"]),
        game=_opt(_str, m["game"]),
        deadline=_opt(_num, m["deadline"]),
    )


def _check(t: Tournament) -> None:
    """The references inside hold together: every entrant, seed and match side names a known entrant, and
    every feed an earlier match."""
    ids = {e.id for e in t.entrants}
    if len(ids) != len(t.entrants):
        raise TournamentError("two entrants share an id")
    named = [*t.seeds, *t.withdrawn, *(x for d in t.divisions for x in d)]
    seen: set[str] = set()
    for m in t.matches:
        named.extend(m.entrants)
        if m.result is not None:
            named.extend(x for x in (m.result.winner, m.result.loser) if x is not None)
        for feed in m.feeds:
            if feed and (feed[:2] not in ("W:", "L:") or feed[2:] not in seen):
                raise TournamentError(f"match {m.id} is fed by an unknown match {feed!r}")
        if m.id in seen:
            raise TournamentError(f"two matches are called {m.id}")
        seen.add(m.id)
    unknown = sorted(set(named) - ids)
    if unknown:
        raise TournamentError(f"unknown entrant {unknown[0]!r}")


def _enum(kind: Callable[[str], E], value: Any) -> E:
    return kind(_str(value))


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TournamentError(f"expected text, found {value!r}"[:120])
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TournamentError(f"expected true or false, found {value!r}"[:120])
    return value


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TournamentError(f"expected a whole number, found {value!r}"[:120])
    return value


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TournamentError(f"expected a number, found {value!r}"[:120])
    return value


def _opt(read: Callable[[Any], E], value: Any) -> E | None:
    return None if value is None else read(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise TournamentError(f"expected a list, found {value!r}"[:120])
    return list(value)
