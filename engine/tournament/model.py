"""The values a tournament is made of: its terms, its entrants, its matches and results, and the state itself.

Every value here is frozen; the transitions in :mod:`engine.tournament.state` return new ones. Entrants are
opaque to pairing: an entrant is a seat with an id, a name, the players who sit in it (one player, or a team of
two in Backgammon Doubles) and an optional rating for seeding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum, StrEnum

from engine.i18n import N_, _, listed, pgettext

from .swiss import ByeRule

__all__ = [
    "MAX_ENTRANTS",
    "MIN_ENTRANTS",
    "Bracket",
    "ByeRule",
    "DeadlineRule",
    "DivisionMode",
    "Entrant",
    "Format",
    "How",
    "Match",
    "Result",
    "Seeding",
    "Status",
    "Tiebreak",
    "Tournament",
    "TournamentError",
    "TournamentSpec",
    "listed",
]

MIN_ENTRANTS = 2
MAX_ENTRANTS = 256
MAX_SWISS_ROUNDS = 30
MAX_NAME = 100


class TournamentError(ValueError):
    """A tournament action that the tournament's state or terms refuse; the message says why, in words."""


class Format(StrEnum):
    """How entrants are paired: a knockout bracket, a round robin (league), or Swiss rounds."""

    KNOCKOUT = "knockout"
    ROUND_ROBIN = "round robin"
    SWISS = "swiss"

    @property
    def words(self) -> str:
        """The format as players read it, in the active language ("knockout", "round robin", "Swiss")."""
        if self is Format.KNOCKOUT:
            return pgettext("tournament format", "knockout")
        if self is Format.ROUND_ROBIN:
            return pgettext("tournament format", "round robin")
        return pgettext("tournament format", "Swiss")


class Seeding(StrEnum):
    """How the entrants are ranked before the first round."""

    #: Highest rating first; entrants without a rating follow in sign-up order.
    RATING = "rating"
    #: In the order they signed up.
    SIGNUP = "signup"
    #: A shuffle drawn from the tournament's ``shuffle_seed`` (so it is reproducible).
    SHUFFLE = "shuffle"


class DivisionMode(StrEnum):
    """How a league's entrants are split into divisions."""

    #: Division 1 takes the top seeds, division 2 the next ones, and so on.
    TIERS = "tiers"
    #: Seeds dealt out like cards (1, 2, 3, 3, 2, 1, ...) so the divisions are equally strong.
    BALANCED = "balanced"


class Status(StrEnum):
    SIGNUP = "signup"
    RUNNING = "running"
    FINISHED = "finished"


class How(StrEnum):
    """How a match was decided."""

    PLAYED = "played"
    WALKOVER = "walkover"
    #: The round's deadline passed and the tournament's deadline rule decided it.
    DEADLINE = "deadline"
    ADMIN = "admin"
    #: Set by the tournament only: one entrant had nobody to play.
    BYE = "bye"
    #: Set by the tournament only: a knockout match left without players (or a grand final reset not needed).
    VOID = "void"


#: What :func:`record_result` accepts; byes and void matches are the tournament's own doing.
RECORDABLE = frozenset({How.PLAYED, How.WALKOVER, How.DEADLINE, How.ADMIN})


class Bracket(StrEnum):
    """Which part of a tournament a match belongs to."""

    MAIN = "main"  # every match of a single knockout, a league or a Swiss
    WINNERS = "winners"
    LOSERS = "losers"
    FINAL = "final"  # the grand final of a double elimination (and its reset)


class DeadlineRule(StrEnum):
    """What decides a match still unfinished when its round's deadline passes (see :mod:`.deadline`)."""

    RECENT_ACTOR = "recent"
    PIP_COUNT = "pips"
    ADMIN = "admin"

    @property
    def words(self) -> str:
        """The rule as players read it (in the active language)."""
        return _(_RULE_WORDS[self])


_RULE_WORDS = {
    DeadlineRule.RECENT_ACTOR: N_("the player who acted more recently wins"),
    DeadlineRule.PIP_COUNT: N_("the higher pip count loses"),
    DeadlineRule.ADMIN: N_("an admin decides"),
}


