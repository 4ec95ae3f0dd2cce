"""Tournaments: knockouts (single or double elimination), leagues (round robin, with divisions) and Swiss.

Pure and synchronous, like the rest of the engine: a tournament is one immutable value
(:class:`Tournament`) and every step is a function returning a new one. Times are seconds passed in by the
caller. Entrants are opaque seats (one player, or a team in Backgammon Doubles); the rule set, match length
and clock are the service's business (kept, unread, in :attr:`TournamentSpec.terms`).

    t = new_tournament(TournamentSpec(Format.SWISS, name="Spring Swiss", rounds=4, round_seconds=7 * DAY))
    t = join(t, Entrant("p1", "Alice", ("p1",), rating=1620.0))       # ... and the others
    t = start(t, now)                                                  # seeded; round 1 paired
    for m in open_matches(t): ...                                      # start each match's game
    t = record_result(t, "R1-3", "p1", 7, 4)                           # as games end
    if round_complete(t): t = advance(t, now)                          # next round, or finished
    standings(t)                                                       # tables with named tiebreaks
    to_data(t) / from_data(data)                                       # JSON-ready, for compare-and-swap

A match whose round deadline passed is decided by :func:`decide` (the tournament's :class:`DeadlineRule`)
and recorded with ``how=How.DEADLINE`` and the decision's words.
"""

from .deadline import DeadlineDecision, SideFacts, decide, duration_words
from .model import (
    MAX_ENTRANTS,
    MIN_ENTRANTS,
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
    listed,
)
from .schedule import bracket_positions, bracket_size
from .serial import DATA_VERSION, from_data, to_data
from .standings import Standing, Standings
from .state import (
    advance,
    attach_game,
    champion,
    disqualify,
    expired_matches,
    extend_deadline,
    join,
    leave,
    match_of,
    match_of_game,
    new_tournament,
    note_words,
    open_matches,
    pairings,
    pause,
    record_result,
    replace_entrant,
    resume,
    round_complete,
    standings,
    start,
)

__all__ = [
    "DATA_VERSION",
    "MAX_ENTRANTS",
    "MIN_ENTRANTS",
    "Bracket",
    "ByeRule",
    "DeadlineDecision",
    "DeadlineRule",
    "DivisionMode",
    "Entrant",
    "Format",
    "How",
    "Match",
    "Result",
    "Seeding",
    "SideFacts",
    "Standing",
    "Standings",
    "Status",
    "Tiebreak",
    "Tournament",
    "TournamentError",
    "TournamentSpec",
    "advance",
    "attach_game",
    "bracket_positions",
    "bracket_size",
    "champion",
    "decide",
    "disqualify",
    "duration_words",
    "expired_matches",
    "extend_deadline",
    "from_data",
    "join",
    "leave",
    "listed",
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
    "to_data",
]