class Tiebreak(StrEnum):
    """A tiebreak, applied after the score (wins). ``label`` heads its column; ``term`` names it; ``words`` names
    and explains it (each in the active language). :attr:`SEED` is the final one of every table (never a column):
    entrants level on everything else are ranked by seed."""

    HEAD_TO_HEAD = "head-to-head"
    POINTS_DIFFERENCE = "points difference"
    BUCHHOLZ = "Buchholz"
    MEDIAN_BUCHHOLZ = "median Buchholz"
    BUCHHOLZ_CUT1 = "Buchholz cut-1"
    SONNEBORN_BERGER = "Sonneborn-Berger"
    SEED = "seed"

    @property
    def label(self) -> str:
        return _(_LABELS[self])

    @property
    def term(self) -> str:
        return _(_TERMS[self])

    @property
    def words(self) -> str:
        return _(_TIEBREAK_WORDS[self])


#: Column headings: short, a table has a column per tiebreak.
_LABELS = {
    # Translators: the column heading of the head-to-head tiebreak (a few letters).
    Tiebreak.HEAD_TO_HEAD: N_("H2H"),
    # Translators: the column heading of the points difference tiebreak (a few characters).
    Tiebreak.POINTS_DIFFERENCE: N_("+/-"),
    # Translators: the column heading of the Buchholz tiebreak (a few letters).
    Tiebreak.BUCHHOLZ: N_("Buch"),
    # Translators: the column heading of the median Buchholz tiebreak (a few letters).
    Tiebreak.MEDIAN_BUCHHOLZ: N_("MBuch"),
    # Translators: the column heading of the Buchholz cut-1 tiebreak (a few letters).
    Tiebreak.BUCHHOLZ_CUT1: N_("Bc1"),
    # Translators: the column heading of the Sonneborn-Berger tiebreak (a few letters).
    Tiebreak.SONNEBORN_BERGER: N_("SB"),
    # Translators: the heading of the seed (a few letters).
    Tiebreak.SEED: N_("Seed"),
}
_TERMS = {
    Tiebreak.HEAD_TO_HEAD: N_("head-to-head"),
    Tiebreak.POINTS_DIFFERENCE: N_("points difference"),
    Tiebreak.BUCHHOLZ: N_("Buchholz"),
    Tiebreak.MEDIAN_BUCHHOLZ: N_("median Buchholz"),
    Tiebreak.BUCHHOLZ_CUT1: N_("Buchholz cut-1"),
    Tiebreak.SONNEBORN_BERGER: N_("Sonneborn-Berger"),
    Tiebreak.SEED: N_("seed"),
}
_TIEBREAK_WORDS = {
    Tiebreak.HEAD_TO_HEAD: N_("head-to-head (wins against the entrants level with you)"),
    Tiebreak.POINTS_DIFFERENCE: N_("points difference (points won minus points lost)"),
    Tiebreak.BUCHHOLZ: N_("Buchholz (the sum of your opponents' scores)"),
    Tiebreak.MEDIAN_BUCHHOLZ: N_("median Buchholz (the same without your best and worst opponent)"),
    Tiebreak.BUCHHOLZ_CUT1: N_("Buchholz cut-1 (the same without your worst opponent)"),
    Tiebreak.SONNEBORN_BERGER: N_("Sonneborn-Berger (the sum of the scores of the opponents you beat)"),
    Tiebreak.SEED: N_("seed (the higher seed first)"),
}


@dataclass(frozen=True, slots=True)
class Entrant:
    """A seat in the tournament: one player, or a team (``members`` of two) in Backgammon Doubles.

    ``id`` is the seat and never changes (a replacement takes the seat over); ``members`` are the service's
    player ids; ``rating`` seeds the bracket when the tournament seeds by rating.
    """

    id: str
    name: str
    members: tuple[str, ...]
    rating: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or len(self.id) > MAX_NAME:
            raise TournamentError(_("an entrant needs an id of 1 to {most} characters").format(most=MAX_NAME))
        if not isinstance(self.name, str) or not self.name.strip() or len(self.name) > MAX_NAME:
            raise TournamentError(_("an entrant needs a name of 1 to {most} characters").format(most=MAX_NAME))
        if not self.members or len(set(self.members)) != len(self.members):
            raise TournamentError(_("{name}: an entrant needs one or more different players").format(name=self.name))
        if not all(isinstance(m, str) and m for m in self.members):
            raise TournamentError(_("{name}: a player id must be a non-empty string").format(name=self.name))
        r = self.rating
        if r is not None and (isinstance(r, bool) or not isinstance(r, int | float) or not math.isfinite(r)):
            raise TournamentError(_("{name}: a rating must be a finite number").format(name=self.name))


@dataclass(frozen=True, slots=True)
class Result:
    """How a match ended: its winner and loser (None for the missing side of a bye; both None when void),
    each one's points, how it was decided, and the words announced with it (a deadline rule's, an admin's)."""

    winner: str | None
    loser: str | None
    winner_points: int = 0
    loser_points: int = 0
    how: How = How.PLAYED
    note: str = ""


@dataclass(frozen=True, slots=True)
class Match:
    """A pairing: entrants ``a`` and ``b`` (None while unknown, or for a bye), played in tournament ``round``.

    Knockout matches exist from the start: ``feeds`` say where a side comes from (``"W:R1-3"`` the winner of
    R1-3, ``"L:W2-1"`` the loser of W2-1, ``""`` placed by the seeding), ``bracket``/``stage``/``slot`` place the
    match in its bracket picture. League and Swiss matches are made round by round. ``game`` is the service's
    game for this match; ``deadline`` (seconds, like every time here) overrides the round's.
    """

    id: str
    round: int
    a: str | None
    b: str | None
    result: Result | None = None
    bracket: Bracket = Bracket.MAIN
    stage: int = 0
    slot: int = 0
    feeds: tuple[str, str] = ("", "")
    division: int = 0
    game: str | None = None
    deadline: float | None = None

    @property
    def entrants(self) -> tuple[str, ...]:
        """The entrants known to sit in this match (zero, one or two)."""
        return tuple(e for e in (self.a, self.b) if e is not None)

    @property
    def is_bye(self) -> bool:
        return self.result is not None and self.result.how is How.BYE

    @property
    def decided(self) -> bool:
        return self.result is not None

    def opponent(self, entrant: str) -> str | None:
        """The other side of the match for ``entrant`` (None for a bye)."""
        return self.b if entrant == self.a else self.a


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """A tournament's terms, fixed when it is created.

    ``terms`` is opaque to the engine: (key, value) pairs the service keeps with the tournament (the rule set,
    match length, options, clock). ``round_seconds`` is each round's time limit (None: rounds have no deadline);
    ``walkover_points`` is what a walkover or a bye credits to the winner (the loser gets 0).
    ``tiebreaks`` empty means the format's usual ones (:meth:`effective_tiebreaks`). ``bye_rule``: in a Swiss,
    whether a second bye or a rematch is given when nobody can be spared both (:class:`ByeRule`).
    """

    format: Format
    name: str = ""
    double_elimination: bool = False
    rounds: int = 0
    legs: int = 1
    divisions: int = 1
    division_mode: DivisionMode = DivisionMode.TIERS
    seeding: Seeding = Seeding.RATING
    shuffle_seed: int = 0
    team_size: int = 1
    max_entrants: int = MAX_ENTRANTS
    round_seconds: float | None = None
    deadline_rule: DeadlineRule = DeadlineRule.ADMIN
    walkover_points: int = 0
    tiebreaks: tuple[Tiebreak, ...] = ()
    terms: tuple[tuple[str, str], ...] = ()
    bye_rule: ByeRule = ByeRule.ONE_BYE

    def __post_init__(self) -> None:
        # The enumerated terms may be given by their values ("swiss", "pips"): the service reads them as text.
        for name, kind, what in _ENUM_TERMS:
            value = getattr(self, name)
            if not isinstance(value, kind):
                try:
                    object.__setattr__(self, name, kind(value))
                except ValueError:
                    choices = ", ".join(repr(v.value) for v in kind)
                    raise TournamentError(
                        _("{what} must be one of {choices}, not {value}").format(
                            what=_(what), choices=choices, value=repr(value)[:100]
                        )
                    ) from None
        try:
            object.__setattr__(self, "tiebreaks", tuple(Tiebreak(v) for v in self.tiebreaks))
        except ValueError:
            raise TournamentError(
                _("unknown tiebreak in {tiebreaks}").format(tiebreaks=repr(self.tiebreaks)[:150])
            ) from None
        if self.double_elimination and self.format is not Format.KNOCKOUT:
            raise TournamentError(_("only a knockout can be double elimination"))
        if self.format is Format.SWISS and not 0 <= self.rounds <= MAX_SWISS_ROUNDS:
            raise TournamentError(
                _("a Swiss has 1 to {most} rounds (0: as many as it takes)").format(most=MAX_SWISS_ROUNDS)
            )
        if self.format is not Format.SWISS and self.rounds != 0:
            raise TournamentError(_("only a Swiss sets its number of rounds"))
        if self.legs not in (1, 2):
            raise TournamentError(_("in a league each pair meets once or twice"))
        if not 1 <= self.divisions <= MAX_ENTRANTS // 2:
            raise TournamentError(_("a league has 1 or more divisions, each of two or more entrants"))
        if self.divisions > 1 and self.format is not Format.ROUND_ROBIN:
            raise TournamentError(_("only a league (round robin) has divisions"))
        if self.team_size not in (1, 2):
            raise TournamentError(_("an entrant is one player or a team of two"))
        if not MIN_ENTRANTS <= self.max_entrants <= MAX_ENTRANTS:
            raise TournamentError(
                _("a tournament takes {least} to {most} entrants").format(least=MIN_ENTRANTS, most=MAX_ENTRANTS)
            )
        rs = self.round_seconds
        if rs is not None and (isinstance(rs, bool) or not isinstance(rs, int | float) or not 0 < rs < math.inf):
            raise TournamentError(_("a round's time limit must be a positive number of seconds"))
        if isinstance(self.walkover_points, bool) or not 0 <= self.walkover_points <= 1000:
            raise TournamentError(_("a walkover is worth 0 to 1000 points"))
        allowed = _ALLOWED_TIEBREAKS[self.format]
        if any(t not in allowed for t in self.tiebreaks) or len(set(self.tiebreaks)) != len(self.tiebreaks):
            names = listed([t.term for t in allowed]) or pgettext("tiebreaks", "nothing")
            raise TournamentError(
                _("a {format} breaks ties by {tiebreaks} (each at most once)").format(
                    format=self.format.words, tiebreaks=names
                )
            )

    @property
    def is_knockout(self) -> bool:
        return self.format is Format.KNOCKOUT

    def effective_tiebreaks(self) -> tuple[Tiebreak, ...]:
        """The tiebreaks applied after the score, in order."""
        return self.tiebreaks or _DEFAULT_TIEBREAKS[self.format]

    def term(self, key: str, default: str = "") -> str:
        """The value the service stored under ``key`` in :attr:`terms`."""
        return dict(self.terms).get(key, default)


_ENUM_TERMS: tuple[tuple[str, type[Enum], str], ...] = (
    ("format", Format, N_("the format")),
    ("division_mode", DivisionMode, N_("the division mode")),
    ("seeding", Seeding, N_("the seeding")),
    ("deadline_rule", DeadlineRule, N_("the deadline rule")),
    ("bye_rule", ByeRule, N_("the bye rule")),
)
_DEFAULT_TIEBREAKS = {
    Format.ROUND_ROBIN: (Tiebreak.HEAD_TO_HEAD, Tiebreak.POINTS_DIFFERENCE),
    Format.SWISS: (Tiebreak.BUCHHOLZ, Tiebreak.MEDIAN_BUCHHOLZ, Tiebreak.POINTS_DIFFERENCE),
    Format.KNOCKOUT: (),
}
_ALLOWED_TIEBREAKS = {
    Format.ROUND_ROBIN: (Tiebreak.HEAD_TO_HEAD, Tiebreak.POINTS_DIFFERENCE),
    Format.SWISS: (
        Tiebreak.BUCHHOLZ,
        Tiebreak.MEDIAN_BUCHHOLZ,
        Tiebreak.BUCHHOLZ_CUT1,
        Tiebreak.SONNEBORN_BERGER,
        Tiebreak.POINTS_DIFFERENCE,
        Tiebreak.HEAD_TO_HEAD,
    ),
    Format.KNOCKOUT: (),
}


@dataclass(frozen=True, slots=True)
class Tournament:
    """The whole state of a tournament, as one immutable value (stored as JSON by the service).

    ``entrants`` are in sign-up order; ``seeds`` lists entrant ids from the top seed down (empty before the
    start); ``divisions`` the entrant ids of each league division in seed order; ``round`` is the current round
    (0 before the start); ``deadlines[r - 1]`` is round r's deadline; ``withdrawn`` the disqualified entrants
    (sorted). ``paused_at`` is when an admin paused it (None: running normally). ``planned_rounds`` is the number
    of rounds the tournament will last, set at the start (a double elimination's may end one round early, when
    the grand final needs no reset).
    """

    spec: TournamentSpec
    entrants: tuple[Entrant, ...] = ()
    status: Status = Status.SIGNUP
    round: int = 0
    seeds: tuple[str, ...] = ()
    divisions: tuple[tuple[str, ...], ...] = ()
    matches: tuple[Match, ...] = ()
    deadlines: tuple[float | None, ...] = ()
    withdrawn: tuple[str, ...] = ()
    paused_at: float | None = None
    planned_rounds: int = 0
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @property
    def finished(self) -> bool:
        return self.status is Status.FINISHED

    def entrant(self, entrant_id: str) -> Entrant:
        """The entrant with this id; TournamentError when there is none."""
        for e in self.entrants:
            if e.id == entrant_id:
                return e
        raise TournamentError(_("no entrant {entrant} in this tournament").format(entrant=repr(entrant_id)))

    def entrant_of(self, player: str) -> Entrant | None:
        """The entrant ``player`` plays in (alone or in a team), if any."""
        for e in self.entrants:
            if player in e.members:
                return e
        return None

    def name(self, entrant_id: str | None) -> str:
        """An entrant's name ("bye" for None)."""
        if entrant_id is None:
            return pgettext("tournament", "bye")
        return self.entrant(entrant_id).name

    def seed(self, entrant_id: str) -> int:
        """An entrant's seed, 1 for the top seed (sign-up position before the start)."""
        order = self.seeds or tuple(e.id for e in self.entrants)
        return order.index(entrant_id) + 1

    def match(self, match_id: str) -> Match:
        """The match with this id; TournamentError when there is none."""
        return self.matches[self.match_position(match_id)]

    def match_position(self, match_id: str) -> int:
        """Where the match with this id sits in :attr:`matches`; TournamentError when there is none."""
        if not self._index:
            self._index.update((m.id, i) for i, m in enumerate(self.matches))
        i = self._index.get(match_id)
        if i is None:
            raise TournamentError(_("no match {match} in this tournament").format(match=repr(match_id)))
        return i

    def round_deadline(self, number: int | None = None) -> float | None:
        """Round ``number``'s deadline (the current round's by default)."""
        r = self.round if number is None else number
        return self.deadlines[r - 1] if 1 <= r <= len(self.deadlines) else None

    def deadline_of(self, match: Match) -> float | None:
        """When ``match`` must be finished: its own deadline, else its round's."""
        return match.deadline if match.deadline is not None else self.round_deadline(match.round)

    def last_round(self) -> int:
        """The number of the last round scheduled so far (knockouts and leagues schedule every round at the start)."""
        return max((m.round for m in self.matches), default=0)
